//! `serve --stdio` never dies of one bad line (issue 12 §2): invalid UTF-8 and non-JSON are
//! answered `-32700` with a null id and the loop goes on; an over-long line is answered "too
//! large" (`-32600`, with its id when its start names one) and the rest of it discarded with
//! memory bounded; 2,000 mutated lines never end the
//! server and each gets the reply it is owed; exit 0 only at end of input.

use std::process::Stdio;

use crate::common::*;
use mcp_tutor_mock::protocol::{self, Message, RequestId, error_code as code, meta, method};
use mcp_tutor_mock::{Config, Limits};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

fn small_lines(max: usize) -> Config {
    Config {
        limits: Limits {
            max_line_bytes: max,
            ..Limits::default()
        },
        ..Config::default()
    }
}

/// A too-large line is refused as a request, not as malformed JSON.
fn assert_too_large(m: &Value, words: &str, id: Value) {
    assert_eq!(m["error"]["code"], code::INVALID_REQUEST, "{m}");
    assert_eq!(m["id"], id, "{m}");
    let msg = m["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains(words), "{msg:?} should say {words:?}");
    assert!(m["error"]["data"]["maxLineBytes"].is_u64(), "{m}");
}

fn assert_parse_error(m: &Value, words: &str) {
    assert_eq!(m["error"]["code"], code::PARSE_ERROR, "{m}");
    assert!(m["id"].is_null(), "{m}");
    let msg = m["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains(words), "{msg:?} should say {words:?}");
}

#[tokio::test]
async fn an_invalid_utf8_line_is_answered_and_the_loop_goes_on() {
    let mut c = StdioClient::start(Config::default());
    c.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\xff\xfelist\"}\n")
        .await;
    assert_parse_error(&c.next_msg().await.expect("a reply"), "line 1 is not UTF-8");
    c.send_raw(b"\xc3\x28\n").await;
    assert_parse_error(&c.next_msg().await.expect("a reply"), "line 2 is not UTF-8");
    c.send(&req(3, method::TOOLS_LIST, json!({}))).await;
    let m = c.next_msg().await.expect("still serving");
    assert!(m["result"]["tools"].is_array(), "{m}");
    assert!(c.finish().await.is_empty());
}

#[tokio::test]
async fn a_line_beyond_the_limit_is_too_long_and_its_rest_is_discarded() {
    let mut c = StdioClient::start(small_lines(1024));
    // Exactly at the limit is fine (a string of padding keeps it valid JSON).
    let mut at_limit = req(1, method::TOOLS_LIST, json!({})).to_string();
    let pad = 1024 - at_limit.len() - ",\"pad\":\"\"".len();
    at_limit.insert_str(
        at_limit.len() - 1,
        &format!(",\"pad\":\"{}\"", "x".repeat(pad)),
    );
    assert_eq!(at_limit.len(), 1024);
    c.send_line(&at_limit).await;
    assert!(c.next_msg().await.expect("reply")["result"].is_object());
    // 100 KB on one line: one "too large" reply, and nothing from its tail (which holds what
    // would otherwise look like a request).
    let tail = req(99, method::TOOLS_LIST, json!({})).to_string();
    let long = format!("{}{tail}", " ".repeat(100_000));
    c.send_line(&long).await;
    assert_too_large(
        &c.next_msg().await.expect("reply"),
        "line 2 is too large",
        Value::Null,
    );
    c.send(&req(3, method::TOOLS_LIST, json!({}))).await;
    let m = c.next_msg().await.expect("still serving");
    assert_eq!(
        m["id"], 3,
        "the tail of line 2 was not read as a request: {m}"
    );
    assert!(c.finish().await.is_empty());
}

#[tokio::test]
async fn the_default_limit_is_8_mib() {
    let mut c = StdioClient::start(Config::default());
    assert_eq!(Limits::default().max_line_bytes, 8 << 20);
    let line = vec![b' '; (8 << 20) + 1];
    c.send_raw(&line).await;
    c.send_raw(b"\n").await;
    assert_too_large(
        &c.next_msg().await.expect("reply"),
        "more than 8388608 bytes",
        Value::Null,
    );
    assert!(c.finish().await.is_empty());
}

/// A tiny deterministic generator, so a failing run can be replayed from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let f = filter(json!({"toolsListChanged": true, "resourceSubscriptions": ["mock://notes"]}));
    [
        req(1, method::SERVER_DISCOVER, json!({})),
        req("t", method::TOOLS_LIST, json!({})),
        tool(2, "echo", json!({"text": "héllo"})),
        tool(3, "test_trigger_tool_change", json!({})),
        req(
            4,
            method::RESOURCES_READ,
            json!({"uri": "mock://notes/today"}),
        ),
        req(
            5,
            method::PROMPTS_GET,
            json!({"name": "explain_rule", "arguments": {}}),
        ),
        protocol::listen_request(&RequestId::Int(6), &f),
        protocol::cancelled(&RequestId::Int(6), Some("done")),
        json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
    ]
    .iter()
    .map(|v| v.to_string().into_bytes())
    .collect()
}

