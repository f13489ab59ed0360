//! Names typify gives inline types, kept apart from the definitions' names.
//!
//! typify names a definition after its key and an inline type after where it sits (`Package` → its property
//! `visibility` → `PackageVisibility`, its items → `PackageVisibilityItem`, a map's values → `…Value`). It
//! makes inline names unique among themselves (two inline types of one name are one type) but never against
//! the definitions: a spec with both a `package-visibility` component and a `Package.visibility` enum would
//! get two `PackageVisibility` items (E0428, E0119). This pass walks the definitions before typify sees them,
//! predicts each inline type's name the way typify builds it, and, where it would be a definition's name,
//! gives that schema a `title` (which typify takes as the type's name) that no definition holds:
//! `PackageVisibility2`. The definitions keep the names of their keys; only the inline type moves.
//!
//! An `allOf` that refers to a definition is merged with it: typify names the inline types of the properties
//! it takes after the merged type, not where they are declared (`attendee` takes `type` from `attendeeBase`
//! and gets an `AttendeeType`, the name of the component `attendeeType`). Those keep the name they have where
//! they are declared (`AttendeeBaseType`), so each is one type, whatever inherits it.

use crate::definition::{Definition, Definitions};
use heck::ToUpperCamelCase;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Renames, through `title`, every inline type whose name typify would take from a definition.
pub fn separate(defs: &mut Definitions) {
    let mut taken: BTreeSet<String> = defs.iter().map(|d| pascal(&d.name)).collect();
    // A definition that is `anyOf: [X, null]` becomes a newtype around `Option<X>`, and typify gives X the
    // definition's own name whatever X's title says: X becomes a definition of its own, `<Name>Inner`.
    for index in 0..defs.len() {
        let base = format!("{}Inner", pascal(&defs[index].name));
        let pointer = format!("{}/anyOf/0", defs[index].pointer);
        let Value::Object(o) = &mut defs[index].schema else {
            continue;
        };
        let Some(inner) = option_of(o) else { continue };
        if !inner.as_object_mut().is_some_and(named_type) {
            continue;
        }
        let fresh = std::iter::once(base.clone())
            .chain((2..).map(|n| format!("{base}{n}")))
            .find(|c| !taken.contains(c))
            .expect("an unbounded range");
        taken.insert(fresh.clone());
        let schema = std::mem::replace(
            inner,
            serde_json::json!({ "$ref": format!("#/definitions/{fresh}") }),
        );
        defs.push(Definition {
            name: fresh,
            pointer,
            schema,
        });
    }
    let definitions = taken.clone();
    let mut merges = Vec::new();
    for def in defs.iter_mut() {
        let name = pascal(&def.name);
        walk(
            &mut def.schema,
            &name,
            &definitions,
            &mut taken,
            &mut merges,
        );
    }
    pin_inherited(defs, &merges);
}

/// An `allOf` that typify merges into one type: the definitions its members refer to, whose properties it
/// takes, and the properties its own members declare.
struct Merge {
    refs: Vec<String>,
    own: BTreeSet<String>,
}

/// A property a definition declares (in its `properties` or an `allOf` member's): where its schema is, and
/// the name typify gives its inline type there.
struct Declared {
    def: usize,
    pointer: String,
    property: String,
    name: String,
}

/// typify names the inline types of the properties an `allOf` takes from a referenced definition after the
/// merged type (`attendee` takes `type` from `attendeeBase`: `AttendeeType`), which may be a definition's
/// name, and makes one such type per type that inherits it. Each of those inline types is given the name
/// it has where it is declared (`AttendeeBaseType`), as a `title`, so every type that inherits it shares
/// that one. A property the merge also declares itself is merged by typify with its own, and keeps no title.
fn pin_inherited(defs: &mut Definitions, merges: &[Merge]) {
    let index: BTreeMap<String, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.clone(), i))
        .collect();
    for merge in merges {
        let mut inherited = Vec::new();
        let mut seen = BTreeSet::new();
        for target in &merge.refs {
            declared_by(defs, &index, target, &mut seen, &mut inherited);
        }
        let mut count: BTreeMap<&str, usize> = merge.own.iter().map(|p| (p.as_str(), 1)).collect();
        for d in &inherited {
            *count.entry(d.property.as_str()).or_default() += 1;
        }
        let pins: Vec<(usize, String, String)> = inherited
            .iter()
            .filter(|d| count.get(d.property.as_str()) == Some(&1))
            .map(|d| (d.def, d.pointer.clone(), d.name.clone()))
            .collect();
        for (def, pointer, name) in pins {
            if let Some(schema) = defs[def].schema.pointer_mut(&pointer) {
                pin(schema, name);
            }
        }
    }
}

