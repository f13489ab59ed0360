//! One upstream server: connecting it through the runtime's client (a child over stdio, or HTTP), its
//! state, and the downstream calls it is serving, through which its own requests (sampling, elicitation,
//! roots) reach the downstream client.

use crate::config::{HttpKind, Sessions, Transport, UpstreamConfig};
use crate::relay::rpc_error;
use crate::secrets::Secrets;
use crate::sessions::SessionPool;
use futures_util::future::BoxFuture;
use mcp_openapi::{Bridge, BridgeConfig, ConvertOptions};
use mcp_runtime::client::{
    CallHandlers, Client, ElicitationHandler, RootsHandler, SamplingHandler, StderrMode,
};
use mcp_runtime::http::{HttpClientConfig, HttpTransportKind};
use mcp_runtime::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ErrorObject,
    ListRootsResult, TaskSupport,
};
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

/// The downstream calls one upstream connection is serving now, newest last. An upstream's sampling,
/// elicitation or roots request that the wire ties to a call (its POST's answer stream, its task, its
/// 2026 `input_required` result) goes to that call; one that names no call (over stdio or legacy SSE
/// the wire carries no association) goes to the newest call in flight on that connection, but only
/// while every call in flight comes from one downstream session; a log message goes to the newest call
/// unless a call of another session overlapped it at any time (a log is read after it arrived, so the
/// calls in flight when it is read may not be those it was sent among). A shared child never hands one
/// session's message to another: with calls of several sessions in flight, such a request is refused
/// and such a log message is not relayed (a per-session upstream, see [`crate::sessions`], never has
/// that ambiguity).
#[derive(Clone, Default)]
pub struct Callers {
    live: Arc<Mutex<Live>>,
}

/// The calls in flight on one connection, oldest first (calls mostly end in the order they began, so a
/// finished call leaves near the front of the queue, where removing it moves little).
#[derive(Default)]
struct Live {
    calls: std::collections::VecDeque<Caller>,
    next: u64,
    /// How many calls in flight each downstream session has (`None`: calls without a session).
    sessions: Vec<(Option<u64>, usize)>,
    /// Every call numbered up to this one was in flight while a call of another session was: a call
    /// that came in while calls of another session (or, having no session, any call) were in flight
    /// marks itself and every call before it.
    mixed_up_to: Option<u64>,
}

/// One call in [`Callers`]: its number, its downstream session (`None`: it has none, so it is alone in
/// it) and its context.
struct Caller {
    id: u64,
    session: Option<u64>,
    ctx: Context,
}

impl Live {
    /// Whether every call in flight comes from one downstream session (that has a session).
    fn one_session(&self) -> bool {
        match self.sessions.as_slice() {
            [] => true,
            [(session, _)] => session.is_some() || self.calls.len() == 1,
            _ => false,
        }
    }

    fn is_mixed(&self, id: u64) -> bool {
        self.mixed_up_to.is_some_and(|m| id <= m)
    }
}

/// Removes a call from [`Callers`] when it ends, on every path.
pub struct CallerGuard {
    callers: Callers,
    id: u64,
}

impl Callers {
    /// Records a call in flight until the guard drops.
    pub fn enter(&self, ctx: Context) -> CallerGuard {
        let session = ctx.session().map(|s| s.id());
        let mut live = self.lock();
        // Numbered under the lock: the queue stays in order of id, for the guard's binary search.
        let id = live.next;
        live.next += 1;
        let other_session = !live.calls.is_empty()
            && (session.is_none() || live.sessions.iter().any(|(s, _)| *s != session));
        if other_session {
            live.mixed_up_to = Some(id);
        }
        match live.sessions.iter_mut().find(|(s, _)| *s == session) {
            Some((_, n)) => *n += 1,
            None => live.sessions.push((session, 1)),
        }
        live.calls.push_back(Caller { id, session, ctx });
        drop(live);
        CallerGuard {
            callers: self.clone(),
            id,
        }
    }

    /// The newest downstream call in flight, when every call in flight comes from one session.
    pub fn newest(&self) -> Option<Context> {
        let live = self.lock();
        if !live.one_session() {
            return None;
        }
        live.calls.back().map(|c| c.ctx.clone())
    }

    /// How many calls are in flight.
    pub fn len(&self) -> usize {
        self.lock().calls.len()
    }

