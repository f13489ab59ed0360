//! One operation → one tool: parameters and body flattened into one object input schema, the output schema from
//! the first 2xx JSON response (both full: references to the spec's definitions stay references), and the
//! [`Request`] a call becomes. The model's view of the tool is rendered later, within the budget.

use crate::document::Document;
use crate::schema::{deref, escape, object_shape, Schemas};
use crate::{
    names, warning, Body, BodyShape, ConvertOptions, Encoding, Field, Location, Parameter, Request,
    Warning,
};
use mcp_runtime::protocol::ToolAnnotations;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Where an operation sits in the spec.
pub struct Site<'a> {
    /// The path template (`/pets/{petId}`).
    pub path: &'a str,
    /// The method, lower case as the spec's key (`get`).
    pub method: &'a str,
    /// The path item (for its shared `parameters`).
    pub item: &'a Value,
    /// The operation object.
    pub op: &'a Map<String, Value>,
    /// JSON pointer of the operation (`/paths/~1pets/get`).
    pub pointer: &'a str,
    /// `GET /pets (listPets)`, for warnings.
    pub label: &'a str,
    /// The tool's name, already chosen and unique.
    pub name: &'a str,
}

/// Header parameters OpenAPI says are ignored: the request's own machinery sets them.
const IGNORED_HEADERS: &[&str] = &["accept", "content-type", "authorization"];

/// One input property before names are settled.
struct Candidate {
    name: String,
    source: &'static str,
    schema: Value,
    required: bool,
    target: Target,
}

enum Target {
    Parameter(Parameter),
    Field { property: String, binary: bool },
    WholeBody,
}

/// An operation mapped, before the model's view of it is rendered.
pub struct Mapped {
    /// The full description: summary and description.
    pub description: String,
    /// Hints from the method: `GET`, `HEAD`, `OPTIONS` and `TRACE` read-only; `PUT` and `DELETE` destructive
    /// and idempotent; always open-world.
    pub annotations: ToolAnnotations,
    /// The full input schema (references to the spec's definitions kept).
    pub input: Value,
    /// The full output schema, always an object (a non-object answer is wrapped as `{"result": ...}`).
    pub output: Option<Value>,
    /// The HTTP request a call becomes.
    pub request: Request,
}

/// Maps one operation: its parameters and body flattened into one input schema under portable, distinct
/// argument names, its output schema, and the request. `Err` says why the operation cannot be mapped (it is
/// skipped with a warning).
pub fn map(
    schemas: &mut Schemas,
    site: &Site,
    options: &ConvertOptions,
) -> Result<(Mapped, Vec<Warning>), String> {
    let mut warnings = Vec::new();
    let mut candidates = parameters(schemas, site, options)?;
    let body = request_body(schemas, site, &mut candidates, &mut warnings)?;

    // Argument names are portable (`[A-Za-z0-9_.-]`, as strict clients require) and distinct: `DateCreated<`
    // and `DateCreated>` become `DateCreated_lt` and `DateCreated_gt`; names used by more than one source get
    // the source as a suffix (`id_path`, `id_body`), predictably.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for c in &candidates {
        *counts.entry(names::argument(&c.name)).or_default() += 1;
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut parameters = Vec::new();
    let mut fields = Vec::new();
    let mut whole_body = None;
    for c in candidates {
        let base = names::argument(&c.name);
        let mut argument = if counts[&base] > 1 {
            names::argument(&format!("{base}_{}", c.source))
        } else {
            base.clone()
        };
        let mut n = 2;
        while properties.contains_key(&argument) {
            argument = names::argument(&format!("{base}_{}_{n}", c.source));
            n += 1;
        }
        if c.required {
            required.push(Value::String(argument.clone()));
        }
        properties.insert(argument.clone(), c.schema);
        match c.target {
            Target::Parameter(mut p) => {
                p.argument = argument;
                parameters.push(p);
            }
            Target::Field { property, binary } => fields.push(Field {
                argument,
                property,
                binary,
                required: c.required,
            }),
            Target::WholeBody => whole_body = Some(argument),
        }
    }
    let body = body.map(|(content_type, encoding, required)| Body {
        content_type,
        encoding,
        required,
        shape: match whole_body {
            Some(argument) => BodyShape::Whole { argument },
            None => BodyShape::Fields(fields),
        },
    });

    let mut input = Map::new();
    input.insert("type".into(), json!("object"));
    if properties.is_empty() {
        input.insert("additionalProperties".into(), json!(false));
    } else {
        input.insert("properties".into(), Value::Object(properties));
    }
    if !required.is_empty() {
        input.insert("required".into(), Value::Array(required));
    }

    let (output, accept, wrapped_output) = match output(schemas.doc(), site) {
        Some((schema, pointer, accept)) => {
            let schema = schemas.convert(schema, &pointer);
            schemas.settle();
            if is_object(&schema, schemas) {
                (Some(schema), Some(accept), false)
            } else {
                let wrapper = json!({
                    "type": "object",
                    "properties": { "result": schema },
                    "required": ["result"],
                });
                (Some(wrapper), Some(accept), true)
            }
        }
        None => (None, None, false),
    };
    warnings.extend(
        schemas
            .take_warnings()
            .into_iter()
            .map(|(p, m)| warning(site.label, &p, m)),
    );
    let request = Request {
        method: site.method.to_uppercase(),
        path: site.path.to_string(),
        parameters,
        body,
        accept,
        wrapped_output,
    };
    Ok((
        Mapped {
            description: description(site.op),
            annotations: annotations(site.method),
            input: Value::Object(input),
            output,
            request,
        },
        warnings,
    ))
}

