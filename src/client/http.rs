//! Streamable HTTP (HTTP in docs/rules.md): one POST per message, JSON or SSE replies, listen streams.

use std::fmt::Write as _;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use futures_util::StreamExt;
use mock_server::protocol::{self, Message, RequestId, SubscriptionFilter};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::bounds::{Alarm, CHANNEL_CAPACITY, FloodMeter, HeadTail, MAX_FRAME_BYTES, keep_text};
use super::sse::{SseItem, SseParser};
use super::{
    Exchange, HeaderEdits, RawRequest, RawResponse, WireEvent, standard_headers, title_case,
};

/// How long a plain request, or the head of a listen response, may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// A Streamable HTTP client for one MCP endpoint. Cheap to clone (the connection pool is shared).
#[derive(Debug, Clone)]
pub struct HttpClient {
    url: reqwest::Url,
    client: reqwest::Client,
    timeout: Duration,
    alarm: Alarm,
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
            alarm: Alarm::default(),
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

    /// Raised when any reply or stream of this client (or its clones) floods.
    pub fn alarm(&self) -> &Alarm {
        &self.alarm
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
            let mut events = HeadTail::new();
            let mut text = String::new();
            let mut left_out = 0;
            if response.is_sse() {
                let mut parser = SseParser::new();
                let mut meter = FloodMeter::new();
                let mut bytes = resp.bytes_stream();
                'read: while let Some(chunk) = bytes.next().await {
                    let chunk = chunk.context("the SSE reply broke off")?;
                    keep_text(&mut text, &mut left_out, &String::from_utf8_lossy(&chunk));
                    for item in parser.push(&chunk) {
                        let ev = sse_event(item);
                        let done = matches!(&ev, WireEvent::Frame { message, .. } if message.is_response());
                        events.push(ev);
                        if done {
                            break 'read;
                        }
                        if meter.tick() {
                            let flood = meter.flood(events.dropped());
                            self.alarm.raise(flood.clone());
                            return Err(anyhow::Error::new(flood));
                        }
                    }
                }
            } else {
                let bytes = read_capped(resp)
                    .await
                    .context("the reply body broke off")?;
                text = String::from_utf8_lossy(&bytes.0).into_owned();
                left_out = bytes.1;
                if !text.trim().is_empty() {
                    events.push(json_event(&text));
                }
            }
            if left_out > 0 {
                text.push_str(&format!("\n… ({left_out} more bytes not kept)"));
            }
            let events = events.into_vec();
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

    /// Opens `subscriptions/listen` with request id `id` and `filter` (SUB §Opening a Stream).
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
        let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
        let sse = response.is_sse();
        let task = tokio::spawn(pump(resp, sse, tx, self.alarm.clone()));
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
        let resp = self.client.execute(req).await.map_err(|e| {
            anyhow::anyhow!(
                "could not reach {} (is the server running?): {}",
                self.url,
                root_cause(&e)
            )
        })?;
        Ok((request, resp))
    }
}

/// The innermost cause of a failed request ("Connection refused (os error 111)"): reqwest's
/// own layers ("error sending request", "client error (Connect)", "tcp connect error") say
/// only that it failed, one line each.
fn root_cause(e: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    if e.is_timeout() && !cause.to_string().contains("timed out") {
        return format!("timed out ({cause})");
    }
    cause.to_string()
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
        SseItem::Oversized { head, bytes } => WireEvent::Malformed {
            raw: format!("{head}…"),
            error: format!(
                "an SSE event of {bytes}+ bytes, over the {MAX_FRAME_BYTES}-byte bound: dropped"
            ),
        },
        SseItem::Event { raw, data, .. } => match serde_json::from_str::<Value>(&data) {
            Ok(message) => WireEvent::Frame {
                raw,
                message: Message::classify(&message),
            },
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
            message: Message::classify(&message),
        },
        Err(e) => WireEvent::Malformed {
            raw: text.to_owned(),
            error: format!("not JSON: {e}"),
        },
    }
}

/// Reads a JSON body up to [`MAX_FRAME_BYTES`]; returns what was kept and how many bytes were not.
async fn read_capped(resp: reqwest::Response) -> reqwest::Result<(Vec<u8>, usize)> {
    let mut kept = Vec::new();
    let mut left_out = 0;
    let mut bytes = resp.bytes_stream();
    while let Some(chunk) = bytes.next().await {
        let chunk = chunk?;
        let room = MAX_FRAME_BYTES.saturating_sub(kept.len());
        let take = chunk.len().min(room);
        kept.extend_from_slice(&chunk[..take]);
        left_out += chunk.len() - take;
    }
    Ok((kept, left_out))
}

/// Reads a response body in the background and forwards what it finds, as it arrives. The
/// channel is bounded, so a consumer that falls behind slows this reader (and, through TCP, the
/// server); a flood ends the stream with a transport error that says so.
async fn pump(resp: reqwest::Response, sse: bool, tx: mpsc::Sender<WireEvent>, alarm: Alarm) {
    if !sse {
        let ev = match read_capped(resp).await {
            Ok((b, left_out)) => {
                let text = String::from_utf8_lossy(&b).into_owned();
                if left_out > 0 {
                    let _ = tx
                        .send(WireEvent::Malformed {
                            raw: text.chars().take(200).collect(),
                            error: format!(
                                "a reply of {} bytes, over the {MAX_FRAME_BYTES}-byte bound: dropped",
                                b.len() + left_out
                            ),
                        })
                        .await;
                } else if !text.trim().is_empty() {
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
    let mut meter = FloodMeter::new();
    let mut bytes = resp.bytes_stream();
    while let Some(chunk) = bytes.next().await {
        match chunk {
            Ok(chunk) => {
                for item in parser.push(&chunk) {
                    if meter.tick() {
                        let flood = meter.flood(0);
                        alarm.raise(flood.clone());
                        let _ = tx
                            .send(WireEvent::TransportError {
                                detail: format!("{flood}; stopped reading this stream"),
                            })
                            .await;
                        let _ = tx.send(WireEvent::Ended { graceful: false }).await;
                        return; // dropping `bytes` closes the stream
                    }
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
