//! One client over any transport: the wire (HTTP or stdio) behind one small trait, so the lab's
//! loop and `check`'s probe do not care which transport carries the frames.
//!
//! Everything that arrives on a listen stream (or, on stdio, on the channel and not a reply to
//! a request) is pushed into one channel of [`Incoming`]; its reader is the only place that
//! interprets it. [`HttpLink`] and [`StdioLink`] are the two transports.

mod http;
mod stdio;

pub use http::HttpLink;
pub use mock_server::Transport;
pub use stdio::StdioLink;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use mock_server::protocol::{Message, RequestId};
use serde_json::Value;
use tokio::sync::mpsc::error::TrySendError;

use super::{Alarm, Exchange, FloodMeter, HttpClient, RawResponse};

pub type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything asynchronous a link's reader reacts to, in one enum (the lab's REPL loop, like
/// rustlings' watch loop; `check`'s probe).
#[derive(Debug, Clone)]
pub enum Incoming {
    /// One JSON-RPC message on a listen stream. `stream` is the listen id whose HTTP response
    /// carried it; on stdio it is the subscription the demultiplexer matched by tag (None when
    /// the tag matches no open listen).
    Frame {
        stream: Option<RequestId>,
        raw: String,
        message: Message,
    },
    /// An SSE comment line (keep-alive).
    KeepAlive { stream: RequestId, raw: String },
    /// A frame that is not JSON.
    Malformed {
        stream: Option<RequestId>,
        raw: String,
        error: String,
    },
    /// The HTTP stream carrying `stream` is over: `clean` when the body ended normally, false
    /// on a transport failure. Whether the subscription ended gracefully is the result's call.
    Ended { stream: RequestId, clean: bool },
    /// The whole channel is gone (stdio child exited).
    ChannelClosed { why: String },
    /// The careful client's acknowledgement timer ran out for this listen.
    AckTimeout { stream: RequestId },
    /// A stream (or the stdio channel, `None`) sent more than the lab keeps: `frames` arrived
    /// in `secs` seconds and `dropped` of them were counted, not shown.
    Flooding {
        stream: Option<RequestId>,
        frames: u64,
        secs: f64,
        dropped: u64,
    },
}

pub type Tx = tokio::sync::mpsc::Sender<Incoming>;
pub type Receiver = tokio::sync::mpsc::Receiver<Incoming>;

/// How many events wait for the reader at most. With [`Pace::Show`] a server sending faster
/// than the lab handles them fills it, and the rest is dropped and counted (see [`FloodGuard`]),
/// so memory stays bounded and a typed `quit` is never stuck behind a backlog.
pub const QUEUE: usize = 512;

/// Frames shown per stream and second at most; beyond it a server is flooding.
pub const FRAMES_PER_SECOND: usize = 200;

/// The channel of [`Incoming`] events a link's reader reads.
pub fn channel() -> (Tx, Receiver) {
    tokio::sync::mpsc::channel(QUEUE)
}

/// How a link hands frames to its reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// At most this many frames per stream and second, never waiting for room: what does not
    /// fit is dropped and counted (the lab, where a person reads every frame).
    Show(usize),
    /// Every frame, waiting for room in the channel (`check`, which judges every frame; the
    /// client's flood alarm bounds how fast a server can send).
    Keep,
}

/// Forwards one stream's frames to the reader. With [`Pace::Show`], at most that many a second
/// and never blocking on a full queue: what does not fit is dropped and counted, and the reader
/// hears "server is flooding" at most once a second while it lasts, and once more at the end.
pub struct FloodGuard {
    stream: Option<RequestId>,
    pace: Pace,
    meter: FloodMeter,
    dropped: u64,
    reported: u64,
    last_note: Option<Instant>,
}

impl FloodGuard {
    pub fn new(stream: Option<RequestId>, pace: Pace) -> Self {
        let limit = match pace {
            Pace::Show(n) => n,
            Pace::Keep => usize::MAX,
        };
        FloodGuard {
            stream,
            pace,
            meter: FloodMeter::with_limit(limit),
            dropped: 0,
            reported: 0,
            last_note: None,
        }
    }

