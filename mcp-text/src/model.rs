//! The one document model every reader produces and every writer consumes.
//!
//! It is ADF's own shape (a node has a type, attributes, children, marks and text), because ADF is the
//! richest of the formats and already names every construct the others have: Confluence's storage format
//! maps onto the same node types (its macros become `extension` nodes, as Confluence Cloud itself does),
//! and HTML onto the CommonMark subset. Node and mark types are an enum for the ones the official schema
//! defines and `Other` for any other, so an unknown node is carried, never dropped. Every field keeps
//! whether it was present (`attrs: {}` is not the same document as no `attrs`), so ADF read and written
//! back is the same JSON value.

use std::fmt;

use serde_json::{Map, Value};

pub use attrs::{Attrs, Entry};
pub use key::Key;

/// One node of a document: a block, an inline, or text (`kind == NodeType::Text`, with `text` set).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeType,
    pub attrs: Option<Attrs>,
    pub content: Option<Vec<Node>>,
    pub marks: Option<Vec<Mark>>,
    pub text: Option<String>,
    /// Members other than `type`, `attrs`, `content`, `marks` and `text` (ADF's `version` on `doc`, or
    /// whatever a future schema adds): kept so that nothing is lost.
    pub extra: Option<Box<Attrs>>,
}

/// A mark on a node (on text mostly; ADF also marks blocks: alignment, indentation, breakout, border).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub kind: MarkType,
    pub attrs: Option<Attrs>,
    pub extra: Option<Box<Attrs>>,
}

macro_rules! names {
    ($(#[$m:meta])* $ty:ident { $($variant:ident = $name:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $ty {
            $($variant,)*
            /// A type the official schema does not define: kept as it came.
            Other(Name),
        }

        impl $ty {
            /// The type's name on the wire.
            pub fn name(&self) -> &str {
                match self {
                    $(Self::$variant => $name,)*
                    Self::Other(name) => name.as_str(),
                }
            }

            /// The type named `name` (`Other` for a name the schema does not define).
            pub fn from_name(name: &str) -> Self {
                match name {
                    $($name => Self::$variant,)*
                    other => Self::Other(other.into()),
                }
            }
        }
    };
}

names! {
    /// Every node type of the official ADF schema (`@atlaskit/adf-schema`, `full.json`).
    NodeType {
        Doc = "doc",
        Paragraph = "paragraph",
        Text = "text",
        Heading = "heading",
        BulletList = "bulletList",
        OrderedList = "orderedList",
        ListItem = "listItem",
        TaskList = "taskList",
        TaskItem = "taskItem",
        BlockTaskItem = "blockTaskItem",
        DecisionList = "decisionList",
        DecisionItem = "decisionItem",
        CodeBlock = "codeBlock",
        Blockquote = "blockquote",
        Rule = "rule",
        HardBreak = "hardBreak",
        Table = "table",
        TableRow = "tableRow",
        TableHeader = "tableHeader",
        TableCell = "tableCell",
        Panel = "panel",
        Expand = "expand",
        NestedExpand = "nestedExpand",
        Mention = "mention",
        Emoji = "emoji",
        Date = "date",
        Status = "status",
        InlineCard = "inlineCard",
        BlockCard = "blockCard",
        EmbedCard = "embedCard",
        MediaSingle = "mediaSingle",
        MediaGroup = "mediaGroup",
        Media = "media",
        MediaInline = "mediaInline",
        Caption = "caption",
        LayoutSection = "layoutSection",
        LayoutColumn = "layoutColumn",
        Extension = "extension",
        BodiedExtension = "bodiedExtension",
        InlineExtension = "inlineExtension",
        Placeholder = "placeholder",
        SyncBlock = "syncBlock",
        BodiedSyncBlock = "bodiedSyncBlock",
    }
}

impl NodeType {
    /// The schema's inline node types (what a paragraph holds), as opposed to blocks.
    pub const INLINE: &'static [NodeType] = &[
        NodeType::Text,
        NodeType::Date,
        NodeType::Emoji,
        NodeType::HardBreak,
        NodeType::InlineCard,
        NodeType::Mention,
        NodeType::Placeholder,
        NodeType::Status,
        NodeType::InlineExtension,
        NodeType::MediaInline,
    ];

    /// Whether the type is one of [`NodeType::INLINE`] (a type the schema does not define is not).
    pub fn is_inline(&self) -> bool {
        Self::INLINE.contains(self)
    }
}

