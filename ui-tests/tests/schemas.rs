//! The exact `tools/list` entry `#[tool]` makes for each feature, in the portable profile unless said.

use mcp_runtime::protocol::{CallToolResult, ContentBlock, PromptMessage};
use mcp_runtime::schema::SchemaProfile;
use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::{prompt, resource, tool, tools, Context, Server};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

fn listed(def: mcp_runtime::schema::ToolDef) -> Value {
    serde_json::to_value(def.profile(SchemaProfile::Portable).tool).unwrap()
}

#[derive(Serialize, JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct IssueSummary {
    key: String,
    summary: String,
}

#[derive(Debug)]
struct JiraError;
impl std::fmt::Display for JiraError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("jira is down")
    }
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
    let _ = (project, jql, max_results, include_subtasks, ctx);
    Err(JiraError)
}

#[test]
fn search_jira_is_exactly_the_issue_s_example() {
    assert_eq!(
        listed(search_jira_tool()),
        json!({"name":"search_jira",
         "description":"Search Jira issues using JQL.\n\nReturns matching issues with key, summary and status.",
         "inputSchema":{"type":"object","properties":{
           "project":{"type":"string","description":"Jira project key, e.g. PROJ"},
           "jql":{"type":"string","description":"JQL query string"},
           "max_results":{"type":"integer","minimum":0,"default":50,"description":"Maximum number of results"},
           "include_subtasks":{"type":"boolean","description":"Whether to include subtask issues"}},
          "required":["project","jql"]},
         "outputSchema":{"type":"object","properties":{"result":{"type":"array","items":{
             "type":"object","properties":{"key":{"type":"string"},"summary":{"type":"string"}},"required":["key","summary"]}}},
           "required":["result"]},
         "annotations":{"readOnlyHint":true}})
    );
}

/// Look a word up.
///
/// A second paragraph, written over
/// two lines.
///
/// # Arguments
/// * `word` - The word to look up
/// * `lang` - Language code,
///   for example `en`
///
/// # Examples
/// - `define("cat")`
#[tool]
fn define(
    word: String,
    /// Its own comment wins over the list
    lang: String,
    #[tool(description = "Explicit wins over everything")]
    /// ignored
    limit: u8,
) -> String {
    format!("{word}{lang}{limit}")
}

#[test]
fn descriptions_from_an_arguments_list_own_comments_and_attributes() {
    assert_eq!(
        listed(define_tool()),
        json!({"name":"define",
          "description":"Look a word up.\n\nA second paragraph, written over two lines.\n\n# Examples\n- `define(\"cat\")`",
          "inputSchema":{"type":"object","properties":{
            "word":{"type":"string","description":"The word to look up"},
            "lang":{"type":"string","description":"Its own comment wins over the list"},
            "limit":{"type":"integer","minimum":0,"maximum":255,"description":"Explicit wins over everything"}},
           "required":["word","lang","limit"]}})
    );
}

/// Renamed.
#[tool(
    name = "files.rename-v2",
    title = "Rename a file",
    destructive,
    idempotent = false,
    open_world = false
)]
fn rename_file(
    #[tool(rename = "fromPath")] from: String,
    #[serde(rename = "toPath")] to: String,
    #[tool(default)] overwrite: bool,
    #[tool(default = "backup")] suffix: String,
) -> String {
    format!("{from}{to}{overwrite}{suffix}")
}

#[test]
fn names_renames_defaults_and_annotations() {
    assert_eq!(
        listed(rename_file_tool()),
        json!({"name":"files.rename-v2","description":"Renamed.",
          "inputSchema":{"type":"object","properties":{
            "fromPath":{"type":"string"},"toPath":{"type":"string"},
            "overwrite":{"type":"boolean","default":false},
            "suffix":{"type":"string","default":"backup"}},
           "required":["fromPath","toPath"]},
          "annotations":{"title":"Rename a file","destructiveHint":true,"idempotentHint":false,"openWorldHint":false}})
    );
}

