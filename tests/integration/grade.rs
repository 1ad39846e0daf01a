//! `mcp-tutor grade` end to end, and the grader's behaviour on the fixture cards: paraphrases,
//! typos, near-miss identifiers, negated misconceptions and every card kind.

use mcp_tutor::deck::Library;
use mcp_tutor::grader::{self, Grade, Rating, Verdict};
use predicates::prelude::*;
use predicates::str::contains;

use crate::decks::{GOOD, tutor};

fn lib() -> Library {
    let lib = Library::from_dirs(&[GOOD.into()], false);
    assert!(
        lib.errors.is_empty(),
        "fixture deck is valid: {:?}",
        lib.errors
    );
    lib
}

fn grade(key: &str, answer: &str) -> Grade {
    let lib = lib();
    let (deck, card) = lib.card(key).expect("fixture card exists");
    grader::grade_in(deck.key(card), card, answer)
}

fn hit(g: &Grade, label_part: &str) -> bool {
    g.points
        .iter()
        .find(|p| p.label.contains(label_part))
        .unwrap_or_else(|| panic!("no point like {label_part:?}"))
        .hit
}

fn flagged(g: &Grade, label_part: &str) -> bool {
    g.red_flags.iter().any(|f| f.label.contains(label_part))
}

#[test]
fn cli_prints_a_checklist_and_exits_zero_on_fail() {
    let t = tempfile::tempdir().expect("tmp");
    tutor(&t)
        .args([
            "--decks",
            GOOD,
            "grade",
            "demo/ack-first",
            "It is the initialize handshake.",
        ])
        .assert()
        .success()
        .stdout(contains("demo/ack-first  FAIL"))
        .stdout(contains("✗ names notifications/subscriptions/acknowledged"))
        .stdout(contains("⚑ RED FLAG calls the acknowledgement a handshake"))
        .stdout(contains("correction: It is per-stream"));
}

