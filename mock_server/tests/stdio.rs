//! The stdio rules (docs/rules.md): one channel, interleaved subscriptions told apart by their tag,
//! `notifications/cancelled` from the client, teardown (result, then `notifications/cancelled`).

use crate::common::*;
use mcp_tutor_mock::Config;
use mcp_tutor_mock::protocol::{
    self, NotificationKind, RequestId, error_code as code, meta, method,
};
use serde_json::{Value, json};

fn tag(m: &Value) -> &Value {
    &m["params"]["_meta"][meta::SUBSCRIPTION_ID]
}

#[tokio::test]
async fn interleaved_subscriptions_each_ack_first_and_cancel_is_final() {
    let mut c = StdioClient::start(Config::default());
    let one = RequestId::Int(1);
    let two = RequestId::from("two");
    c.send(&protocol::listen_request(
        &one,
        &filter(json!({"toolsListChanged": true})),
    ))
    .await;
    c.send(&protocol::listen_request(
        &two,
        &filter(json!({"toolsListChanged": true, "promptsListChanged": true})),
    ))
    .await;
    wait_subs(&c.control, 2).await;
    c.control
        .trigger(NotificationKind::PromptsListChanged, None);
    c.control.trigger(NotificationKind::ToolsListChanged, None);
    // A request in the middle is answered on the same channel, by id.
    c.send(&req(5, method::TOOLS_LIST, json!({}))).await;
    let mut seen: Vec<Value> = Vec::new();
    while seen.len() < 6 {
        seen.push(c.next_msg().await.unwrap());
    }
    let for_id = |id: &RequestId| -> Vec<&Value> {
        seen.iter().filter(|m| *tag(m) == id.to_value()).collect()
    };
    let ones = for_id(&one);
    let twos = for_id(&two);
    assert_eq!(ones.len(), 2, "{seen:#?}");
    assert_eq!(twos.len(), 3, "{seen:#?}");
    for msgs in [&ones, &twos] {
        assert_eq!(
            msgs[0]["method"],
            method::SUBSCRIPTIONS_ACKNOWLEDGED,
            "ack first per id"
        );
    }
    assert_eq!(ones[1]["method"], method::TOOLS_LIST_CHANGED);
    assert!(
        seen.iter()
            .any(|m| m["id"] == 5 && m["result"]["tools"].is_array())
    );

    // Cancel 1; only 2 hears the next change; 1 gets nothing, not even a result.
    c.send(&protocol::cancelled(&one, None)).await;
    wait_subs(&c.control, 1).await;
    c.control.trigger(NotificationKind::ToolsListChanged, None);
    let next = c.next_msg().await.unwrap();
    assert_eq!(
        next,
        protocol::list_changed(NotificationKind::ToolsListChanged, &two)
    );

    // EOF: the server ends 2 gracefully — result, then notifications/cancelled naming it.
    let rest = c.finish().await;
    assert_eq!(rest.len(), 2, "{rest:#?}");
    assert_eq!(rest[0], mcp_tutor_mock::close_result(&two));
    assert_eq!(rest[1]["method"], method::CANCELLED);
    assert_eq!(rest[1]["params"]["requestId"], "two");
    assert_eq!(*tag(&rest[1]), json!("two"));
    assert!(rest.iter().all(|m| *tag(m) != json!(1) && m["id"] != 1));
}

#[tokio::test]
async fn control_close_and_drop_work_on_stdio_too() {
    let mut c = StdioClient::start(Config::default());
    c.send(&protocol::listen_request(&3.into(), &filter(json!({}))))
        .await;
    c.send(&protocol::listen_request(&4.into(), &filter(json!({}))))
        .await;
    let acks = [c.next_msg().await.unwrap(), c.next_msg().await.unwrap()];
    assert!(
        acks.iter()
            .all(|a| a["method"] == method::SUBSCRIPTIONS_ACKNOWLEDGED)
    );
    assert!(c.control.close(&3.into()));
    assert_eq!(
        c.next_msg().await.unwrap(),
        mcp_tutor_mock::close_result(&3.into())
    );
    assert_eq!(c.next_msg().await.unwrap()["method"], method::CANCELLED);
    assert_eq!(c.control.drop_all(), 1);
    wait_subs(&c.control, 0).await;
    let rest = c.finish().await;
    assert!(
        rest.is_empty(),
        "a dropped subscription gets nothing: {rest:#?}"
    );
}

#[tokio::test]
async fn errors_on_stdio_use_json_rpc_codes_only() {
    let mut c = StdioClient::start(Config::default());
    c.send_line("{not json").await;
    let m = c.next_msg().await.unwrap();
    assert_eq!(
        (m["error"]["code"].as_i64(), &m["id"]),
        (Some(code::PARSE_ERROR), &Value::Null)
    );
    c.send_line(r#"{"id": 2, "method": "tools/list"}"#).await;
    let m = c.next_msg().await.unwrap();
    assert_eq!(
        (m["error"]["code"].as_i64(), &m["id"]),
        (Some(code::INVALID_REQUEST), &json!(2))
    );
    c.send(&req("x", "ping", json!({}))).await;
    let m = c.next_msg().await.unwrap();
    assert_eq!(
        (m["error"]["code"].as_i64(), &m["id"]),
        (Some(code::METHOD_NOT_FOUND), &json!("x"))
    );
    c.send_line(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}"#)
        .await;
    let m = c.next_msg().await.unwrap();
    assert_eq!(m["error"]["code"].as_i64(), Some(code::INVALID_PARAMS));
    let mut v = req(4, method::SERVER_DISCOVER, json!({}));
    v["params"]["_meta"][meta::PROTOCOL_VERSION] = json!("2031-01-01");
    c.send(&v).await;
    let m = c.next_msg().await.unwrap();
    assert_eq!(
        m["error"]["code"].as_i64(),
        Some(code::UNSUPPORTED_PROTOCOL_VERSION)
    );
    assert_eq!(m["error"]["data"]["requested"], "2031-01-01");
    // Responses and unknown notifications from the client get no answer.
    c.send_line(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#).await;
    c.send(&protocol::notification("notifications/whatever", json!({})))
        .await;
    assert!(c.finish().await.is_empty());
}

#[tokio::test]
async fn an_id_of_a_live_subscription_cannot_be_reused() {
    let mut c = StdioClient::start(Config::default());
    let f = filter(json!({"toolsListChanged": true}));
    c.send(&protocol::listen_request(&"L".into(), &f)).await;
    assert_eq!(
        c.next_msg().await.unwrap()["method"],
        method::SUBSCRIPTIONS_ACKNOWLEDGED
    );
    c.send(&protocol::listen_request(&"L".into(), &f)).await;
    let m = c.next_msg().await.unwrap();
    assert_eq!(m["error"]["code"].as_i64(), Some(code::INVALID_REQUEST));
    assert_eq!(
        c.control.subscriptions().len(),
        1,
        "still one subscription tagged \"L\""
    );
    // Once answered (closed), the id is free again.
    assert!(c.control.close(&"L".into()));
    assert_eq!(
        c.next_msg().await.unwrap(),
        mcp_tutor_mock::close_result(&"L".into())
    );
    assert_eq!(c.next_msg().await.unwrap()["method"], method::CANCELLED);
    c.send(&protocol::listen_request(&"L".into(), &f)).await;
    assert_eq!(
        c.next_msg().await.unwrap()["method"],
        method::SUBSCRIPTIONS_ACKNOWLEDGED
    );
}
