//! The checking client's transports, with the raw wire kept for display.
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
//! Every wait a caller makes on these is its own to bound (wrap in `tokio::time::timeout`);
//! [`HttpClient::send`] bounds itself with the client's timeout.

use std::fmt::Write as _;
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use futures_util::StreamExt;
use mock_server::protocol::{self, RequestId, SubscriptionFilter, header, meta, method};
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::sse::{SseItem, SseParser};

/// How long a plain request, or the head of a listen response, may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

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
    /// One JSON-RPC message: an SSE frame (`raw` = its lines) or a stdio line (`raw` = the line).
    Frame { raw: String, message: Value },
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
    pub fn messages(&self) -> impl Iterator<Item = &Value> {
        self.events.iter().filter_map(|e| match e {
            WireEvent::Frame { message, .. } => Some(message),
            _ => None,
        })
    }

    /// The JSON-RPC response (a message with `result` or `error`), if the reply held one.
    pub fn reply(&self) -> Option<&Value> {
        self.messages().find(|m| is_response(m))
    }

    /// `error.code` of the reply, if it is an error response.
    pub fn error_code(&self) -> Option<i64> {
        self.reply()?.get("error")?.get("code")?.as_i64()
    }
}

fn is_response(m: &Value) -> bool {
    m.get("method").is_none() && (m.get("result").is_some() || m.get("error").is_some())
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

/// The headers a careful client sends with `msg` (docs/rules.md#header-method-missing and the rules after it): `Accept` with both media
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

/// A Streamable HTTP client for one MCP endpoint. Cheap to clone (the connection pool is shared).
#[derive(Debug, Clone)]
pub struct HttpClient {
    url: reqwest::Url,
    client: reqwest::Client,
    timeout: Duration,
}

impl HttpClient {
    /// A client for the MCP endpoint at `url` (e.g. `http://127.0.0.1:3000/mcp`).
    pub fn new(url: &str) -> Result<Self> {
        let parsed = reqwest::Url::parse(url).with_context(|| {
            format!("{url:?} is not a URL; give the endpoint, e.g. http://127.0.0.1:3000/mcp")
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            bail!(
                "{url:?}: the scheme must be http or https (for a stdio server use `--stdio -- CMD`)"
            );
        }
        let client = reqwest::Client::builder()
            .http1_title_case_headers()
            .connect_timeout(DEFAULT_TIMEOUT)
            .build()
            .context("could not build the HTTP client")?;
        Ok(HttpClient {
            url: parsed,
            client,
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// Bound every plain exchange (and the head of each listen response) by `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// POSTs one message with the standard headers and reads the whole reply.
    pub async fn send(&self, msg: &Value) -> Result<Exchange> {
        self.send_with(msg, &HeaderEdits::default()).await
    }

    /// POSTs one message with the standard headers changed by `edits`.
    pub async fn send_with(&self, msg: &Value, edits: &HeaderEdits) -> Result<Exchange> {
        let mut headers = standard_headers(msg);
        edits.apply(&mut headers);
        let body = serde_json::to_string(msg)?;
        self.send_raw("POST", Some(body), headers).await
    }

    /// Any HTTP method, any headers, any body (e.g. `GET` for the 405 check). Reads the whole
    /// reply; an SSE reply is read until its JSON-RPC response arrives or the body ends.
    pub async fn send_raw(
        &self,
        http_method: &str,
        body: Option<String>,
        headers: Vec<(String, String)>,
    ) -> Result<Exchange> {
        let timeout = self.timeout;
        let work = async {
            let (request, resp) = self.start(http_method, body, headers).await?;
            let response = response_head(&resp);
            let mut events = Vec::new();
            let mut text = String::new();
            if response.is_sse() {
                let mut parser = SseParser::new();
                let mut bytes = resp.bytes_stream();
                'read: while let Some(chunk) = bytes.next().await {
                    let chunk = chunk.context("the SSE reply broke off")?;
                    text.push_str(&String::from_utf8_lossy(&chunk));
                    for item in parser.push(&chunk) {
                        let ev = sse_event(item);
                        let done =
                            matches!(&ev, WireEvent::Frame { message, .. } if is_response(message));
                        events.push(ev);
                        if done {
                            break 'read;
                        }
                    }
                }
            } else {
                let bytes = resp.bytes().await.context("the reply body broke off")?;
                text = String::from_utf8_lossy(&bytes).into_owned();
                if !text.trim().is_empty() {
                    events.push(json_event(&text));
                }
            }
            Ok::<_, anyhow::Error>(Exchange {
                request,
                response,
                body: text,
                events,
            })
        };
        tokio::time::timeout(timeout, work).await.map_err(|_| {
            anyhow!(
                "no complete reply from {} within {:.1} s",
                self.url,
                timeout.as_secs_f64()
            )
        })?
    }

    /// Opens `subscriptions/listen` with request id `id` and `filter` (docs/rules.md#filter-required).
    pub async fn listen(
        &self,
        id: &RequestId,
        filter: &SubscriptionFilter,
    ) -> Result<ListenStream> {
        self.listen_with(
            &protocol::listen_request(id, filter),
            &HeaderEdits::default(),
        )
        .await
    }

    /// Posts any message and streams its reply as [`WireEvent`]s (a JSON reply becomes one
    /// `Frame` then `Ended`). The head must arrive within the client's timeout; the body is
    /// read in the background for as long as the stream lives.
    pub async fn listen_with(&self, msg: &Value, edits: &HeaderEdits) -> Result<ListenStream> {
        let id = msg
            .get("id")
            .and_then(RequestId::from_value)
            .ok_or_else(|| anyhow!("a listen request needs a string or integer \"id\""))?;
        let mut headers = standard_headers(msg);
        edits.apply(&mut headers);
        let body = serde_json::to_string(msg)?;
        let (request, resp) =
            tokio::time::timeout(self.timeout, self.start("POST", Some(body), headers))
                .await
                .map_err(|_| {
                    anyhow!(
                        "no response head from {} within {:.1} s",
                        self.url,
                        self.timeout.as_secs_f64()
                    )
                })??;
        let response = response_head(&resp);
        let (tx, rx) = mpsc::channel(LISTEN_QUEUE);
        let sse = response.is_sse();
        let task = tokio::spawn(pump(resp, sse, tx));
        Ok(ListenStream {
            id,
            request,
            response,
            rx,
            task,
        })
    }

    async fn start(
        &self,
        http_method: &str,
        body: Option<String>,
        headers: Vec<(String, String)>,
    ) -> Result<(RawRequest, reqwest::Response)> {
        let m = reqwest::Method::from_bytes(http_method.as_bytes())
            .with_context(|| format!("{http_method:?} is not an HTTP method"))?;
        let mut rb = self.client.request(m, self.url.clone());
        for (k, v) in &headers {
            rb = rb.header(k.as_str(), v.as_str());
        }
        let body_text = body.unwrap_or_default();
        if !body_text.is_empty() {
            rb = rb.body(body_text.clone());
        }
        let req = rb
            .build()
            .with_context(|| format!("could not build the {http_method} request"))?;
        let mut sent: Vec<(String, String)> = Vec::new();
        if let Some(host) = self.url.host_str() {
            let host = match self.url.port() {
                Some(p) => format!("{host}:{p}"),
                None => host.to_owned(),
            };
            sent.push(("Host".to_owned(), host));
        }
        for (k, v) in req.headers() {
            sent.push((
                title_case(k.as_str()),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            ));
        }
        if !body_text.is_empty() {
            sent.push(("Content-Length".to_owned(), body_text.len().to_string()));
        }
        let request = RawRequest {
            method: http_method.to_owned(),
            url: self.url.to_string(),
            headers: sent,
            body: body_text,
        };
        let resp =
            self.client.execute(req).await.with_context(|| {
                format!("could not reach {} (is the server running?)", self.url)
            })?;
        Ok((request, resp))
    }
}

fn response_head(resp: &reqwest::Response) -> RawResponse {
    RawResponse {
        status: resp.status().as_u16(),
        headers: resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    title_case(k.as_str()),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
    }
}

fn sse_event(item: SseItem) -> WireEvent {
    match item {
        SseItem::Comment { raw } => WireEvent::KeepAlive { raw },
        SseItem::Event { raw, data, .. } => match serde_json::from_str::<Value>(&data) {
            Ok(message) => WireEvent::Frame { raw, message },
            Err(e) => WireEvent::Malformed {
                raw,
                error: format!("the data is not JSON: {e}"),
            },
        },
    }
}

fn json_event(text: &str) -> WireEvent {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(message) => WireEvent::Frame {
            raw: text.to_owned(),
            message,
        },
        Err(e) => WireEvent::Malformed {
            raw: text.to_owned(),
            error: format!("not JSON: {e}"),
        },
    }
}

/// Events a listen stream holds for its reader at most. When the reader is slower than the
/// server, the pump waits and TCP pushes back on the server, so a flooding server cannot grow
/// the client's memory.
const LISTEN_QUEUE: usize = 256;

/// Reads a response body in the background and forwards what it finds, as it arrives.
async fn pump(resp: reqwest::Response, sse: bool, tx: mpsc::Sender<WireEvent>) {
    if !sse {
        let ev = match resp.bytes().await {
            Ok(b) => {
                let text = String::from_utf8_lossy(&b).into_owned();
                if !text.trim().is_empty() {
                    let _ = tx.send(json_event(&text)).await;
                }
                WireEvent::Ended { graceful: true }
            }
            Err(e) => {
                let _ = tx
                    .send(WireEvent::TransportError {
                        detail: error_chain(&e),
                    })
                    .await;
                WireEvent::Ended { graceful: false }
            }
        };
        let _ = tx.send(ev).await;
        return;
    }
    let mut parser = SseParser::new();
    let mut bytes = resp.bytes_stream();
    while let Some(chunk) = bytes.next().await {
        match chunk {
            Ok(chunk) => {
                for item in parser.push(&chunk) {
                    if tx.send(sse_event(item)).await.is_err() {
                        return; // nobody listens any more: dropping `bytes` closes the stream
                    }
                }
            }
            Err(e) => {
                let _ = tx
                    .send(WireEvent::TransportError {
                        detail: error_chain(&e),
                    })
                    .await;
                let _ = tx.send(WireEvent::Ended { graceful: false }).await;
                return;
            }
        }
    }
    if let Some(rest) = parser.finish() {
        let _ = tx
            .send(WireEvent::Malformed {
                raw: rest,
                error: "the stream ended in the middle of an SSE event".to_owned(),
            })
            .await;
    }
    let _ = tx.send(WireEvent::Ended { graceful: true }).await;
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let _ = write!(s, ": {c}");
        cur = c.source();
    }
    s
}

/// An open `subscriptions/listen` response. Yields [`WireEvent`]s in arrival order; after
/// `Ended` it yields `None`. Dropping it closes the HTTP stream (the client cancel, §1.5).
#[derive(Debug)]
pub struct ListenStream {
    /// The listen request's own id: the subscription id (§4.6).
    pub id: RequestId,
    pub request: RawRequest,
    pub response: RawResponse,
    rx: mpsc::Receiver<WireEvent>,
    task: JoinHandle<()>,
}

impl ListenStream {
    /// The next event, waiting as long as it takes (wrap in `tokio::time::timeout`).
    /// Cancel-safe: usable in `tokio::select!`.
    pub async fn next(&mut self) -> Option<WireEvent> {
        self.rx.recv().await
    }

    /// An event that already arrived, without waiting.
    pub fn try_next(&mut self) -> Option<WireEvent> {
        self.rx.try_recv().ok()
    }

    /// Closes the HTTP response stream: the client cancel on HTTP (§1.5; CAN §Transport-Specific
    /// Cancellation). Returns the events that had already arrived but were not read yet, so a
    /// caller can account for them *before* the cancel.
    pub fn cancel(&mut self) -> Vec<WireEvent> {
        self.task.abort();
        let mut left = Vec::new();
        while let Ok(ev) = self.rx.try_recv() {
            left.push(ev);
        }
        self.rx.close();
        left
    }
}

impl Drop for ListenStream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl futures_util::Stream for ListenStream {
    type Item = WireEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<WireEvent>> {
        self.rx.poll_recv(cx)
    }
}

// ---------------------------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------------------------

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
pub fn route(message: &Value) -> Route {
    let msg = protocol::Message::classify(message);
    match &msg {
        protocol::Message::Result { id, .. } => Route::Response(id.clone()),
        protocol::Message::Error { id: Some(id), .. } => Route::Response(id.clone()),
        protocol::Message::Notification { method: m, .. } => {
            if let Some(tag) = msg.subscription_tag() {
                return Route::Subscription(tag.clone());
            }
            if m == method::CANCELLED
                && let Some(id) = msg
                    .params()
                    .and_then(|p| p.get("requestId"))
                    .and_then(RequestId::from_value)
            {
                return Route::Cancelled(id);
            }
            Route::Other
        }
        _ => Route::Other,
    }
}

/// The writing half of a [`StdioClient`], cloneable so a REPL can write while another task reads.
#[derive(Debug, Clone)]
pub struct StdioSender {
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
}

impl StdioSender {
    /// Writes `msg` as one line (compact JSON has no raw newlines, §2). Returns the line sent.
    pub async fn send(&self, msg: &Value) -> Result<String> {
        let line = serde_json::to_string(msg)?;
        let mut guard = self.stdin.lock().await;
        let stdin = guard
            .as_mut()
            .ok_or_else(|| anyhow!("the server's stdin is already closed"))?;
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .context("could not write to the server's stdin (did it exit?)")?;
        stdin.flush().await?;
        Ok(line)
    }

    /// `subscriptions/listen` with `id` and `filter`.
    pub async fn listen(&self, id: &RequestId, filter: &SubscriptionFilter) -> Result<String> {
        self.send(&protocol::listen_request(id, filter)).await
    }

    /// The stdio client cancel: `notifications/cancelled` with `requestId` = `id` (§2; STDIO
    /// §Cancellation).
    pub async fn cancel(&self, id: &RequestId, reason: Option<&str>) -> Result<String> {
        self.send(&protocol::cancelled(id, reason)).await
    }

    /// Closes the server's stdin (the polite shutdown signal, STDIO §Shutdown).
    pub async fn close_stdin(&self) {
        self.stdin.lock().await.take();
    }
}

/// A server spawned as a child process, spoken to over newline-delimited JSON (§2).
#[derive(Debug)]
pub struct StdioClient {
    child: Child,
    sender: StdioSender,
    rx: mpsc::UnboundedReceiver<WireEvent>,
    stderr: Arc<Mutex<String>>,
}

impl StdioClient {
    /// Spawns `cmd` with piped standard streams. Its stderr is collected (see
    /// [`StdioClient::stderr`]) and never read as errors (STDIO intro).
    pub fn spawn(mut cmd: Command) -> Result<Self> {
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("could not start the server {cmd:?}"))?;
        let stdin = child.stdin.take().context("no stdin pipe")?;
        let stdout = child.stdout.take().context("no stdout pipe")?;
        let stderr_pipe = child.stderr.take().context("no stderr pipe")?;
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(read_lines(stdout, tx));
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut pipe = stderr_pipe;
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = sink.lock() {
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                    // Keep the tail only: a chatty server must not grow us without bound.
                    if s.len() > 64 * 1024 {
                        let cut = s.len() - 32 * 1024;
                        let cut = (cut..s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                        s.drain(..cut);
                    }
                }
            }
        });
        Ok(StdioClient {
            child,
            sender: StdioSender {
                stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            },
            rx,
            stderr,
        })
    }

    pub fn sender(&self) -> StdioSender {
        self.sender.clone()
    }

    pub async fn send(&self, msg: &Value) -> Result<String> {
        self.sender.send(msg).await
    }

    pub async fn listen(&self, id: &RequestId, filter: &SubscriptionFilter) -> Result<String> {
        self.sender.listen(id, filter).await
    }

    pub async fn cancel(&self, id: &RequestId, reason: Option<&str>) -> Result<String> {
        self.sender.cancel(id, reason).await
    }

    /// The next line from the server's stdout, in arrival order; `None` after `Ended`.
    /// Cancel-safe. Use [`route`] on a `Frame`'s message to demultiplex.
    pub async fn next(&mut self) -> Option<WireEvent> {
        self.rx.recv().await
    }

    /// What the server wrote to stderr so far (its logs).
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// STDIO §Shutdown: close stdin, wait up to `grace`, then kill. Returns the exit status.
    pub async fn close(mut self, grace: Duration) -> Result<ExitStatus> {
        self.sender.close_stdin().await;
        match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(status) => Ok(status?),
            Err(_) => {
                self.child.kill().await.ok();
                Ok(self.child.wait().await?)
            }
        }
    }
}