names! {
    /// Every mark type of the official ADF schema.
    MarkType {
        Strong = "strong",
        Em = "em",
        Code = "code",
        Link = "link",
        Strike = "strike",
        Underline = "underline",
        Subsup = "subsup",
        TextColor = "textColor",
        BackgroundColor = "backgroundColor",
        Alignment = "alignment",
        Indentation = "indentation",
        Breakout = "breakout",
        Annotation = "annotation",
        Border = "border",
        FontSize = "fontSize",
        Fragment = "fragment",
        DataConsumer = "dataConsumer",
    }
}

/// The name of a node or mark type the schema does not define: a string behind one thin pointer, so that
/// `NodeType` and `MarkType` stay two words (the names the schema defines are unit variants).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(Box<Box<str>>);

impl Name {
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(name: &str) -> Name {
        Name(Box::new(name.into()))
    }
}

impl From<String> for Name {
    fn from(name: String) -> Name {
        Name(Box::new(name.into_boxed_str()))
    }
}

impl From<Box<str>> for Name {
    fn from(name: Box<str>) -> Name {
        Name(Box::new(name))
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        **self.0 == *other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        **self.0 == **other
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Debug::fmt(&**self.0, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Node {
    /// A node of `kind` with nothing else set.
    pub fn new(kind: NodeType) -> Self {
        Node {
            kind,
            attrs: None,
            content: None,
            marks: None,
            text: None,
            extra: None,
        }
    }

    /// A node of `kind` holding `content` (its spare capacity given back: a finished node does not grow).
    pub fn with_content(kind: NodeType, mut content: Vec<Node>) -> Self {
        content.shrink_to_fit();
        let mut node = Node::new(kind);
        node.content = Some(content);
        node
    }

    /// A text node (its spare capacity given back).
    pub fn text(text: impl Into<String>) -> Self {
        let mut text = text.into();
        text.shrink_to_fit();
        let mut node = Node::new(NodeType::Text);
        node.text = Some(text);
        node
    }

    /// An ADF document (`{"type":"doc","version":1,"content":[...]}`).
    pub fn doc(content: Vec<Node>) -> Self {
        let mut extra = Attrs::new();
        extra.insert("version", Value::from(1));
        let mut node = Node::with_content(NodeType::Doc, content);
        node.extra = Some(Box::new(extra));
        node
    }

    /// The children (empty when `content` is absent).
    pub fn children(&self) -> &[Node] {
        self.content.as_deref().unwrap_or(&[])
    }

    /// The marks (empty when `marks` is absent).
    pub fn mark_list(&self) -> &[Mark] {
        self.marks.as_deref().unwrap_or(&[])
    }

    /// Attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        self.attrs.as_ref()?.get(name)
    }

    /// Attribute `name` as a string, if it is one.
    pub fn attr_str(&self, name: &str) -> Option<&str> {
        self.attr(name)?.as_str()
    }

    /// Sets attribute `name`.
    pub fn set_attr(&mut self, name: &str, value: impl Into<Value>) {
        self.attrs
            .get_or_insert_with(Attrs::new)
            .insert(name, value.into());
    }

    /// The object attribute `name` holds, and the object under it at `path` (`storage`, then `params`),
    /// to change in place: `None` where one is missing or not an object.
    pub fn attr_object_mut(
        &mut self,
        name: &str,
        path: &[&str],
    ) -> Option<&mut Map<String, Value>> {
        let mut object = self.attrs.as_mut()?.get_mut(name)?.as_object_mut()?;
        for key in path {
            object = object.get_mut(*key)?.as_object_mut()?;
        }
        Some(object)
    }

    /// The same, making the objects that are missing: `None` only where one on the way is no object.
    pub fn attr_object_or_insert(
        &mut self,
        name: &str,
        path: &[&str],
    ) -> Option<&mut Map<String, Value>> {
        let empty = || Value::Object(Map::new());
        let attrs = self.attrs.get_or_insert_with(Attrs::new);
        let mut object = attrs.entry(name).or_insert_with(empty).as_object_mut()?;
        for key in path {
            object = object.entry(*key).or_insert_with(empty).as_object_mut()?;
        }
        Some(object)
    }
}

impl MarkType {
    /// The order marks take in a text node's `marks`: the schema's order, in which the Atlassian editor
    /// writes them (link, em, strong, colours, strike, subsup, underline, code, annotation, ...). The
    /// Markdown reader sorts by it, the Markdown writer writes a text's marks plainly only when sorted,
    /// and the HTML reader gives them in it, whatever the nesting of the elements.
    pub fn rank(&self) -> u8 {
        match self {
            MarkType::Link => 0,
            MarkType::Em => 1,
            MarkType::Strong => 2,
            MarkType::TextColor => 3,
            MarkType::BackgroundColor => 4,
            MarkType::Strike => 5,
            MarkType::Subsup => 6,
            MarkType::Underline => 7,
            MarkType::Code => 8,
            MarkType::Annotation => 9,
            MarkType::Border => 10,
            MarkType::FontSize => 11,
            MarkType::Fragment => 12,
            MarkType::DataConsumer => 13,
            MarkType::Alignment => 14,
            MarkType::Indentation => 15,
            MarkType::Breakout => 16,
            MarkType::Other(_) => 17,
        }
    }
}

impl Mark {
    /// A mark of `kind` with no attributes.
    pub fn new(kind: MarkType) -> Self {
        Mark {
            kind,
            attrs: None,
            extra: None,
        }
    }

    /// The link mark an HTML `<a href title>` makes, as the HTML and Markdown readers read it: `None` for
    /// a `javascript:` URL, which they keep as text.
    pub fn link(href: &str, title: Option<&str>) -> Option<Self> {
        if href
            .trim_start()
            .get(..11)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("javascript:"))
        {
            return None;
        }
        let mut attrs = Attrs::new();
        attrs.insert("href", Value::from(href));
        if let Some(title) = title {
            attrs.insert("title", Value::from(title));
        }
        let mut mark = Mark::new(MarkType::Link);
        mark.attrs = Some(attrs);
        Some(mark)
    }

    /// Attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        self.attrs.as_ref()?.get(name)
    }

