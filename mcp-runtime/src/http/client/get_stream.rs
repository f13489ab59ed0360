//! The handshake era's standalone GET stream: opened after `initialized`, carrying the server's own
//! messages, reconnected after the server's `retry` with `Last-Event-ID`.

use super::*;

impl Transport {
    /// After `initialized`: opens the standalone GET stream (once, Streamable HTTP only) and reads it in
    /// the background.
    pub(super) async fn start_get_stream(self: &Arc<Self>) {
        if !self.config.open_get_stream || self.lock().legacy_endpoint.is_some() {
            return;
        }
        if self.get_started.swap(true, Ordering::AcqRel) {
            return;
        }
        let first = match tokio::time::timeout(Duration::from_secs(10), self.open_get(None)).await {
            Ok(r) => r,
            Err(_) => Err("no answer to the GET within 10 s".into()),
        };
        tokio::spawn(self.clone().get_loop(first));
    }

    /// GET with `Accept: text/event-stream`: `Ok(None)` when the server has no such stream (405 and the like).
    pub(super) async fn open_get(
        &self,
        last_event_id: Option<&str>,
    ) -> Result<Option<reqwest::Response>, String> {
        let mut h = self.base_headers("GET", &self.url);
        h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        {
            let s = self.lock();
            if let Some(v) = s
                .session
                .as_deref()
                .and_then(|v| HeaderValue::from_str(v).ok())
            {
                h.insert(SESSION_HEADER, v);
            }
            if let Some(v) = s
                .version
                .as_deref()
                .and_then(|v| HeaderValue::from_str(v).ok())
            {
                h.insert(VERSION_HEADER, v);
            }
        }
        if let Some(id) = last_event_id.and_then(|v| HeaderValue::from_str(v).ok()) {
            h.insert("last-event-id", id);
        }
        let r = self
            .http
            .get(self.url.clone())
            .headers(h)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let ct = r
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if r.status().is_success() && ct.starts_with("text/event-stream") {
            Ok(Some(r))
        } else if r.status().is_server_error() {
            Err(format!("HTTP {}", r.status()))
        } else {
            Ok(None)
        }
    }

    /// The standalone GET stream, reconnected after the server's `retry` with `Last-Event-ID`.
    pub(super) async fn get_loop(
        self: Arc<Self>,
        first: Result<Option<reqwest::Response>, String>,
    ) {
        let mut parser = SseParser::new();
        let mut failures = 0u32;
        let mut opened = Some(first);
        while !self.peer.is_closed() {
            let attempt = match opened.take() {
                Some(first) => first,
                None => {
                    let base = parser
                        .last_retry
                        .map(Duration::from_millis)
                        .unwrap_or(self.config.default_retry);
                    tokio::time::sleep(base * 2u32.pow(failures.min(5))).await;
                    let last = parser.last_id.clone();
                    self.open_get(last.as_deref()).await
                }
            };
            match attempt {
                Ok(Some(r)) => {
                    failures = 0;
                    self.pump_stream(r, &mut parser, None, None).await;
                }
                Ok(None) => return,
                Err(e) => {
                    failures += 1;
                    if failures > self.config.max_reconnects {
                        tracing::debug!(%e, "giving up the GET stream");
                        return;
                    }
                }
            }
        }
    }
}
