//! JSON written straight from the model for markers: byte for byte what `serde_json::to_string` of the
//! same values writes (compact; objects in their maps' order), without serde's dispatch per value. Floats
//! are serde_json's own.
//!
//! A marker's JSON goes into an HTML comment, a link title or an HTML attribute, each of which some bytes
//! would end early or change ([`Dest`]). Those bytes only ever occur inside JSON strings, so the string
//! writer escapes them too, in the same pass: the JSON is written once, straight to its place.

use serde_json::Value;

use crate::model::{Attrs, Mark, Node};

/// Where JSON is written, and what its strings must not hold there besides what JSON escapes.
pub(super) trait Dest {
    /// The bytes of a string that need more than JSON's escapes here (ASCII; repeats allowed).
    const EXTRA: [u8; 4];
    /// Which bytes of a string are not written as they are: JSON's escapes, and `EXTRA`.
    const SPECIAL: [bool; 256] = special(&Self::EXTRA);
    /// A JSON escape's backslash, as written here.
    const BACKSLASH: &'static str;
    /// Writes `b`, a special byte JSON does not escape, which `rest` follows in its string.
    fn extra(out: &mut String, b: u8, rest: &[u8]);
}

/// JSON as serde_json writes it (what the tests compare with).
#[cfg(test)]
pub(super) struct Json;

#[cfg(test)]
impl Dest for Json {
    const EXTRA: [u8; 4] = [b'"'; 4];
    const BACKSLASH: &'static str = "\\";
    fn extra(out: &mut String, b: u8, _: &[u8]) {
        out.push(b as char);
    }
}

/// Inside an HTML comment (`<!--adf:… {…}-->`): no `-->` (which would end it early; nor HTML's `--!>`),
/// no `<!--` (HTML forbids it in a comment; editors would see a marker there), no `|` (a table cell would
/// end there). A `>` after anything else is itself (`<colgroup>`, `a -> b`): five bytes and a token or two
/// less each.
pub(super) struct Comment;

impl Dest for Comment {
    const EXTRA: [u8; 4] = *b">|<<";
    const BACKSLASH: &'static str = "\\";
    fn extra(out: &mut String, b: u8, rest: &[u8]) {
        out.push_str(match b {
            b'>' if out.ends_with("--") || out.ends_with("--!") => "\\u003e",
            b'>' => ">",
            b'|' => "\\u007c",
            _ if rest.starts_with(b"!--") => "\\u003c",
            _ => "<",
        });
    }
}

/// Inside a link title in single quotes: backslashes, quotes and ampersands escaped for Markdown, and no
/// `<!--`.
pub(super) struct Title;

impl Dest for Title {
    const EXTRA: [u8; 4] = *b"'&<<";
    const BACKSLASH: &'static str = "\\\\";
    fn extra(out: &mut String, b: u8, rest: &[u8]) {
        out.push_str(match b {
            b'\'' => "\\'",
            b'&' => "\\&",
            _ if rest.starts_with(b"!--") => "\\\\u003c",
            _ => "<",
        });
    }
}

/// Inside an HTML attribute in single quotes (`<span data-mark='…'>`), which may be in a table cell.
pub(super) struct HtmlAttr;

impl Dest for HtmlAttr {
    const EXTRA: [u8; 4] = *b"'&|<";
    const BACKSLASH: &'static str = "\\";
    fn extra(out: &mut String, b: u8, rest: &[u8]) {
        out.push_str(match b {
            b'\'' => "&#39;",
            b'&' => "&amp;",
            b'|' => "&#124;",
            _ if rest.starts_with(b"!--") => "&lt;",
            _ => "<",
        });
    }
}

/// The bytes JSON escapes (quotes, backslashes, control characters) and `extra`.
const fn special(extra: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    let mut i = 0;
    while i < extra.len() {
        table[extra[i] as usize] = true;
        i += 1;
    }
    table
}

