//! `#[tool]` and `#[tools]`: the model in, the generated tool definition out.

use crate::ast::{Function, Kind};
use crate::attr::{self, DefaultValue, Errors, TaskAttr, ToolAttr};
use crate::valid;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{ImplItem, Meta};

pub fn tool(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let attr = attr::parse::<ToolAttr>(args);
    if attr.as_ref().is_ok_and(|a| a.method_marker) {
        // A method `#[tools]` has already read; it stays as it is.
        return Ok(input);
    }
    let mut item: syn::ItemFn = syn::parse2(input.clone()).map_err(|_| {
        syn::Error::new(
            Span::call_site(),
            "`#[tool]` goes on a function (or, inside a `#[tools]` impl block, on a method)",
        )
    })?;
    let mut errors = Errors::default();
    let attr = attr.unwrap_or_else(|e| {
        errors.push(e);
        ToolAttr::default()
    });
    let f = match Function::read(&mut item.sig, &item.attrs, Kind::Tool, false) {
        Ok(f) => Some(f),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    if let Some(f) = &f {
        valid::tool(&attr, f, &mut errors);
    }
    if let Err(e) = errors.finish() {
        let e = e.into_compile_error();
        return Ok(quote!(#item #e));
    }
    let f = f.expect("no errors");
    let (items, def) = tool_def(&attr, &f, false);
    let vis = &item.vis;
    let route_fn = format_ident!("{}_tool", f.ident.unraw(), span = f.ident.span());
    let doc = format!(
        "The MCP tool made by `#[tool]` from [`{0}`]: register it with `Server::builder().tool({1}())`.",
        f.ident.unraw(),
        route_fn
    );
    // The argument struct sits beside the function (not inside the route function), so that it and
    // what serde and schemars derive for it are items of the module, as a hand-written one would be.
    Ok(quote! {
        #item
        #items
        #[doc = #doc]
        #[allow(clippy::all)]
        #vis fn #route_fn() -> ::mcp_runtime::schema::ToolDef {
            #def
        }
    })
}

pub fn tools(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let mut imp: syn::ItemImpl = syn::parse2(input).map_err(|_| {
        syn::Error::new(
            Span::call_site(),
            "`#[tools]` goes on an impl block whose methods are marked `#[tool]`",
        )
    })?;
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.push_spanned(
            &args,
            "`#[tools]` takes no arguments; put tool options on each method's `#[tool(...)]`",
        );
    }
    if let Some((path, _)) = &imp.trait_ {
        errors.push_spanned(
            path,
            "`#[tools]` goes on an inherent impl block (`impl Type { ... }`), not on a trait impl",
        );
    }
    if !imp.generics.params.is_empty() {
        errors.push_spanned(&imp.generics, "`#[tools]` cannot be used on a generic impl block: the tools' schemas are made from concrete types");
    }
    let mut defs = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for item in imp.items.iter_mut() {
        let ImplItem::Fn(m) = item else { continue };
        let Some(pos) = m
            .attrs
            .iter()
            .position(|a| a.path().segments.last().is_some_and(|s| s.ident == "tool"))
        else {
            continue;
        };
        let tokens = match &m.attrs[pos].meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(l) => l.tokens.clone(),
            Meta::NameValue(nv) => {
                errors.push_spanned(nv, "write `#[tool]` or `#[tool(...)]`");
                continue;
            }
        };
        let path = m.attrs[pos].path().clone();
        m.attrs[pos] = syn::parse_quote!(#[#path(__method)]);
        let attr = match attr::parse::<ToolAttr>(tokens) {
            Ok(a) => a,
            Err(e) => {
                errors.push(e);
                ToolAttr::default()
            }
        };
        let f = match Function::read(&mut m.sig, &m.attrs, Kind::Tool, true) {
            Ok(f) => f,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        valid::tool(&attr, &f, &mut errors);
        let name = attr
            .name
            .as_ref()
            .map_or_else(|| f.name(), |n| n.to_string());
        let span = attr.name.as_ref().map_or(f.ident.span(), |n| n.span());
        if names.contains(&name) {
            errors.push(syn::Error::new(span, format!("duplicate tool name `{name}`: another `#[tool]` in this impl block already has it")));
        }
        names.push(name);
        let (items, def) = tool_def(&attr, &f, true);
        defs.push(quote!(#items #def));
    }
    if defs.is_empty() && errors.is_empty() {
        errors.push_spanned(
            &imp.self_ty,
            "this `#[tools]` impl block has no `#[tool]` method",
        );
    }
    if let Err(e) = errors.finish() {
        let e = e.into_compile_error();
        return Ok(quote!(#imp #e));
    }
    let self_ty = &imp.self_ty;
    Ok(quote! {
        #imp
        #[allow(clippy::all)]
        impl #self_ty {
            /// The `#[tool]` methods of this type as tools, sharing this value; register them with
            /// `Server::builder().tools(value.tool_routes())`. Schemas are in the portable profile.
            pub fn tool_routes(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::mcp_runtime::server::ToolRoute> {
                Self::tool_routes_with(self, ::mcp_runtime::schema::SchemaProfile::Portable)
            }
            /// [`Self::tool_routes`] with the schemas in the given profile.
            pub fn tool_routes_with(
                self: ::std::sync::Arc<Self>,
                profile: ::mcp_runtime::schema::SchemaProfile,
            ) -> ::std::vec::Vec<::mcp_runtime::server::ToolRoute> {
                Self::tool_defs(self).into_iter().map(|d| d.profile(profile)).collect()
            }
            /// The `#[tool]` methods of this type as tool definitions.
            pub fn tool_defs(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::mcp_runtime::schema::ToolDef> {
                ::std::vec![#({
                    let __this = ::std::sync::Arc::clone(&self);
                    #defs
                }),*]
            }
        }
    })
}

/// The items one function's tool needs (its argument struct, with the functions giving its defaults)
/// and the expression building its `ToolDef`. With `method`, `__this: Arc<Self>` is in scope.
///
/// What does not depend on the tool's types is left to `ToolSpec` in the runtime, compiled once: the
/// expansion is the argument struct (what a hand-written tool needs too), a builder chain of the tool's
/// constant metadata, and one closure that calls the function.
fn tool_def(attr: &ToolAttr, f: &Function, method: bool) -> (TokenStream, TokenStream) {
    // Checked by `valid::tool` already; errors here cannot happen.
    let cache = attr::cache_hints(&attr.ttl_ms, &attr.cache_scope, &mut Errors::default());
    let name = attr
        .name
        .as_ref()
        .map_or_else(|| f.name(), |n| n.to_string());
    let description = attr
        .description
        .clone()
        .or_else(|| f.doc.text.clone())
        .map(|d| quote!(.description(#d)));
    let annotations = annotations(attr);
    let task = attr.task.map(|t| {
        let v = match t {
            TaskAttr::Forbidden => quote!(Forbidden),
            TaskAttr::Optional => quote!(Optional),
            TaskAttr::Required => quote!(Required),
        };
        quote!(.task(::mcp_runtime::protocol::TaskSupport::#v))
    });
    let scopes = attr.scopes.as_ref().map(|s| {
        let s = &s.0;
        quote!(.require_scopes([#(#s),*]))
    });
    let values: Vec<_> = f.values().collect();
    let args_ty = format_ident!("__{}_Arguments", f.ident.unraw());

    let mut fields = Vec::new();
    let mut default_fns = Vec::new();
    let mut checks = Vec::new();
    for a in &values {
        let ident = &a.ident;
        let ty = &a.ty;
        let mut attrs = Vec::new();
        if a.has_rename {
            let key = &a.key;
            attrs.push(quote!(#[serde(rename = #key)]));
        }
        if let Some(d) = &a.default {
            let fname = format_ident!("__default_{}", ident.unraw());
            let path = format!("{args_ty}::{fname}");
            attrs.push(quote!(#[serde(default = #path)]));
            let body = match &**d {
                DefaultValue::Trait => quote!(::core::default::Default::default()),
                DefaultValue::Expr(e) if d.is_string_literal() => {
                    quote_spanned!(e.span()=> ::core::convert::Into::into(#e))
                }
                DefaultValue::Expr(e) => quote_spanned!(e.span()=> #e),
            };
            default_fns.push(quote!(fn #fname() -> #ty { #body }));
        }
        if let Some(d) = &a.description {
            attrs.push(quote!(#[schemars(description = #d)]));
        }
        if let Some(h) = &a.header {
            let h = h.as_str();
            attrs.push(quote!(#[schemars(extend("x-mcp-header" = #h))]));
        }
        let fwd = &a.forwarded;
        fields.push(quote!(#(#attrs)* #(#fwd)* #ident: #ty));
        checks.push(quote_spanned! {ty.span()=>
            __m::assert_argument_schema::<#ty>();
            __m::assert_argument_deserialize::<#ty>();
        });
    }

    // Arguments whose types serde and schemars know, with no attribute of theirs, are decoded and
    // described by the runtime's code (`schema/arguments.rs`) rather than by derives expanded per tool.
    let direct = values
        .iter()
        .all(|a| a.forwarded.is_empty() && known_type(&a.ty));
    let (items, input_schema, build, arg) = if values.is_empty() {
        (
            quote!(),
            quote!(::mcp_runtime::schema::no_arguments()),
            quote!(build_bare),
            quote!(_: ()),
        )
    } else if direct {
        checks.clear();
        (
            direct_items(&args_ty, &values, &default_fns),
            quote!(__p.input_schema::<#args_ty>()),
            quote!(build_parsed),
            quote!(__a: #args_ty),
        )
    } else {
        let default_impl = (!default_fns.is_empty()).then(|| {
            quote! {
                #[allow(non_snake_case)]
                impl #args_ty { #(#default_fns)* }
            }
        });
        (
            quote! {
                #[derive(::mcp_runtime::serde::Deserialize, ::mcp_runtime::schema::__private::SchemarsJsonSchema)]
                #[serde(crate = "::mcp_runtime::serde")]
                #[schemars(crate = "::mcp_runtime::schemars")]
                #[allow(non_camel_case_types, dead_code)]
                #[doc(hidden)]
                struct #args_ty { #(#fields),* }
                #default_impl
            },
            quote!(__p.input_schema::<#args_ty>()),
            quote!(build),
            quote!(__a: #args_ty),
        )
    };
    let checks = (!checks.is_empty()).then(|| {
        quote! {
            #[allow(dead_code)]
            fn __check_argument_types() { #(#checks)* }
        }
    });

    let call_args = f.args.iter().map(|a| {
        if a.context {
            quote!(::core::clone::Clone::clone(&__ctx))
        } else {
            let ident = &a.ident;
            quote!(__a.#ident)
        }
    });
    let ident = &f.ident;
    let callee = match (&f.receiver, method) {
        (Some(_), _) => quote!(__this.#ident),
        (None, true) => quote!(Self::#ident),
        (None, false) => quote!(#ident),
    };
    let call = if f.is_async {
        quote!(#callee(#(#call_args),*).await)
    } else {
        quote!(#callee(#(#call_args),*))
    };
    let ok = &f.output.ok;
    let out_span = f.output.span;
    let convert_ok = |v: TokenStream| {
        quote_spanned! {out_span=> {
            #[allow(unused_imports)]
            use __m::{ContentReturn as _, StructuredReturn as _};
            (&__m::Returned::new(#v)).to_call_tool_result(__w)
        }}
    };
    let convert = if f.output.fallible {
        let v = convert_ok(quote!(__v));
        let err = quote_spanned!(out_span=> __m::error_result(__e));
        quote! {
            match __r {
                ::core::result::Result::Ok(__v) => #v,
                ::core::result::Result::Err(__e) => #err,
            }
        }
    } else {
        convert_ok(quote!(__r))
    };
    let output_schema = quote_spanned! {out_span=> {
        #[allow(unused_imports)]
        use __m::{ContentProbe as _, StructuredProbe as _};
        (&__m::SchemaProbe::<#ok>::new()).output_schema(__p)
    }};
    let this_inner = method.then(|| quote!(let __this = ::std::sync::Arc::clone(&__this);));
    let parse = (direct && !values.is_empty()).then(|| quote!(#args_ty::__parse,));

    let expr = quote! {{
        #[allow(unused_imports)]
        use ::mcp_runtime::schema::__private as __m;
        #checks
        static __S: __m::SchemaCache = __m::SchemaCache::new();
        __m::ToolSpec::new(#name) #description #annotations #cache #task #scopes .#build(
            &__S,
            |__p: ::mcp_runtime::schema::SchemaProfile| (#input_schema, #output_schema),
            #parse
            move |#arg, __ctx, __w| {
                #this_inner
                async move {
                    let __r = #call;
                    #convert
                }
            },
        )
    }};
    (items, expr)
}

/// The builder calls setting the tool's annotations (none when it has none).
fn annotations(attr: &ToolAttr) -> TokenStream {
    let title = attr.title.as_ref().map(|t| quote!(.title(#t)));
    let hint = |name: &str, b: Option<bool>| {
        b.map(|b| {
            let m = format_ident!("{name}");
            quote!(.#m(#b))
        })
    };
    let read_only = hint("read_only", attr.read_only.as_ref().map(|v| **v));
    let destructive = hint("destructive", attr.destructive.as_ref().map(|v| **v));
    let idempotent = hint("idempotent", attr.idempotent.as_ref().map(|v| **v));
    let open_world = hint("open_world", attr.open_world);
    quote!(#title #read_only #destructive #idempotent #open_world)
}

/// Whether serde and schemars know `ty` without a derive: text, numbers, booleans, and `Option`s and
/// `Vec`s of them, named as the prelude names them.
fn known_type(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    if p.qself.is_some() || p.path.leading_colon.is_some() || p.path.segments.len() != 1 {
        return false;
    }
    let seg = &p.path.segments[0];
    let name = seg.ident.to_string();
    match &seg.arguments {
        syn::PathArguments::None => matches!(
            name.as_str(),
            "String"
                | "bool"
                | "char"
                | "i8"
                | "i16"
                | "i32"
                | "i64"
                | "i128"
                | "isize"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "u128"
                | "usize"
                | "f32"
                | "f64"
        ),
        syn::PathArguments::AngleBracketed(a) if name == "Option" || name == "Vec" => {
            a.args.len() == 1
                && matches!(&a.args[0], syn::GenericArgument::Type(t) if known_type(t))
        }
        _ => false,
    }
}

/// The argument struct of a tool whose arguments all have [known types](known_type), with what the
/// derives would write for it, written through the runtime's helpers: its `JsonSchema` (the object
/// schema from each argument's type, description, default and header) and `__parse` (decoding the call's
/// arguments member by member, with the derive's errors).
fn direct_items(
    args_ty: &syn::Ident,
    values: &[&crate::ast::Arg],
    default_fns: &[TokenStream],
) -> TokenStream {
    let name = args_ty.to_string();
    let idents: Vec<_> = values.iter().map(|a| &a.ident).collect();
    let tys: Vec<_> = values.iter().map(|a| &a.ty).collect();
    let keys: Vec<_> = values.iter().map(|a| a.key.as_str()).collect();
    let vars: Vec<_> = (0..values.len()).map(|i| format_ident!("__v{i}")).collect();
    let specs = values.iter().map(|a| {
        let (key, ty) = (&a.key, &a.ty);
        let description = match &a.description {
            Some(d) => quote!(::core::option::Option::Some(#d)),
            None => quote!(::core::option::Option::None),
        };
        let default = match &a.default {
            Some(_) => {
                let fname = format_ident!("__default_{}", a.ident.unraw());
                quote!(::core::option::Option::Some(|| ::mcp_runtime::serde_json::to_value(#args_ty::#fname()).ok()))
            }
            None => quote!(::core::option::Option::None),
        };
        let header = match &a.header {
            Some(h) => {
                let h = h.as_str();
                quote!(::core::option::Option::Some(#h))
            }
            None => quote!(::core::option::Option::None),
        };
        quote! {
            __m::ArgumentSchemaSpec {
                key: #key,
                schema: __m::subschema::<#ty>,
                is_option: __m::is_option::<#ty>,
                description: #description,
                default: #default,
                header: #header,
            }
        }
    });
    let last = values.len() - 1;
    let arms = values.iter().enumerate().map(|(i, a)| {
        let (var, key) = (&vars[i], &a.key);
        let pat = if i == last { quote!(_) } else { quote!(#i) };
        quote!(#pat => #var = ::core::option::Option::Some(__m::decode_argument(__raw, #key)?),)
    });
    let absent = values.iter().map(|a| {
        let (key, ty) = (&a.key, &a.ty);
        match &a.default {
            Some(_) => {
                let fname = format_ident!("__default_{}", a.ident.unraw());
                quote!(Self::#fname())
            }
            None => quote!(__m::missing_argument::<#ty>(#key)?),
        }
    });
    quote! {
        #[allow(non_camel_case_types, dead_code)]
        #[doc(hidden)]
        struct #args_ty { #(#idents: #tys),* }
        #[allow(non_snake_case)]
        impl #args_ty {
            #(#default_fns)*
            fn __parse(__text: &str) -> ::core::result::Result<Self, ::mcp_runtime::schema::__private::ArgumentError> {
                use ::mcp_runtime::schema::__private as __m;
                #(let mut #vars: ::core::option::Option<#tys> = ::core::option::Option::None;)*
                __m::decode_arguments(__text, &[#(#keys),*], &mut |__i, __raw| {
                    match __i { #(#arms)* }
                    ::core::result::Result::Ok(())
                })?;
                ::core::result::Result::Ok(Self {
                    #(#idents: match #vars {
                        ::core::option::Option::Some(__v) => __v,
                        ::core::option::Option::None => #absent,
                    },)*
                })
            }
        }
        impl ::mcp_runtime::schemars::JsonSchema for #args_ty {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#name)
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #name))
            }
            fn json_schema(__g: &mut ::mcp_runtime::schemars::SchemaGenerator) -> ::mcp_runtime::schemars::Schema {
                use ::mcp_runtime::schema::__private as __m;
                __m::object_schema(__g, &[#(#specs),*])
            }
        }
    }
}
