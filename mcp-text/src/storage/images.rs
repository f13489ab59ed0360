//! Images (`ac:image`) both ways: a `mediaSingle` holding a `media` (and a `caption`) in block context, a
//! `mediaInline` in text, as Confluence Cloud and Data Center store them costing a model as little as the
//! node's own attrs allow.
//!
//! - `ac:layout` is the `mediaSingle`'s `layout`, and `ac:align` what that layout implies (Cloud writes
//!   both: `center`/`center`, `left`/`align-start`, ...); Data Center's lone `ac:align` is the layout it
//!   stands for with `storage.layout: false` (no `ac:layout` was written), Cloud's lone `ac:layout` the same
//!   with `storage.align: false`. An `ac:align` the layout does not imply is kept as it is.
//! - An attachment's `ri:version-at-save` is `storage.versionAtSave`, as a page link's is; any other
//!   resource identifier than the one the image's `id` or `url` implies is kept whole (`storage.ri`).
//! - Cloud's image of a width of its own (`ac:original-height`, `ac:original-width`, `ac:custom-width`,
//!   `ac:width`) is what Confluence's ADF makes of it: the file's size on the `media`, the width shown on
//!   the `mediaSingle` (`widthType: "pixel"`); Cloud's image at its file's size (`ac:original-height`,
//!   `ac:original-width` alone) the `media`'s `width` and `height`, as in Confluence's ADF. Any other
//!   image's `ac:width` and `ac:height` are the `media`'s `width` and `height` too, and where it has both,
//!   `storage.original: false` says they were not the file's size.
//! - A file's `media` has `collection: ""`, which the schema requires and storage has no form for.
//! - A caption's text is in one `<p>`, as Confluence writes it, unless it says `storage.p: false`.
//! - The writer writes the attributes in the order Confluence Cloud does (`ac:align`, `ac:layout`,
//!   `ac:original-height`, `ac:original-width`, `ac:custom-width`, `ac:alt`, `ac:width`, `ac:height`),
//!   then any other it kept, by name; an image whose attributes stood in another order (Cloud writes an
//!   image with an `ac:local-id` by name) says it (`storage.order`, found by running the writer's
//!   [`image_attrs`] on what the reader made).

use serde_json::{Map, Value};

use super::attrs::{
    attr_object, exact_int, in_order, order_said, storage, storage_attrs, storage_flag, storage_of,
    storage_said_no, take_attr, AttrList, ORDER,
};
use super::links::{attr_list, get, push_attr, value_text, Ri, VERSION, VERSION_AT_SAVE};
use super::xml_out::Out;
use super::STORAGE;
use crate::model::{Attrs, Node, NodeType};

/// An `ac:image` while its parts are read.
#[derive(Default, Clone)]
pub(super) struct Image {
    pub attrs: AttrList,
    pub ri: Option<Ri>,
    pub caption: Option<Vec<Node>>,
    pub inline: bool,
    pub extra: Vec<String>,
}

/// Attributes Cloud writes between the layout and the alt text, which the writer keeps in that place.
const CLOUD_SIZES: [&str; 3] = ["ac:original-height", "ac:original-width", "ac:custom-width"];

/// The `ac:align` Confluence Cloud writes beside an `ac:layout`.
fn align_for(layout: &str) -> Option<&'static str> {
    match layout {
        "center" | "wide" | "full-width" => Some("center"),
        "align-start" | "wrap-left" => Some("left"),
        "align-end" | "wrap-right" => Some("right"),
        _ => None,
    }
}

/// The layout a lone `ac:align` (Confluence Data Center's) stands for.
fn layout_for(align: &str) -> Option<&'static str> {
    match align {
        "center" => Some("center"),
        "left" => Some("align-start"),
        "right" => Some("align-end"),
        _ => None,
    }
}

