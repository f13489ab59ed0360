//! The protocol model against the spec's own example messages: each parses into its type and serializes
//! back to the same JSON.

use mcp_runtime::protocol::*;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};

fn roundtrip<T: DeserializeOwned + Serialize + std::fmt::Debug>(v: Value) -> T {
    let typed: T = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(back, v, "round trip changed the message");
    typed
}

#[test]
fn initialize_request_and_result() {
    // basic/lifecycle: the initialize request.
    let req: JsonRpcRequest<InitializeParams> = roundtrip(json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}, "url": {}}},
            "clientInfo": {"name": "ExampleClient", "title": "Example Client Display Name", "version": "1.0.0",
                "description": "An example MCP client application", "websiteUrl": "https://example.com",
                "icons": [{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}]}
        }
    }));
    assert_eq!(req.id, RequestId::Number(1));
    let p = req.params.unwrap();
    assert!(p.capabilities.elicitation.unwrap().supports_url());
    // The initialize result.
    let res: JsonRpcResponse<InitializeResult> = roundtrip(json!({
        "jsonrpc": "2.0", "id": 1,
        "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"logging": {}, "prompts": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true}, "tools": {"listChanged": true}, "completions": {}},
            "serverInfo": {"name": "ExampleServer", "title": "Example Server Display Name", "version": "1.0.0"},
            "instructions": "Optional instructions for the client"
        }
    }));
    assert_eq!(res.result.server_info.name, "ExampleServer");
    roundtrip::<JsonRpcNotification>(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
}

#[test]
fn tools_list_and_call() {
    let list: ListToolsResult = roundtrip(json!({
        "tools": [{
            "name": "get_weather", "title": "Weather Information Provider",
            "description": "Get current weather information for a location",
            "inputSchema": {"type": "object", "properties": {"location": {"type": "string", "description": "City name or zip code"}}, "required": ["location"]},
            "icons": [{"src": "https://example.com/weather-icon.png", "mimeType": "image/png", "sizes": ["48x48"]}],
            "annotations": {"readOnlyHint": true, "openWorldHint": true}
        }],
        "nextCursor": "next-page-cursor"
    }));
    assert_eq!(
        list.tools[0].annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    roundtrip::<CallToolParams>(
        json!({"name": "get_weather", "arguments": {"location": "New York"}}),
    );
    let r: CallToolResult = roundtrip(json!({
        "content": [{"type": "text", "text": "Current weather in New York:\nTemperature: 72°F\nConditions: Partly cloudy"}],
        "isError": false
    }));
    assert!(!r.is_error());
    // Structured output with its text copy.
    roundtrip::<CallToolResult>(json!({
        "content": [{"type": "text", "text": "{\"temperature\": 22.5, \"conditions\": \"Partly cloudy\", \"humidity\": 65}"}],
        "structuredContent": {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}
    }));
    let err: CallToolResult = roundtrip(json!({
        "content": [{"type": "text", "text": "Failed to fetch weather data: API rate limit exceeded"}], "isError": true
    }));
    assert!(err.is_error());
}

#[test]
fn every_content_block() {
    for block in [
        json!({"type": "text", "text": "Tool result text"}),
        json!({"type": "image", "data": "base64-encoded-data", "mimeType": "image/png", "annotations": {"audience": ["user"], "priority": 0.9}}),
        json!({"type": "audio", "data": "base64-encoded-audio-data", "mimeType": "audio/wav"}),
        json!({"type": "resource_link", "uri": "file:///project/src/main.rs", "name": "main.rs", "description": "Primary application entry point", "mimeType": "text/x-rust"}),
        json!({"type": "resource", "resource": {"uri": "file:///project/src/main.rs", "mimeType": "text/x-rust", "text": "fn main() {\n    println!(\"Hello world!\");\n}"},
            "annotations": {"audience": ["user", "assistant"], "priority": 0.7, "lastModified": "2025-05-03T14:30:00Z"}}),
        json!({"type": "resource", "resource": {"uri": "file:///x.bin", "blob": "AAEC"}}),
    ] {
        roundtrip::<ContentBlock>(block);
    }
}

#[test]
fn resources() {
    roundtrip::<ListResourcesResult>(json!({
        "resources": [{"uri": "file:///project/src/main.rs", "name": "main.rs", "title": "Rust Software Application Main File",
            "description": "Primary application entry point", "mimeType": "text/x-rust"}],
        "nextCursor": "next-page-cursor"
    }));
    roundtrip::<ListResourceTemplatesResult>(json!({
        "resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "Project Files", "title": "📁 Project Files",
            "description": "Access files in the project directory", "mimeType": "application/octet-stream"}]
    }));
    roundtrip::<ReadResourceResult>(json!({
        "contents": [{"uri": "file:///project/src/main.rs", "mimeType": "text/x-rust", "text": "fn main() {\n    println!(\"Hello world!\");\n}"}]
    }));
    roundtrip::<JsonRpcNotification<ResourceUpdatedParams>>(json!({
        "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///project/src/main.rs"}
    }));
    roundtrip::<JsonRpcError>(json!({
        "jsonrpc": "2.0", "id": 5, "error": {"code": -32002, "message": "Resource not found", "data": {"uri": "file:///nonexistent.txt"}}
    }));
}

