//! ADF (Atlassian Document Format) JSON: the readers and the writer. The model's own serde is the writer
//! and the reference reader ([`read_serde`]); [`read`] goes through a reader of the JSON bytes first
//! (`direct.rs`, a third cheaper) and leaves to the serde one whatever that one is not sure of.
//!
//! Reading keeps every member of every node (unknown types, unknown members, empty `attrs`), so that
//! `write(read(x))` is `x` as a JSON value. Nesting is bounded by serde_json's recursion limit (128 JSON
//! levels, 64 ADF nodes deep): a deeper document is an error that names the place, never a stack overflow.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::error::Error;

mod direct;
mod starts;
mod stream;
mod valid;
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};
pub use starts::{block_starts, block_starts_after, BlockStarts};
pub use stream::DocWriter;
pub use valid::{repair, RootRepair};

/// Reads an ADF document (or any single ADF node) from JSON.
pub fn read(input: &[u8]) -> Result<Node, Error> {
    let input_str = utf8(input)?;
    match direct::read(input_str) {
        Ok(node) => Ok(node),
        Err(direct::Bail) => read_serde_str(input_str),
    }
}

/// Reads an ADF document like [`read`], but hands each child of the root to `each` as soon as it is read
/// instead of keeping it: the root comes back with its other members and an empty `content` (`None` if
/// it had none). A writer can then start on the first blocks while the rest is read (the CLI reads on one
/// core and writes Markdown on the other). Errors are [`read`]'s, at the same places; the children handed
/// over before an error are then of no use. `Ok(None)` for a document that is [`read`]'s to read whole
/// (the children handed over are then of no use either): a root with `content` twice (JSON leaves to
/// the reader which one counts, and [`read`] keeps the last), or one that only the serde reader reads
/// (nesting near its recursion limit).
pub fn read_streaming(input: &[u8], each: &mut dyn FnMut(Node)) -> Result<Option<Node>, Error> {
    let input_str = utf8(input)?;
    match read_streaming_with(input_str, &mut |_| AtBlock::Read, each) {
        Some(root) => Ok(Some(root)),
        None => read_serde_str(input_str).map(|_| None),
    }
}

/// What [`read_streaming_with`] does at the start of one of the root's blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtBlock {
    /// Read it and hand it over.
    Read,
    /// This block and those after it are read elsewhere ([`read_blocks`]): go on after them, where the
    /// root's `content` array closes (the offset of its `]`).
    SkipTo(usize),
    /// Read no further: the document is [`read`]'s to read whole.
    Abandon,
}

/// [`read_streaming`] asking `at_block`, at each of the root's blocks, whether to read it (with the
/// block's offset in `input`): so that another thread can read the blocks from one of them on
/// ([`read_blocks`], at an offset [`block_starts`] found). `None` for a document not read this way, which
/// [`read`] reads (or refuses) whole: an error, a root with `content` twice, a document only the serde
/// reader reads, [`AtBlock::Abandon`].
pub fn read_streaming_with(
    input: &str,
    at_block: &mut dyn FnMut(usize) -> AtBlock,
    each: &mut dyn FnMut(Node),
) -> Option<Node> {
    direct::read_streaming(input, &mut direct::Stream { at_block, each }).ok()
}

/// Where [`read_blocks`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlocksEnd {
    /// At the start of a block, where `stop` said so: its offset.
    At(usize),
    /// Where the root's `content` array closes: the offset of its `]`.
    Closed(usize),
}

/// Reads the root's blocks from `from` (the offset of one's start, as [`block_starts`] finds them),
/// handing each to `each`, until `stop` says so at the start of a block (given its offset) or the root's
/// `content` closes. What comes after the array is left to the reader of the root
/// ([`read_streaming_with`]). `None` for blocks not read this way: an error, or what only the serde
/// reader reads ([`read`] then reads or refuses the document whole).
pub fn read_blocks(
    input: &str,
    from: usize,
    stop: &mut dyn FnMut(usize) -> bool,
    each: &mut dyn FnMut(Node),
) -> Option<BlocksEnd> {
    direct::read_blocks(input, from, stop, each).ok()
}

