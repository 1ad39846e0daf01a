//! The lab against a server that floods: a listen stream that sends notifications as fast as
//! it can, after one 100 KB garbage frame. The lab drops what it cannot show, says so, keeps
//! its output bounded, and still runs the next steps and `quit`.

use std::io::Write;
use std::net::{TcpListener, TcpStream};

use crate::lab::{normalise, tutor};
use crate::support::read_json_post;

/// A loopback "MCP server" that answers plain requests with an empty result and floods every
/// listen stream until the client goes away. Returns its URL.
fn flooding_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    crate::support::background(move || {
        for conn in listener.incoming().flatten() {
            crate::support::background(move || serve(conn));
        }
    });
    url
}

fn serve(conn: TcpStream) {
    let Some(request) = read_json_post(&conn) else {
        return;
    };
    let id = request["id"].clone();
    let mut out = conn;
    if request["method"] != "subscriptions/listen" {
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id,
            "result": {"resultType": "complete", "tools": []}})
        .to_string();
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{reply}",
            reply.len()
        );
        return;
    }
    let meta = serde_json::json!({"io.modelcontextprotocol/subscriptionId": id});
    let ack = serde_json::json!({"jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": meta}});
    let change = serde_json::json!({"jsonrpc": "2.0",
        "method": "notifications/tools/list_changed", "params": {"_meta": meta}});
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Connection: close\r\n\r\n";
    let garbage = "x".repeat(100_000);
    if write!(out, "{head}data: {ack}\n\ndata: {garbage}\n\n").is_err() {
        return;
    }
    let frame = format!("data: {change}\n\n").repeat(64);
    while out.write_all(frame.as_bytes()).is_ok() {}
}

#[test]
fn a_flooding_server_is_named_dropped_and_abbreviated_and_the_script_fails() {
    let url = flooding_server();
    let home = tempfile::tempdir().expect("tmp");
    let out = tutor(home.path())
        .args(["lab", "--ack-timeout", "500", "--url", &url])
        .write_stdin("listen tools\nstatus\nquit\ndiscover\n")
        .assert()
        .failure()
        .get_output()
        .stdout
        .clone();
    let out = normalise(&String::from_utf8_lossy(&out));
    assert!(
        out.contains("error: server is flooding: "),
        "{}",
        &out[..out.len().min(4000)]
    );
    assert!(out.contains(", dropped "), "the drop is counted");
    assert!(
        out.contains("bytes in all; `wire on` shows everything"),
        "the garbage frame is abbreviated"
    );
    assert!(!out.contains(&"x".repeat(1_000)), "never printed whole");
    assert!(out.contains("lab> status\n"), "the next step ran");
    assert!(out.contains("lab> quit"), "quit ran");
    assert!(!out.contains("lab> discover"), "and nothing after it");
    assert!(
        out.len() < 4_000_000,
        "output stays bounded: {} bytes",
        out.len()
    );
}
