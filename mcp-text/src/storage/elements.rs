//! The HTML elements of storage format that are model nodes or marks: which XML attributes stand for which
//! ADF attrs (both directions), which elements are marks, and which are inline.

use serde_json::{Map, Value};

use super::attrs::{
    attr_object, exact_int, storage, storage_flag, storage_of, storage_said_no, with_default,
    AttrList,
};
use crate::model::{Attrs, Mark, MarkType};

/// The XML attributes an element's ADF attrs stand for: (XML name, ADF name, an integer in ADF).
pub(super) fn mapped(tag: &str) -> &'static [(&'static str, &'static str, bool)] {
    match tag {
        // Confluence Cloud gives nearly every block an id, which is ADF's `localId`.
        "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "li" | "blockquote" | "hr" => {
            &[("local-id", "localId", false)]
        }
        "ol" => &[("start", "order", true), ("local-id", "localId", false)],
        "tr" => &[("ac:local-id", "localId", false)],
        "th" | "td" => &[
            ("colspan", "colspan", true),
            ("rowspan", "rowspan", true),
            ("data-highlight-colour", "background", false),
            ("ac:local-id", "localId", false),
        ],
        // In the order Confluence Cloud writes them (`<table data-table-width="760" data-layout="default"
        // ac:local-id="…">`); the width is ADF's table `width`, in pixels.
        "table" => &[
            ("data-table-width", "width", true),
            ("data-layout", "layout", false),
            ("ac:local-id", "localId", false),
        ],
        "a" => &[("href", "href", false), ("title", "title", false)],
        "ac:inline-comment-marker" => &[("ac:ref", "id", false)],
        _ => &[],
    }
}

pub(super) fn mapped_attrs(tag: &str, list: AttrList) -> Option<Attrs> {
    let table = mapped(tag);
    let mut attrs = Attrs::new();
    let mut rest = AttrList::new();
    for (k, v) in list {
        match table.iter().find(|(x, ..)| *x == k) {
            Some((_, adf, true)) => match exact_int(&v) {
                Some(n) => {
                    attrs.insert(*adf, n.into());
                }
                None => rest.push((k, v)),
            },
            Some((_, adf, false)) => {
                attrs.insert(*adf, v.into());
            }
            None => rest.push((k, v)),
        }
    }
    if !rest.is_empty() {
        storage_of(&mut attrs).insert("attrs".into(), Value::Object(attr_object(rest)));
    }
    (!attrs.is_empty()).then_some(attrs)
}

/// An `<ol>`'s attrs, its `order` 1 without a `start` (as Confluence's ADF has it and the Markdown reader
/// infers). Confluence Cloud writes `start="1"` with the list's `local-id`, Data Center neither: the writer
/// writes a `start` of 1 exactly when the list has a `localId`. The other two shapes say so: a `start="1"`
/// without an id stays the attribute it is (`storage.attrs`), an id without a `start` says
/// `storage.start: false`.
pub(super) fn ordered_list_attrs(list: AttrList) -> Attrs {
    let has = |name: &str| list.iter().any(|(k, _)| k == name);
    let id = has("local-id");
    let start_one = list.iter().any(|(k, v)| k == "start" && v == "1");
    let no_start = id && !has("start");
    let (kept, list): (AttrList, AttrList) = list
        .into_iter()
        .partition(|(k, v)| !id && k == "start" && v == "1");
    let mut attrs = mapped_attrs("ol", list).unwrap_or_default();
    if start_one && !id {
        let rest = storage_of(&mut attrs)
            .entry("attrs")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(rest) = rest.as_object_mut() {
            rest.extend(attr_object(kept));
        }
    }
    if no_start {
        storage_of(&mut attrs).insert("start".into(), false.into());
    }
    with_default(Some(attrs), "order", 1)
}

