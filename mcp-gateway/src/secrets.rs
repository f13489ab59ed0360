//! Secrets given per upstream (the values of its `env` and `headers`) kept out of everything the gateway
//! says: tool results, JSON-RPC errors (an upstream's stderr tail rides in their `data`), health reports
//! and logs. Each occurrence becomes `[redacted]`.
//!
//! A value shorter than [`MIN_SECRET`] bytes is not treated as a secret: it cannot be told apart from
//! ordinary words (`NODE_ENV=production` must not blank out every "production"). A header value of the
//! form `Scheme credentials` (`Bearer abc…`) also hides the credentials alone.
//!
//! A per-user connection ([`crate::users`]) hides its own credentials besides its upstream's
//! ([`Secrets::with`]): the token it sends (the caller's, or one exchanged for it) and the env values
//! rendered from `${user.token}`, so that an upstream that echoes them gives nothing away.

use crate::config::{Transport, UpstreamConfig};
use mcp_runtime::protocol::{
    CallToolResult, ErrorObject, LoggingMessageParams, ProgressParams, RawCallToolResult,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::borrow::Cow;

/// Values shorter than this are not redacted (see the module docs).
pub const MIN_SECRET: usize = 8;

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// The secret values of one upstream, longest first (a secret that contains another is replaced whole).
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    values: Vec<String>,
}

impl Secrets {
    /// The secrets of an upstream: its `env` values (stdio) or `headers` values (HTTP, OpenAPI).
    pub fn of(config: &UpstreamConfig) -> Secrets {
        let mut s = Secrets::default();
        match &config.transport {
            Transport::Stdio { env, .. } => env.values().for_each(|v| s.add(v)),
            Transport::Http { headers, .. } | Transport::OpenApi { headers, .. } => {
                headers.values().for_each(|v| s.add_header(v))
            }
        }
        s.sort();
        s
    }

    /// These secrets and those of one connection's own credentials: `headers` values (a header value
    /// of the form `Scheme credentials` hides the credentials alone too) and `values`.
    pub fn with<'a>(
        &self,
        headers: impl IntoIterator<Item = &'a str>,
        values: impl IntoIterator<Item = &'a str>,
    ) -> Secrets {
        let mut s = self.clone();
        headers.into_iter().for_each(|v| s.add_header(v));
        values.into_iter().for_each(|v| s.add(v));
        s.sort();
        s
    }

    fn add(&mut self, v: &str) {
        let v = v.trim();
        if v.len() >= MIN_SECRET && !self.values.iter().any(|x| x == v) {
            self.values.push(v.to_string());
        }
    }

    fn add_header(&mut self, v: &str) {
        self.add(v);
        // `Bearer <token>`, `Basic <credentials>`: the credentials alone too.
        if let Some((_, credentials)) = v.trim().split_once(' ') {
            self.add(credentials);
        }
    }

    /// Longest first: a secret that contains another is replaced whole.
    fn sort(&mut self) {
        self.values
            .sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    }

    /// Whether there is nothing to hide (then every method here is free).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every secret replaced by [`REDACTED`]; borrowed when there is none in it.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for v in &self.values {
            if out.contains(v.as_str()) {
                out = Cow::Owned(out.replace(v.as_str(), REDACTED));
            }
        }
        out
    }

    /// A JSON-RPC error with its message and data redacted.
    pub fn redact_error(&self, mut e: ErrorObject) -> ErrorObject {
        if self.is_empty() {
            return e;
        }
        if let Cow::Owned(m) = self.redact(&e.message) {
            e.message = m;
        }
        if let Some(data) = e.data.take() {
            e.data = Some(self.redact_json(data));
        }
        e
    }

    /// A tool result with every string in it redacted (content blocks, structured content, `_meta`).
    /// Results without a secret in them are returned as they were.
    pub fn redact_result(&self, r: CallToolResult) -> CallToolResult {
        self.redact_answer(r).unwrap_or_else(withheld)
    }

    /// Any answer (a prompt, a read) with every string in it redacted, as it was when there is no
    /// secret in it; `None` when it held one and could not be rebuilt without it.
    pub fn redact_answer<T: Serialize + DeserializeOwned>(&self, r: T) -> Option<T> {
        if self.is_empty() {
            return Some(r);
        }
        let Ok(text) = serde_json::to_string(&r) else {
            return Some(r);
        };
        if !self
            .values
            .iter()
            .any(|v| text.contains(json_escaped(v).as_ref()))
        {
            return Some(r);
        }
        match serde_json::to_value(&r) {
            Ok(v) => serde_json::from_value(self.redact_json(v)).ok(),
            Err(_) => Some(r),
        }
    }

    /// [`Secrets::redact_result`] for a result kept as JSON text: its text is searched as it is, and
    /// only one with a secret in it (or with `\u`/`\/` escapes, which could spell one differently) is
    /// decoded, redacted and encoded again.
    pub fn redact_raw_result(&self, r: RawCallToolResult) -> RawCallToolResult {
        if self.is_empty() {
            return r;
        }
        let respelled = r.text_contains("\\u") || r.text_contains("\\/");
        if !respelled
            && !self
                .values
                .iter()
                .any(|v| r.text_contains(json_escaped(v).as_ref()))
        {
            return r;
        }
        let redacted = r.to_result().map(|typed| self.redact_result(typed));
        match redacted.and_then(|typed| RawCallToolResult::from_result(&typed)) {
            Ok(r) => r,
            Err(_) => RawCallToolResult::from_result(&withheld()).unwrap_or(r),
        }
    }

    /// A progress notification with its message redacted.
    pub fn redact_progress(&self, mut p: ProgressParams) -> ProgressParams {
        let redacted = match p.message.as_deref().map(|m| self.redact(m)) {
            Some(Cow::Owned(m)) => Some(m),
            _ => None,
        };
        if redacted.is_some() {
            p.message = redacted;
        }
        p
    }

    /// A log message with its logger name and every string of its data redacted.
    pub fn redact_log(&self, mut p: LoggingMessageParams) -> LoggingMessageParams {
        if self.is_empty() {
            return p;
        }
        let logger = match p.logger.as_deref().map(|l| self.redact(l)) {
            Some(Cow::Owned(l)) => Some(l),
            _ => None,
        };
        if logger.is_some() {
            p.logger = logger;
        }
        p.data = self.redact_json(p.data);
        p
    }

    /// Every string (and object key) in a JSON value, redacted.
    pub fn redact_json(&self, v: serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match v {
            Value::String(s) => match self.redact(&s) {
                Cow::Borrowed(_) => Value::String(s),
                Cow::Owned(o) => Value::String(o),
            },
            Value::Array(a) => Value::Array(a.into_iter().map(|v| self.redact_json(v)).collect()),
            Value::Object(o) => Value::Object(
                o.into_iter()
                    .map(|(k, v)| (self.redact(&k).into_owned(), self.redact_json(v)))
                    .collect(),
            ),
            other => other,
        }
    }
}

