//! `mcp-codegen serve-openapi` end to end: the test starts a REST API (axum) on 127.0.0.1, writes a spec for
//! it, starts the bridge as a child process over stdio and drives it with our MCP client: path, query and
//! header parameters, a JSON body, an HTTP error status (an `isError` result, not a protocol error), an
//! unknown tool (-32602), and secrets passed with `--header` that the API needs but that never reach a tool
//! schema or a result, even when the API echoes them back; and the same bridge over Streamable HTTP.

use crate::support;

use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use mcp_runtime::Client;
use serde_json::{json, Value};
use std::collections::HashMap;

const TOKEN: &str = "tok-4f1d9a7c";
const API_KEY: &str = "key-88b21e0f";

const SPEC: &str = r#"
openapi: 3.1.0
info: { title: Inventory, version: 1.2.3 }
paths:
  /items/{id}:
    get:
      operationId: getItem
      summary: Fetch one item.
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer, minimum: 1 } }
        - { name: verbose, in: query, schema: { type: boolean } }
        - { name: X-Api-Key, in: header, required: true, schema: { type: string } }
      responses:
        '200':
          description: The item.
          content:
            application/json:
              schema:
                type: object
                properties: { id: { type: integer }, name: { type: string }, verbose: { type: boolean } }
        '404': { description: No such item. }
  /items:
    post:
      operationId: createItem
      summary: Create an item.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: { type: string, description: The item's name }
                tags: { type: array, items: { type: string } }
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Item' }
  /whoami:
    get:
      operationId: whoami
      summary: Echoes the credentials the API received (a careless API).
      responses:
        '200':
          description: The headers.
          content: { application/json: { schema: { type: object } } }
components:
  schemas:
    Item:
      type: object
      properties: { id: { type: integer }, name: { type: string }, tags: { type: array, items: { type: string } } }
"#;

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"))
}

fn api() -> Router {
    Router::new()
        .route(
            "/v1/items/{id}",
            get(
                |Path(id): Path<u64>, Query(q): Query<HashMap<String, String>>, headers: HeaderMap| async move {
                    if !authorized(&headers) || headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(API_KEY) {
                        return (StatusCode::UNAUTHORIZED, Json(json!({"error": "unauthorized"})));
                    }
                    if id != 7 {
                        return (StatusCode::NOT_FOUND, Json(json!({"error": format!("no item {id}")})));
                    }
                    let verbose = q.get("verbose").map(|v| v == "true");
                    (StatusCode::OK, Json(json!({"id": id, "name": "hammer", "verbose": verbose})))
                },
            ),
        )
        .route(
            "/v1/items",
            post(|headers: HeaderMap, Json(body): Json<Value>| async move {
                if !authorized(&headers) {
                    return (StatusCode::UNAUTHORIZED, Json(json!({"error": "unauthorized"})));
                }
                let mut item = body;
                item["id"] = json!(42);
                (StatusCode::CREATED, Json(item))
            }),
        )
        .route(
            "/v1/whoami",
            get(|headers: HeaderMap| async move {
                let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("");
                Json(json!({"authorization": auth, "x-api-key": headers.get("x-api-key").and_then(|v| v.to_str().ok())}))
            }),
        )
}

/// Starts the API on a free port and returns the `serve-openapi` command for it (spec in `dir`, both
/// secrets as `--header`s); the caller adds the transport flags.
async fn bridge_command(dir: &std::path::Path) -> tokio::process::Command {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, api()).await });
    let spec = dir.join("inventory.yaml");
    std::fs::write(&spec, SPEC).unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-codegen"));
    cmd.arg("serve-openapi")
        .arg(&spec)
        .args(["--base-url", &format!("http://{addr}/v1")])
        .args(["--header", &format!("Authorization: Bearer {TOKEN}")])
        .args(["--header", &format!("X-Api-Key: {API_KEY}")]);
    cmd
}

