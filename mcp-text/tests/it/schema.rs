//! The judge every other corpus test leans on: the official ADF JSON schema (npm `@atlaskit/adf-schema`,
//! `dist/json-schema/v1/full.json`, draft-04), validated by the `jsonschema` crate.
//!
//! The schema is read and compiled once per test binary. Its own tests check the judge before anything is
//! judged by it: known-valid documents pass, documents breaking each constraint the issue names (a code
//! mark beside strong, a heading in a list item, an empty list item) fail, and the model's list of node and
//! mark types is exactly the schema's.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use mcp_text::{MarkType, NodeType};
use serde_json::{json, Value};

/// Where `scripts/install-text-corpora.sh` puts the schema, relative to the workspace.
pub const SCHEMA_PATH: &str =
    ".peers/text/node_modules/@atlaskit/adf-schema/dist/json-schema/v1/full.json";

pub struct Schema {
    pub json: Value,
    validator: jsonschema::Validator,
    /// Per node type, a validator for each definition of that type (compiled when first needed).
    by_type: OnceLock<HashMap<String, Vec<jsonschema::Validator>>>,
}

/// The official schema, or `None` (after [`test_support::missing`]) when the corpora are not installed.
pub fn schema() -> Option<&'static Schema> {
    static SCHEMA: OnceLock<Option<Schema>> = OnceLock::new();
    let loaded = SCHEMA.get_or_init(|| {
        let path = test_support::workspace().join(SCHEMA_PATH);
        let text = std::fs::read_to_string(&path).ok()?;
        let json: Value = serde_json::from_str(&text).expect("full.json is JSON");
        let validator =
            jsonschema::draft4::new(&json).expect("full.json compiles as a draft-04 schema");
        Some(Schema {
            json,
            validator,
            by_type: OnceLock::new(),
        })
    });
    match loaded {
        Some(schema) => Some(schema),
        None => test_support::missing(
            "the ADF JSON schema (npm @atlaskit/adf-schema)",
            "scripts/install-text-corpora.sh",
        ),
    }
}

impl Schema {
    /// The deepest node that no definition of its type accepts, as (JSON pointer, node): where a document
    /// goes wrong, rather than the `anyOf` at its root that the validator's first error names. A node
    /// whose children are each valid but break their parent's content rule is the parent.
    pub fn locate<'v>(&self, doc: &'v Value) -> Option<(String, &'v Value)> {
        let by_type = self.by_type.get_or_init(|| {
            let mut map: HashMap<String, Vec<jsonschema::Validator>> = HashMap::new();
            for (name, def) in self.json["definitions"].as_object().expect("definitions") {
                let Some(ty) = def["properties"]["type"]["enum"][0].as_str().or_else(|| {
                    def["allOf"][0]["$ref"].as_str().and_then(|r| {
                        let base = r.strip_prefix("#/definitions/")?;
                        self.json["definitions"][base]["properties"]["type"]["enum"][0].as_str()
                    })
                }) else {
                    continue;
                };
                let one = json!({"$ref": format!("#/definitions/{name}"), "definitions": self.json["definitions"]});
                map.entry(ty.to_string()).or_default().push(jsonschema::draft4::new(&one).expect("a definition compiles"));
            }
            map
        });
        fn walk<'v>(
            v: &'v Value,
            path: String,
            by_type: &HashMap<String, Vec<jsonschema::Validator>>,
        ) -> Option<(String, &'v Value)> {
            for (i, child) in v["content"].as_array().into_iter().flatten().enumerate() {
                if let Some(found) = walk(child, format!("{path}/content/{i}"), by_type) {
                    return Some(found);
                }
            }
            let ty = v["type"].as_str().unwrap_or("");
            let fits = by_type
                .get(ty)
                .is_some_and(|defs| defs.iter().any(|d| d.is_valid(v)));
            (!fits).then_some((path, v))
        }
        if self.is_valid(doc) {
            return None;
        }
        walk(doc, String::new(), by_type)
    }

    pub fn is_valid(&self, doc: &Value) -> bool {
        self.validator.is_valid(doc)
    }

    /// `Ok` when `doc` is valid; otherwise the first few errors, each with its place and the JSON there.
    pub fn check(&self, doc: &Value) -> Result<(), String> {
        if self.validator.is_valid(doc) {
            return Ok(());
        }
        let mut report = String::new();
        if let Some((path, node)) = self.locate(doc) {
            report.push_str(&format!(
                "  no definition accepts the node at {path}: {}\n",
                short(&node.to_string(), 600)
            ));
        }
        for error in self.validator.iter_errors(doc).take(3) {
            let path = error.instance_path().to_string();
            let at = doc
                .pointer(&path)
                .map(|v| v.to_string())
                .unwrap_or_default();
            report.push_str(&format!(
                "  at {path}: {}\n    there: {}\n",
                short(&error.to_string(), 300),
                short(&at, 300)
            ));
        }
        Err(report)
    }
}

