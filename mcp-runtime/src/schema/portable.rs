//! The portable profile: a schema rewritten for strict clients and for the model's token budget.

use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// `format` values defined by JSON Schema (draft-07 and 2020-12); any other is dropped.
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one schema.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];
/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Rewrites a root schema in place into the portable profile (see the [module docs](super)).
/// `strip_null` makes `Option<T>` plain `T`, which is right for inputs, where an absent optional
/// property and `null` mean the same, and wrong for outputs.
pub fn make_portable(root: &mut Value, strip_null: bool) {
    if let Some(o) = root.as_object_mut() {
        o.remove("$schema");
    }
    rewrite(root, strip_null);
    refer_to_recursive_defs(root);
    drop_unused_defs(root);
}

/// schemars inlines the first use of a recursive type and keeps its definition for the recursion; the
/// inlined copy becomes a `$ref` to that definition, so the schema says it once.
fn refer_to_recursive_defs(root: &mut Value) {
    let Some(Value::Object(defs)) = root.as_object_mut().and_then(|o| o.remove("$defs")) else {
        return;
    };
    fn without_description(v: &Value) -> Value {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("description");
        }
        v
    }
    let bare: Vec<(String, Value, Option<Value>)> = defs
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                without_description(v),
                v.get("description").cloned(),
            )
        })
        .collect();
    fn visit(v: &mut Value, defs: &[(String, Value, Option<Value>)]) {
        if v.is_object() {
            let plain = without_description(v);
            if let Some((name, _, def_desc)) = defs.iter().find(|(_, d, _)| *d == plain) {
                let desc = v
                    .get("description")
                    .cloned()
                    .filter(|d| Some(d) != def_desc.as_ref());
                let mut r = Map::new();
                r.insert("$ref".into(), Value::from(format!("#/$defs/{name}")));
                if let Some(d) = desc {
                    r.insert("description".into(), d);
                }
                *v = Value::Object(r);
                return;
            }
            v.as_object_mut()
                .into_iter()
                .flat_map(|o| o.values_mut())
                .for_each(|c| visit(c, defs));
        } else if let Some(a) = v.as_array_mut() {
            a.iter_mut().for_each(|c| visit(c, defs));
        }
    }
    // The root itself stays: an output schema's root must say `"type": "object"`.
    root.as_object_mut()
        .into_iter()
        .flat_map(|o| o.values_mut())
        .for_each(|c| visit(c, &bare));
    root.as_object_mut()
        .map(|o| o.insert("$defs".into(), Value::Object(defs)));
}

fn rewrite(schema: &mut Value, strip_null: bool) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    for (k, v) in obj.iter_mut() {
        let k = k.as_str();
        if SCHEMA_MAPS.contains(&k) {
            if let Some(m) = v.as_object_mut() {
                m.values_mut().for_each(|s| rewrite(s, strip_null));
            }
        } else if SCHEMA_ARRAYS.contains(&k) && v.is_array() {
            v.as_array_mut()
                .into_iter()
                .flatten()
                .for_each(|s| rewrite(s, strip_null));
        } else if ONE_SCHEMA.contains(&k) {
            rewrite(v, strip_null);
        }
    }
    if !strip_null {
        strip_null_from_optional_properties(obj);
    }
    obj.remove("title");
    if obj
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
    {
        obj.remove("format");
    }
    if strip_null {
        strip_null_type(obj);
        drop_empty_default(obj);
    }
    collapse_string_enum(obj);
}

/// In an input schema, a `default` of `null`, `[]`, `{}` or `""` says only what leaving the optional
/// property out means anyway (nothing, none, empty): noise the model pays for on every turn. Defaults
/// that carry a choice (`50`, `false`, `"backup"`) stay.
fn drop_empty_default(obj: &mut Map<String, Value>) {
    let empty = match obj.get("default") {
        Some(Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        Some(Value::String(s)) => s.is_empty(),
        _ => false,
    };
    if empty {
        obj.remove("default");
    }
}

/// In an output schema, a property that is not `required` is one serde skips when it is `None`
/// (`skip_serializing_if`): it is never `null`, so its schema need not allow it.
fn strip_null_from_optional_properties(obj: &mut Map<String, Value>) {
    let required: Vec<Value> = obj
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let Some(Value::Object(props)) = obj.get_mut("properties") else {
        return;
    };
    for (name, schema) in props.iter_mut() {
        if !required.iter().any(|r| r == name.as_str()) {
            if let Some(o) = schema.as_object_mut() {
                strip_null_type(o);
            }
        }
    }
}

/// `type: [T, "null"]` → `type: T`; `anyOf: [S, {type: null}]` → S; `null` out of `enum`.
fn strip_null_type(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let t = types.remove(0);
            obj.insert("type".into(), t);
        }
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = obj.get_mut(key) else {
            continue;
        };
        let is_null = |b: &Value| {
            b.get("type").is_some_and(|t| t == "null")
                && b.as_object().is_some_and(|o| o.len() == 1)
        };
        if branches.len() == 2 && branches.iter().any(is_null) {
            let Some(Value::Array(branches)) = obj.remove(key) else {
                continue;
            };
            if let Some(Value::Object(inner)) = branches.into_iter().find(|b| !is_null(b)) {
                for (k, v) in inner {
                    // The property's own description wins over the type's, but the docs of an enum's
                    // variants (`- variant: text` lines) are kept.
                    if k == "description" {
                        if let (Some(Value::String(own)), Value::String(theirs)) =
                            (obj.get_mut("description"), &v)
                        {
                            for line in theirs.lines().filter(|l| l.starts_with("- ")) {
                                own.push('\n');
                                own.push_str(line);
                            }
                        }
                    }
                    obj.entry(k).or_insert(v);
                }
            }
        }
    }
}

