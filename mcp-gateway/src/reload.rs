//! Hot reload: a new configuration applied to the running gateway without a restart.
//!
//! - **When.** [`watch`] polls the config file (its size and modification time every 500 ms, then a
//!   digest of its text, so that a save that changes nothing reloads nothing) and, on Unix, reloads on
//!   `SIGHUP` too. `mcp-gateway --no-watch` keeps only the signal.
//! - **Refused configs.** The new file is read and checked completely first ([`Config::load`]); one that
//!   fails is logged with the file, the place (JSON path, line and column) and the problem, and the
//!   running configuration stays as it was.
//! - **The difference.** Upstreams are matched by name: a new name starts, a name gone stops, a name
//!   whose definition changed restarts (stopped, then started anew), and an unchanged one is not touched
//!   (the same child process, the same per-session connections). Composite tools are registered again
//!   against the new upstreams. Downstream sessions are never dropped.
//! - **Calls in flight.** A stopped upstream's tools leave the lists at once, but calls already running
//!   keep their connection and finish; those still running after `gateway.reloadGraceMs` (10 s unless
//!   set) fail with a JSON-RPC error that says the upstream was removed, and its connections close.
//! - **Notifications.** The changes of one reload reach clients as at most one `list_changed` per kind
//!   (tools, prompts, resources), and only for the kinds whose lists clients see actually changed: the
//!   coalescer waits while a reload runs, and the reload compares digests of the lists before and after.
//! - **Rules.** New `gateway.rules` apply at once, and every kind's `list_changed` goes out (what each
//!   caller sees may have changed). Rules added to a gateway started with neither rules nor
//!   `gateway.auth` take effect at its restart (its server judges no list).
//! - **What a reload does not change.** `gateway.discovery`, `gateway.redis` and `gateway.auth` are read at start
//!   (a change is logged as needing a restart). Under `"prefixes": "auto"`, names already given are
//!   kept: an upstream added next to a single one gets a prefixed name, the first keeps its own.

use crate::config::{Config, ConfigError, UpstreamConfig};
use crate::gateway::{prefixed, Gateway, Inner, PROMPTS, RESOURCES, TOOLS};
use crate::upstream::{State, Upstream};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// What a reload did, by upstream name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReloadReport {
    /// Started: new in the configuration.
    pub added: Vec<String>,
    /// Stopped: gone from the configuration.
    pub removed: Vec<String>,
    /// Stopped and started again: their definition changed.
    pub restarted: Vec<String>,
    /// Not touched.
    pub unchanged: Vec<String>,
    /// The `list_changed` notifications sent (`tools`, `prompts`, `resources`), once each at most.
    pub notified: Vec<&'static str>,
}

impl ReloadReport {
    /// Whether the reload changed no upstream.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.restarted.is_empty()
    }
}

/// How [`watch`] notices a new configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchOptions {
    /// How often the file is looked at; `None`: not watched (only `SIGHUP` reloads).
    pub poll: Option<Duration>,
    /// Reload on `SIGHUP` (Unix).
    pub sighup: bool,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            poll: Some(Duration::from_millis(500)),
            sighup: true,
        }
    }
}

/// Upstreams of two configurations matched by name.
#[derive(Debug, Default, PartialEq)]
struct Diff {
    added: Vec<UpstreamConfig>,
    removed: Vec<String>,
    changed: Vec<UpstreamConfig>,
    unchanged: Vec<String>,
}

fn diff(old: &[UpstreamConfig], new: &[UpstreamConfig]) -> Diff {
    let before: BTreeMap<&str, &UpstreamConfig> =
        old.iter().map(|u| (u.name.as_str(), u)).collect();
    let after: BTreeMap<&str, &UpstreamConfig> = new.iter().map(|u| (u.name.as_str(), u)).collect();
    let mut d = Diff::default();
    for (name, u) in &after {
        match before.get(name) {
            None => d.added.push((*u).clone()),
            Some(o) if *o != *u => d.changed.push((*u).clone()),
            Some(_) => d.unchanged.push(name.to_string()),
        }
    }
    d.removed = before
        .keys()
        .filter(|n| !after.contains_key(*n))
        .map(|n| n.to_string())
        .collect();
    d
}

