//! The client library shared by `mcp-tutor check` and the lab: the transports, with the raw
//! wire kept for display, and the routing a stdio client must do.
//!
//! Two clients, both handing back exactly what went over the wire so the lab's `wire on` view
//! and `check --json` can show it:
//!
//! - [`HttpClient`] (Streamable HTTP): [`HttpClient::send`] posts one message and
//!   returns an [`Exchange`] (raw request line, headers and body; raw status and headers; the
//!   reply body, JSON or SSE). [`HttpClient::listen`] opens a `subscriptions/listen` stream and
//!   returns a [`ListenStream`] that yields [`WireEvent`]s as they arrive: each SSE frame with
//!   its parsed message, each `:` keep-alive line, and how the stream ended. Dropping the stream
//!   or calling [`ListenStream::cancel`] closes the HTTP response, which *is* the client cancel
//!   on HTTP (§1.5). [`HeaderEdits`] sets or omits any header, for the header and version checks.
//! - [`StdioClient`] (§2): spawns a server and shares its one channel. Write with
//!   [`StdioClient::send`] / [`StdioClient::listen`] / [`StdioClient::cancel`] (the last sends
//!   `notifications/cancelled` with `requestId`); read every line in arrival order with
//!   [`StdioClient::next`]; [`route`] says which request or subscription a line belongs to
//!   (responses by `id`, subscription traffic by `io.modelcontextprotocol/subscriptionId`).
//!
//! [`link`] puts both behind one trait ([`link::Link`]), which the lab and `check` drive.
//!
//! Every wait a caller makes on these is its own to bound (wrap in `tokio::time::timeout`);
//! [`HttpClient::send`] bounds itself with the client's timeout.

mod bounds;
mod http;
pub(crate) mod link;
pub mod sse;
mod stdio;

pub(crate) use bounds::FloodMeter;
pub use bounds::{Alarm, FLOOD_FRAMES_PER_SEC, Flood, MAX_FRAME_BYTES};
pub use http::{DEFAULT_TIMEOUT, HttpClient, ListenStream};
pub use stdio::{StdioClient, StdioSender};

use std::fmt::Write as _;

use mock_server::protocol::{self, Message, RequestId, header, meta};
use mock_server::validator::Observation;
use serde::Serialize;
use serde_json::Value;

/// The HTTP request exactly as sent (header names as they go on the wire, title-cased).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RawRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawRequest {
    /// The request target (path and query), as in the request line.
    pub fn path(&self) -> String {
        match reqwest::Url::parse(&self.url) {
            Ok(u) => match u.query() {
                Some(q) => format!("{}?{q}", u.path()),
                None => u.path().to_owned(),
            },
            Err(_) => self.url.clone(),
        }
    }

    /// The value of a header, names compared case-insensitively (HTTP §Case Sensitivity).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// The request as HTTP/1.1 text: request line, headers, blank line, body.
    pub fn render(&self) -> String {
        let mut s = format!("{} {} HTTP/1.1\n", self.method, self.path());
        for (k, v) in &self.headers {
            let _ = writeln!(s, "{k}: {v}");
        }
        if !self.body.is_empty() {
            let _ = write!(s, "\n{}", self.body);
        }
        s
    }
}

/// The HTTP response head as received (names title-cased; HTTP/1 names are case-insensitive).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// True when the reply is an SSE stream (`Content-Type: text/event-stream`).
    pub fn is_sse(&self) -> bool {
        self.header("content-type").is_some_and(|ct| {
            ct.trim()
                .to_ascii_lowercase()
                .starts_with("text/event-stream")
        })
    }

    /// Status line and headers as HTTP/1.1 text.
    pub fn render(&self) -> String {
        let reason = reqwest::StatusCode::from_u16(self.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        let mut s = format!("HTTP/1.1 {} {reason}\n", self.status);
        for (k, v) in &self.headers {
            let _ = writeln!(s, "{k}: {v}");
        }
        s
    }
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// One thing that happened on a response stream or a stdio channel, in arrival order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WireEvent {
    /// One JSON-RPC message: an SSE frame (`raw` = its lines) or a stdio line (`raw` = the line),
    /// classified once here; everything downstream reads the typed view.
    Frame { raw: String, message: Message },
    /// A frame or line that is not JSON; `error` says why.
    Malformed { raw: String, error: String },
    /// An SSE comment line (`:` …): a keep-alive, to be ignored (HTTP §Receiving Messages, Note).
    KeepAlive { raw: String },
    /// The transport failed (connection reset, read error); an `Ended { graceful: false }` follows.
    TransportError { detail: String },
    /// The stream or channel ended: `graceful` = a clean end of the body / EOF on stdout, as
    /// opposed to a transport failure. Whether the *subscription* ended gracefully (with its
    /// result) is the validator's call, not the transport's.
    Ended { graceful: bool },
}

