//! `mcp-tutor check` against the bundled mock server over real loopback HTTP and over stdio:
//! it passes against the faithful server and fails, naming exactly the broken rule, against
//! each of the mock's faults.

use std::collections::BTreeSet;

use mock_server::validator::CheckRule;
use mock_server::{Config, Fault};
use serde_json::Value;

use crate::support::{LATE_ACK, Mock, assert_exact, background, bin, isolated};

fn mock(faults: &[Fault]) -> Mock {
    Mock::start(Config {
        faults: faults.to_vec(),
        ack_delay: LATE_ACK,
        ..Config::default()
    })
}

/// `mcp-tutor check ARGS`.
fn check_cmd(args: &[&str]) -> crate::support::Isolated {
    let mut c = isolated();
    c.arg("check").args(args).timeout(crate::support::HANG);
    c
}

/// Runs `check` and returns (exit code, stdout).
fn check(args: &[&str]) -> (i32, String) {
    let out = check_cmd(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The summary line a run with nothing failed prints when `skipped` rules were not judged.
fn all_passed_but(skipped: usize) -> String {
    let passed = CheckRule::all().len() - skipped;
    format!("{passed} passed, 0 failed, {skipped} skipped")
}

/// The status printed for each rule: `PASS  ack-first  (...)` → ("ack-first", "PASS").
fn statuses(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let status = parts.next()?;
            if !["PASS", "FAIL", "SKIP"].contains(&status) {
                return None;
            }
            Some((parts.next()?.to_owned(), status.to_owned()))
        })
        .collect()
}

fn failed(stdout: &str) -> BTreeSet<String> {
    statuses(stdout)
        .into_iter()
        .filter(|(_, s)| s == "FAIL")
        .map(|(r, _)| r)
        .collect()
}

#[test]
fn check_passes_against_the_bundled_mock_server() {
    let mock = mock(&[]);
    let (code, out) = check(&[&mock.url(), "--timeout", crate::support::CHECK_WAIT]);
    assert_eq!(code, 0, "{out}");
    let st = statuses(&out);
    assert_eq!(st.len(), CheckRule::all().len(), "one line per rule\n{out}");
    // Over HTTP the client cancel is closing the stream: nothing can be seen after it.
    let unjudged = CheckRule::NothingAfterCancel.name();
    for (rule, status) in &st {
        let want = if rule == unjudged { "SKIP" } else { "PASS" };
        assert_eq!(status, want, "{rule}\n{out}");
    }
    assert!(out.trim_end().ends_with(&all_passed_but(1)), "{out}");
    // A PASS is one short line: references are for failures (and --verbose).
    assert!(out.contains("PASS  tag-matches-id\n"), "{out}");
    assert!(!out.contains("docs/rules.md"), "{out}");
    assert!(
        out.contains("SKIP  nothing-after-cancel — ") && out.contains("`check --stdio` tests it")
    );
}

#[test]
fn check_json_reports_every_rule_and_the_evidence() {
    let mock = mock(&[]);
    let out = check_cmd(&[
        "--json",
        "--timeout",
        crate::support::CHECK_WAIT,
        &mock.url(),
    ])
    .output()
    .unwrap();
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = CheckRule::all().len();
    assert_eq!(doc["passed"], all - 1);
    assert_eq!(doc["failed"], 0);
    assert_eq!(doc["skipped"], 1);
    let rules = doc["rules"].as_array().unwrap();
    assert_eq!(rules.len(), all);
    let ack = rules.iter().find(|r| r["rule"] == "ack-first").unwrap();
    assert_eq!(ack["status"], "PASS");
    assert_eq!(ack["level"], "must");
    assert!(
        ack["spec"]
            .as_str()
            .unwrap()
            .contains("SUB §Acknowledgment")
    );
    // Both id types were tagged back as sent.
    let tags: Vec<&str> = doc["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "tag-matches-id" && f["kept"] == true)
        .filter_map(|f| f["detail"].as_str())
        .collect();
    let tag_rule = rules
        .iter()
        .find(|r| r["rule"] == "tag-matches-id")
        .unwrap();
    assert!(!tag_rule["passes"].as_array().unwrap().is_empty());
    assert!(tags.iter().any(|d| d.contains("tagged 7301,")), "{tags:?}");
    assert!(
        tags.iter()
            .any(|d| d.contains("tagged \"mcp-tutor-check-a\",")),
        "{tags:?}"
    );
}

/// The rule a fault names: the one `serve --list-faults` and the lab point to with
/// `mcp-tutor why RULE` (the anchor of its reference).
fn named_rule(f: Fault) -> &'static str {
    f.spec()
        .rsplit_once("docs/rules.md#")
        .map(|(_, r)| r)
        .unwrap_or_else(|| panic!("fault {f} names no rule: {}", f.spec()))
}

