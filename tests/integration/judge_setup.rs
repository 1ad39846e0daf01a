//! `judge setup` and `judge test` against stubs on loopback: the probed servers are named with
//! `--at` or `--judge`, so nothing depends on what runs on the machine.

use std::net::TcpListener;
use std::path::Path;

use crate::judge_stub::{Reply, Stub};
use crate::support::*;

/// A loopback URL nothing listens on (a port bound, then let go).
fn dead_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", l.local_addr().unwrap());
    drop(l);
    url
}

fn config(home: &Path) -> std::path::PathBuf {
    home.join("config/mcp-tutor/config.toml")
}

fn setup(home: &Path, args: &[&str], stdin: &str) -> (String, i32) {
    let out = clean(home)
        .args(["judge", "setup"])
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn models(ids: &[&str]) -> Reply {
    let data: Vec<_> = ids.iter().map(|i| serde_json::json!({"id": i})).collect();
    Reply::Raw {
        status: 200,
        body: serde_json::json!({"object": "list", "data": data}).to_string(),
    }
}

#[test]
fn setup_lists_what_each_server_serves_and_writes_only_after_yes() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![models(&["qwen2.5:7b"])]);
    let dead = dead_url();
    let (out, code) = setup(home.path(), &["--at", &stub.url, "--at", &dead], "n\n");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!("server     {}  qwen2.5:7b", stub.url)),
        "{out}"
    );
    assert!(
        out.contains(&format!("server     {dead}  nothing listening")),
        "{out}"
    );
    assert!(out.ends_with("Write it? [y/N] Nothing written.\n"), "{out}");
    assert!(!config(home.path()).exists(), "no means nothing is written");
    assert_eq!(stub.requests()[0].path, "/v1/models");

    let (out, code) = setup(home.path(), &["--at", &stub.url], "y\n");
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        std::fs::read_to_string(config(home.path())).unwrap(),
        format!("[judge]\nurl = \"{}\"\nmodel = \"qwen2.5:7b\"\n", stub.url)
    );
    // The file it wrote turns the judge on for `judge test`, `grade` and the quiz.
    let judged = Stub::start(vec![Reply::fixture("test-card-pass.json")]);
    std::fs::write(
        config(home.path()),
        format!(
            "# mine\n[judge]\nurl = \"{}\"\nmodel = \"qwen2.5:7b\"\ntimeout = 30\n",
            judged.url
        ),
    )
    .unwrap();
    clean(home.path())
        .args(["judge", "test"])
        .assert()
        .success()
        .stdout(predicates::str::contains("schema:  honoured"));
}

#[test]
fn setup_reads_ollamas_own_model_list_and_keeps_the_rest_of_the_config() {
    let home = tempfile::tempdir().unwrap();
    // An Ollama without the OpenAI model list: /v1/models 404, then /api/tags.
    let stub = Stub::start(vec![
        Reply::Raw {
            status: 404,
            body: "404 page not found".into(),
        },
        Reply::Raw {
            status: 200,
            body: r#"{"models":[{"name":"llama3.1:8b","size":4920753328},{"name":"qwen2.5:7b"}]}"#
                .into(),
        },
    ]);
    let cfg = config(home.path());
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, "# my settings\n[judge]\ntimeout = 45\n").unwrap();
    let (out, code) = setup(
        home.path(),
        &["--at", &stub.url, "--model", "qwen2.5:7b", "--yes"],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("llama3.1:8b, qwen2.5:7b"), "{out}");
    let paths: Vec<String> = stub.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, ["/v1/models", "/api/tags"]);
    assert_eq!(
        std::fs::read_to_string(&cfg).unwrap(),
        format!(
            "# my settings\n[judge]\ntimeout = 45\nurl = \"{}\"\nmodel = \"qwen2.5:7b\"\n",
            stub.url
        )
    );
}

#[test]
fn setup_with_several_models_asks_which_and_with_none_says_how_to_start_one() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![models(&["a-model", "b-model"])]);
    let (out, code) = setup(home.path(), &["--at", &stub.url], "2\ny\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("  2. b-model"), "{out}");
    assert!(
        std::fs::read_to_string(config(home.path()))
            .unwrap()
            .contains("model = \"b-model\""),
    );
    let home = tempfile::tempdir().unwrap();
    let (out, code) = setup(home.path(), &["--at", &dead_url()], "");
    assert_eq!(code, 1);
    assert!(out.contains("No model server answered. Start one"), "{out}");
    assert!(!config(home.path()).exists());
}

#[test]
fn judge_test_prints_the_model_the_time_the_verdict_and_the_schema() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("test-card-pass.json")]);
    let out = clean(home.path())
        .args([
            "judge",
            "test",
            "--judge",
            &stub.url,
            "--judge-model",
            "llama3.1:8b",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!("judge:   llama3.1:8b at {}/chat/completions", stub.url)
    );
    assert_eq!(lines[1], "card:    subscriptions/listen-first-message");
    // The time varies; its shape does not.
    let sent = lines[3];
    assert!(sent.starts_with("sent:    "), "{out}");
    assert!(sent.contains(" KB; replied in "), "{out}");
    assert!(
        sent.ends_with(" s, 1480 prompt + 96 reply tokens (as the endpoint counts them)"),
        "{out}"
    );
    assert_eq!(lines[4], "schema:  honoured");
    assert!(lines[5].starts_with("verdict: PASS (the rules: "), "{out}");
    assert_eq!(stub.requests().len(), 1);
    // Again: the store is not asked, it sends again.
    clean(home.path())
        .args([
            "judge",
            "test",
            "--judge",
            &stub.url,
            "--judge-model",
            "llama3.1:8b",
        ])
        .assert()
        .success();
    assert_eq!(stub.requests().len(), 2);
}

#[test]
fn judge_test_says_when_the_schema_is_not_honoured_or_nothing_answers() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::start(vec![Reply::fixture("own-misconception.txt")]);
    clean(home.path())
        .args(["judge", "test", "--judge", &stub.url, "--judge-model", "m"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "schema:  not honoured: the reply is not a bare JSON object",
        ));
    clean(home.path())
        .args([
            "judge",
            "test",
            "--judge",
            &dead_url(),
            "--judge-model",
            "m",
        ])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("schema:  no reply"))
        .stdout(predicates::str::contains("verdict: none: cannot reach it"));
    clean(home.path())
        .args(["judge", "test"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("run `mcp-tutor judge setup`"));
}
