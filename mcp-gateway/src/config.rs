//! The gateway's configuration: the `mcpServers` JSON that Claude Desktop, Cursor and VS Code users already
//! have, with a few keys of our own per upstream (`prefix`, `allow`, `deny`, `timeoutMs`,
//! `initTimeoutMs`, `restart`, `sessions`, `maxSessions`, `richText`) and a `gateway` section.
//!
//! Reading is two stages: serde reads the file into the raw shape (an error names the JSON path, line and
//! column), then `Config::parse` turns it into the typed model (an error names the path and the
//! problem). Nothing in a config file panics.

use mcp_openapi::rich_text::{RichText, Rules};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A config the gateway refused: the file, the place in it, and the problem.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}: {place}: {problem}")]
pub struct ConfigError {
    pub file: String,
    /// A JSON path (`mcpServers.files.args[2]`), with the line and column when the parser knows them.
    pub place: String,
    pub problem: String,
}

/// How an upstream is reached.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A child process speaking MCP over stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    /// An HTTP server: Streamable HTTP, falling back to legacy HTTP+SSE (or one of them, when `type`
    /// says so).
    Http {
        url: String,
        headers: BTreeMap<String, String>,
        kind: HttpKind,
    },
    /// A REST API described by an OpenAPI 3.0/3.1 spec, served as MCP tools by `mcp-openapi`'s bridge.
    OpenApi {
        /// The spec file (JSON or YAML); a relative path is relative to the config file.
        spec: PathBuf,
        /// Where the API is; `None`: the spec's first server.
        base_url: Option<String>,
        /// Added to every API request (credentials): left out of the tools' arguments and redacted
        /// from every result.
        headers: BTreeMap<String, String>,
    },
}

/// Which HTTP transport an upstream speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpKind {
    /// Streamable HTTP, with the legacy transport as a fallback.
    Auto,
    StreamableHttp,
    LegacySse,
    /// Each message POSTed, the answer streamed back as NDJSON (`"type": "ndjson"`; see
    /// [`crate::ndjson`]).
    Ndjson,
}

/// One upstream server.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamConfig {
    /// Its key in `mcpServers`.
    pub name: String,
    pub transport: Transport,
    /// What its tools are prefixed with (default: its name).
    pub prefix: String,
    /// Only these tools (upstream names), when set.
    pub allow: Option<Vec<String>>,
    /// Never these tools (upstream names).
    pub deny: Vec<String>,
    /// How long one call may take.
    pub timeout: Duration,
    /// How long it may take to start and initialize.
    pub init_timeout: Duration,
    /// Its restart budget and circuit breaker (`restart`: `budget`, `windowMs`, `cooldownMs`).
    pub restart: crate::breaker::RestartPolicy,
    /// Whether downstream sessions share one connection to it or get one each (`sessions`,
    /// `maxSessions`; see [`crate::sessions`]).
    pub sessions: Sessions,
    /// Rich-text fields converted on the way (`richText`: `results` to Markdown, `arguments` from
    /// Markdown; see [`crate::rich_text`]).
    pub rich_text: RichText,
    /// Connections per caller, carrying its credentials (`credentials`, `perUser`, `maxUsers`,
    /// `userIdleMs`; see [`crate::credentials`]).
    pub per_user: Option<crate::credentials::PerUser>,
}

/// How downstream sessions reach an upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sessions {
    /// One connection (one child) for every session (`"sessions": "shared"`, the default). Its
    /// requests never mix: each call has its own request id, progress token and cancellation upstream.
    #[default]
    Shared,
    /// Each downstream session gets its own connection (a child of its own, for a stdio server),
    /// started on the session's first call and stopped when the session ends
    /// (`"sessions": "per-session"`), at most `max` at a time (`maxSessions`).
    PerSession {
        /// How many sessions may have their own connection at once.
        max: usize,
    },
}

impl UpstreamConfig {
    /// Whether its `resources/read` answers may be cached for every caller: its connection is shared
    /// (a per-session or per-user one answers for its own session or caller).
    pub fn shares_reads(&self) -> bool {
        self.sessions == Sessions::Shared && self.per_user.is_none()
    }

    /// Whether a tool of this upstream is served, by its upstream name.
    pub fn admits(&self, tool: &str) -> bool {
        self.allow
            .as_ref()
            .is_none_or(|a| a.iter().any(|t| t == tool))
            && !self.deny.iter().any(|t| t == tool)
    }
}