/// Cloud's image of a width of its own (`ac:original-height`, `ac:original-width`, `ac:custom-width="true"`,
/// `ac:width`, no `ac:height`) as Confluence's ADF has it: the file's size is the `media`'s `width` and
/// `height`, the width shown the `mediaSingle`'s (`widthType: "pixel"`), returned. `None`, and nothing
/// changed, for any other image.
fn cloud_size(media: &mut Attrs, rest: &mut AttrList) -> Option<i64> {
    let int = |name: &str| get(rest, name).and_then(exact_int);
    let (Some(height), Some(width)) = (int(CLOUD_SIZES[0]), int(CLOUD_SIZES[1])) else {
        return None;
    };
    let shown = media.get("width").and_then(Value::as_i64)?;
    if get(rest, CLOUD_SIZES[2]) != Some("true") || media.contains_key("height") {
        return None;
    }
    for name in CLOUD_SIZES {
        take_attr(rest, name);
    }
    media.insert("width", width.into());
    media.insert("height", height.into());
    Some(shown)
}

/// Cloud's image at its file's size (`ac:original-height` and `ac:original-width`, no other size) as
/// Confluence's ADF has it: the file's size is the `media`'s `width` and `height`, which the writer writes
/// back as those two (see [`writes_file_size`]). An image whose `ac:width` and `ac:height` are both the
/// `media`'s says so instead, `storage.original: false`.
fn file_size(media: &mut Attrs, rest: &mut AttrList, said: &mut Map<String, Value>) {
    let has = |name: &str| media.contains_key(name);
    if has("width") || has("height") {
        if has("width") && has("height") && !has_original(rest) {
            said.insert(ORIGINAL.into(), false.into());
        }
        return;
    }
    let int = |name: &str| get(rest, name).and_then(exact_int);
    let (Some(height), Some(width)) = (int(CLOUD_SIZES[0]), int(CLOUD_SIZES[1])) else {
        return;
    };
    if get(rest, CLOUD_SIZES[2]).is_some() {
        return;
    }
    take_attr(rest, CLOUD_SIZES[0]);
    take_attr(rest, CLOUD_SIZES[1]);
    media.insert("width", width.into());
    media.insert("height", height.into());
}

/// The flag of an image whose `media` sizes were not written as the file's (see [`file_size`]).
const ORIGINAL: &str = "original";

/// Whether `list` keeps either of Cloud's file sizes as it was written.
fn has_original(list: &AttrList) -> bool {
    list.iter()
        .any(|(k, _)| k == CLOUD_SIZES[0] || k == CLOUD_SIZES[1])
}

/// Whether the writer writes a `mediaSingle`'s `media` `width` and `height` as Cloud's file size
/// (`ac:original-height`, `ac:original-width`), as Confluence writes the sizes of an image of no width of
/// its own: both are numbers, the image has no width of its own, no file size was kept as written, and the
/// `media` does not say `storage.original: false` (its sizes were `ac:width` and `ac:height`).
fn writes_file_size(node: &Node, media: Option<&Attrs>, kept: &AttrList) -> Option<[i64; 2]> {
    if node.kind != NodeType::MediaSingle
        || node.attr_str("widthType") == Some("pixel")
        || has_original(kept)
        || storage_said_no(media, ORIGINAL)
    {
        return None;
    }
    let int = |name: &str| media?.get(name)?.as_i64();
    Some([int("height")?, int("width")?])
}

/// The `ac:` sizes of a `mediaSingle` of a width of its own, in the order they are written (see
/// [`cloud_size`]): the file's height and width, `ac:custom-width`, then, after `ac:alt`, the width shown.
fn cloud_sizes(node: &Node, media: Option<&Attrs>) -> Option<[i64; 3]> {
    if node.kind != NodeType::MediaSingle || node.attr_str("widthType") != Some("pixel") {
        return None;
    }
    let int = |attrs: Option<&Attrs>, name: &str| attrs?.get(name)?.as_i64();
    Some([
        int(media, "height")?,
        int(media, "width")?,
        int(node.attrs.as_ref(), "width")?,
    ])
}

/// An `ac:image`: `mediaSingle` holding a `media` (and a `caption`) in block context, `mediaInline` in text.
pub(super) fn finish_image(i: Image) -> Node {
    let names: Vec<String> = i.attrs.iter().map(|(k, _)| k.clone()).collect();
    let mut node = image_node(i);
    // Cloud writes an image's attributes in one order, and by name on images with an id (`ac:local-id`).
    let written = image_attrs(&node);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    if let Some(order) = order_said(written.iter().map(|(k, _)| k.as_str()).collect(), &names) {
        storage_of(node.attrs.get_or_insert_with(Attrs::new)).insert(ORDER.into(), order);
    }
    node
}

