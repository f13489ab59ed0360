//! Images and cards: a `mediaSingle` as an image (linked, with its caption after it), a `mediaGroup` as
//! images on one line, a block or embed card as an autolink; each with the diff of what the Markdown does not
//! show, and the predicates that say when a node has that form (otherwise it is a whole-node marker).

use super::forms::{autolink_safe, reserved};
use super::inline::{self, Place};
use super::marker::{self, Inf, Inferred};
use super::text_form;
use super::writer::{plain_inline_container, W};
use crate::model::{MarkType, Node, NodeType};

impl W<'_> {
    pub(super) fn media_single(&mut self, node: &Node) {
        let inf = [("layout", Inf::Str("center"))];
        self.modifier(node, Inferred::new(Some(&inf), true), false);
        let mut s = String::new();
        let media = &node.children()[0];
        match media.mark_list() {
            [link] if linked_media_ok(media) => {
                // A linked image: `[![alt](src)](href)`, the link's own diff in its title.
                let mut bare = media.clone();
                bare.marks = None;
                s.push('[');
                image(&mut s, &bare, self.opts.plain);
                inline::link_close(&mut s, link, false, self.opts.plain);
            }
            _ => image(&mut s, media, self.opts.plain),
        }
        self.line(&s);
        if let Some(caption) = node.children().get(1) {
            // `<!--adf:caption-->` (with its diff) and its text, a paragraph after the image.
            self.blank();
            let d = marker::diff(caption, Inferred::new(None, true));
            self.marker("caption", d.as_ref(), false);
            self.inline_line(caption.children(), Place::default());
        }
    }

    pub(super) fn media_group(&mut self, node: &Node) {
        self.modifier(node, Inferred::new(None, true), true);
        let mut s = String::new();
        for (i, m) in node.children().iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            image(&mut s, m, self.opts.plain);
        }
        self.line(&s);
    }

    pub(super) fn card(&mut self, node: &Node) {
        let url = node.attr_str("url").unwrap_or_default();
        let inf = [("url", Inf::Str(url))];
        self.modifier(node, Inferred::new(Some(&inf), false), true);
        self.line(&format!("<{url}>"));
    }
}

/// `![alt](url 'diff')` for a media node, or false when it has no image form.
fn media_ok(m: &Node) -> bool {
    // Its marks (border, annotation…) go in the title's diff; a lone link mark is the linked form.
    if m.kind != NodeType::Media || m.content.is_some() || m.text.is_some() || m.extra.is_some() {
        return false;
    }
    let bad = |s: &str| s.contains(['\n', '\r', '\0']);
    match m.attr_str("type") {
        Some("external") => m
            .attr_str("url")
            .is_some_and(|u| !bad(u) && !u.is_empty() && !reserved(u)),
        // A `link` media (a file of a link's preview) reads as a file's, its type in the title's diff.
        Some("file" | "link") => m.attr_str("id").is_some_and(|u| !bad(u)),
        _ => false,
    }
}

fn image(out: &mut String, m: &Node, plain: bool) {
    let alt = m
        .attr_str("alt")
        .filter(|a| !a.is_empty() && !a.contains(['\n', '\r', '\0']));
    let (dest, inf): (String, Vec<(&str, Inf)>) = if m.attr_str("type") == Some("external") {
        let url = m.attr_str("url").unwrap_or_default();
        (
            url.to_string(),
            vec![("type", Inf::Str("external")), ("url", Inf::Str(url))],
        )
    } else {
        let id = m.attr_str("id").unwrap_or_default();
        (
            format!("media:{id}"),
            vec![
                ("type", Inf::Str("file")),
                ("id", Inf::Str(id)),
                ("collection", Inf::Str("")),
            ],
        )
    };
    let mut inf = inf;
    if let Some(a) = alt {
        inf.push(("alt", Inf::Str(a)));
    }
    out.push_str("![");
    super::escape::text(
        out,
        alt.unwrap_or_default(),
        &super::escape::Ctx {
            in_link: true,
            keep_lead: true,
            keep_trail: true,
            prev: Some('['),
            next: Some(']'),
            ..Default::default()
        },
    );
    out.push_str("](");
    inline::push_dest(out, &dest, false);
    if let Some(d) = marker::diff(m, Inferred::new(Some(&inf), false)).filter(|_| !plain) {
        out.push(' ');
        marker::push_title_json(out, &d);
    }
    out.push(')');
}

pub(super) fn media_single_ok(node: &Node) -> bool {
    let image = |m: &Node| media_ok(m) || linked_media_ok(m);
    node.text.is_none()
        && match node.children() {
            [m] => image(m),
            [m, c] => image(m) && caption_ok(c),
            _ => false,
        }
}

/// An image's caption reads back as the paragraph after it: inline content, not an image alone (which
/// would read as an image block).
fn caption_ok(c: &Node) -> bool {
    c.kind == NodeType::Caption
        && plain_inline_container(c)
        && c.children().iter().all(|n| n.kind.is_inline())
        && !matches!(c.children(), [only] if only.kind == NodeType::MediaInline)
}

/// Media under one link mark (an image in a link), written `[![alt](src)](href)`.
fn linked_media_ok(m: &Node) -> bool {
    let [link] = m.mark_list() else { return false };
    if link.kind != MarkType::Link || !text_form::link_form_ok(link) {
        return false;
    }
    let mut bare = m.clone();
    bare.marks = None;
    media_ok(&bare)
}

pub(super) fn media_group_ok(node: &Node) -> bool {
    // Without marks: a group whose marker is lost is a paragraph of inline media, which take fewer.
    node.text.is_none()
        && !node.children().is_empty()
        && node
            .children()
            .iter()
            .all(|m| m.marks.is_none() && media_ok(m))
}

pub(super) fn card_ok(node: &Node) -> bool {
    node.content.is_none() && node.text.is_none() && node.attr_str("url").is_some_and(autolink_safe)
}
