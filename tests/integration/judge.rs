//! The model judge against a stub OpenAI-compatible server on loopback (real HTTP, recorded
//! replies): what is sent, what is believed, every way it falls back, the key kept out of every
//! output, the cache, `--judge-prompt` and `decks eval --judge`.

use predicates::prelude::PredicateBooleanExt;
use serde_json::Value;

use crate::judge_stub::{Reply, Stub};
use crate::support::*;

const CARD: &str = "qz/first-message";
/// The rules miss "nothing may precede it" (PARTIAL); a judge hears it (PASS).
const PARAPHRASE: &str =
    "The server has to send notifications/subscriptions/acknowledged, and nothing may precede it.";
const NEAR_MISS: &str = "It sends notifications/subscription/acknowledge first.";
const KEY: &str = "sk-test-7c1d2b9e44f0a";

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn grade_with(home: &std::path::Path, stub: &Stub, answer: &str, extra: &[&str]) -> Run {
    let out = tutor(home, DAY1)
        .env("MCP_TUTOR_JUDGE_KEY", KEY)
        .args([
            "grade",
            CARD,
            answer,
            "--judge",
            &stub.url,
            "--judge-model",
            "llama3.1:8b",
        ])
        .args(extra)
        .output()
        .expect("run");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn json(home: &std::path::Path, stub: &Stub, answer: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    let r = grade_with(home, stub, answer, &args);
    assert_eq!(
        r.code, 0,
        "grade exits 0 whatever the judge does: {}",
        r.stderr
    );
    serde_json::from_str(&r.stdout).expect("grade --json")
}

#[test]
fn a_valid_reply_is_believed_and_both_verdicts_are_shown() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("paraphrase-pass.json")]);
    let v = json(home.path(), &stub, PARAPHRASE, &[]);
    assert_eq!(v["verdict"], "partial", "the rules' own verdict is kept");
    let j = &v["judge"];
    assert_eq!(j["model"], "llama3.1:8b");
    assert_eq!(j["verdict"], "pass");
    assert_eq!(j["agreed_with_rules"], false);
    assert_eq!(j["dropped"], serde_json::json!([]));
    assert_eq!(j["fallback"], Value::Null);
    assert_eq!(j["points"][1]["quote"], "nothing may precede it");
    assert_eq!(v["final_verdict"], "pass");

    let req = &stub.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some(&*format!("Bearer {KEY}")));
    let body = req.json();
    assert_eq!(body["model"], "llama3.1:8b");
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["response_format"]["type"], "json_schema");
    let user: Value =
        serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(user["answer"], PARAPHRASE);
    assert_eq!(
        user["question"],
        "What must a server send first on a subscriptions/listen stream?"
    );
    assert_eq!(user["points"][0]["id"], "names-notifications-subscriptions");
    assert_eq!(user["points"][0]["exact"], true);
    assert_eq!(user["red_flags"][0]["id"], "handshake");
    assert!(user["model_answer"].as_str().unwrap().contains("must send"));

    // The text: the rules' checklist first, then the judge's verdict beside the rules'.
    let home = tempfile::tempdir().unwrap();
    let r = grade_with(home.path(), &stub, PARAPHRASE, &[]);
    let text = flat(&r.stdout);
    let rules_at = text.find("qz/first-message PARTIAL").expect(&text);
    let judge_at = text
        .find("judge (llama3.1:8b): PASS — the rules said PARTIAL")
        .expect(&text);
    assert!(rules_at < judge_at, "{text}");
    assert!(
        text.contains("it comes first, before any change notification — the judge heard “nothing may precede it”"),
        "{text}"
    );
}

