//! A stdio MCP server for an in-memory Confluence whose pages are kept in storage format (XHTML with
//! `ac:` macros and `ri:` resources), as Confluence keeps them: `get_page` returns a page as Markdown,
//! and `update_page` takes the model's edited Markdown back. Macros (table of contents, status, info,
//! code, expand), links to pages and users, images, task lists and layouts travel in the Markdown's
//! compact markers, so what the edit did not touch comes back unchanged.
//!
//! `get_page_raw` returns the stored storage format itself (what a test compares).

use mcp_runtime::{tool, tools, Server};
use mcp_text::Markdown;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The seeded page: real-shaped storage format.
const SEED: &str = include_str!("../../rich-text/confluence-page.storage.xml");

struct Page {
    title: String,
    /// The body as Confluence keeps it: storage format.
    storage: String,
}

/// A page in a list.
#[derive(Serialize, mcp_runtime::JsonSchema)]
struct PageSummary {
    id: String,
    title: String,
}

#[derive(Debug)]
enum WikiError {
    NoPage(String),
    Convert(mcp_text::Error),
}

impl std::fmt::Display for WikiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WikiError::NoPage(id) => write!(f, "no page `{id}` (list_pages lists them)"),
            WikiError::Convert(e) => write!(f, "the page could not be converted: {e}"),
        }
    }
}

/// The in-memory Confluence.
struct Wiki {
    pages: Mutex<BTreeMap<String, Page>>,
}

impl Wiki {
    fn seeded() -> Wiki {
        let page = Page {
            title: "Payment runbook".into(),
            storage: SEED.trim_end().to_string(),
        };
        Wiki {
            pages: Mutex::new(BTreeMap::from([("123456".to_string(), page)])),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Page>> {
        self.pages.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[tools]
impl Wiki {
    /// List the pages: id and title.
    #[tool(read_only)]
    fn list_pages(&self) -> Vec<PageSummary> {
        self.lock()
            .iter()
            .map(|(id, p)| PageSummary {
                id: id.clone(),
                title: p.title.clone(),
            })
            .collect()
    }

    /// Read a page as Markdown.
    ///
    /// Markers such as `<!--adf:...-->` stand for what Markdown cannot say (macros, layouts, links to
    /// pages and users): keep them as they are when editing, and the page keeps what they stand for.
    #[tool(read_only)]
    fn get_page(
        &self,
        /// Page id, e.g. 123456
        id: String,
    ) -> Result<Markdown, WikiError> {
        let pages = self.lock();
        let page = pages.get(&id).ok_or(WikiError::NoPage(id.clone()))?;
        Markdown::from_storage(&page.storage).map_err(WikiError::Convert)
    }

    /// Replace a page's body with edited Markdown (what `get_page` returned, changed).
    ///
    /// Everything the edit did not touch is kept as the page had it.
    #[tool(destructive = false, idempotent)]
    fn update_page(
        &self,
        /// Page id, e.g. 123456
        id: String,
        /// The whole page, as Markdown
        markdown: String,
    ) -> Result<String, WikiError> {
        let mut pages = self.lock();
        let page = pages
            .get_mut(&id)
            .ok_or_else(|| WikiError::NoPage(id.clone()))?;
        let (storage, warnings) = Markdown(markdown)
            .to_storage()
            .map_err(WikiError::Convert)?;
        page.storage = storage;
        if warnings.is_empty() {
            return Ok(format!("page {id} updated"));
        }
        let lines: Vec<String> = warnings.iter().map(|w| format!("- {w}")).collect();
        Ok(format!(
            "page {id} updated; the Markdown was read leniently:\n{}",
            lines.join("\n")
        ))
    }

    /// The page exactly as stored: storage format.
    #[tool(read_only)]
    fn get_page_raw(
        &self,
        /// Page id, e.g. 123456
        id: String,
    ) -> Result<String, WikiError> {
        let pages = self.lock();
        let page = pages.get(&id).ok_or(WikiError::NoPage(id))?;
        Ok(page.storage.clone())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    Server::builder()
        .name("confluence-server")
        .version(env!("CARGO_PKG_VERSION"))
        .tools(Arc::new(Wiki::seeded()).tool_routes())
        .build()?
        .serve_stdio()
        .await?;
    Ok(())
}
