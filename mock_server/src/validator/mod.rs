//! The subscription rules, checked on what actually arrived (PROTOCOL.md §4.11).
//!
//! A [`Validator`] watches one HTTP client (any number of listen streams, each named by its
//! listen id) or one stdio channel (every subscription interleaved). Feed it every [`Event`] in
//! the order it happened: what the client did ([`Event::ListenSent`], [`Event::ClientCancelled`])
//! and what arrived ([`Event::Message`], ...). [`Validator::observe`] returns the [`Finding`]s that
//! event settles: `ok: false` is a broken rule, `ok: true` a rule seen kept (or, for
//! [`Rule::HonouredSubset`], information). Keep-alives never produce findings.
//!
//! ```
//! use mock_server::validator::{Event, Validator};
//! use mock_server::protocol::{self, RequestId, SubscriptionFilter};
//! use serde_json::json;
//!
//! let id = RequestId::from("tutor-7");
//! let mut v = Validator::new();
//! v.observe(&Event::ListenSent { id: id.clone(), filter: json!({"toolsListChanged": true}) });
//! let stream = Some(id.clone());
//! // A change notification before the acknowledgement breaks "ack first".
//! let early = protocol::list_changed(protocol::NotificationKind::ToolsListChanged, &id);
//! let f = v.observe(&Event::Message { stream, message: early });
//! assert!(f.iter().any(|f| !f.ok && f.rule.name() == "ack-first"));
//! ```

use std::time::Duration;

use crate::protocol::{Message, NotificationKind, RequestId, SubscriptionFilter, method};
use serde::Serialize;

mod rule;
pub use rule::{Level, Rule};
use serde_json::Value;

/// One judgement: a rule kept (`ok`) or broken (`!ok`), with what was seen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub rule: Rule,
    pub ok: bool,
    pub detail: String,
    /// The subscription (listen id) the finding is about, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscription: Option<RequestId>,
}

impl Finding {
    pub fn pass(rule: Rule, detail: impl Into<String>) -> Self {
        Finding {
            rule,
            ok: true,
            detail: detail.into(),
            subscription: None,
        }
    }

    pub fn fail(rule: Rule, detail: impl Into<String>) -> Self {
        Finding {
            rule,
            ok: false,
            detail: detail.into(),
            subscription: None,
        }
    }

    fn about(mut self, id: &RequestId) -> Self {
        self.subscription = Some(id.clone());
        self
    }
}

/// Something that happened. `stream` is `Some(listen id)` for an HTTP listen response stream
/// and `None` for the shared stdio channel.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The client sent `subscriptions/listen` with this id and `params.notifications`.
    ListenSent { id: RequestId, filter: Value },
    /// A JSON-RPC message arrived.
    Message {
        stream: Option<RequestId>,
        message: Value,
    },
    /// An SSE comment line arrived (never judged).
    KeepAlive { stream: Option<RequestId> },
    /// A frame or line that is not JSON arrived.
    Malformed {
        stream: Option<RequestId>,
        raw: String,
        error: String,
    },
    /// The client cancelled the subscription (HTTP: closed the stream; stdio: sent
    /// `notifications/cancelled`).
    ClientCancelled { id: RequestId },
    /// The client gave up waiting for the acknowledgement after `waited`.
    AckTimeout { id: RequestId, waited: Duration },
    /// The HTTP listen stream (`Some`) or the stdio channel (`None`) ended.
    Ended {
        stream: Option<RequestId>,
        graceful: bool,
    },
}

/// What the validator knows about one subscription.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    /// The listen request's id: the subscription id.
    pub id: RequestId,
    /// `params.notifications` as sent.
    pub requested: SubscriptionFilter,
    /// The honoured subset from the acknowledgement, once it arrived.
    pub acked: Option<SubscriptionFilter>,
    /// Some message for this subscription arrived before the acknowledgement.
    pub early: bool,
    /// The listen request was answered (result or error).
    pub answered: bool,
    /// The client cancelled it.
    pub cancelled: bool,
    /// The server sent `notifications/cancelled` for it (stdio teardown).
    pub server_cancelled: bool,
    /// Its stream (HTTP) or the channel (stdio) ended.
    pub ended: bool,
    /// Notification methods delivered after the ack, in order.
    pub delivered: Vec<String>,
}

