//! The lab's state machine, without I/O: which subscriptions the careful client holds and in
//! what state, and what each incoming frame, stream end or timer means. It judges every frame
//! through the validator, produces the events to show and the actions the lab must take (re-list,
//! cancel, retry); the steps that do I/O live in `session.rs`.

use std::time::Duration;

use mock_server::protocol::{Message, RequestId, SubscriptionFilter, method};
use serde_json::Value;

use super::checks::Checks;
use super::event::{EndKind, RuleVerdict, TranscriptEvent};
use super::summary::summarise;
use crate::client::Route;
use crate::client::link::Incoming;

#[derive(Debug, Clone, PartialEq)]
pub enum SubState {
    AwaitingAck,
    Live,
    /// The graceful result arrived.
    Closed,
    /// Ended with no result.
    Broken,
    /// The client cancelled it.
    Cancelled,
    /// The client gave up waiting for its ack (and maybe retried under `retried_as`).
    Abandoned {
        retried_as: Option<RequestId>,
    },
}

#[derive(Debug, Clone)]
pub struct Sub {
    pub id: RequestId,
    pub asked: SubscriptionFilter,
    pub honoured: Option<SubscriptionFilter>,
    pub state: SubState,
    pub retry_of: Option<RequestId>,
    pub frames: usize,
}

impl Sub {
    pub(super) fn is_open(&self) -> bool {
        matches!(self.state, SubState::AwaitingAck | SubState::Live)
    }
}

/// Things the lab does in reaction to a frame, after it has been shown.
#[derive(Debug)]
pub(super) enum Action {
    Relist(SubscriptionFilter),
    Abandon(RequestId),
    Retry {
        filter: SubscriptionFilter,
        of: RequestId,
    },
}

/// What the lab client knows and holds; see the module comment.
pub struct State {
    pub subs: Vec<Sub>,
    pub(super) checks: Checks,
    /// Streams a script should wait to hear from before moving on.
    pub expecting: Vec<RequestId>,
    /// Verdicts settled by a time-out, shown on the cancel that follows it.
    pub(super) pending_verdicts: Vec<RuleVerdict>,
    /// The learner's `drop` cut the streams (so an abrupt end is expected, and said so).
    pub(super) dropped: bool,
    pub(super) next_request: u64,
    pub(super) next_listen: i64,
    pub(super) ack_timeout: Duration,
    /// stdio: one channel, demultiplexed by tag; HTTP: one stream per listen.
    pub(super) stdio: bool,
    /// Streams (`None`: the stdio channel) found flooding: their frames that break no rule
    /// are checked but not shown, so the screen and the transcript stay bounded.
    flooding: Vec<Option<RequestId>>,
    /// Events produced and not yet shown.
    out: Vec<TranscriptEvent>,
}

impl State {
    pub fn new(ack_timeout: Duration, stdio: bool) -> Self {
        State {
            subs: Vec::new(),
            checks: Checks::new(),
            expecting: Vec::new(),
            pending_verdicts: Vec::new(),
            dropped: false,
            next_request: 0,
            next_listen: 0,
            ack_timeout,
            stdio,
            flooding: Vec::new(),
            out: Vec::new(),
        }
    }

    /// After the learner's own `drop`, an end with no result is what was asked for: whether
    /// the server would have closed gracefully was not tested, so graceful-close gets no
    /// verdict either way. Returns the verdicts left and, when one was taken out, the words
    /// that say so.
    fn asked_for_drop(&self, mut verdicts: Vec<RuleVerdict>) -> (Vec<RuleVerdict>, Option<String>) {
        if !self.dropped {
            return (verdicts, None);
        }
        let before = verdicts.len();
        verdicts.retain(|v| v.rule != "graceful-close");
        let note = (verdicts.len() < before).then(|| {
            "graceful-close not judged: you dropped the stream (`drop`), so the server had no \
             chance to close it; a server ending a subscription on its own SHOULD send the \
             result first (`close` shows it)"
                .to_owned()
        });
        (verdicts, note)
    }

    /// The events produced since the last call, in order, for the lab to show.
    pub(super) fn take_out(&mut self) -> Vec<TranscriptEvent> {
        std::mem::take(&mut self.out)
    }

    fn say(&mut self, ev: TranscriptEvent) {
        self.out.push(ev);
    }

    fn client(&mut self, text: impl Into<String>) {
        self.say(TranscriptEvent::Client { text: text.into() });
    }

