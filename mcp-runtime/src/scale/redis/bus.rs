//! The bus on Redis pub/sub: one channel, a subscriber task per instance that reconnects after errors.

use super::backend;
use crate::future::BoxFuture;
use crate::scale::{Bus, BusMessage, StoreError};
use futures_util::StreamExt;
use redis::aio::ConnectionManager;
use std::time::Duration;
use tokio::sync::broadcast;

/// [`Bus`] on Redis pub/sub (channel `<prefix>bus`). Messages published while an instance's
/// subscription is down are missed by it (pub/sub keeps nothing).
pub struct RedisBus {
    conn: ConnectionManager,
    channel: String,
    tx: broadcast::Sender<BusMessage>,
    task: tokio::task::JoinHandle<()>,
}

impl RedisBus {
    /// Starts the subscriber task (it lives until the bus is dropped).
    pub fn start(client: redis::Client, conn: ConnectionManager, prefix: &str) -> Self {
        let channel = format!("{prefix}bus");
        let tx = broadcast::channel(1024).0;
        let task = tokio::spawn(subscriber(client, channel.clone(), tx.clone()));
        RedisBus {
            conn,
            channel,
            tx,
            task,
        }
    }
}

impl Drop for RedisBus {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn subscriber(client: redis::Client, channel: String, tx: broadcast::Sender<BusMessage>) {
    let mut delay = Duration::from_millis(50);
    loop {
        match client.get_async_pubsub().await {
            Ok(mut ps) => match ps.subscribe(&channel).await {
                Ok(()) => {
                    delay = Duration::from_millis(50);
                    let mut messages = ps.on_message();
                    while let Some(m) = messages.next().await {
                        match serde_json::from_slice::<BusMessage>(m.get_payload_bytes()) {
                            Ok(msg) => {
                                let _ = tx.send(msg);
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "bus: a message that is not a BusMessage; ignored")
                            }
                        }
                    }
                    tracing::warn!("bus: the Redis subscription ended; reconnecting");
                }
                Err(e) => tracing::warn!(error = %e, "bus: subscribing failed"),
            },
            Err(e) => tracing::debug!(error = %e, "bus: Redis unreachable"),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(2));
    }
}

impl Bus for RedisBus {
    fn publish<'a>(&'a self, message: &'a BusMessage) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(message)
                .map_err(|e| StoreError::Backend(format!("bus message: {e}")))?;
            redis::cmd("PUBLISH")
                .arg(&self.channel)
                .arg(json)
                .exec_async(&mut self.conn.clone())
                .await
                .map_err(backend)
        })
    }

    fn subscribe(&self) -> broadcast::Receiver<BusMessage> {
        self.tx.subscribe()
    }
}
