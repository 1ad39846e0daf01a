//! `mcp-tutor decks ...` on fixture decks (never the shipped content, which changes).

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;

pub const GOOD: &str = "tests/fixtures/decks/good";
pub const BROKEN: &str = "tests/fixtures/decks/broken";

/// The binary with no user decks folder and no colour, so only the decks we pass are extra.
pub fn tutor(config: &tempfile::TempDir) -> Command {
    crate::support::clean(config.path())
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[test]
fn list_shows_every_fixture_card_with_kind_and_facts() {
    let t = tmp();
    // Wide enough for the facts beside each question (a narrower screen leaves them out).
    tutor(&t)
        .args(["--width", "140", "--decks", GOOD, "decks", "list"])
        .assert()
        .success()
        .stdout(contains("demo/ack-first"))
        .stdout(contains("spot-the-bug"))
        .stdout(contains("demo/stream-order"))
        .stdout(contains("[facts 1,2,9]"));
}

/// The built-in decks and the graded-answer corpus pass every check, fact coverage and the
/// corpus regression included: the one test that pays for the whole content (every other
/// `decks check` here names its own folder, which checks only that folder).
#[test]
fn the_built_in_decks_and_the_corpus_pass_every_check() {
    let t = tmp();
    let lib = mcp_tutor::deck::Library::embedded();
    let cards: usize = lib.decks.iter().map(|d| d.cards.len()).sum();
    let out = tutor(&t).args(["decks", "check"]).output().unwrap();
    crate::support::assert_exact(&out.stderr, "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    // How many format-2 alternatives nothing uses changes with the content; the note is there.
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("note: ")
            && lines[0].ends_with(
                " alternative(s) in format-2 decks are used by no golden answer, flag example or tuned corpus answer (`decks check --unused` lists them)"
            ),
        "{stdout}"
    );
    assert_eq!(
        lines[1],
        format!(
            "ok: {} decks, {cards} cards: all checks and self-tests pass",
            lib.decks.len()
        )
    );
    assert_eq!(out.status.code(), Some(0));
}

/// A folder given with --decks is what `decks check` checks, alone; --all adds the built-in
/// decks and the corpus.
#[test]
fn check_with_decks_checks_that_folder_unless_asked_for_all() {
    let t = tmp();
    let out = tutor(&t)
        .args(["--decks", GOOD, "decks", "check"])
        .output()
        .unwrap();
    crate::support::assert_exact(&out.stderr, "");
    crate::support::assert_exact(
        &out.stdout,
        "ok: 1 deck, 9 cards: all checks and self-tests pass\n",
    );
    assert_eq!(out.status.code(), Some(0));
    let out = tutor(&t)
        .args(["decks", "check", "--all", GOOD])
        .output()
        .unwrap();
    crate::support::assert_exact(
        &out.stderr,
        "error: the argument '--all' cannot be used with '[PATHS]...'\n\n\
         Usage: mcp-tutor decks check --all --data-dir <DIR> [PATHS]...\n\n\
         For more information, try '--help'.\n",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_passes_a_good_deck() {
    let t = tmp();
    tutor(&t)
        .args(["decks", "check", GOOD])
        .assert()
        .success()
        .stdout(contains("1 deck, 9 cards: all checks and self-tests pass"));
}

#[test]
fn check_names_every_problem_with_file_line_and_column() {
    let t = tmp();
    let out = tutor(&t)
        .args(["decks", "check", BROKEN])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    let f = "tests/fixtures/decks/broken/broken.toml";
    for expected in [
        format!("{f}:10:1: card `one` has follow-up `nowhere`"),
        format!("{f}:9:1: card `one` cites fact 61"),
        format!("{f}:18:1: required point \"has no rule\" of card `one` has no claim"),
        format!("{f}:22:1: duplicate card id `one` (first used on line 6)"),
        format!("{f}:26:1: choice card `one` has no correct option"),
        format!("{f}:33:1: order card `order-short` needs at least two `items`"),
        format!("{f}:39:1: cloze text of card `cloze-none` has no `{{{{…}}}}` blank"),
        format!("{f}:49:1: card `bug-out` has bug_line = 5, but its transcript has 2 lines"),
        format!("{f}:73:1: red flag \"no rules\" of card `flagless` has no claim"),
        format!("{f}:73:1: red flag \"no rules\" of card `flagless` has an empty `correction`"),
        format!(
            "{f}:82:1: card `stray-choices` is a recall card but has `choices`, which only choice cards use"
        ),
        "tests/fixtures/decks/broken/syntax.toml:8:25: invalid basic string".to_string(),
        "tests/fixtures/decks/broken/unknown-field.toml:9:1: unknown field `qeustion_extra`"
            .to_string(),
    ] {
        assert!(err.contains(&expected), "missing {expected:?} in:\n{err}");
    }
    // Three files checked, two of which never loaded: all three counted.
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.ends_with(" problems in 3 deck files (2 did not load), 7 cards"),
        "{last}"
    );
}

#[test]
fn a_broken_deck_does_not_stop_the_others() {
    let t = tmp();
    tutor(&t)
        .args(["--decks", BROKEN, "--decks", GOOD, "decks", "list"])
        .assert()
        .success()
        .stdout(contains("demo/ack-first"))
        .stdout(contains("broken/order-short"))
        .stderr(contains("syntax.toml:8:25"));
}

#[test]
fn self_tests_catch_a_card_whose_answer_misses_its_points() {
    let t = tmp();
    let dir = t.path().join("decks");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("weak.toml"),
        r#"[deck]
id = "weak"
title = "Weak"

[[cards]]
id = "c"
kind = "recall"
question = "Q"
[cards.answer]
seconds = 5
text = "It is a handshake."
[[cards.points]]
label = "names the ack"
required = true
[[cards.points.match]]
exact = ["notifications/subscriptions/acknowledged"]
[[cards.red_flags]]
label = "handshake"
correction = "It is not one."
spec = "CHG"
examples = ["a heartbeat"]
non_examples = ["it is a handshake"]
[[cards.red_flags.match]]
all = ["handshake"]
"#,
    )
    .expect("write");
    tutor(&t)
        .args(["decks", "check"])
        .arg(&dir)
        .assert()
        .code(1)
        .stderr(contains("weak.toml:6:1: self-test: the card's own answer misses required point(s) \"names the ack\""))
        .stderr(contains("weak.toml:18:1: self-test: the card's own answer fires red flag \"handshake\""))
        .stderr(contains("does not fire on its example \"a heartbeat\""))
        .stderr(contains("fires on its non-example \"it is a handshake\""));
}

#[test]
fn facts_toml_is_skipped_and_export_reports_coverage() {
    let t = tmp();
    let out = tutor(&t)
        .args(["--decks", GOOD, "decks", "export", "--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).expect("export is JSON");
    let decks = v["decks"].as_array().expect("decks array");
    assert!(decks.iter().all(|d| d["id"] != "facts"));
    let demo = decks.iter().find(|d| d["id"] == "demo").expect("demo deck");
    assert_eq!(demo["title"], "Demo: subscriptions");
    let cards = demo["cards"].as_array().expect("cards");
    let first = &cards[0];
    assert_eq!(first["id"], "ack-first");
    assert_eq!(first["kind"], "recall");
    assert_eq!(first["facts"], serde_json::json!([1, 2, 9]));
    assert_eq!(
        first["points"][0]["label"],
        "names notifications/subscriptions/acknowledged exactly"
    );
    assert_eq!(first["points"][0]["required"], true);
    assert_eq!(
        first["red_flags"][0]["label"],
        "calls the acknowledgement a handshake"
    );
    assert_eq!(first["followups"], serde_json::json!(["ack-replay"]));
    // The follow-up is a card of its own, and knows its parent.
    let follow = cards
        .iter()
        .find(|c| c["id"] == "ack-replay")
        .expect("follow-up listed");
    assert_eq!(follow["parent"], "ack-first");
    assert_eq!(v["facts"]["total"], 60);
    let covered = v["facts"]["covered"].as_array().expect("covered");
    assert!(covered.contains(&serde_json::json!(29)));
}

/// Every key a card has in its deck file, recursively ("choices.why", "transcript.bug_line").
fn toml_keys(v: &toml::Value, prefix: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.insert(key.clone());
                toml_keys(x, &key, out);
            }
        }
        toml::Value::Array(a) => a.iter().for_each(|x| toml_keys(x, prefix, out)),
        _ => {}
    }
}