/// What `check` must fail against `f`: exactly the rule the fault names, or nothing when that
/// rule is one no server can break (late-ack: the spec sets no deadline).
fn expected_failures(f: Fault) -> BTreeSet<String> {
    let named = named_rule(f);
    match CheckRule::from_name(named) {
        Some(_) => BTreeSet::from([named.to_owned()]),
        None => {
            assert!(
                f.rule().starts_with("No spec rule"),
                "fault {f} names `{named}`, which `check` has no rule for"
            );
            BTreeSet::new()
        }
    }
}

/// `check` against `mcp-tutor serve --fault NAME` on loopback (for late-ack, with an ack delay
/// well inside the check's time-out: late, not missing).
fn check_served(f: Fault) -> (i32, String) {
    let served = if f == Fault::LateAck {
        crate::lab::Served::start_with(&["--fault", f.name(), "--ack-delay", "300"])
    } else {
        crate::lab::Served::start_with(&["--fault", f.name()])
    };
    let timeout = crate::support::CHECK_WAIT;
    check(&[&served.url, "--timeout", timeout])
}

#[test]
fn check_fails_exactly_the_rule_each_fault_names() {
    // HTTP cannot show a message after a client cancel (the cancel closes the stream), so that
    // fault is proven over stdio in `check_over_stdio_fails_exactly_notify_after_cancels_rule`.
    let faults: Vec<Fault> = Fault::all()
        .iter()
        .copied()
        .filter(|f| *f != Fault::NotifyAfterCancel)
        .collect();
    let runs = std::thread::scope(|s| {
        let runs: Vec<_> = faults
            .iter()
            .map(|&f| s.spawn(move || (f, check_served(f))))
            .collect();
        runs.into_iter()
            .map(|r| r.join().unwrap())
            .collect::<Vec<_>>()
    });
    for (f, (code, out)) in runs {
        let want = expected_failures(f);
        assert_eq!(failed(&out), want, "fault {f}\n{out}");
        assert_eq!(code, i32::from(!want.is_empty()), "fault {f}\n{out}");
    }
}

