//! Rust-safe names for any tool name: kebab-case, dots, keywords, digits first, non-ASCII, collisions.

use heck::{ToSnakeCase, ToUpperCamelCase};
use std::collections::BTreeSet;

/// Words that cannot be identifiers (strict and reserved keywords of every edition), plus names the generated
/// module itself uses.
const RESERVED: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "try",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "union",
    "macro_rules",
    "raw",
    "safe",
    // The client's own methods and the items beside the tool modules.
    "new",
    "inner",
    "into_inner",
    "client",
    "tools",
    "std",
    "core",
    "alloc",
    "mcp_runtime",
];

/// Keeps ASCII letters and digits, turns everything else into a word break.
fn ascii_words(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// A snake_case identifier for a tool name: `get-sum` → `get_sum`, `files.read` → `files_read`,
/// `type` → `type_`, `3d` → `tool_3d`, `!!` → `tool`.
pub fn snake_ident(name: &str) -> String {
    let mut ident = ascii_words(name).to_snake_case();
    if ident.is_empty() {
        ident = "tool".into();
    } else if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident = format!("tool_{ident}");
    }
    if RESERVED.contains(&ident.as_str()) {
        ident.push('_');
    }
    ident
}

/// An UpperCamelCase type name: `jira server` → `JiraServer`.
pub fn camel_ident(name: &str) -> String {
    let ident = ascii_words(name).to_upper_camel_case();
    if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
        format!("T{ident}")
    } else if ident == "Self" {
        "Self_".into()
    } else {
        ident
    }
}

/// Hands out distinct identifiers: the second `get_sum` becomes `get_sum_2`.
#[derive(Default)]
pub struct Namer {
    taken: BTreeSet<String>,
}

impl Namer {
    /// `base` if not yet taken, else `base_2`, `base_3`... whichever is free first; the result is taken.
    pub fn unique(&mut self, base: String) -> String {
        self.first_free(base, "_")
    }

    /// A type's name: `base` if not yet taken, else `base2`, `base3`... typify writes every type's name in
    /// upper camel case, so `Base_2` would become `Base2` in the code while references to it kept `Base_2`.
    pub fn unique_type(&mut self, base: String) -> String {
        self.first_free(base, "")
    }

    /// `base`, else `base{sep}2`, `base{sep}3`...: the first not yet taken, which is taken.
    fn first_free(&mut self, base: String, sep: &str) -> String {
        if self.taken.insert(base.clone()) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}{sep}{n}"))
            .find(|c| self.taken.insert(c.clone()))
            .expect("an unbounded range")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_become_identifiers() {
        for (name, ident) in [
            ("get-sum", "get_sum"),
            ("files.read_all", "files_read_all"),
            ("getTinyImage", "get_tiny_image"),
            ("type", "type_"),
            ("self", "self_"),
            ("3d-render", "tool_3d_render"),
            ("名前", "tool"),
            ("", "tool"),
            ("--x--", "x"),
            ("new", "new_"),
        ] {
            assert_eq!(snake_ident(name), ident, "for {name:?}");
            assert!(
                syn::parse_str::<syn::Ident>(&snake_ident(name)).is_ok(),
                "{name:?}"
            );
        }
    }

    #[test]
    fn collisions_get_numbered() {
        let mut n = Namer::default();
        assert_eq!(n.unique("a".into()), "a");
        assert_eq!(n.unique("a".into()), "a_2");
        assert_eq!(n.unique("a_2".into()), "a_2_2");
        assert_eq!(n.unique("a".into()), "a_3");
    }

    #[test]
    fn type_names() {
        assert_eq!(
            camel_ident("mcp-servers/everything"),
            "McpServersEverything"
        );
        assert_eq!(camel_ident("42"), "T42");
        assert_eq!(camel_ident(""), "T");
    }
}
