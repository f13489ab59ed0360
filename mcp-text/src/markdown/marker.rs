//! Markers: what a node holds beyond what its plain Markdown says, as a small JSON object (a "diff").
//!
//! A diff is relative to the node the reader infers from the plain Markdown, and carries only members
//! that differ: `attrs` (merged into the inferred attrs; `null` means no attrs at all), `-attrs` (names
//! the inferred attrs the node does not have), `marks`, `content`, `text`, `extra` (replaced; `null`
//! means absent). A diff whose only member is `attrs` is written as the attrs object alone when one of its
//! names is no member (`{"localId":"x"}`); the reader tells them apart by that. A node with no plain
//! form at all is written as a diff against an empty node of its type, which is then the whole node. The
//! diff itself (what differs, and its JSON written straight from the node) is diff.rs; here are how diffs
//! travel and how they are read back. Diffs travel in HTML comments (`<!--adf:TYPE {...}-->`) and link
//! titles (`[@Ada](mention:ID '{...}')`); the encoders here keep them from ending either early.

use serde_json::{Map, Value};

use super::diff::is_member;
use super::json;
use crate::adf;
use crate::model::{Attrs, Mark, Node, NodeType};

pub(super) use super::diff::{
    diff, implied, inferred_attrs, is_id, mark_diff, text_marks, whole, whole_but_content, Diff,
    Inf, Inferred,
};

/// The types of the schema a marker pair stands around (when they hold `content`), besides types the
/// schema does not define: the writer writes no other pair, so the reader takes an open marker of any
/// other type for a block's marker whose block never came.
pub(super) fn pair_kind(kind: &NodeType) -> bool {
    matches!(
        kind,
        NodeType::LayoutSection
            | NodeType::LayoutColumn
            | NodeType::BodiedExtension
            | NodeType::BodiedSyncBlock
            | NodeType::SyncBlock
    )
}

/// The width of each of a layout section's `count` columns that the reader gives a column whose marker
/// names none: an equal share, as Atlassian's editor gives it (100; 50; 33.33), for one to three columns.
/// The writer diffs each column of a section against it, so a page's columns cost no marker JSON.
pub(super) fn column_width(count: usize) -> Option<Inf<'static>> {
    // (A column in no section has all the width: `LONE_COLUMN_WIDTH`.)
    match count {
        1 => Some(Inf::Int(100)),
        2 => Some(Inf::Int(50)),
        3 => Some(Inf::Num(33.33)),
        _ => None,
    }
}

/// The width the reader gives a column whose marker names none in no section (off the schema, or its
/// section's open marker lost): all of it, so that ADF stays valid.
pub(super) const LONE_COLUMN_WIDTH: Inf<'static> = Inf::Int(100);

/// Whether a container of this type read with no block between its markers holds an empty paragraph
/// (ADF requires these to hold a block; the writer says `content: []` for one that is really empty),
/// so that the writer leaves one holding only an empty paragraph with nothing between its markers.
pub(super) fn filled_when_empty(kind: &NodeType) -> bool {
    matches!(
        kind,
        NodeType::TableCell
            | NodeType::TableHeader
            | NodeType::Expand
            | NodeType::NestedExpand
            | NodeType::LayoutColumn
            | NodeType::BodiedExtension
            | NodeType::BodiedSyncBlock
    )
}

/// A diff as written, short or not: an object with a name that is no diff member is the short form
/// (`{"localId":"x"}` means `{"attrs":{"localId":"x"}}`). `root`: the root's marker, where `"type"` is a
/// member.
fn long(d: Map<String, Value>, root: bool) -> Map<String, Value> {
    if d.keys().all(|k| is_member(k, root)) {
        return d;
    }
    let mut full = Map::new();
    full.insert("attrs".into(), Value::Object(d));
    full
}

/// A node of `kind` as the reader builds it from its marker alone, before the marker's diff: no member,
/// but the attrs its type implies (`implied`).
pub(super) fn empty_node(kind: NodeType) -> Node {
    let mut node = Node::new(kind);
    node.attrs = implied(&node.kind).map(inferred_attrs);
    node
}

