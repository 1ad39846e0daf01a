//! Streamable HTTP (§1): one POST endpoint, `/mcp`, as a thin adapter over the hub.
//!
//! Check order (the spec is silent on it; this is our choice): non-POST → 405, Host (missing,
//! repeated, malformed → 400; foreign → 403), Origin → 403, body too large → 413, body too slow
//! → 408, parse → -32700, (Accept → 400), headers → -32020, version → -32022, reused live id →
//! -32600, `_meta` → -32602, method → 404/-32601, params → -32602.

use std::sync::Arc;

mod guard;
mod headers;
mod listen;
mod serve;
mod slot;

pub(crate) use guard::Guard;
pub(crate) use listen::StreamsThread;
pub(crate) use serve::{default_max_connections, serve};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::Value;

use crate::Limits;
use crate::hub::{Hub, Transport};
use crate::methods::{self, Reply};
use crate::protocol::{self, Message, RequestId, error_code as code, header as h};
use headers::check_headers;

/// The endpoint path.
pub const MCP_PATH: &str = "/mcp";

#[derive(Clone)]
pub(crate) struct App {
    pub hub: Arc<Hub>,
    pub guard: Arc<Guard>,
    pub limits: Limits,
}

pub(crate) fn router(app: App) -> Router {
    // MethodRouter answers GET, DELETE and every other method with 405 + `Allow: POST` (§1.6).
    Router::new().route(MCP_PATH, post(handle)).with_state(app)
}

/// The HTTP status for a JSON-RPC error code (§1.3).
pub(crate) fn status_for(c: i64) -> StatusCode {
    match c {
        code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        code::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

fn json_reply(v: &Value) -> Response {
    let status = v["error"]["code"]
        .as_i64()
        .map(status_for)
        .unwrap_or(StatusCode::OK);
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        v.to_string(),
    )
        .into_response()
}

fn sse_headers() -> [(&'static str, HeaderValue); 1] {
    [(h::X_ACCEL_BUFFERING, HeaderValue::from_static("no"))]
}

fn event(v: &Value) -> Event {
    // [SILENT] framing: one `data:` line of compact JSON per message, no id/event/retry.
    Event::default().data(v.to_string())
}

/// The id of an unclassifiable body, when one can still be read (BASE §Error Responses).
fn readable_id(v: &Value) -> Option<RequestId> {
    v.get("id").and_then(RequestId::from_value)
}

/// A refusal before the body is understood: a JSON-RPC error with no id (§1.3 "MAY be an error
/// with no id"), with `Connection: close` when the rest of the request cannot be trusted.
fn refusal(status: StatusCode, why: &str, close: bool) -> Response {
    let mut r = json_reply(&methods::error(None, code::INVALID_REQUEST, why));
    *r.status_mut() = status;
    if close {
        r.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    r
}

/// Reads the whole body within the body timeout and the size limit; `Err` is the 413 or 408.
async fn read_body(body: Body, headers: &HeaderMap, limits: &Limits) -> Result<Bytes, Response> {
    let max = limits.max_body_bytes;
    let too_large = || {
        refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the request body is larger than this server's limit of {max} bytes"),
            true,
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(limits.body_timeout, Limited::new(body, max).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(e)) => Err(refusal(
            StatusCode::BAD_REQUEST,
            &format!("the request body could not be read: {e}"),
            true,
        )),
        Err(_) => Err(refusal(
            StatusCode::REQUEST_TIMEOUT,
            &format!(
                "the request body did not arrive within {} ms (the server's body timeout)",
                limits.body_timeout.as_millis()
            ),
            true,
        )),
    }
}

async fn handle(State(app): State<App>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    // The connection's socket, which an accepted listen takes over (HTTP/1.1 only: the stream
    // is written chunked); absent when the router is driven in process.
    let socket = parts
        .extensions
        .get::<Arc<listen::Socket>>()
        .filter(|_| parts.version == axum::http::Version::HTTP_11)
        .cloned();
    if let Err((status, why)) = app.guard.check(&parts.headers, &parts.uri) {
        return refusal(status, &why, false);
    }
    let headers = parts.headers;
    let body = match read_body(body, &headers, &app.limits).await {
        Ok(b) => b,
        Err(refused) => return refused,
    };

    let (id, m, params) = match request_of(&body) {
        Ok(r) => r,
        Err(reply) => return *reply,
    };
    if let Err(e) = accepts_both(&headers, &id) {
        return json_reply(&e);
    }
    if let Err(e) = check_headers(&headers, &id, &m, params.as_ref()) {
        return json_reply(&e);
    }
    if let Some(e) = app.hub.reused_id_error(&id, Transport::Http) {
        return json_reply(&e);
    }
    match methods::handle(&app.hub, &id, &m, params.as_ref()) {
        Reply::Single(v) => json_reply(&v),
        Reply::Streamed(msgs) => {
            let events: Vec<Result<Event, std::convert::Infallible>> =
                msgs.iter().map(|v| Ok(event(v))).collect();
            (sse_headers(), Sse::new(futures_util::stream::iter(events))).into_response()
        }
        Reply::Listen { id, requested } => {
            let events = app.hub.listen(id, requested, Transport::Http);
            listen::respond(events, socket.as_ref())
        }
    }
}

/// The JSON-RPC request in a POST body: (id, method, params). A notification is accepted
/// with 202 and an empty body (§1.3): header rules for notification POSTs are undefined in this
/// revision, so none are enforced, and a `notifications/cancelled` changes nothing on HTTP
/// (closing the stream is the cancel). Anything else is answered with its error.
fn request_of(body: &[u8]) -> Result<(RequestId, String, Option<Value>), Box<Response>> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        answered(&methods::error(
            None,
            code::PARSE_ERROR,
            &format!("the body is not JSON: {e}"),
        ))
    })?;
    let no_responses = |id: Option<&RequestId>| {
        answered(&methods::error(
            id,
            code::INVALID_REQUEST,
            "clients must not send responses: servers never send requests",
        ))
    };
    match Message::classify(&value) {
        Message::Notification { .. } => Err(Box::new(StatusCode::ACCEPTED.into_response())),
        Message::Request {
            id, method, params, ..
        } => Ok((id, method, params)),
        Message::Result { id, .. } | Message::Error { id: Some(id), .. } => {
            Err(no_responses(Some(&id)))
        }
        Message::Error { id: None, .. } => Err(no_responses(None)),
        Message::Invalid { reason, raw } => Err(answered(&methods::error(
            readable_id(&raw).as_ref(),
            code::INVALID_REQUEST,
            &format!("not a JSON-RPC request: {reason}"),
        ))),
    }
}

fn answered(error: &Value) -> Box<Response> {
    Box::new(json_reply(error))
}

/// Accept must list both application/json and text/event-stream. It is a list header:
/// repeated lines are one list (RFC 9110 §5.3).
fn accepts_both(headers: &axum::http::HeaderMap, id: &RequestId) -> Result<(), Value> {
    let accept: Vec<&str> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let accept = accept.join(", ");
    if protocol::accept_lists_both(&accept) {
        return Ok(());
    }
    Err(methods::error(
        Some(id),
        code::INVALID_REQUEST,
        &format!(
            "the Accept header must list both application/json and text/event-stream (got {accept:?})"
        ),
    ))
}
