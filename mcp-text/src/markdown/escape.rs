//! Escaping text for Markdown exactly where a character would change meaning, and nowhere else: a model
//! reads `2 * 3 * 4` and `snake_case_name` as they are, while `*.py` and `_init_` at a word's start
//! are escaped because there they could open emphasis.

/// Where a piece of text sits.
#[derive(Clone, Copy, Default)]
pub(super) struct Ctx {
    /// The text starts a line (block constructs such as `# `, `- `, `1. ` could begin here).
    pub line_start: bool,
    /// A line ends right after the text (trailing spaces would be stripped).
    pub line_end: bool,
    /// Leading whitespace must survive (an emphasis delimiter is right before it).
    pub keep_lead: bool,
    /// Trailing whitespace must survive (an emphasis delimiter is right after it).
    pub keep_trail: bool,
    /// Inside a link's text: `]` would end it.
    pub in_link: bool,
    /// Inside a GFM table cell: `|` would end it.
    pub in_cell: bool,
    /// Inside a heading: a closing `#` run at the end would be stripped.
    pub in_heading: bool,
    /// The character written just before the text (`None`: a line's start).
    pub prev: Option<char>,
    /// The character written just after it (`None`: a line's end).
    pub next: Option<char>,
}

/// Unicode punctuation by CommonMark (0.31): ASCII punctuation, and any character in a general category
/// P or S. Not every character that is neither a letter nor a space: a zero-width space (Cf) or a
/// combining mark (Mn) before a closing `~~` leaves it not closing, as pulldown-cmark reads it.
pub(super) fn is_punct(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory as G};
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(
        get_general_category(c),
        G::ConnectorPunctuation
            | G::DashPunctuation
            | G::OpenPunctuation
            | G::ClosePunctuation
            | G::InitialPunctuation
            | G::FinalPunctuation
            | G::OtherPunctuation
            | G::MathSymbol
            | G::CurrencySymbol
            | G::ModifierSymbol
            | G::OtherSymbol
    )
}

/// How a delimiter run of `*`, `_` or `~` between `prev` and `next` flanks (CommonMark 6.2).
/// `None` is the start or end of a line (whitespace for these rules).
pub(super) fn flanking(prev: Option<char>, next: Option<char>) -> (bool, bool) {
    let ws = |c: Option<char>| c.is_none_or(char::is_whitespace);
    let punct = |c: Option<char>| c.is_some_and(is_punct);
    let left = !ws(next) && (!punct(next) || ws(prev) || punct(prev));
    let right = !ws(prev) && (!punct(prev) || ws(next) || punct(next));
    (left, right)
}

/// Appends `s` to `out`, escaped for `ctx`.
pub(super) fn text(out: &mut String, s: &str, ctx: &Ctx) {
    if needs_nothing(s, ctx) {
        out.push_str(s);
        return;
    }
    text_by_char(out, s, ctx);
}

/// Text that no context makes act (most text of a document): no character that could open or close
/// anything where it stands, and at a line's start a letter first (where `1` could begin `1.` with what
/// follows, `-` a list, `#` a heading, `>` a quote). A space at an edge that Markdown would strip (a
/// line's edge, or an edge the context keeps) needs an entity; anywhere else a space is written as it is
/// (text before a mention or a marked span ends with one). Each character allowed here is one that
/// `text_by_char` writes as it is in `ctx`.
fn needs_nothing(s: &str, ctx: &Ctx) -> bool {
    let b = s.as_bytes();
    if b.is_empty()
        || (b[0] == b' ' && (ctx.line_start || ctx.keep_lead))
        || (b[b.len() - 1] == b' ' && (ctx.line_end || ctx.keep_trail))
        || (ctx.line_start && !b[0].is_ascii_alphabetic())
    {
        return false;
    }
    b.iter().enumerate().all(|(i, &c)| match PLAIN[c as usize] {
        Plain::Always => true,
        Plain::Never => false,
        Plain::Maybe => match c {
            // A closing `#` run is stripped only at a heading's end.
            b'#' => !ctx.in_heading,
            b'|' => !ctx.in_cell,
            b']' => !ctx.in_link,
            // `www.` and `scheme://` would become GFM autolinks.
            b'.' => i < 3 || &b[i - 3..i] != b"www",
            _ => b.get(i + 1).is_some_and(|&n| n != b'/'),
        },
    })
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Plain {
    Always,
    Maybe,
    Never,
}

/// What each byte is to `needs_nothing`: one table lookup a byte rather than a chain of comparisons.
static PLAIN: [Plain; 256] = {
    let mut t = [Plain::Never; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b' ' => Plain::Always,
            // Non-ASCII characters are written as they are (flanking looks at them only beside a `*`,
            // `_` or `~`, which are not allowed here).
            0x80.. => Plain::Always,
            b'!' | b'"' | b'$' | b'%' | b'\'' | b'(' | b')' | b'+' | b',' | b'-' | b'/' | b';'
            | b'=' | b'>' | b'?' | b'^' | b'{' | b'}' => Plain::Always,
            b'#' | b'|' | b']' | b'.' | b':' => Plain::Maybe,
            _ => Plain::Never,
        };
        c += 1;
    }
    t
};

