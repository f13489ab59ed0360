//! Protocol versions and their negotiation.

use serde::{Deserialize, Serialize};

/// A protocol revision this runtime speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// `2024-11-05`: the first release, with the HTTP+SSE transport.
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP, OAuth, tool annotations, audio, completions.
    V2025_03_26,
    /// `2025-06-18`: structured tool output, elicitation, resource links, titles; no JSON-RPC batches.
    V2025_06_18,
    /// `2025-11-25`: tasks, URL elicitation, icons, tools in sampling, extensions. The newest handshake-era
    /// version.
    V2025_11_25,
    /// The stateless era: no handshake, version and capabilities in every request's `_meta`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every version we speak, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];
    /// The handshake-era versions, the ones `initialize` negotiates, oldest first.
    pub const LEGACY: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];
    /// The newest handshake-era version: what `initialize` counter-offers.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;
    /// The newest version, of the stateless era.
    pub const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The version's date string, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The version named by a date string; `None` for a version this runtime does not speak.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The `initialize` version rule: the requested one when it is a handshake-era version we support,
    /// otherwise a counter-offer of our latest handshake-era version (2026-07-28 has no handshake).
    pub fn negotiate(requested: &str) -> Self {
        Self::parse(requested)
            .filter(|v| !v.is_modern())
            .unwrap_or(Self::LATEST_LEGACY)
    }

    /// Whether this version belongs to the stateless era (per-request `_meta`, no `initialize`).
    pub fn is_modern(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    /// Every supported version as strings, newest first (what `server/discover` and `-32022` list).
    pub fn supported_strings() -> Vec<String> {
        Self::ALL
            .iter()
            .rev()
            .map(|v| v.as_str().to_string())
            .collect()
    }

    /// JSON-RPC batches exist only in 2025-03-26.
    pub fn allows_batch(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }
}

impl std::fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Self::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unsupported protocol version {s}")))
    }
}
