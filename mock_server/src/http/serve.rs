//! The HTTP/1.1 connection loop: hyper with a timer, so a client that sends its request head
//! too slowly, or holds an idle connection, is disconnected; a cap on open connections, above
//! which a new one is answered `503` instead of being left unanswered at the fd limit.
//!
//! `axum::serve` runs hyper without a timer, so hyper's header-read timeout never fires there.
//! HTTP/2 is not served: MCP clients speak HTTP/1.1 to a cleartext endpoint, and the timeouts
//! below are HTTP/1 ones.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

use super::listen::{HyperSide, Socket, StreamsThread};
use super::slot::Slot;

use crate::Limits;
use crate::methods;
use crate::protocol::error_code as code;

/// Connections being answered `503` at once; beyond this an over-cap connection is closed
/// unanswered, so a flood cannot use the refusals themselves to exhaust file descriptors.
const REFUSING_AT_ONCE: usize = 32;

/// How long an over-cap connection may take to send the request it is refused.
const REFUSE_WITHIN: Duration = Duration::from_secs(2);

/// Accepts connections until `shutdown`, then lets each finish its current response (listen
/// streams end gracefully on the same token) and returns.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: CancellationToken,
    streams: StreamsThread,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let open = Arc::new(AtomicUsize::new(0));
    let refusing = Arc::new(AtomicUsize::new(0));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        // The timer runs from the moment the connection is ready for a request (just opened, or
        // its previous response finished) until the request head is complete. So it bounds both
        // a slow head and an idle keep-alive connection, and never runs while a response (a
        // listen stream with its keep-alives) is being written.
        .header_read_timeout(limits.header_timeout);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(e) => {
                    // EMFILE and friends: wait for descriptors to free up instead of spinning
                    // (what `axum::serve` does too); the cap keeps this rare.
                    eprintln!("mock_server: accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = shutdown.cancelled() => break,
        };
        let Some(slot) = Slot::take(&open, limits.max_connections) else {
            refuse(stream, &refusing, limits.max_connections);
            continue;
        };
        // Each request can reach the socket, so an accepted listen can take it over.
        let socket = Socket::new(stream, slot, streams.streams());
        let for_requests = socket.clone();
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
            req.extensions_mut().insert(for_requests.clone());
            router.clone().oneshot(req)
        });
        let conn = builder.serve_connection(TokioIo::new(HyperSide(socket)), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // Errors here are the client's (reset, timeout, malformed request) or a listen's
            // takeover (hyper sees its input end): nothing to do.
            let _ = conn.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    streams.finish().await;
    Ok(())
}

/// Answers one over-cap connection with `503` and a JSON-RPC error, then closes it.
fn refuse(stream: TcpStream, refusing: &Arc<AtomicUsize>, max: usize) {
    let Some(slot) = Slot::take(refusing, REFUSING_AT_ONCE) else {
        return; // dropping the stream closes it
    };
    tokio::spawn(async move {
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(REFUSE_WITHIN)
            .keep_alive(false);
        let service = hyper::service::service_fn(move |_req: Request<hyper::body::Incoming>| {
            std::future::ready(Ok::<_, Infallible>(busy(max)))
        });
        let conn = builder.serve_connection(TokioIo::new(stream), service);
        let _ = tokio::time::timeout(REFUSE_WITHIN * 2, conn).await;
        drop(slot);
    });
}

fn busy(max: usize) -> Response<Body> {
    let body = methods::error(
        None,
        code::INTERNAL_ERROR,
        &format!(
            "the server is busy: {max} connections are open (its --max-connections); retry later"
        ),
    );
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// The default connection cap: the process's file-descriptor limit less a reserve for the
/// server's own files and for the `503` refusals, so the cap is reached before the fd limit.
pub(crate) fn default_max_connections() -> usize {
    const RESERVED: u64 = 64 + REFUSING_AT_ONCE as u64;
    let limit = fd_limit().unwrap_or(1024);
    usize::try_from(limit.saturating_sub(RESERVED))
        .unwrap_or(usize::MAX)
        .max(16)
}

#[cfg(unix)]
fn fd_limit() -> Option<u64> {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own and reads nothing else.
    // SAFETY: a plain libc call on a stack value we own; no pointer outlives it.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) };
    // rlim_t is u64 on Linux but not on every unix.
    #[allow(clippy::unnecessary_cast)]
    (rc == 0 && rl.rlim_cur != libc::RLIM_INFINITY).then_some(rl.rlim_cur as u64)
}

#[cfg(not(unix))]
fn fd_limit() -> Option<u64> {
    None
}