    pub(super) fn sub(&self, id: &RequestId) -> Option<&Sub> {
        self.subs.iter().find(|s| &s.id == id)
    }

    pub(super) fn sub_mut(&mut self, id: &RequestId) -> Option<&mut Sub> {
        self.subs.iter_mut().find(|s| &s.id == id)
    }

    /// Listen ids: `"lab-1"`, `"lab-2"`, and every third a bare integer, so the learner sees
    /// the server echo the JSON type it was given.
    pub(super) fn fresh_listen_id(&mut self) -> RequestId {
        loop {
            self.next_listen += 1;
            let n = self.next_listen;
            let id = if n % 3 == 0 {
                RequestId::Int(n)
            } else {
                RequestId::Str(format!("lab-{n}"))
            };
            if self.sub(&id).is_none() {
                return id;
            }
        }
    }

    pub(super) fn fresh_request_id(&mut self) -> RequestId {
        self.next_request += 1;
        RequestId::Str(format!("req-{}", self.next_request))
    }

    /// Which subscription an incoming event is about: the HTTP stream that carried it, else (on
    /// stdio) its tag, the id of a response, or the requestId of a server cancel.
    pub fn owner_of(inc: &Incoming) -> Option<RequestId> {
        match inc {
            Incoming::Frame {
                stream, message, ..
            } => stream.clone().or_else(|| owner_by_content(message)),
            Incoming::Malformed { stream, .. } => stream.clone(),
            Incoming::KeepAlive { stream, .. }
            | Incoming::Ended { stream, .. }
            | Incoming::AckTimeout { stream } => Some(stream.clone()),
            Incoming::Flooding { stream, .. } => stream.clone(),
            Incoming::ChannelClosed { .. } => None,
        }
    }

    /// Whether `inc` is news about subscription `id` (what a script waits for).
    pub fn concerns(&self, inc: &Incoming, id: &RequestId) -> bool {
        match inc {
            Incoming::ChannelClosed { .. } => true,
            _ => State::owner_of(inc).as_ref() == Some(id),
        }
    }

    /// The order subscriptions were opened in: a script sorts simultaneous frames by it.
    pub fn open_order(&self, id: &RequestId) -> usize {
        self.subs
            .iter()
            .position(|s| &s.id == id)
            .unwrap_or(usize::MAX)
    }

    /// The open subscriptions' ids as typed (`lab-1`, `7`), for completion.
    pub fn open_id_words(&self) -> Vec<String> {
        self.open_ids()
            .iter()
            .map(|id| id.to_string().trim_matches('"').to_owned())
            .collect()
    }

    /// Ids of the subscriptions still open, in the order they were opened.
    pub(super) fn open_ids(&self) -> Vec<RequestId> {
        self.subs
            .iter()
            .filter(|s| s.is_open())
            .map(|s| s.id.clone())
            .collect()
    }

    pub fn status(&self) -> String {
        if self.subs.is_empty() {
            return "no subscriptions yet (try `listen tools`)".to_owned();
        }
        let mut t = String::new();
        for s in &self.subs {
            let state = match &s.state {
                SubState::AwaitingAck => "waiting for its acknowledgement".to_owned(),
                SubState::Live => "live".to_owned(),
                SubState::Closed => "closed gracefully by the server".to_owned(),
                SubState::Broken => "broken (ended with no result)".to_owned(),
                SubState::Cancelled => "cancelled by the client".to_owned(),
                SubState::Abandoned { retried_as } => match retried_as {
                    Some(r) => format!("abandoned after the ack time-out, retried as {r}"),
                    None => "abandoned after the ack time-out".to_owned(),
                },
            };
            let honoured = s
                .honoured
                .as_ref()
                .map(|h| h.words())
                .unwrap_or_else(|| "-".into());
            t.push_str(&format!(
                "{:<8} {state}; asked: {}; honoured: {honoured}; frames: {}\n",
                s.id.to_string(),
                s.asked.words(),
                s.frames
            ));
        }
        t
    }

    pub(super) fn interpret(&mut self, inc: Incoming) -> Vec<Action> {
        match inc {
            Incoming::Frame {
                stream,
                raw,
                message,
            } => return self.on_frame(stream, raw, message),
            Incoming::KeepAlive { stream, raw } => self.on_keep_alive(stream, raw),
            Incoming::Malformed { stream, raw, error } => self.on_malformed(stream, raw, error),
            Incoming::Flooding {
                stream,
                frames,
                secs,
                dropped,
            } => self.on_flooding(stream, frames, secs, dropped),
            Incoming::Ended { stream, clean } => self.on_ended(stream, clean),
            Incoming::ChannelClosed { why } => self.on_channel_closed(&why),
            Incoming::AckTimeout { stream } => return self.on_ack_timeout(stream),
        }
        Vec::new()
    }

