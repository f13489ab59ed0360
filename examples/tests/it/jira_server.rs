//! `#[tool]`, `#[tools]`, `#[prompt]` and `#[resource]` end to end: the `jira-server` binary spoken to over
//! stdio by our client, through the real message pump.

use mcp_runtime::{Client, StderrMode};
use serde_json::json;
use std::collections::BTreeMap;

async fn jira() -> Client {
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_jira-server"));
    Client::builder()
        .stderr(StderrMode::Null)
        .spawn(cmd)
        .await
        .expect("jira-server starts")
}

#[tokio::test]
async fn lists_the_tools_with_the_schema_of_the_issue() {
    let client = jira().await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "search_jira",
            "get_issue",
            "create_issue",
            "transition_issue",
            "bulk_update",
            "add_comment"
        ]
    );
    let search = serde_json::to_value(&tools[0]).unwrap();
    assert_eq!(
        search["description"],
        "Search Jira issues using JQL.\n\nReturns matching issues with key, summary and status."
    );
    assert_eq!(
        search["inputSchema"],
        json!({"type":"object","properties":{
            "project":{"type":"string","description":"Jira project key, e.g. PROJ"},
            "jql":{"type":"string","description":"JQL query string"},
            "max_results":{"type":"integer","minimum":0,"default":50,"description":"Maximum number of results"},
            "include_subtasks":{"type":"boolean","description":"Whether to include subtask issues"}},
          "required":["project","jql"]})
    );
    assert_eq!(search["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(
        search["outputSchema"]["properties"]["result"]["type"],
        "array"
    );
}

#[tokio::test]
async fn calls_return_structured_content_with_a_text_copy() {
    let client = jira().await;
    let r = client
        .call_tool(
            "search_jira",
            json!({"project": "PROJ", "jql": "status = open"}),
        )
        .await
        .unwrap();
    assert!(!r.is_error(), "{r:?}");
    let expected =
        json!({"result": [{"key": "PROJ-1", "summary": "Login page times out", "status": "open"}]});
    assert_eq!(r.structured_content, Some(expected.clone()));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&r.text_content()).unwrap(),
        expected
    );

    let r = client.call_tool("search_jira", json!({"project": "PROJ", "jql": "status = open", "include_subtasks": true, "max_results": 1})).await.unwrap();
    assert_eq!(
        r.structured_content.unwrap()["result"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // An object result is not wrapped.
    let r = client
        .call_tool("get_issue", json!({"key": "OPS-1"}))
        .await
        .unwrap();
    assert_eq!(r.structured_content.as_ref().unwrap()["status"], "done");
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_naming_the_argument() {
    let client = jira().await;
    let r = client
        .call_tool(
            "search_jira",
            json!({"project": "PROJ", "jql": "x", "max_results": "ten"}),
        )
        .await
        .unwrap();
    assert!(r.is_error());
    assert!(
        r.text_content().contains("`max_results`") && r.text_content().contains("expected u32"),
        "{}",
        r.text_content()
    );

    let r = client
        .call_tool("search_jira", json!({"project": "PROJ"}))
        .await
        .unwrap();
    assert!(r.is_error());
    assert!(
        r.text_content().contains("missing field `jql`"),
        "{}",
        r.text_content()
    );

    let r = client
        .call_tool(
            "bulk_update",
            json!({"updates": [{"key": "PROJ-1", "status": "closed"}]}),
        )
        .await
        .unwrap();
    assert!(r.is_error());
    assert!(
        r.text_content().contains("`updates[0].status`")
            && r.text_content().contains("unknown variant `closed`"),
        "{}",
        r.text_content()
    );
}

#[tokio::test]
async fn a_tool_error_is_is_error_with_the_error_text() {
    let client = jira().await;
    let r = client
        .call_tool("search_jira", json!({"project": "NOPE", "jql": ""}))
        .await
        .unwrap();
    assert!(r.is_error());
    assert_eq!(
        r.text_content(),
        "no project `NOPE`; known projects: PROJ, OPS"
    );
}

#[tokio::test]
async fn method_tools_share_state() {
    let client = jira().await;
    let r = client
        .call_tool("create_issue", json!({"project": "OPS", "summary": "Renew domain", "issue_type": "story", "assignee": {"account": "ops"}}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "OPS-2");
    let r = client
        .call_tool(
            "transition_issue",
            json!({"key": "OPS-2", "status": "in_progress"}),
        )
        .await
        .unwrap();
    assert_eq!(r.text_content(), "OPS-2 is now InProgress");
    let r = client
        .call_tool("add_comment", json!({"key": "OPS-2", "body": "on it"}))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "comment 1 added to OPS-2");
    let r = client
        .call_tool("get_issue", json!({"key": "OPS-2"}))
        .await
        .unwrap();
    let issue = r.structured_content.unwrap();
    assert_eq!(
        (
            issue["status"].clone(),
            issue["priority"].clone(),
            issue["assignee"]["account"].clone()
        ),
        (json!("in_progress"), json!("medium"), json!("ops"))
    );
    assert_eq!(issue["comments"][0]["body"], "on it");
}

#[tokio::test]
async fn prompts_and_resources() {
    let client = jira().await;
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompts).unwrap(),
        json!([{"name": "triage", "description": "Triage an issue: decide its priority and next step.",
                "arguments": [{"name": "key", "description": "Issue key, e.g. PROJ-1", "required": true}]}])
    );
    let r = client
        .get_prompt(
            "triage",
            BTreeMap::from([("key".to_string(), "PROJ-2".to_string())]),
        )
        .await
        .unwrap();
    assert!(r.messages[0]
        .content
        .as_text()
        .unwrap()
        .contains("Export reports as CSV"));
    let missing = client
        .get_prompt(
            "triage",
            BTreeMap::from([("key".to_string(), "X-9".to_string())]),
        )
        .await;
    assert!(missing.unwrap_err().to_string().contains("no issue `X-9`"));

    let r = client.read_resource("jira://projects").await.unwrap();
    assert_eq!(
        serde_json::to_value(&r.contents).unwrap(),
        json!([{"uri": "jira://projects", "mimeType": "application/json", "text": "[\"PROJ\",\"OPS\"]"}])
    );
    let r = client.read_resource("jira://issue/PROJ-3").await.unwrap();
    let text = serde_json::to_value(&r.contents[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("CSV header row"), "{text}");
}
