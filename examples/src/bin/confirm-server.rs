//! A tool that asks the user before it acts, written once for both protocol eras.
//!
//! `delete_project` asks for a confirmation with `ctx.input("confirm").elicit(..)`. A handshake-era client
//! gets a real `elicitation/create` request; a 2026-07-28 client gets `resultType: "input_required"` and
//! retries with the answer, and the handler runs again: so the deletion comes after the answer, and runs
//! once. `DELETIONS` counts them, for the test (examples/tests/it/confirm_server.rs).
//!
//! ```text
//! confirm-server            # stdio
//! ```

use mcp_runtime::protocol::{ElicitAction, ElicitParams, JsonObject};
use mcp_runtime::{tool, Context, Server};
use std::sync::atomic::{AtomicUsize, Ordering};

static DELETIONS: AtomicUsize = AtomicUsize::new(0);

fn confirm_schema() -> JsonObject {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "description": "Delete it?"}},
        "required": ["confirm"]
    });
    schema.as_object().cloned().unwrap_or_default()
}

/// Deletes a project after the user confirms.
#[tool(destructive)]
async fn delete_project(
    /// The project key, e.g. PROJ
    project: String,
    ctx: Context,
) -> Result<String, mcp_runtime::Error> {
    let form = ElicitParams::form(format!("Delete project {project}?"), confirm_schema());
    let answer = ctx.input("confirm").elicit(form).await?;
    let confirmed = answer.action == ElicitAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|c| c.get("confirm"))
            .and_then(serde_json::Value::as_bool)
            == Some(true);
    if !confirmed {
        return Ok(format!("{project} kept"));
    }
    // Side effects after the answer: under 2026-07-28 this line runs once, on the final round.
    let n = DELETIONS.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(format!("{project} deleted (deletions so far: {n})"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    Server::builder()
        .name("confirm")
        .tool(delete_project_tool())
        .build()?
        .serve_stdio()
        .await?;
    Ok(())
}
