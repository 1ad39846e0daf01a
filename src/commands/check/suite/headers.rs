//! The HTTP refusals a careful server makes (headers, versions, methods, Origin), and
//! `server/discover`'s answer, judged from whole exchanges.

use mock_server::protocol::{self, Message, RequestId, error_code, header, meta, method};
use mock_server::validator::{CheckRule, Finding};
use serde_json::{Value, json};

use super::probe::Probe;
use super::reply_summary;
use crate::client::link::Reply;
use crate::client::{Exchange, HeaderEdits, HttpClient};
use crate::commands::check::report::Report;

/// A made-up version no server implements, for the -32022 check.
const BOGUS_VERSION: &str = "2031-01-01";
/// A method nobody implements, for the 404 check.
const BOGUS_METHOD: &str = "mcp-tutor/no-such-method";

/// Judges `server/discover`'s reply (§5).
pub(super) fn judge_discover(status: Option<u16>, reply: Option<&Message>) -> Finding {
    let Some(result) = reply.filter(|r| r.result().is_some()) else {
        return Finding::fail(
            CheckRule::Discover,
            format!("server/discover got {}", reply_summary(status, reply)),
        );
    };
    let mut problems = Vec::new();
    match result.result_type() {
        Some(Value::String(t)) if t == "complete" => {}
        Some(other) => problems.push(format!("resultType is {other}, not \"complete\"")),
        None => problems.push("resultType is missing (every result MUST carry it)".to_owned()),
    }
    match result
        .result_field("supportedVersions")
        .and_then(Value::as_array)
    {
        Some(vs) if vs.iter().any(|v| v == protocol::PROTOCOL_VERSION) => {}
        Some(vs) => problems.push(format!(
            "supportedVersions {} lacks {}",
            Value::Array(vs.clone()),
            protocol::PROTOCOL_VERSION
        )),
        None => problems.push("supportedVersions is missing".to_owned()),
    }
    let info = result.meta().and_then(|m| m.get(meta::SERVER_INFO));
    match info {
        Some(i) if protocol::is_implementation(i) => {}
        Some(i) => problems.push(format!("_meta serverInfo {i} needs string name and version")),
        None if result.result_field("serverInfo").is_some() => problems.push(
            "serverInfo is a top-level field; it belongs in result _meta as io.modelcontextprotocol/serverInfo".to_owned(),
        ),
        None => problems.push("result _meta has no io.modelcontextprotocol/serverInfo".to_owned()),
    }
    if problems.is_empty() {
        Finding::pass(
            CheckRule::Discover,
            format!(
                "resultType complete, supportedVersions include {}, serverInfo {}",
                protocol::PROTOCOL_VERSION,
                info.map(Value::to_string).unwrap_or_default()
            ),
        )
    } else {
        Finding::fail(
            CheckRule::Discover,
            format!("server/discover: {}", problems.join("; ")),
        )
    }
}

/// Judges a refused request: the expected HTTP status and JSON-RPC code.
fn judge_refusal(
    rule: CheckRule,
    what: &str,
    got: Result<Exchange, anyhow::Error>,
    status: u16,
    code: Option<i64>,
) -> (Finding, Option<Message>) {
    let ex = match got {
        Ok(ex) => ex,
        Err(e) => return (Finding::fail(rule, format!("{what}: {e:#}")), None),
    };
    let got_code = ex.error_code();
    let reply = ex.reply().cloned();
    let ok_status = ex.response.status == status;
    let ok_code = code.is_none_or(|c| got_code == Some(c));
    let want = match code {
        Some(c) => format!(
            "HTTP {status} with {c} ({})",
            error_code::name(c).unwrap_or("error")
        ),
        None => format!("HTTP {status}"),
    };
    let finding = if ok_status && ok_code {
        Finding::pass(rule, format!("{what}: {want}"))
    } else {
        let minted = ex
            .response
            .header(header::MCP_SESSION_ID)
            .map(|sid| {
                format!("; it also minted {}: {sid} (2026-07-28 has no sessions: a server SHOULD never mint one)", header::MCP_SESSION_ID)
            })
            .unwrap_or_default();
        Finding::fail(
            rule,
            format!(
                "{what}: expected {want}, got {}{minted}",
                reply_summary(Some(ex.response.status), reply.as_ref())
            ),
        )
    };
    (finding, reply)
}

