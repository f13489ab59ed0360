//! A bridge from `tracing` to `notifications/message`: events become log messages for every session whose
//! level lets them through. The runtime's own events are not forwarded (they would feed back on themselves).

use super::Server;
use crate::framing::to_raw;
use crate::protocol::{methods, LoggingLevel, LoggingMessageParams};
use std::fmt::Write;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::Context as LayerContext;
use tracing_subscriber::Layer;

/// A `tracing_subscriber` layer that forwards events to the clients of a server.
pub struct McpLogLayer {
    server: Server,
}

impl Server {
    /// A layer forwarding `tracing` events to clients as `notifications/message`.
    pub fn logging_layer(&self) -> McpLogLayer {
        McpLogLayer {
            server: self.clone(),
        }
    }
}

fn level_of(l: &Level) -> LoggingLevel {
    match *l {
        Level::ERROR => LoggingLevel::Error,
        Level::WARN => LoggingLevel::Warning,
        Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    rest: serde_json::Map<String, serde_json::Value>,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            self.rest
                .insert(field.name().into(), format!("{value:?}").into());
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.rest.insert(field.name().into(), value.into());
        }
    }
}

impl<S: Subscriber> Layer<S> for McpLogLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: LayerContext<'_, S>) {
        let meta = event.metadata();
        if meta.target().starts_with("mcp_runtime") {
            return;
        }
        let level = level_of(meta.level());
        let sessions = self.server.inner.live_sessions();
        let sessions: Vec<_> = sessions
            .into_iter()
            .filter(|s| s.log_enabled(level))
            .collect();
        if sessions.is_empty() {
            return;
        }
        let mut f = Fields::default();
        event.record(&mut f);
        let data = if f.rest.is_empty() {
            serde_json::Value::String(f.message)
        } else {
            f.rest.insert("message".into(), f.message.into());
            serde_json::Value::Object(f.rest)
        };
        let params = LoggingMessageParams {
            level,
            logger: Some(meta.target().to_string()),
            data,
        };
        if let Ok(raw) = to_raw(&params) {
            for s in sessions {
                s.peer.try_notify(methods::MESSAGE, Some(&raw), None);
            }
        }
    }
}
