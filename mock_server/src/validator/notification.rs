//! Judging a notification: the acknowledgement (with the honoured subset), tags, filters, and
//! what may never arrive on a listen stream; and the wording helpers findings share.

use serde_json::Value;

use super::*;

impl Validator {
    /// A notification on `stream` (HTTP) or the shared channel (stdio, `None`): which listen it
    /// is for, whether that listen may still receive anything, its tag, then what it is (the
    /// acknowledgement, or a change the listen asked for).
    pub(super) fn on_notification(
        &mut self,
        stream: Option<&RequestId>,
        m: &str,
        msg: &Message,
    ) -> Vec<Finding> {
        let tag = msg.subscription_tag().cloned();
        let sid = match stream {
            Some(s) => s.clone(),
            None => match self.route_on_stdio(m, msg, tag.as_ref()) {
                Ok(sid) => sid,
                Err(findings) => return findings,
            },
        };
        let Some(s) = self.sub_mut(&sid) else {
            return vec![];
        };
        if let Some(over) = after_the_end(s, &sid, stream.is_some(), m) {
            return over;
        }
        let mut out = tag_findings(m, tag.as_ref(), &sid);
        if m == method::SUBSCRIPTIONS_ACKNOWLEDGED {
            on_ack(s, &sid, msg, &mut out);
        } else {
            on_change(s, &sid, m, msg, &mut out);
        }
        out
    }

    /// On stdio a notification says which listen it is for only by its tag (deep-equal to the
    /// listen's id), or, for a server cancel, by its requestId. `Err` holds what to report
    /// when it belongs to no listen (nothing, for request-scoped traffic of other requests).
    fn route_on_stdio(
        &self,
        m: &str,
        msg: &Message,
        tag: Option<&Value>,
    ) -> Result<RequestId, Vec<Finding>> {
        let Some(t) = tag else {
            let is_sub_kind = m == method::SUBSCRIPTIONS_ACKNOWLEDGED
                || NotificationKind::from_method(m).is_some();
            if let Some(rid) = msg.cancelled_request()
                && self.subscription(&rid).is_some()
            {
                return Ok(rid);
            }
            if is_sub_kind {
                return Err(vec![Finding::fail(
                    CheckRule::TagPresent,
                    format!(
                        "{m} arrived with no subscriptionId tag: on stdio nothing else says which subscription it belongs to"
                    ),
                )]);
            }
            // Request-scoped traffic (progress, message) for other requests.
            return Err(vec![]);
        };
        if let Some(s) = self.subs.iter().rev().find(|s| &s.id.to_value() == t) {
            return Ok(s.id.clone());
        }
        if m == method::PROGRESS || m == method::MESSAGE {
            return Err(vec![Finding::fail(
                CheckRule::NoProgressOrMessage,
                format!("{m} carries a subscription tag {t}: it never belongs to a subscription"),
            )]);
        }
        let near = self
            .subs
            .iter()
            .rev()
            .find(|s| loosely_equal(&s.id.to_value(), t));
        Err(vec![match near {
            Some(s) => Finding::fail(
                CheckRule::TagMatchesId,
                format!(
                    "{m} is tagged {t} ({}) but the listen id is {} ({}): the tag must keep the id's JSON type",
                    json_type(t),
                    s.id,
                    json_type(&s.id.to_value())
                ),
            )
            .about(&s.id),
            None => Finding::fail(
                CheckRule::TagMatchesId,
                format!("{m} is tagged {t}, which is no listen request's id on this channel (the id is the client's, never server-minted)"),
            ),
        }])
    }
}

