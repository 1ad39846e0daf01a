//! Test helpers: a real HTTP client over loopback, an SSE reader, and [`violations`], which names
//! the subscription rules a transcript breaks with the shared validator (so fault tests can say
//! "this rule, and only it").

use std::collections::{BTreeSet, VecDeque};
use std::pin::Pin;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use mcp_tutor_mock::protocol::{
    self, Message, NotificationKind, RequestId, SubscriptionFilter, header as h, method,
};
use mcp_tutor_mock::validator::{CheckRule, Observation, Validator};
use mcp_tutor_mock::{Config, Control, RunningServer, start_http};
use serde_json::Value;

/// Bound for anything that should happen "now". A debug build on a loaded 2-core machine can
/// take seconds over what takes milliseconds idle, so this is far beyond that: only a hang hits it.
pub const PATIENCE: Duration = Duration::from_secs(300);

pub async fn server(config: Config) -> RunningServer {
    start_http(config).await.expect("server starts")
}

pub async fn default_server() -> RunningServer {
    server(Config::default()).await
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("client")
}

/// Headers a correct client sends for `body` (§1.2): Accept, version, Mcp-Method, Mcp-Name.
pub fn standard_headers(body: &Value) -> Vec<(String, String)> {
    let mut hs = vec![
        ("Content-Type".into(), "application/json".into()),
        ("Accept".into(), h::ACCEPT_VALUE.into()),
        (
            h::MCP_PROTOCOL_VERSION.into(),
            protocol::PROTOCOL_VERSION.into(),
        ),
    ];
    if let Some(m) = body["method"].as_str() {
        hs.push((h::MCP_METHOD.into(), m.into()));
        let name = match m {
            method::TOOLS_CALL | method::PROMPTS_GET => body["params"]["name"].as_str(),
            method::RESOURCES_READ => body["params"]["uri"].as_str(),
            _ => None,
        };
        if let Some(n) = name {
            hs.push((h::MCP_NAME.into(), protocol::encode_header_value(n)));
        }
    }
    hs
}

/// POSTs `body` with the standard headers, then applies `edit` (set or remove by name,
/// case-insensitively; `None` removes).
pub async fn post_with(
    url: &str,
    body: &Value,
    edit: &[(&str, Option<&str>)],
) -> reqwest::Response {
    let mut hs = standard_headers(body);
    for (name, value) in edit {
        hs.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if let Some(v) = value {
            hs.push(((*name).into(), (*v).into()));
        }
    }
    let mut rb = client().post(url).body(body.to_string());
    for (n, v) in hs {
        rb = rb.header(n, v);
    }
    tokio::time::timeout(PATIENCE, rb.send())
        .await
        .expect("no hang")
        .expect("request sent")
}

pub async fn post(url: &str, body: &Value) -> reqwest::Response {
    post_with(url, body, &[]).await
}

/// POSTs and returns (status, JSON body).
pub async fn call(url: &str, body: &Value) -> (u16, Value) {
    let r = post(url, body).await;
    let status = r.status().as_u16();
    (status, r.json().await.expect("JSON body"))
}

pub fn req(id: impl Into<RequestId>, m: &str, params: Value) -> Value {
    protocol::request(&id.into(), m, params)
}

pub fn filter(v: Value) -> SubscriptionFilter {
    serde_json::from_value(v).expect("filter")
}

/// One thing read from an SSE body.
#[derive(Debug, Clone, PartialEq)]
pub enum Sse {
    Msg(Value),
    Comment,
    /// The body ended cleanly.
    End,
    /// The body broke off (transport loss).
    Broken,
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<axum::body::Bytes>> + Send>>;

pub struct SseReader {
    pub headers: reqwest::header::HeaderMap,
    body: ByteStream,
    buf: Vec<u8>,
    data: Vec<String>,
    ready: VecDeque<Sse>,
    finished: bool,
}

impl SseReader {
    pub fn new(resp: reqwest::Response) -> Self {
        SseReader {
            headers: resp.headers().clone(),
            body: Box::pin(resp.bytes_stream()),
            buf: Vec::new(),
            data: Vec::new(),
            ready: VecDeque::new(),
            finished: false,
        }
    }

