//! The golden bindings compile (this file includes them) and work: typed calls through them reach real
//! servers — an in-process one, the `bench-server` example, and `@modelcontextprotocol/server-everything`.

use crate::support;

#[allow(dead_code)]
mod edge_cases {
    include!("../outputs/edge-cases.rs");
}
#[allow(dead_code)]
mod bench_server {
    include!("../outputs/bench-server.rs");
}
#[allow(dead_code)]
mod everything {
    include!("../outputs/server-everything.rs");
}
#[allow(dead_code)]
mod everything_all {
    include!("../outputs/server-everything-all-capabilities.rs");
}
#[allow(dead_code)]
mod petstore {
    include!("../outputs/openapi-petstore.rs");
}

use mcp_runtime::codegen_support::ToolCallError;
use mcp_runtime::protocol::{CallToolResult, ContentBlock, Tool};
use mcp_runtime::server::{Arguments, ToolRoute};
use mcp_runtime::{Client, Context, Server, StderrMode};
use serde_json::json;
use std::time::Duration;

fn text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A server with two of the edge-case tools, connected in-process.
async fn edge_server() -> edge_cases::Client {
    let snapshot =
        mcp_codegen::Snapshot::load(&support::crate_dir().join("tests/snapshots/edge-cases.json"))
            .unwrap();
    let listed = |name: &str| -> Tool {
        snapshot
            .tools
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .clone()
    };
    let weather = ToolRoute::new(
        listed("weather.get"),
        |args: Arguments, _ctx: Context| async move {
            let city = args
                .parse::<serde_json::Value>()
                .map(|v| v["city"].as_str().unwrap_or_default().to_string());
            Ok(match city.as_deref() {
                Ok("Nowhere") => CallToolResult::error("no such city: Nowhere"),
                Ok("Plain") => CallToolResult::text(r#"{"temperature": 1.5}"#),
                Ok("Wrong") => CallToolResult::structured(json!({"temperature": "warm"})),
                Ok(city) => CallToolResult::structured(
                    json!({"temperature": 21.5, "note": city, "tags": {"sky": "clear"}}),
                ),
                Err(e) => CallToolResult::error(e.message()),
            })
        },
    );
    let ping = ToolRoute::new(
        listed("ping"),
        |_args: Arguments, _ctx: Context| async move { Ok(CallToolResult::text("pong")) },
    );
    let server = Server::builder()
        .name("edge")
        .tool(weather)
        .tool(ping)
        .build()
        .unwrap();
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_io);
    tokio::spawn(async move { server.serve(server_read, server_write).await });
    let (client_read, client_write) = tokio::io::split(client_io);
    let inner = Client::builder()
        .connect(client_read, client_write)
        .await
        .unwrap();
    edge_cases::Client::new(inner)
}

#[tokio::test]
async fn structured_output_comes_back_typed() {
    let client = edge_server().await;
    let out = client
        .weather_get(&edge_cases::weather_get::Params {
            city: "Lyon".into(),
        })
        .await
        .unwrap();
    assert_eq!(out.temperature, 21.5);
    assert_eq!(out.note.as_deref(), Some("Lyon"));
    assert_eq!(out.tags.get("sky").map(String::as_str), Some("clear"));
}

#[tokio::test]
async fn output_from_the_text_block_when_there_is_no_structured_content() {
    let client = edge_server().await;
    let out = client
        .weather_get(&edge_cases::weather_get::Params {
            city: "Plain".into(),
        })
        .await
        .unwrap();
    assert_eq!(out.temperature, 1.5);
}

