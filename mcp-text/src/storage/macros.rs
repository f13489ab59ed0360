//! `ac:structured-macro`, both ways. `code` and `noformat` are a `codeBlock`, `info`/`note`/`tip`/`warning`/`panel` a
//! `panel`, `expand` an `expand`, `status` a `status`; every other macro is an `extension` (a
//! `bodiedExtension` with a rich-text body, an `inlineExtension` in text) whose `extensionKey` is the macro's
//! name and whose `parameters.macroParams` hold every `ac:parameter`, as Confluence Cloud's ADF has them.
//!
//! A parameter's value is `{"value": text}`; a parameter holding elements (the `profile` macro's
//! `<ri:user ri:account-id=".."/>`) also keeps them verbatim under `storage`, and its `value` is what the
//! elements name (the account id), so a model reads the user, and the writer puts the elements back while
//! that value is unchanged. Parameters the ADF node has no attribute for (a panel's `title`, a code
//! block's `linenumbers`) are kept under `storage.params`.

use std::collections::BTreeMap;

use quick_xml::events::Event;
use quick_xml::Reader;
use serde_json::{Map, Value};

use super::attrs::{attr_object, order_said, storage_of, take_attr, AttrList, ORDER};
use super::entities;
use super::links::push_attr;
use super::xml_out::Out;
use super::STORAGE;
use crate::mention::MentionResolver;
use crate::model::{Attrs, Node, NodeType};

/// Confluence's extension type for its own macros.
pub const MACRO_EXTENSION_TYPE: &str = "com.atlassian.confluence.macro.core";

/// The attributes of `ac:structured-macro`, in the order Confluence writes them.
const MACRO_ATTR_ORDER: [&str; 5] = [
    "ac:name",
    "ac:schema-version",
    "data-layout",
    "ac:local-id",
    "ac:macro-id",
];

/// The macro of preformatted text, read as a `codeBlock` (with `storage.macro`), as Confluence Cloud has it.
const NOFORMAT: &str = "noformat";

/// The `ac:schema-version` every macro of Confluence's has: it goes without saying (the writer writes it
/// unless the node says `storage.noSchemaVersion`, and another version is kept as it was).
const SCHEMA_VERSION: &str = "1";
const NO_VERSION: &str = "noSchemaVersion";
/// A macro with nothing inside is one empty tag, as Confluence writes it (`<ac:structured-macro
/// ac:name="children" … />`); one written as an open and a close tag with nothing between says
/// `storage.pair`.
const PAIR: &str = "pair";
/// A macro's `ac:macro-id`, under `storage` (an extension's is ADF's `macroMetadata.macroId`).
const MACRO_ID: &str = "macroId";

/// Parameters that name a user (`<ri:user ri:account-id="…" />`), by macro: the account id as the
/// `value` says it all, and a plain-text value says so with an empty `storage`.
fn is_user_param(macro_name: &str, param: &str) -> bool {
    macro_name == "profile" && param == "user"
}

/// The elements a user parameter holds for an account id.
fn user_elements(id: &str) -> String {
    let mut out = String::from("<ri:user");
    push_attr(&mut out, "ri:account-id", id);
    out.push_str(" />");
    out
}

/// Whether `inner` is exactly one `<ri:user ri:account-id="id" />` (however spelt).
fn is_user_elements(inner: &str, id: &str) -> bool {
    let mut xml = Reader::from_str(inner);
    let mut seen = false;
    loop {
        match xml.read_event() {
            Ok(Event::Empty(e)) if !seen && e.name().into_inner() == "ri:user" => {
                let attrs: Vec<_> = e.attributes().collect();
                let [Ok(a)] = attrs.as_slice() else {
                    return false;
                };
                if a.key.into_inner() != "ri:account-id"
                    || entities::unescape(&a.value).ok().as_deref() != Some(id)
                {
                    return false;
                }
                seen = true;
            }
            Ok(Event::Eof) => return seen,
            _ => return false,
        }
    }
}

#[derive(Default)]
pub(super) struct Macro {
    pub attrs: AttrList,
    pub params: Vec<Param>,
    pub plain: Option<String>,
    pub rich: Option<Vec<Node>>,
    pub extra: Vec<String>,
    pub inline: bool,
    /// Read from one empty tag (`<ac:structured-macro … />`).
    pub empty_tag: bool,
}

