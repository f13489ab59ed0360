//! Response compression (feature `compression`): gzip, zstd or brotli, as the client's
//! `Accept-Encoding` allows, for JSON answers and SSE streams alike.
//!
//! An SSE stream is flushed through the compressor after every chunk the server writes (a sync flush:
//! deflate's `Z_SYNC_FLUSH`, a zstd block end, brotli's `FLUSH` operation), so a compressed stream never
//! holds an event back waiting for more bytes. Generic compression layers (tower-http's included) buffer
//! until their window fills, which is why they leave `text/event-stream` alone; this one does not.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use std::io::Write;

/// Which encodings the server offers, and when.
#[derive(Debug, Clone)]
pub struct Compression {
    /// Offer gzip (`Content-Encoding: gzip`).
    pub gzip: bool,
    /// Offer zstd.
    pub zstd: bool,
    /// Offer brotli (`br`).
    pub brotli: bool,
    /// A complete body shorter than this goes out as is (compressing it costs more than it saves).
    /// Streams are always compressed.
    pub min_size: usize,
}

impl Default for Compression {
    fn default() -> Self {
        Compression {
            gzip: true,
            zstd: true,
            brotli: true,
            min_size: 512,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Gzip,
    Zstd,
    Brotli,
}

impl Encoding {
    fn token(self) -> &'static str {
        match self {
            Encoding::Gzip => "gzip",
            Encoding::Zstd => "zstd",
            Encoding::Brotli => "br",
        }
    }
}

impl Compression {
    /// The encoding to answer with: the client's highest `q`; on a tie zstd, then brotli, then gzip
    /// (fastest to decode first). `None` when the client takes none we offer.
    pub(crate) fn negotiate(&self, headers: &HeaderMap) -> Option<Encoding> {
        let mut best: Option<(Encoding, u32)> = None;
        let mut star: Option<u32> = None;
        let mut seen = Vec::new();
        for v in headers.get_all(header::ACCEPT_ENCODING) {
            let Ok(v) = v.to_str() else { continue };
            for part in v.split(',') {
                let mut it = part.split(';');
                let name = it.next().unwrap_or("").trim().to_ascii_lowercase();
                let q = it
                    .filter_map(|p| p.trim().strip_prefix("q="))
                    .find_map(parse_q)
                    .unwrap_or(1000);
                let enc = match name.as_str() {
                    "gzip" | "x-gzip" if self.gzip => Encoding::Gzip,
                    "zstd" if self.zstd => Encoding::Zstd,
                    "br" if self.brotli => Encoding::Brotli,
                    "*" => {
                        star = Some(q);
                        continue;
                    }
                    _ => continue,
                };
                seen.push(enc);
                if q > 0 && best.is_none_or(|(b, bq)| q > bq || (q == bq && rank(enc) < rank(b))) {
                    best = Some((enc, q));
                }
            }
        }
        if best.is_none() {
            // `*` stands for every encoding not named.
            if let Some(q) = star.filter(|q| *q > 0) {
                let offered = [
                    (Encoding::Zstd, self.zstd),
                    (Encoding::Brotli, self.brotli),
                    (Encoding::Gzip, self.gzip),
                ];
                return offered
                    .into_iter()
                    .find(|(e, on)| *on && !seen.contains(e))
                    .map(|(e, _)| e)
                    .filter(|_| q > 0);
            }
        }
        best.map(|(e, _)| e)
    }
}

fn rank(e: Encoding) -> u8 {
    match e {
        Encoding::Zstd => 0,
        Encoding::Brotli => 1,
        Encoding::Gzip => 2,
    }
}

/// `q=0.5` → 500 (thousandths); `None` when malformed.
fn parse_q(s: &str) -> Option<u32> {
    let f: f32 = s.trim().parse().ok()?;
    (0.0..=1.0)
        .contains(&f)
        .then(|| (f * 1000.0).round() as u32)
}

/// One compressor writing into a buffer that is drained after every chunk.
enum Encoder {
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
    Zstd(zstd::stream::write::Encoder<'static, Vec<u8>>),
    Brotli(Box<brotli::CompressorWriter<Vec<u8>>>),
}

impl Encoder {
    fn new(e: Encoding) -> std::io::Result<Encoder> {
        Ok(match e {
            Encoding::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                Vec::new(),
                flate2::Compression::new(5),
            )),
            Encoding::Zstd => Encoder::Zstd(zstd::stream::write::Encoder::new(Vec::new(), 3)?),
            // Quality 5, window 2^22: brotli's default (11) is far too slow for live answers.
            Encoding::Brotli => Encoder::Brotli(Box::new(brotli::CompressorWriter::new(
                Vec::new(),
                4096,
                5,
                22,
            ))),
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Encoder::Gzip(w) => w,
            Encoder::Zstd(w) => w,
            Encoder::Brotli(w) => w.as_mut(),
        }
    }

    fn output(&mut self) -> &mut Vec<u8> {
        match self {
            Encoder::Gzip(w) => w.get_mut(),
            Encoder::Zstd(w) => w.get_mut(),
            Encoder::Brotli(w) => w.get_mut(),
        }
    }

    /// Compresses `chunk`; with `flush`, everything written so far is decodable from the output.
    fn write(&mut self, chunk: &[u8], flush: bool) -> std::io::Result<Bytes> {
        let w = self.writer();
        w.write_all(chunk)?;
        if flush {
            w.flush()?;
        }
        Ok(Bytes::from(std::mem::take(self.output())))
    }