/// Appends `s` escaped for `ctx`, character by character. It works on the bytes: every character that
/// can act is ASCII, and the characters around a delimiter run are decoded where flanking needs them.
/// The bytes `as_is` in `text_by_char` takes inside the text: letters, digits, non-ASCII and spaces.
static AS_IS: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || !b.is_ascii() || b == b' ';
        c += 1;
    }
    t
};

fn text_by_char(out: &mut String, s: &str, ctx: &Ctx) {
    let b = s.as_bytes();
    let n = b.len();
    // The character before byte `i` (the one outside before the text at 0), and the one at byte `i`
    // (the one outside after it at the end).
    let char_before = |i: usize| {
        if i == 0 {
            ctx.prev
        } else {
            s[..i].chars().next_back()
        }
    };
    let char_at = |i: usize| {
        if i >= n {
            ctx.next
        } else {
            s[i..].chars().next()
        }
    };
    let is_ws = md_space;
    let lead_ws = b.iter().take_while(|c| is_ws(**c)).count();
    let trail_ws_start = n - b.iter().rev().take_while(|c| is_ws(**c)).count();
    let line_escape = if ctx.line_start {
        line_start_escape(b)
    } else {
        None
    };
    let heading_hash = if ctx.in_heading && ctx.line_end {
        closing_hashes(b)
    } else {
        None
    };
    // Whitespace at a line's edges is stripped by Markdown: the edge character becomes an entity.
    let edge_ws = |i: usize| {
        is_ws(b[i])
            && ((i == 0 && (ctx.line_start || ctx.keep_lead) && lead_ws > 0)
                || (i + 1 == n && (ctx.line_end || ctx.keep_trail) && i >= trail_ws_start))
    };
    // Flanking is decided on the characters as written: an entity (`&#10;`) is punctuation, not the
    // whitespace it stands for, so `__&#10;__` is strong emphasis. `i` is a byte of the text.
    let entity = |i: usize| i < n && (matches!(b[i], b'\n' | b'\r') || edge_ws(i));
    // The character written before byte `i`, and the one written from byte `i`.
    let before = |i: usize| {
        if i > 0 && entity(i - 1) {
            Some(';')
        } else {
            char_before(i)
        }
    };
    let after = |i: usize| if entity(i) { Some('&') } else { char_at(i) };
    // Letters, digits, non-ASCII characters and spaces inside the text are written as they are
    // (no arm below matches them, and no escape index points at one): runs of them are copied whole.
    let as_is = |i: usize| {
        let c = b[i];
        c.is_ascii_alphanumeric() || !c.is_ascii() || (c == b' ' && !edge_ws(i))
    };
    let mut i = 0;
    while i < n {
        if as_is(i) {
            let from = i;
            i += 1;
            while i < n && AS_IS[b[i] as usize] {
                i += 1;
            }
            // Of the rest, only a space at the end can be at an edge (the first byte was checked).
            if i == n && i - 1 > from && edge_ws(i - 1) {
                i -= 1;
            }
            out.push_str(&s[from..i]);
            continue;
        }
        // An ASCII character (`as_is` took the others).
        let c = b[i];
        if edge_ws(i) {
            out.push_str(match c {
                b' ' => "&#32;",
                b'\t' => "&#9;",
                0x0b => "&#11;",
                _ => "&#12;",
            });
            i += 1;
            continue;
        }
        if Some(i) == line_escape || Some(i) == heading_hash {
            out.push('\\');
            out.push(c as char);
            i += 1;
            continue;
        }
        match c {
            b'\n' => out.push_str("&#10;"),
            b'\r' => out.push_str("&#13;"),
            b'\\' => {
                let next = char_at(i + 1);
                // Before punctuation (or a character that may be written as an entity) it would escape.
                if next.is_none_or(|c| c.is_ascii_punctuation() || c.is_whitespace()) || i + 1 == n
                {
                    out.push('\\');
                }
                out.push('\\');
            }
            b'*' | b'_' | b'~' => {
                let mut j = i;
                while j < n && b[j] == c {
                    j += 1;
                }
                let (left, right) = flanking(before(i), after(j));
                let active = if c == b'_' {
                    let prev_p = before(i).is_some_and(is_punct);
                    let next_p = after(j).is_some_and(is_punct);
                    (left && (!right || prev_p)) || (right && (!left || next_p))
                } else {
                    left || right
                };
                for _ in i..j {
                    if active {
                        out.push('\\');
                    }
                    out.push(c as char);
                }
                i = j;
                continue;
            }
            b'`' | b'[' => {
                out.push('\\');
                out.push(c as char);
            }
            b']' if ctx.in_link => out.push_str("\\]"),
            b'|' if ctx.in_cell => out.push_str("\\|"),
            // `<!--` in text is written `&lt;!--`: every `<!--` in the Markdown is then a real comment
            // (a marker), for the reader and for anyone editing markers.
            b'<' if b[i + 1..].starts_with(b"!--") => out.push_str("&lt;"),
            b'<' => {
                if char_at(i + 1)
                    .is_some_and(|d| d.is_ascii_alphabetic() || matches!(d, '/' | '!' | '?'))
                {
                    out.push('\\');
                }
                out.push('<');
            }
            b'&' => {
                if char_at(i + 1).is_some_and(|d| d.is_ascii_alphanumeric() || d == '#') {
                    out.push('\\');
                }
                out.push('&');
            }
            // GFM's extended autolinks would turn `www.x` and `https://x` in plain text into links.
            b'.' if i >= 3 && &b[i - 3..i] == b"www" => out.push_str("\\."),
            b':' if char_at(i + 1) == Some('/')
                && char_at(i + 2) == Some('/')
                && scheme_before(&b[..i]) =>
            {
                out.push_str("\\:")
            }
            b'@' => {
                // `a@b.com` is an email autolink in GFM, and so is `a@.b.c` to the reader
                // (`autolink::find`): its domain may start with any character a domain holds.
                let prev = char_before(i);
                if prev.is_some_and(|p| {
                    p.is_ascii_alphanumeric() || matches!(p, '.' | '-' | '_' | '+')
                }) && char_at(i + 1)
                    .is_some_and(|d| d.is_ascii_alphanumeric() || matches!(d, '.' | '-' | '_'))
                {
                    out.push('\\');
                }
                out.push('@');
            }
            _ => out.push(c as char),
        }
        i += 1;
    }
}