    fn parse_lines(&mut self) {
        while let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
            let raw: Vec<u8> = self.buf.drain(..=pos).collect();
            let line = String::from_utf8_lossy(&raw);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !self.data.is_empty() {
                    let text = self.data.join("\n");
                    self.data.clear();
                    let v = serde_json::from_str(&text).expect("each SSE event is JSON");
                    self.ready.push_back(Sse::Msg(v));
                }
            } else if line.starts_with(':') {
                self.ready.push_back(Sse::Comment);
            } else if let Some(d) = line.strip_prefix("data:") {
                self.data.push(d.strip_prefix(' ').unwrap_or(d).to_owned());
            } else {
                panic!("unexpected SSE line {line:?} (the mock sends only data: and comments)");
            }
        }
    }

    /// The next item (comments included); panics after [`PATIENCE`].
    pub async fn next_raw(&mut self) -> Sse {
        self.next_raw_within(PATIENCE)
            .await
            .expect("an SSE item in time")
    }

    pub async fn next_raw_within(&mut self, d: Duration) -> Option<Sse> {
        tokio::time::timeout(d, async {
            loop {
                if let Some(x) = self.ready.pop_front() {
                    return x;
                }
                if self.finished {
                    return Sse::End;
                }
                match self.body.next().await {
                    Some(Ok(chunk)) => {
                        self.buf.extend_from_slice(&chunk);
                        self.parse_lines();
                    }
                    Some(Err(_)) => {
                        self.finished = true;
                        return Sse::Broken;
                    }
                    None => {
                        self.finished = true;
                        return Sse::End;
                    }
                }
            }
        })
        .await
        .ok()
    }

    /// The next JSON-RPC message, skipping keep-alives; `None` when the stream ended or broke.
    pub async fn next_msg(&mut self) -> Option<Value> {
        loop {
            match self.next_raw().await {
                Sse::Msg(v) => return Some(v),
                Sse::Comment => continue,
                Sse::End | Sse::Broken => return None,
            }
        }
    }

    /// Everything until the stream ends: messages and how it ended.
    pub async fn rest(&mut self) -> (Vec<Value>, Sse) {
        let mut out = Vec::new();
        loop {
            match self.next_raw().await {
                Sse::Msg(v) => out.push(v),
                Sse::Comment => {}
                end => return (out, end),
            }
        }
    }
}

/// Opens `subscriptions/listen` and checks it is an SSE reply.
pub async fn listen(url: &str, id: impl Into<RequestId>, f: &SubscriptionFilter) -> SseReader {
    let body = protocol::listen_request(&id.into(), f);
    let resp = post(url, &body).await;
    assert_eq!(resp.status().as_u16(), 200, "listen is accepted");
    let ct = resp.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .to_owned();
    assert!(
        ct.starts_with("text/event-stream"),
        "listen answers with SSE, got {ct}"
    );
    SseReader::new(resp)
}

/// Waits until exactly `n` subscriptions are open.
pub async fn wait_subs(control: &Control, n: usize) {
    tokio::time::timeout(PATIENCE, async {
        while control.subscriptions().len() != n {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "expected {n} open subscriptions, have {}",
            control.subscriptions().len()
        )
    });
}

/// A change the test caused, so the checker knows what should arrive.
#[derive(Debug, Clone)]
pub struct Triggered {
    pub kind: NotificationKind,
    pub uri: Option<String>,
}

