//! Multi round-trip requests on the server (2026-07-28), behind the same handler code as the handshake
//! era.
//!
//! A handler asks the client for input with `ctx.elicit(..)`, `ctx.create_message(..)` or
//! `ctx.list_roots()`. In the handshake era that sends a real request to the client. In 2026-07-28 the
//! server may not send requests, so the call is ended instead: the handler's future is dropped at the
//! point where it waits for the input, and the client gets `resultType: "input_required"` naming what the
//! handler asked for, with a sealed `requestState`. When the client retries with the answers, the handler
//! runs again from the start and gets them, in the order it asks. A handler may therefore run more than
//! once for one call: work before the first `elicit` is repeated on every round, so keep side effects
//! after the inputs are in (or make them idempotent).
//!
//! Each input request has a key: one the handler chose (`ctx.input("user_name").elicit(..)`), or one
//! made from its kind and position (`elicit-1`). The sealed state carries the answers the handler used
//! so far (earlier rounds' too), the request it belongs to (method and a digest of its salient params),
//! the principal, and an expiry. Answers sent without a state (a first retry of a server that issued
//! none, or a client that knows the keys) are taken as they are; a state that fails its check is refused.

use super::request_state::{RequestStateKeys, MAX_STATE_BYTES};
use crate::protocol::*;
use crate::sha256::Sha256;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::Notify;

/// The request a state belongs to: method, a digest of its salient params, and who made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Binding {
    #[serde(rename = "m")]
    pub method: String,
    #[serde(rename = "d")]
    pub digest: String,
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
}

impl Binding {
    /// `subject` is the tool or prompt name or the resource URI; `arguments` its arguments, if any.
    pub(crate) fn new(
        method: &str,
        subject: &str,
        arguments: Option<&serde_json::Value>,
        principal: Option<String>,
    ) -> Self {
        let mut h = Sha256::new();
        h.update(subject.as_bytes());
        h.update([0]);
        if let Some(a) = arguments {
            canonical(a, &mut h);
        }
        let digest = h.finalize();
        Binding {
            method: method.to_string(),
            digest: digest.iter().map(|b| format!("{b:02x}")).collect(),
            principal,
        }
    }
}

/// Feeds a JSON value to a hasher with object keys sorted, so that key order does not matter.
fn canonical(v: &serde_json::Value, h: &mut Sha256) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            h.update(b"{");
            for k in keys {
                canonical(&Value::String(k.clone()), h);
                h.update(b":");
                canonical(&m[k], h);
                h.update(b",");
            }
            h.update(b"}");
        }
        Value::Array(a) => {
            h.update(b"[");
            for x in a {
                canonical(x, h);
                h.update(b",");
            }
            h.update(b"]");
        }
        other => h.update(other.to_string().as_bytes()),
    }
}

/// What a sealed `requestState` holds.
#[derive(Debug, Serialize, Deserialize)]
struct StatePayload {
    v: u8,
    #[serde(flatten)]
    binding: Binding,
    /// Expiry, in milliseconds since the Unix epoch.
    e: u64,
    /// Every answer used so far, by key.
    a: BTreeMap<String, serde_json::Value>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn bad_state(why: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Invalid params: requestState {why}"))
        .with_data(serde_json::json!({ "field": "requestState" }))
}

/// How the server seals states.
#[derive(Debug, Clone)]
pub(crate) struct StateSealer {
    pub keys: RequestStateKeys,
    pub ttl: Duration,
}

impl StateSealer {
    /// The answers a retry brings, after checking its state: the earlier answers from the state, plus the
    /// new `inputResponses` (which a handler takes by key; keys it never asks for are ignored).
    pub(crate) fn answers(
        &self,
        binding: &Binding,
        request_state: Option<&str>,
        input_responses: Option<&serde_json::value::RawValue>,
    ) -> Result<BTreeMap<String, serde_json::Value>, ErrorObject> {
        let responses: Option<BTreeMap<String, serde_json::Value>> = match input_responses {
            None => None,
            Some(raw) => {
                let v: serde_json::Value = serde_json::from_str(raw.get()).map_err(|e| {
                    ErrorObject::invalid_params(format!("Invalid params: inputResponses: {e}"))
                })?;
                match v {
                    serde_json::Value::Null => {
                        return Err(ErrorObject::invalid_params(
                            "Invalid params: inputResponses must be an object of results by key, not null",
                        )
                        .with_data(serde_json::json!({"field": "inputResponses"})))
                    }
                    serde_json::Value::Object(m) => {
                        if let Some((k, _)) = m.iter().find(|(_, v)| !v.is_object()) {
                            return Err(ErrorObject::invalid_params(format!(
                                "Invalid params: inputResponses[{k:?}] must be a result object"
                            ))
                            .with_data(serde_json::json!({"field": format!("inputResponses.{k}")})));
                        }
                        Some(m.into_iter().collect())
                    }
                    _ => {
                        return Err(ErrorObject::invalid_params(
                            "Invalid params: inputResponses must be an object of results by key",
                        )
                        .with_data(serde_json::json!({"field": "inputResponses"})))
                    }
                }
            }
        };
        let Some(state) = request_state else {
            return Ok(responses.unwrap_or_default());
        };
        let payload = self
            .keys
            .open(state)
            .ok_or_else(|| bad_state("failed its integrity check (changed, or sealed by a key this server does not hold)"))?;
        let p: StatePayload = serde_json::from_slice(&payload)
            .map_err(|_| bad_state("is not one this server issued"))?;
        if p.v != 1 {
            return Err(bad_state("has an unknown version"));
        }
        if p.e < now_ms() {
            return Err(bad_state("has expired; send the request again without it"));
        }
        if p.binding.method != binding.method || p.binding.digest != binding.digest {
            return Err(bad_state(
                "belongs to another request (a retry must repeat the original params)",
            ));
        }
        if p.binding.principal != binding.principal {
            return Err(bad_state("belongs to another principal"));
        }
        let mut answers = p.a;
        answers.extend(responses.unwrap_or_default());
        Ok(answers)
    }

