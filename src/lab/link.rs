//! How the lab reaches a server: the checking client's wire (HTTP or stdio) behind one small
//! trait, so the lab's loop does not care which transport carries the frames.
//!
//! Everything that arrives on a listen stream is pushed into one channel of [`Incoming`]; the
//! lab's loop is the only place that interprets it.

use std::future::Future;
use std::pin::Pin;

use crate::client::FloodMeter;
use mock_server::protocol::{Message, RequestId};
use serde_json::Value;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::error::TrySendError;

pub type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything asynchronous the lab reacts to, in one enum (the REPL's event loop, like
/// rustlings' watch loop).
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

/// How many events wait for the lab at most. A server sending faster than the lab handles
/// them fills it, and the rest is dropped and counted (see [`FloodGuard`]), so memory stays
/// bounded and a typed `quit` is never stuck behind a backlog.
pub const QUEUE: usize = 512;

/// Frames shown per stream and second at most; beyond it a server is flooding.
pub const FRAMES_PER_SECOND: usize = 200;

/// The channel of [`Incoming`] events the lab's loop reads.
pub fn channel() -> (Tx, Receiver) {
    tokio::sync::mpsc::channel(QUEUE)
}

/// Forwards one stream's frames to the lab, at most [`FRAMES_PER_SECOND`] and never blocking
/// on a full queue: what does not fit is dropped and counted, and the lab hears "server is
/// flooding" at most once a second while it lasts, and once more at the end.
pub struct FloodGuard {
    stream: Option<RequestId>,
    meter: FloodMeter,
    dropped: u64,
    reported: u64,
    last_note: Option<Instant>,
}

impl FloodGuard {
    pub fn new(stream: Option<RequestId>) -> Self {
        FloodGuard {
            stream,
            meter: FloodMeter::with_limit(FRAMES_PER_SECOND),
            dropped: 0,
            reported: 0,
            last_note: None,
        }
    }

    /// Offer one frame. False when the lab is gone.
    pub fn offer(&mut self, tx: &Tx, inc: Incoming) -> bool {
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
}

/// What opening a listen stream told us before any frame arrived.
#[derive(Debug, Clone)]
pub struct Opened {
    pub sent_wire: String,
    /// HTTP status line and headers of the stream response (empty on stdio).
    pub got_wire: String,
    pub status: Option<u16>,
    /// The server refused the listen with a plain JSON reply instead of a stream: `Some`, with
    /// the reply when it had a JSON-RPC body.
    pub refused: Option<Option<Message>>,
}

pub trait Link: Send + Sync {
    /// `HTTP` or `stdio`.
    fn transport(&self) -> &'static str;
    /// Where the lab is connected, for the banner.
    fn describe(&self) -> String;
    /// Send one request and wait for its reply.
    fn request<'a>(&'a self, message: Value) -> BoxFut<'a, anyhow::Result<Reply>>;
    /// Open a listen stream; its frames go to `tx` as they arrive.
    fn listen<'a>(
        &'a self,
        id: RequestId,
        message: Value,
        tx: Tx,
    ) -> BoxFut<'a, anyhow::Result<Opened>>;
    /// The client's cancel: close the stream (HTTP) or send `notifications/cancelled` (stdio).
    /// Returns the raw notification sent, if the transport sends one.
    fn cancel<'a>(&'a self, id: &'a RequestId) -> BoxFut<'a, anyhow::Result<Option<String>>>;
    /// Stop everything (lab exit or reset).
    fn shutdown<'a>(&'a self) -> BoxFut<'a, ()>;
    /// Make the server vanish with no goodbye, when the transport can (a stdio child is
    /// killed, then restarted). False when it cannot.
    fn vanish<'a>(&'a self) -> BoxFut<'a, anyhow::Result<bool>> {
        Box::pin(async { Ok(false) })
    }
}
