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
    #[command(after_long_help = SNAPSHOT_EXAMPLE)]
    Snapshot {
        #[command(flatten)]
        server: Server,
        /// Where to write the snapshot.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Write typed client bindings, from a snapshot or a live server.
    #[command(after_long_help = GENERATE_EXAMPLE)]
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
    #[command(after_long_help = CHECK_EXAMPLE)]
    Check {
        /// The recorded snapshot.
        #[arg(long)]
        snapshot: PathBuf,
        #[command(flatten)]
        server: Server,
    },
    /// The prompt cost of a tool set: bytes and estimated tokens per tool and in total, and its noise.
    #[command(after_long_help = AUDIT_EXAMPLE)]
    Audit {
        #[command(flatten)]
        input: Input,
        /// Also audit this snapshot and say how the audited tools compare with it: bytes and tokens of
        /// each, and how many fewer (say, a gateway's discovery mode against its full catalogue).
        #[arg(long, value_name = "SNAPSHOT")]
        baseline: Option<PathBuf>,
    },
    /// Convert an OpenAPI 3.0/3.1 spec into tools and typed bindings.
    #[command(after_long_help = OPENAPI_EXAMPLE)]
    Openapi(mcp_codegen::openapi::cli::OpenapiArgs),
    /// Serve an OpenAPI spec's operations as an MCP server (stdio, or Streamable HTTP with --http).
    #[command(after_long_help = SERVE_OPENAPI_EXAMPLE)]
    ServeOpenapi(mcp_codegen::openapi::cli::ServeArgs),
    /// Relay a client's session to a server, unchanged, and record it as JSON Lines.
    #[command(long_about = RECORD_HELP)]
    Record(RecordArgs),
    /// Serve a recorded session as a stdio (or Streamable HTTP) server: recorded answers to recorded
    /// requests.
    #[command(long_about = REPLAY_HELP)]
    Replay {
        /// The recording (made by `record`).
        file: PathBuf,
        /// Serve Streamable HTTP on this address (`127.0.0.1:8080`, endpoint `/mcp`) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
    },
    /// Play a recording's client side against a server; exit 0 if it answers as recorded, 1 on drift
    /// (with a diff per request), 2 if it cannot run.
    #[command(long_about = VERIFY_HELP)]
    Verify(VerifyArgs),
}

const SNAPSHOT_EXAMPLE: &str = "\
Example:
  mcp-codegen snapshot --stdio \"cargo run -q -p examples --bin jira-server\" -o tools.json
  mcp-codegen snapshot --url https://mcp.example.com/mcp --header \"Authorization: Bearer $TOKEN\" -o tools.json";

const GENERATE_EXAMPLE: &str = "\
Example:
  mcp-codegen generate --snapshot tools.json -o src/jira.rs --client-name Jira
  mcp-codegen generate --timeout 600 --stdio \"cargo run -q -p examples --bin jira-server\"
  mcp-codegen generate --openapi petstore.yaml -o src/petstore.rs";

const CHECK_EXAMPLE: &str = "\
Example:
  mcp-codegen check --snapshot tools.json --stdio \"cargo run -q -p examples --bin jira-server\"";

const AUDIT_EXAMPLE: &str = "\
Example:
  mcp-codegen audit --snapshot tools.json
  mcp-codegen audit --openapi petstore.yaml
  mcp-codegen audit --stdio \"mcp-gateway --config FILE --discovery\" --baseline full.json";

const OPENAPI_EXAMPLE: &str = "\
Example:
  mcp-codegen openapi petstore.yaml --emit-tools tools.json -o src/petstore.rs
  mcp-codegen openapi api.github.com.json --by-tag -o src/github.rs";

const SERVE_OPENAPI_EXAMPLE: &str = "\
Example:
  mcp-codegen serve-openapi petstore.yaml --base-url https://petstore.example.com/v1 \\
      --header \"Authorization: Bearer $TOKEN\"
  mcp-codegen serve-openapi petstore.yaml --base-url https://petstore.example.com/v1 --http 127.0.0.1:8080";

const RECORD_HELP: &str = "\
Runs as a stdio MCP server for any client and relays every message both ways, unchanged, to the server
given with --stdio (a command line, started as a child) or --url (a Streamable HTTP endpoint), writing
the session to FILE as JSON Lines: a header line, then one line per message with its direction (c2s or
s2c), its time offset in milliseconds and the message. Our stdout carries the protocol alone; the
child's stderr and our messages go to stderr.

Secrets are never written: the values of the environment variables named with --redact, and every
--header value (and the token of `Bearer TOKEN`), become \"[redacted]\".

