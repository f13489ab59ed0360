//! The recorded-session format: JSON Lines, one message per line, as the client saw the wire.
//!
//! ```text
//! {"mcpRecording":1,"server":{"stdio":"npx -y @modelcontextprotocol/server-everything"},"redacted":["env GITHUB_TOKEN"]}
//! {"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{...}}}
//! {"dir":"s2c","ms":212,"msg":{"jsonrpc":"2.0","id":0,"result":{...}}}
//! {"dir":"c2s","ms":215,"msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
//! ```
//!
//! The first line is the header: the format's version, the server recorded (`stdio` command line or
//! `url`, secrets already redacted) and what was redacted. Every other line is one message: `dir` is
//! `c2s` (client to server) or `s2c` (server to client), `ms` the milliseconds since the recording
//! started (never decreasing), `msg` the JSON-RPC message exactly as it crossed the wire, ids included.
//! A line the client or server sent that was not JSON is kept as `{"dir":..,"ms":..,"invalid":"text"}`.
//!
//! [`Session::load`] refuses a recording that is truncated or was edited into something no session could
//! have produced, naming the line and the problem.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// The version of the format this crate writes and reads.
pub const FORMAT_VERSION: u64 = 1;

/// The largest recording [`Session::load`] reads: a recording is held in memory whole.
pub const MAX_RECORDING_BYTES: u64 = 256 * 1024 * 1024;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// From the client to the server.
    #[serde(rename = "c2s")]
    ClientToServer,
    /// From the server to the client.
    #[serde(rename = "s2c")]
    ServerToClient,
}

/// The server a recording was made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recorded {
    /// A command line run with the server on its stdio.
    Stdio(String),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// The first line of a recording.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// [`FORMAT_VERSION`].
    #[serde(rename = "mcpRecording")]
    pub version: u64,
    /// The server recorded.
    pub server: Recorded,
    /// What was redacted (`env NAME`, `header NAME`), never the values.
    #[serde(default)]
    pub redacted: Vec<String>,
}

/// One recorded message.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The line of the recording it was read from (1-based; the header is line 1).
    pub line: usize,
    /// Which way it went.
    pub dir: Direction,
    /// Milliseconds since the recording started.
    pub ms: u64,
    /// The message.
    pub message: Message,
    /// The message's text as recorded (member order kept, which [`Message`]'s maps do not keep).
    pub raw: Option<Box<serde_json::value::RawValue>>,
}

impl Entry {
    /// The text of one member of the recorded message (`result`, `error`), as recorded.
    pub fn raw_member(&self, name: &str) -> Option<Box<serde_json::value::RawValue>> {
        let raw = self.raw.as_ref()?;
        let members: std::collections::HashMap<&str, &serde_json::value::RawValue> =
            serde_json::from_str(raw.get()).ok()?;
        members.get(name).map(|v| (*v).to_owned())
    }
}

/// A recorded JSON-RPC message, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: id, method, params.
    Request {
        /// Its id.
        id: Value,
        /// Its method.
        method: String,
        /// Its params, when present.
        params: Option<Value>,
    },
    /// A notification.
    Notification {
        /// Its method.
        method: String,
        /// Its params, when present.
        params: Option<Value>,
    },
    /// A response: the id it answers and its `result` (`Ok`) or `error` (`Err`).
    Response {
        /// The id of the request it answers.
        id: Value,
        /// The result, or the error object.
        outcome: Result<Value, Value>,
    },
    /// A line that was not a JSON-RPC message, kept as text.
    Invalid(String),
}

/// A recorded session, checked.
#[derive(Debug, Clone)]
pub struct Session {
    /// Its first line.
    pub header: Header,
    /// Its messages, in the order they crossed the wire.
    pub entries: Vec<Entry>,
}

/// Why a recording was refused: the file, the line and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: {problem}", path.display())]
pub struct RecordingError {
    /// The recording.
    pub path: PathBuf,
    /// The line (1-based; 0 for the file as a whole).
    pub line: usize,
    /// What is wrong with it.
    pub problem: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    dir: Direction,
    ms: u64,
    #[serde(default)]
    msg: Option<Box<serde_json::value::RawValue>>,
    #[serde(default)]
    invalid: Option<String>,
}

