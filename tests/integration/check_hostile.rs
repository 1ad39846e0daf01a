//! `mcp-tutor check` against servers that are not what it expects: one that floods (an SSE
//! reply that never ends, a listen stream sending as fast as it can, a stdio server writing
//! lines forever), a URL that is not an MCP endpoint (404, a web page, an older revision), a
//! stdio command that cannot start. Each server is a few lines of raw HTTP on loopback, so the
//! test controls every byte.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use mock_server::validator::CheckRule;
use serde_json::{Value, json};

use crate::support::{Isolated, assert_exact, background, isolated};

/// What the fake server does with one request.
enum Reply {
    /// `status`, `Content-Type: application/json`, `body`.
    Json(u16, String),
    /// Any status, content type and body.
    Raw(u16, &'static str, String),
    /// An SSE body that never ends: `frame` (one `data:` line's JSON) again and again.
    SseForever(String),
    /// An SSE body with one `frame` after a pause, then only keep-alives until the client
    /// closes it.
    SseAfter(Duration, String),
}

/// A loopback HTTP/1.1 server answering each POST with `handler(body)`; alive for the test.
fn serve(handler: fn(&Value) -> Reply) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    background(move || {
        for conn in listener.incoming().flatten() {
            background(move || connection(conn, handler));
        }
    });
    url
}

fn connection(conn: TcpStream, handler: fn(&Value) -> Reply) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut out = conn;
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let l = line.trim_end().to_ascii_lowercase();
            if l.is_empty() {
                break;
            }
            if let Some(v) = l.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        match handler(&msg) {
            Reply::Json(status, body) => {
                let head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                if out.write_all(format!("{head}{body}").as_bytes()).is_err() {
                    return;
                }
            }
            Reply::Raw(status, content_type, body) => {
                let head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                if out.write_all(format!("{head}{body}").as_bytes()).is_err() {
                    return;
                }
            }
            Reply::SseForever(frame) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
                if out.write_all(head.as_bytes()).is_err() {
                    return;
                }
                let frame = format!("data: {frame}\n\n").repeat(64);
                while out.write_all(frame.as_bytes()).is_ok() {}
                return;
            }
            Reply::SseAfter(pause, frame) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
                if out.write_all(head.as_bytes()).is_err() {
                    return;
                }
                std::thread::sleep(pause);
                let mut next = format!("data: {frame}\n\n");
                while out.write_all(next.as_bytes()).is_ok() {
                    next = ":\n\n".to_owned();
                    std::thread::sleep(Duration::from_millis(200));
                }
                return;
            }
        }
    }
}

fn result(msg: &Value, result: Value) -> Reply {
    Reply::Json(
        200,
        json!({"jsonrpc": "2.0", "id": msg["id"], "result": result}).to_string(),
    )
}

/// A good `server/discover` result, so `check` gets past its first question.
fn discover(msg: &Value) -> Reply {
    result(
        msg,
        json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake", "version": "1"}}
        }),
    )
}

fn tools_changed(tag: &Value) -> String {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": tag}}
    })
    .to_string()
}

fn mcp_tutor() -> Isolated {
    let mut c = isolated();
    // A hang or a runaway would hit this; a flood must end well before.
    c.timeout(crate::support::HANG);
    c
}

/// What the test itself finds on PATH (`yes`, `sh`), for a stdio server run by `check`.
fn path() -> std::ffi::OsString {
    std::env::var_os("PATH").unwrap_or_default()
}

fn assert_flood_reported(out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a flood is a failure: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("FAIL  server is flooding: "))
        .unwrap_or_else(|| panic!("no flood finding in {stdout}"));
    // "… N frames in T s, dropped M": the numbers are there, whatever they are.
    let frames: usize = line
        .trim_start_matches("FAIL  server is flooding: ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no frame count in {line}"));
    assert!(frames > client_flood_rate(), "{line}");
    assert!(line.contains(" s, dropped "), "{line}");
}

fn client_flood_rate() -> usize {
    mcp_tutor::client::FLOOD_FRAMES_PER_SEC
}

#[test]
fn an_sse_reply_that_never_ends_is_a_flood_not_a_hang_or_a_crash() {
    let url = serve(|msg| {
        Reply::SseForever(
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": msg["method"]}})
                .to_string(),
        )
    });
    let out = mcp_tutor()
        .args(["check", "--timeout", "20", &url])
        .output()
        .unwrap();
    assert_flood_reported(&out);
}

