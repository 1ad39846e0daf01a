//! The checks `mcp-tutor check` runs, over HTTP ([`run_http`]) or stdio ([`run_stdio`]): one
//! scenario ([`scenario`]), written once as data, driven by one [`probe::Probe`] over either
//! transport's [`Link`].
//!
//! Every wait is bounded by `Config::timeout` (or a short grace period when proving that
//! something does *not* arrive), so a misbehaving server can make `check` fail, never hang.

mod headers;
mod probe;
mod scenario;

use std::time::Duration;

use mock_server::protocol::Message;

use super::report::Report;
use crate::client::HttpClient;
use crate::client::link::{self, HttpLink, Link, Pace, Receiver, StdioLink, Tx};
use probe::Probe;

/// What `check` needs to know about the server under test.
#[derive(Debug, Clone)]
pub struct Config {
    /// Bound on every wait.
    pub timeout: Duration,
    /// Tool that changes the tool list (`None`: skip the checks that need it).
    pub tool_change: Option<String>,
    /// Tool that changes the prompt list.
    pub prompt_change: Option<String>,
    /// Tool that updates a resource (called with `{"uri": …}`).
    pub resource_update: Option<String>,
    /// Tool that ends every open subscription gracefully.
    pub close: Option<String>,
}

impl Config {
    fn grace(&self) -> Duration {
        (self.timeout / 10).clamp(Duration::from_millis(200), Duration::from_secs(1))
    }
}

/// Runs every check against the Streamable HTTP endpoint `url`.
pub async fn run_http(url: &str, cfg: Config) -> anyhow::Result<Report> {
    let client = HttpClient::new(url)?.with_timeout(cfg.timeout);
    // Every frame is judged, none dropped: the client's flood alarm bounds the rate.
    let link = HttpLink::new(client, url, Pace::Keep);
    let (tx, rx) = link::channel();
    run(&link, tx, rx, url.to_owned(), cfg).await
}

/// Runs the checks against a server spawned as `cmd` over stdio (§2).
pub async fn run_stdio(cmd: &[String], cfg: Config) -> anyhow::Result<Report> {
    let (program, args) = cmd
        .split_first()
        .ok_or_else(|| anyhow::anyhow!("--stdio needs the server command after `--`"))?;
    // `mcp-tutor` means this very binary, so the README's example works from a clone before
    // `cargo install` puts one on PATH.
    let program = if program == "mcp-tutor" {
        std::env::current_exe().unwrap_or_else(|_| program.into())
    } else {
        program.into()
    };
    let (tx, rx) = link::channel();
    let shown = cmd.join(" ");
    let link = StdioLink::spawn(
        program,
        args.to_vec(),
        shown.clone(),
        tx.clone(),
        Pace::Keep,
    )?
    .with_timeout(cfg.timeout);
    run(&link, tx, rx, format!("stdio: {shown}"), cfg).await
}

/// The scenario over `link`, stopped by a flood; the link is shut down either way.
async fn run(
    link: &dyn Link,
    tx: Tx,
    rx: Receiver,
    target: String,
    cfg: Config,
) -> anyhow::Result<Report> {
    let alarm = link.alarm();
    let mut probe = Probe::new(link, tx, rx, target, cfg);
    let result = tokio::select! {
        biased;
        flood = alarm.raised() => Err(flood.into()),
        done = scenario::run(&mut probe) => done,
    };
    link.shutdown().await;
    result.map(|()| probe.into_report())
}

/// A reply in a few words: `HTTP 400 with error -32602 "…"`, `a result`, ...
fn reply_summary(status: Option<u16>, reply: Option<&Message>) -> String {
    let status = status.map(|s| format!("HTTP {s}")).unwrap_or_default();
    let body = match reply {
        Some(Message::Error { error, .. }) => format!("error {} {:?}", error.code, error.message),
        Some(Message::Result { .. }) => "a result".to_owned(),
        Some(_) => "an unexpected message".to_owned(),
        None => "no JSON-RPC body".to_owned(),
    };
    if status.is_empty() {
        body
    } else {
        format!("{status} with {body}")
    }
}
