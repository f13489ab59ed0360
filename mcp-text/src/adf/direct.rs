//! ADF read straight from its JSON bytes into the model, with no serde in between: the way every
//! document is read first, because it is a third cheaper than serde_json's visitors (no per-member
//! dispatch through `MapAccess`, the five member names every node has matched on their bytes, runs of
//! plain text found eight bytes at a time).
//!
//! It reads only what it is sure the serde reader (`super::read_serde`, the reference) reads into the
//! same model, and gives up ([`Bail`]) on anything else: every error, a lone surrogate, nesting near
//! serde_json's recursion limit, a root with `content` twice when streaming. The caller then reads the
//! document with the serde reader, for its answer and, on an error, its place. Numbers other than small
//! non-negative integers are parsed by serde_json itself, so that every float is its float.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{AtBlock, BlocksEnd};
use crate::model::{self, Attrs, Mark, MarkType, Node, NodeType};

/// This reader is not sure of the document: the serde reader decides.
#[derive(Debug)]
pub(super) struct Bail;

type Read<T> = Result<T, Bail>;

/// The JSON levels this reader goes into. serde_json's limit is 127: a document near it is the serde
/// reader's to read or refuse (so this one never accepts what that one refuses).
const MAX_DEPTH: u32 = 100;

/// Reads a whole document.
pub(super) fn read(input: &str) -> Read<Node> {
    let mut reader = Reader::new(input);
    let node = reader.node(None)?;
    reader.end()?;
    Ok(node)
}

/// Reads a document handing each child of the root to `stream` (see `super::read_streaming_with`).
pub(super) fn read_streaming(input: &str, stream: &mut Stream) -> Read<Node> {
    let mut reader = Reader::new(input);
    let node = reader.node(Some(stream))?;
    reader.end()?;
    Ok(node)
}

/// What a streaming read does with the root's blocks: asked at the start of each, handed each it reads.
pub(super) struct Stream<'s> {
    pub at_block: &'s mut dyn FnMut(usize) -> AtBlock,
    pub each: &'s mut dyn FnMut(Node),
}

/// Reads the root's blocks from `from`, where one starts (the root's `content` array is two JSON levels
/// deep, as for the reader of the whole document), until `stop` says so at a block's start or the array
/// ends (see `super::read_blocks`).
pub(super) fn read_blocks(
    input: &str,
    from: usize,
    stop: &mut dyn FnMut(usize) -> bool,
    each: &mut dyn FnMut(Node),
) -> Read<BlocksEnd> {
    let mut reader = Reader::new(input);
    if from > input.len() {
        return Err(Bail);
    }
    reader.at = from;
    reader.depth = 2;
    loop {
        reader.skip_space();
        if stop(reader.at) {
            return Ok(BlocksEnd::At(reader.at));
        }
        each(reader.node(None)?);
        reader.skip_space();
        match reader.bytes.get(reader.at) {
            Some(b',') => reader.at += 1,
            Some(b']') => return Ok(BlocksEnd::Closed(reader.at)),
            _ => return Err(Bail),
        }
    }
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    depth: u32,
    /// The children of the arrays being read, innermost last: each array then takes its own in one
    /// allocation of its exact size.
    pending: Vec<Node>,
    /// The same for the members of the attrs and the marks being read (neither nests in itself).
    members: Vec<(model::Key, Value)>,
    marks: Vec<Mark>,
}

