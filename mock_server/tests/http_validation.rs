//! HTTP validation (docs/rules.md, header-* and status rules): every status row, headers, result shapes, over real
//! loopback HTTP.

use crate::common::*;
use mcp_tutor_mock::protocol::{PROTOCOL_VERSION, error_code as code, header as h, meta, method};
use serde_json::{Value, json};

fn err_code(v: &Value) -> i64 {
    v["error"]["code"].as_i64().unwrap_or_default()
}

async fn status_and_body(resp: reqwest::Response) -> (u16, Value) {
    let s = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    (s, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn invalid_origin_is_403_and_loopback_origin_is_fine() {
    let s = default_server().await;
    let body = req(1, method::SERVER_DISCOVER, json!({}));
    let (st, b) = status_and_body(
        post_with(
            &s.url,
            &body,
            &[("Origin", Some("http://evil.example.com"))],
        )
        .await,
    )
    .await;
    assert_eq!(st, 403);
    assert!(b["id"].is_null(), "error with no id: {b}");
    let (st, _) =
        status_and_body(post_with(&s.url, &body, &[("Origin", Some("null"))]).await).await;
    assert_eq!(st, 403);
    let origin = format!("http://127.0.0.1:{}", s.addr.port());
    let (st, b) =
        status_and_body(post_with(&s.url, &body, &[("Origin", Some(&origin))]).await).await;
    assert_eq!(st, 200, "{b}");
    let (st, _) =
        status_and_body(post_with(&s.url, &body, &[("Origin", Some("http://localhost:9"))]).await)
            .await;
    assert_eq!(st, 200);
    s.shutdown().await;
}

#[tokio::test]
async fn configured_origin_is_allowed() {
    let s = server(mcp_tutor_mock::Config {
        allowed_origins: vec!["https://tutor.example".into()],
        ..Default::default()
    })
    .await;
    let body = req(1, method::TOOLS_LIST, json!({}));
    let r = post_with(&s.url, &body, &[("Origin", Some("https://tutor.example"))]).await;
    assert_eq!(r.status().as_u16(), 200);
    let r = post_with(
        &s.url,
        &body,
        &[("Origin", Some("https://tutor.example.evil"))],
    )
    .await;
    assert_eq!(r.status().as_u16(), 403);
    s.shutdown().await;
}

#[tokio::test]
async fn dns_rebinding_host_is_403() {
    let s = default_server().await;
    let body = req(1, method::SERVER_DISCOVER, json!({}));
    let r = post_with(&s.url, &body, &[("Host", Some("evil.example.com"))]).await;
    assert_eq!(r.status().as_u16(), 403);
    let r = post_with(&s.url, &body, &[("Host", Some("localhost:1234"))]).await;
    assert_eq!(r.status().as_u16(), 200);
    s.shutdown().await;
}

#[tokio::test]
async fn get_and_delete_are_405() {
    let s = default_server().await;
    for m in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let r = client()
            .request(m.clone(), &s.url)
            .header("Accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 405, "{m}");
        assert_eq!(r.headers()["allow"], "POST");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn unparseable_json_is_400_parse_error() {
    let s = default_server().await;
    let r = client()
        .post(&s.url)
        .header("Accept", h::ACCEPT_VALUE)
        .header(h::MCP_PROTOCOL_VERSION, PROTOCOL_VERSION)
        .header(h::MCP_METHOD, "tools/list")
        .body("{\"jsonrpc\":")
        .send()
        .await
        .unwrap();
    let (st, b) = status_and_body(r).await;
    assert_eq!((st, err_code(&b)), (400, code::PARSE_ERROR));
    assert!(b["id"].is_null());
    s.shutdown().await;
}

#[tokio::test]
async fn batches_and_client_responses_are_invalid_requests() {
    let s = default_server().await;
    let batch = json!([req(1, method::TOOLS_LIST, json!({}))]);
    let (st, b) =
        status_and_body(post_with(&s.url, &batch, &[("Mcp-Method", Some("tools/list"))]).await)
            .await;
    assert_eq!((st, err_code(&b)), (400, code::INVALID_REQUEST));
    let response = json!({"jsonrpc": "2.0", "id": 4, "result": {}});
    let (st, b) = status_and_body(post(&s.url, &response).await).await;
    assert_eq!((st, err_code(&b)), (400, code::INVALID_REQUEST));
    assert_eq!(b["id"], 4);
    s.shutdown().await;
}

#[tokio::test]
async fn accept_must_list_both_types() {
    let s = default_server().await;
    let body = req(1, method::TOOLS_LIST, json!({}));
    for accept in [None, Some("application/json"), Some("text/event-stream")] {
        let (st, b) = status_and_body(post_with(&s.url, &body, &[("Accept", accept)]).await).await;
        assert_eq!(st, 400, "Accept {accept:?}");
        assert_eq!(b["id"], 1);
    }
    s.shutdown().await;
}

#[tokio::test]
async fn missing_required_headers_are_400_header_mismatch() {
    let s = default_server().await;
    let list = req(7, method::TOOLS_LIST, json!({}));
    let call = tool(8, "echo", json!({}));
    for (body, header) in [
        (&list, h::MCP_PROTOCOL_VERSION),
        (&list, h::MCP_METHOD),
        (&call, h::MCP_NAME),
    ] {
        let (st, b) = status_and_body(post_with(&s.url, body, &[(header, None)]).await).await;
        assert_eq!(
            (st, err_code(&b)),
            (400, code::HEADER_MISMATCH),
            "without {header}: {b}"
        );
        assert_eq!(b["id"], body["id"], "error echoes the id");
    }
    let read = req(
        9,
        method::RESOURCES_READ,
        json!({"uri": "mock://notes/today"}),
    );
    let (st, b) = status_and_body(post_with(&s.url, &read, &[(h::MCP_NAME, None)]).await).await;
    assert_eq!((st, err_code(&b)), (400, code::HEADER_MISMATCH));
    let get = req(
        10,
        method::PROMPTS_GET,
        json!({"name": "interview_question"}),
    );
    let (st, b) = status_and_body(post_with(&s.url, &get, &[(h::MCP_NAME, None)]).await).await;
    assert_eq!((st, err_code(&b)), (400, code::HEADER_MISMATCH));
    s.shutdown().await;
}

#[tokio::test]
async fn header_values_must_match_the_body() {
    let s = default_server().await;
    let list = req(1, method::TOOLS_LIST, json!({}));
    let call = tool(2, "echo", json!({}));
    let cases: Vec<(&Value, &str, &str)> = vec![
        (&list, h::MCP_METHOD, "prompts/list"),
        (&list, h::MCP_METHOD, "TOOLS/LIST"), // values are case-sensitive
        (&call, h::MCP_NAME, "wrong_tool_name"),
        (&call, h::MCP_NAME, "=?base64?d3Jvbmc=?="), // decodes to "wrong"
        (&call, h::MCP_NAME, "=?base64?not base64?="),
        (&list, h::MCP_PROTOCOL_VERSION, "2025-11-25"), // ≠ _meta version
    ];
    for (body, name, value) in cases {
        let (st, b) = status_and_body(post_with(&s.url, body, &[(name, Some(value))]).await).await;
        assert_eq!(
            (st, err_code(&b)),
            (400, code::HEADER_MISMATCH),
            "{name}: {value} → {b}"
        );
    }
    s.shutdown().await;
}

#[tokio::test]
async fn header_names_are_case_insensitive_and_whitespace_is_trimmed() {
    let s = default_server().await;
    let list = req(1, method::TOOLS_LIST, json!({}));
    for name in ["mcp-method", "MCP-METHOD"] {
        let r = post_with(
            &s.url,
            &list,
            &[(h::MCP_METHOD, None), (name, Some("tools/list"))],
        )
        .await;
        assert_eq!(r.status().as_u16(), 200, "{name}");
    }
    let call = tool(2, "echo", json!({}));
    let r = post_with(&s.url, &call, &[(h::MCP_NAME, Some("  echo  "))]).await;
    assert_eq!(r.status().as_u16(), 200);
    s.shutdown().await;
}

#[tokio::test]
async fn base64_sentinel_is_decoded_before_comparing() {
    let s = default_server().await;
    // A resource URI is always mirrored; an encoded plain value must still match.
    let read = req(
        3,
        method::RESOURCES_READ,
        json!({"uri": "mock://notes/today"}),
    );
    let r = post_with(
        &s.url,
        &read,
        &[(h::MCP_NAME, Some("=?base64?bW9jazovL25vdGVzL3RvZGF5?="))],
    )
    .await;
    let (st, b) = status_and_body(r).await;
    assert_eq!(st, 200, "{b}");
    // Non-ASCII value: the client must encode it; the server decodes and then finds no resource.
    let read = req(
        4,
        method::RESOURCES_READ,
        json!({"uri": "mock://notes/café"}),
    );
    let (st, b) = status_and_body(post(&s.url, &read).await).await;
    assert_eq!(
        (st, err_code(&b)),
        (400, code::INVALID_PARAMS),
        "header accepted, resource unknown: {b}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn mcp_param_headers_mirror_x_mcp_header_arguments() {
    let s = default_server().await;
    let call = tool(1, "read_note", json!({"name": "today"}));
    let (st, b) =
        status_and_body(post_with(&s.url, &call, &[("Mcp-Param-Note", Some("today"))]).await).await;
    assert_eq!(st, 200, "{b}");
    assert!(
        b["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("# Today")
    );
    for edit in [None, Some("ideas"), Some("=?base64?aWRlYXM=?=")] {
        let (st, b) =
            status_and_body(post_with(&s.url, &call, &[("Mcp-Param-Note", edit)]).await).await;
        assert_eq!((st, err_code(&b)), (400, code::HEADER_MISMATCH), "{edit:?}");
    }
    let (st, _) = status_and_body(
        post_with(
            &s.url,
            &call,
            &[("Mcp-Param-Note", Some("=?base64?dG9kYXk=?="))],
        )
        .await,
    )
    .await;
    assert_eq!(st, 200, "base64 form of `today` matches");
    s.shutdown().await;
}

#[tokio::test]
async fn unsupported_version_is_400_with_supported_and_requested() {
    let s = default_server().await;
    let mut body = req(5, method::SERVER_DISCOVER, json!({}));
    body["params"]["_meta"][meta::PROTOCOL_VERSION] = json!("2031-01-01");
    let (st, b) = status_and_body(
        post_with(
            &s.url,
            &body,
            &[(h::MCP_PROTOCOL_VERSION, Some("2031-01-01"))],
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, err_code(&b)),
        (400, code::UNSUPPORTED_PROTOCOL_VERSION)
    );
    assert_eq!(b["error"]["data"]["supported"], json!([PROTOCOL_VERSION]));
    assert_eq!(b["error"]["data"]["requested"], "2031-01-01");
    assert_eq!(b["id"], 5);
    s.shutdown().await;
}

#[tokio::test]
async fn missing_meta_fields_are_400_invalid_params() {
    let s = default_server().await;
    let mut no_meta = req(1, method::SERVER_DISCOVER, json!({}));
    no_meta["params"].as_object_mut().unwrap().remove("_meta");
    let mut no_caps = req(2, method::SERVER_DISCOVER, json!({}));
    no_caps["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove(meta::CLIENT_CAPABILITIES);
    let mut no_version = req(3, method::SERVER_DISCOVER, json!({}));
    no_version["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove(meta::PROTOCOL_VERSION);
    let mut no_params = req(4, method::TOOLS_LIST, json!({}));
    no_params.as_object_mut().unwrap().remove("params");
    for body in [&no_meta, &no_caps, &no_version, &no_params] {
        let (st, b) = status_and_body(post(&s.url, body).await).await;
        assert_eq!((st, err_code(&b)), (400, code::INVALID_PARAMS), "{body}");
        assert_eq!(b["id"], body["id"]);
    }
    // clientInfo is only a SHOULD: a request without it is served.
    let mut no_info = req(5, method::SERVER_DISCOVER, json!({}));
    no_info["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove(meta::CLIENT_INFO);
    let (st, b) = status_and_body(post(&s.url, &no_info).await).await;
    assert_eq!(st, 200, "{b}");
    s.shutdown().await;
}

#[tokio::test]
async fn undeclared_capability_is_400_with_required_capabilities() {
    let s = default_server().await;
    let (st, b) =
        status_and_body(post(&s.url, &tool(6, "test_missing_capability", json!({}))).await).await;
    assert_eq!(
        (st, err_code(&b)),
        (400, code::MISSING_REQUIRED_CLIENT_CAPABILITY)
    );
    assert_eq!(
        b["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    let declared = mcp_tutor_mock::protocol::request_with(
        &6.into(),
        method::TOOLS_CALL,
        json!({"name": "test_missing_capability", "arguments": {}}),
        &json!({"sampling": {}}),
    );
    let (st, b) = status_and_body(post(&s.url, &declared).await).await;
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["result"]["resultType"], "complete");
    s.shutdown().await;
}

#[tokio::test]
async fn unknown_and_removed_methods_are_404_method_not_found() {
    let s = default_server().await;
    for m in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "nope/nope",
    ] {
        let (st, b) = status_and_body(post(&s.url, &req(500, m, json!({}))).await).await;
        assert_eq!((st, err_code(&b)), (404, code::METHOD_NOT_FOUND), "{m}");
        assert_eq!(b["id"], 500);
    }
    s.shutdown().await;
}

#[tokio::test]
async fn notifications_are_202_with_an_empty_body() {
    let s = default_server().await;
    for n in [
        mcp_tutor_mock::protocol::cancelled(&"listen-1".into(), Some("bye")),
        mcp_tutor_mock::protocol::notification("notifications/whatever", json!({})),
    ] {
        let r = post(&s.url, &n).await;
        assert_eq!(r.status().as_u16(), 202);
        assert!(r.text().await.unwrap().is_empty());
    }
    s.shutdown().await;
}

#[tokio::test]
async fn ids_are_echoed_with_their_json_type() {
    let s = default_server().await;
    for id in [json!(7), json!("7"), json!("tutor-7"), json!(-3)] {
        let mut body = req(1, method::TOOLS_LIST, json!({}));
        body["id"] = id.clone();
        let (st, b) = call(&s.url, &body).await;
        assert_eq!(st, 200);
        assert_eq!(b["id"], id);
        // errors too
        body["method"] = json!("nope");
        let r = post_with(&s.url, &body, &[(h::MCP_METHOD, Some("nope"))]).await;
        let b: Value = r.json().await.unwrap();
        assert_eq!(b["id"], id);
    }
    s.shutdown().await;
}

#[tokio::test]
async fn sessions_are_not_part_of_this_revision() {
    let s = default_server().await;
    let body = req(1, method::SERVER_DISCOVER, json!({}));
    let r = post_with(
        &s.url,
        &body,
        &[
            (h::MCP_SESSION_ID, Some("abc")),
            (h::LAST_EVENT_ID, Some("5")),
        ],
    )
    .await;
    assert_eq!(r.status().as_u16(), 200, "both headers are ignored");
    assert!(r.headers().get("mcp-session-id").is_none());
    assert_eq!(r.headers()["content-type"], "application/json");
    s.shutdown().await;
}

#[tokio::test]
async fn every_result_has_result_type_server_info_and_cache_fields_where_required() {
    let s = default_server().await;
    let cacheable = [
        req(1, method::SERVER_DISCOVER, json!({})),
        req(2, method::TOOLS_LIST, json!({})),
        req(3, method::PROMPTS_LIST, json!({})),
        req(4, method::RESOURCES_LIST, json!({})),
        req(5, method::RESOURCES_TEMPLATES_LIST, json!({})),
        req(
            6,
            method::RESOURCES_READ,
            json!({"uri": "mock://notes/today"}),
        ),
    ];
    for body in &cacheable {
        let (st, b) = call(&s.url, body).await;
        assert_eq!(st, 200, "{body}: {b}");
        let r = &b["result"];
        assert_eq!(r["resultType"], "complete");
        assert!(r["ttlMs"].as_u64().is_some(), "ttlMs on {}", body["method"]);
        assert!(matches!(
            r["cacheScope"].as_str(),
            Some("public" | "private")
        ));
        assert_eq!(r["_meta"][meta::SERVER_INFO]["name"], "mcp-tutor-mock");
    }
    for body in [
        req(
            7,
            method::PROMPTS_GET,
            json!({"name": "explain_rule", "arguments": {"rule": "ack first"}}),
        ),
        tool(8, "echo", json!({"text": "hi"})),
    ] {
        let (st, b) = call(&s.url, &body).await;
        assert_eq!(st, 200, "{b}");
        assert_eq!(b["result"]["resultType"], "complete");
        assert!(b["result"]["_meta"][meta::SERVER_INFO].is_object());
    }
    let (_, d) = call(&s.url, &cacheable[0]).await;
    assert_eq!(d["result"]["supportedVersions"], json!([PROTOCOL_VERSION]));
    assert_eq!(d["result"]["capabilities"]["resources"]["subscribe"], true);
    assert!(
        d["result"].get("serverInfo").is_none(),
        "serverInfo lives in _meta only"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn params_errors_are_400_invalid_params() {
    let s = default_server().await;
    for body in [
        req(1, method::RESOURCES_READ, json!({"uri": "mock://nope"})),
        req(2, method::PROMPTS_GET, json!({"name": "nope"})),
        req(3, method::PROMPTS_GET, json!({"name": "explain_rule"})),
        tool(4, "nope", json!({})),
        req(5, method::TOOLS_LIST, json!({"cursor": "x"})),
        req(6, method::SUBSCRIPTIONS_LISTEN, json!({})),
        req(
            7,
            method::SUBSCRIPTIONS_LISTEN,
            json!({"notifications": {"toolsListChanged": "yes"}}),
        ),
    ] {
        let r = post(&s.url, &body).await;
        assert_eq!(
            r.headers()["content-type"],
            "application/json",
            "errors are plain JSON, not a stream"
        );
        let (st, b) = status_and_body(r).await;
        assert_eq!(
            (st, err_code(&b)),
            (400, code::INVALID_PARAMS),
            "{body}: {b}"
        );
    }
    s.shutdown().await;
}

#[tokio::test]
async fn logging_only_when_asked_and_never_requests_on_a_stream() {
    let s = default_server().await;
    let (st, b) = call(&s.url, &tool(1, "test_logging_tool", json!({}))).await;
    assert_eq!(st, 200);
    assert_eq!(
        b["id"], 1,
        "no logLevel: a plain JSON result, no notifications/message"
    );
    let mut body = tool(2, "test_logging_tool", json!({}));
    body["params"]["_meta"][meta::LOG_LEVEL] = json!("debug");
    let resp = post(&s.url, &body).await;
    assert_eq!(
        resp.headers()[h::X_ACCEL_BUFFERING.to_ascii_lowercase().as_str()],
        "no"
    );
    let (msgs, end) = SseReader::new(resp).rest().await;
    assert_eq!(end, Sse::End);
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0]["method"], method::MESSAGE);
    assert!(
        msgs[0]["params"].get("_meta").is_none(),
        "not a subscription delivery: untagged"
    );
    assert_eq!(msgs[1]["id"], 2);
    // Elicitation is asked for with an input_required result, never a server request.
    let el = mcp_tutor_mock::protocol::request_with(
        &3.into(),
        method::TOOLS_CALL,
        json!({"name": "test_streaming_elicitation", "arguments": {}}),
        &json!({"elicitation": {}}),
    );
    let (st, b) = call(&s.url, &el).await;
    assert_eq!(st, 200);
    assert_eq!(b["result"]["resultType"], "input_required");
    assert_eq!(
        b["result"]["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn header_values_with_invalid_characters_are_400_header_mismatch() {
    let s = default_server().await;
    let call = tool(1, "echo", json!({}));
    let mut rb = client().post(&s.url).body(call.to_string());
    for (n, v) in standard_headers(&call) {
        if !n.eq_ignore_ascii_case(h::MCP_NAME) {
            rb = rb.header(n, v);
        }
    }
    // Raw UTF-8 bytes are not header-safe: a client MUST send the base64 sentinel instead.
    let raw = reqwest::header::HeaderValue::from_bytes("échö".as_bytes()).unwrap();
    let (st, b) = status_and_body(rb.header(h::MCP_NAME, raw).send().await.unwrap()).await;
    assert_eq!((st, err_code(&b)), (400, code::HEADER_MISMATCH), "{b}");
    s.shutdown().await;
}
