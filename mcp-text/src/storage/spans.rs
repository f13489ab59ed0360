//! `<span style="…">` standing for a mark, both ways: one CSS declaration and no other attribute.
//! `color` is `textColor`, `background-color` `backgroundColor` (ADF wants `#rrggbb`: `rgb(…)` and `#abc`
//! are converted), `text-decoration: line-through` is `strike` (Confluence's own strikethrough) and
//! `text-decoration: underline` `underline`. The writer writes a text colour as Atlassian's storage
//! format documents it and Confluence Server and Data Center store it, `color: rgb(255,0,0);`, and a
//! highlight `background-color: #rrggbb;`. A style written otherwise (`color: #ff0000;`, `rgb` with
//! spaces; any span for `strike` and `underline`, whose usual elements are `<s>` and `<u>`) is kept in the
//! mark's `storage.style`, which the writer puts back while it still says the mark's value.

use super::attrs::{storage_of, AttrList};
use super::links;
use super::STORAGE;
use crate::model::{Attrs, Mark, MarkType};

/// What one declaration says.
#[derive(PartialEq, Eq, Debug)]
enum Style {
    Color(String),
    Background(String),
    LineThrough,
    Underline,
}

impl Style {
    /// A `style` attribute of one declaration (a `;` after it or not), if it says a mark.
    fn parse(style: &str) -> Option<Style> {
        let (property, value) = one_declaration(style)?;
        match property.as_str() {
            "color" => links::css_color_hex(value).map(Style::Color),
            "background-color" => links::css_color_hex(value).map(Style::Background),
            "text-decoration" if value.eq_ignore_ascii_case("line-through") => {
                Some(Style::LineThrough)
            }
            "text-decoration" if value.eq_ignore_ascii_case("underline") => Some(Style::Underline),
            _ => None,
        }
    }

    /// What a mark says as a style, if a span can say it.
    fn of(mark: &Mark) -> Option<Style> {
        let color = || mark.attr_str("color").unwrap_or("").to_string();
        Some(match mark.kind {
            MarkType::TextColor => Style::Color(color()),
            MarkType::BackgroundColor => Style::Background(color()),
            MarkType::Strike => Style::LineThrough,
            MarkType::Underline => Style::Underline,
            _ => return None,
        })
    }

    fn mark(self) -> Mark {
        let (kind, color) = match self {
            Style::Color(c) => (MarkType::TextColor, Some(c)),
            Style::Background(c) => (MarkType::BackgroundColor, Some(c)),
            Style::LineThrough => (MarkType::Strike, None),
            Style::Underline => (MarkType::Underline, None),
        };
        let mut mark = Mark::new(kind);
        if let Some(color) = color {
            let mut attrs = Attrs::new();
            attrs.insert("color", color.into());
            mark.attrs = Some(attrs);
        }
        mark
    }

    /// The style the writer writes for it, when it is written as a span of its own accord.
    fn canonical(&self) -> Option<String> {
        match self {
            Style::Color(c) => Some(match rgb(c) {
                Some([r, g, b]) => format!("color: rgb({r},{g},{b});"),
                None => format!("color: {c};"),
            }),
            Style::Background(c) => Some(format!("background-color: {c};")),
            Style::LineThrough | Style::Underline => None,
        }
    }
}

/// The property (in lower case) and the value of a `style` attribute of one CSS declaration, a `;` after it
/// or not, spaces around its parts or not (`None`: not one declaration).
pub(super) fn one_declaration(style: &str) -> Option<(String, &str)> {
    let declaration = style.trim();
    let declaration = declaration
        .strip_suffix(';')
        .unwrap_or(declaration)
        .trim_end();
    let (property, value) = declaration.split_once(':')?;
    let value = value.trim();
    if value.contains(';') {
        return None;
    }
    Some((property.trim().to_ascii_lowercase(), value))
}

/// The red, green and blue of a `#rrggbb` colour.
fn rgb(color: &str) -> Option<[u8; 3]> {
    let hex = color.strip_prefix('#').filter(|h| h.len() == 6)?;
    let part = |at: usize| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok();
    Some([part(0)?, part(2)?, part(4)?])
}

/// The mark a `<span>` with these attributes stands for.
pub(super) fn mark(attrs: &AttrList) -> Option<Mark> {
    let [(k, style)] = attrs.as_slice() else {
        return None;
    };
    if k != "style" {
        return None;
    }
    let parsed = Style::parse(style)?;
    let canonical = parsed.canonical();
    let mut mark = parsed.mark();
    if canonical.as_deref() != Some(style.as_str()) {
        storage_of(mark.attrs.get_or_insert_with(Attrs::new))
            .insert("style".into(), style.clone().into());
    }
    Some(mark)
}

/// The `style` of the `<span>` a mark is written as, or `None` when it is not a span (a strike or an
/// underline without a kept style, or whose kept style no longer says it, is `<s>`, `<u>`).
pub(super) fn style(mark: &Mark) -> Option<String> {
    let wanted = Style::of(mark)?;
    let stored = mark
        .attrs
        .as_ref()
        .and_then(|a| a.get(STORAGE))
        .and_then(|s| s.get("style"))
        .and_then(|s| s.as_str());
    match stored {
        Some(style) if Style::parse(style).as_ref() == Some(&wanted) => Some(style.to_string()),
        _ => wanted.canonical(),
    }
}
