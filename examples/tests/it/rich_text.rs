//! Rich text as a model reads and writes it: `jira-adf-server` (descriptions kept as ADF) and
//! `confluence-server` (pages kept in storage format) over stdio, through our client. A read gives
//! Markdown; one paragraph is edited in it; the write takes it back; the stored document, read raw, has
//! the edit and every other node exactly as it was.

use mcp_runtime::{Client, StderrMode};
use mcp_text::{Format, Node};
use serde_json::{json, Value};

const JIRA_SEED: &str = include_str!("../../rich-text/jira-description.adf.json");
const PAGE_SEED: &str = include_str!("../../rich-text/confluence-page.storage.xml");

async fn spawn(bin: &str) -> Client {
    Client::builder()
        .stderr(StderrMode::Null)
        .spawn(tokio::process::Command::new(bin))
        .await
        .expect("the server starts")
}

async fn text(client: &Client, tool: &str, args: Value) -> String {
    let r = client.call_tool(tool, args).await.unwrap();
    assert!(!r.is_error(), "{tool}: {}", r.text_content());
    r.text_content()
}

/// The top-level nodes of two documents, compared one by one (a failure names the node).
fn same_nodes(got: &[Node], want: &[Node]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "node {i} ({}) changed", w.kind.name());
    }
    assert_eq!(
        got.len(),
        want.len(),
        "the number of top-level nodes changed"
    );
}

#[tokio::test]
async fn the_read_tools_return_markdown_as_text_without_an_output_schema() {
    let jira = spawn(env!("CARGO_BIN_EXE_jira-adf-server")).await;
    let tools = jira.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "list_issues",
            "get_issue",
            "update_description",
            "get_issue_raw"
        ]
    );
    let get = tools.iter().find(|t| t.name == "get_issue").unwrap();
    assert!(get.output_schema.is_none(), "{get:?}");
    let wiki = spawn(env!("CARGO_BIN_EXE_confluence-server")).await;
    let names: Vec<String> = wiki
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        ["list_pages", "get_page", "update_page", "get_page_raw"]
    );
    // The raw tools need no conversion: the seeds as they are stored.
    let raw = text(&jira, "get_issue_raw", json!({"key": "SHOP-1"})).await;
    assert_eq!(
        serde_json::from_str::<Value>(&raw).unwrap(),
        serde_json::from_str::<Value>(JIRA_SEED).unwrap()
    );
    let raw = text(&wiki, "get_page_raw", json!({"id": "123456"})).await;
    assert_eq!(raw, PAGE_SEED.trim_end());
    let r = jira
        .call_tool("get_issue", json!({"key": "NOPE-1"}))
        .await
        .unwrap();
    assert!(r.is_error() && r.text_content().contains("no issue `NOPE-1`"));
}

/// Needs the Markdown writer and reader of `mcp-text`.
#[tokio::test]
async fn a_jira_description_edited_in_markdown_keeps_every_other_node() {
    let jira = spawn(env!("CARGO_BIN_EXE_jira-adf-server")).await;
    let md = text(&jira, "get_issue", json!({"key": "SHOP-1"})).await;
    // What a model reads: Markdown, the people by name, no JSON.
    assert!(md.contains("Steps to reproduce are below"), "{md}");
    assert!(
        md.contains("Ana Souza") && md.contains("Jonas Berg"),
        "{md}"
    );
    assert!(!md.contains("\"type\":\"doc\""), "{md}");
    let edited = md.replacen(
        "Steps to reproduce are below",
        "Steps to reproduce, checked again today, are below",
        1,
    );
    let r = text(
        &jira,
        "update_description",
        json!({"key": "SHOP-1", "markdown": edited}),
    )
    .await;
    assert_eq!(r, "SHOP-1 updated");

    let stored: Value =
        serde_json::from_str(&text(&jira, "get_issue_raw", json!({"key": "SHOP-1"})).await)
            .unwrap();
    let mut want: Value = serde_json::from_str(JIRA_SEED).unwrap();
    let edited_text = &mut want["content"][3]["content"][0]["text"];
    assert_eq!(edited_text, "Steps to reproduce are below; the logs match ");
    *edited_text = json!("Steps to reproduce, checked again today, are below; the logs match ");
    let node = |v: &Value| mcp_text::adf::from_value(v.clone()).unwrap();
    same_nodes(node(&stored).children(), node(&want).children());
    assert_eq!(stored, want);
    // Read again, it is the Markdown that was sent.
    assert_eq!(
        text(&jira, "get_issue", json!({"key": "SHOP-1"})).await,
        edited
    );
}

/// Needs the Markdown writer and reader and the storage reader and writer of `mcp-text`.
#[tokio::test]
async fn a_confluence_page_edited_in_markdown_keeps_every_other_node() {
    let wiki = spawn(env!("CARGO_BIN_EXE_confluence-server")).await;
    let md = text(&wiki, "get_page", json!({"id": "123456"})).await;
    assert!(md.contains("Last paragraph to edit."), "{md}");
    assert!(md.contains("Payment runbook"), "{md}");
    let edited = md.replacen(
        "Last paragraph to edit.",
        "Last paragraph, edited by the model.",
        1,
    );
    let r = text(
        &wiki,
        "update_page",
        json!({"id": "123456", "markdown": edited}),
    )
    .await;
    assert_eq!(r, "page 123456 updated");

    let stored = text(&wiki, "get_page_raw", json!({"id": "123456"})).await;
    let want = PAGE_SEED.replacen(
        "Last paragraph to edit.",
        "Last paragraph, edited by the model.",
        1,
    );
    // Compared as documents: storage format's insignificant XML formatting may differ.
    let read = |s: &str| mcp_text::read(s.as_bytes(), Format::Storage).unwrap().doc;
    same_nodes(read(&stored).children(), read(&want).children());
    assert_eq!(
        text(&wiki, "get_page", json!({"id": "123456"})).await,
        edited
    );
}
