//! A marker's diff: what a node holds beyond what the reader infers from its plain Markdown.
//!
//! The diff borrows from the node and is written as JSON straight from it: no `serde_json::Value` is
//! built for it, and the text is byte for byte what serializing the diff as a `serde_json::Map` gives
//! (members in name order, nodes and marks with their members in name order too), so Markdown written
//! before and after reads the same. Its members: `attrs` (merged into the inferred attrs; `null` means no
//! attrs at all), `-attrs` (names the inferred attrs the node does not have), `marks`, `content`, `text`,
//! `extra` (replaced; `null` means absent).

use serde_json::Value;

use super::json::{self, Dest};
use crate::model::{Attrs, Key, Mark, Node, NodeType};

/// The members of a diff.
const MEMBERS: [&str; 6] = ["attrs", "-attrs", "marks", "content", "text", "extra"];

/// Whether `key` names a member of a diff. `"type"` is one in the root's marker alone (a root of
/// another type than `doc`), where the short form must therefore not start with it either.
pub(super) fn is_member(key: &str, root: bool) -> bool {
    MEMBERS.contains(&key) || (root && key == "type")
}

/// Whether `id` is an id the short marker `<!--#ID-->` carries: letters, digits, `_` and single `-`s
/// (Atlassian's 12 hex digits or a UUID), at most 100 bytes, ending in no `-`.
pub(super) fn is_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !id.contains("--")
        && !id.ends_with('-')
}

/// One attribute value the plain Markdown conveys, borrowed so that checking a node costs nothing.
#[derive(Clone, Copy)]
pub(super) enum Inf<'a> {
    Str(&'a str),
    Int(u64),
    /// A number with a fraction (`33.33`), as serde_json reads it: a float.
    Num(f64),
    Bool(bool),
}

impl Inf<'_> {
    fn matches(&self, v: &Value) -> bool {
        match self {
            Inf::Str(s) => v
                .as_str()
                .is_some_and(|v| crate::scan::same(v.as_bytes(), s.as_bytes())),
            Inf::Int(n) => v.as_u64() == Some(*n) && v.is_u64(),
            Inf::Num(x) => v.is_f64() && v.as_f64() == Some(*x),
            Inf::Bool(b) => v.as_bool() == Some(*b),
        }
    }

    /// The value the reader sets.
    pub(super) fn value(&self) -> Value {
        match self {
            Inf::Str(s) => Value::from(*s),
            Inf::Int(n) => Value::from(*n),
            Inf::Num(x) => Value::from(*x),
            Inf::Bool(b) => Value::from(*b),
        }
    }
}

/// The attrs the reader sets for inferred members (the same list the writer diffs against).
pub(super) fn inferred_attrs(inf: &[(&str, Inf)]) -> Attrs {
    inf.iter()
        .map(|(k, v)| ((*k).to_string(), v.value()))
        .collect()
}

/// The attrs a reader infers: `None` for no attrs, else the listed members.
pub(super) type InfAttrs<'a, 'b> = Option<&'b [(&'a str, Inf<'a>)]>;

/// Confluence's own macros' type (`extensionType`), which the reader gives every extension it builds from
/// a marker or a link, so that a real page's macros cost a marker only for their name and parameters.
pub(super) const MACRO_TYPE: [(&str, Inf<'static>); 1] = [(
    "extensionType",
    Inf::Str(crate::storage::MACRO_EXTENSION_TYPE),
)];

/// The attrs the reader gives a node of this type that it builds from its marker alone, whichever form
/// carries the marker (a leaf, a pair, a marker over a fence, a link): the inferred attrs of every diff of
/// such a node that names none of its own (`marker::apply` starts from them).
pub(super) fn implied(kind: &NodeType) -> InfAttrs<'static, 'static> {
    matches!(
        kind,
        NodeType::Extension | NodeType::BodiedExtension | NodeType::InlineExtension
    )
    .then_some(&MACRO_TYPE[..])
}

/// What the reader infers about a node besides its attrs.
#[derive(Clone, Copy)]
pub(super) struct Inferred<'a, 'b> {
    pub attrs: InfAttrs<'a, 'b>,
    /// Whether the reader gives the node a `content` array (holding what the Markdown shows).
    pub content: bool,
}

