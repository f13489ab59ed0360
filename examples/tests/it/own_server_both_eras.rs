//! Our client against our everything-server, over stdio and Streamable HTTP, in both eras: the same
//! client code and the same handlers answer the server's requests (handshake era) or its input requests
//! (2026-07-28), list changes arrive through `listen` in both, log messages come at the level asked for,
//! skills are loaded and verified, and a timed-out call is cancelled on the server (`notifications/cancelled` on stdio, the closed
//! stream on HTTP) without harming the next one.

use mcp_runtime::http::HttpClientConfig;
use mcp_runtime::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult,
    LoggingLevel, ProtocolVersion, Role, Root, SubscriptionFilter,
};
use mcp_runtime::{CallOptions, Client, ClientBuilder, Era, EraCache, Error};
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn builder(era: Era) -> ClientBuilder {
    Client::builder()
        .era(era)
        .era_cache(EraCache::default())
        .timeout(Some(Duration::from_secs(20)))
        .elicitation(|p: ElicitParams| async move {
            let field = if p.message.contains("color") {
                "color"
            } else {
                "name"
            };
            let mut content = json!({"username": "ada", "email": "ada@example.com"});
            content[field] = json!(if field == "color" { "teal" } else { "Ada" });
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: Some(content.as_object().unwrap().clone()),
                meta: None,
            })
        })
        .sampling(|_p: CreateMessageParams| async move {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: json!({"type": "text", "text": "hello from the model"}),
                model: "m".into(),
                stop_reason: None,
                meta: None,
            })
        })
        .roots(vec![Root {
            uri: "file:///work".into(),
            name: None,
            meta: None,
        }])
}

async fn text(c: &Client, tool: &str, args: Value) -> String {
    let r = c
        .call_tool(tool, args)
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    r.text_content()
}

async fn drive(c: &Client, modern: bool) {
    assert_eq!(c.is_modern(), modern);
    assert_eq!(
        c.protocol_version(),
        if modern {
            ProtocolVersion::V2026_07_28
        } else {
            ProtocolVersion::V2025_11_25
        }
    );
    // One handler, both eras.
    assert_eq!(
        text(c, "test_sampling", json!({"prompt": "hi"})).await,
        "LLM response: hello from the model"
    );
    let e = text(c, "test_elicitation", json!({"message": "Who are you?"})).await;
    assert!(
        e.starts_with("User response: action=accept") && e.contains("ada@example.com"),
        "{e}"
    );
    if modern {
        assert_eq!(
            text(c, "test_input_required_result_multi_round", json!({})).await,
            "Multi-round complete for Ada who likes teal"
        );
        assert_eq!(
            text(c, "test_input_required_result_list_roots", json!({})).await,
            "Found 1 root(s)"
        );
    }

    // Change notifications, in both eras through the same call.
    let mut sub = c
        .listen(SubscriptionFilter {
            tools_list_changed: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    if sub.granted().tools() && modern {
        text(c, "test_trigger_tool_change", json!({})).await;
        let n = tokio::time::timeout(Duration::from_secs(10), sub.next())
            .await
            .expect("a change within 10 s")
            .unwrap();
        assert_eq!(n.method, "notifications/tools/list_changed");
    }
    drop(sub);

    // Log messages at the level asked for (2026: carried by each request's `_meta`).
    if modern {
        let mut notes = c.notifications();
        text(c, "test_logging_tool", json!({})).await;
        c.set_logging_level(LoggingLevel::Info).await.unwrap();
        text(c, "test_logging_tool", json!({})).await;
        let mut got = 0;
        while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_millis(500), notes.recv()).await {
            if n.method == "notifications/message" {
                got += 1;
            }
        }
        assert_eq!(got, 1, "only the call that set a level got its log message");
    }

    // Skills: listed without a read, loaded verified, a supporting file read on demand and verified; a
    // file outside the manifest refused.
    let skills = c.list_all_skills().await.unwrap();
    let pdf = skills
        .iter()
        .find(|s| s.name() == "pdf-processing")
        .expect("the pdf-processing skill");
    let loaded = c.load_skill(pdf).await.unwrap();
    assert!(loaded.skill_md.contains("# PDF processing"));
    let forms = c
        .read_skill_file(&loaded, "skill://pdf-processing/references/FORMS.md")
        .await
        .unwrap();
    assert!(String::from_utf8(forms)
        .unwrap()
        .starts_with("# Form fields"));
    let e = c
        .read_skill_file(&loaded, "skill://pdf-processing/../../secrets")
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Verification(_)), "{e}");
    assert_eq!(c.get_skill(&pdf.uri).await.unwrap().uri, pdf.uri);

    // A call that times out is cancelled; the next one works.
    let started = Instant::now();
    let r = c
        .call_tool_with(
            "test_tool_with_progress",
            json!({}),
            CallOptions {
                timeout: Some(Duration::from_millis(20)),
                ..Default::default()
            },
        )
        .await;
    if let Err(e) = &r {
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        text(c, "test_simple_text", json!({})).await,
        "This is a simple text response for testing."
    );
    c.ping().await.unwrap();
}

async fn over_stdio(era: Era) {
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_everything-server"));
    let c = builder(era).spawn(cmd).await.expect("spawn");
    drive(&c, era != Era::Legacy).await;
    c.close().await;
}

struct Spawned(Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn over_http(era: Era) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _server = Spawned(
        Command::new(env!("CARGO_BIN_EXE_everything-server"))
            .arg("--http")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the server never listened");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let c = builder(era)
        .connect_http(
            &format!("http://127.0.0.1:{port}/mcp"),
            HttpClientConfig::default(),
        )
        .await
        .expect("connect");
    drive(&c, era != Era::Legacy).await;
    c.close().await;
}

#[tokio::test]
async fn stdio_handshake_era() {
    over_stdio(Era::Legacy).await;
}

#[tokio::test]
async fn stdio_2026_by_probing() {
    over_stdio(Era::Auto).await;
}

#[tokio::test]
async fn http_handshake_era() {
    over_http(Era::Legacy).await;
}

#[tokio::test]
async fn http_2026_by_probing() {
    over_http(Era::Auto).await;
}