/// A `<table>`'s attrs: `isNumberColumnEnabled: false` and `layout: "default"` unless it says otherwise,
/// as Confluence's ADF has them and the Markdown reader infers (storage has no form for the first). Cloud
/// writes `data-layout="default"`, Data Center no layout but a `class` (`wrapped`): the writer leaves the
/// default layout out exactly when the table has a class. The other two shapes say so: no layout and no
/// class `storage.layout: false`, the default layout beside a class `storage.layout: true`.
pub(super) fn table_attrs(list: AttrList) -> Attrs {
    let class = list.iter().any(|(k, _)| k == "class");
    let layout = list
        .iter()
        .find(|(k, _)| k == "data-layout")
        .map(|(_, v)| v.clone());
    let mut attrs = with_default(mapped_attrs("table", list), "isNumberColumnEnabled", false);
    match (layout.as_deref(), class) {
        (None, false) => {
            storage_of(&mut attrs).insert("layout".into(), false.into());
        }
        (Some("default"), true) => {
            storage_of(&mut attrs).insert("layout".into(), true.into());
        }
        _ => {}
    }
    with_default(Some(attrs), "layout", "default")
}

/// Whether the writer leaves out the XML attribute of `tag` that stands for `adf`, whose value is `v`, of
/// a node whose attrs are `attrs`: an `<ol>`'s `start` of 1 but with an id (see [`ordered_list_attrs`]), a
/// `<table>`'s default layout beside a class (see [`table_attrs`]).
pub(super) fn implied(tag: &str, adf: &str, v: &Value, attrs: &Attrs) -> bool {
    match (tag, adf) {
        ("ol", "order") => {
            v.as_i64() == Some(1)
                && (!attrs.contains_key("localId") || storage_said_no(Some(attrs), "start"))
        }
        ("table", "layout") => {
            let class = storage(Some(attrs))
                .and_then(|s| s.get("attrs"))
                .and_then(|a| a.get("class"))
                .is_some();
            v.as_str() == Some("default")
                && ((class && !storage_flag(Some(attrs), "layout"))
                    || storage_said_no(Some(attrs), "layout"))
        }
        _ => false,
    }
}

/// The mark an element stands for, if it is a mark element.
pub(super) fn mark_for(name: &str, attrs: &AttrList) -> Option<Mark> {
    let (kind, canonical) = match name {
        "strong" | "b" => (MarkType::Strong, "strong"),
        "em" | "i" => (MarkType::Em, "em"),
        "u" => (MarkType::Underline, "u"),
        "s" | "del" | "strike" => (MarkType::Strike, "s"),
        "sub" | "sup" => (MarkType::Subsup, name),
        "code" => (MarkType::Code, "code"),
        "a" if attrs.iter().any(|(k, _)| k == "href") => (MarkType::Link, "a"),
        "ac:inline-comment-marker" if attrs.iter().any(|(k, _)| k == "ac:ref") => {
            (MarkType::Annotation, "ac:inline-comment-marker")
        }
        "span" => return super::spans::mark(attrs),
        _ => return None,
    };
    let mut mark = Mark::new(kind);
    let mut a = mapped_attrs(name, attrs.clone()).unwrap_or_default();
    match mark.kind {
        MarkType::Subsup => {
            a.insert("type", name.into());
        }
        MarkType::Annotation => {
            a.insert("annotationType", "inlineComment".into());
        }
        _ => {}
    }
    let a_implying = mark.kind == MarkType::Link
        && a.get("href")
            .and_then(Value::as_str)
            .is_some_and(|h| super::links::implied(h).is_some());
    if name != canonical || a_implying {
        // `<a href="page:…">`: an `<a>`, though its `href` alone would be written as an `ac:link`.
        storage_of(&mut a).insert("tag".into(), name.into());
    }
    if !a.is_empty() {
        mark.attrs = Some(a);
    }
    Some(mark)
}

/// Elements that are inline content: in block context they open an implicit paragraph.
pub(super) fn is_inline(name: &str, attrs: &AttrList) -> bool {
    if name == "ac:structured-macro" {
        let macro_name = attrs
            .iter()
            .find(|(k, _)| k == "ac:name")
            .map(|(_, v)| v.as_str());
        return matches!(macro_name, Some("status" | "jira" | "anchor" | "profile"));
    }
    matches!(
        name,
        "strong"
            | "b"
            | "em"
            | "i"
            | "u"
            | "s"
            | "del"
            | "strike"
            | "sub"
            | "sup"
            | "code"
            | "a"
            | "span"
            | "br"
            | "ac:link"
            | "ac:emoticon"
            | "time"
            | "ac:inline-comment-marker"
            | "ac:placeholder"
            | "font"
            | "small"
            | "big"
            | "ins"
            | "mark"
            | "kbd"
            | "abbr"
            | "cite"
            | "q"
            | "var"
            | "samp"
            | "img"
    )
}
