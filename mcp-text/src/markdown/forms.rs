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

/// Whether `color` is a colour ADF's `textColor` holds: `#rrggbb`.
pub(super) fn adf_color(color: &str) -> bool {
    color.len() == 7 && color.starts_with('#') && color[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// The `#rrggbb` of a CSS colour a model or a page writes in `<span style="color:…">`: `#rrggbb` as it
/// stands, `#rgb`, `rgb(r, g, b)` and the CSS 2.1 names; `None` for any other (ADF holds no other).
pub(super) fn css_color(color: &str) -> Option<String> {
    if adf_color(color) {
        return Some(color.to_string());
    }
    let lower = color.to_ascii_lowercase();
    if let Some(short) = lower.strip_prefix('#') {
        if short.len() == 3 && short.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Some(short.chars().fold(String::from("#"), |mut s, c| {
                s.push(c);
                s.push(c);
                s
            }));
        }
        return None;
    }
    if let Some(args) = lower
        .strip_prefix("rgb(")
        .and_then(|rest| rest.strip_suffix(')'))
    {
        let parts: Vec<u8> = args
            .split(',')
            .map(|p| p.trim().parse::<u8>())
            .collect::<Result<_, _>>()
            .ok()?;
        return match parts[..] {
            [r, g, b] => Some(format!("#{r:02x}{g:02x}{b:02x}")),
            _ => None,
        };
    }
    let hex = match lower.as_str() {
        "black" => "#000000",
        "silver" => "#c0c0c0",
        "gray" | "grey" => "#808080",
        "white" => "#ffffff",
        "maroon" => "#800000",
        "red" => "#ff0000",
        "purple" => "#800080",
        "fuchsia" | "magenta" => "#ff00ff",
        "green" => "#008000",
        "lime" => "#00ff00",
        "olive" => "#808000",
        "yellow" => "#ffff00",
        "navy" => "#000080",
        "blue" => "#0000ff",
        "teal" => "#008080",
        "aqua" | "cyan" => "#00ffff",
        "orange" => "#ffa500",
        _ => return None,
    };
    Some(hex.to_string())
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
