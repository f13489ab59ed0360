//! A page layout's sections as Confluence's ADF has them. A section's `ac:type` names a preset of column
//! widths, which is each `layoutColumn`'s `width` in ADF (Atlassian's editor: `single` 100, `two_equal`
//! 50 50, `two_left_sidebar` 33.33 66.66, `two_right_sidebar` 66.66 33.33, `three_equal` 33.33 33.33
//! 33.33, `three_with_sidebars` 25 50 25), and Confluence Cloud's `ac:breakout-mode="wide"` (`full-width`,
//! with `ac:breakout-width`) is ADF's `breakout` mark on the section. Read so where the type is a preset
//! and the cells are its number; the writer writes the type the widths say (a section of other widths:
//! `single`, `two_equal` or `three_equal` by its count, which is all storage can say of it).
//!
//! Cloud writes `ac:breakout-mode="default"` on every section without a breakout, Data Center no mode: the
//! writer writes Cloud's, and a section read without a mode says `storage.breakout: false`. Attributes in
//! another order than Cloud's (type, mode, width, then any other by name) say theirs (`storage.order`).

use serde_json::Value;

use super::attrs::{
    exact_int, in_order, order_said, remove_kept_attr, storage, storage_attrs, storage_of,
    storage_said_no, AttrList, ORDER,
};
use super::ELEMENT;
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};

const TYPE: &str = "ac:type";
const MODE: &str = "ac:breakout-mode";
const WIDTH: &str = "ac:breakout-width";
/// `storage.breakout: false`: the section had no `ac:breakout-mode`.
const BREAKOUT: &str = "breakout";

/// The presets of Atlassian's editor, with their columns' widths.
const PRESETS: [(&str, &[f64]); 6] = [
    ("single", &[100.0]),
    ("two_equal", &[50.0, 50.0]),
    ("two_left_sidebar", &[33.33, 66.66]),
    ("two_right_sidebar", &[66.66, 33.33]),
    ("three_equal", &[33.33, 33.33, 33.33]),
    ("three_with_sidebars", &[25.0, 50.0, 25.0]),
];

/// Where the writer writes an attribute of a section: Cloud's three first, any other after them.
fn rank(name: &str) -> usize {
    [TYPE, MODE, WIDTH]
        .iter()
        .position(|n| *n == name)
        .unwrap_or(3)
}

/// The writer's order of a section's attributes.
fn written_order<T>(mut list: Vec<T>, name: impl Fn(&T) -> &str) -> Vec<T> {
    list.sort_by(|a, b| (rank(name(a)), name(a)).cmp(&(rank(name(b)), name(b))));
    list
}

/// The attrs of an `ac:layout-section` as it opens: its attributes kept, and their order where it is not
/// the writer's (what they say is read when the section closes, [`read`]).
pub(super) fn open_attrs(list: AttrList) -> Option<Attrs> {
    let names: Vec<&str> = list.iter().map(|(k, _)| k.as_str()).collect();
    let order = order_said(written_order(names.clone(), |k| k), &names);
    let mut attrs = storage_attrs(list);
    if let Some(order) = order {
        storage_of(attrs.get_or_insert_with(Attrs::new)).insert(ORDER.into(), order);
    }
    attrs
}

/// Makes a section just read say its columns' widths and its breakout as ADF does (see the module's text).
pub(super) fn read(section: &mut Node) {
    let kept = |section: &Node, name: &str| -> Option<String> {
        let value = storage(section.attrs.as_ref())?.get("attrs")?.get(name)?;
        value.as_str().map(str::to_string)
    };
    if let Some(widths) = kept(section, TYPE).and_then(|t| widths(&t)) {
        let columns = section.content.as_deref_mut().unwrap_or_default();
        let bare = columns
            .iter()
            .all(|c| c.kind == NodeType::LayoutColumn && c.attr("width").is_none());
        if bare && columns.len() == widths.len() {
            for (column, width) in columns.iter_mut().zip(widths) {
                column.set_attr("width", width_value(*width));
            }
            remove_kept_attr(section, TYPE);
        }
    }
    let width = kept(section, WIDTH);
    match kept(section, MODE).as_deref() {
        None => {
            storage_of(section.attrs.get_or_insert_with(Attrs::new))
                .insert(BREAKOUT.into(), false.into());
        }
        Some("default") if width.is_none() => remove_kept_attr(section, MODE),
        Some(mode @ ("wide" | "full-width")) => {
            let width = match width.as_deref().map(exact_int) {
                None => None,
                Some(Some(w)) if w >= 0 => Some(w),
                Some(_) => return finish(section),
            };
            let mut mark = Mark::new(MarkType::Breakout);
            let mut attrs = Attrs::new();
            attrs.insert("mode", mode.into());
            if let Some(w) = width {
                attrs.insert("width", w.into());
            }
            mark.attrs = Some(attrs);
            section.marks.get_or_insert_with(Vec::new).push(mark);
            remove_kept_attr(section, MODE);
            remove_kept_attr(section, WIDTH);
        }
        Some(_) => {}
    }
    finish(section);
}

