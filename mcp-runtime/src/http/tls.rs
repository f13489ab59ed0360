//! HTTPS (feature `tls`): a rustls server configuration from a PEM certificate chain and private key,
//! offering HTTP/2 and HTTP/1.1 by ALPN.

use std::path::Path;
use std::sync::Arc;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// A certificate and key to serve HTTPS with. Cheap to clone.
#[derive(Clone)]
pub struct TlsConfig {
    pub(crate) server: Arc<rustls::ServerConfig>,
}

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsConfig")
    }
}

impl TlsConfig {
    /// From PEM files: the certificate chain (leaf first) and its private key (PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem_files(cert: impl AsRef<Path>, key: impl AsRef<Path>) -> std::io::Result<Self> {
        let read = |p: &Path| {
            std::fs::read(p).map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot read {}: {e}", p.display()))
            })
        };
        TlsConfig::from_pem(&read(cert.as_ref())?, &read(key.as_ref())?)
    }

    /// From PEM text: the certificate chain (leaf first) and its private key.
    pub fn from_pem(cert: &[u8], key: &[u8]) -> std::io::Result<Self> {
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{what}: {e}"))
        };
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert)
            .collect::<Result<_, _>>()
            .map_err(|e| bad("the certificate PEM", &e))?;
        if chain.is_empty() {
            return Err(bad("the certificate PEM", &"no certificate in it"));
        }
        let key = PrivateKeyDer::from_pem_slice(key).map_err(|e| bad("the private key PEM", &e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut server = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| bad("TLS versions", &e))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| bad("the certificate and key", &e))?;
        server.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(TlsConfig {
            server: Arc::new(server),
        })
    }
}