impl Session {
    /// Reads and checks a recording.
    pub fn load(path: &Path) -> Result<Session, RecordingError> {
        let err = |line: usize, problem: String| RecordingError {
            path: path.to_path_buf(),
            line,
            problem,
        };
        let file = std::fs::File::open(path).map_err(|e| err(0, format!("cannot open: {e}")))?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        if size > MAX_RECORDING_BYTES {
            return Err(err(
                0,
                format!("{size} bytes is more than the {MAX_RECORDING_BYTES} a recording may hold"),
            ));
        }
        let mut reader = std::io::BufReader::new(file);
        Session::read(&mut reader).map_err(|(line, problem)| err(line, problem))
    }

    /// Reads and checks a recording from any reader; `Err` is the line and the problem.
    pub fn read(reader: &mut impl BufRead) -> Result<Session, (usize, String)> {
        let mut header = None;
        let mut entries = Vec::new();
        let mut checker = Checker::default();
        let mut text = String::new();
        let mut number = 0;
        loop {
            text.clear();
            let n = reader
                .read_line(&mut text)
                .map_err(|e| (number + 1, format!("cannot read: {e}")))?;
            if n == 0 {
                break;
            }
            number += 1;
            let line = text.trim_end_matches(['\n', '\r']);
            if line.trim().is_empty() {
                continue;
            }
            if header.is_none() {
                header = Some(parse_header(line).map_err(|p| (number, p))?);
                continue;
            }
            let entry = parse_entry(number, line).map_err(|p| (number, p))?;
            checker.check(&entry).map_err(|p| (number, p))?;
            entries.push(entry);
        }
        let header = header.ok_or_else(|| {
            (
                1,
                "the recording is empty: its first line should be the header {\"mcpRecording\":1,...}"
                    .to_string(),
            )
        })?;
        Ok(Session { header, entries })
    }
}

fn parse_header(line: &str) -> Result<Header, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| {
        format!("the header is not JSON ({e}); expected {{\"mcpRecording\":1,...}}")
    })?;
    if value.get("mcpRecording").is_none() {
        return Err(
            "the first line is not a recording's header (it has no \"mcpRecording\"); is this a recording made by `mcp-codegen record`?"
                .into(),
        );
    }
    let header: Header =
        serde_json::from_value(value).map_err(|e| format!("the header is malformed: {e}"))?;
    if header.version != FORMAT_VERSION {
        return Err(format!(
            "the recording is in format {}; this mcp-codegen reads format {FORMAT_VERSION}",
            header.version
        ));
    }
    Ok(header)
}

fn parse_entry(line: usize, text: &str) -> Result<Entry, String> {
    let raw: RawEntry = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            format!("the line ends in the middle of a message (a truncated recording?): {e}")
        } else {
            format!("not a recorded message ({e}); expected {{\"dir\":\"c2s\"|\"s2c\",\"ms\":N,\"msg\":{{...}}}}")
        }
    })?;
    let message = match (&raw.msg, raw.invalid) {
        (Some(msg), None) => classify(
            serde_json::from_str(msg.get()).map_err(|e| format!("\"msg\" is not JSON: {e}"))?,
        )?,
        (None, Some(text)) => Message::Invalid(text),
        _ => return Err("a recorded message has exactly one of \"msg\" and \"invalid\"".into()),
    };
    Ok(Entry {
        line,
        dir: raw.dir,
        ms: raw.ms,
        message,
        raw: raw.msg,
    })
}

/// Classifies one JSON-RPC message, or says why it is not one.
pub fn classify(msg: Value) -> Result<Message, String> {
    let Value::Object(mut m) = msg else {
        return Err("\"msg\" is not a JSON-RPC message (not an object)".into());
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err("\"msg\" has no \"jsonrpc\":\"2.0\"".into());
    }
    let id = m.remove("id");
    if let Some(id) = &id {
        if !(id.is_string() || id.is_i64() || id.is_u64() || id.is_null()) {
            return Err(format!("the id {id} is neither a string nor an integer"));
        }
    }
    let params = m.remove("params");
    match (m.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => Ok(Message::Request { id, method, params }),
        (Some(Value::String(method)), None) => Ok(Message::Notification { method, params }),
        (Some(other), _) => Err(format!("the method {other} is not a string")),
        (None, Some(id)) => match (m.remove("result"), m.remove("error")) {
            (Some(result), None) => Ok(Message::Response {
                id,
                outcome: Ok(result),
            }),
            (None, Some(error)) => {
                if !error.get("code").is_some_and(Value::is_i64)
                    || !error.get("message").is_some_and(Value::is_string)
                {
                    return Err(format!(
                        "the error {error} has no integer \"code\" and string \"message\""
                    ));
                }
                Ok(Message::Response {
                    id,
                    outcome: Err(error),
                })
            }
            _ => Err("a response has exactly one of \"result\" and \"error\"".into()),
        },
        (None, None) => Err("\"msg\" is neither a request, a notification nor a response".into()),
    }
}

