//! Per-caller authorization (`gateway.rules`): which tools, prompts, resources and templates each caller
//! of the HTTP front sees and may use, decided from the identity the runtime's resource server verified
//! (`gateway.auth`, see [`crate::auth`]): its scopes and its claims.
//!
//! - **Rules.** Each rule has a condition (`when`: every test must hold; none: every caller) and names it
//!   `allow`s and `deny`s: `tools`, `prompts` (names as clients see them, with `*` and `?` globs),
//!   `resources` (URIs and URI templates, globs too) and `upstreams` (everything an upstream serves, by
//!   its key in `mcpServers`). A test is `{"scope": "s"}`, `{"claim": "groups", "contains": "admin"}`
//!   (an array claim holds the value, or a string claim's words do) or `{"claim": "role", "equals":
//!   "ops"}` (any JSON value); a claim name may be a dotted path (`realm_access.roles`).
//! - **Decision.** With rules, an item is visible to a caller when a rule whose condition it meets
//!   allows it and none whose condition it meets denies it (deny wins; nothing allowed is nothing
//!   seen). Without rules everything is visible, as before.
//! - **Enforcement.** The runtime's server applies the decision ([`mcp_runtime::server::Visibility`]):
//!   what a caller may not see is absent from its lists and their pages (lists are then marked
//!   `private` for caches), and a call, get, read or completion of it is answered exactly as one of an
//!   unknown name (`-32602 Unknown tool: x`). A reload applies new rules at once and tells clients
//!   their lists changed.

use mcp_runtime::server::Listed;
use mcp_runtime::AuthInfo;
use serde_json::Value;
use std::sync::{Arc, RwLock};

/// `gateway.rules`, checked.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rules {
    /// In file order (order does not change the decision).
    pub rules: Vec<Rule>,
}

/// One rule: who it applies to, and what it allows and denies them.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Every test must hold (none: every caller, authenticated or not).
    pub when: Vec<Test>,
    pub allow: Names,
    pub deny: Names,
}

/// A test of the caller's identity.
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// The token grants this scope.
    Scope(String),
    /// The claim at this path equals the value.
    ClaimEquals(Vec<String>, Value),
    /// The claim at this path (an array, or a string of words) holds the value.
    ClaimContains(Vec<String>, String),
}

/// Names a rule allows or denies.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Names {
    pub tools: Vec<Glob>,
    pub prompts: Vec<Glob>,
    pub resources: Vec<Glob>,
    /// Upstreams by their key in `mcpServers`: everything they serve.
    pub upstreams: Vec<String>,
}

/// A name pattern: `*` any run of characters, `?` one character, anything else itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Glob(String);

impl Glob {
    pub fn new(pattern: &str) -> Glob {
        Glob(pattern.to_string())
    }

    /// Whether `text` matches the whole pattern.
    pub fn matches(&self, text: &str) -> bool {
        let (p, t): (Vec<char>, Vec<char>) = (self.0.chars().collect(), text.chars().collect());
        // The classic two-pointer match with backtracking to the last `*`: linear in practice.
        let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
        while j < t.len() {
            if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
                i += 1;
                j += 1;
            } else if i < p.len() && p[i] == '*' {
                star = Some(i);
                mark = j;
                i += 1;
            } else if let Some(s) = star {
                i = s + 1;
                mark += 1;
                j = mark;
            } else {
                return false;
            }
        }
        p[i..].iter().all(|c| *c == '*')
    }
}

impl Test {
    fn holds(&self, caller: Option<&AuthInfo>) -> bool {
        let Some(c) = caller else { return false };
        match self {
            Test::Scope(s) => c.has_scope(s),
            Test::ClaimEquals(path, v) => claim(c, path) == Some(v),
            Test::ClaimContains(path, v) => match claim(c, path) {
                Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(v)),
                Some(Value::String(s)) => s.split_whitespace().any(|w| w == v),
                _ => false,
            },
        }
    }
}