/// A JSON string. Special bytes are found through a table, eight at a time: a marker's strings are
/// mostly short (a name, an id, a colour), where a table costs less than comparing each byte against each
/// special one.
pub(super) fn string<D: Dest>(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push('"');
    if any_special::<D>(bytes) {
        escaped::<D>(out, s);
    } else {
        out.push_str(s);
    }
    out.push('"');
}

/// Whether any byte of `bytes` is special: eight at a time, the last eight (or four) overlapping those
/// before, since a byte looked at twice does not change the answer. Most of a marker's strings have
/// none, and half are shorter than eight bytes.
#[inline(always)]
fn any_special<D: Dest>(bytes: &[u8]) -> bool {
    let special = |b: u8| D::SPECIAL[usize::from(b)];
    let four = |w: [u8; 4]| special(w[0]) | special(w[1]) | special(w[2]) | special(w[3]);
    let eight = |w: &[u8]| match *w {
        [a, b, c, d, e, f, g, h] => four([a, b, c, d]) | four([e, f, g, h]),
        _ => unreachable!("eight bytes"),
    };
    let n = bytes.len();
    match n {
        0..4 => bytes.iter().any(|&b| special(b)),
        4..8 => {
            let word = |at: usize| [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
            four(word(0)) | four(word(n - 4))
        }
        // The whole words before the last byte, then the last eight: together every byte.
        _ => bytes[..n - 1].chunks_exact(8).any(eight) || eight(&bytes[n - 8..]),
    }
}

/// The content of a string that has special bytes.
#[inline(never)]
fn escaped<D: Dest>(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    let mut from = 0;
    loop {
        let i = from + plain::<D>(&bytes[from..]);
        out.push_str(&s[from..i]);
        let Some(&c) = bytes.get(i) else { break };
        from = i + 1;
        let escape = match c {
            b'"' => "\"",
            // The escape's second backslash is as much a backslash here as its first.
            b'\\' => D::BACKSLASH,
            0x08 => "b",
            0x0c => "f",
            b'\n' => "n",
            b'\r' => "r",
            b'\t' => "t",
            0x00..=0x1f => "",
            _ => {
                D::extra(out, c, &bytes[i + 1..]);
                continue;
            }
        };
        out.push_str(D::BACKSLASH);
        if escape.is_empty() {
            out.push_str("u00");
            out.push(HEX[usize::from(c >> 4)] as char);
            out.push(HEX[usize::from(c & 15)] as char);
        } else {
            out.push_str(escape);
        }
    }
}

/// How many of the first bytes are written as they are.
#[inline(always)]
fn plain<D: Dest>(bytes: &[u8]) -> usize {
    let special = |b: u8| D::SPECIAL[usize::from(b)];
    let mut i = 0;
    while let Some(&[a, b, c, d, e, f, g, h]) = bytes.get(i..i + 8) {
        let any = special(a)
            | special(b)
            | special(c)
            | special(d)
            | special(e)
            | special(f)
            | special(g)
            | special(h);
        if any {
            break;
        }
        i += 8;
    }
    while bytes.get(i).is_some_and(|&b| !special(b)) {
        i += 1;
    }
    i
}

/// Any JSON value.
pub(super) fn value<D: Dest>(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => number(out, n),
        Value::String(s) => string::<D>(out, s),
        Value::Array(items) => array(out, items, value::<D>),
        Value::Object(map) => object::<D, _>(out, map.iter()),
    }
}

/// A number as serde_json writes it: integers digit by digit, floats by serde_json itself.
fn number(out: &mut String, n: &serde_json::Number) {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => push_u64(out, u),
        (None, Some(i)) => {
            out.push('-');
            push_u64(out, i.unsigned_abs());
        }
        (None, None) => out.push_str(&n.to_string()),
    }
}

/// A number's decimal digits.
pub(super) fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
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
pub(super) fn object<'v, D: Dest, K: AsRef<str> + 'v>(
    out: &mut String,
    members: impl Iterator<Item = (&'v K, &'v Value)>,
) {
    out.push('{');
    for (i, (k, v)) in members.enumerate() {
        if i > 0 {
            out.push(',');
        }
        string::<D>(out, k.as_ref());
        out.push(':');
        value::<D>(out, v);
    }
    out.push('}');
}

