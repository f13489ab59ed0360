//! The health report: the gateway's overall state and each upstream's, as JSON (served at `GET /health`
//! in HTTP mode). Reasons are already free of secrets (the supervisor redacts them when it records them).

use serde_json::{json, Value};

/// One upstream's state, for health reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamStatus {
    pub name: String,
    /// `starting`, `up` or `down`.
    pub state: &'static str,
    /// Why it is down.
    pub reason: Option<String>,
    pub tools: usize,
    pub restarts: u32,
    /// The process id of a stdio upstream that is up.
    pub pid: Option<u32>,
    /// A per-session upstream's connections (`None`: it is shared).
    pub sessions: Option<SessionsStatus>,
    /// The per-user connections of an upstream with per-user credentials (`credentials`, `perUser`).
    pub users: Option<UsersStatus>,
}

/// The per-user connections of an upstream, for health reports (see [`crate::users`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsersStatus {
    /// Connections live (or starting) now, one per distinct caller credential.
    pub live: usize,
    /// How many may live at once (`maxUsers`).
    pub max: usize,
    /// Connections closed, idle, to make room for a new caller (since the gateway started).
    pub evictions: u64,
    /// Callers refused because all `maxUsers` connections were busy (since the gateway started).
    pub refusals: u64,
    /// The process ids of the per-user children (stdio upstreams).
    pub pids: Vec<u32>,
}

/// The connections of a per-session upstream, for health reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionsStatus {
    /// Sessions with a connection (or one starting).
    pub live: usize,
    /// How many may have one at once (`maxSessions`).
    pub max: usize,
    /// The process ids of their children (stdio upstreams).
    pub pids: Vec<u32>,
}

/// The gateway's overall state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overall {
    /// Every upstream is up.
    Ok,
    /// Some are up, some are not: the gateway serves what it has.
    Degraded,
    /// None is up.
    Down,
}

impl Overall {
    /// Of these upstreams.
    pub fn of(upstreams: &[UpstreamStatus]) -> Overall {
        let up = upstreams.iter().filter(|u| u.state == "up").count();
        if up == upstreams.len() {
            Overall::Ok
        } else if up > 0 {
            Overall::Degraded
        } else {
            Overall::Down
        }
    }

    /// Its name in the report.
    pub fn as_str(self) -> &'static str {
        match self {
            Overall::Ok => "ok",
            Overall::Degraded => "degraded",
            Overall::Down => "down",
        }
    }

    /// The HTTP status of the report: 503 when nothing is up (a load balancer takes the gateway out),
    /// 200 otherwise.
    pub fn http_status(self) -> u16 {
        match self {
            Overall::Down => 503,
            _ => 200,
        }
    }
}

/// The report: `{"status": "ok"|"degraded"|"down", "upstreams": [{name, state, reason?, tools,
/// restarts, pid?, sessions?: {live, max, pids}, users?: {live, max, evictions, refusals, pids}}]}`
/// (`sessions` for per-session upstreams, `users` for those with per-user credentials).
pub fn report(upstreams: &[UpstreamStatus]) -> (Overall, Value) {
    let overall = Overall::of(upstreams);
    let list: Vec<Value> = upstreams
        .iter()
        .map(|u| {
            let mut o = json!({
                "name": u.name,
                "state": u.state,
                "tools": u.tools,
                "restarts": u.restarts,
            });
            if let Some(r) = &u.reason {
                o["reason"] = json!(r);
            }
            if let Some(pid) = u.pid {
                o["pid"] = json!(pid);
            }
            if let Some(s) = &u.sessions {
                o["sessions"] = json!({"live": s.live, "max": s.max, "pids": s.pids});
            }
            if let Some(u) = &u.users {
                o["users"] = json!({"live": u.live, "max": u.max, "evictions": u.evictions,
                                    "refusals": u.refusals, "pids": u.pids});
            }
            o
        })
        .collect();
    (
        overall,
        json!({"status": overall.as_str(), "upstreams": list}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(name: &str, state: &'static str) -> UpstreamStatus {
        UpstreamStatus {
            name: name.into(),
            state,
            reason: (state == "down").then(|| "exit status 1".into()),
            tools: 3,
            restarts: 0,
            pid: None,
            sessions: None,
            users: None,
        }
    }

    #[test]
    fn overall_state_follows_the_upstreams() {
        let (o, v) = report(&[status("a", "up"), status("b", "down")]);
        assert_eq!(o, Overall::Degraded);
        assert_eq!(v["status"], "degraded");
        assert_eq!(v["upstreams"][1]["reason"], "exit status 1");
        assert_eq!(v["upstreams"][0].get("reason"), None);
        assert_eq!(report(&[status("a", "up")]).0, Overall::Ok);
        let (o, _) = report(&[status("a", "starting")]);
        assert_eq!((o, o.http_status()), (Overall::Down, 503));
        let mut per_user = status("u", "up");
        per_user.users = Some(UsersStatus {
            live: 2,
            max: 4,
            evictions: 1,
            refusals: 3,
            pids: vec![7, 9],
        });
        let (_, v) = report(&[per_user]);
        assert_eq!(
            v["upstreams"][0]["users"],
            json!({"live": 2, "max": 4, "evictions": 1, "refusals": 3, "pids": [7, 9]})
        );
    }
}
