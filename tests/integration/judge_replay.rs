//! The judge's request layout and its replay harness: the request's shared prefix, the
//! requests a corpus would send written out card by card (`judge requests`), and recorded
//! replies served by a stub endpoint on loopback to `decks eval --judge`, which reports the
//! model's own agreement, the agreement after the guardrails, and the rules'.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::judge_stub::{Recorded, Reply, Stub};
use crate::support::*;

/// The body `grade --judge-prompt` prints for `answer` to a built-in card.
fn body(home: &Path, card: &str, answer: &str) -> String {
    let mut cmd = clean(home);
    cmd.args([
        "grade",
        card,
        answer,
        "--judge-prompt",
        "--judge-model",
        "m",
    ]);
    // As sent: compact.
    json_stdout(cmd).to_string()
}

#[test]
fn requests_for_two_cards_share_their_prefix_byte_for_byte() {
    let home = tempfile::tempdir().unwrap();
    let a = body(
        home.path(),
        "subscriptions/listen-first-message",
        "The ack comes first.",
    );
    let b = body(
        home.path(),
        "subscriptions/bug-change-before-ack",
        "Line 1, the change goes before the ack.",
    );
    let va: Value = serde_json::from_str(&a).unwrap();
    let vb: Value = serde_json::from_str(&b).unwrap();
    let system = va["messages"][0]["content"].as_str().unwrap();
    assert_eq!(system, vb["messages"][0]["content"].as_str().unwrap());
    // Every catalogue entry, once, in the shared prefix.
    let ids = catalogue_ids(home.path());
    assert_eq!(ids.len(), 46, "{ids:?}");
    for id in &ids {
        let entry = format!("{{\"id\":\"{id}\",");
        assert_eq!(system.matches(&entry).count(), 1, "{id} in the prefix");
    }
    assert_eq!(va["response_format"], vb["response_format"]);
    // Byte for byte, the two bodies agree through the whole system message.
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let user = a.find("{\"role\":\"user\"").unwrap();
    assert!(
        common >= user,
        "the bodies part at byte {common}, before {user}"
    );
    // The card's part follows, the answer last.
    let ua = va["messages"][1]["content"].as_str().unwrap();
    assert!(
        ua.ends_with("\"answer\": \"The ack comes first.\"\n}"),
        "{ua}"
    );
    for id in &ids {
        assert!(
            !ua.contains(&format!("\"id\":\"{id}\"")),
            "the catalogue entry {id} is not repeated in the card's part"
        );
    }
}

