//! The calls tests make: a structured result as a type, a call with what it received on the way, the
//! tool names.

use super::InProcess;
use crate::client::{CallOptions, ServerNotification};
use crate::error::Error;
use crate::protocol::{methods, CallToolResult, LoggingMessageParams, ProgressParams};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast::{self, error::TryRecvError};

/// What one call received: its outcome, and the progress and log messages the server sent while it ran.
#[derive(Debug)]
pub struct Observed {
    /// The call's outcome as [`crate::Client::call_tool`] returns it.
    pub result: Result<CallToolResult, Error>,
    /// The `notifications/progress` of this call, in the order they came.
    pub progress: Vec<ProgressParams>,
    /// The `notifications/message` the server sent while the call ran, in order (a log message names no
    /// request: on a shared connection, another call's would be here too).
    pub logs: Vec<LoggingMessageParams>,
}

impl Observed {
    /// The log messages' `data` as text (a string as it is, anything else as JSON).
    pub fn log_texts(&self) -> Vec<String> {
        self.logs
            .iter()
            .map(|m| match &m.data {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect()
    }
}

impl InProcess {
    /// Calls a tool and decodes its structured result (`structuredContent`) as `T`. A tool's own failure
    /// (`isError`) is [`Error::Tool`] with its text; a result without structured content or of another
    /// shape is [`Error::Decode`] naming the tool.
    pub async fn call_tool_as<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<T, Error> {
        let result = self.client.call_tool(name, arguments).await?;
        structured(name, result)
    }

    /// Calls a tool and collects the progress and log messages it received on the way (through the
    /// client's progress callback and notification channel, as any caller would).
    pub async fn observe_call(&self, name: &str, arguments: impl Serialize) -> Observed {
        let progress = Arc::new(Mutex::new(Vec::new()));
        let sink = progress.clone();
        let opts = CallOptions {
            on_progress: Some(Arc::new(move |p: ProgressParams| {
                sink.lock().unwrap_or_else(|e| e.into_inner()).push(p)
            })),
            ..Default::default()
        };
        let mut notes = self.client.notifications();
        let result = self.client.call_tool_with(name, arguments, opts).await;
        // The pump hands notifications over in the order they were read, so every message sent before
        // the answer is in the channel by now.
        let logs = drain_logs(&mut notes);
        let progress = std::mem::take(&mut *progress.lock().unwrap_or_else(|e| e.into_inner()));
        Observed {
            result,
            progress,
            logs,
        }
    }

    /// The names of the server's tools, every page, in the order listed.
    pub async fn tool_names(&self) -> Result<Vec<String>, Error> {
        let tools = self.client.list_all_tools().await?;
        Ok(tools.into_iter().map(|t| t.name).collect())
    }
}

fn structured<T: DeserializeOwned>(name: &str, result: CallToolResult) -> Result<T, Error> {
    let decode = |reason: String| Error::Decode {
        method: format!("tools/call {name}"),
        reason,
    };
    if result.is_error == Some(true) {
        return Err(Error::Tool(result.text_content()));
    }
    let Some(value) = result.structured_content else {
        return Err(decode(format!(
            "the result has no structuredContent (its text: {:?})",
            result.text_content()
        )));
    };
    serde_json::from_value(value).map_err(|e| decode(e.to_string()))
}

fn drain_logs(notes: &mut broadcast::Receiver<ServerNotification>) -> Vec<LoggingMessageParams> {
    let mut logs = Vec::new();
    loop {
        match notes.try_recv() {
            Ok(n) if n.method == methods::MESSAGE => {
                if let Some(p) = n.params.and_then(|p| serde_json::from_value(p).ok()) {
                    logs.push(p);
                }
            }
            Ok(_) => {}
            Err(TryRecvError::Lagged(missed)) => {
                tracing::warn!(missed, "notifications lost while a call was observed");
            }
            Err(TryRecvError::Empty | TryRecvError::Closed) => return logs,
        }
    }
}
