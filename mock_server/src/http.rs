//! Streamable HTTP (§1): one POST endpoint, `/mcp`, as a thin adapter over the hub.
//!
//! Check order (the spec is silent on it; this is our choice): non-POST → 405, Origin/Host →
//! 403, parse → -32700, (Accept → 400), headers → -32020, version → -32022, `_meta` → -32602,
//! method → 404/-32601, params → -32602.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::StreamExt;
use serde_json::Value;

use crate::hub::{Hub, Out, Transport};
use crate::methods::{self, Reply};
use crate::protocol::{
    self, Message, RequestId, SUPPORTED_VERSIONS, error_code as code, header as h, meta, method,
};

/// The endpoint path.
pub const MCP_PATH: &str = "/mcp";

#[derive(Clone)]
pub(crate) struct App {
    pub hub: Arc<Hub>,
    pub allowed_origins: Arc<Vec<String>>,
    /// Host validation (DNS-rebinding protection) applies only when bound to loopback.
    pub check_host: bool,
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

const LOOPBACK_NAMES: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "::1"];

/// `host[:port]` → host, keeping IPv6 brackets.
fn host_part(authority: &str) -> &str {
    if authority.starts_with('[') {
        match authority.find(']') {
            Some(i) => &authority[..=i],
            None => authority,
        }
    } else {
        authority.split(':').next().unwrap_or(authority)
    }
}

impl App {
    /// Origin: MUST be validated when present (§1.3, HTTP §Security & Endpoint). Loopback origins
    /// and the configured ones are allowed.
    fn origin_ok(&self, origin: &str) -> bool {
        if self.allowed_origins.iter().any(|o| o == origin) {
            return true;
        }
        let Some((scheme, rest)) = origin.split_once("://") else {
            return false;
        };
        matches!(scheme, "http" | "https")
            && LOOPBACK_NAMES.contains(&host_part(rest).to_ascii_lowercase().as_str())
    }

    /// [SILENT] DNS-rebinding protection: a loopback-bound server answers only loopback Host names.
    fn host_ok(&self, host: &str) -> bool {
        if !self.check_host {
            return true;
        }
        let name = host_part(host).to_ascii_lowercase();
        LOOPBACK_NAMES.contains(&name.as_str())
            || self.allowed_origins.iter().any(|o| {
                o.split_once("://")
                    .is_some_and(|(_, rest)| host_part(rest).eq_ignore_ascii_case(&name))
            })
    }
}

/// Reads one header: `Ok(None)` when absent, `Err` when not visible ASCII. Surrounding
/// whitespace is not part of the value (RFC 9110 §5.5).
fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, ()> {
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(|s| Some(s.trim_matches([' ', '\t'])))
            .map_err(|_| ()),
    }
}

fn mismatch(id: &RequestId, msg: String) -> Value {
    methods::error(Some(id), code::HEADER_MISMATCH, &msg)
}