impl Macro {
    /// A macro as its open tag (or its one empty tag, `empty_tag`) starts it; `inline` in text.
    pub fn open(attrs: AttrList, inline: bool, empty_tag: bool) -> Macro {
        Macro {
            attrs,
            inline,
            empty_tag,
            ..Default::default()
        }
    }
}

pub(super) struct Param {
    name: String,
    value: Value,
    /// Plain text with no other attribute: it may become an ADF attribute.
    simple: bool,
}

impl Param {
    pub fn new(attrs: AttrList, inner: &str, text: Option<String>) -> Param {
        let mut name = String::new();
        let mut rest = AttrList::new();
        for (k, v) in attrs {
            if k == "ac:name" && name.is_empty() {
                name = v;
            } else {
                rest.push((k, v));
            }
        }
        let mut value = Map::new();
        let simple = text.is_some() && rest.is_empty();
        match text {
            Some(text) => {
                value.insert("value".into(), text.into());
            }
            None => {
                value.insert("value".into(), derived_value(inner).into());
                value.insert(STORAGE.into(), inner.into());
            }
        }
        if !rest.is_empty() {
            value.insert("attrs".into(), Value::Object(attr_object(rest)));
        }
        Param {
            name,
            value: Value::Object(value),
            simple,
        }
    }
}

/// What a parameter holding elements names: the first resource identifier's key attribute (an account
/// id, a page title, a file name, a URL), else its text.
pub(super) fn derived_value(inner: &str) -> String {
    const KEYS: [&str; 7] = [
        "ri:account-id",
        "ri:userkey",
        "ri:username",
        "ri:content-title",
        "ri:filename",
        "ri:value",
        "ri:space-key",
    ];
    let mut xml = Reader::from_str(inner);
    xml.config_mut().allow_dangling_amp = true;
    let mut text = String::new();
    loop {
        match xml.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => {
                for key in KEYS {
                    if let Ok(Some(a)) = e.try_get_attribute(key) {
                        if let Ok(v) = entities::unescape(&a.value) {
                            return v.into_owned();
                        }
                    }
                }
            }
            Ok(Event::Text(t)) => text.push_str(&t),
            Ok(Event::CData(t)) => text.push_str(&t),
            Ok(Event::GeneralRef(r)) => text.push_str(&entities::reference(&r).unwrap_or_default()),
            Ok(Event::Eof) | Err(_) => return text,
            Ok(_) => {}
        }
    }
}

/// The macro's parameters by name (the first of each name), with what the writer needs to put them back
/// in their order.
struct Params {
    map: BTreeMap<String, Param>,
    order: Option<Value>,
    dups: Map<String, Value>,
}

