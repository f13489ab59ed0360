//! `replay`: a recording served as a server. Each request is answered with the recorded answer of the
//! matching recorded request (same method, same params once `_meta` is set aside; `initialize` and
//! `server/discover` by method alone), under the live request's id; what the server sent while it
//! answered (notifications, progress under the live request's progress token, sampling and
//! elicitation requests, which wait for the client's answers) is sent first, in the recorded order, and
//! what it sent after an answer (a list change) follows that answer. A request recorded several times
//! is answered in the recorded order, and by the last recorded answer once they are used up. A request
//! never recorded is answered with an error naming it, and the replay goes on serving.

use crate::recording::{Direction, Message, Session};
use mcp_runtime::connection::{Handler, Reply, RequestIn, RequestOptions};
use mcp_runtime::protocol::{codes, ErrorObject, RequestId};
use mcp_runtime::serde_json::value::RawValue;
use mcp_runtime::server::ServerError;
use mcp_runtime::{ConnectionConfig, Peer, Server};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Something the server sent, replayed as it was.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A notification.
    Notify {
        /// Its method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
    /// A request to the client (sampling, elicitation, roots): sent, and its answer awaited.
    Ask {
        /// Its method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
}

/// One recorded request and everything the server sent for it.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The recording's line of the request.
    pub line: usize,
    /// Its method.
    pub method: String,
    /// The progress token the recorded client chose, replaced by the live one.
    pub progress_token: Option<Value>,
    /// What the server sent before its answer.
    pub during: Vec<Step>,
    /// The recorded answer (a result as recorded, member order kept); `None` when the client cancelled
    /// it or the session ended first.
    pub answer: Option<Result<Box<RawValue>, Value>>,
    /// What the server sent after its answer, before the client's next request.
    pub after: Vec<Step>,
}

/// A recording arranged for serving.
#[derive(Debug, Default)]
pub struct Script {
    exchanges: Vec<Exchange>,
    /// Unused exchanges by (method, matching key), in recorded order.
    by_key: HashMap<(String, String), VecDeque<usize>>,
    /// The exchange last served for a key, served again once the recorded ones are used up.
    last: HashMap<(String, String), usize>,
    /// Recorded request counts by method, for the error that names an unrecorded request.
    methods: HashMap<String, Vec<usize>>,
}

/// What a request is matched on: its params without `_meta` (for `initialize` and `server/discover`,
/// nothing: the client's name and capabilities may differ).
pub fn matching_key(method: &str, params: Option<&Value>) -> String {
    if method == "initialize" || method == "server/discover" {
        return String::new();
    }
    match params {
        Some(Value::Object(m)) => {
            let mut m = m.clone();
            m.remove("_meta");
            Value::Object(m).to_string()
        }
        Some(other) => other.to_string(),
        None => "{}".into(),
    }
}

fn progress_token(params: Option<&Value>) -> Option<Value> {
    params?.get("_meta")?.get("progressToken").cloned()
}

impl Script {
    /// Arranges a recording: each server message is attached to the newest client request still waiting
    /// for its answer (a progress notification to the request whose token it carries), or, when none
    /// waits, to the end of the last answered one.
    pub fn new(session: &Session) -> Script {
        let mut script = Script::default();
        let mut open: Vec<(Value, usize)> = Vec::new();
        let mut last_answered: Option<usize> = None;
        let mut prelude: Vec<Step> = Vec::new();
        for entry in &session.entries {
            match (entry.dir, &entry.message) {
                (Direction::ClientToServer, Message::Request { id, method, params }) => {
                    let index = script.exchanges.len();
                    script.exchanges.push(Exchange {
                        line: entry.line,
                        method: method.clone(),
                        progress_token: progress_token(params.as_ref()),
                        during: std::mem::take(&mut prelude),
                        answer: None,
                        after: Vec::new(),
                    });
                    let key = (method.clone(), matching_key(method, params.as_ref()));
                    script.by_key.entry(key).or_default().push_back(index);
                    script
                        .methods
                        .entry(method.clone())
                        .or_default()
                        .push(entry.line);
                    open.push((id.clone(), index));
                }
                (Direction::ServerToClient, Message::Response { id, outcome }) => {
                    if let Some(at) = open.iter().position(|(i, _)| i == id) {
                        let (_, index) = open.remove(at);
                        let answer = match outcome {
                            Ok(result) => Ok(entry.raw_member("result").unwrap_or_else(|| {
                                serde_json::value::to_raw_value(result).expect("a JSON value")
                            })),
                            Err(error) => Err(error.clone()),
                        };
                        script.exchanges[index].answer = Some(answer);
                        last_answered = Some(index);
                    }
                }
                (Direction::ServerToClient, Message::Request { method, params, .. })
                | (Direction::ServerToClient, Message::Notification { method, params }) => {
                    let step = if matches!(entry.message, Message::Request { .. }) {
                        Step::Ask {
                            method: method.clone(),
                            params: params.clone(),
                        }
                    } else {
                        Step::Notify {
                            method: method.clone(),
                            params: params.clone(),
                        }
                    };
                    let token = (method == "notifications/progress")
                        .then(|| params.as_ref()?.get("progressToken").cloned())
                        .flatten();
                    let owner = token
                        .and_then(|t| {
                            open.iter().rev().find(|(_, i)| {
                                script.exchanges[*i].progress_token.as_ref() == Some(&t)
                            })
                        })
                        .or_else(|| open.last())
                        .map(|(_, i)| *i);
                    match (owner, last_answered) {
                        (Some(i), _) => script.exchanges[i].during.push(step),
                        (None, Some(i)) => script.exchanges[i].after.push(step),
                        (None, None) => prelude.push(step),
                    }
                }
                _ => {}
            }
        }
        script
    }

