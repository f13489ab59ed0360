//! Newline-delimited JSON framing: splitting bytes into lines, classifying a line as a JSON-RPC message
//! without building a JSON tree, and writing frames by hand around already-serialized payloads.

use crate::protocol::{ErrorObject, RequestId};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// One decoded message. Payloads stay raw JSON until a handler asks for a type.
#[derive(Debug)]
pub enum Incoming<'a> {
    /// A request: answer it with the same id.
    Request {
        /// The request's id, echoed by the answer.
        id: RequestId,
        /// The method, such as `tools/call`.
        method: Cow<'a, str>,
        /// The params, unparsed; `None` when absent.
        params: Option<&'a RawValue>,
    },
    /// A notification: never answered.
    Notification {
        /// The method, such as `notifications/cancelled`.
        method: Cow<'a, str>,
        /// The params, unparsed; `None` when absent.
        params: Option<&'a RawValue>,
    },
    /// A response (result or error) to a request we sent.
    Response {
        /// The id of our request it answers.
        id: RequestId,
        /// The result, unparsed, or the error the peer answered with.
        result: Result<&'a RawValue, ErrorObject>,
    },
    /// A JSON array: a batch (only valid when 2025-03-26 was negotiated).
    Batch(Vec<&'a RawValue>),
    /// The line was not a valid message; answer with this error (with the id when it could be read).
    Invalid {
        /// The request's id, when it could be read.
        id: Option<RequestId>,
        /// The error to answer with (`-32700` or `-32600`).
        error: ErrorObject,
    },
    /// An error response whose id could not be read: nothing to answer, nothing to match.
    Ignored,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a RawValue>,
    /// Kept as `Some("null")` for an explicit null, which `Option` alone would turn into "absent".
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// Decodes one line (without its newline).
pub fn decode(line: &[u8]) -> Incoming<'_> {
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            return invalid(
                None,
                ErrorObject::parse_error(format!("invalid UTF-8: {e}")),
            )
        }
    };
    decode_str(text)
}

/// Decodes one message from text.
pub fn decode_str(text: &str) -> Incoming<'_> {
    let trimmed = text.trim_start();
    match trimmed.as_bytes().first() {
        Some(b'{') => {}
        Some(b'[') => {
            return match serde_json::from_str::<Vec<&RawValue>>(text) {
                Ok(items) if items.is_empty() => invalid(
                    None,
                    ErrorObject::invalid_request("Invalid Request: empty batch"),
                ),
                Ok(items) => Incoming::Batch(items),
                Err(e) => invalid(None, ErrorObject::parse_error(e)),
            }
        }
        _ => {
            // Valid JSON that is not an object is an invalid request; anything else a parse error.
            return match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Ok(_) => invalid(
                    None,
                    ErrorObject::invalid_request(
                        "Invalid Request: a message must be a JSON object",
                    ),
                ),
                Err(e) => invalid(None, ErrorObject::parse_error(e)),
            };
        }
    }
    let env: Envelope<'_> = match serde_json::from_str(text) {
        Ok(env) => env,
        Err(e) if e.is_data() => {
            return invalid(
                None,
                ErrorObject::invalid_request(format!("Invalid Request: {e}")),
            )
        }
        Err(e) => return invalid(None, ErrorObject::parse_error(e)),
    };
    classify(env)
}

fn invalid(id: Option<RequestId>, error: ErrorObject) -> Incoming<'static> {
    Incoming::Invalid { id, error }
}

