//! Which era a request is served in, read from the request itself: protocol 2026-07-28 is chosen per
//! request, beside the handshake era, on the same connection or endpoint.
//!
//! A request whose `_meta` carries the per-request protocol fields (`io.modelcontextprotocol/
//! protocolVersion`, `…/clientCapabilities`, `…/clientInfo`, `…/logLevel`) is served statelessly by the
//! 2026-07-28 rules, from what it says about itself alone. Any other request belongs to the handshake
//! era (2024-11-05 to 2025-11-25) and is served by the state its connection's `initialize` set up.

use crate::protocol::*;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// What a 2026-07-28 request declares about itself in `_meta`: everything `initialize` used to establish.
#[derive(Debug, Clone, PartialEq)]
pub struct ModernRequest {
    /// The version the request is written in (`io.modelcontextprotocol/protocolVersion`), one this server
    /// speaks.
    pub version: ProtocolVersion,
    /// What the client supports for this request (`io.modelcontextprotocol/clientCapabilities`).
    pub capabilities: ClientCapabilities,
    /// Who the client is (`io.modelcontextprotocol/clientInfo`); `None` when absent.
    pub client_info: Option<Implementation>,
    /// The lowest level of log messages the client wants for this request; `None`: no log messages.
    pub log_level: Option<LoggingLevel>,
}

/// The `_meta` of a request as the dispatcher reads it: borrowed, its parts typed only when needed.
#[derive(Deserialize, Default)]
pub(crate) struct MetaRaw<'a> {
    #[serde(rename = "progressToken", default)]
    pub progress_token: Option<ProgressToken>,
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    pub protocol_version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    pub client_capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    pub client_info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    pub log_level: Option<&'a RawValue>,
    /// SEP-414: read in this same pass over `_meta`, decoded only when present (any JSON value: an
    /// invalid one is ignored, never an error).
    #[serde(borrow, default)]
    pub traceparent: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub tracestate: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub baggage: Option<&'a RawValue>,
}

/// What a handler's [`Context`](super::Context) takes from its request's `_meta`.
#[derive(Default)]
pub(crate) struct RequestMeta {
    pub progress_token: Option<ProgressToken>,
    pub trace: Option<crate::TraceContext>,
}

/// Params with nothing read but `_meta`.
#[derive(Deserialize)]
pub(crate) struct WithMeta<'a> {
    #[serde(rename = "_meta", borrow, default)]
    pub meta: Option<MetaRaw<'a>>,
}

/// The declarations a connection (or an HTTP endpoint) last resolved to a 2026-07-28 request: a client
/// sends the same ones on every request, so they are read once while they stay the same, byte for byte.
#[derive(Default)]
pub(crate) struct Declared(Mutex<Option<Remembered>>);

/// Declarations as their text, beside what they resolved to.
struct Remembered {
    text: [Option<Box<str>>; 4],
    request: Arc<ModernRequest>,
}

impl Declared {
    /// `meta` resolved as [`MetaRaw::resolve`] does, without reading it again when it declares what the
    /// last 2026-07-28 request resolved here declared.
    pub(crate) fn resolve(&self, meta: &MetaRaw<'_>) -> Result<Resolved, ErrorObject> {
        let remembered = || self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A handshake-era request declares nothing: no lock.
        if meta.is_modern() {
            if let Some(m) = remembered().as_ref().and_then(|r| r.get(meta)) {
                return Ok(Resolved::Modern(m));
            }
        }
        let resolved = meta.resolve()?;
        if let Resolved::Modern(m) = &resolved {
            *remembered() = Some(Remembered::new(meta, Arc::clone(m)));
        }
        Ok(resolved)
    }
}

impl Remembered {
    fn new(meta: &MetaRaw<'_>, request: Arc<ModernRequest>) -> Self {
        Remembered {
            text: meta.declarations().map(|d| d.map(|r| r.get().into())),
            request,
        }
    }

    /// The request these declarations resolved to, when `meta` declares the same, byte for byte.
    fn get(&self, meta: &MetaRaw<'_>) -> Option<Arc<ModernRequest>> {
        let same = self
            .text
            .iter()
            .zip(meta.declarations())
            .all(|(a, b)| a.as_deref() == b.map(RawValue::get));
        same.then(|| self.request.clone())
    }
}

/// The era a request's `_meta` puts it in.
pub(crate) enum Resolved {
    /// No per-request protocol fields: the handshake era.
    Legacy,
    Modern(Arc<ModernRequest>),
    /// Per-request fields naming a handshake-era version: served only on a connection initialized for it.
    LegacyVersionInMeta(ProtocolVersion),
}

fn missing(field: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "Invalid params: _meta is missing `io.modelcontextprotocol/{field}`, which every request of \
         protocol 2026-07-28 carries"
    ))
    .with_data(serde_json::json!({ "field": format!("_meta.io.modelcontextprotocol/{field}") }))
}

