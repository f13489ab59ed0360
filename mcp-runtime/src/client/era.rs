//! Which era the client speaks with a server: the handshake era (`initialize`, a session, server
//! requests) or 2026-07-28 (stateless, `_meta` on every request, MRTR).
//!
//! In [`Era::Auto`] the client probes with `server/discover` carrying its preferred modern version (the
//! spec's backward-compatibility rule for stdio, and on HTTP "attempt a modern request and inspect the
//! body of a 400"): a `DiscoverResult` or a recognized modern error (`-32020`..`-32022`) means a modern
//! server; any other error, a transport refusal or silence past the probe timeout means a legacy one, and
//! the client falls back to `initialize`. The decision is remembered per server in an [`EraCache`].

use super::modern::ModernMeta;
use crate::connection::{Peer, RequestOptions};
use crate::error::Error;
use crate::framing::to_raw;
use crate::protocol::*;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Which era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Era {
    /// Probe with `server/discover`; fall back to `initialize` when the server is not modern.
    #[default]
    Auto,
    /// Always `initialize` (2024-11-05 to 2025-11-25).
    Legacy,
    /// Always 2026-07-28; a server that is not modern is an error.
    Modern,
}

/// What was learnt about a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Learnt {
    Legacy,
    Modern(ProtocolVersion),
}

/// Remembers each server's era (keyed by its command line or URL), so that later connections skip the
/// probe. A remembered era that fails is forgotten and probed again.
#[derive(Debug, Clone, Default)]
pub struct EraCache(Arc<Mutex<HashMap<String, Learnt>>>);

impl EraCache {
    /// The cache shared by every client of this process that was not given one.
    pub fn global() -> EraCache {
        static GLOBAL: OnceLock<EraCache> = OnceLock::new();
        GLOBAL.get_or_init(EraCache::default).clone()
    }

    fn get(&self, key: &str) -> Option<Learnt> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .copied()
    }

    fn put(&self, key: &str, learnt: Learnt) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Bounded: a process that talks to very many servers forgets the oldest guesses wholesale.
        if m.len() >= 1024 && !m.contains_key(key) {
            m.clear();
        }
        m.insert(key.to_string(), learnt);
    }

    fn forget(&self, key: &str) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
    }

    /// Whether a server is remembered as modern (`Some(true)`), legacy (`Some(false)`) or unknown.
    pub fn is_modern(&self, key: &str) -> Option<bool> {
        self.get(key).map(|l| matches!(l, Learnt::Modern(_)))
    }
}

/// The outcome of the negotiation.
pub(crate) enum Negotiated {
    Legacy(InitializeResult),
    Modern {
        discover: DiscoverResult,
        /// The server's identity, from the result's `_meta` (or its body, as early drafts had it).
        server_info: Implementation,
        version: ProtocolVersion,
    },
}

/// What the negotiation needs from the builder.
pub(crate) struct Setup<'a> {
    pub era: Era,
    pub legacy_version: ProtocolVersion,
    pub info: &'a Implementation,
    pub capabilities: &'a ClientCapabilities,
    pub meta: &'a ModernMeta,
    pub probe_timeout: Duration,
    pub cache: Option<(&'a EraCache, String)>,
}