#[test]
fn check_over_stdio_fails_exactly_notify_after_cancels_rule() {
    let f = Fault::NotifyAfterCancel;
    let (code, out) = check(&[
        "--stdio",
        "--timeout",
        crate::support::CHECK_WAIT,
        "--",
        bin(),
        "serve",
        "--stdio",
        "--fault",
        f.name(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(failed(&out), expected_failures(f), "{out}");
}

#[test]
fn the_late_ack_fault_with_a_short_time_out_is_a_missing_ack() {
    // Past the client's own time-out a late ack is indistinguishable from none.
    let mock = mock(&[Fault::LateAck]);
    let (code, out) = check(&[&mock.url(), "--timeout", "2"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        failed(&out),
        BTreeSet::from(["ack-first".to_owned()]),
        "{out}"
    );
}

#[test]
fn check_over_stdio_passes_against_the_bundled_server() {
    let (code, out) = check(&[
        "--stdio",
        "--timeout",
        crate::support::CHECK_WAIT,
        "--",
        bin(),
        "serve",
        "--stdio",
    ]);
    assert_eq!(code, 0, "{out}");
    // stdio has no header layer; everything else is exercised, the client cancel included.
    let http_only: BTreeSet<&str> = CheckRule::all()
        .iter()
        .filter(|r| r.http_only())
        .map(|r| r.name())
        .collect();
    for (rule, status) in statuses(&out) {
        let want = if http_only.contains(rule.as_str()) {
            "SKIP"
        } else {
            "PASS"
        };
        assert_eq!(status, want, "{rule}\n{out}");
    }
    assert!(out.contains("PASS  nothing-after-cancel\n"), "{out}");
    assert!(
        out.trim_end().ends_with(&all_passed_but(http_only.len())),
        "{out}"
    );
}

#[test]
fn check_over_stdio_fails_naming_the_rule_each_fault_breaks() {
    let late = LATE_ACK.as_millis().to_string();
    let runs = std::thread::scope(|s| {
        let runs: Vec<_> = Fault::all()
            .iter()
            .map(|&f| {
                let late = &late;
                s.spawn(move || {
                    let r = check(&[
                        "--stdio",
                        "--timeout",
                        crate::support::CHECK_WAIT,
                        "--",
                        bin(),
                        "serve",
                        "--stdio",
                        "--fault",
                        f.name(),
                        "--ack-delay",
                        late,
                    ]);
                    (f, r)
                })
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().unwrap())
            .collect::<Vec<_>>()
    });
    for (f, (code, out)) in runs {
        assert_eq!(code, 1, "fault {f}\n{out}");
        let got = failed(&out);
        let mut allowed = expected_failures(f);
        if f == Fault::LateAck {
            // Here the ack comes after the check's time-out (LATE_ACK): a missing ack.
            allowed.insert("ack-first".to_owned());
        }
        for rule in &allowed.clone() {
            assert!(got.contains(rule), "fault {f} must fail {rule}\n{out}");
        }
        // On one shared channel a notification without its own id cannot be routed to its
        // subscription, so it also counts as not delivered.
        if matches!(
            f,
            Fault::Untagged | Fault::WrongSubscriptionId | Fault::IdTypeChanged
        ) {
            allowed.insert("acked-types-delivered".to_owned());
        }
        assert!(got.is_subset(&allowed), "fault {f}: {got:?}\n{out}");
    }
}

#[test]
fn a_missing_trigger_tool_is_skipped_not_passed() {
    let mock = mock(&[]);
    let (code, out) = check(&[
        &mock.url(),
        "--timeout",
        crate::support::CHECK_WAIT,
        "--change-tool",
        "no_such_tool",
        "--prompt-change-tool",
        "",
        "--close-tool",
        "",
    ]);
    assert_eq!(code, 0, "{out}");
    let st: std::collections::BTreeMap<String, String> = statuses(&out).into_iter().collect();
    for rule in [
        "close-result-shape",
        "nothing-after-result",
        "graceful-close",
    ] {
        assert_eq!(st[rule], "SKIP", "{rule}\n{out}");
    }
    assert!(
        crate::support::flat(&out).contains("the server has no tool \"no_such_tool\""),
        "{out}"
    );
    // The resource update still ran, so delivery was judged on it.
    assert_eq!(st["acked-types-delivered"], "PASS", "{out}");
}

#[test]
fn check_against_nothing_fails_fast_with_a_useful_error() {
    // Bind then drop a listener: a loopback port with (almost certainly) nobody on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = check_cmd(&["--timeout", "2", &url]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let first = format!(
        "error: server/discover to {url} failed; is an MCP 2026-07-28 server listening there?\n"
    );
    // One cause, the one that says what happened: not reqwest's four layers of "error
    // sending request", "client error (Connect)", "tcp connect error".
    let rest: Vec<&str> = err[first.len()..].lines().collect();
    let cause = format!("  caused by: could not reach {url} (is the server running?): ");
    assert!(
        rest.len() == 1 && rest[0].starts_with(&cause) && rest[0].contains("refused"),
        "{err}"
    );
}

#[test]
fn check_rejects_a_bad_url_and_timeout() {
    let out = check_cmd(&["not a url"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "error: \"not a url\" is not a URL; give the endpoint, e.g. http://127.0.0.1:3000/mcp"
    );
    let out = check_cmd(&["--timeout", "0", "http://127.0.0.1:9/mcp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_exact(&out.stdout, "");
    assert_exact(
        &out.stderr,
        "error: --timeout 0 is not a number of seconds between 0 and 3600 (e.g. --timeout 2.5)\n",
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let mock = mock(&[]);
    let url = mock.url();
    // Piped output: no colour by default.
    let (_, plain) = check(&[
        &url,
        "--timeout",
        crate::support::CHECK_WAIT,
        "--close-tool",
        "",
    ]);
    assert!(!plain.contains('\u{1b}'), "{plain}");
    let mut c = isolated();
    let out = c
        .env_remove("NO_COLOR")
        .args([
            "--color",
            "always",
            "check",
            &url,
            "--timeout",
            crate::support::CHECK_WAIT,
            "--close-tool",
            "",
        ])
        .output()
        .unwrap();
    let coloured = String::from_utf8_lossy(&out.stdout);
    assert!(coloured.contains("\u{1b}[32mPASS\u{1b}[39m"), "{coloured}");
    // The summary line stays plain for scripts.
    assert!(coloured.lines().last().unwrap().ends_with(" skipped"));
}

#[test]
fn list_rules_names_every_rule_with_its_level_and_spec() {
    let out = check_cmd(&["--list-rules"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "ack-first",
        "tag-matches-id",
        "close-result-shape",
        "nothing-after-cancel",
    ] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name}\n{text}");
    }
    assert!(text.contains("graceful-close           SHOULD"), "{text}");
    let out = check_cmd(&["--list-rules", "--json"]).output().unwrap();
    let rules: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["rule"].as_str())
        .collect();
    let all: Vec<&str> = CheckRule::all().iter().map(|r| r.name()).collect();
    assert_eq!(names, all);
}

#[test]
fn a_server_that_never_answers_cannot_hang_check() {
    // Accepts connections and reads forever, never writing a byte.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    background(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().flatten() {
            held.push(conn);
        }
    });
    // assert_cmd's own timeout (see `check_cmd`) turns a hang into a failure.
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = check_cmd(&["--timeout", "1", &url]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no complete reply"), "{err}");
}
