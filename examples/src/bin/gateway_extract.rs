//! Step 1 of the gateway's worked example (`../shared/seeds/004_*.txt`, section 4): a stdio MCP server
//! whose `extract {url}` tool "extracts" the text of a page. It never touches the network: the text is
//! made from the URL, paragraph by paragraph, each streamed as a progress message while it works.

use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::{tool, Context, Server};

/// Extract the text of a web page, streaming each paragraph as it is found.
#[tool]
async fn extract(
    /// The page's URL
    url: String,
    ctx: Context,
) -> CallToolResult {
    let paragraphs = [
        format!("Intro paragraph of {url}."),
        "Method section: the gateway normalizes every transport.".to_string(),
    ];
    for (i, p) in paragraphs.iter().enumerate() {
        ctx.progress(
            (i + 1) as f64,
            Some(paragraphs.len() as f64),
            Some(p.clone()),
        )
        .await;
    }
    CallToolResult::structured(serde_json::json!({ "text": paragraphs.join("\n") }))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    let server = Server::builder()
        .name("gateway-extract")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(extract_tool())
        .build()?;
    server.serve_stdio().await?;
    Ok(())
}