fn json_keys(v: &serde_json::Value, prefix: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.insert(key.clone());
                json_keys(x, &key, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| json_keys(x, prefix, out)),
        _ => {}
    }
}

#[test]
fn json_export_has_every_field_of_every_card_but_the_matchers() {
    let t = tmp();
    let out = tutor(&t)
        .args(["--decks", GOOD, "decks", "export", "--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).expect("export is JSON");
    assert_eq!(v["export_version"], 2);
    let demo = v["decks"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["id"] == "demo"))
        .expect("demo deck");
    let mut exported = std::collections::BTreeSet::new();
    json_keys(&demo["cards"], "", &mut exported);
    let text = std::fs::read_to_string(format!("{GOOD}/demo.toml")).expect("fixture");
    let file: toml::Value = toml::from_str(&text).expect("fixture parses");
    let mut written = std::collections::BTreeSet::new();
    toml_keys(&file["cards"], "", &mut written);
    let matchers = [
        "points.match",
        "points.claims",
        "red_flags.match",
        "red_flags.claims",
        "red_flags.guards",
    ];
    for key in &written {
        let is_matcher = matchers
            .iter()
            .any(|m| key == m || key.starts_with(&format!("{m}.")));
        assert_eq!(
            exported.contains(key),
            !is_matcher,
            "`{key}`: exported {}, a matcher {is_matcher}",
            exported.contains(key)
        );
    }
    let cards = demo["cards"].as_array().expect("cards");
    let bug = cards
        .iter()
        .find(|c| c["kind"] == "spot-the-bug")
        .expect("a spot-the-bug card");
    assert!(
        bug["transcript"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("data:"))
    );
    assert!(bug["transcript"]["bug_line"].as_u64().is_some());
    let first = &cards[0];
    assert_eq!(first["key"], "demo/ack-first");
    assert_eq!(first["basics"]["seconds"], 20);
    assert_eq!(
        first["spec_links"][0][0]["url"],
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#acknowledgment"
    );
}

#[test]
fn export_markdown_is_a_study_sheet() {
    let t = tmp();
    tutor(&t)
        .args(["--decks", GOOD, "decks", "export", "--format", "md"])
        .assert()
        .success()
        .stdout(contains("## Demo: subscriptions"))
        .stdout(contains(
            "### What must an MCP server send first on a subscriptions/listen stream, and what tags every later notification? Name both exactly.",
        ))
        .stdout(contains(
            "#### Does the acknowledgement replay changes the client missed?",
        ))
        .stdout(contains("- (b) It closes the SSE response stream **✓**"))
        .stdout(contains(
            " 2 data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"",
        ))
        .stdout(contains("Facts covered:"))
        .stdout(contains(
            "[SUB §Acknowledgment](https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#acknowledgment)",
        ));
}

#[test]
fn show_prints_one_card_with_its_followups() {
    let t = tmp();
    tutor(&t)
        .args(["--decks", GOOD, "decks", "show", "demo/ack-first"])
        .assert()
        .success()
        .stdout(contains("What must an MCP server send first"))
        .stdout(contains(
            "• names notifications/subscriptions/acknowledged exactly (required)",
        ))
        .stdout(contains("\nSolid answer (~40 s)\n"))
        .stdout(contains("**").not())
        .stdout(contains("###").not())
        .stdout(contains("Does the acknowledgement replay"))
        .stdout(contains("Which are filter fields?").not());
}

#[test]
fn show_unknown_card_fails_with_a_hint() {
    let t = tmp();
    let out = tutor(&t)
        .args(["--decks", GOOD, "decks", "show", "demo/nope"])
        .assert()
        .failure();
    crate::support::assert_exact(
        &out.get_output().stderr,
        "error: no card `demo/nope` (cards are named DECK/CARD; `mcp-tutor decks list` shows them)\n",
    );
    let out = tutor(&t)
        .args(["--decks", GOOD, "decks", "show", "demo/ack-frist"])
        .assert()
        .failure();
    crate::support::assert_exact(
        &out.get_output().stderr,
        "error: no card `demo/ack-frist`: did you mean `demo/ack-first`? (cards are named \
         DECK/CARD; `mcp-tutor decks list` shows them)\n",
    );
}

/// A mistyped kind names the kind meant, once (it listed the kinds twice and suggested none).
#[test]
fn a_mistyped_kind_gets_the_nearest_kind() {
    let t = tmp();
    let dir = t.path().join("decks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("k.toml"),
        "[deck]\nid = \"k\"\ntitle = \"K\"\n\n[[cards]]\nid = \"x\"\nkind = \"choise\"\nquestion = \"Q?\"\n",
    )
    .unwrap();
    let out = tutor(&t)
        .arg("--decks")
        .arg(&dir)
        .args(["decks", "check"])
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(
        err.contains("k.toml:7:8: no kind `choise`: did you mean `choice`?"),
        "{err}"
    );
    assert_eq!(
        err.matches("spot-the-bug").count(),
        1,
        "the kinds once: {err}"
    );
}

/// The README's deck-format examples, put together, are a deck that passes `decks check`.
#[test]
fn readme_deck_format_examples_pass_check() {
    let readme = std::fs::read_to_string("README.md").expect("README");
    let section = readme
        .split("\n## The deck format")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("deck format section");
    let mut deck = String::new();
    for block in section.split("```toml").skip(1) {
        deck.push_str(block.split("```").next().unwrap_or(""));
        deck.push('\n');
    }
    assert!(deck.contains("kind = \"spot-the-bug\""));
    let t = tmp();
    let file = t.path().join("readme.toml");
    std::fs::write(&file, deck).expect("write");
    tutor(&t)
        .args(["decks", "check"])
        .arg(&file)
        .assert()
        .success()
        .stdout(contains("1 deck, 6 cards: all checks and self-tests pass"));
}

/// One card as `decks show` draws it for a terminal, at 60, 80 and 120 columns and in
/// `--plain` words.
#[test]
fn show_layout() {
    let t = tmp();
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
                "decks",
                "show",
                "demo/ack-first",
            ])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let name = format!("show_layout_{width}{}", if plain { "_plain" } else { "" });
        insta::assert_snapshot!(name, String::from_utf8_lossy(&out));
    }
}

