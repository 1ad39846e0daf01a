//! The listen stream on HTTP, kept lean: one hyper connection per request as usual, but once a
//! `subscriptions/listen` is accepted its socket is taken over from hyper, which lets go of its
//! read and write buffers (16 KiB a connection), and a small task writes the SSE stream itself:
//! the response head, then every event ready at a wake, written with one system call.
//!
//! [`Socket`] is what hyper reads and writes through: the two halves of the TCP stream behind a
//! lock, taken once. After the takeover hyper sees end of input and its writes go nowhere, so it
//! finishes the (discarded) `Connection: close` response it was given and drops its state.
//!
//! The streams run on a thread of their own ([`StreamsThread`], one current-thread runtime): a
//! change then wakes every stream on one core, as the calibration fan-out does, rather than
//! across the server's workers, where the wakes and the broadcast's counters and locks bounce
//! between cores.
//!
//! Where no socket can be taken (the router driven in process, an HTTP/1.0 request) the same
//! events are the body of an ordinary hyper response ([`ListenBody`]).

use std::future::poll_fn;
use std::io::Write as _;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use hyper::body::Frame;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio_util::task::TaskTracker;

use super::slot::Slot;
use crate::hub::Out;
use crate::protocol::header as h;

/// Bytes waiting for a slow reader beyond which a stream stops taking events; the broadcast
/// then skips what the stream missed (best effort), so a reader that stalls holds no more.
const MAX_PENDING: usize = 64 * 1024;

/// The headers of a listen response, besides the framing ones.
fn sse_headers() -> HeaderMap {
    let mut hm = HeaderMap::new();
    hm.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    hm.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    hm.insert(h::X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    hm
}

/// Appends the SSE events for `out`: `data: <json>` for each message ([SILENT] framing: one
/// `data:` line of compact JSON, no id/event/retry), a `:` comment for a keep-alive.
fn write_events(out: &Out, buf: &mut Vec<u8>) {
    match out {
        Out::KeepAlive => buf.extend_from_slice(KEEP_ALIVE),
        other => other.write_messages(b"data: ", b"\n\n", buf),
    }
}

const KEEP_ALIVE: &[u8] = b":\n\n";

/// Appends `out`'s events as one HTTP/1.1 chunk (nothing when there is no event).
fn write_chunk(out: &Out, buf: &mut Vec<u8>) {
    let len = match out {
        Out::KeepAlive => Some(KEEP_ALIVE.len()),
        other => other.messages_len(b"data: ".len() + b"\n\n".len()),
    };
    match len {
        Some(0) => {}
        Some(len) => {
            // Room for the size line, the events and the CRLF: one allocation, no regrowth.
            buf.reserve(len + 20);
            let _ = write!(buf, "{len:x}\r\n");
            write_events(out, buf);
            buf.extend_from_slice(b"\r\n");
        }
        None => {
            let mut events = Vec::new();
            write_events(out, &mut events);
            let _ = write!(buf, "{:x}\r\n", events.len());
            buf.append(&mut events);
            buf.extend_from_slice(b"\r\n");
        }
    }
}

/// Where taken-over listen streams run.
#[derive(Clone)]
pub(crate) struct Streams {
    runtime: Handle,
    /// The streams, so shutdown waits for them to end.
    tracker: TaskTracker,
}

/// The streams' thread; it ends after [`StreamsThread::finish`], or when this is dropped (the
/// server's task aborted), and with it any stream still open.
pub(crate) struct StreamsThread {
    streams: Streams,
    _stop: oneshot::Sender<()>,
}

impl StreamsThread {
    pub(crate) fn start() -> std::io::Result<StreamsThread> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("mcp-listen-streams".into())
            .spawn(move || {
                runtime.block_on(async {
                    let _ = stopped.await;
                })
            })?;
        Ok(StreamsThread {
            streams: Streams {
                runtime: handle,
                tracker: TaskTracker::new(),
            },
            _stop: stop,
        })
    }

    pub(crate) fn streams(&self) -> Streams {
        self.streams.clone()
    }

    /// Waits until every stream has ended (on shutdown each writes its result first), then
    /// stops the thread.
    pub(crate) async fn finish(self) {
        self.streams.tracker.close();
        self.streams.tracker.wait().await;
    }
}

