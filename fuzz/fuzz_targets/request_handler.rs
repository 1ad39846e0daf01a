//! Fuzzes both request handlers of the mock server with arbitrary requests: an HTTP request
//! (method, target, header lines, body) through the router's every check, or one stdio line.
//! A panic, or a reply that breaks the server's contract, is a finding.
//!
//! Run (nightly): `cargo +nightly fuzz run request_handler -- -max_total_time=60`
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mock_server::fuzzing::{Harness, http_reply_problem, stdio_reply_problem};

/// Header names worth mixing; the fuzzer picks by index so most requests reach the handler.
const NAMES: &[&str] = &[
    "host",
    "origin",
    "accept",
    "content-type",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-param-note",
    "transfer-encoding",
];

#[derive(Arbitrary, Debug)]
enum Input<'a> {
    Http {
        post: bool,
        absolute_target: bool,
        headers: Vec<(u8, &'a [u8])>,
        body: &'a [u8],
    },
    Stdio(&'a [u8]),
}

fuzz_target!(|input: Input<'_>| {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let harness = Harness::new();
    match input {
        Input::Http {
            post,
            absolute_target,
            headers,
            body,
        } => {
            let headers: Vec<(String, Vec<u8>)> = headers
                .into_iter()
                .map(|(i, v)| (NAMES[usize::from(i) % NAMES.len()].to_owned(), v.to_vec()))
                .collect();
            let target = if absolute_target {
                "http://localhost/mcp"
            } else {
                "/mcp"
            };
            let method = if post { "POST" } else { "GET" };
            let reply = rt.block_on(harness.http(method, target, &headers, body.to_vec()));
            if let Some(r) = reply
                && let Some(problem) = http_reply_problem(&r)
            {
                panic!("{problem}");
            }
        }
        Input::Stdio(line) => {
            if line.contains(&b'\n') {
                return;
            }
            for reply in rt.block_on(harness.stdio_line(line)) {
                if let Some(problem) = stdio_reply_problem(&reply) {
                    panic!("{problem}");
                }
            }
        }
    }
});