/// When names get their upstream's prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Prefixing {
    /// When there is more than one upstream (the default).
    #[default]
    Auto,
    Always,
    /// Never, except to tell apart two tools of the same name.
    Never,
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// In the order of their names (deterministic whatever the file's order).
    pub upstreams: Vec<UpstreamConfig>,
    /// When tool names get their upstream's prefix.
    pub prefixing: Prefixing,
    /// Discovery mode: `tools/list` shows the meta-tools of [`crate::discovery`] instead of every tool.
    pub discovery: bool,
    /// Tools of the gateway's own that call upstream tools in steps (see [`crate::composite`]).
    pub composites: Vec<Composite>,
    /// `gateway.redis`: the Redis URL where several gateway instances keep their downstream sessions,
    /// event logs and tasks (the `--redis` flag overrides it).
    pub redis: Option<String>,
    /// `gateway.reloadGraceMs`: how long calls in flight to an upstream that a reload removed or
    /// restarted may go on before they fail (see [`crate::reload`]).
    pub reload_grace: Duration,
    /// `gateway.cacheBytes`: the bound of the `resources/read` cache, in bytes (`0`: no cache; see
    /// [`crate::cache`]).
    pub cache_bytes: usize,
    /// `gateway.auth`: the HTTP front's resource server (see [`crate::auth`]).
    pub auth: Option<crate::auth::FrontAuth>,
    /// `gateway.rules`: what each caller sees (see [`crate::authz`]).
    pub rules: Option<crate::authz::Rules>,
    /// `gateway.otlp`: the OTLP/HTTP collector the `hop` spans are exported to (the `otel` feature; the
    /// `--otlp-endpoint` flag overrides it).
    pub otlp: Option<String>,
}

/// A tool declared in the config whose steps call upstream tools, each with arguments taken from the
/// composite's input and from earlier steps' results (`"${input.url}"`, `"${extract.text}"`).
#[derive(Debug, Clone, PartialEq)]
pub struct Composite {
    /// Its name downstream (its key in `composites`; it keeps it, an upstream tool that collides is
    /// renamed).
    pub name: String,
    /// Its description downstream.
    pub description: String,
    /// Its input schema (default: any object).
    pub input_schema: serde_json::Map<String, serde_json::Value>,
    /// The steps, run in order.
    pub steps: Vec<Step>,
    /// The step whose result is the composite's result (default: the last).
    pub result: usize,
}

/// One step of a [`Composite`].
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// How later steps refer to its result (default: its tool's name).
    pub id: String,
    /// The upstream, by its index in [`Config::upstreams`].
    pub upstream: usize,
    /// The tool as the upstream names it.
    pub tool: String,
    /// The arguments: a JSON template whose `"${path}"` strings are replaced (see
    /// [`crate::composite`]).
    pub arguments: serde_json::Value,
}