fn tools_list_request(id: i64) -> Value {
    protocol::request(&RequestId::Int(id), method::TOOLS_LIST, json!({}))
}

/// The header, version, `_meta`, method and GET checks (§1.3). HTTP only.
pub(super) async fn header_checks(client: &HttpClient, report: &mut Report) {
    header_mismatch_checks(client, report).await;
    report.add(unsupported_version(client).await);
    meta_and_method_checks(client, report).await;
    origin_and_verb_checks(client, report).await;
}

/// `Mcp-Method` and `MCP-Protocol-Version` missing, or disagreeing with the body: HTTP 400
/// with -32001.
async fn header_mismatch_checks(client: &HttpClient, report: &mut Report) {
    let probe = tools_list_request(901);
    let (f, _) = judge_refusal(
        CheckRule::HeaderMethodMissing,
        "tools/list without Mcp-Method",
        client
            .send_with(&probe, &HeaderEdits::new().omit(header::MCP_METHOD))
            .await,
        400,
        Some(error_code::HEADER_MISMATCH),
    );
    report.add(f);

    let probe = tools_list_request(902);
    let (f, _) = judge_refusal(
        CheckRule::HeaderMethodMismatch,
        "tools/list with Mcp-Method: prompts/list",
        client
            .send_with(
                &probe,
                &HeaderEdits::new().set(header::MCP_METHOD, method::PROMPTS_LIST),
            )
            .await,
        400,
        Some(error_code::HEADER_MISMATCH),
    );
    report.add(f);

    let probe = tools_list_request(903);
    let (mut f, _) = judge_refusal(
        CheckRule::HeaderVersionMissing,
        "tools/list without MCP-Protocol-Version",
        client
            .send_with(
                &probe,
                &HeaderEdits::new().omit(header::MCP_PROTOCOL_VERSION),
            )
            .await,
        400,
        Some(error_code::HEADER_MISMATCH),
    );
    if !f.ok {
        f.detail.push_str(" (only a server that still serves pre-2025-06-18 clients MAY assume 2025-03-26; any other MUST reject)");
    }
    report.add(f);

    // A 2025 revision in the header, 2026-07-28 in the body: a mismatch, whatever else the server
    // speaks.
    let probe = tools_list_request(907);
    let (f, _) = judge_refusal(
        CheckRule::HeaderVersionMismatch,
        "tools/list with MCP-Protocol-Version: 2025-06-18 but 2026-07-28 in _meta",
        client
            .send_with(
                &probe,
                &HeaderEdits::new().set(header::MCP_PROTOCOL_VERSION, "2025-06-18"),
            )
            .await,
        400,
        Some(error_code::HEADER_MISMATCH),
    );
    report.add(f);
}

/// A version no server implements, in the header and the body alike: -32022 with the
/// versions the server does support.
async fn unsupported_version(client: &HttpClient) -> Finding {
    let mut probe = tools_list_request(904);
    probe["params"]["_meta"][meta::PROTOCOL_VERSION] = json!(BOGUS_VERSION);
    let (f, reply) = judge_refusal(
        CheckRule::UnsupportedVersion,
        &format!("tools/list at version {BOGUS_VERSION} (header and body agree)"),
        client.send(&probe).await,
        400,
        Some(error_code::UNSUPPORTED_PROTOCOL_VERSION),
    );
    if f.ok {
        unsupported_version_data(f, reply.as_ref())
    } else {
        f
    }
}

