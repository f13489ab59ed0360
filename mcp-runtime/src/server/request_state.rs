//! The `requestState` of multi round-trip requests, sealed by the server (HMAC-SHA256) so that any
//! instance holding the keys can continue a request another one started, and a state that was tampered
//! with, sealed with a key we do not have, expired, or issued for another request or principal is refused.
//!
//! A sealed state reads `<kid>.<payload>.<mac>` (both base64url): the key id names which of the server's
//! keys sealed it, so keys can rotate (seal with the new one, still open states sealed with old ones).

use crate::sha256::{HmacSha256, Sha256};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use std::fmt;

/// The longest sealed state accepted or issued. States carry the client's earlier answers, so they grow
/// with the rounds; beyond this a request must keep its state elsewhere.
pub const MAX_STATE_BYTES: usize = 1024 * 1024;

/// The environment variable from which servers of this toolchain take their request-state keys
/// (`kid:hex,...`) when no `--state-keys` flag gives them ([`RequestStateKeys::from_flag_or_env`]).
pub const STATE_KEYS_ENV: &str = "MCP_REQUEST_STATE_KEYS";

/// The keys that seal and open request states: the first seals, all of them open.
#[derive(Clone)]
pub struct RequestStateKeys {
    keys: Vec<(String, Vec<u8>)>,
}

impl fmt::Debug for RequestStateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("RequestStateKeys")
            .field("key_ids", &ids)
            .finish()
    }
}

/// Why a key or a state was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateKeyError {
    /// A key id outside 1 to 32 characters of `A-Za-z0-9_-`.
    BadKeyId(String),
    /// A key shorter than 32 bytes (HMAC-SHA256 wants at least its output's length).
    ShortKey(String),
    /// A key list not written `kid:hex,kid:hex`; the text says where.
    BadSpec(String),
}

impl std::fmt::Display for StateKeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateKeyError::BadKeyId(id) => write!(
                f,
                "a request-state key id must be 1 to 32 characters of A-Z, a-z, 0-9, `_` or `-`: {id:?}"
            ),
            StateKeyError::ShortKey(id) => {
                write!(f, "a request-state key must be at least 32 bytes (key {id:?})")
            }
            StateKeyError::BadSpec(why) => write!(
                f,
                "request-state keys are written `kid:hex` separated by commas; {why}"
            ),
        }
    }
}

impl std::error::Error for StateKeyError {}