/// The properties the definition `target` declares, with those of the definitions its `allOf` refers to.
fn declared_by(
    defs: &Definitions,
    index: &BTreeMap<String, usize>,
    target: &str,
    seen: &mut BTreeSet<usize>,
    out: &mut Vec<Declared>,
) {
    let Some(&def) = index.get(target) else {
        return;
    };
    if !seen.insert(def) {
        return;
    }
    let home = pascal(&defs[def].name);
    let mut refs = Vec::new();
    let mut stack = vec![(String::new(), &defs[def].schema)];
    while let Some((pointer, schema)) = stack.pop() {
        let Value::Object(o) = schema else { continue };
        if let Some(Value::Object(props)) = o.get("properties") {
            for prop in props.keys() {
                out.push(Declared {
                    def,
                    pointer: format!("{pointer}/properties/{}", escape(prop)),
                    property: prop.clone(),
                    name: pascal(&format!("{home}_{prop}")),
                });
            }
        }
        if let Some(Value::Array(members)) = o.get("allOf") {
            for (i, member) in members.iter().enumerate() {
                match reference(member) {
                    Some(r) => refs.push(r.to_string()),
                    None => stack.push((format!("{pointer}/allOf/{i}"), member)),
                }
            }
        }
    }
    for r in refs {
        declared_by(defs, index, &r, seen, out);
    }
}

/// The definition an `allOf` member is a reference to.
fn reference(member: &Value) -> Option<&str> {
    member
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/definitions/"))
}

/// A JSON pointer token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Names, through `title`, the inline type `schema` is (or its items', its values', an `Option`'s) `name`,
/// the name typify gives it where it is declared, unless it has a title already.
fn pin(schema: &mut Value, name: String) {
    let Value::Object(o) = schema else { return };
    if o.contains_key("title") {
        return;
    }
    if named_type(o) {
        o.insert("title".into(), Value::String(name));
        return;
    }
    if let Some(inner) = option_of(o) {
        pin(inner, name);
        return;
    }
    for (keyword, suffix) in [("items", "Item"), ("additionalProperties", "Value")] {
        if let Some(sub) = o.get_mut(keyword) {
            pin(sub, format!("{name}{suffix}"));
        }
    }
}

/// typify's `sanitize(_, Case::Pascal)`: anything not an identifier character is a word break.
fn pascal(name: &str) -> String {
    let cleaned: String = name
        .replace('\'', "")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let out = cleaned.to_upper_camel_case();
    match out.chars().next() {
        None => "X".into(),
        Some(c) if c.is_alphabetic() || c == '_' => out,
        Some(_) => format!("X{out}"),
    }
}

/// Whether typify makes a named type (a struct, an enum, a newtype) of this schema rather than a Rust type it
/// has (`String`, `Vec<_>`, a map) or a reference.
fn named_type(o: &mut Map<String, Value>) -> bool {
    if (o.contains_key("$ref") && !o.contains_key("allOf")) || option_of(o).is_some() {
        return false;
    }
    o.get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
        || ["enum", "oneOf", "anyOf", "allOf"]
            .iter()
            .any(|k| o.contains_key(*k))
}

/// The X of `anyOf` (or `oneOf`) `[X, {"type": "null"}]` (how a nullable composition is written), which
/// typify makes an `Option<X>`.
fn option_of(o: &mut Map<String, Value>) -> Option<&mut Value> {
    let key = ["anyOf", "oneOf"]
        .into_iter()
        .find(|k| o.contains_key(*k))?;
    let Some(Value::Array(members)) = o.get_mut(key) else {
        return None;
    };
    let null = serde_json::json!({"type": "null"});
    if members.len() != 2 || !members.contains(&null) {
        return None;
    }
    members.iter_mut().find(|m| **m != null)
}

