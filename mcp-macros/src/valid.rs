//! Checks on the model that the signature alone does not catch.

use crate::ast::Function;
use crate::attr::{Errors, ToolAttr};
use proc_macro2::Span;

/// A tool name by the spec (2025-11-25): 1 to 128 characters of `[A-Za-z0-9_.-]`.
pub fn tool_name(name: &str, span: Span, errors: &mut Errors) {
    if name.is_empty() || name.len() > 128 {
        errors.push(syn::Error::new(
            span,
            format!(
                "a tool name must be 1 to 128 characters long; `{name}` has {}",
                name.chars().count()
            ),
        ));
    } else if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        errors.push(syn::Error::new(span, format!("the tool name `{name}` contains `{c}`: a tool name may only use A-Z, a-z, 0-9, `_`, `.` and `-`")));
    }
}

pub fn tool(attr: &ToolAttr, f: &Function, errors: &mut Errors) {
    match &attr.name {
        Some(n) => tool_name(n, n.span(), errors),
        None => tool_name(&f.name(), f.ident.span(), errors),
    }
    if attr.read_only.as_ref().is_some_and(|r| **r) {
        for (flag, word) in [
            (&attr.destructive, "destructive"),
            (&attr.idempotent, "idempotent"),
        ] {
            if let Some(v) = flag {
                errors.push(syn::Error::new(v.span(), format!("`{word}` has no meaning on a `read_only` tool: the hint applies only to tools that modify their environment")));
            }
        }
    }
    crate::attr::cache_hints(&attr.ttl_ms, &attr.cache_scope, errors);
    documented_arguments(f, errors);
}

/// Every name of a `# Arguments` list is an argument of the function.
pub fn documented_arguments(f: &Function, errors: &mut Errors) {
    for name in f.doc.args.keys() {
        if !f
            .args
            .iter()
            .any(|a| a.ident == name.as_str() || a.key == *name)
        {
            errors.push(syn::Error::new(f.ident.span(), format!("the `# Arguments` list of the doc comment names `{name}`, which is not an argument of `{}`", f.ident)));
        }
    }
}
