//! The MCP standard headers (§1.2) checked against the body (§1.3): presence, equality after
//! base64 decoding, invalid characters, repeats; then the protocol version.

use axum::http::HeaderMap;
use serde_json::Value;

use crate::methods;
use crate::protocol::{
    self, RequestId, SUPPORTED_VERSIONS, error_code as code, header as h, meta, method,
};

/// Why a header could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BadHeader {
    /// Not visible ASCII.
    Unreadable,
    /// Sent more than once: which copy counts would be a guess, so none does.
    Repeated,
}

impl BadHeader {
    fn describe(self, name: &str) -> String {
        match self {
            BadHeader::Unreadable => format!("the {name} header has invalid characters"),
            BadHeader::Repeated => {
                format!("the {name} header is sent more than once; send it exactly once")
            }
        }
    }
}

/// Reads one header: `Ok(None)` when absent, `Err` when not visible ASCII or repeated.
/// Surrounding whitespace is not part of the value (RFC 9110 §5.5).
pub(crate) fn header_str<'a>(
    headers: &'a HeaderMap,
    name: &str,
) -> Result<Option<&'a str>, BadHeader> {
    let mut all = headers.get_all(name).iter();
    let Some(v) = all.next() else {
        return Ok(None);
    };
    if all.next().is_some() {
        return Err(BadHeader::Repeated);
    }
    v.to_str()
        .map(|s| Some(s.trim_matches([' ', '\t'])))
        .map_err(|_| BadHeader::Unreadable)
}

fn mismatch(id: &RequestId, msg: String) -> Value {
    methods::error(Some(id), code::HEADER_MISMATCH, &msg)
}

/// The standard-header checks of §1.2/§1.3 for one request; `Err` is the -32020/-32022 reply.
pub(crate) fn check_headers(
    headers: &HeaderMap,
    id: &RequestId,
    m: &str,
    params: Option<&Value>,
) -> Result<(), Value> {
    let version = version_header(headers, id)?;
    method_header(headers, id, m)?;
    same_version_in_body(version, id, params)?;
    name_header(headers, id, m, params)?;
    if m == method::TOOLS_CALL {
        check_param_headers(headers, id, params)?;
    }
    // The version check comes after the match checks (§1.3 mock order).
    if !SUPPORTED_VERSIONS.contains(&version) {
        return Err(protocol::unsupported_version_error(Some(id), version));
    }
    Ok(())
}

/// MCP-Protocol-Version: MUST be present. Its value, for the support check that comes last.
fn version_header<'h>(headers: &'h HeaderMap, id: &RequestId) -> Result<&'h str, Value> {
    match header_str(headers, h::MCP_PROTOCOL_VERSION) {
        Err(e) => Err(mismatch(id, e.describe(h::MCP_PROTOCOL_VERSION))),
        Ok(None) => Err(mismatch(
            id,
            format!(
                "the {} header is required on every request",
                h::MCP_PROTOCOL_VERSION
            ),
        )),
        Ok(Some(v)) => Ok(v),
    }
}

/// MCP-Protocol-Version MUST equal the body's _meta version when the body has one.
fn same_version_in_body(
    version: &str,
    id: &RequestId,
    params: Option<&Value>,
) -> Result<(), Value> {
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
    Ok(())
}

/// Mcp-Method: REQUIRED, equal to the body method (values are case-sensitive).
fn method_header(headers: &HeaderMap, id: &RequestId, m: &str) -> Result<(), Value> {
    match header_str(headers, h::MCP_METHOD) {
        Err(e) => Err(mismatch(id, e.describe(h::MCP_METHOD))),
        Ok(None) => Err(mismatch(
            id,
            format!(
                "the {} header is required and must equal the body method {m:?}",
                h::MCP_METHOD
            ),
        )),
        Ok(Some(v)) if v != m => Err(mismatch(
            id,
            format!(
                "{}: {v:?} does not match the body method {m:?}",
                h::MCP_METHOD
            ),
        )),
        Ok(Some(_)) => Ok(()),
    }
}

/// Mcp-Name: required for the methods whose params name a tool, prompt or resource, and equal
/// to that field once decoded.
fn name_header(
    headers: &HeaderMap,
    id: &RequestId,
    m: &str,
    params: Option<&Value>,
) -> Result<(), Value> {
    let Some(field) = protocol::mcp_name_field(m) else {
        return Ok(());
    };
    let Some(body_value) = params.and_then(|p| p.get(field)).and_then(Value::as_str) else {
        return Ok(());
    };
    match header_str(headers, h::MCP_NAME) {
        Err(e) => Err(mismatch(id, e.describe(h::MCP_NAME))),
        Ok(None) => Err(mismatch(
            id,
            format!(
                "the {} header is required for {m} (it mirrors params.{field})",
                h::MCP_NAME
            ),
        )),
        Ok(Some(raw)) => match protocol::decode_header_value(raw) {
            Err(e) => Err(mismatch(id, format!("{}: {e}", h::MCP_NAME))),
            Ok(v) if v != body_value => Err(mismatch(
                id,
                format!(
                    "{}: {v:?} does not match params.{field}: {body_value:?}",
                    h::MCP_NAME
                ),
            )),
            Ok(_) => Ok(()),
        },
    }
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
    // Built once: a tools/call should not rebuild the whole catalogue to read one schema.
    static TOOLS: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    let tools = TOOLS.get_or_init(crate::catalog::tools);
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
            Err(e) => return Err(mismatch(id, e.describe(&header_name))),
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