/// Applies a diff to a node the reader built. Errors name the member that could not be used (the
/// node is then left as the plain Markdown made it). A node without attrs of a type that implies some
/// (`implied`) was built from its marker alone (no Markdown builds one): the diff is against those.
pub(super) fn apply(node: &mut Node, d: &Map<String, Value>) -> Result<(), String> {
    for key in d.keys() {
        if !is_member(key, false) {
            return Err(format!("unknown member `{key}`"));
        }
    }
    // Nothing of `node` changes until every member has been checked: a bad member costs only the diff.
    let mut out = Node::new(node.kind.clone());
    out.attrs = match &node.attrs {
        None => implied(&node.kind).map(inferred_attrs),
        attrs => attrs.clone(),
    };
    match d.get("attrs") {
        None => {}
        Some(Value::Null) => out.attrs = None,
        Some(Value::Object(patch)) => {
            let attrs = out.attrs.get_or_insert_with(Attrs::new);
            for (k, v) in patch {
                attrs.insert(k.clone(), v.clone());
            }
        }
        Some(_) => return Err("`attrs` is not an object".into()),
    }
    if let Some(removed) = d.get("-attrs") {
        let Value::Array(names) = removed else {
            return Err("`-attrs` is not an array".into());
        };
        if let Some(attrs) = out.attrs.as_mut() {
            for name in names {
                if let Some(name) = name.as_str() {
                    attrs.remove(name);
                }
            }
        }
    }
    // Parse members through the ADF reader so that marks and nodes are exactly what ADF would give.
    let mut probe = Map::new();
    probe.insert("type".into(), Value::from(node.kind.name()));
    for key in ["marks", "content", "text"] {
        if let Some(v) = d.get(key) {
            if !v.is_null() {
                probe.insert(key.into(), v.clone());
            }
        }
    }
    if node.kind == NodeType::Text && !probe.contains_key("text") {
        // ADF requires a text node's `text`; the probe only parses the members the diff has.
        probe.insert("text".into(), Value::from(""));
    }
    let parsed = adf::from_value(Value::Object(probe)).map_err(|e| e.message)?;
    if !matches!(
        d.get("extra"),
        None | Some(Value::Null) | Some(Value::Object(_))
    ) {
        return Err("`extra` is not an object".into());
    }
    out.content = if d.contains_key("content") {
        parsed.content.clone()
    } else {
        node.content.take()
    };
    out.text = match d.get("text") {
        None => node.text.take(),
        Some(Value::Null) => None,
        Some(_) => parsed.text.clone(),
    };
    out.marks = if d.contains_key("marks") {
        parsed.marks.clone()
    } else {
        node.marks.take()
    };
    out.extra = match d.get("extra") {
        None => node.extra.take(),
        Some(Value::Null) => None,
        Some(Value::Object(extra)) => Some(Box::new(extra.clone().into())),
        // Any other value was refused above.
        Some(_) => None,
    };
    *node = out;
    Ok(())
}

/// Applies a diff to a mark.
pub(super) fn apply_mark(mark: &mut Mark, d: &Map<String, Value>) -> Result<(), String> {
    let mut probe = Node::new(NodeType::Text);
    probe.attrs = mark.attrs.take();
    probe.extra = mark.extra.take();
    let result = apply(&mut probe, d);
    mark.attrs = probe.attrs.take();
    mark.extra = probe.extra.take();
    result
}

/// A diff's JSON for an HTML comment: no `>` (so `-->` cannot end it early), no `<!--`, no `|` (see
/// [`json::Comment`]).
pub(super) fn push_comment_json(out: &mut String, d: &Diff) {
    d.write_json::<json::Comment>(out);
}

/// A marker inside a line: `<!--adf:TYPE {diff}-->`, the diff of the node (or text) it follows or precedes.
pub(super) fn push_inline(out: &mut String, kind: &str, d: &Diff) {
    out.push_str("<!--adf:");
    push_type_name(out, kind);
    out.push(' ');
    push_comment_json(out, d);
    out.push_str("-->");
}

/// A diff as a link title in single quotes: backslashes, quotes and ampersands escaped for Markdown.
pub(super) fn push_title_json(out: &mut String, d: &Diff) {
    out.push('\'');
    d.write_json::<json::Title>(out);
    out.push('\'');
}

/// A mark as ADF JSON in a single-quoted HTML attribute (members in name order, as its
/// `serde_json::Value` writes them).
pub(super) fn push_mark_attr(out: &mut String, mark: &Mark) {
    super::diff::write_mark::<json::HtmlAttr>(mark, out);
}

/// A plain link title in double quotes, as people write them.
pub(super) fn push_plain_title(out: &mut String, text: &str) {
    push_quoted(out, text, '"');
}

