//! The bridge's library face, as a gateway uses it: tools from a spec, and calls validated against the full
//! request schema before any request is made, whatever the budget cut from the tool the model sees. The API
//! is never reached here (its address refuses connections), so a validation error is the only way a bad call
//! can end without a connection error.

use mcp_openapi::{convert, Bridge, BridgeConfig, BridgeError, Budget, ConvertOptions, Document};
use serde_json::{json, Map, Value};

const SPEC: &str = r#"
openapi: 3.0.3
info: { title: Orders, version: "2" }
paths:
  /orders:
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Order' }
      responses:
        '201': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } }
components:
  schemas:
    Order:
      type: object
      required: [customer, lines]
      properties:
        id: { type: integer, readOnly: true }
        customer: { $ref: '#/components/schemas/Customer' }
        lines:
          type: array
          minItems: 1
          items:
            type: object
            required: [sku, quantity]
            properties:
              sku: { type: string, description: The product's stock-keeping unit, pattern: '^[A-Z]{3}-\d+$' }
              quantity: { type: integer, minimum: 1, maximum: 99 }
              note: { type: string, nullable: true, description: A note printed on the parcel for this line. }
    Customer:
      type: object
      required: [email]
      properties:
        email: { type: string, description: Where the receipt goes. }
        name: { type: string, description: The name on the parcel. }
        address: { type: object, properties: { street: { type: string }, city: { type: string }, zip: { type: string } } }
"#;

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn bridge(budget: Budget) -> Bridge {
    let doc = Document::parse(SPEC, "orders.yaml").unwrap();
    let conversion = convert(
        &doc,
        &ConvertOptions {
            budget,
            ..ConvertOptions::default()
        },
    );
    assert!(conversion.warnings.is_empty(), "{:?}", conversion.warnings);
    Bridge::new(conversion, &BridgeConfig::new("http://127.0.0.1:9")).unwrap()
}

#[tokio::test]
async fn calls_are_validated_against_the_full_schema_whatever_the_budget_cut() {
    let tiny = Budget {
        input: 256,
        output: 256,
        description: 64,
    };
    let bridge = bridge(tiny);
    let tools = bridge.tools();
    assert_eq!(tools.len(), 1);
    // The model sees stubs: the line items' fields are not listed within 256 bytes.
    let shown = Value::Object(tools[0].input_schema.clone());
    assert!(
        serde_json::to_string(&shown).unwrap().len() <= 256,
        "{shown}"
    );
    assert!(!shown.to_string().contains("quantity"), "{shown}");

    // A line without its quantity, and a SKU of the wrong form: both found, both named.
    let r = bridge
        .call(
            "createOrder",
            args(json!({"customer": {"email": "a@b.c"}, "lines": [{"sku": "bad"}]})),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let text = r.text_content();
    assert!(
        text.starts_with("invalid arguments for `createOrder`"),
        "{text}"
    );
    assert!(
        text.contains("argument `lines` at /0") && text.contains("quantity"),
        "{text}"
    );
    assert!(text.contains("\"bad\" does not match"), "{text}");

    // Out of range, and a required argument missing.
    let r = bridge
        .call(
            "createOrder",
            args(json!({"lines": [{"sku": "ABC-1", "quantity": 100}]})),
        )
        .await
        .unwrap();
    let text = r.text_content();
    assert!(text.contains("customer") && text.contains("100"), "{text}");

    // A valid call passes validation and goes to the API, which is not there.
    let r = bridge
        .call(
            "createOrder",
            args(json!({"customer": {"email": "a@b.c"}, "lines": [{"sku": "ABC-1", "quantity": 2, "note": null}]})),
        )
        .await
        .unwrap();
    let text = r.text_content();
    assert!(text.contains("could not connect"), "{text}");
}

#[tokio::test]
async fn an_unknown_tool_is_an_error_value() {
    let bridge = bridge(Budget::DEFAULT);
    match bridge.call("dropTables", Map::new()).await {
        Err(BridgeError::UnknownTool(name)) => assert_eq!(name, "dropTables"),
        other => panic!("expected UnknownTool, got {other:?}"),
    }
}

#[test]
fn a_spec_without_operations_is_refused_by_name() {
    let dir = std::env::temp_dir().join(format!("mcp-openapi-bridge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("empty.yaml");
    std::fs::write(
        &spec,
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
    )
    .unwrap();
    let err = Bridge::from_spec(
        &spec,
        &ConvertOptions::default(),
        BridgeConfig::new("http://127.0.0.1:9"),
    )
    .err()
    .unwrap();
    assert!(
        err.to_string().contains("empty.yaml") && err.to_string().contains("no operation"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
