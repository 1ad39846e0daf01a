//! The checking client's hot path: SSE frames parsed and judged per second, as a busy listen
//! stream would deliver them (keep-alives interleaved, odd chunk boundaries).
//!
//! Run with `cargo bench -p mcp-tutor-benches --bench check`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_tutor::client::sse::{SseItem, SseParser};
use mock_server::protocol::{self, Message, NotificationKind, RequestId, SubscriptionFilter};
use mock_server::validator::{Observation, Validator};
use serde_json::Value;

const FRAMES: usize = 1000;

fn stream(id: &RequestId) -> Vec<u8> {
    let filter = SubscriptionFilter::all(&["mock://notes/today"]);
    let mut body = format!("data: {}\n\n", protocol::ack(id, &filter));
    for i in 0..FRAMES {
        let msg = if i % 2 == 0 {
            protocol::list_changed(NotificationKind::ToolsListChanged, id)
        } else {
            protocol::resource_updated(id, "mock://notes/today")
        };
        body.push_str(&format!("data: {msg}\n\n"));
        if i % 10 == 0 {
            body.push_str(":\n\n");
        }
    }
    body.push_str(&format!("data: {}\n\n", protocol::listen_complete(id)));
    body.into_bytes()
}

fn bench(c: &mut Criterion) {
    let id = RequestId::from("bench-1");
    let body = stream(&id);
    let filter = SubscriptionFilter::all(&["mock://notes/today"]);
    let mut group = c.benchmark_group("check");
    group.throughput(Throughput::Elements(FRAMES as u64 + 2));
    group.bench_function("parse SSE frames (1 KiB chunks)", |b| {
        b.iter(|| {
            let mut p = SseParser::new();
            let mut n = 0;
            for chunk in body.chunks(1024) {
                n += p.push(chunk).len();
            }
            std::hint::black_box(n)
        })
    });
    group.bench_function("parse + validate frames", |b| {
        b.iter(|| {
            let mut p = SseParser::new();
            let mut v = Validator::new();
            v.observe(&Observation::ListenSent {
                id: id.clone(),
                filter: filter.clone(),
            });
            let mut bad = 0;
            for chunk in body.chunks(1024) {
                for item in p.push(chunk) {
                    let ev = match item {
                        SseItem::Event { data, .. } => Observation::Message {
                            stream: Some(id.clone()),
                            message: Message::classify(
                                &serde_json::from_str::<Value>(&data).unwrap(),
                            ),
                        },
                        SseItem::Comment { .. } | SseItem::Oversized { .. } => {
                            Observation::KeepAlive {
                                stream: Some(id.clone()),
                            }
                        }
                    };
                    bad += v.observe(&ev).iter().filter(|f| !f.ok).count();
                }
            }
            assert_eq!(bad, 0);
            std::hint::black_box(bad)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
