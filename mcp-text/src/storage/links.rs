//! Links, mentions, tasks, emoticons and dates: the `ac:`/`ri:` elements that are not macros or images
//! (`images.rs`), both ways. A link to a page (`ac:link` + `ri:page`) is a link mark whose `href` a model
//! can read (`page:SPACE:Title`) and whose `storage` attr keeps the resource identifier the writer
//! restores; an `ac:link` to a user with no body is a `mention`.

use serde_json::{Map, Value};

use super::attrs::{
    attr_object, in_order, order_said, storage, storage_of, take_attr, AttrList, ORDER,
};
use super::entities;
use super::xml_out::Out;
use super::STORAGE;
use crate::model::{Attrs, Mark, MarkType, Node, NodeType};

/// A task (`ac:task`) while its parts are read: id, uuid, status and body, and any other element it held.
#[derive(Default)]
pub(super) struct Task {
    pub id: Option<String>,
    pub uuid: Option<String>,
    pub status: Option<String>,
    pub body: Option<Vec<Node>>,
    pub extra: Vec<String>,
}

/// A resource identifier (`ri:page`, `ri:user`, `ri:attachment`, `ri:url`, ...).
#[derive(Debug, Clone)]
pub(super) struct Ri {
    pub name: String,
    pub attrs: AttrList,
    /// What the element holds when it is not empty (an attachment's `ri:page`), verbatim.
    pub inner: Option<String>,
}

#[derive(Default)]
pub(super) enum LinkBody {
    #[default]
    None,
    Plain(String),
    Rich(Vec<Node>),
}

#[derive(Default)]
pub(super) struct Link {
    pub attrs: AttrList,
    pub ri: Option<Ri>,
    /// The `ri` came after the body (`<ac:link><ac:link-body>…</ac:link-body><ri:page … /></ac:link>`).
    pub ri_last: bool,
    pub body: LinkBody,
    pub extra: Vec<String>,
}

/// A page link's `ri:version-at-save` (Confluence Server and Data Center write it on every one), kept
/// under `storage.versionAtSave`: all its mark keeps beside what the `href` says. A link a model retargets
/// keeps it: dropping it would need the old target, which the Markdown does not hold.
pub(super) const VERSION_AT_SAVE: &str = "ri:version-at-save";
pub(super) const VERSION: &str = "versionAtSave";

/// The `href` schemes of a user link and the `ri:user` attribute each stands for, in the order a link's
/// text prefers them.
const USER_IDS: [(&str, &str); 3] = [
    ("user", "ri:account-id"),
    ("userkey", "ri:userkey"),
    ("username", "ri:username"),
];

pub(super) fn get<'a>(list: &'a AttrList, name: &str) -> Option<&'a str> {
    list.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