#[test]
fn check_fails_on_a_reference_nobody_can_follow() {
    let t = tmp();
    let f = "tests/fixtures/decks/content/bad-reference.toml";
    tutor(&t)
        .args(["decks", "check", f])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{f}:7:1: card `ack-name` cites a reference nobody can follow: `PROTOCOL.md §4.4`"
        )))
        .stderr(contains(
            "`SUB §Acknowledgement Rules`: docs/rules.md lists no section",
        ));
}

#[test]
fn check_fails_on_a_free_text_card_without_a_ladder() {
    let t = tmp();
    let f = "tests/fixtures/decks/content/no-ladder.toml";
    tutor(&t)
        .args(["decks", "check", f])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{f}:7:1: recall card `first-message` has 0 go-deeper rung(s); free-text cards need 3–4"
        )));
}

#[test]
fn check_fails_on_right_answers_piled_on_one_letter() {
    let t = tmp();
    let f = "tests/fixtures/decks/content/answer-bias.toml";
    tutor(&t)
        .args(["decks", "check", f])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{f}:1:1: deck `answer-bias`: 5 of its 5 right answers sit on option (b) (100% > 40%)"
        )))
        .stderr(contains(
            "choice card `pick-0` answers with a letter (\"(b)\"); options are shown shuffled",
        ));
}

