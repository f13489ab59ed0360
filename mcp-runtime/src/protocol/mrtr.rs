//! Multi round-trip requests (2026-07-28): a result may say "input required" and name the requests
//! (elicitation, sampling, roots) the client must answer before it retries the original request with
//! the answers and the server's opaque `requestState`.

use super::{methods, CreateMessageParams, ElicitParams, JsonObject};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What kind of result a response carries (`resultType`). An absent field means `complete`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum ResultType {
    /// A complete result: the answer to the request.
    #[default]
    Complete,
    /// `input_required`: the server needs answers to the `inputRequests` before it can answer; retry with
    /// them.
    InputRequired,
    /// The tasks extension: the result is a task handle to poll.
    Task,
    /// A value of an extension this side does not know: the result is invalid to it.
    Other(String),
}

impl ResultType {
    /// The wire spelling (`"input_required"`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
            ResultType::Other(s) => s,
        }
    }
    /// The value of a `resultType` string; an unknown one is kept as [`ResultType::Other`].
    pub fn parse(s: &str) -> Self {
        match s {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            other => ResultType::Other(other.to_string()),
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(ResultType::parse(&s))
    }
}

/// Reads only the `resultType` of a result (absent = complete), to decide how to read the rest.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultKind {
    /// The result's `resultType`; [`ResultType::Complete`] when absent.
    #[serde(default)]
    pub result_type: ResultType,
}

/// One request the server needs the client to answer before the retry.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`: ask the user.
    Elicit(ElicitParams),
    /// `sampling/createMessage`: ask the client's LLM.
    CreateMessage(CreateMessageParams),
    /// `roots/list`: ask for the client's roots.
    ListRoots,
}

impl InputRequest {
    /// The method of the equivalent handshake-era request (`elicitation/create`, ...).
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => methods::ELICITATION_CREATE,
            InputRequest::CreateMessage(_) => methods::SAMPLING_CREATE_MESSAGE,
            InputRequest::ListRoots => methods::ROOTS_LIST,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct InputRequestWire {
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    params: Option<serde_json::Value>,
}

impl Serialize for InputRequest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let params = match self {
            InputRequest::Elicit(p) => serde_json::to_value(p).map_err(S::Error::custom)?,
            InputRequest::CreateMessage(p) => serde_json::to_value(p).map_err(S::Error::custom)?,
            InputRequest::ListRoots => serde_json::Value::Object(JsonObject::new()),
        };
        InputRequestWire {
            method: self.method().to_string(),
            params: Some(params),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let w = InputRequestWire::deserialize(d)?;
        let params = w
            .params
            .unwrap_or(serde_json::Value::Object(JsonObject::new()));
        match w.method.as_str() {
            methods::ELICITATION_CREATE => serde_json::from_value(params)
                .map(InputRequest::Elicit)
                .map_err(D::Error::custom),
            methods::SAMPLING_CREATE_MESSAGE => serde_json::from_value(params)
                .map(InputRequest::CreateMessage)
                .map_err(D::Error::custom),
            methods::ROOTS_LIST => Ok(InputRequest::ListRoots),
            other => Err(D::Error::custom(format!(
                "unsupported input request method {other:?} (expected elicitation/create, sampling/createMessage or roots/list)"
            ))),
        }
    }
}

/// The server's requests, by keys it chose.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answers, by the keys of the requests: each an `ElicitResult`, `CreateMessageResult` or
/// `ListRootsResult`.
pub type InputResponses = BTreeMap<String, serde_json::Value>;

/// `resultType: "input_required"`: what the client must provide before it retries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// The requests to answer, by keys the server chose; the retry answers under the same keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque to the client: echoed exactly on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The fields a retry adds to the original request's params (flatten this beside them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputResponseParams {
    /// The answers to the previous round's `inputRequests`, by their keys; `None` on the first attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The `requestState` of the previous round, echoed exactly; `None` when the server gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}