impl<'a, 'b> Inferred<'a, 'b> {
    pub(super) const fn new(attrs: InfAttrs<'a, 'b>, content: bool) -> Self {
        Inferred { attrs, content }
    }
}

/// How the node's attrs differ from the inferred ones.
#[derive(Clone, Copy)]
enum AttrsDiff<'d> {
    /// No `attrs` member (`patch`/`removed` of a `Patch` may both be empty).
    Same,
    /// `"attrs":null`: the node has none.
    Null,
    /// `"attrs":{...}`: all of the node's, none being inferred.
    Whole(&'d Attrs),
    /// The node's attrs that the reader does not infer (`"attrs"`, when `patch`), and the inferred
    /// names the node lacks (`"-attrs"`, when `removed`).
    Patch {
        attrs: &'d Attrs,
        inf: &'d [(&'d str, Inf<'d>)],
        patch: bool,
        removed: bool,
    },
}

/// A member that is either `null` or a value.
#[derive(Clone, Copy)]
enum Nullable<T> {
    Null,
    Is(T),
}

/// The diff of a node (or a mark) against what the reader infers, borrowed from it.
#[derive(Clone, Copy)]
pub(super) struct Diff<'d> {
    attrs: AttrsDiff<'d>,
    content: Option<Nullable<&'d [Node]>>,
    extra: Option<Nullable<&'d Attrs>>,
    marks: Option<&'d [Mark]>,
    text: Option<&'d str>,
    /// `"type"`: only a document's root that is no `doc` has it.
    kind: Option<&'d str>,
    /// The diff is the root's (see [`is_member`]).
    root: bool,
}

impl Default for Diff<'_> {
    /// No member.
    fn default() -> Self {
        Diff::EMPTY
    }
}