    /// The recorded exchanges, in order.
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// The exchange that answers this request, if one was recorded.
    fn take(&mut self, method: &str, params: Option<&Value>) -> Option<Exchange> {
        let key = (method.to_string(), matching_key(method, params));
        let index = match self.by_key.get_mut(&key).and_then(VecDeque::pop_front) {
            Some(i) => {
                self.last.insert(key, i);
                i
            }
            None => *self.last.get(&key)?,
        };
        Some(self.exchanges[index].clone())
    }

    /// The error for a request never recorded: what it was, and what the recording has instead.
    fn not_recorded(&self, method: &str, params: Option<&Value>) -> ErrorObject {
        let shown = params.map_or_else(String::new, |p| {
            let mut text = p.to_string();
            if text.len() > 300 {
                let mut end = 300;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
                text.push('…');
            }
            format!(" {text}")
        });
        let (code, others) = match self.methods.get(method) {
            None => (
                codes::METHOD_NOT_FOUND,
                "the recording has no such request".to_string(),
            ),
            Some(lines) => (
                codes::INVALID_PARAMS,
                format!(
                    "the recording has {method} only with other params (lines {})",
                    lines
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        };
        ErrorObject::new(
            code,
            format!("replay: {method}{shown} was never recorded; {others}"),
        )
        .with_data(serde_json::json!({"method": method, "params": params}))
    }
}

/// Serves a [`Script`] on a connection of the runtime's pump.
pub struct Replay {
    /// Shared by the connections of one replay (an HTTP server's sessions and stand-alone 2026 POSTs):
    /// a recorded answer is used once, whichever connection asks.
    script: Arc<Mutex<Script>>,
    peer: Peer,
}

impl Replay {
    /// Serves `script` to the client on `peer`.
    pub fn new(script: Arc<Mutex<Script>>, peer: Peer) -> Self {
        Replay { script, peer }
    }
}

/// How long an answer waits after the messages sent before it, and what follows an answer after it: a
/// client must read them apart. The TypeScript SDK settles a response as soon as it reads it but runs
/// notification handlers a microtask later, so progress read in the same chunk as its request's answer
/// finds the request gone and is dropped (as it is live when a server answers within a millisecond).
const SETTLE: Duration = Duration::from_millis(20);

fn raw(value: &Option<Value>) -> Option<Box<RawValue>> {
    value
        .as_ref()
        .and_then(|v| serde_json::value::to_raw_value(v).ok())
}

/// Sends the server's steps: notifications (progress under the live token) and requests, whose answers
/// are awaited before the next step.
async fn play(
    peer: &Peer,
    steps: &[Step],
    tokens: Option<(&Value, &Value)>,
    related: Option<RequestId>,
) {
    for step in steps {
        match step {
            Step::Notify { method, params } => {
                let mut params = params.clone();
                if let (Some((recorded, live)), Some(Value::Object(p))) = (tokens, params.as_mut())
                {
                    if method == "notifications/progress"
                        && p.get("progressToken") == Some(recorded)
                    {
                        p.insert("progressToken".into(), live.clone());
                    }
                }
                let _ = peer
                    .notify(method, raw(&params).as_deref(), related.clone())
                    .await;
            }
            Step::Ask { method, params } => {
                let opts = RequestOptions {
                    related: related.clone(),
                    ..Default::default()
                };
                if let Err(e) = peer.request(method, raw(params).as_deref(), opts).await {
                    eprintln!("mcp-codegen replay: the client's answer to {method} failed: {e}");
                }
            }
        }
    }
}

impl Handler for Replay {
    fn request(&self, req: RequestIn<'_>) -> Reply {
        let method = req.method.to_string();
        let params: Option<Value> = req.params.and_then(|p| serde_json::from_str(p.get()).ok());
        let found = self
            .script
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take(&method, params.as_ref());
        let Some(exchange) = found else {
            if method == "ping" {
                return Reply::Now(Ok(RawValue::from_string("{}".into()).expect("valid JSON")));
            }
            let e = self
                .script
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .not_recorded(&method, params.as_ref());
            return Reply::Now(Err(e));
        };
        let peer = self.peer.clone();
        let live_token = progress_token(params.as_ref());
        let id = req.id.clone();
        Reply::Spawn {
            fut: Box::pin(async move {
                let tokens = exchange.progress_token.as_ref().zip(live_token.as_ref());
                play(&peer, &exchange.during, tokens, Some(id.clone())).await;
                if !exchange.during.is_empty() {
                    tokio::time::sleep(SETTLE).await;
                }
                let Some(answer) = exchange.answer else {
                    // The recorded client cancelled it, or left first: no answer, as then.
                    std::future::pending::<()>().await;
                    unreachable!()
                };
                if !exchange.after.is_empty() {
                    let peer = peer.clone();
                    tokio::spawn(async move {
                        // After the answer is written: the pump writes it as soon as this returns.
                        tokio::time::sleep(SETTLE).await;
                        play(&peer, &exchange.after, None, None).await;
                    });
                }
                match answer {
                    Ok(result) => Ok(result),
                    Err(error) => Err(serde_json::from_value(error).unwrap_or_else(|e| {
                        ErrorObject::internal(format!("replay: a recorded error is malformed: {e}"))
                    })),
                }
            }),
            cancellable: method != "initialize",
        }
    }

    fn notification(&self, _method: &str, _params: Option<&RawValue>) {}
}

/// The recording as a runtime [`Server`] whose every connection is a [`Replay`] of one shared script:
/// `serve_stdio` serves it on stdin and stdout, `http::serve_http` over Streamable HTTP (each session,
/// and each stand-alone 2026-07-28 POST, on a connection of its own).
pub fn server(session: &Session) -> Result<Server, ServerError> {
    let script = Arc::new(Mutex::new(Script::new(session)));
    Server::builder()
        .connection_config(ConnectionConfig {
            // The client's answers to replayed sampling and elicitation requests may take a person.
            request_timeout: Some(Duration::from_secs(300)),
            ..Default::default()
        })
        .connection_handler(move |peer| {
            Arc::new(Replay::new(script.clone(), peer)) as Arc<dyn Handler>
        })
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[&str]) -> Session {
        let mut text = String::from("{\"mcpRecording\":1,\"server\":{\"stdio\":\"s\"}}\n");
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        Session::read(&mut text.as_bytes()).unwrap()
    }

    #[test]
    fn server_messages_belong_to_the_request_they_answer_or_follow() {
        let s = session(&[
            r#"{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":7}}}}"#,
            r#"{"dir":"c2s","ms":1,"msg":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#,
            r#"{"dir":"s2c","ms":2,"msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}}"#,
            r#"{"dir":"s2c","ms":3,"msg":{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}}"#,
            r#"{"dir":"s2c","ms":4,"msg":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}"#,
            r#"{"dir":"s2c","ms":5,"msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}"#,
        ]);
        let script = Script::new(&s);
        let [call, list] = script.exchanges() else {
            panic!("two exchanges: {script:?}")
        };
        assert_eq!(call.progress_token, Some(7.into()));
        assert!(
            matches!(&call.during[..], [Step::Notify { method, .. }] if method == "notifications/progress")
        );
        assert!(
            matches!(&call.after[..], [Step::Notify { method, .. }] if method == "notifications/tools/list_changed")
        );
        assert!(list.during.is_empty() && list.answer.is_some());
    }

    #[test]
    fn requests_match_without_meta_and_unrecorded_ones_are_named() {
        let s = session(&[
            r#"{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"a"},"_meta":{"progressToken":1}}}}"#,
            r#"{"dir":"s2c","ms":1,"msg":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}"#,
        ]);
        let mut script = Script::new(&s);
        let params = serde_json::json!({"_meta": {"progressToken": "x"}, "name": "echo", "arguments": {"m": "a"}});
        assert!(script.take("tools/call", Some(&params)).is_some());
        // Used up: the last answer again.
        assert!(script.take("tools/call", Some(&params)).is_some());
        let other = serde_json::json!({"name": "echo", "arguments": {"m": "b"}});
        assert!(script.take("tools/call", Some(&other)).is_none());
        let e = script.not_recorded("tools/call", Some(&other));
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert!(
            e.message.contains("tools/call")
                && e.message.contains("\"m\":\"b\"")
                && e.message.contains("lines 2"),
            "{}",
            e.message
        );
        assert_eq!(
            script.not_recorded("prompts/list", None).code,
            codes::METHOD_NOT_FOUND
        );
    }
}