#[test]
fn check_fails_on_a_leaky_banner_an_unasked_exact_name_and_toml_1_1() {
    let t = tmp();
    let f = "tests/fixtures/decks/content/rubric-rules.toml";
    let out = tutor(&t)
        .args(["decks", "check", f])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(
        err.contains(&format!("{f}:11:1: card `leaky-banner`'s tension banner, shown above the question, states its answer: read as an answer it earns \"the acknowledgement comes first\"")),
        "{err}"
    );
    assert!(
        err.contains("required point \"names notifications/subscriptions/acknowledged exactly\" of card `exact-unasked` says \"exactly\" but the question does not ask for a name"),
        "{err}"
    );
    assert!(!err.contains("card `exact-asked` says"), "{err}");
    assert!(
        err.contains(&format!(
            "{f}:54:104: a trailing comma in an inline table (TOML 1.1): TOML 1.0 parsers refuse it"
        )),
        "{err}"
    );
}

#[test]
fn check_fails_when_the_right_option_is_the_longest_too_often() {
    let t = tmp();
    let f = "tests/fixtures/decks/content/answer-bias.toml";
    tutor(&t)
        .args(["decks", "check", f])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{f}:1:1: deck `answer-bias`: the right option is the longest in 5 of its 5 single-answer questions (100% > 40%), so picking the longest beats chance"
        )));
}

