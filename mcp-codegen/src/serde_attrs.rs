//! Reading and editing the `#[derive]` and `#[serde]` attributes of typify's items, for the passes that
//! change how a type gets serde's traits ([`derives`](crate::derives), [`deserialize`](crate::deserialize),
//! [`string_enums`](crate::string_enums)).

use syn::punctuated::Punctuated;

/// Every path in the item's `#[derive(...)]`s.
pub fn derive_paths(attrs: &[syn::Attribute]) -> Vec<syn::Path> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .filter_map(|a| {
            a.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
                .ok()
        })
        .flatten()
        .collect()
}

/// `Serialize` or `Deserialize` when `path` names serde's trait (`serde::Serialize`, `::x::serde::Serialize`).
pub fn serde_trait(path: &syn::Path) -> Option<&'static str> {
    let mut segments = path.segments.iter().rev();
    let last = segments.next()?.ident.to_string();
    if segments.next()?.ident != "serde" {
        return None;
    }
    match last.as_str() {
        "Serialize" => Some("Serialize"),
        "Deserialize" => Some("Deserialize"),
        _ => None,
    }
}

/// Whether the attributes derive serde's `name` (`Serialize` or `Deserialize`).
pub fn derives_serde(attrs: &[syn::Attribute], name: &str) -> bool {
    derive_paths(attrs)
        .iter()
        .any(|p| serde_trait(p) == Some(name))
}

/// Removes the derives `keep` refuses from every `#[derive(...)]` (an emptied one goes); whether a serde
/// derive is left.
pub fn retain_derives(attrs: &mut Vec<syn::Attribute>, keep: impl Fn(&syn::Path) -> bool) -> bool {
    let mut serde_left = false;
    let mut out = Vec::with_capacity(attrs.len());
    for attr in attrs.drain(..) {
        let paths = attr
            .path()
            .is_ident("derive")
            .then(|| {
                attr.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
                    .ok()
            })
            .flatten();
        let Some(paths) = paths else {
            out.push(attr);
            continue;
        };
        let kept: Vec<&syn::Path> = paths.iter().filter(|p| keep(p)).collect();
        serde_left |= kept.iter().any(|p| serde_trait(p).is_some());
        if kept.len() == paths.len() {
            out.push(attr);
        } else if !kept.is_empty() {
            out.push(syn::parse_quote!(#[derive(#(#kept),*)]));
        }
    }
    *attrs = out;
    serde_left
}

/// Removes every `#[serde(...)]` attribute of a type, its fields and its variants (once it derives no serde
/// trait, nothing declares the attribute).
pub fn strip_serde_attrs(item: &mut syn::Item) {
    let strip = |attrs: &mut Vec<syn::Attribute>| attrs.retain(|a| !a.path().is_ident("serde"));
    match item {
        syn::Item::Struct(s) => {
            strip(&mut s.attrs);
            s.fields.iter_mut().for_each(|f| strip(&mut f.attrs));
        }
        syn::Item::Enum(e) => {
            strip(&mut e.attrs);
            e.variants.iter_mut().for_each(|v| strip(&mut v.attrs));
        }
        _ => {}
    }
}

/// Every item of every `#[serde(...)]` attribute; `None` when one cannot be read.
pub fn serde_metas(attrs: &[syn::Attribute]) -> Option<Vec<syn::Meta>> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let metas = attr
            .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
            .ok()?;
        out.extend(metas);
    }
    Some(out)
}

/// The name of `rename = "name"`.
pub fn rename(meta: &syn::Meta) -> Option<String> {
    match meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("rename") => Some(string(&nv.value)?.value()),
        _ => None,
    }
}

/// The string literal an attribute's value is.
pub fn string(expr: &syn::Expr) -> Option<&syn::LitStr> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s),
        _ => None,
    }
}