/// `oneOf` of string constants (what schemars emits when some variants have doc comments) → `enum`.
fn collapse_string_enum(obj: &mut Map<String, Value>) {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = obj.get(key) else {
            continue;
        };
        let mut values = Vec::new();
        let mut docs = Vec::new();
        for b in branches {
            let Some(b) = b.as_object() else { return };
            if b.get("type").and_then(Value::as_str) != Some("string")
                || b.keys()
                    .any(|k| !matches!(k.as_str(), "type" | "const" | "enum" | "description"))
            {
                return;
            }
            let these: Vec<Value> = match (b.get("const"), b.get("enum")) {
                (Some(c), None) => vec![c.clone()],
                (None, Some(Value::Array(e))) => e.clone(),
                _ => return,
            };
            if let Some(d) = b.get("description").and_then(Value::as_str) {
                for v in &these {
                    docs.push(format!("- {}: {}", v.as_str().unwrap_or_default(), d));
                }
            }
            values.extend(these);
        }
        obj.remove(key);
        obj.insert("type".into(), Value::from("string"));
        obj.insert("enum".into(), Value::Array(values));
        if !docs.is_empty() {
            let mut text = obj
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_default();
            for d in docs {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&d);
            }
            obj.insert("description".into(), Value::from(text));
        }
        return;
    }
}

/// Keeps only the `$defs` that something still references (after inlining, only recursive types).
fn drop_unused_defs(root: &mut Value) {
    loop {
        let Some(defs) = root.get("$defs").and_then(Value::as_object) else {
            return;
        };
        let mut used = BTreeSet::new();
        collect_refs(root, &mut used);
        let unused: Vec<String> = defs
            .keys()
            .filter(|k| !used.contains(*k))
            .cloned()
            .collect();
        let defs = root
            .get_mut("$defs")
            .and_then(Value::as_object_mut)
            .expect("checked above");
        if unused.is_empty() {
            if defs.is_empty() {
                root.as_object_mut().map(|o| o.remove("$defs"));
            }
            return;
        }
        for k in unused {
            defs.remove(&k);
        }
    }
}

fn collect_refs(v: &Value, used: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            if let Some(name) = o
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                used.insert(name.to_string());
            }
            o.values().for_each(|v| collect_refs(v, used));
        }
        Value::Array(a) => a.iter().for_each(|v| collect_refs(v, used)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn titles_formats_and_meta_schema_go_but_a_property_named_title_stays() {
        let mut s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args", "type": "object",
            "properties": {
                "title": {"type": "string", "title": "x"},
                "n": {"type": "integer", "format": "uint32", "minimum": 0},
                "at": {"type": "string", "format": "date-time"}
            }
        });
        make_portable(&mut s, true);
        assert_eq!(
            s,
            json!({"type": "object", "properties": {
                "title": {"type": "string"},
                "n": {"type": "integer", "minimum": 0},
                "at": {"type": "string", "format": "date-time"}
            }})
        );
    }

    #[test]
    fn null_is_stripped_from_inputs_and_from_skippable_outputs() {
        let s = json!({"type": "object", "properties": {
            "a": {"type": ["boolean", "null"]},
            "b": {"anyOf": [{"type": "object", "properties": {}}, {"type": "null"}], "description": "B"}
        }});
        let mut input = s.clone();
        make_portable(&mut input, true);
        assert_eq!(input["properties"]["a"], json!({"type": "boolean"}));
        assert_eq!(
            input["properties"]["b"],
            json!({"type": "object", "properties": {}, "description": "B"})
        );
        // In an output, a required property is always serialized, so its `null` stays; a property
        // that is not required is one serde skips when it is `None`, so it is never `null`.
        let mut required = s.clone();
        required["required"] = json!(["a", "b"]);
        let mut output = required.clone();
        make_portable(&mut output, false);
        assert_eq!(output, required);
        let mut output = s.clone();
        make_portable(&mut output, false);
        assert_eq!(output, input);
    }

    #[test]
    fn documented_variants_become_a_plain_enum() {
        let mut s = json!({"description": "Priority", "oneOf": [
            {"type": "string", "const": "high", "description": "Today"},
            {"type": "string", "enum": ["low", "medium"]}
        ]});
        make_portable(&mut s, true);
        assert_eq!(
            s,
            json!({"type": "string", "enum": ["high", "low", "medium"], "description": "Priority\n- high: Today"})
        );
    }

    #[test]
    fn empty_defaults_leave_inputs_and_choices_stay() {
        let s = json!({"type": "object", "properties": {
            "labels": {"type": "array", "items": {"type": "string"}, "default": []},
            "meta": {"type": "object", "default": {}},
            "prefix": {"type": "string", "default": ""},
            "note": {"type": ["string", "null"], "default": null},
            "limit": {"type": "integer", "default": 50},
            "dry_run": {"type": "boolean", "default": false},
            "default": {"type": "string"}
        }});
        let mut input = s.clone();
        make_portable(&mut input, true);
        let p = &input["properties"];
        for k in ["labels", "meta", "prefix", "note"] {
            assert_eq!(p[k].get("default"), None, "{k}");
        }
        assert_eq!(p["limit"]["default"], json!(50));
        assert_eq!(p["dry_run"]["default"], json!(false));
        assert_eq!(p["default"], json!({"type": "string"}));
        // Outputs are validated, not prompted: left as they are.
        let mut output = s.clone();
        make_portable(&mut output, false);
        assert_eq!(output["properties"]["labels"]["default"], json!([]));
    }

    #[test]
    fn only_referenced_defs_are_kept() {
        let mut s = json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}, "Unused": {"type": "string"}}});
        make_portable(&mut s, true);
        assert_eq!(
            s["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(),
            ["Node"]
        );
    }
}
