//! `ac:adf-extension`, both ways: Confluence Cloud's storage for ADF nodes storage format has no element
//! for, a panel (`note`, `custom`, ...) or a decision list:
//!
//! ```xml
//! <ac:adf-extension><ac:adf-node type="panel"><ac:adf-attribute key="panel-type">note</ac:adf-attribute>
//! <ac:adf-content><p>…</p></ac:adf-content></ac:adf-node><ac:adf-fallback>…</ac:adf-fallback></ac:adf-extension>
//! ```
//!
//! It is read as the node it holds (`panel {panelType: note}`, `decisionList` ▸ `decisionItem {localId,
//! state}`), each `ac:adf-attribute` an attribute (`panel-icon-id` is `panelIconId`), so that the Markdown
//! shows a panel as an alert and decisions as decisions. `storage.adf` says where it came from, and
//! attributes in another order than the writer's in `storage.order`. The fallback (HTML for older
//! clients) repeats the content: where it is the form Confluence writes, `<div class="panel">` around a
//! panel's blocks or `<ul class="decision-list">` with an `<li>` per decision (without the content's
//! `local-id`s), `storage.fallback` is `true` and the writer writes it again from the content, so that a
//! model reads the text once and an edit of it is in both; any other fallback (styled, or older than the
//! content) is kept verbatim there. Anything else (another node type, a child the shape does not have)
//! stays the elements it was.

use serde_json::{Map, Value};

use super::attrs::{in_order, is_implicit, order_said, storage_of, ORDER};
use super::entities;
use super::links::push_attr;
use super::xml_out::Out;
use super::{ELEMENT, STORAGE};
use crate::model::{Attrs, Node, NodeType};

const EXTENSION: &str = "ac:adf-extension";
const NODE: &str = "ac:adf-node";
const ATTRIBUTE: &str = "ac:adf-attribute";
const CONTENT: &str = "ac:adf-content";
const FALLBACK: &str = "ac:adf-fallback";

/// The node types read, their `type` in storage, and their attributes in the order the writer writes them.
const TYPES: [(NodeType, &str, &[&str]); 3] = [
    (
        NodeType::Panel,
        "panel",
        &[
            "panel-type",
            "panel-icon",
            "panel-icon-id",
            "panel-icon-text",
            "panel-color",
        ],
    ),
    (NodeType::DecisionList, "decision-list", &["local-id"]),
    (
        NodeType::DecisionItem,
        "decision-item",
        &["local-id", "state"],
    ),
];

/// The node an `ac:adf-extension` read as elements stands for, or `None` when it is not one this reads.
/// `write` gives the storage format of nodes (for the fallback).
pub(super) fn read(ext: &Node, write: &dyn Fn(&[Node]) -> String) -> Option<Node> {
    if !attributes(ext, EXTENSION)?.is_empty() {
        return None;
    }
    let (node, fallback) = match ext.children() {
        [node] => (node, None),
        [node, fallback] if attributes(fallback, FALLBACK)?.is_empty() => {
            (node, Some(write(std::slice::from_ref(fallback))))
        }
        _ => return None,
    };
    let mut node = adf_node(node)?;
    let fallback = fallback.map(|f| {
        let mut again = Again {
            out: String::new(),
            write,
        };
        generated_fallback(&mut again, &node);
        if again.out == f {
            Value::Bool(true)
        } else {
            f.into()
        }
    });
    let storage = storage_of(node.attrs.get_or_insert_with(Attrs::new));
    storage.insert("adf".into(), true.into());
    if let Some(fallback) = fallback {
        storage.insert("fallback".into(), fallback);
    }
    Some(node)
}

/// The fallback written again from what was read, to compare with the one read.
struct Again<'a> {
    out: String,
    write: &'a dyn Fn(&[Node]) -> String,
}

impl Out for Again<'_> {
    fn out(&mut self) -> &mut String {
        &mut self.out
    }

    fn children(&mut self, nodes: &[Node]) {
        self.out.push_str(&(self.write)(nodes));
    }
}