const DEFAULT_TIMEOUT_MS: u64 = 60_000;
const DEFAULT_INIT_TIMEOUT_MS: u64 = 15_000;
/// How long calls in flight to a removed upstream may go on, unless `gateway.reloadGraceMs` says.
pub const DEFAULT_RELOAD_GRACE_MS: u64 = 10_000;
/// Per-session connections one upstream may have at once, unless `maxSessions` says otherwise.
pub const DEFAULT_MAX_SESSIONS: usize = 32;
/// The most `maxSessions` may be (each may be a process).
const MAX_MAX_SESSIONS: u32 = 4096;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(rename = "mcpServers")]
    mcp_servers: BTreeMap<String, RawServer>,
    #[serde(default)]
    gateway: RawGateway,
    #[serde(default)]
    composites: BTreeMap<String, RawComposite>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawComposite {
    description: Option<String>,
    input_schema: Option<serde_json::Map<String, serde_json::Value>>,
    steps: Vec<RawStep>,
    /// The id of the step whose result is returned.
    result: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    id: Option<String>,
    /// The upstream's key in `mcpServers`.
    server: String,
    tool: String,
    #[serde(default)]
    arguments: Option<serde_json::Value>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawGateway {
    /// `"auto"`, `"always"`, `"never"`, or a boolean.
    #[serde(default)]
    prefixes: Option<RawPrefixes>,
    /// List the discovery meta-tools instead of every tool.
    #[serde(default)]
    discovery: bool,
    /// Where several instances share their downstream sessions (`redis://host:port`).
    #[serde(default)]
    redis: Option<String>,
    /// The OTLP/HTTP collector spans go to (`http://127.0.0.1:4318`).
    #[serde(default)]
    otlp: Option<String>,
    /// How long calls in flight to an upstream a reload removed may go on.
    #[serde(default, rename = "reloadGraceMs")]
    reload_grace_ms: Option<u64>,
    /// The bound of the `resources/read` cache, in bytes (`0`: no cache).
    #[serde(default, rename = "cacheBytes")]
    cache_bytes: Option<u64>,
    /// The HTTP front's resource server.
    #[serde(default)]
    auth: Option<crate::auth::FrontAuth>,
    /// Per-caller authorization rules.
    #[serde(default)]
    rules: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawPrefixes {
    Bool(bool),
    Word(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawServer {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// An OpenAPI upstream: the spec file.
    openapi: Option<PathBuf>,
    /// An OpenAPI upstream: the API's base URL.
    base_url: Option<String>,
    #[serde(default)]
    disabled: bool,
    prefix: Option<String>,
    allow: Option<Vec<String>>,
    #[serde(default)]
    deny: Vec<String>,
    timeout_ms: Option<u64>,
    init_timeout_ms: Option<u64>,
    restart: Option<RawRestart>,
    /// `"shared"` (the default) or `"per-session"`.
    sessions: Option<String>,
    /// With `"per-session"`: how many sessions may have their own connection at once.
    max_sessions: Option<u32>,
    /// Rich-text fields: `{"results": {"<path>": "<format>"}, "arguments": {...}}`.
    rich_text: Option<RawRichText>,
    /// An HTTP upstream's per-user credentials (`{"mode": "passthrough" | "token-exchange", ...}`).
    credentials: Option<serde_json::Value>,
    /// A stdio upstream: a child per caller, its `env` rendered from the caller.
    #[serde(default)]
    per_user: bool,
    max_users: Option<u32>,
    user_idle_ms: Option<u64>,
}

/// `richText` of an upstream: field paths to formats, for results and for arguments.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawRichText {
    #[serde(default)]
    results: BTreeMap<String, String>,
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

/// `restart` of an upstream: its restart budget and circuit breaker.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawRestart {
    budget: Option<u32>,
    window_ms: Option<u64>,
    cooldown_ms: Option<u64>,
}

/// Where a problem is, before the file name is known.
struct Problem {
    place: String,
    problem: String,
}

impl Problem {
    fn at(place: impl fmt::Display, problem: impl Into<String>) -> Problem {
        Problem {
            place: place.to_string(),
            problem: problem.into(),
        }
    }
}

impl Config {
    /// Reads and checks a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: file.clone(),
            place: "(file)".into(),
            problem: format!("cannot read: {e}"),
        })?;
        let mut config = Config::parse(&text).map_err(|p| ConfigError {
            file: file.clone(),
            place: p.place,
            problem: p.problem,
        })?;
        // An OpenAPI spec named relative to the config file is found beside it.
        let dir = path.parent().unwrap_or(Path::new(""));
        for u in &mut config.upstreams {
            if let Transport::OpenApi { spec, .. } = &mut u.transport {
                if spec.is_relative() {
                    *spec = dir.join(&*spec);
                }
                if !spec.is_file() {
                    return Err(ConfigError {
                        file,
                        place: format!("mcpServers.{}.openapi", u.name),
                        problem: format!("the spec {} is not a readable file", spec.display()),
                    });
                }
            }
        }
        Ok(config)
    }

    fn parse(text: &str) -> Result<Config, Problem> {
        let raw: RawConfig = from_json(text)?;
        let prefixing = match raw.gateway.prefixes {
            None => Prefixing::Auto,
            Some(RawPrefixes::Bool(true)) => Prefixing::Always,
            Some(RawPrefixes::Bool(false)) => Prefixing::Never,
            Some(RawPrefixes::Word(w)) => match w.as_str() {
                "auto" => Prefixing::Auto,
                "always" => Prefixing::Always,
                "never" => Prefixing::Never,
                _ => {
                    return Err(Problem::at(
                        "gateway.prefixes",
                        format!("`{w}` is not one of \"auto\", \"always\", \"never\", true, false"),
                    ))
                }
            },
        };
        let mut upstreams = Vec::new();
        for (name, mut server) in raw.mcp_servers {
            let place = format!("mcpServers.{name}");
            if server.disabled {
                continue;
            }
            let raw = crate::credentials::RawPerUser {
                credentials: server.credentials.take(),
                per_user: server.per_user,
                max_users: server.max_users,
                user_idle_ms: server.user_idle_ms,
            };
            let mut u = upstream(&name, &place, server)?;
            let kind = match &u.transport {
                Transport::Stdio { env, .. } => crate::credentials::Kind::Stdio(env),
                Transport::Http { .. } => crate::credentials::Kind::Http,
                Transport::OpenApi { .. } => crate::credentials::Kind::OpenApi,
            };
            u.per_user = crate::credentials::per_user(&place, kind, raw)
                .map_err(|(p, why)| Problem::at(p, why))?;
            if u.per_user.is_some() && u.sessions != Sessions::Shared {
                return Err(Problem::at(
                    format!("{place}.sessions"),
                    "a per-user upstream has a connection per caller already: drop \"per-session\"",
                ));
            }
            upstreams.push(u);
        }
        if upstreams.is_empty() {
            return Err(Problem::at(
                "mcpServers",
                "no servers configured (or all are disabled)",
            ));
        }
        let mut seen = BTreeMap::new();
        for (i, u) in upstreams.iter().enumerate() {
            if let Some(j) = seen.insert(u.prefix.clone(), i) {
                return Err(Problem::at(
                    format!("mcpServers.{}.prefix", u.name),
                    format!(
                        "prefix `{}` is already the prefix of `{}`",
                        u.prefix, upstreams[j].name
                    ),
                ));
            }
        }
        let mut composites = Vec::new();
        for (name, c) in raw.composites {
            composites.push(composite(&name, c, &upstreams)?);
        }
        let reload_grace = match raw.gateway.reload_grace_ms {
            None => Duration::from_millis(DEFAULT_RELOAD_GRACE_MS),
            Some(ms) if ms <= 3_600_000 => Duration::from_millis(ms),
            Some(ms) => {
                return Err(Problem::at(
                    "gateway.reloadGraceMs",
                    format!("{ms} is more than an hour (3600000)"),
                ))
            }
        };
        let cache_bytes = match raw.gateway.cache_bytes {
            None => crate::cache::DEFAULT_CACHE_BYTES,
            Some(n) => usize::try_from(n).map_err(|_| {
                Problem::at(
                    "gateway.cacheBytes",
                    format!("{n} does not fit this machine's memory"),
                )
            })?,
        };
        if let Some(a) = &raw.gateway.auth {
            a.check().map_err(|(p, why)| Problem::at(p, why))?;
        }
        let names: Vec<&str> = upstreams.iter().map(|u| u.name.as_str()).collect();
        let rules = match &raw.gateway.rules {
            None => None,
            Some(_) if raw.gateway.discovery => {
                return Err(Problem::at(
                    "gateway.rules",
                    "do not go with discovery mode (its meta-tools reach every tool)",
                ))
            }
            Some(v) => Some(
                crate::authz::Rules::parse(v, &names).map_err(|(p, why)| Problem::at(p, why))?,
            ),
        };
        Ok(Config {
            auth: raw.gateway.auth,
            rules,
            upstreams,
            prefixing,
            composites,
            discovery: raw.gateway.discovery,
            redis: raw.gateway.redis,
            reload_grace,
            cache_bytes,
            otlp: raw.gateway.otlp,
        })
    }
}

