//! Multi round-trip requests, the client's half: an `input_required` result is answered through the
//! handlers the user registered, and the original request is retried with the answers.
//!
//! The retry is a new request (a new id) with the same params plus `inputResponses` and the server's
//! `requestState` echoed byte for byte; both belong to that retry alone, never to another request.

use super::handler::Handlers;
use crate::error::Error;
use crate::protocol::*;
use serde_json::Value;

/// The requests whose results may be `input_required`.
pub(crate) fn allows_input(method: &str) -> bool {
    matches!(
        method,
        methods::TOOLS_CALL | methods::PROMPTS_GET | methods::RESOURCES_READ
    )
}

/// Reads an `input_required` result: a malformed one (an unknown method in `inputRequests`, neither
/// requests nor state) is a clear protocol error.
pub(crate) fn read_input_required(raw: &str, method: &str) -> Result<InputRequiredResult, Error> {
    let ir: InputRequiredResult = serde_json::from_str(raw).map_err(|e| {
        Error::Protocol(format!(
            "the server's input_required result for {method} is malformed: {e}"
        ))
    })?;
    if ir.input_requests.is_none() && ir.request_state.is_none() {
        return Err(Error::Protocol(format!(
            "the server's input_required result for {method} has neither inputRequests nor requestState"
        )));
    }
    Ok(ir)
}

/// Answers every input request (concurrently), keyed as the server keyed them.
pub(crate) async fn answer_all(
    handlers: &Handlers,
    requests: InputRequests,
) -> Result<InputResponses, Error> {
    let answers = requests.into_iter().map(|(key, req)| {
        let method = req.method();
        let fut = handlers.answer(Some(&key), req);
        async move {
            match fut.await {
                Ok(raw) => serde_json::from_str::<Value>(raw.get())
                    .map(|v| (key, v))
                    .map_err(|e| Error::Protocol(e.to_string())),
                Err(error) => Err(Error::InputRequest {
                    key,
                    method: method.to_string(),
                    error,
                }),
            }
        }
    });
    let answered = crate::future::try_join_all(answers).await?;
    Ok(answered.into_iter().collect())
}

/// The params of the next round: the original params with this round's answers and state (and nothing
/// left over from an earlier round).
pub(crate) fn next_round(
    params: &mut JsonObject,
    responses: Option<InputResponses>,
    state: Option<String>,
) {
    params.remove("inputResponses");
    params.remove("requestState");
    if let Some(r) = responses {
        params.insert(
            "inputResponses".into(),
            serde_json::to_value(r).unwrap_or_default(),
        );
    }
    if let Some(s) = state {
        params.insert("requestState".into(), Value::String(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::{Arc, Mutex};

    #[tokio::test]
    async fn answers_through_the_registered_handlers() {
        let handlers = Handlers {
            elicitation: Some(Arc::new(|p: ElicitParams| async move {
                Ok(ElicitResult {
                    action: ElicitAction::Accept,
                    content: Some(json!({"echo": p.message}).as_object().unwrap().clone()),
                    meta: None,
                })
            })),
            roots: Some(Arc::new(Mutex::new(vec![Root {
                uri: "file:///w".into(),
                name: None,
                meta: None,
            }]))),
            ..Default::default()
        };
        let ir = read_input_required(
            r#"{"resultType":"input_required","inputRequests":{
                "a":{"method":"elicitation/create","params":{"message":"hi","requestedSchema":{"type":"object","properties":{}}}},
                "b":{"method":"roots/list"}},"requestState":"s1"}"#,
            "tools/call",
        )
        .unwrap();
        let answers = answer_all(&handlers, ir.input_requests.unwrap())
            .await
            .unwrap();
        assert_eq!(
            answers["a"],
            json!({"action": "accept", "content": {"echo": "hi"}})
        );
        assert_eq!(answers["b"], json!({"roots": [{"uri": "file:///w"}]}));

        // Sampling was not registered: the call fails, naming the request.
        let ir = read_input_required(
            r#"{"inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}}"#,
            "tools/call",
        )
        .unwrap();
        let e = answer_all(&handlers, ir.input_requests.unwrap())
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Error::InputRequest { key, method, .. } if key == "s" && method == "sampling/createMessage"),
            "{e}"
        );
    }

    #[test]
    fn malformed_input_requests_are_refused() {
        let e = read_input_required(
            r#"{"inputRequests":{"x":{"method":"tools/call","params":{}}}}"#,
            "tools/call",
        )
        .unwrap_err();
        assert!(e.to_string().contains("malformed"), "{e}");
        let e =
            read_input_required(r#"{"resultType":"input_required"}"#, "prompts/get").unwrap_err();
        assert!(e.to_string().contains("neither"), "{e}");
    }

    #[test]
    fn a_round_replaces_the_previous_rounds_fields() {
        let mut p = json!({"name": "t", "requestState": "old", "inputResponses": {"x": 1}})
            .as_object()
            .unwrap()
            .clone();
        next_round(&mut p, None, Some("new".into()));
        assert_eq!(
            Value::Object(p),
            json!({"name": "t", "requestState": "new"})
        );
    }
}
