//! `mcp-tutor serve`: the same options and behaviour as the standalone `mock_server` binary.

use mock_server::protocol::{self, method};
use mock_server::{Fault, tool};
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::{Value, json};

use crate::support::{Isolated, assert_exact, isolated};

fn serve() -> Isolated {
    let mut c = isolated();
    c.arg("serve");
    c
}

#[test]
fn serve_stdio_acks_and_closes_gracefully_at_end_of_input() {
    let filter = serde_json::from_value(json!({"toolsListChanged": true})).unwrap();
    let input = format!(
        "{}\n{}\n",
        protocol::listen_request(&7.into(), &filter),
        protocol::request(&8.into(), method::TOOLS_LIST, json!({})),
    );
    let out = serve()
        .arg("--stdio")
        .write_stdin(input)
        .timeout(crate::support::HANG)
        .assert()
        .success();
    let lines: Vec<Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("stdout carries only JSON-RPC lines"))
        .collect();
    let tagged: Vec<&Value> = lines
        .iter()
        .filter(|m| {
            m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7 || m["id"] == 7
        })
        .collect();
    assert_eq!(tagged[0]["method"], method::SUBSCRIPTIONS_ACKNOWLEDGED);
    assert_eq!(*tagged[1], mock_server::close_result(&7.into()));
    assert_eq!(tagged[2]["method"], method::CANCELLED);
    assert!(
        lines
            .iter()
            .any(|m| m["id"] == 8 && m["result"]["tools"].is_array())
    );
}

#[test]
fn serve_lists_faults_with_their_rules() {
    serve()
        .arg("--list-faults")
        .assert()
        .success()
        .stdout(contains("no-ack"))
        .stdout(contains("MUST send"))
        .stdout(contains("notifications/subscriptions/acknowledged"))
        // Where the rule is explained, followable from an installed binary.
        .stdout(contains("mcp-tutor why graceful-close"))
        .stdout(contains("docs/rules.md").not())
        // No Rust `Option` in the words.
        .stdout(contains("None:").not());
}

#[test]
fn an_unknown_fault_names_the_nearest_ones() {
    let out = serve().args(["--fault", "no-acks"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_exact(
        &out.stderr,
        "error: invalid value 'no-acks' for '--fault <NAME>': no fault `no-acks`: did you mean `no-ack`? (`--list-faults` lists them with the rule each breaks)\n\nFor more information, try '--help'.\n",
    );
}

/// The fault catalogue cannot drift from what users reach: every fault is switched on by
/// `serve --fault NAME` (the server's own control tool says so) and has its row in the README.
#[test]
fn every_fault_is_reachable_by_name_and_documented() {
    let readme = include_str!("../../README.md");
    for f in Fault::all() {
        let name = f.name();
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "the README's fault table has no row for {name}"
        );
        let ask = protocol::request(
            &1.into(),
            method::TOOLS_CALL,
            json!({"name": tool::LIST_FAULTS, "arguments": {}}),
        );
        let out = serve()
            .args(["--stdio", "--fault", name])
            .write_stdin(format!("{ask}\n"))
            .timeout(crate::support::HANG)
            .assert()
            .success();
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        let answer: Value = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|m| m["id"] == 1)
            .unwrap_or_else(|| panic!("no answer to {ask} with --fault {name}: {stdout}"));
        let on: Vec<&str> = answer["result"]["structuredContent"]["faults"]
            .as_array()
            .unwrap_or_else(|| panic!("no fault list in {answer}"))
            .iter()
            .filter(|row| row["on"] == true)
            .filter_map(|row| row["name"].as_str())
            .collect();
        assert_eq!(on, [name], "--fault {name} switched on {on:?}");
    }
}
