//! Composite tools: a tool of the gateway's own, declared in the config, whose steps call upstream tools
//! in order, each through the same hop as any call ([`crate::relay`]).
//!
//! **Arguments.** A step's arguments are a JSON template ([`crate::template`]) over `input` (the
//! composite's arguments) and the ids of earlier steps. A step's result, as later steps see it, is its
//! `structuredContent`; without one, its text parsed as JSON when it is a JSON object; otherwise
//! `{"text": <its text>}`.
//!
//! **Progress.** Each step start, and each progress notification of a running step, is one progress
//! notification of the composite (`step <id>: <message>`), numbered in order, so the caller sees a
//! monotonic stream across steps.
//!
//! **Tasks.** A step whose tool the upstream runs only as a task is called as a task and waited for
//! (the runtime client follows it to its result), so it takes its place in the sequence like any step.
//!
//! **Secrets.** A step's result and error come from the relay with its connection's secrets taken out
//! (its upstream's, and a per-user connection's credentials), before anything else sees them (a later
//! step's arguments included).
//!
//! **Cancellation and errors.** A cancel of the composite call cancels the running step's upstream
//! request, and no further step starts. A step that fails (a JSON-RPC error, or a tool error) ends the
//! composite with an error naming the step, its upstream and its tool; a JSON-RPC error keeps the
//! upstream's code, with the step and the upstream's own `data` in `data`.

use crate::config::Composite;
use crate::relay::{self, Progress};
use crate::template::render;
use crate::upstream::Upstream;
use mcp_runtime::protocol::{CallToolResult, ErrorObject, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::Context;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A step's result as later steps see it (see the module docs).
pub fn step_value(r: &CallToolResult) -> Value {
    if let Some(v) = &r.structured_content {
        return v.clone();
    }
    let text = r.text_content();
    match serde_json::from_str::<Value>(&text) {
        Ok(v @ Value::Object(_)) => v,
        _ => serde_json::json!({ "text": text }),
    }
}

/// The route of a composite: its tool, and a handler that runs its steps on `upstreams`.
pub fn route(c: &Composite, upstreams: &[Arc<Upstream>]) -> ToolRoute {
    let tool = Tool::new(
        c.name.clone(),
        c.description.clone(),
        c.input_schema.clone(),
    );
    let c = Arc::new(c.clone());
    let upstreams: Arc<[Arc<Upstream>]> = upstreams.into();
    ToolRoute::new(tool, move |args: Arguments, ctx: Context| {
        let (c, upstreams) = (c.clone(), upstreams.clone());
        async move { run(&c, &upstreams, args, ctx).await }
    })
}

/// Runs the steps of `c` in order.
async fn run(
    c: &Composite,
    upstreams: &[Arc<Upstream>],
    args: Arguments,
    ctx: Context,
) -> Result<CallToolResult, ErrorObject> {
    let input: Value = args
        .parse()
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid arguments: {}", e.message())))?;
    let mut scope = Map::new();
    scope.insert("input".into(), input);
    let progress = Progress::steps();
    let mut results = Vec::with_capacity(c.steps.len());
    for (i, step) in c.steps.iter().enumerate() {
        let Some(up) = upstreams.get(step.upstream) else {
            return Err(ErrorObject::internal(format!(
                "composite `{}`: step `{}` names no upstream",
                c.name, step.id
            )));
        };
        let fail = |message: String, data: Value| {
            ErrorObject::internal(format!(
                "composite `{}`: step `{}` ({} of {}, `{}` on `{}`) failed: {message}",
                c.name,
                step.id,
                i + 1,
                c.steps.len(),
                step.tool,
                up.config.name
            ))
            .with_data(serde_json::json!({
                "composite": c.name, "step": step.id, "upstream": up.config.name,
                "tool": step.tool, "error": data,
            }))
        };
        let arguments = render(&step.arguments, &scope).map_err(|why| {
            let mut e = fail(why, Value::Null);
            e.code = mcp_runtime::protocol::codes::INVALID_PARAMS;
            e
        })?;
        let step_progress = progress.step(&step.id);
        step_progress
            .announce(&ctx, format!("{} of {}", i + 1, c.steps.len()))
            .await;
        // The step's upstream's `richText`, as for a call of its tool (see `crate::rich_text`).
        let rich_text = crate::rich_text::rules(up);
        let mut arguments = Arguments::from_value(arguments);
        let mut sent = mcp_text::fields::Report::default();
        if let Some(rt) = rich_text {
            match crate::rich_text::arguments(rt, arguments) {
                Ok(converted) => (arguments, sent) = converted,
                Err(refused) => {
                    return Ok(CallToolResult::error(format!(
                        "composite `{}`: step `{}` (`{}` on `{}`): {}",
                        c.name,
                        step.id,
                        step.tool,
                        up.config.name,
                        refused.text_content()
                    )))
                }
            }
        }
        // A tool the upstream runs only as a task (or, for a 2026 upstream, may) is called as one and
        // followed to its result (see `relay::upstream_call`).
        let r = relay::call_tool_as(
            up,
            &step.tool,
            up.task_support(&step.tool),
            arguments,
            ctx.clone(),
            step_progress,
        )
        .await
        .map(|r| match rich_text {
            Some(rt) => crate::rich_text::result(rt, r, &sent),
            None => r,
        })
        .map_err(|e| {
            let data = e.data.clone().unwrap_or(Value::Null);
            let mut out = fail(e.message.clone(), data);
            out.code = e.code;
            out
        })?;
        if r.is_error == Some(true) {
            return Ok(CallToolResult::error(format!(
                "composite `{}`: step `{}` (`{}` on `{}`) returned an error: {}",
                c.name,
                step.id,
                step.tool,
                up.config.name,
                r.text_content()
            )));
        }
        scope.insert(step.id.clone(), step_value(&r));
        results.push(r);
    }
    Ok(results.swap_remove(c.result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_step_value_is_structured_content_or_json_text_or_text() {
        let mut r = CallToolResult::text(r#"{"summary": "short"}"#);
        assert_eq!(step_value(&r), json!({"summary": "short"}));
        r.structured_content = Some(json!({"temp": 30.1}));
        assert_eq!(step_value(&r), json!({"temp": 30.1}));
        assert_eq!(
            step_value(&CallToolResult::text("plain")),
            json!({"text": "plain"})
        );
    }
}
