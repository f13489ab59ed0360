//! `mcp-codegen`: snapshot a server's tools, generate typed bindings, check for drift, audit the prompt cost.

use anyhow::{bail, Context as _, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use mcp_codegen::live::{record, Recording, Source};
use mcp_codegen::{generate, DeclaredCapabilities, Options, Snapshot};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "mcp-codegen",
    version,
    about = "Typed Rust client bindings from an MCP server's tools/list"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Connect to a server, list all its tools, and write a snapshot.
    Snapshot {
        #[command(flatten)]
        server: Server,
        /// Where to write the snapshot.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Write typed client bindings, from a snapshot or a live server.
    Generate {
        #[command(flatten)]
        input: Input,
        /// Where to write the bindings (`-` for stdout).
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        /// The name of the generated client type.
        #[arg(long, default_value = "Client")]
        client_name: String,
    },
    /// Compare a snapshot with the live server; exit 1 on drift, with a diff per tool.
    Check {
        /// The recorded snapshot.
        #[arg(long)]
        snapshot: PathBuf,
        #[command(flatten)]
        server: Server,
    },
    /// The prompt cost of a tool set: bytes and estimated tokens per tool and in total, and its noise.
    Audit {
        #[command(flatten)]
        input: Input,
        /// Also audit this snapshot and say how the audited tools compare with it: bytes and tokens of
        /// each, and how many fewer (say, a gateway's discovery mode against its full catalogue).
        #[arg(long, value_name = "SNAPSHOT")]
        baseline: Option<PathBuf>,
    },
    /// Convert an OpenAPI 3.0/3.1 spec into tools and typed bindings.
    Openapi(mcp_codegen::openapi::cli::OpenapiArgs),
    /// Serve an OpenAPI spec's operations as an MCP server (stdio, or Streamable HTTP with --http).
    ServeOpenapi(mcp_codegen::openapi::cli::ServeArgs),
}

/// A live server.
#[derive(Args, Clone)]
struct Server {
    /// Start the server with this command line and talk over its stdio.
    #[arg(
        long,
        value_name = "CMD ARGS",
        conflicts_with = "url",
        required_unless_present = "url"
    )]
    stdio: Option<String>,
    /// Connect to a Streamable HTTP server.
    #[arg(long)]
    url: Option<String>,
    /// An HTTP header, `Name: value` (repeatable).
    #[arg(long = "header", value_name = "K:V", requires = "url")]
    headers: Vec<String>,
    /// Client capabilities to declare: any of roots,sampling,elicitation.
    #[arg(long, default_value = "", value_parser = parse_capabilities)]
    capabilities: DeclaredCapabilities,
    /// Seconds to wait for any one answer from the server.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
}

/// A snapshot file, a live server, or an OpenAPI spec.
#[derive(Args, Clone)]
struct Input {
    #[arg(long, conflicts_with_all = ["stdio", "url", "openapi"], required_unless_present_any = ["stdio", "url", "openapi"])]
    snapshot: Option<PathBuf>,
    /// An OpenAPI 3.0/3.1 spec, converted as `mcp-codegen openapi` does (with its filter and budget flags).
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["stdio", "url"])]
    openapi: Option<PathBuf>,
    #[command(flatten)]
    spec_options: mcp_codegen::openapi::cli::SpecOptions,
    #[arg(long, value_name = "CMD ARGS", conflicts_with = "url")]
    stdio: Option<String>,
    #[arg(long)]
    url: Option<String>,
    #[arg(long = "header", value_name = "K:V", requires = "url")]
    headers: Vec<String>,
    #[arg(long, default_value = "", value_parser = parse_capabilities)]
    capabilities: DeclaredCapabilities,
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
}

fn parse_capabilities(s: &str) -> Result<DeclaredCapabilities, String> {
    DeclaredCapabilities::parse(s)
}

impl Server {
    fn source(&self) -> Result<Source> {
        match (&self.stdio, &self.url) {
            (Some(cmd), _) => Ok(Source::Stdio(cmd.clone())),
            (None, Some(url)) => Ok(Source::Url {
                url: url.clone(),
                headers: parse_headers(&self.headers)?,
            }),
            (None, None) => bail!("say which server: --stdio \"CMD ARGS\" or --url URL"),
        }
    }

    fn recording(&self) -> Result<Recording> {
        if !(self.timeout.is_finite() && self.timeout > 0.0 && self.timeout < 1e9) {
            bail!("--timeout must be a positive number of seconds");
        }
        Ok(Recording {
            capabilities: self.capabilities,
            timeout: Duration::from_secs_f64(self.timeout),
            ..Recording::default()
        })
    }

    async fn snapshot(&self) -> Result<Snapshot> {
        let source = self.source()?;
        let recording = self.recording()?;
        let bar = progress(&format!("listing the tools of {source}"));
        let result = record(&source, &recording, |n| {
            if let Some(b) = &bar {
                b.set_message(format!("{n} tools from {source}"));
            }
        })
        .await;
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        Ok(result?)
    }
}

