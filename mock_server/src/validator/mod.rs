//! The subscription rules, checked on what actually arrived (docs/rules.md lists each one).
//!
//! A [`Validator`] watches one HTTP client (any number of listen streams, each named by its
//! listen id) or one stdio channel (every subscription interleaved). Feed it every [`Observation`] in
//! the order it happened: what the client did ([`Observation::ListenSent`], [`Observation::ClientCancelled`])
//! and what arrived ([`Observation::Message`], ...). [`Validator::observe`] returns the [`Finding`]s that
//! event settles: `ok: false` is a broken rule, `ok: true` a rule seen kept (or, for
//! [`CheckRule::HonouredSubset`], information). Keep-alives never produce findings.
//!
//! ```
//! use mcp_tutor_mock::validator::{Observation, Validator};
//! use mcp_tutor_mock::protocol::{self, RequestId, SubscriptionFilter};
//!
//! let id = RequestId::from("tutor-7");
//! let mut v = Validator::new();
//! let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
//! v.observe(&Observation::ListenSent { id: id.clone(), filter });
//! let stream = Some(id.clone());
//! // A change notification before the acknowledgement breaks "ack first".
//! let early = protocol::list_changed(protocol::NotificationKind::ToolsListChanged, &id);
//! let f = v.observe(&Observation::Message { stream, message: protocol::Message::classify(&early) });
//! assert!(f.iter().any(|f| !f.ok && f.rule.name() == "ack-first"));
//! ```

use std::time::Duration;

use crate::protocol::{Message, NotificationKind, RequestId, SubscriptionFilter, method};
use serde::Serialize;

mod notification;
mod rule;
use notification::clip;
pub use notification::{ACK_NOT_FIRST, describe, json_type};
pub use rule::{CheckRule, Level};
use serde_json::Value;

/// One judgement: a rule kept (`ok`) or broken (`!ok`), with what was seen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub rule: CheckRule,
    pub ok: bool,
    pub detail: String,
    /// The subscription (listen id) the finding is about, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscription: Option<RequestId>,
    /// What the finding means for the frame it was judged on, in the words the lab prints
    /// under that frame (`tag "lab-1" = the listen request's own id`), so the lab shows the
    /// judgement instead of making it again. `None` when the detail says it all; not part of
    /// `check`'s report.
    #[serde(skip)]
    pub note: Option<String>,
}

impl Finding {
    pub fn pass(rule: CheckRule, detail: impl Into<String>) -> Self {
        Finding {
            rule,
            ok: true,
            detail: detail.into(),
            subscription: None,
            note: None,
        }
    }

    pub fn fail(rule: CheckRule, detail: impl Into<String>) -> Self {
        Finding {
            rule,
            ok: false,
            detail: detail.into(),
            subscription: None,
            note: None,
        }
    }

