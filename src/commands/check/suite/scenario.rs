//! The scenario `check` runs, written once for every transport:
//!
//! - `server/discover`, then (HTTP only) the header layer.
//! - Listens A (string id, tools + prompts), B (integer id, tools), C (prompts) and, when the
//!   server lists a resource, D (that URI plus one that does not exist): each acknowledged
//!   first, tagged with its own id (type included); one deadline for every ack.
//! - [`CHANGES`]: each change, caused by calling the server's own tool, must reach the listens
//!   it is for and no other.
//! - stdio only: B is cancelled with `notifications/cancelled`; then [`AFTER_CANCEL`]. (Over
//!   HTTP closing the stream is the cancel, after which nothing can be seen.)
//! - The close tool must end every open subscription with the exact completion result.

use mock_server::protocol::{RequestId, SubscriptionFilter, method};
use mock_server::validator::{CheckRule, Finding, Validator};
use serde_json::{Value, json};

use super::Config;
use super::headers::{body_checks, header_checks, judge_discover};
use super::probe::{Catalogue, Listen, Probe};
use crate::client::link::Transport;
use crate::commands::check::endpoint;
use crate::commands::check::report::Report;

/// A resource URI that does not exist, to see the honoured subset leave it out.
const BOGUS_URI: &str = "mcp-tutor-check://no-such-resource";

/// The subscriptions the scenario opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sub {
    A,
    B,
    C,
    D,
}

impl Sub {
    fn id(self) -> RequestId {
        match self {
            Sub::A => RequestId::from("mcp-tutor-check-a"),
            Sub::B => RequestId::Int(7301),
            Sub::C => RequestId::from("mcp-tutor-check-c"),
            Sub::D => RequestId::from("mcp-tutor-check-d"),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Sub::A => "string id, tools+prompts",
            Sub::B => "integer id, tools only",
            Sub::C => "prompts only",
            Sub::D => "resource subscription",
        }
    }

    fn listen(self) -> Listen {
        (self.id(), self.label())
    }

    /// What it asks for; D only exists when the server lists a `resource`.
    fn filter(self, resource: &str) -> SubscriptionFilter {
        let (tools, prompts, uris) = match self {
            Sub::A => (true, true, vec![]),
            Sub::B => (true, false, vec![]),
            Sub::C => (false, true, vec![]),
            Sub::D => (
                false,
                false,
                vec![resource.to_owned(), BOGUS_URI.to_owned()],
            ),
        };
        SubscriptionFilter {
            tools_list_changed: tools.then_some(true),
            prompts_list_changed: prompts.then_some(true),
            resources_list_changed: None,
            resource_subscriptions: (!uris.is_empty()).then_some(uris),
        }
    }
}

fn listens(subs: &[Sub]) -> Vec<Listen> {
    subs.iter().map(|s| s.listen()).collect()
}

/// What causes a change: one of the server's tools.
#[derive(Debug, Clone, Copy)]
enum Trigger {
    ToolList,
    PromptList,
    ResourceUpdate,
}

impl Trigger {
    /// The configured tool, and the option that names it.
    fn tool(self, cfg: &Config) -> (&Option<String>, &'static str) {
        match self {
            Trigger::ToolList => (&cfg.tool_change, "--change-tool"),
            Trigger::PromptList => (&cfg.prompt_change, "--prompt-change-tool"),
            Trigger::ResourceUpdate => (&cfg.resource_update, "--resource-update-tool"),
        }
    }

    /// The notification it causes.
    fn method(self) -> &'static str {
        match self {
            Trigger::ToolList => method::TOOLS_LIST_CHANGED,
            Trigger::PromptList => method::PROMPTS_LIST_CHANGED,
            Trigger::ResourceUpdate => method::RESOURCES_UPDATED,
        }
    }

    /// The rules left unjudged when it cannot run.
    fn needed_by(self) -> &'static [CheckRule] {
        match self {
            Trigger::ToolList | Trigger::PromptList => &[
                CheckRule::AckedTypesDelivered,
                CheckRule::OnlyRequestedTypes,
            ],
            Trigger::ResourceUpdate => &[CheckRule::UpdatedHasUri],
        }
    }
}

/// One change and who must (and must not) hear of it.
struct Change {
    trigger: Trigger,
    want: &'static [Sub],
    dont: &'static [Sub],
}

const CHANGES: [Change; 3] = [
    Change {
        trigger: Trigger::ToolList,
        want: &[Sub::A, Sub::B],
        dont: &[Sub::C, Sub::D],
    },
    Change {
        trigger: Trigger::PromptList,
        want: &[Sub::A, Sub::C],
        dont: &[Sub::B, Sub::D],
    },
    Change {
        trigger: Trigger::ResourceUpdate,
        want: &[Sub::D],
        dont: &[Sub::A, Sub::B, Sub::C],
    },
];