/// The catalogue's misconception ids, as `decks export` lists them.
fn catalogue_ids(home: &Path) -> Vec<String> {
    let mut cmd = clean(home);
    cmd.args(["decks", "export", "--format", "json"]);
    json_stdout(cmd)["misconceptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A corpus folder with `answers` (TOML `[[answers]]` blocks) as its held-out part for the
/// fixture deck `qz`.
fn corpus(dir: &Path, answers: &str) -> std::path::PathBuf {
    let root = dir.join("answers");
    std::fs::create_dir_all(root.join("held-out")).unwrap();
    std::fs::write(root.join("held-out/qz.toml"), answers).unwrap();
    root
}

const RIGHT: &str =
    "The server sends notifications/subscriptions/acknowledged before anything else.";
const HALF: &str = "Nothing may precede the acknowledgement.";
const WRONG: &str = "It is a handshake the client starts.";

fn three_answers() -> String {
    format!(
        "[[answers]]\ncard = \"first-message\"\ntext = \"{RIGHT}\"\nverdict = \"pass\"\npoints = [\"names-notifications-subscriptions\", \"comes-first-before\"]\n\n\
         [[answers]]\ncard = \"first-message\"\ntext = \"{HALF}\"\nverdict = \"partial\"\npoints = [\"comes-first-before\"]\n\n\
         [[answers]]\ncard = \"first-message\"\ntext = \"{WRONG}\"\nverdict = \"fail\"\nflags = [\"handshake\"]\n"
    )
}

#[test]
fn judge_requests_writes_the_prefix_once_and_each_card_with_its_answer_keys() {
    let home = tempfile::tempdir().unwrap();
    let answers = corpus(home.path(), &three_answers());
    let out = home.path().join("requests");
    let printed = tutor(home.path(), DAY1)
        .args(["judge", "requests"])
        .arg(&out)
        .args(["--replies", "/somewhere/replies", "--answers"])
        .arg(&answers)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_exact(
        &printed,
        &format!(
            "wrote 3 answers to 1 cards under {} (0 answers to cards the judge does not read left out)\n",
            out.display()
        ),
    );
    let prompt = tutor(home.path(), DAY1)
        .args(["grade", "qz/first-message", RIGHT, "--judge-prompt"])
        .args(["--judge-model", "m"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let prompt: Value = serde_json::from_slice(&prompt).unwrap();
    let prefix = std::fs::read_to_string(out.join("prefix.txt")).unwrap();
    assert_eq!(prefix, prompt["messages"][0]["content"].as_str().unwrap());
    let card = std::fs::read_to_string(out.join("cards/qz--first-message.md")).unwrap();
    // The user message is the card's part with the answer in place of <ANSWER>.
    let user = prompt["messages"][1]["content"].as_str().unwrap();
    let part = card
        .split("```json\n")
        .nth(1)
        .and_then(|s| s.split("\n```").next())
        .unwrap();
    assert_eq!(
        part.replace("<ANSWER>", &Value::from(RIGHT).to_string()),
        user
    );
    for a in [RIGHT, HALF, WRONG] {
        let key = mcp_tutor::deck::eval::fingerprint(a);
        assert!(
            card.contains(&format!("### {key}\n\n```text\n{a}\n```")),
            "{card}"
        );
    }
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        readme.contains("/somewhere/replies/DECK--CARD.json"),
        "{readme}"
    );
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("schema.json")).unwrap()).unwrap();
    assert_eq!(schema, prompt["response_format"]["json_schema"]["schema"]);
}

/// `decks eval --judge` against recorded replies, over the fixture deck: its `judge` object.
fn replay(home: &Path, answers: &Path, replies: &Path) -> Value {
    replay_with(tutor(home, DAY1), answers, replies)
}

/// The same over the built-in decks.
fn replay_built_in(home: &Path, answers: &Path, replies: &Path) -> Value {
    let mut c = clean(home);
    env(&mut c, home, DAY1);
    replay_with(c, answers, replies)
}

fn replay_with(mut c: assert_cmd::Command, answers: &Path, replies: &Path) -> Value {
    let recorded = Recorded::read(replies);
    assert!(recorded.len() > 0, "no replies under {}", replies.display());
    let stub = Stub::start(vec![Reply::Recorded(Arc::new(recorded))]);
    let out = c
        .timeout(std::time::Duration::from_secs(1800))
        .args(["decks", "eval", "--json", "--answers"])
        .arg(answers)
        .args(["--judge", &stub.url, "--judge-model", "replay"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    v["judge"].clone()
}

#[test]
fn a_replay_counts_the_models_own_verdicts_the_guarded_ones_and_the_rules() {
    let home = tempfile::tempdir().unwrap();
    let answers = corpus(home.path(), &three_answers());
    let replies = home.path().join("replies");
    std::fs::create_dir_all(&replies).unwrap();
    let key = mcp_tutor::deck::eval::fingerprint;
    // Two of the three answers have a reply. The first is right and quotes right; the second
    // writes "pass" for a half answer, quoting words that are not there for the missing point:
    // the guard drops it and the recomputed verdict is the fair one.
    let recorded = serde_json::json!({
        "card": "qz/first-message",
        "replies": {
            key(RIGHT): {"verdict": "pass", "points": [
                {"id": "names-notifications-subscriptions", "quote": "notifications/subscriptions/acknowledged"},
                {"id": "comes-first-before", "quote": "before anything else"}
            ], "misconceptions": []},
            key(HALF): {"verdict": "pass", "points": [
                {"id": "names-notifications-subscriptions", "quote": "the acknowledged notification"},
                {"id": "comes-first-before", "quote": "Nothing may precede the acknowledgement"}
            ], "misconceptions": []}
        }
    });
    std::fs::write(replies.join("qz--first-message.json"), recorded.to_string()).unwrap();
    let j = replay(home.path(), &answers, &replies);
    let f = &j["held_out"];
    assert_eq!(f["answers"], 3);
    assert_eq!(f["replied"], 2, "the third had no reply: {j}");
    assert_eq!(f["model_agrees"], 1, "{j}");
    assert_eq!(f["guarded_agrees"], 2, "{j}");
    assert_eq!(j["fallbacks"]["HTTP error"], 1, "{j}");
}

/// Replies written blind (by readers who saw only the requests `judge requests` wrote for the
/// held-out corpus, the reply a careful strong model would give) to every held-out answer.
/// Nobody tuned the guards on them: the figures are an estimate for a strong model's replies.
#[test]
fn blind_replies_over_the_held_out_corpus_lose_nothing_to_the_guards() {
    let home = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let answers = home.path().join("answers");
    std::fs::create_dir_all(answers.join("held-out")).unwrap();
    for f in std::fs::read_dir(root.join("decks/answers/held-out")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, answers.join("held-out").join(f.file_name().unwrap())).unwrap();
    }
    let j = replay_built_in(
        home.path(),
        &answers,
        &root.join("tests/fixtures/judge/replies"),
    );
    let f = &j["held_out"];
    let n = |k: &str| f[k].as_u64().unwrap();
    eprintln!(
        "held-out replay: replies to {} of {} answers; verdicts agree: model's own {}, after the guards {}, rules {}; {} item(s) dropped",
        n("replied"),
        n("answers"),
        n("model_agrees"),
        n("guarded_agrees"),
        n("rules_agrees"),
        j["dropped"]
    );
    assert!(
        n("replied") * 10 >= n("answers") * 9,
        "coverage under 90%: {j}"
    );
    assert!(
        n("guarded_agrees") >= n("model_agrees"),
        "the guards make the model's verdicts worse: {j}"
    );
}
