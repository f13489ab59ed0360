//! One client's session: the lifecycle state machine and the dispatch of every server method.

use super::{Context, ServerInner};
use crate::connection::{Handler, Peer, Reply, RequestIn};
use crate::framing::{parse_params, to_raw};
use crate::protocol::*;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Where a session is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Only `initialize` and `ping` are accepted.
    Connected = 0,
    /// `initialize` answered; waiting for `notifications/initialized` (requests are tolerated).
    Initializing = 1,
    Ready = 2,
    Closed = 3,
}

const LOG_DEFAULT: u8 = LoggingLevel::Debug as u8;

pub struct SessionState {
    pub(crate) server: Arc<ServerInner>,
    pub(crate) peer: Peer,
    phase: AtomicU8,
    version: OnceLock<ProtocolVersion>,
    client_caps: OnceLock<ClientCapabilities>,
    pub(crate) client_info: OnceLock<Implementation>,
    log_level: AtomicU8,
    subscriptions: Mutex<HashSet<String>>,
}

impl SessionState {
    pub(crate) fn new(server: Arc<ServerInner>, peer: Peer) -> Arc<Self> {
        let s = Arc::new(SessionState {
            server: server.clone(),
            peer,
            phase: AtomicU8::new(Phase::Connected as u8),
            version: OnceLock::new(),
            client_caps: OnceLock::new(),
            client_info: OnceLock::new(),
            log_level: AtomicU8::new(LOG_DEFAULT),
            subscriptions: Mutex::new(HashSet::new()),
        });
        server.add_session(&s);
        s
    }

    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Connected,
            1 => Phase::Initializing,
            2 => Phase::Ready,
            _ => Phase::Closed,
        }
    }

    pub fn version(&self) -> ProtocolVersion {
        self.version
            .get()
            .copied()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY)
    }

    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.client_caps.get().cloned().unwrap_or_default()
    }

    pub(crate) fn log_enabled(&self, level: LoggingLevel) -> bool {
        level.as_u8() >= self.log_level.load(Ordering::Relaxed)
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        let subs = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
        subs.contains(uri)
            || subs
                .iter()
                .any(|s| uri.starts_with(s.as_str()) && uri[s.len()..].starts_with('/'))
    }

    /// Whether notifications may be sent (after `initialize` was answered, before close).
    pub(crate) fn is_live(&self) -> bool {
        matches!(self.phase(), Phase::Initializing | Phase::Ready) && !self.peer.is_closed()
    }

    fn ctx(
        self: &Arc<Self>,
        req: &RequestIn<'_>,
        progress_token: Option<ProgressToken>,
    ) -> Context {
        Context::new(
            self.clone(),
            req.id.clone(),
            req.token.clone(),
            progress_token,
        )
    }

    fn initialize(&self, params: Option<&RawValue>) -> Result<Box<RawValue>, ErrorObject> {
        let p: InitializeParams = parse_params(params)?;
        if self
            .phase
            .compare_exchange(
                Phase::Connected as u8,
                Phase::Initializing as u8,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_err()
        {
            return Err(ErrorObject::invalid_request(
                "Invalid Request: the session is already initialized",
            ));
        }
        let version = ProtocolVersion::negotiate(&p.protocol_version);
        let _ = self.version.set(version);
        let _ = self.client_caps.set(p.capabilities);
        let _ = self.client_info.set(p.client_info);
        let result = InitializeResult {
            protocol_version: version.as_str().to_string(),
            capabilities: self.server.capabilities(),
            server_info: self.server.info.clone(),
            instructions: self.server.instructions.clone(),
            meta: None,
        };
        to_raw(&result)
    }
}

#[derive(Deserialize)]
struct MetaRaw {
    #[serde(rename = "progressToken", default)]
    progress_token: Option<ProgressToken>,
}

#[derive(Deserialize)]
struct CallRaw<'a> {
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", default)]
    meta: Option<MetaRaw>,
}

#[derive(Deserialize)]
struct WithMeta {
    #[serde(rename = "_meta", default)]
    meta: Option<MetaRaw>,
}

fn progress_token_of(params: Option<&RawValue>) -> Option<ProgressToken> {
    params
        .and_then(|p| serde_json::from_str::<WithMeta>(p.get()).ok())
        .and_then(|m| m.meta)
        .and_then(|m| m.progress_token)
}

fn empty() -> Result<Box<RawValue>, ErrorObject> {
    Ok(RawValue::from_string("{}".into()).expect("literal JSON"))
}

/// The session as the pump sees it.
pub struct ServerHandler(pub Arc<SessionState>);

impl Handler for ServerHandler {
    fn request(&self, req: RequestIn<'_>) -> Reply {
        let s = &self.0;
        match req.method {
            methods::INITIALIZE => return Reply::Now(s.initialize(req.params)),
            methods::PING => return Reply::Now(empty()),
            // The 2026-07-28 probe: this server speaks the legacy era only.
            methods::SERVER_DISCOVER => {
                return Reply::Now(Err(ErrorObject::method_not_found(req.method)))
            }
            _ => {}
        }
        if s.phase() == Phase::Connected {
            return Reply::Now(Err(ErrorObject::invalid_request(format!(
                "Invalid Request: the server is not initialized; send initialize before {}",
                req.method
            ))));
        }
        let srv = &s.server;
        match req.method {
            methods::TOOLS_LIST => Reply::Now(srv.list_tools(req.params)),
            methods::TOOLS_CALL => self.call_tool(&req),
            methods::RESOURCES_LIST if srv.has_resources() => {
                Reply::Now(srv.list_resources(req.params))
            }
            methods::RESOURCES_TEMPLATES_LIST if srv.has_resources() => {
                Reply::Now(srv.list_resource_templates(req.params))
            }
            methods::RESOURCES_READ if srv.has_resources() => self.read_resource(&req),
            methods::RESOURCES_SUBSCRIBE if srv.has_resources() => {
                Reply::Now(self.subscribe(req.params, true))
            }
            methods::RESOURCES_UNSUBSCRIBE if srv.has_resources() => {
                Reply::Now(self.subscribe(req.params, false))
            }
            methods::PROMPTS_LIST if srv.has_prompts() => Reply::Now(srv.list_prompts(req.params)),
            methods::PROMPTS_GET if srv.has_prompts() => self.get_prompt(&req),
            methods::COMPLETION_COMPLETE if srv.completion.is_some() => self.complete(&req),
            methods::LOGGING_SET_LEVEL => Reply::Now(self.set_level(req.params)),
            other => Reply::Now(Err(ErrorObject::method_not_found(other))),
        }
    }

