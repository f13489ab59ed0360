//! A paragraph's or heading's `style` standing for ADF's block marks, both ways, as Confluence stores them:
//! `text-align: center;` is `alignment {align: "center"}`, `text-align: right;` `alignment {align: "end"}`,
//! and `margin-left: 30.0px;` (60, ... 180) `indentation {level: 1}` (2, ... 6). Read so only where ADF
//! has the mark (a paragraph or heading at the top of the page, in a layout column or in a table cell, but a
//! paragraph's indentation not in a cell) and only from a style of that one declaration: any other style
//! stays the element's attribute (`storage.attrs.style`). A style written otherwise than the writer writes
//! it (`text-align:center`, `margin-left: 30px`) is kept in the mark's `storage.style`, written back while
//! it still says the mark. The writer writes these marks of a paragraph or heading wherever they stand.

use serde_json::{Map, Value};

use super::attrs::remove_kept_attr;
use super::spans::one_declaration;
use super::STORAGE;
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};

/// One level of indentation, in pixels.
const STEP: u64 = 30;
/// ADF's deepest indentation.
const LEVELS: u64 = 6;

/// The mark a style says (`None`: a style of another declaration, or of more than one).
fn parse(style: &str) -> Option<Mark> {
    let (property, value) = one_declaration(style)?;
    let (kind, name, value) = match property.as_str() {
        "text-align" if value.eq_ignore_ascii_case("center") => {
            (MarkType::Alignment, "align", Value::from("center"))
        }
        "text-align" if value.eq_ignore_ascii_case("right") => {
            (MarkType::Alignment, "align", Value::from("end"))
        }
        "margin-left" => (MarkType::Indentation, "level", Value::from(level(value)?)),
        _ => return None,
    };
    let mut mark = Mark::new(kind);
    mark.attrs = Some(Attrs::from_iter([(name, value)]));
    Some(mark)
}

/// The level of indentation a `margin-left` of `30px`, `30.0px`, ... `180px` is.
fn level(value: &str) -> Option<u64> {
    let pixels = value
        .strip_suffix("px")
        .or_else(|| value.strip_suffix("PX"))?;
    let (whole, fraction) = pixels.split_once('.').unwrap_or((pixels, "0"));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || whole.len() > 4 {
        return None;
    }
    if fraction.is_empty() || !fraction.bytes().all(|b| b == b'0') {
        return None;
    }
    let pixels: u64 = whole.parse().ok()?;
    let level = pixels / STEP;
    (pixels % STEP == 0 && (1..=LEVELS).contains(&level)).then_some(level)
}

/// The declaration the writer writes for a block mark of a paragraph or heading (`None`: another mark, or
/// one whose attrs say nothing storage can hold).
fn canonical(mark: &Mark) -> Option<String> {
    match mark.kind {
        MarkType::Alignment => Some(match mark.attr_str("align")? {
            "end" => "text-align: right;".to_string(),
            align => format!("text-align: {align};"),
        }),
        MarkType::Indentation => {
            let level = mark.attr("level")?.as_u64()?;
            Some(format!("margin-left: {}.0px;", level.checked_mul(STEP)?))
        }
        _ => None,
    }
}

/// Whether ADF has a mark of `kind` on a node of `node`'s type where `parent` holds it.
fn allowed(kind: &MarkType, node: &NodeType, parent: &NodeType) -> bool {
    let cell = matches!(parent, NodeType::TableCell | NodeType::TableHeader);
    let page = matches!(parent, NodeType::Doc | NodeType::LayoutColumn);
    match (node, kind) {
        (NodeType::Heading, _) | (NodeType::Paragraph, MarkType::Alignment) => page || cell,
        (NodeType::Paragraph, _) => page,
        _ => false,
    }
}

/// Makes a paragraph or heading just read, held by a node of type `parent`, say the block mark its
/// `style` says (see the module's text).
pub(super) fn read(node: &mut Node, parent: &NodeType) {
    if !matches!(node.kind, NodeType::Paragraph | NodeType::Heading) {
        return;
    }
    let Some(kept) = kept_attrs(node) else {
        return;
    };
    let Some(style) = kept.get("style").and_then(Value::as_str) else {
        return;
    };
    let Some(mut mark) = parse(style).filter(|m| allowed(&m.kind, &node.kind, parent)) else {
        return;
    };
    if canonical(&mark).as_deref() != Some(style) {
        let mut storage = Map::new();
        storage.insert("style".into(), style.into());
        if let Some(attrs) = mark.attrs.as_mut() {
            attrs.insert(STORAGE, Value::Object(storage));
        }
    }
    remove_kept_attr(node, "style");
    if node.attrs.as_ref().is_some_and(Attrs::is_empty) {
        node.attrs = None;
    }
    node.marks.get_or_insert_with(Vec::new).push(mark);
}

/// The element attributes a node keeps (`storage.attrs`).
fn kept_attrs(node: &Node) -> Option<&Map<String, Value>> {
    node.attr(STORAGE)?.get("attrs")?.as_object()
}

/// The `style` a paragraph or heading is written with for its block marks (`None`: it has none, or is
/// another node): each mark's kept style while it still says the mark, else the writer's own.
pub(super) fn style(node: &Node) -> Option<String> {
    if !matches!(node.kind, NodeType::Paragraph | NodeType::Heading) {
        return None;
    }
    let mut style: Option<String> = None;
    for mark in node.mark_list() {
        let Some(wanted) = canonical(mark) else {
            continue;
        };
        let kept = mark
            .attr(STORAGE)
            .and_then(|s| s.get("style"))
            .and_then(Value::as_str)
            .filter(|kept| parse(kept).is_some_and(|m| canonical(&m).as_ref() == Some(&wanted)));
        let declaration = kept.map_or(wanted, str::to_string);
        match style.as_mut() {
            Some(style) => {
                style.push(' ');
                style.push_str(&declaration);
            }
            None => style = Some(declaration),
        }
    }
    style
}
