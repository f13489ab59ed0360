//! Response bodies that keep their bytes on the server's byte budget until hyper has written them: a
//! client that does not read its answers keeps the budget spent, so the server stops reading new bodies
//! instead of piling up answers nobody reads.

use crate::budget::{ByteBudget, Charge};
use axum::body::{Body, HttpBody};
use axum::response::Response;
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Holds the request body's `charge`, plus a charge for an answer of known size, until the answer's
/// bytes have been written.
pub(crate) fn until_sent(resp: Response, charge: Charge, budget: &Arc<ByteBudget>) -> Response {
    let (parts, body) = resp.into_parts();
    // The answer's frame gave its own charge back when it was routed here; its bytes are still ours.
    let answer = match body.size_hint().exact() {
        Some(n) if n > 0 => budget.charge_out(n as usize),
        _ => Charge::none(),
    };
    Response::from_parts(
        parts,
        Body::new(Held {
            body,
            charges: Some((charge, answer)),
        }),
    )
}

struct Held {
    body: Body,
    charges: Option<(Charge, Charge)>,
}

/// A chunk of the answer that carries the charges: dropped once hyper has written it.
struct Charged {
    data: Bytes,
    _charges: (Charge, Charge),
}

impl AsRef<[u8]> for Charged {
    fn as_ref(&self) -> &[u8] {
        &self.data
    }
}

impl HttpBody for Held {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let frame = match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => frame,
            other => return other,
        };
        // The charges ride on the first chunk of data, so that they last until it is written.
        let frame = match (frame.into_data(), this.charges.take()) {
            (Ok(data), Some(charges)) => Frame::data(Bytes::from_owner(Charged {
                data,
                _charges: charges,
            })),
            (Ok(data), None) => Frame::data(data),
            (Err(frame), charges) => {
                this.charges = charges;
                frame
            }
        };
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
