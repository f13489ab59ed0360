//! A stdio MCP server for an in-memory Jira: every tool is a plain Rust function or method with `#[tool]`.
//!
//! `search_jira` is a free function; the tools that change issues are `&self` methods of [`Jira`], whose
//! state they share; `triage` is a prompt; `jira://projects` and `jira://issue/{key}` are resources.

use mcp_runtime::protocol::PromptMessage;
use mcp_runtime::JsonSchema;
use mcp_runtime::{prompt, resource, tool, tools, Context, Server};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, LazyLock, Mutex};

/// The workflow state of an issue.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    /// Not started yet
    Open,
    /// Someone is working on it
    InProgress,
    Done,
}

/// The kind of issue.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum IssueType {
    /// Something is broken
    Bug,
    /// A user-visible piece of work
    Story,
    /// A smaller piece of a story
    Subtask,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    Medium,
    High,
}

/// A person, by account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct User {
    /// Account id, e.g. `jdoe`
    account: String,
    /// Display name
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
struct Comment {
    author: String,
    body: String,
}

/// One issue, in full.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct Issue {
    key: String,
    project: String,
    summary: String,
    issue_type: IssueType,
    status: Status,
    priority: Priority,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<User>,
    labels: Vec<String>,
    comments: Vec<Comment>,
}

/// An issue in a search result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct IssueSummary {
    key: String,
    summary: String,
    status: Status,
}

/// A change to one issue in a bulk update.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
struct IssueUpdate {
    /// Issue key, e.g. PROJ-1
    key: String,
    /// New status, if it changes
    status: Option<Status>,
    /// New assignee, if it changes
    assignee: Option<User>,
    /// Labels to add
    #[serde(default)]
    add_labels: Vec<String>,
}

/// How a bulk update went.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct BulkReport {
    updated: Vec<String>,
    not_found: Vec<String>,
}

#[derive(Debug)]
enum JiraError {
    NoProject(String),
    NoIssue(String),
    BadJql(String),
}

impl std::fmt::Display for JiraError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JiraError::NoProject(p) => write!(f, "no project `{p}`; known projects: PROJ, OPS"),
            JiraError::NoIssue(k) => write!(f, "no issue `{k}`"),
            JiraError::BadJql(q) => write!(f, "cannot read the JQL `{q}`: use `status = <status>`, `text ~ <word>` or `assignee = <account>`, joined by AND"),
        }
    }
}

/// The in-memory Jira.
struct Jira {
    issues: Mutex<Vec<Issue>>,
}

const PROJECTS: [&str; 2] = ["PROJ", "OPS"];

static JIRA: LazyLock<Arc<Jira>> = LazyLock::new(|| Arc::new(Jira::sample()));

