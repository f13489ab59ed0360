//! `--url`: the CLI records and generates from a Streamable HTTP server (ours, in this process, behind a
//! bearer token), sends `--header`s with every request, and says what went wrong when the token is missing
//! or nothing listens.

use mcp_runtime::http::{serve_http_on, HttpConfig};
use mcp_runtime::protocol::{CallToolResult, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Context, Server};
use serde_json::{json, Value};

const TOKEN: &str = "t0ken-for-codegen";

fn server() -> Server {
    let Value::Object(schema) = json!({
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name"}},
        "required": ["city"]
    }) else {
        unreachable!()
    };
    let forecast = ToolRoute::new(
        Tool::new("forecast", "Tomorrow's weather for a city.", schema),
        |_args: Arguments, _ctx: Context| async move { Ok(CallToolResult::text("sunny")) },
    );
    Server::builder()
        .name("weather")
        .version("1")
        .tool(forecast)
        .build()
        .expect("valid server")
}

async fn start() -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_http_on(
        server(),
        listener,
        HttpConfig::default().bearer_token(TOKEN),
        async move {
            let _ = stopped.await;
        },
    ));
    (url, stop)
}

async fn cli(args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .args(args)
        .output()
        .await
        .expect("the CLI runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_and_generate_over_streamable_http_with_a_bearer_header() {
    let (url, _stop) = start().await;
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("tools.json");
    let auth = format!("Authorization: Bearer {TOKEN}");
    // `subcommand --url URL --header AUTH --timeout 10 extra...`, which must succeed.
    let run = |subcommand: &'static str, extra: Vec<String>| {
        let mut args = vec![subcommand.to_string(), "--url".into(), url.clone()];
        args.extend([
            "--header".into(),
            auth.clone(),
            "--timeout".into(),
            "10".into(),
        ]);
        args.extend(extra);
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = cli(&args).await;
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            out
        }
    };
    run(
        "snapshot",
        vec!["-o".into(), snapshot.display().to_string()],
    )
    .await;
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(&snapshot).unwrap()).unwrap();
    assert_eq!(recorded["tools"][0]["name"], "forecast", "{recorded}");
    assert_eq!(
        recorded["tools"][0]["inputSchema"]["properties"]["city"]["description"],
        "City name"
    );

    let out = run("generate", Vec::new()).await;
    let code = String::from_utf8_lossy(&out.stdout);
    assert!(
        code.contains("pub async fn forecast") && code.contains("pub city: String"),
        "{code}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_token_or_a_dead_address_is_reported() {
    let (url, _stop) = start().await;
    let out = cli(&["snapshot", "--url", &url, "--timeout", "10", "-o", "-"]).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains(&url) && err.contains("401"), "{err}");

    // Nothing listens on port 9 (discard) of this host.
    let out = cli(&[
        "snapshot",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--timeout",
        "5",
        "-o",
        "-",
    ])
    .await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("127.0.0.1:9") && !err.contains("panicked"),
        "{err}"
    );
}
