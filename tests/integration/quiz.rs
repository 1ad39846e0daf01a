//! The quiz, driven as a user would through piped scripts: grading, ratings and their caps, the
//! modes, follow-ups, shuffling and the screen's layout. Ptys, kills and concurrent processes
//! are in `quiz_process.rs`.

use crate::support::*;

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn piped_session_grades_explains_and_saves_every_rating() {
    let home = tempfile::tempdir().unwrap();
    let script = format!(
        "{GOOD_FIRST}\n\n\ntime out and retry\n\n3\nio.modelcontextprotocol/subscriptionId\n\n\
         It sends the result of the original listen request.\n\n2\n"
    );
    let out = tutor(home.path(), DAY1)
        .arg("--decks")
        .arg(broken_fixtures())
        .args(["quiz", "--deck", "qz"])
        .write_stdin(script)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    // A broken deck is reported with its location, and the good decks still run.
    assert!(stderr.contains("broken.toml:"), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("broken.toml:") && l.split(':').count() >= 4),
        "file:line:col expected in {stderr}"
    );
    // The question shows its kind and targets; the answer instructions say how to finish.
    assert!(stdout.contains("qz/first-message · free recall · targets 20 s basics / 40 s solid"));
    assert!(stdout.contains("finish with an empty line"));
    // The checklist with the matched span, then the model answers and the code.
    assert!(flat(&stdout).contains("✓ names notifications/subscriptions/acknowledged (required) — you said “notifications/subscriptions/acknowledged”"), "{stdout}");
    assert!(stdout.contains("── basics (~20 s)"));
    assert!(stdout.contains("── solid answer (~40 s)"));
    assert!(stdout.contains("── code (json)"));
    // The follow-up is asked right after its parent.
    let parent = stdout.find("] qz/first-message").unwrap();
    let follow = stdout.find("] qz/first-followup").unwrap();
    let next = stdout.find("] qz/name-key").unwrap();
    assert!(parent < follow && follow < next);
    // Fast and complete: Enter takes the suggested `easy`; overrides are one key.
    assert_eq!(
        rated(home.path()),
        vec![
            ("qz/first-message".into(), "easy".into()),
            ("qz/first-followup".into(), "good".into()),
            ("qz/name-key".into(), "easy".into()),
            ("qz/graceful-close".into(), "hard".into()),
        ]
    );
    assert!(stdout.contains("session: 4 rated"));
    // The log keeps what the grader saw.
    let log = export(home.path());
    assert_eq!(log[0]["verdict"], "pass");
    assert_eq!(log[0]["suggested"], "easy");
    assert_eq!(log[0]["mode"], "review");
    assert_eq!(log[0]["answer_ms"], 5000);
    assert!(log[0]["card_hash"].as_str().unwrap().len() == 16);
}

#[test]
fn a_red_flag_forces_again_and_brings_the_card_back() {
    let home = tempfile::tempdir().unwrap();
    let script =
        "It is a handshake: notifications/subscriptions/acknowledged comes first.\n\n4\nquit\n";
    let out = session(home.path(), DAY1, &["--card", "qz/first-message"], script);
    assert!(
        flat(&out).contains("⚑ RED FLAG calling it a handshake — you said “It is a handshake”"),
        "{out}"
    );
    assert!(flat(&out).contains("correction: It is scoped to one stream; there is no initialize handshake. (SUB §Acknowledgment)"));
    assert!(
        out.contains("capped:"),
        "typing 4 after a red flag is capped: {out}"
    );
    assert!(out.contains("comes back later in this session"));
    assert_eq!(
        rated(home.path()),
        vec![("qz/first-message".into(), "again".into())]
    );
    let log = export(home.path());
    assert_eq!(log[0]["red_flags"][0], "calling it a handshake");
    assert_eq!(log[0]["verdict"], "fail");

    // Answered again in the same session: the card really is asked twice.
    let home = tempfile::tempdir().unwrap();
    let script = format!(
        "It is a handshake: notifications/subscriptions/acknowledged comes first.\n\n\n\
         skip\n{GOOD_FIRST}\n\n\n"
    );
    let out = session(home.path(), DAY1, &["--card", "qz/first-message"], &script);
    assert_eq!(count(&out, "] qz/first-message ·"), 2, "{out}");
    let r = rated(home.path());
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].1, "again");
}

