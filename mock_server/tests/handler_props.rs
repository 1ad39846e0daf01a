//! Property tests of both request handlers (the bounded CI counterpart of the `fuzz/` target):
//! mutated requests, headers and lines never panic and always get a reply that keeps the
//! server's contract (`mcp_tutor_mock::fuzzing`). Case counts are fixed so a run stays short;
//! `PROPTEST_CASES` raises them for a longer hunt.

use mcp_tutor_mock::fuzzing::{Harness, http_reply_problem, stdio_reply_problem};
use mcp_tutor_mock::protocol::{self, RequestId, SubscriptionFilter, header as h, method};
use proptest::prelude::*;
use serde_json::{Value, json};

fn seeds() -> Vec<Value> {
    let all = SubscriptionFilter::all(&["mock://notes"]);
    vec![
        protocol::request(&RequestId::Int(1), method::SERVER_DISCOVER, json!({})),
        protocol::request(&"t".into(), method::TOOLS_LIST, json!({})),
        protocol::tool_call(&RequestId::Int(2), "echo", json!({"text": "héllo"})),
        protocol::tool_call(&RequestId::Int(3), "read_note", json!({"name": "today"})),
        protocol::request(
            &RequestId::Int(4),
            method::RESOURCES_READ,
            json!({"uri": "mock://notes/today"}),
        ),
        protocol::listen_request(&RequestId::Int(5), &all),
        protocol::cancelled(&RequestId::Int(5), None),
    ]
}

/// An edit to a byte string: (kind, position, byte), applied in order.
fn edits() -> impl Strategy<Value = Vec<(u8, usize, u8)>> {
    prop::collection::vec((0u8..5, any::<usize>(), any::<u8>()), 0..6)
}

fn apply(mut bytes: Vec<u8>, edits: &[(u8, usize, u8)]) -> Vec<u8> {
    const TOKENS: &[&[u8]] = &[
        b"[true]",
        b"null",
        b"{}",
        b"18446744073709551616",
        b"\xff",
        b"\"",
        b"]",
        b",",
    ];
    for &(kind, pos, byte) in edits {
        let at = pos % (bytes.len() + 1);
        match kind {
            0 if !bytes.is_empty() => {
                let i = at.min(bytes.len() - 1);
                bytes[i] = byte;
            }
            1 => bytes.insert(at, byte),
            2 if !bytes.is_empty() => {
                bytes.remove(at.min(bytes.len() - 1));
            }
            3 => bytes.truncate(at),
            _ => {
                let t = TOKENS[usize::from(byte) % TOKENS.len()];
                bytes.splice(at..at, t.iter().copied());
            }
        }
    }
    bytes
}

/// Header lines a client might send, each possibly dropped, doubled or garbled.
fn headers_for(body: &Value, garble: &[(u8, u8)]) -> Vec<(String, Vec<u8>)> {
    let m = body["method"].as_str().unwrap_or("tools/list").to_owned();
    let mut hs: Vec<(String, Vec<u8>)> = vec![
        ("host".into(), b"localhost:8000".to_vec()),
        ("content-type".into(), b"application/json".to_vec()),
        ("accept".into(), h::ACCEPT_VALUE.as_bytes().to_vec()),
        (
            h::MCP_PROTOCOL_VERSION.into(),
            protocol::PROTOCOL_VERSION.as_bytes().to_vec(),
        ),
        (h::MCP_METHOD.into(), m.into_bytes()),
    ];
    if let Some(n) = body["params"]["name"]
        .as_str()
        .or(body["params"]["uri"].as_str())
    {
        hs.push((h::MCP_NAME.into(), n.as_bytes().to_vec()));
    }
    const VALUES: &[&[u8]] = &[
        b"http://localhost:x@evil.com",
        b"http://[::1]evil.com",
        b"evil.example",
        b"",
        b"\xe9",
        b"=?base64?!!?=",
        b"subscriptions/listen",
        b"2025-06-18",
    ];
    for &(what, which) in garble {
        let i = usize::from(which) % hs.len();
        match what % 4 {
            0 => {
                hs.remove(i);
            }
            1 => hs.push(hs[i].clone()),
            2 => hs[i].1 = VALUES[usize::from(which) % VALUES.len()].to_vec(),
            _ => hs.push((
                "origin".into(),
                VALUES[usize::from(which) % VALUES.len()].to_vec(),
            )),
        }
        if hs.is_empty() {
            break;
        }
    }
    hs
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_mutated_http_request_gets_a_contract_reply(
        seed in 0usize..7,
        body_edits in edits(),
        garble in prop::collection::vec((any::<u8>(), any::<u8>()), 0..4),
        target in prop::sample::select(vec!["/mcp", "http://localhost/mcp", "http://evil.example/mcp", "/other"]),
        post in prop::bool::weighted(0.9),
    ) {
        let body = seeds()[seed].clone();
        let headers = headers_for(&body, &garble);
        let bytes = apply(body.to_string().into_bytes(), &body_edits);
        let reply = runtime().block_on(async {
            let harness = Harness::new();
            harness.http(if post { "POST" } else { "GET" }, target, &headers, bytes).await
        });
        if let Some(r) = reply {
            let problem = if target == "/other" {
                (r.status != 404).then(|| format!("{} for an unknown path", r.status))
            } else {
                http_reply_problem(&r)
            };
            prop_assert!(problem.is_none(), "{problem:?} for {headers:?}");
        }
    }

    #[test]
    fn every_mutated_stdio_line_gets_well_formed_replies(
        seed in 0usize..7,
        line_edits in edits(),
    ) {
        let line = apply(seeds()[seed].to_string().into_bytes(), &line_edits);
        let line: Vec<u8> = line.into_iter().map(|b| if b == b'\n' { b' ' } else { b }).collect();
        let replies = runtime().block_on(Harness::new().stdio_line(&line));
        for r in &replies {
            let problem = stdio_reply_problem(r);
            prop_assert!(problem.is_none(), "{problem:?} for {:?}", String::from_utf8_lossy(&line));
        }
        // A line that is not a notification or a client response is always answered.
        let text = std::str::from_utf8(&line).ok();
        let silent = text.is_some_and(|t| {
            t.trim().is_empty()
                || matches!(
                    protocol::Message::parse(t),
                    protocol::Message::Notification { .. }
                        | protocol::Message::Result { .. }
                        | protocol::Message::Error { .. }
                )
        });
        let listen = text.is_some_and(|t| {
            protocol::Message::parse(t).method() == Some(method::SUBSCRIPTIONS_LISTEN)
        });
        if !silent && !listen {
            prop_assert!(!replies.is_empty(), "no reply to {:?}", String::from_utf8_lossy(&line));
        }
    }
}
