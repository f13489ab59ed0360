//! Task-augmented tool calls, one API for both eras.
//!
//! 2025-11-25: the client asks for a task (`params.task`, allowed when the server declares
//! `tasks.requests.tools.call`) and gets a `CreateTaskResult`; `tasks/get` polls, `tasks/result` blocks
//! until the result, `tasks/cancel` cancels; the server's requests during the task reach the handlers as
//! usual. 2026-07-28 (extension `io.modelcontextprotocol/tasks`): the server decides, answering
//! `resultType: "task"`; `tasks/get` polls and inlines the result, the error or the input the task
//! needs, which the client answers through its handlers with `tasks/update`; `tasks/cancel` cancels.

use super::{call, mrtr, CallOptions, Client, RouteKey};
use crate::error::Error;
use crate::protocol::*;
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// How a task-augmented call began.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskStart {
    /// The server answered at once (a 2026 server may, for a fast tool).
    Complete(CallToolResult),
    /// The server made a task: poll it with [`Client::get_task`], await it with [`Client::task_result`].
    Task(DetailedTask),
}

const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// A 2025-11-25 task in the extension's shape (its `ttl` and `pollInterval` were milliseconds too).
fn detailed(t: Task) -> DetailedTask {
    DetailedTask {
        task_id: t.task_id,
        status: t.status,
        status_message: t.status_message,
        created_at: t.created_at,
        last_updated_at: t.last_updated_at,
        ttl_ms: t.ttl,
        poll_interval_ms: t.poll_interval,
        input_requests: None,
        result: None,
        error: None,
        meta: None,
    }
}

