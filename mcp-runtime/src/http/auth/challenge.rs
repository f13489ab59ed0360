//! `WWW-Authenticate` challenges (RFC 6750 `Bearer`, RFC 9449 `DPoP`): what the resource server wants.

use reqwest::header::{HeaderMap, WWW_AUTHENTICATE};

/// The parameters of one challenge.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// `DPoP` rather than `Bearer`: the resource wants sender-constrained tokens.
    pub(crate) dpop: bool,
    pub(crate) resource_metadata: Option<String>,
    pub(crate) scope: Option<String>,
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// The first `Bearer` or `DPoP` challenge of a response (a `DPoP` one wins when both are offered).
    pub(crate) fn from_headers(h: &HeaderMap) -> Challenge {
        let all: Vec<Challenge> = h
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(Challenge::parse)
            .collect();
        all.iter()
            .find(|c| c.dpop)
            .or_else(|| all.first())
            .cloned()
            .unwrap_or_default()
    }

    pub(crate) fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    pub(crate) fn wants_nonce(&self) -> bool {
        self.error.as_deref() == Some("use_dpop_nonce")
    }

    /// `Bearer k="v", k2=v2` or `DPoP ...` (quoted values may hold commas and escaped quotes). `None` for
    /// other schemes.
    pub(crate) fn parse(s: &str) -> Option<Challenge> {
        let rest = s.trim_start();
        let (scheme, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        let mut c = Challenge::default();
        if scheme.eq_ignore_ascii_case("dpop") {
            c.dpop = true;
        } else if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        let mut chars = rest.chars().peekable();
        loop {
            while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
                chars.next();
            }
            let key: String =
                std::iter::from_fn(|| chars.next_if(|c| *c != '=' && *c != ',')).collect();
            if chars.next() != Some('=') {
                if key.is_empty() {
                    break;
                }
                continue;
            }
            let mut value = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                while let Some(ch) = chars.next() {
                    match ch {
                        '\\' => value.extend(chars.next()),
                        '"' => break,
                        other => value.push(other),
                    }
                }
            } else {
                value = std::iter::from_fn(|| chars.next_if(|c| *c != ','))
                    .collect::<String>()
                    .trim()
                    .to_string();
            }
            match key.trim() {
                "resource_metadata" => c.resource_metadata = Some(value),
                "scope" => c.scope = Some(value),
                "error" => c.error = Some(value),
                _ => {}
            }
        }
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bearer_and_dpop_challenges() {
        let c = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp""#,
        )
        .unwrap();
        assert!(c.insufficient_scope());
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        let c = Challenge::parse(r#"Bearer realm=x, error_description="a, \"b\"""#).unwrap();
        assert_eq!(c, Challenge::default());
        assert_eq!(Challenge::parse("Basic realm=x"), None);
        let c = Challenge::parse(r#"DPoP error="use_dpop_nonce", resource_metadata="http://x/m""#)
            .unwrap();
        assert!(c.dpop && c.wants_nonce());
    }
}
