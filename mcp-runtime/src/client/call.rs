//! One request under its era's rules.
//!
//! Handshake era: the params go out as they are. 2026-07-28: `_meta` is stamped on every attempt, the
//! result's `resultType` is read (absent = `complete`; an unknown value is an error), `input_required`
//! is answered and the request retried with a new id (up to the round limit), and an
//! `UnsupportedProtocolVersion` (`-32022`) moves the client to a version the server lists and retries once.

use super::{era, mrtr, CallOptions, Client, RouteKey};
use crate::connection::RequestOptions;
use crate::error::Error;
use crate::framing::{raw_text, to_raw};
use crate::protocol::meta::keys;
use crate::protocol::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// A result, with how it was reached.
pub(crate) struct Answer {
    pub(crate) raw: Box<RawValue>,
    /// It took more than one round (multi round-trip request): not to be cached.
    pub(crate) retried: bool,
    /// `resultType: "task"`: the raw result is a task handle (tasks extension).
    pub(crate) task: bool,
}

pub(crate) fn decode<R: DeserializeOwned>(method: &str, raw: &RawValue) -> Result<R, Error> {
    serde_json::from_str(raw.get()).map_err(|e| Error::Decode {
        method: method.into(),
        reason: e.to_string(),
    })
}

/// Params as a JSON object (`null` and absent params become `{}`).
pub(crate) fn object<P: Serialize + ?Sized>(params: &P) -> Result<JsonObject, Error> {
    match serde_json::to_value(params).map_err(|e| Error::Protocol(e.to_string()))? {
        Value::Object(o) => Ok(o),
        Value::Null => Ok(JsonObject::new()),
        other => Err(Error::Protocol(format!(
            "request params must be a JSON object, not {other}"
        ))),
    }
}

/// A result's `resultType` (absent = complete). The result was validated when its frame was decoded:
/// the members before it are skipped a string at a time ([`crate::framing::object_member`]), not
/// parsed, and nothing after it is read.
fn result_type(result: &str) -> Result<ResultType, serde_json::Error> {
    match crate::framing::object_member(result, "\"resultType\"") {
        Some(Some(v)) => serde_json::from_str(v),
        Some(None) => Ok(ResultType::Complete),
        // Not an object: serde says why.
        None => serde_json::from_str::<ResultKind>(result).map(|k| k.result_type),
    }
}

fn with_progress_token(params: &mut JsonObject, id: &RequestId) {
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    if let Value::Object(m) = meta {
        m.insert(
            keys::PROGRESS_TOKEN.into(),
            serde_json::to_value(id).unwrap_or_default(),
        );
    }
}