Example, as the command of a host's mcpServers entry:
  mcp-codegen record -o session.jsonl --redact GITHUB_TOKEN \\
      --stdio \"npx -y @modelcontextprotocol/server-everything\"
  mcp-codegen record -o session.jsonl --url https://mcp.example.com/mcp \\
      --header \"Authorization: Bearer $TOKEN\"";

const REPLAY_HELP: &str = "\
Serves a recording (from `record`) as a stdio MCP server, or with --http ADDR as a Streamable HTTP one
(endpoint /mcp; each session and each stand-alone 2026-07-28 POST is served from the same recording). Each request is answered with the recorded
answer of the recorded request with the same method and params (`_meta` set aside; `initialize` and
`server/discover` by method alone), under the live request's id; what the server sent meanwhile
(notifications, progress under the live progress token, sampling and elicitation requests, whose answers
are awaited) is sent first, in order. A request recorded several times is answered in recorded order,
then with its last answer. A request never recorded is answered with a JSON-RPC error naming it (-32601
for a method the recording lacks, -32602 for other params), and the replay goes on serving. A truncated
or hand-edited recording is refused with its line and the problem.

Example:
  mcp-codegen replay session.jsonl
  mcp-codegen replay session.jsonl --http 127.0.0.1:8080
  (in a host's config: \"command\": \"mcp-codegen\", \"args\": [\"replay\", \"session.jsonl\"])";

const VERIFY_HELP: &str = "\
Plays a recording's client side against a server (--stdio or --url): the recorded requests and
notifications go out as they were, cancelled requests are cancelled after the recorded delay, the
server's requests are answered with the recorded client's answers, and values the server chose
(requestState, cursors, task ids) are mapped to the live ones. Every answer that differs from the
recorded one is printed as a unified diff (recorded -, live +) under the recording's line and the request.

Left out of the comparison: `_meta` and `requestState` everywhere, timestamps (RFC 3339 strings), and
each --ignore rule: a key (`timestamp`, left out at any depth) or a dotted path from the top of a result
or error (`serverInfo.version`, `content.*.text`, `*` for any key or index).

Exit status: 0 when the server answers as recorded, 1 on drift, 2 when it cannot run (the recording is
refused, the server cannot start, dies or stops answering: the reason is printed).

Example:
  mcp-codegen verify session.jsonl --stdio \"npx -y @modelcontextprotocol/server-everything@2026.8.31\" \\
      --ignore serverInfo.version";

/// `record`'s arguments.
#[derive(Args)]
struct RecordArgs {
    #[command(flatten)]
    target: Target,
    /// Where to write the recording (JSON Lines); `{n}` in the name becomes the first number not taken,
    /// so that each session a client starts gets its own file.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// An environment variable whose value never reaches the recording (repeatable).
    #[arg(long = "redact", value_name = "ENV_NAME")]
    redact: Vec<String>,
}

/// `verify`'s arguments.
#[derive(Args)]
struct VerifyArgs {
    /// The recording (made by `record`).
    file: PathBuf,
    #[command(flatten)]
    target: Target,
    /// A field to leave out of the comparison: a key at any depth, or a dotted path (repeatable).
    #[arg(long = "ignore", value_name = "FIELD")]
    ignore: Vec<mcp_codegen::verify::IgnoreRule>,
    /// Seconds to wait for any one answer from the server.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
}

/// The server to record or verify against.
#[derive(Args, Clone)]
struct Target {
    /// Start the server with this command line and talk over its stdio.
    #[arg(
        long,
        value_name = "CMD ARGS",
        conflicts_with = "url",
        required_unless_present = "url"
    )]
    stdio: Option<String>,
    /// A Streamable HTTP server's endpoint.
    #[arg(long)]
    url: Option<String>,
    /// An HTTP header, `Name: value` (repeatable; its value is never recorded).
    #[arg(long = "header", value_name = "K:V", requires = "url")]
    headers: Vec<String>,
}