impl Ri {
    pub(super) fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), self.name.clone().into());
        m.insert(
            "attrs".into(),
            Value::Object(attr_object(self.attrs.clone())),
        );
        if let Some(inner) = &self.inner {
            m.insert("inner".into(), inner.clone().into());
        }
        Value::Object(m)
    }

    pub(super) fn from_value(v: &Value) -> Option<Ri> {
        let name = v.get("name")?.as_str()?.to_string();
        let attrs = v
            .get("attrs")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), value_text(v))).collect())
            .unwrap_or_default();
        let inner = v.get("inner").and_then(Value::as_str).map(str::to_string);
        Some(Ri { name, attrs, inner })
    }

    pub(super) fn write(&self, out: &mut String) {
        out.push('<');
        out.push_str(&self.name);
        for (k, v) in &self.attrs {
            push_attr(out, k, v);
        }
        match &self.inner {
            Some(inner) if !inner.is_empty() => {
                out.push('>');
                out.push_str(inner);
                out.push_str("</");
                out.push_str(&self.name);
                out.push('>');
            }
            _ => out.push_str(" />"),
        }
    }

    /// What a model reads as the link's target.
    fn href(&self) -> String {
        let a = |n| get(&self.attrs, n).unwrap_or("");
        match self.name.as_str() {
            "ri:page" | "ri:blog-post" => {
                let scheme = if self.name == "ri:page" {
                    "page:"
                } else {
                    "blogpost:"
                };
                match get(&self.attrs, "ri:space-key") {
                    Some(space) => format!("{scheme}{space}:{}", a("ri:content-title")),
                    None => format!("{scheme}{}", a("ri:content-title")),
                }
            }
            "ri:attachment" => format!("attachment:{}", a("ri:filename")),
            "ri:user" => {
                let (scheme, id) = self.user();
                format!("{scheme}:{id}")
            }
            "ri:space" => format!("space:{}", a("ri:space-key")),
            "ri:url" => a("ri:value").to_string(),
            other => other.to_string(),
        }
    }

    /// A user's scheme and id: Cloud's account id (`user:`), else Confluence Server's and Data Center's
    /// user key (`userkey:`) or, older, user name (`username:`).
    fn user(&self) -> (&'static str, &str) {
        USER_IDS
            .iter()
            .find_map(|(scheme, attr)| get(&self.attrs, attr).map(|id| (*scheme, id)))
            .unwrap_or(("user", ""))
    }

    /// The text Confluence shows for a link without a body.
    fn title(&self) -> String {
        let a = |n| get(&self.attrs, n).unwrap_or("").to_string();
        match self.name.as_str() {
            "ri:page" | "ri:blog-post" => a("ri:content-title"),
            "ri:attachment" => a("ri:filename"),
            "ri:user" => self.user().1.to_string(),
            "ri:space" => a("ri:space-key"),
            "ri:url" => a("ri:value"),
            _ => String::new(),
        }
    }
}

pub(super) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn push_attr(out: &mut String, k: &str, v: &str) {
    out.push(' ');
    out.push_str(k);
    out.push_str("=\"");
    entities::push_attr(out, v);
    out.push('"');
}

fn link_href(ri: Option<&Ri>, attrs: &AttrList) -> String {
    let mut href = ri.map(Ri::href).unwrap_or_default();
    if let Some(anchor) = get(attrs, "ac:anchor") {
        href.push('#');
        href.push_str(anchor);
    }
    href
}

fn link_title(ri: Option<&Ri>, attrs: &AttrList) -> String {
    match ri {
        Some(ri) => ri.title(),
        None => get(attrs, "ac:anchor").unwrap_or("").to_string(),
    }
}

/// The `ac:link` an `href` stands for by itself: `page:SPACE:Title` (`page:Title`), `blogpost:…`,
/// `attachment:file`, `user:ID`, `space:KEY`, each with an optional `#anchor` (`ac:anchor`). Another
/// `href` (a URL, an anchor alone) implies no `ac:link`: it is an `<a>` unless the mark keeps its `ri`.
pub(super) fn implied(href: &str) -> Option<(Ri, AttrList)> {
    let (target, anchor) = match href.split_once('#') {
        Some((t, a)) => (t, Some(a)),
        None => (href, None),
    };
    let (scheme, rest) = target.split_once(':')?;
    let attr = |k: &str, v: &str| (k.to_string(), v.to_string());
    let (name, attrs) = match scheme {
        "page" | "blogpost" => {
            let name = if scheme == "page" {
                "ri:page"
            } else {
                "ri:blog-post"
            };
            match rest.split_once(':') {
                Some((space, title)) => (
                    name,
                    vec![attr("ri:content-title", title), attr("ri:space-key", space)],
                ),
                None => (name, vec![attr("ri:content-title", rest)]),
            }
        }
        "attachment" => ("ri:attachment", vec![attr("ri:filename", rest)]),
        "user" | "userkey" | "username" => {
            let (_, id) = USER_IDS.iter().find(|(s, _)| *s == scheme)?;
            ("ri:user", vec![attr(id, rest)])
        }
        "space" => ("ri:space", vec![attr("ri:space-key", rest)]),
        _ => return None,
    };
    let ri = Ri {
        name: name.to_string(),
        attrs,
        inner: None,
    };
    let link = anchor.map(|a| attr("ac:anchor", a)).into_iter().collect();
    Some((ri, link))
}