fn composite(
    name: &str,
    c: RawComposite,
    upstreams: &[UpstreamConfig],
) -> Result<Composite, Problem> {
    let place = format!("composites.{name}");
    if name.is_empty()
        || name.len() > crate::names::MAX_NAME
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(Problem::at(
            &place,
            format!("`{name}` must be 1 to 64 characters of A-Z, a-z, 0-9, `_`, `-`"),
        ));
    }
    if c.steps.is_empty() {
        return Err(Problem::at(format!("{place}.steps"), "has no steps"));
    }
    let mut steps: Vec<Step> = Vec::with_capacity(c.steps.len());
    for (i, raw) in c.steps.into_iter().enumerate() {
        let at = format!("{place}.steps[{i}]");
        let upstream = upstreams
            .iter()
            .position(|u| u.name == raw.server)
            .ok_or_else(|| {
                Problem::at(
                    format!("{at}.server"),
                    format!(
                        "`{}` is not a server of `mcpServers` (or it is disabled)",
                        raw.server
                    ),
                )
            })?;
        let id = raw.id.unwrap_or_else(|| raw.tool.clone());
        if id == "input" || steps.iter().any(|s| s.id == id) {
            return Err(Problem::at(
                format!("{at}.id"),
                format!("`{id}` is taken (by `input` or an earlier step): give the step an `id`"),
            ));
        }
        let arguments = raw
            .arguments
            .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
        if !arguments.is_object() {
            return Err(Problem::at(format!("{at}.arguments"), "must be an object"));
        }
        let known: Vec<&str> = std::iter::once("input")
            .chain(steps.iter().map(|s| s.id.as_str()))
            .collect();
        crate::template::check_template(&arguments, &known)
            .map_err(|why| Problem::at(format!("{at}.arguments"), why))?;
        steps.push(Step {
            id,
            upstream,
            tool: raw.tool,
            arguments,
        });
    }
    let result = match c.result {
        None => steps.len() - 1,
        Some(r) => steps.iter().position(|s| s.id == r).ok_or_else(|| {
            Problem::at(
                format!("{place}.result"),
                format!("no step has the id `{r}`"),
            )
        })?,
    };
    let input_schema = c.input_schema.unwrap_or_else(|| {
        let mut o = serde_json::Map::new();
        o.insert("type".into(), "object".into());
        o
    });
    // The runtime's own checks of a tool definition, as the server will apply them.
    let probe = mcp_runtime::server::ToolRoute::new(
        mcp_runtime::protocol::Tool::new(name, "", input_schema.clone()),
        |_: mcp_runtime::server::Arguments, _: mcp_runtime::Context| async {
            Ok(mcp_runtime::protocol::CallToolResult::text(""))
        },
    );
    if let Err(e) = mcp_runtime::Server::builder().tool(probe).build() {
        return Err(Problem::at(format!("{place}.inputSchema"), e.to_string()));
    }
    Ok(Composite {
        name: name.to_string(),
        description: c
            .description
            .unwrap_or_else(|| format!("Runs {} steps across upstream servers.", steps.len())),
        input_schema,
        steps,
        result,
    })
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Problem> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let place = if inner.line() > 0 {
            format!("{path} (line {}, column {})", inner.line(), inner.column())
        } else {
            path
        };
        // serde_json appends the position again: keep the message alone.
        let mut problem = inner.to_string();
        if let Some(i) = problem.find(" at line ") {
            problem.truncate(i);
        }
        Problem::at(place, problem)
    })
}

