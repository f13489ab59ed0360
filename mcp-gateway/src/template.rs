//! The JSON templates of composite steps' arguments. A string that is exactly `"${path}"` becomes the
//! value at `path` (any JSON type); `${path}` inside a longer string is replaced by that value's text (a
//! string as it is, anything else as JSON). A path starts at a name of the scope (`input`, a step id),
//! then follows object keys and array indexes separated by dots (`extract.paragraphs.0`). References
//! are checked when the config is read; a value missing at run time is an error naming the path.

use serde_json::{Map, Value};

/// Checks a template's `${...}` references: well formed, and each starting at one of `known`.
pub fn check_template(template: &Value, known: &[&str]) -> Result<(), String> {
    let mut problem = None;
    visit_strings(template, &mut |s| {
        if problem.is_some() {
            return;
        }
        match references(s) {
            Err(e) => problem = Some(e),
            Ok(refs) => {
                for r in refs {
                    let root = r.split('.').next().unwrap_or("");
                    if !known.contains(&root) {
                        problem = Some(format!(
                            "`${{{r}}}` refers to `{root}`, which is neither `input` nor an earlier step ({})",
                            known.join(", ")
                        ));
                        return;
                    }
                }
            }
        }
    });
    problem.map_or(Ok(()), Err)
}

fn visit_strings(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| visit_strings(x, f)),
        Value::Object(o) => o.values().for_each(|x| visit_strings(x, f)),
        _ => {}
    }
}

/// The paths of the `${...}` in `s`.
fn references(s: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("`{s}` opens `${{` without closing it"))?;
        let path = after[..end].trim();
        if path.is_empty() {
            return Err(format!("`{s}` has an empty `${{}}`"));
        }
        out.push(path);
        rest = &after[end + 1..];
    }
    Ok(out)
}

/// The value at `path` in `scope`, or why there is none.
fn lookup<'a>(scope: &'a Map<String, Value>, path: &str) -> Result<&'a Value, String> {
    let mut parts = path.split('.');
    let root = parts.next().unwrap_or("");
    let mut v = scope
        .get(root)
        .ok_or_else(|| format!("`{root}` has no value"))?;
    for key in parts {
        v = match v {
            Value::Object(o) => o.get(key),
            Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        }
        .ok_or_else(|| format!("`${{{path}}}`: there is no `{key}` in {}", excerpt(v)))?;
    }
    Ok(v)
}

fn excerpt(v: &Value) -> String {
    let s = v.to_string();
    if s.len() <= 120 {
        s
    } else {
        let cut = (0..=120)
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        format!("{}…", &s[..cut])
    }
}

/// The template with its references replaced from `scope`.
pub fn render(template: &Value, scope: &Map<String, Value>) -> Result<Value, String> {
    Ok(match template {
        Value::String(s) => {
            let refs = references(s)?;
            match refs.as_slice() {
                [] => Value::String(s.clone()),
                [one] if s.trim().starts_with("${") && s.trim().ends_with('}') => {
                    lookup(scope, one)?.clone()
                }
                _ => {
                    let mut out = String::with_capacity(s.len());
                    let mut rest = s.as_str();
                    while let Some(i) = rest.find("${") {
                        out.push_str(&rest[..i]);
                        let after = &rest[i + 2..];
                        let end = after.find('}').unwrap_or(after.len());
                        match lookup(scope, after[..end].trim())? {
                            Value::String(t) => out.push_str(t),
                            other => out.push_str(&other.to_string()),
                        }
                        rest = after.get(end + 1..).unwrap_or("");
                    }
                    out.push_str(rest);
                    Value::String(out)
                }
            }
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| render(x, scope))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| Ok((k.clone(), render(x, scope)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_take_values_whole_or_as_text() {
        let scope = json!({
            "input": {"url": "https://example.com", "n": 3},
            "extract": {"text": "Intro", "parts": ["a", {"b": true}]},
        });
        let scope = scope.as_object().unwrap();
        let t = json!({
            "url": "${input.url}",
            "n": "${input.n}",
            "part": "${extract.parts.1}",
            "line": "from ${input.url}: ${extract.text} (${input.n})",
            "fixed": [1, "x"],
        });
        assert_eq!(
            render(&t, scope).unwrap(),
            json!({
                "url": "https://example.com",
                "n": 3,
                "part": {"b": true},
                "line": "from https://example.com: Intro (3)",
                "fixed": [1, "x"],
            })
        );
        let e = render(&json!({"x": "${extract.missing}"}), scope).unwrap_err();
        assert!(e.contains("missing"), "{e}");
        let e = render(&json!("${extract.parts.9}"), scope).unwrap_err();
        assert!(e.contains("9"), "{e}");
    }

    #[test]
    fn references_are_checked() {
        assert!(check_template(
            &json!({"a": "${input.x}", "b": ["${s1}"]}),
            &["input", "s1"]
        )
        .is_ok());
        let e = check_template(&json!({"a": "${s2.x}"}), &["input", "s1"]).unwrap_err();
        assert!(e.contains("`s2`"), "{e}");
        assert!(check_template(&json!("${input"), &["input"]).is_err());
        assert!(check_template(&json!("${}"), &["input"]).is_err());
    }
}
