//! The mock server under load on loopback: one change fanned out to 1,000 open listen streams,
//! and plain request round trips.
//!
//! Run with `cargo bench -p mcp-tutor-benches --bench mock_server`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures_util::StreamExt;
use mock_server::protocol::{self, NotificationKind, RequestId, SubscriptionFilter, header as h};
use mock_server::{Config, start_http};
use serde_json::{Value, json};
use tokio::sync::Notify;

const STREAMS: usize = 1000;

fn headers(body: &Value) -> reqwest::header::HeaderMap {
    let mut hm = reqwest::header::HeaderMap::new();
    let m = body["method"].as_str().unwrap_or_default();
    for (k, v) in [
        ("accept", h::ACCEPT_VALUE),
        ("content-type", "application/json"),
        ("mcp-protocol-version", protocol::PROTOCOL_VERSION),
        ("mcp-method", m),
    ] {
        hm.insert(k, v.parse().expect("static header"));
    }
    hm
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let server = rt.block_on(start_http(Config::default())).expect("server");
    let url = server.url.clone();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("client");
    let delivered = Arc::new(AtomicUsize::new(0));
    let wake = Arc::new(Notify::new());
    let filter: SubscriptionFilter =
        serde_json::from_value(json!({"toolsListChanged": true})).expect("filter");
    rt.block_on(async {
        for i in 0..STREAMS {
            let body = protocol::listen_request(&RequestId::Int(i as i64), &filter);
            let resp = http
                .post(&url)
                .headers(headers(&body))
                .body(body.to_string())
                .send()
                .await
                .expect("listen");
            let (delivered, wake) = (delivered.clone(), wake.clone());
            tokio::spawn(async move {
                let mut body = resp.bytes_stream();
                let mut carry = Vec::new();
                while let Some(Ok(chunk)) = body.next().await {
                    carry.extend_from_slice(&chunk);
                    while let Some(pos) = carry.iter().position(|b| *b == b'\n') {
                        let line: Vec<u8> = carry.drain(..=pos).collect();
                        if line.windows(18).any(|w| w == b"tools/list_changed") {
                            delivered.fetch_add(1, Ordering::Relaxed);
                            wake.notify_one();
                        }
                    }
                }
            });
        }
        while server.control.subscriptions().len() < STREAMS {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });

    let mut group = c.benchmark_group("mock_server");
    group.sample_size(20);
    group.throughput(Throughput::Elements(STREAMS as u64));
    group.bench_function("one change to 1000 listen streams", |b| {
        b.iter(|| {
            rt.block_on(async {
                let target = delivered.load(Ordering::Relaxed) + STREAMS;
                server
                    .control
                    .trigger(NotificationKind::ToolsListChanged, None);
                while delivered.load(Ordering::Relaxed) < target {
                    let _ = tokio::time::timeout(Duration::from_millis(5), wake.notified()).await;
                }
            })
        })
    });
    group.throughput(Throughput::Elements(1));
    let list = protocol::request(&RequestId::Int(1), protocol::method::TOOLS_LIST, json!({}));
    let list_headers = headers(&list);
    group.bench_function("tools/list round trip", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = http
                    .post(&url)
                    .headers(list_headers.clone())
                    .body(list.to_string())
                    .send()
                    .await
                    .expect("tools/list");
                std::hint::black_box(r.bytes().await.expect("body"));
            })
        })
    });
    group.finish();
    rt.block_on(server.shutdown());
}

criterion_group!(benches, bench);
criterion_main!(benches);
