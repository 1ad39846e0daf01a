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
    let deadline = Instant::now() + crate::support::HANG;
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
        &["--decks", GOOD, "decks", "check"],
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
    let mut cmd = super::support::pty(home.path());
    // --plain keeps the screen ASCII, which rexpect's one-byte reads need.
    cmd.args(["--plain", "lab"]);
    let mut p =
        rexpect::session::spawn_command(cmd, Some(crate::support::HANG_MS)).expect("lab in a pty");
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

fn tutor_out(args: &[&str]) -> String {
    let out = super::support::isolated()
        .args(args)
        .timeout(crate::support::HANG)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("UTF-8")
}

/// What bash offers for `words`, the last one being completed, with the generated script
/// sourced the way bash-completion does.
fn bash_complete(script: &str, words: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("mcp-tutor.bash");
    std::fs::write(&file, script).expect("write the script");
    let cword = words.len() - 1;
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let prog = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; _mcp__tutor mcp-tutor '{}' '{}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file.display(),
        quoted.join(" "),
        words[cword],
        words[cword - 1]
    );
    let out = Command::new("bash")
        .args(["-c", &prog])
        .output()
        .expect("bash runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_card_ids_scenarios_and_subcommand_options() {
    let script = tutor_out(&["--decks", GOOD, "completions", "bash"]);
    let cards = bash_complete(&script, &["mcp-tutor", "quiz", "--card", "demo/ack-f"]);
    assert_eq!(cards, ["demo/ack-first"]);
    let cards = bash_complete(&script, &["mcp-tutor", "grade", "demo/ack-f"]);
    assert_eq!(cards, ["demo/ack-first"]);
    let cards = bash_complete(&script, &["mcp-tutor", "decks", "show", "demo/ack-f"]);
    assert_eq!(cards, ["demo/ack-first"]);
    // `why` takes a rule or a card.
    let rules = bash_complete(&script, &["mcp-tutor", "why", "tag-ma"]);
    assert_eq!(rules, ["tag-matches-id"]);
    let cards = bash_complete(&script, &["mcp-tutor", "why", "demo/ack-f"]);
    assert_eq!(cards, ["demo/ack-first"]);
    let scenarios = bash_complete(&script, &["mcp-tutor", "lab", "--scenario", "ack"]);
    assert_eq!(scenarios, ["ack-first"]);
    let opts = bash_complete(&script, &["mcp-tutor", "stats", "--ex"]);
    assert_eq!(opts, ["--exam"]);
}

#[test]
fn every_shell_gets_a_script_and_man_gets_a_page() {
    for (shell, card_listed) in [
        ("bash", true),
        ("zsh", true),
        ("fish", true),
        ("powershell", false),
        ("elvish", false),
    ] {
        let script = tutor_out(&["--decks", GOOD, "completions", shell]);
        assert!(script.contains("mcp-tutor"), "{shell}");
        assert!(
            script.contains("completions"),
            "{shell} completes its subcommands"
        );
        assert_eq!(script.contains("demo/ack-first"), card_listed, "{shell}");
    }
    let page = tutor_out(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH mcp-tutor 1"),
        "{page}"
    );
    assert!(page.contains(".SH SUBCOMMANDS"), "{page}");
    // The pages it refers to exist.
    assert!(page.contains("mcp\\-tutor\\-quiz(1)"), "{page}");
    let dir = tempfile::tempdir().expect("temp dir");
    let dir_arg = dir.path().display().to_string();
    tutor_out(&["man", "--out-dir", &dir_arg]);
    for page in ["mcp-tutor.1", "mcp-tutor-quiz.1", "mcp-tutor-decks-show.1"] {
        assert!(dir.path().join(page).is_file(), "{page}");
    }
}

/// The lab's narration is filled to 60, 80 and 120 columns with hanging indents, while wire
/// text (`| data: {…}`) stays on one line however long.
#[test]
fn lab_output_fits_the_width_and_keeps_wire_lines_whole() {
    for w in [60usize, 80, 120] {
        let out = super::support::isolated()
            .args(["--width", &w.to_string(), "lab"])
            .write_stdin("listen tools\nwire on\nchange tools\nclose all\n")
            .timeout(crate::support::HANG)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).expect("UTF-8");
        let mut wrapped = 0;
        let mut prev_indent = 0;
        for line in out.lines() {
            let indent = line.len() - line.trim_start().len();
            let wire = line.trim_start().starts_with('|');
            let long_word = line.split(' ').any(|word| word.chars().count() > w / 2);
            assert!(
                wire || long_word || line.chars().count() <= w,
                "over {w} columns: {line}\n{out}"
            );
            if !wire && indent == prev_indent + 2 {
                wrapped += 1;
            }
            prev_indent = indent;
        }
        assert!(wrapped > 0, "nothing wrapped at {w}:\n{out}");
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with("| data: {\"jsonrpc\"") && l.ends_with("}}}")),
            "a whole wire line:\n{out}"
        );
    }
}

/// An error on a terminal is filled to its width with a hanging indent (a sentence broke
/// mid-word at the terminal's edge); piped, it stays one line for scripts that match it.
#[test]
fn an_error_on_a_terminal_is_filled_to_its_width() {
    let home = tempfile::tempdir().expect("temp dir");
    let mut cmd = super::support::pty(home.path());
    cmd.args(["--width", "60", "why", "ack-frist"]);
    let mut p = rexpect::session::spawn_command(cmd, Some(crate::support::HANG_MS)).expect("a pty");
    let out = p.exp_eof().expect("it ends");
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    assert!(lines.len() > 1, "{out}");
    assert!(lines.iter().all(|l| l.chars().count() <= 60), "{out}");
    assert!(lines[1].starts_with("  "), "a hanging indent: {out}");
    assert!(
        super::support::flat(&out).contains("did you mean `ack-first`?"),
        "{out}"
    );
}