fn mutate(rng: &mut Rng, line: &mut Vec<u8>) {
    const TOKENS: &[&[u8]] = &[
        b"[",
        b"]",
        b"{",
        b"}",
        b"\"",
        b",",
        b":",
        b"null",
        b"true",
        b"[true]",
        b"18446744073709551616",
        b"-0.5e400",
        b"\\u0000",
        b"\\ud800",
        b"\xff",
        b"\xc3",
        b"\xe2\x82",
        b"\r",
        b"\t",
        b" ",
    ];
    for _ in 0..=rng.below(4) {
        let at = rng.below(line.len() + 1);
        match rng.below(7) {
            0 if !line.is_empty() => {
                let i = at.min(line.len() - 1);
                line[i] ^= 1 << rng.below(8);
            }
            1 if !line.is_empty() => {
                let i = at.min(line.len() - 1);
                line[i] = rng.next() as u8;
            }
            2 => line.insert(at, rng.next() as u8),
            3 if !line.is_empty() => {
                line.remove(at.min(line.len() - 1));
            }
            4 => line.truncate(at),
            5 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                line.splice(at..at, t.iter().copied());
            }
            _ => {
                let end = (at + rng.below(64)).min(line.len());
                let copy = line[at..end].to_vec();
                line.splice(at..at, copy);
            }
        }
    }
    line.truncate(4096);
    // A newline would split the mutant into two lines; keep one mutant per line.
    for b in line.iter_mut() {
        if *b == b'\n' {
            *b = b' ';
        }
    }
}

/// What the server owes a line: `None` = no reply (blank, notification, client response);
/// `Some(ids)` = a response whose id is one of `ids` (null for unreadable), or an ack tagged
/// with it when the line is a listen.
fn owed(line: &[u8]) -> Option<Vec<Value>> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(vec![Value::Null]);
    };
    if text.trim().is_empty() {
        return None;
    }
    match Message::parse(text) {
        Message::Request { id, .. } => Some(vec![id.to_value()]),
        Message::Notification { .. } | Message::Result { .. } | Message::Error { .. } => None,
        Message::Invalid { raw, .. } => {
            let readable = raw.get("id").and_then(RequestId::from_value);
            Some(vec![readable.map_or(Value::Null, |id| id.to_value())])
        }
    }
}

fn pays(m: &Value, ids: &[Value]) -> bool {
    let is_response = m.get("result").is_some() || m.get("error").is_some();
    let is_ack = m["method"] == method::SUBSCRIPTIONS_ACKNOWLEDGED;
    (is_response && ids.contains(&m["id"]))
        || (is_ack && ids.contains(&m["params"]["_meta"][meta::SUBSCRIPTION_ID]))
}

#[tokio::test]
async fn two_thousand_mutated_lines_never_end_the_server_and_each_gets_its_reply() {
    const LINES: usize = 2000;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let seeds = seeds();
    let mut c = StdioClient::start(Config::default());
    let (mut not_utf8, mut replied) = (0, 0);
    for n in 0..LINES {
        let mut line = seeds[rng.below(seeds.len())].clone();
        mutate(&mut rng, &mut line);
        not_utf8 += usize::from(std::str::from_utf8(&line).is_err());
        c.send_raw(&line).await;
        c.send_raw(b"\n").await;
        // A probe after each mutant: everything before its answer belongs to the mutant.
        let probe = format!("probe-{n}");
        c.send(&req(probe.as_str(), method::TOOLS_LIST, json!({})))
            .await;
        let mut before = Vec::new();
        loop {
            let m = c.next_msg().await.unwrap_or_else(|| {
                panic!(
                    "the server ended at mutant {n}: {:?}",
                    String::from_utf8_lossy(&line)
                )
            });
            assert!(
                !matches!(Message::classify(&m), Message::Invalid { .. }),
                "a malformed reply to {:?}: {m}",
                String::from_utf8_lossy(&line)
            );
            if m["id"] == probe.as_str() {
                assert!(m["result"]["tools"].is_array(), "{m}");
                break;
            }
            before.push(m);
        }
        if let Some(ids) = owed(&line) {
            // A listen's ack comes from its own stream task and may trail the probe's answer.
            while !before.iter().any(|m| pays(m, &ids)) {
                let Some(m) = c.next_msg().await else { break };
                assert!(
                    !matches!(Message::classify(&m), Message::Invalid { .. }),
                    "{m}"
                );
                before.push(m);
            }
            assert!(
                before.iter().any(|m| pays(m, &ids)),
                "mutant {n} {:?} is owed a reply for id {ids:?}, got {before:?}",
                String::from_utf8_lossy(&line)
            );
            replied += 1;
        }
    }
    assert!(
        not_utf8 > 100,
        "the mutants exercise invalid UTF-8 ({not_utf8})"
    );
    assert!(
        replied > LINES / 2,
        "most mutants are owed a reply ({replied})"
    );
    c.finish().await;
}