impl Gateway {
    /// Reads `path` and applies it ([`Gateway::reload`]); a file that does not load changes nothing and
    /// is returned as the error (the file, the place, the problem).
    pub async fn reload_file(&self, path: &Path) -> Result<ReloadReport, ConfigError> {
        let config = Config::load(path)?;
        Ok(self.reload(config).await)
    }

    /// Applies a new configuration (see the [module docs](self)): returns once the new and changed
    /// upstreams have had their first start (up, or failed and retried in the background) and the
    /// notifications are sent.
    pub async fn reload(&self, config: Config) -> ReloadReport {
        let inner = self.inner().clone();
        let _gate = inner.reload_gate.lock().await;
        // Changes made before the reload began and not yet told go out with the reload's.
        let mut pending = inner.dirty.swap(0, Ordering::AcqRel);
        let before = inner.fingerprint();
        let old = inner
            .config
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if config.redis != old.redis {
            tracing::warn!("gateway.redis changed: it takes effect when the gateway restarts");
        }
        if config.discovery && inner.catalogue.is_none() {
            tracing::warn!("gateway.discovery changed: it takes effect when the gateway restarts");
        }
        let d = diff(&old.upstreams, &config.upstreams);
        let grace = config.reload_grace;
        inner.cache.set_cap(config.cache_bytes);
        if config.auth != old.auth {
            tracing::warn!("gateway.auth changed: it takes effect when the gateway restarts");
        }
        // New rules apply at once: every caller's lists may have changed.
        if inner.authz.set(config.rules.clone()) {
            pending |= TOOLS | PROMPTS | RESOURCES;
        }
        let index_of = |name: &str| {
            let slots = inner.upstreams.read().unwrap_or_else(|e| e.into_inner());
            slots
                .iter()
                .position(|s| s.as_ref().is_some_and(|s| s.up.config.name == name))
        };
        let stopping = d
            .removed
            .iter()
            .map(String::as_str)
            .chain(d.changed.iter().map(|u| u.name.as_str()));
        for name in stopping {
            if let Some(up) = index_of(name).and_then(|i| inner.remove(i)) {
                tracing::info!(upstream = %name, "reload: stopping");
                tokio::spawn(retire(up, grace));
            }
        }
        inner.prefixed.store(prefixed(&config), Ordering::Relaxed);
        let starting: Vec<Arc<Upstream>> = d
            .added
            .iter()
            .chain(&d.changed)
            .map(|u| inner.insert(u.clone()))
            .collect();
        // Composite steps reach the upstreams in the new config's order.
        let ups: Vec<Arc<Upstream>> = config
            .upstreams
            .iter()
            .filter_map(|u| index_of(&u.name).and_then(|i| inner.upstream(i)))
            .collect();
        if ups.len() == config.upstreams.len() {
            inner.set_composites(&config.composites, &ups);
        }
        let limit = starting
            .iter()
            .map(|u| u.config.init_timeout + u.config.timeout)
            .max()
            .unwrap_or_default();
        let started: Vec<_> = starting
            .into_iter()
            .map(|up| {
                tracing::info!(upstream = %up.config.name, "reload: starting");
                inner.spawn_supervisor(up)
            })
            .collect();
        let first = futures_util::future::join_all(started.into_iter().map(|mut rx| async move {
            let _ = rx.wait_for(|s| *s).await;
        }));
        if tokio::time::timeout(limit, first).await.is_err() {
            tracing::warn!(
                "reload: an upstream is still listing after {limit:?}; its tools follow"
            );
        }
        let mut report = ReloadReport {
            added: d.added.iter().map(|u| u.name.clone()).collect(),
            removed: d.removed,
            restarted: d.changed.iter().map(|u| u.name.clone()).collect(),
            unchanged: d.unchanged,
            notified: Vec::new(),
        };
        *inner.config.lock().unwrap_or_else(|e| e.into_inner()) = config;
        let after = inner.fingerprint();
        inner.dirty.swap(0, Ordering::AcqRel);
        notify(&inner, pending, before, after, &mut report.notified);
        tracing::info!(
            added = ?report.added,
            removed = ?report.removed,
            restarted = ?report.restarted,
            notified = ?report.notified,
            "configuration reloaded"
        );
        report
    }
}