#[test]
fn over_time_hints_and_deeper_cap_the_rating() {
    let home = tempfile::tempdir().unwrap();
    let out = tutor(home.path(), DAY1)
        .env("MCP_TUTOR_ANSWER_SECS", "55")
        .args(["quiz", "--card", "qz/graceful-close"])
        .write_stdin("It sends the result of the listen request.\n\n4\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("over time: 55 s against a 40 s target"),
        "{out}"
    );
    assert!(out.contains("(at most hard)"));
    assert_eq!(rated(home.path())[0].1, "hard");

    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["--card", "qz/first-message"],
        &format!("deeper\ndeeper\ndeeper\n{GOOD_FIRST}\n\n\n"),
    );
    assert!(out.contains("deeper 1/2"));
    assert!(out.contains("The server speaks first."));
    assert!(out.contains("the long explanation"));
    assert!(out.contains("went deeper before answering"));
    assert_eq!(rated(home.path())[0].1, "hard");
    assert_eq!(export(home.path())[0]["deeper"], 3);
}

#[test]
fn cram_practises_without_touching_the_schedule() {
    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["cram", "--tag", "meta"],
        "io.modelcontextprotocol/subscriptionId\n\n",
    );
    assert!(out.contains("cram (the schedule is not touched)"));
    assert!(out.contains("cram: schedule unchanged"));
    let log = export(home.path());
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["mode"], "cram");
    assert_eq!(log[0]["scheduled"], false);
    // Still a new card for review mode.
    let out = session(home.path(), DAY1, &["--deck", "qz"], "quit\n");
    assert!(out.contains("] qz/first-message"));
    assert!(out.contains("3 questions"), "{out}");
}

#[test]
fn nothing_due_says_when_and_offers_cram() {
    let home = tempfile::tempdir().unwrap();
    session(
        home.path(),
        DAY1,
        &["--tag", "meta"],
        "io.modelcontextprotocol/subscriptionId\n4\n",
    );
    // Easy on a new card graduates it: due in 8 days.
    let out = session(home.path(), DAY1, &["--tag", "meta"], "y\nquit\n");
    assert!(
        out.contains("Nothing is due right now. Next card due Mon 2026-12-07 04:00 (in 8 days)."),
        "{out}"
    );
    assert!(out.contains("Cram instead"));
    assert!(
        out.contains("] qz/name-key"),
        "cram offered and taken: {out}"
    );
    let out = session(home.path(), DAY1, &["--tag", "meta"], "n\n");
    assert!(!out.contains("] qz/name-key"));
    // Eight days later it is due again.
    let out = session(
        home.path(),
        "2026-12-07T09:00:00Z",
        &["--tag", "meta"],
        "quit\n",
    );
    assert!(out.contains("] qz/name-key"), "{out}");
}

#[test]
fn the_daily_new_card_cap_holds_across_sessions() {
    let home = tempfile::tempdir().unwrap();
    let out = session(home.path(), DAY1, &["--deck", "qz", "--new", "1"], "skip\n");
    assert!(out.contains("1 question"), "{out}");
    session(
        home.path(),
        DAY1,
        &["--deck", "qz", "--new", "1"],
        &format!("{GOOD_FIRST}\n\n4\nquit\n"),
    );
    let out = session(home.path(), DAY1, &["--deck", "qz", "--new", "1"], "n\n");
    assert!(out.contains("Today's 1 new cards are done"), "{out}");
}

#[test]
fn interview_mode_ends_with_a_report() {
    let home = tempfile::tempdir().unwrap();
    let script =
        format!("{GOOD_FIRST}\n\n\nI would just wait forever.\n\n\nIt is a handshake.\n\n\n");
    let out = session(
        home.path(),
        DAY1,
        &["interview", "-n", "2", "--deck", "qz"],
        &script,
    );
    assert!(out.contains("mock interview · 2 questions ·"), "{out}");
    assert!(out.contains("interview report"));
    assert!(out.contains("would pass: qz/first-message"), "{out}");
    assert!(out.contains("would not pass: qz/first-followup"), "{out}");
    assert!(out.contains("missing: time out and retry"));
    assert!(
        out.contains("of 3 answers would pass an interviewer"),
        "{out}"
    );
    assert!(export(home.path()).iter().all(|r| r["mode"] == "interview"));
}

