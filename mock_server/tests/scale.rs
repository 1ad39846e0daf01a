//! A thousand listen streams open at once over loopback: each gets its ack, one change, and its
//! completion result. Bounded by timeouts, never by asserting durations.

use crate::common::*;
use futures_util::future::join_all;
use mcp_tutor_mock::protocol::{self, NotificationKind, RequestId, method};
use serde_json::json;

const STREAMS: usize = 1000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_listen_streams() {
    let s = default_server().await;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let f = filter(json!({"toolsListChanged": true}));
    let opened = join_all((0..STREAMS).map(|i| {
        let (http, url, f) = (http.clone(), s.url.clone(), f.clone());
        async move {
            let id = RequestId::Int(i as i64);
            let body = protocol::listen_request(&id, &f);
            let mut rb = http.post(&url).body(body.to_string());
            for (n, v) in standard_headers(&body) {
                rb = rb.header(n, v);
            }
            let resp = tokio::time::timeout(PATIENCE * 6, rb.send())
                .await
                .expect("no hang")
                .expect("sent");
            let mut r = SseReader::new(resp);
            let ack = r.next_msg().await.expect("ack");
            assert_eq!(ack["method"], method::SUBSCRIPTIONS_ACKNOWLEDGED);
            (id, r)
        }
    }))
    .await;
    wait_subs(&s.control, STREAMS).await;
    s.control.trigger(NotificationKind::ToolsListChanged, None);
    let results = join_all(opened.into_iter().map(|(id, mut r)| async move {
        let n = r.next_msg().await.expect("the change");
        assert_eq!(
            n,
            protocol::list_changed(NotificationKind::ToolsListChanged, &id)
        );
        r
    }))
    .await;
    assert_eq!(s.control.close_all(), STREAMS);
    let ends = join_all(
        results
            .into_iter()
            .enumerate()
            .map(|(i, mut r)| async move {
                let (msgs, end) = r.rest().await;
                assert_eq!(
                    msgs,
                    vec![mcp_tutor_mock::close_result(&RequestId::Int(i as i64))]
                );
                end
            }),
    )
    .await;
    assert!(ends.iter().all(|e| *e == Sse::End));
    wait_subs(&s.control, 0).await;
    s.shutdown().await;
}