/// Two attribute lists that say the same (order is insignificant in XML).
fn same_attrs(a: &AttrList, b: &AttrList) -> bool {
    let sorted = |l: &AttrList| {
        let mut l = l.clone();
        l.sort();
        l
    };
    a.len() == b.len() && sorted(a) == sorted(b)
}

fn same_ri(a: &Ri, b: &Ri) -> bool {
    a.name == b.name && a.inner == b.inner && same_attrs(&a.attrs, &b.attrs)
}

/// The body the writer gives a link when the mark does not say (`storage.body`): none while the text
/// is the title Confluence shows, plain text while it is one text node with no mark of its own, else
/// rich. `first` is the first node under the link mark, `inner` how many of its marks are inside it.
fn inferred_body(first: &Node, inner: usize, title: &str) -> &'static str {
    if first.kind != NodeType::Text || inner > 0 {
        "rich"
    } else if first.text.as_deref().unwrap_or("") == title {
        "none"
    } else {
        "plain"
    }
}

/// An `ac:link`: a mention, or its body's nodes under a link mark. `prev` is the node before it: a link
/// mark equal to one it carries would join the two links into one, so the body is then said.
pub(super) fn finish_link(l: Link, prev: Option<&Node>) -> Vec<Node> {
    if let (Some(ri), LinkBody::None, true) = (&l.ri, &l.body, l.extra.is_empty()) {
        if let (Some(id), "ri:user", None) =
            (get(&ri.attrs, "ri:account-id"), ri.name.as_str(), &ri.inner)
        {
            let mut node = Node::new(NodeType::Mention);
            node.set_attr("id", id);
            let rest: AttrList = ri
                .attrs
                .iter()
                .filter(|(k, _)| k != "ri:account-id")
                .cloned()
                .collect();
            let attrs = node.attrs.as_mut().expect("set");
            if !l.attrs.is_empty() {
                storage_of(attrs)
                    .insert("attrs".into(), Value::Object(attr_object(l.attrs.clone())));
            }
            if !rest.is_empty() {
                storage_of(attrs).insert("ri".into(), Value::Object(attr_object(rest)));
            }
            return vec![node];
        }
    }
    let href = link_href(l.ri.as_ref(), &l.attrs);
    let title = link_title(l.ri.as_ref(), &l.attrs);
    let (body, nodes) = match l.body {
        LinkBody::None => ("none", vec![Node::text(title.clone())]),
        LinkBody::Plain(t) => ("plain", vec![Node::text(t)]),
        LinkBody::Rich(nodes) if nodes.is_empty() => ("rich", vec![Node::text("")]),
        LinkBody::Rich(nodes) => ("rich", nodes),
    };
    // Only what the `href` and the body do not already say (see `implied`, `inferred_body`).
    let mut storage = Map::new();
    let imp = implied(&href);
    let ri_implied = match (&l.ri, &imp) {
        (Some(ri), Some((imp_ri, _))) => same_ri(ri, imp_ri),
        _ => false,
    };
    // Server's and Data Center's page links add `ri:version-at-save` to what the `href` says: that alone.
    let version = match (&l.ri, &imp) {
        (Some(ri), Some((imp_ri, _))) if !ri_implied => {
            let (version, rest): (AttrList, AttrList) = ri
                .attrs
                .iter()
                .cloned()
                .partition(|(k, _)| k == VERSION_AT_SAVE);
            let rest = Ri {
                attrs: rest,
                ..ri.clone()
            };
            match version.as_slice() {
                [(_, v)] if same_ri(&rest, imp_ri) => Some(v.clone()),
                _ => None,
            }
        }
        _ => None,
    };
    // The attributes' order where the writer would give another (Confluence Cloud writes a page's space
    // key before its title, Data Center after it): the fewest of their first names that put them in order.
    let order = l.ri.as_ref().and_then(|ri| {
        let names: Vec<&str> = ri.attrs.iter().map(|(k, _)| k.as_str()).collect();
        // The names in the order the writer gives them: the `href`'s, then the version; a kept `ri`'s
        // by name (a JSON object's).
        let written: Vec<&str> = match &imp {
            Some((imp_ri, _)) if ri_implied || version.is_some() => imp_ri
                .attrs
                .iter()
                .map(|(k, _)| k.as_str())
                .chain(version.is_some().then_some(VERSION_AT_SAVE))
                .collect(),
            _ => {
                let mut sorted = names.clone();
                sorted.sort_unstable();
                sorted
            }
        };
        order_said(written, &names)
    });
    let link_implied = match &imp {
        Some((_, imp_link)) if ri_implied || version.is_some() => same_attrs(&l.attrs, imp_link),
        _ => l.ri.is_some() && l.attrs.is_empty(),
    };
    if !link_implied {
        storage.insert("link".into(), Value::Object(attr_object(l.attrs.clone())));
    }
    match (&l.ri, version) {
        (_, Some(version)) => {
            storage.insert(VERSION.into(), version.into());
        }
        (Some(ri), None) if !ri_implied => {
            storage.insert("ri".into(), ri.to_value());
        }
        _ => {}
    }
    if let Some(order) = order {
        storage.insert(ORDER.into(), order);
    }
    if l.ri_last {
        storage.insert(RI_LAST.into(), true.into());
    }
    if !l.extra.is_empty() {
        storage.insert("extra".into(), l.extra.clone().into());
    }
    if nodes
        .first()
        .map(|n| inferred_body(n, n.mark_list().len(), &title))
        != Some(body)
    {
        storage.insert("body".into(), body.into());
    }
    let make = |storage: &Map<String, Value>| {
        let mut attrs = Attrs::new();
        attrs.insert("href", href.clone().into());
        if !storage.is_empty() {
            attrs.insert(STORAGE, Value::Object(storage.clone()));
        }
        let mut mark = Mark::new(MarkType::Link);
        mark.attrs = Some(attrs);
        mark
    };
    let mut mark = make(&storage);
    if prev.is_some_and(|p| p.mark_list().contains(&mark)) {
        storage.insert("body".into(), body.into());
        mark = make(&storage);
    }
    nodes
        .into_iter()
        .map(|mut n| {
            let mut marks = vec![mark.clone()];
            marks.extend(n.marks.take().unwrap_or_default());
            n.marks = Some(marks);
            n
        })
        .collect()
}