impl Jira {
    fn sample() -> Jira {
        let issue = |key: &str, summary: &str, t, status, priority, assignee: Option<&str>| Issue {
            key: key.into(),
            project: key.split('-').next().unwrap_or_default().into(),
            summary: summary.into(),
            issue_type: t,
            status,
            priority,
            assignee: assignee.map(|a| User {
                account: a.into(),
                name: None,
            }),
            labels: Vec::new(),
            comments: Vec::new(),
        };
        Jira {
            issues: Mutex::new(vec![
                issue(
                    "PROJ-1",
                    "Login page times out",
                    IssueType::Bug,
                    Status::Open,
                    Priority::High,
                    Some("jdoe"),
                ),
                issue(
                    "PROJ-2",
                    "Export reports as CSV",
                    IssueType::Story,
                    Status::InProgress,
                    Priority::Medium,
                    None,
                ),
                issue(
                    "PROJ-3",
                    "CSV header row",
                    IssueType::Subtask,
                    Status::Open,
                    Priority::Low,
                    Some("asmith"),
                ),
                issue(
                    "OPS-1",
                    "Rotate TLS certificates",
                    IssueType::Story,
                    Status::Done,
                    Priority::High,
                    Some("ops"),
                ),
            ]),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Issue>> {
        self.issues.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `status = open AND text ~ csv`: the small JQL this server understands.
fn matches(issue: &Issue, jql: &str) -> Result<bool, JiraError> {
    for clause in jql.split(" AND ").map(str::trim).filter(|c| !c.is_empty()) {
        let (field, op, value) = if let Some((f, v)) = clause.split_once('~') {
            (f.trim(), '~', v.trim().trim_matches('"'))
        } else if let Some((f, v)) = clause.split_once('=') {
            (f.trim(), '=', v.trim().trim_matches('"'))
        } else {
            return Err(JiraError::BadJql(jql.into()));
        };
        let ok = match (field, op) {
            ("status", '=') => serde_json::to_value(issue.status)
                .is_ok_and(|s| s.as_str().is_some_and(|s| s.eq_ignore_ascii_case(value))),
            ("text", '~') => issue.summary.to_lowercase().contains(&value.to_lowercase()),
            ("assignee", '=') => issue.assignee.as_ref().is_some_and(|a| a.account == value),
            _ => return Err(JiraError::BadJql(jql.into())),
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Search Jira issues using JQL.
///
/// Returns matching issues with key, summary and status.
#[tool(read_only)]
async fn search_jira(
    /// Jira project key, e.g. PROJ
    project: String,
    /// JQL query string
    jql: String,
    /// Maximum number of results
    #[tool(default = 50)]
    max_results: u32,
    /// Whether to include subtask issues
    include_subtasks: Option<bool>,
    ctx: Context,
) -> Result<Vec<IssueSummary>, JiraError> {
    if !PROJECTS.contains(&project.as_str()) {
        return Err(JiraError::NoProject(project));
    }
    ctx.progress(0.0, Some(1.0), Some(format!("searching {project}")))
        .await;
    let mut found = Vec::new();
    for i in JIRA.lock().iter().filter(|i| i.project == project) {
        if (include_subtasks.unwrap_or(false) || i.issue_type != IssueType::Subtask)
            && matches(i, &jql)?
        {
            found.push(IssueSummary {
                key: i.key.clone(),
                summary: i.summary.clone(),
                status: i.status,
            });
        }
    }
    found.truncate(max_results as usize);
    Ok(found)
}

#[tools]
impl Jira {
    /// Get one issue with its comments.
    #[tool(read_only)]
    fn get_issue(
        &self,
        /// Issue key, e.g. PROJ-1
        key: String,
    ) -> Result<Issue, JiraError> {
        self.lock()
            .iter()
            .find(|i| i.key == key)
            .cloned()
            .ok_or(JiraError::NoIssue(key))
    }

    /// Create an issue.
    ///
    /// The new issue starts `open`; its key is returned.
    ///
    /// # Arguments
    /// * `project` - Project key, e.g. PROJ
    /// * `summary` - One-line summary
    /// * `issue_type` - Kind of issue
    /// * `priority` - Priority; `medium` when left out
    /// * `assignee` - Who works on it; nobody when left out
    #[tool(destructive = false)]
    fn create_issue(
        &self,
        project: String,
        summary: String,
        issue_type: IssueType,
        priority: Option<Priority>,
        assignee: Option<User>,
        /// Labels, e.g. ["backend"]
        #[tool(default)]
        labels: Vec<String>,
    ) -> Result<String, JiraError> {
        if !PROJECTS.contains(&project.as_str()) {
            return Err(JiraError::NoProject(project));
        }
        let mut issues = self.lock();
        let n = issues.iter().filter(|i| i.project == project).count() + 1;
        let key = format!("{project}-{n}");
        issues.push(Issue {
            key: key.clone(),
            project,
            summary,
            issue_type,
            status: Status::Open,
            priority: priority.unwrap_or(Priority::Medium),
            assignee,
            labels,
            comments: Vec::new(),
        });
        Ok(key)
    }

    /// Move an issue to another status.
    #[tool(idempotent, destructive = false)]
    fn transition_issue(
        &self,
        /// Issue key, e.g. PROJ-1
        key: String,
        /// Target status
        status: Status,
    ) -> Result<String, JiraError> {
        let mut issues = self.lock();
        let issue = issues
            .iter_mut()
            .find(|i| i.key == key)
            .ok_or_else(|| JiraError::NoIssue(key.clone()))?;
        issue.status = status;
        Ok(format!("{key} is now {status:?}"))
    }

    /// Apply several changes at once.
    ///
    /// Issues that do not exist are reported, not fatal.
    #[tool(destructive = false, idempotent)]
    fn bulk_update(
        &self,
        /// The changes, one per issue
        updates: Vec<IssueUpdate>,
    ) -> BulkReport {
        let mut issues = self.lock();
        let mut report = BulkReport {
            updated: Vec::new(),
            not_found: Vec::new(),
        };
        for u in updates {
            let Some(i) = issues.iter_mut().find(|i| i.key == u.key) else {
                report.not_found.push(u.key);
                continue;
            };
            if let Some(s) = u.status {
                i.status = s;
            }
            if let Some(a) = u.assignee {
                i.assignee = Some(a);
            }
            i.labels.extend(u.add_labels);
            report.updated.push(u.key);
        }
        report
    }

    /// Add a comment to an issue.
    #[tool(destructive = false)]
    async fn add_comment(
        &self,
        /// Issue key, e.g. PROJ-1
        key: String,
        /// Comment text (Markdown)
        body: String,
        ctx: Context,
    ) -> Result<String, JiraError> {
        let author = ctx
            .client_info()
            .map_or_else(|| "mcp".to_string(), |c| c.name);
        let mut issues = self.lock();
        let issue = issues
            .iter_mut()
            .find(|i| i.key == key)
            .ok_or_else(|| JiraError::NoIssue(key.clone()))?;
        issue.comments.push(Comment { author, body });
        Ok(format!("comment {} added to {key}", issue.comments.len()))
    }
}

/// Triage an issue: decide its priority and next step.
#[prompt]
fn triage(
    /// Issue key, e.g. PROJ-1
    key: String,
) -> Result<Vec<PromptMessage>, JiraError> {
    let issues = JIRA.lock();
    let issue = issues
        .iter()
        .find(|i| i.key == key)
        .ok_or_else(|| JiraError::NoIssue(key.clone()))?;
    let json = serde_json::to_string_pretty(issue).unwrap_or_default();
    Ok(vec![PromptMessage::user(format!(
        "Triage this Jira issue. Say which priority it deserves and what should happen next, in three sentences.\n\n{json}"
    ))])
}

/// The projects of this Jira.
#[resource(uri = "jira://projects", mime_type = "application/json")]
fn projects() -> String {
    serde_json::to_string(&PROJECTS).unwrap_or_default()
}

/// One issue as JSON.
#[resource(uri = "jira://issue/{key}", mime_type = "application/json")]
fn issue(key: String) -> Result<String, JiraError> {
    let issue = JIRA.get_issue(key)?;
    Ok(serde_json::to_string(&issue).unwrap_or_default())
}

/// The server, without its transport: also used by the tests and by the schema-size comparison.
fn server() -> Result<Server, mcp_runtime::server::ServerError> {
    Server::builder()
        .name("jira-server")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(search_jira_tool())
        .tools(Arc::clone(&JIRA).tool_routes())
        .prompt(triage_prompt())
        .resource(projects_resource())
        .resource_template(issue_resource())
        .build()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    if std::env::args().nth(1).as_deref() == Some("--print-tools") {
        // `tools/list` as the client sees it, for the schema-size comparison.
        let tools = server()?.tools();
        println!(
            "{}",
            serde_json::to_string(&serde_json::json!({ "tools": tools }))?
        );
        return Ok(());
    }
    server()?.serve_stdio().await?;
    Ok(())
}
