//! What the writer and the reader agree on: the order of marks, the link schemes of inline nodes, and
//! dates as a model reads them.

use super::marker::Inf;
use crate::model::{MarkType, NodeType};

// What the reader gives a node beyond what its Markdown shows: the attrs Atlassian's editors write on every
// such node (their ProseMirror defaults, serialised: Jira Cloud's REST v3 and Confluence's ADF carry them),
// so that a real document costs a marker only for what is specific to it (ids, colours, sizes). The writer
// diffs against the same lists. Each is valid by the official schema (`full.json`).

/// A table: `isNumberColumnEnabled: false, layout: "default"` (table_node; both optional in the schema).
pub(super) const TABLE: [(&str, Inf<'static>); 2] = [
    ("isNumberColumnEnabled", Inf::Bool(false)),
    ("layout", Inf::Str("default")),
];

/// A table cell or header: `attrs: {}` (Jira writes it on every cell; every member is optional).
pub(super) const CELL: [(&str, Inf<'static>); 0] = [];

/// A mention with a name: `accessLevel: ""` (besides `id` and `text`). A mention shown by its id alone
/// (`[@ID](mention:ID)`, as Confluence storage's `ri:user` reads) infers `id` only.
pub(super) const MENTION_ACCESS: (&str, Inf<'static>) = ("accessLevel", Inf::Str(""));

/// An inline image (`mediaInline`): `collection: ""` (besides `id`), which the schema requires. A media
/// in a group infers it too, so that its diff still makes a valid `mediaInline` when the group's marker
/// is lost and the images are read as inline ones.
pub(super) const MEDIA_INLINE_COLLECTION: (&str, Inf<'static>) = ("collection", Inf::Str(""));

/// A status: `style: ""` (besides `text` and `color`).
pub(super) const STATUS_STYLE: (&str, Inf<'static>) = ("style", Inf::Str(""));

/// The blocks a task item holding blocks (`blockTaskItem`) holds, by the schema: paragraphs and
/// extensions. The writer writes such an item as a task only when it holds nothing else; the reader keeps
/// these under the task and stands any other block after it.
pub(super) fn in_block_task(kind: &NodeType) -> bool {
    matches!(kind, NodeType::Paragraph | NodeType::Extension)
}

/// Marks a text holds at most once (the reader ignores a second one; others, such as annotations,
/// may repeat with different attrs).
pub(super) fn singleton(kind: &MarkType) -> bool {
    !matches!(kind, MarkType::Annotation | MarkType::Other(_))
}

/// Link destinations that are inline nodes, not links.
pub(super) const SCHEMES: [&str; 6] = ["mention:", "status:", "date:", "emoji:", "media:", "adf:"];

pub(super) fn reserved(href: &str) -> bool {
    SCHEMES.iter().any(|s| {
        href.get(..s.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(s))
    })
}

/// `YYYY-MM-DD` (UTC) of a millisecond timestamp.
pub(super) fn format_date(ms: i64) -> String {
    crate::date::format_day(ms)
}

/// The millisecond timestamp (UTC midnight) of `YYYY-MM-DD`, when it is a day that exists.
pub(super) fn parse_date(s: &str) -> Option<i64> {
    crate::date::parse_day(s)
}

/// A URL that `<…>` shows as an autolink, unchanged.
pub(super) fn autolink_safe(url: &str) -> bool {
    let Some(colon) = url.find(':') else {
        return false;
    };
    let scheme = &url[..colon];
    (2..=32).contains(&scheme.len())
        && scheme.as_bytes()[0].is_ascii_alphabetic()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
        && url
            .bytes()
            .all(|b| b > b' ' && b != b'<' && b != b'>' && b != 0x7f)
        && !reserved(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(format_date(1_705_276_800_000), "2024-01-15");
        assert_eq!(parse_date("2024-01-15"), Some(1_705_276_800_000));
        assert_eq!(format_date(0), "1970-01-01");
    }
}