    /// Attribute `name` as a string, if it is one.
    pub fn attr_str(&self, name: &str) -> Option<&str> {
        self.attr(name)?.as_str()
    }
}

/// Deep trees are dropped without deep recursion, so that no document (however it was built) overflows
/// the stack when it goes away: children are emptied in place level by level, by recursion down to
/// `DROP_DEPTH` levels and with a loop below that.
impl Drop for Node {
    fn drop(&mut self) {
        if let Some(content) = self.content.take() {
            drop_content(content, 0);
        }
    }
}

const DROP_DEPTH: usize = 64;

fn drop_content(mut content: Vec<Node>, depth: usize) {
    if depth < DROP_DEPTH {
        // Each child's children go first; the vector then drops nodes with no content left.
        for child in &mut content {
            if let Some(grandchildren) = child.content.take() {
                drop_content(grandchildren, depth + 1);
            }
        }
        return;
    }
    let mut stack = content;
    while let Some(mut node) = stack.pop() {
        if let Some(children) = node.content.take() {
            stack.extend(children);
        }
    }
}

mod key {
    use std::borrow::Borrow;
    use std::fmt;
    use std::ops::Deref;

    /// The name of an attribute (or of a member beyond a node's own): a string that holds up to 22
    /// bytes in itself, where every name the ADF schema defines fits, and a longer one on the heap. A
    /// document has a name for every attribute of every node: held in place, reading one allocates and
    /// copies nothing beyond the name's bytes, and freeing one frees nothing.
    #[derive(Clone)]
    pub struct Key(Repr);

    #[derive(Clone)]
    enum Repr {
        /// The first `len` bytes, a `str`'s.
        Inline {
            len: u8,
            bytes: [u8; INLINE],
        },
        Heap(Box<str>),
    }

    const INLINE: usize = 22;

    impl Key {
        /// The name.
        #[inline]
        pub fn as_str(&self) -> &str {
            match &self.0 {
                // SAFETY: `bytes[..len]` were copied whole from a `str` (see `From<&str>`): UTF-8.
                Repr::Inline { len, bytes } => unsafe {
                    std::str::from_utf8_unchecked(bytes.get_unchecked(..usize::from(*len)))
                },
                Repr::Heap(name) => name,
            }
        }
    }