impl RequestStateKeys {
    /// One key, used to seal and to open. Share it between instances that serve the same clients.
    pub fn new(
        key_id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Result<Self, StateKeyError> {
        let mut k = RequestStateKeys { keys: Vec::new() };
        k.push(key_id.into(), secret.into())?;
        Ok(k)
    }

    /// A key that only opens states (one sealed before a rotation).
    pub fn with_previous(
        mut self,
        key_id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Result<Self, StateKeyError> {
        self.push(key_id.into(), secret.into())?;
        Ok(self)
    }

    /// A fresh random key: enough for one process; instances behind a load balancer need shared keys.
    pub fn random() -> Self {
        let mut secret = vec![0u8; 32];
        if getrandom::fill(&mut secret).is_err() {
            // No OS randomness: fall back on what differs between processes and runs.
            let seed = format!(
                "{:?}{}{:p}",
                std::time::SystemTime::now(),
                std::process::id(),
                &secret
            );
            secret = Sha256::digest(seed.as_bytes()).to_vec();
        }
        RequestStateKeys {
            keys: vec![("k0".into(), secret)],
        }
    }

    /// The keys a server's command line names: `flag` (the value of its `--state-keys`) if given,
    /// else the environment variable [`STATE_KEYS_ENV`] if set and not empty, else `None` (the server
    /// then makes a random key, which serves one process only). The error names the flag or the
    /// variable whose text is wrong.
    pub fn from_flag_or_env(flag: Option<&str>) -> Result<Option<Self>, String> {
        if let Some(spec) = flag {
            return Self::parse(spec)
                .map(Some)
                .map_err(|e| format!("--state-keys: {e}"));
        }
        match std::env::var(STATE_KEYS_ENV) {
            Ok(spec) if !spec.trim().is_empty() => Self::parse(&spec)
                .map(Some)
                .map_err(|e| format!("{STATE_KEYS_ENV}: {e}")),
            _ => Ok(None),
        }
    }

    /// Keys from text: `kid:hexsecret[,kid:hexsecret...]`, the first sealing (for a command line or an
    /// environment variable).
    pub fn parse(spec: &str) -> Result<Self, StateKeyError> {
        let mut k = RequestStateKeys { keys: Vec::new() };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (kid, hex) = part
                .split_once(':')
                .ok_or_else(|| StateKeyError::BadSpec(format!("{part:?} has no `:`")))?;
            let secret = decode_hex(hex).ok_or_else(|| {
                StateKeyError::BadSpec(format!("the secret of {kid:?} is not hexadecimal"))
            })?;
            k.push(kid.to_string(), secret)?;
        }
        if k.keys.is_empty() {
            return Err(StateKeyError::BadSpec("no key given".into()));
        }
        Ok(k)
    }

    fn push(&mut self, kid: String, secret: Vec<u8>) -> Result<(), StateKeyError> {
        let ok = !kid.is_empty()
            && kid.len() <= 32
            && kid
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !ok {
            return Err(StateKeyError::BadKeyId(kid));
        }
        if secret.len() < 32 {
            return Err(StateKeyError::ShortKey(kid));
        }
        self.keys.retain(|(k, _)| *k != kid);
        self.keys.push((kid, secret));
        Ok(())
    }

    fn mac(secret: &[u8], kid: &str, payload: &str) -> HmacSha256 {
        let mut m = HmacSha256::new(secret);
        m.update(kid.as_bytes());
        m.update(b".");
        m.update(payload.as_bytes());
        m
    }

    /// Seals a payload with the current key.
    pub(crate) fn seal(&self, payload: &[u8]) -> String {
        let (kid, secret) = &self.keys[0];
        let body = B64.encode(payload);
        let tag = Self::mac(secret, kid, &body).finalize();
        format!("{kid}.{body}.{}", B64.encode(tag))
    }

    /// Opens a sealed state: its payload, if one of our keys sealed it and nothing was changed.
    pub(crate) fn open(&self, state: &str) -> Option<Vec<u8>> {
        if state.len() > MAX_STATE_BYTES * 2 {
            return None;
        }
        let mut parts = state.split('.');
        let (kid, body, tag) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let (_, secret) = self.keys.iter().find(|(k, _)| k == kid)?;
        let tag = B64.decode(tag).ok()?;
        if !Self::mac(secret, kid, body).verify(&tag) {
            return None;
        }
        B64.decode(body).ok()
    }
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(kid: &str, byte: u8) -> RequestStateKeys {
        RequestStateKeys::new(kid, vec![byte; 32]).unwrap()
    }

    #[test]
    fn a_sealed_state_opens_and_any_change_is_refused() {
        let k = keys("a", 1);
        let s = k.seal(b"{\"x\":1}");
        assert_eq!(k.open(&s).unwrap(), b"{\"x\":1}");
        assert!(k.open(&format!("{s}-TAMPERED")).is_none());
        let mut flipped = s.clone().into_bytes();
        let mid = flipped.len() / 2;
        flipped[mid] = if flipped[mid] == b'A' { b'B' } else { b'A' };
        assert!(k.open(std::str::from_utf8(&flipped).unwrap()).is_none());
        assert!(k.open("").is_none());
        assert!(k.open("a.b").is_none());
    }

    #[test]
    fn a_foreign_key_is_refused_and_rotation_keeps_old_states_open() {
        let old = keys("old", 1);
        let state = old.seal(b"p");
        assert!(
            keys("old", 2).open(&state).is_none(),
            "same id, other secret"
        );
        assert!(keys("new", 1).open(&state).is_none(), "unknown id");
        let rotated = keys("new", 3).with_previous("old", vec![1; 32]).unwrap();
        assert_eq!(rotated.open(&state).unwrap(), b"p");
        assert!(rotated.seal(b"q").starts_with("new."));
    }

    #[test]
    fn keys_parse_from_text_and_bad_ones_are_named() {
        let k = RequestStateKeys::parse(&format!("k1:{},k0:{}", "ab".repeat(32), "cd".repeat(32)))
            .unwrap();
        assert!(k.seal(b"x").starts_with("k1."));
        assert!(matches!(
            RequestStateKeys::parse("k1:abcd"),
            Err(StateKeyError::ShortKey(_))
        ));
        assert!(matches!(
            RequestStateKeys::parse("k 1:00"),
            Err(StateKeyError::BadKeyId(_))
        ));
        assert!(matches!(
            RequestStateKeys::parse("k1"),
            Err(StateKeyError::BadSpec(_))
        ));
        assert!(matches!(
            RequestStateKeys::parse("k1:zz"),
            Err(StateKeyError::BadSpec(_))
        ));
    }
}