fn image_node(i: Image) -> Node {
    let mut media = Attrs::new();
    let mut media_storage = Map::new();
    let lone = |ri: &Ri, name: &str| ri.attrs.len() == 1 && get(&ri.attrs, name).is_some();
    match &i.ri {
        Some(ri) if ri.name == "ri:attachment" => {
            media.insert("type", "file".into());
            media.insert("id", get(&ri.attrs, "ri:filename").unwrap_or("").into());
            let page = ri.inner.as_deref().map(page_of);
            match ri.attrs.as_slice() {
                _ if matches!(page, Some(None)) => {
                    media_storage.insert("ri".into(), ri.to_value());
                }
                [(f, _)] if f == "ri:filename" => {}
                [(f, _), (v, version)] if f == "ri:filename" && v == VERSION_AT_SAVE => {
                    media_storage.insert(VERSION.into(), version.clone().into());
                }
                _ => {
                    media_storage.insert("ri".into(), ri.to_value());
                }
            }
            if let (Some(Some(page)), false) = (page, media_storage.contains_key("ri")) {
                media_storage.insert(PAGE.into(), Value::Object(attr_object(page)));
            }
        }
        Some(ri) if ri.name == "ri:url" => {
            media.insert("type", "external".into());
            media.insert("url", get(&ri.attrs, "ri:value").unwrap_or("").into());
            if !lone(ri, "ri:value") || ri.inner.is_some() {
                media_storage.insert("ri".into(), ri.to_value());
            }
        }
        Some(ri) => {
            media.insert("type", "file".into());
            media_storage.insert("ri".into(), ri.to_value());
        }
        None => {
            media.insert("type", "file".into());
            media_storage.insert("ri".into(), Value::Null);
        }
    }
    if media.get("type").and_then(Value::as_str) == Some("file") {
        media.insert("collection", "".into());
    }
    let mut rest = AttrList::new();
    for (k, v) in i.attrs {
        match (k.as_str(), exact_int(&v)) {
            ("ac:alt", _) => {
                media.insert("alt", v.into());
            }
            ("ac:width", Some(n)) => {
                media.insert("width", n.into());
            }
            ("ac:height", Some(n)) => {
                media.insert("height", n.into());
            }
            _ => rest.push((k, v)),
        }
    }
    let block = !(i.inline && i.caption.is_none());
    let shown_width = if block {
        cloud_size(&mut media, &mut rest)
    } else {
        None
    };
    if block && shown_width.is_none() {
        file_size(&mut media, &mut rest, &mut media_storage);
    }
    // A block image's layout (see the module's doc); an inline one keeps both attributes as they are.
    let mut layout = None;
    let mut said = Map::new();
    if block {
        let is_layout = |v: &str| align_for(v).is_some();
        match (get(&rest, "ac:align"), get(&rest, "ac:layout")) {
            (align, Some(l)) if is_layout(l) => {
                let l = l.to_string();
                match align {
                    Some(a) if Some(a) == align_for(&l) => {
                        take_attr(&mut rest, "ac:align");
                    }
                    Some(_) => {}
                    None => {
                        said.insert("align".into(), false.into());
                    }
                }
                take_attr(&mut rest, "ac:layout");
                layout = Some(l);
            }
            (Some(a), None) if layout_for(a).is_some() => {
                layout = layout_for(a).map(str::to_string);
                take_attr(&mut rest, "ac:align");
                said.insert("layout".into(), false.into());
            }
            _ => {}
        }
    }
    let mut outer = storage_attrs(rest).unwrap_or_default();
    if !said.is_empty() {
        storage_of(&mut outer).extend(said);
    }
    if !i.extra.is_empty() {
        storage_of(&mut outer).insert("extra".into(), i.extra.into());
    }
    if i.inline && i.caption.is_none() {
        if !media_storage.is_empty() {
            storage_of(&mut media).extend(media_storage);
        }
        for (k, v) in outer {
            match (k.as_str(), v) {
                (STORAGE, Value::Object(s)) => storage_of(&mut media).extend(s),
                (_, v) => {
                    media.insert(k, v);
                }
            }
        }
        let mut node = Node::new(NodeType::MediaInline);
        node.attrs = Some(media);
        return node;
    }
    if !media_storage.is_empty() {
        media.insert(STORAGE, Value::Object(media_storage));
    }
    if let Some(layout) = layout {
        outer.insert("layout", layout.into());
    }
    if let Some(width) = shown_width {
        outer.insert("width", width.into());
        outer.insert("widthType", "pixel".into());
    }
    let mut media_node = Node::new(NodeType::Media);
    media_node.attrs = Some(media);
    let mut content = vec![media_node];
    if let Some(caption) = i.caption {
        content.push(caption_node(caption));
    }
    let mut node = Node::with_content(NodeType::MediaSingle, content);
    if !outer.is_empty() {
        node.attrs = Some(outer);
    }
    node
}
/// Where an attachment of another page names that page (`<ri:attachment ri:filename="…"><ri:page
/// ri:content-title="…" ri:space-key="…" /></ri:attachment>`, as Data Center's documentation spaces show
/// images attached to one page on others): `storage.page`, that element's attributes.
const PAGE: &str = "page";