impl Subscription {
    /// Still expecting traffic: not answered, cancelled or ended.
    pub fn is_open(&self) -> bool {
        !self.answered && !self.cancelled && !self.ended
    }
}

/// Judges one HTTP client's streams or one stdio channel. See the module docs.
#[derive(Debug, Default)]
pub struct Validator {
    subs: Vec<Subscription>,
    findings: Vec<Finding>,
}

impl Validator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every subscription seen, in the order it was opened.
    pub fn subscriptions(&self) -> &[Subscription] {
        &self.subs
    }

    /// The subscription opened with listen id `id` (the most recent one with that id).
    pub fn subscription(&self, id: &RequestId) -> Option<&Subscription> {
        self.subs.iter().rev().find(|s| &s.id == id)
    }

    /// Every finding so far.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Judges one event; returns the findings it settles (also kept in [`Validator::findings`]).
    pub fn observe(&mut self, ev: &Event) -> Vec<Finding> {
        let out = self.judge(ev);
        self.findings.extend(out.iter().cloned());
        out
    }

    fn judge(&mut self, ev: &Event) -> Vec<Finding> {
        match ev {
            Event::ListenSent { id, filter } => {
                let requested = serde_json::from_value(filter.clone()).unwrap_or_default();
                self.subs.push(Subscription {
                    id: id.clone(),
                    requested,
                    acked: None,
                    early: false,
                    answered: false,
                    cancelled: false,
                    server_cancelled: false,
                    ended: false,
                    delivered: Vec::new(),
                });
                vec![]
            }
            Event::ClientCancelled { id } => {
                if let Some(s) = self.sub_mut(id) {
                    s.cancelled = true;
                }
                vec![]
            }
            // Keep-alives are not JSON-RPC messages: they never break "ack first" (§1.4).
            Event::KeepAlive { .. } => vec![],
            Event::AckTimeout { id, waited } => match self.sub_mut(id) {
                Some(s) if s.acked.is_none() && !s.answered && !s.ended => {
                    vec![
                        Finding::fail(
                            Rule::AckFirst,
                            format!(
                                "no acknowledgement for listen {id} within {:.1} s; the spec sets no deadline [SILENT], but without the ack a client cannot tell a quiet stream from one never accepted",
                                waited.as_secs_f64()
                            ),
                        )
                        .about(id),
                    ]
                }
                _ => vec![],
            },
            Event::Malformed { stream, raw, error } => {
                let mut f = Finding::fail(Rule::WellFormed, format!("{error}: {}", clip(raw, 120)));
                f.subscription = stream.clone();
                vec![f]
            }
            Event::Message { stream, message } => self.on_message(stream.as_ref(), message),
            Event::Ended { stream, .. } => self.on_end(stream.as_ref()),
        }
    }

    fn sub_mut(&mut self, id: &RequestId) -> Option<&mut Subscription> {
        self.subs.iter_mut().rev().find(|s| &s.id == id)
    }

    fn on_end(&mut self, stream: Option<&RequestId>) -> Vec<Finding> {
        let mut out = Vec::new();
        for s in self.subs.iter_mut() {
            let ours = match stream {
                Some(id) => &s.id == id,
                None => true,
            };
            if !ours || s.ended {
                continue;
            }
            s.ended = true;
            if s.cancelled {
                continue;
            }
            if s.answered {
                if stream.is_some() && s.acked.is_some() {
                    out.push(
                        Finding::pass(
                            Rule::GracefulClose,
                            format!(
                                "listen {} ended with its result, then the stream closed",
                                s.id
                            ),
                        )
                        .about(&s.id),
                    );
                }
                continue;
            }
            if s.acked.is_none() && !s.early {
                out.push(
                    Finding::fail(
                        Rule::AckFirst,
                        format!(
                            "the stream of listen {} ended with no acknowledgement",
                            s.id
                        ),
                    )
                    .about(&s.id),
                );
            }
            if s.server_cancelled {
                // stdio teardown by notifications/cancelled alone: CAN intro's MUST is met, the
                // SHOULD of a result is not.
                out.push(Finding::fail(
                    Rule::GracefulClose,
                    format!("listen {} was torn down with notifications/cancelled but no result; the result is a SHOULD (SUB §Graceful Closure), not a MUST", s.id),
                ).about(&s.id));
                continue;
            }
            out.push(Finding::fail(
                Rule::GracefulClose,
                format!(
                    "the {} ended with no result for listen {}: an abrupt end. Sending the result is a SHOULD, not a MUST; a client MAY treat this as a reason to reconnect",
                    if stream.is_some() { "stream" } else { "channel" },
                    s.id
                ),
            ).about(&s.id));
        }
        out
    }

    fn on_message(&mut self, stream: Option<&RequestId>, message: &Value) -> Vec<Finding> {
        let msg = Message::classify(message);
        let on = |s: Option<&RequestId>| match s {
            Some(id) => format!(" on the stream of listen {id}"),
            None => String::new(),
        };
        match &msg {
            Message::Invalid { reason, .. } => {
                let mut f = Finding::fail(
                    Rule::WellFormed,
                    format!("{reason}: {}", clip(&message.to_string(), 120)),
                );
                f.subscription = stream.cloned();
                vec![f]
            }
            Message::Request { method: m, .. } => {
                let mut f = Finding::fail(
                    Rule::NoServerRequests,
                    format!("the server sent a {m} request{}", on(stream)),
                );
                f.subscription = stream.cloned();
                vec![f]
            }
            Message::Result { id, .. } | Message::Error { id: Some(id), .. } => {
                self.on_response(stream, id, &msg)
            }
            Message::Error {
                id: None, error, ..
            } => {
                let mut f = Finding::fail(
                    Rule::WellFormed,
                    format!(
                        "an error response without an id ({}: {}){}",
                        error.code,
                        error.message,
                        on(stream)
                    ),
                );
                f.subscription = stream.cloned();
                if stream.is_some() { vec![f] } else { vec![] }
            }
            Message::Notification { method: m, .. } => self.on_notification(stream, m, &msg),
        }
    }

    fn on_response(
        &mut self,
        stream: Option<&RequestId>,
        id: &RequestId,
        msg: &Message,
    ) -> Vec<Finding> {
        let sub_id = match stream {
            Some(s) => s.clone(),
            None => id.clone(),
        };
        let Some(s) = self.sub_mut(&sub_id) else {
            // stdio: a response to some other request; not a subscription's business.
            return vec![];
        };
        let sid = s.id.clone();
        if s.cancelled {
            return vec![
                Finding::fail(
                    Rule::NothingAfterCancel,
                    format!("a response for listen {sid} arrived after the client cancelled it"),
                )
                .about(&sid),
            ];
        }
        if s.answered {
            return vec![
                Finding::fail(
                    Rule::NothingAfterResult,
                    format!("a second response for listen {sid}"),
                )
                .about(&sid),
            ];
        }
        s.answered = true;
        let mut out = Vec::new();
        if let Message::Error { error, .. } = msg {
            if s.acked.is_some() {
                out.push(Finding::fail(
                    Rule::CloseResultShape,
                    format!("listen {sid} ended with an error ({}: {}) instead of the completion result", error.code, error.message),
                ).about(&sid));
            }
            // An error before any ack is the server refusing the listen: no subscription existed.
            return out;
        }
        if s.acked.is_none() && !s.early {
            s.early = true;
            out.push(
                Finding::fail(
                    Rule::AckFirst,
                    format!("the result for listen {sid} arrived before any acknowledgement"),
                )
                .about(&sid),
            );
        }
        let mut problems = Vec::new();
        if id != &sid {
            problems.push(format!("id is {id}, not the listen id {sid}"));
        }
        let result = msg.result().cloned().unwrap_or(Value::Null);
        match result.get("resultType") {
            Some(Value::String(t)) if t == "complete" => {}
            Some(other) => problems.push(format!("resultType is {other}, not \"complete\"")),
            None => problems.push("resultType is missing".to_owned()),
        }
        match msg.subscription_tag() {
            None => problems.push(format!(
                "_meta has no io.modelcontextprotocol/subscriptionId (must be {sid})"
            )),
            Some(tag) if tag != &sid.to_value() => problems.push(format!(
                "_meta subscriptionId is {} ({}), not {sid} ({})",
                tag,
                json_type(tag),
                json_type(&sid.to_value())
            )),
            Some(_) => {}
        }
        out.push(if problems.is_empty() {
            Finding::pass(
                Rule::CloseResultShape,
                format!("listen {sid} closed with {{\"resultType\":\"complete\",\"_meta\":{{subscriptionId: {sid}}}}}"),
            )
            .about(&sid)
        } else {
            Finding::fail(
                Rule::CloseResultShape,
                format!("the result closing listen {sid}: {}", problems.join("; ")),
            )
            .about(&sid)
        });
        out
    }

    fn on_notification(
        &mut self,
        stream: Option<&RequestId>,
        m: &str,
        msg: &Message,
    ) -> Vec<Finding> {
        let tag = msg.subscription_tag().cloned();
        let is_sub_kind =
            m == method::SUBSCRIPTIONS_ACKNOWLEDGED || NotificationKind::from_method(m).is_some();
        // Which subscription is this for?
        let sid = match stream {
            Some(s) => s.clone(),
            None => {
                // stdio: by the tag (deep-equal), or a server cancel by its requestId.
                match &tag {
                    Some(t) => match self.subs.iter().rev().find(|s| &s.id.to_value() == t) {
                        Some(s) => s.id.clone(),
                        None => {
                            if m == method::PROGRESS || m == method::MESSAGE {
                                return vec![Finding::fail(
                                    Rule::NoProgressOrMessage,
                                    format!(
                                        "{m} carries a subscription tag {t}: it never belongs to a subscription"
                                    ),
                                )];
                            }
                            let near = self
                                .subs
                                .iter()
                                .rev()
                                .find(|s| loosely_equal(&s.id.to_value(), t));
                            return vec![match near {
                                Some(s) => Finding::fail(
                                    Rule::TagMatchesId,
                                    format!(
                                        "{m} is tagged {t} ({}) but the listen id is {} ({}): the tag must keep the id's JSON type",
                                        json_type(t),
                                        s.id,
                                        json_type(&s.id.to_value())
                                    ),
                                )
                                .about(&s.id),
                                None => Finding::fail(
                                    Rule::TagMatchesId,
                                    format!("{m} is tagged {t}, which is no listen request's id on this channel (the id is the client's, never server-minted)"),
                                ),
                            }];
                        }
                    },
                    None => {
                        if m == method::CANCELLED
                            && let Some(rid) = msg
                                .params()
                                .and_then(|p| p.get("requestId"))
                                .and_then(RequestId::from_value)
                            && self.subscription(&rid).is_some()
                        {
                            rid
                        } else if is_sub_kind {
                            return vec![Finding::fail(
                                Rule::TagPresent,
                                format!(
                                    "{m} arrived with no subscriptionId tag: on stdio nothing else says which subscription it belongs to"
                                ),
                            )];
                        } else {
                            // Request-scoped traffic (progress, message) for other requests.
                            return vec![];
                        }
                    }
                }
            }
        };
        let Some(s) = self.sub_mut(&sid) else {
            return vec![];
        };
        if s.cancelled {
            return vec![
                Finding::fail(
                    Rule::NothingAfterCancel,
                    format!("{m} arrived for listen {sid} after the client cancelled it"),
                )
                .about(&sid),
            ];
        }
        if m == method::CANCELLED {
            if stream.is_some() {
                return vec![Finding::fail(
                    Rule::OnlyRequestedTypes,
                    format!("notifications/cancelled on the HTTP stream of listen {sid}: server-sent cancellation is scoped to stdio (TS CancelledNotification); on HTTP the server ends a listen with its result and closes the stream"),
                ).about(&sid)];
            }
            s.server_cancelled = true;
            return vec![];
        }
        if s.answered {
            return vec![
                Finding::fail(
                    Rule::NothingAfterResult,
                    format!("{m} arrived for listen {sid} after its closing result"),
                )
                .about(&sid),
            ];
        }
        let mut out = Vec::new();
        // The tag (on stdio it was found by the tag, so it is present and equal).
        match &tag {
            None => out.push(
                Finding::fail(
                    Rule::TagPresent,
                    format!("{m} on the stream of listen {sid} has no params._meta io.modelcontextprotocol/subscriptionId"),
                )
                .about(&sid),
            ),
            Some(t) => {
                out.push(Finding::pass(Rule::TagPresent, format!("{m} is tagged")).about(&sid));
                if t == &sid.to_value() {
                    out.push(
                        Finding::pass(
                            Rule::TagMatchesId,
                            format!("{m} tagged {t}, the listen request's own id"),
                        )
                        .about(&sid),
                    );
                } else {
                    out.push(
                        Finding::fail(
                            Rule::TagMatchesId,
                            format!(
                                "{m} is tagged {t} ({}) but the listen id is {sid} ({})",
                                json_type(t),
                                json_type(&sid.to_value())
                            ),
                        )
                        .about(&sid),
                    );
                }
            }
        }
        if m == method::SUBSCRIPTIONS_ACKNOWLEDGED {
            if s.acked.is_some() {
                out.push(
                    Finding::fail(
                        Rule::AckFirst,
                        format!("a second acknowledgement for listen {sid}"),
                    )
                    .about(&sid),
                );
                return out;
            }
            if !s.early {
                out.push(
                    Finding::pass(
                        Rule::AckFirst,
                        format!("the acknowledgement is the first message for listen {sid}"),
                    )
                    .about(&sid),
                );
            }
            let honoured = msg.params().and_then(|p| p.get("notifications"));
            let (acked, finding) = compare_subset(&s.requested, honoured);
            s.acked = Some(acked);
            out.push(finding.about(&sid));
            return out;
        }
        if s.acked.is_none() {
            if !s.early {
                out.push(
                    Finding::fail(
                        Rule::AckFirst,
                        format!("{m} arrived for listen {sid} before its acknowledgement"),
                    )
                    .about(&sid),
                );
            }
            s.early = true;
        }
        if m == method::PROGRESS || m == method::MESSAGE {
            out.push(
                Finding::fail(
                    Rule::NoProgressOrMessage,
                    format!("{m} on the listen stream of {sid}"),
                )
                .about(&sid),
            );
            return out;
        }
        let Some(kind) = NotificationKind::from_method(m) else {
            out.push(
                Finding::fail(
                    Rule::OnlyRequestedTypes,
                    format!("{m} is not a notification a listen stream carries (listen {sid})"),
                )
                .about(&sid),
            );
            return out;
        };
        let mut uri = None;
        if kind == NotificationKind::ResourceUpdated {
            match msg.params().and_then(|p| p.get("uri")) {
                Some(Value::String(u)) => {
                    out.push(
                        Finding::pass(Rule::UpdatedHasUri, format!("resources/updated for {u}"))
                            .about(&sid),
                    );
                    uri = Some(u.clone());
                }
                other => out.push(
                    Finding::fail(
                        Rule::UpdatedHasUri,
                        match other {
                            None => format!("resources/updated for listen {sid} has no params.uri"),
                            Some(v) => format!(
                                "resources/updated for listen {sid} has params.uri {v} ({}), not a string",
                                json_type(v)
                            ),
                        },
                    )
                    .about(&sid),
                ),
            }
        }
        let asked = s.requested.wants(kind, uri.as_deref());
        let acked = s
            .acked
            .as_ref()
            .is_none_or(|a| a.wants(kind, uri.as_deref()));
        let what = match &uri {
            Some(u) => format!("{m} for {u}"),
            None => m.to_owned(),
        };
        out.push(
            match (asked, acked) {
                (true, true) => Finding::pass(
                    Rule::OnlyRequestedTypes,
                    format!("{what}: requested and acknowledged"),
                ),
                (false, _) => Finding::fail(
                    Rule::OnlyRequestedTypes,
                    format!("{what} arrived on listen {sid}, which did not ask for it (asked: {})", describe(&s.requested)),
                ),
                (true, false) => Finding::fail(
                    Rule::OnlyRequestedTypes,
                    format!("{what} arrived on listen {sid}, but the acknowledgement left it out (honoured: {})", s.acked.as_ref().map(describe).unwrap_or_default()),
                ),
            }
            .about(&sid),
        );
        s.delivered.push(m.to_owned());
        out
    }
}

