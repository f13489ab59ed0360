//! Server-sent events: encoding frames as events, and an incremental parser for the client side.

use bytes::{BufMut, Bytes, BytesMut};

/// `id: <id>\nevent: message\ndata: <json>\n\n`. `frame` is one JSON message, with or without its `\n`.
pub(crate) fn message_event(id: Option<&str>, frame: &[u8]) -> Bytes {
    let json = frame.strip_suffix(b"\n").unwrap_or(frame);
    let mut b = BytesMut::with_capacity(json.len() + 48);
    if let Some(id) = id {
        b.put_slice(b"id: ");
        b.put_slice(id.as_bytes());
        b.put_u8(b'\n');
    }
    b.put_slice(b"event: message\ndata: ");
    b.put_slice(json);
    b.put_slice(b"\n\n");
    b.freeze()
}

/// The priming event of a stream: an id to resume from, empty data, and the reconnection delay.
pub(crate) fn priming_event(id: &str, retry_ms: Option<u64>) -> Bytes {
    let mut s = format!("id: {id}\n");
    if let Some(ms) = retry_ms {
        s.push_str(&format!("retry: {ms}\n"));
    }
    s.push_str("data: \n\n");
    Bytes::from(s)
}

pub(crate) fn keep_alive() -> Bytes {
    Bytes::from_static(b": keep-alive\n\n")
}

/// One parsed event.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event's `id:` field; `None` when absent.
    pub id: Option<String>,
    /// The event's `event:` type; `None` means `message`.
    pub event: Option<String>,
    /// The `data:` lines, joined by `
    /// `.
    pub data: String,
    /// The `retry:` reconnection time, in milliseconds; `None` when absent.
    pub retry: Option<u64>,
}

/// Incremental SSE parser (the WHATWG algorithm, minus the BOM): feed bytes, take events.
#[derive(Default)]
pub struct SseParser {
    buf: Vec<u8>,
    current: SseEvent,
    has_data: bool,
    /// A `retry:` seen on its own (without data) still counts for the stream.
    pub last_retry: Option<u64>,
    /// The last `id:` seen on the stream, with or without data: where `Last-Event-ID` resumes.
    pub last_id: Option<String>,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends bytes and returns every event completed by them. Events without data (priming, retry-only)
    /// update `last_id`/`last_retry` but are not returned.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(pos) = memchr::memchr2(b'\n', b'\r', &self.buf[start..]) {
            let end = start + pos;
            let mut next = end + 1;
            if self.buf[end] == b'\r' {
                if next >= self.buf.len() {
                    // Wait to see whether `\n` follows.
                    break;
                }
                if self.buf[next] == b'\n' {
                    next += 1;
                }
            }
            let line = String::from_utf8_lossy(&self.buf[start..end]).into_owned();
            start = next;
            self.line(&line, &mut out);
        }
        self.buf.drain(..start);
        out
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            let ev = std::mem::take(&mut self.current);
            if let Some(id) = &ev.id {
                self.last_id = Some(id.clone());
            }
            if self.has_data && !ev.data.is_empty() {
                out.push(ev);
            }
            self.has_data = false;
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.current.event = Some(value.to_string()),
            "id" if !value.contains('\0') => self.current.id = Some(value.to_string()),
            "retry" => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.current.retry = Some(ms);
                    self.last_retry = Some(ms);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_split_events_and_skips_priming() {
        let mut p = SseParser::new();
        let mut evs =
            p.feed(b"id: s-0\nretry: 500\ndata: \n\n: keep-alive\n\nid: s-1\nevent: mess");
        assert!(evs.is_empty());
        assert_eq!(p.last_id.as_deref(), Some("s-0"));
        assert_eq!(p.last_retry, Some(500));
        evs.extend(p.feed(b"age\r\ndata: {\"a\":1}\r\n\r\n"));
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].id.as_deref(), Some("s-1"));
        assert_eq!(evs[0].event.as_deref(), Some("message"));
        assert_eq!(evs[0].data, "{\"a\":1}");
        assert_eq!(p.last_id.as_deref(), Some("s-1"));
    }

    #[test]
    fn multi_line_data_is_joined() {
        let mut p = SseParser::new();
        let evs = p.feed(b"data: a\ndata: b\n\n");
        assert_eq!(evs[0].data, "a\nb");
    }

    #[test]
    fn encodes_message_events() {
        assert_eq!(
            &message_event(Some("3-1"), b"{}\n")[..],
            b"id: 3-1\nevent: message\ndata: {}\n\n"
        );
        assert_eq!(
            &priming_event("3-0", Some(1000))[..],
            b"id: 3-0\nretry: 1000\ndata: \n\n"
        );
    }
}
