//! `insta` snapshots of what a server answers, with what changes from run to run redacted.

/// The members whose values are replaced by `"[redacted]"` at any depth of a snapshot: request and task
/// ids, progress tokens, request states, timestamps, and `_meta` (where servers put what varies).
pub const REDACTED_KEYS: &[&str] = &[
    "_meta",
    "requestId",
    "taskId",
    "progressToken",
    "requestState",
    "timestamp",
    "createdAt",
    "lastUpdatedAt",
];

/// insta's settings for MCP snapshots: the current settings plus a redaction of each of
/// [`REDACTED_KEYS`] at any depth. Bind more of your own around an assertion the usual way
/// (`let mut s = snapshot_settings(); s.add_redaction(".name", "[name]"); s.bind(|| ...)`).
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    for key in REDACTED_KEYS {
        settings.add_redaction(&format!(".**.{key}"), "[redacted]");
    }
    settings
}

/// `insta::assert_json_snapshot!` of any serializable value (a tool's result, a resource, a prompt)
/// under [`snapshot_settings`](crate::testing::snapshot_settings): ids, timestamps and `_meta` redacted.
/// Takes what `assert_json_snapshot!` takes: a value, a name and a value, or a value and an inline
/// snapshot.
///
/// ```
/// # use mcp_runtime::protocol::CallToolResult;
/// let mut result = CallToolResult::text("done");
/// result.meta = serde_json::json!({"requestId": 7}).as_object().cloned();
/// mcp_runtime::assert_result_snapshot!(result, @r#"
/// {
///   "content": [
///     {
///       "type": "text",
///       "text": "done"
///     }
///   ],
///   "_meta": "[redacted]"
/// }
/// "#);
/// ```
#[macro_export]
macro_rules! assert_result_snapshot {
    ($($args:tt)+) => {
        $crate::testing::snapshot_settings().bind(|| {
            $crate::testing::insta::assert_json_snapshot!($($args)+)
        })
    };
}

/// A snapshot of every tool a client lists (`tools/list`, every page), as
/// [`assert_result_snapshot!`](crate::assert_result_snapshot) takes it; an `await`, so it is written in
/// an async test. Panics when the listing fails. `assert_tools_snapshot!(client)`, or with a name
/// (`assert_tools_snapshot!("tools", client)`) or an inline snapshot (`assert_tools_snapshot!(client, @"...")`).
#[macro_export]
macro_rules! assert_tools_snapshot {
    ($name:literal, $client:expr) => {{
        let tools = $crate::__list_tools_for_snapshot!($client);
        $crate::assert_result_snapshot!($name, tools)
    }};
    ($client:expr, @$snapshot:literal) => {{
        let tools = $crate::__list_tools_for_snapshot!($client);
        $crate::assert_result_snapshot!(tools, @$snapshot)
    }};
    ($client:expr) => {{
        let tools = $crate::__list_tools_for_snapshot!($client);
        $crate::assert_result_snapshot!(tools)
    }};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __list_tools_for_snapshot {
    ($client:expr) => {
        match $client.list_all_tools().await {
            Ok(tools) => tools,
            Err(e) => panic!("tools/list failed, nothing to snapshot: {e}"),
        }
    };
}