/// Whether an answer's schema is an object as it stands (an output schema's root must be one).
fn is_object(schema: &Value, schemas: &Schemas) -> bool {
    let mut s = schema;
    for _ in 0..16 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) if s.as_object().is_some_and(|o| o.len() == 1) => match schemas.lookup(r) {
                Some(t) => s = t,
                None => return false,
            },
            _ => break,
        }
    }
    s.get("type") == Some(&json!("object"))
}

/// "Summary\n\nDescription", or whichever there is.
fn description(op: &Map<String, Value>) -> String {
    let text = |k: &str| {
        op.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    match (text("summary"), text("description")) {
        (Some(s), Some(d)) if d.starts_with(s) => d.to_string(),
        (Some(s), Some(d)) => format!("{s}\n\n{d}"),
        (Some(s), None) => s.to_string(),
        (None, Some(d)) => d.to_string(),
        (None, None) => String::new(),
    }
}

/// What HTTP says about a method, as MCP hints.
fn annotations(method: &str) -> ToolAnnotations {
    let read_only = matches!(method, "get" | "head" | "options" | "trace");
    ToolAnnotations {
        read_only_hint: Some(read_only),
        destructive_hint: (!read_only).then_some(matches!(method, "delete" | "put")),
        idempotent_hint: (!read_only).then_some(matches!(method, "put" | "delete")),
        open_world_hint: Some(true),
        ..ToolAnnotations::default()
    }
}

/// The path item's parameters overridden by the operation's (same name and location), in that order.
fn parameters(
    schemas: &mut Schemas,
    site: &Site,
    options: &ConvertOptions,
) -> Result<Vec<Candidate>, String> {
    let doc = schemas.doc();
    let mut declared: Vec<(Value, String)> = Vec::new();
    for (owner, pointer) in [
        (
            site.item,
            site.pointer
                .rsplit_once('/')
                .map_or("", |p| p.0)
                .to_string(),
        ),
        (&Value::Object(site.op.clone()), site.pointer.to_string()),
    ] {
        let Some(list) = owner.get("parameters") else {
            continue;
        };
        let Some(list) = list.as_array() else {
            return Err(format!("`parameters` at {pointer} is not an array"));
        };
        for (i, p) in list.iter().enumerate() {
            let at = format!("{pointer}/parameters/{i}");
            let (p, at) = deref(doc, p, &at).map_err(|why| format!("parameter {i}: {why}"))?;
            let key = (
                p.get("name").and_then(Value::as_str),
                p.get("in").and_then(Value::as_str),
            );
            declared.retain(|(q, _)| {
                (
                    q.get("name").and_then(Value::as_str),
                    q.get("in").and_then(Value::as_str),
                ) != key
            });
            declared.push((p.clone(), at));
        }
    }
    let mut out = Vec::new();
    for (p, at) in declared {
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            return Err(format!("the parameter at {at} has no name"));
        };
        let location = match p.get("in").and_then(Value::as_str) {
            Some("path") => Location::Path,
            Some("query") => Location::Query,
            Some("header") => Location::Header,
            Some("cookie") => Location::Cookie,
            other => {
                return Err(format!(
                    "the parameter `{name}` is in {}, which is not path, query, header or cookie",
                    other.map_or("nowhere".into(), |o| format!("`{o}`"))
                ))
            }
        };
        if location == Location::Header
            && (IGNORED_HEADERS.contains(&name.to_ascii_lowercase().as_str())
                || options
                    .hidden_headers
                    .iter()
                    .any(|h| h.eq_ignore_ascii_case(name)))
        {
            continue;
        }
        let (schema, json) = match (p.get("schema"), p.get("content").and_then(Value::as_object)) {
            (Some(s), _) => (schemas.convert_shared(s, &format!("{at}/schema")), false),
            (None, Some(content)) => match content.iter().next() {
                Some((media, m)) => match m.get("schema") {
                    Some(s) => (
                        schemas.convert(s, &format!("{at}/content/{}/schema", escape(media))),
                        true,
                    ),
                    None => (json!({}), true),
                },
                None => (json!({}), true),
            },
            (None, None) => (json!({"type": "string"}), false),
        };
        let mut schema = schema;
        if let (Some(d), Value::Object(o)) =
            (p.get("description").and_then(Value::as_str), &mut schema)
        {
            if !d.trim().is_empty() {
                o.insert("description".into(), json!(d));
            }
        }
        let style = p
            .get("style")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| {
                match location {
                    Location::Query | Location::Cookie => "form",
                    Location::Path | Location::Header => "simple",
                }
                .into()
            });
        let explode = p
            .get("explode")
            .and_then(Value::as_bool)
            .unwrap_or(style == "form");
        let required = location == Location::Path || p.get("required") == Some(&Value::Bool(true));
        out.push(Candidate {
            name: name.to_string(),
            source: location.as_str(),
            schema,
            required,
            target: Target::Parameter(Parameter {
                argument: String::new(),
                name: name.to_string(),
                location,
                required,
                style,
                explode,
                json,
            }),
        });
    }
    // Every `{name}` of the path must be fillable.
    for segment in site.path.split('{').skip(1) {
        let Some((name, _)) = segment.split_once('}') else {
            return Err("the path has an unclosed `{`".into());
        };
        let declared = out.iter().any(|c| matches!(&c.target, Target::Parameter(p) if p.location == Location::Path && p.name == name));
        if !declared {
            return Err(format!("the path parameter `{name}` is not declared"));
        }
    }
    Ok(out)
}

