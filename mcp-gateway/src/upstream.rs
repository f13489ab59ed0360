//! One upstream server: connecting it through the runtime's client (a child over stdio, or HTTP), and its
//! state. The downstream calls a connection serves, through which its own requests (sampling, elicitation,
//! roots) reach the downstream client, are `link.rs`'s.

use crate::config::{HttpKind, Sessions, Transport, UpstreamConfig};
use crate::link::Relay;
pub use crate::link::{call_handlers, CallerGuard, Callers, Link};
use crate::metrics::Metrics;
use crate::secrets::Secrets;
use crate::sessions::SessionPool;
use crate::upstream_errors::unavailable;
use crate::users::{UserCredentials, UserPool};
use mcp_openapi::{Bridge, BridgeConfig, ConvertOptions};
use mcp_runtime::client::{Client, StderrMode};
use mcp_runtime::http::{HttpClientConfig, HttpTransportKind};
use mcp_runtime::protocol::{ErrorObject, TaskSupport};
use mcp_runtime::{ConnectionConfig, Context, Error};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// Where an upstream stands.
#[derive(Clone)]
pub enum State {
    Starting,
    Up(Arc<Client>),
    /// Why it is not up (start failure, exit status and stderr tail).
    Down(String),
}

/// One upstream: its configuration, its state, and the calls it serves.
pub struct Upstream {
    pub config: UpstreamConfig,
    state: Mutex<State>,
    /// The calls in flight on the shared connection.
    pub callers: Callers,
    restarts: AtomicU32,
    /// Its secrets, kept out of everything relayed from it.
    pub secrets: Arc<Secrets>,
    /// Its per-session connections, when it has them (`"sessions": "per-session"`).
    pub sessions: Option<Arc<SessionPool>>,
    /// Its per-user connections, when they carry the caller's credentials (see [`crate::users`]).
    pub users: Option<Arc<UserPool>>,
    /// Each listed tool's `execution.taskSupport` (for composite steps, which call tools by name).
    task_support: Mutex<HashMap<String, TaskSupport>>,
}

impl Upstream {
    /// An upstream whose per-user pool, if it has one, counts in `metrics`.
    pub fn new(config: UpstreamConfig, metrics: &Metrics) -> Upstream {
        let sessions = match config.sessions {
            Sessions::Shared => None,
            Sessions::PerSession { max } => Some(Arc::new(SessionPool::new(max))),
        };
        let users = config.per_user.clone().map(|p| {
            let observed = metrics.users(&config.name, p.max_users);
            Arc::new(UserPool::new(p, observed))
        });
        Upstream {
            users,
            secrets: Arc::new(Secrets::of(&config)),
            config,
            state: Mutex::new(State::Starting),
            callers: Callers::default(),
            restarts: AtomicU32::new(0),
            sessions,
            task_support: Mutex::new(HashMap::new()),
        }
    }

    /// Records the `execution.taskSupport` of every tool it lists now.
    pub(crate) fn set_task_support(&self, tools: impl Iterator<Item = (String, TaskSupport)>) {
        let map = tools
            .filter(|(_, s)| *s != TaskSupport::Forbidden)
            .collect();
        *self.task_support.lock().unwrap_or_else(|e| e.into_inner()) = map;
    }

    /// A tool's `execution.taskSupport`, as it last listed it (`Forbidden` for a tool it does not list).
    pub fn task_support(&self, tool: &str) -> TaskSupport {
        self.task_support
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(tool)
            .copied()
            .unwrap_or(TaskSupport::Forbidden)
    }

    /// The connection the downstream request `ctx` goes through: its session's own (started on its
    /// first call) for a per-session upstream, the shared one otherwise and for requests that belong to
    /// no session (see [`crate::sessions`]).
    pub async fn link(&self, ctx: &Context) -> Result<Link, ErrorObject> {
        let shared = self.client()?;
        if let Some(users) = &self.users {
            let connect = |callers: Callers, creds: UserCredentials| async move {
                self.connect_as(&callers, Some(&creds)).await
            };
            let env = match &self.config.transport {
                Transport::Stdio { env, .. } => Some(env),
                _ => None,
            };
            let name = &self.config.name;
            return Box::pin(users.link(name, env, &self.secrets, ctx, connect)).await;
        }
        match (&self.sessions, ctx.session()) {
            // Boxed: a session's first call starts its connection, and that state would otherwise
            // ride in every call's future (moved at each layer of the hop).
            (Some(pool), Some(session)) => {
                let connect = |callers: Callers| async move { self.connect_for(&callers).await };
                Box::pin(pool.link(&self.config.name, &self.secrets, &session, connect)).await
            }
            _ => Ok(Link {
                client: shared,
                callers: self.callers.clone(),
                secrets: self.secrets.clone(),
            }),
        }
    }

    /// How many times it was restarted (or its start retried).
    pub fn restarts(&self) -> u32 {
        self.restarts.load(Ordering::Relaxed)
    }

    pub(crate) fn count_restart(&self) {
        self.restarts.fetch_add(1, Ordering::Relaxed);
    }

    pub fn state(&self) -> State {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn set_state(&self, s: State) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = s;
    }

    /// The live client, or the JSON-RPC error a call gets while the upstream is not up.
    pub fn client(&self) -> Result<Arc<Client>, ErrorObject> {
        let name = &self.config.name;
        match self.state() {
            State::Up(c) if !c.peer().is_closed() => Ok(c),
            State::Up(_) => Err(unavailable(name, "its connection just closed")),
            State::Starting => Err(unavailable(name, "it is still starting")),
            State::Down(why) => Err(unavailable(name, &why)),
        }
    }