/// Whether the bytes before a `:` end with a scheme GFM links (`http`, `https`, `ftp`, any case).
fn scheme_before(b: &[u8]) -> bool {
    let tail = b[b.len().saturating_sub(5)..].to_ascii_lowercase();
    tail.ends_with(b"http") || tail.ends_with(b"https") || tail.ends_with(b"ftp")
}

/// What pulldown-cmark takes for a space around a line's markers and strips at its edges: a space, a tab,
/// a line tabulation or a form feed (a line of only these is blank).
fn md_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | 0x0b | 0x0c)
}

/// The byte to escape so that a line starting with `b` stays a paragraph line.
fn line_start_escape(b: &[u8]) -> Option<usize> {
    let first = *b.first()?;
    let is_ws = |c: &u8| md_space(*c);
    match first {
        b'#' => {
            let hashes = b.iter().take_while(|&&c| c == b'#').count();
            (hashes <= 6 && b.get(hashes).is_none_or(is_ws)).then_some(0)
        }
        b'>' => Some(0),
        b'-' | b'+' | b'*' | b'=' | b'_' => {
            let list = first != b'=' && first != b'_' && b.get(1).is_none_or(is_ws);
            let rule_or_setext = b.iter().all(|c| *c == first || is_ws(c));
            (list || rule_or_setext || delimiter_row(b)).then_some(0)
        }
        b'|' | b':' if delimiter_row(b) => Some(0),
        b'~' if b.starts_with(b"~~~") => Some(0),
        b'0'..=b'9' => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            let after = b.get(digits);
            let next = b.get(digits + 1);
            (digits <= 9 && matches!(after, Some(b'.' | b')')) && next.is_none_or(is_ws))
                .then_some(digits)
        }
        _ => None,
    }
}

/// A line like `-|-` or `| --- |` would make the line above it a table header.
fn delimiter_row(b: &[u8]) -> bool {
    b.contains(&b'-')
        && b.iter()
            .all(|&c| matches!(c, b'|' | b'-' | b':') || md_space(c))
}