    fn noting(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// The finding is about the subscription `id`.
    pub fn about(mut self, id: &RequestId) -> Self {
        self.subscription = Some(id.clone());
        self
    }
}

/// Something that happened. `stream` is `Some(listen id)` for an HTTP listen response stream
/// and `None` for the shared stdio channel.
#[derive(Debug, Clone, PartialEq)]
pub enum Observation {
    /// The client sent `subscriptions/listen` with this id and `params.notifications`.
    ListenSent {
        id: RequestId,
        filter: SubscriptionFilter,
    },
    /// A JSON-RPC message arrived, classified once by whoever read it off the wire.
    Message {
        stream: Option<RequestId>,
        message: Message,
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
    /// The client asked the server to end the subscription `id` (a close tool) and gave up
    /// waiting for it to end after `waited`: `stream` is `Some(id)` for its HTTP listen stream,
    /// `None` on stdio (as for [`Observation::Message`]).
    CloseTimeout {
        stream: Option<RequestId>,
        id: RequestId,
        waited: Duration,
    },
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
    pub fn observe(&mut self, ev: &Observation) -> Vec<Finding> {
        let out = self.judge(ev);
        self.findings.extend(out.iter().cloned());
        out
    }

    fn judge(&mut self, ev: &Observation) -> Vec<Finding> {
        match ev {
            Observation::ListenSent { id, filter } => {
                self.subs.push(Subscription {
                    id: id.clone(),
                    requested: filter.clone(),
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
            Observation::ClientCancelled { id } => {
                if let Some(s) = self.sub_mut(id) {
                    s.cancelled = true;
                }
                vec![]
            }
            // Keep-alives are not JSON-RPC messages: they never break "ack first" (§1.4).
            Observation::KeepAlive { .. } => vec![],
            Observation::AckTimeout { id, waited } => match self.sub_mut(id) {
                Some(s) if s.acked.is_none() && !s.answered && !s.ended => {
                    vec![
                        Finding::fail(
                            CheckRule::AckFirst,
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
            Observation::CloseTimeout { stream, id, waited } => {
                self.on_close_timeout(stream.is_some(), id, *waited)
            }
            Observation::Malformed { stream, raw, error } => {
                let mut f = Finding::fail(
                    CheckRule::WellFormed,
                    format!("{error}: {}", clip(raw, 120)),
                );
                f.subscription = stream.clone();
                vec![f]
            }
            Observation::Message { stream, message } => self.on_message(stream.as_ref(), message),
            Observation::Ended { stream, .. } => self.on_end(stream.as_ref()),
        }
    }

    fn sub_mut(&mut self, id: &RequestId) -> Option<&mut Subscription> {
        self.subs.iter_mut().rev().find(|s| &s.id == id)
    }

    /// A close the client waited for in vain: no result (SHOULD), or, over HTTP, a result on a
    /// stream that stayed open (the final response SHOULD end it).
    fn on_close_timeout(&mut self, http: bool, id: &RequestId, waited: Duration) -> Vec<Finding> {
        let Some(s) = self.sub_mut(id) else {
            return vec![];
        };
        // Already judged: cancelled by the client, ended (see `on_end`), or closed with its
        // result on stdio (see `on_response`).
        if s.cancelled || s.ended || (s.answered && !http) {
            return vec![];
        }
        let secs = waited.as_secs_f64();
        let detail = if s.answered {
            format!(
                "listen {id} got its result but its stream stayed open for {secs:.1} s: the final response SHOULD end the stream"
            )
        } else {
            // The client gives up on it: nothing later is judged as part of it.
            s.ended = true;
            if s.server_cancelled {
                format!(
                    "listen {id} was torn down with notifications/cancelled but no result; the result is a SHOULD (SUB §Graceful Closure), not a MUST"
                )
            } else {
                format!(
                    "no result for listen {id} within {secs:.1} s of asking the server to close it: sending the result is a SHOULD, not a MUST"
                )
            }
        };
        vec![Finding::fail(CheckRule::GracefulClose, detail).about(id)]
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
                            CheckRule::GracefulClose,
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
                        CheckRule::AckFirst,
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
                    CheckRule::GracefulClose,
                    format!("listen {} was torn down with notifications/cancelled but no result; the result is a SHOULD (SUB §Graceful Closure), not a MUST", s.id),
                ).about(&s.id));
                continue;
            }
            out.push(Finding::fail(
                CheckRule::GracefulClose,
                format!(
                    "the {} ended with no result for listen {}: an abrupt end. Sending the result is a SHOULD, not a MUST; a client MAY treat this as a reason to reconnect",
                    if stream.is_some() { "stream" } else { "channel" },
                    s.id
                ),
            ).about(&s.id));
        }
        out
    }

    fn on_message(&mut self, stream: Option<&RequestId>, msg: &Message) -> Vec<Finding> {
        let on = |s: Option<&RequestId>| match s {
            Some(id) => format!(" on the stream of listen {id}"),
            None => String::new(),
        };
        match msg {
            Message::Invalid { reason, raw } => {
                let mut f = Finding::fail(
                    CheckRule::WellFormed,
                    format!("{reason}: {}", clip(&raw.to_string(), 120)),
                );
                f.subscription = stream.cloned();
                vec![f]
            }
            Message::Request { method: m, .. } => {
                let mut f = Finding::fail(
                    CheckRule::NoServerRequests,
                    format!("the server sent a {m} request{}", on(stream)),
                );
                f.subscription = stream.cloned();
                vec![f]
            }
            Message::Result { id, .. } | Message::Error { id: Some(id), .. } => {
                self.on_response(stream, id, msg)
            }
            Message::Error {
                id: None, error, ..
            } => {
                let mut f = Finding::fail(
                    CheckRule::WellFormed,
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
            Message::Notification { method: m, .. } => self.on_notification(stream, m, msg),
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
                    CheckRule::NothingAfterCancel,
                    format!("a response for listen {sid} arrived after the client cancelled it"),
                )
                .about(&sid),
            ];
        }
        if s.answered {
            return vec![
                Finding::fail(
                    CheckRule::NothingAfterResult,
                    format!("a second response for listen {sid}"),
                )
                .about(&sid),
            ];
        }
        s.answered = true;
        let mut out = Vec::new();
        if stream.is_none() && s.acked.is_some() {
            // On stdio the response is the end of the subscription (over HTTP, the stream's end
            // is: see `on_end`).
            out.push(
                Finding::pass(
                    CheckRule::GracefulClose,
                    format!("listen {sid} ended with its result"),
                )
                .about(&sid),
            );
        }
        if let Message::Error { error, .. } = msg {
            if s.acked.is_some() {
                out.push(Finding::fail(
                    CheckRule::CloseResultShape,
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
                    CheckRule::AckFirst,
                    format!("the result for listen {sid} arrived before any acknowledgement"),
                )
                .about(&sid),
            );
        }
        let problems = close_result_problems(id, &sid, msg);
        let tag_note = notification::tag_note(msg.subscription_tag(), &sid);
        out.push(if problems.is_empty() {
            Finding::pass(
                CheckRule::CloseResultShape,
                format!("listen {sid} closed with {{\"resultType\":\"complete\",\"_meta\":{{subscriptionId: {sid}}}}}"),
            )
            .about(&sid)
        } else {
            Finding::fail(
                CheckRule::CloseResultShape,
                format!("the result closing listen {sid}: {}", problems.join("; ")),
            )
            .about(&sid)
        }
        .noting(tag_note));
        out
    }
}

/// What is wrong with the result closing listen `sid` (answering request `id`): its id, its
/// resultType, its tag. Empty when it is the completion result it must be.
fn close_result_problems(id: &RequestId, sid: &RequestId, msg: &Message) -> Vec<String> {
    let mut problems = Vec::new();
    if id != sid {
        problems.push(format!("id is {id}, not the listen id {sid}"));
    }
    match msg.result_type() {
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
    problems
}

#[cfg(test)]
mod tests;
