//! The few future combinators the runtime needs, written here so that a stdio server does not compile
//! `futures-util` (and its proc macro) for them: a boxed future, a future whose panic becomes a value,
//! a join of fallible futures, and a task aborted when its handle is dropped. The HTTP transport, which
//! streams bodies, still uses `futures-util` (axum brings it anyway).

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe, UnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A boxed, sendable future: the same type as `futures::future::BoxFuture`, so either name fits
/// wherever the runtime asks for one (handlers, stores, buses).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A future whose panic, raised while it is polled, is its output (`Err(payload)`) instead of unwinding
/// through the task that polls it.
pub(crate) struct CatchUnwind<F>(F);

impl<F: Future + UnwindSafe + Unpin> CatchUnwind<F> {
    pub(crate) fn new(fut: F) -> Self {
        CatchUnwind(fut)
    }
}

impl<F: Future + UnwindSafe + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let fut = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(fut).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// Runs every future at once; the outputs in the futures' order, or the first error (the others are
/// dropped then). Meant for a handful of futures: each wake polls those still running.
pub(crate) async fn try_join_all<T, E, F>(futures: impl IntoIterator<Item = F>) -> Result<Vec<T>, E>
where
    F: Future<Output = Result<T, E>>,
{
    let mut running: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut done: Vec<Option<T>> = running.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (fut, out) in running.iter_mut().zip(done.iter_mut()) {
            if out.is_some() {
                continue;
            }
            match fut.as_mut().poll(cx) {
                Poll::Ready(Ok(v)) => *out = Some(v),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => pending = true,
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(Ok(done.iter_mut().filter_map(Option::take).collect()))
        }
    })
    .await
}

/// A spawned task that is aborted when this handle is dropped.
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_the_output() {
        let fut: BoxFuture<'static, u8> = Box::pin(async { panic!("boom") });
        let r = CatchUnwind::new(AssertUnwindSafe(fut)).await;
        let payload = r.expect_err("the panic is the output");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"));
        let fut: BoxFuture<'static, u8> = Box::pin(async { 7 });
        assert_eq!(CatchUnwind::new(AssertUnwindSafe(fut)).await.ok(), Some(7));
    }

    #[tokio::test]
    async fn join_keeps_order_and_stops_at_the_first_error() {
        let slow_first = [30u64, 0, 10].map(|ms| async move {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            Ok::<u64, String>(ms)
        });
        assert_eq!(try_join_all(slow_first).await, Ok(vec![30, 0, 10]));
        let failing = [0u64, 1].map(|n| async move {
            if n == 1 {
                Err(format!("failed {n}"))
            } else {
                std::future::pending::<()>().await;
                Ok(n)
            }
        });
        assert_eq!(try_join_all(failing).await, Err("failed 1".to_string()));
        let none: [std::future::Ready<Result<u8, ()>>; 0] = [];
        assert_eq!(try_join_all(none).await, Ok(vec![]));
    }

    #[tokio::test]
    async fn a_dropped_handle_aborts_its_task() {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let handle = AbortOnDrop(tokio::spawn(async move {
            std::future::pending::<()>().await;
            drop(tx);
        }));
        drop(handle);
        // The task was aborted: its sender is dropped without having sent.
        assert!(rx.await.is_err());
    }
}