impl Params {
    fn new(list: Vec<Param>) -> Params {
        let names: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        // The writer writes the names the order holds, then the rest by name, then the repeated ones: without
        // repeated names, the fewest first names that give the order (`["title"]` for a status's title
        // before its colour); with them, every name.
        let order = if sorted.windows(2).all(|w| w[0] < w[1]) {
            order_said(sorted, &names)
        } else {
            Some(Value::from(names))
        };
        let mut map = BTreeMap::new();
        let mut dups = Map::new();
        for p in list {
            if map.contains_key(&p.name) {
                let entry = dups
                    .entry(p.name.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                entry.as_array_mut().expect("array").push(p.value);
            } else {
                map.insert(p.name.clone(), p);
            }
        }
        Params { map, order, dups }
    }

    /// The `profile` macro's `user`: elements that only name the account id go (the writer rebuilds
    /// them from the `value`); a plain-text value keeps an empty `storage` to say it is text.
    fn compact_users(&mut self) {
        let compact = |v: &mut Value| {
            let Some(m) = v.as_object_mut() else { return };
            let value = m
                .get("value")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            match m.get(STORAGE).and_then(Value::as_str) {
                Some(raw) if !value.is_empty() && is_user_elements(raw, &value) => {
                    m.remove(STORAGE);
                }
                None if !value.is_empty() => {
                    m.insert(STORAGE.into(), "".into());
                }
                _ => {}
            }
        };
        for (name, p) in self.map.iter_mut() {
            if is_user_param("profile", name) {
                compact(&mut p.value);
            }
        }
        for (name, list) in self.dups.iter_mut() {
            if is_user_param("profile", name) {
                for v in list.as_array_mut().into_iter().flatten() {
                    compact(v);
                }
            }
        }
    }

    /// Takes parameter `name` as an ADF attribute value if it is plain text.
    fn take_simple(&mut self, name: &str) -> Option<String> {
        if !self.map.get(name)?.simple {
            return None;
        }
        let p = self.map.remove(name)?;
        p.value
            .get("value")
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    fn rest(&mut self) -> Map<String, Value> {
        std::mem::take(&mut self.map)
            .into_iter()
            .map(|(k, p)| (k, p.value))
            .collect()
    }

    fn keep_order(&mut self, storage: &mut Map<String, Value>) {
        if let Some(order) = self.order.take() {
            storage.insert(ORDER.into(), order);
        }
        if !self.dups.is_empty() {
            storage.insert("dups".into(), Value::Object(std::mem::take(&mut self.dups)));
        }
    }
}

fn attr<'a>(list: &'a AttrList, name: &str) -> Option<&'a str> {
    list.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The node a closed macro stands for.
pub(super) fn finish(m: Macro) -> Node {
    let pair = !m.empty_tag
        && m.params.is_empty()
        && m.plain.is_none()
        && m.rich.is_none()
        && m.extra.is_empty();
    let mut node = macro_node(m);
    if pair {
        storage_of(node.attrs.get_or_insert_with(Attrs::new)).insert(PAIR.into(), true.into());
    }
    node
}

fn macro_node(m: Macro) -> Node {
    let name = attr(&m.attrs, "ac:name").map(str::to_string);
    let mut rest_attrs: AttrList = m
        .attrs
        .iter()
        .filter(|(k, v)| k != "ac:name" && !(k == "ac:schema-version" && v == SCHEMA_VERSION))
        .cloned()
        .collect();
    let no_version = attr(&m.attrs, "ac:schema-version").is_none();
    let mut params = Params::new(m.params);
    let mut attrs = Attrs::new();
    let kind = match (name.as_deref(), &m.plain, &m.rich) {
        (Some("code"), _, None) => {
            if let Some(lang) = params.take_simple("language") {
                attrs.insert("language", lang.into());
            }
            NodeType::CodeBlock
        }
        // Confluence Cloud's code block without a language; the macro's name says which it was.
        (Some(NOFORMAT), _, None) => {
            storage_of(&mut attrs).insert("macro".into(), NOFORMAT.into());
            NodeType::CodeBlock
        }
        (Some(n @ ("info" | "note" | "tip" | "warning")), None, _) => {
            attrs.insert("panelType", n.into());
            NodeType::Panel
        }
        (Some("panel"), None, _) => {
            let typed = params
                .map
                .get("panelType")
                .filter(|p| p.simple)
                .and_then(|p| p.value["value"].as_str());
            let own =
                typed.filter(|t| !matches!(*t, "info" | "note" | "tip" | "warning" | "custom"));
            let panel_type = match own {
                Some(t) => {
                    let t = t.to_string();
                    params.map.remove("panelType");
                    t
                }
                None => "custom".to_string(),
            };
            attrs.insert("panelType", panel_type.into());
            NodeType::Panel
        }
        (Some("expand"), None, _) => {
            if let Some(title) = params.take_simple("title") {
                attrs.insert("title", title.into());
            }
            NodeType::Expand
        }
        (Some("status"), None, None) => {
            if let Some(title) = params.take_simple("title") {
                attrs.insert("text", title.into());
            }
            if let Some(colour) = params.take_simple("colour") {
                let color = status_color(&colour);
                if status_colour(&color) != colour {
                    storage_of(&mut attrs).insert("colour".into(), colour.clone().into());
                }
                attrs.insert("color", color.into());
            }
            // Atlassian's statuses carry `style: ""`, which the Markdown reader infers.
            attrs.entry("style").or_insert_with(|| "".into());
            NodeType::Status
        }
        _ => {
            if name.as_deref() == Some("profile") {
                params.compact_users();
            }
            return finish_extension(m.attrs, name, params, m.plain, m.rich, m.extra, m.inline);
        }
    };
    // Confluence Cloud's `ac:local-id` is the node's `localId`, as on an extension.
    if let Some(id) = take_attr(&mut rest_attrs, "ac:local-id") {
        attrs.insert("localId", id.into());
    }
    let mut node = Node::new(kind);
    let mut storage = Map::new();
    // Every macro's id (Server's, Data Center's and Cloud's), said as briefly as JSON says it.
    if let Some(id) = take_attr(&mut rest_attrs, "ac:macro-id") {
        storage.insert(MACRO_ID.into(), id.into());
    }
    if !rest_attrs.is_empty() {
        storage.insert("attrs".into(), Value::Object(attr_object(rest_attrs)));
    }
    if no_version {
        storage.insert(NO_VERSION.into(), true.into());
    }
    let rest = params.rest();
    if !rest.is_empty() {
        storage.insert("params".into(), Value::Object(rest));
    }
    params.keep_order(&mut storage);
    if !m.extra.is_empty() {
        storage.insert("extra".into(), m.extra.into());
    }
    if node_kind_is_code(&node.kind) {
        node.content = m.plain.map(|t| {
            if t.is_empty() {
                Vec::new()
            } else {
                vec![Node::text(t)]
            }
        });
    } else {
        node.content = m.rich;
    }
    if !storage.is_empty() {
        storage_of(&mut attrs).extend(storage);
    }
    node.attrs = (!attrs.is_empty()).then_some(attrs);
    node
}

fn node_kind_is_code(kind: &NodeType) -> bool {
    *kind == NodeType::CodeBlock
}

fn finish_extension(
    list: AttrList,
    name: Option<String>,
    mut params: Params,
    plain: Option<String>,
    rich: Option<Vec<Node>>,
    extra: Vec<String>,
    inline: bool,
) -> Node {
    let mut attrs = Attrs::new();
    attrs.insert("extensionType", MACRO_EXTENSION_TYPE.into());
    if let Some(name) = name {
        attrs.insert("extensionKey", name.into());
    }
    let no_version = attr(&list, "ac:schema-version").is_none();
    let mut metadata = Map::new();
    let mut rest = AttrList::new();
    for (k, v) in list {
        match k.as_str() {
            "ac:name" => {}
            "ac:macro-id" => {
                metadata.insert("macroId".into(), serde_json::json!({ "value": v }));
            }
            "ac:schema-version" if v == SCHEMA_VERSION => {}
            "ac:schema-version" => {
                metadata.insert("schemaVersion".into(), serde_json::json!({ "value": v }));
            }
            "data-layout" => {
                attrs.insert("layout", v.into());
            }
            "ac:local-id" => {
                attrs.insert("localId", v.into());
            }
            _ => rest.push((k, v)),
        }
    }
    let mut parameters = Map::new();
    parameters.insert("macroParams".into(), Value::Object(params.rest()));
    if !metadata.is_empty() {
        parameters.insert("macroMetadata".into(), Value::Object(metadata));
    }
    attrs.insert("parameters", Value::Object(parameters));
    let mut storage = Map::new();
    if !rest.is_empty() {
        storage.insert("attrs".into(), Value::Object(attr_object(rest)));
    }
    if no_version {
        storage.insert(NO_VERSION.into(), true.into());
    }
    params.keep_order(&mut storage);
    if let Some(plain) = plain {
        storage.insert("plain".into(), plain.into());
    }
    if !extra.is_empty() {
        storage.insert("extra".into(), extra.into());
    }
    if !storage.is_empty() {
        attrs.insert(STORAGE, Value::Object(storage));
    }
    let kind = match (&rich, inline) {
        (Some(_), _) => NodeType::BodiedExtension,
        (None, true) => NodeType::InlineExtension,
        (None, false) => NodeType::Extension,
    };
    let mut node = Node::new(kind);
    node.attrs = Some(attrs);
    node.content = rich;
    node
}

/// The parameters that say what a macro shows, in the order they are looked for: Confluence's unnamed
/// default parameter, then the usual names (`jira`'s `key`, a `title`, ...).
const MAIN_PARAMS: [&str; 6] = ["", "key", "title", "name", "url", "page"];

/// The longest label, in characters (a label is a glance at the macro, not its content).
const LABEL_MAX: usize = 60;

/// A one-line label a model can read for an extension (a macro) that has no Markdown form: `@Name` for
/// the `profile` macro (its user through `mentions`, else `@<account id>`), else the macro's name and its
/// main parameter (`jira: PROJ-123`), or its name alone (`toc`). `None` when the node names no macro.
pub fn macro_label(node: &Node, mentions: Option<&dyn MentionResolver>) -> Option<String> {
    let key = node.attr_str("extensionKey").filter(|k| !k.is_empty())?;
    let params = node
        .attr("parameters")
        .and_then(|p| p.get("macroParams"))
        .and_then(Value::as_object);
    let param = |name: &str| shown_param(params?.get(name)?);
    let short = |s: String| match s.char_indices().nth(LABEL_MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    };
    if key == "profile" {
        if let Some(id) = param("user") {
            let name = mentions.and_then(|r| r.display_name(&id));
            return Some(format!("@{}", short(name.unwrap_or(id))));
        }
    }
    let key = short(key.split_whitespace().collect::<Vec<_>>().join(" "));
    Some(match params.and_then(main_param).and_then(param) {
        Some(main) => format!("{key}: {}", short(main)),
        None => key,
    })
}

/// A parameter as a label shows it: its value (a string, number or boolean) on one line; `None` when
/// that is empty.
fn shown_param(v: &Value) -> Option<String> {
    let v = v.get("value").unwrap_or(v);
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(_) | Value::Bool(_) => v.to_string(),
        _ => return None,
    };
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// The name of the parameter a [`macro_label`] shows after the macro's name: the first of
/// [`MAIN_PARAMS`] that shows a value.
pub(crate) fn main_param(params: &Map<String, Value>) -> Option<&'static str> {
    MAIN_PARAMS
        .into_iter()
        .find(|name| params.get(*name).and_then(shown_param).is_some())
}