/// How urgent.
#[derive(Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
#[serde(rename_all = "lowercase")]
enum Priority {
    /// Today
    High,
    Low,
}

/// A person.
#[derive(Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct Person {
    name: String,
    /// A property named title stays
    title: Option<String>,
    age: Option<u32>,
}

/// A tree of tasks.
#[derive(Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct Task {
    name: String,
    subtasks: Vec<Task>,
}

/// Plan work.
#[tool]
fn plan(
    priority: Priority,
    owner: Option<Person>,
    reviewers: Vec<Person>,
    weight: f64,
    tasks: Task,
) -> String {
    let _ = (priority, owner, reviewers, weight, tasks);
    String::new()
}

#[test]
fn enums_nested_structs_options_formats_and_recursion() {
    let person = json!({"type":"object","description":"A person.","properties":{
        "name":{"type":"string"},
        "title":{"type":"string","description":"A property named title stays"},
        "age":{"type":"integer","minimum":0}},"required":["name"]});
    assert_eq!(
        listed(plan_tool()),
        json!({"name":"plan","description":"Plan work.",
          "inputSchema":{"type":"object","properties":{
            "priority":{"type":"string","enum":["high","low"],"description":"How urgent.\n- high: Today"},
            "owner":person,
            "reviewers":{"type":"array","items":person},
            "weight":{"type":"number"},
            "tasks":{"$ref":"#/$defs/Task"}},
           "required":["priority","reviewers","weight","tasks"],
           "$defs":{"Task":{"type":"object","description":"A tree of tasks.","properties":{
               "name":{"type":"string"},"subtasks":{"type":"array","items":{"$ref":"#/$defs/Task"}}},
             "required":["name","subtasks"]}}}})
    );
}

#[test]
fn the_full_profile_keeps_json_schema_2020_12_as_schemars_makes_it() {
    let tool = serde_json::to_value(plan_tool().profile(SchemaProfile::Full).tool).unwrap();
    let input = &tool["inputSchema"];
    assert_eq!(
        input["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        input["properties"]["owner"],
        json!({"anyOf":[{"$ref":"#/$defs/Person"},{"type":"null"}]})
    );
    assert_eq!(
        input["properties"]["weight"],
        json!({"type":"number","format":"double"})
    );
    assert_eq!(
        input["$defs"]["Person"]["properties"]["age"],
        json!({"type":["integer","null"],"format":"uint32","minimum":0})
    );
    assert!(
        input.get("title").is_none(),
        "the generated struct's name is not shown"
    );
}

/// Now.
#[tool]
fn now() -> &'static str {
    "12:00"
}

#[test]
fn no_arguments_and_content_results() {
    assert_eq!(
        listed(now_tool()),
        json!({"name":"now","description":"Now.","inputSchema":{"type":"object","additionalProperties":false}})
    );
}

#[derive(Serialize, JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct Stats {
    count: u64,
    mean: Option<f64>,
}

/// Stats.
#[tool]
fn stats() -> Stats {
    Stats {
        count: 2,
        mean: None,
    }
}
/// Total.
#[tool]
fn total() -> anyhow_like::Result<i64> {
    Ok(3)
}
/// Image.
#[tool]
fn picture() -> Vec<ContentBlock> {
    vec![
        ContentBlock::image("aGk=", "image/png"),
        ContentBlock::text("a picture"),
    ]
}
/// Raw.
#[tool]
fn raw() -> CallToolResult {
    CallToolResult::text("raw")
}
/// Nothing.
#[tool]
async fn nothing() {}

mod anyhow_like {
    pub type Result<T> = std::result::Result<T, String>;
}