/// In a heading, a trailing ` ###` run (or the whole text being `#`s) would be read as a closing
/// sequence: the byte of its first `#`.
fn closing_hashes(b: &[u8]) -> Option<usize> {
    let end = b.len()
        - b.iter()
            .rev()
            .take_while(|c| **c == b' ' || **c == b'\t')
            .count();
    let hashes = b[..end].iter().rev().take_while(|c| **c == b'#').count();
    if hashes == 0 {
        return None;
    }
    let start = end - hashes;
    (start == 0 || b[start - 1] == b' ' || b[start - 1] == b'\t').then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str) -> String {
        let mut out = String::new();
        text(
            &mut out,
            s,
            &Ctx {
                line_start: true,
                line_end: true,
                ..Ctx::default()
            },
        );
        let _ = Ctx {
            prev: Some('a'),
            ..Ctx::default()
        };
        out
    }

    /// The shortcut for plain words writes what the character-by-character path writes, in every context.
    #[test]
    fn plain_words_need_nothing_in_any_context() {
        let words = [
            "a",
            "abc",
            "Ship it",
            "x1 2y",
            "www",
            "http",
            "a  b",
            "1",
            "123 go",
            "Z9",
            // Punctuation of prose, which the shortcut takes too where no context makes it act.
            "Hello, world!",
            "it's (maybe) 50% - or \"so\"; a/b = c? {x} ^y +1",
            "x > y",
            "§ é 日本 —",
            "a#b",
            "# x #",
            "a|b",
            "a]b",
            "end.",
            "www.",
            "wwwx.",
            "see: this",
            "x:/y",
            "x://y",
            "x:",
            "- a",
            "1. x",
            "> q",
            "#x",
            "Ab #",
            "+ b",
            "= c",
            "| - |",
            // Spaces at the edges: written as they are unless a line's edge or the context keeps them.
            "Hello ",
            " world",
            " ",
            "  a  ",
            " 1. x ",
        ];
        let mut fast = 0;
        let neighbours = [
            None,
            Some(' '),
            Some('a'),
            Some('*'),
            Some('_'),
            Some('&'),
            Some('<'),
            Some('#'),
            Some('.'),
            Some('/'),
            Some('['),
        ];
        for w in words {
            for bits in 0..128u32 {
                for prev in neighbours {
                    for next in neighbours {
                        let ctx = Ctx {
                            line_start: bits & 64 != 0,
                            line_end: bits & 1 != 0,
                            keep_lead: bits & 2 != 0,
                            keep_trail: bits & 4 != 0,
                            in_link: bits & 8 != 0,
                            in_cell: bits & 16 != 0,
                            in_heading: bits & 32 != 0,
                            prev,
                            next,
                        };
                        if !needs_nothing(w, &ctx) {
                            continue;
                        }
                        fast += 1;
                        let mut slow = String::new();
                        text_by_char(&mut slow, w, &ctx);
                        assert_eq!(slow, w, "{w:?} in {bits:b} {prev:?} {next:?}");
                    }
                }
            }
        }
        // Every word but the few that some context or neighbour makes act takes the shortcut.
        assert!(fast > 30 * 64 * 11 * 11, "{fast}");
        assert!(needs_nothing(" a", &Ctx::default()));
        for ctx in [
            Ctx {
                keep_lead: true,
                ..Ctx::default()
            },
            Ctx {
                line_start: true,
                ..Ctx::default()
            },
        ] {
            assert!(!needs_nothing(" a", &ctx));
        }
        for ctx in [
            Ctx {
                keep_trail: true,
                ..Ctx::default()
            },
            Ctx {
                line_end: true,
                ..Ctx::default()
            },
        ] {
            assert!(!needs_nothing("a ", &ctx));
        }
        assert!(!needs_nothing("a_b", &Ctx::default()));
        assert!(!needs_nothing("www.x", &Ctx::default()));
        assert!(!needs_nothing("http://x", &Ctx::default()));
        assert!(!needs_nothing("a@b", &Ctx::default()));
        let line_start = Ctx {
            line_start: true,
            ..Ctx::default()
        };
        assert!(needs_nothing("Ship it - now.", &line_start));
        assert!(!needs_nothing("- x", &line_start));
        assert!(!needs_nothing(
            "1",
            &Ctx {
                line_start: true,
                ..Ctx::default()
            }
        ));
    }

    #[test]
    fn escapes_only_where_needed() {
        assert_eq!(esc("2 * 3 * 4"), "2 * 3 * 4");
        assert_eq!(esc("a_b_c"), "a_b_c");
        assert_eq!(esc("snake_case_name"), "snake_case_name");
        assert_eq!(esc("*.py"), "\\*.py");
        assert_eq!(esc("_init_ x"), "\\_init\\_ x");
        assert_eq!(esc("# not a heading"), "\\# not a heading");
        assert_eq!(esc("1. x"), "1\\. x");
        assert_eq!(esc("[x](y)"), "\\[x](y)");
        assert_eq!(esc("<div>"), "\\<div>");
        assert_eq!(esc("a < b"), "a < b");
    }
}
