//! Every fault breaks its rule observably — and only that rule (judged by the §4.11 checker in
//! `common`). The same scenario runs for each: listen for tools and two URIs (one unknown), fire
//! one change of every kind, then the server closes the subscription.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::common::*;
use mcp_tutor_mock::protocol::{NotificationKind, RequestId, method};
use mcp_tutor_mock::{Config, Fault};
use serde_json::{Value, json};

fn requested() -> mcp_tutor_mock::protocol::SubscriptionFilter {
    filter(json!({"toolsListChanged": true,
                  "resourceSubscriptions": ["mock://notes/today", "mock://nope"]}))
}

/// Runs the scenario over HTTP and returns the transcript and the rules it breaks.
async fn http_run(faults: &[Fault], id: RequestId) -> (Vec<Value>, BTreeSet<&'static str>) {
    let s = server(Config {
        faults: faults.to_vec(),
        ack_delay: Duration::from_secs(60),
        ..Default::default()
    })
    .await;
    let f = requested();
    let mut r = listen(&s.url, id.clone(), &f).await;
    wait_subs(&s.control, 1).await;
    if faults.contains(&Fault::LateAck) {
        // Observably late: nothing arrives while the ack is held back.
        assert_eq!(r.next_raw_within(Duration::from_millis(200)).await, None);
    }
    let triggered = fire_all(&s.control);
    assert_eq!(s.control.close_all(), 1);
    let (msgs, end) = r.rest().await;
    let v = violations(
        &id,
        &f,
        &msgs,
        &triggered,
        Ending::ServerClosed,
        end == Sse::Broken,
    );
    s.shutdown().await;
    (msgs, v)
}