/// A declaration that is an object in the schema, read as `T` (serde's derive would also read a struct
/// from an array).
fn object<'a, T: Deserialize<'a>>(raw: &'a RawValue, field: &str) -> Result<T, ErrorObject> {
    if !raw.get().starts_with('{') {
        return Err(invalid(field, "must be an object"));
    }
    serde_json::from_str(raw.get()).map_err(|e| invalid(field, e))
}

fn invalid(field: &str, why: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "Invalid params: _meta `io.modelcontextprotocol/{field}`: {why}"
    ))
    .with_data(serde_json::json!({ "field": format!("_meta.io.modelcontextprotocol/{field}") }))
}

impl MetaRaw<'_> {
    /// The progress token and the trace (a valid `traceparent`, with its `tracestate` and `baggage`).
    pub(crate) fn request_meta(self) -> RequestMeta {
        RequestMeta {
            trace: self.traceparent.and_then(|tp| {
                crate::TraceContext::from_meta_values(tp, self.tracestate, self.baggage)
            }),
            progress_token: self.progress_token,
        }
    }

    /// Whether any per-request protocol field is present.
    pub(crate) fn is_modern(&self) -> bool {
        self.protocol_version.is_some()
            || self.client_capabilities.is_some()
            || self.client_info.is_some()
            || self.log_level.is_some()
    }

    /// The per-request protocol fields as written.
    fn declarations(&self) -> [Option<&RawValue>; 4] {
        [
            self.protocol_version,
            self.client_capabilities,
            self.client_info,
            self.log_level,
        ]
    }

    /// The requested protocol version as written, if it is a string (read by the HTTP header checks).
    #[cfg(feature = "http")]
    pub(crate) fn version_str(&self) -> Option<std::borrow::Cow<'_, str>> {
        self.protocol_version
            .and_then(|v| serde_json::from_str::<std::borrow::Cow<'_, str>>(v.get()).ok())
    }

    /// Reads and checks the per-request fields: `-32602` when a required one is missing or malformed,
    /// `-32022` when the version is not one we speak.
    pub(crate) fn resolve(&self) -> Result<Resolved, ErrorObject> {
        if !self.is_modern() {
            return Ok(Resolved::Legacy);
        }
        let raw_version = self
            .protocol_version
            .ok_or_else(|| missing("protocolVersion"))?;
        let version: Cow<'_, str> = serde_json::from_str(raw_version.get())
            .map_err(|_| invalid("protocolVersion", "must be a string"))?;
        let Some(v) = ProtocolVersion::parse(&version) else {
            return Err(ErrorObject::unsupported_version(
                &version,
                ProtocolVersion::supported_strings(),
            ));
        };
        let caps = self
            .client_capabilities
            .ok_or_else(|| missing("clientCapabilities"))?;
        let capabilities: ClientCapabilities = object(caps, "clientCapabilities")?;
        let client_info = match self.client_info {
            Some(raw) => Some(object::<Implementation>(raw, "clientInfo")?),
            None => None,
        };
        let log_level = match self.log_level {
            Some(raw) => Some(serde_json::from_str::<LoggingLevel>(raw.get()).map_err(|_| {
                invalid(
                    "logLevel",
                    format!(
                        "{} is not a log level (debug, info, notice, warning, error, critical, alert, emergency)",
                        raw.get()
                    ),
                )
            })?),
            None => None,
        };
        if !v.is_modern() {
            return Ok(Resolved::LegacyVersionInMeta(v));
        }
        Ok(Resolved::Modern(Arc::new(ModernRequest {
            version: v,
            capabilities,
            client_info,
            log_level,
        })))
    }
}

/// The `-32022` for a handshake-era version named in `_meta` on a connection that did not initialize.
pub(crate) fn legacy_version_needs_initialize(v: ProtocolVersion) -> ErrorObject {
    let mut e = ErrorObject::unsupported_version(v.as_str(), ProtocolVersion::supported_strings());
    e.message = format!(
        "Unsupported protocol version {:?} for a request without a session: {} needs the initialize \
         handshake first; per-request _meta needs {}",
        v.as_str(),
        v.as_str(),
        ProtocolVersion::MODERN.as_str()
    );
    e
}

/// The answer of a 2026-07-28-only server to `initialize`: the version it speaks, since a handshake-era
/// client has no other way to learn it.
pub(crate) fn initialize_refused(requested: &str) -> ErrorObject {
    let mut e = ErrorObject::unsupported_version(
        requested,
        vec![ProtocolVersion::MODERN.as_str().to_string()],
    );
    e.message = format!(
        "This server speaks only protocol {} (stateless, no initialize): send every request with \
         _meta.io.modelcontextprotocol/protocolVersion",
        ProtocolVersion::MODERN
    );
    e
}

