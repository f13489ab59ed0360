//! `tools/call` for a relay: the arguments go out as the JSON text given, and the result comes back as
//! JSON text ([`RawCallToolResult`]), through the same request path (era rules, input rounds, header
//! retry, tasks) as [`Client::call_tool_with`].

use super::{call, CallOptions, Client};
use crate::error::Error;
use crate::protocol::{methods, DetailedTask, RawCallToolResult};
use serde::Serialize;
use serde_json::value::RawValue;

/// `tools/call` params whose arguments are JSON text.
#[derive(Serialize)]
struct RawCallParams<'a> {
    name: &'a str,
    arguments: &'a RawValue,
}

impl Client {
    /// Calls a tool with arguments given as JSON text (an object) and returns its result as JSON text:
    /// nothing of the result is decoded but its top level, so a relay passes it on as it came. A
    /// result that arrives as a task (2026-07-28) is followed to its end, as [`Client::call_tool_with`]
    /// does. The options are borrowed: a relay builds them once per call and keeps them for the
    /// progress and input it relays while the call runs.
    pub async fn call_tool_raw(
        &self,
        name: &str,
        arguments: &RawValue,
        opts: &CallOptions,
    ) -> Result<RawCallToolResult, Error> {
        let params = RawCallParams { name, arguments };
        let answer = self.tool_call(name, &params, opts).await?;
        let decode_error = |e: serde_json::Error| Error::Decode {
            method: methods::TOOLS_CALL.into(),
            reason: e.to_string(),
        };
        if answer.task {
            let task: DetailedTask = call::decode(methods::TOOLS_CALL, &answer.raw)?;
            // Boxed: following a task is rare, and its state would otherwise ride in every call's future.
            let r = Box::pin(self.task_result_of(task, opts)).await?;
            return RawCallToolResult::from_result(&r).map_err(decode_error);
        }
        RawCallToolResult::from_raw(&answer.raw).map_err(decode_error)
    }
}
