//! Resources: fixed URIs and RFC 6570 templates, with their read handlers.

use super::registry::Keyed;
use super::tools::ToolRoute;
use super::Context;
use crate::future::BoxFuture;
use crate::protocol::{CacheHints, ErrorObject, ReadResourceResult, Resource, ResourceTemplate};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

/// Variables taken from a URI by a template (empty for a fixed resource).
pub type UriVars = BTreeMap<String, String>;

/// Reads a resource. Implemented for `Fn(String, UriVars, Context) -> impl Future` closures.
pub trait ResourceHandler: Send + Sync + 'static {
    /// Reads `uri` (for a template, `vars` holds the values its variables matched). An `Err` is sent as the
    /// JSON-RPC error of `resources/read`.
    fn read(
        &self,
        uri: String,
        vars: UriVars,
        ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, ErrorObject>>;
}

impl<F, Fut> ResourceHandler for F
where
    F: Fn(String, UriVars, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ReadResourceResult, ErrorObject>> + Send + 'static,
{
    fn read(
        &self,
        uri: String,
        vars: UriVars,
        ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, ErrorObject>> {
        Box::pin(self(uri, vars, ctx))
    }
}

/// A resource with the handler that reads it: what a server registers.
#[derive(Clone)]
pub struct ResourceRoute {
    /// The resource as `resources/list` shows it; its `uri` is the key.
    pub resource: Resource,
    /// Reads the resource.
    pub handler: Arc<dyn ResourceHandler>,
    /// Caching hints of this resource in a 2026-07-28 `resources/list` and of its `resources/read`
    /// results (a handler may still set its own on a result); `None`: the server's.
    pub cache: Option<CacheHints>,
}

impl ResourceRoute {
    /// A resource read by `handler`, with the server's caching hints.
    pub fn new(resource: Resource, handler: impl ResourceHandler) -> Self {
        ResourceRoute {
            resource,
            handler: Arc::new(handler),
            cache: None,
        }
    }

    /// Sets the caching hints of this resource (2026-07-28).
    pub fn cache(mut self, hints: CacheHints) -> Self {
        self.cache = Some(hints);
        self
    }
}

/// A resource template with the handler that reads the URIs it matches: what a server registers.
#[derive(Clone)]
pub struct ResourceTemplateRoute {
    /// The template as `resources/templates/list` shows it; its `uri_template` is the key.
    pub template: ResourceTemplate,
    pub(crate) parsed: Arc<UriTemplate>,
    /// Reads a URI the template matched, with the variables it took.
    pub handler: Arc<dyn ResourceHandler>,
    /// Caching hints of this template in `resources/templates/list` and of the reads it serves.
    pub cache: Option<CacheHints>,
}

impl ResourceTemplateRoute {
    /// `Err` when the template is not one we can match.
    pub fn new(template: ResourceTemplate, handler: impl ResourceHandler) -> Result<Self, String> {
        let parsed = UriTemplate::parse(&template.uri_template)?;
        Ok(ResourceTemplateRoute {
            template,
            parsed: Arc::new(parsed),
            handler: Arc::new(handler),
            cache: None,
        })
    }

    /// Sets the caching hints of this template and of the reads it serves (2026-07-28).
    pub fn cache(mut self, hints: CacheHints) -> Self {
        self.cache = Some(hints);
        self
    }
}

impl Keyed for ResourceRoute {
    fn key(&self) -> &str {
        &self.resource.uri
    }
}
impl Keyed for ResourceTemplateRoute {
    fn key(&self) -> &str {
        &self.template.uri_template
    }
}
impl Keyed for ToolRoute {
    fn key(&self) -> &str {
        &self.tool.name
    }
}

/// An RFC 6570 template, levels 1 and 2 plus query expansion: `{var}` matches one path segment,
/// `{+var}` and `{#var}` match anything, `{?a,b}` matches a query string.
#[derive(Debug, Clone, PartialEq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Var { name: String, reserved: bool },
    Query(Vec<String>),
}

impl UriTemplate {
    /// Parses a template; `Err` names what is wrong (an unclosed `{`, an operator beyond level 2, an empty
    /// variable name...).
    pub fn parse(t: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = t;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_string()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("unclosed `{{` in URI template `{t}`"))?
                + open;
            let expr = &rest[open + 1..close];
            let (op, names) = match expr.chars().next() {
                Some(c @ ('+' | '#' | '?' | '&' | '/' | '.' | ';')) => (Some(c), &expr[1..]),
                _ => (None, expr),
            };
            let names: Vec<String> = names
                .split(',')
                .map(|n| n.trim_end_matches('*').to_string())
                .collect();
            if names.iter().any(|n| {
                n.is_empty()
                    || !n
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            }) {
                return Err(format!("bad variable in URI template `{t}`: `{{{expr}}}`"));
            }
            match op {
                None | Some('+') | Some('#') if names.len() == 1 => {
                    if op == Some('#') {
                        parts.push(Part::Literal("#".into()));
                    }
                    parts.push(Part::Var {
                        name: names[0].clone(),
                        reserved: op.is_some(),
                    })
                }
                Some('?') | Some('&') => parts.push(Part::Query(names)),
                _ => {
                    return Err(format!(
                        "unsupported expression `{{{expr}}}` in URI template `{t}`"
                    ))
                }
            }
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_string()));
        }
        Ok(UriTemplate { parts })
    }

    /// The variables of a URI this template matches.
    pub fn matches(&self, uri: &str) -> Option<UriVars> {
        let mut vars = UriVars::new();
        let mut rest = uri;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(l) => rest = rest.strip_prefix(l.as_str())?,
                Part::Var { name, reserved } => {
                    // Up to the next literal (or the end).
                    let end = match self.parts.get(i + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        Some(Part::Query(_)) => rest.find('?').unwrap_or(rest.len()),
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || (!reserved && value.contains('/')) {
                        return None;
                    }
                    vars.insert(name.clone(), percent_decode(value));
                    rest = &rest[end..];
                }
                Part::Query(names) => {
                    let q = match rest.strip_prefix('?').or_else(|| rest.strip_prefix('&')) {
                        Some(q) => q,
                        None if rest.is_empty() => "",
                        None => return None,
                    };
                    for pair in q.split('&').filter(|p| !p.is_empty()) {
                        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                        if names.iter().any(|n| n == k) {
                            vars.insert(k.to_string(), percent_decode(v));
                        }
                    }
                    rest = "";
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_variable_matches_one_segment() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        let v = t.matches("test://template/123/data").unwrap();
        assert_eq!(v["id"], "123");
        assert!(t.matches("test://template/1/2/data").is_none());
        assert!(t.matches("test://other/1/data").is_none());
    }

    #[test]
    fn reserved_and_query() {
        let t = UriTemplate::parse("file:///{+path}{?rev}").unwrap();
        let v = t.matches("file:///a/b%20c.txt?rev=7").unwrap();
        assert_eq!(v["path"], "a/b c.txt");
        assert_eq!(v["rev"], "7");
    }

    #[test]
    fn bad_templates_are_rejected() {
        assert!(UriTemplate::parse("x://{unclosed").is_err());
        assert!(UriTemplate::parse("x://{a b}").is_err());
    }
}