enum IdField {
    Absent,
    Valid(RequestId),
    Bad(&'static str),
}

fn read_id(raw: Option<&RawValue>) -> IdField {
    let Some(raw) = raw else {
        return IdField::Absent;
    };
    if raw.get() == "null" {
        return IdField::Bad("id must not be null");
    }
    match serde_json::from_str::<RequestId>(raw.get()) {
        Ok(id) => IdField::Valid(id),
        Err(_) => IdField::Bad("id must be a string or an integer"),
    }
}

fn classify(env: Envelope<'_>) -> Incoming<'_> {
    let id = read_id(env.id);
    let valid_id = match &id {
        IdField::Valid(id) => Some(id.clone()),
        _ => None,
    };
    if env.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return invalid(
            valid_id,
            ErrorObject::invalid_request("Invalid Request: jsonrpc must be \"2.0\""),
        );
    }
    if let Some(method) = env.method {
        let method: Cow<'_, str> = match serde_json::from_str::<&str>(method.get()) {
            Ok(m) => Cow::Borrowed(m),
            Err(_) => match serde_json::from_str::<String>(method.get()) {
                Ok(m) => Cow::Owned(m),
                Err(_) => {
                    return invalid(
                        valid_id,
                        ErrorObject::invalid_request("Invalid Request: method must be a string"),
                    )
                }
            },
        };
        let params = env.params.filter(|p| p.get() != "null");
        if let Some(p) = params {
            if !matches!(p.get().as_bytes().first(), Some(b'{') | Some(b'[')) {
                if let IdField::Valid(id) = id {
                    return invalid(
                        Some(id),
                        ErrorObject::invalid_request("Invalid Request: params must be an object"),
                    );
                }
            }
        }
        return match id {
            IdField::Absent => Incoming::Notification { method, params },
            IdField::Valid(id) => Incoming::Request { id, method, params },
            IdField::Bad(why) => invalid(
                None,
                ErrorObject::invalid_request(format!("Invalid Request: {why}")),
            ),
        };
    }
    // No method: a response.
    match (id, env.result, env.error) {
        (IdField::Valid(id), Some(result), None) => Incoming::Response {
            id,
            result: Ok(result),
        },
        (IdField::Valid(id), None, Some(error)) => {
            match serde_json::from_str::<ErrorObject>(error.get()) {
                Ok(e) => Incoming::Response { id, result: Err(e) },
                Err(_) => Incoming::Response {
                    id,
                    result: Err(ErrorObject::internal("peer sent a malformed error object")),
                },
            }
        }
        (IdField::Absent | IdField::Bad(_), None, Some(_)) => Incoming::Ignored,
        (id, _, _) => {
            let id = match id {
                IdField::Valid(id) => Some(id),
                _ => None,
            };
            invalid(
                id,
                ErrorObject::invalid_request("Invalid Request: missing method"),
            )
        }
    }
}

/// Splits a byte stream into lines, keeping at most `max_line` bytes of one line in memory.
///
/// The buffer is zero-initialized only when it grows; `end` marks how much of it holds data, so a read
/// never pays for clearing memory it is about to overwrite.
pub struct LineBuffer {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Where the search for the next newline resumes.
    scanned: usize,
    max_line: usize,
    /// Set while discarding the rest of an oversized line.
    discarding: bool,
}

/// One item taken from a [`LineBuffer`].
pub enum Line<'a> {
    /// One non-blank line, without its `
    /// ` nor a `\r` before it.
    Complete(&'a [u8]),
    /// A line longer than the limit was dropped.
    TooLong,
}

const MIN_READ: usize = 16 * 1024;

impl LineBuffer {
    /// An empty buffer that drops lines longer than `max_line` bytes (and reports them as [`Line::TooLong`]).
    pub fn new(max_line: usize) -> Self {
        LineBuffer {
            buf: vec![0; 64 * 1024],
            start: 0,
            end: 0,
            scanned: 0,
            max_line,
            discarding: false,
        }
    }

    /// Room to read into; call [`LineBuffer::filled`] with the count read.
    pub fn spare(&mut self) -> &mut [u8] {
        self.shrink();
        if self.start > 0 && (self.start == self.end || self.buf.len() - self.end < MIN_READ) {
            // Move the unfinished line to the front.
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < MIN_READ {
            let grow = self.buf.len().max(64 * 1024);
            self.buf.resize(self.buf.len() + grow, 0);
        }
        &mut self.buf[self.end..]
    }

    /// Marks `n` bytes of [`LineBuffer::spare`] as read.
    pub fn filled(&mut self, n: usize) {
        self.end = (self.end + n).min(self.buf.len());
    }

    /// Gives back memory after a very large message.
    fn shrink(&mut self) {
        if self.start == self.end && self.buf.len() > 4 * 1024 * 1024 {
            self.buf = vec![0; 64 * 1024];
            self.start = 0;
            self.end = 0;
            self.scanned = 0;
        }
    }

    /// The next complete line, if any.
    pub fn next_line(&mut self) -> Option<Line<'_>> {
        self.next_line_and_rest().map(|(line, _)| line)
    }

    /// [`LineBuffer::next_line`], and whether bytes of more input follow it in the buffer (a line,
    /// or part of one).
    pub fn next_line_and_rest(&mut self) -> Option<(Line<'_>, bool)> {
        let span = self.next_span()?;
        let rest = self.start < self.end;
        Some(match span {
            Some((begin, end)) => (Line::Complete(&self.buf[begin..end]), rest),
            None => (Line::TooLong, rest),
        })
    }

