//! `mcp_runtime::schema::__private`: what the code `#[tool]`, `#[prompt]` and `#[resource]` generate
//! names (not a public API): the schema and result glue, and the checks whose messages a user sees
//! instead of E0277.

pub use super::arguments::{
    decode_argument, decode_arguments, is_option, missing_argument, object_schema, subschema,
    ArgumentSchemaSpec,
};
pub use super::def::{SchemaCache, Schemas, ToolSpec};
pub use crate::server::tool_result::{
    error_result, ContentProbe, ContentReturn, Returned, SchemaProbe, StructuredProbe,
    StructuredReturn, ToolError,
};
pub use crate::server::ArgumentError;

/// Checks an argument type has a schema; the message is what the user sees instead of E0277.
#[diagnostic::on_unimplemented(
    message = "the argument type `{Self}` has no JSON Schema",
    label = "`{Self}` does not implement `JsonSchema`",
    note = "derive it: `#[derive(mcp_runtime::JsonSchema)]` (no schemars dependency needed)"
)]
pub trait ArgumentSchema {}
impl<T: schemars::JsonSchema + ?Sized> ArgumentSchema for T {}

/// Checks an argument type can be read from the call's JSON arguments.
#[diagnostic::on_unimplemented(
    message = "the argument type `{Self}` cannot be deserialized from the tool's JSON arguments",
    label = "`{Self}` does not implement `Deserialize`",
    note = "derive it: `#[derive(mcp_runtime::serde::Deserialize)]`, and use owned types (`String`, not `&str`)"
)]
pub trait ArgumentDeserialize {}
impl<T: serde::de::DeserializeOwned> ArgumentDeserialize for T {}

/// schemars' own derive, for the code `#[tool]` and `#[derive(mcp_runtime::JsonSchema)]` generate.
pub use ::schemars::JsonSchema as SchemarsJsonSchema;

/// A transform that changes nothing: on a unit variant it keeps the variant in its own branch, so
/// that an enum's values stay in declaration order.
pub fn keep_in_order(_: &mut schemars::Schema) {}

/// Fails to compile, at the argument's type, unless it has a JSON Schema.
pub fn assert_argument_schema<T: ArgumentSchema + ?Sized>() {}
/// Fails to compile, at the argument's type, unless it can be deserialized.
pub fn assert_argument_deserialize<T: ArgumentDeserialize>() {}

pub use crate::server::tool_result::{
    IntoPromptResult, IntoResourceResult, StringArg, StringArgument,
};