fn upstream(name: &str, place: &str, s: RawServer) -> Result<UpstreamConfig, Problem> {
    if name.is_empty() {
        return Err(Problem::at("mcpServers", "a server has an empty name"));
    }
    let kind = s.kind.as_deref();
    if let Some(spec) = s.openapi {
        if s.command.is_some() || s.url.is_some() {
            return Err(Problem::at(
                place,
                "has `openapi` (a REST API) and `command` or `url`: give one (the API's address is `baseUrl`)",
            ));
        }
        if !matches!(kind, None | Some("openapi")) {
            return Err(Problem::at(
                format!("{place}.type"),
                format!(
                    "`{}` does not go with `openapi` (use \"openapi\")",
                    kind.unwrap_or("")
                ),
            ));
        }
        if !s.args.is_empty() || !s.env.is_empty() || s.cwd.is_some() {
            return Err(Problem::at(
                place,
                "`args`, `env` and `cwd` are for stdio servers (`command`), not `openapi`",
            ));
        }
        if s.sessions.as_deref() == Some("per-session") {
            return Err(Problem::at(
                format!("{place}.sessions"),
                "an OpenAPI upstream keeps no session state (each call is one HTTP request): \"per-session\" is for stdio and MCP HTTP servers",
            ));
        }
        if let Some(url) = &s.base_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(Problem::at(
                    format!("{place}.baseUrl"),
                    format!("`{url}` is not an http:// or https:// URL"),
                ));
            }
        }
        let transport = Transport::OpenApi {
            spec,
            base_url: s.base_url,
            headers: s.headers,
        };
        return finish(
            name,
            place,
            transport,
            s.prefix,
            s.allow,
            s.deny,
            s.timeout_ms,
            s.init_timeout_ms,
            s.restart,
            (s.sessions, s.max_sessions),
            s.rich_text,
        );
    }
    if s.base_url.is_some() {
        return Err(Problem::at(
            format!("{place}.baseUrl"),
            "is for OpenAPI upstreams (`openapi`)",
        ));
    }
    let transport = match (s.command, s.url) {
        (Some(_), Some(_)) => {
            return Err(Problem::at(
                place,
                "has both `command` (stdio) and `url` (HTTP): give one",
            ))
        }
        (None, None) => return Err(Problem::at(
            place,
            "needs `command` (a stdio server), `url` (an HTTP server) or `openapi` (a REST API)",
        )),
        (Some(command), None) => {
            if !matches!(kind, None | Some("stdio")) {
                return Err(Problem::at(
                    format!("{place}.type"),
                    format!(
                        "`{}` does not go with `command` (use \"stdio\")",
                        kind.unwrap_or("")
                    ),
                ));
            }
            if command.trim().is_empty() {
                return Err(Problem::at(format!("{place}.command"), "is empty"));
            }
            if !s.headers.is_empty() {
                return Err(Problem::at(
                    format!("{place}.headers"),
                    "headers are for HTTP servers (`url`); a stdio server takes `env`",
                ));
            }
            Transport::Stdio {
                command,
                args: s.args,
                env: s.env,
                cwd: s.cwd,
            }
        }
        (None, Some(url)) => {
            let kind = match kind {
                None | Some("http") => HttpKind::Auto,
                Some("streamable-http") | Some("streamableHttp") => HttpKind::StreamableHttp,
                Some("sse") => HttpKind::LegacySse,
                Some("ndjson") => HttpKind::Ndjson,
                Some(other) => {
                    return Err(Problem::at(
                        format!("{place}.type"),
                        format!(
                            "`{other}` is not an HTTP transport (\"http\", \"streamable-http\", \"sse\", \"ndjson\")"
                        ),
                    ))
                }
            };
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(Problem::at(
                    format!("{place}.url"),
                    format!("`{url}` is not an http:// or https:// URL"),
                ));
            }
            if !s.args.is_empty() || !s.env.is_empty() || s.cwd.is_some() {
                return Err(Problem::at(
                    place,
                    "`args`, `env` and `cwd` are for stdio servers (`command`), not `url`",
                ));
            }
            Transport::Http {
                url,
                headers: s.headers,
                kind,
            }
        }
    };
    finish(
        name,
        place,
        transport,
        s.prefix,
        s.allow,
        s.deny,
        s.timeout_ms,
        s.init_timeout_ms,
        s.restart,
        (s.sessions, s.max_sessions),
        s.rich_text,
    )
}

/// The keys every kind of upstream shares.
#[allow(clippy::too_many_arguments)]
fn finish(
    name: &str,
    place: &str,
    transport: Transport,
    prefix: Option<String>,
    allow: Option<Vec<String>>,
    deny: Vec<String>,
    timeout_ms: Option<u64>,
    init_timeout_ms: Option<u64>,
    restart: Option<RawRestart>,
    (sessions, max_sessions): (Option<String>, Option<u32>),
    rich_text: Option<RawRichText>,
) -> Result<UpstreamConfig, Problem> {
    let rich_text = rich_text_rules(place, rich_text.unwrap_or_default())?;
    let prefix = prefix.unwrap_or_else(|| sanitize(name));
    if prefix.is_empty()
        || prefix.len() > 32
        || !prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(Problem::at(
            format!("{place}.prefix"),
            format!("`{prefix}` must be 1 to 32 characters of A-Z, a-z, 0-9, `_`, `-`"),
        ));
    }
    let ms = |v: Option<u64>, default: u64, key: &str| match v {
        Some(0) => Err(Problem::at(format!("{place}.{key}"), "must be more than 0")),
        v => Ok(Duration::from_millis(v.unwrap_or(default))),
    };
    let sessions = match (sessions.as_deref(), max_sessions) {
        (None | Some("shared"), None) => Sessions::Shared,
        (None | Some("shared"), Some(_)) => {
            return Err(Problem::at(
                format!("{place}.maxSessions"),
                "applies only with \"sessions\": \"per-session\"",
            ))
        }
        (Some("per-session"), Some(n)) if n == 0 || n > MAX_MAX_SESSIONS => {
            return Err(Problem::at(
                format!("{place}.maxSessions"),
                format!("must be from 1 to {MAX_MAX_SESSIONS}"),
            ))
        }
        (Some("per-session"), n) => Sessions::PerSession {
            max: n.map_or(DEFAULT_MAX_SESSIONS, |n| n as usize),
        },
        (Some(other), _) => {
            return Err(Problem::at(
                format!("{place}.sessions"),
                format!("`{other}` is not \"shared\" or \"per-session\""),
            ))
        }
    };
    Ok(UpstreamConfig {
        per_user: None,
        name: name.to_string(),
        sessions,
        rich_text,
        transport,
        prefix,
        allow,
        deny,
        timeout: ms(timeout_ms, DEFAULT_TIMEOUT_MS, "timeoutMs")?,
        init_timeout: ms(init_timeout_ms, DEFAULT_INIT_TIMEOUT_MS, "initTimeoutMs")?,
        restart: {
            let r = restart.unwrap_or_default();
            let d = crate::breaker::RestartPolicy::default();
            crate::breaker::RestartPolicy {
                budget: r.budget.unwrap_or(d.budget),
                window: match r.window_ms {
                    None => d.window,
                    v => ms(v, 0, "restart.windowMs")?,
                },
                cooldown: match r.cooldown_ms {
                    None => d.cooldown,
                    v => ms(v, 0, "restart.cooldownMs")?,
                },
            }
        },
    })
}