fn push_quoted(out: &mut String, text: &str, quote: char) {
    out.push(quote);
    // Every character escaped is ASCII: the runs between them are copied whole.
    let q = quote as u8;
    let bytes = text.as_bytes();
    let mut from = 0;
    loop {
        let i = crate::scan::find_any(bytes, from, [b'\\', b'&', b'\n', b'\r', q]);
        let Some(&b) = bytes.get(i) else { break };
        out.push_str(&text[from..i]);
        out.push_str(match b {
            b'\\' => "\\\\",
            b'&' => "\\&",
            b'\n' => "&#10;",
            b'\r' => "&#13;",
            b'\'' => "\\'",
            _ => "\\\"",
        });
        from = i + 1;
    }
    out.push_str(&text[from..]);
    out.push(quote);
}

/// A parsed comment marker.
#[derive(Debug)]
pub(super) enum Marker {
    /// `<!--adf:TYPE {diff}-->`: a diff for the next block (or the container it opens).
    Open {
        kind: NodeType,
        diff: Map<String, Value>,
        /// `<!--adf:TYPE {diff} N-->`: a container holding N blocks (where it ends if its close is lost).
        count: Option<usize>,
    },
    /// `<!--adf:TYPE {diff} /-->`: a whole node.
    Leaf {
        kind: NodeType,
        diff: Map<String, Value>,
    },
    /// `<!--/adf:TYPE N-->`: `N` is how many blocks the container holds (absent when none).
    Close {
        kind: NodeType,
        count: Option<usize>,
    },
    /// `<!---->`: splits text.
    Empty,
    /// `<!--#ID-->`: the next block's `localId`, when it is all its marker would say (the block's type
    /// is the one that follows: see [`is_id`]).
    Id(String),
}

/// The short marker `<!--#ID-->` (`id` is one [`is_id`] passed).
pub(super) fn push_id(out: &mut String, id: &str) {
    out.push_str("<!--#");
    out.push_str(id);
    out.push_str("-->");
}

/// The diff a short marker `<!--#ID-->` says: `{"attrs":{"localId":ID}}`.
pub(super) fn id_diff(id: String) -> Map<String, Value> {
    let mut attrs = Map::new();
    attrs.insert("localId".into(), Value::String(id));
    let mut diff = Map::new();
    diff.insert("attrs".into(), Value::Object(attrs));
    diff
}

