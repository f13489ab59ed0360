//! When the session is lost or the server is older: a 404 on a known session initializes again (then
//! `initialized`), and a server without Streamable HTTP is spoken to over the legacy HTTP+SSE transport.

use super::*;

impl Transport {
    /// The server forgot the session: initialize again (without the session header), then `initialized`.
    pub(super) async fn reinitialize(self: &Arc<Self>) -> Result<(), String> {
        let Some(init) = self.lock().init_frame.clone() else {
            return Err("no initialize to replay".into());
        };
        let id = match framing::decode(&init) {
            Incoming::Request { id, .. } => id,
            _ => return Err("the saved initialize is not a request".into()),
        };
        self.lock().session = None;
        // The answer is a response to an id the pump no longer waits for: read it here, do not dispatch.
        let resp = self
            .http
            .post(self.url.clone())
            .headers(self.post_headers(Post::Legacy {
                is_init: true,
                mirrored: &HeaderMap::new(),
            }))
            .body(init)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !resp.status().is_success() {
            return Err(format!("re-initialize failed: HTTP {}", resp.status()));
        }
        if let Some(s) = resp
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            self.lock().session = Some(s.to_string());
        }
        let text = resp.text().await.map_err(|e| e.to_string())?;
        let mut parser = SseParser::new();
        let bodies: Vec<String> = if text.trim_start().starts_with('{') {
            vec![text]
        } else {
            parser
                .feed(text.as_bytes())
                .into_iter()
                .map(|e| e.data)
                .collect()
        };
        for b in bodies {
            if let Incoming::Response {
                id: rid,
                result: Ok(raw),
            } = framing::decode(b.as_bytes())
            {
                if rid == id {
                    self.note_version(raw.get());
                }
            }
        }
        let note = frame::notification(methods::INITIALIZED, None);
        let r = self
            .http
            .post(self.url.clone())
            .headers(self.post_headers(Post::Legacy {
                is_init: false,
                mirrored: &HeaderMap::new(),
            }))
            .body(note)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !r.status().is_success() {
            return Err(format!(
                "initialized after re-initialize failed: HTTP {}",
                r.status()
            ));
        }
        tracing::debug!("re-initialized after the server forgot the session");
        Ok(())
    }

    /// The legacy transport: GET the URL, wait for the `endpoint` event, then read messages in the background.
    pub(super) async fn open_legacy(self: &Arc<Self>) -> Result<(), Error> {
        let mut h = self.base_headers("GET", &self.url);
        h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let resp = self
            .http
            .get(self.url.clone())
            .headers(h)
            .send()
            .await
            .map_err(|e| Error::Io(e.to_string()))?;
        if !resp.status().is_success() {
            return Err(Error::Io(format!(
                "GET {} for the SSE stream: HTTP {}",
                self.url,
                resp.status()
            )));
        }
        let mut body = resp.bytes_stream();
        let mut parser = SseParser::new();
        let mut pending = Vec::new();
        let endpoint = 'found: loop {
            let chunk = tokio::time::timeout(Duration::from_secs(30), body.next())
                .await
                .map_err(|_| Error::Io("no endpoint event within 30 s".into()))?;
            let Some(Ok(chunk)) = chunk else {
                return Err(Error::Io(
                    "the SSE stream ended before the endpoint event".into(),
                ));
            };
            let mut events = parser.feed(&chunk).into_iter();
            while let Some(ev) = events.next() {
                if ev.event.as_deref() == Some("endpoint") {
                    pending.extend(events);
                    break 'found ev.data;
                }
            }
        };
        let endpoint = self
            .url
            .join(endpoint.trim())
            .map_err(|e| Error::Io(format!("bad endpoint {endpoint}: {e}")))?;
        if endpoint.origin() != self.url.origin() {
            return Err(Error::Io(format!(
                "the endpoint {endpoint} is not on the server's origin"
            )));
        }
        self.lock().legacy_endpoint = Some(endpoint);
        let me = self.clone();
        tokio::spawn(async move {
            for ev in pending {
                me.deliver(ev.data.as_bytes(), None, None).await;
            }
            loop {
                let chunk = tokio::select! {
                    c = body.next() => c,
                    _ = me.peer.closed() => return,
                };
                let Some(Ok(chunk)) = chunk else { break };
                for ev in parser.feed(&chunk) {
                    if ev.event.as_deref().unwrap_or("message") == "message" {
                        let init_id = me.init_id();
                        me.deliver(ev.data.as_bytes(), init_id.as_ref(), None).await;
                    }
                }
            }
            me.peer.close("the server closed the SSE stream".into());
            me.handler.closed();
        });
        Ok(())
    }
}