/// `name` is the type name this schema's inline children are named after; an `allOf` that refers to
/// definitions is added to `merges`.
fn walk(
    schema: &mut Value,
    name: &str,
    definitions: &BTreeSet<String>,
    taken: &mut BTreeSet<String>,
    merges: &mut Vec<Merge>,
) {
    let Value::Object(o) = schema else { return };
    if o.contains_key("allOf") {
        let mut merge = Merge {
            refs: Vec::new(),
            own: BTreeSet::new(),
        };
        merged_members(o, &mut merge);
        if !merge.refs.is_empty() {
            merges.push(merge);
        }
    }
    walk_inside(o, name, definitions, taken, merges);
}

/// The definitions an `allOf` refers to and the properties it declares, through its inline members' own
/// `allOf`s (typify merges those too).
fn merged_members(o: &Map<String, Value>, merge: &mut Merge) {
    if let Some(Value::Object(props)) = o.get("properties") {
        merge.own.extend(props.keys().cloned());
    }
    if let Some(Value::Array(members)) = o.get("allOf") {
        for member in members {
            match (reference(member), member) {
                (Some(r), _) => merge.refs.push(r.to_string()),
                (None, Value::Object(m)) => merged_members(m, merge),
                (None, _) => {}
            }
        }
    }
}

/// [`walk`]'s recursion; an `allOf` member is part of its parent's merge, not one of its own.
fn walk_inside(
    o: &mut Map<String, Value>,
    name: &str,
    definitions: &BTreeSet<String>,
    taken: &mut BTreeSet<String>,
    merges: &mut Vec<Merge>,
) {
    if let Some(Value::Object(props)) = o.get_mut("properties") {
        for (prop, sub) in props.iter_mut() {
            let child = claim(sub, pascal(&format!("{name}_{prop}")), definitions, taken);
            walk(sub, &child, definitions, taken, merges);
        }
    }
    for (keyword, suffix) in [("items", "Item"), ("additionalProperties", "Value")] {
        if let Some(sub) = o.get_mut(keyword) {
            if sub.is_object() {
                let child = claim(sub, format!("{name}{suffix}"), definitions, taken);
                walk(sub, &child, definitions, taken, merges);
            }
        }
    }
    // `anyOf: [X, null]` is an `Option` of X, and X takes the option's name (a definition's name too).
    if let Some(inner) = option_of(o) {
        let child = claim(inner, name.to_string(), definitions, taken);
        walk(inner, &child, definitions, taken, merges);
    }
    // An `allOf` is merged into the type it belongs to: its members' properties are named after it.
    if let Some(Value::Array(members)) = o.get_mut("allOf") {
        for member in members {
            if let Value::Object(m) = member {
                walk_inside(m, name, definitions, taken, merges);
            }
        }
    }
}

