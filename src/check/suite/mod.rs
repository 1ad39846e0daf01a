//! The checks `mcp-tutor check` runs, over HTTP ([`run_http`]) or stdio ([`run_stdio`]).
//!
//! Every wait is bounded by `Config::timeout` (or a short grace period when proving that
//! something does *not* arrive), so a misbehaving server can make `check` fail, never hang.
//!
//! The listen scenario, on both transports:
//! - A: string id, tools + prompts; B: integer id, tools only; C: string id, prompts only;
//!   D (when the server lists a resource): that URI plus one that does not exist.
//! - Each must be acknowledged first, tagged with its own id (type included).
//! - A tools change must reach A and B and not C; a prompts change A and C and not B;
//!   a resource update D only.
//! - stdio only: B is cancelled with `notifications/cancelled`; a later change must not reach it.
//! - The close tool must end every open subscription with the exact completion result.

mod headers;
mod http;
mod stdio;

pub use http::run_http;
pub use stdio::run_stdio;

use std::time::Duration;

use mock_server::protocol::{
    self, Message, RequestId, SubscriptionFilter, error_code, header, meta, method,
};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::report::Report;
use crate::client::{HeaderEdits, HttpClient, ListenStream, StdioClient, WireEvent};
use mock_server::validator::{CheckRule, Finding, Observation, Validator};

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

/// A made-up version no server implements, for the -32022 check.
const BOGUS_VERSION: &str = "2031-01-01";
/// A method nobody implements, for the 404 check.
const BOGUS_METHOD: &str = "mcp-tutor/no-such-method";
/// A resource URI that does not exist, to see the honoured subset leave it out.
const BOGUS_URI: &str = "mcp-tutor-check://no-such-resource";

fn filter(tools: bool, prompts: bool, uris: &[&str]) -> SubscriptionFilter {
    SubscriptionFilter {
        tools_list_changed: tools.then_some(true),
        prompts_list_changed: prompts.then_some(true),
        resources_list_changed: None,
        resource_subscriptions: (!uris.is_empty())
            .then(|| uris.iter().map(|u| (*u).to_owned()).collect()),
    }
}

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

/// Tool names and the first resource URI the server lists.
#[derive(Debug, Default)]
struct Catalogue {
    tools: Option<Vec<String>>,
    tools_error: String,
    resource: Option<String>,
}

/// A trigger tool if configured and offered; otherwise why not.
fn trigger<'a>(cat: &Catalogue, name: &'a Option<String>, option: &str) -> Result<&'a str, String> {
    let Some(name) = name.as_deref().filter(|n| !n.is_empty()) else {
        return Err(format!("no tool given ({option})"));
    };
    match &cat.tools {
        Some(tools) if tools.iter().any(|t| t == name) => Ok(name),
        Some(_) => Err(format!(
            "the server has no tool {name:?} ({option} names the tool that causes it)"
        )),
        None => Err(format!(
            "tools/list failed ({}), so no trigger tool",
            cat.tools_error
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

fn skip_delivery(report: &mut Report, why: &str) {
    report.skip(CheckRule::AckedTypesDelivered, why);
    report.skip(CheckRule::OnlyRequestedTypes, why);
}

/// When no subscription was closed with a result, the rules about the result were not exercised.
fn no_result_skips(report: &mut Report) {
    if !report.has_findings(CheckRule::CloseResultShape) {
        let why = "no subscription was closed with a result (see graceful-close)";
        report.skip(CheckRule::CloseResultShape, why);
        report.skip(CheckRule::NothingAfterResult, why);
    }
}

fn skip_close(report: &mut Report, why: &str) {
    report.skip(CheckRule::CloseResultShape, why);
    report.skip(CheckRule::NothingAfterResult, why);
    report.skip(CheckRule::GracefulClose, why);
}

/// Two subscriptions open at once (§4.7): each acknowledged, and (when a change was caused)
/// each delivered it. Tag values are [`CheckRule::TagMatchesId`]'s business, not judged twice here.
fn judge_concurrency(
    report: &mut Report,
    v: &Validator,
    a: &RequestId,
    b: &RequestId,
    change: Option<&str>,
) {
    let acked = |id: &RequestId| v.subscription(id).is_some_and(|s| s.acked.is_some());
    let got = |id: &RequestId, m: &str| {
        v.subscription(id)
            .is_some_and(|s| s.delivered.iter().any(|d| d == m))
    };
    let f = match (acked(a), acked(b)) {
        (false, false) => {
            report.skip(
                CheckRule::ConcurrentStreams,
                format!("neither listen {a} nor {b} was acknowledged (see ack-first)"),
            );
            return;
        }
        (true, false) | (false, true) => {
            let (yes, no) = if acked(a) { (a, b) } else { (b, a) };
            Finding::fail(
                CheckRule::ConcurrentStreams,
                format!(
                    "with listens {a} and {b} open at once, only {yes} was acknowledged; {no} was not"
                ),
            )
        }
        (true, true) => match change {
            None => Finding::pass(
                CheckRule::ConcurrentStreams,
                format!("listens {a} and {b} open at once, each acknowledged on its own"),
            ),
            Some(m) => match (got(a, m), got(b, m)) {
                (true, true) => Finding::pass(
                    CheckRule::ConcurrentStreams,
                    format!(
                        "listens {a} and {b} open at once: each acknowledged, each got its own {m}"
                    ),
                ),
                (false, false) => {
                    report.skip(
                        CheckRule::ConcurrentStreams,
                        format!("neither {a} nor {b} received {m} (see acked-types-delivered)"),
                    );
                    return;
                }
                (ga, _) => {
                    let (yes, no) = if ga { (a, b) } else { (b, a) };
                    Finding::fail(
                        CheckRule::ConcurrentStreams,
                        format!(
                            "with listens {a} and {b} open at once, the change reached {yes} but not {no}"
                        ),
                    )
                }
            },
        },
    };
    report.add(f);
}

/// Rules judged by watching: no failure after watching real traffic is a pass.
fn judge_watch_rules(report: &mut Report, frames: usize, streams: usize) {
    if frames == 0 {
        return;
    }
    for (rule, what) in [
        (
            CheckRule::WellFormed,
            "every frame was one JSON-RPC message",
        ),
        (
            CheckRule::NoProgressOrMessage,
            "no progress or message notification on a listen stream",
        ),
        (CheckRule::NoServerRequests, "no server-sent request"),
    ] {
        if !report.has_failure(rule) {
            report.add(Finding::pass(
                rule,
                format!("{what} ({frames} frames on {streams} subscriptions)"),
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------------------------
