//! `#[derive(JsonSchema)]` as `mcp_runtime` re-exports it: schemars' own derive, pointed at the runtime's
//! copy of schemars, so that a user crate needs neither a `schemars` dependency nor
//! `#[schemars(crate = "...")]` on every type.
//!
//! A derive cannot add attributes to the item it is on, so the schema is derived for a private copy of
//! the type (its doc comments and its `serde`/`schemars` attributes, plus `crate = "::mcp_runtime::schemars"`
//! and the original name), and the type's own `JsonSchema` impl delegates to the copy. Unit variants of
//! an enum that also has documented or data-carrying variants are each given their own branch, so that
//! the schema lists every value in declaration order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Attribute, Data, DeriveInput, Fields, Meta, Token};

/// The attributes schemars reads; every other attribute stays off the copy.
const SCHEMA_ATTRS: &[&str] = &["doc", "serde", "schemars", "validate", "garde"];

pub fn derive(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let ident = &input.ident;
    let copy_ident = format_ident!("__McpSchemaOf{}", ident);

    let mut copy = input.clone();
    copy.ident = copy_ident.clone();
    copy.vis = syn::Visibility::Inherited;
    copy.attrs.retain(is_schema_attr);
    if !has_container_key(&input.attrs, "crate", &["schemars"]) {
        copy.attrs
            .push(syn::parse_quote!(#[schemars(crate = "::mcp_runtime::schemars")]));
    }
    if !has_container_key(&input.attrs, "rename", &["serde", "schemars"]) {
        // serde's `remote` names the schema after the original type (and keeps the generic naming).
        let name = ident.to_string();
        copy.attrs.push(syn::parse_quote!(#[serde(remote = #name)]));
    }
    match &mut copy.data {
        Data::Struct(s) => strip_fields(&mut s.fields),
        Data::Union(u) => u
            .fields
            .named
            .iter_mut()
            .for_each(|f| f.attrs.retain(is_schema_attr)),
        Data::Enum(e) => {
            for v in e.variants.iter_mut() {
                v.attrs.retain(is_schema_attr);
                strip_fields(&mut v.fields);
            }
            if !e.variants.iter().all(gathered_by_schemars) {
                // schemars gathers the unit variants without metadata into one `enum` ahead of the
                // others; a no-op transform makes each unit variant its own branch, in declaration order.
                for v in e.variants.iter_mut() {
                    if matches!(v.fields, Fields::Unit) {
                        v.attrs.push(syn::parse_quote!(
                            #[schemars(transform = ::mcp_runtime::schema::__private::keep_in_order)]
                        ));
                    }
                }
            }
        }
    }

    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut where_clause = where_clause.cloned();
    if !input.generics.params.is_empty() {
        // The copy's impl carries schemars' bounds on the type parameters.
        where_clause
            .get_or_insert_with(|| syn::parse_quote!(where))
            .predicates
            .push(syn::parse_quote!(#copy_ident #ty_generics: ::mcp_runtime::schemars::JsonSchema));
    }
    let default_impl = container_default(&input, &copy_ident);
    let s = quote!(::mcp_runtime::schemars);
    Ok(quote! {
        const _: () = {
            #[derive(::mcp_runtime::schema::__private::SchemarsJsonSchema)]
            #[allow(dead_code, non_camel_case_types, clippy::all)]
            #copy
            #default_impl
            #[automatically_derived]
            impl #impl_generics #s::JsonSchema for #ident #ty_generics #where_clause {
                fn inline_schema() -> bool {
                    <#copy_ident #ty_generics as #s::JsonSchema>::inline_schema()
                }
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    <#copy_ident #ty_generics as #s::JsonSchema>::schema_name()
                }
                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    <#copy_ident #ty_generics as #s::JsonSchema>::schema_id()
                }
                fn json_schema(generator: &mut #s::SchemaGenerator) -> #s::Schema {
                    <#copy_ident #ty_generics as #s::JsonSchema>::json_schema(generator)
                }
            }
        };
    })
}

/// Whether schemars puts this variant into the one `enum` of plain unit variants (its rule: a unit
/// variant with no doc comment, no metadata, no validation, no `with` and not `untagged`).
fn gathered_by_schemars(v: &syn::Variant) -> bool {
    const METADATA: &[&str] = &[
        "title",
        "description",
        "example",
        "examples",
        "extend",
        "transform",
        "deprecated",
        "with",
        "schema_with",
    ];
    matches!(v.fields, Fields::Unit)
        && !v.attrs.iter().any(|a| {
            a.path().is_ident("doc") || a.path().is_ident("validate") || a.path().is_ident("garde")
        })
        && !container_keys(&v.attrs, &["schemars", "serde"])
            .any(|(k, _)| METADATA.contains(&k.as_str()) || k == "untagged")
}

fn is_schema_attr(a: &Attribute) -> bool {
    SCHEMA_ATTRS.iter().any(|n| a.path().is_ident(n))
}

fn strip_fields(fields: &mut Fields) {
    fields
        .iter_mut()
        .for_each(|f| f.attrs.retain(is_schema_attr));
}

/// The `key` words (`key` or `key = ...`) directly inside the container's `#[<attr>(...)]` lists.
fn container_keys<'a>(
    attrs: &'a [Attribute],
    of: &'a [&'a str],
) -> impl Iterator<Item = (String, Meta)> + 'a {
    attrs
        .iter()
        .filter(|a| of.iter().any(|n| a.path().is_ident(n)))
        .filter_map(|a| {
            a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .ok()
        })
        .flatten()
        .filter_map(|m| {
            let key = m.path().get_ident()?.to_string();
            Some((key, m))
        })
}

fn has_container_key(attrs: &[Attribute], key: &str, of: &[&str]) -> bool {
    container_keys(attrs, of).any(|(k, _)| k == key)
}

/// `#[serde(default)]` on the container: schemars reads the defaults from `Self::default()`, which for the
/// copy is the original's default, field by field.
fn container_default(input: &DeriveInput, copy_ident: &syn::Ident) -> TokenStream {
    let bare_default = container_keys(&input.attrs, &["serde"])
        .any(|(k, m)| k == "default" && matches!(m, Meta::Path(_)));
    let Data::Struct(s) = &input.data else {
        return TokenStream::new();
    };
    if !bare_default {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut where_clause = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    where_clause
        .predicates
        .push(syn::parse_quote!(#ident #ty_generics: ::core::default::Default));
    let build = match &s.fields {
        Fields::Named(f) => {
            let names = f.named.iter().map(|f| &f.ident);
            quote!(#copy_ident { #(#names: __original.#names),* })
        }
        Fields::Unnamed(f) => {
            let idx = (0..f.unnamed.len()).map(syn::Index::from);
            quote!(#copy_ident ( #(__original.#idx),* ))
        }
        Fields::Unit => quote!(#copy_ident),
    };
    quote! {
        impl #impl_generics ::core::default::Default for #copy_ident #ty_generics #where_clause {
            fn default() -> Self {
                #[allow(unused_variables)]
                let __original = <#ident #ty_generics as ::core::default::Default>::default();
                #build
            }
        }
    }
}