/// A plain request and its complete reply.
#[derive(Debug, Clone, Serialize)]
pub struct Exchange {
    pub request: RawRequest,
    pub response: RawResponse,
    /// The reply body as text (for SSE, the frames read until the response arrived).
    pub body: String,
    /// The reply parsed: one `Frame` for a JSON body, every frame for an SSE body.
    pub events: Vec<WireEvent>,
}

impl Exchange {
    /// Every JSON-RPC message in the reply, in order.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.events.iter().filter_map(|e| match e {
            WireEvent::Frame { message, .. } => Some(message),
            _ => None,
        })
    }

    /// The JSON-RPC response (a message with `result` or `error`), if the reply held one.
    pub fn reply(&self) -> Option<&Message> {
        self.messages().find(|m| m.is_response())
    }

    /// `error.code` of the reply, if it is an error response.
    pub fn error_code(&self) -> Option<i64> {
        Some(self.reply()?.error()?.code)
    }
}

/// Changes to the standard headers of a request: set a value, or leave a header out entirely.
/// Used by the header checks (a missing `Mcp-Method`, a wrong `MCP-Protocol-Version`, ...).
#[derive(Debug, Clone, Default)]
pub struct HeaderEdits(Vec<(String, Option<String>)>);

impl HeaderEdits {
    pub fn new() -> Self {
        Self::default()
    }

    /// Send `name: value` instead of the standard value (or in addition to the standard set).
    pub fn set(mut self, name: &str, value: &str) -> Self {
        self.0.push((name.to_owned(), Some(value.to_owned())));
        self
    }

    /// Do not send `name` at all. (`Accept` cannot be omitted: the HTTP library then sends
    /// `Accept: */*`.)
    pub fn omit(mut self, name: &str) -> Self {
        self.0.push((name.to_owned(), None));
        self
    }

    fn apply(&self, headers: &mut Vec<(String, String)>) {
        for (name, value) in &self.0 {
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
            if let Some(v) = value {
                headers.push((name.clone(), v.clone()));
            }
        }
    }
}

/// The headers a careful client sends with `msg` (HTTP §Standard Request Headers): `Accept` with both media
/// types, `Content-Type`, `MCP-Protocol-Version` equal to the body's `_meta` version,
/// `Mcp-Method` equal to the body method, and `Mcp-Name` (base64 sentinel when needed) for the
/// three methods that take one.
pub fn standard_headers(msg: &Value) -> Vec<(String, String)> {
    let mut h = vec![
        ("Accept".to_owned(), header::ACCEPT_VALUE.to_owned()),
        ("Content-Type".to_owned(), "application/json".to_owned()),
    ];
    let params = msg.get("params");
    let version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::PROTOCOL_VERSION))
        .and_then(Value::as_str)
        .unwrap_or(protocol::PROTOCOL_VERSION);
    h.push((header::MCP_PROTOCOL_VERSION.to_owned(), version.to_owned()));
    if let Some(m) = msg.get("method").and_then(Value::as_str) {
        h.push((header::MCP_METHOD.to_owned(), m.to_owned()));
        if let Some(name) = protocol::mcp_name_field(m)
            .and_then(|field| params.and_then(|p| p.get(field)).and_then(Value::as_str))
        {
            h.push((
                header::MCP_NAME.to_owned(),
                protocol::encode_header_value(name),
            ));
        }
    }
    h
}

/// hyper writes header names title-cased when asked to; record them the same way.
fn title_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut up = true;
    for c in name.chars() {
        out.push(if up { c.to_ascii_uppercase() } else { c });
        up = c == '-';
    }
    out
}

