//! Inputs of the right shape but the wrong type are refused with the field named, the same on
//! both transports (issue 12 §5, §10): a listen filter sent as an array, an id beyond i64, a
//! second live listen with the same id, a repeated `Mcp-Method` header.

use crate::common::*;
use mcp_tutor_mock::Config;
use mcp_tutor_mock::protocol::{self, RequestId, error_code as code, header as h, method};
use serde_json::{Value, json};

/// A listen whose `params.notifications` is `filter`, whatever its type.
fn raw_listen(id: i64, filter: Value) -> Value {
    let mut v = protocol::listen_request(&RequestId::Int(id), &Default::default());
    v["params"]["notifications"] = filter;
    v
}

/// Wrong filters and the words the refusal must contain.
fn wrong_filters() -> Vec<(Value, &'static str)> {
    vec![
        (json!([true]), "params.notifications must be an object"),
        (json!([true, true, true, ["mock://notes"]]), "not an array"),
        (
            json!("toolsListChanged"),
            "params.notifications must be an object",
        ),
        (json!(null), "params.notifications must be an object"),
        (
            json!({"toolsListChanged": [true]}),
            "params.notifications.toolsListChanged must be true or false",
        ),
        (json!({"promptsListChanged": "yes"}), "promptsListChanged"),
        (json!({"resourcesListChanged": 1}), "resourcesListChanged"),
        (json!({"toolsListChanged": null}), "toolsListChanged"),
        (
            json!({"resourceSubscriptions": "mock://notes"}),
            "params.notifications.resourceSubscriptions must be an array",
        ),
        (
            json!({"resourceSubscriptions": ["mock://notes", 7]}),
            "params.notifications.resourceSubscriptions[1] must be a URI string",
        ),
    ]
}

#[tokio::test]
async fn a_filter_of_the_wrong_type_is_400_invalid_params_over_http() {
    let s = default_server().await;
    for (i, (filter, words)) in wrong_filters().into_iter().enumerate() {
        let body = raw_listen(i as i64, filter.clone());
        let (status, b) = call(&s.url, &body).await;
        assert_eq!(status, 400, "{filter}: {b}");
        assert_eq!(b["error"]["code"], code::INVALID_PARAMS, "{filter}: {b}");
        let msg = b["error"]["message"].as_str().unwrap_or_default();
        assert!(
            msg.contains(words),
            "{filter}: {msg:?} should say {words:?}"
        );
    }
    assert!(
        s.control.subscriptions().is_empty(),
        "nothing was acknowledged"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_filter_of_the_wrong_type_is_invalid_params_over_stdio() {
    let mut c = StdioClient::start(Config::default());
    for (i, (filter, words)) in wrong_filters().into_iter().enumerate() {
        c.send(&raw_listen(i as i64, filter.clone())).await;
        let m = c.next_msg().await.expect("a reply");
        assert_eq!(m["id"], i, "{m}");
        assert_eq!(m["error"]["code"], code::INVALID_PARAMS, "{filter}: {m}");
        let msg = m["error"]["message"].as_str().unwrap_or_default();
        assert!(
            msg.contains(words),
            "{filter}: {msg:?} should say {words:?}"
        );
    }
    assert!(c.control.subscriptions().is_empty());
    assert!(c.finish().await.is_empty());
}

const HUGE_IDS: [&str; 3] = [
    "9223372036854775808",
    "18446744073709551616",
    "-9223372036854775809",
];

fn with_id(raw_id: &str) -> String {
    let body = req(1, method::TOOLS_LIST, json!({})).to_string();
    body.replacen("\"id\":1", &format!("\"id\":{raw_id}"), 1)
}

#[tokio::test]
async fn an_integer_id_beyond_i64_is_out_of_range_on_both_transports() {
    let s = default_server().await;
    let mut c = StdioClient::start(Config::default());
    for raw in HUGE_IDS {
        let line = with_id(raw);
        assert!(line.contains(raw));
        let r = client()
            .post(&s.url)
            .header("Accept", h::ACCEPT_VALUE)
            .header(h::MCP_PROTOCOL_VERSION, protocol::PROTOCOL_VERSION)
            .header(h::MCP_METHOD, method::TOOLS_LIST)
            .body(line.clone())
            .send()
            .await
            .expect("sent");
        assert_eq!(r.status().as_u16(), 400);
        let b: Value = r.json().await.expect("JSON");
        c.send_line(&line).await;
        let m = c.next_msg().await.expect("a reply");
        for reply in [&b, &m] {
            assert_eq!(reply["error"]["code"], code::INVALID_REQUEST, "{reply}");
            assert!(reply["id"].is_null(), "{reply}");
            let msg = reply["error"]["message"].as_str().unwrap_or_default();
            assert!(msg.contains("out of range"), "{raw}: {msg}");
        }
    }
    // A fraction is a type problem, not a range one.
    c.send_line(&with_id("1.5")).await;
    let m = c.next_msg().await.expect("a reply");
    let msg = m["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("fraction") && !msg.contains("out of range"),
        "{msg}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn http_refuses_a_second_live_listen_with_the_same_id_like_stdio() {
    let s = default_server().await;
    let f = filter(json!({"toolsListChanged": true}));
    let mut first = listen(&s.url, "L", &f).await;
    assert_eq!(
        first.next_msg().await.expect("ack")["method"],
        method::SUBSCRIPTIONS_ACKNOWLEDGED
    );
    let (status, b) = call(&s.url, &protocol::listen_request(&"L".into(), &f)).await;
    assert_eq!(status, 400, "{b}");
    assert_eq!(b["error"]["code"], code::INVALID_REQUEST);
    assert_eq!(b["id"], "L");
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("fresh id")
    );
    // Any request reusing the live id is refused; the type is part of the id.
    let (status, _) = call(&s.url, &req("L", method::TOOLS_LIST, json!({}))).await;
    assert_eq!(status, 400);
    assert_eq!(s.control.subscriptions().len(), 1);
    // Once answered, the id is free again.
    assert!(s.control.close(&"L".into()));
    let (_, end) = first.rest().await;
    assert_eq!(end, Sse::End);
    wait_subs(&s.control, 0).await;
    let mut again = listen(&s.url, "L", &f).await;
    assert_eq!(
        again.next_msg().await.expect("ack")["method"],
        method::SUBSCRIPTIONS_ACKNOWLEDGED
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_repeated_mcp_header_is_400_header_mismatch() {
    let s = default_server().await;
    let body = req(1, method::TOOLS_LIST, json!({}));
    for (name, second) in [
        (h::MCP_METHOD, method::TOOLS_LIST),
        (h::MCP_METHOD, method::PROMPTS_LIST),
        (h::MCP_PROTOCOL_VERSION, protocol::PROTOCOL_VERSION),
    ] {
        let mut rb = client().post(&s.url).body(body.to_string());
        for (n, v) in standard_headers(&body) {
            rb = rb.header(n, v);
        }
        // `header` appends: the request now carries `name` twice.
        let r = rb.header(name, second).send().await.expect("sent");
        assert_eq!(r.status().as_u16(), 400, "{name} twice");
        let b: Value = r.json().await.expect("a JSON-RPC error body");
        assert_eq!(b["error"]["code"], code::HEADER_MISMATCH, "{b}");
        assert_eq!(b["id"], 1);
        let msg = b["error"]["message"].as_str().unwrap_or_default();
        assert!(
            msg.contains("more than once") && msg.contains(name),
            "{msg}"
        );
    }
    s.shutdown().await;
}