#[test]
fn a_listen_stream_that_floods_is_reported_and_check_exits() {
    let url = serve(|msg| match msg["method"].as_str() {
        Some("server/discover") => discover(msg),
        Some("subscriptions/listen") => Reply::SseForever(tools_changed(&msg["id"])),
        Some("tools/list") => result(msg, json!({"resultType": "complete", "tools": []})),
        _ => Reply::Json(
            404,
            json!({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
                .to_string(),
        ),
    });
    let out = mcp_tutor()
        .args(["check", "--timeout", "20", &url])
        .output()
        .unwrap();
    assert_flood_reported(&out);
}

#[test]
fn a_stdio_server_writing_forever_is_reported_and_check_exits() {
    let line = tools_changed(&json!("x"));
    let out = mcp_tutor()
        .env("PATH", path())
        .args(["check", "--timeout", "20", "--stdio", "--", "yes", &line])
        .output()
        .unwrap();
    assert_flood_reported(&out);
}

#[test]
fn the_flood_is_in_the_json_report_too() {
    let url = serve(|_| Reply::SseForever(tools_changed(&json!(1))));
    let out = mcp_tutor()
        .args(["check", "--json", "--timeout", "20", &url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["failed"], "flooding");
    assert!(v["flood"]["frames"].as_u64().unwrap() > 1000, "{v}");
}

/// Runs `check` with `args`; asserts it gave up with exit 2 and returns its stderr.
fn cannot_check(args: &[&str]) -> String {
    let out = mcp_tutor().arg("check").args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{stderr}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "no rule is judged: {stderr}");
    stderr
}

#[test]
fn a_wrong_path_is_named_as_a_404_not_twelve_failures() {
    let url = serve(|_| Reply::Raw(404, "text/plain", "Not Found".into()));
    let err = cannot_check(&["--timeout", crate::support::CHECK_WAIT, &url]);
    assert_exact(
        err.as_bytes(),
        &format!("error: HTTP 404 Not Found from {url}: nothing is served at this path\n"),
    );
    // The path is /mcp already, so it is not questioned; another path is.
    let other = url.replace("/mcp", "/api");
    let err = cannot_check(&["--timeout", crate::support::CHECK_WAIT, &other]);
    assert_exact(
        err.as_bytes(),
        &format!(
            "error: HTTP 404 Not Found from {other}: nothing is served at this path (MCP servers usually serve /mcp: is the path right?)\n"
        ),
    );
}

#[test]
fn a_web_page_is_named_as_one() {
    let url = serve(|_| {
        Reply::Raw(
            200,
            "text/html; charset=utf-8",
            "<!doctype html><title>Welcome</title>".into(),
        )
    });
    let err = cannot_check(&["--timeout", crate::support::CHECK_WAIT, &url]);
    assert_exact(
        err.as_bytes(),
        &format!(
            "error: HTTP 200 OK from {url} is a web page (text/html; charset=utf-8), not an MCP endpoint\n"
        ),
    );
}

/// Python's `http.server` on the right path: POST is answered 501 with an HTML page. What was
/// wrong is the method, not the path.
#[test]
fn a_plain_web_server_refusing_post_is_named_for_what_it_is() {
    let url = serve(|_| {
        Reply::Raw(
            501,
            "text/html;charset=utf-8",
            "<!DOCTYPE HTML><html><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('POST').</p></body></html>".into(),
        )
    });
    let err = cannot_check(&["--timeout", crate::support::CHECK_WAIT, &url]);
    assert_exact(
        err.as_bytes(),
        &format!(
            "error: HTTP 501 Not Implemented from {url}: this server does not take POST requests, so it is no MCP endpoint (MCP over HTTP is JSON-RPC in POST requests); it may be a plain web server\n"
        ),
    );
}

#[test]
fn an_initialize_era_server_is_named_with_its_revision() {
    // What a 2025-11-25 server says to a request before `initialize`, then to `initialize`.
    let url = serve(|msg| {
        match msg["method"].as_str() {
        Some("initialize") => result(
            msg,
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}),
        ),
        _ => Reply::Json(
            400,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: Server not initialized"}})
                .to_string(),
        ),
    }
    });
    let err = cannot_check(&["--timeout", crate::support::CHECK_WAIT, &url]);
    assert!(err.contains("this server speaks 2025-11-25"), "{err}");
}

#[test]
fn a_server_that_refuses_our_revision_is_named_with_its_own() {
    let url = serve(|msg| {
        Reply::Json(
            400,
            json!({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32022, "message": "unsupported",
                   "data": {"supported": ["2025-11-25"], "requested": "2026-07-28"}}})
            .to_string(),
        )
    });
    let err = cannot_check(&["--timeout", crate::support::CHECK_WAIT, &url]);
    assert!(
        err.contains("this server speaks 2025-11-25, not 2026-07-28"),
        "{err}"
    );
}

