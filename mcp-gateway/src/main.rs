//! `mcp-gateway --config FILE [--http ADDR] [--discovery]`: serves the configured upstreams as one MCP server, over
//! stdio (the default) or Streamable HTTP at `http://ADDR/mcp` (with the legacy `/sse` beside it, and
//! `/health` and `/metrics` for operations).

use clap::Parser;
use mcp_gateway::{Config, Gateway};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "mcp-gateway", version, about)]
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
}

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
    rt.block_on(async move {
        let gateway = Gateway::start(config).await;
        for s in gateway.status() {
            tracing::info!(upstream = %s.name, state = s.state, tools = s.tools, "upstream");
        }
        let served = match args.http {
            None => gateway.server().serve_stdio().await,
            Some(addr) => {
                tracing::info!("serving http://{addr}/mcp (and /health, /metrics)");
                let config = mcp_runtime::http::HttpConfig {
                    extra_routes: Some(mcp_gateway::ops::routes(&gateway)),
                    ..Default::default()
                };
                mcp_runtime::http::serve_http(gateway.server().clone(), addr, config, async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
            }
        };
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mcp-gateway: {e}");
                ExitCode::FAILURE
            }
        }
    })
}
