//! The `openapi` and `serve-openapi` subcommands, and the OpenAPI flags `generate` and `audit` share; `main.rs`
//! only routes to them.

use super::bindings::{bindings, Layout};
use anyhow::{bail, Context as _, Result};
use mcp_openapi::{
    convert, Bridge, BridgeConfig, Budget, Conversion, ConvertOptions, Document, Filter,
};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Which operations become tools. Each flag repeats; an operation is kept when it matches every kind given.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Select {
    /// Keep operations with this tag.
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Keep operations whose operationId or tool name matches this glob (`repos/*`, `get*`).
    #[arg(long = "operation", value_name = "GLOB")]
    pub operations: Vec<String>,
    /// Keep operations whose path matches this glob (`/pets/*`; `**` crosses `/`).
    #[arg(long = "path", value_name = "GLOB")]
    pub paths: Vec<String>,
    /// Keep operations with this HTTP method.
    #[arg(long = "method", value_name = "METHOD")]
    pub methods: Vec<String>,
}

impl Select {
    fn filter(&self) -> Filter {
        Filter {
            tags: self.tags.clone(),
            operations: self.operations.clone(),
            paths: self.paths.clone(),
            methods: self.methods.clone(),
        }
    }
}

/// What each converted tool may cost in the model's prompt (bytes of compact JSON).
#[derive(clap::Args, Debug, Clone)]
pub struct BudgetArgs {
    /// Bytes for each tool's input schema.
    #[arg(long, value_name = "BYTES", default_value_t = Budget::DEFAULT.input)]
    pub input_budget: usize,
    /// Bytes for each tool's output schema.
    #[arg(long, value_name = "BYTES", default_value_t = Budget::DEFAULT.output)]
    pub output_budget: usize,
    /// Bytes for each tool's description.
    #[arg(long, value_name = "BYTES", default_value_t = Budget::DEFAULT.description)]
    pub description_budget: usize,
    /// No budget (schemas are still cut at recursion, and at 1 MiB).
    #[arg(long, conflicts_with_all = ["input_budget", "output_budget", "description_budget"])]
    pub no_budget: bool,
}

impl Default for BudgetArgs {
    fn default() -> Self {
        BudgetArgs {
            input_budget: Budget::DEFAULT.input,
            output_budget: Budget::DEFAULT.output,
            description_budget: Budget::DEFAULT.description,
            no_budget: false,
        }
    }
}

impl BudgetArgs {
    /// The budget these flags describe ([`Budget::UNLIMITED`] with `--no-budget`).
    pub fn budget(&self) -> Budget {
        if self.no_budget {
            return Budget::UNLIMITED;
        }
        Budget {
            input: self.input_budget,
            output: self.output_budget,
            description: self.description_budget,
        }
    }
}

/// The flags every OpenAPI-reading command takes besides the spec.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SpecOptions {
    /// Which operations become tools (`--tag`, `--include`, `--exclude`...).
    #[command(flatten)]
    pub select: Select,
    /// What each tool may cost in the prompt.
    #[command(flatten)]
    pub budget: BudgetArgs,
}

impl SpecOptions {
    /// The conversion options these flags describe, with `hidden_headers` kept out of the tools' schemas (the
    /// headers the bridge sets itself).
    pub fn convert_options(&self, hidden_headers: Vec<String>) -> ConvertOptions {
        ConvertOptions {
            filter: self.select.filter(),
            hidden_headers,
            budget: self.budget.budget(),
        }
    }
}

/// `mcp-codegen openapi SPEC [--emit-tools tools.json] -o bindings.rs`
#[derive(clap::Args, Debug, Clone)]
pub struct OpenapiArgs {
    /// The spec: OpenAPI 3.0 or 3.1, JSON or YAML.
    pub spec: PathBuf,
    /// Where to write the bindings (`-` for stdout; a directory with `--by-tag`).
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Also write the tools as a snapshot, as `mcp-codegen snapshot` records a live server's.
    #[arg(long, value_name = "tools.json")]
    pub emit_tools: Option<PathBuf>,
    /// The name of the generated client type.
    #[arg(long, default_value = "Client")]
    pub client_name: String,
    /// One module per tag. With `-o DIR`, one file per module: `mod.rs`, `components.rs` and a file per
    /// tag, each a `pub mod` line in `mod.rs` that can be removed to leave the tag out.
    #[arg(long)]
    pub by_tag: bool,
    /// Which operations, within which budget.
    #[command(flatten)]
    pub options: SpecOptions,
}

/// `mcp-codegen serve-openapi SPEC --base-url URL [--header K:V]... [--http ADDR]`
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The spec: OpenAPI 3.0 or 3.1, JSON or YAML.
    pub spec: PathBuf,
    /// The API's base URL; default: the spec's first server, when it is absolute.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// A header sent with every request, `Name: value` (repeatable). Its value never reaches the model.
    #[arg(long = "header", value_name = "K:V")]
    pub headers: Vec<String>,
    /// Seconds a whole API request may take.
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// Seconds to wait for a connection to the API.
    #[arg(long, default_value_t = 10.0)]
    pub connect_timeout: f64,
    /// Serve Streamable HTTP on this address (`127.0.0.1:8080`, endpoint `/mcp`) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Which operations, within which budget.
    #[command(flatten)]
    pub options: SpecOptions,
}