    /// Offer one frame. False when the reader is gone.
    pub async fn offer(&mut self, tx: &Tx, inc: Incoming) -> bool {
        if self.pace == Pace::Keep {
            return tx.send(inc).await.is_ok();
        }
        let now = Instant::now();
        if self.meter.tick() {
            self.dropped += 1;
        } else {
            match tx.try_send(inc) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => self.dropped += 1,
                Err(TrySendError::Closed(_)) => return false,
            }
        }
        let due = self
            .last_note
            .is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1));
        if self.dropped > self.reported && due && tx.try_send(self.note()).is_ok() {
            self.reported = self.dropped;
            self.last_note = Some(now);
        }
        true
    }

    /// The stream is over: say how much was dropped since the last note, waiting for room.
    pub async fn finish(&mut self, tx: &Tx) {
        if self.dropped > self.reported {
            self.reported = self.dropped;
            let _ = tx.send(self.note()).await;
        }
    }

    fn note(&self) -> Incoming {
        let seen = self.meter.flood(0);
        Incoming::Flooding {
            stream: self.stream.clone(),
            frames: seen.frames as u64,
            secs: seen.secs,
            dropped: self.dropped,
        }
    }
}

/// A plain request's reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status, when over HTTP.
    pub status: Option<u16>,
    /// The JSON-RPC response (`None` when there was no body).
    pub message: Option<Message>,
    /// Raw request as sent (headers + body, or the stdio line), for `wire on`.
    pub sent_wire: String,
    /// Raw response as received.
    pub got_wire: String,
    /// The whole HTTP exchange (status, headers, body), when over HTTP.
    pub exchange: Option<Exchange>,
}

/// What opening a listen stream told us before any frame arrived.
#[derive(Debug, Clone)]
pub struct Opened {
    pub sent_wire: String,
    /// HTTP status line and headers of the stream response (empty on stdio).
    pub got_wire: String,
    pub status: Option<u16>,
    /// The stream response's status and headers, when over HTTP.
    pub response: Option<RawResponse>,
    /// The server refused the listen with a plain JSON reply instead of a stream: `Some`, with
    /// the reply when it had a JSON-RPC body.
    pub refused: Option<Option<Message>>,
}

pub trait Link: Send + Sync {
    fn transport(&self) -> Transport;
    /// Where the link is connected, for a banner or a report.
    fn describe(&self) -> String;
    /// Send one request and wait for its reply (bounded by the link's timeout).
    fn request<'a>(&'a self, message: Value) -> BoxFut<'a, anyhow::Result<Reply>>;
    /// Open a listen stream; its frames go to `tx` as they arrive (on stdio, to the channel's
    /// reader given when the link started).
    fn listen<'a>(
        &'a self,
        id: RequestId,
        message: Value,
        tx: Tx,
    ) -> BoxFut<'a, anyhow::Result<Opened>>;
    /// The client's cancel: close the stream (HTTP) or send `notifications/cancelled` (stdio).
    /// What had already arrived is handed over first. Returns the raw notification sent, if
    /// the transport sends one.
    fn cancel<'a>(&'a self, id: &'a RequestId) -> BoxFut<'a, anyhow::Result<Option<String>>>;
    /// Stop everything (lab exit or reset, end of a check).
    fn shutdown<'a>(&'a self) -> BoxFut<'a, ()>;
    /// Make the server vanish with no goodbye, when the transport can (a stdio child is
    /// killed, then restarted). False when it cannot.
    fn vanish<'a>(&'a self) -> BoxFut<'a, anyhow::Result<bool>> {
        Box::pin(async { Ok(false) })
    }
    /// Raised when the server floods; `check` stops on it.
    fn alarm(&self) -> Alarm;
    /// The HTTP client underneath, for checks of the header layer (`None` on stdio, which has
    /// none).
    fn http(&self) -> Option<&HttpClient> {
        None
    }
    /// What the server wrote to stderr so far (a stdio child's logs), for error messages.
    fn stderr(&self) -> String {
        String::new()
    }
}