/// The error for a handshake-era request on a connection that has not initialized: it could be either a
/// 2026-07-28 request missing its `_meta`, or a handshake-era request sent too early, so it says both.
pub(crate) fn not_initialized(method: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "Invalid params: {method} carries no `_meta.io.modelcontextprotocol/protocolVersion` (protocol \
         2026-07-28 requires it on every request) and this connection has not been initialized (protocol \
         2025-11-25 and earlier: send initialize first)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(meta: serde_json::Value) -> Result<Resolved, ErrorObject> {
        let text = meta.to_string();
        let m: MetaRaw<'_> = serde_json::from_str(&text).unwrap();
        m.resolve()
    }

    #[test]
    fn the_trace_is_read_in_the_same_pass_and_a_bad_one_is_no_error() {
        let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let read = |meta: serde_json::Value| {
            let text = meta.to_string();
            let m: MetaRaw<'_> = serde_json::from_str(&text).unwrap();
            m.request_meta()
        };
        let m = read(serde_json::json!({
            "progressToken": 7, "traceparent": tp, "tracestate": "a=1", "baggage": "k=v"
        }));
        let t = m.trace.unwrap();
        assert_eq!(m.progress_token, Some(ProgressToken::Number(7)));
        assert_eq!(
            (t.traceparent().as_str(), t.tracestate(), t.baggage()),
            (tp, Some("a=1"), Some("k=v"))
        );
        // Not a string, or not valid: as if absent, and the rest of `_meta` still read.
        for bad in [
            serde_json::json!(5),
            serde_json::json!({"x": 1}),
            serde_json::json!("00-x"),
        ] {
            let m = read(
                serde_json::json!({"progressToken": "p", "traceparent": bad, "tracestate": 3}),
            );
            assert!(m.trace.is_none());
            assert_eq!(m.progress_token, Some(ProgressToken::String("p".into())));
        }
        assert!(read(serde_json::json!({})).trace.is_none());
    }

    #[test]
    fn per_request_fields_select_the_modern_era() {
        let r = resolve(serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/logLevel": "warning"
        }))
        .unwrap();
        let Resolved::Modern(m) = r else {
            panic!("not modern")
        };
        assert_eq!(m.version, ProtocolVersion::V2026_07_28);
        assert!(m.capabilities.sampling.is_some());
        assert_eq!(m.log_level, Some(LoggingLevel::Warning));
        assert!(matches!(
            resolve(serde_json::json!({"progressToken": 1})).unwrap(),
            Resolved::Legacy
        ));
    }

    #[test]
    fn missing_and_malformed_fields_are_invalid_params() {
        let e = resolve(serde_json::json!({"io.modelcontextprotocol/clientCapabilities": {}}))
            .err()
            .unwrap();
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert!(e.message.contains("protocolVersion"));
        let e =
            resolve(serde_json::json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}))
                .err()
                .unwrap();
        assert!(e.message.contains("clientCapabilities"));
        let e = resolve(serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/logLevel": "loud"
        }))
        .err()
        .unwrap();
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert!(e.message.contains("loud"));
        for (field, value) in [
            ("clientCapabilities", serde_json::json!([])),
            ("clientInfo", serde_json::json!(["c", "1"])),
        ] {
            let mut meta = serde_json::json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
            meta[format!("io.modelcontextprotocol/{field}")] = value;
            let e = resolve(meta).err().unwrap();
            assert_eq!(e.code, codes::INVALID_PARAMS);
            assert!(
                e.message.contains(field) && e.message.contains("object"),
                "{e:?}"
            );
        }
    }

    #[test]
    fn an_unknown_version_is_unsupported_with_the_list() {
        let e = resolve(serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "v999.0.0",
            "io.modelcontextprotocol/clientCapabilities": {}
        }))
        .err()
        .unwrap();
        assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        let data = e.data.unwrap();
        assert_eq!(data["requested"], "v999.0.0");
        assert_eq!(data["supported"][0], "2026-07-28");
    }

    #[test]
    fn declarations_are_reused_only_when_written_the_same() {
        let read = |text: &str| {
            let m: MetaRaw<'_> = serde_json::from_str(text).unwrap();
            let Ok(Resolved::Modern(r)) = m.resolve() else {
                panic!("not modern: {text}")
            };
            (Remembered::new(&m, r), text.to_string())
        };
        let (declared, text) = read(
            r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}"#,
        );
        let same: MetaRaw<'_> = serde_json::from_str(&text).unwrap();
        let hit = declared.get(&same).unwrap();
        assert!(hit.capabilities.sampling.is_some());
        assert_eq!(hit.client_info.as_ref().unwrap().name, "c");
        for other in [
            // Other capabilities, another client, a log level, a version as other text.
            r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}"#,
            r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
                "io.modelcontextprotocol/clientInfo": {"name": "d", "version": "1"}}"#,
            r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/logLevel": "debug"}"#,
            r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}"#,
            r#"{"progressToken": 1}"#,
        ] {
            let m: MetaRaw<'_> = serde_json::from_str(other).unwrap();
            assert!(declared.get(&m).is_none(), "{other}");
        }
    }
}
