//! String enums' traits from one list of their names. typify gives a string enum a `#[serde(rename)]` per
//! variant, a `Display` with a `match` arm per variant, and serde's derives (or, in a spec's bindings, the
//! written `Deserialize`, a second list of the names): the names three times, and in GitHub's bindings a
//! ninth of the file. Here the enum keeps its variants and its other derives, and its `Display` and serde
//! traits come from one line, `string_enum!(impl Display, Serialize for Kind { A = "a", B = "b" })`
//! (`mcp_runtime::codegen_support::string_enum`).

use crate::serde_attrs::{
    derive_paths, rename, retain_derives, serde_metas, serde_trait, strip_serde_attrs,
};
use quote::{quote, ToTokens};
use std::collections::BTreeSet;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};

/// The variants of a string enum and their names on the wire, when `e` is one whose traits the macro can
/// write exactly as serde would: unit variants without discriminants, no serde attribute but a variant's
/// `rename` (and the emitter's `crate`).
fn names(e: &syn::ItemEnum) -> Option<Vec<(syn::Ident, String)>> {
    if !e.generics.params.is_empty() || e.variants.is_empty() {
        return None;
    }
    let container = serde_metas(&e.attrs)?;
    if !container
        .iter()
        .all(|m| matches!(m, syn::Meta::NameValue(nv) if nv.path.is_ident("crate")))
    {
        return None;
    }
    e.variants
        .iter()
        .map(|v| {
            if !matches!(v.fields, syn::Fields::Unit) || v.discriminant.is_some() {
                return None;
            }
            let mut wire = v.ident.unraw().to_string();
            for meta in serde_metas(&v.attrs)? {
                wire = rename(&meta)?;
            }
            Some((v.ident.clone(), wire))
        })
        .collect()
}

