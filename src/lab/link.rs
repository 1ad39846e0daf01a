//! How the lab reaches a server: the checking client's wire (HTTP or stdio) behind one small
//! trait, so the lab's loop does not care which transport carries the frames.
//!
//! Everything that arrives on a listen stream is pushed into one channel of [`Incoming`]; the
//! lab's loop is the only place that interprets it.

use std::future::Future;
use std::pin::Pin;

use mock_server::protocol::RequestId;
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

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
        message: Value,
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
}

pub type Tx = UnboundedSender<Incoming>;
pub type Receiver = UnboundedReceiver<Incoming>;

/// A plain request's reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status, when over HTTP.
    pub status: Option<u16>,
    /// The JSON-RPC response (or `Value::Null` when there was no body).
    pub message: Value,
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
    /// The server refused the listen with a plain JSON reply instead of a stream.
    pub refused: Option<Value>,
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