/// Media types in the order they are preferred for a request body.
fn pick_media(content: &Map<String, Value>) -> Option<(&String, &Value, Encoding)> {
    let rank = |m: &str| {
        let m = m.split(';').next().unwrap_or(m).trim().to_ascii_lowercase();
        if m == "application/json" {
            (0, Encoding::Json)
        } else if m.ends_with("+json") || m.ends_with("/json") {
            (1, Encoding::Json)
        } else if m == "application/x-www-form-urlencoded" {
            (2, Encoding::Form)
        } else if m == "multipart/form-data" || m.starts_with("multipart/") {
            (3, Encoding::Multipart)
        } else if m.starts_with("text/") || m.ends_with("/xml") || m.ends_with("+xml") {
            (4, Encoding::Text)
        } else if m == "*/*" {
            (5, Encoding::Json)
        } else {
            (6, Encoding::Binary)
        }
    };
    content
        .iter()
        .map(|(k, v)| (rank(k), k, v))
        .min_by_key(|(r, k, _)| (r.0, (*k).clone()))
        .map(|(r, k, v)| (k, v, r.1))
}

/// The body: flattened into `candidates` when it is an object, one `body` argument otherwise.
/// Returns the content type, encoding and whether the body is required.
fn request_body(
    schemas: &mut Schemas,
    site: &Site,
    candidates: &mut Vec<Candidate>,
    warnings: &mut Vec<Warning>,
) -> Result<Option<(String, Encoding, bool)>, String> {
    let Some(body) = site.op.get("requestBody") else {
        return Ok(None);
    };
    let (body, at) = deref(
        schemas.doc(),
        body,
        &format!("{}/requestBody", site.pointer),
    )
    .map_err(|why| format!("the request body: {why}"))?;
    let required = body.get("required") == Some(&Value::Bool(true));
    let Some(content) = body.get("content").and_then(Value::as_object) else {
        warnings.push(warning(
            site.label,
            &at,
            "the request body has no `content`; no body is sent".into(),
        ));
        return Ok(None);
    };
    let Some((media, m, encoding)) = pick_media(content) else {
        warnings.push(warning(
            site.label,
            &at,
            "the request body lists no media type; no body is sent".into(),
        ));
        return Ok(None);
    };
    let content_type = if media.contains('*') {
        "application/json".to_string()
    } else {
        media.clone()
    };
    let schema_at = format!("{at}/content/{}/schema", escape(media));
    let schema = match m.get("schema") {
        Some(s) => schemas.convert(s, &schema_at),
        None if encoding == Encoding::Binary => {
            json!({"type": "string", "contentEncoding": "base64"})
        }
        None if encoding == Encoding::Text => json!({"type": "string"}),
        None => json!({}),
    };
    let description = body
        .get("description")
        .and_then(Value::as_str)
        .filter(|d| !d.trim().is_empty());
    let flattenable = matches!(
        encoding,
        Encoding::Json | Encoding::Form | Encoding::Multipart
    );
    if flattenable {
        // The body's own references must be converted before their shape can be read.
        schemas.settle();
    }
    let shape = flattenable
        .then(|| object_shape(&schema, &|r| schemas.lookup(r)))
        .flatten();
    if let Some((properties, body_required)) = shape {
        for (property, schema) in properties {
            let base64 = |s: &Value| s.get("contentEncoding") == Some(&json!("base64"));
            let binary = encoding == Encoding::Multipart
                && (base64(&schema) || schema.get("items").is_some_and(base64));
            candidates.push(Candidate {
                name: property.clone(),
                source: "body",
                required: required && body_required.contains(&property),
                schema,
                target: Target::Field { property, binary },
            });
        }
        return Ok(Some((content_type, encoding, required)));
    }
    let mut schema = match (schema, encoding) {
        (s, Encoding::Binary) if s.get("type") == Some(&json!("string")) || s == json!({}) => {
            json!({"type": "string", "contentEncoding": "base64", "description": "The body's bytes, base64-encoded."})
        }
        (s, _) => s,
    };
    if let (Some(d), Value::Object(o)) = (description, &mut schema) {
        o.entry("description").or_insert_with(|| json!(d));
    }
    candidates.push(Candidate {
        name: "body".into(),
        source: "body",
        schema,
        required,
        target: Target::WholeBody,
    });
    Ok(Some((content_type, encoding, required)))
}