/// Gives every string enum its `Display` and the serde traits it derived through one `string_enum!` line
/// after it, in place of typify's `Display` impl, the serde derives and their attributes. Whether it wrote
/// one: the module then needs `use ::mcp_runtime::codegen_support::string_enum`.
pub fn write_string_enums(items: &mut Vec<syn::Item>) -> bool {
    let mut written = BTreeSet::new();
    let mut out = Vec::with_capacity(items.len());
    for mut item in items.drain(..) {
        let syn::Item::Enum(e) = &mut item else {
            out.push(item);
            continue;
        };
        let Some(names) = names(e) else {
            out.push(item);
            continue;
        };
        let mut traits = vec![quote!(Display)];
        for name in derive_paths(&e.attrs).iter().filter_map(serde_trait) {
            let name = syn::Ident::new(name, proc_macro2::Span::call_site());
            traits.push(quote!(#name));
        }
        retain_derives(&mut e.attrs, |p| serde_trait(p).is_none());
        let ident = e.ident.clone();
        strip_serde_attrs(&mut item);
        let (variants, wires): (Vec<_>, Vec<_>) = names.into_iter().unzip();
        let line: syn::Item = syn::parse_quote! {
            string_enum!(impl #(#traits),* for #ident { #(#variants = #wires),* });
        };
        written.insert(ident.to_string());
        out.push(item);
        out.push(line);
    }
    // typify's `Display` for them goes.
    out.retain(|item| {
        let syn::Item::Impl(i) = item else {
            return true;
        };
        let display = i
            .trait_
            .as_ref()
            .and_then(|(_, path, _)| path.segments.last())
            .is_some_and(|s| s.ident == "Display");
        let own = match &*i.self_ty {
            syn::Type::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|ident| written.contains(&ident.to_string())),
            _ => false,
        };
        !(display && own)
    });
    *items = out;
    !written.is_empty()
}

/// A `string_enum!` line's arguments: `impl Display, Serialize for Kind { A = "a", B = "b" }`.
struct Invocation {
    traits: Vec<syn::Ident>,
    ty: syn::Ident,
    names: Vec<(syn::Ident, syn::LitStr)>,
}

impl Parse for Invocation {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.parse::<syn::Token![impl]>()?;
        let mut traits = vec![input.parse()?];
        while input.parse::<Option<syn::Token![,]>>()?.is_some() {
            traits.push(input.parse()?);
        }
        input.parse::<syn::Token![for]>()?;
        let ty = input.parse()?;
        let body;
        syn::braced!(body in input);
        let mut names = Vec::new();
        while !body.is_empty() {
            let variant = syn::Ident::parse_any(&body)?;
            body.parse::<syn::Token![=]>()?;
            names.push((variant, body.parse()?));
            if body.parse::<Option<syn::Token![,]>>()?.is_none() {
                break;
            }
        }
        Ok(Invocation { traits, ty, names })
    }
}

/// Formatted code with each `string_enum!` laid out as an enum is, a variant on each line (prettyplease
/// fills a macro's tokens into lines as they come, breaking a variant from its name).
pub fn lay_out(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut lines = code.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let indent = &line[..line.len() - line.trim_start().len()];
        if !line.trim_start().starts_with("string_enum!(") {
            out.push_str(line);
            continue;
        }
        // prettyplease writes it on one line, or opens it on one and closes it with `);` on its own.
        let mut block = line.to_string();
        if line.trim_end() == format!("{indent}string_enum!(") {
            let close = format!("{indent});");
            for next in lines.by_ref() {
                block.push_str(next);
                if next.trim_end() == close {
                    break;
                }
            }
        }
        let parsed = syn::parse_str::<syn::ItemMacro>(block.trim())
            .ok()
            .and_then(|m| m.mac.parse_body::<Invocation>().ok());
        let Some(call) = parsed else {
            out.push_str(&block);
            continue;
        };
        let traits: Vec<String> = call.traits.iter().map(ToString::to_string).collect();
        out.push_str(&format!(
            "{indent}string_enum!(impl {} for {} {{\n",
            traits.join(", "),
            call.ty
        ));
        for (variant, name) in &call.names {
            out.push_str(&format!(
                "{indent}    {variant} = {},\n",
                name.to_token_stream()
            ));
        }
        out.push_str(&format!("{indent}}});\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_enum_gets_its_traits_from_one_list_of_names() {
        let file: syn::File = syn::parse_quote! {
            #[derive(::mcp_runtime::serde::Deserialize, Clone, Copy, Debug, PartialEq)]
            pub enum Status {
                #[serde(rename = "available")]
                Available,
                #[serde(rename = "sold out")]
                SoldOut,
                Pending,
            }
            impl ::std::fmt::Display for Status {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    match *self {
                        Self::Available => f.write_str("available"),
                        Self::SoldOut => f.write_str("sold out"),
                        Self::Pending => f.write_str("Pending"),
                    }
                }
            }
            impl ::std::default::Default for Status {
                fn default() -> Self { Status::Pending }
            }
            // Not a string enum: serde's derive stays.
            #[derive(::mcp_runtime::serde::Serialize, Clone, Debug)]
            #[serde(untagged)]
            pub enum Either { A(i64), B(String) }
        };
        let mut items = file.items;
        assert!(write_string_enums(&mut items));
        let text: Vec<String> = items.iter().map(|i| quote!(#i).to_string()).collect();
        assert_eq!(
            text[0],
            "# [derive (Clone , Copy , Debug , PartialEq)] pub enum Status { Available , SoldOut , Pending , }"
        );
        assert_eq!(
            text[1],
            "string_enum ! (impl Display , Deserialize for Status { Available = \"available\" , \
             SoldOut = \"sold out\" , Pending = \"Pending\" }) ;"
        );
        assert!(
            text[2].starts_with("impl :: std :: default :: Default"),
            "{}",
            text[2]
        );
        assert!(text[3].contains("serde :: Serialize") && text[3].contains("untagged"));
        assert_eq!(items.len(), 4, "typify's Display is gone: {text:#?}");
    }

    #[test]
    fn each_variant_is_laid_out_on_its_own_line() {
        let filled = "    pub enum K {\n        A,\n    }\n    string_enum!(\n        impl Display, Serialize for K { A = \"a, \\\"b\\\");\", B =\n        \"c\" }\n    );\n    struct After;\n";
        assert_eq!(
            lay_out(filled),
            "    pub enum K {\n        A,\n    }\n    string_enum!(impl Display, Serialize for K {\n        \
             A = \"a, \\\"b\\\");\",\n        B = \"c\",\n    });\n    struct After;\n"
        );
    }
}
