//! Every command that prints prose, at 60, 80 and 120 columns: snapshot-tested, and no line
//! wider than the width unless one word on it is (an address is never broken). The quiz's
//! sessions, `grade`, `decks show`, `stats` and the lab's scenarios have their own layout
//! tests beside them; these are the rest.

use crate::support::{clean, fixtures};

const WIDTHS: [usize; 3] = [60, 80, 120];

/// Ports, the binary's path and the data dir change from run to run; nothing else should.
fn steady(text: &str, home: &std::path::Path) -> String {
    crate::lab::normalise(text)
        .replace(crate::support::bin(), "mcp-tutor")
        .replace(&home.display().to_string(), "[HOME]")
}

/// `args` at `width` columns, checked to fit, snapshot as `name_width`.
fn at_width(name: &str, args: &[&str], stdin: &str) {
    for w in WIDTHS {
        let home = tempfile::tempdir().expect("tmp");
        let out = clean(home.path())
            .args(["--width", &w.to_string()])
            .args(args)
            .write_stdin(stdin)
            .assert()
            .get_output()
            .stdout
            .clone();
        let out = steady(&String::from_utf8_lossy(&out), home.path());
        assert!(!out.trim().is_empty(), "{name} printed nothing");
        for line in out.lines() {
            let long_word = line.split(' ').any(|word| word.chars().count() > w / 2);
            // Wire text and JSON are never wrapped: a broken line would no longer parse.
            let wire = line.trim_start().starts_with('|') || line.contains("{\"");
            assert!(
                line.chars().count() <= w || long_word || wire,
                "{name}: over {w} columns: {line}\n{out}"
            );
        }
        insta::assert_snapshot!(format!("{name}_{w}"), out);
    }
}

#[test]
fn why_a_rule_a_card_and_the_list() {
    at_width("why_rule", &["why", "teardown-tension"], "");
    at_width("why_card", &["why", "beyond-basics/timeout-vs-listen"], "");
    at_width("why_list", &["why"], "");
}

#[test]
fn check_list_rules() {
    at_width("check_list_rules", &["check", "--list-rules"], "");
}

#[test]
fn check_report() {
    at_width(
        "check_report",
        &[
            "check",
            "--stdio",
            "--timeout",
            crate::support::CHECK_WAIT,
            "--",
            "mcp-tutor",
            "serve",
            "--stdio",
        ],
        "",
    );
}

#[test]
fn serve_list_faults() {
    at_width("serve_list_faults", &["serve", "--list-faults"], "");
}

#[test]
fn lab_help_fault_list_and_scenarios() {
    at_width(
        "lab_help_and_faults",
        &["lab"],
        "help\nhelp listen\nfault\nquit\n",
    );
    at_width("lab_list", &["lab", "--list"], "");
}

/// Narration written with line breaks reads as paragraphs at every width.
#[test]
fn lab_scenario_narration() {
    at_width(
        "lab_scenario_two_streams",
        &["lab", "--scenario", "two-streams"],
        "",
    );
}

#[test]
fn quiz_help() {
    let decks = fixtures();
    let decks = decks.to_string_lossy();
    at_width(
        "quiz_help",
        &[
            "--decks",
            &decks,
            "quiz",
            "cram",
            "--card",
            "qz/first-message",
        ],
        "help\nquit\n",
    );
}

/// `decks list` at 60, 80 and 100 columns: no line wider than the screen, whatever the shipped
/// decks hold; the fixture deck's part of it snapshot (the shipped cards change too often).
#[test]
fn decks_list_fits_the_width() {
    for w in [60usize, 80, 100] {
        let home = tempfile::tempdir().expect("tmp");
        let out = clean(home.path())
            .args(["--width", &w.to_string(), "--decks", crate::decks::GOOD])
            .args(["decks", "list"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8_lossy(&out);
        let over: Vec<&str> = out.lines().filter(|l| l.chars().count() > w).collect();
        assert!(over.is_empty(), "over {w} columns:\n{}", over.join("\n"));
        assert!(out.lines().count() > 20, "{out}");
        let demo: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("demo "))
            .take_while(|l| l.starts_with("demo ") || l.starts_with(' '))
            .collect();
        assert!(!demo.is_empty(), "{out}");
        insta::assert_snapshot!(format!("decks_list_{w}"), demo.join("\n"));
    }
}