/// A member name: the five every node may have, or another.
enum Key<'a> {
    Type,
    Attrs,
    Content,
    Marks,
    Text,
    Other(Cow<'a, str>),
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Self {
        Reader {
            text,
            bytes: text.as_bytes(),
            at: 0,
            depth: 0,
            pending: Vec::new(),
            members: Vec::new(),
            marks: Vec::new(),
        }
    }

    fn node(&mut self, mut root: Option<&mut Stream>) -> Read<Node> {
        let mut kind = None;
        let mut node = Node::new(NodeType::Doc);
        self.object(|r| {
            match r.key()? {
                Key::Type => kind = Some(NodeType::from_name(&r.string_value()?)),
                Key::Attrs => node.attrs = Some(r.attrs()?),
                Key::Content => match root.as_deref_mut() {
                    None => node.content = Some(r.children()?),
                    // Which of two `content`s counts is the whole reader's to say.
                    Some(_) if node.content.is_some() => return Err(Bail),
                    Some(stream) => {
                        r.array(|r| r.streamed_block(stream))?;
                        node.content = Some(Vec::new());
                    }
                },
                Key::Marks => node.marks = Some(r.marks()?),
                Key::Text => node.text = Some(r.string_value()?.into_owned()),
                Key::Other(name) => r.extra_member(&mut node.extra, name)?,
            }
            Ok(())
        })?;
        node.kind = kind.ok_or(Bail)?;
        if node.kind == NodeType::Text && node.text.is_none() {
            return Err(Bail);
        }
        Ok(node)
    }

    /// One of the root's blocks, streamed: read and handed over, or skipped with those after it.
    fn streamed_block(&mut self, stream: &mut Stream) -> Read<()> {
        self.skip_space();
        match (stream.at_block)(self.at) {
            AtBlock::Read => {
                let block = self.node(None)?;
                (stream.each)(block);
            }
            // The array's `]` must be there: the blocks between were read elsewhere, and the reader goes on
            // with what follows the array.
            AtBlock::SkipTo(end) if end > self.at && self.bytes.get(end) == Some(&b']') => {
                self.at = end;
            }
            AtBlock::SkipTo(_) | AtBlock::Abandon => return Err(Bail),
        }
        Ok(())
    }

    fn children(&mut self) -> Read<Vec<Node>> {
        let start = self.pending.len();
        self.array(|r| {
            let child = r.node(None)?;
            r.pending.push(child);
            Ok(())
        })?;
        Ok(self.pending.split_off(start))
    }

    fn marks(&mut self) -> Read<Vec<Mark>> {
        let start = self.marks.len();
        self.array(|r| {
            let mark = r.mark()?;
            r.marks.push(mark);
            Ok(())
        })?;
        Ok(self.marks.split_off(start))
    }

    fn mark(&mut self) -> Read<Mark> {
        let mut kind = None;
        let mut mark = Mark::new(MarkType::Strong);
        self.object(|r| {
            let other = match r.key()? {
                Key::Type => {
                    kind = Some(MarkType::from_name(&r.string_value()?));
                    None
                }
                Key::Attrs => {
                    mark.attrs = Some(r.attrs()?);
                    None
                }
                // A mark has no children, marks or text of its own: such members are kept as any other.
                Key::Content => Some(Cow::Borrowed("content")),
                Key::Marks => Some(Cow::Borrowed("marks")),
                Key::Text => Some(Cow::Borrowed("text")),
                Key::Other(name) => Some(name),
            };
            if let Some(name) = other {
                r.extra_member(&mut mark.extra, name)?;
            }
            Ok(())
        })?;
        mark.kind = kind.ok_or(Bail)?;
        Ok(mark)
    }

    /// A member of a node or mark beyond the model's own: its value, kept under `name` in `extra`.
    fn extra_member(&mut self, extra: &mut Option<Box<Attrs>>, name: Cow<'a, str>) -> Read<()> {
        let value = self.value()?;
        extra
            .get_or_insert_with(Default::default)
            .insert(name.into_owned(), value);
        Ok(())
    }

    fn attrs(&mut self) -> Read<Attrs> {
        // A value is never an `Attrs`: the members gather on one reused vector.
        let start = self.members.len();
        let mut sorted = true;
        self.object(|r| {
            let name = r.member_name()?;
            let value = r.value()?;
            if let Some((last, _)) = r.members[start..].last() {
                sorted &= *last < name;
            }
            r.members.push((name, value));
            Ok(())
        })?;
        if sorted {
            // Names in order, each once (as ADF writers mostly write them): moved in one copy.
            return Ok(Attrs::from_sorted(self.members.split_off(start)));
        }
        let mut attrs = Attrs::with_capacity(self.members.len() - start);
        for (name, value) in self.members.drain(start..) {
            attrs.insert(name, value);
        }
        Ok(attrs)
    }

    /// Any JSON value, as serde_json reads it into a `Value`.
    fn value(&mut self) -> Read<Value> {
        self.skip_space();
        match self.bytes.get(self.at) {
            Some(b'"') => {
                self.at += 1;
                Ok(Value::String(self.string()?.into_owned()))
            }
            Some(b'{') => {
                let mut object = Map::new();
                self.object(|r| {
                    let name = r.member_name()?;
                    let value = r.value()?;
                    object.insert(name.into(), value);
                    Ok(())
                })?;
                Ok(Value::Object(object))
            }
            Some(b'[') => {
                let mut array = Vec::new();
                self.array(|r| {
                    array.push(r.value()?);
                    Ok(())
                })?;
                Ok(Value::Array(array))
            }
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(Bail),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Read<Value> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(Bail)
        }
    }

    /// A number by JSON's grammar: a non-negative integer of up to 19 digits here (it fits a `u64`, as
    /// serde_json keeps it), any other by serde_json.
    fn number(&mut self) -> Read<Value> {
        let start = self.at;
        let digits = |at: &mut usize| {
            let from = *at;
            while self.bytes.get(*at).is_some_and(u8::is_ascii_digit) {
                *at += 1;
            }
            *at - from
        };
        let mut at = start;
        let negative = self.bytes[at] == b'-';
        if negative {
            at += 1;
        }
        let whole = digits(&mut at);
        if whole == 0 || (whole > 1 && self.bytes[at - whole] == b'0') {
            return Err(Bail);
        }
        let mut integer = true;
        if self.bytes.get(at) == Some(&b'.') {
            at += 1;
            if digits(&mut at) == 0 {
                return Err(Bail);
            }
            integer = false;
        }
        if matches!(self.bytes.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(self.bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            if digits(&mut at) == 0 {
                return Err(Bail);
            }
            integer = false;
        }
        self.at = at;
        let token = &self.text[start..at];
        if integer && !negative && whole <= 19 {
            return token.parse::<u64>().map(Value::from).map_err(|_| Bail);
        }
        serde_json::from_str(token).map_err(|_| Bail)
    }

    /// A member name (after the space before it) and its colon.
    fn key(&mut self) -> Read<Key<'a>> {
        self.skip_space();
        if self.bytes.get(self.at) != Some(&b'"') {
            return Err(Bail);
        }
        self.at += 1;
        // The five names, quote included, against the next eight bytes at once.
        let word = self.bytes.get(self.at..self.at + 8).map_or(0, |w| {
            u64::from_le_bytes(w.try_into().expect("eight bytes"))
        });
        let known = |name: &[u8]| {
            let mut bytes = [0u8; 8];
            bytes[..name.len()].copy_from_slice(name);
            let mask = u64::MAX >> (64 - 8 * name.len());
            word & mask == u64::from_le_bytes(bytes)
        };
        let key = if known(b"type\"") {
            self.at += 5;
            Key::Type
        } else if known(b"text\"") {
            self.at += 5;
            Key::Text
        } else if known(b"attrs\"") {
            self.at += 6;
            Key::Attrs
        } else if known(b"marks\"") {
            self.at += 6;
            Key::Marks
        } else if known(b"content\"") {
            self.at += 8;
            Key::Content
        } else {
            // Another name, or one of the five written with escapes.
            let name = self.string()?;
            match &*name {
                "type" => Key::Type,
                "text" => Key::Text,
                "attrs" => Key::Attrs,
                "marks" => Key::Marks,
                "content" => Key::Content,
                _ => Key::Other(name),
            }
        };
        self.colon()?;
        Ok(key)
    }

    /// A member name of a value (after the space before it) and its colon.
    fn member_name(&mut self) -> Read<model::Key> {
        self.skip_space();
        if self.bytes.get(self.at) != Some(&b'"') {
            return Err(Bail);
        }
        self.at += 1;
        // Without escapes (every name the schema defines), the bytes as they are, without a `Cow`.
        let name = match self.plain_string() {
            Some(name) => model::Key::from(name),
            None => model::Key::from(&*self.string()?),
        };
        self.colon()?;
        Ok(name)
    }

    fn colon(&mut self) -> Read<()> {
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b':') {
            self.at += 1;
            Ok(())
        } else {
            Err(Bail)
        }
    }

    /// A value that must be a string.
    fn string_value(&mut self) -> Read<Cow<'a, str>> {
        self.skip_space();
        if self.bytes.get(self.at) != Some(&b'"') {
            return Err(Bail);
        }
        self.at += 1;
        self.string()
    }

    /// A string's content, after its opening quote: borrowed from the input unless it has escapes.
    fn string(&mut self) -> Read<Cow<'a, str>> {
        if let Some(plain) = self.plain_string() {
            return Ok(Cow::Borrowed(plain));
        }
        let start = self.at;
        let end = crate::scan::json_plain_run(self.bytes, start);
        match self.bytes.get(end) {
            Some(b'\\') => {
                let mut out = String::with_capacity(end - start + 16);
                out.push_str(&self.text[start..end]);
                self.at = end;
                self.escaped(out).map(Cow::Owned)
            }
            // A control character, or the end of the input.
            _ => Err(Bail),
        }
    }

    /// A string's content after its opening quote, when it has no escapes: borrowed from the input, the
    /// reader past the closing quote. `None` (the reader where it was) for any other string.
    #[inline(always)]
    fn plain_string(&mut self) -> Option<&'a str> {
        let start = self.at;
        let end = crate::scan::json_plain_run(self.bytes, start);
        if self.bytes.get(end) != Some(&b'"') {
            return None;
        }
        self.at = end + 1;
        Some(&self.text[start..end])
    }

    /// The rest of a string that has escapes, `out` holding what came before.
    fn escaped(&mut self, mut out: String) -> Read<String> {
        loop {
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let escape = *self.bytes.get(self.at + 1).ok_or(Bail)?;
                    self.at += 2;
                    out.push(match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(Bail),
                    });
                }
                Some(_) => {
                    let end = crate::scan::json_plain_run(self.bytes, self.at);
                    if end == self.at {
                        // A control character.
                        return Err(Bail);
                    }
                    out.push_str(&self.text[self.at..end]);
                    self.at = end;
                }
                None => return Err(Bail),
            }
        }
    }

    /// The character of a `\u` escape (after the `u`), a surrogate pair's second half included. A lone
    /// surrogate is the serde reader's to judge.
    fn unicode_escape(&mut self) -> Read<char> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.bytes[self.at..].starts_with(b"\\u") {
                    return Err(Bail);
                }
                self.at += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(Bail);
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(Bail),
            code => code,
        };
        char::from_u32(code).ok_or(Bail)
    }

    fn hex4(&mut self) -> Read<u32> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or(Bail)?;
        let mut code = 0;
        for &digit in digits {
            code = code * 16 + (digit as char).to_digit(16).ok_or(Bail)?;
        }
        self.at += 4;
        Ok(code)
    }

    #[inline(always)]
    fn skip_space(&mut self) {
        // Compact JSON has none: one comparison for the byte that is not space.
        while let Some(&b) = self.bytes.get(self.at) {
            if b > b' ' || !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return;
            }
            self.at += 1;
        }
    }

    /// An object (after space), `member` reading each member, name included.
    fn object(&mut self, member: impl FnMut(&mut Self) -> Read<()>) -> Read<()> {
        self.items(b'{', b'}', member)
    }

    /// An array (after space), `element` reading each element.
    fn array(&mut self, element: impl FnMut(&mut Self) -> Read<()>) -> Read<()> {
        self.items(b'[', b']', element)
    }

    /// An object's members or an array's elements between `open` and `close`, one level deeper while
    /// they are read.
    fn items(
        &mut self,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Read<()>,
    ) -> Read<()> {
        self.skip_space();
        if self.bytes.get(self.at) != Some(&open) || self.depth == MAX_DEPTH {
            return Err(Bail);
        }
        self.at += 1;
        self.depth += 1;
        self.skip_space();
        if self.bytes.get(self.at) == Some(&close) {
            self.at += 1;
        } else {
            loop {
                item(self)?;
                self.skip_space();
                match self.bytes.get(self.at) {
                    Some(b',') => self.at += 1,
                    Some(&b) if b == close => {
                        self.at += 1;
                        break;
                    }
                    _ => return Err(Bail),
                }
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// Nothing but space after the document.
    fn end(&mut self) -> Read<()> {
        self.skip_space();
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(Bail)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read directly, without bailing out, into what the serde reader reads.
    fn same(input: &str) {
        let direct = read(input).unwrap_or_else(|Bail| panic!("bailed out on {input}"));
        let serde = super::super::read_serde(input.as_bytes()).unwrap();
        assert_eq!(direct, serde, "{input}");
    }

    /// Left to the serde reader (which may read it or not).
    fn bails(input: &str) {
        assert!(read(input).is_err(), "read directly: {input}");
    }

    #[test]
    fn what_every_document_has_reads_directly_as_serde_reads_it() {
        same(
            r#"{"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":"a","marks":[{"type":"strong"},{"type":"link","attrs":{"href":"x"}}]}]}]}"#,
        );
        // Space anywhere JSON allows it.
        same(" {\n\t\"type\" : \"doc\" ,\r\n \"content\" : [ { \"type\" : \"rule\" } , {\"type\":\"paragraph\",\"content\":[ ]} ] ,\"attrs\" : { } } \n");
        // Members in any order, twice (the last counts), unknown ones, unknown types.
        same(
            r#"{"content":[],"type":"paragraph","type":"heading","attrs":{"b":1,"a":2,"b":[3]},"zz":{"k":[null,true,false]},"a":"x"}"#,
        );
        same(
            r#"{"type":"futureNode","content":[{"type":"text","text":"t"}],"marks":[{"type":"futureMark","attrs":{},"content":1,"marks":[],"text":"m","x":{}}]}"#,
        );
    }

    #[test]
    fn a_real_shaped_jira_description_reads_directly() {
        same(include_str!(
            "../../../examples/rich-text/jira-description.adf.json"
        ));
    }

    #[test]
    fn escapes_read_directly_as_serde_reads_them() {
        same(
            r#"{"type":"text","text":"q\" b\\ s\/ \b\f\n\r\t \u00e9\u00E9 \u20ac \ud83d\ude00 plain after"}"#,
        );
        same(r#"{"type":"text","text":"\u0000\u001f","attrs":{"k\u0065y":"v\"","\"":1}}"#);
        // One of the five names written with an escape is still that member.
        same(r#"{"t\u0079pe":"paragraph","cont\u0065nt":[{"type":"text","\u0074ext":"x"}]}"#);
        // Non-ASCII text around the eight-byte runs, and a quote at every place in a run.
        for n in 0..20 {
            let text = format!("{}\\\"é€😀{}", "a".repeat(n), "b".repeat(20 - n));
            same(&format!(r#"{{"type":"text","text":"{text}"}}"#));
        }
    }

    #[test]
    fn numbers_are_serde_jsons_numbers() {
        for n in [
            "0",
            "7",
            "-0",
            "-7",
            "1.5",
            "-1.25e-3",
            "1E10",
            "2e+2",
            "0.1",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "-9223372036854775808",
            "-9223372036854775809",
            "3.141592653589793238462643383279",
            "1e-400",
        ] {
            same(&format!(
                r#"{{"type":"heading","attrs":{{"level":{n}}},"x":[{n},{{"y":{n}}}]}}"#
            ));
        }
    }

    #[test]
    fn anything_else_is_left_to_the_serde_reader() {
        for input in [
            "",
            " ",
            "\u{feff}{\"type\":\"doc\"}",
            r#"{"type":"doc"} x"#,
            r#"{"type":"doc",}"#,
            r#"{"type":"doc","content":[{"type":"rule"},]}"#,
            r#"{"type":"doc","content":{}}"#,
            r#"{"type":"doc","attrs":[]}"#,
            r#"{"type":1}"#,
            r#"{"content":[]}"#,
            r#"{"type":"text"}"#,
            r#"{"type":"text","text":1}"#,
            r#"{"type":"text","text":"a"#,
            "{\"type\":\"text\",\"text\":\"a\nb\"}",
            r#"{"type":"text","text":"\x"}"#,
            r#"{"type":"text","text":"\u12"}"#,
            r#"{"type":"text","text":"\u+123"}"#,
            r#"{"type":"text","text":"\ud800"}"#,
            r#"{"type":"text","text":"\ud800\u0041"}"#,
            r#"{"type":"text","text":"\udc00"}"#,
            r#"{"type":"doc","x":01}"#,
            r#"{"type":"doc","x":1.}"#,
            r#"{"type":"doc","x":1e}"#,
            r#"{"type":"doc","x":-}"#,
            r#"{"type":"doc","x":+1}"#,
            r#"{"type":"doc","x":1e400}"#,
            r#"{"type":"doc","x":tru}"#,
            r#"{"type":"doc","x":nul}"#,
            r#"{"type":"doc","marks":[{"attrs":{}}]}"#,
            r#"{"type":"doc" "x":1}"#,
            r#"{"type" "doc"}"#,
            r#"[]"#,
        ] {
            bails(input);
        }
    }

    #[test]
    fn nesting_near_serde_jsons_limit_is_left_to_it() {
        let nested = |levels: usize| {
            let mut s = String::new();
            for _ in 0..levels {
                s.push_str(r#"{"type":"blockquote","content":["#);
            }
            s.push_str(r#"{"type":"rule"}"#);
            for _ in 0..levels {
                s.push_str("]}");
            }
            s
        };
        // 2 JSON levels a node: 49 nodes are 99 levels, 50 would be 101.
        same(&nested(49));
        bails(&nested(50));
        assert!(super::super::read_serde(nested(50).as_bytes()).is_ok());
        assert!(super::super::read(nested(50).as_bytes()).is_ok());
    }

    #[test]
    fn a_streamed_root_with_content_twice_is_left_to_the_serde_reader() {
        let input = r#"{"type":"doc","content":[{"type":"rule"}],"content":[]}"#;
        let mut stream = Stream {
            at_block: &mut |_| AtBlock::Read,
            each: &mut |_| {},
        };
        assert!(read_streaming(input, &mut stream).is_err());
        same(input);
    }
}