    /// The bounds of the next non-blank line (`None` inside: a line too long was dropped).
    fn next_span(&mut self) -> Option<Option<(usize, usize)>> {
        loop {
            let hay = &self.buf[self.scanned..self.end];
            match memchr::memchr(b'\n', hay) {
                Some(pos) => {
                    let mut end = self.scanned + pos;
                    let begin = self.start;
                    self.start = end + 1;
                    self.scanned = self.start;
                    if self.discarding {
                        self.discarding = false;
                        return Some(None);
                    }
                    if end > begin && self.buf[end - 1] == b'\r' {
                        end -= 1;
                    }
                    if self.buf[begin..end].iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Some(Some((begin, end)));
                }
                None => {
                    self.scanned = self.end;
                    if self.end - self.start > self.max_line {
                        // Drop what we have of this line and skip to its end.
                        self.discarding = true;
                        self.start = self.end;
                    }
                    return None;
                }
            }
        }
    }

    /// What is left at EOF: a final line without a newline.
    pub fn take_rest(&mut self) -> Option<Line<'_>> {
        if self.start >= self.end {
            return None;
        }
        let begin = self.start;
        self.start = self.end;
        self.scanned = self.end;
        if self.discarding {
            return Some(Line::TooLong);
        }
        let line = &self.buf[begin..self.end];
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(Line::Complete(line))
    }
}

/// Writers of complete frames, each ending in `\n`.
pub mod frame {
    use super::*;

    fn push_id(out: &mut Vec<u8>, id: &RequestId) {
        match id {
            RequestId::Number(n) => {
                // Digits by hand: `write!` goes through the formatting machinery on every frame.
                let mut digits = [0u8; 20];
                let mut i = digits.len();
                let mut v = n.unsigned_abs();
                loop {
                    i -= 1;
                    digits[i] = b'0' + (v % 10) as u8;
                    v /= 10;
                    if v == 0 {
                        break;
                    }
                }
                if *n < 0 {
                    out.push(b'-');
                }
                out.extend_from_slice(&digits[i..]);
            }
            RequestId::String(s) => {
                let _ = serde_json::to_writer(&mut *out, &**s);
            }
        }
    }

    /// A success response carrying `result`, already serialized.
    pub fn response(id: &RequestId, result: &RawValue) -> Vec<u8> {
        let mut out = crate::bufpool::take(result.get().len() + 48);
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        push_id(&mut out, id);
        out.extend_from_slice(b",\"result\":");
        out.extend_from_slice(result.get().as_bytes());
        out.extend_from_slice(b"}\n");
        out
    }

    /// A success response whose result is serialized straight into the frame, with no JSON text in
    /// between. `hint` is the size the result is expected to have (a tool call's params, say): a large
    /// hint frames into a warm buffer of that size, so a large result costs neither fresh pages nor a
    /// copy; a small one serializes through the per-thread scratch, then into a frame of exact size.
    pub fn response_to<T: serde::Serialize + ?Sized>(
        id: &RequestId,
        result: &T,
        hint: usize,
    ) -> Result<Vec<u8>, ErrorObject> {
        const HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";
        let head = |out: &mut Vec<u8>| {
            out.extend_from_slice(HEAD);
            push_id(out, id);
            out.extend_from_slice(b",\"result\":");
        };
        if hint < crate::bufpool::MIN {
            return with_scratch(result, |json| {
                let mut out = Vec::with_capacity(json.len() + 48);
                head(&mut out);
                out.extend_from_slice(json);
                out.extend_from_slice(b"}\n");
                out
            });
        }
        let mut out = crate::bufpool::take(hint + 64);
        head(&mut out);
        if let Err(e) = serde_json::to_writer(&mut out, result) {
            crate::bufpool::give(out);
            return Err(serialize_failed(e));
        }
        out.extend_from_slice(b"}\n");
        Ok(crate::bufpool::fit(out))
    }

    /// An error response; `id` is `None` (written as absent) when the request's id could not be read.
    pub fn error(id: Option<&RequestId>, error: &ErrorObject) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",");
        if let Some(id) = id {
            out.extend_from_slice(b"\"id\":");
            push_id(&mut out, id);
            out.push(b',');
        }
        out.extend_from_slice(b"\"error\":");
        let _ = serde_json::to_writer(&mut out, error);
        out.extend_from_slice(b"}\n");
        out
    }

    /// A success or error response, whichever `reply` holds.
    pub fn reply(id: &RequestId, reply: &Result<Box<RawValue>, ErrorObject>) -> Vec<u8> {
        match reply {
            Ok(r) => response(id, r),
            Err(e) => error(Some(id), e),
        }
    }

    /// A request with this id, method and params (absent when `None`).
    pub fn request(id: &RequestId, method: &str, params: Option<&RawValue>) -> Vec<u8> {
        let mut out = crate::bufpool::take(64 + method.len() + params.map_or(0, |p| p.get().len()));
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        push_id(&mut out, id);
        out.extend_from_slice(b",\"method\":");
        let _ = serde_json::to_writer(&mut out, method);
        if let Some(p) = params {
            out.extend_from_slice(b",\"params\":");
            out.extend_from_slice(p.get().as_bytes());
        }
        out.extend_from_slice(b"}\n");
        out
    }

    /// A notification with this method and params (absent when `None`).
    pub fn notification(method: &str, params: Option<&RawValue>) -> Vec<u8> {
        let mut out = crate::bufpool::take(48 + method.len() + params.map_or(0, |p| p.get().len()));
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
        let _ = serde_json::to_writer(&mut out, method);
        if let Some(p) = params {
            out.extend_from_slice(b",\"params\":");
            out.extend_from_slice(p.get().as_bytes());
        }
        out.extend_from_slice(b"}\n");
        out
    }
}