    /// A keep-alive comment: checked, shown only with `wire on`.
    fn on_keep_alive(&mut self, stream: RequestId, raw: String) {
        let vstream = if self.stdio { None } else { Some(&stream) };
        self.checks.keep_alive(vstream);
        // Shown only with `wire on`: the lab decides.
        self.say(TranscriptEvent::KeepAlive {
            stream: stream.to_value(),
            raw,
        });
    }

    /// A frame that is not JSON-RPC.
    fn on_malformed(&mut self, stream: Option<RequestId>, raw: String, error: String) {
        let vstream = if self.stdio { None } else { stream.as_ref() };
        let verdicts = self.checks.malformed(vstream, &raw, &error);
        self.say(TranscriptEvent::Frame {
            stream: stream
                .as_ref()
                .map(RequestId::to_value)
                .unwrap_or(Value::String("?".into())),
            kind: "malformed".to_owned(),
            message: Value::String(raw.clone()),
            raw,
            notes: vec![error],
            verdicts,
        });
    }

    /// The link is dropping frames of a server that sends too many.
    fn on_flooding(&mut self, stream: Option<RequestId>, frames: u64, secs: f64, dropped: u64) {
        let whose = match &stream {
            Some(id) => format!("on {id}"),
            None => "on the stdio channel".to_owned(),
        };
        let first = !self.flooding.contains(&stream);
        let mut text = format!(
            "server is flooding: {frames} frames in {secs:.1} s {whose}, dropped {dropped}"
        );
        if first {
            self.flooding.push(stream);
            text.push_str(&format!(
                ". The lab takes at most {} frames a second from a stream and from now on \
                 prints only those that break a rule, so it stays responsive (`cancel` \
                 or `quit` still work)",
                crate::client::link::FRAMES_PER_SECOND
            ));
        }
        self.say(TranscriptEvent::Error { text });
    }

    /// A listen stream ended, after its result or abruptly.
    fn on_ended(&mut self, stream: RequestId, clean: bool) {
        self.expecting.retain(|e| e != &stream);
        self.flooding.retain(|f| f.as_ref() != Some(&stream));
        let found = self.checks.ended(Some(&stream), clean);
        let (verdicts, unjudged) = self.asked_for_drop(found);
        let Some(sub) = self.sub_mut(&stream) else {
            return;
        };
        let (how, note) = match &sub.state {
            SubState::Cancelled | SubState::Abandoned { .. } => return,
            SubState::Closed => (
                EndKind::Graceful,
                "the server closed the stream after the result".to_owned(),
            ),
            _ => {
                sub.state = SubState::Broken;
                let cause = if self.dropped {
                    "you made the server vanish with `drop`: this is what a transport loss looks like"
                } else {
                    "transport loss, or a server that skips the graceful close"
                };
                (
                    EndKind::Abrupt,
                    format!(
                        "no result: an abrupt end ({cause}). The subscription is gone and \
                         nothing is resumed; a careful client may listen again, with a NEW \
                         request id."
                    ),
                )
            }
        };
        let note = match unjudged {
            Some(u) => format!("{note}\n{u}"),
            None => note,
        };
        self.say(TranscriptEvent::End {
            stream: stream.to_value(),
            how,
            note,
            verdicts,
        });
    }

    /// The whole channel is gone: every open subscription with it.
    fn on_channel_closed(&mut self, why: &str) {
        let open = self.open_ids();
        self.expecting.clear();
        self.client(format!("the channel is gone: {why}"));
        let found = self.checks.ended(None, false);
        let (mut verdicts, unjudged) = self.asked_for_drop(found);
        for id in open {
            let verdicts = std::mem::take(&mut verdicts);
            if let Some(s) = self.sub_mut(&id) {
                s.state = SubState::Broken;
            }
            let mut note = "lost with the channel: after a reconnect the client MUST \
                            listen again; the server keeps no subscription state"
                .to_owned();
            if let Some(u) = &unjudged {
                note.push('\n');
                note.push_str(u);
            }
            self.say(TranscriptEvent::End {
                stream: id.to_value(),
                how: EndKind::Abrupt,
                note,
                verdicts,
            });
        }
    }

