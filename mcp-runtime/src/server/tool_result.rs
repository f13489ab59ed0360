//! What a tool's return value becomes: the [`CallToolResult`] sent to the client.
//!
//! | the function returns | the result |
//! |---|---|
//! | `String`, `&'static str` | one `text` block |
//! | [`ContentBlock`], `Vec<ContentBlock>` | those blocks (the escape hatch: image, audio, resource link, embedded resource) |
//! | [`CallToolResult`] | itself |
//! | `()` | no content |
//! | any other `T: Serialize + JsonSchema` | `structuredContent` (an object; anything else as `{"result": value}`), its JSON as a `text` block, and an `outputSchema` on the tool |
//! | `Result<T, E: Display>` | `Ok` as above; `Err` as `isError: true` with the error's text |
//!
//! `#[tool]` picks the row at compile time from the concrete type (an autoref dispatch: content types
//! first, then `Serialize + JsonSchema`), so a type that is both, like `String`, is content.

use crate::protocol::{
    CallToolResult, ContentBlock, ErrorObject, GetPromptResult, PromptMessage, ReadResourceResult,
    ResourceContents,
};
use crate::schema::{OutputSchema, SchemaProfile};
use schemars::JsonSchema;
use serde::Serialize;
use std::cell::Cell;
use std::fmt::Display;
use std::marker::PhantomData;

/// Return types that are content blocks rather than structured output.
pub trait IntoContent {
    /// The result: the value as content blocks, `isError` unset.
    fn into_call_tool_result(self) -> CallToolResult;
}

impl IntoContent for String {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}
impl IntoContent for &'static str {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}
impl IntoContent for ContentBlock {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::content(vec![self])
    }
}
impl IntoContent for Vec<ContentBlock> {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::content(self)
    }
}
impl IntoContent for CallToolResult {
    fn into_call_tool_result(self) -> CallToolResult {
        self
    }
}
impl IntoContent for () {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::content(Vec::new())
    }
}

/// A structured result: `structuredContent` plus its JSON text. `wrapped` puts it under `"result"`,
/// as the tool's `outputSchema` says.
pub fn structured<T: Serialize + ?Sized>(value: &T, wrapped: bool) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(v) if wrapped => CallToolResult::structured(serde_json::json!({ "result": v })),
        Ok(v) => CallToolResult::structured(v),
        Err(e) => CallToolResult::error(format!("the tool's result could not be serialized: {e}")),
    }
}

/// A value a tool returned, waiting to be converted; see the [module docs](self).
#[doc(hidden)]
pub struct Returned<T>(Cell<Option<T>>);

impl<T> Returned<T> {
    /// Wraps a value a tool returned.
    pub fn new(value: T) -> Self {
        Returned(Cell::new(Some(value)))
    }
    fn take(&self) -> T {
        self.0.take().expect("a returned value is converted once")
    }
}

/// First choice of the dispatch: content types (`(&Returned(v)).to_call_tool_result(..)` finds it by value).
#[doc(hidden)]
pub trait ContentReturn {
    /// The value as content blocks (`wrapped` is unused).
    fn to_call_tool_result(&self, wrapped: bool) -> CallToolResult;
}
impl<T: IntoContent> ContentReturn for Returned<T> {
    fn to_call_tool_result(&self, _wrapped: bool) -> CallToolResult {
        self.take().into_call_tool_result()
    }
}

/// Second choice (one more autoref): structured output.
#[doc(hidden)]
pub trait StructuredReturn {
    /// The value as structured content, wrapped as `{"result": value}` when `wrapped`.
    fn to_call_tool_result(&self, wrapped: bool) -> CallToolResult;
}
impl<T: Serialize + JsonSchema> StructuredReturn for &Returned<T> {
    fn to_call_tool_result(&self, wrapped: bool) -> CallToolResult {
        structured(&self.take(), wrapped)
    }
}

/// The same dispatch on a type alone, for the tool's `outputSchema`.
#[doc(hidden)]
pub struct SchemaProbe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> SchemaProbe<T> {
    /// The probe of `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        SchemaProbe(PhantomData)
    }
}

#[doc(hidden)]
pub trait ContentProbe {
    /// `None`: content types have no output schema.
    fn output_schema(&self, profile: SchemaProfile) -> Option<OutputSchema>;
}
impl<T: IntoContent> ContentProbe for SchemaProbe<T> {
    fn output_schema(&self, _profile: SchemaProfile) -> Option<OutputSchema> {
        None
    }
}

#[doc(hidden)]
pub trait StructuredProbe {
    /// The output schema of `T`, shaped by `profile`.
    fn output_schema(&self, profile: SchemaProfile) -> Option<OutputSchema>;
}
impl<T: Serialize + JsonSchema> StructuredProbe for &SchemaProbe<T> {
    fn output_schema(&self, profile: SchemaProfile) -> Option<OutputSchema> {
        Some(profile.output_schema::<T>())
    }
}

/// The error type of a tool returning `Result<T, E>`.
#[diagnostic::on_unimplemented(
    message = "the tool's error type `{Self}` does not implement `Display`",
    label = "`Err` values become the text of an `isError` result, so `{Self}` needs `Display`",
    note = "implement `std::fmt::Display` (for example with `thiserror`), or return `anyhow::Result<T>`"
)]
pub trait ToolError {
    /// The `isError: true` result the error becomes (its `Display` text, for `E: Display`).
    fn into_error_result(self) -> CallToolResult;
}
impl<E: Display> ToolError for E {
    fn into_error_result(self) -> CallToolResult {
        CallToolResult::error(self.to_string())
    }
}