#[test]
fn output_schemas_object_root_or_wrapped_and_none_for_content() {
    assert_eq!(
        listed(stats_tool())["outputSchema"],
        json!({"type":"object","properties":{"count":{"type":"integer","minimum":0},"mean":{"type":["number","null"]}},"required":["count","mean"]})
    );
    assert_eq!(
        listed(total_tool())["outputSchema"],
        json!({"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]})
    );
    for def in [picture_tool(), raw_tool(), nothing_tool(), now_tool()] {
        assert!(listed(def).get("outputSchema").is_none());
    }
}

async fn call(def: mcp_runtime::schema::ToolDef, args: Value) -> Value {
    let server = Server::builder().tool(def).build().unwrap();
    let (a, b) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(a);
    let (cr, cw) = tokio::io::split(b);
    tokio::spawn(async move { server.serve(sr, sw).await });
    let client = mcp_runtime::Client::builder()
        .connect(cr, cw)
        .await
        .unwrap();
    let name = client.list_all_tools().await.unwrap()[0].name.clone();
    let mut v = serde_json::to_value(client.call_tool(&name, args).await.unwrap()).unwrap();
    // The client speaks 2026-07-28 to this server, whose results carry `serverInfo` in `_meta`; the
    // shape of the result is what these tests check.
    v.as_object_mut().unwrap().remove("_meta");
    v
}

#[tokio::test]
async fn results_become_content_structured_content_or_errors() {
    assert_eq!(
        call(stats_tool(), json!({})).await,
        json!({"content":[{"type":"text","text":"{\"count\":2,\"mean\":null}"}],"structuredContent":{"count":2,"mean":null}})
    );
    assert_eq!(
        call(total_tool(), json!({})).await,
        json!({"content":[{"type":"text","text":"{\"result\":3}"}],"structuredContent":{"result":3}})
    );
    assert_eq!(
        call(picture_tool(), json!({})).await,
        json!({"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"text","text":"a picture"}]})
    );
    assert_eq!(call(nothing_tool(), json!({})).await, json!({"content":[]}));
    assert_eq!(
        call(now_tool(), json!({})).await,
        json!({"content":[{"type":"text","text":"12:00"}]})
    );
    assert_eq!(
        call(search_jira_tool(), json!({"project":"P","jql":""})).await,
        json!({"content":[{"type":"text","text":"jira is down"}],"isError":true})
    );
    assert_eq!(
        call(rename_file_tool(), json!({"fromPath":"a","toPath":"b"})).await,
        json!({"content":[{"type":"text","text":"abfalsebackup"}]})
    );
    assert_eq!(
        call(define_tool(), json!({"word":"a","lang":"en","limit":256})).await,
        json!({"content":[{"type":"text","text":"Invalid argument `limit`: invalid value: integer `256`, expected u8"}],"isError":true})
    );
}

/// A counter shared by its tools.
struct Counter {
    n: std::sync::atomic::AtomicI64,
}

#[tools]
impl Counter {
    /// Add to the counter; returns the new value.
    #[tool(name = "counter.add")]
    async fn add(
        &self,
        /// How much to add
        by: i64,
    ) -> i64 {
        self.n.fetch_add(by, std::sync::atomic::Ordering::SeqCst) + by
    }

    /// The counter's value.
    #[tool(read_only)]
    fn get(&self) -> String {
        self.n.load(std::sync::atomic::Ordering::SeqCst).to_string()
    }

    /// Not a tool: stays an ordinary method.
    fn reset(&self) {
        self.n.store(0, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test]
async fn method_tools_share_their_value() {
    let counter = Arc::new(Counter { n: 0.into() });
    let routes = Arc::clone(&counter).tool_routes();
    assert_eq!(
        serde_json::to_value(&routes[0].tool).unwrap(),
        json!({"name":"counter.add","description":"Add to the counter; returns the new value.",
          "inputSchema":{"type":"object","properties":{"by":{"type":"integer","description":"How much to add"}},"required":["by"]},
          "outputSchema":{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}})
    );
    let mut defs = Arc::clone(&counter).tool_defs();
    assert_eq!(
        call(defs.remove(0), json!({"by": 5})).await["structuredContent"],
        json!({"result": 5})
    );
    assert_eq!(
        call(defs.remove(0), json!({})).await["content"][0]["text"],
        "5"
    );
    counter.reset();
    assert_eq!(counter.n.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// Review code.
///
/// # Arguments
/// * `code` - The code
#[prompt(title = "Code review")]
fn review(
    code: String,
    /// Language, e.g. rust
    language: Option<String>,
    /// Lines of context
    context_lines: Option<u32>,
) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!(
        "{code}{language:?}{context_lines:?}"
    ))]
}

/// A file of the project.
#[resource(
    uri = "file:///{+path}",
    mime_type = "text/plain",
    name = "project-file"
)]
async fn file(path: String) -> String {
    path
}

/// The readme.
#[resource(uri = "file:///README.md")]
fn readme() -> String {
    "# hi".into()
}

#[test]
fn prompts_and_resources_take_the_same_doc_rules() {
    assert_eq!(
        serde_json::to_value(&review_prompt().prompt).unwrap(),
        json!({"name":"review","title":"Code review","description":"Review code.","arguments":[
            {"name":"code","description":"The code","required":true},
            {"name":"language","description":"Language, e.g. rust"},
            {"name":"context_lines","description":"Lines of context"}]})
    );
    assert_eq!(
        serde_json::to_value(&file_resource().unwrap().template).unwrap(),
        json!({"uriTemplate":"file:///{+path}","name":"project-file","description":"A file of the project.","mimeType":"text/plain"})
    );
    assert_eq!(
        serde_json::to_value(&readme_resource().resource).unwrap(),
        json!({"uri":"file:///README.md","name":"readme","description":"The readme."})
    );
}

#[tokio::test]
async fn duplicate_free_function_tools_are_rejected_at_registration() {
    let err = Server::builder()
        .tool(now_tool())
        .tool(now_tool())
        .build()
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "duplicate tool name `now`: every tool of a server needs its own name"
    );
}

/// The README's example: `mcp_runtime::JsonSchema`, no `schemars` dependency, no `#[schemars(crate)]`.
mod first_hour {
    use mcp_runtime::{tool, JsonSchema};
    use serde::Serialize;

    /// The workflow state of an issue.
    #[derive(Serialize, serde::Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Status {
        /// Not started yet
        Open,
        /// Someone is working on it
        InProgress,
        Done,
    }

    /// An issue in a search result.
    #[derive(Serialize, JsonSchema)]
    pub struct IssueSummary {
        /// Issue key, e.g. PROJ-1
        key: String,
        summary: String,
        status: Status,
    }

    /// A size; the unit variants around a data-carrying one keep their places.
    #[derive(Serialize, serde::Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Size {
        Small,
        Custom(u32),
        Large,
    }

    /// Defaults of a whole struct come from its `Default`.
    #[derive(Serialize, serde::Deserialize, JsonSchema)]
    #[serde(default)]
    pub struct Paging {
        page: u32,
        per_page: u32,
    }

    impl Default for Paging {
        fn default() -> Self {
            Paging {
                page: 1,
                per_page: 20,
            }
        }
    }

    /// Search Jira issues.
    #[tool(read_only)]
    pub fn search_jira(
        /// Only issues in this state
        status: Option<Status>,
        size: Size,
        paging: Paging,
    ) -> Vec<IssueSummary> {
        let _ = (status, size, paging);
        Vec::new()
    }
}