/// A -32022 refusal must say which versions are supported and which was requested.
fn unsupported_version_data(mut f: Finding, reply: Option<&Message>) -> Finding {
    let error = reply.and_then(Message::error);
    let supported = error.and_then(|e| e.data_field("supported"));
    let requested = error.and_then(|e| e.data_field("requested"));
    let mut problems = Vec::new();
    match supported.and_then(Value::as_array) {
        Some(a) if !a.is_empty() && a.iter().all(Value::is_string) => {}
        _ => problems.push(format!(
            "data.supported should be a list of versions, got {}",
            supported
                .map(Value::to_string)
                .unwrap_or_else(|| "nothing".into())
        )),
    }
    if requested != Some(&json!(BOGUS_VERSION)) {
        problems.push(format!(
            "data.requested should be \"{BOGUS_VERSION}\", got {}",
            requested
                .map(Value::to_string)
                .unwrap_or_else(|| "nothing".into())
        ));
    }
    if !problems.is_empty() {
        f = Finding::fail(CheckRule::UnsupportedVersion, problems.join("; "));
    } else {
        f.detail = format!(
            "{}; data.supported {}, data.requested \"{BOGUS_VERSION}\"",
            f.detail,
            supported.map(Value::to_string).unwrap_or_default()
        );
    }
    f
}

/// `_meta` without the REQUIRED client capabilities (-32602), and an unknown method (404).
async fn meta_and_method_checks(client: &HttpClient, report: &mut Report) {
    // _meta present (its version matches the header) but the REQUIRED clientCapabilities missing:
    // unambiguously a _meta failure, not a header mismatch.
    let mut probe = tools_list_request(905);
    if let Some(m) = probe["params"]["_meta"].as_object_mut() {
        m.remove(meta::CLIENT_CAPABILITIES);
    }
    let (f, _) = judge_refusal(
        CheckRule::MissingMeta,
        "tools/list whose _meta lacks io.modelcontextprotocol/clientCapabilities",
        client.send(&probe).await,
        400,
        Some(error_code::INVALID_PARAMS),
    );
    report.add(f);

    let probe = protocol::request(&RequestId::Int(906), BOGUS_METHOD, json!({}));
    let (f, _) = judge_refusal(
        CheckRule::UnknownMethod,
        &format!("{BOGUS_METHOD} (an unknown method)"),
        client.send(&probe).await,
        404,
        Some(error_code::METHOD_NOT_FOUND),
    );
    report.add(f);
}

/// stdio: the `_meta` and unknown-method refusals live in the body, not the header layer, so
/// they are judged there too, by their error codes (there is no status line).
pub(super) async fn body_checks(p: &mut Probe<'_>) {
    let what = "tools/list whose _meta lacks io.modelcontextprotocol/clientCapabilities";
    let reply = p
        .request_edited(method::TOOLS_LIST, json!({}), |m| {
            if let Some(meta) = m["params"]["_meta"].as_object_mut() {
                meta.remove(meta::CLIENT_CAPABILITIES);
            }
        })
        .await;
    p.report.add(judge_error_code(
        CheckRule::MissingMeta,
        what,
        reply,
        error_code::INVALID_PARAMS,
    ));
    let reply = p.request(BOGUS_METHOD, json!({})).await;
    p.report.add(judge_error_code(
        CheckRule::UnknownMethod,
        &format!("{BOGUS_METHOD} (an unknown method)"),
        reply,
        error_code::METHOD_NOT_FOUND,
    ));
}

/// A refusal over stdio: the reply must be the JSON-RPC error `code`.
fn judge_error_code(rule: CheckRule, what: &str, got: anyhow::Result<Reply>, code: i64) -> Finding {
    let want = format!(
        "error {code} ({})",
        error_code::name(code).unwrap_or("error")
    );
    match got {
        Err(e) => Finding::fail(rule, format!("{what}: {e:#}")),
        Ok(r) if r.message.as_ref().and_then(Message::error).map(|e| e.code) == Some(code) => {
            Finding::pass(rule, format!("{what}: {want}"))
        }
        Ok(r) => Finding::fail(
            rule,
            format!(
                "{what}: expected {want}, got {}",
                reply_summary(None, r.message.as_ref())
            ),
        ),
    }
}