/// What the lines so far allow the next one to be: time never goes back, an id is never in flight
/// twice from one side, and every response answers a request of the other side still waiting.
#[derive(Default)]
struct Checker {
    last_ms: u64,
    open_client: HashSet<String>,
    open_server: HashSet<String>,
}

impl Checker {
    fn check(&mut self, entry: &Entry) -> Result<(), String> {
        if entry.ms < self.last_ms {
            return Err(format!(
                "the time goes back ({} ms after a message at {} ms)",
                entry.ms, self.last_ms
            ));
        }
        self.last_ms = entry.ms;
        let (mine, theirs, who, other) = match entry.dir {
            Direction::ClientToServer => (
                &mut self.open_client,
                &mut self.open_server,
                "client",
                "server",
            ),
            Direction::ServerToClient => (
                &mut self.open_server,
                &mut self.open_client,
                "server",
                "client",
            ),
        };
        match &entry.message {
            Message::Request { id, method, .. } => {
                if !mine.insert(id.to_string()) {
                    return Err(format!(
                        "the {who} sends {method} with the id {id}, which a request of its own still waiting uses"
                    ));
                }
            }
            Message::Response { id, .. } => {
                if !theirs.remove(&id.to_string()) && !id.is_null() {
                    return Err(format!(
                        "a response from the {who} to the id {id}, but no request of the {other} with that id is waiting"
                    ));
                }
            }
            Message::Notification { .. } | Message::Invalid(_) => {}
        }
        Ok(())
    }
}

/// Replaces secrets by `[redacted]` in text, in their raw and JSON-escaped forms.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

/// What a secret becomes.
pub const REDACTED: &str = "[redacted]";

impl Redactor {
    /// A redactor of these values (empty ones are ignored: they would match everywhere).
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = Vec::new();
        for v in values.into_iter().filter(|v| !v.is_empty()) {
            let escaped = serde_json::to_string(&v).unwrap_or_default();
            let escaped = escaped[1..escaped.len().saturating_sub(1).max(1)].to_string();
            if escaped != v && !escaped.is_empty() {
                secrets.push(escaped);
            }
            secrets.push(v);
        }
        // Longest first, so that a secret containing another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Redactor { secrets }
    }

    /// `text` with every secret replaced.
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), REDACTED);
            }
        }
        out
    }
}

/// Writes a recording as messages cross the wire: each line is written and flushed whole, so that a
/// recorder that is killed leaves a recording that loads up to its last message.
pub struct Recorder {
    inner: Mutex<RecorderInner>,
    redactor: Redactor,
    start: Instant,
}

struct RecorderInner {
    out: Box<dyn Write + Send>,
    failed: bool,
}

impl Recorder {
    /// Starts a recording on `out` with its header.
    pub fn new(
        mut out: Box<dyn Write + Send>,
        header: &Header,
        redactor: Redactor,
    ) -> std::io::Result<Recorder> {
        let text = serde_json::to_string(header)?;
        writeln!(out, "{}", redactor.apply(&text))?;
        out.flush()?;
        Ok(Recorder {
            inner: Mutex::new(RecorderInner { out, failed: false }),
            redactor,
            start: Instant::now(),
        })
    }

    /// Records one line that crossed the wire (without its newline).
    pub fn record(&self, dir: Direction, line: &[u8]) {
        self.hold().record(dir, line);
    }

    /// Holds the recording: lines recorded through the guard are in the order of the guards. A writer
    /// holds it across its write, so that an answer read after the write cannot be recorded before it.
    pub fn hold(&self) -> Held<'_> {
        Held {
            recorder: self,
            inner: self.inner.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }
}

/// The recording, held (see [`Recorder::hold`]).
pub struct Held<'a> {
    recorder: &'a Recorder,
    inner: std::sync::MutexGuard<'a, RecorderInner>,
}