/// The fallback Confluence writes for `node` (see the module's doc); nothing for a node of another type.
fn generated_fallback(w: &mut impl Out, node: &Node) {
    let (open, close) = match node.kind {
        NodeType::Panel => ("<div class=\"panel\">", "</div>"),
        NodeType::DecisionList => ("<ul class=\"decision-list\">", "</ul>"),
        _ => return,
    };
    w.out().push_str("<ac:adf-fallback>");
    w.out().push_str(open);
    if node.kind == NodeType::Panel {
        w.children(&without_local_ids(node.children()));
    } else {
        for item in node.children() {
            w.out().push_str("<li>");
            w.children(&without_local_ids(item.children()));
            w.out().push_str("</li>");
        }
    }
    w.out().push_str(close);
    w.out().push_str("</ac:adf-fallback>");
}

/// `nodes` without the ids storage gave their elements (`local-id`, kept as `localId` or under
/// `storage.attrs`): a fallback has none.
fn without_local_ids(nodes: &[Node]) -> Vec<Node> {
    let mut nodes = nodes.to_vec();
    nodes.iter_mut().for_each(strip_local_ids);
    nodes
}

fn strip_local_ids(node: &mut Node) {
    if let Some(attrs) = node.attrs.as_mut() {
        if attrs.remove("localId").is_some() && attrs.is_empty() {
            node.attrs = None;
        }
    }
    if let Some(storage) = node.attr_object_mut(STORAGE, &[]) {
        if let Some(Value::Object(attrs)) = storage.get_mut("attrs") {
            if attrs.remove("local-id").is_some() && attrs.is_empty() {
                storage.remove("attrs");
                if storage.is_empty() {
                    node.attrs.as_mut().map(|a| a.remove(STORAGE));
                    if node.attrs.as_ref().is_some_and(Attrs::is_empty) {
                        node.attrs = None;
                    }
                }
            }
        }
    }
    node.content.iter_mut().flatten().for_each(strip_local_ids);
}

/// The attributes of a `storage:element` named `name` (none: another node).
fn attributes(node: &Node, name: &str) -> Option<Map<String, Value>> {
    let plain = node.kind == NodeType::Other(ELEMENT.into())
        && node.marks.is_none()
        && node.text.is_none()
        && node.extra.is_none()
        && node.attr_str("name") == Some(name);
    if !plain || node.attrs.as_ref().is_some_and(|a| a.len() > 2) {
        return None;
    }
    match node.attr("attributes") {
        None => Some(Map::new()),
        Some(Value::Object(m)) => Some(m.clone()),
        Some(_) => None,
    }
}

/// The text of an element read in block context: nothing, or an implicit paragraph of plain text.
fn plain_text(node: &Node) -> Option<String> {
    match node.children() {
        [] => Some(String::new()),
        [p] if is_implicit(p) => match p.children() {
            [t] if t.kind == NodeType::Text && t.marks.is_none() && t.extra.is_none() => {
                Some(t.text.clone().unwrap_or_default())
            }
            _ => None,
        },
        _ => None,
    }
}

fn adf_node(el: &Node) -> Option<Node> {
    let attrs = attributes(el, NODE)?;
    let [(k, Value::String(ty))] = attrs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if k != "type" {
        return None;
    }
    let (kind, _, order) = TYPES.iter().find(|(_, t, _)| t == ty)?;
    let mut node = Node::new(kind.clone());
    let mut node_attrs = Attrs::new();
    let mut keys = Vec::new();
    let mut content: Option<Vec<Node>> = None;
    for child in el.children() {
        if let Some(a) = attributes(child, ATTRIBUTE) {
            let [(k, Value::String(key))] = a.iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            let name = camel(key).filter(|_| k == "key" && content.is_none())?;
            if node_attrs.contains_key(&name) {
                return None;
            }
            node_attrs.insert(name, plain_text(child)?.into());
            keys.push(key.clone());
        } else if *kind == NodeType::DecisionList {
            let item = adf_node(child)?;
            (item.kind == NodeType::DecisionItem).then_some(())?;
            content.get_or_insert_with(Vec::new).push(item);
        } else if attributes(child, CONTENT).is_some_and(|a| a.is_empty()) && content.is_none() {
            content = Some(match kind {
                NodeType::DecisionItem => match child.children() {
                    [] => Vec::new(),
                    [p] if is_implicit(p) => p.children().to_vec(),
                    _ => return None,
                },
                _ => child.children().to_vec(),
            });
        } else {
            return None;
        }
    }
    let names: Vec<&str> = keys.iter().map(String::as_str).collect();
    if let Some(order) = order_said(written_order(order, &keys), &names) {
        storage_of(&mut node_attrs).insert(ORDER.into(), order);
    }
    node.attrs = (!node_attrs.is_empty()).then_some(node_attrs);
    node.content = content;
    Some(node)
}

