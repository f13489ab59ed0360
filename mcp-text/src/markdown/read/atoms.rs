//! Inline nodes written as links or images (`[@Ada](mention:…)`, `![alt](media:…)`): the node a
//! captured link or image stands for.

use super::super::forms::{self, format_date, parse_date};
use super::super::marker;
use super::state::*;
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};
use serde_json::Value;

impl R<'_> {
    /// An inline node from a link or image form.
    pub(super) fn atom(&mut self, c: Capture) -> Node {
        let line = c.line;
        let d = if c.title.is_empty() {
            None
        } else {
            marker::title_diff(&c.title)
        };
        if !c.title.is_empty() && d.is_none() && matches!(c.kind, CapKind::Atom) {
            self.warn(line, "an inline node's marker (its link title) is not JSON; the node keeps what its Markdown says");
        }
        let mut node = match c.kind {
            CapKind::Autolink => {
                let mut n = Node::new(NodeType::InlineCard);
                n.set_attr("url", c.dest.clone());
                n
            }
            CapKind::Image => {
                let mut n = Node::new(NodeType::Other(IMAGE.into()));
                n.set_attr("dest", c.dest.clone());
                n.set_attr("alt", c.text.clone());
                if let Some(d) = d {
                    n.extra = Some(Box::new(d.into()));
                }
                return n;
            }
            CapKind::Atom => {
                let (scheme, value) = c.dest.split_once(':').unwrap_or_default();
                let scheme = scheme.to_ascii_lowercase();
                match scheme.as_str() {
                    "mention" => {
                        let mut n = Node::new(NodeType::Mention);
                        n.set_attr("id", value);
                        if c.text.strip_prefix('@') != Some(value) {
                            n.set_attr("text", c.text.clone());
                            let (k, v) = forms::MENTION_ACCESS;
                            n.set_attr(k, v.value());
                        }
                        n
                    }
                    "status" => {
                        let mut n = Node::new(NodeType::Status);
                        n.set_attr("text", c.text.clone());
                        n.set_attr("color", value);
                        let (k, v) = forms::STATUS_STYLE;
                        n.set_attr(k, v.value());
                        n
                    }
                    "date" => {
                        let mut n = Node::new(NodeType::Date);
                        let mut ts = value.to_string();
                        if let (Some(shown), Ok(ms)) =
                            (parse_date(c.text.trim()), value.parse::<i64>())
                        {
                            // The model edited the date it read: its text wins.
                            if format_date(ms) != c.text.trim() {
                                ts = shown.to_string();
                            }
                        }
                        n.set_attr("timestamp", ts);
                        n
                    }
                    "emoji" => {
                        let mut n = Node::new(NodeType::Emoji);
                        // The writer writes no short name holding `#`: the first one ends it, and an
                        // id may hold more.
                        let (short, id) = match value.split_once('#') {
                            Some((s, i)) => (s, Some(i)),
                            None => (value, None),
                        };
                        n.set_attr("shortName", short);
                        if let Some(id) = id {
                            n.set_attr("id", id);
                        }
                        if !c.text.is_empty() && c.text != short {
                            n.set_attr("text", c.text.clone());
                        }
                        n
                    }
                    "media" => {
                        let mut n = Node::new(NodeType::MediaInline);
                        n.set_attr("id", value);
                        let (name, _) = forms::MEDIA_INLINE_COLLECTION;
                        n.set_attr(name, "");
                        n
                    }
                    _ => marker::empty_node(NodeType::from_name(&marker::decode_type_name(value))),
                }
            }
        };
        // A node of a type the schema does not define shows its one text as the link's (see the writer's
        // `inline::shows_content`), unless its marker holds its content.
        let shown = matches!(node.kind, NodeType::Other(_))
            && !c.text.is_empty()
            && d.as_ref().is_none_or(|d| !d.contains_key("content"));
        if let Some(d) = d {
            self.apply(&mut node, &d, line);
        }
        if node.kind == NodeType::InlineExtension {
            // `[anchor: top](adf:inlineExtension)`: the macro's name and main parameter, where the marker
            // does not say them.
            crate::storage::macro_from_label(&mut node, &c.text);
        }
        if shown {
            node.content = Some(vec![Node::text(c.text)]);
        }
        node
    }

    /// The media node an image makes: `media` (in mediaSingle/mediaGroup) or `mediaInline`; an
    /// external image inside text becomes its alt text linked to its URL.
    pub(super) fn media(&mut self, img: &Node, inline: bool) -> Node {
        let dest = img.attr_str("dest").unwrap_or_default().to_string();
        let alt = img.attr_str("alt").unwrap_or_default().to_string();
        let d = img.extra.as_deref().map(Attrs::to_map);
        let id = match dest.get(..6) {
            Some(s) if s.eq_ignore_ascii_case("media:") => Some(dest[6..].to_string()),
            _ => None,
        };
        let mut n = match (&id, inline) {
            (Some(id), true) => {
                let mut n = Node::new(NodeType::MediaInline);
                n.set_attr("id", id.as_str());
                let (name, _) = forms::MEDIA_INLINE_COLLECTION;
                n.set_attr(name, "");
                n
            }
            (Some(id), false) => {
                let mut n = Node::new(NodeType::Media);
                n.set_attr("type", "file");
                n.set_attr("id", id.as_str());
                n.set_attr("collection", "");
                n
            }
            (None, false) => {
                let mut n = Node::new(NodeType::Media);
                n.set_attr("type", "external");
                n.set_attr("url", dest.as_str());
                n
            }
            (None, true) => {
                let mut t = Node::text(if alt.is_empty() {
                    dest.clone()
                } else {
                    alt.clone()
                });
                let mut m = Mark::new(MarkType::Link);
                m.attrs = Some(
                    [("href".to_string(), Value::from(dest))]
                        .into_iter()
                        .collect(),
                );
                t.marks = Some(vec![m]);
                if t.text.as_deref() == Some("") {
                    t.text = Some("image".into());
                }
                return t;
            }
        };
        if !alt.is_empty() {
            n.set_attr("alt", alt);
        }
        if !inline {
            n.marks = img.marks.clone();
        }
        if let Some(d) = d {
            self.apply(&mut n, &d, 0);
        }
        n
    }

    pub(super) fn finish_images(&mut self, nodes: &mut [Node], _line: usize) {
        for n in nodes.iter_mut() {
            if is_image(n) {
                *n = self.media(n, true);
            }
        }
    }
}