/// A macro whose main parameter is not the first of [`MAIN_PARAMS`] it may hold: its name and that
/// parameter's (`jira` holds `key` and never Confluence's unnamed one).
const NAMED_MAIN: [(&str, &str); 1] = [("jira", "key")];

/// The macro a [`macro_label`] names, given back to `node` (an extension its Markdown marker says without
/// them): `anchor: top` sets `extensionKey` to `anchor` and the main parameter to `top`, under the name
/// the macro's main parameter has (`jira`'s `key`, else the first of [`MAIN_PARAMS`] it does not hold);
/// `toc` sets the name alone. `parameters.macroParams` is there in both cases, as the storage reader gives
/// every macro. Nothing when the node names its macro itself or the label is empty. The Markdown writer
/// leaves out of a marker only what this gives back as it was.
pub(crate) fn macro_from_label(node: &mut Node, label: &str) {
    if label.is_empty() || node.attr("extensionKey").is_some() {
        return;
    }
    let (key, main) = match label.split_once(": ") {
        Some((key, main)) => (key, Some(main)),
        None => (label, None),
    };
    node.set_attr("extensionKey", key);
    let attrs = node.attrs.get_or_insert_with(Attrs::new);
    let Value::Object(parameters) = attrs
        .entry("parameters")
        .or_insert_with(|| Value::Object(Map::new()))
    else {
        return;
    };
    let Value::Object(params) = parameters
        .entry("macroParams")
        .or_insert_with(|| Value::Object(Map::new()))
    else {
        return;
    };
    let Some(main) = main else {
        return;
    };
    let named = NAMED_MAIN
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, name)| *name);
    let name = named
        .into_iter()
        .chain(MAIN_PARAMS)
        .find(|name| !params.contains_key(*name));
    if let Some(name) = name {
        let mut value = Map::new();
        value.insert("value".into(), Value::from(main));
        params.insert(name.into(), Value::Object(value));
    }
}

