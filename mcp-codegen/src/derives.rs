//! Which of serde's traits each generated type derives. A client only serializes what it sends (a tool's
//! `Params` and the types they reach) and only deserializes what it receives (its `Output` and the types that
//! reaches). In a large spec's bindings serde's derives are most of what the compiler checks, and
//! `Deserialize` is by far the larger of the two, so deriving each only where it is used is what keeps
//! GitHub's bindings checkable on a laptop.

use crate::serde_attrs::{retain_derives, serde_trait, strip_serde_attrs};
use proc_macro2::{TokenStream, TokenTree};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// Which of serde's traits the generated types derive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SerdeDerives {
    /// `Serialize` and `Deserialize` on every type (live-server bindings: a few dozen tools, whose users
    /// round-trip their types in tests and mocks).
    #[default]
    Both,
    /// What the client uses: `Serialize` on what it sends, `Deserialize` on what it receives, both on a type
    /// used both ways (an OpenAPI spec's bindings).
    AsUsed,
}

/// The roots of a module's types: those the client sends and those it receives, by name.
#[derive(Debug, Clone, Default)]
pub struct Uses {
    /// Types the client serializes (`Params`, components reached from a request).
    pub sent: BTreeSet<String>,
    /// Types the client deserializes (`Output`, components reached from a response).
    pub received: BTreeSet<String>,
}

impl Uses {
    /// A tool's module: `Params` is sent, `Output` received.
    pub fn tool() -> Self {
        Uses {
            sent: BTreeSet::from(["Params".to_string()]),
            received: BTreeSet::from(["Output".to_string()]),
        }
    }
}

/// Drops `serde::Serialize` from the derives of the types no sent root reaches, and `serde::Deserialize` from
/// those no received root reaches. A type no root reaches keeps both (nothing is known about it), so the
/// result always compiles: every type a serialized type contains is serialized too.
pub fn trim_serde_derives(items: &mut [syn::Item], uses: &Uses) {
    let graph = references(items);
    let sent = closure(&graph, &uses.sent);
    let received = closure(&graph, &uses.received);
    for item in items.iter_mut() {
        let (ident, attrs) = match item {
            syn::Item::Struct(s) => (s.ident.to_string(), &mut s.attrs),
            syn::Item::Enum(e) => (e.ident.to_string(), &mut e.attrs),
            _ => continue,
        };
        let (is_sent, is_received) = (sent.contains(&ident), received.contains(&ident));
        if !is_sent && !is_received {
            continue;
        }
        let serde_left = retain_derives(attrs, |p| match serde_trait(p) {
            Some("Serialize") => is_sent,
            Some("Deserialize") => is_received,
            _ => true,
        });
        // A type whose `Deserialize` typify wrote by hand (a constrained newtype) may be left with no serde
        // derive; its `#[serde(transparent)]` would then name an attribute nothing declares.
        if !serde_left {
            strip_serde_attrs(item);
        }
    }
}

/// Type name → the names of the module's types its fields (or variants, or aliased type) mention.
fn references(items: &[syn::Item]) -> BTreeMap<String, BTreeSet<String>> {
    let defined: BTreeSet<String> = items.iter().filter_map(defined_name).collect();
    let mut graph = BTreeMap::new();
    for item in items {
        let (name, tokens) = match item {
            syn::Item::Struct(s) => {
                let tys = s.fields.iter().map(|f| &f.ty);
                (s.ident.to_string(), quote!(#(#tys)*))
            }
            syn::Item::Enum(e) => {
                let tys = e
                    .variants
                    .iter()
                    .flat_map(|v| v.fields.iter().map(|f| &f.ty));
                (e.ident.to_string(), quote!(#(#tys)*))
            }
            syn::Item::Type(t) => {
                let ty = &t.ty;
                (t.ident.to_string(), quote!(#ty))
            }
            _ => continue,
        };
        let mut mentioned = BTreeSet::new();
        idents(tokens, &defined, &mut mentioned);
        graph.insert(name, mentioned);
    }
    graph
}

fn defined_name(item: &syn::Item) -> Option<String> {
    match item {
        syn::Item::Struct(s) => Some(s.ident.to_string()),
        syn::Item::Enum(e) => Some(e.ident.to_string()),
        syn::Item::Type(t) => Some(t.ident.to_string()),
        _ => None,
    }
}

fn idents(tokens: TokenStream, defined: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Ident(i) => {
                let name = i.to_string();
                if defined.contains(&name) {
                    out.insert(name);
                }
            }
            TokenTree::Group(g) => idents(g.stream(), defined, out),
            _ => {}
        }
    }
}

/// The roots and every type they reach.
fn closure(
    graph: &BTreeMap<String, BTreeSet<String>>,
    roots: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<&String> = roots.iter().collect();
    while let Some(name) = stack.pop() {
        if seen.insert(name.clone()) {
            stack.extend(graph.get(name).into_iter().flatten());
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derives_of(items: &[syn::Item], name: &str) -> String {
        items
            .iter()
            .find(|i| defined_name(i).as_deref() == Some(name))
            .map(|i| match i {
                syn::Item::Struct(s) => &s.attrs,
                syn::Item::Enum(e) => &e.attrs,
                _ => unreachable!(),
            })
            .map(|attrs| {
                attrs
                    .iter()
                    .map(|a| quote!(#a).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    }

    #[test]
    fn each_type_derives_what_its_direction_needs() {
        let file: syn::File = syn::parse_quote! {
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            pub struct Params { pub kind: Kind, pub shared: Vec<Shared> }
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            pub struct Output { pub items: Option<Box<Item>>, pub shared: Shared, pub code: Code }
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Copy, Debug)]
            pub enum Kind { A, B }
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            pub enum Item { One(Alias), Many(Vec<Item>) }
            pub type Alias = Leaf;
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            pub struct Leaf(pub i64);
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            pub struct Shared { pub x: i64 }
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            pub struct Orphan { pub x: i64 }
            // typify's constrained newtype: `Deserialize` written by hand, beside the derive.
            #[derive(::serde::Serialize, Clone, Debug)]
            #[serde(transparent)]
            pub struct Code(i64);
        };
        let mut items = file.items;
        trim_serde_derives(&mut items, &Uses::tool());
        let only = |name: &str, kept: &str, dropped: &str| {
            let d = derives_of(&items, name);
            assert!(d.contains(kept) && !d.contains(dropped), "{name}: {d}");
        };
        only("Params", "serde :: Serialize", "Deserialize");
        only("Kind", "serde :: Serialize", "Deserialize");
        only("Output", "serde :: Deserialize", "Serialize");
        // Through an `Option<Box<_>>`, a recursive enum and an alias.
        only("Item", "serde :: Deserialize", "Serialize");
        only("Leaf", "serde :: Deserialize", "Serialize");
        for both in ["Shared", "Orphan"] {
            let d = derives_of(&items, both);
            assert!(
                d.contains("serde :: Serialize") && d.contains("serde :: Deserialize"),
                "{both}: {d}"
            );
        }
        // Received only, `Code` loses its `Serialize` and, with it, the attribute that derive read.
        assert_eq!(derives_of(&items, "Code"), "# [derive (Clone , Debug)]");
        // The other derives stay.
        assert!(derives_of(&items, "Kind").contains("Copy"));
    }
}