/// Reads an ADF document with serde_json's visitors: the reference [`read`] agrees with (it reads every
/// document through a direct reader first and leaves to this one what that one is not sure of). Public
/// so that tests and the fuzz target can check that they agree.
pub fn read_serde(input: &[u8]) -> Result<Node, Error> {
    read_serde_str(utf8(input)?)
}

fn read_serde_str(input: &str) -> Result<Node, Error> {
    serde_json::from_str::<Node>(input)
        .map_err(|e| Error::new(e.line(), e.column(), json_message(&e)))
}

fn utf8(input: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(input).map_err(|e| Error::at(input, e.valid_up_to(), "invalid UTF-8"))
}

/// Reads an ADF node from an already parsed JSON value.
pub fn from_value(value: Value) -> Result<Node, Error> {
    Node::deserialize(value).map_err(|e| Error::new(0, 0, json_message(&e)))
}

/// Writes a node as compact ADF JSON.
pub fn write(node: &Node) -> String {
    serde_json::to_string(node).expect("a model node always serializes")
}

/// Writes a node as indented ADF JSON.
pub fn write_pretty(node: &Node) -> String {
    serde_json::to_string_pretty(node).expect("a model node always serializes")
}

/// The node as a JSON value.
pub fn to_value(node: &Node) -> Value {
    serde_json::to_value(node).expect("a model node always serializes")
}

fn json_message(e: &serde_json::Error) -> String {
    // serde_json appends " at line L column C"; the Error carries the place itself.
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", self.kind.name())?;
        if let Some(extra) = &self.extra {
            for (k, v) in extra.iter() {
                map.serialize_entry(k, v)?;
            }
        }
        if let Some(attrs) = &self.attrs {
            map.serialize_entry("attrs", attrs)?;
        }
        if let Some(content) = &self.content {
            map.serialize_entry("content", &Children(content))?;
        }
        if let Some(text) = &self.text {
            map.serialize_entry("text", text)?;
        }
        if let Some(marks) = &self.marks {
            map.serialize_entry("marks", marks)?;
        }
        map.end()
    }
}

struct Children<'a>(&'a [Node]);

impl Serialize for Children<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for node in self.0 {
            seq.serialize_element(node)?;
        }
        seq.end()
    }
}

impl Serialize for Mark {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", self.kind.name())?;
        if let Some(extra) = &self.extra {
            for (k, v) in extra.iter() {
                map.serialize_entry(k, v)?;
            }
        }
        if let Some(attrs) = &self.attrs {
            map.serialize_entry("attrs", attrs)?;
        }
        map.end()
    }
}

/// A member name, read without allocating for the five that every node uses.
enum Key {
    Type,
    Attrs,
    Content,
    Marks,
    Text,
    Other(String),
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "type" => Key::Type,
                    "attrs" => Key::Attrs,
                    "content" => Key::Content,
                    "marks" => Key::Marks,
                    "text" => Key::Text,
                    other => Key::Other(other.to_string()),
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

/// A type name, matched against the schema's names without allocating for them.
struct TypeName<T>(T);

impl<'de> Deserialize<'de> for TypeName<NodeType> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(NameVisitor(NodeType::from_name))
            .map(TypeName)
    }
}

impl<'de> Deserialize<'de> for TypeName<MarkType> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(NameVisitor(MarkType::from_name))
            .map(TypeName)
    }
}

struct NameVisitor<F>(F);

impl<T, F: FnOnce(&str) -> T> Visitor<'_> for NameVisitor<F> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a type name (a string)")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok((self.0)(v))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an ADF node (an object with a \"type\")")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut kind = None;
        let mut node = Node::new(NodeType::Doc);
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Type => kind = Some(map.next_value::<TypeName<NodeType>>()?.0),
                Key::Attrs => node.attrs = Some(map.next_value::<Attrs>()?),
                Key::Content => node.content = Some(map.next_value_seed(ChildrenSeed)?),
                Key::Marks => node.marks = Some(map.next_value_seed(MarksSeed)?),
                Key::Text => node.text = Some(map.next_value::<String>()?),
                Key::Other(name) => {
                    let value = map.next_value::<Value>()?;
                    node.extra
                        .get_or_insert_with(Default::default)
                        .insert(name, value);
                }
            }
        }
        node.kind = kind.ok_or_else(|| de::Error::custom("an ADF node without \"type\""))?;
        if node.kind == NodeType::Text && node.text.is_none() {
            return Err(de::Error::custom("a text node without \"text\""));
        }
        Ok(node)
    }
}