    fn seal(
        &self,
        binding: &Binding,
        answers: &BTreeMap<String, serde_json::Value>,
    ) -> Result<String, ErrorObject> {
        #[derive(Serialize)]
        struct Out<'a> {
            v: u8,
            #[serde(flatten)]
            binding: &'a Binding,
            e: u64,
            a: &'a BTreeMap<String, serde_json::Value>,
        }
        let payload = serde_json::to_vec(&Out {
            v: 1,
            binding,
            e: now_ms() + self.ttl.as_millis() as u64,
            a: answers,
        })
        .map_err(|e| ErrorObject::internal(format!("Internal error: sealing requestState: {e}")))?;
        let sealed = self.keys.seal(&payload);
        if sealed.len() > MAX_STATE_BYTES {
            return Err(ErrorObject::internal(format!(
                "Internal error: the answers of this request exceed the {MAX_STATE_BYTES}-byte requestState limit"
            )));
        }
        Ok(sealed)
    }
}

/// Why the runtime ended a handler before it finished.
enum Takeover {
    /// It waits for input the client has not given yet.
    Input,
    /// It cannot go on: a capability the client lacks, or an answer that is not what was asked.
    Refused(ErrorObject),
}

/// One run of a handler under a 2026-07-28 request that may ask for input.
pub(crate) struct InputRound {
    answers: BTreeMap<String, serde_json::Value>,
    /// The answers the handler took, which the next state carries.
    used: Mutex<BTreeMap<String, serde_json::Value>>,
    next: AtomicU32,
    asked: Mutex<Vec<(String, InputRequest)>>,
    takeover: Mutex<Option<Takeover>>,
    wake: Notify,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl InputRound {
    pub(crate) fn new(answers: BTreeMap<String, serde_json::Value>) -> Arc<Self> {
        Arc::new(InputRound {
            answers,
            used: Mutex::new(BTreeMap::new()),
            next: AtomicU32::new(0),
            asked: Mutex::new(Vec::new()),
            takeover: Mutex::new(None),
            wake: Notify::new(),
        })
    }

    fn take_over(&self, why: Takeover) {
        let mut t = lock(&self.takeover);
        match (&*t, &why) {
            (Some(Takeover::Refused(_)), _) => {}
            _ => *t = Some(why),
        }
        drop(t);
        self.wake.notify_one();
    }

    /// Ends the request with an error (such as `-32021`); the handler never resumes.
    pub(crate) async fn refuse<T>(&self, e: ErrorObject) -> T {
        self.take_over(Takeover::Refused(e));
        std::future::pending().await
    }

    /// The answer to `request` under `key` (or, without one, a key made from the request's kind and
    /// position): given by the client on a retry, or, when it has not been given yet, the request is
    /// recorded and the handler never resumes (the call ends with `input_required`).
    pub(crate) async fn ask<R: DeserializeOwned>(
        &self,
        key: Option<String>,
        request: InputRequest,
    ) -> R {
        let key = key.unwrap_or_else(|| {
            let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
            let kind = match request {
                InputRequest::Elicit(_) => "elicit",
                InputRequest::CreateMessage(_) => "sample",
                InputRequest::ListRoots => "roots",
            };
            format!("{kind}-{n}")
        });
        match self.answers.get(&key) {
            Some(v) => match R::deserialize(v) {
                Ok(r) => {
                    lock(&self.used).insert(key, v.clone());
                    return r;
                }
                Err(e) => {
                    self.take_over(Takeover::Refused(
                        ErrorObject::invalid_params(format!(
                            "Invalid params: inputResponses[{key:?}] is not a valid result of {}: {e}",
                            request.method()
                        ))
                        .with_data(serde_json::json!({"field": format!("inputResponses.{key}")})),
                    ));
                }
            },
            None => {
                let mut asked = lock(&self.asked);
                if !asked.iter().any(|(k, _)| *k == key) {
                    asked.push((key, request));
                }
                drop(asked);
                self.take_over(Takeover::Input);
            }
        }
        std::future::pending().await
    }

    /// Runs a handler: its own result, or what the runtime answers instead when it asked for input or
    /// was refused. `finish` turns a complete result into the response.
    pub(crate) async fn run<T>(
        self: Arc<Self>,
        handler: impl Future<Output = Result<T, ErrorObject>>,
        sealer: &StateSealer,
        binding: impl FnOnce() -> Binding,
        stamp: impl FnOnce(InputRequiredResult) -> Result<Box<serde_json::value::RawValue>, ErrorObject>,
        finish: impl FnOnce(T) -> Result<Box<serde_json::value::RawValue>, ErrorObject>,
    ) -> Result<Box<serde_json::value::RawValue>, ErrorObject> {
        tokio::pin!(handler);
        match self.drive(handler.as_mut()).await {
            Driven::Done(r) => finish(r?),
            Driven::TakenOver => self.conclude(sealer, binding, stamp),
        }
    }

    /// Polls a handler until it finishes, or until it waits for input the client has not given (or
    /// was refused); the handler is left where it stopped (a task takes it over from here).
    pub(crate) async fn drive<T, F: Future<Output = Result<T, ErrorObject>> + ?Sized>(
        &self,
        handler: std::pin::Pin<&mut F>,
    ) -> Driven<T> {
        let woken = self.wake.notified();
        tokio::pin!(woken);
        tokio::select! {
            biased;
            r = handler => Driven::Done(r),
            _ = &mut woken => Driven::TakenOver,
        }
    }

    /// The answer of a handler [`InputRound::drive`] stopped: `input_required` with the requests it made
    /// and a sealed state, or the error that refused it.
    pub(crate) fn conclude(
        &self,
        sealer: &StateSealer,
        binding: impl FnOnce() -> Binding,
        stamp: impl FnOnce(InputRequiredResult) -> Result<Box<serde_json::value::RawValue>, ErrorObject>,
    ) -> Result<Box<serde_json::value::RawValue>, ErrorObject> {
        let takeover = lock(&self.takeover).take();
        match takeover {
            Some(Takeover::Refused(e)) => Err(e),
            Some(Takeover::Input) | None => {
                let asked = std::mem::take(&mut *lock(&self.asked));
                let used = std::mem::take(&mut *lock(&self.used));
                let request_state = sealer.seal(&binding(), &used)?;
                stamp(InputRequiredResult {
                    input_requests: Some(asked.into_iter().collect()),
                    request_state: Some(request_state),
                    meta: None,
                })
            }
        }
    }

    /// The answers this round holds (the client's, by key), for a task that carries on from it.
    pub(crate) fn answers(&self) -> &BTreeMap<String, serde_json::Value> {
        &self.answers
    }

    /// How many keys this round made up (`elicit-1`, ...), so that a task carrying on makes new ones.
    pub(crate) fn keys_made(&self) -> u32 {
        self.next.load(Ordering::Relaxed)
    }
}

/// How [`InputRound::drive`] left a handler.
pub(crate) enum Driven<T> {
    Done(Result<T, ErrorObject>),
    /// It asked for input the client has not given, or was refused: see [`InputRound::conclude`].
    TakenOver,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer() -> StateSealer {
        StateSealer {
            keys: RequestStateKeys::new("t", vec![7; 32]).unwrap(),
            ttl: Duration::from_secs(60),
        }
    }