/// The standard-header checks of §1.2/§1.3 for one request; `Err` is the -32020/-32022 reply.
fn check_headers(
    headers: &HeaderMap,
    id: &RequestId,
    m: &str,
    params: Option<&Value>,
) -> Result<(), Value> {
    let bad_chars = |name: &str| mismatch(id, format!("the {name} header has invalid characters"));
    // MCP-Protocol-Version: MUST be present and equal the body's _meta version.
    let version = match header_str(headers, h::MCP_PROTOCOL_VERSION) {
        Err(()) => return Err(bad_chars(h::MCP_PROTOCOL_VERSION)),
        Ok(None) => {
            return Err(mismatch(
                id,
                format!(
                    "the {} header is required on every request",
                    h::MCP_PROTOCOL_VERSION
                ),
            ));
        }
        Ok(Some(v)) => v,
    };
    // Mcp-Method: REQUIRED, equal to the body method (values are case-sensitive).
    match header_str(headers, h::MCP_METHOD) {
        Err(()) => return Err(bad_chars(h::MCP_METHOD)),
        Ok(None) => {
            return Err(mismatch(
                id,
                format!(
                    "the {} header is required and must equal the body method {m:?}",
                    h::MCP_METHOD
                ),
            ));
        }
        Ok(Some(v)) if v != m => {
            return Err(mismatch(
                id,
                format!(
                    "{}: {v:?} does not match the body method {m:?}",
                    h::MCP_METHOD
                ),
            ));
        }
        Ok(Some(_)) => {}
    }
    let body_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|mt| mt.get(meta::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    if let Some(bv) = body_version
        && bv != version
    {
        return Err(mismatch(
            id,
            format!(
                "{}: {version:?} does not match _meta.{}: {bv:?}",
                h::MCP_PROTOCOL_VERSION,
                meta::PROTOCOL_VERSION
            ),
        ));
    }
    if let Some(field) = protocol::mcp_name_field(m)
        && let Some(body_value) = params.and_then(|p| p.get(field)).and_then(Value::as_str)
    {
        match header_str(headers, h::MCP_NAME) {
            Err(()) => return Err(bad_chars(h::MCP_NAME)),
            Ok(None) => {
                return Err(mismatch(
                    id,
                    format!(
                        "the {} header is required for {m} (it mirrors params.{field})",
                        h::MCP_NAME
                    ),
                ));
            }
            Ok(Some(raw)) => match protocol::decode_header_value(raw) {
                Err(e) => return Err(mismatch(id, format!("{}: {e}", h::MCP_NAME))),
                Ok(v) if v != body_value => {
                    return Err(mismatch(
                        id,
                        format!(
                            "{}: {v:?} does not match params.{field}: {body_value:?}",
                            h::MCP_NAME
                        ),
                    ));
                }
                Ok(_) => {}
            },
        }
    }
    if m == method::TOOLS_CALL {
        check_param_headers(headers, id, params)?;
    }
    // The version check comes after the match checks (§1.3 mock order).
    if !SUPPORTED_VERSIONS.contains(&version) {
        return Err(protocol::unsupported_version_error(Some(id), version));
    }
    Ok(())
}

/// `Mcp-Param-{Name}` for tool arguments whose schema has `x-mcp-header` (§1.2).
fn check_param_headers(
    headers: &HeaderMap,
    id: &RequestId,
    params: Option<&Value>,
) -> Result<(), Value> {
    let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
        return Ok(());
    };
    let tools = crate::catalog::tools();
    let Some(tool) = tools
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == name))
    else {
        return Ok(());
    };
    let Some(props) = tool["inputSchema"]["properties"].as_object() else {
        return Ok(());
    };
    for (arg, schema) in props {
        let Some(hname) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let header_name = format!("{}{hname}", h::MCP_PARAM_PREFIX);
        let body = params
            .and_then(|p| p.get("arguments"))
            .and_then(|a| a.get(arg))
            .filter(|v| !v.is_null());
        let got = match header_str(headers, &header_name) {
            Err(()) => {
                return Err(mismatch(
                    id,
                    format!("the {header_name} header has invalid characters"),
                ));
            }
            Ok(v) => v,
        };
        match (body, got) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(
                    id,
                    format!("the {header_name} header is required: it mirrors argument `{arg}`"),
                ));
            }
            (None, Some(_)) => {
                return Err(mismatch(
                    id,
                    format!("{header_name} is set but argument `{arg}` is absent"),
                ));
            }
            (Some(b), Some(raw)) => {
                let decoded = protocol::decode_header_value(raw)
                    .map_err(|e| mismatch(id, format!("{header_name}: {e}")))?;
                let same = match b {
                    Value::String(s) => *s == decoded,
                    // Integers compare numerically (42 == 42.0), HTTP §Server Validation.
                    Value::Number(n) => decoded
                        .parse::<f64>()
                        .ok()
                        .zip(n.as_f64())
                        .is_some_and(|(x, y)| x == y),
                    Value::Bool(bv) => decoded == bv.to_string(),
                    _ => false,
                };
                if !same {
                    return Err(mismatch(
                        id,
                        format!("{header_name}: {decoded:?} does not match argument `{arg}`: {b}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The id of an unclassifiable body, when one can still be read (BASE §Error Responses).
fn readable_id(v: &Value) -> Option<RequestId> {
    v.get("id").and_then(RequestId::from_value)
}

async fn handle(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Response {
    let forbidden = |why: &str| {
        let mut r = json_reply(&methods::error(None, code::INVALID_REQUEST, why));
        *r.status_mut() = StatusCode::FORBIDDEN;
        r
    };
    match header_str(&headers, "origin") {
        Ok(Some(o)) if !app.origin_ok(o) => {
            return forbidden(&format!(
                "Origin {o:?} is not allowed (only loopback origins and --allow-origin ones)"
            ));
        }
        Err(()) => return forbidden("the Origin header is not readable"),
        _ => {}
    }
    if let Ok(Some(host)) = header_str(&headers, "host")
        && !app.host_ok(host)
    {
        return forbidden(&format!(
            "Host {host:?} is not a loopback name (DNS-rebinding protection)"
        ));
    }

    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return json_reply(&methods::error(
                None,
                code::PARSE_ERROR,
                &format!("the body is not JSON: {e}"),
            ));
        }
    };
    let (id, m, params) = match Message::classify(&value) {
        // 202 with an empty body (§1.3). Header rules for notification POSTs are undefined in this
        // revision, so none are enforced; a `notifications/cancelled` is accepted and, on HTTP,
        // changes nothing (closing the stream is the cancel).
        Message::Notification { .. } => return StatusCode::ACCEPTED.into_response(),
        Message::Request {
            id, method, params, ..
        } => (id, method, params),
        Message::Result { id, .. } | Message::Error { id: Some(id), .. } => {
            return json_reply(&methods::error(
                Some(&id),
                code::INVALID_REQUEST,
                "clients must not send responses: servers never send requests",
            ));
        }
        Message::Error { id: None, .. } => {
            return json_reply(&methods::error(
                None,
                code::INVALID_REQUEST,
                "clients must not send responses: servers never send requests",
            ));
        }
        Message::Invalid { reason, raw } => {
            return json_reply(&methods::error(
                readable_id(&raw).as_ref(),
                code::INVALID_REQUEST,
                &format!("not a JSON-RPC request: {reason}"),
            ));
        }
    };
    let accept = header_str(&headers, "accept").ok().flatten().unwrap_or("");
    if !protocol::accept_lists_both(accept) {
        return json_reply(&methods::error(
            Some(&id),
            code::INVALID_REQUEST,
            &format!(
                "the Accept header must list both application/json and text/event-stream (got {accept:?})"
            ),
        ));
    }
    if let Err(e) = check_headers(&headers, &id, &m, params.as_ref()) {
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
            let stream = app
                .hub
                .listen(id, requested, Transport::Http)
                .map(|o| match o {
                    Out::Msg(v) => Ok(event(&v)),
                    // An error ends the body without its final chunk: the client sees transport
                    // loss, not a clean end.
                    Out::Abort => Err(std::io::Error::other("subscription dropped abruptly")),
                });
            let sse = Sse::new(stream).keep_alive(KeepAlive::new().interval(app.hub.keepalive));
            (sse_headers(), sse).into_response()
        }
    }
}

/// Whether an address is loopback (then Host names are checked).
pub(crate) fn is_loopback(ip: IpAddr) -> bool {
    ip.is_loopback()
}
