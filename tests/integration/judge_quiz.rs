//! The judge and the learner's dispute in the quiz: the rules' verdict at once and the judge's
//! after it, the rating on the final verdict, `!` to dispute (the disputes corpus, the rating,
//! `stats`), a piped run with no spinner, and in a pty the spinner that Ctrl-C cancels (the
//! judge, not the session).

use std::process::Command;

use serde_json::Value;

use crate::judge_stub::{Reply, Stub};
use crate::support::*;

const PARAPHRASE: &str =
    "The server has to send notifications/subscriptions/acknowledged, and nothing may precede it.";

fn quiz(home: &std::path::Path, stub: Option<&Stub>, script: &str) -> String {
    let mut args = vec!["--card", "qz/first-message"];
    if let Some(s) = stub {
        args.extend(["--judge", &s.url, "--judge-model", "llama3.1:8b"]);
    }
    session(home, DAY1, &args, script)
}

fn stats(home: &std::path::Path) -> Value {
    let out = tutor(home, DAY1)
        .args(["stats", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn the_rules_verdict_shows_first_then_the_judges_which_the_rating_follows() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("paraphrase-pass.json")]);
    let out = quiz(
        home.path(),
        Some(&stub),
        &format!("{PARAPHRASE}\n\n\nquit\n"),
    );
    let text = flat(&out);
    let rules = text.find("verdict: PARTIAL").expect(&text);
    let judge = text
        .find("judge (llama3.1:8b): PASS — the rules said PARTIAL; the judge's verdict counts unless you dispute it (`!` at the rating prompt)")
        .expect(&text);
    let prompt = text.find("rate: Enter = easy").expect(&text);
    assert!(rules < judge && judge < prompt, "{text}");
    assert!(!out.contains('\r'), "no spinner in a piped run: {out:?}");
    assert!(!out.contains("asking the judge"), "{out}");
    let log = export(home.path());
    assert_eq!(
        log[0]["verdict"], "pass",
        "the review keeps the final verdict"
    );
    assert_eq!(log[0]["rating"], "easy");
    assert_eq!(stats(home.path())["judged"]["answers"], 1);
    assert_eq!(stats(home.path())["judged"]["agreed_with_rules"], 0);
}

#[test]
fn a_judge_that_fails_leaves_the_rules_verdict_and_the_session_goes_on() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::Raw {
        status: 500,
        body: "{}".into(),
    }]);
    let out = quiz(
        home.path(),
        Some(&stub),
        &format!("{PARAPHRASE}\n\n\nquit\n"),
    );
    assert!(
        flat(&out).contains("judge: not used — HTTP 500; the verdict is the rules' PARTIAL"),
        "{out}"
    );
    assert!(out.contains("saved: hard"), "{out}");
    assert_eq!(
        rated(home.path()),
        [("qz/first-message".into(), "hard".into())]
    );
}

/// A judge that never answers holds the learner no longer than its timeout: the session goes
/// on with the rules' verdict. (No clock is read: the stub stalls for ten minutes, the timeout
/// is one second, and the session ends well inside the test's own bound.)
#[test]
fn a_judge_that_never_answers_holds_the_quiz_only_until_its_timeout() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::Slow(
        std::time::Duration::from_secs(600),
        Box::new(Reply::fixture("paraphrase-pass.json")),
    )]);
    let out = session(
        home.path(),
        DAY1,
        &[
            "--card",
            "qz/first-message",
            "--judge",
            &stub.url,
            "--judge-model",
            "llama3.1:8b",
            "--judge-timeout",
            "1",
        ],
        &format!("{PARAPHRASE}\n\n\nquit\n"),
    );
    assert!(
        flat(&out)
            .contains("judge: not used — no reply within 1 s; the verdict is the rules' PARTIAL"),
        "{out}"
    );
    assert!(out.contains("saved: hard"), "{out}");
}

