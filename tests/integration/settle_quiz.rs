//! An unsure verdict in the quiz: the grader could not check a statement nothing credited, so
//! before the card's answer is shown the learner is asked whether they keep it or take it back.
//! No reply picks points. A script (stdin not a terminal) is never asked: its next line is its
//! rating.

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
fn an_unchecked_statement_is_put_to_the_learner_before_the_answer_and_picks_no_points() {
    let home = tempfile::tempdir().unwrap();
    let mut p = pty(home.path());
    p.exp_string("] > ").unwrap();
    p.send_line(WITH_AN_INVENTION).unwrap();
    p.exp_string("]  ... ").unwrap();
    p.send_line("").unwrap();
    let before = p.exp_string("Keep it in your answer?").unwrap();
    // Asked before the verdict and the card's answer are on screen, about the statement
    // nothing credited, with no points to pick.
    assert!(!before.contains("verdict:"), "{before}");
    assert!(!before.contains("solid answer"), "{before}");
    assert!(before.contains("It also resends the whole"), "{before}");
    assert!(!before.contains("must send notifications"), "{before}");
    p.send_line("n").unwrap();
    p.exp_string("taken back").unwrap();
    p.exp_string("verdict: PASS").unwrap();
    // Taken back, the answer is graded as if the statement was never typed: a quick pass.
    p.exp_string("Enter = easy").unwrap();
    p.exp_string("easy > ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("saved: easy").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(
        rated(home.path()),
        [("qz/first-message".into(), "easy".into())]
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
    assert!(!out.contains("Keep it in your answer?"), "{out}");
    assert!(flat(&out).contains("not checked against the card"), "{out}");
}