impl WireEvent {
    /// The event the validator judges for this one (`None` for `TransportError`: an `Ended`
    /// follows). `stream` is the listen id of an HTTP listen stream, `None` on stdio.
    pub fn to_event(&self, stream: Option<&RequestId>) -> Option<Observation> {
        let stream = stream.cloned();
        Some(match self {
            WireEvent::Frame { message, .. } => Observation::Message {
                stream,
                message: message.clone(),
            },
            WireEvent::Malformed { raw, error } => Observation::Malformed {
                stream,
                raw: raw.clone(),
                error: error.clone(),
            },
            WireEvent::KeepAlive { .. } => Observation::KeepAlive { stream },
            WireEvent::TransportError { .. } => return None,
            WireEvent::Ended { graceful } => Observation::Ended {
                stream,
                graceful: *graceful,
            },
        })
    }
}

/// Which exchange a line on the stdio channel belongs to (STDIO §Receiving Messages).
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// A response (result or error) to the request with this id.
    Response(RequestId),
    /// A notification tagged `io.modelcontextprotocol/subscriptionId` = this value (raw: the
    /// tag's JSON type matters, §4.6).
    Subscription(Value),
    /// A server `notifications/cancelled` naming this request (stdio teardown of a listen, §4.9).
    Cancelled(RequestId),
    /// Anything else (untagged notifications, server requests, invalid messages).
    Other,
}

/// Routes one message the way a stdio client must demultiplex (§2).
pub fn route(msg: &Message) -> Route {
    match msg {
        Message::Result { id, .. } | Message::Error { id: Some(id), .. } => {
            Route::Response(id.clone())
        }
        Message::Notification { .. } => {
            if let Some(tag) = msg.subscription_tag() {
                return Route::Subscription(tag.clone());
            }
            match msg.cancelled_request() {
                Some(id) => Route::Cancelled(id),
                None => Route::Other,
            }
        }
        _ => Route::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mock_server::protocol::{SubscriptionFilter, method};
    use serde_json::json;

    #[test]
    fn standard_headers_mirror_the_body() {
        let msg = protocol::tool_call(&RequestId::Int(1), "café", json!({}));
        let h = standard_headers(&msg);
        assert_eq!(find_header(&h, "mcp-method"), Some("tools/call"));
        assert_eq!(find_header(&h, "mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(find_header(&h, "mcp-name"), Some("=?base64?Y2Fmw6k=?="));
        let listen = protocol::listen_request(&"a".into(), &SubscriptionFilter::default());
        assert_eq!(find_header(&standard_headers(&listen), "mcp-name"), None);
    }

    #[test]
    fn edits_set_and_omit_case_insensitively() {
        let msg = protocol::request(&RequestId::Int(1), method::TOOLS_LIST, json!({}));
        let mut h = standard_headers(&msg);
        HeaderEdits::new()
            .omit("mcp-method")
            .set("MCP-PROTOCOL-VERSION", "2031-01-01")
            .apply(&mut h);
        assert_eq!(find_header(&h, "Mcp-Method"), None);
        assert_eq!(find_header(&h, "mcp-protocol-version"), Some("2031-01-01"));
    }

    #[test]
    fn routes_by_id_tag_and_cancel() {
        let id = RequestId::from("s1");
        let route = |v: Value| route(&Message::classify(&v));
        assert_eq!(
            route(protocol::listen_complete(&id)),
            Route::Response(id.clone())
        );
        assert_eq!(
            route(protocol::ack(&id, &SubscriptionFilter::default())),
            Route::Subscription(json!("s1"))
        );
        assert_eq!(
            route(protocol::cancelled(&RequestId::Int(3), None)),
            Route::Cancelled(RequestId::Int(3))
        );
        assert_eq!(
            route(protocol::notification(
                method::TOOLS_LIST_CHANGED,
                json!({})
            )),
            Route::Other
        );
    }

    #[test]
    fn title_case_matches_hyper() {
        assert_eq!(title_case("mcp-protocol-version"), "Mcp-Protocol-Version");
        assert_eq!(title_case("x-accel-buffering"), "X-Accel-Buffering");
    }
}