fn claim<'a>(c: &'a AuthInfo, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(c.claims.get(first)?, |v, k| v.as_object()?.get(k))
}

impl Names {
    fn has(&self, item: Listed<'_>, owner: &dyn Fn() -> Option<String>) -> bool {
        let by_name = match item {
            Listed::Tool(n) => self.tools.iter().any(|g| g.matches(n)),
            Listed::Prompt(n) => self.prompts.iter().any(|g| g.matches(n)),
            Listed::Resource(u) | Listed::ResourceTemplate(u) => {
                self.resources.iter().any(|g| g.matches(u))
            }
        };
        by_name
            || (!self.upstreams.is_empty() && owner().is_some_and(|o| self.upstreams.contains(&o)))
    }

    fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.prompts.is_empty()
            && self.resources.is_empty()
            && self.upstreams.is_empty()
    }
}

impl Rules {
    /// Whether `caller` may see `item`; `owner` names the upstream that serves it (asked only when a
    /// rule names upstreams).
    pub fn visible(
        &self,
        item: Listed<'_>,
        caller: Option<&AuthInfo>,
        owner: &dyn Fn() -> Option<String>,
    ) -> bool {
        let mut allowed = false;
        for r in &self.rules {
            if !r.when.iter().all(|t| t.holds(caller)) {
                continue;
            }
            if r.deny.has(item, owner) {
                return false;
            }
            allowed = allowed || r.allow.has(item, owner);
        }
        allowed
    }

    /// Reads `gateway.rules` (a JSON array); a problem names the rule and key (`gateway.rules[1].when[0]`).
    pub fn parse(v: &Value, upstreams: &[&str]) -> Result<Rules, (String, String)> {
        let at = |p: String, why: &str| (p, why.to_string());
        let Value::Array(list) = v else {
            return Err(at("gateway.rules".into(), "must be an array of rules"));
        };
        let mut rules = Vec::with_capacity(list.len());
        for (i, r) in list.iter().enumerate() {
            let place = format!("gateway.rules[{i}]");
            let Value::Object(o) = r else {
                return Err(at(
                    place,
                    "a rule is an object with `when`, `allow`, `deny`",
                ));
            };
            if let Some(k) = o
                .keys()
                .find(|k| !["when", "allow", "deny"].contains(&k.as_str()))
            {
                return Err(at(
                    format!("{place}.{k}"),
                    "unknown key (a rule has `when`, `allow`, `deny`)",
                ));
            }
            let when = match o.get("when") {
                None => Vec::new(),
                Some(Value::Array(ts)) => ts
                    .iter()
                    .enumerate()
                    .map(|(j, t)| test(&format!("{place}.when[{j}]"), t))
                    .collect::<Result<_, _>>()?,
                Some(t @ Value::Object(_)) => vec![test(&format!("{place}.when"), t)?],
                Some(_) => {
                    return Err(at(
                        format!("{place}.when"),
                        "must be a test or an array of tests",
                    ))
                }
            };
            let allow = names(&format!("{place}.allow"), o.get("allow"), upstreams)?;
            let deny = names(&format!("{place}.deny"), o.get("deny"), upstreams)?;
            if allow.is_empty() && deny.is_empty() {
                return Err(at(
                    place,
                    "allows and denies nothing: give `allow` or `deny`",
                ));
            }
            rules.push(Rule { when, allow, deny });
        }
        Ok(Rules { rules })
    }
}