/// Fires one change of every kind, requested or not.
pub fn fire_all(control: &mcp_tutor_mock::Control) -> Vec<Triggered> {
    let changes = [
        (NotificationKind::PromptsListChanged, None),
        (NotificationKind::ToolsListChanged, None),
        (NotificationKind::ResourcesListChanged, None),
        (
            NotificationKind::ResourceUpdated,
            Some("mock://notes/ideas"),
        ),
        (
            NotificationKind::ResourceUpdated,
            Some("mock://notes/today"),
        ),
    ];
    changes
        .into_iter()
        .map(|(kind, uri)| {
            control.trigger(kind, uri);
            Triggered {
                kind,
                uri: uri.map(str::to_owned),
            }
        })
        .collect()
}

/// How the transcript ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The server ended the subscription (close/close_all/shutdown): a result SHOULD come.
    ServerClosed,
    /// The client cancelled at this message index: nothing may follow.
    ClientCancelled(usize),
}

/// The rules this transcript of ONE subscription breaks, by their `check` names
/// (`mcp_tutor_mock::validator::CheckRule::name`). `msgs` are that subscription's messages in order
/// (stdio callers pre-filter by tag/id). The judging is the shared validator's, the one `check`
/// and the lab use; only `acked-types-delivered`, which needs to know what was triggered, is
/// judged here.
pub fn violations(
    id: &RequestId,
    requested: &SubscriptionFilter,
    msgs: &[Value],
    triggered: &[Triggered],
    ending: Ending,
    broke_off: bool,
) -> BTreeSet<&'static str> {
    let mut validator = Validator::new();
    let stream = Some(id.clone());
    let mut findings = validator.observe(&Observation::ListenSent {
        id: id.clone(),
        filter: requested.clone(),
    });
    for (i, m) in msgs.iter().enumerate() {
        if ending == Ending::ClientCancelled(i) {
            findings.extend(validator.observe(&Observation::ClientCancelled { id: id.clone() }));
        }
        findings.extend(validator.observe(&Observation::Message {
            stream: stream.clone(),
            message: Message::classify(m),
        }));
    }
    if ending == Ending::ClientCancelled(msgs.len()) {
        findings.extend(validator.observe(&Observation::ClientCancelled { id: id.clone() }));
    }
    findings.extend(validator.observe(&Observation::Ended {
        stream,
        graceful: !broke_off,
    }));
    let mut v: BTreeSet<&'static str> = findings
        .iter()
        .filter(|f| !f.ok)
        .map(|f| f.rule.name())
        .collect();
    let acked = validator.subscription(id).and_then(|s| s.acked.clone());
    if let Some(a) = &acked {
        let classified: Vec<Message> = msgs.iter().map(Message::classify).collect();
        for t in triggered {
            if a.wants(t.kind, t.uri.as_deref()) && requested.wants(t.kind, t.uri.as_deref()) {
                let arrived = classified.iter().any(|m| {
                    m.method() == Some(t.kind.method())
                        && (t.kind != NotificationKind::ResourceUpdated
                            || m.params()
                                .and_then(|p| p.get("uri"))
                                .and_then(Value::as_str)
                                == t.uri.as_deref())
                });
                if !arrived {
                    v.insert(CheckRule::AckedTypesDelivered.name());
                }
            }
        }
    }
    v
}

/// `params` for a tools/call of `name`.
pub fn tool(id: impl Into<RequestId>, name: &str, args: Value) -> Value {
    protocol::tool_call(&id.into(), name, args)
}

/// A stdio client over in-memory pipes.
pub struct StdioClient {
    pub running: Option<mcp_tutor_mock::RunningStdio>,
    pub control: Control,
    writer: Option<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::DuplexStream>>,
}

impl StdioClient {
    pub fn start(config: Config) -> StdioClient {
        use tokio::io::AsyncBufReadExt;
        let (client_w, server_r) = tokio::io::duplex(1 << 16);
        let (server_w, client_r) = tokio::io::duplex(1 << 16);
        let running = mcp_tutor_mock::start_stdio(config, server_r, server_w);
        StdioClient {
            control: running.control.clone(),
            running: Some(running),
            writer: Some(client_w),
            lines: tokio::io::BufReader::new(client_r).lines(),
        }
    }

