//! `verify`: plays a recording's client side against a server and reports every answer that differs
//! from the recorded one, as a diff per request.
//!
//! The recorded client's messages go out as they were (`initialize` and its params included) through a
//! raw connection ([`crate::live::open_peer`]); a request the recorded client cancelled is cancelled
//! after the same delay; the server's own requests (sampling, elicitation, roots) are answered with the
//! recorded client's answers. Values the server chose and the client sends back (`requestState`,
//! cursors, task ids) are mapped from the recorded ones to the live ones. Before comparing, both
//! answers lose what legitimately changes: `_meta` and `requestState` everywhere, timestamps (strings
//! in RFC 3339 form become `<timestamp>`), and the fields named by `--ignore` rules.

use crate::live::{open_peer, LiveError, Source};
use crate::record::as_error_object;
use crate::recording::{Direction, Message, Session};
use crate::replay::matching_key;
use mcp_runtime::connection::{Handler, Reply, RequestIn, RequestOptions};
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::serde_json::value::RawValue;
use mcp_runtime::StderrMode;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A field to leave out of the comparison. `name` leaves out that key at any depth; `a.b.c` the path
/// from the top of a result or error object, where `*` stands for any key or array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoreRule(Vec<String>);

impl std::str::FromStr for IgnoreRule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<String> = s.split('.').map(str::to_string).collect();
        if parts.iter().any(String::is_empty) {
            return Err(format!(
                "{s:?} is not a field: give a key (`timestamp`) or a dotted path (`content.*.text`)"
            ));
        }
        Ok(IgnoreRule(parts))
    }
}

/// The rules every comparison starts with.
pub fn default_rules() -> Vec<IgnoreRule> {
    ["_meta", "requestState"]
        .iter()
        .map(|s| IgnoreRule(vec![s.to_string()]))
        .collect()
}

impl IgnoreRule {
    fn apply(&self, value: &mut Value) {
        if let [key] = &self.0[..] {
            remove_everywhere(value, key);
        } else {
            remove_path(value, &self.0);
        }
    }
}

fn remove_everywhere(value: &mut Value, key: &str) {
    match value {
        Value::Object(m) => {
            m.remove(key);
            m.values_mut().for_each(|v| remove_everywhere(v, key));
        }
        Value::Array(a) => a.iter_mut().for_each(|v| remove_everywhere(v, key)),
        _ => {}
    }
}