/// Parses one comment's inside (between `<!--` and `-->`). `Err` says why a marker is unusable,
/// `Ok(None)` means the comment is not ours.
pub(super) fn parse_comment(inner: &str) -> Result<Option<Marker>, String> {
    if inner.is_empty() {
        return Ok(Some(Marker::Empty));
    }
    if let Some(id) = inner.strip_prefix('#') {
        return Ok(is_id(id).then(|| Marker::Id(id.to_string())));
    }
    if let Some(rest) = inner.strip_prefix("/adf:") {
        let mut words = rest.split_whitespace();
        let (Some(name), count, None) = (words.next(), words.next(), words.next()) else {
            return Err(
                "a closing marker without a type, or with more than a count after it".into(),
            );
        };
        let count = match count.map(str::parse::<usize>) {
            None => None,
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => {
                return Err(format!(
                    "the `{name}` closing marker's count is not a number"
                ))
            }
        };
        return Ok(Some(Marker::Close {
            kind: NodeType::from_name(&decode_type_name(name)),
            count,
        }));
    }
    let Some(rest) = inner.strip_prefix("adf:") else {
        return Ok(None);
    };
    let (name, rest) = match rest.find(|c: char| c.is_whitespace() || c == '/') {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    if name.is_empty() {
        return Err("a marker without a type".into());
    }
    let kind = NodeType::from_name(&decode_type_name(name));
    let (json, leaf) = match rest.strip_suffix('/') {
        Some(json) => (json.trim(), true),
        None => (rest, false),
    };
    // A container's count of blocks after its JSON (or alone).
    let (json, count) = match json.rsplit_once(|c: char| c.is_whitespace()) {
        _ if leaf => (json, None),
        Some((before, n)) if before.trim_end().ends_with('}') && is_count(n) => {
            (before.trim_end(), n.parse().ok())
        }
        None if is_count(json) => ("", json.parse().ok()),
        _ => (json, None),
    };
    let diff = if json.is_empty() {
        Map::new()
    } else {
        match serde_json::from_str::<Value>(json) {
            // The root's marker is the only `doc` marker that is no whole node.
            Ok(Value::Object(d)) => long(d, kind == NodeType::Doc && !leaf),
            Ok(_) => return Err(format!("the `{name}` marker's JSON is not an object")),
            Err(e) => return Err(format!("the `{name}` marker's JSON does not parse: {e}")),
        }
    };
    Ok(Some(if leaf {
        Marker::Leaf { kind, diff }
    } else {
        Marker::Open { kind, diff, count }
    }))
}

fn is_count(s: &str) -> bool {
    !s.is_empty() && s.len() < 10 && s.bytes().all(|b| b.is_ascii_digit())
}

/// A link title that is a diff (a JSON object: diff members, or attrs in the short form), if it is one.
pub(super) fn title_diff(title: &str) -> Option<Map<String, Value>> {
    if !title.starts_with('{') {
        return None;
    }
    match serde_json::from_str::<Value>(title) {
        Ok(Value::Object(d)) => Some(long(d, false)),
        _ => None,
    }
}

/// Writes a type name as markers and link destinations carry it: any byte but letters, digits and `-_.:`
/// percent-encoded, so that a name holding `/`, a space or `>` cannot end the marker early; the empty
/// name (off the schema, as any name may be) is a lone `%`, which no other name is written as.
pub(super) fn push_type_name(out: &mut String, name: &str) {
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':');
    if name.is_empty() {
        return out.push('%');
    }
    if name.bytes().all(plain) {
        // Every name the schema defines.
        return out.push_str(name);
    }
    for b in name.bytes() {
        if plain(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// The type name [`push_type_name`] wrote.
pub(super) fn decode_type_name(s: &str) -> String {
    if s == "%" {
        return String::new();
    }
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_then_apply_restores_attrs() {
        let mut node = Node::new(NodeType::Heading);
        node.set_attr("level", 2);
        node.set_attr("localId", "x");
        node.content = Some(vec![]);
        let inf = [("level", Inf::Int(2))];
        let d = diff(&node, Inferred::new(Some(&inf), true)).unwrap();
        let mut json = String::new();
        push_comment_json(&mut json, &d);
        let mut back = Node::new(NodeType::Heading);
        back.set_attr("level", 2);
        back.content = Some(vec![]);
        apply(&mut back, &title_diff(&json).unwrap()).unwrap();
        assert_eq!(back, node);
    }

    #[test]
    fn attrs_alone_take_the_short_form_when_unambiguous() {
        let written = |attrs: Value| {
            let object = Attrs::from(attrs.as_object().unwrap().clone());
            let mut d = Map::new();
            d.insert("attrs".into(), attrs);
            let mut s = String::new();
            push_comment_json(&mut s, &Diff::with_attrs(&object));
            let Some(Marker::Open { diff, .. }) = parse_comment(&format!("adf:x {s}")).unwrap()
            else {
                panic!()
            };
            assert_eq!(diff, d, "{s}");
            assert_eq!(title_diff(&s), Some(d));
            s
        };
        assert_eq!(
            written(serde_json::json!({"localId": "a"})),
            r#"{"localId":"a"}"#
        );
        // Names that are all diff members keep the wrapper.
        assert_eq!(
            written(serde_json::json!({"text": "a"})),
            r#"{"attrs":{"text":"a"}}"#
        );
        assert_eq!(written(serde_json::json!({})), r#"{"attrs":{}}"#);
        assert_eq!(
            written(serde_json::json!({"attrs": 1, "x": 2})),
            r#"{"attrs":1,"x":2}"#
        );
    }

    #[test]
    fn comments_never_close_early() {
        let mut d = Map::new();
        d.insert("attrs".into(), serde_json::json!({"x": "-->"}));
        let attrs = Attrs::from(d["attrs"].as_object().unwrap().clone());
        let mut s = String::new();
        push_comment_json(&mut s, &Diff::with_attrs(&attrs));
        assert!(!s.contains("-->"));
        let Some(Marker::Open { diff, .. }) = parse_comment(&format!("adf:x {s}")).unwrap() else {
            panic!()
        };
        assert_eq!(diff, d);
    }

    #[test]
    fn a_short_marker_is_an_id_of_letters_digits_and_single_dashes() {
        for id in [
            "d5283f563595",
            "ccc0ef59-b155-4a89-9f6f-88228d7adbb4",
            "p_1",
            "7",
        ] {
            let Ok(Some(Marker::Id(got))) = parse_comment(&format!("#{id}")) else {
                panic!("{id}")
            };
            assert_eq!(got, id);
        }
        for not in ["#", "#a b", "#a--b", "#a-", "#é", "#a\"b", "# a"] {
            assert!(matches!(parse_comment(not), Ok(None)), "{not}");
        }
        assert!(matches!(
            parse_comment(&format!("#{}", "a".repeat(101))),
            Ok(None)
        ));
        let d = id_diff("x1".into());
        assert_eq!(
            Value::Object(d),
            serde_json::json!({"attrs": {"localId": "x1"}})
        );
    }
}