#[test]
fn why_a_rule_prints_keyword_cards_check_lab_and_spec_url() {
    let t = tmp();
    let out = tutor(&t)
        .args(["why", "ack-first"])
        .assert()
        .success()
        .stdout(contains("ack-first  [MUST]"))
        .stdout(contains("subscriptions/listen-first-message"))
        .stdout(contains("check rule: ack-first"))
        .stdout(contains("lab scenario: ack-first"))
        .stdout(contains("mock faults that break it: no-ack"))
        .stdout(contains(
            "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#acknowledgment",
        ))
        .get_output()
        .stdout
        .clone();
    // A path into the repository is no use to an installed binary.
    assert!(!String::from_utf8_lossy(&out).contains("docs/rules.md"));
}

/// Every address of every reference, once each; a rules.md reference is the command that
/// prints that rule, never the repository path.
#[test]
fn why_a_card_prints_each_spec_address_once_and_every_address_of_a_rule() {
    let t = tmp();
    let out = tutor(&t)
        .args(["why", "lifecycle/teardown-tension"])
        .assert()
        .success()
        .stdout(contains("teardown-tension  [tension]"))
        .stdout(contains("cannot be followed").not())
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("SUB §Graceful Closure\n      https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure"), "{out}");
    let urls: Vec<&str> = out
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("https://"))
        .collect();
    let mut unique = urls.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(urls.len(), unique.len(), "an address printed twice:\n{out}");
    assert!(!out.contains("docs/rules.md"), "{out}");

    // A rule citing three sections shows all three addresses.
    let rule = tutor(&t)
        .args(["why", "teardown-tension"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rule = String::from_utf8(rule).unwrap();
    for u in [
        "subscriptions#graceful-closure",
        "patterns/cancellation\n",
        "specification/2026-07-28/schema",
    ] {
        assert!(rule.contains(u), "{u}:\n{rule}");
    }
}

#[test]
fn why_something_unknown_fails_and_suggests_the_nearest_names() {
    let t = tmp();
    // The nearest names only, not every id there is.
    let out = tutor(&t).args(["why", "ack-frist"]).assert().failure();
    crate::support::assert_exact(
        &out.get_output().stderr,
        "error: no rule or card `ack-frist`: did you mean `ack-first`? (`mcp-tutor why` alone \
         lists the rules, `mcp-tutor decks list` the cards)\n",
    );
    let out = tutor(&t)
        .args(["why", "subscriptions/ack-nmae"])
        .assert()
        .failure();
    crate::support::assert_exact(
        &out.get_output().stderr,
        "error: no rule or card `subscriptions/ack-nmae`: did you mean \
         `subscriptions/ack-name`? (`mcp-tutor why` alone lists the rules, `mcp-tutor decks \
         list` the cards)\n",
    );
}

#[test]
fn anki_export_has_the_header_lines_and_one_note_per_card() {
    let t = tmp();
    let out = tutor(&t)
        .args(["--decks", GOOD, "decks", "export", "--format", "anki"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).expect("utf-8");
    let mut lines = out.lines();
    for header in [
        "#separator:tab",
        "#html:true",
        "#notetype:Basic",
        "#guid column:1",
        "#deck column:2",
        "#tags column:5",
        "#columns:GUID\tDeck\tFront\tBack\tTags",
    ] {
        assert_eq!(lines.next(), Some(header));
    }
    let notes: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    let list = tutor(&t)
        .args(["--decks", GOOD, "decks", "list"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let cards = String::from_utf8(list)
        .expect("utf-8")
        .lines()
        // A card's line starts two columns in; a question under a long key, six.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .count();
    assert_eq!(notes.len(), cards, "one note per card");
    assert!(
        notes.iter().all(|n| n.len() == 5),
        "five tab-separated fields"
    );
    let note = notes
        .iter()
        .find(|n| n[0] == "mcp-tutor/demo/ack-first")
        .expect("the demo card, keyed by DECK/CARD");
    assert_eq!(note[1], "mcp-tutor::demo");
    assert!(note[3].contains("s basics</b>") && note[3].contains("solid answer</b>"));
    assert!(
        note[3].contains("<a href=\"https://modelcontextprotocol.io/specification/2026-07-28/"),
        "spec link: {}",
        note[3]
    );
    assert!(note[4].split(' ').any(|t| t == "mcp-tutor"));
}

#[test]
fn symlink_loops_fifos_and_built_in_id_clashes_are_reported_never_hung_on() {
    let t = tmp();
    let dir = t.path().join("mine");
    std::fs::create_dir(&dir).unwrap();
    let demo = std::fs::read_to_string(format!("{GOOD}/demo.toml")).unwrap();
    std::fs::write(dir.join("ok.toml"), &demo).unwrap();
    std::fs::write(
        dir.join("clash.toml"),
        demo.replacen("id = \"demo\"", "id = \"subscriptions\"", 1),
    )
    .unwrap();
    std::os::unix::fs::symlink("loop.toml", dir.join("loop.toml")).unwrap();
    let fifo = dir.join("fifo.toml");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let d = dir.display();
    tutor(&t)
        .arg("decks")
        .arg("check")
        .arg(&dir)
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{d}/loop.toml: is a symbolic link that leads nowhere readable"
        )))
        .stderr(contains(format!(
            "{d}/fifo.toml: is not a regular file (a FIFO, socket or device)"
        )))
        .stderr(contains(format!(
            "{d}/clash.toml:3:1: deck id `subscriptions` is already used by the built-in deck decks/1-subscriptions.toml"
        )));
    // Named directly, the FIFO is refused without being opened.
    tutor(&t)
        .arg("decks")
        .arg("check")
        .arg(&fifo)
        .assert()
        .code(1)
        .stderr(contains("is not a regular file"));
    // Loaded beside the built-in decks, each problem is a warning and the rest still loads.
    tutor(&t)
        .arg("--decks")
        .arg(&dir)
        .args(["decks", "list"])
        .assert()
        .success()
        .stdout(contains("demo/ack-first"))
        .stderr(contains("loop.toml: is a symbolic link"))
        .stderr(contains("fifo.toml: is not a regular file"))
        .stderr(contains("deck id `subscriptions` is already used"));
}

/// Writes `deck` as `name` in a fresh temp dir; returns the dir (kept alive) and the file's path.
fn planted(name: &str, deck: &str) -> (tempfile::TempDir, String) {
    let d = tmp();
    let p = d.path().join(name);
    std::fs::write(&p, deck).expect("write deck");
    let p = p.to_string_lossy().into_owned();
    (d, p)
}

/// A three-option choice card on the closing message; `tension` and the options vary per test.
fn choice_deck(id: &str, tension: &str, options: &[(&str, bool)], answer: &str) -> String {
    let mut d = format!(
        "[deck]\nid = \"planted\"\ntitle = \"Planted\"\n\n[[cards]]\nid = \"{id}\"\nkind = \"choice\"\nquestion = \"Which message ends the subscription whose listen request had id `tutor-7`?\"\nfacts = [19]\nspec = [\"SUB §Graceful Closure\"]\n{tension}\n"
    );
    for (text, right) in options {
        d.push_str(&format!(
            "\n[[cards.choices]]\ntext = \"{text}\"\ncorrect = {right}\n"
        ));
    }
    d.push_str(&format!(
        "\n[cards.answer]\nseconds = 20\ntext = \"{answer}\"\n"
    ));
    d
}

const CLOSE_OPTIONS: &[(&str, bool)] = &[
    (
        "a notifications/subscriptions/closed notification tagged with the id",
        false,
    ),
    (
        "the listen request's own result, with resultType complete",
        true,
    ),
    (
        "an empty result {} carrying the same id and nothing more",
        false,
    ),
];

#[test]
fn check_refuses_a_choice_cards_banner_that_gives_the_right_option_away() {
    let t = tmp();
    let leaky = choice_deck(
        "close-leak",
        "tension = \"The TS comment says the body is otherwise empty, but the right message is the listen's own result with resultType complete.\"",
        CLOSE_OPTIONS,
        "the listen request's own result, with resultType complete",
    );
    let (_d, f) = planted("leak.toml", &leaky);
    let out = tutor(&t)
        .args(["decks", "check", &f])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {f}:11:1: card `close-leak`'s tension banner, shown above the question, gives its right option away: it says \"resultType\", \"complete\", which set that option apart from the wrong ones; say only that the texts disagree, not what they say\n1 problem in 1 deck, 1 card\n"
        )
    );

    // A banner that says only that the texts disagree passes.
    let fair = choice_deck(
        "close-fair",
        "tension = \"The texts describing this message's body were reworded over time, and not all of them were updated together.\"",
        CLOSE_OPTIONS,
        "the listen request's own result, with resultType complete",
    );
    let (_d, f) = planted("fair.toml", &fair);
    tutor(&t)
        .args(["decks", "check", &f])
        .assert()
        .success()
        .stdout(contains("1 deck, 1 card: all checks and self-tests pass"));
}