impl Setup<'_> {
    pub(crate) async fn negotiate(&self, peer: &Peer) -> Result<Negotiated, Error> {
        let remembered = self.cache.as_ref().and_then(|(c, k)| c.get(k));
        if self.era == Era::Auto {
            if let Some(learnt) = remembered {
                let first = match learnt {
                    Learnt::Legacy => self.initialize(peer).await,
                    Learnt::Modern(v) => self.discover(peer, v, None).await,
                };
                match first {
                    Ok(n) => return Ok(n),
                    Err(Error::Closed(e)) => return Err(Error::Closed(e)),
                    Err(e) => {
                        tracing::debug!(%e, "the remembered era failed; probing again");
                        if let Some((c, k)) = &self.cache {
                            c.forget(k);
                        }
                    }
                }
            }
        }
        let n = match self.era {
            Era::Legacy => self.initialize(peer).await?,
            Era::Modern => self.discover(peer, ProtocolVersion::MODERN, None).await?,
            Era::Auto => self.probe(peer).await?,
        };
        if let Some((c, k)) = &self.cache {
            c.put(
                k,
                match &n {
                    Negotiated::Legacy(_) => Learnt::Legacy,
                    Negotiated::Modern { version, .. } => Learnt::Modern(*version),
                },
            );
        }
        Ok(n)
    }

    async fn probe(&self, peer: &Peer) -> Result<Negotiated, Error> {
        match self
            .discover(peer, ProtocolVersion::MODERN, Some(self.probe_timeout))
            .await
        {
            Ok(n) => Ok(n),
            Err(Error::Closed(e)) => Err(Error::Closed(e)),
            Err(Error::Rpc(e)) if e.is_modern_protocol_error() => Err(Error::Rpc(e)),
            Err(Error::Protocol(e)) if e.starts_with(ONLY_LEGACY) => {
                tracing::debug!("the server is dual-era without 2026-07-28; initializing");
                self.initialize(peer).await
            }
            Err(e) => {
                tracing::debug!(%e, "server/discover refused: a handshake-era server; initializing");
                match self.initialize(peer).await {
                    // A modern server after all: the probe timed out here but reached a slow-starting
                    // server, which now refuses `initialize` naming its versions. Probe once more.
                    Err(Error::Rpc(e)) if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                        let v = pick_version(&e)?;
                        tracing::debug!(%v, "initialize refused with -32022: probing again");
                        self.discover(peer, v, None).await
                    }
                    other => other,
                }
            }
        }
    }

    /// `server/discover` with `version`; on `-32022` once more with a version from the server's list.
    async fn discover(
        &self,
        peer: &Peer,
        version: ProtocolVersion,
        timeout: Option<Duration>,
    ) -> Result<Negotiated, Error> {
        let mut version = version;
        for attempt in 0..2 {
            let mut params = JsonObject::new();
            self.meta.stamp(&mut params, version);
            let raw = to_raw(&params).map_err(|e| Error::Protocol(e.message))?;
            let opts = RequestOptions {
                timeout,
                ..Default::default()
            };
            match peer
                .request(methods::SERVER_DISCOVER, Some(&raw), opts)
                .await
            {
                Ok(result) => return read_discover(result.get(), version),
                Err(Error::Rpc(e))
                    if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION && attempt == 0 =>
                {
                    version = pick_version(&e)?;
                }
                Err(e) => return Err(e),
            }
        }
        Err(Error::Protocol(
            "the server refused every protocol version it listed as supported".into(),
        ))
    }

    async fn initialize(&self, peer: &Peer) -> Result<Negotiated, Error> {
        let params = InitializeParams {
            protocol_version: self.legacy_version.as_str().to_string(),
            capabilities: self.capabilities.clone(),
            client_info: self.info.clone(),
            meta: None,
        };
        let raw = to_raw(&params).map_err(|e| Error::Protocol(e.message))?;
        let result = peer
            .request(methods::INITIALIZE, Some(&raw), RequestOptions::default())
            .await?;
        let init: InitializeResult =
            serde_json::from_str(result.get()).map_err(|e| Error::Decode {
                method: methods::INITIALIZE.into(),
                reason: e.to_string(),
            })?;
        match ProtocolVersion::parse(&init.protocol_version) {
            Some(v) if !v.is_modern() => {}
            _ => {
                return Err(Error::Protocol(format!(
                    "the server offered protocol version {:?} to initialize, which this client does not speak",
                    init.protocol_version
                )))
            }
        }
        peer.notify(methods::INITIALIZED, None, None).await?;
        Ok(Negotiated::Legacy(init))
    }
}

const ONLY_LEGACY: &str = "the server speaks only handshake-era versions";

/// The newest modern version both sides speak, from a `-32022`'s `data.supported`.
pub(crate) fn pick_version(e: &ErrorObject) -> Result<ProtocolVersion, Error> {
    let supported: Vec<String> = e
        .data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(|s| serde_json::from_value(s.clone()).ok())
        .ok_or_else(|| {
            Error::Protocol(format!(
                "the server refused the protocol version (-32022) without a valid `supported` list: {e}"
            ))
        })?;
    newest_modern(&supported)
}

fn newest_modern(supported: &[String]) -> Result<ProtocolVersion, Error> {
    let ours: Vec<ProtocolVersion> = supported
        .iter()
        .filter_map(|s| ProtocolVersion::parse(s))
        .collect();
    if let Some(v) = ours.iter().copied().filter(|v| v.is_modern()).max() {
        return Ok(v);
    }
    if !ours.is_empty() {
        return Err(Error::Protocol(format!(
            "{ONLY_LEGACY} ({})",
            supported.join(", ")
        )));
    }
    Err(Error::Protocol(format!(
        "no protocol version in common: the server supports {}, this client {}",
        if supported.is_empty() {
            "none".to_string()
        } else {
            supported.join(", ")
        },
        ProtocolVersion::supported_strings().join(", ")
    )))
}