/// One connection's socket, shared by hyper and, once a listen takes it over, by the stream.
pub(crate) struct Socket {
    halves: Mutex<Option<(OwnedReadHalf, OwnedWriteHalf)>>,
    streams: Streams,
    /// Counts the connection as open until the last holder lets go.
    _slot: Slot,
}

impl Socket {
    pub(crate) fn new(tcp: TcpStream, slot: Slot, streams: Streams) -> Arc<Socket> {
        Arc::new(Socket {
            halves: Mutex::new(Some(tcp.into_split())),
            streams,
            _slot: slot,
        })
    }

    fn halves(&self) -> MutexGuard<'_, Option<(OwnedReadHalf, OwnedWriteHalf)>> {
        // Only `take` and single I/O calls run under the lock: a panic cannot leave it half-done.
        self.halves.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What hyper reads and writes through.
pub(crate) struct HyperSide(pub(crate) Arc<Socket>);

impl AsyncRead for HyperSide {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.0.halves().as_mut() {
            Some((read, _)) => Pin::new(read).poll_read(cx, buf),
            // Taken over: hyper's request is over.
            None => Poll::Ready(Ok(())),
        }
    }
}

impl AsyncWrite for HyperSide {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.0.halves().as_mut() {
            Some((_, write)) => Pin::new(write).poll_write(cx, data),
            None => Poll::Ready(Ok(data.len())),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        match self.0.halves().as_mut() {
            Some((_, write)) => Pin::new(write).poll_write_vectored(cx, bufs),
            None => Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum())),
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.0.halves().as_mut() {
            Some((_, write)) => Pin::new(write).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.0.halves().as_mut() {
            Some((_, write)) => Pin::new(write).poll_shutdown(cx),
            None => Poll::Ready(Ok(())),
        }
    }
}

/// The response for an accepted listen: the stream written on the taken-over socket when there
/// is one, else an ordinary streaming body.
pub(crate) fn respond<S>(events: S, socket: Option<&Arc<Socket>>) -> Response
where
    S: Stream<Item = Out> + Send + 'static,
{
    let taken = socket.and_then(|s| s.halves().take().map(|halves| (s.clone(), halves)));
    let Some((socket, (read, write))) = taken else {
        return (sse_headers(), Body::new(ListenBody(Box::pin(events)))).into_response();
    };
    let head = response_head();
    // Moved to the streams' runtime: out of this one's reactor, into that one's.
    let tcp = read
        .reunite(write)
        .map_err(|e| std::io::Error::other(e.to_string()))
        .and_then(TcpStream::into_std);
    if let Ok(tcp) = tcp {
        let streams = socket.streams.clone();
        let stream = streams.tracker.track_future(async move {
            // Holding the socket keeps its connection slot taken while the stream lives.
            let _socket = socket;
            if let Ok(tcp) = TcpStream::from_std(tcp) {
                let (read, write) = tcp.into_split();
                stream_out(read, write, head, events).await;
            }
        });
        streams.runtime.spawn(stream);
    }
    // Hyper writes this nowhere, then closes its side of the connection and frees its buffers.
    (
        StatusCode::OK,
        [(header::CONNECTION, HeaderValue::from_static("close"))],
    )
        .into_response()
}