    /// Whether no call is in flight.
    pub fn is_empty(&self) -> bool {
        self.lock().calls.is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl CallerGuard {
    /// Whether this call is the one a log message goes to (see [`Callers`]).
    pub fn is_newest(&self) -> bool {
        let live = self.callers.lock();
        live.calls.back().is_some_and(|c| c.id == self.id) && !live.is_mixed(self.id)
    }
}

impl Drop for CallerGuard {
    fn drop(&mut self) {
        let mut live = self.callers.lock();
        let Ok(i) = live.calls.binary_search_by_key(&self.id, |c| c.id) else {
            return;
        };
        let Some(gone) = live.calls.remove(i) else {
            return;
        };
        if let Some(at) = live.sessions.iter().position(|(s, _)| *s == gone.session) {
            live.sessions[at].1 -= 1;
            if live.sessions[at].1 == 0 {
                live.sessions.swap_remove(at);
            }
        }
    }
}

/// Answers an upstream's sampling, elicitation and roots requests by asking a downstream client; a
/// 2026-07-28 input request keeps its key across the hop.
#[derive(Clone)]
enum Relay {
    /// The call the request belongs to (the runtime client routed it: see `CallHandlers`).
    Call(Context),
    /// A request that names no call (stdio and legacy SSE upstreams): the newest call in flight.
    Newest(Callers),
}

impl Relay {
    fn caller(&self, what: &str) -> Result<Context, ErrorObject> {
        match self {
            Relay::Call(ctx) => Ok(ctx.clone()),
            Relay::Newest(callers) => callers.newest().ok_or_else(|| no_caller(what)),
        }
    }
}

/// The handlers that send the upstream's requests belonging to one call to that call's downstream
/// client.
pub fn call_handlers(ctx: &Context) -> CallHandlers {
    let relay = Arc::new(Relay::Call(ctx.clone()));
    CallHandlers {
        sampling: Some(relay.clone()),
        elicitation: Some(relay.clone()),
        roots: Some(relay),
    }
}

fn downstream(e: Error) -> ErrorObject {
    rpc_error(e, "the downstream client")
}

impl SamplingHandler for Relay {
    fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        let ctx = self.caller("sampling");
        Box::pin(async move { ctx?.create_message(params).await.map_err(downstream) })
    }
    fn create_message_keyed(
        &self,
        key: &str,
        params: CreateMessageParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        let ctx = self.caller("sampling");
        let key = key.to_string();
        Box::pin(async move {
            ctx?.input(&key)
                .create_message(params)
                .await
                .map_err(downstream)
        })
    }
}

impl ElicitationHandler for Relay {
    fn elicit(
        &self,
        params: ElicitParams,
    ) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        let ctx = self.caller("elicitation");
        Box::pin(async move { ctx?.elicit(params).await.map_err(downstream) })
    }
    fn elicit_keyed(
        &self,
        key: &str,
        params: ElicitParams,
    ) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        let ctx = self.caller("elicitation");
        let key = key.to_string();
        Box::pin(async move { ctx?.input(&key).elicit(params).await.map_err(downstream) })
    }
}

impl RootsHandler for Relay {
    fn list_roots(&self) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>> {
        let ctx = self.caller("roots");
        Box::pin(async move { ctx?.list_roots().await.map_err(downstream) })
    }
    fn list_roots_keyed(
        &self,
        key: &str,
    ) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>> {
        let ctx = self.caller("roots");
        let key = key.to_string();
        Box::pin(async move { ctx?.input(&key).list_roots().await.map_err(downstream) })
    }
}

fn no_caller(what: &str) -> ErrorObject {
    ErrorObject::internal(format!(
        "mcp-gateway: cannot tell which downstream call this {what} request belongs to (none is in flight, \
         or calls of several downstream sessions are: give the upstream \"sessions\": \"per-session\")"
    ))
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
    /// Each listed tool's `execution.taskSupport` (for composite steps, which call tools by name).
    task_support: Mutex<HashMap<String, TaskSupport>>,
}

/// The connection a request goes through, with the calls in flight on it.
pub struct Link {
    /// The client of the connection.
    pub client: Arc<Client>,
    /// Where the connection's requests and log messages that name no call find their caller.
    pub callers: Callers,
}

impl Upstream {
    pub fn new(config: UpstreamConfig) -> Upstream {
        let sessions = match config.sessions {
            Sessions::Shared => None,
            Sessions::PerSession { max } => Some(Arc::new(SessionPool::new(max))),
        };
        Upstream {
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
        match (&self.sessions, ctx.session()) {
            // Boxed: a session's first call starts its connection, and that state would otherwise
            // ride in every call's future (moved at each layer of the hop).
            (Some(pool), Some(session)) => Box::pin(pool.link(self, &session)).await,
            _ => Ok(Link {
                client: shared,
                callers: self.callers.clone(),
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
        let init = self.config.init_timeout;
        match tokio::time::timeout(init, self.connect_now(callers)).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                method: "start and initialize".into(),
                after: init,
            }),
        }
    }

    async fn connect_now(&self, callers: &Callers) -> Result<Client, Error> {
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
                cmd.args(args).envs(env);
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
                crate::ndjson::connect(builder, url, headers, config).await
            }
            Transport::Http { url, headers, kind } => {
                let config = HttpClientConfig {
                    transport: match kind {
                        HttpKind::Auto | HttpKind::Ndjson => HttpTransportKind::Auto,
                        HttpKind::StreamableHttp => HttpTransportKind::StreamableHttp,
                        HttpKind::LegacySse => HttpTransportKind::LegacySse,
                    },
                    headers: headers
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
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

pub(crate) fn unavailable(name: &str, why: &str) -> ErrorObject {
    ErrorObject::internal(format!("upstream `{name}` is unavailable: {why}"))
        .with_data(serde_json::json!({"upstream": name, "state": "unavailable", "reason": why}))
}