struct ChildrenSeed;

impl<'de> DeserializeSeed<'de> for ChildrenSeed {
    type Value = Vec<Node>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Node>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ChildrenSeed {
    type Value = Vec<Node>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of ADF nodes")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Node>, A::Error> {
        // JSON tells no array's length: the children gather on one stack shared by every level (a
        // child's own children are gathered and taken off above them before it is pushed), and each
        // array is then allocated once at its exact size, not grown and shrunk node by node.
        let start = PENDING.with(|p| p.borrow().len());
        let taken = |start| {
            PENDING.with(|p| {
                let mut p = p.borrow_mut();
                // One allocation of the exact size and one copy.
                let taken = p.split_off(start);
                if p.is_empty() && p.capacity() > 4096 {
                    // A large document's top level gathered here: its room is not kept for good.
                    p.shrink_to(4096);
                }
                taken
            })
        };
        loop {
            match seq.next_element::<Node>() {
                Ok(Some(node)) => PENDING.with(|p| p.borrow_mut().push(node)),
                Ok(None) => return Ok(taken(start)),
                Err(e) => {
                    drop(taken(start));
                    return Err(e);
                }
            }
        }
    }
}

/// A node's marks, in a vector of their exact number: most texts have one or two, which a vector grown
/// by pushing would hold in room for four.
struct MarksSeed;

impl<'de> DeserializeSeed<'de> for MarksSeed {
    type Value = Vec<Mark>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Mark>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for MarksSeed {
    type Value = Vec<Mark>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of ADF marks")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Mark>, A::Error> {
        let Some(first) = seq.next_element::<Mark>()? else {
            return Ok(Vec::new());
        };
        let Some(second) = seq.next_element::<Mark>()? else {
            return Ok(vec![first]);
        };
        let mut marks = vec![first, second];
        while let Some(mark) = seq.next_element::<Mark>()? {
            marks.push(mark);
        }
        marks.shrink_to_fit();
        Ok(marks)
    }
}