/// `richText`'s rules, checked: each path and format, and only formats Markdown can be written back into
/// for `arguments`. A problem names the rule (`mcpServers.jira.richText.arguments["fields.description"]`).
fn rich_text_rules(place: &str, raw: RawRichText) -> Result<RichText, Problem> {
    let rules = |key: &str, map: &BTreeMap<String, String>, writable: bool| {
        let mut rules = Rules::new();
        for (path, format) in map {
            let at = || format!("{place}.richText.{key}[{path:?}]");
            let format = format
                .parse()
                .map_err(|why: String| Problem::at(at(), why))?;
            rules
                .add(path, format)
                .map_err(|e| Problem::at(at(), e.message))?;
            if writable {
                rules
                    .check_writable()
                    .map_err(|e| Problem::at(at(), e.message))?;
            }
        }
        Ok(rules)
    };
    Ok(RichText {
        results: rules("results", &raw.results, false)?,
        arguments: rules("arguments", &raw.arguments, true)?,
    })
}

/// A server's name as a prefix: characters outside `[A-Za-z0-9_-]` become `_`, at most 32 kept.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(32)
        .collect()
}

impl std::str::FromStr for Config {
    type Err = ConfigError;

    /// Reads and checks a config from its text; the error's `file` is `<config>`.
    fn from_str(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text).map_err(|p| ConfigError {
            file: "<config>".into(),
            place: p.place,
            problem: p.problem,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_config(text: &str) -> Result<Config, ConfigError> {
        text.parse()
    }

    fn err(text: &str) -> ConfigError {
        text_config(text).unwrap_err()
    }

    #[test]
    fn reads_stdio_and_http_servers() {
        let c = text_config(
            r#"{"mcpServers": {
                "files": {"command": "files-server", "args": ["--root", "/tmp"], "env": {"A": "1"},
                          "deny": ["rm"], "timeoutMs": 500},
                "remote server": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer x"}},
                "off": {"command": "x", "disabled": true}
            }}"#,
        )
        .unwrap();
        assert_eq!(c.upstreams.len(), 2);
        assert_eq!(c.upstreams[0].prefix, "files");
        assert_eq!(c.upstreams[0].timeout, Duration::from_millis(500));
        assert!(!c.upstreams[0].admits("rm"));
        assert!(c.upstreams[0].admits("ls"));
        assert_eq!(c.upstreams[1].prefix, "remote_server");
        assert!(matches!(
            &c.upstreams[1].transport,
            Transport::Http { kind: HttpKind::Auto, headers, .. } if headers["Authorization"] == "Bearer x"
        ));
    }

    #[test]
    fn a_wrong_type_names_its_path_and_line() {
        let e = err("{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"args\": [1]}}}");
        assert_eq!(e.place, "mcpServers.a.args[0] (line 2, column 11)");
        assert!(e.problem.contains("expected a string"), "{e}");
        let e =
            err("{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"gateway\": {\"prefixes\": 3}}");
        assert!(e.place.starts_with("gateway.prefixes"), "{e}");
    }