/// An `Err` returned by a tool: `isError: true` with the error's text.
pub fn error_result<E: ToolError>(e: E) -> CallToolResult {
    e.into_error_result()
}

/// What a `#[prompt]` function may return: `GetPromptResult`, `Vec<PromptMessage>`, one `PromptMessage`,
/// a `String` (one user message), or a `Result` of these whose `Err` becomes an internal error.
pub trait IntoPromptResult {
    /// The prompt result, or the JSON-RPC error `prompts/get` answers with.
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject>;
}
impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(self)
    }
}
impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult {
            description: None,
            messages: self,
            meta: None,
        })
    }
}
impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        vec![self].into_prompt_result()
    }
}
impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        PromptMessage::user(self).into_prompt_result()
    }
}
impl<T: IntoPromptResult, E: Display> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        self.map_err(|e| ErrorObject::internal(e.to_string()))?
            .into_prompt_result()
    }
}

/// What a `#[resource]` function may return: a `String` (text at the read URI, with the declared
/// `mime_type`), `ResourceContents`, `Vec<ResourceContents>`, `ReadResourceResult`, or a `Result` of
/// these whose `Err` becomes an internal error.
pub trait IntoResourceResult {
    /// The `resources/read` result for `uri`, with `mime_type` the resource's declared type; or the JSON-RPC
    /// error the read answers with.
    fn into_resource_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject>;
}
impl IntoResourceResult for ReadResourceResult {
    fn into_resource_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        Ok(self)
    }
}
impl IntoResourceResult for Vec<ResourceContents> {
    fn into_resource_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        Ok(ReadResourceResult {
            contents: self,
            cache: None,
            meta: None,
        })
    }
}
impl IntoResourceResult for ResourceContents {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        vec![self].into_resource_result(uri, mime)
    }
}
impl IntoResourceResult for String {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        ResourceContents::text(uri, mime, self).into_resource_result(uri, mime)
    }
}
impl<T: IntoResourceResult, E: Display> IntoResourceResult for Result<T, E> {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        self.map_err(|e| ErrorObject::internal(e.to_string()))?
            .into_resource_result(uri, mime)
    }
}

/// Reads a string argument (of a prompt, or a URI template variable) as `T`.
#[doc(hidden)]
pub struct StringArg;

impl StringArg {
    /// The argument `name`, parsed; `-32602` when it is missing or does not parse.
    pub fn required<T: StringArgument>(
        name: &str,
        value: Option<&String>,
    ) -> Result<T, ErrorObject> {
        let value = value.ok_or_else(|| {
            ErrorObject::invalid_params(format!("Invalid params: missing argument `{name}`"))
        })?;
        T::parse_argument(value)
            .map_err(|e| ErrorObject::invalid_params(format!("Invalid argument `{name}`: {e}")))
    }

    /// The argument `name`, parsed when present; `-32602` when it does not parse.
    pub fn optional<T: StringArgument>(
        name: &str,
        value: Option<&String>,
    ) -> Result<Option<T>, ErrorObject> {
        value.map(|_| Self::required(name, value)).transpose()
    }
}

/// Checks a prompt or URI-template argument can be parsed from its string value.
#[diagnostic::on_unimplemented(
    message = "the argument type `{Self}` cannot be parsed from a string",
    label = "`{Self}` does not implement `FromStr`",
    note = "prompt arguments and URI template variables are strings: use `String`, `Option<String>` or a type implementing `FromStr`"
)]
pub trait StringArgument: Sized {
    /// Parses the argument's string value; `Err` says why it is not a valid `Self`.
    fn parse_argument(s: &str) -> Result<Self, String>;
}
impl<T: std::str::FromStr> StringArgument for T
where
    T::Err: std::fmt::Display,
{
    fn parse_argument(s: &str) -> Result<Self, String> {
        s.parse().map_err(|e: T::Err| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, JsonSchema)]
    struct Point {
        x: i32,
    }

    // The borrows select the impl by autoref, exactly as the macro's expansion does.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn content_types_win_over_structured() {
        let r = (&Returned::new(String::from("hi"))).to_call_tool_result(false);
        assert_eq!(r, CallToolResult::text("hi"));
        assert!((&SchemaProbe::<String>::new())
            .output_schema(SchemaProfile::Portable)
            .is_none());
    }

    #[test]
    fn structured_values_carry_a_text_copy_and_are_wrapped_when_not_objects() {
        let r = (&Returned::new(Point { x: 1 })).to_call_tool_result(false);
        assert_eq!(r.structured_content, Some(json!({"x": 1})));
        assert_eq!(r.text_content(), r#"{"x":1}"#);
        let out = (&SchemaProbe::<Vec<u8>>::new())
            .output_schema(SchemaProfile::Portable)
            .unwrap();
        assert!(out.wrapped);
        let r = (&Returned::new(vec![1u8, 2])).to_call_tool_result(out.wrapped);
        assert_eq!(r.structured_content, Some(json!({"result": [1, 2]})));
    }

    #[test]
    fn errors_are_tool_errors() {
        let r = error_result("no such project");
        assert!(r.is_error());
        assert_eq!(r.text_content(), "no such project");
    }
}