impl Target {
    fn source(&self) -> Result<Source> {
        Server {
            stdio: self.stdio.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            capabilities: DeclaredCapabilities::default(),
            timeout: 30.0,
        }
        .source()
    }
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
    /// A snapshot written by `mcp-codegen snapshot` (a recorded `tools/list`).
    #[arg(long, conflicts_with_all = ["stdio", "url", "openapi"], required_unless_present_any = ["stdio", "url", "openapi"])]
    snapshot: Option<PathBuf>,
    /// An OpenAPI 3.0/3.1 spec, converted as `mcp-codegen openapi` does (with its filter and budget flags).
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["stdio", "url"])]
    openapi: Option<PathBuf>,
    #[command(flatten)]
    spec_options: mcp_codegen::openapi::cli::SpecOptions,
    /// Start the server with this command line and talk over its stdio.
    #[arg(long, value_name = "CMD ARGS", conflicts_with = "url")]
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
        Command::Record(args) => return record_command(args).await,
        Command::Replay { file, http } => {
            let session = mcp_codegen::recording::Session::load(&file)?;
            let server = mcp_codegen::replay::server(&session)
                .map_err(|e| anyhow::anyhow!("cannot serve {}: {e}", file.display()))?;
            match http {
                None => server
                    .serve_stdio()
                    .await
                    .context("cannot take over stdin and stdout")?,
                Some(addr) => {
                    let listener = tokio::net::TcpListener::bind(addr)
                        .await
                        .with_context(|| format!("cannot listen on {addr}"))?;
                    // The address actually bound (port 0 picks one), for the scripts that start us.
                    eprintln!(
                        "mcp-codegen replay: Streamable HTTP on http://{}/mcp",
                        listener.local_addr()?
                    );
                    mcp_runtime::http::serve_http_on(
                        server,
                        listener,
                        mcp_runtime::http::HttpConfig::default(),
                        async {
                            let _ = tokio::signal::ctrl_c().await;
                        },
                    )
                    .await
                    .context("the HTTP server failed")?;
                }
            }
        }
        Command::Verify(args) => return verify_command(args).await,
        Command::Openapi(args) => return mcp_codegen::openapi::cli::openapi(args),
        Command::ServeOpenapi(args) => return mcp_codegen::openapi::cli::serve_openapi(args).await,
    }
    Ok(ExitCode::SUCCESS)
}

async fn record_command(args: RecordArgs) -> Result<ExitCode> {
    use mcp_codegen::record::{record_session, RecordOptions};
    let options = RecordOptions {
        source: args.target.source()?,
        redact_env: args.redact,
        stderr: mcp_runtime::StderrMode::Inherit,
    };
    let (header, redactor) = options.header_and_redactor();
    let (file, output) = create_recording(&args.output)?;
    let recorder = mcp_codegen::recording::Recorder::new(
        Box::new(std::io::BufWriter::new(file)),
        &header,
        redactor,
    )
    .with_context(|| format!("could not write {}", output.display()))?;
    let (reader, writer, probe) =
        mcp_runtime::stdio::stdio_streams().context("cannot take over stdin and stdout")?;
    let why = record_session(
        &options,
        std::sync::Arc::new(recorder),
        reader,
        writer,
        Some(probe),
    )
    .await?;
    eprintln!(
        "mcp-codegen record: {why}; recorded to {}",
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Creates the recording's file: `{n}` in its name becomes the first number whose file does not exist
/// yet (a client that starts several sessions gets one file each).
fn create_recording(path: &std::path::Path) -> Result<(std::fs::File, PathBuf)> {
    let text = path.to_string_lossy();
    if !text.contains("{n}") {
        let file = std::fs::File::create(path)
            .with_context(|| format!("could not create {}", path.display()))?;
        return Ok((file, path.to_path_buf()));
    }
    for n in 1..100_000 {
        let candidate = PathBuf::from(text.replace("{n}", &n.to_string()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => return Ok((file, candidate)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => bail!("could not create {}: {e}", candidate.display()),
        }
    }
    bail!("every name {} up to 99999 is taken", path.display())
}

async fn verify_command(args: VerifyArgs) -> Result<ExitCode> {
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout < 1e9) {
        bail!("--timeout must be a positive number of seconds");
    }
    let session = mcp_codegen::recording::Session::load(&args.file)?;
    let source = args.target.source()?;
    let report = mcp_codegen::verify::verify(
        &session,
        &source,
        &args.ignore,
        Duration::from_secs_f64(args.timeout),
    )
    .await
    .with_context(|| format!("verifying {} against {source}", args.file.display()))?;
    for d in &report.drift {
        println!(
            "{}:{}: {}\n{}",
            args.file.display(),
            d.line,
            d.request,
            d.diff
        );
    }
    if report.drift.is_empty() {
        println!(
            "{}: {source} answers as recorded ({} requests compared)",
            args.file.display(),
            report.compared
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "{}: {} of {} answers drifted from the recording",
            args.file.display(),
            report.drift.len(),
            report.compared
        );
        Ok(ExitCode::from(1))
    }
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

#[cfg(test)]
mod help {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn every_argument_says_what_it_does_and_every_command_shows_an_example() {
        let problems = test_support::cli_help::problems(&Cli::command());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