/// `storage.riLast`: the link's `ri` follows its body.
const RI_LAST: &str = "riLast";

/// An `ac:link` the writer opened: how the text under it is written, and its `ri` when that follows the
/// body (written at its close).
pub(super) struct OpenLink {
    pub text: LinkText,
    ri_last: Option<Ri>,
}

/// How the text under an open `ac:link` mark is written.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum LinkText {
    Escaped,
    Cdata,
    /// No body: text equal to this (what Confluence shows) is not written.
    Hidden(String),
}

pub(super) fn attr_list(v: Option<&Value>) -> AttrList {
    v.and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), value_text(v))).collect())
        .unwrap_or_default()
}

/// Opens an `ac:link` for a link mark read from one, or one whose `href` names a page, an attachment, a
/// user or a space (`implied`). `None` for any other `href`, or one changed from a kept `ri` to something
/// no `ac:link` can say: then the caller writes an `<a>`.
pub(super) fn open_ac_link(
    out: &mut String,
    mark: &Mark,
    first: &Node,
    at: usize,
) -> Option<OpenLink> {
    let st = storage(mark.attrs.as_ref());
    if st.and_then(|s| s.get("tag")).is_some() {
        // An `<a>` (the reader says so when its `href` would imply an `ac:link`).
        return None;
    }
    let href = mark.attr_str("href")?;
    let imp = implied(href);
    let kept_ri = st.and_then(|s| s.get("ri"));
    let kept_link = st.and_then(|s| s.get("link"));
    let (link_attrs, mut ri) = match (kept_ri, kept_link, &imp) {
        (Some(ri), link, _) => (attr_list(link), Ri::from_value(ri)),
        (None, Some(link), imp) => (attr_list(Some(link)), imp.as_ref().map(|(r, _)| r.clone())),
        (None, None, Some((ri, link))) => (link.clone(), Some(ri.clone())),
        (None, None, None) => return None,
    };
    let version = st.and_then(|s| s.get(VERSION)).map(value_text);
    if let (None, Some(ri), Some(version)) = (kept_ri, ri.as_mut(), version) {
        ri.attrs.push((VERSION_AT_SAVE.into(), version));
    }
    let (link_attrs, ri) = if link_href(ri.as_ref(), &link_attrs) == href {
        (link_attrs, ri)
    } else {
        // The `href` was edited: what it says now, if it says an `ac:link`.
        let (ri, link) = imp?;
        (link, Some(ri))
    };
    let ri = ri.map(|ri| Ri {
        attrs: in_order(ri.attrs, st.and_then(|s| s.get(ORDER)), |(k, _)| k),
        ..ri
    });
    out.push_str("<ac:link");
    for (k, v) in &link_attrs {
        push_attr(out, k, v);
    }
    out.push('>');
    let ri_last = st
        .and_then(|s| s.get(RI_LAST))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let (Some(ri), false) = (&ri, ri_last) {
        ri.write(out);
    }
    let title = link_title(ri.as_ref(), &link_attrs);
    let body = st
        .and_then(|s| s.get("body"))
        .and_then(Value::as_str)
        .unwrap_or_else(|| {
            inferred_body(
                first,
                first.mark_list().len().saturating_sub(at + 1),
                &title,
            )
        });
    let hidden = first.kind == NodeType::Text && first.text.as_deref() == Some(title.as_str());
    let text = match body {
        "none" if hidden => LinkText::Hidden(title),
        "none" | "plain" => {
            out.push_str("<ac:plain-text-link-body>");
            LinkText::Cdata
        }
        _ => {
            out.push_str("<ac:link-body>");
            LinkText::Escaped
        }
    };
    Some(OpenLink {
        text,
        ri_last: ri.filter(|_| ri_last),
    })
}