#[test]
fn a_type_deriving_the_runtime_s_json_schema_needs_no_schemars_and_keeps_enum_order() {
    let listed = listed(first_hour::search_jira_tool());
    if std::env::var_os("SHOW").is_some() {
        println!("{listed}");
    }
    let status = &listed["inputSchema"]["properties"]["status"];
    assert_eq!(status["enum"], json!(["open", "in_progress", "done"]));
    assert_eq!(
        status["description"],
        "Only issues in this state\n- open: Not started yet\n- in_progress: Someone is working on it"
    );
    let out = &listed["outputSchema"]["properties"]["result"]["items"];
    assert_eq!(
        out["properties"]["status"]["enum"],
        json!(["open", "in_progress", "done"])
    );
    assert_eq!(out["description"], "An issue in a search result.");
    let size = &listed["inputSchema"]["properties"]["size"]["oneOf"];
    assert_eq!(size[0]["const"], "small");
    assert_eq!(size[2]["const"], "large");
    assert_eq!(
        listed["inputSchema"]["properties"]["paging"]["properties"]["per_page"]["default"],
        20
    );
}

/// Runs a query where the data lives.
#[tool(ttl_ms = 60000, cache_scope = "private")]
fn run_query(
    /// Where to run it
    #[tool(header = "Region")]
    region: String,
    /// What to run
    query: String,
) -> String {
    format!("{region}: {query}")
}