    /// Ends the stream (trailer, checksum).
    fn finish(self) -> std::io::Result<Bytes> {
        Ok(Bytes::from(match self {
            Encoder::Gzip(w) => w.finish()?,
            Encoder::Zstd(w) => w.finish()?,
            Encoder::Brotli(w) => w.into_inner(),
        }))
    }
}

/// The middleware: compresses the answer when the client accepts an encoding we offer.
pub(crate) async fn compress(config: Compression, req: Request, next: Next) -> Response {
    let enc = if req.method() == Method::HEAD {
        None
    } else {
        config.negotiate(req.headers())
    };
    let resp = next.run(req).await;
    let Some(enc) = enc else { return resp };
    let (mut parts, body) = resp.into_parts();
    if parts.headers.contains_key(header::CONTENT_ENCODING)
        || matches!(
            parts.status,
            StatusCode::NO_CONTENT | StatusCode::NOT_MODIFIED | StatusCode::SWITCHING_PROTOCOLS
        )
    {
        return Response::from_parts(parts, body);
    }
    let stream = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let size = axum::body::HttpBody::size_hint(&body).exact();
    if !stream && size.is_some_and(|n| (n as usize) < config.min_size) {
        return Response::from_parts(parts, body);
    }
    let Ok(encoder) = Encoder::new(enc) else {
        return Response::from_parts(parts, body);
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_ENCODING,
        HeaderValue::from_static(enc.token()),
    );
    parts
        .headers
        .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    Response::from_parts(parts, encode_body(body, encoder, stream))
}

/// The body, compressed chunk by chunk; with `flush_each`, every chunk is flushed through.
fn encode_body(body: Body, encoder: Encoder, flush_each: bool) -> Body {
    let chunks = body.into_data_stream();
    let out = futures_util::stream::unfold(
        (chunks, Some(encoder)),
        move |(mut chunks, mut encoder)| async move {
            loop {
                let enc = encoder.as_mut()?;
                match chunks.next().await {
                    Some(Ok(chunk)) => match enc.write(&chunk, flush_each) {
                        Ok(out) if out.is_empty() => continue,
                        Ok(out) => return Some((Ok(out), (chunks, encoder))),
                        Err(e) => return Some((Err(e), (chunks, None))),
                    },
                    Some(Err(e)) => {
                        let e = std::io::Error::other(e);
                        return Some((Err(e), (chunks, None)));
                    }
                    None => {
                        let end = encoder.take()?.finish();
                        return Some((end, (chunks, None)));
                    }
                }
            }
        },
    );
    Body::from_stream(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn accept(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, v.parse().unwrap());
        h
    }

    #[test]
    fn negotiation_follows_q_values_then_our_preference() {
        let c = Compression::default();
        assert_eq!(c.negotiate(&accept("gzip")), Some(Encoding::Gzip));
        assert_eq!(c.negotiate(&accept("gzip, zstd, br")), Some(Encoding::Zstd));
        assert_eq!(
            c.negotiate(&accept("gzip;q=1, zstd;q=0.5")),
            Some(Encoding::Gzip)
        );
        assert_eq!(c.negotiate(&accept("identity")), None);
        assert_eq!(c.negotiate(&accept("gzip;q=0")), None);
        assert_eq!(c.negotiate(&accept("*")), Some(Encoding::Zstd));
        assert_eq!(c.negotiate(&accept("zstd;q=0, *")), Some(Encoding::Brotli));
        assert_eq!(c.negotiate(&HeaderMap::new()), None);
        let gzip_only = Compression {
            zstd: false,
            brotli: false,
            ..Compression::default()
        };
        assert_eq!(
            gzip_only.negotiate(&accept("zstd, br, gzip")),
            Some(Encoding::Gzip)
        );
    }

    fn decode(e: Encoding, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        match e {
            Encoding::Gzip => {
                let _ = flate2::read::GzDecoder::new(data).read_to_end(&mut out);
            }
            Encoding::Zstd => {
                // A flushed but unfinished frame: decode what is there.
                let mut d = zstd::stream::read::Decoder::new(data).unwrap();
                let _ = d.read_to_end(&mut out);
            }
            Encoding::Brotli => {
                let _ = brotli::Decompressor::new(data, 4096).read_to_end(&mut out);
            }
        }
        out
    }

    #[test]
    fn every_flushed_chunk_is_decodable_before_the_stream_ends() {
        for e in [Encoding::Gzip, Encoding::Zstd, Encoding::Brotli] {
            let mut enc = Encoder::new(e).unwrap();
            let mut wire = Vec::new();
            let mut all = String::new();
            for i in 0..3 {
                let event = format!("event: message\ndata: {{\"n\":{i}}}\n\n");
                all.push_str(&event);
                wire.extend_from_slice(&enc.write(event.as_bytes(), true).unwrap());
                let so_far = String::from_utf8(decode(e, &wire)).unwrap();
                assert!(
                    so_far.ends_with(&event),
                    "{e:?}: event {i} is held back: {so_far:?}"
                );
            }
            wire.extend_from_slice(&enc.finish().unwrap());
            assert_eq!(decode(e, &wire), all.as_bytes());
        }
    }
}
