//! The little of JOSE the client needs, on `ring`: compact JWS with ES256 or RS256, for
//! `private_key_jwt` client assertions (RFC 7523) and DPoP proofs (RFC 9449, an ephemeral P-256 key).

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair, RsaKeyPair};
use serde_json::{json, Value};
use std::time::{SystemTime, UNIX_EPOCH};

/// A key that signs JWS.
pub(crate) enum SigningKey {
    Es256(EcdsaKeyPair),
    Rs256(RsaKeyPair),
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.alg())
    }
}

pub(crate) fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A random identifier for `jti`.
pub(crate) fn jti() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The DER bytes of a PEM block (`-----BEGIN ...-----`), or the input when it is not PEM.
fn pem_der(pem: &str) -> Result<Vec<u8>, String> {
    if !pem.contains("-----BEGIN") {
        return Err("the private key is not PEM (expected -----BEGIN PRIVATE KEY-----)".into());
    }
    let body: String = pem
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .map(str::trim)
        .collect();
    STANDARD
        .decode(body)
        .map_err(|e| format!("the private key PEM is not valid base64: {e}"))
}

impl SigningKey {
    /// A PKCS#8 PEM private key for `alg` (`ES256` or `RS256`).
    pub(crate) fn from_pem(pem: &str, alg: &str) -> Result<SigningKey, String> {
        let der = pem_der(pem)?;
        match alg {
            "ES256" => EcdsaKeyPair::from_pkcs8(
                &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                &der,
                &SystemRandom::new(),
            )
            .map(SigningKey::Es256)
            .map_err(|e| format!("not a PKCS#8 P-256 key: {e}")),
            "RS256" => RsaKeyPair::from_pkcs8(&der)
                .map(SigningKey::Rs256)
                .map_err(|e| format!("not a PKCS#8 RSA key: {e}")),
            other => Err(format!(
                "signing algorithm {other} is not supported (ES256 or RS256)"
            )),
        }
    }

    /// A fresh P-256 key (DPoP).
    pub(crate) fn generate_es256() -> Result<SigningKey, String> {
        let rng = SystemRandom::new();
        let doc = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| "cannot generate a P-256 key".to_string())?;
        EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            doc.as_ref(),
            &rng,
        )
        .map(SigningKey::Es256)
        .map_err(|e| e.to_string())
    }

    pub(crate) fn alg(&self) -> &'static str {
        match self {
            SigningKey::Es256(_) => "ES256",
            SigningKey::Rs256(_) => "RS256",
        }
    }

    /// The public key as a JWK (for the `jwk` header of a DPoP proof, which uses P-256 keys only).
    pub(crate) fn public_jwk(&self) -> Option<Value> {
        match self {
            SigningKey::Es256(k) => {
                // Uncompressed point: 0x04 || X || Y.
                let p = k.public_key().as_ref();
                Some(
                    json!({"kty": "EC", "crv": "P-256", "x": b64(&p[1..33]), "y": b64(&p[33..65])}),
                )
            }
            SigningKey::Rs256(_) => None,
        }
    }

    /// `header.claims.signature`, compact serialization.
    pub(crate) fn sign(&self, header: &Value, claims: &Value) -> Result<String, String> {
        let input = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let rng = SystemRandom::new();
        let sig = match self {
            SigningKey::Es256(k) => k
                .sign(&rng, input.as_bytes())
                .map_err(|_| "signing failed".to_string())?
                .as_ref()
                .to_vec(),
            SigningKey::Rs256(k) => {
                let mut sig = vec![0; k.public().modulus_len()];
                k.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &rng,
                    input.as_bytes(),
                    &mut sig,
                )
                .map_err(|_| "signing failed".to_string())?;
                sig
            }
        };
        Ok(format!("{input}.{}", b64(&sig)))
    }
}

/// A DPoP proof (RFC 9449 section 4.2) for one HTTP request: `htu` without query or fragment, `ath` the
/// hash of the access token it accompanies, `nonce` when the server gave one.
pub(crate) fn dpop_proof(
    key: &SigningKey,
    method: &str,
    url: &reqwest::Url,
    access_token: Option<&str>,
    nonce: Option<&str>,
) -> Result<String, String> {
    let mut htu = url.clone();
    htu.set_query(None);
    htu.set_fragment(None);
    let mut claims = json!({
        "jti": jti(),
        "htm": method,
        "htu": htu.as_str(),
        "iat": now(),
    });
    if let Some(t) = access_token {
        claims["ath"] = b64(&crate::sha256::Sha256::digest(t.as_bytes())).into();
    }
    if let Some(n) = nonce {
        claims["nonce"] = n.into();
    }
    let jwk = key
        .public_jwk()
        .ok_or("DPoP proofs are signed with a P-256 key")?;
    let header = json!({"typ": "dpop+jwt", "alg": key.alg(), "jwk": jwk});
    key.sign(&header, &claims)
}

/// A `private_key_jwt` client assertion (RFC 7523 section 3): issued by and about the client, for the
/// authorization server.
pub(crate) fn client_assertion(
    key: &SigningKey,
    client_id: &str,
    audience: &str,
) -> Result<String, String> {
    let now = now();
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "jti": jti(),
        "iat": now,
        "exp": now + 300,
    });
    key.sign(&json!({"alg": key.alg(), "typ": "JWT"}), &claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(jws: &str) -> (Value, Value) {
        let mut it = jws.split('.');
        let h =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(it.next().unwrap()).unwrap()).unwrap();
        let c =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(it.next().unwrap()).unwrap()).unwrap();
        (h, c)
    }

    #[test]
    fn dpop_proofs_verify_against_their_jwk() {
        let key = SigningKey::generate_es256().unwrap();
        let url = reqwest::Url::parse("http://localhost:3000/mcp?x=1#f").unwrap();
        let proof = dpop_proof(&key, "POST", &url, Some("tok"), Some("n1")).unwrap();
        let (h, c) = parts(&proof);
        assert_eq!(h["typ"], "dpop+jwt");
        assert_eq!(h["alg"], "ES256");
        assert!(h["jwk"].get("d").is_none());
        assert_eq!(c["htu"], "http://localhost:3000/mcp");
        assert_eq!(c["htm"], "POST");
        assert_eq!(c["nonce"], "n1");
        assert_eq!(
            c["ath"],
            b64(&crate::sha256::Sha256::digest(b"tok")).as_str()
        );
        // The signature verifies with the public key in the header.
        let SigningKey::Es256(k) = &key else { panic!() };
        let (input, sig) = proof.rsplit_once('.').unwrap();
        signature::UnparsedPublicKey::new(
            &signature::ECDSA_P256_SHA256_FIXED,
            k.public_key().as_ref(),
        )
        .verify(input.as_bytes(), &URL_SAFE_NO_PAD.decode(sig).unwrap())
        .unwrap();
    }

    #[test]
    fn bad_keys_are_clear_errors() {
        assert!(SigningKey::from_pem("nope", "ES256")
            .unwrap_err()
            .contains("PEM"));
        assert!(SigningKey::from_pem(
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
            "ES256"
        )
        .unwrap_err()
        .contains("P-256"));
        assert!(SigningKey::from_pem(
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
            "HS256"
        )
        .unwrap_err()
        .contains("not supported"));
    }
}