    fn notification(&self, method: &str, _params: Option<&RawValue>) {
        match method {
            methods::INITIALIZED => {
                let _ = self.0.phase.compare_exchange(
                    Phase::Initializing as u8,
                    Phase::Ready as u8,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
            }
            methods::ROOTS_LIST_CHANGED => {
                if let Some(cb) = &self.0.server.on_roots_changed {
                    cb();
                }
            }
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    fn allows_batch(&self) -> bool {
        self.0.version.get().is_some_and(|v| v.allows_batch())
    }

    fn closed(&self) {
        self.0.phase.store(Phase::Closed as u8, Ordering::Release);
    }
}

impl ServerHandler {
    fn call_tool(&self, req: &RequestIn<'_>) -> Reply {
        let call: CallRaw<'_> = match parse_params(req.params) {
            Ok(c) => c,
            Err(e) => return Reply::Now(Err(e)),
        };
        let Some(route) = self.0.server.tools.snapshot().get(&call.name).cloned() else {
            return Reply::Now(Err(ErrorObject::invalid_params(format!(
                "Unknown tool: {}",
                call.name
            ))
            .with_data(serde_json::json!({"field": "name"}))));
        };
        let args = super::tools::Arguments::from_raw(
            call.arguments
                .filter(|a| a.get() != "null")
                .map(RawValue::to_owned),
        );
        let ctx = self.0.ctx(req, call.meta.and_then(|m| m.progress_token));
        let fut = route.handler.call(args, ctx);
        Reply::Spawn {
            fut: Box::pin(async move {
                let result = fut.await?;
                to_raw(&result)
            }),
            cancellable: true,
        }
    }

    fn read_resource(&self, req: &RequestIn<'_>) -> Reply {
        let p: ResourceUriParams = match parse_params(req.params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let Some((handler, vars)) = self.0.server.find_resource(&p.uri) else {
            return Reply::Now(Err(ErrorObject::new(
                codes::RESOURCE_NOT_FOUND,
                format!("Resource not found: {}", p.uri),
            )
            .with_data(serde_json::json!({"uri": p.uri}))));
        };
        let ctx = self.0.ctx(req, progress_token_of(req.params));
        let fut = handler.read(p.uri, vars, ctx);
        Reply::Spawn {
            fut: Box::pin(async move { to_raw(&fut.await?) }),
            cancellable: true,
        }
    }

    fn subscribe(&self, params: Option<&RawValue>, on: bool) -> Result<Box<RawValue>, ErrorObject> {
        let p: ResourceUriParams = parse_params(params)?;
        let mut subs = self
            .0
            .subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if on {
            subs.insert(p.uri);
        } else {
            subs.remove(&p.uri);
        }
        empty()
    }

    fn get_prompt(&self, req: &RequestIn<'_>) -> Reply {
        let p: GetPromptParams = match parse_params(req.params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let Some(route) = self.0.server.prompts.snapshot().get(&p.name).cloned() else {
            return Reply::Now(Err(ErrorObject::invalid_params(format!(
                "Unknown prompt: {}",
                p.name
            ))
            .with_data(serde_json::json!({"field": "name"}))));
        };
        let args = p.arguments.unwrap_or_default();
        if let Err(e) = route.check_required(&args) {
            return Reply::Now(Err(e));
        }
        let ctx = self.0.ctx(req, progress_token_of(req.params));
        let fut = route.handler.get(args, ctx);
        Reply::Spawn {
            fut: Box::pin(async move { to_raw(&fut.await?) }),
            cancellable: true,
        }
    }

    fn complete(&self, req: &RequestIn<'_>) -> Reply {
        let p: CompleteParams = match parse_params(req.params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let Some(handler) = self.0.server.completion.clone() else {
            return Reply::Now(Err(ErrorObject::method_not_found(req.method)));
        };
        let ctx = self.0.ctx(req, None);
        let fut = handler.complete(p, ctx);
        Reply::Spawn {
            fut: Box::pin(async move {
                let mut r = fut.await?;
                let values = &mut r.completion.values;
                if values.len() > 100 {
                    let total = r.completion.total.unwrap_or(values.len() as u64);
                    values.truncate(100);
                    r.completion.total = Some(total);
                    r.completion.has_more = Some(true);
                }
                to_raw(&r)
            }),
            cancellable: true,
        }
    }

    fn set_level(&self, params: Option<&RawValue>) -> Result<Box<RawValue>, ErrorObject> {
        let p: SetLevelParams = parse_params(params)?;
        self.0.log_level.store(p.level.as_u8(), Ordering::Relaxed);
        empty()
    }
}