fn test(place: &str, t: &Value) -> Result<Test, (String, String)> {
    let err = |why: &str| Err((place.to_string(), why.to_string()));
    let Value::Object(o) = t else {
        return err("a test is an object: {\"scope\": ...} or {\"claim\": ..., \"equals\"|\"contains\": ...}");
    };
    let path = |c: &str| -> Result<Vec<String>, (String, String)> {
        if c.is_empty() || c.split('.').any(str::is_empty) {
            return Err((
                format!("{place}.claim"),
                format!("`{c}` is not a claim name or dotted path"),
            ));
        }
        Ok(c.split('.').map(str::to_string).collect())
    };
    let keys: Vec<&str> = o.keys().map(String::as_str).collect();
    match (o.get("scope"), o.get("claim"), keys.len()) {
        (Some(Value::String(s)), None, 1) if !s.is_empty() => Ok(Test::Scope(s.clone())),
        (Some(_), None, 1) => err("`scope` must be a non-empty string"),
        (None, Some(Value::String(c)), 2) => match (o.get("equals"), o.get("contains")) {
            (Some(v), None) => Ok(Test::ClaimEquals(path(c)?, v.clone())),
            (None, Some(Value::String(v))) => Ok(Test::ClaimContains(path(c)?, v.clone())),
            (None, Some(_)) => err("`contains` must be a string"),
            _ => err("a claim test has `equals` or `contains` beside `claim`"),
        },
        (None, Some(_), _) => err("`claim` must be a string, with `equals` or `contains` beside it"),
        _ => err(&format!(
            "`{}` is not a test: {{\"scope\": ...}} or {{\"claim\": ..., \"equals\"|\"contains\": ...}}",
            keys.join("`, `")
        )),
    }
}

fn names(place: &str, v: Option<&Value>, upstreams: &[&str]) -> Result<Names, (String, String)> {
    let mut n = Names::default();
    let Some(v) = v else { return Ok(n) };
    let Value::Object(o) = v else {
        return Err((
            place.into(),
            "must be an object of `tools`, `prompts`, `resources`, `upstreams`".into(),
        ));
    };
    for (k, list) in o {
        let at = format!("{place}.{k}");
        let Some(items) = list.as_array() else {
            return Err((at, "must be an array of strings".into()));
        };
        let mut strings = Vec::with_capacity(items.len());
        for (i, s) in items.iter().enumerate() {
            match s.as_str() {
                Some(s) if !s.is_empty() => strings.push(s.to_string()),
                _ => return Err((format!("{at}[{i}]"), "must be a non-empty string".into())),
            }
        }
        let globs = || strings.iter().map(|s| Glob::new(s)).collect();
        match k.as_str() {
            "tools" => n.tools = globs(),
            "prompts" => n.prompts = globs(),
            "resources" => n.resources = globs(),
            "upstreams" => {
                if let Some((i, u)) = strings
                    .iter()
                    .enumerate()
                    .find(|(_, u)| !upstreams.contains(&u.as_str()))
                {
                    return Err((
                        format!("{at}[{i}]"),
                        format!(
                            "`{u}` is not a server of mcpServers ({})",
                            upstreams.join(", ")
                        ),
                    ));
                }
                n.upstreams = strings;
            }
            _ => {
                return Err((
                    at,
                    "unknown key (`tools`, `prompts`, `resources`, `upstreams`)".into(),
                ))
            }
        }
    }
    Ok(n)
}

/// The rules running now, shared by the server's visibility and reloads.
pub struct Authz {
    rules: RwLock<Arc<Option<Rules>>>,
}

impl Authz {
    pub(crate) fn new(rules: Option<Rules>) -> Arc<Authz> {
        Arc::new(Authz {
            rules: RwLock::new(Arc::new(rules)),
        })
    }

    /// Replaces the rules; returns whether they changed.
    pub(crate) fn set(&self, rules: Option<Rules>) -> bool {
        let mut cur = self.rules.write().unwrap_or_else(|e| e.into_inner());
        if **cur == rules {
            return false;
        }
        *cur = Arc::new(rules);
        true
    }