/// The schema of the first 2xx response with JSON content, its pointer, and its media type.
fn output<'a>(doc: &'a Document, site: &Site<'a>) -> Option<(&'a Value, String, String)> {
    let responses = site.op.get("responses")?.as_object()?;
    let mut codes: Vec<&String> = responses.keys().filter(|c| c.starts_with('2')).collect();
    // `200` before `201` before `2XX`.
    codes.sort_by_key(|c| (c.contains(['X', 'x']), (*c).clone()));
    for code in codes {
        let at = format!("{}/responses/{code}", site.pointer);
        let Ok((response, at)) = deref(doc, &responses[code.as_str()], &at) else {
            continue;
        };
        let Some(content) = response.get("content").and_then(Value::as_object) else {
            continue;
        };
        let json_media = content.iter().filter(|(m, v)| {
            let m = m.split(';').next().unwrap_or(m).trim().to_ascii_lowercase();
            (m == "application/json" || m.ends_with("+json") || m.ends_with("/json"))
                && v.get("schema").is_some()
        });
        if let Some((media, m)) =
            json_media.min_by_key(|(m, _)| (m.as_str() != "application/json", (*m).clone()))
        {
            let schema = m.get("schema")?;
            return Some((
                schema,
                format!("{at}/content/{}/schema", escape(media)),
                media.clone(),
            ));
        }
    }
    None
}