/// A section's attrs that say nothing are none.
fn finish(section: &mut Node) {
    if section.attrs.as_ref().is_some_and(Attrs::is_empty) {
        section.attrs = None;
    }
}

/// The widths of a preset's columns.
fn widths(preset: &str) -> Option<&'static [f64]> {
    PRESETS.iter().find(|(p, _)| *p == preset).map(|(_, w)| *w)
}

/// A width as ADF writes it: `50`, `33.33`.
fn width_value(width: f64) -> Value {
    if width.fract() == 0.0 {
        Value::from(width as u64)
    } else {
        Value::from(width)
    }
}

/// The preset a section's columns' widths are, else the one of their number.
fn preset(section: &Node) -> Option<&'static str> {
    let columns = section.children();
    let by_widths = PRESETS.iter().find(|(_, widths)| {
        columns.len() == widths.len()
            && columns
                .iter()
                .zip(widths.iter())
                .all(|(c, w)| c.attr("width").and_then(Value::as_f64) == Some(*w))
    });
    let by_count = match columns.len() {
        1 => Some("single"),
        2 => Some("two_equal"),
        3 => Some("three_equal"),
        _ => None,
    };
    by_widths.map(|(p, _)| *p).or(by_count)
}

/// The attributes an `ac:layout-section` is written with, in their order.
pub(super) fn section_attrs(section: &Node) -> Vec<(String, String)> {
    let attrs = section.attrs.as_ref();
    let kept = storage(attrs)
        .and_then(|s| s.get("attrs"))
        .and_then(Value::as_object);
    let has = |name: &str| kept.is_some_and(|k| k.contains_key(name));
    let mut list: Vec<(String, String)> = Vec::new();
    if !has(TYPE) {
        if let Some(preset) = preset(section) {
            list.push((TYPE.into(), preset.into()));
        }
    }
    let breakout = section
        .mark_list()
        .iter()
        .find(|m| m.kind == MarkType::Breakout);
    match breakout {
        Some(mark) => {
            if let Some(mode) = mark.attr_str("mode") {
                list.push((MODE.into(), mode.into()));
            }
            if let Some(width) = mark.attr("width").filter(|w| w.is_number()) {
                list.push((WIDTH.into(), width.to_string()));
            }
        }
        None if !has(MODE) && !storage_said_no(attrs, BREAKOUT) => {
            list.push((MODE.into(), "default".into()));
        }
        None => {}
    }
    for (k, v) in kept.into_iter().flatten() {
        if !list.iter().any(|(name, _)| name == k) {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            list.push((k.clone(), v));
        }
    }
    let list = written_order(list, |(k, _)| k);
    in_order(list, storage(attrs).and_then(|s| s.get(ORDER)), |(k, _)| k)
}

/// What an `ac:layout` holding `content` stands for in its parent: its sections, standing there, the first
/// saying it starts an `ac:layout` of its own when it follows a section there (`follows_section`); holding
/// anything else, the element it is.
pub(super) fn layout(mut content: Vec<Node>, follows_section: bool) -> Vec<Node> {
    let sections = !content.is_empty() && content.iter().all(|n| n.kind == NodeType::LayoutSection);
    if !sections {
        let mut node = Node::with_content(NodeType::Other(ELEMENT.into()), content);
        node.set_attr("name", "ac:layout");
        return vec![node];
    }
    if follows_section {
        storage_of(content[0].attrs.get_or_insert_with(Attrs::new))
            .insert("newLayout".into(), true.into());
    }
    content
}

/// Whether a node is a layout section with no mark written as an element around it (its breakout is its
/// own), which a section right after it shares an `ac:layout` with unless it says otherwise.
pub(super) fn section_without_elements(node: &Node) -> bool {
    node.kind == NodeType::LayoutSection
        && node
            .mark_list()
            .iter()
            .all(|m| m.kind == MarkType::Breakout)
}