#[test]
fn a_dispute_keeps_the_answer_sets_the_rating_and_is_counted() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("paraphrase-pass.json")]);
    // The judge says pass; the learner says fail.
    let out = quiz(
        home.path(),
        Some(&stub),
        &format!("{PARAPHRASE}\n\n!\n1\nquit\n"),
    );
    let text = flat(&out);
    assert!(
        text.contains("dispute: the verdict was PASS: which is right? 1 fail · 2 partial · 3 pass"),
        "{text}"
    );
    assert!(
        text.contains("disputed: you say FAIL where it was graded PASS; saving again."),
        "{text}"
    );
    assert_eq!(
        rated(home.path()),
        [("qz/first-message".into(), "again".into())]
    );

    // The answer is a corpus entry, in the data directory, that `decks eval` grades.
    let file = home.path().join("disputes/qz.toml");
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(
        kept.contains("graded pass (rules partial, judge llama3.1:8b pass); the learner says fail"),
        "{kept}"
    );
    assert!(kept.contains(&format!("text = \"{PARAPHRASE}\"")), "{kept}");
    assert!(
        kept.contains("verdict = \"fail\"\ngraded = \"pass\""),
        "{kept}"
    );
    let eval = tutor(home.path(), DAY1)
        .args(["decks", "eval", "--answers"])
        .arg(home.path().join("disputes"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let eval = flat(&String::from_utf8(eval).unwrap());
    assert!(eval.contains("qz/first-message 0/1"), "{eval}");

    // A second dispute, of the rules' verdict alone, with no judge: the learner says pass.
    let out = quiz(home.path(), None, &format!("{PARAPHRASE}\n\n!\n3\nquit\n"));
    assert!(
        flat(&out).contains("disputed: you say PASS where it was graded PARTIAL; saving good."),
        "{out}"
    );
    let s = stats(home.path());
    assert_eq!(s["disputes"][0]["card"], "qz/first-message");
    assert_eq!(s["disputes"][0]["disputes"], 2);
    let text = tutor(home.path(), DAY1)
        .arg("stats")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(
        flat(&String::from_utf8(text).unwrap())
            .contains("Verdicts you disputed 2× qz/first-message"),
    );
    let kept = std::fs::read_to_string(&file).unwrap();
    assert_eq!(kept.matches("[[answers]]").count(), 2);
}

#[test]
fn a_dispute_that_agrees_or_is_left_empty_changes_nothing() {
    let home = tempfile::tempdir().unwrap();
    // Rules: partial. `!` then `2` (partial again), then `!` and Enter: the suggestion stands.
    let out = quiz(
        home.path(),
        None,
        &format!("{PARAPHRASE}\n\n!\n2\n!\n\n\nquit\n"),
    );
    assert!(
        flat(&out).contains("that is the verdict given: nothing to dispute"),
        "{out}"
    );
    assert!(flat(&out).contains("dispute: the verdict stands."), "{out}");
    assert!(out.contains("saved: hard"), "{out}");
    assert!(!home.path().join("disputes").exists());
    assert!(
        stats(home.path())["disputes"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn pty_ctrl_c_cancels_the_judge_not_the_session_and_one_key_disputes() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::Slow(
        std::time::Duration::from_secs(120),
        Box::new(Reply::fixture("paraphrase-pass.json")),
    )]);
    let mut c = Command::new(bin());
    c.env_clear()
        .env("MCP_TUTOR_HOME", home.path())
        .env("MCP_TUTOR_NOW", DAY1)
        .env("MCP_TUTOR_ANSWER_SECS", "5")
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env("HOME", home.path())
        .arg("--decks")
        .arg(fixtures())
        .args(["quiz", "--card", "qz/first-message", "--judge", &stub.url])
        .args(["--judge-model", "llama3.1:8b", "--judge-timeout", "100"]);
    let mut p = rexpect::session::spawn_command(c, Some(crate::support::HANG_MS)).unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line(PARAPHRASE).unwrap();
    p.exp_string("]  ... ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("verdict: PARTIAL").unwrap();
    // rexpect reads bytes as Latin-1: expect ASCII only.
    p.exp_string("asking the judge (llama3.1:8b)").unwrap();
    p.exp_string("Ctrl-C skips it").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("judge: cancelled; the verdict is the rules' PARTIAL")
        .unwrap();
    p.exp_string("easy > ").unwrap();
    // One key disputes, one key says which verdict is right: no Enter.
    p.send("!").unwrap();
    p.flush().unwrap();
    p.exp_string("which is right? 1 fail").unwrap();
    p.exp_string("your verdict > ").unwrap();
    p.send("3").unwrap();
    p.flush().unwrap();
    p.exp_string("saving good").unwrap();
    p.exp_string("saved: good").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("session: 1 rated").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(stub.requests().len(), 1);
    assert_eq!(
        rated(home.path()),
        [("qz/first-message".into(), "good".into())]
    );
    assert!(home.path().join("disputes/qz.toml").is_file());
}