async fn read_lines(stdout: tokio::process::ChildStdout, tx: mpsc::UnboundedSender<WireEvent>) {
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line).await {
            Ok(0) => {
                let _ = tx.send(WireEvent::Ended { graceful: true });
                return;
            }
            Ok(_) => {
                let raw = line.trim_end_matches(['\n', '\r']).to_owned();
                let ev = match serde_json::from_str::<Value>(&raw) {
                    Ok(message) => WireEvent::Frame { raw, message },
                    Err(e) => WireEvent::Malformed {
                        error: format!(
                            "stdout must carry only MCP messages; this line is not JSON: {e}"
                        ),
                        raw,
                    },
                };
                if tx.send(ev).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(WireEvent::TransportError {
                    detail: e.to_string(),
                });
                let _ = tx.send(WireEvent::Ended { graceful: false });
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!(
            route(&protocol::listen_complete(&id)),
            Route::Response(id.clone())
        );
        assert_eq!(
            route(&protocol::ack(&id, &SubscriptionFilter::default())),
            Route::Subscription(json!("s1"))
        );
        assert_eq!(
            route(&protocol::cancelled(&RequestId::Int(3), None)),
            Route::Cancelled(RequestId::Int(3))
        );
        assert_eq!(
            route(&protocol::notification(
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
