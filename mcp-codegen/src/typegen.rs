//! Calls typify so that nothing it does can escape: a panic or an error in it becomes `serde_json::Value` for
//! the smallest schema that causes it, with a warning naming the tool and the JSON pointer.

use crate::normalize::Definitions;
use crate::Warning;
use proc_macro2::TokenStream;
use schemars08::schema::Schema;
use serde_json::{json, Value};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;
use typify::{TypeSpace, TypeSpaceSettings};

/// How many typify runs one tool may spend looking for the schemas it cannot take.
const SEARCH_BUDGET: usize = 400;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// A panic inside typify is expected and reported as a warning; keep it off stderr. Other panics still print.
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs typify over a list of definitions, turning a panic into an error. Each replacement names a
/// definition typify must not generate but refer to by a Rust path (a shared component type); its stand-in
/// schema is `{}`.
fn run_typify(
    defs: &[(String, Value)],
    replacements: &[(String, String)],
) -> Result<TokenStream, String> {
    let mut schemas = Vec::with_capacity(defs.len() + replacements.len());
    for (name, _) in replacements {
        schemas.push((name.clone(), Schema::Bool(true)));
    }
    for (name, value) in defs {
        let schema: Schema = serde_json::from_value(value.clone())
            .map_err(|e| format!("not a JSON schema typify can read: {e}"))?;
        schemas.push((name.clone(), schema));
    }
    install_quiet_hook();
    QUIET.with(|q| q.set(true));
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut settings = TypeSpaceSettings::default();
        settings.with_map_type("::std::collections::BTreeMap");
        for (name, path) in replacements {
            use heck::ToUpperCamelCase;
            settings.with_replacement(name.to_upper_camel_case(), path, std::iter::empty());
        }
        let mut space = TypeSpace::new(&settings);
        space
            .add_ref_types(schemas)
            .map_err(|e| first_line(&e.to_string()))?;
        if space.uses_chrono() || space.uses_uuid() || space.uses_regress() {
            return Err(
                "the types would need a crate the generated code cannot depend on".to_string(),
            );
        }
        Ok(space.to_stream())
    }));
    QUIET.with(|q| q.set(false));
    match outcome {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(format!("typify panicked: {}", first_line(&message)))
        }
    }
}

/// typify's messages can run to a page of `Debug` output; the first line says what happened.
fn first_line(message: &str) -> String {
    let line = message
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches(['{', '(', ' ']);
    line.to_string()
}

/// The types of one tool (or of a spec's shared components). Whatever typify cannot take is replaced by `{}`
/// (any JSON value) and reported.
pub fn generate_types(
    tool: &str,
    mut defs: Definitions,
    replacements: &[(String, String)],
) -> (TokenStream, Vec<Warning>) {
    let mut warnings = Vec::new();
    let pairs = |defs: &Definitions| {
        defs.iter()
            .map(|d| (d.name.clone(), d.schema.clone()))
            .collect::<Vec<_>>()
    };
    if let Ok(tokens) = run_typify(&pairs(&defs), replacements) {
        return (tokens, warnings);
    }
    let mut budget = SEARCH_BUDGET;
    // Groups of definitions are tried together, the others standing in as `{}` so that references still
    // resolve; a group that fails is halved until the definitions that fail alone are found.
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    groups.push(0..defs.len());
    while let Some(range) = groups.pop() {
        if budget == 0 {
            break;
        }
        if range.is_empty() {
            continue;
        }
        let probe: Vec<(String, Value)> = defs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let schema = if range.contains(&i) {
                    d.schema.clone()
                } else {
                    json!({})
                };
                (d.name.clone(), schema)
            })
            .collect();
        if range.len() > 1 {
            if spend(&mut budget, || run_typify(&probe, replacements)).is_ok() {
                continue;
            }
            let mid = range.start + range.len() / 2;
            groups.push(mid..range.end);
            groups.push(range.start..mid);
            continue;
        }
        let index = range.start;
        let test = |candidate: &Value| {
            let mut c = probe.clone();
            c[index].1 = candidate.clone();
            run_typify(&c, replacements)
        };
        let pointer = defs[index].pointer.clone();
        let mut schema = std::mem::take(&mut defs[index].schema);
        isolate(
            &mut schema,
            &pointer,
            &test,
            tool,
            &mut warnings,
            &mut budget,
        );
        defs[index].schema = schema;
    }
    match run_typify(&pairs(&defs), replacements) {
        Ok(tokens) => (tokens, warnings),
        Err(reason) => {
            // The definitions work alone but not together: give every one of them up.
            for d in &mut defs {
                warnings.push(Warning {
                    tool: tool.to_string(),
                    pointer: d.pointer.clone(),
                    message: format!("{reason}; generated as serde_json::Value"),
                });
                d.schema = any_value(&d.schema);
            }
            let tokens = run_typify(&pairs(&defs), replacements).unwrap_or_default();
            (tokens, warnings)
        }
    }
}

