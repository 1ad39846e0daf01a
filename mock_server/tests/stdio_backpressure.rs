//! `serve --stdio` against a client that misbehaves with its pipes (issue 21 §2, §4): one that
//! writes requests and never reads its replies leaves the server's memory bounded, because the
//! server stops reading while its output queue is full; a line over the limit is answered "too
//! large" with the id its start names. Memory is read from /proc, never inferred from time.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::*;
use mcp_tutor_mock::protocol::{error_code as code, method};
use mcp_tutor_mock::{Config, Limits};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn a_too_large_line_is_refused_with_the_id_its_start_names() {
    let mut c = StdioClient::start(Config {
        limits: Limits {
            max_line_bytes: 1024,
            ..Limits::default()
        },
        ..Config::default()
    });
    let big = tool("big-1", "echo", json!({"text": "x".repeat(5000)}));
    c.send(&big).await;
    let m = c.next_msg().await.expect("a reply");
    assert_eq!(m["id"], "big-1", "{m}");
    assert_eq!(m["error"]["code"], code::INVALID_REQUEST, "{m}");
    assert_eq!(m["error"]["data"]["maxLineBytes"], 1024, "{m}");
    let msg = m["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("line 1 is too large"), "{msg}");
    // An id written after the huge member is out of reach: the reply's id is null.
    let late_id = format!(
        "{{\"jsonrpc\":\"2.0\",\"params\":{{\"text\":\"{}\"}},\"id\":2,\"method\":\"tools/list\"}}",
        "y".repeat(5000)
    );
    c.send_line(&late_id).await;
    let m = c.next_msg().await.expect("a reply");
    assert!(m["id"].is_null(), "{m}");
    assert_eq!(m["error"]["code"], code::INVALID_REQUEST, "{m}");
    // And the server reads on.
    c.send(&req(3, method::TOOLS_LIST, json!({}))).await;
    assert_eq!(c.next_msg().await.expect("still serving")["id"], 3);
    assert!(c.finish().await.is_empty());
}

/// A field of /proc/PID/status, in kB.
#[cfg(target_os = "linux")]
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

/// Requests the client writes: ~2 MB of input whose replies (~4 KB each) would be ~40 MB.
const REQUESTS: usize = 10_000;

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_leaves_the_server_s_memory_bounded() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-tutor-mock"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let pid = child.id().expect("pid");
    let mut stdin = child.stdin.take().expect("stdin");
    // Held, never read until the end: the server's replies fill the pipe and then its queue.
    let stdout = child.stdout.take().expect("stdout");

    // One request, read, so the baseline is a server that has answered once.
    let mut lines = BufReader::new(stdout).lines();
    let list = |i: usize| format!("{}\n", req(i as i64, method::TOOLS_LIST, json!({})));
    stdin.write_all(list(0).as_bytes()).await.expect("write");
    lines.next_line().await.expect("read").expect("a reply");
    let baseline_kb = status_kb(pid, "VmRSS:");

    let written = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (written, done) = (written.clone(), done.clone());
        tokio::spawn(async move {
            for i in 1..=REQUESTS {
                if stdin.write_all(list(i).as_bytes()).await.is_err() {
                    return stdin;
                }
                written.store(i, Ordering::Release);
            }
            done.store(true, Ordering::Release);
            stdin
        })
    };
    until_stalled(&written, &done).await;
    let peak_kb = status_kb(pid, "VmHWM:");
    let rss_kb = status_kb(pid, "VmRSS:");
    let stalled_at = written.load(Ordering::Acquire);
    assert!(
        !done.load(Ordering::Acquire),
        "the server read all {REQUESTS} requests though none of its replies was read"
    );
    assert!(
        stalled_at < REQUESTS / 4,
        "the server kept reading: {stalled_at} requests in"
    );
    // The queue holds 1 MiB; a pipe's worth and the process's own growth come on top.
    let grown = peak_kb.saturating_sub(baseline_kb);
    assert!(
        grown < 8 * 1024,
        "resident memory grew {grown} kB (now {rss_kb} kB, peak {peak_kb} kB, from {baseline_kb} kB) with {stalled_at} requests unread"
    );

    // Reading again lets everything through: every request gets its reply, in order.
    let reader = tokio::spawn(reply_ids(lines));
    let stdin = tokio::time::timeout(PATIENCE * 6, writer)
        .await
        .expect("the writer finishes once replies are read")
        .expect("writer");
    drop(stdin);
    let ids = tokio::time::timeout(PATIENCE * 6, reader)
        .await
        .expect("every reply")
        .expect("reader");
    assert_eq!(ids, (1..=REQUESTS as u64).collect::<Vec<_>>());
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("exits at end of input")
        .expect("status");
    assert!(status.success(), "{status:?}");
}

/// Waits until the writer finishes or stops making progress (the server stopped reading).
/// The wait only bounds the test; what is asserted is the memory and where writing stalled.
async fn until_stalled(written: &AtomicUsize, done: &AtomicBool) {
    let mut last = usize::MAX;
    let mut still = 0;
    for _ in 0..600 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = written.load(Ordering::Acquire);
        if done.load(Ordering::Acquire) {
            return;
        }
        still = if now == last { still + 1 } else { 0 };
        last = now;
        if still >= 5 {
            return;
        }
    }
}

/// The ids of the replies, in the order read, up to one per request: each a tool list.
async fn reply_ids(
    mut lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
) -> Vec<u64> {
    let mut ids = Vec::new();
    while ids.len() < REQUESTS {
        let Some(line) = lines.next_line().await.expect("read") else {
            break;
        };
        let v: Value = serde_json::from_str(&line).expect("JSON");
        assert!(v["result"]["tools"].is_array(), "{line}");
        ids.push(v["id"].as_u64().expect("an id"));
    }
    ids
}