impl<'d> Diff<'d> {
    const EMPTY: Diff<'static> = Diff {
        attrs: AttrsDiff::Same,
        content: None,
        extra: None,
        marks: None,
        text: None,
        kind: None,
        root: false,
    };

    /// A diff holding `attrs` whole (`{"attrs":{...}}`).
    #[cfg(test)]
    pub(super) fn with_attrs(attrs: &'d Attrs) -> Self {
        Diff {
            attrs: AttrsDiff::Whole(attrs),
            ..Diff::EMPTY
        }
    }

    /// Whether the diff has no member.
    pub(super) fn is_empty(&self) -> bool {
        let attrs = match self.attrs {
            AttrsDiff::Same => true,
            AttrsDiff::Patch { patch, removed, .. } => !patch && !removed,
            AttrsDiff::Null | AttrsDiff::Whole(_) => false,
        };
        attrs
            && self.content.is_none()
            && self.extra.is_none()
            && self.marks.is_none()
            && self.text.is_none()
            && self.kind.is_none()
    }

    /// Sets `"content":[]` (the reader would give an empty container an empty paragraph).
    pub(super) fn set_empty_content(&mut self) {
        self.content = Some(Nullable::Is(&[]));
    }

    /// Sets `"content"` to `nodes` (what the Markdown shows of them is not what the reader would infer).
    pub(super) fn set_content(&mut self, nodes: &'d [Node]) {
        self.content = Some(Nullable::Is(nodes));
    }

    /// Sets `"extra"` (`null`: the node has none).
    pub(super) fn set_extra(&mut self, extra: Option<&'d Attrs>) {
        self.extra = Some(extra.map_or(Nullable::Null, Nullable::Is));
    }

    /// Sets `"text"`.
    pub(super) fn set_text(&mut self, text: &'d str) {
        self.text = Some(text);
    }

    /// Sets `"type"`.
    pub(super) fn set_kind(&mut self, kind: &'d str) {
        self.kind = Some(kind);
    }

    /// Makes it the root's diff, where `"type"` is a member (see [`is_member`]).
    pub(super) fn set_root(&mut self) {
        self.root = true;
    }

    /// The node's id alone, when the diff is nothing but the attrs `{"localId": ID}` and ID is a word the
    /// short marker `<!--#ID-->` carries as it is (see [`is_id`]).
    pub(super) fn lone_local_id(&self) -> Option<&'d str> {
        fn lone<'d>(mut attrs: impl Iterator<Item = (&'d Key, &'d Value)>) -> Option<&'d str> {
            let (Some((key, Value::String(id))), None) = (attrs.next(), attrs.next()) else {
                return None;
            };
            (key.is("localId") && is_id(id)).then_some(id.as_str())
        }
        match self.short()? {
            AttrsDiff::Whole(a) => lone(a.iter()),
            AttrsDiff::Patch { attrs, inf, .. } => lone(patched(attrs, inf)),
            AttrsDiff::Same | AttrsDiff::Null => None,
        }
    }

    /// The attrs object alone, when it is the diff's only member and one of its names is no diff member
    /// (the short form: the reader tells it from a diff by that name).
    fn short(&self) -> Option<AttrsDiff<'d>> {
        let lone = self.content.is_none()
            && self.extra.is_none()
            && self.marks.is_none()
            && self.text.is_none()
            && self.kind.is_none();
        if !lone {
            return None;
        }
        match self.attrs {
            AttrsDiff::Whole(a) if a.keys().any(|k| !is_member(k, self.root)) => Some(self.attrs),
            AttrsDiff::Patch {
                attrs,
                inf,
                patch: true,
                removed: false,
            } if patched(attrs, inf).any(|(k, _)| !is_member(k, self.root)) => Some(self.attrs),
            _ => None,
        }
    }

    /// Appends the diff's JSON (the short form where it applies) to `out`, for `D`.
    pub(super) fn write_json<D: Dest>(&self, out: &mut String) {
        match self.short() {
            Some(attrs) => attrs_value::<D>(out, attrs),
            None => self.write_members::<D>(out),
        }
    }

    /// Members in name order, as a `serde_json::Map` holds them ("-attrs" sorts first).
    fn write_members<D: Dest>(&self, out: &mut String) {
        let mut first = true;
        let mut key = |out: &mut String, name: &str| {
            out.push_str(if first { "{\"" } else { ",\"" });
            first = false;
            out.push_str(name);
            out.push_str("\":");
        };
        if let AttrsDiff::Patch {
            attrs,
            inf,
            removed: true,
            ..
        } = self.attrs
        {
            key(out, "-attrs");
            json::array(out, removed(attrs, inf), |out, (k, _)| {
                json::string::<D>(out, k)
            });
        }
        match self.attrs {
            AttrsDiff::Same | AttrsDiff::Patch { patch: false, .. } => {}
            attrs => {
                key(out, "attrs");
                attrs_value::<D>(out, attrs);
            }
        }
        if let Some(content) = self.content {
            key(out, "content");
            match content {
                Nullable::Null => out.push_str("null"),
                Nullable::Is(nodes) => json::nodes::<D>(out, nodes),
            }
        }
        if let Some(extra) = self.extra {
            key(out, "extra");
            match extra {
                Nullable::Null => out.push_str("null"),
                Nullable::Is(extra) => json::attrs::<D>(out, extra),
            }
        }
        if let Some(marks) = self.marks {
            key(out, "marks");
            json::marks::<D>(out, marks);
        }
        if let Some(text) = self.text {
            key(out, "text");
            json::string::<D>(out, text);
        }
        if let Some(kind) = self.kind {
            key(out, "type");
            json::string::<D>(out, kind);
        }
        if first {
            out.push('{');
        }
        out.push('}');
    }
}

/// Appends a mark's ADF JSON to `out`, its members in name order (as its `serde_json::Value` has them),
/// for `D`.
pub(super) fn write_mark<D: Dest>(mark: &Mark, out: &mut String) {
    json::mark::<D>(out, mark);
}

/// The `attrs` member's value.
fn attrs_value<D: Dest>(out: &mut String, attrs: AttrsDiff) {
    match attrs {
        AttrsDiff::Same | AttrsDiff::Null => out.push_str("null"),
        AttrsDiff::Whole(attrs) => json::attrs::<D>(out, attrs),
        AttrsDiff::Patch { attrs, inf, .. } => json::object::<D, _>(out, patched(attrs, inf)),
    }
}

