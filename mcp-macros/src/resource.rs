//! `#[resource(uri = "...")]`: a function that reads a fixed resource, or the resources of an RFC 6570
//! URI template whose variables are its arguments.

use crate::ast::{option_inner, Function, Kind};
use crate::attr::{self, Errors, ResourceAttr};
use crate::prompt::opt_string;
use crate::valid;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

pub fn expand(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let mut item: syn::ItemFn = syn::parse2(input)
        .map_err(|_| syn::Error::new(Span::call_site(), "`#[resource]` goes on a function"))?;
    let mut errors = Errors::default();
    let attr = match attr::parse::<ResourceAttr>(args) {
        Ok(a) => Some(a),
        Err(e) if e.to_string().contains("Missing field `uri`") => {
            errors.push(syn::Error::new(Span::call_site(), "`#[resource]` needs `uri = \"...\"`: a fixed URI (`jira://projects`) or an RFC 6570 template (`jira://issue/{key}`)"));
            None
        }
        Err(e) => {
            errors.push(e);
            None
        }
    };
    let f = Function::read(&mut item.sig, &item.attrs, Kind::Resource, false)
        .map_err(|e| errors.push(e))
        .ok();
    let vars = attr
        .as_ref()
        .map(|a| template_variables(&a.uri).map_err(|msg| syn::Error::new(a.uri.span(), msg)));
    let vars = match vars {
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            errors.push(e);
            None
        }
        None => None,
    };
    let cache = match &attr {
        Some(a) => attr::cache_hints(&a.ttl_ms, &a.cache_scope, &mut errors),
        None => proc_macro2::TokenStream::new(),
    };
    if let (Some(f), Some(attr), Some(vars)) = (&f, &attr, &vars) {
        valid::documented_arguments(f, &mut errors);
        let template = attr.uri.contains('{');
        for a in f.values() {
            if !template {
                errors.push(syn::Error::new(a.ident.span(), format!("`{}` is not a variable of the resource URI: a resource with a fixed URI takes no arguments except `Context`; for a URI template write `uri = \"scheme://.../{{{}}}\"`", a.ident, a.ident)));
            } else if !vars.contains(&a.key) {
                errors.push(syn::Error::new(
                    a.ident.span(),
                    format!(
                        "`{}` is not a variable of the URI template `{}`",
                        a.key, *attr.uri
                    ),
                ));
            }
        }
        for v in vars.iter() {
            if !f.values().any(|a| a.key == *v) {
                errors.push(syn::Error::new(attr.uri.span(), format!("the URI template variable `{v}` has no argument: add `{v}: String` (or any `FromStr` type) to the function")));
            }
        }
    }
    if let Err(e) = errors.finish() {
        let e = e.into_compile_error();
        return Ok(quote!(#item #e));
    }
    let (f, attr) = (f.expect("no errors"), attr.expect("no errors"));
    let uri = attr.uri.as_str();
    let name = attr.name.clone().unwrap_or_else(|| f.name());
    let title = opt_string(attr.title.clone());
    let description = opt_string(attr.description.clone().or_else(|| f.doc.text.clone()));
    let mime = opt_string(attr.mime_type.clone());
    let mime_ref = match &attr.mime_type {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let mut reads = Vec::new();
    for a in f.values() {
        let (key, ident, ty) = (&a.key, &a.ident, &a.ty);
        let (inner, read) = match option_inner(ty) {
            Some(inner) => (inner, quote!(optional)),
            None => (ty, quote!(required)),
        };
        reads.push(quote_spanned! {ty.span()=>
            let #ident: #ty = ::mcp_runtime::schema::__private::StringArg::#read::<#inner>(#key, __vars.get(#key))?;
        });
    }
    let call_args = f.args.iter().map(|a| {
        if a.context {
            quote!(::core::clone::Clone::clone(&__ctx))
        } else {
            let i = &a.ident;
            quote!(#i)
        }
    });
    let ident = &f.ident;
    let call = if f.is_async {
        quote!(#ident(#(#call_args),*).await)
    } else {
        quote!(#ident(#(#call_args),*))
    };
    let convert = quote_spanned!(f.output.span=> ::mcp_runtime::server::IntoResourceResult::into_resource_result(__ret, &__uri, #mime_ref));
    let handler = quote! {
        |__uri: ::std::string::String, __vars: ::mcp_runtime::server::UriVars, __ctx: ::mcp_runtime::Context| async move {
            #(#reads)*
            let __ret = #call;
            #convert
        }
    };
    let vis = &item.vis;
    let route_fn = format_ident!("{}_resource", f.ident.unraw(), span = f.ident.span());
    let body = if attr.uri.contains('{') {
        let doc = format!("The MCP resource template made by `#[resource]` from [`{}`]: register it with `Server::builder().resource_template({route_fn}())`.", f.ident.unraw());
        quote! {
            #[doc = #doc]
            #[allow(clippy::all)]
            #vis fn #route_fn() -> ::core::result::Result<::mcp_runtime::server::ResourceTemplateRoute, ::std::string::String> {
                let mut __t = ::mcp_runtime::protocol::ResourceTemplate::default();
                __t.uri_template = ::std::string::String::from(#uri);
                __t.name = ::std::string::String::from(#name);
                __t.title = #title;
                __t.description = #description;
                __t.mime_type = #mime;
                ::mcp_runtime::server::ResourceTemplateRoute::new(__t, #handler).map(|__t| __t #cache)
            }
        }
    } else {
        let doc = format!("The MCP resource made by `#[resource]` from [`{}`]: register it with `Server::builder().resource({route_fn}())`.", f.ident.unraw());
        quote! {
            #[doc = #doc]
            #[allow(clippy::all)]
            #vis fn #route_fn() -> ::mcp_runtime::server::ResourceRoute {
                let mut __r = ::mcp_runtime::protocol::Resource::default();
                __r.uri = ::std::string::String::from(#uri);
                __r.name = ::std::string::String::from(#name);
                __r.title = #title;
                __r.description = #description;
                __r.mime_type = #mime;
                ::mcp_runtime::server::ResourceRoute::new(__r, #handler)#cache
            }
        }
    };
    Ok(quote!(#item #body))
}

/// The variable names of an RFC 6570 template (levels 1 to 3), or why it is malformed.
fn template_variables(t: &str) -> Result<Vec<String>, String> {
    let mut vars = Vec::new();
    let mut rest = t;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(format!("unmatched `}}` in the URI template `{t}`"));
        }
        let close = rest[open + 1..].find(['{', '}']).map(|i| i + open + 1);
        let close = match close {
            Some(c) if rest[c..].starts_with('}') => c,
            _ => return Err(format!("unclosed `{{` in the URI template `{t}`")),
        };
        let expr = &rest[open + 1..close];
        let op = expr
            .chars()
            .next()
            .filter(|c| !c.is_ascii_alphanumeric() && *c != '_');
        let names = if op.is_some() { &expr[1..] } else { expr };
        match op {
            None | Some('+') | Some('#') if names.contains(',') => {
                return Err(format!("`{{{expr}}}` in the URI template `{t}` has several variables: only `{{?a,b}}` and `{{&a,b}}` may"));
            }
            None | Some('+' | '#' | '?' | '&') => {}
            Some(c) => return Err(format!("the `{c}` operator in `{{{expr}}}` is not supported: use `{{var}}`, `{{+var}}`, `{{#var}}`, `{{?a,b}}` or `{{&a,b}}`")),
        }
        for n in names.split(',') {
            let n = n.trim_end_matches('*');
            let n = n.split(':').next().unwrap_or_default();
            if n.is_empty() || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("`{{{expr}}}` in the URI template `{t}` is not a valid variable: use letters, digits and `_`"));
            }
            vars.push(n.to_string());
        }
        rest = &rest[close + 1..];
    }
    Ok(vars)
}
