//! What the gateway lists of an upstream: every page of a list, and the route of each upstream tool
//! under its exposed name.

use crate::hop::Hop;
use mcp_runtime::protocol::Tool;
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Error};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Pages of one upstream's `tools/list` followed before it is taken as misbehaving.
pub(crate) const MAX_PAGES: usize = 1000;

/// The route of one upstream tool under its exposed name.
/// The tool keeps its `execution.taskSupport`: the gateway serves tasks downstream with the runtime's
/// task machinery, the handler following the upstream's task (see [`relay::upstream_call`]). A direct
/// call's result stays JSON text from the upstream's answer to the downstream frame. Its
/// immediate window is the call's timeout, so a call becomes a task downstream when (and only when)
/// the upstream makes it one.
pub(crate) fn route(mut hop: Hop, exposed: String, mut tool: Tool) -> ToolRoute {
    tool.name = exposed;
    if let Some(rt) = crate::rich_text::rules(&hop.upstream) {
        // The tool says which arguments take Markdown, and keeps no output schema Markdown would break.
        mcp_openapi::rich_text::describe(&mut tool, rt);
    }
    hop.support = tool.task_support();
    let window = hop.upstream.config.timeout;
    let hop = Arc::new(hop);
    ToolRoute::raw(tool, move |args: Arguments, ctx: Context| {
        let hop = hop.clone();
        async move { hop.call(args, ctx).await }
    })
    .task_after(window)
}

/// Every page of a list, within [`MAX_PAGES`] and refusing a cursor that repeats.
pub(crate) async fn all_pages<T, F, Fut>(method: &str, mut page: F) -> Result<Vec<T>, Error>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>), Error>>,
{
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..MAX_PAGES {
        let (items, next) = page(cursor.take()).await?;
        all.extend(items);
        match next {
            None => return Ok(all),
            Some(c) if !seen.insert(c.clone()) => {
                return Err(Error::Protocol(format!(
                    "{method} repeated the cursor {c:?}: the list does not end"
                )))
            }
            Some(c) => cursor = Some(c),
        }
    }
    Err(Error::Protocol(format!(
        "{method} did not end after {MAX_PAGES} pages"
    )))
}

/// A digest of a value's JSON (stable within the process).
pub(crate) fn digest_of<T: serde::Serialize>(items: impl Iterator<Item = (String, T)>) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    for (name, item) in items {
        name.hash(&mut h);
        serde_json::to_string(&item)
            .unwrap_or_default()
            .hash(&mut h);
    }
    h.finish()
}