/// The `-attrs` member's names: the inferred names the node lacks, in the inferred order.
fn removed<'d>(
    attrs: &'d Attrs,
    inf: &'d [(&'d str, Inf<'d>)],
) -> impl Iterator<Item = &'d (&'d str, Inf<'d>)> {
    inf.iter().filter(|(k, _)| !attrs.contains_key(k))
}

/// The node's attrs that the reader does not infer.
fn patched<'d>(
    attrs: &'d Attrs,
    inf: &'d [(&'d str, Inf<'d>)],
) -> impl Iterator<Item = (&'d Key, &'d Value)> {
    attrs
        .iter()
        .filter(move |(k, v)| !inf.iter().any(|(ik, iv)| k.is(ik) && iv.matches(v)))
}

/// The diff of `node` against what the reader infers, or `None` when there is none. Marks, text and
/// extra members are never inferred (the writer shows text and text marks itself). A type the reader
/// gives attrs of its own ([`implied`]) is diffed against those where `inf` names none.
pub(super) fn diff<'d>(node: &'d Node, inf: Inferred<'d, 'd>) -> Option<Diff<'d>> {
    parts(
        node.attrs.as_ref(),
        node.extra.as_deref(),
        Some((node.content.as_deref(), inf.content)),
        node.marks.as_deref(),
        inf.attrs.or(implied(&node.kind)),
    )
}

fn parts<'d>(
    attrs: Option<&'d Attrs>,
    extra: Option<&'d Attrs>,
    content: Option<(Option<&'d [Node]>, bool)>,
    marks: Option<&'d [Mark]>,
    inf: InfAttrs<'d, 'd>,
) -> Option<Diff<'d>> {
    let attrs = match (attrs, inf) {
        (None, None) => AttrsDiff::Same,
        (Some(a), Some(i)) => {
            let same = a.len() == i.len()
                && i.iter()
                    .all(|(k, v)| a.get(k).is_some_and(|x| v.matches(x)));
            if same {
                AttrsDiff::Same
            } else {
                AttrsDiff::Patch {
                    attrs: a,
                    inf: i,
                    patch: patched(a, i).next().is_some(),
                    removed: i.iter().any(|(k, _)| !a.contains_key(k)),
                }
            }
        }
        (None, Some(_)) => AttrsDiff::Null,
        (Some(a), None) => AttrsDiff::Whole(a),
    };
    let content = match content {
        Some((content, inferred)) if content.is_some() != inferred => {
            Some(content.map_or(Nullable::Null, Nullable::Is))
        }
        _ => None,
    };
    if matches!(attrs, AttrsDiff::Same) && content.is_none() && marks.is_none() && extra.is_none() {
        return None;
    }
    Some(Diff {
        attrs,
        content,
        extra: extra.map(Nullable::Is),
        marks,
        ..Diff::EMPTY
    })
}

/// The whole node (but its type) as a diff against an empty node of its type.
pub(super) fn whole(node: &Node) -> Diff<'_> {
    whole_against(node, Inferred::new(None, false))
}

/// [`whole`] but the node's content, which the Markdown shows (the reader gives the node a `content`).
pub(super) fn whole_but_content(node: &Node) -> Diff<'_> {
    whole_against(node, Inferred::new(None, true))
}

fn whole_against<'d>(node: &'d Node, inf: Inferred<'d, 'd>) -> Diff<'d> {
    let mut d = diff(node, inf).unwrap_or(Diff::EMPTY);
    d.text = node.text.as_deref();
    d
}

/// A text's modifier (`<!--adf:text {"marks":[…]}-->`): its marks, which the Markdown before it shows
/// in another order or form (see `text_form::marks_apart`).
pub(super) fn text_marks(node: &Node) -> Diff<'_> {
    Diff {
        marks: node.marks.as_deref(),
        ..Diff::EMPTY
    }
}

