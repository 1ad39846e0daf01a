//! The lab against a server that is not mcp-tutor's: it has none of the control tools behind
//! `drop`, `close`, `change` and `fault`. The lab says plainly that this server does not offer
//! the step (it does not read a tool failure as a kept rule), and a script fails.

use std::io::Write;
use std::net::{TcpListener, TcpStream};

use crate::lab::tutor;
use crate::support::read_json_post;

/// A loopback "MCP server" with one tool, `echo`, that answers a call of any other tool the
/// way the SDKs do: HTTP 200, `isError: true`, "Unknown tool". `paged` makes its tools/list
/// say more pages follow, so the lab cannot rule a tool out from it and must call it.
fn echo_only_server(paged: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    crate::support::background(move || {
        for conn in listener.incoming().flatten() {
            crate::support::background(move || serve(conn, paged));
        }
    });
    url
}

fn serve(conn: TcpStream, paged: bool) {
    let Some(request) = read_json_post(&conn) else {
        return;
    };
    let id = request["id"].clone();
    let result = match request["method"].as_str() {
        Some("tools/list") if paged => serde_json::json!({"resultType": "complete",
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}], "nextCursor": "2"}),
        Some("tools/list") => serde_json::json!({"resultType": "complete",
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        Some("tools/call") => serde_json::json!({"resultType": "complete", "isError": true,
            "content": [{"type": "text",
                         "text": format!("Unknown tool: {}", request["params"]["name"].as_str().unwrap_or(""))}]}),
        _ => serde_json::json!({"resultType": "complete"}),
    };
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    let mut out = conn;
    let _ = write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{reply}",
        reply.len()
    );
}

#[test]
fn drop_and_friends_against_a_server_without_control_tools_say_so_and_the_script_fails() {
    for paged in [false, true] {
        let url = echo_only_server(paged);
        let home = tempfile::tempdir().expect("tmp");
        let script = home.path().join("steps.txt");
        std::fs::write(
            &script,
            "drop\nclose all\nfault\nchange tools\nlist tools\n",
        )
        .expect("script");
        let out = tutor(home.path())
            .args(["lab", "--url", &url, "--script"])
            .arg(&script)
            .assert()
            .failure()
            .get_output()
            .stdout
            .clone();
        let out = crate::support::flat(&String::from_utf8_lossy(&out));
        for (step, tool) in [
            ("drop", "test_drop_subscriptions"),
            ("close", "test_close_subscriptions"),
            ("fault", "test_list_faults"),
            ("change", "test_trigger_tool_change"),
        ] {
            assert!(
                out.contains(&format!(
                    "error: this server does not offer `{step}`: it has no tool `{tool}`"
                )),
                "{step} (paged {paged}): {out}"
            );
        }
        // Nothing is judged as kept when nothing happened.
        assert!(!out.contains("✓"), "{out}");
        // One tool is "1 tool".
        assert!(out.contains("HTTP 200: 1 tool: echo"), "{out}");
        // A change the server could not make is not blamed on the subscriptions.
        assert!(!out.contains("nothing arrived on any stream"), "{out}");
    }
}
