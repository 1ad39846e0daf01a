//! The control tools (`test_close_subscription`, `test_drop_subscriptions`, `test_set_fault`,
//! `test_list_faults`, `test_reset_faults`): what the lab sends for `close ID`, `drop`, `fault`
//! and `reset`, over real loopback HTTP and stdio; refused by a server bound elsewhere.

use crate::common::*;
use mcp_tutor_mock::protocol::{RequestId, method};
use mcp_tutor_mock::{Config, Fault};
use serde_json::{Value, json};

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or("")
}

#[tokio::test]
async fn control_tools_close_one_and_drop_all_over_http() {
    let s = default_server().await;
    let tools = call(&s.url, &req("t", method::TOOLS_LIST, json!({})))
        .await
        .1;
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for t in [
        "test_close_subscription",
        "test_drop_subscriptions",
        "test_set_fault",
    ] {
        assert!(names.contains(&t), "{t} listed on loopback: {names:?}");
    }

    let f = filter(json!({"toolsListChanged": true}));
    let mut a = listen(&s.url, 7, &f).await;
    let mut b = listen(&s.url, "b", &f).await;
    wait_subs(&s.control, 2).await;
    assert!(
        a.next_msg().await.is_some() && b.next_msg().await.is_some(),
        "acks"
    );

    // The id keeps its JSON type: "7" is not 7.
    let (st, r) = call(
        &s.url,
        &tool(1, "test_close_subscription", json!({"id": "7"})),
    )
    .await;
    assert_eq!(st, 400, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("no open subscription")
    );
    let (st, r) = call(
        &s.url,
        &tool(2, "test_close_subscription", json!({"id": 7})),
    )
    .await;
    assert_eq!(st, 200, "{r}");
    let (msgs, end) = a.rest().await;
    assert_eq!(end, Sse::End, "closed cleanly");
    assert_eq!(
        msgs.last().expect("a result")["id"],
        7,
        "the completion result"
    );

    let (_, r) = call(&s.url, &tool(3, "test_drop_subscriptions", json!({}))).await;
    assert_eq!(r["result"]["structuredContent"]["dropped"], 1, "{r}");
    let (msgs, end) = b.rest().await;
    assert_eq!((msgs, end), (vec![], Sse::Broken), "dropped: no result");
}

#[tokio::test]
async fn control_tools_switch_faults_over_http() {
    let s = default_server().await;
    let (_, r) = call(
        &s.url,
        &tool(4, "test_set_fault", json!({"name": "no-ack"})),
    )
    .await;
    assert_eq!(text(&r), "fault no-ack on");
    assert_eq!(s.control.faults(), vec![Fault::NoAck]);
    let (_, r) = call(&s.url, &tool(5, "test_list_faults", json!({}))).await;
    assert!(text(&r).contains("[on ] no-ack"), "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["faults"]
            .as_array()
            .map(Vec::len),
        Some(Fault::all().len())
    );
    let (_, r) = call(&s.url, &tool(6, "test_reset_faults", json!({}))).await;
    assert_eq!(
        r["result"]["structuredContent"]["switchedOff"],
        json!(["no-ack"])
    );
    assert!(s.control.faults().is_empty());
    let (st, r) = call(
        &s.url,
        &tool(7, "test_set_fault", json!({"name": "no-acks"})),
    )
    .await;
    assert_eq!(st, 400);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("did you mean `no-ack`?"),
        "names the nearest: {r}"
    );
}

#[tokio::test]
async fn a_server_bound_beyond_loopback_neither_lists_nor_runs_them() {
    let s = server(Config {
        host: "0.0.0.0".parse().expect("ip"),
        ..Config::default()
    })
    .await;
    let tools = call(&s.url, &req("t", method::TOOLS_LIST, json!({})))
        .await
        .1;
    let listed = tools["result"]["tools"].to_string();
    assert!(
        listed.contains("test_trigger_tool_change"),
        "trigger tools stay"
    );
    assert!(!listed.contains("test_set_fault"), "{listed}");
    let (st, r) = call(
        &s.url,
        &tool(1, "test_set_fault", json!({"name": "no-ack"})),
    )
    .await;
    assert_eq!(st, 400);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("loopback"),
        "{r}"
    );
    assert!(s.control.faults().is_empty(), "nothing switched");
}

#[tokio::test]
async fn control_tools_work_on_stdio() {
    let mut c = StdioClient::start(Config::default());
    c.send(&protocol_listen("s1")).await;
    let ack = c.next_msg().await.expect("ack");
    assert_eq!(ack["method"], method::SUBSCRIPTIONS_ACKNOWLEDGED);
    c.send(&tool(1, "test_close_subscription", json!({"id": "s1"})))
        .await;
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(c.next_msg().await.expect("a line"));
    }
    assert!(
        seen.iter()
            .any(|m| m["id"] == 1 && text(m).contains("gracefully")),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|m| m["id"] == "s1" && m["result"].is_object()),
        "{seen:?}"
    );
    c.finish().await;
}

fn protocol_listen(id: &str) -> Value {
    mcp_tutor_mock::protocol::listen_request(
        &RequestId::from(id),
        &filter(json!({"toolsListChanged": true})),
    )
}