    fn current(&self) -> Arc<Option<Rules>> {
        self.rules.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The server's [`Visibility`](mcp_runtime::server::Visibility): these rules, with `owner` naming
    /// the upstream that serves an item (the gateway's tables, see `ownership.rs`).
    pub(crate) fn visibility(
        self: &Arc<Self>,
        owner: impl Fn(Listed<'_>) -> Option<String> + Send + Sync + 'static,
    ) -> impl Fn(Listed<'_>, Option<&AuthInfo>) -> bool + Send + Sync + 'static {
        let me = self.clone();
        move |item: Listed<'_>, caller: Option<&AuthInfo>| {
            let rules = me.current();
            let Some(rules) = rules.as_ref() else {
                return true;
            };
            rules.visible(item, caller, &|| owner(item))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caller(scopes: &[&str], claims: Value) -> AuthInfo {
        AuthInfo {
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            claims: claims.as_object().cloned().unwrap_or_default(),
            ..Default::default()
        }
    }

    #[test]
    fn globs_match_whole_names() {
        let g = Glob::new("github_*");
        assert!(g.matches("github_search") && g.matches("github_"));
        assert!(!g.matches("gh_search") && !g.matches("xgithub_a"));
        assert!(Glob::new("a?c*d").matches("abcxxd"));
        assert!(!Glob::new("a?c").matches("ac"));
        assert!(Glob::new("*").matches(""));
    }

    #[test]
    fn allow_by_scope_and_claim_deny_wins() {
        let rules = Rules::parse(
            &json!([
                {"when": {"scope": "tools:read"}, "allow": {"tools": ["github_*"]}},
                {"when": [{"claim": "groups", "contains": "admin"}], "allow": {"tools": ["*"], "upstreams": ["ops"]}},
                {"when": {"claim": "org.role", "equals": "intern"}, "deny": {"tools": ["*_delete"]}},
            ]),
            &["ops"],
        )
        .unwrap();
        let none = || None;
        let ops = || Some("ops".to_string());
        let reader = caller(&["tools:read"], json!({}));
        let admin = caller(&[], json!({"groups": ["admin"]}));
        let intern = caller(&[], json!({"groups": ["admin"], "org": {"role": "intern"}}));
        let t = Listed::Tool;
        assert!(rules.visible(t("github_search"), Some(&reader), &none));
        assert!(!rules.visible(t("shell_run"), Some(&reader), &none));
        assert!(!rules.visible(t("github_search"), None, &none));
        assert!(rules.visible(t("shell_run"), Some(&admin), &none));
        assert!(rules.visible(Listed::Prompt("p"), Some(&admin), &ops));
        assert!(!rules.visible(Listed::Prompt("p"), Some(&admin), &none));
        assert!(!rules.visible(t("repo_delete"), Some(&intern), &none));
        assert!(rules.visible(t("repo_list"), Some(&intern), &none));
    }

    #[test]
    fn bad_rules_name_the_place() {
        let bad = |v: Value| Rules::parse(&v, &["gh"]).unwrap_err();
        assert_eq!(bad(json!({})).0, "gateway.rules");
        let (p, why) =
            bad(json!([{"when": {"claim": "groups", "has": "x"}, "allow": {"tools": ["*"]}}]));
        assert_eq!(p, "gateway.rules[0].when");
        assert!(why.contains("equals"), "{why}");
        let (p, why) = bad(json!([{"allow": {"upstreams": ["nope"]}}]));
        assert_eq!(p, "gateway.rules[0].allow.upstreams[0]");
        assert!(why.contains("gh"), "{why}");
        assert_eq!(
            bad(json!([{"allow": {"tool": ["x"]}}])).0,
            "gateway.rules[0].allow.tool"
        );
        assert_eq!(
            bad(json!([{"when": [{"scope": ""}], "allow": {"tools": ["x"]}}])).0,
            "gateway.rules[0].when[0]"
        );
        assert_eq!(bad(json!([{"when": []}])).0, "gateway.rules[0]");
        assert_eq!(
            bad(json!([{"allow": {"tools": [""]}}])).0,
            "gateway.rules[0].allow.tools[0]"
        );
        assert_eq!(bad(json!([{"alow": {}}])).0, "gateway.rules[0].alow");
    }
}