/// One `list_changed` per kind whose list changed (or had a change not yet told when the reload began).
fn notify(
    inner: &Inner,
    pending: u8,
    before: [u64; 3],
    after: [u64; 3],
    sent: &mut Vec<&'static str>,
) {
    for (k, (bit, name)) in [
        (TOOLS, "tools"),
        (PROMPTS, "prompts"),
        (RESOURCES, "resources"),
    ]
    .into_iter()
    .enumerate()
    {
        if before[k] == after[k] && pending & bit == 0 {
            continue;
        }
        match bit {
            TOOLS => inner.server.notify_tools_list_changed(),
            PROMPTS => inner.server.notify_prompts_list_changed(),
            _ => inner.server.notify_resource_list_changed(),
        }
        sent.push(name);
    }
}

/// How often a stopped upstream's calls in flight are counted while it drains.
const DRAIN_POLL: Duration = Duration::from_millis(20);

/// Lets a removed upstream's calls in flight finish within `grace`, fails those still running after it
/// (their connections are aborted with a reason that says so), then closes its connections.
async fn retire(up: Arc<Upstream>, grace: Duration) {
    let name = up.config.name.clone();
    let client = match up.state() {
        State::Up(c) => Some(c),
        _ => None,
    };
    up.set_state(State::Down(
        "it was removed from the configuration by a reload".into(),
    ));
    let in_flight = || {
        up.callers.len()
            + up.sessions.as_ref().map_or(0, |p| p.pool().in_flight())
            + up.users.as_ref().map_or(0, |p| p.pool().in_flight())
    };
    let t0 = Instant::now();
    while in_flight() > 0 && t0.elapsed() < grace {
        tokio::time::sleep(DRAIN_POLL).await;
    }
    let left = in_flight();
    let reason = if left > 0 {
        let why = format!(
            "the upstream was removed from the configuration by a reload, and this call did not end \
             within the reload grace period ({} ms, gateway.reloadGraceMs)",
            grace.as_millis()
        );
        tracing::warn!(upstream = %name, calls = left, "reload: calls still in flight after the grace period fail");
        why
    } else {
        "the upstream was removed from the configuration by a reload".to_string()
    };
    if let Some(p) = &up.sessions {
        p.pool().abort_all(&reason);
    }
    if let Some(p) = &up.users {
        p.pool().abort_all(&reason);
    }
    let Some(mut client) = client else { return };
    if left > 0 {
        client.abort(&reason);
    }
    // The supervisor lets go of the client as it stops: then the child gets a clean shutdown (stdin
    // closed, two seconds, killed). Anything still holding it after a second is cut off.
    for _ in 0..50 {
        match Arc::try_unwrap(client) {
            Ok(c) => {
                c.close().await;
                tracing::info!(upstream = %name, "reload: stopped");
                return;
            }
            Err(c) => client = c,
        }
        tokio::time::sleep(DRAIN_POLL).await;
    }
    client.abort(&reason);
    tracing::info!(upstream = %name, "reload: stopped");
}

/// What the watcher last saw of the file.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Seen {
    len: u64,
    modified: Option<SystemTime>,
}

fn seen(path: &Path) -> Option<Seen> {
    let m = std::fs::metadata(path).ok()?;
    Some(Seen {
        len: m.len(),
        modified: m.modified().ok(),
    })
}

fn digest(path: &Path) -> Option<[u8; 32]> {
    use sha2::Digest;
    let text = std::fs::read(path).ok()?;
    Some(sha2::Sha256::digest(&text).into())
}