    fn raw(v: serde_json::Value) -> Box<serde_json::value::RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    #[test]
    fn the_binding_ignores_key_order_but_not_values() {
        let a = Binding::new(
            "tools/call",
            "t",
            Some(&serde_json::json!({"x": 1, "y": [1, 2]})),
            None,
        );
        let b = Binding::new(
            "tools/call",
            "t",
            Some(&serde_json::json!({"y": [1, 2], "x": 1})),
            None,
        );
        let c = Binding::new(
            "tools/call",
            "t",
            Some(&serde_json::json!({"y": [2, 1], "x": 1})),
            None,
        );
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(
            a,
            Binding::new(
                "tools/call",
                "u",
                Some(&serde_json::json!({"x": 1, "y": [1, 2]})),
                None
            )
        );
    }

    #[test]
    fn answers_accumulate_across_rounds_and_foreign_states_are_refused() {
        let s = sealer();
        let b = Binding::new("tools/call", "t", None, Some("alice".into()));
        let mut first = BTreeMap::new();
        first.insert(
            "elicit-1".to_string(),
            serde_json::json!({"action": "accept"}),
        );
        let state = s.seal(&b, &first).unwrap();
        let answers = s
            .answers(
                &b,
                Some(&state),
                Some(&raw(serde_json::json!({"sample-2": {"role": "assistant"}}))),
            )
            .unwrap();
        assert_eq!(
            answers.len(),
            2,
            "the earlier answer is kept beside the new one"
        );
        let other_user = Binding::new("tools/call", "t", None, Some("mallory".into()));
        assert!(s
            .answers(&other_user, Some(&state), None)
            .unwrap_err()
            .message
            .contains("principal"));
        let other_call = Binding::new("tools/call", "t2", None, Some("alice".into()));
        assert!(s
            .answers(&other_call, Some(&state), None)
            .unwrap_err()
            .message
            .contains("another request"));
        let e = s
            .answers(&b, Some(&format!("{state}-TAMPERED")), None)
            .unwrap_err();
        assert_eq!(e.code, codes::INVALID_PARAMS);
        let expired = StateSealer {
            ttl: Duration::ZERO,
            ..sealer()
        };
        let old = expired.seal(&b, &first).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert!(s
            .answers(&b, Some(&old), None)
            .unwrap_err()
            .message
            .contains("expired"));
    }