/// The ack's honoured subset against the request: omissions are information (unsupported types
/// are omitted, not errored); a missing field or a claim beyond the request is a failure.
fn compare_subset(
    requested: &SubscriptionFilter,
    honoured: Option<&Value>,
) -> (SubscriptionFilter, Finding) {
    let Some(v) = honoured else {
        return (
            SubscriptionFilter::default(),
            Finding::fail(
                Rule::HonouredSubset,
                "the acknowledgement has no params.notifications (required: the subset the server will honour)",
            ),
        );
    };
    let acked: SubscriptionFilter = match serde_json::from_value(v.clone()) {
        Ok(f) => f,
        Err(e) => {
            return (
                SubscriptionFilter::default(),
                Finding::fail(
                    Rule::HonouredSubset,
                    format!("the acknowledgement's params.notifications is not a filter: {e}"),
                ),
            );
        }
    };
    let mut extra = Vec::new();
    let mut omitted = Vec::new();
    for (name, asked, got) in [
        (
            "toolsListChanged",
            requested.wants_tools(),
            acked.wants_tools(),
        ),
        (
            "promptsListChanged",
            requested.wants_prompts(),
            acked.wants_prompts(),
        ),
        (
            "resourcesListChanged",
            requested.wants_resources_list(),
            acked.wants_resources_list(),
        ),
    ] {
        match (asked, got) {
            (true, false) => omitted.push(name.to_owned()),
            (false, true) => extra.push(name.to_owned()),
            _ => {}
        }
    }
    for u in requested.uris() {
        if !acked.uris().contains(u) {
            omitted.push(format!("resourceSubscriptions {u}"));
        }
    }
    for u in acked.uris() {
        if !requested.uris().contains(u) {
            extra.push(format!("resourceSubscriptions {u}"));
        }
    }
    let finding = if !extra.is_empty() {
        Finding::fail(
            Rule::HonouredSubset,
            format!(
                "the acknowledgement claims {} which the request did not ask for: the ack lists a subset of the request",
                extra.join(", ")
            ),
        )
    } else if omitted.is_empty() {
        Finding::pass(
            Rule::HonouredSubset,
            format!("honoured everything asked: {}", describe(&acked)),
        )
    } else {
        Finding::pass(
            Rule::HonouredSubset,
            format!(
                "honoured {}; left out {} (unsupported types are omitted, not errored; compare and cope)",
                describe(&acked),
                omitted.join(", ")
            ),
        )
    };
    (acked, finding)
}

/// A filter in words: `tools, prompts, resources/list, mock://a`.
pub fn describe(f: &SubscriptionFilter) -> String {
    let mut parts = Vec::new();
    if f.wants_tools() {
        parts.push("toolsListChanged".to_owned());
    }
    if f.wants_prompts() {
        parts.push("promptsListChanged".to_owned());
    }
    if f.wants_resources_list() {
        parts.push("resourcesListChanged".to_owned());
    }
    parts.extend(
        f.uris()
            .iter()
            .map(|u| format!("resourceSubscriptions {u}")),
    );
    if parts.is_empty() {
        "nothing".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The JSON type of a value, for "the tag must keep the id's type" messages.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `7` and `"7"`: the same text, a different JSON type.
fn loosely_equal(a: &Value, b: &Value) -> bool {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    a != b && text(a) == text(b)
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(n).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests;