/// The response head as hyper would write it for a streaming body, plus `Connection: close`:
/// the connection ends with the stream.
fn response_head() -> Vec<u8> {
    let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
    for (name, value) in &sse_headers() {
        head.extend_from_slice(name.as_str().as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(value.as_bytes());
        head.extend_from_slice(b"\r\n");
    }
    let date = httpdate::fmt_http_date(std::time::SystemTime::now());
    let _ = write!(
        head,
        "connection: close\r\ntransfer-encoding: chunked\r\ndate: {date}\r\n\r\n"
    );
    head
}

thread_local! {
    /// Where a stream builds what it writes at one wake.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How a taken-over stream ended.
enum Ended {
    /// The stream ended (a result, or a fault's silent close): the last chunk was sent.
    Cleanly,
    /// An abrupt end, or the client went away: the connection is cut.
    Cut,
}

/// Writes the head, then every event, until the stream ends or the client goes away. Each wake
/// takes every event ready (up to [`MAX_PENDING`] bytes) and writes them at once.
async fn stream_out<S>(mut read: OwnedReadHalf, mut write: OwnedWriteHalf, head: Vec<u8>, events: S)
where
    S: Stream<Item = Out>,
{
    let mut events = std::pin::pin!(events);
    // Bytes not yet written; empty while the stream keeps up, which is nearly always: each
    // wake's events are then written from the worker thread's scratch buffer, so a stream
    // allocates nothing per event.
    let mut pending = head;
    let mut finished = false;
    let mut terminated = false;
    let ended = poll_fn(|cx| {
        if client_gone(&mut read, cx) {
            return Poll::Ready(Ended::Cut);
        }
        SCRATCH.with_borrow_mut(|scratch| {
            loop {
                let buf = if pending.is_empty() {
                    &mut *scratch
                } else {
                    &mut pending
                };
                while !finished && buf.len() < MAX_PENDING {
                    match events.as_mut().poll_next(cx) {
                        Poll::Ready(Some(Out::Abort)) => return Poll::Ready(Ended::Cut),
                        Poll::Ready(Some(item)) => write_chunk(&item, buf),
                        Poll::Ready(None) => finished = true,
                        Poll::Pending => break,
                    }
                }
                if finished && !terminated {
                    buf.extend_from_slice(b"0\r\n\r\n");
                    terminated = true;
                }
                if buf.is_empty() {
                    return if terminated {
                        Poll::Ready(Ended::Cleanly)
                    } else {
                        Poll::Pending
                    };
                }
                let written = match Pin::new(&mut write).poll_write(cx, buf) {
                    Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => return Poll::Ready(Ended::Cut),
                    Poll::Ready(Ok(n)) => n,
                    Poll::Pending => 0,
                };
                if pending.is_empty() {
                    // What the socket did not take stays with the stream.
                    pending.extend_from_slice(&scratch[written..]);
                    scratch.clear();
                } else {
                    pending.drain(..written);
                    if pending.is_empty() {
                        // An idle stream holds no buffer.
                        pending = Vec::new();
                    }
                }
                if written == 0 {
                    return Poll::Pending;
                }
            }
        })
    })
    .await;
    if let Ended::Cleanly = ended {
        let _ = write.shutdown().await;
    }
}

/// Whether the client closed its side (or the connection broke). Anything it sends meanwhile
/// is read and dropped: a listen response is the last on its connection.
fn client_gone(read: &mut OwnedReadHalf, cx: &mut Context<'_>) -> bool {
    let mut scratch = [0u8; 256];
    loop {
        let mut buf = ReadBuf::new(&mut scratch);
        match Pin::new(&mut *read).poll_read(cx, &mut buf) {
            Poll::Ready(Ok(())) if buf.filled().is_empty() => return true,
            Poll::Ready(Ok(())) => continue,
            Poll::Ready(Err(_)) => return true,
            Poll::Pending => return false,
        }
    }
}

/// The listen stream as a response body, for when no socket is taken over. Every event ready
/// at a poll goes into one frame.
struct ListenBody(Pin<Box<dyn Stream<Item = Out> + Send>>);

impl hyper::body::Body for ListenBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let mut buf = Vec::new();
        loop {
            let next = if buf.is_empty() {
                ready!(self.0.as_mut().poll_next(cx))
            } else {
                match self.0.as_mut().poll_next(cx) {
                    Poll::Ready(next) => next,
                    Poll::Pending => break,
                }
            };
            match next {
                // An error ends the body without its final chunk: the client sees transport
                // loss, not a clean end.
                Some(Out::Abort) => {
                    return Poll::Ready(Some(Err(std::io::Error::other(
                        "subscription dropped abruptly",
                    ))));
                }
                Some(item) => write_events(&item, &mut buf),
                None if buf.is_empty() => return Poll::Ready(None),
                None => break,
            }
            if buf.len() >= MAX_PENDING {
                break;
            }
        }
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(buf)))))
    }
}