fn binary() -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-tutor-mock"));
    cmd.arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

#[tokio::test]
async fn the_binary_survives_bad_bytes_and_exits_0_only_at_end_of_input() {
    let mut child = binary().spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"\xff\xfe\x00garbage\n")
        .await
        .expect("write");
    stdin
        .write_all(format!("{}\n", req(1, method::TOOLS_LIST, json!({}))).as_bytes())
        .await
        .expect("write");
    drop(stdin);
    let out = tokio::time::timeout(PATIENCE, child.wait_with_output())
        .await
        .expect("exits at EOF")
        .expect("output");
    assert!(out.status.success(), "{:?}", out.status);
    let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert_parse_error(&replies[0], "not UTF-8");
    assert_eq!(replies[1]["id"], 1);
}

#[tokio::test]
async fn the_binary_exits_non_zero_with_a_message_when_stdout_is_gone() {
    let mut child = binary().spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    drop(child.stdout.take()); // nobody reads the replies any more
    let line = format!("{}\n", req(1, method::TOOLS_LIST, json!({})));
    // Keep talking until the server notices; it must stop rather than serve into the void.
    for _ in 0..1000 {
        if stdin.write_all(line.as_bytes()).await.is_err() {
            break;
        }
        if tokio::time::timeout(std::time::Duration::from_millis(5), child.wait())
            .await
            .is_ok()
        {
            break;
        }
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = tokio::time::timeout(PATIENCE, e.read_to_string(&mut err)).await;
    }
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("exits")
        .expect("status");
    assert!(!status.success(), "{status:?}");
    assert!(err.contains("writing stdout failed"), "{err}");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_64_mib_line_keeps_the_binary_s_memory_bounded() {
    let mut child = binary().spawn().expect("spawn");
    let pid = child.id().expect("pid");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..64 {
        stdin.write_all(&chunk).await.expect("write");
    }
    let first = tokio::time::timeout(PATIENCE, out.next_line())
        .await
        .expect("a reply")
        .expect("read")
        .expect("a line");
    let first: Value = serde_json::from_str(&first).expect("JSON");
    assert_too_large(&first, "too large", Value::Null);
    // Peak resident memory, read while the tail is still being discarded.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    assert!(peak_kb < 48 * 1024, "peak {peak_kb} kB for a 64 MiB line");
    stdin.write_all(b"\n").await.expect("write");
    drop(stdin);
    assert!(
        tokio::time::timeout(PATIENCE, out.next_line())
            .await
            .expect("EOF")
            .expect("read")
            .is_none()
    );
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("exits")
        .expect("status");
    assert!(status.success());
}

#[cfg(unix)]
#[tokio::test]
async fn an_interrupted_stdio_server_ends_streams_gracefully_and_exits_non_zero() {
    let mut child = binary().spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let f = filter(json!({"toolsListChanged": true}));
    stdin
        .write_all(format!("{}\n", protocol::listen_request(&"L".into(), &f)).as_bytes())
        .await
        .expect("write");
    let ack = tokio::time::timeout(PATIENCE, out.next_line())
        .await
        .expect("an ack")
        .expect("read")
        .expect("a line");
    assert!(ack.contains(method::SUBSCRIPTIONS_ACKNOWLEDGED), "{ack}");
    let pid = child.id().expect("pid").to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(killed.success());
    let done = tokio::time::timeout(PATIENCE, out.next_line())
        .await
        .expect("the close result")
        .expect("read")
        .expect("a line");
    let done: Value = serde_json::from_str(&done).expect("JSON");
    assert_eq!(done, mcp_tutor_mock::close_result(&"L".into()));
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = tokio::time::timeout(PATIENCE, e.read_to_string(&mut err)).await;
    }
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("exits")
        .expect("status");
    assert!(!status.success(), "only end of input is exit 0: {status:?}");
    assert!(err.contains("interrupted before the end of input"), "{err}");
}