#[test]
fn interviewer_ticks_grade_the_card() {
    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["--interviewer", "--card", "qz/first-message"],
        "1 r1\n\nquit\n",
    );
    assert!(out.contains("rubric — interviewer only"), "{out}");
    assert!(out.contains("1. names notifications/subscriptions/acknowledged [required]"));
    assert!(out.contains("r1. calling it a handshake"));
    assert!(out.contains("follow-ups asked next: first-followup"));
    assert!(out.contains("FAIL"));
    // Only the interviewer's instructions: not the candidate's free-text ones beside them.
    assert!(flat(&out).contains("Type the numbers of the points you heard"));
    assert!(!out.contains("Answer in as many lines"), "{out}");
    // The ticks section holds the ticks: its heading is followed by the verdict, not another
    // heading.
    let ticks = out.find("── interviewer's ticks").expect("ticks heading");
    let next = out[ticks..].lines().nth(1).unwrap_or_default();
    assert!(next.starts_with("verdict:"), "{out}");
    let log = export(home.path());
    assert_eq!(log[0]["mode"], "interviewer");
    assert_eq!(log[0]["rating"], "again");
    assert_eq!(
        log[0]["points_hit"][0],
        "names notifications/subscriptions/acknowledged"
    );
    assert_eq!(log[0]["red_flags"][0], "calling it a handshake");
}

