//! The checking client's HTTP transport against the in-process mock server: raw capture,
//! SSE frames and keep-alives as they arrive, the graceful end, and cancel = closing the stream.

use std::time::Duration;

use mcp_tutor::client::{HeaderEdits, HttpClient, ListenStream, WireEvent};
use mock_server::protocol::{self, NotificationKind, RequestId, SubscriptionFilter, method};
use mock_server::validator::{CheckRule, Observation, Validator};
use mock_server::{Config, start_http};
use serde_json::json;

/// Only a hang waits this long (see `support::HANG`).
const WAIT: Duration = crate::support::HANG;

async fn next(s: &mut ListenStream) -> WireEvent {
    tokio::time::timeout(WAIT, s.next())
        .await
        .expect("an event before the hang bound")
        .expect("the stream is still open")
}

/// The next event that is not a keep-alive.
async fn next_frame(s: &mut ListenStream) -> WireEvent {
    loop {
        match next(s).await {
            WireEvent::KeepAlive { .. } => continue,
            other => return other,
        }
    }
}

fn method_of(ev: &WireEvent) -> Option<&str> {
    match ev {
        WireEvent::Frame { message, .. } => message.method(),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_shows_every_frame_raw_and_ends_with_its_result() {
    let server = start_http(Config {
        keepalive: Duration::from_millis(100),
        ..Config::default()
    })
    .await
    .unwrap();
    let client = HttpClient::new(&server.url).unwrap().with_timeout(WAIT);
    let id = RequestId::from("wire-1");
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        ..Default::default()
    };
    let mut s = client.listen(&id, &filter).await.unwrap();
    let mut v = Validator::new();
    v.observe(&Observation::ListenSent {
        id: id.clone(),
        filter: filter.clone(),
    });

    // The raw request, as the lab's `wire on` shows it.
    let req = s.request.render();
    assert!(req.starts_with("POST /mcp HTTP/1.1\n"), "{req}");
    assert_eq!(s.request.header("mcp-method"), Some("subscriptions/listen"));
    assert_eq!(s.request.header("MCP-Protocol-Version"), Some("2026-07-28"));
    assert_eq!(s.request.header("mcp-name"), None);
    assert!(s.request.body.contains(r#""id":"wire-1""#));
    assert_eq!(s.response.status, 200);
    assert!(s.response.is_sse());
    assert_eq!(s.response.header("x-accel-buffering"), Some("no"));

    let ack = next_frame(&mut s).await;
    assert_eq!(method_of(&ack), Some(method::SUBSCRIPTIONS_ACKNOWLEDGED));
    let WireEvent::Frame { raw, .. } = &ack else {
        unreachable!()
    };
    assert!(raw.starts_with("data: {"), "{raw}");
    let mut fs = v.observe(&ack.to_event(Some(&id)).unwrap());

    // Idle: keep-alive comment lines arrive, and the validator ignores them.
    let ka = loop {
        if let ev @ WireEvent::KeepAlive { .. } = next(&mut s).await {
            break ev;
        }
    };
    let WireEvent::KeepAlive { raw } = &ka else {
        unreachable!()
    };
    assert!(raw.starts_with(':'));
    assert!(v.observe(&ka.to_event(Some(&id)).unwrap()).is_empty());

    server
        .control
        .trigger(NotificationKind::ToolsListChanged, None);
    let change = next_frame(&mut s).await;
    assert_eq!(method_of(&change), Some(method::TOOLS_LIST_CHANGED));
    fs.extend(v.observe(&change.to_event(Some(&id)).unwrap()));

    assert!(server.control.close(&id));
    let result = next_frame(&mut s).await;
    let WireEvent::Frame { message, .. } = &result else {
        panic!("{result:?}")
    };
    assert_eq!(message.raw(), &mock_server::close_result(&id));
    fs.extend(v.observe(&result.to_event(Some(&id)).unwrap()));
    let end = next_frame(&mut s).await;
    assert_eq!(end, WireEvent::Ended { graceful: true });
    fs.extend(v.observe(&end.to_event(Some(&id)).unwrap()));
    assert!(
        tokio::time::timeout(WAIT, s.next())
            .await
            .unwrap()
            .is_none()
    );

    assert!(fs.iter().all(|f| f.ok), "{fs:?}");
    for rule in [
        CheckRule::AckFirst,
        CheckRule::TagMatchesId,
        CheckRule::CloseResultShape,
        CheckRule::GracefulClose,
    ] {
        assert!(fs.iter().any(|f| f.rule == rule), "{rule}");
    }
    server.shutdown().await;
}

async fn wait_until_no_subscriptions(control: &mock_server::Control) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !control.subscriptions().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server still holds the subscription long after the client closed the stream"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_and_drop_close_the_stream_which_is_the_http_cancel() {
    let server = start_http(Config::default()).await.unwrap();
    let client = HttpClient::new(&server.url).unwrap().with_timeout(WAIT);
    let filter = SubscriptionFilter {
        prompts_list_changed: Some(true),
        ..Default::default()
    };

    let mut s = client.listen(&RequestId::Int(41), &filter).await.unwrap();
    assert_eq!(
        method_of(&next_frame(&mut s).await),
        Some(method::SUBSCRIPTIONS_ACKNOWLEDGED)
    );
    assert_eq!(server.control.subscriptions().len(), 1);
    let unread = s.cancel();
    assert!(
        unread
            .iter()
            .all(|e| matches!(e, WireEvent::KeepAlive { .. }))
    );
    assert!(s.next().await.is_none(), "nothing is read after cancel");
    wait_until_no_subscriptions(&server.control).await;

    let mut s = client.listen(&RequestId::Int(42), &filter).await.unwrap();
    next_frame(&mut s).await;
    assert_eq!(server.control.subscriptions().len(), 1);
    drop(s);
    wait_until_no_subscriptions(&server.control).await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_edits_and_plain_exchanges() {
    let server = start_http(Config::default()).await.unwrap();
    let client = HttpClient::new(&server.url).unwrap().with_timeout(WAIT);
    let msg = protocol::request(&RequestId::Int(1), method::TOOLS_LIST, json!({}));

    let ok = client.send(&msg).await.unwrap();
    assert_eq!(ok.response.status, 200);
    assert!(ok.reply().unwrap().raw()["result"]["tools"].is_array());
    assert!(ok.response.render().starts_with("HTTP/1.1 200 OK\n"));

    let bad = client
        .send_with(&msg, &HeaderEdits::new().omit("Mcp-Method"))
        .await
        .unwrap();
    assert_eq!(bad.request.header("mcp-method"), None);
    assert_eq!(bad.response.status, 400);
    assert_eq!(bad.error_code(), Some(-32020));

    let get = client.send_raw("GET", None, vec![]).await.unwrap();
    assert_eq!(get.response.status, 405);
    assert!(get.request.render().starts_with("GET /mcp HTTP/1.1\n"));

    // Mcp-Name is derived from the body, with the base64 sentinel when needed.
    let call = protocol::tool_call(&RequestId::Int(2), "echo", json!({"text": "hi"}));
    let ex = client.send(&call).await.unwrap();
    assert_eq!(ex.request.header("Mcp-Name"), Some("echo"));
    assert_eq!(ex.response.status, 200, "{}", ex.body);
    server.shutdown().await;
}