/// Strings shorter than this are left to serde_json; longer ones are escaped 8 bytes at a time.
const LONG_STRING: usize = 4096;

/// Serializes a string that may be long (a tool's text, base64 data) with a word-at-a-time escape, then
/// hands the escaped JSON to serde_json as a raw value: serde_json's own escape loop takes one byte at a
/// time, which is most of the cost of a large result. Output is byte for byte what serde_json writes.
pub(crate) fn serialize_long_str<S: serde::Serializer>(s: &str, ser: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    if s.len() < LONG_STRING {
        return ser.serialize_str(s);
    }
    // The escaped text is scratch (the serializer copies it): a warm buffer, given back after.
    let mut out = crate::bufpool::take(s.len() + s.len() / 8 + 2);
    escape_json_str(s, &mut out);
    // SAFETY: escaping keeps valid UTF-8 valid (only ASCII bytes are inserted).
    let json = unsafe { std::str::from_utf8_unchecked(&out) };
    // serde_json's (and serde_json::Value's) serializers write a struct of this name verbatim: this is
    // how `RawValue` serializes itself, without re-parsing what we know is a valid JSON string.
    const RAW: &str = "$serde_json::private::RawValue";
    let done = ser.serialize_struct(RAW, 1).and_then(|mut st| {
        st.serialize_field(RAW, json)?;
        st.end()
    });
    crate::bufpool::give(out);
    done
}

/// Appends `s` as a JSON string (quotes included), escaping exactly what serde_json escapes. Clean runs
/// are found 32 bytes at a time (SSE2 on x86-64, a word at a time elsewhere) and copied in bulk.
pub fn escape_json_str(s: &str, out: &mut Vec<u8>) {
    fn escape(c: u8, out: &mut Vec<u8>) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(c >> 4) as usize],
                HEX[(c & 0xf) as usize],
            ]),
        }
    }
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    loop {
        let end = clean_until(bytes, start);
        out.extend_from_slice(&bytes[start..end]);
        let Some(&c) = bytes.get(end) else { break };
        escape(c, out);
        start = end + 1;
    }
    out.push(b'"');
}

/// Whether a byte must be escaped in a JSON string: a control character, `"` or `\`.
fn must_escape(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// The index of the first byte at or after `from` that must be escaped (`bytes.len()` if none).
#[cfg(target_arch = "x86_64")]
fn clean_until(bytes: &[u8], from: usize) -> usize {
    use std::arch::x86_64::*;
    let mut i = from;
    // SAFETY: SSE2 is part of the x86-64 baseline; every load reads 16 bytes inside `bytes`
    // (`i + 32 <= len`), unaligned loads being allowed.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        let control = _mm_set1_epi8(0x1f);
        let hits = |x: __m128i| {
            // `min(x, 0x1f) == x` (unsigned) is `x <= 0x1f`.
            let ctl = _mm_cmpeq_epi8(_mm_min_epu8(x, control), x);
            let q = _mm_cmpeq_epi8(x, quote);
            let b = _mm_cmpeq_epi8(x, backslash);
            _mm_or_si128(ctl, _mm_or_si128(q, b))
        };
        while i + 32 <= bytes.len() {
            let p = bytes.as_ptr().add(i);
            let a = hits(_mm_loadu_si128(p.cast()));
            let b = hits(_mm_loadu_si128(p.add(16).cast()));
            if _mm_movemask_epi8(_mm_or_si128(a, b)) != 0 {
                let mask = (_mm_movemask_epi8(a) as u32) | ((_mm_movemask_epi8(b) as u32) << 16);
                return i + mask.trailing_zeros() as usize;
            }
            i += 32;
        }
    }
    i + bytes[i..]
        .iter()
        .position(|&c| must_escape(c))
        .unwrap_or(bytes.len() - i)
}

