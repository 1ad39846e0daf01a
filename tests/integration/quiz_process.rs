//! The quiz as processes meet it: a real pty (the clock, undo, resume), a SIGKILL mid-session,
//! two sessions at once, a store held by another process, and a store changed underneath.
//! (The sessions themselves, driven by piped scripts, are in `quiz.rs`.)

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use predicates::prelude::*;

use crate::support::*;

#[test]
fn pty_session_answer_hint_undo_rate_quit_resume() {
    let home = tempfile::tempdir().unwrap();
    let spawn = || {
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
            .args(["quiz", "--deck", "qz"]);
        rexpect::session::spawn_command(c, Some(crate::support::HANG_MS)).unwrap()
    };
    // Like a person, the test waits for each prompt before typing.
    let mut p = spawn();
    p.exp_string("] qz/first-message").unwrap();
    p.exp_string("finish with an empty line").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line("hint").unwrap();
    p.exp_string("cover this: names notifications/subscriptions/acknowledged")
        .unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line(GOOD_FIRST).unwrap();
    p.exp_string("]  ... ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("solid answer (~40 s)").unwrap();
    p.exp_string("(at most hard): Enter = hard").unwrap();
    p.exp_string("easy > ").unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
    p.exp_string("saved: hard").unwrap();
    p.exp_string("] qz/first-followup").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line("undo").unwrap();
    p.exp_string("took back `hard` on qz/first-message")
        .unwrap();
    p.exp_string("] qz/first-message").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line(GOOD_FIRST).unwrap();
    p.exp_string("]  ... ").unwrap();
    p.send_line("").unwrap();
    // Its answer was on screen a minute ago: not `easy`, and said so without calling it failed.
    p.exp_string("you saw its answer minutes ago").unwrap();
    p.exp_string("Enter = good").unwrap();
    p.exp_string("easy > ").unwrap();
    // One key, no Enter: `3` rates good at once.
    p.send("3").unwrap();
    p.flush().unwrap();
    p.exp_string("saved: good").unwrap();
    p.exp_string("] qz/first-followup").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("session: 1 rated").unwrap();
    p.exp_eof().unwrap();
    let log = export(home.path());
    assert_eq!(log.len(), 2);
    assert_eq!(
        (&log[0]["rating"], &log[0]["undone"]),
        (&"hard".into(), &true.into())
    );
    assert_eq!(
        (&log[1]["rating"], &log[1]["undone"]),
        (&"good".into(), &false.into())
    );

    // Resume: the rated card is scheduled away; the follow-up waits first.
    let mut p = spawn();
    p.exp_string("] qz/first-followup").unwrap();
    p.exp_string("] > ").unwrap();
    // A pasted multi-line answer arrives in one burst and is read whole.
    p.send("time out\nand retry\n\n").unwrap();
    p.flush().unwrap();
    p.exp_string("you said").unwrap();
    p.exp_string("easy > ").unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
    p.exp_string("saved:").unwrap();
    p.exp_string("] qz/name-key").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_control('d').unwrap();
    p.exp_string("session: 1 rated").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(rated(home.path()).len(), 2);
}

/// The answer clock ticks in the prompt while the user thinks (no keypress needed), and a tick
/// redrawing the prompt leaves what was typed before it intact. `--plain` shows no clock.
#[test]
fn pty_clock_ticks_without_a_keypress_and_keeps_the_typed_line() {
    let home = tempfile::tempdir().unwrap();
    let spawn = |extra: &[&str]| {
        let mut c = Command::new(bin());
        c.env_clear()
            .env("MCP_TUTOR_HOME", home.path())
            .env("MCP_TUTOR_NOW", DAY1)
            .env("TZ", "UTC")
            .env("NO_COLOR", "1")
            .env("TERM", "xterm")
            .env("HOME", home.path())
            .arg("--decks")
            .arg(fixtures())
            .args(extra)
            .args(["quiz", "--card", "qz/first-message"]);
        rexpect::session::spawn_command(c, Some(crate::support::HANG_MS)).unwrap()
    };
    // rexpect reads the pty byte by byte as Latin-1, so `·` and `“` are matched as "any
    // two or three bytes" (`.{2}`, `.{3}`).
    let mut p = spawn(&[]);
    p.exp_regex(r"\[0:00 .{2} basics 20s\] > ").unwrap();
    // Nothing typed: the face still turns.
    p.exp_regex(r"\[0:02 .{2} basics 20s\] > ").unwrap();
    // Half a line, then a tick, then the rest: the tick redraws, the line buffer stays.
    p.send("notifications/subscriptions/").unwrap();
    p.flush().unwrap();
    p.exp_regex(r"\[0:04 .{2} basics 20s\] > notifications/subscriptions/")
        .unwrap();
    p.send_line("acknowledged comes first").unwrap();
    p.exp_string("]  ... ").unwrap();
    p.send_line("").unwrap();
    p.exp_regex(r"you said\s+.{3}notifications/subscriptions/acknowledged.{3}")
        .unwrap();
    p.exp_string("easy > ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();

    let mut p = spawn(&["--plain"]);
    p.exp_string("answer (targets 20 s / 40 s)> ").unwrap();
    p.send_line("quit").unwrap();
    let rest = p.exp_eof().unwrap();
    assert!(!rest.contains("basics 20s]"), "{rest}");
    assert!(rest.contains("quit"), "{rest}");
}

/// Long lines, typed or pasted, reach the grader exactly as sent: a line longer than the piece
/// rustyline edits at once is joined again without a break (the exact name straddles the
/// seam), and a bracketed paste keeps its blank line inside one answer instead of ending it.
#[test]
fn pty_long_lines_and_pastes_reach_the_grader_whole() {
    let home = tempfile::tempdir().unwrap();
    let spawn = || {
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
            .args(["quiz", "cram", "--card", "qz/first-message"]);
        rexpect::session::spawn_command(c, Some(crate::support::HANG_MS)).unwrap()
    };
    // 1,010 bytes of filler, so the name crosses the 1,024th byte; then 3 kB more.
    let filler = "so ".repeat(336) + "we";
    let typed = format!(
        "{filler} notifications/subscriptions/acknowledged {}",
        "and then some ".repeat(220)
    );
    let mut p = spawn();
    p.exp_string("] > ").unwrap();
    p.send(&typed).unwrap();
    p.send("\r\r").unwrap();
    p.flush().unwrap();
    p.exp_regex(r"you said\s+.{3}notifications/subscriptions/acknowledged.{3}")
        .unwrap();
    p.exp_string("easy > ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();

    // Two paragraphs in one bracketed paste: the name is only in the second.
    let mut p = spawn();
    p.exp_string("] > ").unwrap();
    p.send("\x1b[200~The first paragraph says little.\r\rThe server sends notifications/subscriptions/acknowledged first.\x1b[201~")
        .unwrap();
    p.send("\r\r").unwrap();
    p.flush().unwrap();
    p.exp_regex(r"you said\s+.{3}notifications/subscriptions/acknowledged.{3}")
        .unwrap();
    // "The first paragraph says little" is left unchecked, but its "first" earned a tick, so
    // the quiz asks nothing about it (a question never quotes a credited statement).
    p.exp_string("easy > ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn sigkill_mid_session_loses_no_rated_review() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Command::new(bin());
    c.env_clear()
        .env("MCP_TUTOR_HOME", home.path())
        .env("MCP_TUTOR_NOW", DAY1)
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env("HOME", home.path())
        .arg("--decks")
        .arg(fixtures())
        .args(["quiz", "--deck", "qz"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    crate::support::background(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |needle: &str| loop {
        let line = rx
            .recv_timeout(crate::support::HANG)
            .unwrap_or_else(|_| panic!("timed out waiting for {needle:?}"));
        if line.contains(needle) {
            return;
        }
    };
    wait_for("] qz/first-message");
    write!(stdin, "{GOOD_FIRST}\n\n3\n").unwrap();
    wait_for("saved: good");
    write!(stdin, "time out and retry\n\n1\n").unwrap();
    wait_for("saved: again");
    // Mid-answer on the third card: typed but not finished.
    wait_for("] qz/name-key");
    write!(stdin, "io.model").unwrap();
    stdin.flush().unwrap();
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    assert_eq!(
        rated(home.path()),
        vec![
            ("qz/first-message".into(), "good".into()),
            ("qz/first-followup".into(), "again".into()),
        ]
    );
    // And the store opens cleanly for the next session.
    let out = session(home.path(), DAY1, &["--deck", "qz"], "quit\n");
    assert!(out.contains("] qz/name-key"), "{out}");
}

#[test]
fn two_sessions_at_once_lose_no_review() {
    let home = tempfile::tempdir().unwrap();
    let spawn = |args: &[&str], script: String| {
        let mut child = Command::new(bin())
            .env_clear()
            .env("MCP_TUTOR_HOME", home.path())
            .env("MCP_TUTOR_NOW", DAY1)
            .env("TZ", "UTC")
            .env("NO_COLOR", "1")
            .env("HOME", home.path())
            .arg("--decks")
            .arg(fixtures())
            .arg("quiz")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        crate::support::background(move || stdin.write_all(script.as_bytes()));
        child
    };
    // Three cram sessions over the same deck (`.` gives up, Enter rates) and a review session,
    // all writing at once.
    let cram = ".\n\n".repeat(4);
    let mut children: Vec<_> = (0..3)
        .map(|_| spawn(&["cram", "--deck", "qz"], cram.clone()))
        .collect();
    children.push(spawn(
        &["--deck", "qz"],
        format!("{GOOD_FIRST}\n\n3\ntime out and retry\n\n3\n"),
    ));
    for child in &mut children {
        assert!(child.wait().unwrap().success());
    }
    let log = export(home.path());
    let cram_rows = log.iter().filter(|r| r["mode"] == "cram").count();
    let review_rows = log.iter().filter(|r| r["mode"] == "review").count();
    assert_eq!((cram_rows, review_rows), (12, 2), "{log:?}");
    let ids: std::collections::HashSet<_> = log.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), log.len());
}

#[test]
fn a_store_held_by_another_process_keeps_the_rating_until_it_is_saved() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Command::new(bin());
    c.env_clear()
        .env("MCP_TUTOR_HOME", home.path())
        .env("MCP_TUTOR_NOW", DAY1)
        .env("MCP_TUTOR_ANSWER_SECS", "5")
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env("HOME", home.path())
        .arg("--decks")
        .arg(fixtures())
        // Unwrapped, so each message is one line to wait for.
        .args(["--width", "1000", "quiz", "--tag", "meta"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    crate::support::background(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let mut wait_for = |needle: &str| loop {
        let line = rx
            .recv_timeout(crate::support::HANG)
            .unwrap_or_else(|_| panic!("timed out waiting for {needle:?}: {seen:?}"));
        seen.push(line.clone());
        if line.contains(needle) {
            return;
        }
    };
    wait_for("] qz/name-key");
    // Another process takes the write lock and keeps it past the 10 s the store waits.
    let holder = rusqlite::Connection::open(home.path().join("progress.sqlite3")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    write!(stdin, "io.modelcontextprotocol/subscriptionId\n\n").unwrap();
    stdin.flush().unwrap();
    wait_for("is held by another process; waiting up to 10 s (your rating is kept)");
    wait_for("is locked by another process");
    wait_for("your rating is kept, not yet saved");
    // Nothing was saved, and nothing claimed it was.
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    writeln!(stdin).unwrap();
    stdin.flush().unwrap();
    wait_for("saved: easy");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(
        rated(home.path()),
        vec![("qz/name-key".into(), "easy".into())]
    );
}

#[test]
fn a_changed_store_is_reported_before_the_first_question() {
    let home = tempfile::tempdir().unwrap();
    session(
        home.path(),
        DAY1,
        &["--tag", "meta"],
        "io.modelcontextprotocol/subscriptionId\n\n",
    );
    rusqlite::Connection::open(home.path().join("progress.sqlite3"))
        .unwrap()
        .execute_batch("ALTER TABLE reviews RENAME COLUMN score TO points")
        .unwrap();
    let out = tutor(home.path(), "2026-12-20T10:00:00Z")
        .args(["quiz", "cram"])
        .write_stdin("io.modelcontextprotocol/subscriptionId\n\n")
        .assert()
        .failure()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stdout.contains("] qz/"), "no question is asked: {stdout}");
    assert!(stderr.contains("has no column `score`"), "{stderr}");
    assert!(
        stderr.contains(&home.path().join("progress.sqlite3").display().to_string()),
        "{stderr}"
    );
    // stats says the same, in words rather than SQL.
    tutor(home.path(), DAY1)
        .arg("stats")
        .assert()
        .failure()
        .stderr(predicates::str::contains("has no column `score`"))
        .stderr(predicates::str::contains("SELECT").not());
}

/// A red-flagged card in a one-card session comes straight back, but only after Enter, with
/// the screen cleared of its answer; what is typed at that pause is not the answer. The
/// second try is never suggested `easy`: the card was failed a minute ago.
#[test]
fn pty_a_reask_waits_for_enter_and_is_never_easy() {
    let home = tempfile::tempdir().unwrap();
    let good = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/decks/good");
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
        .arg(good)
        .args(["quiz", "--card", "demo/cancel-http"]);
    let mut p = rexpect::session::spawn_command(c, Some(crate::support::HANG_MS)).unwrap();
    p.exp_string("] > ").unwrap();
    // A wrong option, named by its text (its letter changes with every showing).
    p.send_line("It sends notifications/cancelled").unwrap();
    p.exp_string("Enter = again").unwrap();
    p.exp_string("easy > ").unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
    p.exp_string("red flag: this card comes back next.")
        .unwrap();
    p.exp_string("press Enter for the re-ask").unwrap();
    // A command meant for the shell: dropped, not graded.
    p.send_line("clear; ls").unwrap();
    p.exp_string("\u{1b}[2J").unwrap();
    p.exp_string("asked again after a red flag").unwrap();
    p.exp_string("] > ").unwrap();
    p.send_line("It closes the SSE response stream").unwrap();
    p.exp_string("verdict: PASS").unwrap();
    p.exp_string("you failed it minutes ago").unwrap();
    p.exp_string("Enter = good").unwrap();
    p.exp_string("easy > ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}