    impl Key {
        /// Whether the name is `name`: without a call to `memcmp` for a short one.
        #[inline]
        pub fn is(&self, name: &str) -> bool {
            crate::scan::same(self.as_str().as_bytes(), name.as_bytes())
        }
    }

    impl From<&str> for Key {
        #[inline]
        fn from(name: &str) -> Key {
            if name.len() <= INLINE {
                Key(Repr::Inline {
                    len: name.len() as u8,
                    bytes: inline(name.as_bytes()),
                })
            } else {
                Key(Repr::Heap(name.into()))
            }
        }
    }

    /// `src` (at most `INLINE` bytes) at the start of `INLINE` zeroed ones, by a few whole words rather
    /// than a copy of a length known only now (a call to `memcpy`).
    #[inline(always)]
    fn inline(src: &[u8]) -> [u8; INLINE] {
        let mut dst = [0; INLINE];
        let n = src.len();
        let word = |at: usize| u64::from_le_bytes(src[at..at + 8].try_into().expect("8 bytes"));
        let half = |at: usize| u32::from_le_bytes(src[at..at + 4].try_into().expect("4 bytes"));
        if n >= 8 {
            // The first and last eight bytes, and for more than 16 the eight after the first: together
            // every byte, those in between written twice.
            dst[..8].copy_from_slice(&word(0).to_le_bytes());
            if n > 16 {
                dst[8..16].copy_from_slice(&word(8).to_le_bytes());
            }
            dst[n - 8..n].copy_from_slice(&word(n - 8).to_le_bytes());
        } else if n >= 4 {
            dst[..4].copy_from_slice(&half(0).to_le_bytes());
            dst[n - 4..n].copy_from_slice(&half(n - 4).to_le_bytes());
        } else {
            dst[..n].copy_from_slice(src);
        }
        dst
    }

    impl From<String> for Key {
        fn from(name: String) -> Key {
            if name.len() <= INLINE {
                Key::from(name.as_str())
            } else {
                Key(Repr::Heap(name.into_boxed_str()))
            }
        }
    }

    impl From<Key> for String {
        fn from(key: Key) -> String {
            match key.0 {
                Repr::Heap(name) => name.into_string(),
                Repr::Inline { .. } => key.as_str().to_string(),
            }
        }
    }

    impl Deref for Key {
        type Target = str;
        #[inline]
        fn deref(&self) -> &str {
            self.as_str()
        }
    }

    impl AsRef<str> for Key {
        fn as_ref(&self) -> &str {
            self.as_str()
        }
    }

    impl Borrow<str> for Key {
        fn borrow(&self) -> &str {
            self.as_str()
        }
    }

    impl PartialEq for Key {
        #[inline]
        fn eq(&self, other: &Key) -> bool {
            self.is(other.as_str())
        }
    }

    impl Eq for Key {}

    impl PartialOrd for Key {
        fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }

    impl Ord for Key {
        #[inline]
        fn cmp(&self, other: &Key) -> std::cmp::Ordering {
            self.as_str().cmp(other.as_str())
        }
    }

    impl std::hash::Hash for Key {
        fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
            self.as_str().hash(h);
        }
    }

    impl PartialEq<str> for Key {
        fn eq(&self, other: &str) -> bool {
            self.is(other)
        }
    }

    impl PartialEq<&str> for Key {
        fn eq(&self, other: &&str) -> bool {
            self.is(other)
        }
    }

    impl PartialEq<String> for Key {
        fn eq(&self, other: &String) -> bool {
            self.is(other)
        }
    }

    impl fmt::Debug for Key {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            fmt::Debug::fmt(self.as_str(), f)
        }
    }

    impl fmt::Display for Key {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.as_str())
        }
    }

    impl serde::Serialize for Key {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(self.as_str())
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_key_is_three_words_and_any_name_comes_back() {
            assert_eq!(std::mem::size_of::<Key>(), 24);
            let every_length: Vec<String> = (0..30)
                .map(|n| (0..n).map(|i| (b'a' + i as u8) as char).collect())
                .collect();
            for name in [
                "",
                "localId",
                "é€😀",
                &"n".repeat(22),
                &"n".repeat(23),
                &"é".repeat(12),
            ]
            .into_iter()
            .chain(every_length.iter().map(String::as_str))
            {
                let key = Key::from(name);
                assert_eq!(key.as_str(), name);
                assert_eq!(String::from(key.clone()), name);
                assert_eq!(Key::from(name.to_string()), key);
            }
            let (a, b) = (Key::from("a"), Key::from("b"));
            assert!(a < b);
        }
    }
}

