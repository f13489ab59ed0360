//! `mcp-gateway --config FILE [--http ADDR [--redis URL]] [--state-keys KEYS] [--discovery]`: serves the
//! configured upstreams as one MCP server, over stdio (the default) or Streamable HTTP at
//! `http://ADDR/mcp` (with the legacy `/sse` beside it, and `/health` and `/metrics` for operations).
//! With `--redis` (or `gateway.redis` in the file), several instances behind a load balancer share their
//! downstream sessions, event logs and tasks in Redis, and with `--state-keys` the keys of 2026-07-28
//! request states (see docs/deploy.md). The config file is watched and reloaded when it changes, and on
//! `SIGHUP` (see docs/gateway.md); `--no-watch` keeps only the signal.

use clap::Parser;
use mcp_gateway::{Config, Gateway};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "mcp-gateway", version, about, after_long_help = EXAMPLE)]
struct Args {
    /// The `mcpServers` JSON file.
    #[arg(long, short)]
    config: PathBuf,
    /// Serve Streamable HTTP on this address (for example 127.0.0.1:8080) instead of stdio.
    #[arg(long)]
    http: Option<SocketAddr>,
    /// Discovery mode: list three meta-tools (search, describe, call) instead of every tool, as
    /// `"gateway": {"discovery": true}` in the config does.
    #[arg(long)]
    discovery: bool,
    /// Worker threads. 1 (the default) runs everything on one thread, which relays fastest: a hop is
    /// I/O, and handing each message between threads costs more than it saves. 0: one per core.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// With --http: keep downstream sessions, SSE event logs and tasks in this Redis
    /// (`redis://127.0.0.1:6379`), so that several instances behind a load balancer serve any request.
    /// Overrides `gateway.redis` in the config file.
    #[arg(long, value_name = "URL")]
    redis: Option<String>,
    /// The keys that seal 2026-07-28 request states, `kid:hex[,kid:hex...]` (32 bytes or more each; the
    /// first seals, all open): instances behind one load balancer share them. Default: the
    /// MCP_REQUEST_STATE_KEYS environment variable, else a random key (one instance only).
    #[arg(long, value_name = "KID:HEX,...")]
    state_keys: Option<String>,
    /// Do not watch the config file. By default the gateway polls it every 500 ms and applies a new
    /// version without a restart: upstreams added start, removed ones stop (their calls in flight
    /// finish within gateway.reloadGraceMs), changed ones restart, the others and every downstream
    /// session are untouched; a file that does not load is logged and the running config stays.
    /// SIGHUP reloads the file either way.
    #[arg(long)]
    no_watch: bool,
    /// Export each relayed call's `hop` span over OTLP/HTTP to this collector
    /// (`http://127.0.0.1:4318`; spans go to its `/v1/traces`), joined to the caller's W3C trace.
    /// Overrides `gateway.otlp` and OTEL_EXPORTER_OTLP_ENDPOINT. Needs the `otel` feature.
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
}

const EXAMPLE: &str = "\
Example:
  mcp-gateway --config examples/gateway.json
  mcp-gateway --config examples/gateway.json --http 127.0.0.1:8080
  mcp-gateway --config servers.json --http 0.0.0.0:8080 --redis redis://127.0.0.1:6379 --discovery";

fn main() -> ExitCode {
    let args = Args::parse();
    // stdout belongs to the protocol: logs go to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let mut config = match Config::load(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mcp-gateway: {e}");
            return ExitCode::from(2);
        }
    };
    config.discovery |= args.discovery;
    let state_keys =
        match mcp_runtime::server::RequestStateKeys::from_flag_or_env(args.state_keys.as_deref()) {
            Ok(k) => k,
            Err(e) => {
                eprintln!("mcp-gateway: {e}");
                return ExitCode::from(2);
            }
        };
    let rt = match args.threads {
        1 => tokio::runtime::Builder::new_current_thread(),
        0 => tokio::runtime::Builder::new_multi_thread(),
        n => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
    }
    .enable_all()
    .build();
    let rt = match rt {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp-gateway: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    #[cfg(not(feature = "otel"))]
    if args.otlp_endpoint.is_some() || config.otlp.is_some() {
        eprintln!(
            "mcp-gateway: --otlp-endpoint (or gateway.otlp) needs a build with the `otel` feature"
        );
        return ExitCode::from(2);
    }
    #[cfg(feature = "otel")]
    let otlp = mcp_gateway::otel::endpoint(args.otlp_endpoint.as_deref(), config.otlp.as_deref());
    let redis = args.redis.clone().or_else(|| config.redis.clone());
    let auth = config.auth.clone();
    if auth.is_some() && args.http.is_none() {
        eprintln!("mcp-gateway: gateway.auth is for the HTTP front (--http): stdio has no tokens");
        return ExitCode::from(2);
    }
    if redis.is_some() && args.http.is_none() {
        eprintln!("mcp-gateway: --redis (or gateway.redis) needs --http: stdio serves one client");
        return ExitCode::from(2);
    }
    rt.block_on(async move {
        #[cfg(feature = "otel")]
        let otlp = match otlp.as_deref().map(mcp_gateway::otel::Otlp::install) {
            None => None,
            Some(Ok(o)) => {
                tracing::info!(
                    "exporting spans over OTLP to {}",
                    otlp.as_deref().unwrap_or("")
                );
                Some(o)
            }
            Some(Err(e)) => {
                eprintln!("mcp-gateway: {e}");
                return ExitCode::from(2);
            }
        };
        let stores = match redis {
            None => None,
            Some(url) => {
                let config = mcp_runtime::scale::redis::RedisConfig::new(url.clone());
                match mcp_runtime::scale::redis::RedisStores::connect(config).await {
                    Ok(s) => Some(s),
                    Err(e) => {
                        eprintln!("mcp-gateway: --redis {url}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
        };
        let tasks = stores
            .as_ref()
            .map(|s| s.tasks.clone() as std::sync::Arc<dyn mcp_runtime::server::TaskStore>);
        let gateway = Gateway::start_shared(config, tasks, state_keys).await;
        let watch = mcp_gateway::WatchOptions {
            poll: (!args.no_watch).then(|| std::time::Duration::from_millis(500)),
            sighup: true,
        };
        let _watcher = mcp_gateway::reload::watch(&gateway, args.config.clone(), watch);
        for s in gateway.status() {
            tracing::info!(upstream = %s.name, state = s.state, tools = s.tools, "upstream");
        }
        let served = match args.http {
            None => gateway.server().serve_stdio().await,
            Some(addr) => {
                tracing::info!("serving http://{addr}/mcp (and /health, /metrics)");
                let config = mcp_runtime::http::HttpConfig {
                    auth: auth
                        .as_ref()
                        .map(mcp_gateway::auth::FrontAuth::resource_server),
                    extra_routes: Some(mcp_gateway::ops::routes(&gateway)),
                    shared: stores.map(|s| s.shared),
                    ..Default::default()
                };
                mcp_runtime::http::serve_http(gateway.server().clone(), addr, config, async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
            }
        };
        // The spans still queued go out before the process ends (off this runtime's thread, which
        // sends them).
        #[cfg(feature = "otel")]
        if let Some(o) = otlp {
            let _ = tokio::task::spawn_blocking(move || o.shutdown()).await;
        }
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mcp-gateway: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

#[cfg(test)]
mod help {
    use super::Args;
    use clap::CommandFactory;

    #[test]
    fn every_argument_says_what_it_does_and_every_command_shows_an_example() {
        let problems = test_support::cli_help::problems(&Args::command());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