/// The listen the client cancels (stdio), and the change that must then not reach it.
const CANCELLED: Sub = Sub::B;
const AFTER_CANCEL: Change = Change {
    trigger: Trigger::ToolList,
    want: &[Sub::A],
    dont: &[Sub::C, Sub::D],
};

/// Runs the scenario; `Err` only when the server cannot be checked at all.
pub(super) async fn run(p: &mut Probe<'_>) -> anyhow::Result<()> {
    discover(p).await?;
    match p.link().http() {
        Some(http) => header_checks(http, &mut p.report).await,
        None => {
            body_checks(p).await;
            for rule in CheckRule::all().iter().copied().filter(|r| r.http_only()) {
                p.report.skip(
                    rule,
                    "HTTP only: stdio has no header layer (STDIO §Request Metadata)",
                );
            }
        }
    }
    let cat = p.catalogue().await;
    let subs: &[Sub] = if cat.resource.is_some() {
        &[Sub::A, Sub::B, Sub::C, Sub::D]
    } else {
        &[Sub::A, Sub::B, Sub::C]
    };
    let resource = cat.resource.clone().unwrap_or_default();
    for s in subs {
        p.open(&s.listen(), &s.filter(&resource)).await;
    }
    p.await_acks(&listens(subs)).await;

    let mut tools_changed = None;
    for change in &CHANGES {
        if run_change(p, &cat, change).await {
            if let Trigger::ToolList = change.trigger {
                tools_changed = Some(change.trigger.method());
            }
        }
        if let Trigger::ToolList = change.trigger {
            judge_concurrency(
                &mut p.report,
                &p.v,
                &Sub::A.id(),
                &Sub::B.id(),
                tools_changed,
            );
        }
    }
    match p.link().transport() {
        Transport::Stdio => client_cancel(p, &cat).await?,
        Transport::Http => p.report.skip(
            CheckRule::NothingAfterCancel,
            "not observable over HTTP: closing the stream is the cancel, so nothing can arrive after it; `check --stdio` tests it",
        ),
    }

    // Stragglers (a notifications/message after the ack, an unasked type, ...).
    p.watch(p.cfg.grace()).await;
    close(p, &cat, subs).await;

    // Whatever is still open is the client's to cancel, not an abrupt end.
    for s in subs {
        let id = s.id();
        if p.is_open(&id) {
            p.cancel(&id).await.ok();
        }
    }
    let frames = p.frames;
    judge_watch_rules(&mut p.report, frames, subs.len());
    Ok(())
}

/// `server/discover` first: it also proves a server is there at all, and (HTTP) an MCP
/// 2026-07-28 endpoint rather than a web page or an older revision.
async fn discover(p: &mut Probe<'_>) -> anyhow::Result<()> {
    let link = p.link();
    let reply = match p.request(method::SERVER_DISCOVER, json!({})).await {
        Ok(r) => r,
        Err(e) => {
            let stderr = link.stderr();
            let stderr = if stderr.trim().is_empty() {
                String::new()
            } else {
                format!("\nserver stderr:\n{stderr}")
            };
            let ask = match link.transport() {
                Transport::Http => "is an MCP 2026-07-28 server listening there?",
                Transport::Stdio => "is it an MCP 2026-07-28 server over stdio?",
            };
            return Err(e.context(format!(
                "server/discover to {} failed; {ask}{stderr}",
                link.describe()
            )));
        }
    };
    if let (Some(http), Some(ex)) = (link.http(), &reply.exchange)
        && let Some(why) = endpoint::not_mcp(http, ex).await
    {
        anyhow::bail!(why);
    }
    p.report
        .add(judge_discover(reply.status, reply.message.as_ref()));
    Ok(())
}

/// The tool that causes `trigger`'s change, with its arguments; or why it cannot run.
fn tool_for(
    p: &Probe<'_>,
    cat: &Catalogue,
    trigger: Trigger,
) -> Result<(String, Value, String), String> {
    let (name, option) = trigger.tool(&p.cfg);
    let tool = cat.tool(name, option)?.to_owned();
    Ok(match trigger {
        Trigger::ResourceUpdate => {
            let uri = cat
                .resource
                .clone()
                .ok_or("resources/list offered no resource to subscribe to")?;
            let cause = format!("calling {tool} for {uri}");
            (tool, json!({ "uri": uri }), cause)
        }
        Trigger::ToolList | Trigger::PromptList => {
            let cause = format!("calling {tool}");
            (tool, json!({}), cause)
        }
    })
}

