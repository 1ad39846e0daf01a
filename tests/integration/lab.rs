//! `mcp-tutor lab` end to end: every guided scenario run from a script and snapshot-tested,
//! scripted steps (text and JSON), `--url` against a separately started server, and the
//! lapse a wrong prediction leaves in the quiz's store. The interactive REPL is in `lab_pty`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use mcp_tutor::commands::lab::scenario;

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-tutor")
}

/// `mcp-tutor` with its own data dir, no colour, bounded in time.
pub fn tutor(home: &Path) -> assert_cmd::Command {
    crate::support::clean(home)
}

/// Ports change from run to run; nothing else in a transcript should.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("127.0.0.1:") {
        let (head, tail) = rest.split_at(i + "127.0.0.1:".len());
        out.push_str(head);
        let digits = tail.chars().take_while(char::is_ascii_digit).count();
        out.push_str(if digits > 0 { "PORT" } else { "" });
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

fn run_scenario(name: &str, answers: &str) -> (String, tempfile::TempDir) {
    let home = tempfile::tempdir().expect("tmp");
    let script = home.path().join("answers.txt");
    std::fs::write(&script, answers).expect("write answers");
    let out = tutor(home.path())
        .args(["lab", "--scenario", name, "--script"])
        .arg(&script)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    (normalise(&String::from_utf8_lossy(&out)), home)
}

fn right_answers(name: &str) -> String {
    let sc = scenario::find(name).expect("scenario exists");
    sc.steps
        .iter()
        .filter_map(|b| b.ask.as_ref())
        .map(|q| format!("predict {}\n", q.answer))
        .collect()
}

macro_rules! scenario_snapshot {
    ($test:ident, $name:literal) => {
        #[test]
        fn $test() {
            let (out, _home) = run_scenario($name, &right_answers($name));
            assert!(out.contains("predictions right"), "{out}");
            let sc = scenario::find($name).expect("scenario exists");
            let answers: Vec<usize> = sc
                .steps
                .iter()
                .filter_map(|b| b.ask.as_ref())
                .map(|q| q.answer_index().expect("validated letter"))
                .collect();
            crate::scenario_spoilers::assert_no_giveaway($name, &out, &answers);
            insta::assert_snapshot!(concat!("scenario_", $name), out);
        }
    };
}

scenario_snapshot!(scenario_ack_first, "ack-first");
scenario_snapshot!(scenario_honoured_subset, "honoured-subset");
scenario_snapshot!(scenario_two_streams, "two-streams");
scenario_snapshot!(scenario_close_vs_drop, "close-vs-drop");
scenario_snapshot!(scenario_cancel_http, "cancel-http");
scenario_snapshot!(scenario_missing_ack, "missing-ack");
scenario_snapshot!(scenario_stale_id, "stale-id");
scenario_snapshot!(scenario_stdio_interleaving, "stdio-interleaving");
scenario_snapshot!(scenario_faulty_server, "faulty-server");
scenario_snapshot!(scenario_broken_close, "broken-close");

#[test]
fn every_scenario_has_a_snapshot_test() {
    let tested = [
        "ack-first",
        "honoured-subset",
        "two-streams",
        "close-vs-drop",
        "cancel-http",
        "missing-ack",
        "stale-id",
        "stdio-interleaving",
        "faulty-server",
        "broken-close",
    ];
    for s in scenario::all().expect("scenarios load") {
        assert!(
            tested.contains(&s.scenario.id.as_str()),
            "scenario {} has no snapshot test",
            s.scenario.id
        );
    }
}

