//! Discovery mode (`"gateway": {"discovery": true}`): instead of every upstream tool, `tools/list` shows
//! three meta-tools, and the model finds what it needs on demand:
//!
//! - `search_tools {query, limit?}`: the tools whose names and descriptions match the words of the
//!   query, best first, each as its name and the first sentence of its description;
//! - `describe_tool {name}`: one tool's full definition (description and schemas);
//! - `call_tool {name, arguments?}`: calls it, through the same route (relay, metrics, redaction) a
//!   listed tool would take.
//!
//! The catalogue is the set of routes the gateway would otherwise register in its server, kept here
//! instead and swapped per upstream the same way. A name the catalogue does not know is a tool error
//! (`isError: true`) that says to search, so the model can recover.

use mcp_runtime::protocol::{CallToolResult, ErrorObject, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::Context;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// Results `search_tools` gives when the call names no limit.
pub const DEFAULT_LIMIT: usize = 8;
/// The most results one search gives.
pub const MAX_LIMIT: usize = 50;
/// A description in search results is cut to this many characters (its first sentence, usually).
const SUMMARY_CHARS: usize = 160;

/// The tools behind the meta-tools, by exposed name.
#[derive(Default)]
pub struct Catalogue {
    routes: RwLock<BTreeMap<String, ToolRoute>>,
}

impl Catalogue {
    /// Removes the routes named in `remove`, then adds `routes`, as [`mcp_runtime::Server::change_tools`]
    /// does; returns the routes refused (name, why): none, as names come from the gateway's table.
    pub fn change(&self, remove: &[&str], routes: Vec<ToolRoute>) -> Vec<(String, String)> {
        let mut map = self.routes.write().unwrap_or_else(|e| e.into_inner());
        for name in remove {
            map.remove(*name);
        }
        let mut refused = Vec::new();
        for r in routes {
            if let Err(why) = mcp_runtime::server::tools::validate_tool_name(&r.tool.name) {
                refused.push((r.tool.name.clone(), why));
                continue;
            }
            map.insert(r.tool.name.clone(), r);
        }
        refused
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether it holds no tool.
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, ToolRoute>> {
        self.routes.read().unwrap_or_else(|e| e.into_inner())
    }

    fn route(&self, name: &str) -> Option<ToolRoute> {
        self.read().get(name).cloned()
    }

    /// The tools matching `query`, best first: each word of the query scores 3 when it is a word of the
    /// name, 2 when the name contains it, 1 when the description does. An empty query lists the tools
    /// in name order. Returns the matches (at most `limit`) and how many matched in all.
    pub fn search(&self, query: &str, limit: usize) -> (Vec<(String, String)>, usize) {
        let query = words(query);
        let map = self.read();
        let mut hits: Vec<(u32, &Tool)> = map
            .values()
            .filter_map(|r| {
                let t = &r.tool;
                if query.is_empty() {
                    return Some((0, t));
                }
                let name = t.name.to_lowercase();
                let name_words = words(&t.name);
                let text = t.description.as_deref().unwrap_or_default().to_lowercase();
                let score: u32 = query
                    .iter()
                    .map(|w| {
                        if name_words.iter().any(|n| n == w) {
                            3
                        } else if name.contains(w.as_str()) {
                            2
                        } else if text.contains(w.as_str()) {
                            1
                        } else {
                            0
                        }
                    })
                    .sum();
                (score > 0).then_some((score, t))
            })
            .collect();
        hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        let total = hits.len();
        let found = hits
            .into_iter()
            .take(limit)
            .map(|(_, t)| (t.name.clone(), summary(t.description.as_deref())))
            .collect();
        (found, total)
    }
}

/// Lower-case words of a name or query: split on anything not alphanumeric and on camelCase humps.
fn words(s: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(s.len() + 8);
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_uppercase() && prev_lower {
            spaced.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        spaced.push(if c.is_alphanumeric() { c } else { ' ' });
    }
    spaced.split_whitespace().map(str::to_lowercase).collect()
}

/// The first sentence of a description, within [`SUMMARY_CHARS`].
fn summary(description: Option<&str>) -> String {
    let d = description.unwrap_or_default().trim();
    let first = d
        .find(". ")
        .map(|i| &d[..=i])
        .unwrap_or(d)
        .lines()
        .next()
        .unwrap_or_default();
    if first.chars().count() <= SUMMARY_CHARS {
        first.to_string()
    } else {
        let cut: String = first.chars().take(SUMMARY_CHARS - 1).collect();
        format!("{cut}…")
    }
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    let input_schema = match schema {
        Value::Object(o) => o,
        _ => Default::default(),
    };
    Tool::new(name, description, input_schema)
}

fn not_found(name: &str) -> CallToolResult {
    CallToolResult::error(format!(
        "no tool named `{name}`: use search_tools to find one"
    ))
}

fn parse<T: serde::de::DeserializeOwned>(args: &Arguments) -> Result<T, ErrorObject> {
    args.parse()
        .map_err(|e| ErrorObject::invalid_params(e.message()))
}

#[derive(Deserialize)]
struct SearchArgs {
    #[serde(default)]
    query: String,
    limit: Option<usize>,
}

#[derive(Deserialize)]
struct NameArgs {
    name: String,
}

#[derive(Deserialize)]
struct CallArgs {
    name: String,
    arguments: Option<Box<RawValue>>,
}

/// The three meta-tools over `catalogue`.
pub fn meta_tools(catalogue: &Arc<Catalogue>) -> Vec<ToolRoute> {
    let search = {
        let c = catalogue.clone();
        ToolRoute::new(
            tool(
                "search_tools",
                "Find tools by keywords. Returns names and one-line summaries; then describe_tool, call_tool.",
                json!({"type": "object", "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                }, "required": ["query"]}),
            ),
            move |args: Arguments, _ctx: Context| {
                let c = c.clone();
                async move {
                    let a: SearchArgs = parse(&args)?;
                    let limit = a.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
                    let (found, total) = c.search(&a.query, limit);
                    let tools: Vec<Value> = found
                        .into_iter()
                        .map(|(name, description)| json!({"name": name, "description": description}))
                        .collect();
                    let body = json!({"tools": tools, "total": total});
                    let mut r = CallToolResult::text(body.to_string());
                    r.structured_content = Some(body);
                    Ok(r)
                }
            },
        )
    };
    let describe = {
        let c = catalogue.clone();
        ToolRoute::new(
            tool(
                "describe_tool",
                "A tool's full definition: description and input schema.",
                json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            ),
            move |args: Arguments, _ctx: Context| {
                let c = c.clone();
                async move {
                    let a: NameArgs = parse(&args)?;
                    let Some(route) = c.route(&a.name) else {
                        return Ok(not_found(&a.name));
                    };
                    let body = serde_json::to_value(&route.tool)
                        .map_err(|e| ErrorObject::internal(e.to_string()))?;
                    let mut r = CallToolResult::text(body.to_string());
                    r.structured_content = Some(body);
                    Ok(r)
                }
            },
        )
    };
    let call = {
        let c = catalogue.clone();
        ToolRoute::new(
            tool(
                "call_tool",
                "Call a tool by name with its arguments.",
                json!({"type": "object", "properties": {
                    "name": {"type": "string"},
                    "arguments": {"type": "object"},
                }, "required": ["name"]}),
            ),
            move |args: Arguments, ctx: Context| {
                let c = c.clone();
                async move {
                    let a: CallArgs = parse(&args)?;
                    let Some(route) = c.route(&a.name) else {
                        return Ok(not_found(&a.name));
                    };
                    route
                        .handler
                        .call(Arguments::from_raw(a.arguments), ctx)
                        .await
                }
            },
        )
    };
    vec![search, describe, call]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(name: &str, description: &str) -> ToolRoute {
        let t = tool(name, description, json!({"type": "object"}));
        ToolRoute::new(t, |_a: Arguments, _c: Context| async {
            Ok(CallToolResult::text("x"))
        })
    }

    #[test]
    fn search_ranks_name_words_over_descriptions() {
        let c = Catalogue::default();
        c.change(
            &[],
            vec![
                route("files_read_file", "Read a file. Returns its text."),
                route(
                    "jira_search_issues",
                    "Search issues; can read file attachments.",
                ),
                route("weather_forecast", "Forecast for a city."),
            ],
        );
        let (found, total) = c.search("read file", 10);
        assert_eq!(total, 2);
        assert_eq!(found[0].0, "files_read_file");
        assert_eq!(found[0].1, "Read a file.");
        assert_eq!(found[1].0, "jira_search_issues");
        let (found, total) = c.search("Forecast", 1);
        assert_eq!((found.len(), total), (1, 1));
        // An empty query lists tools in name order, within the limit.
        let (found, total) = c.search("", 2);
        assert_eq!(total, 3);
        assert_eq!(found[0].0, "files_read_file");
        assert_eq!(found.len(), 2);
        c.change(&["weather_forecast"], vec![]);
        assert_eq!(c.search("forecast", 5).1, 0);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn camel_case_and_separators_make_words() {
        assert_eq!(
            words("getWeather_forecast-v2"),
            ["get", "weather", "forecast", "v2"]
        );
    }
}