    pub async fn send(&mut self, v: &Value) {
        self.send_line(&v.to_string()).await;
    }

    pub async fn send_line(&mut self, line: &str) {
        use tokio::io::AsyncWriteExt;
        let w = self.writer.as_mut().expect("stdin still open");
        w.write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write");
        w.flush().await.expect("flush");
    }

    /// Writes bytes as they are (no newline added): invalid UTF-8, partial lines.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        use tokio::io::AsyncWriteExt;
        let w = self.writer.as_mut().expect("stdin still open");
        w.write_all(bytes).await.expect("write");
        w.flush().await.expect("flush");
    }

    /// The next line as JSON; `None` at end of output.
    pub async fn next_msg(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
            .await
            .expect("a stdout line in time")
            .expect("read");
        line.map(|l| {
            assert!(!l.is_empty());
            serde_json::from_str(&l).expect("every stdout line is one JSON-RPC message")
        })
    }

    /// Closes stdin (EOF), reads every remaining line, and waits for the server to finish.
    pub async fn finish(&mut self) -> Vec<Value> {
        self.writer = None;
        let mut out = Vec::new();
        while let Some(v) = self.next_msg().await {
            out.push(v);
        }
        if let Some(r) = self.running.take() {
            tokio::time::timeout(PATIENCE, r.wait())
                .await
                .expect("exits")
                .expect("clean exit");
        }
        out
    }
}

/// A reply read off a raw socket: status, headers (lower-cased names) and body.
#[derive(Debug)]
pub struct RawReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawReply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("a JSON body, got {:?}: {e}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `head` (request line and header lines, each ending in CRLF; the blank line and
/// `Content-Length` are added) and `body` over a fresh TCP connection, and reads one reply.
/// For what reqwest will not send: repeated or missing Host, absolute-form targets, raw bytes.
pub async fn raw_request(addr: std::net::SocketAddr, head: &[u8], body: &[u8]) -> RawReply {
    use tokio::io::AsyncWriteExt;
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut msg = head.to_vec();
    msg.extend_from_slice(
        format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    msg.extend_from_slice(body);
    s.write_all(&msg).await.expect("write");
    read_reply(&mut s).await
}

/// Reads one HTTP/1.1 reply with a Content-Length body from `s`.
pub async fn read_reply(s: &mut tokio::net::TcpStream) -> RawReply {
    use tokio::io::AsyncReadExt;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = tokio::time::timeout(PATIENCE, s.read(&mut chunk))
            .await
            .expect("a reply in time")
            .expect("read");
        assert!(
            n > 0,
            "connection closed before a reply: {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = tokio::time::timeout(PATIENCE, s.read(&mut chunk))
            .await
            .expect("the body in time")
            .expect("read");
        assert!(n > 0, "connection closed mid-body");
        body.extend_from_slice(&chunk[..n]);
    }
    RawReply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// The request head a correct client sends for `body` to `/mcp`, with `host` as its Host line
/// (`None`: no Host line) and `extra` header lines appended.
pub fn raw_head(target: &str, host: Option<&str>, body: &Value, extra: &[&str]) -> Vec<u8> {
    let mut head = format!("POST {target} HTTP/1.1\r\n");
    if let Some(h) = host {
        head.push_str(&format!("Host: {h}\r\n"));
    }
    for (n, v) in standard_headers(body) {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    for e in extra {
        head.push_str(e);
        head.push_str("\r\n");
    }
    head.into_bytes()
}

/// Waits until the server closes `s` (EOF or reset); panics after [`PATIENCE`]. Returns what was
/// read first (a timeout reply, if any).
pub async fn until_closed(s: &mut tokio::net::TcpStream) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    tokio::time::timeout(PATIENCE, async {
        loop {
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await
    .expect("the server closes the connection");
    got
}