    /// Starts (spawns or connects) and initializes the upstream's shared connection, within its
    /// `initTimeoutMs`.
    pub async fn connect(&self) -> Result<Client, Error> {
        self.connect_for(&self.callers).await
    }

    /// Starts a connection whose requests that name no call go to the newest of `callers`.
    pub(crate) async fn connect_for(&self, callers: &Callers) -> Result<Client, Error> {
        self.connect_as(callers, None).await
    }

    /// [`Self::connect_for`], with one caller's credentials (a per-user connection).
    async fn connect_as(
        &self,
        callers: &Callers,
        user: Option<&UserCredentials>,
    ) -> Result<Client, Error> {
        let init = self.config.init_timeout;
        match tokio::time::timeout(init, self.connect_now(callers, user)).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                method: "start and initialize".into(),
                after: init,
            }),
        }
    }

    async fn connect_now(
        &self,
        callers: &Callers,
        user: Option<&UserCredentials>,
    ) -> Result<Client, Error> {
        let relay = Relay::Newest(callers.clone());
        let builder = Client::builder()
            .name("mcp-gateway")
            .version(env!("CARGO_PKG_VERSION"))
            .timeout(Some(self.config.timeout))
            // A child given secrets may print them: its stderr is kept for the explanation of a crash
            // (redacted by the gateway) and not passed through to our logs.
            .stderr(if self.secrets.is_empty() {
                StderrMode::Capture
            } else {
                StderrMode::Tail
            })
            .sampling(relay.clone())
            .elicitation(relay.clone())
            .url_elicitation()
            .roots_handler(relay);
        match &self.config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(command);
                // A per-user child gets its caller's rendered env; the shared one none of it.
                match user {
                    Some(u) => cmd.args(args).envs(&u.env),
                    None => cmd.args(args).envs(crate::credentials::without_user(env)),
                };
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                builder.spawn(cmd).await
            }
            Transport::Http {
                url,
                headers,
                kind: HttpKind::Ndjson,
            } => {
                let config = ConnectionConfig {
                    request_timeout: Some(self.config.timeout),
                    ..ConnectionConfig::default()
                };
                let headers = with_user(headers, user);
                crate::ndjson::connect(builder, url, &headers, config).await
            }
            Transport::Http { url, headers, kind } => {
                let config = HttpClientConfig {
                    transport: match kind {
                        HttpKind::Auto | HttpKind::Ndjson => HttpTransportKind::Auto,
                        HttpKind::StreamableHttp => HttpTransportKind::StreamableHttp,
                        HttpKind::LegacySse => HttpTransportKind::LegacySse,
                    },
                    headers: with_user(headers, user).into_iter().collect(),
                    ..HttpClientConfig::default()
                };
                builder.connect_http(url, config).await
            }
            Transport::OpenApi {
                spec,
                base_url,
                headers,
            } => {
                let server = openapi_server(
                    spec.clone(),
                    base_url.clone(),
                    headers,
                    self.config.timeout,
                    self.config.rich_text.clone(),
                )
                .await?;
                // The bridge is a runtime server in this process: the client reaches it over a pipe, so
                // every call takes the same path (relay, progress, cancel) as any other upstream's.
                let (client_end, server_end) = tokio::io::duplex(PIPE_BYTES);
                let (sr, sw) = tokio::io::split(server_end);
                tokio::spawn(async move {
                    let why = server.serve(sr, sw).await;
                    tracing::debug!("OpenAPI bridge ended: {why}");
                });
                let (cr, cw) = tokio::io::split(client_end);
                builder.connect(cr, cw).await
            }
        }
    }
}

/// An HTTP upstream's headers, with a caller's in place of any of the same name.
fn with_user(
    headers: &std::collections::BTreeMap<String, String>,
    user: Option<&UserCredentials>,
) -> std::collections::BTreeMap<String, String> {
    let mut all = headers.clone();
    for (k, v) in user.map_or(&[][..], |u| &u.headers[..]) {
        all.retain(|name, _| !name.eq_ignore_ascii_case(k));
        all.insert(k.clone(), v.clone());
    }
    all
}

/// The buffer of the in-process pipe to an OpenAPI bridge.
const PIPE_BYTES: usize = 1 << 16;

/// Loads an OpenAPI spec (on a blocking thread: specs can be large) and builds the bridge's server.
async fn openapi_server(
    spec: std::path::PathBuf,
    base_url: Option<String>,
    headers: &std::collections::BTreeMap<String, String>,
    timeout: std::time::Duration,
    rich_text: mcp_openapi::rich_text::RichText,
) -> Result<mcp_runtime::Server, Error> {
    // `richText` of an OpenAPI upstream is the bridge's: it converts before validating arguments.
    let config = BridgeConfig {
        rich_text,
        headers: headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        timeout,
        ..BridgeConfig::new(base_url.unwrap_or_default())
    };
    let bridge = tokio::task::spawn_blocking(move || {
        Bridge::from_spec(&spec, &ConvertOptions::default(), config)
            .map_err(|e| Error::Io(format!("OpenAPI spec {}: {e}", spec.display())))
    })
    .await
    .map_err(|e| Error::Io(format!("loading the OpenAPI spec failed: {e}")))??;
    bridge
        .server()
        .map_err(|e| Error::Io(format!("OpenAPI bridge: {e}")))
}
