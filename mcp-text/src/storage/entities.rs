//! Character references and HTML's named entities (storage format uses `&nbsp;`, `&mdash;`, ... without
//! declaring them), and the escaping the writer does.

use std::borrow::Cow;

use quick_xml::events::Event;
use quick_xml::Reader;

/// The text a named entity (without `&` and `;`) stands for: XML's five and all of HTML5's.
pub fn named(name: &str) -> Option<&'static str> {
    quick_xml::escape::resolve_xml_entity(name)
        .or_else(|| quick_xml::escape::resolve_html5_entity(name))
}

/// The text of a reference's body (`amp`, `#160`, `#xA0`), or why it has none.
pub fn reference(body: &str) -> Result<Cow<'static, str>, String> {
    if let Some(num) = body.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => num.parse::<u32>(),
        };
        return match code.ok().and_then(char::from_u32) {
            Some(c) if c != '\0' => Ok(Cow::Owned(c.to_string())),
            _ => Err(format!("invalid character reference `&{body};`")),
        };
    }
    named(body)
        .map(Cow::Borrowed)
        .ok_or_else(|| format!("unknown entity `&{body};`"))
}

/// An attribute value with its references resolved. A `&` that starts no reference (`a&b`) is read as
/// itself, as browsers do; an unknown entity is an error (the message; the caller names the place).
pub fn unescape(raw: &str) -> Result<Cow<'_, str>, String> {
    if !raw.contains('&') {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'));
        match end {
            Some(e) if e > 0 && after.as_bytes()[e] == b';' => {
                out.push_str(&reference(&after[..e])?);
                rest = &after[e + 1..];
            }
            _ => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

/// Appends `text` escaped for element content. U+00A0 is written `&nbsp;`, as Confluence does, so that
/// it stays visible to whoever reads the XML.
pub fn push_text(out: &mut String, text: &str) {
    push_escaped(out, text, false);
}

/// Appends `text` escaped for a double-quoted attribute value.
pub fn push_attr(out: &mut String, text: &str) {
    push_escaped(out, text, true);
}

fn push_escaped(out: &mut String, text: &str, attr: bool) {
    let mut last = 0;
    for (i, c) in text.char_indices() {
        let rep = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' if attr => "&quot;",
            '\u{a0}' => "&nbsp;",
            // Attribute values normalise raw newlines and tabs to spaces: references keep them.
            '\n' if attr => "&#10;",
            '\r' => "&#13;",
            '\t' if attr => "&#9;",
            _ => continue,
        };
        out.push_str(&text[last..i]);
        out.push_str(rep);
        last = i + c.len_utf8();
    }
    out.push_str(&text[last..]);
}

/// Appends `text` as CDATA (`]]>` inside it split across two sections).
pub fn push_cdata(out: &mut String, text: &str) {
    out.push_str("<![CDATA[");
    out.push_str(&text.replace("]]>", "]]]]><![CDATA[>"));
    out.push_str("]]>");
}

/// The text inside an element (text, references and CDATA only), `None` when it holds elements; an
/// error carries the offset in `inner`.
pub(super) fn text_content(inner: &str) -> Result<Option<String>, (usize, String)> {
    if !inner.contains('<') && !inner.contains('&') {
        return Ok(Some(inner.to_string()));
    }
    let mut xml = Reader::from_str(inner);
    xml.config_mut().allow_dangling_amp = true;
    let mut text = String::new();
    loop {
        let pos = xml.buffer_position() as usize;
        match xml.read_event() {
            Ok(Event::Text(t)) => text.push_str(&t),
            Ok(Event::CData(t)) => text.push_str(&t),
            Ok(Event::GeneralRef(r)) => text.push_str(&reference(&r).map_err(|m| (pos, m))?),
            Ok(Event::Eof) => return Ok(Some(text)),
            Ok(_) => return Ok(None),
            Err(e) => return Err((xml.error_position() as usize, format!("invalid XML: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references() {
        assert_eq!(
            unescape("a&nbsp;b&mdash;&hellip;&#65;&#x42;&amp;").unwrap(),
            "a\u{a0}b\u{2014}\u{2026}AB&"
        );
        assert_eq!(unescape("a&b c&").unwrap(), "a&b c&");
        assert!(unescape("&nosuch;").unwrap_err().contains("unknown entity"));
        assert!(unescape("&#0;").is_err());
    }

    #[test]
    fn escaping() {
        let mut s = String::new();
        push_attr(&mut s, "<a & \"b\"\u{a0}>");
        assert_eq!(s, "&lt;a &amp; &quot;b&quot;&nbsp;&gt;");
        let mut s = String::new();
        push_cdata(&mut s, "a]]>b");
        assert_eq!(s, "<![CDATA[a]]]]><![CDATA[>b]]>");
    }
}