/// Reloads `gateway` from `path` when the file changes and on `SIGHUP`, as `opts` says, until the
/// gateway is dropped. A file that does not load is logged (file, place, problem) and the running
/// configuration stays.
pub fn watch(gateway: &Gateway, path: PathBuf, opts: WatchOptions) -> tokio::task::JoinHandle<()> {
    let weak = Arc::downgrade(gateway.inner());
    tokio::spawn(async move {
        let mut last = seen(&path);
        let mut loaded = digest(&path);
        #[cfg(unix)]
        let mut hup = if opts.sighup {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
                Ok(s) => Some(s),
                Err(e) => {
                    tracing::warn!("cannot watch for SIGHUP: {e}");
                    None
                }
            }
        } else {
            None
        };
        loop {
            let poll = async {
                match opts.poll {
                    Some(every) => tokio::time::sleep(every).await,
                    None => std::future::pending().await,
                }
            };
            #[cfg(unix)]
            let signal = async {
                match hup.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            #[cfg(not(unix))]
            let signal = std::future::pending::<Option<()>>();
            let why = tokio::select! {
                _ = poll => {
                    let now = seen(&path);
                    if now == last {
                        if weak.strong_count() == 0 {
                            return;
                        }
                        continue;
                    }
                    // Let a save in progress finish: the file must hold still for a moment.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let settled = seen(&path);
                    if settled != now {
                        continue;
                    }
                    last = settled;
                    let d = digest(&path);
                    if d.is_some() && d == loaded {
                        continue;
                    }
                    loaded = d;
                    "the file changed"
                }
                _ = signal => {
                    last = seen(&path);
                    loaded = digest(&path);
                    "SIGHUP"
                }
            };
            let Some(inner) = weak.upgrade() else { return };
            let gw = Gateway::from_inner(inner);
            tracing::info!(file = %path.display(), "reloading the configuration ({why})");
            match gw.reload_file(&path).await {
                Ok(r) if r.is_empty() => tracing::info!("reload: no upstream changed"),
                Ok(_) => {}
                Err(e) => tracing::error!(
                    "configuration not reloaded: {e}; the running configuration stays"
                ),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upstreams(json: &str) -> Vec<UpstreamConfig> {
        json.parse::<Config>().unwrap().upstreams
    }

    #[test]
    fn upstreams_are_matched_by_name_and_definition() {
        let old = upstreams(
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}, "c": {"url": "http://127.0.0.1:1/mcp"}}}"#,
        );
        let new = upstreams(
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "args": ["-v"]}, "d": {"command": "z"}}}"#,
        );
        let d = diff(&old, &new);
        let names = |v: &[UpstreamConfig]| v.iter().map(|u| u.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&d.added), ["d"]);
        assert_eq!(names(&d.changed), ["b"]);
        assert_eq!(d.removed, ["c"]);
        assert_eq!(d.unchanged, ["a"]);
        // A key of our own changes the definition too.
        let d = diff(
            &old,
            &upstreams(
                r#"{"mcpServers": {"a": {"command": "x", "timeoutMs": 5}, "b": {"command": "y"}, "c": {"url": "http://127.0.0.1:1/mcp"}}}"#,
            ),
        );
        assert_eq!(names(&d.changed), ["a"]);
        assert_eq!(d.unchanged, ["b", "c"]);
        assert_eq!(diff(&old, &old).unchanged, ["a", "b", "c"]);
    }

    #[test]
    fn the_grace_period_is_read_and_bounded() {
        let c: Config =
            r#"{"mcpServers": {"a": {"command": "x"}}, "gateway": {"reloadGraceMs": 250}}"#
                .parse()
                .unwrap();
        assert_eq!(c.reload_grace, Duration::from_millis(250));
        let c: Config = r#"{"mcpServers": {"a": {"command": "x"}}}"#.parse().unwrap();
        assert_eq!(c.reload_grace, Duration::from_secs(10));
        let e =
            r#"{"mcpServers": {"a": {"command": "x"}}, "gateway": {"reloadGraceMs": 99999999}}"#
                .parse::<Config>()
                .unwrap_err();
        assert_eq!(e.place, "gateway.reloadGraceMs");
    }
}
