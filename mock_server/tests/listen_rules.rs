//! The listen rules (docs/rules.md) over real loopback HTTP: the acknowledgement, the filter, the tag, concurrent
//! subscriptions, client cancel, graceful close, keep-alives.

use std::time::Duration;

use crate::common::*;
use mcp_tutor_mock::protocol::{self, NotificationKind, RequestId, meta, method};
use mcp_tutor_mock::{Config, Transport};
use serde_json::json;

#[tokio::test]
async fn ack_comes_first_tagged_with_the_honoured_subset() {
    let s = default_server().await;
    let requested = filter(json!({
        "toolsListChanged": true, "promptsListChanged": false,
        "resourceSubscriptions": ["mock://notes/today", "mock://does-not-exist"],
        "taskIds": ["t1"]
    }));
    let mut r = listen(&s.url, "tutor-7", &requested).await;
    assert_eq!(r.headers["x-accel-buffering"], "no");
    assert!(r.headers.get("mcp-session-id").is_none());
    let ack = r.next_msg().await.expect("ack");
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": method::SUBSCRIPTIONS_ACKNOWLEDGED,
               "params": {"_meta": {meta::SUBSCRIPTION_ID: "tutor-7"},
                          "notifications": {"toolsListChanged": true,
                                            "resourceSubscriptions": ["mock://notes/today"]}}}),
        "false and unknown types/URIs are left out of the ack; it has no id"
    );
    let subs = s.control.subscriptions();
    assert_eq!(subs.len(), 1);
    assert_eq!(subs[0].id, RequestId::from("tutor-7"));
    assert_eq!(subs[0].transport, Transport::Http);
    assert_eq!(subs[0].requested, requested);
    s.shutdown().await;
}

#[tokio::test]
async fn only_requested_types_are_delivered_and_tags_keep_the_id_type() {
    let s = default_server().await;
    for id in [RequestId::Int(7), RequestId::from("7")] {
        let f = filter(
            json!({"promptsListChanged": true, "resourceSubscriptions": ["mock://notes/today"]}),
        );
        let mut r = listen(&s.url, id.clone(), &f).await;
        r.next_msg().await.expect("ack");
        // Not asked for: tools, resources list, another resource. Then one that was asked for:
        // since one stream is ordered, it must be the very next message.
        s.control.trigger(NotificationKind::ToolsListChanged, None);
        s.control
            .trigger(NotificationKind::ResourcesListChanged, None);
        s.control.trigger(
            NotificationKind::ResourceUpdated,
            Some("mock://notes/ideas"),
        );
        s.control
            .trigger(NotificationKind::PromptsListChanged, None);
        let n = r.next_msg().await.unwrap();
        assert_eq!(
            n,
            protocol::list_changed(NotificationKind::PromptsListChanged, &id)
        );
        assert_eq!(
            n["params"]["_meta"][meta::SUBSCRIPTION_ID],
            id.to_value(),
            "same JSON type"
        );
        s.control.trigger(
            NotificationKind::ResourceUpdated,
            Some("mock://notes/today"),
        );
        assert_eq!(
            r.next_msg().await.unwrap(),
            protocol::resource_updated(&id, "mock://notes/today")
        );
        assert!(s.control.close(&id));
        assert_eq!(
            r.next_msg().await.unwrap(),
            mcp_tutor_mock::close_result(&id)
        );
        assert_eq!(
            r.next_msg().await,
            None,
            "the stream closes after the result"
        );
        wait_subs(&s.control, 0).await;
    }
    s.shutdown().await;
}