/// The diff of a mark (a link's) against inferred attrs.
pub(super) fn mark_diff<'d>(mark: &'d Mark, inf: InfAttrs<'d, 'd>) -> Option<Diff<'d>> {
    parts(mark.attrs.as_ref(), mark.extra.as_deref(), None, None, inf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adf;
    use crate::markdown::json::Json;
    use crate::model::NodeType;
    use serde_json::Map;

    /// What the diff was before it was written straight from the node: a `serde_json::Map` of values.
    fn as_map_json(node: &Node, inf: Inferred) -> Option<String> {
        let d = diff(node, inf)?;
        let mut m = Map::new();
        if let AttrsDiff::Patch {
            attrs,
            inf,
            removed: true,
            ..
        } = d.attrs
        {
            let names: Vec<Value> = removed(attrs, inf).map(|(k, _)| Value::from(*k)).collect();
            m.insert("-attrs".into(), Value::Array(names));
        }
        match d.attrs {
            AttrsDiff::Same | AttrsDiff::Patch { patch: false, .. } => {}
            AttrsDiff::Null => {
                m.insert("attrs".into(), Value::Null);
            }
            AttrsDiff::Whole(a) => {
                m.insert("attrs".into(), Value::Object(a.to_map()));
            }
            AttrsDiff::Patch { attrs, inf, .. } => {
                let p = patched(attrs, inf)
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect();
                m.insert("attrs".into(), Value::Object(p));
            }
        }
        if let Some(c) = d.content {
            let v = match c {
                Nullable::Null => Value::Null,
                Nullable::Is(c) => Value::Array(c.iter().map(adf::to_value).collect()),
            };
            m.insert("content".into(), v);
        }
        if let Some(marks) = d.marks {
            let mut probe = Node::new(NodeType::Text);
            probe.marks = Some(marks.to_vec());
            m.insert("marks".into(), adf::to_value(&probe)["marks"].clone());
        }
        if let Some(Nullable::Is(extra)) = d.extra {
            m.insert("extra".into(), Value::Object(extra.to_map()));
        }
        Some(serde_json::to_string(&m).unwrap())
    }

    #[test]
    fn a_diff_writes_what_its_json_map_would() {
        let nodes = [
            // Every member: marks, extra, content, attrs against what is inferred.
            r#"{"type":"panel","zz":[3,{"b":1,"a":2}],"attrs":{"panelType":"info","b":{"y":1,"x":2},"a":null},
            "marks":[{"type":"breakout","attrs":{"mode":"wide"},"q":1}],
            "content":[{"type":"paragraph","content":[{"type":"text","text":"a\"<>|","marks":[{"type":"link","attrs":{"href":"h"}}]}]}]}"#,
            // Attrs alone: the short form, or not when every name is a diff member.
            r#"{"type":"heading","attrs":{"level":2,"localId":"x"}}"#,
            r#"{"type":"heading","attrs":{"text":"x","marks":1}}"#,
            r#"{"type":"heading","attrs":{}}"#,
            r#"{"type":"heading"}"#,
        ];
        let inf = [
            ("panelType", Inf::Str("note")),
            ("missing", Inf::Bool(true)),
        ];
        let level = [("level", Inf::Int(2))];
        let mut written = 0;
        for node in nodes {
            let node = adf::read(node.as_bytes()).unwrap();
            for inferred in [
                Inferred {
                    attrs: None,
                    content: false,
                },
                Inferred {
                    attrs: Some(&inf),
                    content: true,
                },
                Inferred {
                    attrs: Some(&inf[..1]),
                    content: false,
                },
                Inferred {
                    attrs: Some(&level),
                    content: false,
                },
            ] {
                let Some(d) = diff(&node, inferred) else {
                    assert!(as_map_json(&node, inferred).is_none());
                    continue;
                };
                let mut out = String::new();
                d.write_json::<Json>(&mut out);
                let mut full = String::new();
                d.write_members::<Json>(&mut full);
                let map = as_map_json(&node, inferred).unwrap();
                assert_eq!(full, map);
                // Written, the diff takes the short form where the map would.
                let map: Map<String, Value> = serde_json::from_str(&map).unwrap();
                let short = match map.get("attrs") {
                    Some(Value::Object(a))
                        if map.len() == 1 && a.keys().any(|k| !is_member(k, false)) =>
                    {
                        serde_json::to_string(a).unwrap()
                    }
                    _ => serde_json::to_string(&map).unwrap(),
                };
                assert_eq!(out, short);
                written += 1;
            }
        }
        assert!(written >= 12, "{written}");
    }
}