#[tokio::test]
async fn the_bridge_calls_a_real_api_and_keeps_its_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = bridge_command(dir.path()).await;
    cmd.args(["--timeout", "5"]);
    let client = Client::builder()
        .spawn(cmd)
        .await
        .expect("the bridge starts and initializes");
    assert_eq!(client.server().server_info.name, "Inventory");

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["createItem", "getItem", "whoami"]);
    let tool =
        |name: &str| serde_json::to_value(tools.iter().find(|t| t.name == name).unwrap()).unwrap();
    let listed = serde_json::to_string(&tools).unwrap();
    assert!(
        !listed.contains(TOKEN) && !listed.contains(API_KEY),
        "{listed}"
    );
    let get_item = tool("getItem");
    // The header the bridge supplies is not the model's to fill in.
    assert_eq!(
        get_item["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["id", "verbose"],
        "{get_item}"
    );
    assert_eq!(get_item["inputSchema"]["required"], json!(["id"]));
    let create = tool("createItem");
    assert_eq!(
        create["inputSchema"]["required"],
        json!(["name"]),
        "{create}"
    );
    assert_eq!(
        create["outputSchema"]["properties"]["id"]["type"], "integer",
        "{create}"
    );

    // Path and query parameters, and both headers, reach the API; its JSON comes back structured.
    let r = client
        .call_tool("getItem", json!({"id": 7, "verbose": true}))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(
        r.structured_content,
        Some(json!({"id": 7, "name": "hammer", "verbose": true}))
    );
    assert!(r.text_content().contains("hammer"));

    // A JSON body from the flattened properties.
    let r = client
        .call_tool(
            "createItem",
            json!({"name": "saw", "tags": ["tools", "sharp"]}),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(
        r.structured_content,
        Some(json!({"id": 42, "name": "saw", "tags": ["tools", "sharp"]}))
    );

    // An error status is the tool's failure, with the status and an excerpt of the body.
    let r = client.call_tool("getItem", json!({"id": 3})).await.unwrap();
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let text = r.text_content();
    assert!(text.contains("404") && text.contains("no item 3"), "{text}");

    // Arguments the schema rejects never reach the API.
    let r = client.call_tool("createItem", json!({"tags": []})).await;
    match r {
        Ok(r) => assert_eq!(r.is_error, Some(true), "{r:?}"),
        Err(e) => assert!(e.to_string().contains("name"), "{e}"),
    }

    // An unknown tool is -32602 and the bridge keeps serving.
    let e = client
        .call_tool("deleteEverything", json!({}))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("-32602"), "{e}");

    // The API echoes the credentials; the bridge redacts them.
    let r = client.call_tool("whoami", json!({})).await.unwrap();
    let shown = serde_json::to_string(&r).unwrap();
    assert!(
        !shown.contains(TOKEN) && !shown.contains(API_KEY),
        "a secret leaked: {shown}"
    );
    assert!(
        shown.contains("[redacted]") && shown.contains("x-api-key"),
        "the rest of the answer is kept: {shown}"
    );

    client.close().await;
}

/// `--http ADDR`: the same bridge over Streamable HTTP, reached with our HTTP client.
#[tokio::test]
async fn the_bridge_serves_streamable_http_too() {
    use tokio::io::AsyncBufReadExt;
    let dir = tempfile::tempdir().unwrap();
    let mut child = bridge_command(dir.path())
        .await
        .args(["--http", "127.0.0.1:0"])
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // It names the address it listens on: "serving 3 tools of Inventory on http://127.0.0.1:PORT/mcp".
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(std::time::Duration::from_secs(20), stderr.next_line())
            .await
            .expect("the bridge says where it listens")
            .unwrap()
            .expect("the bridge is still running");
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_string();
        }
    };
    let client = Client::builder()
        .connect_http(&url, mcp_runtime::http::HttpClientConfig::default())
        .await
        .expect("the bridge answers over HTTP");
    let r = client.call_tool("getItem", json!({"id": 7})).await.unwrap();
    assert_eq!(
        r.structured_content,
        Some(json!({"id": 7, "name": "hammer", "verbose": null}))
    );
    let r = client.call_tool("getItem", json!({"id": 8})).await.unwrap();
    assert_eq!(r.is_error, Some(true), "{r:?}");
    client.close().await;
    child.kill().await.unwrap();
}

#[test]
fn a_bad_spec_or_base_url_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.yaml");
    std::fs::write(&bad, "openapi: 3.1.0\npaths: [1, 2\n").unwrap();
    let out = support::cli()
        .args(["serve-openapi"])
        .arg(&bad)
        .args(["--base-url", "http://127.0.0.1:9"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("broken.yaml") && !err.contains("panicked"),
        "{err}"
    );

    let spec = dir.path().join("ok.yaml");
    std::fs::write(&spec, SPEC).unwrap();
    let out = support::cli()
        .args(["serve-openapi"])
        .arg(&spec)
        .args(["--base-url", "ftp://example.com"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("ftp://example.com"), "{err}");
}
