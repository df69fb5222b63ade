//! The HTTP side, on hyper's HTTP/1 server: every connection gets a slot (at most
//! [`MAX_CONNECTIONS`]) and [`HEADER_TIMEOUT`] to send its headers, every request its
//! client's flood check before anything is read, and a body is read within
//! [`BODY_TIMEOUT`] and never kept past [`MAX_BODY_BYTES`]. Then the request is answered
//! on the blocking pool (SQLite is synchronous), so a slow disk never stalls the loop
//! that accepts the class's connections.

use crate::error::PollError;
use crate::routes::{Call, Reply, State, route, too_large};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, LOCATION, RETRY_AFTER};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use workbook::poll::wire::{MAX_BODY_BYTES, RefusalKind};

/// Open connections at once: a class of sixty needs a handful, a flood no more than this.
pub const MAX_CONNECTIONS: usize = 512;
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of a body beyond the cap is read (and dropped) so that its sender gets the
/// 413 and its reason, rather than a connection reset; a larger one is cut off unread.
const DRAIN_BYTES: usize = 1 << 20;

/// The teacher's page runs scripts and styles of its own and talks to this server only.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Accepts connections until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<State>) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let (stream, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(_) => {
                // Out of file descriptors, most likely: let some connections end.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            continue; // every slot taken: this connection is dropped unanswered
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| answer(state.clone(), remote.ip(), request));
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(16 * 1024)
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(slot);
        });
    }
}

async fn answer(
    state: Arc<State>,
    remote: IpAddr,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let reply = match read(&state, remote, request).await {
        Ok(call) => tokio::task::spawn_blocking(move || route(&state, call))
            .await
            .unwrap_or_else(|_| {
                Reply::refused(&PollError::new(
                    RefusalKind::Internal,
                    "the poll failed on this request; send it again",
                ))
            }),
        Err(error) => Reply::refused(&error),
    };
    Ok(response(reply))
}

/// The request, whole: refused before its body is read when its client floods or its
/// declared length is too large.
async fn read(
    state: &State,
    remote: IpAddr,
    request: Request<Incoming>,
) -> Result<Call, PollError> {
    let path = request.uri().path().to_string();
    state.admit(&path, remote)?;
    let header = |name| {
        request
            .headers()
            .get(name)
            .and_then(|v: &hyper::header::HeaderValue| v.to_str().ok())
    };
    if header(CONTENT_LENGTH)
        .and_then(|l| l.parse::<usize>().ok())
        .is_some_and(|l| l > DRAIN_BYTES)
    {
        return Err(too_large());
    }
    let content_type = header(CONTENT_TYPE).map(str::to_string);
    let method = request.method().as_str().to_string();
    let body = tokio::time::timeout(BODY_TIMEOUT, capped_body(request.into_body()))
        .await
        .map_err(|_| {
            PollError::new(
                RefusalKind::Slow,
                "the request's body did not arrive in time",
            )
        })??;
    Ok(Call {
        method,
        path,
        remote,
        content_type,
        body,
    })
}

/// The body up to the cap; past it, drained up to [`DRAIN_BYTES`] and refused.
async fn capped_body(mut body: Incoming) -> Result<Vec<u8>, PollError> {
    let mut kept = Vec::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| {
            PollError::new(
                RefusalKind::Malformed,
                "the request's body could not be read",
            )
        })?;
        if let Ok(data) = frame.into_data() {
            seen += data.len();
            if seen > DRAIN_BYTES {
                return Err(too_large());
            }
            if seen <= MAX_BODY_BYTES {
                kept.extend_from_slice(&data);
            }
        }
    }
    if seen > MAX_BODY_BYTES {
        Err(too_large())
    } else {
        Ok(kept)
    }
}

fn response(reply: Reply) -> Response<Full<Bytes>> {
    let mut builder = Response::builder()
        .status(reply.status)
        .header(CONTENT_TYPE, reply.content_type)
        .header(CACHE_CONTROL, "no-store")
        .header("x-content-type-options", "nosniff")
        .header("referrer-policy", "no-referrer")
        .header("content-security-policy", CSP);
    if let Some(location) = reply.location {
        builder = builder.header(LOCATION, location);
    }
    if let Some(seconds) = reply.retry_after {
        builder = builder.header(RETRY_AFTER, seconds);
    }
    builder
        .body(Full::new(Bytes::from(reply.body)))
        .unwrap_or_else(|_| {
            let mut fallback =
                Response::new(Full::new(Bytes::from_static(b"the poll could not answer")));
            *fallback.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
            fallback
        })
}