/// The attributes of what an attachment holds when it is one `<ri:page … />` the writer writes back
/// byte for byte (see [`push_page`]); `None` for anything else, which stays verbatim (`storage.ri`).
fn page_of(inner: &str) -> Option<AttrList> {
    let mut rest = inner.strip_prefix("<ri:page")?.strip_suffix(" />")?;
    let mut list = AttrList::new();
    while !rest.is_empty() {
        let (name, after) = rest.strip_prefix(' ')?.split_once("=\"")?;
        let (value, after) = after.split_once('"')?;
        if value.contains(['&', '<', '>']) || name.is_empty() || name.contains([' ', '"']) {
            return None;
        }
        list.push((name.to_string(), value.to_string()));
        rest = after;
    }
    // Kept as JSON, the attributes come back by name: only an element written so is taken.
    list.sort_by(|a, b| a.0.cmp(&b.0));
    let mut again = String::new();
    push_page(&mut again, &list);
    (again == inner && !list.is_empty()).then_some(list)
}

/// Writes an attachment's `<ri:page … />` (see [`page_of`]).
fn push_page(out: &mut String, page: &AttrList) {
    out.push_str("<ri:page");
    for (k, v) in page {
        push_attr(out, k, v);
    }
    out.push_str(" />");
}

/// An `ac:image` that was a `<p>`'s only content, as Confluence Data Center stores a block image: the
/// block image (`mediaSingle`), saying `storage.p: true`, which the writer writes in a `<p>` again.
pub(super) fn in_paragraph(mut i: Image) -> Node {
    i.inline = false;
    let mut node = finish_image(i);
    let attrs = node.attrs.get_or_insert_with(Attrs::new);
    storage_of(attrs).insert(IN_P.into(), true.into());
    node
}

/// The flag of a block image written in a `<p>` (see [`in_paragraph`]).
const IN_P: &str = "p";

/// A `caption` of what an `ac:caption` holds. ADF's caption holds text, so one `<p>` around it all, as
/// Confluence writes a caption, is its content, and the writer writes the `<p>` again (`storage.p` holds
/// its attributes if it had any); text with no `<p>` around it says `storage.p: false`.
fn caption_node(content: Vec<Node>) -> Node {
    let one_p = match content.as_slice() {
        [p] if p.kind == NodeType::Paragraph
            && p.marks.is_none()
            && p.text.is_none()
            && p.extra.is_none()
            && !p.children().is_empty() =>
        {
            match p.attrs.as_ref() {
                None => Some(Map::new()),
                Some(a) => match storage(Some(a)) {
                    Some(s) if a.len() == 1 && s.len() == 1 => {
                        s.get("attrs").and_then(Value::as_object).cloned()
                    }
                    _ => None,
                },
            }
        }
        _ => None,
    };
    let Some(p_attrs) = one_p else {
        let bare_text = wrapped_in_p(&content);
        let mut caption = Node::with_content(NodeType::Caption, content);
        if bare_text {
            let mut attrs = Attrs::new();
            storage_of(&mut attrs).insert("p".into(), false.into());
            caption.attrs = Some(attrs);
        }
        return caption;
    };
    let Some(mut p) = content.into_iter().next() else {
        unreachable!("one paragraph")
    };
    let mut caption = Node::with_content(NodeType::Caption, p.content.take().unwrap_or_default());
    // Attributes, or content the writer would not put in a `<p>` by itself (an element of storage's own).
    if !p_attrs.is_empty() || !wrapped_in_p(caption.children()) {
        let mut attrs = Attrs::new();
        storage_of(&mut attrs).insert("p".into(), Value::Object(p_attrs));
        caption.attrs = Some(attrs);
    }
    caption
}

