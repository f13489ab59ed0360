//! The accept loop of [`serve_http_on`](super::serve_http_on): HTTP/1.1 and HTTP/2 on one port (h2c by
//! prior knowledge, or negotiated by ALPN over TLS), head limits and timeouts, graceful shutdown.
//!
//! Many SSE streams share one HTTP/2 connection (one per request, multiplexed); each connection
//! accepts at most [`HttpConfig::http2_max_streams`](super::HttpConfig) of them at once.

use super::config::HttpConfig;
use super::service::StreamableHttpService;
use crate::server::Server;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tower::ServiceExt;

pub(crate) async fn serve(
    server: Server,
    listener: tokio::net::TcpListener,
    config: HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let grace = server.connection_config().drain_timeout;
    let max_head = config.max_header_bytes.max(8 * 1024);
    let head_timeout = config.header_read_timeout;
    #[cfg(feature = "tls")]
    let tls = config
        .tls
        .as_ref()
        .map(|t| tokio_rustls::TlsAcceptor::from(t.server.clone()));
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(head_timeout)
        .max_buf_size(max_head);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_header_list_size(u32::try_from(max_head).unwrap_or(u32::MAX))
        .max_concurrent_streams(config.http2_max_streams)
        .keep_alive_interval(config.keep_alive)
        .keep_alive_timeout(head_timeout);
    if !config.http2 {
        builder = builder.http1_only();
    }
    let extra = config.extra_routes.clone();
    let svc = StreamableHttpService::new(server, config);
    let app = match extra {
        Some(extra) => svc.router().merge(extra),
        None => svc.router(),
    };
    let connections = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, remote) = tokio::select! {
            a = listener.accept() => match a {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors and the like: wait instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        // The client's address rides in every request (rate limits key on it without a token).
        let app = app.clone();
        let service =
            hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                let mut req = req.map(Body::new);
                req.extensions_mut().insert(ConnectInfo(remote));
                app.clone().oneshot(req)
            });
        let builder = builder.clone();
        let watcher = connections.watcher();
        #[cfg(feature = "tls")]
        if let Some(acceptor) = tls.clone() {
            tokio::spawn(async move {
                let stream = match tokio::time::timeout(head_timeout, acceptor.accept(stream)).await
                {
                    Ok(Ok(s)) => s,
                    Ok(Err(e)) => return tracing::debug!(error = %e, "TLS handshake failed"),
                    Err(_) => return tracing::debug!("TLS handshake timed out"),
                };
                let conn = builder
                    .serve_connection(TokioIo::new(stream), service)
                    .into_owned();
                if let Err(e) = watcher.watch(conn).await {
                    tracing::debug!(error = %e, "HTTPS connection ended with an error");
                }
            });
            continue;
        }
        tokio::spawn(async move {
            let conn = builder
                .serve_connection(TokioIo::new(stream), service)
                .into_owned();
            if let Err(e) = watcher.watch(conn).await {
                tracing::debug!(error = %e, "HTTP connection ended with an error");
            }
        });
    }
    drop(listener);
    let sessions = svc.shutdown(grace);
    let conns = tokio::time::timeout(grace + Duration::from_secs(1), connections.shutdown());
    let _ = tokio::join!(sessions, conns);
    Ok(())
}

/// Serves `server` over Streamable HTTP (plus legacy HTTP+SSE) on `addr` until `shutdown` resolves; then
/// stops accepting, ends SSE streams, and gives in-flight calls the connection's drain timeout.
pub async fn serve_http(
    server: Server,
    addr: SocketAddr,
    config: HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    serve_http_on(server, listener, config, shutdown).await
}

/// Like [`serve_http`] on a listener bound already (port 0 in tests).
///
/// Each connection is HTTP/1.1 or HTTP/2 (h2c by prior knowledge; by ALPN over TLS when
/// `config.tls` is set), with the configured head size limit and header-read (and keep-alive idle)
/// timeout. At shutdown the listener closes, kept-alive connections end after their current
/// response, SSE streams end, and in-flight calls get the connection's drain timeout to finish.
pub async fn serve_http_on(
    server: Server,
    listener: tokio::net::TcpListener,
    config: HttpConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve(server, listener, config, shutdown).await
}