    /// No acknowledgement in time: cancel, and retry once.
    fn on_ack_timeout(&mut self, stream: RequestId) -> Vec<Action> {
        let Some(sub) = self.sub(&stream) else {
            return Vec::new();
        };
        if sub.state != SubState::AwaitingAck {
            return Vec::new();
        }
        let secs = self.ack_timeout.as_secs_f64();
        let filter = sub.asked.clone();
        let waited = self.ack_timeout;
        let retried = sub.retry_of.is_some();
        self.client(format!(
            "no acknowledgement for {stream} after {secs:.1} s. The spec sets no deadline, but \
             without the ack the client cannot tell a quiet stream from one that was never \
             accepted, so a careful client stops waiting: it cancels {stream}"
        ));
        let verdicts = self.checks.ack_timeout(&stream, waited);
        self.pending_verdicts = verdicts;
        if retried {
            self.client(
                "this was already a retry: giving up. The server is not acknowledging \
                 subscriptions (try `explain`)",
            );
            vec![Action::Abandon(stream)]
        } else {
            vec![
                Action::Abandon(stream.clone()),
                Action::Retry { filter, of: stream },
            ]
        }
    }

    fn on_frame(&mut self, stream: Option<RequestId>, raw: String, msg: Message) -> Vec<Action> {
        let kind = msg.kind_word();
        let owner = stream.clone().or_else(|| owner_by_content(&msg));
        let vstream = if self.stdio { None } else { stream.as_ref() };
        let verdicts: Vec<RuleVerdict> = self.checks.frame(vstream, &msg);
        let message = msg.raw().clone();
        let stream_value = owner
            .as_ref()
            .map(RequestId::to_value)
            .unwrap_or(Value::String("?".into()));
        self.expecting.retain(|e| Some(e) != owner.as_ref());

        let Some(id) = owner else {
            self.say(TranscriptEvent::Frame {
                stream: stream_value,
                kind,
                message,
                raw,
                notes: vec![
                    "carries no subscription tag: the client cannot tell which \
                             subscription it belongs to"
                        .to_owned(),
                ],
                verdicts,
            });
            return Vec::new();
        };
        let Some(sub) = self.sub(&id).cloned() else {
            self.say(TranscriptEvent::Frame {
                stream: stream_value,
                kind,
                message,
                raw,
                notes: vec![format!(
                    "tagged {id}, which is none of this client's listen requests"
                )],
                verdicts,
            });
            return Vec::new();
        };
        let late = late_frame(&id, &sub.state, &msg);
        if let Some(why) = late {
            self.say(TranscriptEvent::Dropped {
                stream: stream_value,
                kind,
                message,
                why,
                verdicts,
            });
            return Vec::new();
        }
        let (notes, actions, new_state) = self.read_frame(&msg, &sub, &id, &verdicts);
        let routine = new_state.is_none() && actions.is_empty() && verdicts.iter().all(|v| v.ok);
        if let Some(s) = self.sub_mut(&id) {
            s.frames += 1;
            if let Some(st) = new_state {
                s.state = st;
            }
        }
        if routine && self.flooding.contains(&stream) {
            // Counted and checked, not printed: the flooding note says how many.
            return actions;
        }
        self.say(TranscriptEvent::Frame {
            stream: stream_value,
            kind,
            message,
            raw,
            notes,
            verdicts,
        });
        actions
    }