#[test]
fn exam_mode_ranks_and_a_changed_card_is_announced() {
    let home = tempfile::tempdir().unwrap();
    // Copy the deck so we can edit a card between sessions.
    let decks = home.path().join("decks");
    std::fs::create_dir_all(&decks).unwrap();
    let text = std::fs::read_to_string(fixtures().join("qz.toml")).unwrap();
    std::fs::write(decks.join("qz.toml"), &text).unwrap();
    let run = |now: &str, args: &[&str], script: &str| {
        let mut c = assert_cmd::Command::new(bin());
        env(c.env_clear(), home.path(), now);
        let out = c
            .arg("--decks")
            .arg(&decks)
            .arg("quiz")
            .args(args)
            .write_stdin(script.to_string())
            .timeout(crate::support::HANG)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    run(
        DAY1,
        &["--tag", "meta"],
        "io.modelcontextprotocol/subscriptionId\n4\n",
    );
    std::fs::write(
        decks.join("qz.toml"),
        text.replace(
            "Name the _meta key that tags",
            "Name the exact _meta key that tags",
        ),
    )
    .unwrap();
    let out = run(
        "2026-12-01T10:00:00Z",
        &["--exam", "2026-12-20", "--tag", "meta"],
        "quit\n",
    );
    // Not due until 12-07, but predicted to be forgotten by the exam: asked now.
    assert!(
        out.contains("review ranked for your exam on 2026-12-20"),
        "{out}"
    );
    assert!(out.contains("] qz/name-key"));
    assert!(
        out.contains("this card changed since you last answered it"),
        "{out}"
    );
}

#[test]
fn filters_that_match_nothing_are_an_error_that_says_where_to_look() {
    let home = tempfile::tempdir().unwrap();
    tutor(home.path(), DAY1)
        .args(["quiz", "cram", "--tag", "no-such-tag"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no tag `no-such-tag` (`mcp-tutor decks export --format json` lists each card's tags)",
        ));
    tutor(home.path(), DAY1)
        .args(["quiz", "--card", "qz/no-such-card"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no card `qz/no-such-card`"));
}

/// One phrasing, the nearest names, for every mistyped filter.
#[test]
fn mistyped_cards_decks_and_tags_get_the_nearest_names() {
    let home = tempfile::tempdir().unwrap();
    for (args, want) in [
        (
            ["--card", "qz/first-mesage"],
            "no card `qz/first-mesage`: did you mean `qz/first-message`?",
        ),
        (["--deck", "qzz"], "no deck `qzz`: did you mean `qz`?"),
        (
            ["--tag", "acknowledgment"],
            "no tag `acknowledgment`: did you mean `acknowledgement`?",
        ),
    ] {
        tutor(home.path(), DAY1)
            .arg("quiz")
            .args(args)
            .write_stdin("")
            .assert()
            .code(2)
            .stderr(predicates::str::contains(want));
    }
}

/// The whole screen of a `--plain` session: words instead of symbols, no box drawing, no
/// escape codes, one line per state change.
#[test]
fn plain_transcript_layout() {
    let out = transcript(&["--plain"]);
    assert!(!out.contains('\u{1b}') && !out.contains('─') && !out.contains('✓'));
    // What `--plain` promises: no decorative glyph a screen reader would read out.
    for glyph in ['⏱', '“', '”', '—', '§', '·'] {
        assert!(!out.contains(glyph), "{glyph} in {out}");
    }
    // A follow-up says so in its own header, not on an orphan line before a blank one.
    assert!(!out.lines().any(|l| l.trim() == "follow-up:"), "{out}");
    assert!(out.contains("qz/first-followup, follow-up,"), "{out}");
    // A correction cites sections by short name: the command that gives their addresses.
    assert!(
        out.contains("the sections cited, with their addresses: mcp-tutor why qz/first-message"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

/// The same session on terminals 60, 80 and 120 columns wide: prose filled to the width with
/// hanging indents, method names and JSON never broken.
#[test]
fn transcript_layout_at_60_80_120_columns() {
    for width in ["60", "80", "120"] {
        let out = transcript(&["--width", width]);
        let w: usize = width.parse().unwrap();
        for line in out.lines() {
            let long_word = line.split(' ').any(|word| word.chars().count() > w / 2);
            assert!(
                line.chars().count() <= w || long_word || line.contains("> "),
                "line over {w} columns: {line}"
            );
        }
        assert!(out.contains(
            r#"  {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"}"#
        ));
        insta::assert_snapshot!(format!("transcript_layout_{width}"), out);
    }
}

/// One scripted session on `qz/first-message` (a hint, a red flag, the follow-up, quit), with
/// the data dir and the score masked.
fn transcript(extra: &[&str]) -> String {
    let home = tempfile::tempdir().unwrap();
    let out = tutor(home.path(), DAY1)
        .args(extra)
        .args(["quiz", "--card", "qz/first-message"])
        .write_stdin(
            "hint\nIt is a handshake: notifications/subscriptions/acknowledged.\n\n\n\
             time out and retry\n\n\nquit\n",
        )
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out)
        .unwrap()
        .replace(&home.path().display().to_string(), "[HOME]");
    // The grader's score formula is the grader's business: keep it out of the layout snapshot.
    let out: String = out
        .lines()
        .map(
            |l| match (l.find("score "), l.find("% ·").or_else(|| l.find("%,"))) {
                (Some(a), Some(b)) if a < b => format!("{}score [N]{}\n", &l[..a], &l[b..]),
                _ => format!("{l}\n"),
            },
        )
        .collect();
    out
}

#[test]
fn deeper_on_a_card_without_a_ladder_says_so_and_costs_nothing() {
    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["--card", "qz/name-key"],
        "deeper\nio.modelcontextprotocol/subscriptionId\n\n",
    );
    assert!(out.contains("this card has no go-deeper ladder"), "{out}");
    assert!(!out.contains("went deeper before answering"), "{out}");
    assert_eq!(export(home.path())[0]["deeper"], 0);
    assert_ne!(rated(home.path())[0].1, "hard", "{out}");
}

/// The options of the one choice card in a session's output, as shown: (letter, text).
fn shown_options(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("  ")?;
            let (letter, text) = rest.split_once(". ")?;
            (letter.len() == 1 && letter.chars().all(|c| c.is_ascii_lowercase()))
                .then(|| (letter.to_string(), text.to_string()))
        })
        .filter(|(_, t)| !t.starts_with("right:") && !t.starts_with("wrong:"))
        .collect()
}

#[test]
fn choice_options_are_shuffled_per_showing_and_graded_by_identity() {
    let good = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/decks/good");
    let right = ["toolsListChanged", "resourceSubscriptions"];
    let mut orders = std::collections::BTreeSet::new();
    for seed in 1..=8u64 {
        let seed = seed.to_string();
        let home = tempfile::tempdir().unwrap();
        let run = |script: &str| {
            let out = tutor(home.path(), DAY1)
                .env("MCP_TUTOR_SHUFFLE_SEED", &seed)
                .arg("--decks")
                .arg(&good)
                .args(["quiz", "--card", "demo/two-right"])
                .write_stdin(script.to_string())
                .assert()
                .success()
                .get_output()
                .stdout
                .clone();
            String::from_utf8(out).unwrap()
        };
        // Look first (skip), then answer the same showing's letters: a seed fixes the order.
        let looked = shown_options(&run("skip\n"));
        assert_eq!(looked.len(), 3, "{looked:?}");
        orders.insert(looked.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>());
        let letters: Vec<&str> = looked
            .iter()
            .filter(|(_, t)| right.contains(&t.as_str()))
            .map(|(l, _)| l.as_str())
            .collect();
        let out = run(&format!("{}\n\n", letters.join(", ")));
        assert_eq!(shown_options(&out), looked, "same order within the showing");
        assert!(out.contains("PASS"), "{out}");
        // The feedback's right/wrong letters agree with the options as shown.
        for (l, t) in &looked {
            let tag = if right.contains(&t.as_str()) {
                "right"
            } else {
                "wrong"
            };
            assert!(out.contains(&format!("  {l}. {tag}:")), "{l} {t}: {out}");
        }
        // Stored by identity: the deck's own letters, exactly what `grade` reports.
        let stored = export(home.path());
        let hit = stored[0]["points_hit"].clone();
        let graded = tutor(home.path(), DAY1)
            .arg("--decks")
            .arg(&good)
            .args(["grade", "demo/two-right", "a, c", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let graded: serde_json::Value = serde_json::from_slice(&graded).unwrap();
        let want: Vec<serde_json::Value> = graded["points"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["hit"] == true)
            .map(|p| p["label"].clone())
            .collect();
        assert_eq!(hit, serde_json::Value::Array(want), "seed {seed}");
    }
    assert!(
        orders.len() > 1,
        "the order changes between showings: {orders:?}"
    );
}

#[test]
fn a_card_that_builds_on_another_deck_waits_until_that_card_is_introduced() {
    let order = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/quiz-order");
    let home = tempfile::tempdir().unwrap();
    let run = |script: &str| {
        let out = tutor(home.path(), DAY1)
            .arg("--decks")
            .arg(&order)
            .args(["quiz", "--deck", "a", "--deck", "b"])
            .write_stdin(script.to_string())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    // Day one: the parent, then NOT its follow-up (b/basis is new), then b/basis.
    let out = run("notifications/subscriptions/acknowledged\n\nsubscriptions/listen\n\n");
    let parent = out.find("] a/parent ·").expect("parent asked");
    let basis = out.find("] b/basis ·").expect("basis asked");
    assert!(parent < basis, "{out}");
    assert!(
        !out.contains("a/needs"),
        "the follow-up waits for b/basis: {out}"
    );
    // Once b/basis has been answered, the follow-up joins the new cards.
    let out = run("notifications/cancelled\n\n");
    assert!(out.contains("] a/needs ·"), "{out}");
}

#[test]
fn undo_takes_back_the_red_flag_re_ask_too() {
    let home = tempfile::tempdir().unwrap();
    // A red flag (rated `again`, the card is queued to come back), then `undo` at the
    // follow-up, then a good answer: the card must not come back a third time.
    let script = format!(
        "It is a handshake: notifications/subscriptions/acknowledged comes first.\n\n\n\
         undo\n{GOOD_FIRST}\n\n\ntime out and retry\n\n\n"
    );
    let out = session(home.path(), DAY1, &["--card", "qz/first-message"], &script);
    assert!(out.contains("comes back later in this session"), "{out}");
    assert!(
        out.contains("took back `again` on qz/first-message"),
        "{out}"
    );
    assert_eq!(count(&out, "] qz/first-message ·"), 2, "{out}");
    // Its answer was on screen a minute ago: the second try is not `easy`, and the cap says
    // why without calling the undone answer a failure it no longer counts as.
    assert!(out.contains("you saw its answer minutes ago"), "{out}");
    assert_eq!(
        rated(home.path()),
        vec![
            ("qz/first-message".into(), "good".into()),
            ("qz/first-followup".into(), "easy".into())
        ]
    );
}

#[test]
fn the_interview_report_counts_questions_not_re_asks() {
    let home = tempfile::tempdir().unwrap();
    let script = format!(
        "It is a handshake: notifications/subscriptions/acknowledged comes first.\n\n\n\
         time out and retry\n\n\n{GOOD_FIRST}\n\n\n"
    );
    let out = session(
        home.path(),
        DAY1,
        &["interview", "-n", "1", "--card", "qz/first-message"],
        &script,
    );
    assert!(out.contains("mock interview · 1 question ·"), "{out}");
    assert!(!out.contains("question · 1 question"), "{out}");
    // Asked three times (question, follow-up, re-ask), but two questions were put.
    assert_eq!(count(&out, "] qz/first-message ·"), 2, "{out}");
    assert!(
        out.contains("1 of 2 answers would pass an interviewer"),
        "{out}"
    );
    assert!(
        out.contains("asked again after the red flag: right this time"),
        "{out}"
    );
    assert!(out.contains("session: 3 rated"), "{out}");
}

#[test]
fn a_quit_cram_session_does_not_promise_a_resume() {
    let home = tempfile::tempdir().unwrap();
    let out = session(home.path(), DAY1, &["cram", "--deck", "qz"], "quit\n");
    assert!(!out.contains("to resume"), "{out}");
    assert!(out.contains("3 more not practised"), "{out}");
}

#[test]
fn a_name_it_card_keeps_its_own_short_target() {
    let home = tempfile::tempdir().unwrap();
    let good = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/decks/good");
    let out = tutor(home.path(), DAY1)
        .arg("--decks")
        .arg(good)
        .args(["quiz", "cram", "--card", "demo/ack-name"])
        .write_stdin("notifications/subscriptions/acknowledged\n\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("targets 5 s basics / 5 s solid"), "{out}");
    // The pinned 5 s answer is within the 5 s target, not over it.
    assert!(out.contains("5 s (within the 5 s basics)"), "{out}");
}

/// The question counter counts questions: a re-ask after a red flag keeps its number and adds
/// nothing to the total, and quitting with only the re-ask left reports nothing as not asked.
#[test]
fn a_reask_keeps_its_number_and_is_not_counted_as_not_asked() {
    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["interview", "-n", "1", "--card", "qz/first-message"],
        "It is a handshake: notifications/subscriptions/acknowledged.\n\n\n\
         time out and retry\n\n\n",
    );
    assert!(out.contains("[1/1] qz/first-message"), "{out}");
    assert!(out.contains("[2/2] qz/first-followup · follow-up"), "{out}");
    assert!(
        out.contains("[1/2] qz/first-message · asked again after a red flag"),
        "{out}"
    );
    assert!(!out.contains("/3]"), "{out}");
    // Quit at the re-ask: the one question asked twice is not "not asked".
    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["interview", "-n", "1", "--card", "qz/first-message"],
        "It is a handshake: notifications/subscriptions/acknowledged.\n\n\n\
         time out and retry\n\n\nquit\n",
    );
    assert!(!out.contains("not asked in this interview"), "{out}");
}

/// `-n` says how many questions in every mode: an interview's length, and in review or cram
/// the same as --limit (it was silently ignored outside interviews); the two disagreeing is
/// an error.
#[test]
fn dash_n_counts_questions_in_every_mode() {
    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["cram", "--deck", "qz", "-n", "2"],
        "quit\n",
    );
    assert!(flat(&out).contains("· 2 questions ·"), "{out}");
    let out = session(
        home.path(),
        DAY1,
        &["--interviewer", "--deck", "qz", "-n", "2"],
        "quit\n",
    );
    assert!(flat(&out).contains("· 2 questions ·"), "{out}");
    tutor(home.path(), DAY1)
        .args(["quiz", "-n", "2", "--limit", "3"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "-n 2 and --limit 3 both say how many questions to ask",
        ));
}

/// A name-it card's hint describes the name and never prints it, and a card without a
/// go-deeper ladder does not offer `deeper`, while one with a ladder does.
#[test]
fn a_name_hint_gives_the_shape_and_deeper_is_offered_only_with_a_ladder() {
    let home = tempfile::tempdir().unwrap();
    let out = session(
        home.path(),
        DAY1,
        &["--card", "qz/name-key"],
        "hint\nhint\nhint\nhint\nio.modelcontextprotocol/subscriptionId\n\n",
    );
    // Three hints shown; the fourth found none left and is not counted.
    assert!(flat(&out).contains("you took 3 hints"), "{out}");
    let asked = flat(&out[..out.find("verdict:").expect("graded")]);
    assert!(
        asked.contains("hint: 2 parts joined by `/`; the first is itself 2 words joined by `.`"),
        "{out}"
    );
    assert!(
        asked.contains(
            "hint: each part's first letter and length: i… (23 characters) / s… (14 characters)"
        ),
        "{out}"
    );
    assert!(!asked.contains("io.modelcontextprotocol"), "{asked}");
    assert!(
        asked.contains("Commands: hint, skip, undo, help, quit."),
        "{out}"
    );
    assert!(!asked.contains("deeper"), "{asked}");
    let home = tempfile::tempdir().unwrap();
    let out = session(home.path(), DAY1, &["--card", "qz/first-message"], "quit\n");
    assert!(
        flat(&out).contains("Commands: hint, deeper, skip, undo, help, quit."),
        "{out}"
    );
}

/// Quitting an exam session says how to resume the exam, not the daily review.
#[test]
fn quitting_an_exam_session_resumes_the_exam() {
    let home = tempfile::tempdir().unwrap();
    let out = session(home.path(), DAY1, &["--exam", "2026-12-15"], "quit\n");
    assert!(
        flat(&out)
            .contains("more waiting: run `mcp-tutor quiz --exam 2026-12-15` again to resume."),
        "{out}"
    );
}
