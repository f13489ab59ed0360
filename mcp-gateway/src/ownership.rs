//! Which upstream serves an item the gateway lists (a tool or prompt by its exposed name, a resource
//! or template by its URI), for the rules that name upstreams ([`crate::authz`]).

use crate::gateway::Inner;
use mcp_runtime::server::Listed;

impl Inner {
    /// The name of the upstream that serves `item` (`None`: a composite tool, or nothing).
    pub(crate) fn owner(&self, item: Listed<'_>) -> Option<String> {
        let lock = |m: &'_ std::sync::Mutex<crate::names::NameTable>, n: &str| {
            let t = m.lock().unwrap_or_else(|e| e.into_inner());
            t.resolve(n).map(|t| t.upstream)
        };
        let i = match item {
            Listed::Tool(n) => lock(&self.names, n)?,
            Listed::Prompt(n) => lock(&self.prompt_names, n)?,
            Listed::Resource(u) | Listed::ResourceTemplate(u) => {
                let listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
                listed
                    .iter()
                    .position(|l| l.resources.iter().chain(&l.templates).any(|r| r == u))?
            }
        };
        self.upstream(i).map(|u| u.config.name.clone())
    }
}