impl Input {
    fn conversion(&self) -> Result<Option<mcp_codegen::openapi::Conversion>> {
        match &self.openapi {
            Some(spec) => Ok(Some(mcp_codegen::openapi::cli::load(
                spec,
                &self.spec_options.convert_options(Vec::new()),
            )?)),
            None => Ok(None),
        }
    }

    async fn snapshot(&self) -> Result<Snapshot> {
        if let Some(conversion) = self.conversion()? {
            return Ok(mcp_codegen::openapi::snapshot(&conversion));
        }
        match &self.snapshot {
            Some(path) => Ok(Snapshot::load(path)?),
            None => {
                let server = Server {
                    stdio: self.stdio.clone(),
                    url: self.url.clone(),
                    headers: self.headers.clone(),
                    capabilities: self.capabilities,
                    timeout: self.timeout,
                };
                server.snapshot().await
            }
        }
    }
}

fn parse_headers(headers: &[String]) -> Result<Vec<(String, String)>> {
    headers
        .iter()
        .map(|h| match h.split_once(':') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => bail!("--header {h:?} is not `Name: value`"),
        })
        .collect()
}

/// A spinner on stderr, or nothing when stderr is not a terminal.
fn progress(message: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(100));
    Some(bar)
}

fn write_output(path: &PathBuf, text: &str) -> Result<()> {
    if path.as_os_str() == "-" {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .context("writing to stdout")?;
        return Ok(());
    }
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

async fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Snapshot { server, output } => {
            let snapshot = server.snapshot().await?;
            write_output(&output, &snapshot.to_json())?;
            eprintln!(
                "{} tools from {} {}",
                snapshot.tools.len(),
                snapshot.server.name,
                snapshot.server.version
            );
        }
        Command::Generate {
            input,
            output,
            client_name,
        } => {
            if let Some(conversion) = input.conversion()? {
                mcp_codegen::openapi::cli::write_bindings(
                    &conversion,
                    &output,
                    &client_name,
                    false,
                )?;
                return Ok(ExitCode::SUCCESS);
            }
            let snapshot = input.snapshot().await?;
            let options = Options {
                client_name,
                ..Options::for_snapshot(&snapshot)
            };
            let generated = generate(&snapshot.tools, &options);
            for w in &generated.warnings {
                eprintln!("warning: {w}");
            }
            write_output(&output, &generated.code)?;
        }
        Command::Check { snapshot, server } => {
            let recorded = Snapshot::load(&snapshot)?;
            let live = server.snapshot().await?;
            let drift = mcp_codegen::check::compare(&recorded, &live);
            print!("{}", drift.report());
            if !drift.is_empty() {
                eprintln!(
                    "{}: {} tools drifted from the server",
                    snapshot.display(),
                    drift.tools.len()
                );
                return Ok(ExitCode::from(1));
            }
            println!(
                "{}: up to date ({} tools)",
                snapshot.display(),
                live.tools.len()
            );
        }
        Command::Audit { input, baseline } => {
            let baseline = match &baseline {
                Some(path) => Some((path, Snapshot::load(path)?)),
                None => None,
            };
            if let (Some((path, base)), None) = (&baseline, &input.openapi) {
                let audited = input.snapshot().await?;
                let audit = mcp_codegen::audit::audit(&audited.tools);
                print!("{}", audit.report());
                let base = mcp_codegen::audit::audit(&base.tools);
                print!(
                    "{}",
                    mcp_codegen::audit::comparison(&base, &audit, &path.display().to_string())
                );
                return Ok(ExitCode::SUCCESS);
            }
            if baseline.is_some() {
                bail!(
                    "--baseline compares with a snapshot or a live server's tools, not --openapi"
                );
            }
            if let Some(conversion) = input.conversion()? {
                let audit = mcp_codegen::audit::audit(&conversion.tools());
                print!("{}", audit.report());
                let cuts: Vec<(String, Vec<mcp_codegen::openapi::Cut>)> = conversion
                    .operations
                    .iter()
                    .map(|o| (o.tool.name.clone(), o.cuts.clone()))
                    .collect();
                print!("{}", mcp_codegen::audit::cuts_report(&cuts));
                return Ok(ExitCode::SUCCESS);
            }
            let snapshot = input.snapshot().await?;
            print!("{}", mcp_codegen::audit::audit(&snapshot.tools).report());
        }
        Command::Openapi(args) => return mcp_codegen::openapi::cli::openapi(args),
        Command::ServeOpenapi(args) => return mcp_codegen::openapi::cli::serve_openapi(args).await,
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: could not start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(run(cli));
    // A server that ignores the end of its stdin must not keep us waiting.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