fn set(names: &[&'static str]) -> BTreeSet<&'static str> {
    names.iter().copied().collect()
}

#[tokio::test]
async fn no_faults_break_nothing() {
    let (msgs, v) = http_run(&[], 7.into()).await;
    assert_eq!(v, set(&[]), "{msgs:#?}");
}

/// The rules the HTTP scenario sees `f` break. An exhaustive `match`: a new fault does not
/// compile until it says what it breaks here, so none is skipped.
fn breaks_over_http(f: Fault) -> &'static [&'static str] {
    match f {
        Fault::NoAck | Fault::NotifyBeforeAck => &["ack-first"],
        // Late is not wrong: no deadline exists (SUB §Acknowledgment).
        Fault::LateAck => &[],
        Fault::Untagged => &["tag-present"],
        Fault::WrongSubscriptionId | Fault::IdTypeChanged => &["tag-matches-id"],
        Fault::FilterIgnored => &["only-requested-types"],
        Fault::AckOverclaims => &["acked-types-delivered"],
        Fault::AbruptClose => &["graceful-close"],
        Fault::CloseWithoutTag => &["close-result-shape"],
        Fault::LogOnListen => &["no-progress-or-message"],
        // Over HTTP the cancel closes the stream, which then carries nothing: seen over stdio
        // (`stdio_cancel_is_final_and_notify_after_cancel_breaks_it`).
        Fault::NotifyAfterCancel => &[],
    }
}

#[tokio::test]
async fn each_http_fault_breaks_exactly_its_rule() {
    for &fault in Fault::all() {
        let (msgs, v) = http_run(&[fault], 7.into()).await;
        assert_eq!(v, set(breaks_over_http(fault)), "{fault}: {msgs:#?}");
    }
}

#[tokio::test]
async fn fault_details_match_their_documentation() {
    // wrong-subscription-id uses a server-minted id, the seed card's mistake.
    let (msgs, _) = http_run(&[Fault::WrongSubscriptionId], 7.into()).await;
    assert!(
        msgs.iter()
            .any(|m| m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "sub-8f21")
    );
    // id-type-changed flips a string id to a number too.
    let (msgs, v) = http_run(&[Fault::IdTypeChanged], "7".into()).await;
    assert_eq!(v, set(&["tag-matches-id"]));
    assert!(
        msgs.iter()
            .any(|m| m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7)
    );
    // ack-overclaims acknowledges tools honestly (an unknown URI still left out), then never
    // delivers them: the one thing it breaks.
    let (msgs, _) = http_run(&[Fault::AckOverclaims], 7.into()).await;
    assert_eq!(
        msgs[0]["params"]["notifications"]["resourceSubscriptions"],
        json!(["mock://notes/today"])
    );
    assert_eq!(msgs[0]["params"]["notifications"]["toolsListChanged"], true);
    assert!(
        !msgs
            .iter()
            .any(|m| m["method"] == method::TOOLS_LIST_CHANGED),
        "{msgs:#?}"
    );
    // late-ack still acks first and delivers what was triggered meanwhile.
    let (msgs, _) = http_run(&[Fault::LateAck], 7.into()).await;
    assert_eq!(msgs[0]["method"], method::SUBSCRIPTIONS_ACKNOWLEDGED);
    assert_eq!(msgs[1]["method"], method::TOOLS_LIST_CHANGED);
    // log-on-listen sends notifications/message on the stream.
    let (msgs, _) = http_run(&[Fault::LogOnListen], 7.into()).await;
    assert_eq!(msgs[1]["method"], method::MESSAGE);
}

#[tokio::test]
async fn faults_switch_at_run_time() {
    let s = default_server().await;
    assert!(s.control.faults().is_empty());
    s.control.set_fault(Fault::Untagged, true);
    s.control.set_fault(Fault::LogOnListen, true);
    assert_eq!(
        s.control.faults(),
        vec![Fault::Untagged, Fault::LogOnListen]
    );
    s.control.set_fault(Fault::LogOnListen, false);
    let mut r = listen(&s.url, 1, &filter(json!({"toolsListChanged": true}))).await;
    r.next_msg().await.unwrap();
    s.control.trigger(NotificationKind::ToolsListChanged, None);
    let n = r.next_msg().await.unwrap();
    assert!(
        n["params"].get("_meta").is_none(),
        "untagged while the fault is on: {n}"
    );
    s.control.set_fault(Fault::Untagged, false);
    s.control.trigger(NotificationKind::ToolsListChanged, None);
    let n = r.next_msg().await.unwrap();
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    s.shutdown().await;
}

/// stdio: one subscription, the client cancels, then changes keep coming only with the fault.
async fn stdio_cancel_run(faults: &[Fault]) -> (Vec<Value>, BTreeSet<&'static str>) {
    let mut c = StdioClient::start(Config {
        faults: faults.to_vec(),
        ..Default::default()
    });
    let id = RequestId::Int(7);
    let f = requested();
    c.send(&mcp_tutor_mock::protocol::listen_request(&id, &f))
        .await;
    let mut msgs = vec![c.next_msg().await.unwrap()];
    c.control.trigger(NotificationKind::ToolsListChanged, None);
    msgs.push(c.next_msg().await.unwrap());
    let cancelled_at = msgs.len();
    c.send(&mcp_tutor_mock::protocol::cancelled(&id, Some("done")))
        .await;
    // A request answered after the cancel proves the cancel was read first.
    c.send(&req(99, method::TOOLS_LIST, json!({}))).await;
    loop {
        let m = c.next_msg().await.unwrap();
        if m["id"] == 99 {
            break;
        }
        msgs.push(m);
    }
    if !faults.contains(&Fault::NotifyAfterCancel) {
        wait_subs(&c.control, 0).await;
    }
    c.control.trigger(NotificationKind::ToolsListChanged, None);
    let rest = c.finish().await;
    msgs.extend(rest.into_iter().filter(|m| {
        m["id"] == 7 || m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7
    }));
    let v = violations(
        &id,
        &f,
        &msgs,
        &[],
        Ending::ClientCancelled(cancelled_at),
        false,
    );
    (msgs, v)
}

#[tokio::test]
async fn stdio_cancel_is_final_and_notify_after_cancel_breaks_it() {
    let (msgs, v) = stdio_cancel_run(&[]).await;
    assert_eq!(v, set(&[]), "{msgs:#?}");
    assert_eq!(msgs.len(), 2, "ack and one change, then nothing: {msgs:#?}");
    let (msgs, v) = stdio_cancel_run(&[Fault::NotifyAfterCancel]).await;
    assert_eq!(v, set(&["nothing-after-cancel"]), "{msgs:#?}");
}