pub(super) fn close_ac_link(out: &mut String, mark: &Mark, how: &OpenLink) {
    match how.text {
        LinkText::Hidden(_) => {}
        LinkText::Cdata => out.push_str("</ac:plain-text-link-body>"),
        LinkText::Escaped => out.push_str("</ac:link-body>"),
    }
    if let Some(ri) = &how.ri_last {
        ri.write(out);
    }
    if let Some(extra) = storage(mark.attrs.as_ref())
        .and_then(|s| s.get("extra"))
        .and_then(Value::as_array)
    {
        for raw in extra.iter().filter_map(Value::as_str) {
            out.push_str(raw);
        }
    }
    out.push_str("</ac:link>");
}

pub(super) fn write_mention(out: &mut String, node: &Node) {
    let st = storage(node.attrs.as_ref());
    out.push_str("<ac:link");
    for (k, v) in attr_list(st.and_then(|s| s.get("attrs"))) {
        push_attr(out, &k, &v);
    }
    out.push_str("><ri:user");
    push_attr(out, "ri:account-id", node.attr_str("id").unwrap_or(""));
    for (k, v) in attr_list(st.and_then(|s| s.get("ri"))) {
        push_attr(out, &k, &v);
    }
    out.push_str(" /></ac:link>");
}

// ---- tasks ----

pub(super) fn finish_task(t: Task) -> Node {
    // A body of paragraphs is ADF's task that holds blocks; any other is a task's text (its paragraphs,
    // among text, are moved out of it when ADF is written).
    let blocks = t
        .body
        .as_ref()
        .is_some_and(|body| !body.is_empty() && body.iter().all(|b| b.kind == NodeType::Paragraph));
    let mut node = Node::new(if blocks {
        NodeType::BlockTaskItem
    } else {
        NodeType::TaskItem
    });
    let mut attrs = Attrs::new();
    if let Some(id) = t.id {
        attrs.insert("localId", id.into());
    }
    match t.status.as_deref() {
        Some("complete") => {
            attrs.insert("state", "DONE".into());
        }
        Some("incomplete") => {
            attrs.insert("state", "TODO".into());
        }
        Some(other) => {
            storage_of(&mut attrs).insert("status".into(), other.into());
        }
        None => {}
    }
    if let Some(uuid) = t.uuid {
        storage_of(&mut attrs).insert("uuid".into(), uuid.into());
    }
    if !t.extra.is_empty() {
        storage_of(&mut attrs).insert("extra".into(), t.extra.into());
    }
    node.attrs = (!attrs.is_empty()).then_some(attrs);
    node.content = t.body;
    node
}

