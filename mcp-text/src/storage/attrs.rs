//! An element's XML attributes as the model keeps them: the list quick-xml gives, and the `storage` object
//! under which whatever ADF cannot say of an element travels (the writer restores it from there).

use serde_json::{Map, Value};

use super::STORAGE;
use crate::model::{Attrs, Node, NodeType};

pub(super) type AttrList = Vec<(String, String)>;

/// The attrs of an element the model has no node for (a `storage:element`): its name, its attributes
/// (`attributes`, written back by name) and, where they stood in another order, that order (`order`).
pub(super) fn element_attrs(name: &str, list: AttrList) -> Attrs {
    let mut a = Attrs::new();
    a.insert("name", name.into());
    if !list.is_empty() {
        let names: Vec<&str> = list.iter().map(|(k, _)| k.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        if let Some(order) = order_said(sorted, &names) {
            a.insert(ORDER, order);
        }
        a.insert("attributes", Value::Object(attr_object(list)));
    }
    a
}

/// `storage.order`: the order of an element's attributes where the writer's is another ([`order_said`]).
pub(super) const ORDER: &str = "order";

/// `list` in the order `order` says ([`order_said`]): `"name"`, by name; an array, its names first, in its
/// order, and the rest after them in theirs (a stable sort: a target or image a model changed keeps the
/// order of the names it does not share); anything else, as it is.
pub(super) fn in_order<T>(
    mut list: Vec<T>,
    order: Option<&Value>,
    name: impl Fn(&T) -> &str,
) -> Vec<T> {
    match order {
        Some(Value::String(by)) if by == "name" => list.sort_by(|a, b| name(a).cmp(name(b))),
        Some(Value::Array(first)) => list.sort_by_key(|k| {
            first
                .iter()
                .position(|f| f.as_str() == Some(name(k)))
                .unwrap_or(usize::MAX)
        }),
        _ => {}
    }
    list
}

/// `storage.order` for an element whose attributes `names` stand in another order than the writer's
/// (`written`, the same names): `"name"` where they are in name order (as Confluence Cloud writes an image
/// with an id) and that is shorter, else the fewest of their first names that give it back.
pub(super) fn order_said(written: Vec<&str>, names: &[&str]) -> Option<Value> {
    if written == names {
        return None;
    }
    let first = (1..names.len())
        .map(|n| Value::from(&names[..n]))
        .find(|first| in_order(written.clone(), Some(first), |k| k) == names)?;
    let by_name = names.is_sorted() && first.as_array().is_some_and(|f| f.len() > 1);
    Some(if by_name { "name".into() } else { first })
}

/// Takes the attribute `name` out of `list`, with its value.
pub(super) fn take_attr(list: &mut AttrList, name: &str) -> Option<String> {
    let at = list.iter().position(|(k, _)| k == name)?;
    Some(list.remove(at).1)
}

/// The `storage` object of `attrs`, created if absent.
pub(super) fn storage_of(attrs: &mut Attrs) -> &mut Map<String, Value> {
    let entry = attrs
        .entry(STORAGE)
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    entry.as_object_mut().expect("made an object")
}

pub(super) fn attr_object(list: AttrList) -> Map<String, Value> {
    list.into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect()
}

/// All of an element's attributes kept under `storage.attrs` (none: no attrs at all).
pub(super) fn storage_attrs(list: AttrList) -> Option<Attrs> {
    if list.is_empty() {
        return None;
    }
    let mut attrs = Attrs::new();
    storage_of(&mut attrs).insert("attrs".into(), Value::Object(attr_object(list)));
    Some(attrs)
}

pub(super) fn put_attrs(node: &mut Node, attrs: Option<Attrs>) {
    if let Some(attrs) = attrs {
        node.attrs.get_or_insert_with(Attrs::new).extend(attrs);
    }
}

/// An integer written exactly as Rust writes it (so that writing it back gives the same text).
pub(super) fn exact_int(s: &str) -> Option<i64> {
    s.parse::<i64>().ok().filter(|n| n.to_string() == s)
}

/// `attrs` with `name` set to `value` unless it has it already.
pub(super) fn with_default(attrs: Option<Attrs>, name: &str, value: impl Into<Value>) -> Attrs {
    let mut attrs = attrs.unwrap_or_default();
    if !attrs.contains_key(name) {
        attrs.insert(name, value.into());
    }
    attrs
}

/// The `storage` object of `attrs`, if they have one.
pub(super) fn storage(attrs: Option<&Attrs>) -> Option<&Map<String, Value>> {
    attrs?.get(STORAGE)?.as_object()
}

/// Whether `attrs` say `storage.NAME: false`: the element lacked what the writer would otherwise write.
pub(super) fn storage_said_no(attrs: Option<&Attrs>, name: &str) -> bool {
    storage(attrs)
        .and_then(|s| s.get(name))
        .and_then(Value::as_bool)
        == Some(false)
}

/// Whether `attrs` say `storage.NAME: true`, a flag the reader set and the writer obeys.
pub(super) fn storage_flag(attrs: Option<&Attrs>, name: &str) -> bool {
    storage(attrs)
        .and_then(|s| s.get(name))
        .and_then(Value::as_bool)
        == Some(true)
}

/// Takes `storage.attrs.NAME` (an attribute the node keeps) out of a node's attrs, and each object that
/// held it when nothing else is in it; the attrs themselves stay, empty or not.
pub(super) fn remove_kept_attr(node: &mut Node, name: &str) {
    let Some(attrs) = node.attrs.as_mut() else {
        return;
    };
    let Some(st) = attrs.get_mut(STORAGE).and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(kept) = st.get_mut("attrs").and_then(Value::as_object_mut) {
        kept.remove(name);
        if kept.is_empty() {
            st.remove("attrs");
        }
    }
    if st.is_empty() {
        attrs.remove(STORAGE);
    }
}

/// Removes `storage.NAME` from a node's attrs, and the `storage` object and the attrs with it when
/// nothing else is in them.
pub(super) fn remove_storage_key(node: &mut Node, name: &str) {
    let Some(attrs) = node.attrs.as_mut() else {
        return;
    };
    if let Some(storage) = attrs.get_mut(STORAGE).and_then(Value::as_object_mut) {
        storage.remove(name);
        if storage.is_empty() {
            attrs.remove(STORAGE);
        }
    }
    if attrs.is_empty() {
        node.attrs = None;
    }
}

/// The attrs of an implicit paragraph: the run of inline content the reader wrapped where a block was due
/// (`<td>text</td>`), which the writer writes without a `<p>`.
pub(super) fn implicit_attrs() -> Attrs {
    let mut attrs = Attrs::new();
    storage_of(&mut attrs).insert("implicit".into(), Value::Bool(true));
    attrs
}

/// Whether `p` is an implicit paragraph and nothing more: the attrs [`implicit_attrs`] gives, no marks.
pub(super) fn is_implicit(p: &Node) -> bool {
    let implicit = p
        .attrs
        .as_ref()
        .and_then(|a| a.get(STORAGE))
        .and_then(|s| s.as_object())
        .is_some_and(|s| s.len() == 1 && s.get("implicit") == Some(&Value::Bool(true)));
    p.kind == NodeType::Paragraph
        && implicit
        && p.attrs.as_ref().is_some_and(|a| a.len() == 1)
        && p.marks.is_none()
        && p.extra.is_none()
}