    /// What a frame for a live subscription means, by message kind: the notes the lab prints
    /// under it (the validator's, not judged again), what the careful client does next, and
    /// the subscription's new state.
    fn read_frame(
        &mut self,
        msg: &Message,
        sub: &Sub,
        id: &RequestId,
        verdicts: &[RuleVerdict],
    ) -> (Vec<String>, Vec<Action>, Option<SubState>) {
        let mut notes = Vec::new();
        let mut actions = Vec::new();
        let tag_note = tag_note(verdicts);
        let mut new_state = None;
        match msg {
            Message::Notification { method: m, .. } if m == method::SUBSCRIPTIONS_ACKNOWLEDGED => {
                notes.extend(acknowledged_notes(verdicts, &tag_note));
                if sub.state == SubState::AwaitingAck {
                    // A filter the validator refuses grants nothing; its verdict says why.
                    let honoured = msg.ack_filter().and_then(Result::ok).unwrap_or_default();
                    new_state = Some(SubState::Live);
                    if let Some(s) = self.sub_mut(id) {
                        s.honoured = Some(honoured.clone());
                    }
                    actions.push(Action::Relist(honoured));
                }
            }
            Message::Notification { method: m, .. }
                if m == method::TOOLS_LIST_CHANGED
                    || m == method::PROMPTS_LIST_CHANGED
                    || m == method::RESOURCES_LIST_CHANGED =>
            {
                notes.push(format!(
                    "{tag_note}; no data inside: a careful client fetches the list again"
                ));
            }
            Message::Notification { method: m, .. } if m == method::RESOURCES_UPDATED => {
                let uri = msg.updated_uri().unwrap_or("(no uri)");
                let subscribed = sub.honoured.as_ref().unwrap_or(&sub.asked).uris().join(" ");
                notes.push(format!(
                    "{uri} changed (subscribed: {subscribed}); {tag_note}"
                ));
            }
            Message::Notification { method: m, .. } if m == method::CANCELLED => {
                notes.push(format!(
                    "the server tore down {id} on stdio by naming it in notifications/cancelled"
                ));
                new_state = Some(SubState::Closed);
            }
            Message::Result { .. } => {
                let rt = msg.result_type().cloned().unwrap_or(Value::Null);
                notes.push(format!(
                    "the listen request's result (resultType {rt}): the server ended {id} \
                     gracefully; {tag_note}"
                ));
                new_state = Some(SubState::Closed);
                // Over HTTP the stream's end follows, and a script waits for it too.
                if !self.stdio {
                    self.expecting.push(id.clone());
                }
            }
            Message::Error { .. } => {
                notes.push(format!(
                    "the listen was refused: {}",
                    summarise(method::SUBSCRIPTIONS_LISTEN, Some(msg))
                ));
                new_state = Some(SubState::Broken);
            }
            Message::Request { method: m, .. } | Message::Notification { method: m, .. } => {
                notes.push(format!("{m} on a listen stream; {tag_note}"));
            }
            Message::Invalid { reason, .. } => {
                notes.push(format!("not a JSON-RPC message ({reason}); {tag_note}"));
            }
        }
        (notes, actions, new_state)
    }
}

/// The validator judged the tag, whether the ack came first and the honoured subset; the lab
/// prints its notes and judges nothing again. The note of the first of `rules` that has one.
fn note_of(verdicts: &[RuleVerdict], rules: &[&str]) -> Option<String> {
    verdicts
        .iter()
        .filter(|v| rules.contains(&v.rule.as_str()))
        .find_map(|v| v.note.clone())
}

/// What the validator said about a frame's tag.
fn tag_note(verdicts: &[RuleVerdict]) -> String {
    note_of(
        verdicts,
        &["tag-present", "tag-matches-id", "close-result-shape"],
    )
    .unwrap_or_else(|| "no subscriptionId tag in _meta".to_owned())
}

/// The notes under an acknowledgement: whether it came first, its tag, the honoured subset.
fn acknowledged_notes(verdicts: &[RuleVerdict], tag_note: &str) -> Vec<String> {
    // No "first" from the validator: it found something before this ack.
    let position = note_of(verdicts, &["ack-first"])
        .unwrap_or_else(|| mock_server::validator::ACK_NOT_FIRST.to_owned());
    let mut notes = vec![format!("{position}; {tag_note}")];
    notes.extend(note_of(verdicts, &["honoured-subset"]));
    notes
}

/// Why a frame for a subscription that is over is dropped, not acted on (`None`: it is live).
fn late_frame(id: &RequestId, state: &SubState, msg: &Message) -> Option<String> {
    match state {
        SubState::Cancelled => Some(format!(
            "{id} was cancelled by this client; a careful client ignores anything still tagged \
             with it (and the server MUST NOT have sent it)"
        )),
        SubState::Abandoned { retried_as } => Some(match retried_as {
            Some(r) => format!(
                "{id} was abandoned after its ack time-out and retried as {r}; a late frame for \
                 the abandoned id is dropped, not acted on"
            ),
            None => format!("{id} was abandoned after its ack time-out; dropped, not acted on"),
        }),
        SubState::Closed | SubState::Broken if !msg.is_method(method::CANCELLED) => Some(format!(
            "{id} is already over; nothing may follow its end, so this is dropped"
        )),
        _ => None,
    }
}

/// stdio demultiplexing: a tagged message by its tag, a response by its id, a server cancel by
/// the request it names (STDIO §Receiving Messages).
fn owner_by_content(message: &Message) -> Option<RequestId> {
    match crate::client::route(message) {
        Route::Response(id) | Route::Cancelled(id) => Some(id),
        Route::Subscription(tag) => RequestId::from_value(&tag),
        Route::Other => None,
    }
}