/// What replaces a result that held a secret and could not be redacted.
fn withheld() -> CallToolResult {
    CallToolResult::error("mcp-gateway: the result held a secret and was withheld")
}

/// How a value appears inside a JSON string (a secret with a quote or backslash in it is escaped there).
fn json_escaped(v: &str) -> Cow<'_, str> {
    if v.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        let quoted = serde_json::to_string(v).unwrap_or_default();
        let inner = quoted
            .strip_prefix('"')
            .and_then(|q| q.strip_suffix('"'))
            .unwrap_or(v);
        Cow::Owned(inner.to_string())
    } else {
        Cow::Borrowed(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(env: &[(&str, &str)]) -> UpstreamConfig {
        let text = serde_json::json!({"mcpServers": {"a": {
            "command": "x",
            "env": env.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
        }}})
        .to_string();
        let c: crate::Config = text.parse().unwrap();
        c.upstreams.into_iter().next().unwrap()
    }

    #[test]
    fn env_values_are_redacted_everywhere_short_ones_are_not() {
        let s = Secrets::of(&stdio(&[
            ("API_KEY", "sk-live-0123456789"),
            ("MODE", "prod"),
        ]));
        assert_eq!(
            s.redact("key=sk-live-0123456789 mode=prod"),
            "key=[redacted] mode=prod"
        );
        let e = s.redact_error(
            ErrorObject::internal("died: sk-live-0123456789")
                .with_data(serde_json::json!({"stderr": ["token sk-live-0123456789"]})),
        );
        assert_eq!(e.message, "died: [redacted]");
        assert_eq!(e.data.unwrap()["stderr"][0], "token [redacted]");
        let r = s.redact_result(CallToolResult::text("your key is sk-live-0123456789"));
        assert_eq!(r.text_content(), "your key is [redacted]");
        let clean = CallToolResult::text("nothing here");
        assert_eq!(s.redact_result(clean.clone()), clean);
    }

    #[test]
    fn raw_results_are_redacted_however_the_upstream_spelled_the_secret() {
        let s = Secrets::of(&stdio(&[("API_KEY", "sk-live-0123456789")]));
        let redact = |text: &str| {
            let r = s.redact_raw_result(RawCallToolResult::from_json(text).unwrap());
            r.to_result().unwrap()
        };
        let plain = r#"{"content":[{"type":"text","text":"your key is sk-live-0123456789"}]}"#;
        assert_eq!(redact(plain).text_content(), "your key is [redacted]");
        // `\u` escapes spell the same string differently: still found.
        let escaped = r#"{"content":[{"type":"text","text":"key: sk-live-\u0030123456789"}],"_meta":{"k":"sk-live-0123456789"}}"#;
        let r = redact(escaped);
        assert_eq!(r.text_content(), "key: [redacted]");
        assert_eq!(r.meta.unwrap()["k"], "[redacted]");
        let clean = r#"{"content":[{"type":"text","text":"nothing\nhere"}]}"#;
        let r = s.redact_raw_result(RawCallToolResult::from_json(clean).unwrap());
        assert_eq!(
            r.content().get(),
            r#"[{"type":"text","text":"nothing\nhere"}]"#
        );
    }

    #[test]
    fn header_credentials_are_redacted_alone_too() {
        let text = serde_json::json!({"mcpServers": {"a": {
            "url": "http://127.0.0.1:1/mcp",
            "headers": {"Authorization": "Bearer abcdefgh12345"},
        }}})
        .to_string();
        let c: crate::Config = text.parse().unwrap();
        let s = Secrets::of(&c.upstreams[0]);
        assert_eq!(s.redact("got abcdefgh12345"), "got [redacted]");
        assert_eq!(
            s.redact("sent Bearer abcdefgh12345"),
            "sent [redacted]",
            "the whole header value goes first"
        );
        // A per-user connection's own credentials join its upstream's.
        let mine = s.with(
            ["Bearer user-token-0123456789"],
            ["env-value-99999", "short"],
        );
        assert_eq!(
            mine.redact("abcdefgh12345 user-token-0123456789 env-value-99999 short"),
            "[redacted] [redacted] [redacted] short"
        );
        assert_eq!(s.redact("user-token-0123456789"), "user-token-0123456789");
    }
}
