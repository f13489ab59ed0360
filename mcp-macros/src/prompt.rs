//! `#[prompt]`: a function whose string arguments are a prompt's arguments and whose result is its messages.

use crate::ast::{option_inner, Function, Kind};
use crate::attr::{self, Errors, PromptAttr};
use crate::valid;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

pub fn expand(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let mut item: syn::ItemFn = syn::parse2(input)
        .map_err(|_| syn::Error::new(Span::call_site(), "`#[prompt]` goes on a function"))?;
    let mut errors = Errors::default();
    let attr = attr::parse::<PromptAttr>(args).unwrap_or_else(|e| {
        errors.push(e);
        PromptAttr::default()
    });
    let f = Function::read(&mut item.sig, &item.attrs, Kind::Prompt, false)
        .map_err(|e| errors.push(e))
        .ok();
    let cache = attr::cache_hints(&attr.ttl_ms, &attr.cache_scope, &mut errors);
    if let Some(f) = &f {
        valid::documented_arguments(f, &mut errors);
        if let Some(n) = &attr.name {
            if n.is_empty() {
                errors.push(syn::Error::new(n.span(), "a prompt name cannot be empty"));
            }
        }
    }
    if let Err(e) = errors.finish() {
        let e = e.into_compile_error();
        return Ok(quote!(#item #e));
    }
    let f = f.expect("no errors");
    let name = attr
        .name
        .as_ref()
        .map_or_else(|| f.name(), |n| n.to_string());
    let description = opt_string(attr.description.clone().or_else(|| f.doc.text.clone()));
    let title = opt_string(attr.title.clone());

    let mut arguments = Vec::new();
    let mut reads = Vec::new();
    for a in f.values() {
        let key = &a.key;
        let ident = &a.ident;
        let ty = &a.ty;
        let desc = opt_string(a.description.clone());
        let required = if a.optional {
            quote!(::core::option::Option::None)
        } else {
            quote!(::core::option::Option::Some(true))
        };
        arguments.push(quote! {{
            let mut a = ::mcp_runtime::protocol::PromptArgument::default();
            a.name = ::std::string::String::from(#key);
            a.description = #desc;
            a.required = #required;
            a
        }});
        let (inner, read) = match option_inner(ty) {
            Some(inner) => (inner, quote!(optional)),
            None => (ty, quote!(required)),
        };
        reads.push(quote_spanned! {ty.span()=>
            let #ident: #ty = ::mcp_runtime::schema::__private::StringArg::#read::<#inner>(#key, __args.get(#key))?;
        });
    }
    let arguments = if arguments.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(::std::vec![#(#arguments),*]))
    };
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
    let convert = quote_spanned!(f.output.span=> ::mcp_runtime::server::IntoPromptResult::into_prompt_result(__ret));
    let vis = &item.vis;
    let route_fn = format_ident!("{}_prompt", f.ident.unraw(), span = f.ident.span());
    let doc = format!("The MCP prompt made by `#[prompt]` from [`{}`]: register it with `Server::builder().prompt({route_fn}())`.", f.ident.unraw());
    Ok(quote! {
        #item
        #[doc = #doc]
        #[allow(clippy::all)]
        #vis fn #route_fn() -> ::mcp_runtime::server::PromptRoute {
            let mut __prompt = ::mcp_runtime::protocol::Prompt::default();
            __prompt.name = ::std::string::String::from(#name);
            __prompt.title = #title;
            __prompt.description = #description;
            __prompt.arguments = #arguments;
            ::mcp_runtime::server::PromptRoute::new(__prompt, |__args: ::mcp_runtime::server::PromptArgs, __ctx: ::mcp_runtime::Context| async move {
                #(#reads)*
                let __ret = #call;
                #convert
            })#cache
        }
    })
}

pub fn opt_string(s: Option<String>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(::std::string::String::from(#s))),
        None => quote!(::core::option::Option::None),
    }
}
