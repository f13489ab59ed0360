//! Drift between a snapshot and the live server: tools added, removed, or changed, with a diff per tool.

use crate::snapshot::Snapshot;
use mcp_runtime::protocol::Tool;
use similar::TextDiff;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One tool's difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolDrift {
    /// A tool the server lists that the snapshot lacks.
    Added(String),
    /// A tool the snapshot has that the server no longer lists.
    Removed(String),
    /// The tool's name and a unified diff of its pretty JSON, snapshot first.
    Changed(String, String),
}

/// Everything that differs; empty when the snapshot is current.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drift {
    /// `protocolVersion` or server info changed (informative: not drift in the tools).
    pub server: Vec<String>,
    /// The tools that differ, by name.
    pub tools: Vec<ToolDrift>,
}

impl Drift {
    /// Whether no tool differs (changes in the server's info alone are not drift).
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// A human-readable report.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for s in &self.server {
            let _ = writeln!(out, "note: {s}");
        }
        for t in &self.tools {
            match t {
                ToolDrift::Added(name) => {
                    let _ = writeln!(out, "+ tool `{name}` is new on the server");
                }
                ToolDrift::Removed(name) => {
                    let _ = writeln!(out, "- tool `{name}` is gone from the server");
                }
                ToolDrift::Changed(name, diff) => {
                    let _ = writeln!(out, "~ tool `{name}` changed:\n{diff}");
                }
            }
        }
        out
    }
}

fn pretty(tool: &Tool) -> String {
    serde_json::to_string_pretty(tool).unwrap_or_default() + "\n"
}

/// Compares a recorded snapshot (`old`) with a fresh one (`new`). Tool order does not count.
pub fn compare(old: &Snapshot, new: &Snapshot) -> Drift {
    let mut drift = Drift::default();
    if old.protocol_version != new.protocol_version {
        drift.server.push(format!(
            "protocol version {} → {}",
            old.protocol_version, new.protocol_version
        ));
    }
    if old.server.name != new.server.name || old.server.version != new.server.version {
        drift.server.push(format!(
            "server {} {} → {} {}",
            old.server.name, old.server.version, new.server.name, new.server.version
        ));
    }
    let before: BTreeMap<&str, &Tool> = old.tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let after: BTreeMap<&str, &Tool> = new.tools.iter().map(|t| (t.name.as_str(), t)).collect();
    for (name, tool) in &before {
        match after.get(name) {
            None => drift.tools.push(ToolDrift::Removed(name.to_string())),
            Some(now) if now != tool => {
                let (a, b) = (pretty(tool), pretty(now));
                let diff = TextDiff::from_lines(&a, &b)
                    .unified_diff()
                    .context_radius(2)
                    .header("snapshot", "server")
                    .to_string();
                drift.tools.push(ToolDrift::Changed(name.to_string(), diff));
            }
            Some(_) => {}
        }
    }
    for name in after.keys().filter(|n| !before.contains_key(*n)) {
        drift.tools.push(ToolDrift::Added(name.to_string()));
    }
    drift
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime::protocol::Implementation;
    use serde_json::json;

    fn snap(tools: Vec<Tool>) -> Snapshot {
        Snapshot {
            server: Implementation::new("s", "1"),
            protocol_version: "2025-06-18".into(),
            client_capabilities: Default::default(),
            tools,
        }
    }
    fn tool(name: &str, prop: &str) -> Tool {
        Tool::new(
            name,
            "d",
            json!({"type": "object", "properties": {prop: {"type": "string"}}})
                .as_object()
                .unwrap()
                .clone(),
        )
    }

    #[test]
    fn same_tools_in_another_order_is_no_drift() {
        let d = compare(
            &snap(vec![tool("a", "x"), tool("b", "y")]),
            &snap(vec![tool("b", "y"), tool("a", "x")]),
        );
        assert!(d.is_empty(), "{}", d.report());
    }

    #[test]
    fn added_removed_and_changed_tools_are_reported() {
        let d = compare(
            &snap(vec![tool("a", "x"), tool("gone", "y")]),
            &snap(vec![tool("a", "renamed"), tool("new", "z")]),
        );
        assert_eq!(d.tools.len(), 3);
        let report = d.report();
        assert!(report.contains("- tool `gone` is gone"), "{report}");
        assert!(report.contains("+ tool `new` is new"), "{report}");
        assert!(report.contains("~ tool `a` changed"), "{report}");
        assert!(report.contains("-      \"x\": {"), "{report}");
        assert!(report.contains("+      \"renamed\": {"), "{report}");
    }
}
