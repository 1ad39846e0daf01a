//! An unsure verdict in the quiz: the grader could not check a statement, so before rating the
//! learner is asked one short question, and the reply settles the verdict. A script (stdin not
//! a terminal) is never asked: its next line is its rating.

use crate::support::*;

const WITH_AN_INVENTION: &str = "The server must send notifications/subscriptions/acknowledged first, before any change notification. It also resends the whole tools list inside it.";

fn pty(home: &std::path::Path) -> rexpect::session::PtySession {
    let mut c = crate::support::pty(home);
    c.env("MCP_TUTOR_NOW", DAY1)
        .env("MCP_TUTOR_ANSWER_SECS", "5")
        .arg("--decks")
        .arg(fixtures())
        .args(["quiz", "--card", "qz/first-message"]);
    rexpect::session::spawn_command(c, Some(crate::support::HANG_MS)).unwrap()
}

#[test]
fn an_unchecked_statement_is_put_to_the_learner_and_a_no_fails_the_answer() {
    let home = tempfile::tempdir().unwrap();
    let mut p = pty(home.path());
    p.exp_string("] > ").unwrap();
    p.send_line(WITH_AN_INVENTION).unwrap();
    p.exp_string("]  ... ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("verdict: PASS (not sure)").unwrap();
    p.exp_string("is it right? y / n").unwrap();
    p.send_line("n").unwrap();
    // rexpect reads bytes as Latin-1: the arrow in "pass → fail" is not matched.
    p.exp_string("verdict: pass ").unwrap();
    p.exp_string("Enter = again").unwrap();
    p.exp_string("easy > ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("saved: again").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(
        rated(home.path()),
        [("qz/first-message".into(), "again".into())]
    );
}

#[test]
fn a_script_is_not_asked() {
    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["--card", "qz/first-message"],
        &format!("{WITH_AN_INVENTION}\n\n\nquit\n"),
    );
    assert!(!out.contains("is it right?"), "{out}");
    assert!(flat(&out).contains("not checked against the card"), "{out}");
}
