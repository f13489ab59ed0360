//! Doc comments: the text of `///` lines, rustdoc's soft wraps undone, and a `# Arguments` list taken out.

use std::collections::BTreeMap;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The `///` lines of some attributes, without the one space rustdoc adds.
pub fn lines(attrs: &[Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for a in attrs {
        if let Meta::NameValue(nv) = &a.meta {
            if nv.path.is_ident("doc") {
                if let Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) = &nv.value
                {
                    out.extend(
                        s.value()
                            .split('\n')
                            .map(|l| l.trim_end_matches('\r').to_string()),
                    );
                }
            }
        }
    }
    // Remove the indentation all lines share (usually the space after `///`).
    let indent = out
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    out.into_iter()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                l[indent..].trim_end().to_string()
            }
        })
        .collect()
}

/// A function's doc comment: its description, and the descriptions its `# Arguments` list gives.
pub struct FnDoc {
    pub text: Option<String>,
    pub args: BTreeMap<String, String>,
}

pub fn function(attrs: &[Attribute]) -> FnDoc {
    let mut kept = Vec::new();
    let mut args = BTreeMap::new();
    let mut in_args = false;
    let mut current: Option<String> = None;
    for line in lines(attrs) {
        let heading = line.trim_start().starts_with('#') && !line.trim_start().starts_with("#[");
        if heading {
            let title = line
                .trim_start()
                .trim_start_matches('#')
                .trim()
                .to_ascii_lowercase();
            in_args = matches!(title.as_str(), "arguments" | "parameters" | "args");
            current = None;
            if in_args {
                continue;
            }
        }
        if !in_args {
            kept.push(line);
            continue;
        }
        if let Some((name, text)) = list_item(&line) {
            args.insert(name.clone(), text);
            current = Some(name);
        } else if line.is_empty() {
            current = None;
        } else if let Some(name) = &current {
            let entry = args.get_mut(name).expect("current item exists");
            entry.push(' ');
            entry.push_str(line.trim());
        }
    }
    FnDoc {
        text: normalize(&kept),
        args,
    }
}

/// `` * `name` - text `` (also `-` bullets and `:` separators).
fn list_item(line: &str) -> Option<(String, String)> {
    let rest = line
        .trim_start()
        .strip_prefix(['*', '-', '+'])?
        .trim_start();
    let rest = rest.strip_prefix('`')?;
    let (name, rest) = rest.split_once('`')?;
    let text = rest
        .trim_start()
        .trim_start_matches(['-', ':', '–', '—'])
        .trim();
    Some((name.trim().to_string(), text.to_string()))
}

/// Joins doc lines the way rustdoc renders them: lines of a paragraph joined by a space, paragraphs by a
/// blank line; list items, headings, tables and code blocks keep their lines.
pub fn normalize(lines: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut in_code = false;
    let mut blank = false;
    let mut after_heading = false;
    for line in lines {
        let t = line.trim_start();
        let fence = t.starts_with("```") || t.starts_with("~~~");
        if line.is_empty() && !in_code {
            blank = !out.is_empty();
            continue;
        }
        let own_line = in_code
            || fence
            || t.starts_with(['#', '|', '>'])
            || t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with("+ ")
            || t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            || line.starts_with("    ");
        if blank {
            out.push_str("\n\n");
        } else if out.is_empty() {
            // the first line
        } else if own_line || after_heading {
            out.push('\n');
        } else {
            out.push(' ');
        }
        blank = false;
        after_heading = !in_code && t.starts_with('#');
        out.push_str(if in_code || fence {
            line
        } else {
            line.trim_start()
        });
        if fence {
            in_code = !in_code;
        }
    }
    (!out.is_empty()).then_some(out)
}

pub fn is_doc(a: &Attribute) -> bool {
    a.path().is_ident("doc")
}