impl Client {
    pub(crate) async fn call<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        opts: &CallOptions,
    ) -> Result<Answer, Error> {
        let ro = |id_progress: bool| RequestOptions {
            timeout: opts.timeout,
            related: None,
            on_progress: if id_progress {
                opts.on_progress.clone()
            } else {
                None
            },
        };
        // The server's requests that belong to this call reach its own handlers, if it has some.
        let route = |id: &RequestId| {
            opts.handlers.as_ref().map(|h| {
                self.shared
                    .routes
                    .enter(RouteKey::Request(id.clone()), h.clone())
            })
        };
        // Inside a handler (or a trace scope), the request joins the current trace (SEP-414).
        let trace = crate::TraceContext::current();
        let Some(meta) = &self.modern else {
            let id = self.peer.next_id();
            let _route = route(&id);
            let raw = if opts.on_progress.is_some() || trace.is_some() {
                let mut p = object(params)?;
                if opts.on_progress.is_some() {
                    with_progress_token(&mut p, &id);
                }
                if let Some(t) = &trace {
                    t.write_meta(&mut p);
                }
                to_raw(&p)
            } else {
                to_raw(params)
            }
            .map_err(|e| Error::Protocol(e.message))?;
            let raw = self
                .peer
                .request_with_id(id, method, Some(&raw), ro(true))
                .await?;
            return Ok(Answer {
                raw,
                retried: false,
                task: false,
            });
        };
        // The params as a tree, once a round changes them (or they have a `_meta` of their own);
        // until then each attempt is written as text (`ModernMeta::stamped`).
        let mut tree: Option<JsonObject> = None;
        let mut rounds = 0u32;
        let mut version_retried = false;
        loop {
            let id = self.peer.next_id();
            let _route = route(&id);
            let version = self.protocol_version();
            let caps = opts.capabilities.as_ref();
            let progress = opts.on_progress.is_some().then_some(&id);
            let text = match tree {
                None if trace.is_none() => meta
                    .stamped(params, version, caps, progress)
                    .map_err(|e| Error::Protocol(e.to_string()))?,
                _ => None,
            };
            let raw = match text {
                Some(text) => raw_text(text),
                None => {
                    let mut attempt = match &tree {
                        Some(t) => t.clone(),
                        None => tree.insert(object(params)?).clone(),
                    };
                    meta.stamp_as(&mut attempt, version, caps);
                    if progress.is_some() {
                        with_progress_token(&mut attempt, &id);
                    }
                    if let Some(t) = &trace {
                        t.write_meta(&mut attempt);
                    }
                    to_raw(&attempt)
                }
            }
            .map_err(|e| Error::Protocol(e.message))?;
            let result = match self
                .peer
                .request_with_id(id, method, Some(&raw), ro(true))
                .await
            {
                Ok(r) => r,
                Err(Error::Rpc(e))
                    if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION && !version_retried =>
                {
                    version_retried = true;
                    let v = era::pick_version(&e)?;
                    tracing::debug!(%v, "the server refused our protocol version; retrying with one it lists");
                    self.set_protocol_version(v);
                    continue;
                }
                Err(e) => return Err(e),
            };
            let kind = result_type(result.get()).map_err(|e| {
                Error::Protocol(format!(
                    "the result of {method} has an invalid resultType: {e}"
                ))
            })?;
            match kind {
                ResultType::Complete => {
                    return Ok(Answer {
                        raw: result,
                        retried: rounds > 0,
                        task: false,
                    })
                }
                ResultType::Task if self.tasks_extension && method == methods::TOOLS_CALL => {
                    return Ok(Answer {
                        raw: result,
                        retried: rounds > 0,
                        task: true,
                    })
                }
                ResultType::InputRequired if mrtr::allows_input(method) => {
                    rounds += 1;
                    if rounds > self.max_input_rounds {
                        return Err(Error::Protocol(format!(
                            "the server asked for input {rounds} times for one {method}; giving up after {} rounds",
                            self.max_input_rounds
                        )));
                    }
                    let ir = mrtr::read_input_required(result.get(), method)?;
                    let responses = match ir.input_requests {
                        Some(requests) => {
                            let handlers = self.shared.handlers.with(opts.handlers.as_ref());
                            // Boxed: an input round is rare, and its state would otherwise ride
                            // in every request's future.
                            Some(Box::pin(mrtr::answer_all(&handlers, requests)).await?)
                        }
                        None => None,
                    };
                    let tree = match &mut tree {
                        Some(t) => t,
                        None => tree.insert(object(params)?),
                    };
                    mrtr::next_round(tree, responses, ir.request_state);
                }
                other => {
                    return Err(Error::Protocol(format!(
                        "the result of {method} has resultType {:?}, which this client cannot accept here",
                        other.as_str()
                    )))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_type_is_read_past_the_other_members() {
        let r = |t: &str| result_type(t).map_err(|e| e.to_string());
        assert_eq!(
            r(r#"{"content":[{"type":"text","text":"a\"}"}]}"#),
            Ok(ResultType::Complete)
        );
        assert_eq!(
            r(r#"{"x":{"resultType":"task"},"resultType":"task"}"#),
            Ok(ResultType::Task)
        );
        assert_eq!(
            r(r#"{"resultType":"input_required","inputRequests":{}}"#),
            Ok(ResultType::InputRequired)
        );
        assert_eq!(
            r(r#"{"resultType":"later"}"#),
            Ok(ResultType::Other("later".into()))
        );
        assert!(r(r#"{"resultType":3}"#).is_err());
        assert!(r("[1]").is_err());
    }
}
