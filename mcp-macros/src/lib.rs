//! `#[tool]`, `#[tools]`, `#[prompt]` and `#[resource]`: plain Rust functions as MCP tools, prompts and
//! resources, with their schemas and descriptions taken from the signature and the doc comments.
//!
//! Use them through `mcp_runtime` (`use mcp_runtime::{tool, tools, prompt, resource};`): the generated
//! code refers to `::mcp_runtime` only, so a crate depends on nothing else.
//!
//! # `#[tool]` on a function
//! ```ignore
//! /// Search Jira issues using JQL.
//! ///
//! /// Returns matching issues with key, summary and status.
//! #[tool(read_only)]
//! async fn search_jira(
//!     /// Jira project key, e.g. PROJ
//!     project: String,
//!     /// Maximum number of results
//!     #[tool(default = 50)]
//!     max_results: u32,
//!     /// Whether to include subtask issues
//!     include_subtasks: Option<bool>,
//!     ctx: Context,
//! ) -> Result<Vec<IssueSummary>, JiraError> { ... }
//!
//! let server = Server::builder().tool(search_jira_tool()).build()?;
//! ```
//! The function stays as written; next to it, `search_jira_tool()` returns a `ToolDef` (portable schemas;
//! `.profile(SchemaProfile::Full)` for full JSON Schema 2020-12).
//!
//! Function attributes: `name = "..."`, `description = "..."`, `title = "..."`, and the annotations
//! `read_only`, `destructive`, `idempotent`, `open_world` (each a flag, or `= true`/`= false`), and
//! `task` for a long tool that may run as a task (`task = "required"`: only as one; see
//! `mcp_runtime::server::tasks`).
//! Argument attributes: `#[tool(default)]` / `#[tool(default = expr)]`, `#[tool(rename = "...")]`,
//! `#[tool(description = "...")]`; `#[serde(...)]` and `#[schemars(...)]` are passed on to the
//! argument's field. An argument of type `Context` is the request's context and stays out of the schema.
//!
//! Descriptions: the function's doc comment (paragraphs kept) is the tool's description; an argument's
//! description is its own `///` comment, or its item in a `# Arguments` list of the function's doc
//! (`` * `name` - text ``; the list is then left out of the tool's description); `description = "..."`
//! wins over both.
//!
//! # `#[tools]` on an impl block
//! Methods taking `&self` marked `#[tool]` share the value's state; the block gains
//! `tool_routes(self: Arc<Self>) -> Vec<ToolRoute>`, `tool_routes_with(self: Arc<Self>, SchemaProfile)` and
//! `tool_defs(self: Arc<Self>) -> Vec<ToolDef>`: `Server::builder().tools(Arc::new(jira).tool_routes())`.
//! Tool names are checked for duplicates within the block at compile time.
//!
//! # `#[prompt]`
//! Arguments (`String`, `Option<String>`, or any `FromStr` type) become the prompt's arguments; it
//! returns `Vec<PromptMessage>`, `PromptMessage`, `GetPromptResult` or `String`, or a `Result` of one.
//! `code_review_prompt()` is the `PromptRoute`: `Server::builder().prompt(code_review_prompt())`.
//!
//! # `#[resource(uri = "...")]`
//! A fixed URI gives `name_resource() -> ResourceRoute` (`.resource(..)`); an RFC 6570 template gives
//! `name_resource() -> Result<ResourceTemplateRoute, String>` (`.resource_template(..)`), each template
//! variable being an argument of the same name. Also `name`, `title`, `mime_type`, `description`.

#![warn(missing_docs)]

mod ast;
mod attr;
mod doc;
mod expand;
mod json_schema;
mod prompt;
mod resource;
mod valid;

use proc_macro::TokenStream;

/// Turns a function into an MCP tool; see the [crate docs](crate).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Turns the `#[tool]` methods of an impl block into MCP tools; see the [crate docs](crate).
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tools(args.into(), input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Turns a function into an MCP prompt; see the [crate docs](crate).
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    prompt::expand(args.into(), input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(JsonSchema)]` for types a tool takes or returns, re-exported as `mcp_runtime::JsonSchema` (and
/// `mcp_runtime::schemars::JsonSchema`): schemars' derive, pointed at the runtime's copy of schemars, so
/// the crate needs no `schemars` dependency and no `#[schemars(crate = "...")]`. Enum values keep their
/// declaration order.
#[proc_macro_derive(JsonSchema, attributes(schemars, serde, validate, garde))]
pub fn json_schema(input: TokenStream) -> TokenStream {
    json_schema::derive(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Turns a function into an MCP resource or resource template; see the [crate docs](crate).
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    resource::expand(args.into(), input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
