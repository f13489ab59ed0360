//! `Deserialize` written for the generated types instead of derived. serde's derive writes, per struct, a
//! field enum with its own visitor, and a visitor with `visit_seq` and `visit_map` that each handle every
//! field: in GitHub's bindings that is 32 MB of the 45 MB the compiler checks after expansion, and most of its
//! memory. The impls written here read the object once into a map (`mcp_runtime::codegen_support::de`) and
//! take each field from it by name, one line per field (string enums get theirs from
//! [`string_enums`](crate::string_enums)).
//!
//! Only what they can read exactly as serde would is written this way (see [`Shape::of`]): a struct with
//! named fields whose serde attributes are `rename`, `default` (with or without a function),
//! `skip_serializing_if`, `deserialize_with = "Option::deserialize"` (a required property that may be null)
//! and `deny_unknown_fields`. Anything else (`flatten`, `untagged`, `transparent`, tuple structs) keeps
//! serde's derive.

use crate::serde_attrs::{
    derives_serde, rename, retain_derives, serde_metas, serde_trait, string, strip_serde_attrs,
};
use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

/// A struct whose `Deserialize` is written here: the model between reading typify's item and writing the
/// impl.
#[derive(Debug)]
pub struct Shape {
    /// The fields, in order.
    fields: Vec<Field>,
    /// `#[serde(deny_unknown_fields)]`: a field that is not taken is an error.
    deny_unknown: bool,
}

/// A struct's field.
#[derive(Debug)]
pub struct Field {
    /// The Rust field.
    pub ident: syn::Ident,
    /// Its name on the wire.
    pub wire: String,
    /// What a missing field is.
    pub missing: Missing,
}

/// What a field is when the object does not have it.
#[derive(Debug)]
pub enum Missing {
    /// `None` for an `Option`, an error otherwise (serde's derive without attributes).
    NoneOrError,
    /// An error, also for an `Option` (`deserialize_with = "Option::deserialize"`).
    Error,
    /// `Default::default()` (`#[serde(default)]`).
    Default,
    /// The function's value (`#[serde(default = "path")]`).
    Call(syn::ExprPath),
}

impl Shape {
    /// The shape of `s` when its `Deserialize` can be written here; `None` keeps serde's derive.
    pub fn of(s: &syn::ItemStruct) -> Option<Shape> {
        if !s.generics.params.is_empty() {
            return None;
        }
        let mut deny_unknown = false;
        for meta in serde_metas(&s.attrs)? {
            match &meta {
                syn::Meta::Path(p) if p.is_ident("deny_unknown_fields") => deny_unknown = true,
                syn::Meta::NameValue(nv) if nv.path.is_ident("crate") => {}
                _ => return None,
            }
        }
        let syn::Fields::Named(named) = &s.fields else {
            return None;
        };
        let fields = named
            .named
            .iter()
            .map(field)
            .collect::<Option<Vec<Field>>>()?;
        Some(Shape {
            fields,
            deny_unknown,
        })
    }