#[test]
fn check_refuses_a_multi_answer_card_whose_right_options_are_the_longest() {
    let t = tmp();
    let options: &[(&str, bool)] = &[
        ("ack[2], ack[1], tools/list_changed[1]", true),
        ("tools/list_changed[1], ack[1]", false),
        (
            "ack[1], tools/list_changed[1], ack[2], resources/updated[2]",
            true,
        ),
        ("resources/updated[2], ack[2]", false),
    ];
    let answer = "ack[2], ack[1], tools/list_changed[1]; ack[1], tools/list_changed[1], ack[2], resources/updated[2]";
    let (_d, f) = planted("long.toml", &choice_deck("by-length", "", options, answer));
    let out = tutor(&t)
        .args(["decks", "check", &f])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {f}:6:1: multi-answer card `by-length`: its 2 right options are its 2 longest (shortest right 37 characters, longest wrong 29), so ticking the longest wins; lengthen a wrong option or tighten a right one\n1 problem in 1 deck, 1 card\n"
        )
    );

    // A tie with the longest wrong option still leaves the learner only a few to guess among.
    let tied: &[(&str, bool)] = &[
        ("ack[2], ack[1], tools/list_changed[1]", true),
        ("tools/list_changed[1], ack[1], ack[2]", false),
        (
            "ack[1], tools/list_changed[1], ack[2], resources/updated[2]",
            true,
        ),
        ("resources/updated[2], ack[2]", false),
    ];
    let (_d, f) = planted("tied.toml", &choice_deck("tied", "", tied, answer));
    tutor(&t)
        .args(["decks", "check", &f])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "error: {f}:6:1: multi-answer card `tied`: its 2 right options are its 2 longest (shortest right 37 characters, longest wrong 37)"
        )));

    // One wrong option longer than a right one: no tell.
    let fair: &[(&str, bool)] = &[
        ("ack[2], ack[1], tools/list_changed[1]", true),
        (
            "ack[2], tools/list_changed[1], ack[1], resources/updated[2]",
            false,
        ),
        (
            "ack[1], tools/list_changed[1], ack[2], resources/updated[2]",
            true,
        ),
        ("resources/updated[2], ack[2]", false),
    ];
    let (_d, f) = planted("fair.toml", &choice_deck("fair", "", fair, answer));
    tutor(&t)
        .args(["decks", "check", &f])
        .assert()
        .success()
        .stdout(contains("1 deck, 1 card: all checks and self-tests pass"));
}

#[test]
fn shipped_decks_pass_check() {
    let t = tmp();
    tutor(&t)
        .args(["decks", "check"])
        .assert()
        .success()
        .stdout(contains("all checks and self-tests pass"));
}