/// A node's or a mark's attributes.
pub(super) fn attrs<D: Dest>(out: &mut String, a: &Attrs) {
    object::<D, _>(out, a.iter());
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
pub(super) fn nodes<D: Dest>(out: &mut String, nodes: &[Node]) {
    array(out, nodes, |out, node| {
        let Some(extra) = &node.extra else {
            return fixed_node::<D>(out, node);
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
        sorted::<D>(out, members);
    });
}

/// A node with none but the five members of the model, whose names are known and so is their order:
/// what [`sorted`] writes for it, without sorting or escaping the names.
fn fixed_node<D: Dest>(out: &mut String, node: &Node) {
    out.push('{');
    fixed_member(out, "\"attrs\":", node.attrs.as_ref(), attrs::<D>);
    fixed_member(out, "\"content\":", node.content.as_deref(), nodes::<D>);
    fixed_member(out, "\"marks\":", node.marks.as_deref(), marks::<D>);
    fixed_member(out, "\"text\":", node.text.as_deref(), string::<D>);
    fixed_type::<D>(out, node.kind.name());
}

/// `type`, the last member in name order, and the object's end.
fn fixed_type<D: Dest>(out: &mut String, name: &str) {
    out.push_str("\"type\":");
    string::<D>(out, name);
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
pub(super) fn marks<D: Dest>(out: &mut String, marks: &[Mark]) {
    array(out, marks, mark::<D>);
}

/// A mark as ADF, its members in name order.
pub(super) fn mark<D: Dest>(out: &mut String, mark: &Mark) {
    let Some(extra) = &mark.extra else {
        // `attrs` and `type`, in name order (as `sorted` writes them).
        out.push('{');
        fixed_member(out, "\"attrs\":", mark.attrs.as_ref(), attrs::<D>);
        fixed_type::<D>(out, mark.kind.name());
        return;
    };
    let mut members = Vec::with_capacity(2 + extra.len());
    members.push(("type", Member::Str(mark.kind.name())));
    members.extend(extra.iter().map(|(k, v)| (k.as_str(), Member::Value(v))));
    if let Some(attrs) = &mark.attrs {
        members.push(("attrs", Member::Attrs(attrs)));
    }
    sorted::<D>(out, members);
}

/// `members` in name order, the last of equal names winning (as a `serde_json::Map` built from them in
/// this order would hold them).
fn sorted<D: Dest>(out: &mut String, mut members: Vec<(&str, Member)>) {
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
        string::<D>(out, k);
        out.push(':');
        match v {
            Member::Str(s) => string::<D>(out, s),
            Member::Value(v) => value::<D>(out, v),
            Member::Attrs(a) => attrs::<D>(out, a),
            Member::Nodes(n) => nodes::<D>(out, n),
            Member::Marks(m) => marks::<D>(out, m),
        }
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check for special bytes looks at some twice and at short strings apart: every length up to
    /// three words, with each place holding each special byte, against a look at each byte.
    #[test]
    fn a_special_byte_is_found_at_every_place_of_every_length() {
        fn check<D: Dest>() {
            let specials: Vec<u8> = (0..=255u8)
                .filter(|&b| D::SPECIAL[usize::from(b)])
                .collect();
            for len in 0..=24 {
                let plain = vec![b'a'; len];
                assert!(!any_special::<D>(&plain), "{len} plain bytes");
                for at in 0..len {
                    for &b in &specials {
                        let mut bytes = plain.clone();
                        bytes[at] = b;
                        assert!(any_special::<D>(&bytes), "byte {b} at {at} of {len}");
                    }
                }
            }
        }
        check::<Json>();
        check::<Comment>();
        check::<Title>();
        check::<HtmlAttr>();
    }

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
            value::<Json>(&mut out, v);
            assert_eq!(out, serde_json::to_string(v).unwrap());
        }
    }
}
