//! DNS-rebinding protection over real loopback HTTP: each bypass found by probing the server
//! (issue 12 §4) is refused, and the plain loopback request still works. The parser's table of
//! tricky values is a unit test in `src/http/guard.rs`.

use crate::common::*;
use mcp_tutor_mock::protocol::{error_code as code, method};
use serde_json::json;

fn discover() -> serde_json::Value {
    req(1, method::SERVER_DISCOVER, json!({}))
}

/// Sends `head` + the discover body; returns the reply after checking that a refusal carries a
/// JSON-RPC error with a null id.
async fn send(addr: std::net::SocketAddr, head: Vec<u8>) -> RawReply {
    let r = raw_request(addr, &head, discover().to_string().as_bytes()).await;
    if r.status != 200 {
        let b = r.json();
        assert_eq!(b["error"]["code"], code::INVALID_REQUEST, "{b}");
        assert!(b["id"].is_null(), "{b}");
    }
    r
}

#[tokio::test]
async fn a_plain_loopback_request_is_answered() {
    let s = default_server().await;
    let host = format!("127.0.0.1:{}", s.addr.port());
    let r = send(s.addr, raw_head("/mcp", Some(&host), &discover(), &[])).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let origin = format!("Origin: http://localhost:{}", s.addr.port());
    let r = send(
        s.addr,
        raw_head("/mcp", Some("localhost"), &discover(), &[&origin]),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    s.shutdown().await;
}

#[tokio::test]
async fn origins_that_only_look_like_loopback_are_403() {
    let s = default_server().await;
    for origin in [
        "http://localhost:x@evil.com",
        "http://[::1]evil.com",
        "http://localhost.evil.com",
        "http://127.0.0.1/",
        "null",
    ] {
        let line = format!("Origin: {origin}");
        let r = send(
            s.addr,
            raw_head("/mcp", Some("localhost"), &discover(), &[&line]),
        )
        .await;
        assert_eq!(r.status, 403, "Origin {origin}: {}", r.body);
    }
    // Two Origin lines: which one counts would be a guess.
    let r = send(
        s.addr,
        raw_head(
            "/mcp",
            Some("localhost"),
            &discover(),
            &["Origin: http://localhost", "Origin: http://evil.com"],
        ),
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.body);
    s.shutdown().await;
}

#[tokio::test]
async fn a_missing_repeated_or_malformed_host_is_400() {
    let s = default_server().await;
    let r = send(s.addr, raw_head("/mcp", None, &discover(), &[])).await;
    assert_eq!(r.status, 400, "no Host: {}", r.body);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("no Host")
    );
    let r = send(
        s.addr,
        raw_head(
            "/mcp",
            Some("localhost"),
            &discover(),
            &["Host: evil.example"],
        ),
    )
    .await;
    assert_eq!(r.status, 400, "two Hosts, loopback first: {}", r.body);
    let mut head = raw_head("/mcp", None, &discover(), &[]);
    let after_request_line = head.windows(2).position(|w| w == b"\r\n").unwrap_or(0) + 2;
    head.splice(
        after_request_line..after_request_line,
        b"Host: local\xe9host\r\n".iter().copied(),
    );
    let r = send(s.addr, head).await;
    assert_eq!(r.status, 400, "non-ASCII Host: {}", r.body);
    let r = send(
        s.addr,
        raw_head("/mcp", Some("localhost@evil.example"), &discover(), &[]),
    )
    .await;
    assert_eq!(r.status, 400, "userinfo in Host: {}", r.body);
    s.shutdown().await;
}

#[tokio::test]
async fn a_foreign_host_or_absolute_form_target_is_403() {
    let s = default_server().await;
    let r = send(
        s.addr,
        raw_head("/mcp", Some("evil.example"), &discover(), &[]),
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.body);
    let r = send(
        s.addr,
        raw_head(
            "http://evil.example/mcp",
            Some("localhost"),
            &discover(),
            &[],
        ),
    )
    .await;
    assert_eq!(r.status, 403, "absolute-form target: {}", r.body);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("evil.example")
    );
    // The same form naming loopback is fine.
    let target = format!("http://127.0.0.1:{}/mcp", s.addr.port());
    let r = send(
        s.addr,
        raw_head(&target, Some("localhost"), &discover(), &[]),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    s.shutdown().await;
}

#[tokio::test]
async fn a_server_bound_beyond_loopback_checks_host_syntax_but_not_names() {
    let s = server(mcp_tutor_mock::Config {
        host: "0.0.0.0"
            .parse()
            .unwrap_or(std::net::Ipv4Addr::UNSPECIFIED.into()),
        ..Default::default()
    })
    .await;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], s.addr.port()));
    let r = send(
        addr,
        raw_head("/mcp", Some("tutor.example:8080"), &discover(), &[]),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = send(addr, raw_head("/mcp", None, &discover(), &[])).await;
    assert_eq!(r.status, 400, "{}", r.body);
    s.shutdown().await;
}

#[tokio::test]
async fn an_allowed_origin_that_is_not_an_origin_stops_the_start() {
    let r = mcp_tutor_mock::start_http(mcp_tutor_mock::Config {
        allowed_origins: vec!["https://tutor.example/".into()],
        ..Default::default()
    })
    .await;
    let e = r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        e.contains("--allow-origin \"https://tutor.example/\""),
        "{e}"
    );
}