#[test]
fn prompts() {
    roundtrip::<ListPromptsResult>(json!({
        "prompts": [{"name": "code_review", "title": "Request Code Review",
            "description": "Asks the LLM to analyze code quality and suggest improvements",
            "arguments": [{"name": "code", "description": "The code to review", "required": true}]}],
        "nextCursor": "next-page-cursor"
    }));
    roundtrip::<GetPromptParams>(
        json!({"name": "code_review", "arguments": {"code": "def hello():\n    print('world')"}}),
    );
    roundtrip::<GetPromptResult>(json!({
        "description": "Code review prompt",
        "messages": [{"role": "user", "content": {"type": "text", "text": "Please review this Python code:\ndef hello():\n    print('world')"}}]
    }));
}

#[test]
fn completion() {
    let p: CompleteParams = roundtrip(json!({
        "ref": {"type": "ref/prompt", "name": "code_review"},
        "argument": {"name": "framework", "value": "fla"},
        "context": {"arguments": {"language": "python"}}
    }));
    assert_eq!(
        p.reference,
        CompletionRef::Prompt {
            name: "code_review".into()
        }
    );
    roundtrip::<CompleteResult>(
        json!({"completion": {"values": ["flask"], "total": 1, "hasMore": false}}),
    );
    roundtrip::<CompletionRef>(json!({"type": "ref/resource", "uri": "file:///{path}"}));
}

#[test]
fn logging() {
    roundtrip::<SetLevelParams>(json!({"level": "info"}));
    roundtrip::<LoggingMessageParams>(json!({
        "level": "error", "logger": "database", "data": {"error": "Connection failed", "details": {"host": "localhost", "port": 5432}}
    }));
    assert!(LoggingLevel::Warning > LoggingLevel::Notice);
    assert!(
        serde_json::from_value::<SetLevelParams>(json!({"level": "warn"})).is_err(),
        "the level is `warning`"
    );
}

#[test]
fn utilities() {
    let c: JsonRpcNotification<CancelledParams> = roundtrip(json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "123", "reason": "User requested cancellation"}
    }));
    assert_eq!(
        c.params.unwrap().request_id,
        RequestId::String("123".into())
    );
    roundtrip::<ProgressParams>(
        json!({"progressToken": "abc123", "progress": 50.0, "total": 100.0, "message": "Reticulating splines..."}),
    );
    roundtrip::<JsonRpcRequest>(json!({"jsonrpc": "2.0", "id": "123", "method": "ping"}));
    roundtrip::<JsonRpcResponse>(json!({"jsonrpc": "2.0", "id": "123", "result": {}}));
    roundtrip::<JsonRpcRequest>(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": {"progressToken": "abc123"}}}),
    );
}

#[test]
fn client_features() {
    roundtrip::<ListRootsResult>(
        json!({"roots": [{"uri": "file:///home/user/projects/myproject", "name": "My Project"}]}),
    );
    let p: CreateMessageParams = roundtrip(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "intelligencePriority": 0.8, "speedPriority": 0.5},
        "systemPrompt": "You are a helpful assistant.", "maxTokens": 100
    }));
    assert_eq!(p.max_tokens, 100);
    roundtrip::<CreateMessageResult>(json!({
        "role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."},
        "model": "claude-3-sonnet-20240307", "stopReason": "endTurn"
    }));
    let e: ElicitParams = roundtrip(json!({
        "mode": "form", "message": "Please provide your GitHub username",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    }));
    assert!(!e.is_url());
    roundtrip::<ElicitResult>(json!({"action": "accept", "content": {"name": "octocat"}}));
    let u: ElicitParams = roundtrip(json!({
        "mode": "url", "elicitationId": "550e8400-e29b-41d4-a716-446655440000",
        "url": "https://mcp.example.com/ui/set_api_key", "message": "Please provide your API key to continue."
    }));
    assert!(u.is_url());
}

#[test]
fn tasks() {
    roundtrip::<CreateTaskResult>(json!({
        "task": {"taskId": "786512e2-9e0d-44bd-8f29-789f320fe840", "status": "working", "statusMessage": "The operation is now in progress.",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000, "pollInterval": 5000}
    }));
}

#[test]
fn ids_keep_their_type_and_null_is_refused() {
    assert_eq!(
        serde_json::to_string(&RequestId::String("1".into())).unwrap(),
        "\"1\""
    );
    assert_eq!(serde_json::to_string(&RequestId::Number(1)).unwrap(), "1");
    assert!(serde_json::from_value::<RequestId>(json!(null)).is_err());
    assert!(serde_json::from_value::<RequestId>(json!(1.5)).is_err());
    assert!(serde_json::from_value::<JsonRpcRequest>(
        json!({"jsonrpc": "1.0", "id": 1, "method": "x"})
    )
    .is_err());
}

#[test]
fn version_negotiation() {
    assert_eq!(
        ProtocolVersion::negotiate("2099-01-01"),
        ProtocolVersion::V2025_11_25
    );
    assert_eq!(
        ProtocolVersion::negotiate("2025-03-26"),
        ProtocolVersion::V2025_03_26
    );
    assert!(ProtocolVersion::V2025_03_26.allows_batch());
    assert!(!ProtocolVersion::V2025_06_18.allows_batch());
}