/// The index of the first byte at or after `from` that must be escaped (`bytes.len()` if none).
#[cfg(not(target_arch = "x86_64"))]
fn clean_until(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while i + 8 <= bytes.len() {
        let w = u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let control = w.wrapping_sub(ONES * 0x20) & !w;
        let q = w ^ (ONES * b'"' as u64);
        let b = w ^ (ONES * b'\\' as u64);
        if (control | (q.wrapping_sub(ONES) & !q) | (b.wrapping_sub(ONES) & !b)) & HIGH != 0 {
            if let Some(k) = bytes[i..i + 8].iter().position(|&c| must_escape(c)) {
                return i + k;
            }
        }
        i += 8;
    }
    i + bytes[i..]
        .iter()
        .position(|&c| must_escape(c))
        .unwrap_or(bytes.len() - i)
}

fn serialize_failed(e: serde_json::Error) -> ErrorObject {
    ErrorObject::internal(format!("failed to serialize result: {e}"))
}

/// Serializes `value` into a per-thread scratch buffer that stays warm and hands the JSON to `then`:
/// serializing straight into a new buffer grows it by doubling, which for a large value means several
/// fresh allocations (and page faults) and twice the memory.
fn with_scratch<T: serde::Serialize + ?Sized, R>(
    value: &T,
    then: impl FnOnce(&[u8]) -> R,
) -> Result<R, ErrorObject> {
    use std::cell::RefCell;
    /// Scratch capacity kept between results; a larger one is freed after use.
    const KEEP: usize = 4 * 1024 * 1024;
    thread_local!(static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) });
    SCRATCH.with(|cell| {
        // A `Serialize` impl that itself serializes through here finds the scratch in use: a buffer of
        // its own then.
        let Ok(mut scratch) = cell.try_borrow_mut() else {
            let json = serde_json::to_vec(value).map_err(serialize_failed)?;
            return Ok(then(&json));
        };
        scratch.clear();
        let done = serde_json::to_writer(&mut *scratch, value)
            .map(|()| then(&scratch))
            .map_err(serialize_failed);
        if scratch.capacity() > KEEP {
            *scratch = Vec::new();
        }
        done
    })
}

/// Serializes a value to raw JSON. Serialization of our own types cannot fail in practice; if a user's
/// type fails, the error becomes an internal error for that request alone.
///
/// The value is written into a per-thread scratch buffer that stays warm, then copied once into an
/// allocation of exactly its size.
pub fn to_raw<T: serde::Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, ErrorObject> {
    with_scratch(value, |json| {
        // SAFETY: serde_json writes valid UTF-8.
        let text = unsafe { std::str::from_utf8_unchecked(json) };
        serde_json::value::to_raw_value(&Verbatim(text)).map_err(serialize_failed)
    })?
}

/// JSON text that we wrote (from serde_json's output and text it wrote before) as raw JSON, without the
/// re-parse [`RawValue::from_string`] does.
pub(crate) fn raw_text(text: String) -> Result<Box<RawValue>, ErrorObject> {
    serde_json::value::to_raw_value(&Verbatim(&text)).map_err(serialize_failed)
}

/// [`raw_text`] of a slice of JSON text that was validated already (a member of a decoded message),
/// copied without the re-parse [`RawValue::from_string`] does; serde_json's error type, for readers
/// that report serde's errors.
pub(crate) fn raw_verbatim(text: &str) -> Result<Box<RawValue>, serde_json::Error> {
    serde_json::value::to_raw_value(&Verbatim(text))
}

/// Serializes already-valid JSON text verbatim (as `RawValue` itself does), without a re-parse.
struct Verbatim<'a>(&'a str);

impl serde::Serialize for Verbatim<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        const RAW: &str = "$serde_json::private::RawValue";
        let mut st = ser.serialize_struct(RAW, 1)?;
        st.serialize_field(RAW, self.0)?;
        st.end()
    }
}

/// The members of a JSON object whose text was validated already (it is part of a message that
/// [`decode`] parsed): each key as written (quotes included) and its value's text, found without
/// validating again. Strings are skipped a run at a time (`memchr2` for `"` and `\\`), so a member of a
/// megabyte costs a small fraction of a parse. `None` when the text is not an object (or, since the
/// text is trusted but not relied on, when it turns out not to be JSON: never a panic).
pub(crate) fn object_members(text: &str) -> Option<Vec<(&str, &str)>> {
    let mut members = Vec::new();
    each_member(text, |key, value| {
        members.push((key, value));
        true
    })?;
    Some(members)
}

/// The value of the first member `key` (written with its quotes, as [`object_members`] gives keys) of
/// an object whose text was validated already, found as [`object_members`] finds members and without
/// reading past it: `Some(None)` when there is none, `None` when the text is not an object.
pub(crate) fn object_member<'a>(text: &'a str, key: &str) -> Option<Option<&'a str>> {
    let mut found = None;
    each_member(text, |k, value| {
        if k == key {
            found = Some(value);
        }
        found.is_none()
    })?;
    Some(found)
}