/// What a listen that is over (cancelled by the client, or answered) or being cancelled by the
/// server makes of `m`; `None` while it is live and `m` is for judging.
fn after_the_end(
    s: &mut Subscription,
    sid: &RequestId,
    on_http: bool,
    m: &str,
) -> Option<Vec<Finding>> {
    if s.cancelled {
        return Some(vec![
            Finding::fail(
                CheckRule::NothingAfterCancel,
                format!("{m} arrived for listen {sid} after the client cancelled it"),
            )
            .about(sid),
        ]);
    }
    if m == method::CANCELLED {
        if on_http {
            return Some(vec![Finding::fail(
                CheckRule::OnlyRequestedTypes,
                format!("notifications/cancelled on the HTTP stream of listen {sid}: server-sent cancellation is scoped to stdio (TS CancelledNotification); on HTTP the server ends a listen with its result and closes the stream"),
            ).about(sid)]);
        }
        s.server_cancelled = true;
        return Some(vec![]);
    }
    if s.answered {
        return Some(vec![
            Finding::fail(
                CheckRule::NothingAfterResult,
                format!("{m} arrived for listen {sid} after its closing result"),
            )
            .about(sid),
        ]);
    }
    None
}

/// The tag of `m` on listen `sid` (on stdio it was found by the tag, so it is present and equal).
fn tag_findings(m: &str, tag: Option<&Value>, sid: &RequestId) -> Vec<Finding> {
    let Some(t) = tag else {
        return vec![
            Finding::fail(
                CheckRule::TagPresent,
                format!("{m} on the stream of listen {sid} has no params._meta io.modelcontextprotocol/subscriptionId"),
            )
            .about(sid)
            .noting(tag_note(None, sid)),
        ];
    };
    let matches = if t == &sid.to_value() {
        Finding::pass(
            CheckRule::TagMatchesId,
            format!("{m} tagged {t}, the listen request's own id"),
        )
    } else {
        Finding::fail(
            CheckRule::TagMatchesId,
            format!(
                "{m} is tagged {t} ({}) but the listen id is {sid} ({})",
                json_type(t),
                json_type(&sid.to_value())
            ),
        )
    };
    vec![
        Finding::pass(CheckRule::TagPresent, format!("{m} is tagged")).about(sid),
        matches.about(sid).noting(tag_note(Some(t), sid)),
    ]
}

/// The acknowledgement: the first message of the listen, once, with the honoured subset.
fn on_ack(s: &mut Subscription, sid: &RequestId, msg: &Message, out: &mut Vec<Finding>) {
    if s.acked.is_some() {
        out.push(
            Finding::fail(
                CheckRule::AckFirst,
                format!("a second acknowledgement for listen {sid}"),
            )
            .about(sid)
            .noting(ACK_NOT_FIRST),
        );
        return;
    }
    if !s.early {
        out.push(
            Finding::pass(
                CheckRule::AckFirst,
                format!("the acknowledgement is the first message for listen {sid}"),
            )
            .about(sid)
            .noting("acknowledgement, the first message for this subscription"),
        );
    }
    let honoured = msg.param("notifications");
    let (acked, finding) = compare_subset(&s.requested, honoured);
    let note = subset_note(&s.requested, &acked);
    s.acked = Some(acked);
    out.push(finding.about(sid).noting(note));
}

/// Anything but the acknowledgement on a live listen: after the ack, a kind a listen carries,
/// asked for and acknowledged.
fn on_change(
    s: &mut Subscription,
    sid: &RequestId,
    m: &str,
    msg: &Message,
    out: &mut Vec<Finding>,
) {
    if s.acked.is_none() {
        if !s.early {
            out.push(
                Finding::fail(
                    CheckRule::AckFirst,
                    format!("{m} arrived for listen {sid} before its acknowledgement"),
                )
                .about(sid),
            );
        }
        s.early = true;
    }
    if m == method::PROGRESS || m == method::MESSAGE {
        out.push(
            Finding::fail(
                CheckRule::NoProgressOrMessage,
                format!("{m} on the listen stream of {sid}"),
            )
            .about(sid),
        );
        return;
    }
    let Some(kind) = NotificationKind::from_method(m) else {
        out.push(
            Finding::fail(
                CheckRule::OnlyRequestedTypes,
                format!("{m} is not a notification a listen stream carries (listen {sid})"),
            )
            .about(sid),
        );
        return;
    };
    let uri = if kind == NotificationKind::ResourceUpdated {
        updated_uri(sid, msg, out)
    } else {
        None
    };
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
                CheckRule::OnlyRequestedTypes,
                format!("{what}: requested and acknowledged"),
            ),
            (false, _) => Finding::fail(
                CheckRule::OnlyRequestedTypes,
                format!("{what} arrived on listen {sid}, which did not ask for it (asked: {})", describe(&s.requested)),
            ),
            (true, false) => Finding::fail(
                CheckRule::OnlyRequestedTypes,
                format!("{what} arrived on listen {sid}, but the acknowledgement left it out (honoured: {})", s.acked.as_ref().map(describe).unwrap_or_default()),
            ),
        }
        .about(sid),
    );
    s.delivered.push(m.to_owned());
}