/// Whether the writer puts a caption's content in a `<p>` unless told otherwise: text, as Confluence writes
/// it (blocks, or nothing, stand as they are).
fn wrapped_in_p(content: &[Node]) -> bool {
    !content.is_empty() && content.iter().all(|n| n.kind.is_inline())
}

/// Writes `mediaSingle`, `mediaInline` or a lone `media` as an `ac:image`.
pub(super) fn write_image(w: &mut impl Out, node: &Node) {
    let media = media_of(node);
    let outer_st = storage(node.attrs.as_ref());
    let rest = match node.kind {
        NodeType::MediaSingle => node.children(),
        _ => &[],
    };
    let media_attrs = media.and_then(|m| m.attrs.as_ref());
    let media_st = storage(media_attrs);
    let in_p = node.kind == NodeType::MediaSingle && storage_flag(node.attrs.as_ref(), IN_P);
    let out = w.out();
    if in_p {
        out.push_str("<p>");
    }
    out.push_str("<ac:image");
    let list = in_order(
        image_attrs(node),
        outer_st.and_then(|s| s.get(ORDER)),
        |(k, _)| k,
    );
    for (k, v) in &list {
        push_attr(out, k, v);
    }
    let attr = |n: &str| media_attrs.and_then(|a| a.get(n));
    out.push('>');
    let kind = attr("type").and_then(Value::as_str).unwrap_or("file");
    let key = if kind == "external" {
        attr("url")
    } else {
        attr("id")
    }
    .map(value_text)
    .unwrap_or_default();
    let stored = media_st.and_then(|s| s.get("ri"));
    let version = media_st.and_then(|s| s.get(VERSION)).map(value_text);
    let page = media_st
        .and_then(|s| s.get(PAGE))
        .map(|p| attr_list(Some(p)))
        .filter(|p| !p.is_empty());
    match stored {
        Some(Value::Null) => {}
        Some(v) => match Ri::from_value(v) {
            Some(ri)
                if (ri.name == "ri:attachment"
                    && get(&ri.attrs, "ri:filename") == Some(key.as_str()))
                    || (ri.name == "ri:url"
                        && get(&ri.attrs, "ri:value") == Some(key.as_str()))
                    || (ri.name != "ri:attachment" && ri.name != "ri:url") =>
            {
                ri.write(out)
            }
            _ => default_ri(out, kind, &key, version.as_deref(), page.as_ref()),
        },
        None => default_ri(out, kind, &key, version.as_deref(), page.as_ref()),
    }
    for child in rest {
        match child.kind {
            NodeType::Media => {}
            NodeType::Caption => {
                let empty = Map::new();
                let p = match storage(child.attrs.as_ref()).and_then(|s| s.get("p")) {
                    Some(Value::Object(p)) => Some(p),
                    Some(Value::Bool(false)) => None,
                    _ => wrapped_in_p(child.children()).then_some(&empty),
                };
                w.out().push_str("<ac:caption>");
                if let Some(p) = p {
                    w.out().push_str("<p");
                    for (k, v) in attr_list(Some(&Value::Object(p.clone()))) {
                        push_attr(w.out(), &k, &v);
                    }
                    w.out().push('>');
                }
                w.children(child.children());
                if p.is_some() {
                    w.out().push_str("</p>");
                }
                w.out().push_str("</ac:caption>");
            }
            _ => w.children(std::slice::from_ref(child)),
        }
    }
    if let Some(extra) = outer_st
        .and_then(|s| s.get("extra"))
        .and_then(Value::as_array)
    {
        for raw in extra.iter().filter_map(Value::as_str) {
            w.out().push_str(raw);
        }
    }
    w.out().push_str("</ac:image>");
    if in_p {
        w.out().push_str("</p>");
    }
}