/// Hands each member of an object's text to `each` (see [`object_members`]) until it says stop
/// (`false`). `None` when the text is not an object.
pub(crate) fn each_member<'a>(
    text: &'a str,
    mut each: impl FnMut(&'a str, &'a str) -> bool,
) -> Option<()> {
    let b = text.as_bytes();
    let ws = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(());
    }
    loop {
        let key_end = skip_string(b, i)?;
        let key = text.get(i..key_end)?;
        i = ws(key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = ws(i + 1);
        let end = skip_value(b, start)?;
        if !each(key, text.get(start..end)?) {
            return Some(());
        }
        i = ws(end);
        match b.get(i)? {
            b',' => i = ws(i + 1),
            b'}' => return Some(()),
            _ => return None,
        }
    }
}

/// The end (past the closing quote) of the JSON string starting at `i`.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        j += memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
        if b[j] == b'"' {
            return Some(j + 1);
        }
        j += 2;
    }
}

/// The end of the (valid) JSON value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace())
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// Where a serde_json error points, as a path in the style of serde_path_to_error (`filter.labels[2]`,
/// empty for the whole value). Found by scanning the text up to the error's position, so that a caller
/// generic over the target type needs only one instantiation of its `Deserialize` (with serde_json's
/// deserializer) instead of a second one for path tracking.
pub(crate) fn error_path(text: &str, e: &serde_json::Error) -> String {
    if !e.is_data() {
        // Malformed JSON has no field at fault (and arguments were checked as JSON on arrival).
        return String::new();
    }
    // serde_json's line and column (1-based, in bytes) of the error: the end of what it had read.
    let mut at = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == e.line() {
            at += e.column().min(line.len());
            break;
        }
        at += line.len();
    }
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < at.min(bytes.len()) {
        match bytes[i] {
            b'{' => stack.push(Frame::Object(None)),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Frame::Array(n)) = stack.last_mut() {
                    *n += 1;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                // A string followed by `:` is a key of the object around it.
                let mut j = i + 1;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j < at && bytes.get(j) == Some(&b':') {
                    if let Some(Frame::Object(key)) = stack.last_mut() {
                        let raw = text.get(start..=i.min(bytes.len() - 1)).unwrap_or("\"\"");
                        *key = Some(serde_json::from_str(raw).unwrap_or_default());
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for f in &stack {
        match f {
            Frame::Object(Some(k)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Frame::Object(None) => {}
            Frame::Array(n) => path.push_str(&format!("[{n}]")),
        }
    }
    path
}

/// Parses params into a type; a failure is `-32602` with `data` naming the field at fault. MCP's params
/// are always an object: JSON-RPC's by-position form (an array) is `-32602` too, where serde's derive
/// would read a struct from it field by field.
pub fn parse_params<'a, T: Deserialize<'a>>(
    params: Option<&'a RawValue>,
) -> Result<T, ErrorObject> {
    let text = params.map_or("{}", RawValue::get);
    if !text.trim_start().starts_with('{') {
        const WHY: &str = "params must be an object";
        return Err(
            ErrorObject::invalid_params(format!("Invalid params: {WHY}"))
                .with_data(serde_json::json!({ "reason": WHY })),
        );
    }
    // The field at fault is found from where the error points (as serde_path_to_error would name it).
    serde_json::from_str(text).map_err(|inner| {
        let path = error_path(text, &inner);
        let field = if path.is_empty() { None } else { Some(path) };
        let msg = match &field {
            Some(f) => format!("Invalid params: {f}: {inner}"),
            None => format!("Invalid params: {inner}"),
        };
        let mut data = serde_json::Map::new();
        if let Some(f) = field {
            data.insert("field".into(), f.into());
        }
        data.insert("reason".into(), inner.to_string().into());
        ErrorObject::invalid_params(msg).with_data(serde_json::Value::Object(data))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(lb: &mut LineBuffer, data: &[u8]) {
        let spare = lb.spare();
        spare[..data.len()].copy_from_slice(data);
        lb.filled(data.len());
    }

    fn collect(lb: &mut LineBuffer) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(l) = lb.next_line() {
            out.push(match l {
                Line::Complete(b) => String::from_utf8_lossy(b).into_owned(),
                Line::TooLong => "<too long>".into(),
            });
        }
        out
    }

    #[test]
    fn lines_split_across_reads_are_joined() {
        let mut lb = LineBuffer::new(1024);
        feed(&mut lb, b"{\"a\":1}\n{\"b\"");
        assert_eq!(collect(&mut lb), ["{\"a\":1}"]);
        feed(&mut lb, b":2}\r\n\n  \n{\"c\":3}\n");
        assert_eq!(collect(&mut lb), ["{\"b\":2}", "{\"c\":3}"]);
        feed(&mut lb, b"tail");
        assert!(collect(&mut lb).is_empty());
        assert!(matches!(lb.take_rest(), Some(Line::Complete(b"tail"))));
    }

    #[test]
    fn an_oversized_line_is_skipped_and_the_next_one_read() {
        let mut lb = LineBuffer::new(100);
        for _ in 0..10 {
            feed(&mut lb, &[b'x'; 50]);
            let _ = collect(&mut lb);
        }
        feed(&mut lb, b"xx\nok\n");
        assert_eq!(collect(&mut lb), ["<too long>", "ok"]);
    }

    #[test]
    fn classification() {
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":"a","method":"m"}"#),
            Incoming::Request {
                id: RequestId::String(_),
                ..
            }
        ));
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","method":"m"}"#),
            Incoming::Notification { .. }
        ));
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Incoming::Response { result: Ok(_), .. }
        ));
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#),
            Incoming::Response { result: Err(_), .. }
        ));
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":null,"method":"m"}"#),
            Incoming::Invalid { id: None, .. }
        ));
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":1}"#),
            Incoming::Invalid { id: Some(_), .. }
        ));
        assert!(matches!(decode(b"[1,2]"), Incoming::Batch(v) if v.len() == 2));
        assert!(matches!(decode(b"[]"), Incoming::Invalid { .. }));
        match decode(b"{not json") {
            Incoming::Invalid { error, .. } => {
                assert_eq!(error.code, crate::protocol::codes::PARSE_ERROR)
            }
            _ => panic!(),
        }
    }

    #[test]
    fn long_strings_are_escaped_exactly_as_serde_json_escapes_them() {
        #[derive(serde::Serialize)]
        struct T<'a> {
            #[serde(serialize_with = "serialize_long_str")]
            text: &'a str,
        }
        let mut text = String::new();
        for c in (0u8..0x80).map(char::from).chain("é✓𝄞".chars()) {
            text.push(c);
        }
        let text = text.repeat(LONG_STRING / 64 + 3);
        for s in [
            &text[..],
            &text[1..],
            &text[..LONG_STRING + 5],
            "short \" \\ \n",
        ] {
            let mut ours = Vec::new();
            escape_json_str(s, &mut ours);
            assert_eq!(ours, serde_json::to_vec(s).unwrap());
            let t = T { text: s };
            let expected = serde_json::json!({ "text": s });
            assert_eq!(serde_json::to_value(&t).unwrap(), expected);
            assert_eq!(serde_json::to_string(&t).unwrap(), expected.to_string());
            assert_eq!(to_raw(&t).unwrap().get(), expected.to_string());
        }
    }

    #[test]
    fn error_paths_are_the_ones_serde_path_to_error_finds() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Label {
            name: String,
            color: u8,
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        enum Kind {
            Bug,
            Story { points: u32 },
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Filter {
            labels: Vec<Label>,
            kind: Option<Kind>,
            #[serde(rename = "max results")]
            max: Option<u32>,
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Args {
            query: String,
            limit: Option<u8>,
            filter: Option<Filter>,
            tags: Option<Vec<Vec<u32>>>,
        }
        let cases = [
            r#"{"query": 5}"#,
            r#"{"query": "x", "limit": 256}"#,
            r#"{"query": "x", "limit": -1}"#,
            r#"{"limit": 3}"#,
            r#"{"query": "x", "filter": {"labels": [{"name": "a", "color": 1}, {"name": "b", "color": "red"}]}}"#,
            r#"{"query": "x", "filter": {"labels": [{"name": "a", "color": 1}, {"color": 2}]}}"#,
            r#"{"query": "x", "filter": {"labels": []}, "tags": [[1], [2, "x"]]}"#,
            r#"{"query": "x", "filter": {"labels": [], "kind": {"Story": {"points": "many"}}}}"#,
            r#"{"query": "x", "filter": {"labels": [], "kind": "Epic"}}"#,
            r#"{"query": "x", "filter": {"labels": [], "max results": true}}"#,
            r#"{"query": "a\"b:c", "filter": {"labels": [{"name": "{[,\"", "color": 300}]}}"#,
            "{\n  \"query\": \"x\",\n  \"filter\": {\n    \"labels\": [\n      {\"name\": 1}\n    ]\n  }\n}",
            r#"{"query": "x", "limit": 1"#,
        ];
        for text in cases {
            let ours = serde_json::from_str::<Args>(text).unwrap_err();
            let theirs = serde_path_to_error::deserialize::<_, Args>(
                &mut serde_json::Deserializer::from_str(text),
            )
            .unwrap_err();
            let expected = theirs.path().to_string();
            let expected = if expected == "." || !ours.is_data() {
                String::new()
            } else {
                expected
            };
            assert_eq!(error_path(text, &ours), expected, "for {text}: {ours}");
            assert_eq!(ours.to_string(), theirs.into_inner().to_string());
        }
    }

    #[test]
    fn results_framed_directly_are_the_frames_of_their_json() {
        let big = "x\"y\n".repeat(100_000);
        let values = [
            serde_json::json!({"a": "b\nc"}),
            serde_json::json!({"content": [{"type": "text", "text": big}]}),
        ];
        let ids = [RequestId::Number(-3), RequestId::String("a\"b".into())];
        for v in &values {
            for id in &ids {
                let expected = frame::response(id, &to_raw(v).unwrap());
                for hint in [0, 10, 1 << 20, 4 << 20] {
                    let f = frame::response_to(id, v, hint).unwrap();
                    assert_eq!(f, expected, "hint {hint}");
                    assert!(f.capacity() < 2 * f.len() + crate::bufpool::MIN);
                }
            }
        }
        struct Fails;
        impl serde::Serialize for Fails {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("no"))
            }
        }
        for hint in [0, 1 << 20] {
            let e = frame::response_to(&RequestId::Number(1), &Fails, hint).unwrap_err();
            assert!(e.message.contains("no"), "{e:?}");
        }
    }

    #[test]
    fn object_members_are_the_ones_serde_json_reads() {
        let cases = [
            r#"{}"#,
            r#" { "a" : 1 , "b":"x\\\"y}" ,"c":{"d":[1,{"e":"]"}],"f":null},"g":[ ],"h":-1.5e3,"i":true } "#,
            r#"{"name":"echo","arguments":{"text":"a\\\\\\\"b\\nc"}}"#,
            r#"{"k\\u0061":"v"}"#,
        ];
        for text in cases {
            let ours = object_members(text).expect(text);
            let theirs: std::collections::BTreeMap<String, &RawValue> =
                serde_json::from_str(text).unwrap();
            assert_eq!(ours.len(), theirs.len(), "{text}");
            for (k, v) in &ours {
                let key: String = serde_json::from_str(k).unwrap();
                assert_eq!(*v, theirs[&key].get(), "{text}");
            }
        }
        for bad in [
            "[1]",
            "1",
            "",
            "{",
            r#"{"a"}"#,
            r#"{"a":"#,
            r#"{"a":"x"#,
            r#"{"a":1 "b":2}"#,
        ] {
            assert!(object_members(bad).is_none(), "{bad}");
        }
        // One member is found without reading past it (what follows it is not looked at).
        let text = r#" {"a":{"b":1},"b" : [2], "b":3,"c":"#;
        assert_eq!(object_member(text, r#""b""#), Some(Some("[2]")));
        assert_eq!(object_member(r#"{"a":1}"#, r#""b""#), Some(None));
        assert_eq!(object_member("[1]", r#""a""#), None);
    }

    #[test]
    fn params_are_an_object_never_a_struct_read_by_position() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Two {
            a: u8,
            #[serde(default)]
            b: u8,
        }
        let raw = |t: &str| RawValue::from_string(t.to_string()).unwrap();
        assert!(parse_params::<Two>(Some(&raw(r#"{"a":1}"#))).is_ok());
        // serde's derive reads the same struct from `[1, 2]`; MCP's params are an object.
        assert!(serde_json::from_str::<Two>("[1,2]").is_ok());
        for bad in ["[1,2]", "[]"] {
            let e = parse_params::<Two>(Some(&raw(bad))).unwrap_err();
            assert_eq!(e.code, crate::protocol::codes::INVALID_PARAMS, "{bad}");
            assert_eq!(e.message, "Invalid params: params must be an object");
        }
        // Absent params read as an empty object.
        assert!(parse_params::<Two>(None).is_err_and(|e| e.message.contains("missing field `a`")));
    }

    #[test]
    fn frames_are_single_lines_with_exact_ids() {
        let raw = to_raw(&serde_json::json!({"a": "b\nc"})).unwrap();
        let f = frame::response(&RequestId::String("7".into()), &raw);
        assert_eq!(
            f,
            b"{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{\"a\":\"b\\nc\"}}\n"
        );
        for n in [0, 7, -12, i64::MAX, i64::MIN] {
            let f = frame::response(&RequestId::Number(n), &raw);
            assert_eq!(
                f,
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{n},\"result\":{{\"a\":\"b\\nc\"}}}}\n")
                    .into_bytes()
            );
        }
        let e = frame::error(None, &ErrorObject::parse_error("x"));
        assert_eq!(
            e,
            b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error: x\"}}\n"
        );
    }
}