/// The name typify will give `sub`: `predicted`, or, when that is a definition's, a fresh one set as its title.
fn claim(
    sub: &mut Value,
    predicted: String,
    definitions: &BTreeSet<String>,
    taken: &mut BTreeSet<String>,
) -> String {
    let Value::Object(o) = sub else {
        return predicted;
    };
    if !definitions.contains(&predicted) || !named_type(o) {
        taken.insert(predicted.clone());
        return predicted;
    }
    let fresh = (2..)
        .map(|n| format!("{predicted}{n}"))
        .find(|c| !taken.contains(c))
        .expect("an unbounded range");
    taken.insert(fresh.clone());
    o.insert("title".into(), Value::String(fresh.clone()));
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def(name: &str, schema: Value) -> Definition {
        Definition {
            name: name.into(),
            pointer: format!("/components/schemas/{name}"),
            schema,
        }
    }

    #[test]
    fn an_inline_type_named_like_a_definition_moves_and_the_definition_stays() {
        let mut defs = vec![
            def(
                "Package",
                json!({"type": "object", "properties": {
                    "visibility": {"type": "string", "enum": ["public", "private"]},
                    "name": {"type": "string"},
                    "owner": {"type": "object", "properties": {"login": {"type": "string"}}}
                }}),
            ),
            def(
                "PackageVisibility",
                json!({"type": "string", "enum": ["public", "private", "internal"]}),
            ),
            def("PackageVisibility2", json!({"type": "integer"})),
            // A nullable composition as a definition: its `anyOf` member would take the definition's name.
            def(
                "NullableLocation",
                json!({"anyOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]}),
            ),
            def(
                "Ruleset",
                json!({"type": "object", "properties": {
                    "conditions": {"anyOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]}
                }}),
            ),
            def("RulesetConditions", json!({"type": "object"})),
        ];
        separate(&mut defs);
        let props = &defs[0].schema["properties"];
        assert_eq!(props["visibility"]["title"], "PackageVisibility3");
        // Neither a plain string nor an inline type whose name is free gets a title.
        assert!(props["name"].get("title").is_none());
        assert!(props["owner"].get("title").is_none());
        assert!(defs[1].schema.get("title").is_none());
        assert_eq!(
            defs[3].schema["anyOf"][0],
            json!({"$ref": "#/definitions/NullableLocationInner"})
        );
        let inner = defs
            .iter()
            .find(|d| d.name == "NullableLocationInner")
            .unwrap();
        assert_eq!(
            inner.schema,
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})
        );
        let conditions = &defs[4].schema["properties"]["conditions"];
        assert!(conditions.get("title").is_none());
        assert_eq!(conditions["anyOf"][0]["title"], "RulesetConditions2");
    }

    #[test]
    fn inherited_inline_types_keep_the_name_they_have_where_they_are_declared() {
        let mut defs = vec![
            def(
                "Recipient",
                json!({"type": "object", "properties": {
                    "emailAddress": {"type": "object", "properties": {"address": {"type": "string"}}},
                    "tags": {"type": "array", "items": {"enum": ["a", "b"]}}
                }}),
            ),
            def(
                "AttendeeBase",
                json!({"allOf": [{"$ref": "#/definitions/Recipient"}, {"type": "object", "properties": {
                    "type": {"anyOf": [{"$ref": "#/definitions/AttendeeType"}, {"type": ["object", "null"]}]}
                }}]}),
            ),
            // `type` would be `AttendeeType` here, a definition's name.
            def(
                "Attendee",
                json!({"allOf": [{"$ref": "#/definitions/AttendeeBase"}, {"type": "object", "properties": {
                    "status": {"enum": ["none", "accepted"]}
                }}]}),
            ),
            def("AttendeeType", json!({"enum": ["required", "optional"]})),
            // A property declared again is merged with the inherited one: typify names it here.
            def(
                "Organizer",
                json!({"allOf": [{"$ref": "#/definitions/Recipient"}, {"properties": {
                    "emailAddress": {"type": "object", "properties": {"name": {"type": "string"}}}
                }}]}),
            ),
        ];
        separate(&mut defs);
        let base_type = &defs[1].schema["allOf"][1]["properties"]["type"];
        assert_eq!(base_type["title"], "AttendeeBaseType");
        let recipient = &defs[0].schema["properties"];
        assert_eq!(recipient["emailAddress"]["title"], "RecipientEmailAddress");
        assert_eq!(recipient["tags"]["items"]["title"], "RecipientTagsItem");
        assert!(recipient["tags"].get("title").is_none());
        // What nothing inherits and what is declared again have no title.
        assert!(defs[2].schema["allOf"][1]["properties"]["status"]
            .get("title")
            .is_none());
        assert!(defs[4].schema["allOf"][1]["properties"]["emailAddress"]
            .get("title")
            .is_none());
    }

    #[test]
    fn items_and_map_values_are_checked_and_their_children_follow_the_new_name() {
        let mut defs = vec![
            def(
                "Issue",
                json!({"type": "object", "properties": {
                    "labels": {"type": "array", "items": {"type": "object", "properties": {
                        "color": {"enum": ["red"]}
                    }}}
                }}),
            ),
            def("IssueLabelsItem", json!({"type": "string"})),
            def("IssueLabelsItem2Color", json!({"type": "string"})),
        ];
        separate(&mut defs);
        let item = &defs[0].schema["properties"]["labels"]["items"];
        assert_eq!(item["title"], "IssueLabelsItem2");
        assert_eq!(
            item["properties"]["color"]["title"],
            "IssueLabelsItem2Color2"
        );
    }
}
