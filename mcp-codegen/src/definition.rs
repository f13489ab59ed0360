//! What normalization produces and typify consumes: a tool's schemas as a flat list of named definitions.
//! Below both `normalize.rs` and `inline_names.rs`, which rewrites the list's inline names.

use serde_json::Value;

/// One schema that becomes one named type.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// The type's name, unique among the tool's definitions.
    pub name: String,
    /// Where the schema came from in the tool (`/inputSchema/$defs/label`), for warnings.
    pub pointer: String,
    /// The schema, in the subset typify accepts.
    pub schema: Value,
}

/// A tool's schemas, ready for typify: roots first, then the definitions in the order they were found.
pub type Definitions = Vec<Definition>;