#[test]
fn a_quote_not_in_the_answer_is_dropped_and_said() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("quote-not-in-answer.txt")]);
    let v = json(home.path(), &stub, PARAPHRASE, &[]);
    let j = &v["judge"];
    assert_eq!(j["verdict"], "partial", "recomputed, not the model's pass");
    assert_eq!(j["model_said"], "pass");
    assert_eq!(j["dropped"][0]["id"], "comes-first-before");
    assert_eq!(j["dropped"][0]["why"], "those words are not in the answer");
    assert_eq!(v["final_verdict"], "partial");
    let home = tempfile::tempdir().unwrap();
    let r = grade_with(home.path(), &stub, PARAPHRASE, &[]);
    assert!(
        flat(&r.stdout).contains(
            "not believed: point `comes-first-before` quoting “it is always sent first” — those words are not in the answer"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn a_near_miss_identifier_does_not_earn_an_exact_point() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("near-miss.json")]);
    let v = json(home.path(), &stub, NEAR_MISS, &[]);
    let j = &v["judge"];
    assert_eq!(j["verdict"], "partial");
    assert_eq!(j["dropped"][0]["id"], "names-notifications-subscriptions");
    assert!(
        j["dropped"][0]["why"]
            .as_str()
            .unwrap()
            .contains("writes `notifications/subscription/acknowledge` (a near miss, not counted)"),
        "{j}"
    );
    assert_eq!(
        v["near_misses"][0]["found"], "notifications/subscription/acknowledge",
        "the near miss stays the grader's"
    );
    assert_eq!(v["final_verdict"], "partial");
}

#[test]
fn a_misconception_no_card_lists_fails_the_answer_marked_as_the_models() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("own-misconception.txt")]);
    let answer = "notifications/subscriptions/acknowledged comes first, and it carries the full tools list so the client can skip tools/list.";
    let v = json(home.path(), &stub, answer, &[]);
    // No card lists it, but the catalogue's `content-in-notification` now catches it too.
    assert_eq!(v["verdict"], "fail");
    assert_eq!(v["judge"]["verdict"], "fail");
    assert_eq!(v["judge"]["misconceptions"][0]["flag"], Value::Null);
    assert_eq!(
        v["judge"]["misconceptions"][0]["quote"],
        "it carries the full tools list"
    );
    let home = tempfile::tempdir().unwrap();
    let r = grade_with(home.path(), &stub, answer, &[]);
    let text = flat(&r.stdout);
    assert!(
        text.contains("⚑ the model's own: “it carries the full tools list”"),
        "{text}"
    );
    assert!(
        text.contains("correction (the model's, not the card's): The acknowledgement carries only"),
        "{text}"
    );
}

/// Every way the judge can fail leaves the rules' verdict, one line why, and exit code 0.
fn falls_back(reply: Reply, extra: &[&str], why: &str) {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![reply]);
    let v = json(home.path(), &stub, PARAPHRASE, extra);
    assert_eq!(v["judge"]["verdict"], Value::Null);
    assert_eq!(v["final_verdict"], "partial", "the rules' verdict stands");
    let fallback = v["judge"]["fallback"].as_str().unwrap_or_default();
    assert!(fallback.contains(why), "{fallback:?} should say {why:?}");
    let home = tempfile::tempdir().unwrap();
    let r = grade_with(home.path(), &stub, PARAPHRASE, extra);
    assert_eq!(r.code, 0);
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("judge"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", r.stdout);
    assert!(
        flat(&r.stdout).contains("; the verdict is the rules' PARTIAL"),
        "{}",
        r.stdout
    );
    assert!(flat(&r.stdout).contains(why), "{}", r.stdout);
}

#[test]
fn malformed_json_falls_back() {
    falls_back(
        Reply::fixture("malformed.txt"),
        &[],
        "its reply is not the judgement asked for (no JSON object in it)",
    );
    falls_back(
        Reply::fixture("unclosed.txt"),
        &[],
        "not the judgement asked for",
    );
}

#[test]
fn a_reply_slower_than_the_timeout_falls_back() {
    falls_back(
        Reply::Slow(
            std::time::Duration::from_secs(30),
            Box::new(Reply::fixture("paraphrase-pass.json")),
        ),
        &["--judge-timeout", "1"],
        "no reply within 1 s",
    );
}

