//! What `#[tool]` generates next to a function: a tool definition a server registers in one line.

use super::{OutputSchema, SchemaProfile};
use crate::protocol::JsonObject;
use crate::server::ToolRoute;
use std::sync::OnceLock;

/// A tool made by `#[tool]`, not yet rendered in a schema profile. Register it with
/// `Server::builder().tool(search_jira_tool())` (the portable profile), or choose the profile:
/// `.tool(search_jira_tool().profile(SchemaProfile::Full))`.
pub struct ToolDef {
    build: Box<dyn FnOnce(SchemaProfile) -> ToolRoute + Send>,
}

impl ToolDef {
    #[doc(hidden)]
    pub fn new(build: impl FnOnce(SchemaProfile) -> ToolRoute + Send + 'static) -> Self {
        ToolDef {
            build: Box::new(build),
        }
    }

    /// The route with its schemas in the given profile.
    pub fn profile(self, profile: SchemaProfile) -> ToolRoute {
        (self.build)(profile)
    }
}

impl From<ToolDef> for ToolRoute {
    fn from(def: ToolDef) -> ToolRoute {
        def.profile(SchemaProfile::default())
    }
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolDef")
    }
}

/// The schemas of one tool, generated on first use in each profile and kept for the process.
#[doc(hidden)]
pub struct SchemaCache {
    portable: OnceLock<(JsonObject, Option<OutputSchema>)>,
    full: OnceLock<(JsonObject, Option<OutputSchema>)>,
}

impl SchemaCache {
    /// An empty cache; the schemas are made on first use.
    pub const fn new() -> Self {
        SchemaCache {
            portable: OnceLock::new(),
            full: OnceLock::new(),
        }
    }

    /// The schemas of `profile`, made by `make` the first time and kept after.
    pub fn get(
        &self,
        profile: SchemaProfile,
        make: impl FnOnce(SchemaProfile) -> (JsonObject, Option<OutputSchema>),
    ) -> &(JsonObject, Option<OutputSchema>) {
        let cell = match profile {
            SchemaProfile::Portable => &self.portable,
            SchemaProfile::Full => &self.full,
        };
        cell.get_or_init(|| make(profile))
    }
}

impl Default for SchemaCache {
    fn default() -> Self {
        Self::new()
    }
}