#[test]
fn cli_reads_the_answer_from_stdin_and_prints_json() {
    let t = tempfile::tempdir().expect("tmp");
    let out = tutor(&t)
        .args(["--decks", GOOD, "grade", "demo/cancel-http", "--json"])
        .write_stdin("b\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
    assert_eq!(v["card"], "demo/cancel-http");
    assert_eq!(v["verdict"], "pass");
    assert_eq!(v["suggested_rating"], "good");
    assert_eq!(v["points"][0]["hit"], true);
    assert_eq!(v["points"][0]["required"], true);
    assert_eq!(v["points"][0]["span"]["text"], "b");
    assert!(v["red_flags"].as_array().is_some_and(Vec::is_empty));
    assert!(v["near_misses"].as_array().is_some());
    assert!(v["score"].as_f64().is_some_and(|s| (s - 1.0).abs() < 1e-6));
}

#[test]
fn cli_rejects_an_unknown_card() {
    let t = tempfile::tempdir().expect("tmp");
    let out = tutor(&t)
        .args(["--decks", GOOD, "grade", "demo/missing", "x"])
        .assert()
        .failure();
    crate::support::assert_exact(
        &out.get_output().stderr,
        "error: no card `demo/missing` (cards are named DECK/CARD; `mcp-tutor decks list` shows \
         them)\n",
    );
    let out = tutor(&t)
        .args(["--decks", GOOD, "grade", "demo/ack-frist", "x"])
        .assert()
        .failure();
    crate::support::assert_exact(
        &out.get_output().stderr,
        "error: no card `demo/ack-frist`: did you mean `demo/ack-first`? (cards are named \
         DECK/CARD; `mcp-tutor decks list` shows them)\n",
    );
}

#[test]
fn the_model_answer_passes() {
    let lib = lib();
    for (deck, card) in lib.cards() {
        let golden = grader::golden_answer(card).expect("every fixture card has one");
        let g = grader::grade_in(deck.key(card), card, &golden);
        assert_eq!(g.verdict, Verdict::Pass, "{}: {g:#?}", card.id);
        assert_eq!(g.suggested_rating, Rating::Good);
    }
}

#[test]
fn paraphrases_pass() {
    for answer in [
        "Before any change notification the server is required to emit notifications/subscriptions/acknowledged as its first message. Every later notification carries io.modelcontextprotocol/subscriptionId in _meta.",
        "The very first message has to be notifications/subscriptions/acknowledged; it's mandatory and comes before everything else. After that, each notification includes io.modelcontextprotocol/subscriptionId.",
        "notifications/subscriptions/acknowledged is obligatory and is sent first. Subsequent notifications are tagged with io.modelcontextprotocol/subscriptionId in their _meta.",
    ] {
        let g = grade("demo/ack-first", answer);
        assert_eq!(g.verdict, Verdict::Pass, "{answer}\n{g:#?}");
    }
}

#[test]
fn typos_in_prose_are_forgiven_but_not_in_identifiers() {
    let g = grade(
        "demo/ack-first",
        "The server must send notifications/subscriptions/acknowledged frist... no: it is mandatroy and comes befor everything. Every later notificaton has io.modelcontextprotocol/subscriptionId.",
    );
    assert!(hit(&g, "mandatory, before"), "{g:#?}");
    assert!(hit(&g, "later notifications"), "{g:#?}");
    let g = grade(
        "demo/ack-replay",
        "No. Nothing is replayd, so the client must re-list.",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
    let g = grade("demo/ack-name", "notifications/subscriptions/acknowleged");
    assert_eq!(g.verdict, Verdict::Fail);
    assert_eq!(g.near_misses.len(), 1);
}

#[test]
fn word_forms_and_synonyms_count() {
    let g = grade(
        "demo/ack-replay",
        "The acknowledgment never replays anything: re-fetch the lists.",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
    let g = grade(
        "demo/ack-first",
        "It's required that notifications/subscriptions/acknowledged precedes any change notification; each subsequent message includes io.modelcontextprotocol/subscriptionId. Otherwise a quiet stream is indistinguishable from a dead one.",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
    assert!(hit(&g, "silence"), "{g:#?}");
}

#[test]
fn near_miss_identifiers_are_reported_not_counted() {
    let answer = "It must first send notifications/subscription/acknowledge.";
    let g = grade("demo/ack-first", answer);
    assert!(!hit(&g, "names notifications"));
    let nm = &g.near_misses[0];
    assert_eq!(nm.expected, "notifications/subscriptions/acknowledged");
    assert_eq!(nm.found, "notifications/subscription/acknowledge");
    assert_eq!(&answer[nm.span.start..nm.span.end], nm.found);
    let g = grade(
        "demo/ack-first",
        "NOTIFICATIONS/SUBSCRIPTIONS/ACKNOWLEDGED comes first.",
    );
    assert!(!hit(&g, "names notifications"));
    assert_eq!(g.near_misses.len(), 1);
    let g = grade(
        "demo/ack-first",
        "Later each notification has subscriptionId.",
    );
    assert!(
        g.near_misses.iter().any(|n| n.found == "subscriptionId"),
        "{g:#?}"
    );
}

#[test]
fn negated_misconceptions_do_not_fire() {
    for answer in [
        "It is not a handshake.",
        "Unlike the old initialize handshake, it is per stream.",
        "It isn't a handshake in any sense.",
        "Calling it a handshake would be wrong.",
        "Nothing is replayed.",
        "There's no replay of missed notifications.",
        "Missed changes are never replayed; re-list instead.",
        "The server doesn't replay anything.",
        "The subscription id lives in _meta rather than a header.",
        "The id is in _meta, not in an HTTP header.",
        "It's no longer an initialize-style handshake: that was removed.",
        "Some call it a handshake, but it isn't.",
        "Unlike initialize, which was a handshake, the ack is per stream.",
        "Is it a handshake? No, it is per stream.",
        "It is different from the initialize handshake.",
        "Replays after a reconnect? Never.",
        "People expect missed notifications to be replayed. That is wrong.",
        "Don't expect a replay, e.g. after a reconnect.",
    ] {
        let g = grade("demo/ack-first", answer);
        assert!(g.red_flags.is_empty(), "{answer}\n{:#?}", g.red_flags);
    }
}

#[test]
fn affirmed_misconceptions_fire_and_fail() {
    for (answer, flag) in [
        // A negation in a reason clause does not deny the main claim.
        (
            "The ack is a handshake because nothing works without it.",
            "handshake",
        ),
        (
            "After a reconnect the server replays what was missed, so nothing is lost.",
            "replayed",
        ),
        ("It's a handshake, not a heartbeat.", "handshake"),
        ("It's a handshake, e.g. like initialize.", "handshake"),
        ("It is nothing but a handshake.", "handshake"),
        ("The ack is a handshake like initialize.", "handshake"),
        ("Unlike a heartbeat, the ack is a handshake.", "handshake"),
        (
            "Missed notifications are replayed after the acknowledgement.",
            "replayed",
        ),
        (
            "The server does not wait: it replays what you missed.",
            "replayed",
        ),
        (
            "Clients read the subscription id from an HTTP header.",
            "header",
        ),
    ] {
        let g = grade("demo/ack-first", answer);
        assert!(flagged(&g, flag), "{answer}\n{g:#?}");
        assert_eq!(g.verdict, Verdict::Fail);
        assert_eq!(g.suggested_rating, Rating::Again);
        let f = &g.red_flags[0];
        assert_eq!(&answer[f.span.start..f.span.end], f.span.text);
        assert!(!f.correction.is_empty() && !f.spec.is_empty());
    }
}

#[test]
fn a_denied_obligation_is_not_the_point() {
    let g = grade(
        "demo/ack-first",
        "notifications/subscriptions/acknowledged is not mandatory and it is not the first message.",
    );
    assert!(!hit(&g, "mandatory, before"), "{g:#?}");
    // Contrast keeps a point: "not even after a reconnect" still says nothing is replayed.
    let g = grade(
        "demo/ack-replay",
        "Nothing is replayed, not even after a reconnect; re-list.",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
}

#[test]
fn verdicts_follow_the_required_points() {
    // 2 of 3 required: partial.
    let g = grade(
        "demo/ack-first",
        "notifications/subscriptions/acknowledged must come first.",
    );
    assert_eq!(g.verdict, Verdict::Partial, "{g:#?}");
    assert_eq!(g.suggested_rating, Rating::Hard);
    assert!(g.score > 0.0 && g.score < 1.0);
    // 1 of 3: right as far as it goes, so partial; only an answer with nothing the card asks
    // for (or a stated misconception) fails.
    let g = grade("demo/ack-first", "notifications/subscriptions/acknowledged");
    assert_eq!(g.verdict, Verdict::Partial);
    let g = grade("demo/ack-first", "It is the acknowledgement.");
    assert_eq!(g.verdict, Verdict::Fail);
    let g = grade("demo/ack-first", "");
    assert_eq!(g.verdict, Verdict::Fail);
    assert_eq!(g.score, 0.0);
}

#[test]
fn choice_answers_by_letter_or_text() {
    for ok in [
        "b",
        "B",
        "(b)",
        "Answer: b",
        "it closes the SSE response stream",
        "closing the SSE response stream",
    ] {
        let g = grade("demo/cancel-http", ok);
        assert_eq!(g.verdict, Verdict::Pass, "{ok}\n{g:#?}");
    }
    let g = grade("demo/cancel-http", "a");
    assert_eq!(g.verdict, Verdict::Fail);
    assert!(g.red_flags[0].correction.contains("stdio"));
    for ok in [
        "a, c",
        "A and C",
        "c a",
        "toolsListChanged and resourceSubscriptions",
    ] {
        let g = grade("demo/two-right", ok);
        assert_eq!(g.verdict, Verdict::Pass, "{ok}\n{g:#?}");
    }
    let g = grade("demo/two-right", "a");
    assert_eq!(g.verdict, Verdict::Partial);
    let g = grade("demo/two-right", "a b c");
    assert_eq!(g.verdict, Verdict::Fail);
    assert_eq!(grade("demo/tf-replay", "false").verdict, Verdict::Pass);
    assert_eq!(grade("demo/tf-replay", "b").verdict, Verdict::Pass);
    assert_eq!(grade("demo/tf-replay", "True").verdict, Verdict::Fail);
    for ok in [
        "Not true: nothing is replayed.",
        "I'd say b",
        "False. It is true that the stream restarts, but nothing is replayed.",
        "false - the client must re-list",
    ] {
        let g = grade("demo/tf-replay", ok);
        assert_eq!(g.verdict, Verdict::Pass, "{ok}\n{g:#?}");
    }
    // Prose naming a wrong option only to deny it picks nothing wrong.
    let g = grade(
        "demo/two-right",
        "toolsListChanged and resourceSubscriptions, not subscriptionFilters",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
    // A stray article is not option (a).
    let g = grade(
        "demo/cancel-http",
        "It closes the SSE response stream, a clean cancel.",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
}

#[test]
fn order_answers_by_label_or_text() {
    let lib = lib();
    let (_, card) = lib.card("demo/stream-order").expect("card");
    let display = grader::order_display(card);
    assert_ne!(display, vec![0, 1, 2, 3], "never shown in the right order");
    let labels = |seq: &[usize], letters: bool| -> String {
        seq.iter()
            .map(|item| {
                let k = display.iter().position(|d| d == item).expect("shown");
                if letters {
                    grader::choice_label(k)
                } else {
                    (k + 1).to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let g = grade("demo/stream-order", &labels(&[0, 1, 2, 3], false));
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
    let g = grade("demo/stream-order", &labels(&[0, 1, 2, 3], true));
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
    let packed = labels(&[0, 1, 2, 3], false).replace(' ', "");
    assert_eq!(grade("demo/stream-order", &packed).verdict, Verdict::Pass);
    let arrows = labels(&[0, 1, 2, 3], false).replace(' ', " -> ");
    assert_eq!(grade("demo/stream-order", &arrows).verdict, Verdict::Pass);
    let g = grade("demo/stream-order", &labels(&[0, 2, 1, 3], false));
    assert_eq!(g.verdict, Verdict::Partial, "{g:#?}");
    assert!(!hit(&g, "2. notifications/subscriptions/acknowledged"));
    let g = grade("demo/stream-order", &labels(&[3, 2, 1, 0], false));
    assert_eq!(g.verdict, Verdict::Fail);
    let g = grade(
        "demo/stream-order",
        "First the subscriptions/listen request, then notifications/subscriptions/acknowledged, then notifications/tools/list_changed, and finally the listen result with resultType complete.",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
}

#[test]
fn cloze_blanks_in_order() {
    for ok in [
        "notifications/subscriptions/acknowledged\n_meta\nfirst",
        "notifications/subscriptions/acknowledged; _meta; before",
        "`notifications/subscriptions/acknowledged`, `_meta`, First",
        "notifications/subscriptions/acknowledged _meta first",
        "The method is notifications/subscriptions/acknowledged and the id sits in _meta, sent first",
    ] {
        let g = grade("demo/ack-cloze", ok);
        assert_eq!(g.verdict, Verdict::Pass, "{ok}\n{g:#?}");
    }
    let g = grade(
        "demo/ack-cloze",
        "notifications/subscriptions/acknowledge; _meta; first",
    );
    assert_eq!(g.verdict, Verdict::Partial);
    assert_eq!(
        g.near_misses[0].found,
        "notifications/subscriptions/acknowledge"
    );
    let g = grade("demo/ack-cloze", "params; header; last");
    assert_eq!(g.verdict, Verdict::Fail);
}

#[test]
fn spot_the_bug_needs_the_line_and_the_rule() {
    for ok in [
        "line 2: the list_changed arrives before the ack, which must come first",
        "2: a change notification precedes the acknowledgement; the ack has to be first",
        "Line #2 — ack must be first.",
        "The second line: a list_changed comes before the ack, which must be first.",
        "line two, the acknowledgement must come first",
        "2nd line - the ack must be first",
    ] {
        let g = grade("demo/bug-early-change", ok);
        assert_eq!(g.verdict, Verdict::Pass, "{ok}\n{g:#?}");
    }
    // The right rule pinned on the wrong line is a wrong diagnosis: the rule is not credited.
    let g = grade("demo/bug-early-change", "line 3: the ack must come first");
    assert_eq!(g.verdict, Verdict::Fail);
    assert!(g.points.iter().all(|p| !p.hit), "{g:#?}");
    let g = grade("demo/bug-early-change", "line 2");
    assert_eq!(g.verdict, Verdict::Partial);
}

#[test]
fn unicode_forms_and_smart_punctuation() {
    let g = grade(
        "demo/ack-first",
        "The ﬁrst message MUST be “notifications/subscriptions/acknowledged”. Every later notification carries io.modelcontextprotocol/subscriptionId — it isn’t a handshake.",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
    let p = g
        .points
        .iter()
        .find(|p| p.label.starts_with("names"))
        .expect("point");
    let span = p.span.as_ref().expect("span");
    assert_eq!(span.text, "notifications/subscriptions/acknowledged");
}

/// The checklist layout a person reads (colour off), filled to 60, 80 and 120 columns with
/// hanging indents, and in `--plain` words.
#[test]
fn checklist_layout() {
    let t = tempfile::tempdir().expect("tmp");
    for (width, plain) in [("60", false), ("80", false), ("120", false), ("80", true)] {
        let mut cmd = tutor(&t);
        if plain {
            cmd.arg("--plain");
        }
        let out = cmd
            .args([
                "--width",
                width,
                "--decks",
                GOOD,
                "grade",
                "demo/ack-first",
                "The server must first send notifications/subscription/acknowledge; it is the initialize handshake, and silence would be ambiguous.",
            ])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let name = format!(
            "checklist_layout_{width}{}",
            if plain { "_plain" } else { "" }
        );
        insta::assert_snapshot!(name, String::from_utf8_lossy(&out));
    }
}

const CLOZE_JSON: &str = "tests/fixtures/decks/cloze-json";

#[test]
fn cloze_over_json_closes_objects_and_blanks_apart() {
    let t = tempfile::tempdir().expect("tmp");
    tutor(&t)
        .args(["decks", "check", CLOZE_JSON])
        .assert()
        .success()
        .stdout(contains("1 deck, 1 card: all checks and self-tests pass"));
    tutor(&t)
        .args([
            "--decks",
            CLOZE_JSON,
            "grade",
            "json/error-reply",
            "--",
            "-32602",
        ])
        .assert()
        .success()
        .stdout(contains("json/error-reply  PASS"));
}

/// An order card's checklist names each place in words and the label the item was shown
/// with, so "you said “2”" reads against "(shown as 2)", not against a position number.
#[test]
fn an_order_checklist_pairs_what_was_said_with_the_shown_label() {
    let t = tempfile::tempdir().expect("tmp");
    let out = tutor(&t)
        .args([
            "--width",
            "200",
            "--decks",
            GOOD,
            "grade",
            "demo/stream-order",
            "2 4 1 3",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains(
            "✓ 1st in order: subscriptions/listen request (shown as 2) (required) — you said “2”"
        ),
        "{out}"
    );
    assert!(!out.contains("✓ 1. "), "{out}");
}

/// An answer longer than the grading cap says in the text output that it was cut (only
/// `--json` said so).
#[test]
fn an_answer_over_the_cap_says_it_was_cut() {
    let t = tempfile::tempdir().expect("tmp");
    let long = "the ack comes first ".repeat(1_500);
    tutor(&t)
        .args(["--decks", GOOD, "grade", "demo/ack-first"])
        .write_stdin(long)
        .assert()
        .success()
        .stdout(contains(
            "only the first 20,000 bytes of this answer were graded",
        ));
    tutor(&t)
        .args([
            "--decks",
            GOOD,
            "grade",
            "demo/ack-first",
            "the ack comes first",
        ])
        .assert()
        .success()
        .stdout(contains("were graded").not());
}

/// `grade --help`'s examples can be pasted into a shell as they stand: each is one command,
/// continued with `\` where it is long, never broken by the help's own wrapping.
#[test]
fn help_examples_are_whole_commands() {
    let home = tempfile::tempdir().unwrap();
    let out = crate::support::clean(home.path())
        .args(["grade", "--help"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let help = String::from_utf8_lossy(&out);
    let examples: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Examples:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    let mut commands: Vec<String> = Vec::new();
    let mut continued = false;
    for line in examples {
        let (body, more) = match line.trim().strip_suffix('\\') {
            Some(b) => (b.trim(), true),
            None => (line.trim(), false),
        };
        match commands.last_mut() {
            Some(c) if continued => {
                c.push(' ');
                c.push_str(body);
            }
            _ => commands.push(body.to_owned()),
        }
        continued = more;
    }
    assert!(!continued, "{help}");
    for c in &commands {
        assert!(
            c.starts_with("mcp-tutor grade ") || c.starts_with("echo "),
            "a line of the examples is not a command of its own: {c:?}\n{help}"
        );
    }
    assert!(
        commands.contains(
            &"mcp-tutor grade subscriptions/listen-first-message \"...\" --judge \
              http://localhost:11434/v1 --judge-model llama3.1:8b"
                .to_owned()
        ),
        "{commands:#?}"
    );
}
