//! The attributes: `#[tool(...)]` on a function and on its arguments, `#[prompt(...)]`, `#[resource(...)]`.

use darling::ast::NestedMeta;
use darling::util::SpannedValue;
use darling::FromMeta;
use proc_macro2::TokenStream;
use syn::{Attribute, Expr, ExprLit, Lit};

/// `#[tool(...)]` on a function or method.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ToolAttr {
    pub name: Option<SpannedValue<String>>,
    pub description: Option<String>,
    pub title: Option<String>,
    pub read_only: Option<SpannedValue<bool>>,
    pub destructive: Option<SpannedValue<bool>>,
    pub idempotent: Option<SpannedValue<bool>>,
    pub open_world: Option<bool>,
    /// 2026-07-28 caching hints this tool gives `tools/list`.
    pub ttl_ms: Option<SpannedValue<u64>>,
    pub cache_scope: Option<SpannedValue<String>>,
    /// `task` (the call may run as a task) or `task = "optional" | "required" | "forbidden"`.
    pub task: Option<TaskAttr>,
    /// Set by `#[tools]` on the methods it has already expanded.
    #[darling(rename = "__method")]
    pub method_marker: bool,
}

/// The `task` option of `#[tool]`: how the tool takes part in tasks (`execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskAttr {
    Forbidden,
    Optional,
    Required,
}

impl FromMeta for TaskAttr {
    fn from_word() -> darling::Result<Self> {
        Ok(TaskAttr::Optional)
    }
    fn from_string(value: &str) -> darling::Result<Self> {
        match value {
            "optional" => Ok(TaskAttr::Optional),
            "required" => Ok(TaskAttr::Required),
            "forbidden" => Ok(TaskAttr::Forbidden),
            other => Err(darling::Error::custom(format!(
                "unknown task support `{other}`: write `task` (optional), `task = \"optional\"`, `task = \"required\"` or `task = \"forbidden\"`"
            ))),
        }
    }
}

/// `#[prompt(...)]` on a function.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct PromptAttr {
    pub name: Option<SpannedValue<String>>,
    pub description: Option<String>,
    pub title: Option<String>,
    pub ttl_ms: Option<SpannedValue<u64>>,
    pub cache_scope: Option<SpannedValue<String>>,
}

/// `#[resource(...)]` on a function.
#[derive(Debug, FromMeta)]
pub struct ResourceAttr {
    pub uri: SpannedValue<String>,
    #[darling(default)]
    pub name: Option<String>,
    #[darling(default)]
    pub title: Option<String>,
    #[darling(default)]
    pub description: Option<String>,
    #[darling(default)]
    pub mime_type: Option<String>,
    #[darling(default)]
    pub ttl_ms: Option<SpannedValue<u64>>,
    #[darling(default)]
    pub cache_scope: Option<SpannedValue<String>>,
}

/// `#[tool(...)]` (or `#[prompt(...)]`) on an argument.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ArgAttr {
    pub default: Option<SpannedValue<DefaultValue>>,
    pub rename: Option<SpannedValue<String>>,
    pub description: Option<String>,
    /// `x-mcp-header`: the argument is mirrored into the HTTP header `Mcp-Param-{header}` (2026-07-28).
    pub header: Option<SpannedValue<String>>,
}

/// `default` (the type's `Default`) or `default = expr`.
#[derive(Debug, Clone)]
pub enum DefaultValue {
    Trait,
    Expr(Expr),
}

impl FromMeta for DefaultValue {
    fn from_word() -> darling::Result<Self> {
        Ok(DefaultValue::Trait)
    }
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(DefaultValue::Expr(expr.clone()))
    }
}

impl DefaultValue {
    pub fn is_string_literal(&self) -> bool {
        matches!(
            self,
            DefaultValue::Expr(Expr::Lit(ExprLit {
                lit: Lit::Str(_),
                ..
            }))
        )
    }
}

/// `ttl_ms = N` and `cache_scope = "public" | "private"`: the `.cache(...)` call on a route, or nothing.
pub fn cache_hints(
    ttl_ms: &Option<SpannedValue<u64>>,
    scope: &Option<SpannedValue<String>>,
    errors: &mut Errors,
) -> TokenStream {
    let scope_tokens = match scope {
        None => quote::quote!(::mcp_runtime::protocol::CacheScope::Public),
        Some(s) if s.as_str() == "public" => {
            quote::quote!(::mcp_runtime::protocol::CacheScope::Public)
        }
        Some(s) if s.as_str() == "private" => {
            quote::quote!(::mcp_runtime::protocol::CacheScope::Private)
        }
        Some(s) => {
            errors.push(syn::Error::new(
                s.span(),
                format!(
                    "`cache_scope` is \"public\" or \"private\", not {:?}",
                    s.as_str()
                ),
            ));
            return TokenStream::new();
        }
    };
    match (ttl_ms, scope) {
        (Some(ttl), _) => {
            let ttl = **ttl;
            quote::quote!(.cache(::mcp_runtime::protocol::CacheHints::new(#ttl, #scope_tokens)))
        }
        (None, Some(s)) => {
            errors.push(syn::Error::new(
                s.span(),
                "`cache_scope` needs `ttl_ms` beside it: how long the result stays fresh, in milliseconds",
            ));
            TokenStream::new()
        }
        (None, None) => TokenStream::new(),
    }
}

pub fn parse<T: FromMeta>(args: TokenStream) -> syn::Result<T> {
    let list = NestedMeta::parse_meta_list(args)?;
    T::from_list(&list).map_err(syn::Error::from)
}

/// Reads `#[<name>(...)]` from the attributes of an argument.
pub fn parse_arg(attrs: &[Attribute], name: &str) -> syn::Result<ArgAttr> {
    let mut errors = Errors::default();
    let mut out = ArgAttr::default();
    for a in attrs.iter().filter(|a| a.path().is_ident(name)) {
        match a.meta.require_list().and_then(|l| {
            let list = NestedMeta::parse_meta_list(l.tokens.clone())?;
            ArgAttr::from_list(&list).map_err(syn::Error::from)
        }) {
            Ok(parsed) => {
                out.default = parsed.default.or(out.default);
                out.rename = parsed.rename.or(out.rename);
                out.description = parsed.description.or(out.description);
                out.header = parsed.header.or(out.header);
            }
            Err(e) => errors.push(e),
        }
    }
    errors.finish()?;
    Ok(out)
}

/// Several errors reported together.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
    pub fn push_spanned(&mut self, tokens: impl quote::ToTokens, msg: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
    pub fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
