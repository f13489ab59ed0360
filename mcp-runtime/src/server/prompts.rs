//! Prompts: definitions and their handlers.

use super::registry::Keyed;
use super::Context;
use crate::future::BoxFuture;
use crate::protocol::{CacheHints, ErrorObject, GetPromptResult, Prompt};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

/// Prompt arguments: strings by name.
pub type PromptArgs = BTreeMap<String, String>;

/// Renders a prompt. Implemented for `Fn(PromptArgs, Context) -> impl Future` closures.
pub trait PromptHandler: Send + Sync + 'static {
    /// Renders the prompt with these arguments (missing optional ones are absent). An `Err` is sent as the
    /// JSON-RPC error of `prompts/get`.
    fn get(
        &self,
        args: PromptArgs,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, ErrorObject>>;
}

impl<F, Fut> PromptHandler for F
where
    F: Fn(PromptArgs, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + Send + 'static,
{
    fn get(
        &self,
        args: PromptArgs,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, ErrorObject>> {
        Box::pin(self(args, ctx))
    }
}

/// A prompt with the handler that renders it: what a server registers.
#[derive(Clone)]
pub struct PromptRoute {
    /// The prompt as `prompts/list` shows it; its `name` is the key.
    pub prompt: Prompt,
    /// Renders the prompt.
    pub handler: Arc<dyn PromptHandler>,
    /// Caching hints this prompt gives a 2026-07-28 `prompts/list`; `None`: the server's.
    pub cache: Option<CacheHints>,
}

impl PromptRoute {
    /// A prompt rendered by `handler`, with the server's caching hints.
    pub fn new(prompt: Prompt, handler: impl PromptHandler) -> Self {
        PromptRoute {
            prompt,
            handler: Arc::new(handler),
            cache: None,
        }
    }

    /// Sets the caching hints this prompt gives `prompts/list` (2026-07-28).
    pub fn cache(mut self, hints: CacheHints) -> Self {
        self.cache = Some(hints);
        self
    }

    /// `-32602` naming the first required argument that is missing.
    pub(crate) fn check_required(&self, args: &PromptArgs) -> Result<(), ErrorObject> {
        for a in self.prompt.arguments.iter().flatten() {
            if a.required == Some(true) && !args.contains_key(&a.name) {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid params: prompt `{}` requires argument `{}`",
                    self.prompt.name, a.name
                ))
                .with_data(serde_json::json!({"field": format!("arguments.{}", a.name)})));
            }
        }
        Ok(())
    }
}

impl Keyed for PromptRoute {
    fn key(&self) -> &str {
        &self.prompt.name
    }
}