mod attrs {
    use std::fmt;

    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::{Map, Value};

    use super::Key;

    /// A node's or a mark's attributes, exactly as the source had them: a JSON object.
    ///
    /// A small map (a vector of members kept sorted by name), because a node has a few attributes at most:
    /// it costs one allocation of just the members, where a `serde_json::Map` (a B-tree) takes a ~600-byte
    /// leaf for even one. It has the `serde_json::Map` methods the converters use, iterates in name order as
    /// that map does (so written JSON is the same), compares regardless of insertion order, and converts to
    /// and from `serde_json::Map` and `Value::Object`.
    #[derive(Clone, Default, PartialEq, Eq)]
    pub struct Attrs(Vec<(Key, Value)>);

    impl Attrs {
        /// An empty map (no allocation).
        pub const fn new() -> Self {
            Attrs(Vec::new())
        }

        /// An empty map with room for `n` members.
        pub fn with_capacity(n: usize) -> Self {
            Attrs(Vec::with_capacity(n))
        }

        /// The map of `members` as they are: the caller has checked that their names are in order, each
        /// once.
        pub(crate) fn from_sorted(members: Vec<(Key, Value)>) -> Self {
            debug_assert!(members.windows(2).all(|w| w[0].0 < w[1].0));
            Attrs(members)
        }

        fn find(&self, key: &str) -> Result<usize, usize> {
            self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
        }

        /// Where `key` is, if it is there: a node has a few attributes, where comparing for equality
        /// (lengths first) one after the other costs less than ordering them.
        #[inline]
        fn position(&self, key: &str) -> Option<usize> {
            if self.0.len() > 8 {
                return self.find(key).ok();
            }
            self.0.iter().position(|(k, _)| k.is(key))
        }

        /// The value of `key`.
        pub fn get(&self, key: &str) -> Option<&Value> {
            self.position(key).map(|i| &self.0[i].1)
        }

        /// The value of `key`, mutably.
        pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
            self.find(key).ok().map(|i| &mut self.0[i].1)
        }

        /// Whether `key` is present.
        pub fn contains_key(&self, key: &str) -> bool {
            self.position(key).is_some()
        }

        /// Sets `key` to `value`; the value it had, if any.
        pub fn insert(&mut self, key: impl Into<Key>, value: Value) -> Option<Value> {
            let key = key.into();
            // Members mostly come in name order: appending is the common case.
            if self.0.last().is_none_or(|(last, _)| *last < key) {
                self.0.push((key, value));
                return None;
            }
            match self.find(&key) {
                Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
                Err(i) => {
                    self.0.insert(i, (key, value));
                    None
                }
            }
        }

        /// Removes `key`; its value, if it was present.
        pub fn remove(&mut self, key: &str) -> Option<Value> {
            self.find(key).ok().map(|i| self.0.remove(i).1)
        }

        /// Removes `key`; its name and value, if it was present.
        pub fn remove_entry(&mut self, key: &str) -> Option<(Key, Value)> {
            self.find(key).ok().map(|i| self.0.remove(i))
        }

