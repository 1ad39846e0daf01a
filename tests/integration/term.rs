//! Terminal manners: what every printing command owes the pipe or terminal it writes to.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::decks::GOOD;

/// Runs `args` with its standard output closed before it prints a byte, as `| head -0` would.
fn run_with_reader_gone(args: &[&str]) -> (Option<i32>, String) {
    let home = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("mcp-tutor"))
        .args(args)
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .env("MCP_TUTOR_HOME", home.path().join("data"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    drop(child.stdout.take());
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "`{}` did not end",
            args.join(" ")
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut err).expect("stderr");
    }
    (status.code(), err)
}

#[test]
fn every_printing_command_ends_quietly_when_its_reader_goes_away() {
    let cases: &[&[&str]] = &[
        &["decks", "list"],
        &["--decks", GOOD, "decks", "list"],
        &["decks", "export", "--format", "md"],
        &["--decks", GOOD, "decks", "show", "demo/ack-first"],
        &["decks", "check"],
        &[
            "--decks",
            GOOD,
            "grade",
            "demo/ack-first",
            "the ack comes first",
        ],
        &["--decks", GOOD, "grade", "--json", "demo/ack-first", "x"],
        &["stats"],
        &["lab", "--list"],
        &["--help"],
    ];
    for args in cases {
        let (code, err) = run_with_reader_gone(args);
        assert!(
            matches!(code, Some(0) | Some(141)),
            "`mcp-tutor {}` exited {code:?}: {err}",
            args.join(" ")
        );
        assert!(
            err.is_empty(),
            "`mcp-tutor {}` complained on stderr: {err}",
            args.join(" ")
        );
    }
}

/// Keys that reach the lab in one read are all shown at once. rustyline 17 with an external
/// printer waited for the terminal to become readable again before handling keys it had
/// already buffered, so under arriving frames (or a fast typist) the screen ran one key late;
/// rustyline 19 drains its buffer first.
#[test]
fn lab_shows_every_key_of_a_burst_without_waiting_for_the_next() {
    let home = tempfile::tempdir().expect("temp dir");
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("mcp-tutor"));
    // --plain keeps the screen ASCII, which rexpect's one-byte reads need.
    cmd.args(["--plain", "lab"])
        .env("MCP_TUTOR_HOME", home.path())
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(15_000)).expect("lab in a pty");
    p.exp_string("lab> ").expect("first prompt");
    // The whole line, Enter included, in one write: if the last key waited for a next one,
    // the listen would never be sent.
    p.send("listen tools\r").expect("type");
    p.flush().expect("flush");
    p.exp_string("notifications/subscriptions/acknowledged")
        .expect("the burst ran to its Enter with no further key");
    p.exp_string("lab> ").expect("prompt again");
    // A word no command hints at is echoed as typed: all of it, at once.
    p.send("zzzq").expect("type");
    p.flush().expect("flush");
    p.exp_string("zzzq")
        .expect("the whole burst is echoed with a stream open");
}
