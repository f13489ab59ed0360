//! JSON written straight from the model for markers: byte for byte what `serde_json::to_string` of the
//! same values writes (compact; objects in their maps' order), without serde's dispatch per value, and
//! with each string's plain runs found eight bytes at a time. Numbers are serde_json's own.

use serde_json::Value;

use crate::model::{Attrs, Mark, Node};

/// A JSON string.
pub(super) fn string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let bytes = s.as_bytes();
    let mut from = 0;
    loop {
        let i = crate::scan::json_plain_run(bytes, from);
        out.push_str(&s[from..i]);
        let Some(&c) = bytes.get(i) else { break };
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                out.push_str("\\u00");
                out.push(HEX[usize::from(c >> 4)] as char);
                out.push(HEX[usize::from(c & 15)] as char);
            }
        }
        from = i + 1;
    }
    out.push('"');
}

/// Any JSON value.
pub(super) fn value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => out.push_str(&serde_json::to_string(n).unwrap_or_default()),
        Value::String(s) => string(out, s),
        Value::Array(items) => array(out, items, value),
        Value::Object(map) => object(out, map.iter()),
    }
}

/// An array of `items`, each written by `item`.
pub(super) fn array<T>(
    out: &mut String,
    items: impl IntoIterator<Item = T>,
    mut item: impl FnMut(&mut String, T),
) {
    out.push('[');
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item(out, x);
    }
    out.push(']');
}

/// An object of these members, in this order.
pub(super) fn object<'v>(out: &mut String, members: impl Iterator<Item = (&'v String, &'v Value)>) {
    out.push('{');
    for (i, (k, v)) in members.enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, k);
        out.push(':');
        value(out, v);
    }
    out.push('}');
}

/// A node's or a mark's attributes.
pub(super) fn attrs(out: &mut String, a: &Attrs) {
    object(out, a.iter());
}

/// One member of a node or a mark.
enum Member<'d> {
    Str(&'d str),
    Value(&'d Value),
    Attrs(&'d Attrs),
    Nodes(&'d [Node]),
    Marks(&'d [Mark]),
}

/// Nodes as ADF, each node's members in name order (as their `serde_json::Value`s hold them).
pub(super) fn nodes(out: &mut String, nodes: &[Node]) {
    array(out, nodes, |out, node| {
        let Some(extra) = &node.extra else {
            return fixed_node(out, node);
        };
        // The order `adf`'s serializer writes them in, so that a repeated name resolves the same way.
        let mut members = Vec::with_capacity(5 + extra.len());
        members.push(("type", Member::Str(node.kind.name())));
        members.extend(extra.iter().map(|(k, v)| (k.as_str(), Member::Value(v))));
        if let Some(attrs) = &node.attrs {
            members.push(("attrs", Member::Attrs(attrs)));
        }
        if let Some(content) = &node.content {
            members.push(("content", Member::Nodes(content)));
        }
        if let Some(text) = &node.text {
            members.push(("text", Member::Str(text)));
        }
        if let Some(marks) = &node.marks {
            members.push(("marks", Member::Marks(marks)));
        }
        sorted(out, members);
    });
}

/// A node with none but the five members of the model, whose names are known and so is their order:
/// what [`sorted`] writes for it, without sorting or escaping the names.
fn fixed_node(out: &mut String, node: &Node) {
    out.push('{');
    fixed_member(out, "\"attrs\":", node.attrs.as_ref(), attrs);
    fixed_member(out, "\"content\":", node.content.as_deref(), nodes);
    fixed_member(out, "\"marks\":", node.marks.as_deref(), marks);
    fixed_member(out, "\"text\":", node.text.as_deref(), string);
    fixed_type(out, node.kind.name());
}

/// `type`, the last member in name order, and the object's end.
fn fixed_type(out: &mut String, name: &str) {
    out.push_str("\"type\":");
    string(out, name);
    out.push('}');
}

/// `name` (quoted, with its colon), the value, and the comma before the next member, if there is a value.
fn fixed_member<T: ?Sized>(
    out: &mut String,
    name: &str,
    value: Option<&T>,
    write: fn(&mut String, &T),
) {
    if let Some(value) = value {
        out.push_str(name);
        write(out, value);
        out.push(',');
    }
}

/// Marks as ADF, each mark's members in name order.
pub(super) fn marks(out: &mut String, marks: &[Mark]) {
    array(out, marks, mark);
}

/// A mark as ADF, its members in name order.
pub(super) fn mark(out: &mut String, mark: &Mark) {
    let Some(extra) = &mark.extra else {
        // `attrs` and `type`, in name order (as `sorted` writes them).
        out.push('{');
        fixed_member(out, "\"attrs\":", mark.attrs.as_ref(), attrs);
        fixed_type(out, mark.kind.name());
        return;
    };
    let mut members = Vec::with_capacity(2 + extra.len());
    members.push(("type", Member::Str(mark.kind.name())));
    members.extend(extra.iter().map(|(k, v)| (k.as_str(), Member::Value(v))));
    if let Some(attrs) = &mark.attrs {
        members.push(("attrs", Member::Attrs(attrs)));
    }
    sorted(out, members);
}

/// `members` in name order, the last of equal names winning (as a `serde_json::Map` built from them in
/// this order would hold them).
fn sorted(out: &mut String, mut members: Vec<(&str, Member)>) {
    members.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    let mut first = true;
    for (i, (k, v)) in members.iter().enumerate() {
        if members.get(i + 1).is_some_and(|next| next.0 == *k) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        string(out, k);
        out.push(':');
        match v {
            Member::Str(s) => string(out, s),
            Member::Value(v) => value(out, v),
            Member::Attrs(a) => attrs(out, a),
            Member::Nodes(n) => nodes(out, n),
            Member::Marks(m) => marks(out, m),
        }
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_values_are_what_serde_json_writes() {
        let mut every_byte = String::new();
        for c in 0..=0x7fu8 {
            every_byte.push(c as char);
        }
        every_byte.push_str("é€😀\u{2028}");
        let values = serde_json::json!([
            every_byte,
            "",
            "plain text longer than eight bytes, then \"quoted\" and \\ back",
            0, 1, -1, 18446744073709551615u64, -9223372036854775808i64, 1.5, -0.0, 1e300, 2.5e-8,
            null, true, false, [], {}, {"b": [1, {"z": null, "a": "x"}], "a": {}},
        ]);
        for v in values.as_array().unwrap().iter().chain([&values]) {
            let mut out = String::new();
            value(&mut out, v);
            assert_eq!(out, serde_json::to_string(v).unwrap());
        }
    }
}