#[test]
fn a_header_argument_carries_x_mcp_header_and_the_tool_its_cache_hints() {
    let route = mcp_runtime::server::ToolRoute::from(run_query_tool());
    assert_eq!(
        route.cache,
        Some(mcp_runtime::protocol::CacheHints::new(
            60_000,
            mcp_runtime::protocol::CacheScope::Private
        ))
    );
    let listed = serde_json::to_value(&route.tool).unwrap();
    assert_eq!(
        listed["inputSchema"]["properties"]["region"],
        json!({"type": "string", "description": "Where to run it", "x-mcp-header": "Region"})
    );
    let server = Server::builder().tool(route).build().unwrap();
    let params = server.tool_header_params("run_query");
    assert_eq!(params.len(), 1);
    assert_eq!(params[0].header_name(), "Mcp-Param-Region");
}

/// Builds the project.
#[tool(task)]
async fn build() -> String {
    "built".into()
}

/// Deploys.
#[tool(task = "required", destructive)]
async fn deploy() -> String {
    "deployed".into()
}

#[test]
fn task_support_is_declared_as_the_option_says() {
    assert_eq!(
        listed(build_tool()),
        json!({"name":"build","description":"Builds the project.","inputSchema":{"type":"object","additionalProperties":false},
            "execution":{"taskSupport":"optional"}})
    );
    let deploy = listed(deploy_tool());
    assert_eq!(deploy["execution"], json!({"taskSupport":"required"}));
    assert_eq!(deploy["annotations"], json!({"destructiveHint":true}));
    assert!(
        listed(now_tool()).get("execution").is_none(),
        "forbidden by default, and then not written"
    );
}

/// Needs the write scope.
#[tool(scopes = "files:read files:write")]
fn scoped_string() -> String {
    String::new()
}

/// The same, as a list.
#[tool(idempotent, scopes = ["files:read", "files:write"])]
fn scoped_list() -> String {
    String::new()
}

#[test]
fn scopes_reach_the_route_and_stay_out_of_the_definition() {
    for def in [scoped_string_tool(), scoped_list_tool()] {
        let route: mcp_runtime::server::ToolRoute = def.into();
        assert_eq!(route.scopes, ["files:read", "files:write"]);
        let listed = serde_json::to_value(&route.tool).unwrap();
        assert!(!listed.to_string().contains("files:"), "{listed}");
    }
}

/// What happens to a ticket.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Resolution {
    Open,
    /// Being worked on
    InProgress,
    #[schemars(rename = "wont_fix")]
    WontFix,
    #[serde(rename = "done")]
    Fixed,
}

/// Resolve a ticket.
#[tool]
fn resolve(resolution: Resolution) -> String {
    let _ = resolution;
    String::new()
}

#[test]
fn enum_values_keep_declaration_order_in_both_profiles() {
    assert_eq!(
        listed(resolve_tool()),
        json!({"name":"resolve","description":"Resolve a ticket.",
          "inputSchema":{"type":"object","properties":{
            "resolution":{"type":"string","enum":["open","in_progress","wont_fix","done"],
              "description":"What happens to a ticket.\n- in_progress: Being worked on"}},
           "required":["resolution"]}})
    );
    let full = serde_json::to_value(resolve_tool().profile(SchemaProfile::Full).tool).unwrap();
    let branches: Vec<&Value> = full["inputSchema"]["$defs"]["Resolution"]["oneOf"]
        .as_array()
        .expect("a oneOf of the variants")
        .iter()
        .map(|b| &b["const"])
        .collect();
    assert_eq!(branches, ["open", "in_progress", "wont_fix", "done"]);
}
