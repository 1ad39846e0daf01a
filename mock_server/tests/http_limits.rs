//! HTTP bounds over real loopback TCP (issue 12 §3): a slow-loris head and an idle keep-alive
//! connection are closed by the server, a slow body gets 408, an oversized body 413 with a
//! JSON-RPC error, a connection beyond the cap 503 — and a live listen stream is never cut.
//! Timeouts are set short through `Config`; the tests wait for events, never measure time.

use std::time::Duration;

use crate::common::*;
use mcp_tutor_mock::protocol::{NotificationKind, error_code as code, method};
use mcp_tutor_mock::{Config, Limits};
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

fn limits(f: impl FnOnce(&mut Limits)) -> Config {
    let mut l = Limits::default();
    f(&mut l);
    Config {
        limits: l,
        ..Config::default()
    }
}

fn discover() -> serde_json::Value {
    req(1, method::SERVER_DISCOVER, json!({}))
}

#[tokio::test]
async fn a_slow_loris_head_is_cut_off() {
    let s = server(limits(|l| l.header_timeout = Duration::from_millis(300))).await;
    let mut c = TcpStream::connect(s.addr).await.expect("connect");
    c.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .expect("write");
    // One header byte every 50 ms: each write keeps the socket busy, none completes the head.
    let trickle = async {
        for _ in 0..1000 {
            if c.write_all(b"X").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(PATIENCE, trickle)
        .await
        .expect("the server stops the trickle");
    let tail = until_closed(&mut c).await;
    assert!(
        !String::from_utf8_lossy(&tail).contains("200 OK"),
        "no request was served"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_its_response() {
    let s = server(limits(|l| l.header_timeout = Duration::from_millis(300))).await;
    let mut c = TcpStream::connect(s.addr).await.expect("connect");
    let body = discover().to_string();
    let mut msg = raw_head("/mcp", Some("localhost"), &discover(), &[]);
    msg.extend_from_slice(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    c.write_all(&msg).await.expect("write");
    let r = read_reply(&mut c).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_ne!(r.header("connection"), Some("close"), "kept alive at first");
    let rest = until_closed(&mut c).await;
    assert!(rest.is_empty(), "closed without another reply");
    s.shutdown().await;
}

#[tokio::test]
async fn a_slow_body_gets_408_with_a_json_rpc_error_and_the_connection_closes() {
    let s = server(limits(|l| l.body_timeout = Duration::from_millis(300))).await;
    let mut c = TcpStream::connect(s.addr).await.expect("connect");
    let mut msg = raw_head("/mcp", Some("localhost"), &discover(), &[]);
    msg.extend_from_slice(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":");
    c.write_all(&msg).await.expect("write");
    let r = read_reply(&mut c).await;
    assert_eq!(r.status, 408, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], code::INVALID_REQUEST);
    assert!(r.json()["id"].is_null());
    until_closed(&mut c).await;
    s.shutdown().await;
}

#[tokio::test]
async fn an_oversized_body_is_413_with_a_json_rpc_error() {
    let s = server(limits(|l| l.max_body_bytes = 1024)).await;
    let mut big = req(1, method::TOOLS_CALL, json!({"name": "echo"}));
    big["params"]["arguments"] = json!({"text": "x".repeat(2000)});
    // Declared too large: refused before reading.
    let r = post(&s.url, &big).await;
    assert_eq!(r.status().as_u16(), 413);
    let b: serde_json::Value = r.json().await.expect("a JSON-RPC error body");
    assert_eq!(b["error"]["code"], code::INVALID_REQUEST, "{b}");
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("1024 bytes")
    );
    // Chunked, no length declared: refused once the limit is passed.
    let mut c = TcpStream::connect(s.addr).await.expect("connect");
    let mut msg = raw_head(
        "/mcp",
        Some("localhost"),
        &big,
        &["Transfer-Encoding: chunked"],
    );
    let text = big.to_string();
    msg.extend_from_slice(format!("\r\n{:x}\r\n{text}\r\n0\r\n\r\n", text.len()).as_bytes());
    c.write_all(&msg).await.expect("write");
    let r = read_reply(&mut c).await;
    assert_eq!(r.status, 413, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], code::INVALID_REQUEST);
    // Within the limit, the same tool works.
    let (status, _) = call(&s.url, &tool(2, "echo", json!({"text": "hi"}))).await;
    assert_eq!(status, 200);
    s.shutdown().await;
}

#[tokio::test]
async fn beyond_the_connection_cap_a_new_connection_gets_503() {
    let s = server(limits(|l| l.max_connections = 2)).await;
    // Two idle connections hold both slots.
    let mut held = Vec::new();
    for _ in 0..2 {
        held.push(TcpStream::connect(s.addr).await.expect("connect"));
    }
    // The accept loop counts them in order; give it the moment it needs by retrying until
    // the third is refused (a 200 would mean the slots were not yet taken).
    let body = discover().to_string();
    let head = raw_head("/mcp", Some("localhost"), &discover(), &[]);
    let r = tokio::time::timeout(PATIENCE, async {
        loop {
            let r = raw_request(s.addr, &head, body.as_bytes()).await;
            if r.status == 503 {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("a 503 once the cap is reached");
    let b = r.json();
    assert_eq!(b["error"]["code"], code::INTERNAL_ERROR, "{b}");
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("2 connections")
    );
    assert_eq!(r.header("retry-after"), Some("1"));
    // Freeing a slot lets the next connection in.
    held.clear();
    tokio::time::timeout(PATIENCE, async {
        while raw_request(s.addr, &head, body.as_bytes()).await.status != 200 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("served again once a slot is free");
    s.shutdown().await;
}

#[tokio::test]
async fn a_live_listen_outlives_many_header_timeouts_with_keep_alives_flowing() {
    let s = server(Config {
        keepalive: Duration::from_millis(20),
        ..limits(|l| l.header_timeout = Duration::from_millis(100))
    })
    .await;
    let mut r = listen(&s.url, "long", &filter(json!({"toolsListChanged": true}))).await;
    assert_eq!(
        r.next_msg().await.expect("ack")["method"],
        method::SUBSCRIPTIONS_ACKNOWLEDGED
    );
    // 50 keep-alives at 20 ms span ten header timeouts.
    for i in 0..50 {
        assert_eq!(r.next_raw().await, Sse::Comment, "keep-alive {i}");
    }
    s.control.trigger(NotificationKind::ToolsListChanged, None);
    assert_eq!(
        r.next_msg().await.expect("still open")["method"],
        method::TOOLS_LIST_CHANGED
    );
    s.shutdown().await;
}
