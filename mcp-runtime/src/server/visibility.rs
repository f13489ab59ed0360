//! What each caller may see: a server given a [`Visibility`] (see [`ServerBuilder::visibility`](
//! super::ServerBuilder::visibility)) lists to a caller only the tools, prompts, resources and templates
//! it passes for that caller's identity ([`AuthInfo`]), and answers a call, get or read of anything else
//! exactly as it answers one of something it does not have. A gateway's per-user rules are one.

use crate::identity::AuthInfo;

/// One thing a server lists, by the key clients name it with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed<'a> {
    /// A tool, by name.
    Tool(&'a str),
    /// A prompt, by name.
    Prompt(&'a str),
    /// A resource, by URI.
    Resource(&'a str),
    /// A resource template, by its URI template (a read through it is judged by the template too).
    ResourceTemplate(&'a str),
}

impl Listed<'_> {
    pub(crate) fn tool(k: &str) -> Listed<'_> {
        Listed::Tool(k)
    }
    pub(crate) fn prompt(k: &str) -> Listed<'_> {
        Listed::Prompt(k)
    }
    pub(crate) fn resource(k: &str) -> Listed<'_> {
        Listed::Resource(k)
    }
    pub(crate) fn resource_template(k: &str) -> Listed<'_> {
        Listed::ResourceTemplate(k)
    }
}

/// Decides, per caller, whether an item exists for it. `caller` is `None` for a request its transport
/// did not authenticate (stdio, or HTTP without a token verifier). Called once per listed item and once
/// per call, get or read: keep it cheap.
pub trait Visibility: Send + Sync + 'static {
    /// Whether `caller` may see (and so call, get or read) `item`.
    fn visible(&self, item: Listed<'_>, caller: Option<&AuthInfo>) -> bool;
}

impl<F> Visibility for F
where
    F: Fn(Listed<'_>, Option<&AuthInfo>) -> bool + Send + Sync + 'static,
{
    fn visible(&self, item: Listed<'_>, caller: Option<&AuthInfo>) -> bool {
        self(item, caller)
    }
}