/// Loads and converts a spec, printing the conversion's warnings; an error when no operation is left.
pub fn load(spec: &Path, options: &ConvertOptions) -> Result<Conversion> {
    let doc = Document::load(spec)?;
    let conversion = convert(&doc, options);
    for w in &conversion.warnings {
        eprintln!("warning: {}: {w}", spec.display());
    }
    if conversion.operations.is_empty() {
        if conversion.filtered_out > 0 {
            bail!(
                "the filters left none of the {} operations of {}",
                conversion.filtered_out,
                spec.display()
            );
        }
        bail!(
            "{} has no operation that could be mapped to a tool",
            spec.display()
        );
    }
    Ok(conversion)
}

fn write(path: &Path, text: &str) -> Result<()> {
    if path.as_os_str() == "-" {
        use std::io::Write;
        return std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .context("writing to stdout");
    }
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

fn seconds(flag: &str, s: f64) -> Result<Duration> {
    if !(s.is_finite() && s > 0.0 && s < 1e9) {
        bail!("{flag} must be a positive number of seconds");
    }
    Ok(Duration::from_secs_f64(s))
}

/// Writes the bindings of a conversion to `output` (a file, `-`, or a directory with `by_tag`).
pub fn write_bindings(
    conversion: &Conversion,
    output: &Path,
    client_name: &str,
    by_tag: bool,
) -> Result<()> {
    let options = crate::Options {
        client_name: client_name.to_string(),
        server_label: format!(
            "the OpenAPI spec {} {}",
            conversion.title, conversion.version
        ),
    };
    let layout = if by_tag { Layout::ByTag } else { Layout::Flat };
    let (files, warnings) = bindings(conversion, &options, layout);
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let directory =
        by_tag && output.as_os_str() != "-" && (output.is_dir() || output.extension().is_none());
    if directory {
        std::fs::create_dir_all(output)
            .with_context(|| format!("could not create {}", output.display()))?;
        for (name, text) in files.split() {
            write(&output.join(name), &text)?;
        }
        return Ok(());
    }
    write(output, &files.joined())
}

/// Runs `mcp-codegen openapi`: converts the spec and writes the bindings (and, with `--emit-tools`, the tools
/// as a snapshot). Errors name the spec file and the problem.
pub fn openapi(args: OpenapiArgs) -> Result<ExitCode> {
    let conversion = load(&args.spec, &args.options.convert_options(Vec::new()))?;
    if let Some(path) = &args.emit_tools {
        write(path, &super::snapshot(&conversion).to_json())?;
    }
    write_bindings(&conversion, &args.output, &args.client_name, args.by_tag)?;
    let cut = conversion
        .operations
        .iter()
        .filter(|o| !o.cuts.is_empty())
        .count();
    eprintln!(
        "{} tools from {} {}{}{}",
        conversion.operations.len(),
        conversion.title,
        conversion.version,
        if conversion.filtered_out > 0 {
            format!(
                " ({} operations left out by the filters)",
                conversion.filtered_out
            )
        } else {
            String::new()
        },
        if cut > 0 {
            format!(
                "; {cut} tools cut to fit the budget (`mcp-codegen audit --openapi` says where)"
            )
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `mcp-codegen serve-openapi`: serves the spec's operations as MCP tools over stdio (or Streamable HTTP
/// with `--http`) until the client goes away.
pub async fn serve_openapi(args: ServeArgs) -> Result<ExitCode> {
    let headers: Vec<(String, String)> = args
        .headers
        .iter()
        .map(|h| match h.split_once(':') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => bail!("--header {h:?} is not `Name: value`"),
        })
        .collect::<Result<_>>()?;
    let options = args
        .options
        .convert_options(headers.iter().map(|(k, _)| k.clone()).collect());
    let conversion = load(&args.spec, &options)?;
    let base_url = match args.base_url {
        Some(url) => url,
        None => Document::load(&args.spec)?
            .server_url()
            .context("the spec names no absolute server URL; pass --base-url")?,
    };
    let config = BridgeConfig {
        headers,
        timeout: seconds("--timeout", args.timeout)?,
        connect_timeout: seconds("--connect-timeout", args.connect_timeout)?,
        ..BridgeConfig::new(base_url)
    };
    let (count, title) = (conversion.operations.len(), conversion.title.clone());
    let server = Bridge::new(conversion, &config)?.server()?;
    match args.http {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("could not listen on {addr}"))?;
            let local = listener.local_addr()?;
            eprintln!("serving {count} tools of {title} on http://{local}/mcp");
            let stop = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            mcp_runtime::http::serve_http_on(
                server,
                listener,
                mcp_runtime::http::HttpConfig::default(),
                stop,
            )
            .await?;
        }
        None => server.serve_stdio().await?,
    }
    Ok(ExitCode::SUCCESS)
}