/// A resources/updated names its resource in `params.uri`, a string: the URI, judged.
fn updated_uri(sid: &RequestId, msg: &Message, out: &mut Vec<Finding>) -> Option<String> {
    match msg.param("uri") {
        Some(Value::String(u)) => {
            out.push(
                Finding::pass(
                    CheckRule::UpdatedHasUri,
                    format!("resources/updated for {u}"),
                )
                .about(sid),
            );
            Some(u.clone())
        }
        other => {
            out.push(
                Finding::fail(
                    CheckRule::UpdatedHasUri,
                    match other {
                        None => format!("resources/updated for listen {sid} has no params.uri"),
                        Some(v) => format!(
                            "resources/updated for listen {sid} has params.uri {v} ({}), not a string",
                            json_type(v)
                        ),
                    },
                )
                .about(sid),
            );
            None
        }
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
                CheckRule::HonouredSubset,
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
                    CheckRule::HonouredSubset,
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
            CheckRule::HonouredSubset,
            format!(
                "the acknowledgement claims {} which the request did not ask for: the ack lists a subset of the request",
                extra.join(", ")
            ),
        )
    } else if omitted.is_empty() {
        Finding::pass(
            CheckRule::HonouredSubset,
            format!("honoured everything asked: {}", describe(&acked)),
        )
    } else {
        Finding::pass(
            CheckRule::HonouredSubset,
            format!(
                "honoured {}; left out {} (unsupported types are omitted, not errored; compare and cope)",
                describe(&acked),
                omitted.join(", ")
            ),
        )
    };
    (acked, finding)
}

/// How the lab says an acknowledgement came after something else (the validator judged that
/// when the earlier message arrived, or says it on a second ack).
pub const ACK_NOT_FIRST: &str = "acknowledgement, but NOT the first message for this subscription";

/// The tag of a message for listen `sid`, in the lab's words: equal to the listen id (type
/// included), another value, or missing.
pub(super) fn tag_note(tag: Option<&Value>, sid: &RequestId) -> String {
    match tag {
        Some(t) if *t == sid.to_value() => format!("tag {t} = the listen request's own id"),
        Some(t) => format!("tag {t}, but this stream's listen id is {sid}"),
        None => "no subscriptionId tag in _meta".to_owned(),
    }
}

/// The honoured subset against the request, in the lab's words: what was granted, what was
/// left out (information, not an error), and what was claimed without being asked.
fn subset_note(requested: &SubscriptionFilter, acked: &SubscriptionFilter) -> String {
    let mut note = format!("honoured: {} (asked: {})", acked.words(), requested.words());
    let missing = requested.missing_from(acked);
    if !missing.is_empty() {
        note.push_str(&format!(
            "; left out: {} — the server will not deliver it, and that is not an error",
            missing.join(" ")
        ));
    }
    let extra = acked.missing_from(requested);
    if !extra.is_empty() {
        note.push_str(&format!("; claims never asked for: {}", extra.join(" ")));
    }
    note
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
pub(super) fn loosely_equal(a: &Value, b: &Value) -> bool {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    a != b && text(a) == text(b)
}

pub(super) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(n).collect();
        format!("{cut}…")
    }
}
