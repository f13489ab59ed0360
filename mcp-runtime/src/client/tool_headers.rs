//! `x-mcp-header` on the client (2026-07-28, Streamable HTTP): the tools whose annotations break the
//! spec's constraints are left out of `tools/list` (with a warning naming the tool and the reason), and the
//! valid annotations are remembered per tool, so that the transport can mirror a call's arguments into
//! `Mcp-Param-{Name}` headers.

use crate::protocol::Tool;
use crate::schema::header_params::{header_params, HeaderParam};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// The mirrored arguments of each listed tool, shared by the client (which lists) and the HTTP transport
/// (which builds the headers of `tools/call`).
#[derive(Clone, Default)]
pub struct ToolHeaders(Arc<RwLock<HashMap<String, Arc<[HeaderParam]>>>>);

/// More tools than any server should list: beyond it the oldest entries are dropped (memory is bounded).
const MAX_TOOLS: usize = 65_536;

impl ToolHeaders {
    /// Keeps the tools whose `x-mcp-header` annotations are valid, and remembers their mirrored arguments.
    pub fn admit(&self, tools: Vec<Tool>) -> Vec<Tool> {
        let mut kept = Vec::with_capacity(tools.len());
        let mut map = self.0.write().unwrap_or_else(|e| e.into_inner());
        for tool in tools {
            match header_params(&tool.input_schema) {
                Ok(params) => {
                    if params.is_empty() {
                        map.remove(&tool.name);
                    } else {
                        if map.len() >= MAX_TOOLS {
                            map.clear();
                        }
                        map.insert(tool.name.clone(), params.into());
                    }
                    kept.push(tool);
                }
                Err(reason) => {
                    tracing::warn!(
                        tool = %tool.name,
                        %reason,
                        "tool left out of tools/list: its x-mcp-header annotation is invalid"
                    );
                    map.remove(&tool.name);
                }
            }
        }
        kept
    }

    /// The mirrored arguments of a tool (none when it was never listed or has no annotation).
    pub fn get(&self, tool: &str) -> Option<Arc<[HeaderParam]>> {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(tool)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: serde_json::Value) -> Tool {
        Tool::new(name, "", schema.as_object().unwrap().clone())
    }

    #[test]
    fn invalid_annotations_leave_the_tool_out() {
        let h = ToolHeaders::default();
        let kept = h.admit(vec![
            tool(
                "ok",
                json!({"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}}),
            ),
            tool(
                "bad",
                json!({"type": "object", "properties": {"r": {"type": "number", "x-mcp-header": "R"}}}),
            ),
            tool("plain", json!({"type": "object"})),
        ]);
        let names: Vec<&str> = kept.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["ok", "plain"]);
        assert_eq!(h.get("ok").unwrap()[0].name, "Region");
        assert!(h.get("bad").is_none());
        assert!(h.get("plain").is_none());
    }
}