/// ADF's status colour for Confluence's `colour` parameter.
fn status_color(colour: &str) -> String {
    match colour.to_ascii_lowercase().as_str() {
        "grey" | "gray" => "neutral".into(),
        other => other.into(),
    }
}

/// The `colour` Confluence writes for an ADF status colour.
fn status_colour(color: &str) -> String {
    match color {
        "neutral" => "Grey".into(),
        other => {
            let mut chars = other.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect())
                .unwrap_or_default()
        }
    }
}

// ---- writing ----

/// Writes a node that stands for a macro (code block, panel, expand, status, extension).
pub(super) fn write(w: &mut impl Out, node: &Node) {
    let st = node
        .attrs
        .as_ref()
        .and_then(|a| a.get(STORAGE))
        .and_then(Value::as_object);
    let mut xml_attrs: BTreeMap<String, String> = st
        .and_then(|s| s.get("attrs"))
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), text_of(v))).collect())
        .unwrap_or_default();
    let mut params: BTreeMap<String, Value> = st
        .and_then(|s| s.get("params"))
        .and_then(Value::as_object)
        .map(|m| m.clone().into_iter().collect())
        .unwrap_or_default();
    // Confluence Cloud's `ac:local-id`, on every macro.
    if let Some(id) = node.attr("localId").filter(|v| !v.is_null()) {
        xml_attrs.insert("ac:local-id".into(), text_of(id));
    }
    if let Some(id) = st.and_then(|s| s.get(MACRO_ID)) {
        xml_attrs
            .entry("ac:macro-id".into())
            .or_insert_with(|| text_of(id));
    }
    let simple = |v: &str| serde_json::json!({ "value": v });
    let mut plain: Option<String> = None;
    let mut rich: Option<&[Node]> = None;
    let name: Option<String> = match &node.kind {
        NodeType::CodeBlock => {
            let language = node.attr("language").filter(|v| !v.is_null());
            if let Some(lang) = language {
                params.insert("language".into(), simple(&text_of(lang)));
            }
            plain = node
                .content
                .as_ref()
                .map(|c| c.iter().filter_map(|n| n.text.as_deref()).collect());
            // A `noformat` stays one while it has no language (a language makes it a `code` macro).
            let noformat = language.is_none()
                && st.and_then(|s| s.get("macro")).and_then(Value::as_str) == Some(NOFORMAT);
            Some(if noformat { NOFORMAT } else { "code" }.into())
        }
        NodeType::Panel => {
            rich = node.content.as_deref();
            match node.attr_str("panelType").unwrap_or("info") {
                t @ ("info" | "note" | "tip" | "warning") => Some(t.into()),
                "custom" => Some("panel".into()),
                other => {
                    params.insert("panelType".into(), simple(other));
                    Some("panel".into())
                }
            }
        }
        NodeType::Expand | NodeType::NestedExpand => {
            rich = node.content.as_deref();
            if let Some(title) = node.attr("title") {
                params.insert("title".into(), simple(&text_of(title)));
            }
            Some("expand".into())
        }
        NodeType::Status => {
            if let Some(text) = node.attr("text") {
                params.insert("title".into(), simple(&text_of(text)));
            }
            if let Some(color) = node.attr_str("color") {
                let stored = st
                    .and_then(|s| s.get("colour"))
                    .and_then(Value::as_str)
                    .filter(|c| status_color(c) == color);
                let colour = stored
                    .map(str::to_string)
                    .unwrap_or_else(|| status_colour(color));
                params.insert("colour".into(), simple(&colour));
            }
            Some("status".into())
        }
        _ => {
            // An extension: Confluence's macro.
            let attrs = node.attrs.as_ref();
            let get = |k: &str| attrs.and_then(|a| a.get(k));
            if let Some(layout) = get("layout") {
                xml_attrs.insert("data-layout".into(), text_of(layout));
            }
            let parameters = get("parameters");
            if let Some(mp) = parameters
                .and_then(|p| p.get("macroParams"))
                .and_then(Value::as_object)
            {
                params.extend(mp.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            let meta = parameters.and_then(|p| p.get("macroMetadata"));
            if let Some(id) = meta
                .and_then(|m| m.get("macroId"))
                .and_then(|v| v.get("value"))
            {
                xml_attrs.insert("ac:macro-id".into(), text_of(id));
            }
            if let Some(v) = meta
                .and_then(|m| m.get("schemaVersion"))
                .and_then(|v| v.get("value"))
            {
                xml_attrs.insert("ac:schema-version".into(), text_of(v));
            }
            plain = st
                .and_then(|s| s.get("plain"))
                .and_then(Value::as_str)
                .map(str::to_string);
            if node.kind == NodeType::BodiedExtension || node.content.is_some() {
                rich = Some(node.children());
            }
            get("extensionKey").map(text_of)
        }
    };

    let no_version = st.and_then(|s| s.get(NO_VERSION)) == Some(&Value::Bool(true));
    if !no_version && !xml_attrs.contains_key("ac:schema-version") {
        xml_attrs.insert("ac:schema-version".into(), SCHEMA_VERSION.into());
    }
    let user_param = |param: &str| name.as_deref().is_some_and(|n| is_user_param(n, param));
    let out = w.out();
    out.push_str("<ac:structured-macro");
    if let Some(name) = &name {
        push_attr(out, "ac:name", name);
    }
    for key in &MACRO_ATTR_ORDER[1..] {
        if let Some(v) = xml_attrs.remove(*key) {
            push_attr(out, key, &v);
        }
    }
    for (k, v) in &xml_attrs {
        push_attr(out, k, v);
    }
    let mut dups: BTreeMap<String, Vec<Value>> = st
        .and_then(|s| s.get("dups"))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_array().cloned().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    let extra = st.and_then(|s| s.get("extra")).and_then(Value::as_array);
    let inside = !params.is_empty()
        || dups.values().any(|l| !l.is_empty())
        || plain.is_some()
        || rich.is_some()
        || extra.is_some_and(|e| e.iter().any(Value::is_string));
    if !inside && st.and_then(|s| s.get(PAIR)) != Some(&Value::Bool(true)) {
        out.push_str(" />");
        return;
    }
    out.push('>');

    // Parameters: in their stored order (repeated names from `dups`), then any others by name.
    let order = st.and_then(|s| s.get("order")).and_then(Value::as_array);
    if let Some(order) = order {
        for name in order.iter().filter_map(Value::as_str) {
            if let Some(v) = params.remove(name) {
                write_param(out, name, &v, user_param(name));
            } else if let Some(list) = dups.get_mut(name).filter(|l| !l.is_empty()) {
                let v = list.remove(0);
                write_param(out, name, &v, user_param(name));
            }
        }
    }
    for (name, v) in &params {
        write_param(out, name, v, user_param(name));
    }
    for (name, list) in dups {
        for v in list {
            write_param(out, &name, &v, user_param(&name));
        }
    }
    if let Some(plain) = &plain {
        if plain.is_empty() {
            out.push_str("<ac:plain-text-body />");
        } else {
            out.push_str("<ac:plain-text-body>");
            entities::push_cdata(out, plain);
            out.push_str("</ac:plain-text-body>");
        }
    }
    if let Some(rich) = rich {
        if rich.is_empty() {
            w.out().push_str("<ac:rich-text-body />");
        } else {
            w.out().push_str("<ac:rich-text-body>");
            w.children(rich);
            w.out().push_str("</ac:rich-text-body>");
        }
    }
    if let Some(extra) = extra {
        for raw in extra.iter().filter_map(Value::as_str) {
            w.out().push_str(raw);
        }
    }
    w.out().push_str("</ac:structured-macro>");
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn write_param(out: &mut String, name: &str, v: &Value, user: bool) {
    let (value, raw, attrs) = match v {
        Value::Object(m) => (
            m.get("value").map(text_of).unwrap_or_default(),
            m.get(STORAGE).and_then(Value::as_str),
            m.get("attrs").and_then(Value::as_object),
        ),
        other => (text_of(other), None, None),
    };
    out.push_str("<ac:parameter");
    push_attr(out, "ac:name", name);
    if let Some(attrs) = attrs {
        for (k, v) in attrs {
            push_attr(out, k, &text_of(v));
        }
    }
    // Elements kept verbatim go back while the value they stand for is unchanged; a user parameter
    // with no `storage` is the user its value names.
    let built;
    let raw = match raw {
        None if user && !value.is_empty() => {
            built = user_elements(&value);
            Some(built.as_str())
        }
        raw => raw.filter(|r| derived_value(r) == value),
    };
    match raw {
        Some(raw) if !raw.is_empty() => {
            out.push('>');
            out.push_str(raw);
        }
        None if !value.is_empty() => {
            out.push('>');
            entities::push_text(out, &value);
        }
        _ => {
            out.push_str(" />");
            return;
        }
    }
    out.push_str("</ac:parameter>");
}
