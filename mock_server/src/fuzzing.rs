//! In-process entry points for the fuzz target (`fuzz/`) and the property tests: each
//! transport's request handler without sockets or pipes, and the properties every reply must
//! have. Not a stable API.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, header};
use http_body_util::BodyExt;
use serde_json::Value;
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::hub::{Hub, Transport};
use crate::protocol::{self, Message, NotificationKind, error_code as code, method};
use crate::{Config, http, stdio};

/// One server (hub and router) that requests are fed to.
pub struct Harness {
    hub: Arc<Hub>,
    router: Router,
}

/// What the HTTP handler answered.
#[derive(Debug)]
pub struct HttpReply {
    pub status: u16,
    pub content_type: Option<String>,
    /// The body, unless it is an SSE stream (a listen stream never ends, so it is not read).
    pub body: Option<Vec<u8>>,
}

impl Default for Harness {
    fn default() -> Self {
        Harness::new()
    }
}

impl Harness {
    /// A loopback server with the default configuration.
    pub fn new() -> Harness {
        let config = Config::default();
        let hub = Hub::new(&config.faults, config.ack_delay, config.keepalive);
        let guard = http::Guard::new(&[], true).unwrap_or_else(|e| unreachable!("{e}"));
        let router = http::router(http::App {
            hub: hub.clone(),
            guard: Arc::new(guard),
            limits: config.limits,
        });
        Harness { hub, router }
    }

    /// Sends one HTTP request through the router (every check and the method table). `None`
    /// when the parts cannot form a request at all (invalid method, target or header name),
    /// which hyper refuses before any handler runs.
    pub async fn http(
        &self,
        method: &str,
        target: &str,
        headers: &[(String, Vec<u8>)],
        body: Vec<u8>,
    ) -> Option<HttpReply> {
        let mut req = Request::builder().method(method).uri(target);
        for (name, value) in headers {
            req = req.header(name.as_str(), value.as_slice());
        }
        let req = req.body(Body::from(body)).ok()?;
        let resp = self.router.clone().oneshot(req).await.ok()?;
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = if content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"))
        {
            None
        } else {
            Some(resp.into_body().collect().await.ok()?.to_bytes().to_vec())
        };
        // A listen stream that was opened is registered until its body is dropped (above).
        Some(HttpReply {
            status,
            content_type,
            body,
        })
    }

    /// Feeds one stdio line (without its newline) to the stdio handler; returns what it sent
    /// at once. Listen streams opened by the line are ended before returning.
    pub async fn stdio_line(&self, line: &[u8]) -> Vec<Value> {
        let (outbox, mut rx) = stdio::Outbox::new();
        let mut forwarders = JoinSet::new();
        let mut out = stdio::on_bytes(&self.hub, line, 1, &outbox, &mut forwarders);
        // Let a listen's forwarder deliver its ack, then end it.
        tokio::task::yield_now().await;
        forwarders.abort_all();
        while forwarders.join_next().await.is_some() {}
        self.hub.drop_all();
        while let Ok(line) = rx.try_recv() {
            out.extend(serde_json::from_slice::<Value>(&line));
        }
        out
    }

    /// Open subscriptions on `transport`.
    pub fn open(&self, transport: Transport) -> usize {
        self.hub
            .subscriptions()
            .iter()
            .filter(|s| s.transport == transport)
            .count()
    }
}

/// Why an HTTP reply breaks the server's contract, or `None`: a status from §1.3 or the
/// server's limits; every refusal (4xx/5xx but 405) carries a JSON-RPC error whose HTTP status
/// matches its code; a 200 JSON body is a result; a 202 is empty.
pub fn http_reply_problem(r: &HttpReply) -> Option<String> {
    let body = r.body.as_deref().unwrap_or_default();
    match r.status {
        200 if r.body.is_none() => None, // SSE
        200 => match serde_json::from_slice::<Value>(body) {
            Ok(v) if v.get("result").is_some() && v["jsonrpc"] == "2.0" => None,
            _ => Some(format!(
                "a 200 JSON reply is not a result: {:?}",
                lossy(body)
            )),
        },
        202 if body.is_empty() => None,
        202 => Some("a 202 carries a body".into()),
        405 => None, // axum's method router: no JSON-RPC body, `Allow: POST`
        400 | 403 | 404 | 408 | 413 | 500 => {
            let Ok(v) = serde_json::from_slice::<Value>(body) else {
                return Some(format!(
                    "a {} without a JSON body: {:?}",
                    r.status,
                    lossy(body)
                ));
            };
            let Some(c) = v["error"]["code"].as_i64() else {
                return Some(format!("a {} without a JSON-RPC error: {v}", r.status));
            };
            let expected = match r.status {
                403 | 408 | 413 => c == code::INVALID_REQUEST,
                other => u16::from(http::status_for(c)) == other,
            };
            (!expected || !v["error"]["message"].is_string())
                .then(|| format!("status {} does not fit error {v}", r.status))
        }
        other => Some(format!("unexpected status {other}")),
    }
}

/// Why a stdio reply is not a well-formed message the server may send, or `None`.
pub fn stdio_reply_problem(v: &Value) -> Option<String> {
    match Message::classify(v) {
        Message::Invalid { reason, .. } => Some(format!("malformed reply {v}: {reason}")),
        Message::Request { .. } => Some(format!("the server sent a request: {v}")),
        Message::Notification { method: m, .. }
            if !(m == method::SUBSCRIPTIONS_ACKNOWLEDGED
                || m == method::MESSAGE
                || m == method::CANCELLED
                || NotificationKind::from_method(&m).is_some()) =>
        {
            Some(format!("a notification the server never sends: {v}"))
        }
        Message::Error { error, .. } if protocol::error_code::name(error.code).is_none() => {
            Some(format!("an unknown error code: {v}"))
        }
        _ => None,
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(&b[..b.len().min(200)]).into_owned()
}
