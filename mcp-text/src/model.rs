//! The one document model every reader produces and every writer consumes.
//!
//! It is ADF's own shape (a node has a type, attributes, children, marks and text), because ADF is the
//! richest of the formats and already names every construct the others have: Confluence's storage format
//! maps onto the same node types (its macros become `extension` nodes, as Confluence Cloud itself does),
//! and HTML onto the CommonMark subset. Node and mark types are an enum for the ones the official schema
//! defines and `Other` for any other, so an unknown node is carried, never dropped. Every field keeps
//! whether it was present (`attrs: {}` is not the same document as no `attrs`), so ADF read and written
//! back is the same JSON value.

use serde_json::{Map, Value};

/// A node's attributes, exactly as the source had them.
pub type Attrs = Map<String, Value>;

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
            Other(Box<str>),
        }

        impl $ty {
            /// The type's name on the wire.
            pub fn name(&self) -> &str {
                match self {
                    $(Self::$variant => $name,)*
                    Self::Other(name) => name,
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

impl Node {
    /// A node of `kind` with nothing else set.
    pub fn new(kind: NodeType) -> Self {
        Node { kind, attrs: None, content: None, marks: None, text: None, extra: None }
    }

    /// A node of `kind` holding `content`.
    pub fn with_content(kind: NodeType, content: Vec<Node>) -> Self {
        let mut node = Node::new(kind);
        node.content = Some(content);
        node
    }

    /// A text node.
    pub fn text(text: impl Into<String>) -> Self {
        let mut node = Node::new(NodeType::Text);
        node.text = Some(text.into());
        node
    }

    /// An ADF document (`{"type":"doc","version":1,"content":[...]}`).
    pub fn doc(content: Vec<Node>) -> Self {
        let mut extra = Attrs::new();
        extra.insert("version".into(), Value::from(1));
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
        self.attrs.get_or_insert_with(Attrs::new).insert(name.into(), value.into());
    }
}

impl Mark {
    /// A mark of `kind` with no attributes.
    pub fn new(kind: MarkType) -> Self {
        Mark { kind, attrs: None, extra: None }
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

/// Deep trees are dropped with a loop rather than by recursion, so that no document (however it was built)
/// overflows the stack when it goes away.
impl Drop for Node {
    fn drop(&mut self) {
        let Some(content) = self.content.take() else { return };
        if content.iter().all(|child| child.content.as_ref().is_none_or(|c| c.is_empty())) {
            return;
        }
        let mut stack = content;
        while let Some(mut node) = stack.pop() {
            if let Some(children) = node.content.take() {
                stack.extend(children);
            }
        }
    }
}
