//! One connection's handshake-era state: where its lifecycle is (`initialize`, then
//! `notifications/initialized`), what the client declared, its log level and subscriptions, and what a
//! shared session store keeps of it. Below the dispatch (`session.rs`) and the handler's `Context`.

use super::era::{self, Declared, ModernRequest};
use super::tasks::SessionTasks;
use super::{Eras, ServerInner};
use crate::connection::Peer;
use crate::framing::{parse_params, to_raw};
use crate::protocol::*;
use serde_json::value::RawValue;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Where a session is in its (handshake-era) lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Only `initialize` and `ping` are accepted (and 2026-07-28 requests, which need no session).
    Connected = 0,
    /// `initialize` answered; waiting for `notifications/initialized` (requests are tolerated).
    Initializing = 1,
    /// `notifications/initialized` received: every method is served.
    Ready = 2,
    /// The connection closed.
    Closed = 3,
}

pub(super) const LOG_DEFAULT: u8 = LoggingLevel::Debug as u8;

/// One connection's handshake-era state (phase, negotiated version, client capabilities, log level,
/// subscriptions) and the server it serves.
pub struct SessionState {
    pub(crate) server: Arc<ServerInner>,
    pub(crate) peer: Peer,
    pub(super) phase: AtomicU8,
    pub(super) version: OnceLock<ProtocolVersion>,
    pub(super) client_caps: OnceLock<ClientCapabilities>,
    pub(crate) client_info: OnceLock<Implementation>,
    pub(super) log_level: AtomicU8,
    pub(super) subscriptions: Mutex<HashSet<String>>,
    /// Who the transport authenticated on this connection, if anyone (binds request states to them).
    pub(super) principal: OnceLock<String>,
    /// What the session's own tasks are filed under.
    pub(crate) tasks: SessionTasks,
    /// The declarations of the one 2026-07-28 request this connection carries, when its transport read
    /// them already (HTTP: a connection per request), so that they are not read twice.
    pub(super) preset: OnceLock<Arc<ModernRequest>>,
    /// The declarations of the last 2026-07-28 request read here.
    pub(super) declared: Declared,
    /// Names the session in this process (see `Context::session`).
    pub(crate) id: u64,
    /// The connection carries one request and ends with it (a stateless HTTP server's POST).
    pub(super) one_request: AtomicBool,
}

/// The next session's [`SessionState::id`].
static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

impl SessionState {
    pub(crate) fn new(server: Arc<ServerInner>, peer: Peer) -> Arc<Self> {
        Arc::new(SessionState {
            server,
            peer,
            phase: AtomicU8::new(Phase::Connected as u8),
            version: OnceLock::new(),
            client_caps: OnceLock::new(),
            client_info: OnceLock::new(),
            log_level: AtomicU8::new(LOG_DEFAULT),
            subscriptions: Mutex::new(HashSet::new()),
            principal: OnceLock::new(),
            tasks: Default::default(),
            preset: OnceLock::new(),
            declared: Declared::default(),
            id: NEXT_SESSION.fetch_add(1, Ordering::Relaxed),
            one_request: AtomicBool::new(false),
        })
    }

    /// This connection carries one request and ends with it: it is no session a handler could keep
    /// state for (see `Context::session`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn set_one_request(&self) {
        self.one_request.store(true, Ordering::Relaxed);
    }

    pub(crate) fn is_one_request(&self) -> bool {
        self.one_request.load(Ordering::Relaxed)
    }

    /// The transport already read the `_meta` of the request this connection carries.
    pub(crate) fn preset(&self, m: Arc<ModernRequest>) {
        let _ = self.preset.set(m);
    }

    /// Where the handshake-era lifecycle is.
    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Connected,
            1 => Phase::Initializing,
            2 => Phase::Ready,
            _ => Phase::Closed,
        }
    }

    /// The version `initialize` negotiated (the latest handshake-era one before that).
    pub fn version(&self) -> ProtocolVersion {
        self.version
            .get()
            .copied()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY)
    }

    /// The capabilities the client declared in `initialize` (empty before).
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.client_caps.get().cloned().unwrap_or_default()
    }

    /// Records who the transport authenticated on this connection (once; later calls are ignored).
    pub(crate) fn set_principal(&self, who: String) {
        let _ = self.principal.set(who);
    }

    pub(crate) fn principal(&self) -> Option<&str> {
        self.principal.get().map(String::as_str)
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

    /// Whether handshake-era notifications may be sent (after `initialize` was answered, before close).
    pub(crate) fn is_live(&self) -> bool {
        matches!(self.phase(), Phase::Initializing | Phase::Ready) && !self.peer.is_closed()
    }

    /// What a shared session store keeps of this session as `id` (`None` before `initialize`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn record(&self, id: &str) -> Option<crate::scale::SessionRecord> {
        let version = *self.version.get()?;
        let level = self.log_level.load(Ordering::Relaxed);
        Some(crate::scale::SessionRecord {
            id: id.to_string(),
            protocol_version: version.as_str().to_string(),
            client_capabilities: self.client_capabilities(),
            client_info: self.client_info.get().cloned().unwrap_or_default(),
            log_level: (level != LOG_DEFAULT)
                .then(|| LoggingLevel::from_u8(level))
                .flatten(),
            principal: self.principal().map(str::to_string),
            task_owner: self.tasks.key().to_string(),
            subscriptions: {
                let subs = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
                let mut subs: Vec<String> = subs.iter().cloned().collect();
                subs.sort_unstable();
                subs
            },
        })
    }

    /// What may change in a record after `initialize` (the log level, the subscriptions), as `r` says:
    /// another instance changed it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn follow_record(&self, r: &crate::scale::SessionRecord) {
        self.set_log_level(r.log_level);
        *self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()) =
            r.subscriptions.iter().cloned().collect();
    }

    /// Takes over a session that `initialize`d on another instance: its state as the record says,
    /// ready for requests. Only on a fresh state.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn restore(self: &Arc<Self>, r: &crate::scale::SessionRecord) {
        let version = ProtocolVersion::parse(&r.protocol_version)
            .unwrap_or_else(|| ProtocolVersion::negotiate(&r.protocol_version));
        let _ = self.version.set(version);
        let _ = self.client_caps.set(r.client_capabilities.clone());
        let _ = self.client_info.set(r.client_info.clone());
        self.follow_record(r);
        if let Some(p) = &r.principal {
            self.set_principal(p.clone());
        }
        self.tasks.set_key(r.task_owner.clone());
        self.phase.store(Phase::Ready as u8, Ordering::Release);
        self.server.add_session(self);
    }

    /// The minimum level of log messages sent (`None`: the default).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn set_log_level(&self, level: Option<LoggingLevel>) {
        self.log_level.store(
            level.map_or(LOG_DEFAULT, LoggingLevel::as_u8),
            Ordering::Relaxed,
        );
    }

    pub(super) fn initialize(
        self: &Arc<Self>,
        params: Option<&RawValue>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let p: InitializeParams = parse_params(params)?;
        if self.server.eras == Eras::ModernOnly {
            return Err(era::initialize_refused(&p.protocol_version));
        }
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
        self.server.add_session(self);
        let mut capabilities = self.server.capabilities(false);
        if version < ProtocolVersion::V2025_11_25 {
            capabilities.tasks = None; // tasks came with 2025-11-25
        }
        let result = InitializeResult {
            protocol_version: version.as_str().to_string(),
            capabilities,
            server_info: self.server.info.clone(),
            instructions: self.server.instructions.clone(),
            meta: None,
        };
        to_raw(&result)
    }
}