#[test]
fn list_names_every_scenario() {
    let home = tempfile::tempdir().expect("tmp");
    let out = tutor(home.path())
        .args(["lab", "--list"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    for s in scenario::all().expect("scenarios load") {
        assert!(
            out.contains(&s.scenario.id),
            "{} missing from:\n{out}",
            s.scenario.id
        );
    }
}

#[test]
fn unknown_scenario_suggests_the_near_one() {
    let home = tempfile::tempdir().expect("tmp");
    tutor(home.path())
        .args(["lab", "--scenario", "ack-frist"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("did you mean `ack-first`?"));
}

#[test]
fn wrong_prediction_is_a_lapse_for_the_linked_card() {
    // ack-first asks two questions; answer the first wrong, the second right.
    let (out, home) = run_scenario("ack-first", "predict b\npredict d\n");
    assert!(out.contains("you said b; the answer is a"), "{out}");
    assert!(out.contains("1 of 2 predictions right"), "{out}");
    let store = mcp_tutor::store::Store::open(home.path()).expect("store");
    let reviews = store.reviews().expect("reviews");
    let lapses: Vec<_> = reviews
        .iter()
        .map(|r| (r.card.as_str(), r.source.as_deref(), r.rating.as_str()))
        .collect();
    assert_eq!(
        lapses,
        vec![(
            "subscriptions/listen-first-message",
            Some("lab:ack-first"),
            "again"
        )],
        "exactly the wrong prediction's card, once"
    );
}

#[test]
fn scripted_steps_print_a_transcript_with_timeline_and_saved_json_lines() {
    let home = tempfile::tempdir().expect("tmp");
    let saved = home.path().join("run.jsonl");
    let script = format!(
        "# comments and blank lines are skipped\n\nlisten tools prompts mock://notes/today\n\
         change prompts\nupdate mock://notes/today\nchange resources\nstatus\nclose all\n\
         timeline\nexplain\nsave {}\n",
        saved.display()
    );
    let out = tutor(home.path())
        .arg("lab")
        .write_stdin(script)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = normalise(&String::from_utf8_lossy(&out));
    let saved_text = std::fs::read_to_string(&saved).expect("saved transcript");
    let out = out.replace(&saved.display().to_string(), "FILE");
    insta::assert_snapshot!("script_transcript", out);
    let events: Vec<serde_json::Value> = saved_text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each saved line is one JSON object"))
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert!(
        kinds.contains(&"frame") && kinds.contains(&"end"),
        "{kinds:?}"
    );
    let ack = events
        .iter()
        .find(|e| e["kind"] == "notifications/subscriptions/acknowledged")
        .expect("the ack is in the saved transcript");
    assert_eq!(ack["stream"], "lab-1");
    assert_eq!(
        ack["message"]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "lab-1"
    );
}

#[test]
fn json_mode_prints_one_object_per_event() {
    let home = tempfile::tempdir().expect("tmp");
    let out = tutor(home.path())
        .args(["lab", "--json"])
        .write_stdin("listen tools\nchange tools\nclose all\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = normalise(&String::from_utf8_lossy(&out));
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let seq: Vec<String> = events
        .iter()
        .filter(|e| e["event"] == "frame" || e["event"] == "end")
        .map(|e| {
            format!(
                "{} {} {}",
                e["event"].as_str().unwrap_or(""),
                e["stream"],
                e["kind"].as_str().or(e["how"].as_str()).unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        seq,
        vec![
            "frame \"lab-1\" notifications/subscriptions/acknowledged",
            "frame \"lab-1\" notifications/tools/list_changed",
            "frame \"lab-1\" result",
            "end \"lab-1\" graceful",
        ]
    );
    let broken: Vec<_> = events
        .iter()
        .flat_map(|e| e["verdicts"].as_array().cloned().unwrap_or_default())
        .filter(|v| v["ok"] == false)
        .collect();
    assert!(
        broken.is_empty(),
        "the bundled server breaks no rule: {broken:?}"
    );
}

#[test]
fn a_mistyped_step_is_explained_and_fails_the_script() {
    let home = tempfile::tempdir().expect("tmp");
    tutor(home.path())
        .arg("lab")
        .write_stdin("lisen tools\n")
        .assert()
        .failure()
        .stdout(predicates::str::contains("did you mean `listen`?"));
    // A mistyped fault, in the lab and on its command line: the nearest name, one phrasing.
    tutor(home.path())
        .arg("lab")
        .write_stdin("fault no-akc on\n")
        .assert()
        .failure()
        .stdout(predicates::str::contains(
            "no fault `no-akc`: did you mean `no-ack`? (`fault` alone lists them",
        ));
    tutor(home.path())
        .args(["lab", "--fault", "untaged"])
        .write_stdin("quit\n")
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "no fault `untaged`: did you mean `untagged`?",
        ));
}

#[test]
fn faults_are_flagged_in_place_with_rule_and_spec() {
    let home = tempfile::tempdir().expect("tmp");
    let out = tutor(home.path())
        .args(["lab", "--fault", "notify-before-ack", "--fault", "untagged"])
        .write_stdin("listen tools\nchange tools\n")
        .assert()
        // Like `check`, a script whose frames broke a rule exits non-zero.
        .failure()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains("✗ ack-first"), "{out}");
    assert!(out.contains("✗ tag-present"), "{out}");
    assert!(out.contains("spec: SUB §Acknowledgment"), "{out}");
}

/// A separately started `mcp-tutor serve` on a free port; killed on drop.
pub struct Served {
    child: Child,
    pub url: String,
}

impl Served {
    pub fn start() -> Served {
        Served::start_with(&[])
    }

    /// `mcp-tutor serve --port 0` plus `extra` arguments.
    pub fn start_with(extra: &[&str]) -> Served {
        let mut child = Command::new(bin())
            .args(["serve", "--port", "0"])
            .args(extra)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mcp-tutor serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let url = loop {
            let line = lines
                .next()
                .expect("serve prints its URL")
                .expect("read serve output");
            if let Some(i) = line.find("http://") {
                break line[i..].trim().to_owned();
            }
        };
        // Keep draining so the server never blocks on a full pipe.
        crate::support::background(move || for _ in lines {});
        Served { child, url }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server without the mock's control tools (here the mock bound to every address, which
/// does not offer them): `change` still works through the trigger tools, while `close ID`,
/// `drop` and `fault` are refused by the server and the lab says where such tools exist.
#[test]
fn any_server_by_url_uses_its_trigger_tools_and_refuses_drop_and_fault() {
    let served = Served::start_with(&["--host", "0.0.0.0"]);
    let home = tempfile::tempdir().expect("tmp");
    let out = tutor(home.path())
        .args(["lab", "--url", &served.url])
        .write_stdin("listen tools\nchange tools\nclose lab-1\ndrop\nfault no-ack on\nclose all\n")
        .assert()
        .failure()
        .get_output()
        .stdout
        .clone();
    let out = normalise(&String::from_utf8_lossy(&out));
    insta::assert_snapshot!("url_mode", out);
}

/// The lab reaches the bundled server only over the wire: the same steps against
/// `mcp-tutor serve` print the same transcript, banner aside.
#[test]
fn bundled_and_url_modes_drive_the_same_steps_over_the_wire() {
    let steps = "listen tools prompts\nfault\nfault untagged on\nchange tools\nfault untagged off\n\
                 listen --id 7 resources\nclose 7\nclose \"7\"\nchange prompts\ndrop\n\
                 listen tools\nclose all\nreset\n";
    let run = |extra: &[&str]| {
        let home = tempfile::tempdir().expect("tmp");
        let out = tutor(home.path())
            .arg("lab")
            .args(extra)
            .write_stdin(steps)
            .output()
            .expect("run the lab");
        let text = normalise(&String::from_utf8_lossy(&out.stdout));
        let body: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with("mcp-tutor lab:"))
            .collect();
        (out.status.code(), body.join("\n"))
    };
    let served = Served::start();
    let (bundled_code, bundled) = run(&[]);
    let (url_code, url) = run(&["--url", &served.url]);
    assert_eq!(bundled, url, "the two modes differ");
    assert_eq!(bundled_code, url_code);
    for step in [
        "test_set_fault",
        "test_list_faults",
        "test_close_subscription",
        "test_drop_subscriptions",
        "test_reset_faults",
    ] {
        assert!(bundled.contains(step), "{step} not called:\n{bundled}");
    }
    assert!(
        bundled.contains("stream ended abruptly") || bundled.contains("abrupt end"),
        "{bundled}"
    );
    // Compared with whitespace folded: narration is filled to the width.
    let flat = bundled.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("no open subscription \"7\""),
        "a string id is not the number 7:\n{bundled}"
    );
}

/// `call` and `send` drive any server: a trigger tool called by name sets off a frame on the
/// open stream (annotated and checked), arguments are JSON, a hand-written message goes out as
/// typed and its refusal is shown; `help` points to the scenarios.
#[test]
fn call_and_send_drive_the_server_by_hand() {
    let served = Served::start();
    let home = tempfile::tempdir().expect("tmp");
    let out = tutor(home.path())
        .args(["lab", "--url", &served.url])
        .write_stdin(
            "listen tools\ncall test_trigger_tool_change\ncall echo {\"text\": \"hi  there\"}\n\
             send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\nhelp\n",
        )
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.contains("→ tools/call  id \"req-2\"  test_trigger_tool_change"),
        "{out}"
    );
    assert!(
        out.contains("← [\"lab-1\"] notifications/tools/list_changed"),
        "the call's notification arrives on the stream: {out}"
    );
    assert!(out.contains("✓ tag-present"), "and is checked: {out}");
    assert!(
        out.contains("HTTP 200: hi  there"),
        "JSON arguments kept: {out}"
    );
    assert!(out.contains("→ tools/list  id 1  as typed"), "{out}");
    assert!(
        out.contains("error -32602 InvalidParams: params._meta is required"),
        "the body went as typed: {out}"
    );
    assert!(
        out.contains("mcp-tutor lab --scenario NAME"),
        "help mentions scenarios"
    );
    tutor(home.path())
        .arg("lab")
        .write_stdin("call echo [1]\n")
        .assert()
        .failure()
        .stdout(predicates::str::contains(
            "the arguments must be one JSON object",
        ));
}