thread_local! {
    /// The children of the arrays being read, innermost last (see `ChildrenSeed::visit_seq`).
    static PENDING: std::cell::RefCell<Vec<Node>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl<'de> Deserialize<'de> for Mark {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MarkVisitor;
        impl<'de> Visitor<'de> for MarkVisitor {
            type Value = Mark;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an ADF mark (an object with a \"type\")")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Mark, A::Error> {
                let mut kind = None;
                let mut mark = Mark::new(MarkType::Strong);
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Type => kind = Some(map.next_value::<TypeName<MarkType>>()?.0),
                        Key::Attrs => mark.attrs = Some(map.next_value::<Attrs>()?),
                        Key::Content => extra(&mut mark, "content", map.next_value()?),
                        Key::Marks => extra(&mut mark, "marks", map.next_value()?),
                        Key::Text => extra(&mut mark, "text", map.next_value()?),
                        Key::Other(name) => {
                            let value = map.next_value::<Value>()?;
                            mark.extra
                                .get_or_insert_with(Default::default)
                                .insert(name, value);
                        }
                    }
                }
                mark.kind =
                    kind.ok_or_else(|| de::Error::custom("an ADF mark without \"type\""))?;
                Ok(mark)
            }
        }
        fn extra(mark: &mut Mark, name: &str, value: Value) {
            mark.extra
                .get_or_insert_with(Default::default)
                .insert(name, value);
        }
        d.deserialize_map(MarkVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_reads_and_writes_back_as_the_same_json_value() {
        let input = r#"{"type":"doc","version":1,"content":[{"type":"paragraph","attrs":{},"content":[
            {"type":"text","text":"Hello ","marks":[]},{"type":"text","text":"world","marks":[{"type":"strong"}]},
            {"type":"futureNode","attrs":{"x":1},"whatever":[1,2]}]}]}"#;
        let doc = read(input.as_bytes()).unwrap();
        assert_eq!(
            doc.children()[0].children()[2].kind,
            NodeType::Other("futureNode".into())
        );
        let back: Value = serde_json::from_str(&write(&doc)).unwrap();
        let orig: Value = serde_json::from_str(input).unwrap();
        assert_eq!(back, orig);
    }

    #[test]
    fn invalid_json_names_the_place() {
        let err = read(b"{\"type\":\"doc\",\n \"content\": [}").unwrap_err();
        assert_eq!((err.line, err.column), (2, 14), "{err}");
    }

    #[test]
    fn a_node_without_a_type_is_an_error() {
        let err = read(br#"{"type":"doc","content":[{"text":"x"}]}"#).unwrap_err();
        assert!(err.message.contains("without \"type\""), "{err}");
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_an_error_not_a_stack_overflow() {
        let depth = 100_000;
        let mut s = String::new();
        for _ in 0..depth {
            s.push_str(r#"{"type":"blockquote","content":["#);
        }
        for _ in 0..depth {
            s.push_str("]}");
        }
        let err = read(s.as_bytes()).unwrap_err();
        assert!(err.message.contains("recursion limit"), "{err}");
    }

    #[test]
    fn a_failed_read_leaves_nothing_for_the_next() {
        // Children gather on one shared stack while their arrays are read: an error half-way through
        // must take its own off, or the next document would get them.
        let bad = r#"{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"a"},{"text":"b"}]}]}"#;
        assert!(read(bad.as_bytes()).is_err());
        let good = r#"{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"c"}]}]}"#;
        let doc = read(good.as_bytes()).unwrap();
        assert_eq!(doc.children().len(), 1);
        assert_eq!(doc.children()[0].children().len(), 1);
        assert_eq!(doc.children()[0].children()[0].text.as_deref(), Some("c"));
        PENDING.with(|p| assert!(p.borrow().is_empty()));
    }

    #[test]
    fn read_streaming_hands_over_the_roots_children_and_keeps_the_rest() {
        let input = br#"{"version":1,"content":[{"type":"paragraph"},{"type":"rule"}],"type":"doc","x":[1]}"#;
        let mut children = Vec::new();
        let root = read_streaming(input, &mut |node| children.push(node))
            .unwrap()
            .expect("one content");
        let whole = read(input).unwrap();
        assert_eq!(children, whole.children());
        assert_eq!(root.content, Some(Vec::new()));
        assert_eq!((&root.kind, &root.extra), (&whole.kind, &whole.extra));
    }

    #[test]
    fn read_streaming_leaves_a_root_with_content_twice_to_read() {
        let input = br#"{"type":"doc","content":[{"type":"rule"}],"content":[]}"#;
        let mut handed = 0;
        assert_eq!(read_streaming(input, &mut |_| handed += 1), Ok(None));
        assert_eq!(read(input).unwrap().children().len(), 0);
    }

    #[test]
    fn read_streaming_fails_where_read_fails() {
        for input in [
            &b"{\"type\":\"doc\",\n \"content\": [{\"type\":\"rule\"},}"[..],
            br#"{"type":"doc","content":[{"text":"x"}]}"#,
            br#"{"type":"doc","content":{}}"#,
            br#"{"type":"doc","content":[]} x"#,
            b"{\"type\":\"text\",\n\"text\":\"a\xff\"}",
        ] {
            let err = read_streaming(input, &mut |_| {}).unwrap_err();
            assert_eq!(err, read(input).unwrap_err());
        }
    }

    #[test]
    fn invalid_utf8_names_the_place() {
        let err = read(b"{\"type\":\"text\",\n\"text\":\"a\xff\"}").unwrap_err();
        assert_eq!(
            (err.line, err.column, err.message.as_str()),
            (2, 10, "invalid UTF-8")
        );
    }
}