        /// The entry of `key`, to insert into in place.
        pub fn entry(&mut self, key: impl Into<Key>) -> Entry<'_> {
            let key = key.into();
            let at = self.find(&key);
            Entry { map: self, key, at }
        }

        /// Keeps the members for which `keep` is true.
        pub fn retain(&mut self, mut keep: impl FnMut(&Key, &mut Value) -> bool) {
            self.0.retain_mut(|(k, v)| keep(k, v));
        }

        /// Removes every member.
        pub fn clear(&mut self) {
            self.0.clear();
        }

        /// The number of members.
        pub fn len(&self) -> usize {
            self.0.len()
        }

        /// Whether there are no members.
        pub fn is_empty(&self) -> bool {
            self.0.is_empty()
        }

        /// The members in name order.
        pub fn iter(&self) -> Iter<'_> {
            Iter(self.0.iter())
        }

        /// The members in name order, values mutably.
        pub fn iter_mut(&mut self) -> IterMut<'_> {
            IterMut(self.0.iter_mut())
        }

        /// The names in order.
        pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> + ExactSizeIterator {
            self.0.iter().map(|(k, _)| k)
        }

        /// The values in name order.
        pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
            self.0.iter().map(|(_, v)| v)
        }

        /// The values in name order, mutably.
        pub fn values_mut(
            &mut self,
        ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
            self.0.iter_mut().map(|(_, v)| v)
        }

        /// Gives back spare capacity.
        pub fn shrink_to_fit(&mut self) {
            self.0.shrink_to_fit();
        }

        /// As a `serde_json::Map`.
        pub fn to_map(&self) -> Map<String, Value> {
            self.0
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect()
        }
    }

    /// A member of [`Attrs`], present or not.
    pub struct Entry<'a> {
        map: &'a mut Attrs,
        key: Key,
        at: Result<usize, usize>,
    }

    impl<'a> Entry<'a> {
        /// The value, inserting `value` if absent.
        pub fn or_insert(self, value: Value) -> &'a mut Value {
            self.or_insert_with(|| value)
        }

        /// The value, inserting `make()` if absent.
        pub fn or_insert_with(self, make: impl FnOnce() -> Value) -> &'a mut Value {
            let i = match self.at {
                Ok(i) => i,
                Err(i) => {
                    self.map.0.insert(i, (self.key, make()));
                    i
                }
            };
            &mut self.map.0[i].1
        }

        /// The value, inserting `null` if absent.
        pub fn or_default(self) -> &'a mut Value {
            self.or_insert_with(Value::default)
        }

        /// The member's name.
        pub fn key(&self) -> &Key {
            &self.key
        }
    }

    /// The members of [`Attrs`] in name order.
    pub struct Iter<'a>(std::slice::Iter<'a, (Key, Value)>);

    impl<'a> Iterator for Iter<'a> {
        type Item = (&'a Key, &'a Value);
        fn next(&mut self) -> Option<Self::Item> {
            self.0.next().map(|(k, v)| (k, v))
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            self.0.size_hint()
        }
    }

    impl DoubleEndedIterator for Iter<'_> {
        fn next_back(&mut self) -> Option<Self::Item> {
            self.0.next_back().map(|(k, v)| (k, v))
        }
    }

    impl ExactSizeIterator for Iter<'_> {}

    /// The members of [`Attrs`] in name order, values mutably.
    pub struct IterMut<'a>(std::slice::IterMut<'a, (Key, Value)>);

    impl<'a> Iterator for IterMut<'a> {
        type Item = (&'a Key, &'a mut Value);
        fn next(&mut self) -> Option<Self::Item> {
            self.0.next().map(|(k, v)| (&*k, v))
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            self.0.size_hint()
        }
    }

    impl DoubleEndedIterator for IterMut<'_> {
        fn next_back(&mut self) -> Option<Self::Item> {
            self.0.next_back().map(|(k, v)| (&*k, v))
        }
    }

    impl ExactSizeIterator for IterMut<'_> {}

    impl<'a> IntoIterator for &'a Attrs {
        type Item = (&'a Key, &'a Value);
        type IntoIter = Iter<'a>;
        fn into_iter(self) -> Iter<'a> {
            self.iter()
        }
    }

    impl<'a> IntoIterator for &'a mut Attrs {
        type Item = (&'a Key, &'a mut Value);
        type IntoIter = IterMut<'a>;
        fn into_iter(self) -> IterMut<'a> {
            self.iter_mut()
        }
    }

    impl IntoIterator for Attrs {
        type Item = (Key, Value);
        type IntoIter = std::vec::IntoIter<(Key, Value)>;
        fn into_iter(self) -> Self::IntoIter {
            self.0.into_iter()
        }
    }

    impl<K: Into<Key>> FromIterator<(K, Value)> for Attrs {
        fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
            let mut map = Attrs::new();
            map.extend(iter);
            map
        }
    }

    impl<K: Into<Key>> Extend<(K, Value)> for Attrs {
        fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
            for (k, v) in iter {
                self.insert(k, v);
            }
        }
    }

    impl std::ops::Index<&str> for Attrs {
        type Output = Value;
        /// Panics when `key` is absent, as `serde_json::Map` does.
        fn index(&self, key: &str) -> &Value {
            self.get(key).expect("no entry found for key")
        }
    }

    impl From<Map<String, Value>> for Attrs {
        fn from(map: Map<String, Value>) -> Self {
            // A serde_json::Map iterates in name order already.
            let mut attrs = Attrs::with_capacity(map.len());
            attrs.extend(map);
            attrs
        }
    }

    impl From<Attrs> for Map<String, Value> {
        fn from(attrs: Attrs) -> Self {
            attrs.0.into_iter().map(|(k, v)| (k.into(), v)).collect()
        }
    }

    impl From<Attrs> for Value {
        fn from(attrs: Attrs) -> Self {
            Value::Object(attrs.into())
        }
    }

    impl fmt::Debug for Attrs {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.debug_map().entries(self.iter()).finish()
        }
    }

    impl Serialize for Attrs {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(self.0.len()))?;
            for (k, v) in &self.0 {
                map.serialize_entry(k, v)?;
            }
            map.end()
        }
    }

    impl<'de> Deserialize<'de> for Attrs {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct AttrsVisitor;
            impl<'de> Visitor<'de> for AttrsVisitor {
                type Value = Attrs;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Attrs, A::Error> {
                    // The members gather in one reused map (JSON tells no object's size; no value read
                    // here is an `Attrs`, so nothing else uses it meanwhile), then move to one exact
                    // allocation.
                    let mut attrs = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
                    attrs.clear();
                    let read = (|| {
                        while let Some((k, v)) = map.next_entry::<std::borrow::Cow<str>, Value>()? {
                            attrs.insert(&*k, v);
                        }
                        Ok(())
                    })();
                    // Moved in one copy (`append`), not element by element through an iterator.
                    let mut exact = Vec::with_capacity(attrs.0.len());
                    exact.append(&mut attrs.0);
                    let exact = Attrs(exact);
                    SCRATCH.with(|s| *s.borrow_mut() = attrs);
                    read.map(|()| exact)
                }
            }
            d.deserialize_map(AttrsVisitor)
        }
    }

    thread_local! {
        /// The members of the attrs being read (see `Attrs::deserialize`).
        static SCRATCH: std::cell::RefCell<Attrs> = const { std::cell::RefCell::new(Attrs::new()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_stays_small() {
        // Every node of a document is one of these: its size is most of the model's memory.
        assert_eq!(std::mem::size_of::<NodeType>(), 16);
        assert_eq!(std::mem::size_of::<Option<Attrs>>(), 24);
        assert!(
            std::mem::size_of::<Node>() <= 120,
            "{}",
            std::mem::size_of::<Node>()
        );
    }

    #[test]
    fn a_tree_a_million_levels_deep_drops_without_overflowing_the_stack() {
        // Built by hand (no reader makes one this deep): past the recursion's depth the loop takes over.
        let mut node = Node::new(NodeType::Paragraph);
        for _ in 0..1_000_000 {
            let mut parent = Node::new(NodeType::Blockquote);
            parent.content = Some(vec![node, Node::new(NodeType::Rule)]);
            node = parent;
        }
        drop(node);
    }

    #[test]
    fn attrs_keep_name_order_and_compare_regardless_of_insertion_order() {
        let mut a = Attrs::new();
        a.insert("b", Value::from(1));
        a.insert("a", Value::from(2));
        a.insert("b", Value::from(3));
        let b: Attrs = [
            ("a".to_string(), Value::from(2)),
            ("b".to_string(), Value::from(3)),
        ]
        .into_iter()
        .collect();
        assert_eq!(a, b);
        assert_eq!(a.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(serde_json::to_string(&a).unwrap(), r#"{"a":2,"b":3}"#);
        let read: Attrs = serde_json::from_str(r#"{"b":1,"a":2,"b":3}"#).unwrap();
        assert_eq!(read, a);
        *a.entry("c").or_insert_with(|| Value::from(4)) = Value::from(5);
        assert_eq!(a.remove("c"), Some(Value::from(5)));
        assert_eq!(serde_json::Map::from(a.clone()), a.to_map());
    }
}