/// `text` cut to about `max` bytes (on a char boundary), with an ellipsis.
pub fn short(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn doc(content: Value) -> Value {
    json!({"type": "doc", "version": 1, "content": content})
}

fn para(text: &str, marks: Value) -> Value {
    json!({"type": "paragraph", "content": [{"type": "text", "text": text, "marks": marks}]})
}

#[test]
fn the_judge_accepts_valid_documents() {
    let Some(schema) = schema() else { return };
    let valid = [
        doc(json!([])),
        doc(json!([para(
            "bold link",
            json!([{"type": "link", "attrs": {"href": "https://x"}}, {"type": "strong"}])
        )])),
        doc(json!([para(
            "code link",
            json!([{"type": "link", "attrs": {"href": "https://x"}}, {"type": "code"}])
        )])),
        doc(
            json!([{"type": "bulletList", "content": [{"type": "listItem", "content": [{"type": "paragraph"}]}]}]),
        ),
        doc(
            json!([{"type": "panel", "attrs": {"panelType": "note"}, "content": [{"type": "paragraph"}]}]),
        ),
        doc(
            json!([{"type": "heading", "attrs": {"level": 6}, "content": [{"type": "text", "text": "x"}]}]),
        ),
    ];
    for (i, d) in valid.iter().enumerate() {
        if let Err(report) = schema.check(d) {
            panic!("valid document {i} rejected:\n{report}{d}");
        }
    }
}

#[test]
fn the_judge_rejects_each_constraint_the_issue_names() {
    let Some(schema) = schema() else { return };
    let invalid = [
        (
            "code beside strong",
            doc(json!([para(
                "x",
                json!([{"type": "code"}, {"type": "strong"}])
            )])),
        ),
        (
            "heading in a list item",
            doc(
                json!([{"type": "bulletList", "content": [{"type": "listItem", "content": [
                {"type": "heading", "attrs": {"level": 1}}]}]}]),
            ),
        ),
        (
            "empty list item",
            doc(json!([{"type": "bulletList", "content": [{"type": "listItem", "content": []}]}])),
        ),
        ("empty text", doc(json!([para("", json!([]))]))),
        (
            "heading level 7",
            doc(json!([{"type": "heading", "attrs": {"level": 7}}])),
        ),
        ("no version", json!({"type": "doc", "content": []})),
        ("unknown node", doc(json!([{"type": "frobnicate"}]))),
        (
            "status colour outside its pattern",
            doc(json!([{"type": "paragraph", "content": [
            {"type": "status", "attrs": {"text": "x", "color": "pink"}}]}])),
        ),
    ];
    for (what, d) in &invalid {
        assert!(
            !schema.is_valid(d),
            "the schema accepts a document with {what}: {d}"
        );
    }
}

/// The model's `NodeType`/`MarkType` name every type the schema defines and nothing else, so that the
/// generator's coverage of the schema is coverage of the model.
#[test]
fn the_model_names_exactly_the_schemas_types() {
    let Some(schema) = schema() else { return };
    let mut nodes = BTreeSet::new();
    let mut marks = BTreeSet::new();
    for (name, def) in schema.json["definitions"].as_object().expect("definitions") {
        let ty = def["properties"]["type"]["enum"][0].as_str();
        match (name.ends_with("_mark"), ty) {
            (true, Some(ty)) => drop(marks.insert(ty.to_string())),
            (false, Some(ty)) => drop(nodes.insert(ty.to_string())),
            _ => {}
        }
    }
    for node in &nodes {
        assert!(
            !matches!(NodeType::from_name(node), NodeType::Other(_)),
            "the model has no NodeType for `{node}`"
        );
    }
    for mark in &marks {
        assert!(
            !matches!(MarkType::from_name(mark), MarkType::Other(_)),
            "the model has no MarkType for `{mark}`"
        );
    }
    assert_eq!(nodes.len(), 43, "node types in the schema: {nodes:?}");
    assert_eq!(marks.len(), 17, "mark types in the schema: {marks:?}");
}