#[test]
fn a_stdio_command_that_cannot_start_says_so_in_words() {
    let err = cannot_check(&["--stdio", "--", "mcp-tutor-no-such-program", "serve"]);
    assert!(
        err.contains("could not start the server `mcp-tutor-no-such-program serve`: "),
        "{err}"
    );
    assert!(
        err.contains("is the program installed and on PATH?"),
        "{err}"
    );
    assert!(!err.contains("Command {"), "no Debug dump: {err}");
}

#[test]
fn the_readme_stdio_example_works_before_cargo_install() {
    // `mcp-tutor` as the command is this very binary, even when none is on PATH.
    let out = mcp_tutor()
        .env("PATH", "/nonexistent")
        .args([
            "check",
            "--stdio",
            "--timeout",
            crate::support::CHECK_WAIT,
            "--",
            "mcp-tutor",
            "serve",
            "--stdio",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Everything but the header layer, which stdio does not have.
    let http_only = CheckRule::all().iter().filter(|r| r.http_only()).count();
    let passed = CheckRule::all().len() - http_only;
    assert!(
        stdout
            .trim_end()
            .ends_with(&format!("{passed} passed, 0 failed, {http_only} skipped")),
        "{stdout}"
    );
}

/// The acknowledgement of the listen `id`, honouring nothing (enough for ack-first).
fn ack(id: &Value) -> String {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id}, "notifications": {}}
    })
    .to_string()
}

/// `check` opens three listens (A, B, C) at once and each gets `--timeout` from when it was
/// sent. These servers acknowledge the n-th listen n × [`ACK_STEP`] after it arrived: with
/// `--timeout` [`ACK_WAIT`] only A's ack is in time. (A client that waited for each ack in turn,
/// a full timeout apiece, would take all three.)
fn assert_only_the_first_ack_was_in_time(out: &std::process::Output) {
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    let late: std::collections::BTreeSet<String> = doc["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rule"] == "ack-first" && e["kept"] == false)
        .map(|e| e["subscription"].to_string())
        .collect();
    let want = ["7301", "\"mcp-tutor-check-c\""].map(str::to_owned).into();
    assert_eq!(late, want, "{doc:#}");
}

/// The servers below ack their n-th listen n × ACK_STEP after reading it, and `check` waits
/// ACK_WAIT: only the first ack is in time if the acks are awaited together (one deadline from
/// the send), while waiting for each in turn would take the second too. The 5 s between the
/// first ack and the deadline are the margin a slow machine gets.
const ACK_STEP: Duration = Duration::from_secs(10);
const ACK_WAIT: &str = "15";

static LISTENS_SEEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

#[test]
fn acks_are_awaited_together_over_http() {
    let url = serve(|msg| match msg["method"].as_str() {
        Some("server/discover") => discover(msg),
        Some("subscriptions/listen") => {
            let n = LISTENS_SEEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            Reply::SseAfter(ACK_STEP * u32::try_from(n).unwrap(), ack(&msg["id"]))
        }
        Some("tools/list") => result(msg, json!({"resultType": "complete", "tools": []})),
        Some("resources/list") => result(msg, json!({"resultType": "complete", "resources": []})),
        _ => Reply::Json(
            404,
            json!({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
                .to_string(),
        ),
    });
    let out = mcp_tutor()
        .args(["check", "--json", "--timeout", ACK_WAIT, &url])
        .output()
        .unwrap();
    assert_only_the_first_ack_was_in_time(&out);
}

/// The same server over stdio, in sh: replies by the request's id (the first member after
/// `jsonrpc` in what `check` sends), acks each listen from a background sleep.
const SLOW_ACKS_SH: &str = r#"
n=0
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([^,]*\),.*/\1/p')
  reply() { printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$1"; }
  case "$line" in
    *'"method":"subscriptions/listen"'*)
      n=$((n + 1))
      (sleep $((10 * n)); printf '{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s},"notifications":{}}}\n' "$id") & ;;
    *'"method":"server/discover"'*)
      reply '{"resultType":"complete","supportedVersions":["2026-07-28"],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}}}' ;;
    *'"method":"tools/list"'*) reply '{"resultType":"complete","tools":[]}' ;;
    *'"method":"resources/list"'*) reply '{"resultType":"complete","resources":[]}' ;;
    *) if [ -n "$id" ]; then printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}\n' "$id"; fi ;;
  esac
done
"#;

#[test]
fn acks_are_awaited_together_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("slow-acks.sh");
    std::fs::write(&script, SLOW_ACKS_SH).unwrap();
    let out = mcp_tutor()
        .env("PATH", path())
        .args([
            "check",
            "--json",
            "--timeout",
            ACK_WAIT,
            "--stdio",
            "--",
            "sh",
        ])
        .arg(&script)
        .output()
        .unwrap();
    assert_only_the_first_ack_was_in_time(&out);
}