pub(super) fn write_task(w: &mut impl Out, node: &Node) {
    let st = storage(node.attrs.as_ref());
    w.out().push_str("<ac:task>");
    let text_elem = |out: &mut String, tag: &str, text: &str| {
        out.push('<');
        out.push_str(tag);
        if text.is_empty() {
            out.push_str(" />");
        } else {
            out.push('>');
            entities::push_text(out, text);
            out.push_str("</");
            out.push_str(tag);
            out.push('>');
        }
    };
    if let Some(id) = node.attr("localId") {
        text_elem(w.out(), "ac:task-id", &value_text(id));
    }
    if let Some(uuid) = st.and_then(|s| s.get("uuid")) {
        text_elem(w.out(), "ac:task-uuid", &value_text(uuid));
    }
    match (node.attr_str("state"), st.and_then(|s| s.get("status"))) {
        (Some("DONE"), _) => text_elem(w.out(), "ac:task-status", "complete"),
        (Some(_), _) => text_elem(w.out(), "ac:task-status", "incomplete"),
        (None, Some(status)) => text_elem(w.out(), "ac:task-status", &value_text(status)),
        (None, None) => {}
    }
    if let Some(body) = &node.content {
        if body.is_empty() {
            w.out().push_str("<ac:task-body />");
        } else {
            w.out().push_str("<ac:task-body>");
            w.children(body);
            w.out().push_str("</ac:task-body>");
        }
    }
    if let Some(extra) = st.and_then(|s| s.get("extra")).and_then(Value::as_array) {
        for raw in extra.iter().filter_map(Value::as_str) {
            w.out().push_str(raw);
        }
    }
    w.out().push_str("</ac:task>");
}

// ---- emoticons, dates, colours ----

pub(super) fn emoji(list: AttrList) -> Node {
    let mut attrs = Attrs::new();
    let mut rest = AttrList::new();
    let has_shortname = get(&list, "ac:emoji-shortname").is_some();
    for (k, v) in list {
        match k.as_str() {
            "ac:emoji-shortname" => {
                attrs.insert("shortName", v.into());
            }
            "ac:emoji-id" => {
                attrs.insert("id", v.into());
            }
            "ac:emoji-fallback" => {
                attrs.insert("text", v.into());
            }
            "ac:name"
                if !has_shortname && !v.starts_with(':') && !v.ends_with(':') && !v.is_empty() =>
            {
                attrs.insert("shortName", format!(":{v}:").into());
            }
            _ => rest.push((k, v)),
        }
    }
    if has_shortname {
        storage_of(&mut attrs).insert("shortnameAttr".into(), true.into());
    }
    if !rest.is_empty() {
        storage_of(&mut attrs).insert("attrs".into(), Value::Object(attr_object(rest)));
    }
    let mut node = Node::new(NodeType::Emoji);
    node.attrs = (!attrs.is_empty()).then_some(attrs);
    node
}

pub(super) fn write_emoji(out: &mut String, node: &Node) {
    let st = storage(node.attrs.as_ref());
    let mut rest = attr_list(st.and_then(|s| s.get("attrs")));
    let short = node.attr_str("shortName");
    let attr_form = st.and_then(|s| s.get("shortnameAttr")).is_some();
    out.push_str("<ac:emoticon");
    if let Some(name) = take_attr(&mut rest, "ac:name") {
        push_attr(out, "ac:name", &name);
    } else if let (Some(short), false) = (short, attr_form) {
        push_attr(
            out,
            "ac:name",
            short.trim_start_matches(':').trim_end_matches(':'),
        );
    }
    if let (Some(short), true) = (short, attr_form) {
        push_attr(out, "ac:emoji-shortname", short);
    }
    if let Some(id) = node.attr("id") {
        push_attr(out, "ac:emoji-id", &value_text(id));
    }
    if let Some(text) = node.attr("text") {
        push_attr(out, "ac:emoji-fallback", &value_text(text));
    }
    for (k, v) in rest {
        push_attr(out, &k, &v);
    }
    out.push_str(" />");
}