/// The node holding the image's own attrs: a `mediaSingle`'s `media`, else the node itself.
fn media_of(node: &Node) -> Option<&Node> {
    match node.kind {
        NodeType::MediaSingle => node.children().iter().find(|c| c.kind == NodeType::Media),
        _ => Some(node),
    }
}

/// The attributes the writer gives the `ac:image` of `node` (a `mediaSingle` or a `mediaInline`), in the
/// order Confluence Cloud writes them, before the order the node says (`storage.order`).
fn image_attrs(node: &Node) -> AttrList {
    let media = media_of(node);
    let outer_st = storage(node.attrs.as_ref());
    let layout = match node.kind {
        NodeType::MediaSingle => node.attr_str("layout"),
        _ => None,
    };
    let media_attrs = media.and_then(|m| m.attrs.as_ref());
    let mut list = AttrList::new();
    let mut kept = attr_list(outer_st.and_then(|s| s.get("attrs")));
    let align = take_attr(&mut kept, "ac:align").or_else(|| {
        let derived = layout
            .and_then(align_for)
            .filter(|_| !storage_said_no(node.attrs.as_ref(), "align"));
        derived.map(str::to_string)
    });
    let layout = take_attr(&mut kept, "ac:layout").or_else(|| {
        let written = layout.filter(|_| !storage_said_no(node.attrs.as_ref(), "layout"));
        written.map(str::to_string)
    });
    for (name, value) in [("ac:align", align), ("ac:layout", layout)] {
        if let Some(value) = value {
            list.push((name.to_string(), value));
        }
    }
    let sizes = cloud_sizes(node, media_attrs).filter(|_| {
        let kept_sizes = |(k, _): &(String, String)| CLOUD_SIZES.contains(&k.as_str());
        !kept.iter().any(kept_sizes)
    });
    let file = match sizes {
        Some(_) => None,
        None => writes_file_size(node, media_attrs, &kept),
    };
    if let Some([height, width, _]) = sizes {
        list.push((CLOUD_SIZES[0].into(), height.to_string()));
        list.push((CLOUD_SIZES[1].into(), width.to_string()));
        list.push((CLOUD_SIZES[2].into(), "true".into()));
    }
    if let Some([height, width]) = file {
        list.push((CLOUD_SIZES[0].into(), height.to_string()));
        list.push((CLOUD_SIZES[1].into(), width.to_string()));
    }
    for name in CLOUD_SIZES {
        if let Some(value) = take_attr(&mut kept, name) {
            list.push((name.to_string(), value));
        }
    }
    let attr = |n: &str| media_attrs.and_then(|a| a.get(n));
    if let Some(alt) = attr("alt") {
        list.push(("ac:alt".into(), value_text(alt)));
    }
    match sizes {
        Some([_, _, shown]) => list.push(("ac:width".into(), shown.to_string())),
        None if file.is_some() => {}
        None => {
            if let Some(width) = attr("width").filter(|v| v.is_i64()) {
                list.push(("ac:width".into(), width.to_string()));
            }
            if let Some(height) = attr("height").filter(|v| v.is_i64()) {
                list.push(("ac:height".into(), height.to_string()));
            }
        }
    }
    list.extend(kept);
    list
}

/// The resource identifier an image's `id` or `url` implies, with the attachment's version and the page
/// it is attached to if they were kept.
fn default_ri(
    out: &mut String,
    kind: &str,
    key: &str,
    version: Option<&str>,
    page: Option<&AttrList>,
) {
    if kind == "external" {
        out.push_str("<ri:url");
        push_attr(out, "ri:value", key);
        out.push_str(" />");
        return;
    }
    out.push_str("<ri:attachment");
    push_attr(out, "ri:filename", key);
    if let Some(version) = version {
        push_attr(out, VERSION_AT_SAVE, version);
    }
    match page {
        Some(page) => {
            out.push('>');
            push_page(out, page);
            out.push_str("</ri:attachment>");
        }
        None => out.push_str(" />"),
    }
}