#[test]
fn an_http_500_falls_back() {
    falls_back(
        Reply::Raw {
            status: 500,
            body: r#"{"error":{"message":"llama runner process has terminated"}}"#.into(),
        },
        &[],
        "HTTP 500: llama runner process has terminated",
    );
}

#[test]
fn an_oversized_reply_falls_back() {
    let huge = format!(
        r#"{{"verdict":"pass","points":[],"misconceptions":[],"notes":"{}"}}"#,
        "x".repeat(400 * 1024)
    );
    falls_back(Reply::Content(huge), &[], "its reply is over 256 KiB");
}

#[test]
fn a_refusal_falls_back() {
    falls_back(
        Reply::Raw {
            status: 200,
            body: r#"{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't assist with grading."},"finish_reason":"stop"}]}"#.into(),
        },
        &[],
        "the model declined (I can't assist with grading.)",
    );
}

#[test]
fn an_unreachable_judge_falls_back() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = tempfile::tempdir().unwrap();
    let out = tutor(home.path(), DAY1)
        .args(["grade", CARD, PARAPHRASE, "--json", "--judge-model", "m"])
        .args(["--judge", &format!("http://127.0.0.1:{port}/v1")])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(
        v["judge"]["fallback"]
            .as_str()
            .unwrap()
            .starts_with("cannot reach it"),
        "{v}"
    );
    assert_eq!(v["final_verdict"], "partial");
}

#[test]
fn the_key_never_appears_in_any_output_or_file() {
    let home = tempfile::tempdir().unwrap();
    // An endpoint that echoes the Authorization header: in a correction, then in an error.
    let echo = r#"{"verdict":"fail","points":[],"misconceptions":[{"flag":null,"quote":"nothing may precede it","correction":"Sent with {auth}."}]}"#;
    let stub = Stub::start(vec![
        Reply::EchoAuth(echo.into()),
        Reply::Raw {
            status: 401,
            body: format!(r#"{{"error":{{"message":"bad key Bearer {KEY}"}}}}"#),
        },
    ]);
    let mut seen = String::new();
    for (answer, extra) in [
        (PARAPHRASE, &["--json"][..]),
        (PARAPHRASE, &[][..]),
        ("A different answer, first of all.", &[][..]),
        (PARAPHRASE, &["--judge-prompt"][..]),
    ] {
        let r = grade_with(home.path(), &stub, answer, extra);
        seen.push_str(&r.stdout);
        seen.push_str(&r.stderr);
    }
    assert!(
        seen.contains("[key withheld]"),
        "the echo was redacted, not dropped: {seen}"
    );
    assert!(seen.contains("HTTP 401"), "{seen}");
    assert!(
        !seen.contains(KEY),
        "the key leaked into the output:\n{seen}"
    );
    for f in walk(home.path()) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(KEY),
            "the key is stored in {}",
            f.display()
        );
    }
    let sent: Vec<_> = stub.requests();
    assert!(
        sent.iter()
            .all(|r| r.header("authorization") == Some(&*format!("Bearer {KEY}")))
    );
    assert!(
        sent.iter().all(|r| !r.body.contains(KEY)),
        "the key is only a header"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_second_grading_of_the_same_answer_sends_no_request() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("paraphrase-pass.json")]);
    let first = json(home.path(), &stub, PARAPHRASE, &[]);
    assert_eq!(first["judge"]["cached"], false);
    let second = json(home.path(), &stub, PARAPHRASE, &[]);
    assert_eq!(
        stub.requests().len(),
        1,
        "the same answer is never sent twice"
    );
    assert_eq!(second["judge"]["cached"], true);
    assert_eq!(second["judge"]["verdict"], first["judge"]["verdict"]);
    assert_eq!(second["final_verdict"], "pass");
    // Another model is another judgement.
    let out = tutor(home.path(), DAY1)
        .args(["grade", CARD, PARAPHRASE, "--json", "--judge", &stub.url])
        .args(["--judge-model", "qwen2.5:7b"])
        .assert()
        .success();
    drop(out);
    assert_eq!(stub.requests().len(), 2);
}