/// `<time datetime="YYYY-MM-DD" />` is a `date` (ADF's timestamp: milliseconds since 1970, UTC midnight).
pub(super) fn date(list: &AttrList) -> Option<Node> {
    let when = get(list, "datetime")?;
    let days = civil_days(when)?;
    let mut node = Node::new(NodeType::Date);
    node.set_attr("timestamp", (days * 86_400_000).to_string());
    let mut rest: AttrList = list
        .iter()
        .filter(|(k, _)| k != "datetime")
        .cloned()
        .collect();
    // Confluence Cloud's `<time datetime="…" local-id="…" />`: the id is ADF's `localId` (written back
    // right after `datetime`; elsewhere it stays as it came).
    if matches!(list.as_slice(), [(d, _), (l, _), ..] if d == "datetime" && l == "local-id") {
        let (_, id) = rest.remove(0);
        node.set_attr("localId", id);
    }
    if !rest.is_empty() {
        storage_of(node.attrs.as_mut().expect("set"))
            .insert("attrs".into(), Value::Object(attr_object(rest)));
    }
    Some(node)
}

pub(super) fn write_date(out: &mut String, node: &Node) {
    let ms = node.attr("timestamp").and_then(|v| {
        v.as_str()
            .and_then(|s| s.parse::<i64>().ok())
            .or(v.as_i64())
    });
    out.push_str("<time");
    if let Some(ms) = ms {
        push_attr(out, "datetime", &crate::date::format_day(ms));
        if let Some(id) = node.attr_str("localId") {
            push_attr(out, "local-id", id);
        }
    }
    for (k, v) in attr_list(storage(node.attrs.as_ref()).and_then(|s| s.get("attrs"))) {
        push_attr(out, &k, &v);
    }
    out.push_str(" />");
}

/// Days since 1970-01-01 of an exact `YYYY-MM-DD` that exists.
fn civil_days(s: &str) -> Option<i64> {
    crate::date::parse_day(s).map(|ms| ms.div_euclid(86_400_000))
}

/// A CSS colour as ADF's `#rrggbb` (hex forms and `rgb(r, g, b)`).
pub(super) fn css_color_hex(value: &str) -> Option<String> {
    if let Some(hex) = value.strip_prefix('#') {
        let full: String = match hex.len() {
            3 => hex.chars().flat_map(|c| [c, c]).collect(),
            6 => hex.to_string(),
            _ => return None,
        };
        return full
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
            .then(|| format!("#{}", full.to_ascii_lowercase()));
    }
    let inner = value.strip_prefix("rgb(")?.strip_suffix(')')?;
    let parts: Vec<u8> = inner
        .split(',')
        .map(|p| p.trim().parse::<u8>().ok())
        .collect::<Option<_>>()?;
    let [r, g, b] = parts.as_slice() else {
        return None;
    };
    Some(format!("#{r:02x}{g:02x}{b:02x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_days("1970-01-01"), Some(0));
        assert_eq!(
            civil_days("2024-01-15").map(|d| d * 86_400_000),
            Some(1_705_276_800_000)
        );
        assert_eq!(civil_days("2023-02-30"), None);
        assert_eq!(crate::date::format_day(19_737 * 86_400_000), "2024-01-15");
    }

    #[test]
    fn colours() {
        assert_eq!(
            css_color_hex("rgb(255, 86, 48)").as_deref(),
            Some("#ff5630")
        );
        assert_eq!(css_color_hex("#ABC").as_deref(), Some("#aabbcc"));
        assert_eq!(css_color_hex("red"), None);
    }
}