impl Held<'_> {
    /// Records one line that crossed the wire (without its newline).
    pub fn record(&mut self, dir: Direction, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let text = self.recorder.redactor.apply(text.trim_end_matches('\r'));
        if text.trim().is_empty() || self.inner.failed {
            return;
        }
        let dir = match dir {
            Direction::ClientToServer => "c2s",
            Direction::ServerToClient => "s2c",
        };
        let ms = self.recorder.start.elapsed().as_millis() as u64;
        // The message's text as it crossed the wire (member order kept: a peer may echo it as text).
        let line = match serde_json::from_str::<&serde_json::value::RawValue>(&text) {
            Ok(msg) => format!("{{\"dir\":\"{dir}\",\"ms\":{ms},\"msg\":{}}}", msg.get()),
            Err(_) => format!(
                "{{\"dir\":\"{dir}\",\"ms\":{ms},\"invalid\":{}}}",
                Value::String(text.clone())
            ),
        };
        let inner = &mut *self.inner;
        let written = writeln!(inner.out, "{line}").and_then(|_| inner.out.flush());
        if let Err(e) = written {
            inner.failed = true;
            eprintln!("mcp-codegen record: cannot write the recording, recording stops: {e}");
        }
    }
}

/// A message as a line of JSON-RPC again.
pub fn to_json(message: &Message) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), "2.0".into());
    match message {
        Message::Request { id, method, params } => {
            m.insert("id".into(), id.clone());
            m.insert("method".into(), method.clone().into());
            if let Some(p) = params {
                m.insert("params".into(), p.clone());
            }
        }
        Message::Notification { method, params } => {
            m.insert("method".into(), method.clone().into());
            if let Some(p) = params {
                m.insert("params".into(), p.clone());
            }
        }
        Message::Response { id, outcome } => {
            m.insert("id".into(), id.clone());
            match outcome {
                Ok(r) => m.insert("result".into(), r.clone()),
                Err(e) => m.insert("error".into(), e.clone()),
            };
        }
        Message::Invalid(text) => return Value::String(text.clone()),
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"mcpRecording":1,"server":{"stdio":"srv"},"redacted":[]}"#;

    fn read(text: &str) -> Result<Session, (usize, String)> {
        Session::read(&mut text.as_bytes())
    }

    #[test]
    fn a_session_reads_back_classified() {
        let text = format!(
            "{HEADER}\n\
             {{\"dir\":\"c2s\",\"ms\":0,\"msg\":{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}}}\n\
             {{\"dir\":\"s2c\",\"ms\":3,\"msg\":{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{}}}}}}\n"
        );
        let s = read(&text).unwrap();
        assert_eq!(s.header.server, Recorded::Stdio("srv".into()));
        assert_eq!(s.entries.len(), 2);
        assert_eq!(s.entries[1].line, 3);
        assert!(
            matches!(&s.entries[0].message, Message::Request { method, .. } if method == "ping")
        );
        assert_eq!(
            s.entries[1].message,
            Message::Response {
                id: 1.into(),
                outcome: Ok(serde_json::json!({}))
            }
        );
    }

    #[test]
    fn bad_recordings_are_refused_with_the_line_and_the_problem() {
        let request = r#"{"dir":"c2s","ms":5,"msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#;
        let cases = [
            ("", 1, "empty"),
            ("{\"a\":1}\n", 1, "not a recording's header"),
            (
                "{\"mcpRecording\":9,\"server\":{\"stdio\":\"x\"}}\n",
                1,
                "format 9",
            ),
            (
                &format!("{HEADER}\n{}\n", &request[..40]),
                2,
                "truncated recording",
            ),
            (
                &format!("{HEADER}\n{request}\n{{\"dir\":\"s2c\",\"ms\":6,\"msg\":{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{}}}}}}\n"),
                3,
                "no request of the client with that id",
            ),
            (
                &format!("{HEADER}\n{request}\n{}\n", request.replace("\"ms\":5", "\"ms\":1")),
                3,
                "time goes back",
            ),
            (
                &format!("{HEADER}\n{request}\n{request}\n"),
                3,
                "still waiting",
            ),
            (
                &format!("{HEADER}\n{}\n", request.replace("c2s", "up")),
                2,
                "not a recorded message",
            ),
            (
                &format!("{HEADER}\n{}\n", request.replace("\"2.0\"", "\"1.0\"")),
                2,
                "jsonrpc",
            ),
        ];
        for (text, line, problem) in cases {
            let (l, p) = read(text).unwrap_err();
            assert_eq!(l, line, "{text}: {p}");
            assert!(p.contains(problem), "{text}: {p}");
        }
    }

    #[test]
    fn secrets_are_redacted_raw_and_escaped() {
        let r = Redactor::new(["s3cr\"et".to_string(), String::new(), "tok".to_string()]);
        assert_eq!(
            r.apply(r#"{"a":"s3cr\"et tok"}"#),
            r#"{"a":"[redacted] [redacted]"}"#
        );
        assert_eq!(r.apply("s3cr\"et"), "[redacted]");
    }
}