/// `{}` keeping the description, so the doc comment survives.
fn any_value(schema: &Value) -> Value {
    match schema.get("description") {
        Some(d) => json!({ "description": d }),
        None => json!({}),
    }
}

/// Finds the smallest subschemas of `schema` that typify cannot take alone and replaces them by `{}`.
fn isolate(
    schema: &mut Value,
    pointer: &str,
    test: &dyn Fn(&Value) -> Result<TokenStream, String>,
    tool: &str,
    warnings: &mut Vec<Warning>,
    budget: &mut usize,
) {
    let mut outcome = spend(budget, || test(schema));
    if outcome.is_ok() {
        return;
    }
    if *budget > 0 {
        for (key, child) in children(schema) {
            let child_pointer = format!("{pointer}/{key}");
            if spend(budget, || test(child)).is_err() {
                isolate(child, &child_pointer, test, tool, warnings, budget);
            }
        }
        outcome = spend(budget, || test(schema));
    }
    if let Err(reason) = outcome {
        warnings.push(Warning {
            tool: tool.to_string(),
            pointer: pointer.to_string(),
            message: format!("{reason}; generated as serde_json::Value"),
        });
        *schema = any_value(schema);
    }
}

fn spend<T>(budget: &mut usize, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    if *budget == 0 {
        return Err("gave up looking for the schema typify cannot take".into());
    }
    *budget -= 1;
    f()
}

/// The direct subschemas of a schema, with their pointer suffixes.
fn children(schema: &mut Value) -> Vec<(String, &mut Value)> {
    let mut out = Vec::new();
    let Value::Object(o) = schema else { return out };
    for (key, value) in o.iter_mut() {
        let k = key.replace('~', "~0").replace('/', "~1");
        match key.as_str() {
            "additionalProperties"
            | "additionalItems"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else"
            | "propertyNames"
            | "unevaluatedProperties"
            | "unevaluatedItems" => out.push((k, value)),
            "items" if value.is_object() => out.push((k, value)),
            "items" | "anyOf" | "oneOf" | "allOf" => {
                if let Value::Array(a) = value {
                    out.extend(
                        a.iter_mut()
                            .enumerate()
                            .map(|(i, v)| (format!("{k}/{i}"), v)),
                    );
                }
            }
            "properties" | "patternProperties" | "dependentSchemas" => {
                if let Value::Object(m) = value {
                    out.extend(m.iter_mut().map(|(n, v)| {
                        (
                            format!("{k}/{}", n.replace('~', "~0").replace('/', "~1")),
                            v,
                        )
                    }));
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::Definition;

    fn defs(params: Value) -> Definitions {
        vec![Definition {
            name: "Params".into(),
            pointer: "/inputSchema".into(),
            schema: params,
        }]
    }

    #[test]
    fn plain_schema_needs_no_search() {
        let (tokens, warnings) = generate_types(
            "t",
            defs(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            ),
            &[],
        );
        assert!(warnings.is_empty());
        assert!(tokens.to_string().contains("pub struct Params"));
    }

    #[test]
    fn a_panicking_spot_becomes_value_and_the_rest_stays_typed() {
        // A `$ref` typify cannot resolve makes it panic ("$ref ... is missing").
        let schema = json!({
            "type": "object",
            "properties": {
                "good": {"type": "integer"},
                "bad": {"type": "object", "properties": {"inner": {"$ref": "#/definitions/Missing"}}}
            }
        });
        let (tokens, warnings) = generate_types("broken-tool", defs(schema), &[]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].tool, "broken-tool");
        assert_eq!(
            warnings[0].pointer,
            "/inputSchema/properties/bad/properties/inner"
        );
        assert!(
            warnings[0].message.contains("panicked"),
            "{}",
            warnings[0].message
        );
        let code = tokens.to_string();
        assert!(
            code.contains("pub good : :: std :: option :: Option < i64 >"),
            "{code}"
        );
        assert!(code.contains("serde_json :: Value"), "{code}");
    }
}