/// One row of [`CHANGES`]; false (and its rules skipped, with why) when it could not run.
async fn run_change(p: &mut Probe<'_>, cat: &Catalogue, change: &Change) -> bool {
    let ran = match tool_for(p, cat, change.trigger) {
        Ok((tool, args, cause)) => {
            let (want, dont) = (listens(change.want), listens(change.dont));
            let m = change.trigger.method();
            p.change((&tool, args), m, &cause, &want, &dont).await
        }
        Err(why) => Err(why),
    };
    match ran {
        Ok(()) => true,
        Err(why) => {
            for &rule in change.trigger.needed_by() {
                p.report.skip(rule, why.clone());
            }
            false
        }
    }
}

/// stdio: the client cancels B with `notifications/cancelled`; then a tools change must not
/// reach it.
async fn client_cancel(p: &mut Probe<'_>, cat: &Catalogue) -> anyhow::Result<()> {
    let b = CANCELLED.id();
    let skip = match tool_for(p, cat, AFTER_CANCEL.trigger) {
        Err(why) => Some(why),
        Ok(_) if !p.acked(&b) => Some(format!("listen {b} was never acknowledged")),
        Ok(_) => None,
    };
    if let Some(why) = skip {
        p.report.skip(CheckRule::NothingAfterCancel, why);
        return Ok(());
    }
    p.cancel(&b)
        .await
        .map_err(|e| e.context("could not write notifications/cancelled"))?;
    let had = p.report.has_failure(CheckRule::NothingAfterCancel);
    let Ok((tool, args, cause)) = tool_for(p, cat, AFTER_CANCEL.trigger) else {
        return Ok(());
    };
    let cause = format!("{cause} again");
    let (want, dont) = (listens(AFTER_CANCEL.want), listens(AFTER_CANCEL.dont));
    let m = AFTER_CANCEL.trigger.method();
    match p.change((&tool, args), m, &cause, &want, &dont).await {
        Ok(()) if !had && !p.report.has_failure(CheckRule::NothingAfterCancel) => {
            p.report.add(
                Finding::pass(
                    CheckRule::NothingAfterCancel,
                    format!("after notifications/cancelled for {b}, {cause} sent nothing for it"),
                )
                .about(&b),
            );
        }
        Ok(()) => {}
        Err(why) => p.report.skip(CheckRule::NothingAfterCancel, why),
    }
    Ok(())
}

/// The close tool must end every open subscription with its result.
async fn close(p: &mut Probe<'_>, cat: &Catalogue, subs: &[Sub]) {
    let ran = match cat.tool(&p.cfg.close, "--close-tool") {
        Ok(tool) => {
            let tool = tool.to_owned();
            let open: Vec<RequestId> = subs
                .iter()
                .map(|s| s.id())
                .filter(|id| p.acked(id) && p.is_open(id))
                .collect();
            match p.call_tool(&tool, json!({})).await {
                Ok(()) => {
                    p.await_close(&open).await;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    };
    if let Err(why) = ran {
        for rule in [
            CheckRule::CloseResultShape,
            CheckRule::NothingAfterResult,
            CheckRule::GracefulClose,
        ] {
            p.report.skip(rule, why.clone());
        }
    }
    // When no subscription was closed with a result, the rules about the result were not
    // exercised.
    if !p.report.has_findings(CheckRule::CloseResultShape) {
        let why = "no subscription was closed with a result (see graceful-close)";
        p.report.skip(CheckRule::CloseResultShape, why);
        p.report.skip(CheckRule::NothingAfterResult, why);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use mock_server::protocol::NotificationKind;

    /// Each change is for exactly the listens that asked for its kind and judged on every
    /// other: the scenario's rows agree with the filters it sends. After the cancel, the
    /// cancelled listen is in neither list (nothing may arrive for it at all).
    #[test]
    fn every_change_is_for_exactly_the_listens_that_asked() {
        let rows = CHANGES.iter().map(|c| (c, None));
        for (change, gone) in rows.chain([(&AFTER_CANCEL, Some(CANCELLED))]) {
            let kind = NotificationKind::from_method(change.trigger.method());
            for s in [Sub::A, Sub::B, Sub::C, Sub::D] {
                let (want, dont) = (change.want.contains(&s), change.dont.contains(&s));
                let what = format!("{s:?} for {:?}", change.trigger);
                if Some(s) == gone {
                    assert!(!want && !dont, "{what}");
                    continue;
                }
                let asked = kind.is_some_and(|k| s.filter("mock://x").wants(k, Some("mock://x")));
                assert_eq!(want, asked, "{what}");
                assert_eq!(dont, !asked, "{what}");
            }
        }
    }
}
