//! Is this an MCP 2026-07-28 endpoint at all? Answered from `server/discover`'s reply before
//! any rule is judged, so a wrong path, a web page or an older server gets one sentence that
//! says what was found (and `check` exits 2, as when nothing listens), not a page of FAILs.

use mock_server::protocol::{self, error_code};
use serde_json::{Value, json};

use crate::client::{Exchange, HttpClient};

/// Why `ex` (the reply to `server/discover`) shows that `client`'s URL is not a 2026-07-28 MCP
/// endpoint; `None` when it may be one (the rules then judge the reply).
pub(crate) async fn not_mcp(client: &HttpClient, ex: &Exchange) -> Option<String> {
    let url = client.url();
    let status = ex.response.status;
    let content_type = ex.response.header("content-type").unwrap_or("");
    let html = content_type.starts_with("text/html") || ex.body.trim_start().starts_with('<');
    if ex.reply().is_some() && !html {
        return judged_reply(client, ex).await;
    }
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map(|r| format!(" {r}"))
        .unwrap_or_default();
    let got = format!("HTTP {status}{reason} from {url}");
    // Only a path other than the usual one is worth questioning.
    let path_hint = if url.trim_end_matches('/').ends_with("/mcp") {
        ""
    } else {
        " (MCP servers usually serve /mcp: is the path right?)"
    };
    let what = match status {
        404 | 410 => format!("{got}: nothing is served at this path{path_hint}"),
        405 | 501 => format!(
            "{got}: this server does not take POST requests, so it is no MCP endpoint (MCP over HTTP \
             is JSON-RPC in POST requests); it may be a plain web server"
        ),
        401 | 403 | 407 => format!(
            "{got}: the server refused the request (it may want credentials, or refuse this \
             client's Origin)"
        ),
        500..=599 => format!("{got}: the server failed before answering with JSON-RPC"),
        _ if html => format!(
            "{got} is a web page ({}), not an MCP endpoint{path_hint}",
            if content_type.is_empty() {
                "HTML"
            } else {
                content_type
            }
        ),
        _ if ex.body.trim().is_empty() => {
            format!("{got} with an empty body: not an MCP endpoint{path_hint}")
        }
        _ => format!("{got} without a JSON-RPC reply: not an MCP endpoint{path_hint}"),
    };
    Some(what)
}

/// A JSON-RPC reply: `None` when the server may be a 2026-07-28 one (the rules judge it), else
/// the revision it speaks instead.
async fn judged_reply(client: &HttpClient, ex: &Exchange) -> Option<String> {
    let reply = ex.reply()?;
    let error = reply.error()?;
    if error.code == error_code::UNSUPPORTED_PROTOCOL_VERSION
        && let Some(supported) = error.data_field("supported").and_then(Value::as_array)
        && !supported.iter().any(|v| v == protocol::PROTOCOL_VERSION)
    {
        let versions: Vec<String> = supported
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect();
        return Some(format!(
            "this server speaks {}, not {}: `check` tests the {} subscription rules",
            versions.join(", "),
            protocol::PROTOCOL_VERSION,
            protocol::PROTOCOL_VERSION
        ));
    }
    // A modern refusal (-32020/-32021/-32022) means a 2026-07-28 server that will be judged;
    // anything else may be an initialize-era server (HTTP §Backward Compatibility): ask it.
    if matches!(
        error.code,
        error_code::HEADER_MISMATCH
            | error_code::MISSING_REQUIRED_CLIENT_CAPABILITY
            | error_code::UNSUPPORTED_PROTOCOL_VERSION
    ) {
        return None;
    }
    let version = initialize_era_version(client).await?;
    Some(format!(
        "this server speaks {version} (it answered `initialize`, not `server/discover`): \
         subscriptions/listen arrived in {}, which `check` tests",
        protocol::PROTOCOL_VERSION
    ))
}

/// The revision an initialize-era server answers `initialize` with, if it does.
async fn initialize_era_version(client: &HttpClient) -> Option<String> {
    let init = json!({
        "jsonrpc": "2.0",
        "id": 0,
        // Not a 2026-07-28 method, so not among the protocol constants.
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcp-tutor-check", "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let headers = vec![
        (
            "Accept".to_owned(),
            protocol::header::ACCEPT_VALUE.to_owned(),
        ),
        ("Content-Type".to_owned(), "application/json".to_owned()),
    ];
    let ex = client
        .send_raw("POST", Some(init.to_string()), headers)
        .await
        .ok()?;
    ex.reply()?
        .result_field("protocolVersion")?
        .as_str()
        .map(str::to_owned)
}