#[test]
fn judge_prompt_prints_the_exact_body_and_sends_nothing() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("paraphrase-pass.json")]);
    let printed = grade_with(home.path(), &stub, PARAPHRASE, &["--judge-prompt"]);
    assert_eq!(printed.code, 0);
    assert!(stub.requests().is_empty(), "--judge-prompt sends nothing");
    let printed: Value = serde_json::from_str(&printed.stdout).unwrap();
    json(home.path(), &stub, PARAPHRASE, &[]);
    assert_eq!(
        stub.requests()[0].json(),
        printed,
        "what is printed is what is sent"
    );
}

#[test]
fn the_judge_is_off_unless_asked_and_configurable() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("paraphrase-pass.json")]);
    let out = tutor(home.path(), DAY1)
        .args(["grade", CARD, PARAPHRASE, "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(v.get("judge").is_none());
    // The config file turns it on for grade and the quiz.
    let config = home.path().join("config/mcp-tutor");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!(
            "[judge]\nurl = \"{}\"\nmodel = \"from-config\"\ntimeout = 5\n",
            stub.url
        ),
    )
    .unwrap();
    let out = tutor(home.path(), DAY1)
        .args(["grade", CARD, PARAPHRASE, "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["judge"]["model"], "from-config");
    // --no-judge wins over it.
    let out = tutor(home.path(), DAY1)
        .args(["grade", CARD, PARAPHRASE, "--json", "--no-judge"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(v.get("judge").is_none());
    assert_eq!(stub.requests().len(), 1);
    // A key in the file is refused, and not repeated.
    std::fs::write(
        config.join("config.toml"),
        "[judge]\nkey = \"sk-in-a-file\"\n",
    )
    .unwrap();
    tutor(home.path(), DAY1)
        .args(["grade", CARD, PARAPHRASE])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("MCP_TUTOR_JUDGE_KEY"))
        .stderr(predicates::str::contains("sk-in-a-file").not());
}

#[test]
fn decks_eval_through_the_judge_prints_the_agreement_table() {
    let home = tempfile::tempdir().unwrap();
    let answers = home.path().join("answers");
    std::fs::create_dir_all(&answers).unwrap();
    std::fs::write(
        answers.join("qz.toml"),
        format!(
            "[[answers]]\ncard = \"first-message\"\ntext = \"{PARAPHRASE}\"\nverdict = \"pass\"\npoints = [\"names-notifications-subscriptions\", \"comes-first-before\"]\n"
        ),
    )
    .unwrap();
    let stub = Stub::start(vec![Reply::fixture("paraphrase-pass.json")]);
    let eval = |judge: bool| {
        let mut c = tutor(home.path(), DAY1);
        c.args(["decks", "eval", "--answers"]).arg(&answers);
        if judge {
            c.args(["--judge", &stub.url, "--judge-model", "llama3.1:8b"]);
        }
        String::from_utf8(c.assert().success().get_output().stdout.clone()).unwrap()
    };
    let rules = eval(false);
    assert!(rules.contains("qz/first-message"), "{rules}");
    assert!(
        flat(&rules).contains("verdicts agree 0.0% (0/1)"),
        "{rules}"
    );
    let judged = eval(true);
    assert!(flat(&judged).contains("qz/first-message 1/1"), "{judged}");
    assert!(
        flat(&judged).contains("verdicts agree 100.0% (1/1)"),
        "{judged}"
    );
    assert!(
        flat(&judged).contains("judge llama3.1:8b: the verdicts above are the judge's"),
        "{judged}"
    );
    assert!(
        flat(&judged).contains("agreed with the rules on 0 of 1 answers"),
        "{judged}"
    );
    eval(true);
    assert_eq!(stub.requests().len(), 1, "a second run reads the store");
}