    /// `impl Deserialize for #ident`, naming serde through `serde` and the helpers through `de` (the module's
    /// `use ::mcp_runtime::serde` and `use ::mcp_runtime::codegen_support::de`), and `Result` and `Ok` by
    /// their prelude names unless `std_paths` (the module defines a type of that name).
    pub fn expand(&self, ident: &syn::Ident, std_paths: bool) -> TokenStream {
        let (result, ok) = if std_paths {
            (
                quote!(::std::result::Result),
                quote!(::std::result::Result::Ok),
            )
        } else {
            (quote!(Result), quote!(Ok))
        };
        let Shape {
            fields,
            deny_unknown,
        } = self;
        let name = ident.unraw().to_string();
        let values = fields.iter().map(|f| {
            let (ident, wire) = (&f.ident, &f.wire);
            let value = match &f.missing {
                Missing::NoneOrError => quote!(o.field(#wire)),
                Missing::Error => quote!(o.present(#wire)),
                Missing::Default => quote!(o.or_default(#wire)),
                Missing::Call(path) => quote!(o.or_else(#wire, #path)),
            };
            quote!(#ident: #value?)
        });
        let read = quote!(de::Object::read(d, #name)?);
        let body = if *deny_unknown {
            quote! {
                let mut o = #read;
                let value = Self { #(#values,)* };
                o.deny_unknown()?;
                #ok(value)
            }
        } else if fields.is_empty() {
            quote! {
                #read;
                #ok(Self {})
            }
        } else {
            quote! {
                let mut o = #read;
                #ok(Self { #(#values,)* })
            }
        };
        quote! {
            impl<'de> serde::Deserialize<'de> for #ident {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> #result<Self, D::Error> {
                    #body
                }
            }
        }
    }
}

fn field(f: &syn::Field) -> Option<Field> {
    let ident = f.ident.clone()?;
    let mut wire = ident.unraw().to_string();
    let mut missing = Missing::NoneOrError;
    for meta in serde_metas(&f.attrs)? {
        match &meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("rename") => wire = rename(&meta)?,
            syn::Meta::NameValue(nv) if nv.path.is_ident("skip_serializing_if") => {}
            syn::Meta::Path(p) if p.is_ident("default") => missing = Missing::Default,
            syn::Meta::NameValue(nv) if nv.path.is_ident("default") => {
                missing = Missing::Call(string(&nv.value)?.parse().ok()?)
            }
            syn::Meta::NameValue(nv) if nv.path.is_ident("deserialize_with") => {
                let with = string(&nv.value)?.value();
                if !with.ends_with("Option::deserialize") {
                    return None;
                }
                missing = Missing::Error;
            }
            _ => return None,
        }
    }
    Some(Field {
        ident,
        wire,
        missing,
    })
}

/// Writes `Deserialize` for the structs that derive it and whose shape allows (see [`Shape::of`]): the derive
/// goes, the impl follows the item. An item left with no serde derive loses its `#[serde]` attributes too
/// (they would name a derive that is not there). Whether it wrote one: the module then needs
/// `use ::mcp_runtime::codegen_support::de`.
pub fn write_deserialize(items: &mut Vec<syn::Item>) -> bool {
    let defined = |name: &str| {
        items.iter().any(|i| match i {
            syn::Item::Struct(s) => s.ident == name,
            syn::Item::Enum(e) => e.ident == name,
            syn::Item::Type(t) => t.ident == name,
            _ => false,
        })
    };
    let std_paths = defined("Result") || defined("Ok");
    let mut wrote = false;
    let mut out = Vec::with_capacity(items.len());
    for mut item in items.drain(..) {
        let syn::Item::Struct(s) = &mut item else {
            out.push(item);
            continue;
        };
        let shape = derives_serde(&s.attrs, "Deserialize")
            .then(|| Shape::of(s))
            .flatten();
        let Some(shape) = shape else {
            out.push(item);
            continue;
        };
        let ident = s.ident.clone();
        if !retain_derives(&mut s.attrs, |p| serde_trait(p) != Some("Deserialize")) {
            strip_serde_attrs(&mut item);
        }
        let implementation = shape.expand(&ident, std_paths);
        out.push(item);
        if let Ok(i) = syn::parse2::<syn::Item>(implementation) {
            out.push(i);
            wrote = true;
        }
    }
    *items = out;
    wrote
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(item: syn::Item) -> (String, String) {
        let mut items = vec![item];
        write_deserialize(&mut items);
        let text = |i: &syn::Item| quote!(#i).to_string();
        (text(&items[0]), items.get(1).map(text).unwrap_or_default())
    }

    #[test]
    fn a_struct_reads_each_field_by_its_wire_name() {
        let (item, implementation) = written(syn::parse_quote! {
            #[derive(::mcp_runtime::serde::Deserialize, Clone, Debug)]
            #[serde(deny_unknown_fields)]
            pub struct Pet {
                #[serde(rename = "petId", skip_serializing_if = "Option::is_none")]
                pub pet_id: Option<i64>,
                #[serde(deserialize_with = "Option::deserialize")]
                pub owner: Option<String>,
                #[serde(default)]
                pub tags: Vec<String>,
                #[serde(default = "defaults::forty")]
                pub id: i64,
                pub r#type: String,
            }
        });
        // No serde derive is left, so no serde attribute either.
        assert_eq!(
            item,
            "# [derive (Clone , Debug)] pub struct Pet { pub pet_id : Option < i64 > , \
             pub owner : Option < String > , pub tags : Vec < String > , pub id : i64 , pub r#type : String , }"
        );
        for expected in [
            "pet_id : o . field (\"petId\") ?",
            "owner : o . present (\"owner\") ?",
            "tags : o . or_default (\"tags\") ?",
            "id : o . or_else (\"id\" , defaults :: forty) ?",
            "r#type : o . field (\"type\") ?",
            "o . deny_unknown () ?",
            "de :: Object :: read (d , \"Pet\")",
        ] {
            assert!(
                implementation.contains(expected),
                "{expected} in {implementation}"
            );
        }
    }

    #[test]
    fn what_it_cannot_read_as_serde_would_keeps_the_derive() {
        let kept: [syn::Item; 4] = [
            syn::parse_quote! {
                #[derive(::mcp_runtime::serde::Deserialize)]
                pub struct A { #[serde(flatten)] pub rest: B }
            },
            syn::parse_quote! {
                #[derive(::mcp_runtime::serde::Deserialize)]
                #[serde(untagged)]
                pub enum C { D(i64), E(String) }
            },
            syn::parse_quote! {
                #[derive(::mcp_runtime::serde::Deserialize)]
                #[serde(transparent)]
                pub struct F(pub String);
            },
            syn::parse_quote! {
                #[derive(::mcp_runtime::serde::Deserialize)]
                pub struct G { #[serde(deserialize_with = "parse")] pub x: i64 }
            },
        ];
        for item in kept {
            let (after, implementation) = written(item.clone());
            assert_eq!(after, quote!(#item).to_string());
            assert!(implementation.is_empty(), "{implementation}");
        }
    }
}