/// `panel-icon-id` as ADF says it, `panelIconId`; `None` for a key that would not come back the same.
fn camel(key: &str) -> Option<String> {
    let mut out = String::new();
    let mut upper = false;
    for c in key.chars() {
        match c {
            '-' if !upper && !out.is_empty() => upper = true,
            'a'..='z' | '0'..='9' if upper => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            'a'..='z' | '0'..='9' => out.push(c),
            _ => return None,
        }
    }
    (!upper && !out.is_empty() && out != STORAGE && kebab(&out) == key).then_some(out)
}

fn kebab(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The keys in the order the writer writes them: those it knows in its order, then the others by name.
fn written_order<'a>(known: &[&'a str], keys: &'a [String]) -> Vec<&'a str> {
    let mut rest: Vec<&str> = keys
        .iter()
        .map(String::as_str)
        .filter(|k| !known.contains(k))
        .collect();
    rest.sort_unstable();
    let mut order: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| keys.iter().any(|x| x == k))
        .collect();
    order.extend(rest);
    order
}

// ---- writing ----

fn storage(node: &Node) -> Option<&Map<String, Value>> {
    super::attrs::storage(node.attrs.as_ref())
}

/// Whether a node was read from an `ac:adf-extension` (and is written as one).
pub(super) fn is_adf(node: &Node) -> bool {
    storage(node).and_then(|s| s.get("adf")) == Some(&Value::Bool(true))
}

/// Writes a node read from an `ac:adf-extension` as one.
pub(super) fn write(w: &mut impl Out, node: &Node) {
    w.out().push_str("<ac:adf-extension>");
    write_node(w, node);
    match storage(node).and_then(|s| s.get("fallback")) {
        Some(Value::String(fallback)) => w.out().push_str(fallback),
        Some(Value::Bool(true)) => generated_fallback(w, node),
        _ => {}
    }
    w.out().push_str("</ac:adf-extension>");
}

fn write_node(w: &mut impl Out, node: &Node) {
    let Some((_, ty, known)) = TYPES.iter().find(|(k, ..)| *k == node.kind) else {
        // Not a node of these (a model's edit put it in a decision list): as itself.
        return w.children(std::slice::from_ref(node));
    };
    let out = w.out();
    out.push_str("<ac:adf-node");
    push_attr(out, "type", ty);
    out.push('>');
    let attrs: Vec<(String, &Value)> = node
        .attrs
        .iter()
        .flat_map(|a| a.iter())
        .filter(|(k, v)| &***k != STORAGE && !v.is_null())
        .map(|(k, v)| (kebab(k), v))
        .collect();
    let keys: Vec<String> = attrs.iter().map(|(k, _)| k.clone()).collect();
    let order = in_order(
        written_order(known, &keys),
        storage(node).and_then(|s| s.get(ORDER)),
        |k| k,
    );
    for key in order {
        let Some((_, v)) = attrs.iter().find(|(k, _)| k == key) else {
            continue;
        };
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out.push_str("<ac:adf-attribute");
        push_attr(out, "key", key);
        if text.is_empty() {
            out.push_str(" />");
        } else {
            out.push('>');
            entities::push_text(out, &text);
            out.push_str("</ac:adf-attribute>");
        }
    }
    if let Some(content) = node.content.as_deref() {
        if node.kind == NodeType::DecisionList {
            for item in content {
                write_node(w, item);
            }
        } else if content.is_empty() {
            w.out().push_str("<ac:adf-content />");
        } else {
            w.out().push_str("<ac:adf-content>");
            w.children(content);
            w.out().push_str("</ac:adf-content>");
        }
    }
    w.out().push_str("</ac:adf-node>");
}