#[tokio::test]
async fn subscribing_to_a_parent_uri_covers_sub_resources() {
    let s = default_server().await;
    let f = filter(json!({"resourceSubscriptions": ["mock://notes"]}));
    let mut r = listen(&s.url, 1, &f).await;
    r.next_msg().await.unwrap();
    s.control
        .trigger(NotificationKind::ResourceUpdated, Some("mock://status"));
    s.control.trigger(
        NotificationKind::ResourceUpdated,
        Some("mock://notes/ideas"),
    );
    let n = r.next_msg().await.unwrap();
    assert_eq!(
        n["params"]["uri"], "mock://notes/ideas",
        "a sub-resource of the subscribed URI"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn triggers_work_from_any_client_through_tools() {
    let s = default_server().await;
    let f = filter(json!({"toolsListChanged": true, "promptsListChanged": true,
                          "resourcesListChanged": true, "resourceSubscriptions": ["mock://notes/today"]}));
    let mut r = listen(&s.url, "l", &f).await;
    r.next_msg().await.unwrap();
    let id = RequestId::from("l");
    for (name, args, expect) in [
        (
            "test_trigger_tool_change",
            json!({}),
            protocol::list_changed(NotificationKind::ToolsListChanged, &id),
        ),
        (
            "test_trigger_prompt_change",
            json!({}),
            protocol::list_changed(NotificationKind::PromptsListChanged, &id),
        ),
        (
            "test_trigger_resource_list_change",
            json!({}),
            protocol::list_changed(NotificationKind::ResourcesListChanged, &id),
        ),
        (
            "test_trigger_resource_update",
            json!({}),
            protocol::resource_updated(&id, "mock://notes/today"),
        ),
        (
            "test_trigger_resource_update",
            json!({"uri": "mock://notes/today"}),
            protocol::resource_updated(&id, "mock://notes/today"),
        ),
    ] {
        let (st, b) = call(&s.url, &tool(9, name, args)).await;
        assert_eq!(st, 200, "{b}");
        assert_eq!(r.next_msg().await.unwrap(), expect, "{name}");
    }
    // The update changed the content that resources/read returns.
    let (_, b) = call(
        &s.url,
        &req(
            10,
            method::RESOURCES_READ,
            json!({"uri": "mock://notes/today"}),
        ),
    )
    .await;
    assert!(
        b["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("updated 2 time(s)")
    );
    let (st, b) = call(&s.url, &tool(11, "test_close_subscriptions", json!({}))).await;
    assert_eq!(st, 200, "{b}");
    assert_eq!(
        r.next_msg().await.unwrap(),
        mcp_tutor_mock::close_result(&id)
    );
    assert_eq!(r.next_msg().await, None);
    s.shutdown().await;
}

#[tokio::test]
async fn concurrent_subscriptions_each_carry_their_own_id() {
    let s = default_server().await;
    let tools = filter(json!({"toolsListChanged": true}));
    let both = filter(json!({"toolsListChanged": true, "promptsListChanged": true}));
    let mut a = listen(&s.url, "a", &tools).await;
    let mut b = listen(&s.url, 2, &both).await;
    a.next_msg().await.unwrap();
    b.next_msg().await.unwrap();
    s.control
        .trigger(NotificationKind::PromptsListChanged, None);
    s.control.trigger(NotificationKind::ToolsListChanged, None);
    assert_eq!(
        a.next_msg().await.unwrap(),
        protocol::list_changed(NotificationKind::ToolsListChanged, &"a".into())
    );
    assert_eq!(
        b.next_msg().await.unwrap(),
        protocol::list_changed(NotificationKind::PromptsListChanged, &2.into())
    );
    assert_eq!(
        b.next_msg().await.unwrap(),
        protocol::list_changed(NotificationKind::ToolsListChanged, &2.into())
    );
    // Closing one leaves the other open.
    assert!(s.control.close(&2.into()));
    assert_eq!(
        b.next_msg().await.unwrap(),
        mcp_tutor_mock::close_result(&2.into())
    );
    wait_subs(&s.control, 1).await;
    s.control.trigger(NotificationKind::ToolsListChanged, None);
    assert_eq!(
        a.next_msg().await.unwrap()["method"],
        method::TOOLS_LIST_CHANGED
    );
    assert!(!s.control.close(&"nope".into()));
    s.shutdown().await;
}

#[tokio::test]
async fn client_cancel_by_closing_the_stream_ends_the_subscription() {
    let s = default_server().await;
    let mut r = listen(&s.url, "c", &filter(json!({"toolsListChanged": true}))).await;
    r.next_msg().await.unwrap();
    wait_subs(&s.control, 1).await;
    drop(r); // closing the SSE response is the cancel on HTTP (§1.5)
    wait_subs(&s.control, 0).await;
    assert_eq!(
        s.control.close_all(),
        0,
        "nothing left to close: no result goes anywhere"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn drop_all_ends_streams_with_no_result() {
    let s = default_server().await;
    let mut r = listen(&s.url, 3, &filter(json!({"toolsListChanged": true}))).await;
    r.next_msg().await.unwrap();
    assert_eq!(s.control.drop_all(), 1);
    let (msgs, end) = r.rest().await;
    assert!(
        msgs.is_empty(),
        "no completion result on transport loss: {msgs:?}"
    );
    assert_eq!(end, Sse::Broken, "the body breaks off");
    wait_subs(&s.control, 0).await;
    s.shutdown().await;
}

#[tokio::test]
async fn keep_alive_comments_flow_on_idle_streams() {
    let s = server(Config {
        keepalive: Duration::from_millis(20),
        ..Default::default()
    })
    .await;
    let mut r = listen(&s.url, 4, &filter(json!({}))).await;
    assert!(
        matches!(r.next_raw().await, Sse::Msg(_)),
        "ack first (comments may precede it)"
    );
    assert_eq!(
        r.next_raw().await,
        Sse::Comment,
        "an idle stream carries only keep-alives"
    );
    s.control.close_all();
    let (msgs, end) = r.rest().await;
    assert_eq!(msgs, vec![mcp_tutor_mock::close_result(&4.into())]);
    assert_eq!(end, Sse::End);
    s.shutdown().await;
}

#[tokio::test]
async fn graceful_close_result_has_the_exact_shape() {
    let s = default_server().await;
    let mut r = listen(
        &s.url,
        "tutor-7",
        &filter(json!({"toolsListChanged": true})),
    )
    .await;
    r.next_msg().await.unwrap();
    s.control.close_all();
    let (msgs, end) = r.rest().await;
    assert_eq!(
        serde_json::to_string(&msgs[0]).unwrap(),
        r#"{"jsonrpc":"2.0","id":"tutor-7","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7","io.modelcontextprotocol/serverInfo":{"name":"mcp-tutor-mock","version":"0.1.0"}}}}"#
    );
    assert_eq!(msgs.len(), 1);
    assert_eq!(end, Sse::End);
    s.shutdown().await;
}

#[tokio::test]
async fn a_clean_transcript_breaks_no_rule() {
    let s = default_server().await;
    let requested =
        filter(json!({"toolsListChanged": true, "resourceSubscriptions": ["mock://notes/today"]}));
    let id = RequestId::from("clean");
    let mut r = listen(&s.url, id.clone(), &requested).await;
    wait_subs(&s.control, 1).await;
    let triggered = fire_all(&s.control);
    s.control.close_all();
    let (msgs, end) = r.rest().await;
    let v = violations(
        &id,
        &requested,
        &msgs,
        &triggered,
        Ending::ServerClosed,
        end == Sse::Broken,
    );
    assert!(v.is_empty(), "{v:?} in {msgs:#?}");
    assert_eq!(
        msgs.len(),
        4,
        "ack, tools, resource update, result: {msgs:#?}"
    );
    s.shutdown().await;
}