/// Reads a `DiscoverResult`, leniently: caching hints default to "not cacheable" when a server leaves them
/// out, and the server's identity is read from `_meta` or from the body.
fn read_discover(raw: &str, asked: ProtocolVersion) -> Result<Negotiated, Error> {
    let decode = |e: String| Error::Decode {
        method: methods::SERVER_DISCOVER.into(),
        reason: e,
    };
    let mut v: Value = serde_json::from_str(raw).map_err(|e| decode(e.to_string()))?;
    let obj = v
        .as_object_mut()
        .ok_or_else(|| decode("the result is not an object".into()))?;
    check_result_type(obj.get("resultType"), methods::SERVER_DISCOVER)?;
    obj.entry("ttlMs").or_insert(Value::from(0));
    obj.entry("cacheScope").or_insert(Value::from("private"));
    let server_info = obj
        .get("_meta")
        .and_then(|m| m.get(meta::keys::SERVER_INFO))
        .or_else(|| obj.get("serverInfo"))
        .and_then(|i| serde_json::from_value::<Implementation>(i.clone()).ok())
        .unwrap_or_default();
    let discover: DiscoverResult = serde_json::from_value(v).map_err(|e| decode(e.to_string()))?;
    let version = if discover
        .supported_versions
        .iter()
        .any(|s| s == asked.as_str())
    {
        asked
    } else {
        newest_modern(&discover.supported_versions)?
    };
    Ok(Negotiated::Modern {
        discover,
        server_info,
        version,
    })
}

/// `resultType` of a result: absent or `complete` is fine; anything else is not a plain result.
pub(crate) fn check_result_type(rt: Option<&Value>, method: &str) -> Result<(), Error> {
    match rt {
        None => Ok(()),
        Some(Value::String(s)) if s == "complete" => Ok(()),
        Some(other) => Err(Error::Protocol(format!(
            "the result of {method} has resultType {other}, which this request cannot have"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_32022_picks_the_newest_modern_version_both_speak() {
        let e = ErrorObject::unsupported_version(
            "1900-01-01",
            vec![
                "2026-07-28".into(),
                "2025-11-25".into(),
                "2099-01-01".into(),
            ],
        );
        assert_eq!(pick_version(&e).unwrap(), ProtocolVersion::V2026_07_28);
        let legacy_only = ErrorObject::unsupported_version("2026-07-28", vec!["2025-11-25".into()]);
        let err = pick_version(&legacy_only).unwrap_err().to_string();
        assert!(err.contains(ONLY_LEGACY), "{err}");
        let nothing = ErrorObject::unsupported_version("2026-07-28", vec!["2099-01-01".into()]);
        assert!(pick_version(&nothing)
            .unwrap_err()
            .to_string()
            .contains("no protocol version in common"));
        let bad = ErrorObject::new(codes::UNSUPPORTED_PROTOCOL_VERSION, "no data");
        assert!(pick_version(&bad)
            .unwrap_err()
            .to_string()
            .contains("without a valid `supported` list"));
    }

    #[test]
    fn discover_results_are_read_leniently() {
        let n = read_discover(
            r#"{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}"#,
            ProtocolVersion::MODERN,
        )
        .unwrap();
        let Negotiated::Modern {
            discover,
            server_info,
            version,
        } = n
        else {
            panic!("not modern")
        };
        assert_eq!(server_info.name, "s");
        assert_eq!(version, ProtocolVersion::V2026_07_28);
        assert_eq!(discover.cache.ttl_ms, 0);
        assert!(read_discover(
            r#"{"resultType":"input_required","supportedVersions":[],"capabilities":{}}"#,
            ProtocolVersion::MODERN
        )
        .is_err());
    }

    #[test]
    fn the_cache_remembers_and_forgets() {
        let c = EraCache::default();
        assert_eq!(c.is_modern("x"), None);
        c.put("x", Learnt::Modern(ProtocolVersion::MODERN));
        assert_eq!(c.is_modern("x"), Some(true));
        c.forget("x");
        assert_eq!(c.is_modern("x"), None);
    }
}