fn remove_path(value: &mut Value, path: &[String]) {
    let [first, rest @ ..] = path else { return };
    match value {
        Value::Object(m) if rest.is_empty() => {
            if first == "*" {
                m.clear();
            } else {
                m.remove(first);
            }
        }
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                if first == "*" || k == first {
                    remove_path(v, rest);
                }
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter_mut().enumerate() {
                if first == "*" || first == &i.to_string() {
                    if rest.is_empty() {
                        *v = Value::Null;
                    } else {
                        remove_path(v, rest);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Whether a string reads as an RFC 3339 timestamp (`2026-01-31T12:00:00Z`, fractions and offsets
/// allowed).
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't' | b' ')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && (b.ends_with(b"Z")
            || b.ends_with(b"z")
            || b[b.len() - 6] == b'+'
            || b[b.len() - 6] == b'-')
}

fn mask_timestamps(value: &mut Value) {
    match value {
        Value::String(s) if is_timestamp(s) => *s = "<timestamp>".into(),
        Value::Object(m) => m.values_mut().for_each(mask_timestamps),
        Value::Array(a) => a.iter_mut().for_each(mask_timestamps),
        _ => {}
    }
}

/// An answer ready for comparison: `{"result": ..}` or `{"error": ..}` with the rules applied.
pub fn comparable(outcome: &Result<Value, Value>, rules: &[IgnoreRule]) -> Value {
    let (kind, mut value) = match outcome {
        Ok(v) => ("result", v.clone()),
        Err(e) => ("error", e.clone()),
    };
    for rule in rules {
        rule.apply(&mut value);
    }
    mask_timestamps(&mut value);
    serde_json::json!({ kind: value })
}

/// One request whose answer differs.
#[derive(Debug, Clone)]
pub struct Drift {
    /// The recording's line of the request.
    pub line: usize,
    /// Its method and a short form of its params.
    pub request: String,
    /// The unified diff, recorded (`-`) against live (`+`).
    pub diff: String,
}

/// What a verification found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Requests whose answers were compared.
    pub compared: usize,
    /// Those that differ.
    pub drift: Vec<Drift>,
}

/// Why a verification could not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The server could not be started or reached.
    #[error(transparent)]
    Live(#[from] LiveError),
    /// The server went away (or stopped answering) in the middle.
    #[error("line {line}: {request}: {reason}")]
    Failed {
        /// The recording's line of the request it was answering.
        line: usize,
        /// The request.
        request: String,
        /// What happened (a dead child's exit status and stderr tail).
        reason: String,
    },
}

/// Answers the server's requests with the recorded client's answers to the same requests.
/// A recorded answer: the result as recorded (member order kept: a server may echo it as text), or the
/// error.
type Answer = Result<Box<RawValue>, Value>;

struct RecordedClient {
    answers: Mutex<HashMap<(String, String), Vec<Answer>>>,
    by_method: Mutex<HashMap<String, Vec<Answer>>>,
}

impl RecordedClient {
    fn new(session: &Session) -> Self {
        let mut asked: HashMap<String, (String, String)> = HashMap::new();
        let mut answers: HashMap<(String, String), Vec<Answer>> = HashMap::new();
        let mut by_method: HashMap<String, Vec<Answer>> = HashMap::new();
        for e in &session.entries {
            match (e.dir, &e.message) {
                (Direction::ServerToClient, Message::Request { id, method, params }) => {
                    asked.insert(
                        id.to_string(),
                        (method.clone(), matching_key(method, params.as_ref())),
                    );
                }
                (Direction::ClientToServer, Message::Response { id, outcome }) => {
                    if let Some(key) = asked.remove(&id.to_string()) {
                        let outcome: Answer = match outcome {
                            Ok(r) => Ok(e.raw_member("result").unwrap_or_else(|| {
                                serde_json::value::to_raw_value(r).expect("a JSON value")
                            })),
                            Err(err) => Err(err.clone()),
                        };
                        by_method
                            .entry(key.0.clone())
                            .or_default()
                            .push(outcome.clone());
                        answers.entry(key).or_default().push(outcome.clone());
                    }
                }
                _ => {}
            }
        }
        RecordedClient {
            answers: Mutex::new(answers),
            by_method: Mutex::new(by_method),
        }
    }

    /// The recorded answer to this request: one to the same params first, else one to the same method.
    fn answer(&self, method: &str, params: Option<&Value>) -> Option<Answer> {
        let key = (method.to_string(), matching_key(method, params));
        let take = |list: &mut Vec<Answer>| {
            (list.len() > 1)
                .then(|| list.remove(0))
                .or_else(|| list.first().cloned())
        };
        if let Some(a) = self
            .answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(&key)
            .and_then(take)
        {
            return Some(a);
        }
        self.by_method
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(method)
            .and_then(take)
    }
}

impl Handler for RecordedClient {
    fn request(&self, req: RequestIn<'_>) -> Reply {
        let params: Option<Value> = req.params.and_then(|p| serde_json::from_str(p.get()).ok());
        let answer = match self.answer(req.method, params.as_ref()) {
            Some(Ok(v)) => serde_json::value::to_raw_value(&v)
                .map_err(|e| ErrorObject::internal(e.to_string())),
            Some(Err(e)) => Err(serde_json::from_value(e).unwrap_or_else(|e| {
                ErrorObject::internal(format!("a recorded error is malformed: {e}"))
            })),
            None => Err(ErrorObject::method_not_found(req.method)),
        };
        Reply::Now(answer)
    }

    fn notification(&self, _method: &str, _params: Option<&RawValue>) {}
}

/// Recorded values the server chose, and the live ones that replace them in later requests.
#[derive(Default)]
struct Mapped(HashMap<String, String>);

const MAPPED_KEYS: [&str; 5] = [
    "requestState",
    "nextCursor",
    "cursor",
    "taskId",
    "subscriptionId",
];

impl Mapped {
    fn learn(&mut self, recorded: &Value, live: &Value) {
        match (recorded, live) {
            (Value::Object(r), Value::Object(l)) => {
                for (k, rv) in r {
                    let Some(lv) = l.get(k) else { continue };
                    match (rv, lv) {
                        (Value::String(a), Value::String(b))
                            if MAPPED_KEYS.contains(&k.as_str()) && a != b =>
                        {
                            self.0.insert(a.clone(), b.clone());
                        }
                        _ => self.learn(rv, lv),
                    }
                }
            }
            (Value::Array(r), Value::Array(l)) => {
                r.iter().zip(l).for_each(|(a, b)| self.learn(a, b))
            }
            _ => {}
        }
    }

    fn apply(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if let Some(live) = self.0.get(s.as_str()) {
                    *s = live.clone();
                }
            }
            Value::Object(m) => m.values_mut().for_each(|v| self.apply(v)),
            Value::Array(a) => a.iter_mut().for_each(|v| self.apply(v)),
            _ => {}
        }
    }
}

fn short(method: &str, params: Option<&Value>) -> String {
    let mut p = params.map_or_else(String::new, |p| {
        let mut p = p.clone();
        remove_everywhere(&mut p, "_meta");
        format!(" {p}")
    });
    if p.len() > 160 {
        let mut end = 160;
        while !p.is_char_boundary(end) {
            end -= 1;
        }
        p.truncate(end);
        p.push('…');
    }
    format!("{method}{p}")
}

/// Plays `session`'s client side against `source` and compares every answer.
pub async fn verify(
    session: &Session,
    source: &Source,
    rules: &[IgnoreRule],
    timeout: Duration,
) -> Result<Report, VerifyError> {
    let upstream = open_peer(
        source,
        StderrMode::Capture,
        Arc::new(RecordedClient::new(session)),
    )
    .await?;
    let peer = upstream.peer().clone();
    // Each recorded request's answer, and the time the recorded client cancelled it.
    let mut answers: HashMap<String, Result<Value, Value>> = HashMap::new();
    let mut cancelled: HashMap<String, u64> = HashMap::new();
    for e in &session.entries {
        match (e.dir, &e.message) {
            (Direction::ServerToClient, Message::Response { id, outcome }) => {
                answers
                    .entry(id.to_string())
                    .or_insert_with(|| outcome.clone());
            }
            (Direction::ClientToServer, Message::Notification { method, params })
                if method == "notifications/cancelled" =>
            {
                if let Some(id) = params.as_ref().and_then(|p| p.get("requestId")) {
                    cancelled.entry(id.to_string()).or_insert(e.ms);
                }
            }
            _ => {}
        }
    }
    let mut mapped = Mapped::default();
    let mut report = Report::default();
    let mut rules = rules.to_vec();
    rules.extend(default_rules());
    for e in &session.entries {
        if e.dir != Direction::ClientToServer {
            continue;
        }
        match &e.message {
            Message::Request { id, method, params } => {
                let mut params = params.clone();
                if let Some(p) = params.as_mut() {
                    mapped.apply(p);
                }
                let raw = params
                    .as_ref()
                    .and_then(|p| serde_json::value::to_raw_value(p).ok());
                let label = short(method, params.as_ref());
                let request = peer.request(method, raw.as_deref(), RequestOptions::default());
                let key = id.to_string();
                if let Some(at) = cancelled.get(&key) {
                    // Cancelled by the recorded client after this long: dropping the request cancels it.
                    let wait = Duration::from_millis(at.saturating_sub(e.ms).min(10_000));
                    let _ = tokio::time::timeout(wait, request).await;
                    continue;
                }
                let live = match tokio::time::timeout(timeout, request).await {
                    Err(_) => {
                        return Err(VerifyError::Failed {
                            line: e.line,
                            request: label,
                            reason: format!("no answer within {} s", timeout.as_secs_f64()),
                        })
                    }
                    Ok(Err(err @ mcp_runtime::Error::Rpc(_))) => {
                        Err(serde_json::to_value(as_error_object(err)).unwrap_or(Value::Null))
                    }
                    Ok(Err(err)) => {
                        return Err(VerifyError::Failed {
                            line: e.line,
                            request: label,
                            reason: format!("{err} ({})", peer.close_reason()),
                        })
                    }
                    Ok(Ok(raw)) => Ok(serde_json::from_str(raw.get()).unwrap_or(Value::Null)),
                };
                let Some(recorded) = answers.get(&key) else {
                    continue;
                };
                if let (Ok(r), Ok(l)) = (recorded, &live) {
                    mapped.learn(r, l);
                }
                report.compared += 1;
                let (a, b) = (comparable(recorded, &rules), comparable(&live, &rules));
                if a != b {
                    let a = serde_json::to_string_pretty(&a).unwrap_or_default() + "\n";
                    let b = serde_json::to_string_pretty(&b).unwrap_or_default() + "\n";
                    let diff = similar::TextDiff::from_lines(&a, &b)
                        .unified_diff()
                        .context_radius(3)
                        .header("recorded", "live")
                        .to_string();
                    report.drift.push(Drift {
                        line: e.line,
                        request: label,
                        diff,
                    });
                }
            }
            Message::Notification { method, params } if method != "notifications/cancelled" => {
                let raw = params
                    .as_ref()
                    .and_then(|p| serde_json::value::to_raw_value(p).ok());
                let _ = peer.notify(method, raw.as_deref(), None).await;
            }
            _ => {}
        }
    }
    upstream.shutdown(Duration::from_secs(2)).await;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_leave_out_keys_paths_and_timestamps() {
        let rules: Vec<IgnoreRule> = ["serverInfo.version", "content.*.id", "seed"]
            .iter()
            .map(|s| s.parse().unwrap())
            .chain(default_rules())
            .collect();
        let a = json!({"serverInfo": {"name": "s", "version": "1"}, "content": [{"id": 1, "t": "x"}],
                       "_meta": {"a": 1}, "deep": {"seed": 4, "at": "2026-01-31T12:00:00.5Z"}});
        let b = json!({"serverInfo": {"name": "s", "version": "2"}, "content": [{"id": 2, "t": "x"}],
                       "deep": {"seed": 5, "at": "2027-02-01T00:00:00+02:00"}});
        assert_eq!(
            comparable(&Ok(a), &rules),
            comparable(&Ok(b.clone()), &rules)
        );
        let c = json!({"serverInfo": {"name": "t"}});
        assert_ne!(comparable(&Ok(b), &rules), comparable(&Ok(c), &rules));
        assert!("a..b".parse::<IgnoreRule>().is_err());
    }

    #[test]
    fn server_chosen_values_map_to_the_live_ones() {
        let mut m = Mapped::default();
        m.learn(
            &json!({"nextCursor": "r1", "x": [{"requestState": "s1"}]}),
            &json!({"nextCursor": "l1", "x": [{"requestState": "s2"}]}),
        );
        let mut p = json!({"cursor": "r1", "inputs": {"requestState": "s1"}, "other": "r1x"});
        m.apply(&mut p);
        assert_eq!(
            p,
            json!({"cursor": "l1", "inputs": {"requestState": "s2"}, "other": "r1x"})
        );
    }
}
