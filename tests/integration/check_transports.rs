//! `check` runs one scenario whatever the transport: each test here runs it over HTTP and over
//! stdio against the bundled server and wants the same judgement. Each caught a drift between
//! the two copies of the scenario that existed before: stdio did not follow `nextCursor`,
//! stdio judged only-requested-types on fewer streams, and graceful-close was judged by the
//! validator on HTTP but by the scenario on stdio. (The fourth, one deadline for every ack, is
//! `check_hostile::acks_are_awaited_together_*`: it needs a server the mock cannot be.)

use std::collections::BTreeSet;

use mock_server::protocol::method;
use mock_server::validator::CheckRule;
use mock_server::{Config, Fault, Transport};
use serde_json::{Value, json};

use crate::support::{LATE_ACK, Mock, bin, isolated};

const BOTH: [Transport; 2] = [Transport::Http, Transport::Stdio];

/// The listen ids `check` opens: A (tools and prompts), B (tools), C (prompts), D (a resource).
fn a() -> Value {
    json!("mcp-tutor-check-a")
}
fn b() -> Value {
    json!(7301)
}
fn c() -> Value {
    json!("mcp-tutor-check-c")
}
fn d() -> Value {
    json!("mcp-tutor-check-d")
}

fn set(ids: &[Value]) -> BTreeSet<String> {
    ids.iter().map(Value::to_string).collect()
}

/// The bundled server as `check` is pointed at it.
#[derive(Default)]
struct Server {
    faults: Vec<Fault>,
    page_size: Option<usize>,
}

/// `check --json --timeout CHECK_WAIT ARGS` against `server` over `t`: the report.
fn check_json(t: Transport, server: &Server, args: &[&str]) -> Value {
    let mut cmd = isolated();
    cmd.args(["check", "--json", "--timeout", crate::support::CHECK_WAIT])
        .args(args);
    // Kept alive until `check` is done.
    let mock;
    match t {
        Transport::Http => {
            mock = Mock::start(Config {
                faults: server.faults.clone(),
                page_size: server.page_size,
                ack_delay: LATE_ACK,
                ..Config::default()
            });
            cmd.arg(mock.url());
        }
        Transport::Stdio => {
            cmd.args(["--stdio", "--", bin(), "serve", "--stdio"]);
            for f in &server.faults {
                cmd.args(["--fault", f.name()]);
            }
            if let Some(n) = server.page_size {
                cmd.args(["--page-size", &n.to_string()]);
            }
            cmd.args(["--ack-delay", &LATE_ACK.as_millis().to_string()]);
        }
    }
    let out = cmd.output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{t:?}: not a JSON report ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `f` over both transports at once; the results in `BOTH`'s order.
fn on_both<T: Send>(f: impl Fn(Transport) -> T + Sync) -> Vec<(Transport, T)> {
    std::thread::scope(|s| {
        let f = &f;
        let runs: Vec<_> = BOTH.map(|t| (t, s.spawn(move || f(t)))).into();
        runs.into_iter()
            .map(|(t, h)| (t, h.join().unwrap()))
            .collect()
    })
}

fn status(doc: &Value, rule: CheckRule) -> &str {
    doc["rules"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["rule"] == rule.name()))
        .and_then(|r| r["status"].as_str())
        .unwrap_or_else(|| panic!("no {rule} in {doc}"))
}

/// The rules that cannot be judged over `t` (stdio has no header layer; over HTTP the client
/// cancel closes the stream, so nothing can be seen after it).
fn unjudgeable(t: Transport) -> BTreeSet<&'static str> {
    CheckRule::all()
        .iter()
        .filter(|r| match t {
            Transport::Http => **r == CheckRule::NothingAfterCancel,
            Transport::Stdio => r.http_only(),
        })
        .map(|r| r.name())
        .collect()
}

/// The subscriptions of the evidence for `rule` that is `kept` (or broken), whose detail
/// mentions `words`.
fn evidence(doc: &Value, rule: CheckRule, kept: bool, words: &str) -> BTreeSet<String> {
    doc["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rule"] == rule.name() && e["kept"] == kept)
        .filter(|e| e["detail"].as_str().is_some_and(|d| d.contains(words)))
        .map(|e| e["subscription"].to_string())
        .collect()
}

#[test]
fn a_server_that_lists_its_tools_in_pages_is_checked_in_full() {
    let server = Server {
        page_size: Some(3),
        ..Server::default()
    };
    for (t, doc) in on_both(|t| check_json(t, &server, &[])) {
        let skipped: BTreeSet<&str> = CheckRule::all()
            .iter()
            .filter(|r| status(&doc, **r) == "SKIP")
            .map(|r| r.name())
            .collect();
        assert_eq!(skipped, unjudgeable(t), "{t:?}: {doc:#}");
        assert_eq!(doc["failed"], 0, "{t:?}: {doc:#}");
    }
}

#[test]
fn only_requested_types_is_judged_on_every_stream_a_change_is_not_for() {
    for (t, doc) in on_both(|t| check_json(t, &Server::default(), &[])) {
        let judged = |m: &str| {
            let words = format!("did not ask for {m}");
            evidence(&doc, CheckRule::OnlyRequestedTypes, true, &words)
        };
        assert_eq!(
            judged(method::TOOLS_LIST_CHANGED),
            set(&[c(), d()]),
            "{t:?}"
        );
        assert_eq!(
            judged(method::PROMPTS_LIST_CHANGED),
            set(&[b(), d()]),
            "{t:?}"
        );
        assert_eq!(
            judged(method::RESOURCES_UPDATED),
            set(&[a(), b(), c()]),
            "{t:?}"
        );
    }
    // Without the list-change tools the resource update alone still judges it.
    let off = ["--change-tool", "", "--prompt-change-tool", ""];
    for (t, doc) in on_both(|t| check_json(t, &Server::default(), &off)) {
        assert_eq!(
            status(&doc, CheckRule::OnlyRequestedTypes),
            "PASS",
            "{t:?}: {doc:#}"
        );
    }
}

#[test]
fn graceful_close_is_judged_by_the_validator_for_each_subscription() {
    for (t, doc) in on_both(|t| check_json(t, &Server::default(), &[])) {
        // Over stdio B was cancelled by the client before the close.
        let closed = match t {
            Transport::Http => set(&[a(), b(), c(), d()]),
            Transport::Stdio => set(&[a(), c(), d()]),
        };
        let kept = evidence(
            &doc,
            CheckRule::GracefulClose,
            true,
            "ended with its result",
        );
        assert_eq!(kept, closed, "{t:?}: {doc:#}");
    }
    let abrupt = Server {
        faults: vec![Fault::AbruptClose],
        ..Server::default()
    };
    for (t, doc) in on_both(|t| check_json(t, &abrupt, &[])) {
        assert_eq!(status(&doc, CheckRule::GracefulClose), "FAIL", "{t:?}");
        let broken = evidence(&doc, CheckRule::GracefulClose, false, "no result");
        assert!(broken.contains(&a().to_string()), "{t:?}: {doc:#}");
        assert!(
            !broken.contains("null"),
            "each names its subscription: {doc:#}"
        );
    }
}
