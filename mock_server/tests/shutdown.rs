//! Graceful shutdown with open streams: every stream gets its result first, then the server stops.
//! Also the binaries: `mcp-tutor-mock` (HTTP + SIGINT, and `--stdio`) print and behave as documented.

use std::process::Stdio;

use crate::common::*;
use mcp_tutor_mock::protocol::{self, method};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn shutdown_ends_every_stream_with_its_result() {
    let s = default_server().await;
    let ids = [json!(1), json!("two"), json!(3)];
    let mut readers = Vec::new();
    for id in &ids {
        let id = protocol::RequestId::from_value(id).unwrap();
        let mut r = listen(&s.url, id, &filter(json!({"toolsListChanged": true}))).await;
        r.next_msg().await.unwrap();
        readers.push(r);
    }
    tokio::time::timeout(PATIENCE, s.shutdown())
        .await
        .expect("shutdown returns");
    for (r, id) in readers.iter_mut().zip(&ids) {
        let (msgs, end) = r.rest().await;
        let id = protocol::RequestId::from_value(id).unwrap();
        assert_eq!(msgs, vec![mcp_tutor_mock::close_result(&id)]);
        assert_eq!(end, Sse::End);
    }
}

#[cfg(unix)]
#[tokio::test]
async fn the_binary_prints_its_url_and_ends_streams_gracefully_on_sigint() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-tutor-mock"))
        .args(["--port", "0", "--fault", "late-ack", "--ack-delay", "0"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(PATIENCE, out.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let url = first
        .strip_prefix("listening on ")
        .expect("prints the URL when ready")
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let faults = tokio::time::timeout(PATIENCE, out.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(faults, "faults: late-ack");
    let mut r = listen(&url, "sig", &filter(json!({"toolsListChanged": true}))).await;
    assert_eq!(
        r.next_msg().await.unwrap()["method"],
        method::SUBSCRIPTIONS_ACKNOWLEDGED
    );
    let pid = child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let (msgs, end) = r.rest().await;
    assert_eq!(msgs, vec![mcp_tutor_mock::close_result(&"sig".into())]);
    assert_eq!(end, Sse::End);
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn the_binary_speaks_stdio() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-tutor-mock"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        crate::common::req(1, method::SERVER_DISCOVER, json!({})),
        protocol::listen_request(&"L".into(), &filter(json!({"promptsListChanged": true}))),
    ];
    for l in &lines {
        stdin.write_all(format!("{l}\n").as_bytes()).await.unwrap();
    }
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut got = Vec::new();
    while got.len() < 2 {
        let l = tokio::time::timeout(PATIENCE, out.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        got.push(serde_json::from_str::<serde_json::Value>(&l).unwrap());
    }
    assert!(
        got.iter()
            .any(|m| m["id"] == 1 && m["result"]["supportedVersions"].is_array())
    );
    assert!(
        got.iter()
            .any(|m| m["method"] == method::SUBSCRIPTIONS_ACKNOWLEDGED)
    );
    drop(stdin); // EOF: the server ends L gracefully and exits
    let mut rest = Vec::new();
    while let Some(l) = tokio::time::timeout(PATIENCE, out.next_line())
        .await
        .unwrap()
        .unwrap()
    {
        rest.push(serde_json::from_str::<serde_json::Value>(&l).unwrap());
    }
    assert_eq!(rest[0], mcp_tutor_mock::close_result(&"L".into()));
    assert_eq!(rest[1]["method"], method::CANCELLED);
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success());
}