/// A foreign Origin (403), and a modern client's GET and DELETE (405).
async fn origin_and_verb_checks(client: &HttpClient, report: &mut Report) {
    // A browser page on another site reaching a local server: the Origin a DNS-rebinding attack
    // carries.
    let probe = tools_list_request(908);
    let mut headers = crate::client::standard_headers(&probe);
    headers.push((
        "Origin".to_owned(),
        "http://mcp-tutor-check.invalid".to_owned(),
    ));
    let (f, _) = judge_refusal(
        CheckRule::OriginRejected,
        "tools/list with Origin: http://mcp-tutor-check.invalid",
        client
            .send_raw("POST", Some(probe.to_string()), headers)
            .await,
        403,
        None,
    );
    report.add(f);

    // A modern client's GET/DELETE (version header present): only a legacy client would expect
    // a stream or a session end here.
    for verb in ["GET", "DELETE"] {
        let (f, _) = judge_refusal(
            CheckRule::GetDeleteNotAllowed,
            &format!("{verb} on the endpoint"),
            client
                .send_raw(
                    verb,
                    None,
                    vec![
                        ("Accept".to_owned(), header::ACCEPT_VALUE.to_owned()),
                        (
                            header::MCP_PROTOCOL_VERSION.to_owned(),
                            protocol::PROTOCOL_VERSION.to_owned(),
                        ),
                    ],
                )
                .await,
            405,
            None,
        );
        report.add(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{RawRequest, RawResponse, WireEvent};

    fn reply(status: u16, body: Value) -> anyhow::Result<Exchange> {
        Ok(Exchange {
            request: RawRequest {
                method: "POST".into(),
                url: "http://127.0.0.1:1/mcp".into(),
                headers: vec![],
                body: String::new(),
            },
            response: RawResponse {
                status,
                headers: vec![("Mcp-Session-Id".into(), "abc".into())],
            },
            body: body.to_string(),
            events: vec![WireEvent::Frame {
                raw: body.to_string(),
                message: Message::classify(&body),
            }],
        })
    }

    #[test]
    fn discover_needs_result_type_versions_and_server_info_in_meta() {
        let good = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {}, "ttlMs": 0, "cacheScope": "public",
            "_meta": {meta::SERVER_INFO: {"name": "s", "version": "1"}}}});
        assert!(judge_discover(Some(200), Some(&Message::classify(&good))).ok);
        let old_shape = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "supportedVersions": ["2025-11-25"], "serverInfo": {"name": "s", "version": "1"}}});
        let f = judge_discover(Some(200), Some(&Message::classify(&old_shape)));
        assert!(!f.ok);
        assert!(f.detail.contains("resultType is missing"), "{}", f.detail);
        assert!(f.detail.contains("lacks 2026-07-28"), "{}", f.detail);
        assert!(f.detail.contains("top-level"), "{}", f.detail);
        let err = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}});
        let f = judge_discover(Some(404), Some(&Message::classify(&err)));
        assert!(
            !f.ok && f.detail.contains("HTTP 404 with error -32601"),
            "{}",
            f.detail
        );
    }

    #[test]
    fn refusals_need_both_the_status_and_the_code() {
        let e =
            |code: i64| json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m"}});
        let (f, _) = judge_refusal(
            CheckRule::HeaderMethodMissing,
            "x",
            reply(400, e(-32020)),
            400,
            Some(-32020),
        );
        assert!(f.ok);
        let (f, _) = judge_refusal(
            CheckRule::HeaderMethodMissing,
            "x",
            reply(400, e(-32600)),
            400,
            Some(-32020),
        );
        assert!(!f.ok);
        assert!(
            f.detail.contains("got HTTP 400 with error -32600"),
            "{}",
            f.detail
        );
        assert!(
            f.detail.contains("minted Mcp-Session-Id: abc"),
            "{}",
            f.detail
        );
        let ok = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}});
        let (f, _) = judge_refusal(
            CheckRule::MissingMeta,
            "x",
            reply(200, ok),
            400,
            Some(-32602),
        );
        assert!(
            !f.ok && f.detail.contains("HTTP 200 with a result"),
            "{}",
            f.detail
        );
        let (f, _) = judge_refusal(
            CheckRule::UnknownMethod,
            "x",
            Err(anyhow::anyhow!("no complete reply within 1.0 s")),
            404,
            Some(-32601),
        );
        assert!(!f.ok && f.detail.contains("within 1.0 s"));
    }
}
