//! A small tokenizer for the HTML the writer emits and a model may write: tags with attributes,
//! comments and text, with the few entities HTML text commonly uses.

/// One piece of an HTML fragment.
#[derive(Debug, PartialEq)]
pub(super) enum Tok<'a> {
    Open {
        name: String,
        attrs: Vec<(String, String)>,
        self_closing: bool,
    },
    Close {
        name: String,
    },
    Comment(&'a str),
    Text(&'a str),
}

/// Splits `s` into tags, comments and text. `None` when something looks like a tag but is not one.
pub(super) fn tokens(s: &str) -> Option<Vec<Tok<'_>>> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    let mut text_start = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        if text_start < i {
            out.push(Tok::Text(&s[text_start..i]));
        }
        if s[i..].starts_with("<!--") {
            let end = s[i + 4..].find("-->")? + i + 4;
            out.push(Tok::Comment(&s[i + 4..end]));
            i = end + 3;
        } else {
            let (tok, next) = tag(s, i)?;
            out.push(tok);
            i = next;
        }
        text_start = i;
    }
    if text_start < b.len() {
        out.push(Tok::Text(&s[text_start..]));
    }
    Some(out)
}

fn tag(s: &str, start: usize) -> Option<(Tok<'_>, usize)> {
    let b = s.as_bytes();
    let mut i = start + 1;
    let closing = b.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    let name_start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'-') {
        i += 1;
    }
    if i == name_start || !b[name_start].is_ascii_alphabetic() {
        return None;
    }
    let name = s[name_start..i].to_ascii_lowercase();
    let mut attrs = Vec::new();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        match b.get(i)? {
            b'>' => {
                let tok = if closing {
                    Tok::Close { name }
                } else {
                    Tok::Open {
                        name,
                        attrs,
                        self_closing: false,
                    }
                };
                return Some((tok, i + 1));
            }
            b'/' if b.get(i + 1) == Some(&b'>') && !closing => {
                return Some((
                    Tok::Open {
                        name,
                        attrs,
                        self_closing: true,
                    },
                    i + 2,
                ));
            }
            _ if closing => return None,
            _ => {}
        }
        let an_start = i;
        while i < b.len()
            && !b[i].is_ascii_whitespace()
            && !matches!(b[i], b'=' | b'>' | b'/' | b'"' | b'\'')
        {
            i += 1;
        }
        if i == an_start {
            return None;
        }
        let aname = s[an_start..i].to_ascii_lowercase();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if b.get(i) == Some(&b'=') {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            match b.get(i)? {
                q @ (b'"' | b'\'') => {
                    let end = s[i + 1..].find(*q as char)? + i + 1;
                    value = decode(&s[i + 1..end]);
                    i = end + 1;
                }
                _ => {
                    let vs = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                        i += 1;
                    }
                    value = decode(&s[vs..i]);
                }
            }
        }
        attrs.push((aname, value));
    }
}

/// Decodes the character references HTML text uses (named ones for the usual five and `nbsp`).
pub(super) fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        // An entity is at most 12 bytes long; look no further (on a character boundary).
        let mut end = rest.len().min(12);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let Some(semi) = rest[..end].find(';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..semi];
        let c = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            _ if name.starts_with("#x") || name.starts_with("#X") => {
                u32::from_str_radix(&name[2..], 16)
                    .ok()
                    .and_then(char::from_u32)
            }
            _ if name.starts_with('#') => name[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_and_comments() {
        let t = tokens("<details>\n<summary>A &amp; B</summary><!--x-->").unwrap();
        assert_eq!(t.len(), 6);
        assert_eq!(decode("A &amp; B &#10;"), "A & B \n");
        assert!(tokens("<td colspan=\"2\">").is_some());
    }
}