    #[test]
    fn malformed_responses_are_invalid_params_and_answers_without_state_are_taken_by_key() {
        let s = sealer();
        let b = Binding::new("tools/call", "t", None, None);
        assert!(s
            .answers(&b, None, Some(&raw(serde_json::Value::Null)))
            .is_err());
        assert!(s
            .answers(&b, None, Some(&raw(serde_json::json!({"k": 5}))))
            .is_err());
        assert!(s
            .answers(&b, None, Some(&raw(serde_json::json!([]))))
            .is_err());
        assert_eq!(
            s.answers(&b, None, Some(&raw(serde_json::json!({"k": {}}))))
                .unwrap()
                .len(),
            1
        );
    }

    #[tokio::test]
    async fn a_handler_that_asks_ends_with_the_requests_and_gets_the_answers_on_the_retry() {
        let s = sealer();
        let b = Binding::new("tools/call", "t", None, None);
        let handler = |round: Arc<InputRound>| async move {
            let (a, r) = tokio::join!(
                round.ask::<ElicitResult>(
                    Some("user_name".into()),
                    InputRequest::Elicit(ElicitParams::form(
                        "name?",
                        serde_json::json!({"type": "object"})
                            .as_object()
                            .unwrap()
                            .clone()
                    ))
                ),
                round.ask::<ListRootsResult>(None, InputRequest::ListRoots),
            );
            Ok::<_, ErrorObject>(format!("{:?} {}", a.action, r.roots.len()))
        };
        let stamp = |r: InputRequiredResult| Ok(serde_json::value::to_raw_value(&r).unwrap());
        let finish = |t: String| Ok(serde_json::value::to_raw_value(&t).unwrap());
        let round = InputRound::new(BTreeMap::new());
        let out = round
            .clone()
            .run(handler(round), &s, || b.clone(), stamp, finish)
            .await
            .unwrap();
        let ir: InputRequiredResult = serde_json::from_str(out.get()).unwrap();
        let keys: Vec<String> = ir.input_requests.unwrap().into_keys().collect();
        assert_eq!(keys, vec!["roots-1", "user_name"]);
        let responses = raw(
            serde_json::json!({"user_name": {"action": "accept", "content": {}}, "roots-1": {"roots": []}}),
        );
        let answers = s
            .answers(&b, ir.request_state.as_deref(), Some(&responses))
            .unwrap();
        let round = InputRound::new(answers);
        let out = round
            .clone()
            .run(handler(round), &s, || b.clone(), stamp, finish)
            .await
            .unwrap();
        assert_eq!(out.get(), "\"Accept 0\"");
    }
}
