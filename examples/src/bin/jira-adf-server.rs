//! A stdio MCP server for an in-memory Jira whose issues keep their descriptions as ADF, as Jira Cloud
//! does: `get_issue` returns the description as Markdown a model reads, and `update_description` takes
//! the model's edited Markdown back. Everything Markdown cannot say (panels, mentions, status, media,
//! inline cards, expands, table attributes) travels in the Markdown's compact markers, so the nodes the
//! edit did not touch come back unchanged, with no state kept between the read and the write.
//!
//! `get_issue_raw` returns the stored ADF itself (what a test compares).

use mcp_runtime::{tool, tools, Server};
use mcp_text::{Markdown, Options};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The seeded issue's description: real-shaped ADF (panel, mentions, status, date, table, code block,
/// media, inline card, expand, emoji, nested lists).
const SEED: &str = include_str!("../../rich-text/jira-description.adf.json");

/// The people mentions name, by account id (a real server asks Jira's user API, through a
/// `mcp_text::CachedResolver`).
const PEOPLE: [(&str, &str); 2] = [
    ("557058:f5a3b1c2-1234-4cde-9f00-0a1b2c3d4e5f", "Ana Souza"),
    ("712020:0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a", "Jonas Berg"),
];

fn display_name(account_id: &str) -> Option<String> {
    PEOPLE
        .iter()
        .find(|(id, _)| *id == account_id)
        .map(|(_, name)| name.to_string())
}

struct Issue {
    summary: String,
    /// The description as Jira keeps it: an ADF document.
    description: Value,
}

/// An issue in a list.
#[derive(Serialize, mcp_runtime::JsonSchema)]
struct IssueSummary {
    key: String,
    summary: String,
}

#[derive(Debug)]
enum JiraError {
    NoIssue(String),
    Convert(mcp_text::Error),
}

impl std::fmt::Display for JiraError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JiraError::NoIssue(k) => write!(f, "no issue `{k}` (list_issues lists them)"),
            JiraError::Convert(e) => write!(f, "the description could not be converted: {e}"),
        }
    }
}

/// The in-memory Jira.
struct Jira {
    issues: Mutex<BTreeMap<String, Issue>>,
}

impl Jira {
    fn seeded() -> Jira {
        let description = serde_json::from_str(SEED).expect("the seed is JSON");
        let issue = Issue {
            summary: "Checkout fails for carts over 50 items".into(),
            description,
        };
        Jira {
            issues: Mutex::new(BTreeMap::from([("SHOP-1".to_string(), issue)])),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Issue>> {
        self.issues.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[tools]
impl Jira {
    /// List the issues: key and summary.
    #[tool(read_only)]
    fn list_issues(&self) -> Vec<IssueSummary> {
        self.lock()
            .iter()
            .map(|(key, i)| IssueSummary {
                key: key.clone(),
                summary: i.summary.clone(),
            })
            .collect()
    }

    /// Read an issue's description as Markdown.
    ///
    /// Markers such as `<!--adf:...-->` or `[IN PROGRESS](status:blue)` stand for what Markdown cannot
    /// say: keep them as they are when editing, and the issue keeps what they stand for.
    #[tool(read_only)]
    fn get_issue(
        &self,
        /// Issue key, e.g. SHOP-1
        key: String,
    ) -> Result<Markdown, JiraError> {
        let issues = self.lock();
        let issue = issues.get(&key).ok_or(JiraError::NoIssue(key.clone()))?;
        let doc =
            mcp_text::adf::from_value(issue.description.clone()).map_err(JiraError::Convert)?;
        let resolver = display_name;
        let options = Options {
            mentions: Some(&resolver),
            ..Options::default()
        };
        Markdown::from_node(&doc, &options).map_err(JiraError::Convert)
    }

    /// Replace an issue's description with edited Markdown (what `get_issue` returned, changed).
    ///
    /// Everything the edit did not touch is kept as the issue had it.
    #[tool(destructive = false, idempotent)]
    fn update_description(
        &self,
        /// Issue key, e.g. SHOP-1
        key: String,
        /// The whole description, as Markdown
        markdown: String,
    ) -> Result<String, JiraError> {
        let mut issues = self.lock();
        let issue = issues
            .get_mut(&key)
            .ok_or_else(|| JiraError::NoIssue(key.clone()))?;
        let (adf, warnings) = Markdown(markdown).to_adf().map_err(JiraError::Convert)?;
        issue.description = adf;
        Ok(outcome(&key, &warnings))
    }

    /// The description exactly as stored: ADF JSON.
    #[tool(read_only)]
    fn get_issue_raw(
        &self,
        /// Issue key, e.g. SHOP-1
        key: String,
    ) -> Result<String, JiraError> {
        let issues = self.lock();
        let issue = issues.get(&key).ok_or(JiraError::NoIssue(key))?;
        Ok(issue.description.to_string())
    }
}

/// What an update says: done, and what the Markdown reader read leniently (a mangled marker loses that
/// node's extra attributes; the model should know which).
fn outcome(key: &str, warnings: &[mcp_text::Warning]) -> String {
    if warnings.is_empty() {
        return format!("{key} updated");
    }
    let lines: Vec<String> = warnings.iter().map(|w| format!("- {w}")).collect();
    format!(
        "{key} updated; the Markdown was read leniently:\n{}",
        lines.join("\n")
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    Server::builder()
        .name("jira-adf-server")
        .version(env!("CARGO_PKG_VERSION"))
        .tools(Arc::new(Jira::seeded()).tool_routes())
        .build()?
        .serve_stdio()
        .await?;
    Ok(())
}