impl Client {
    /// Calls a tool as a task. `ttl_ms` asks the server to keep the task that long (2025-11-25; a 2026
    /// server chooses).
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: impl Serialize,
        ttl_ms: Option<u64>,
    ) -> Result<TaskStart, Error> {
        self.call_tool_as_task_with(name, arguments, ttl_ms, &CallOptions::default())
            .await
    }

    /// [`Client::call_tool_as_task`] with call options: a timeout for the call that creates the task,
    /// progress, and handlers for the input the server asks before the task exists (follow the task
    /// with [`Client::task_result_with`] and the same options).
    pub async fn call_tool_as_task_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        ttl_ms: Option<u64>,
        opts: &CallOptions,
    ) -> Result<TaskStart, Error> {
        let arguments =
            serde_json::to_value(arguments).map_err(|e| Error::Protocol(e.to_string()))?;
        if self.is_modern() {
            if !self.tasks_extension {
                return Err(Error::Protocol(
                    "the tasks extension was not declared (ClientBuilder::tasks_extension)".into(),
                ));
            }
            let params = serde_json::json!({"name": name, "arguments": arguments});
            let answer = self.call(methods::TOOLS_CALL, &params, opts).await?;
            return if answer.task {
                Ok(TaskStart::Task(call::decode(
                    methods::TOOLS_CALL,
                    &answer.raw,
                )?))
            } else {
                Ok(TaskStart::Complete(call::decode(
                    methods::TOOLS_CALL,
                    &answer.raw,
                )?))
            };
        }
        let supported = self
            .init
            .capabilities
            .tasks
            .as_ref()
            .and_then(|t| t.get("requests"))
            .and_then(|r| r.get("tools"))
            .and_then(|t| t.get("call"))
            .is_some();
        if !supported {
            return Err(Error::CapabilityMissing("tasks.requests.tools.call"));
        }
        let mut task = JsonObject::new();
        if let Some(ttl) = ttl_ms {
            task.insert("ttl".into(), ttl.into());
        }
        let params = serde_json::json!({"name": name, "arguments": arguments, "task": task});
        let answer = self.call(methods::TOOLS_CALL, &params, opts).await?;
        let v: serde_json::Value = call::decode(methods::TOOLS_CALL, &answer.raw)?;
        if v.get("task").is_some() {
            let created: CreateTaskResult = call::decode(methods::TOOLS_CALL, &answer.raw)?;
            Ok(TaskStart::Task(detailed(created.task)))
        } else {
            Ok(TaskStart::Complete(call::decode(
                methods::TOOLS_CALL,
                &answer.raw,
            )?))
        }
    }

    /// `tasks/get`: the task's state (in 2026-07-28 with its result, error or pending input inlined).
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, Error> {
        let params = TaskIdParams {
            task_id: task_id.into(),
        };
        if self.is_modern() {
            self.request(methods::TASKS_GET, &params).await
        } else {
            let t: Task = self.request(methods::TASKS_GET, &params).await?;
            Ok(detailed(t))
        }
    }

    /// `tasks/cancel`. A task already finished is an error from the server (`-32602`).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), Error> {
        let params = TaskIdParams {
            task_id: task_id.into(),
        };
        let _: serde_json::Value = self.request(methods::TASKS_CANCEL, &params).await?;
        Ok(())
    }

    /// `tasks/update` (2026-07-28): answers to some of a task's pending input requests.
    pub async fn update_task(&self, task_id: &str, responses: InputResponses) -> Result<(), Error> {
        if !self.is_modern() {
            return Err(Error::Protocol(
                "tasks/update exists only in the 2026 tasks extension; a 2025-11-25 task asks its input with requests the handlers answer".into(),
            ));
        }
        let _: serde_json::Value = self
            .request(
                methods::TASKS_UPDATE,
                &UpdateTaskParams {
                    task_id: task_id.into(),
                    input_responses: responses,
                },
            )
            .await?;
        Ok(())
    }

    /// Waits for a task's result: `tasks/result` (2025-11-25), or polling `tasks/get` at the server's
    /// interval and answering its input requests (2026-07-28). A failed task is its JSON-RPC error.
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult, Error> {
        self.task_result_with(task_id, &CallOptions::default())
            .await
    }

    /// Like [`Client::task_result`], with the options of the call that made the task: its handlers
    /// answer the task's input requests (2026) and the requests tagged with the task (2025-11-25), and
    /// its timeout bounds the wait (2026).
    pub async fn task_result_with(
        &self,
        task_id: &str,
        opts: &CallOptions,
    ) -> Result<CallToolResult, Error> {
        if !self.is_modern() {
            let _route = opts.handlers.as_ref().map(|h| {
                self.shared
                    .routes
                    .enter(RouteKey::Task(task_id.to_string()), h.clone())
            });
            let params = TaskIdParams {
                task_id: task_id.into(),
            };
            let wait = CallOptions {
                timeout: Some(Duration::MAX),
                ..opts.clone()
            };
            let answer = self.call(methods::TASKS_RESULT, &params, &wait).await?;
            return call::decode(methods::TASKS_RESULT, &answer.raw);
        }
        let task = self.get_task(task_id).await?;
        self.task_result_of(task, opts).await
    }

    /// Follows a 2026 task from its latest known state to its result; `opts.timeout` bounds the wait,
    /// `opts.handlers` answer its input requests.
    pub(crate) async fn task_result_of(
        &self,
        mut task: DetailedTask,
        opts: &CallOptions,
    ) -> Result<CallToolResult, Error> {
        let limit = opts.timeout;
        let handlers = self.shared.handlers.with(opts.handlers.as_ref());
        let started = Instant::now();
        let mut answered: BTreeSet<String> = BTreeSet::new();
        let mut rounds = 0u32;
        loop {
            match task.status {
                TaskStatus::Completed => {
                    let result = task.result.take().ok_or_else(|| {
                        Error::Protocol(format!("task {} completed without a result", task.task_id))
                    })?;
                    return serde_json::from_value(result).map_err(|e| Error::Decode {
                        method: methods::TASKS_GET.into(),
                        reason: e.to_string(),
                    });
                }
                TaskStatus::Failed => {
                    return Err(match task.error.take() {
                        Some(e) => Error::Rpc(e),
                        None => Error::Protocol(format!(
                            "task {} failed without an error",
                            task.task_id
                        )),
                    })
                }
                TaskStatus::Cancelled => {
                    return Err(Error::Protocol(format!(
                        "task {} was cancelled",
                        task.task_id
                    )))
                }
                TaskStatus::InputRequired => {
                    let pending: InputRequests = task
                        .input_requests
                        .take()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|(k, _)| !answered.contains(k))
                        .collect();
                    if !pending.is_empty() {
                        rounds += 1;
                        if rounds > self.max_input_rounds * 4 {
                            return Err(Error::Protocol(format!(
                                "task {} kept asking for input; giving up after {} rounds",
                                task.task_id,
                                rounds - 1
                            )));
                        }
                        answered.extend(pending.keys().cloned());
                        let responses = mrtr::answer_all(&handlers, pending).await?;
                        self.update_task(&task.task_id, responses).await?;
                        task = self.get_task(&task.task_id).await?;
                        continue;
                    }
                }
                TaskStatus::Working => {}
            }
            if let Some(limit) = limit {
                if started.elapsed() >= limit {
                    return Err(Error::Timeout {
                        method: format!("task {}", task.task_id),
                        after: limit,
                    });
                }
            }
            let wait = task
                .poll_interval_ms
                .map(Duration::from_millis)
                .unwrap_or(DEFAULT_POLL)
                .clamp(Duration::from_millis(20), Duration::from_secs(30));
            tokio::time::sleep(wait).await;
            task = self.get_task(&task.task_id).await?;
        }
    }
}