    #[test]
    fn a_typo_is_refused() {
        let e = err(r#"{"mcpServers": {"a": {"comand": "x"}}}"#);
        assert_eq!(e.place, "mcpServers.a.comand (line 1, column 30)");
        assert!(e.problem.contains("unknown field `comand`"), "{e}");
    }

    #[test]
    fn broken_json_names_line_and_column() {
        let e = err("{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n}}");
        assert!(e.place.contains("line 2"), "{e}");
    }

    #[test]
    fn transport_mistakes_are_explained() {
        let e = err(r#"{"mcpServers": {"a": {}}}"#);
        assert!(e.problem.contains("needs `command`"), "{e}");
        let e = err(r#"{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}"#);
        assert!(e.problem.contains("both"), "{e}");
        let e = err(r#"{"mcpServers": {"a": {"url": "ftp://h"}}}"#);
        assert_eq!(e.place, "mcpServers.a.url");
        let e = err(r#"{"mcpServers": {"a": {"url": "http://h", "type": "stdio"}}}"#);
        assert_eq!(e.place, "mcpServers.a.type");
        let e = err(r#"{"mcpServers": {"a": {"command": "x", "timeoutMs": 0}}}"#);
        assert_eq!(e.place, "mcpServers.a.timeoutMs");
    }

    #[test]
    fn reads_openapi_upstreams() {
        let c = text_config(
            r#"{"mcpServers": {"weather": {"openapi": "specs/weather.yaml", "baseUrl": "http://127.0.0.1:9/v1",
                "headers": {"X-Api-Key": "k"}}}}"#,
        )
        .unwrap();
        assert_eq!(
            c.upstreams[0].transport,
            Transport::OpenApi {
                spec: "specs/weather.yaml".into(),
                base_url: Some("http://127.0.0.1:9/v1".into()),
                headers: [("X-Api-Key".to_string(), "k".to_string())].into(),
            }
        );
        let e = err(r#"{"mcpServers": {"a": {"openapi": "s.yaml", "url": "http://h"}}}"#);
        assert_eq!(e.place, "mcpServers.a");
        let e = err(r#"{"mcpServers": {"a": {"openapi": "s.yaml", "baseUrl": "ftp://h"}}}"#);
        assert_eq!(e.place, "mcpServers.a.baseUrl");
        let e = err(r#"{"mcpServers": {"a": {"command": "x", "baseUrl": "http://h"}}}"#);
        assert_eq!(e.place, "mcpServers.a.baseUrl");
        let e = err(r#"{"mcpServers": {"a": {"openapi": "s.yaml", "type": "sse"}}}"#);
        assert_eq!(e.place, "mcpServers.a.type");
        // A spec that is not there is refused when the file is loaded, naming the key.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gateway.json");
        std::fs::write(
            &path,
            r#"{"mcpServers": {"w": {"openapi": "missing.yaml"}}}"#,
        )
        .unwrap();
        let e = Config::load(&path).unwrap_err();
        assert_eq!(e.place, "mcpServers.w.openapi");
        assert!(e.problem.contains("missing.yaml"), "{e}");
    }

    #[test]
    fn reads_composites_and_checks_their_references() {
        let servers =
            r#""mcpServers": {"a": {"command": "x"}, "b": {"url": "http://127.0.0.1:1/mcp"}}"#;
        let c = text_config(&format!(
            r#"{{{servers}, "composites": {{"pipe": {{"steps": [
                {{"server": "a", "tool": "extract", "arguments": {{"url": "${{input.url}}"}}}},
                {{"id": "sum", "server": "b", "tool": "summarize", "arguments": {{"text": "${{extract.text}}"}}}}
            ]}}}}}}"#
        ))
        .unwrap();
        let p = &c.composites[0];
        assert_eq!(p.name, "pipe");
        assert_eq!((p.steps[0].upstream, p.steps[1].upstream), (0, 1));
        assert_eq!(p.steps[0].id, "extract");
        assert_eq!(p.result, 1);
        let bad = |steps: &str| {
            err(&format!(
                r#"{{{servers}, "composites": {{"pipe": {{"steps": [{steps}]}}}}}}"#
            ))
        };
        let e = bad(r#"{"server": "nope", "tool": "t"}"#);
        assert_eq!(e.place, "composites.pipe.steps[0].server");
        // A step may only use the input and the steps before it.
        let e = bad(
            r#"{"server": "a", "tool": "t", "arguments": {"x": "${later.y}"}}, {"id": "later", "server": "a", "tool": "u"}"#,
        );
        assert_eq!(e.place, "composites.pipe.steps[0].arguments");
        assert!(e.problem.contains("later"), "{e}");
        let e = bad(r#"{"server": "a", "tool": "t"}, {"server": "a", "tool": "t"}"#);
        assert_eq!(e.place, "composites.pipe.steps[1].id");
        let e = bad(r#"{"server": "a", "tool": "t", "arguments": {"x": "${input.y"}}"#);
        assert!(e.problem.contains("${"), "{e}");
        let e = bad("");
        assert_eq!(e.place, "composites.pipe.steps");
        let e = err(&format!(
            r#"{{{servers}, "composites": {{"pipe": {{"inputSchema": {{"type": "string"}}, "steps": [{{"server": "a", "tool": "t"}}]}}}}}}"#
        ));
        assert_eq!(e.place, "composites.pipe.inputSchema");
    }

    #[test]
    fn sessions_are_shared_or_per_session_within_a_cap() {
        let c = text_config(
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "sessions": "per-session"},
                "c": {"url": "http://127.0.0.1:1/mcp", "sessions": "per-session", "maxSessions": 4},
                "d": {"command": "z", "sessions": "shared"}}}"#,
        )
        .unwrap();
        let kinds: Vec<Sessions> = c.upstreams.iter().map(|u| u.sessions).collect();
        assert_eq!(
            kinds,
            [
                Sessions::Shared,
                Sessions::PerSession {
                    max: DEFAULT_MAX_SESSIONS
                },
                Sessions::PerSession { max: 4 },
                Sessions::Shared
            ]
        );
        let e = err(r#"{"mcpServers": {"a": {"command": "x", "sessions": "each"}}}"#);
        assert_eq!(e.place, "mcpServers.a.sessions");
        assert!(e.problem.contains("`each`"), "{e}");
        let e = err(r#"{"mcpServers": {"a": {"command": "x", "maxSessions": 3}}}"#);
        assert_eq!(e.place, "mcpServers.a.maxSessions");
        let e = err(
            r#"{"mcpServers": {"a": {"command": "x", "sessions": "per-session", "maxSessions": 0}}}"#,
        );
        assert_eq!(e.place, "mcpServers.a.maxSessions");
        let e = err(r#"{"mcpServers": {"a": {"command": "x", "sessions": 2}}}"#);
        assert!(e.place.starts_with("mcpServers.a.sessions"), "{e}");
        let e = err(r#"{"mcpServers": {"a": {"openapi": "s.yaml", "sessions": "per-session"}}}"#);
        assert_eq!(e.place, "mcpServers.a.sessions");
    }

    #[test]
    fn rich_text_rules_are_read_for_every_kind_of_upstream() {
        use mcp_openapi::rich_text::FieldFormat;
        let c = text_config(
            r#"{"mcpServers": {
                "jira": {"openapi": "jira.json", "richText": {
                    "results": {"fields.description": "adf", "renderedFields.*": "html", "**": "auto"},
                    "arguments": {"fields.description": "adf"}}},
                "wiki": {"command": "confluence-server", "richText": {"results": {"body.storage.value": "storage"}}},
                "web": {"url": "http://127.0.0.1:1/mcp"}
            }}"#,
        )
        .unwrap();
        let jira = &c.upstreams[0].rich_text;
        let results: Vec<(&str, FieldFormat)> = jira.results.iter().collect();
        assert_eq!(
            results,
            [
                ("**", FieldFormat::Auto),
                ("fields.description", FieldFormat::Adf),
                ("renderedFields.*", FieldFormat::Html)
            ]
        );
        assert_eq!(
            jira.arguments.iter().collect::<Vec<_>>(),
            [("fields.description", FieldFormat::Adf)]
        );
        // Upstreams are in the order of their names: jira, web, wiki.
        assert!(c.upstreams[1].rich_text.is_empty());
        assert!(c.upstreams[2].rich_text.arguments.is_empty());
        assert!(!c.upstreams[2].rich_text.results.is_empty());
    }

    #[test]
    fn bad_rich_text_rules_name_the_rule() {
        let bad = |rich: &str| {
            err(&format!(
                r#"{{"mcpServers": {{"j": {{"command": "x", "richText": {rich}}}}}}}"#
            ))
        };
        let e = bad(r#"{"results": {"fields.description": "markdown"}}"#);
        assert_eq!(
            e.place,
            r#"mcpServers.j.richText.results["fields.description"]"#
        );
        assert!(
            e.problem.contains("`markdown` is not a rich-text format"),
            "{e}"
        );
        // Markdown cannot be written back into HTML, nor into whatever `auto` found.
        let e = bad(r#"{"arguments": {"body": "html"}}"#);
        assert_eq!(e.place, r#"mcpServers.j.richText.arguments["body"]"#);
        assert!(e.problem.contains("read only"), "{e}");
        let e = bad(r#"{"arguments": {"**": "auto"}}"#);
        assert_eq!(e.place, r#"mcpServers.j.richText.arguments["**"]"#);
        let e = bad(r#"{"results": {"a..b": "adf"}}"#);
        assert_eq!(e.place, r#"mcpServers.j.richText.results["a..b"]"#);
        assert!(e.problem.contains("empty name"), "{e}");
        let e = bad(r#"{"results": {"fields.desc*": "adf"}}"#);
        assert!(e.problem.contains("stand alone"), "{e}");
        let e = bad(r#"{"results": {"": "adf"}}"#);
        assert!(e.problem.contains("is empty"), "{e}");
        // The shape is serde's: a typo or a wrong type names the path and the line.
        let e = bad(r#"{"result": {"a": "adf"}}"#);
        assert!(e.place.starts_with("mcpServers.j.richText.result"), "{e}");
        assert!(e.problem.contains("unknown field `result`"), "{e}");
        let e = bad(r#"{"results": {"a": 1}}"#);
        assert!(
            e.place.starts_with("mcpServers.j.richText.results.a"),
            "{e}"
        );
        let e = bad(r#"["adf"]"#);
        assert!(e.place.starts_with("mcpServers.j.richText"), "{e}");
    }

    #[test]
    fn prefixes_are_checked_and_unique() {
        let e = err(r#"{"mcpServers": {"a": {"command": "x", "prefix": "a.b"}}}"#);
        assert_eq!(e.place, "mcpServers.a.prefix");
        let e = err(
            r#"{"mcpServers": {"a": {"command": "x", "prefix": "p"}, "b": {"command": "y", "prefix": "p"}}}"#,
        );
        assert_eq!(e.place, "mcpServers.b.prefix");
        assert!(e.problem.contains("`a`"), "{e}");
        let e = err(r#"{"mcpServers": {}}"#);
        assert_eq!(e.place, "mcpServers");
    }
}