#[tokio::test]
async fn is_error_becomes_an_error_value() {
    let client = edge_server().await;
    let err = client
        .weather_get(&edge_cases::weather_get::Params {
            city: "Nowhere".into(),
        })
        .await
        .unwrap_err();
    match &err {
        ToolCallError::Tool { tool, result } => {
            assert_eq!(*tool, "weather.get");
            assert_eq!(result.text_content(), "no such city: Nowhere");
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "the tool `weather.get` reported an error: no such city: Nowhere"
    );
}

#[tokio::test]
async fn output_that_does_not_match_its_schema_is_an_error_value() {
    let client = edge_server().await;
    let err = client
        .weather_get(&edge_cases::weather_get::Params {
            city: "Wrong".into(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            ToolCallError::Output {
                tool: "weather.get",
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_tool_without_arguments_takes_none() {
    let client = edge_server().await;
    assert_eq!(text(&client.ping().await.unwrap()), "pong");
    // An unknown tool is the server's JSON-RPC error, reported as a failed call.
    let err = client
        .tree(&edge_cases::tree::Params {
            value: "x".into(),
            children: vec![],
        })
        .await
        .unwrap_err();
    assert!(
        matches!(err, ToolCallError::Call { tool: "tree", .. }),
        "{err:?}"
    );
}

#[test]
fn generated_types_serialize_as_the_schema_says() {
    let p = edge_cases::tree::Params {
        value: "root".into(),
        children: vec![edge_cases::tree::Params {
            value: "leaf".into(),
            children: vec![],
        }],
    };
    assert_eq!(
        serde_json::to_value(&p).unwrap(),
        json!({"value": "root", "children": [{"value": "leaf"}]})
    );
    let t = edge_cases::tool_3d_render::Params {
        at: (1.0, 2.0, 3.0),
        id: None,
        when: None,
    };
    assert_eq!(
        serde_json::to_value(&t).unwrap(),
        json!({"at": [1.0, 2.0, 3.0]})
    );
    let k: edge_cases::type_::Params =
        serde_json::from_value(json!({"kind": "fixed", "self": true})).unwrap();
    assert_eq!(k.self_, Some(true));
    assert!(serde_json::from_value::<edge_cases::type_::Params>(json!({"kind": "other"})).is_err());
    assert_eq!(
        serde_json::to_value(edge_cases::ping::Params {}).unwrap(),
        json!({})
    );
}

/// A spec's bindings read their answers with the `Deserialize` mcp-codegen writes (not serde's derive), and
/// read them as serde would: wire names, unknown fields ignored, a missing `Option` is `None`, a missing
/// defaulted field its default, a missing required field and an unknown variant are errors.
#[test]
fn spec_bindings_read_answers_as_serde_would() {
    use petstore::components::{Order, OrderStatus, Pet, PetStatus};
    let pets: petstore::find_pets_by_status::Output = serde_json::from_value(json!({
        "result": [{
            "name": "Rex", "photoUrls": ["a.png"], "status": "sold", "unknown": {"deep": [1]},
            "category": {"id": 3, "name": null}, "tags": [{"id": 1}]
        }]
    }))
    .unwrap();
    let rex: &Pet = &pets.result[0];
    assert_eq!(
        (rex.name.as_str(), rex.photo_urls.as_slice()),
        ("Rex", &["a.png".to_string()][..])
    );
    assert_eq!(rex.status, Some(PetStatus::Sold));
    assert_eq!(
        rex.id, 40,
        "the spec's default, from `#[serde(default = ...)]` before"
    );
    let category = rex.category.as_ref().unwrap();
    assert_eq!((category.id, category.name.as_deref()), (Some(3), None));
    assert_eq!(
        (rex.tags.len(), rex.tags[0].id, rex.tags[0].name.as_deref()),
        (1, Some(1), None)
    );

    // From a borrowed value too, as `call_structured` reads `structuredContent`.
    let answer = json!({"petId": 7, "status": "approved"});
    let order = <Order as serde::Deserialize>::deserialize(&answer).unwrap();
    assert_eq!(
        (order.pet_id, order.status, order.complete, order.id),
        (Some(7), Some(OrderStatus::Approved), false, None)
    );

    let missing = serde_json::from_value::<Pet>(json!({"name": "Rex"})).unwrap_err();
    assert!(
        missing.to_string().contains("missing field `photoUrls`"),
        "{missing}"
    );
    let variant = serde_json::from_value::<Order>(json!({"status": "lost"})).unwrap_err();
    assert!(
        variant
            .to_string()
            .contains("unknown variant `lost`, expected one of `placed`, `approved`, `delivered`"),
        "{variant}"
    );
    let not_an_object = serde_json::from_value::<Order>(json!([1, 2])).unwrap_err();
    assert!(
        not_an_object.to_string().contains("expected struct Order"),
        "{not_an_object}"
    );
    let wrong_type = serde_json::from_str::<Pet>(r#"{"name": 1, "photoUrls": []}"#).unwrap_err();
    assert!(
        wrong_type
            .to_string()
            .contains("field `name`: invalid type: integer `1`, expected a string"),
        "{wrong_type}"
    );
}

/// The full loop, second half: the bindings the CLI wrote for `bench-server` (checked against the CLI's output
/// in `tests/cli.rs`) make typed calls to it, in both protocol eras.
#[tokio::test]
async fn typed_calls_to_the_bench_server() {
    for era in [mcp_runtime::Era::Legacy, mcp_runtime::Era::Modern] {
        typed_calls_to_the_bench_server_in(era).await;
    }
}

async fn typed_calls_to_the_bench_server_in(era: mcp_runtime::Era) {
    let mut cmd = tokio::process::Command::new(support::bench_server());
    cmd.env("RUST_LOG", "off");
    let inner = Client::builder()
        .era(era)
        .stderr(StderrMode::Capture)
        .spawn(cmd)
        .await
        .unwrap();
    assert_eq!(inner.is_modern(), era == mcp_runtime::Era::Modern);
    let client = bench_server::Client::new(inner);
    let echoed = client
        .echo(&bench_server::echo::Params {
            text: "typed".into(),
        })
        .await
        .unwrap();
    assert_eq!(text(&echoed), "typed");
    let sum = client
        .add(&bench_server::add::Params { a: 2.0, b: 3.5 })
        .await
        .unwrap();
    assert_eq!(text(&sum).parse::<f64>().unwrap(), 5.5);
    client.into_inner().close().await;
}

#[tokio::test]
async fn typed_calls_to_server_everything() {
    let Some(command) = support::server_everything_command() else {
        eprintln!("skipped: Node is not installed");
        return;
    };
    let words = mcp_codegen::live::split_command(&command).unwrap();
    let mut cmd = tokio::process::Command::new(&words[0]);
    cmd.args(&words[1..]);
    let inner = Client::builder()
        .timeout(Some(Duration::from_secs(60)))
        .stderr(StderrMode::Null)
        .spawn(cmd)
        .await
        .unwrap();
    let client = everything::Client::new(inner);

    let sum = client
        .get_sum(&everything::get_sum::Params { a: 2.0, b: 40.0 })
        .await
        .unwrap();
    assert!(text(&sum).contains("42"), "{}", text(&sum));

    let echoed = client
        .echo(&everything::echo::Params {
            message: "hello".into(),
        })
        .await
        .unwrap();
    assert!(text(&echoed).contains("hello"), "{}", text(&echoed));

    let weather = client
        .get_structured_content(&everything::get_structured_content::Params {
            location: everything::get_structured_content::ParamsLocation::Chicago,
        })
        .await
        .unwrap();
    assert!(!weather.conditions.is_empty());

    let image = client.get_tiny_image().await.unwrap();
    assert!(
        image
            .iter()
            .any(|b| matches!(b, ContentBlock::Image { .. })),
        "{image:?}"
    );
    client.into_inner().close().await;
}
