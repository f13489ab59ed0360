//! GFM's extended autolinks (`www.x.com`, `https://x.com`, `a@b.com` in plain text), which
//! pulldown-cmark does not find: a scanner over a text event, after the GFM spec's rules.

/// `(start, end, href)` of each autolink in `s`.
pub(super) fn find(s: &str) -> Vec<(usize, usize, String)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let boundary =
            i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'*' | b'_' | b'~' | b'(');
        let rest = &s[i..];
        let lower_starts = |p: &str| {
            rest.get(..p.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(p))
        };
        if boundary && (lower_starts("www.") || lower_starts("http://") || lower_starts("https://"))
        {
            let host_start = if lower_starts("www.") {
                i
            } else {
                i + rest.find("://").unwrap_or(0) + 3
            };
            if let Some(end) = url_end(s, host_start) {
                let text = &s[i..end];
                let href = if lower_starts("www.") {
                    format!("http://{text}")
                } else {
                    text.to_string()
                };
                out.push((i, end, href));
                i = end;
                continue;
            }
        }
        if b[i] == b'@' && i > 0 {
            let mut start = i;
            while start > 0
                && (b[start - 1].is_ascii_alphanumeric()
                    || matches!(b[start - 1], b'.' | b'-' | b'_' | b'+'))
            {
                start -= 1;
            }
            let prev_ok =
                start == 0 || !b[start - 1].is_ascii_alphanumeric() && b[start - 1] != b'/';
            if start < i && prev_ok && out.last().is_none_or(|l| l.1 <= start) {
                let mut end = i + 1;
                let mut dots = 0;
                while end < b.len()
                    && (b[end].is_ascii_alphanumeric() || matches!(b[end], b'.' | b'-' | b'_'))
                {
                    if b[end] == b'.' && end + 1 < b.len() && b[end + 1].is_ascii_alphanumeric() {
                        dots += 1;
                    }
                    end += 1;
                }
                while end > i + 1 && b[end - 1] == b'.' {
                    end -= 1;
                }
                if dots > 0 && !matches!(b[end - 1], b'-' | b'_') {
                    out.push((start, end, format!("mailto:{}", &s[start..end])));
                    i = end;
                    continue;
                }
            }
        }
        i += s[i..].chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// Where a URL whose host starts at `host` ends, or `None` when the host is not a valid domain.
fn url_end(s: &str, host: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = host;
    let mut segments: Vec<(usize, usize)> = Vec::new();
    let mut seg_start = i;
    while i < b.len()
        && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'-' | b'_' | b'.') || b[i] >= 0x80)
    {
        if b[i] == b'.' {
            segments.push((seg_start, i));
            seg_start = i + 1;
        }
        i += 1;
    }
    segments.push((seg_start, i));
    if segments.len() < 2 && !s[..host].ends_with("://") || i == host {
        return None;
    }
    let tail = segments.iter().rev().take(2);
    if tail.clone().any(|(a, z)| s[*a..*z].contains('_')) {
        return None;
    }
    // The path: up to whitespace or `<`.
    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'<' {
        i += 1;
    }
    let mut end = i;
    loop {
        let last = b[end - 1];
        if matches!(
            last,
            b'?' | b'!' | b'.' | b',' | b':' | b'*' | b'_' | b'~' | b'\'' | b'"'
        ) {
            end -= 1;
        } else if last == b')' {
            let open = s[host..end].matches('(').count();
            let close = s[host..end].matches(')').count();
            if close > open {
                end -= 1;
            } else {
                break;
            }
        } else if last == b';' {
            let amp = s[host..end].rfind('&').map(|a| a + host);
            match amp {
                Some(a) if s[a + 1..end - 1].bytes().all(|c| c.is_ascii_alphanumeric()) => end = a,
                _ => break,
            }
        } else {
            break;
        }
        if end <= host {
            return None;
        }
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_gfm_autolinks() {
        assert_eq!(
            find("see www.commonmark.org/help."),
            vec![(4, 27, "http://www.commonmark.org/help".into())]
        );
        assert_eq!(find("x https://a.b/c) y").len(), 1);
        assert_eq!(find("mail foo@bar.baz now")[0].2, "mailto:foo@bar.baz");
        assert!(find("snake_case_name 2 * 3").is_empty());
    }
}
