//! The one test builder for the CLI tests: [`clean`] is `mcp-tutor` in a clean environment
//! rooted at a temp dir (every module starts from it; [`isolated`] brings its own temp dir),
//! and [`tutor`] adds what the quiz, stats and progress tests share: the fixture decks, a frozen
//! scheduler clock, a pinned answer time. [`assert_exact`] compares a short output whole.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::time::Duration;

use mock_server::{Config, RunningServer, start_http};

pub const DAY1: &str = "2026-11-29T10:00:00Z";

/// How long a test lets a process, a pty or a wait run before calling it hung. A debug build on
/// a loaded 2-core machine takes seconds where a release build takes milliseconds, so no test
/// may bound a wait it expects to end by anything a slow machine reaches: only a hang gets here.
pub const HANG: Duration = Duration::from_secs(600);

/// The lab's wait for an acknowledgement in every test (`lab --ack-timeout`): an ack the
/// bundled server sends must never count as missing because the machine is slow. Scenarios
/// about a missing ack set their own.
pub const ACK_TIMEOUT_MS: &str = "30000";

/// [`HANG`] in milliseconds, for rexpect's pty sessions.
pub const HANG_MS: u64 = 600_000;

/// `--timeout` for `check` runs whose server answers: a bound on every wait that only a hang
/// reaches, so a loaded machine cannot turn a slow reply into a failed rule. Runs that need a
/// wait to expire (a late or missing ack) pass a shorter one of their own.
pub const CHECK_WAIT: &str = "30";

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-tutor")
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/quiz")
}

pub fn broken_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/quiz-broken")
}

/// `mcp-tutor` with nothing from the caller's environment: data, home and config under `home`,
/// UTC, no colour, bounded in time.
pub fn clean(home: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::new(bin());
    c.env_clear()
        .env("MCP_TUTOR_HOME", home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env("MCP_TUTOR_ACK_TIMEOUT", ACK_TIMEOUT_MS);
    c.timeout(HANG);
    c
}

/// [`clean`] as a plain `std::process::Command` for a pseudo-terminal (rexpect spawns those):
/// the same clean environment, with a terminal type.
pub fn pty(home: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(bin());
    c.env_clear()
        .env("MCP_TUTOR_HOME", home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env("MCP_TUTOR_ACK_TIMEOUT", ACK_TIMEOUT_MS)
        .env("TERM", "xterm");
    c
}

/// [`clean`] rooted at a temp dir of its own, which lives as long as the command: for tests
/// that keep nothing between runs.
pub fn isolated() -> Isolated {
    let home = tempfile::tempdir().unwrap();
    Isolated {
        cmd: clean(home.path()),
        _home: home,
    }
}

/// A [`clean`] command and the temp dir it is rooted at.
pub struct Isolated {
    cmd: assert_cmd::Command,
    _home: tempfile::TempDir,
}

impl Deref for Isolated {
    type Target = assert_cmd::Command;

    fn deref(&self) -> &assert_cmd::Command {
        &self.cmd
    }
}

impl DerefMut for Isolated {
    fn deref_mut(&mut self) -> &mut assert_cmd::Command {
        &mut self.cmd
    }
}

/// Runs `f` on a thread of its own that nobody joins (a fake server, a pipe drainer); a test
/// that cannot start one fails here.
pub fn background<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) {
    std::thread::Builder::new()
        .spawn(f)
        .expect("a test thread starts");
}

/// A short output (a line or a few), whole: what the process wrote must be exactly `want`.
#[track_caller]
pub fn assert_exact(got: &[u8], want: &str) {
    let got = String::from_utf8_lossy(got);
    assert!(
        got == want,
        "output differs\n--- got ---\n{got}--- want ---\n{want}"
    );
}

/// `mcp-tutor` with the store in `home`, the fixture decks loaded, the clock at `now`.
pub fn tutor(home: &Path, now: &str) -> assert_cmd::Command {
    let mut c = clean(home);
    env(&mut c, home, now);
    c.arg("--decks").arg(fixtures());
    c
}

pub fn env<'a>(
    c: &'a mut assert_cmd::Command,
    home: &Path,
    now: &str,
) -> &'a mut assert_cmd::Command {
    c.env("MCP_TUTOR_HOME", home)
        .env("MCP_TUTOR_NOW", now)
        .env("MCP_TUTOR_ANSWER_SECS", "5")
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
}

/// Run a scripted (piped) quiz session; returns stdout.
pub fn session(home: &Path, now: &str, args: &[&str], script: &str) -> String {
    let out = tutor(home, now)
        .arg("quiz")
        .args(args)
        .write_stdin(script)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Runs `cmd`, which must succeed, and parses its standard output as one JSON value.
pub fn json_stdout(mut cmd: assert_cmd::Command) -> serde_json::Value {
    let out = cmd.assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

/// The review log as exported (JSON lines).
pub fn export(home: &Path) -> Vec<serde_json::Value> {
    let out = tutor(home, DAY1)
        .args(["progress", "export", "--format", "jsonl"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Reviews that count (not undone): (card, rating).
pub fn rated(home: &Path) -> Vec<(String, String)> {
    export(home)
        .into_iter()
        .filter(|r| r["undone"] == false)
        .map(|r| {
            (
                r["card"].as_str().unwrap().to_string(),
                r["rating"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub const GOOD_FIRST: &str = "The server must send notifications/subscriptions/acknowledged first, before any change notification.";

/// `text` with every run of whitespace as one space: asserts on wrapped prose read the words,
/// not where the terminal width broke the lines.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The bundled mock server on 127.0.0.1 (a free port) in its own runtime, alive while this
/// lives: what the `check` tests point `check` at over HTTP.
pub struct Mock {
    rt: tokio::runtime::Runtime,
    server: Option<RunningServer>,
}

impl Mock {
    pub fn start(config: Config) -> Mock {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = rt.block_on(start_http(config)).unwrap();
        Mock {
            rt,
            server: Some(server),
        }
    }

    pub fn url(&self) -> String {
        self.server.as_ref().unwrap().url.clone()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        if let Some(s) = self.server.take() {
            self.rt.block_on(s.shutdown());
        }
    }
}

/// How long the `late-ack` fault waits in the `check` tests: longer than their `--timeout`
/// ([`CHECK_WAIT`]), so the ack is late for them however slow the machine (the delay starts
/// when the server reads the listen, after `check` started waiting for it).
pub const LATE_ACK: Duration = Duration::from_secs(45);

/// A hand-written test server's request: reads one HTTP request's head and its JSON body from
/// `conn`, or `None` when the client hung up first.
pub fn read_json_post(conn: &std::net::TcpStream) -> Option<serde_json::Value> {
    use std::io::{BufRead, BufReader, Read};
    let mut reader = BufReader::new(conn.try_clone().expect("clone"));
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).unwrap_or_default())
}
