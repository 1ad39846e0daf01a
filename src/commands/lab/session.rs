//! The lab's state and its careful client: runs steps, reacts to frames, keeps the transcript.
//!
//! One `Lab` owns everything and is driven by one loop at a time: the REPL's event loop
//! (`repl::run`, a typed line or a frame, one after the other) or a script's runner. Frames are handled in [`Lab::handle`], the one place that interprets
//! what arrived: it annotates, asks the validator, and keeps the discipline a careful client
//! keeps (ack time-out then close and retry, re-list once acknowledged, drop late frames).

use std::time::Duration;

use mock_server::protocol::{
    self, Message, NotificationKind, RequestId, SubscriptionFilter, method,
};
use serde_json::{Value, json};

use super::checks::Checks;
use super::event::{EndKind, TranscriptEvent};
use super::explain;
use super::render::{Look, render};
use super::state::{Action, State, Sub, SubState};
use super::step::{Step, help_text};
use super::summary::summarise;
use super::timeline;
use crate::client::link::{Incoming, Link, Transport, Tx};

/// Where rendered events go: stdout, the REPL's external printer, or JSON lines.
pub trait Sink: Send {
    fn show(&mut self, ev: &TranscriptEvent, look: Look);
}

/// Plain stdout: text for people, or one JSON object per event.
pub struct Stdout {
    pub json: bool,
}

impl Sink for Stdout {
    fn show(&mut self, ev: &TranscriptEvent, look: Look) {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        if self.json {
            if let Ok(line) = serde_json::to_string(ev) {
                let _ = writeln!(out, "{line}");
            }
        } else {
            let _ = out.write_all(render(ev, look).as_bytes());
        }
        let _ = out.flush();
    }
}

/// How many events the transcript keeps (`timeline`, `save`); older ones are forgotten.
pub const KEPT_EVENTS: usize = 20_000;

pub struct Lab {
    pub(super) link: Box<dyn Link>,
    pub(super) tx: Tx,
    out: Box<dyn Sink>,
    pub look: Look,
    pub events: Vec<TranscriptEvent>,
    /// A step could not run or a frame broke a rule (a script then exits non-zero).
    pub failed: bool,
    /// The server's tools, as its last tools/list named them (completion after `call`).
    pub tool_names: Vec<String>,
    /// That list was the whole of it (no further page), so a tool missing from it is missing.
    pub(super) tools_complete: bool,
    /// Everything the careful client knows, and how it reads what arrives.
    pub st: State,
}

impl Lab {
    pub fn new(
        link: Box<dyn Link>,
        tx: Tx,
        out: Box<dyn Sink>,
        look: Look,
        ack_timeout: Duration,
    ) -> Self {
        let stdio = link.transport() == Transport::Stdio;
        Lab {
            link,
            tx,
            out,
            look,
            events: Vec::new(),
            failed: false,
            tool_names: Vec::new(),
            tools_complete: false,
            st: State::new(ack_timeout, stdio),
        }
    }

    /// Show what the state machine produced.
    pub(super) fn flush(&mut self) {
        for ev in self.st.take_out() {
            // A keep-alive is not a message: worth a line only when the raw wire is shown.
            if matches!(ev, TranscriptEvent::KeepAlive { .. }) && !self.look.wire {
                continue;
            }
            self.emit(ev);
        }
    }

    pub fn emit(&mut self, ev: TranscriptEvent) {
        self.out.show(&ev, self.look);
        self.keep(ev);
    }

    /// Into the transcript, which keeps the latest [`KEPT_EVENTS`] so a flooding server cannot
    /// grow it without bound; whether anything failed is remembered apart.
    fn keep(&mut self, ev: TranscriptEvent) {
        self.failed |=
            matches!(ev, TranscriptEvent::Error { .. }) || ev.verdicts().iter().any(|v| !v.ok);
        if self.events.len() >= KEPT_EVENTS {
            self.events.drain(..KEPT_EVENTS / 4);
        }
        self.events.push(ev);
    }

    /// Where events are shown from now on (an interactive scenario hands over to the REPL).
    pub fn set_sink(&mut self, out: Box<dyn Sink>) {
        self.out = out;
    }

    /// Keep an event in the transcript without showing it (the REPL's own typed line).
    pub fn record(&mut self, ev: TranscriptEvent) {
        self.keep(ev);
    }

    pub fn banner(&mut self) {
        let ev = TranscriptEvent::Banner {
            server: self.link.describe(),
            transport: match self.link.transport() {
                Transport::Http => "HTTP",
                Transport::Stdio => "stdio",
            }
            .to_owned(),
        };
        self.emit(ev);
    }

    pub(super) fn info(&mut self, text: impl Into<String>) {
        self.emit(TranscriptEvent::Info { text: text.into() });
    }

    pub(super) fn error(&mut self, text: impl Into<String>) {
        self.emit(TranscriptEvent::Error { text: text.into() });
    }

    pub(super) fn client(&mut self, text: impl Into<String>) {
        self.emit(TranscriptEvent::Client { text: text.into() });
    }

    pub fn ack_timeout(&self) -> Duration {
        self.st.ack_timeout
    }

    pub fn is_stdio(&self) -> bool {
        self.link.transport() == Transport::Stdio
    }

    /// Run one step. Returns false on `quit`.
    pub async fn run(&mut self, step: Step) -> bool {
        if !matches!(step, Step::Drop) {
            self.st.dropped = false;
        }
        match step {
            Step::Discover => {
                self.plain_request(method::SERVER_DISCOVER, json!({})).await;
            }
            Step::List(k) => {
                self.plain_request(k.list_method(), json!({})).await;
            }
            Step::Read(uri) => {
                self.plain_request(method::RESOURCES_READ, json!({"uri": uri}))
                    .await;
            }
            Step::Listen { id, filter } => self.listen_step(id, filter).await,
            Step::Change(k) => self.change(k.notification(), None).await,
            Step::Update(uri) => {
                self.change(NotificationKind::ResourceUpdated, Some(uri))
                    .await
            }
            Step::Close(t) => self.close(t).await,
            Step::Cancel(id) => match RequestId::from_value(&id) {
                Some(id) => self.cancel(id).await,
                None => self.error("a subscription id is a string or an integer"),
            },
            Step::Drop => self.drop_all().await,
            Step::Fault { name, on } => self.fault(name, on).await,
            Step::Call { tool, arguments } => {
                self.plain_request(
                    method::TOOLS_CALL,
                    json!({"name": tool, "arguments": arguments}),
                )
                .await;
            }
            Step::Send(message) => self.send_raw(message).await,
            Step::Wire(on) => self.set_wire(on),
            Step::Timeline => {
                let t = timeline::draw(&self.events, self.look.plain);
                self.info(t);
            }
            Step::Explain => {
                let t = explain::last(&self.events);
                self.info(t);
            }
            Step::Save(file) => self.save(&file),
            Step::Status => {
                let t = self.st.status();
                self.info(t);
            }
            Step::Reset => self.reset().await,
            Step::Help(topic) => {
                // Shown indented by two (`info`).
                let width = crate::term::width().saturating_sub(2);
                let t = help_text(topic.as_deref(), width);
                self.info(t);
            }
            Step::Predict(_) => {
                self.info("(a prediction only counts right before a scenario question)");
            }
            Step::Wait(_) => {}
            Step::Quit => return false,
        }
        true
    }

    /// `listen`: with the id given (a string or an integer), or a fresh one.
    async fn listen_step(&mut self, id: Option<Value>, filter: SubscriptionFilter) {
        let id = match id.as_ref().map(RequestId::from_value) {
            Some(Some(id)) => id,
            Some(None) => {
                self.error("a listen id must be a string or an integer");
                return;
            }
            None => self.st.fresh_listen_id(),
        };
        self.listen(id, filter, None).await;
    }

    fn set_wire(&mut self, on: bool) {
        self.look.wire = on;
        self.info(if on {
            "wire on: raw requests, headers and frames are shown"
        } else {
            "wire off"
        });
    }

    /// Send a request of our own and show it with the `uri` or `name` it is about.
    pub(super) async fn plain_request(
        &mut self,
        method_name: &str,
        params: Value,
    ) -> Option<Message> {
        let id = self.st.fresh_request_id();
        let message = protocol::request(&id, method_name, params);
        let sent = Message::classify(&message);
        let detail = match sent.param("uri").or_else(|| sent.param("name")) {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        self.exchange(message, method_name, detail).await
    }

    /// Send one message and show it and its reply (none for a notification).
    async fn exchange(
        &mut self,
        message: Value,
        method_name: &str,
        detail: String,
    ) -> Option<Message> {
        let id = Message::classify(&message)
            .claimed_id()
            .map(|i| i.to_value());
        match self.link.request(message).await {
            Ok(reply) => {
                self.emit(TranscriptEvent::Send {
                    id: id.clone(),
                    method: method_name.to_owned(),
                    detail,
                    wire: Some(reply.sent_wire.clone()),
                });
                if method_name == method::TOOLS_LIST {
                    self.learn_tools(reply.message.as_ref());
                }
                let summary = summarise(method_name, reply.message.as_ref());
                self.emit(TranscriptEvent::Reply {
                    id: id.unwrap_or(Value::Null),
                    method: method_name.to_owned(),
                    status: reply.status,
                    summary,
                    message: reply
                        .message
                        .as_ref()
                        .map_or(Value::Null, |m| m.raw().clone()),
                    wire: Some(reply.got_wire),
                });
                reply.message
            }
            Err(e) => {
                self.emit(TranscriptEvent::Send {
                    id,
                    method: method_name.to_owned(),
                    detail,
                    wire: None,
                });
                self.error(format!("{method_name} failed: {e:#}"));
                None
            }
        }
    }

    /// Remember the tool names a tools/list reply names, for completion after `call`.
    fn learn_tools(&mut self, reply: Option<&Message>) {
        if let Some(reply) = reply
            && reply.result_field("tools").is_some()
        {
            self.tool_names = reply.listed_names("tools", "name");
            self.tools_complete = reply.next_cursor().is_none();
        }
    }

    /// Ask the server for its tools without showing it, so completion knows them from the
    /// first prompt (the interactive lab only; a transcript shows only what the steps sent).
    pub async fn fetch_tool_names(&mut self) {
        let id = RequestId::Str("lab-tools".into());
        let message = protocol::request(&id, method::TOOLS_LIST, json!({}));
        if let Ok(reply) = self.link.request(message).await {
            self.learn_tools(reply.message.as_ref());
        }
    }

    /// `send JSON`: the message as typed. A listen needs the lab to hold its stream, so it is
    /// pointed to `listen` instead.
    async fn send_raw(&mut self, message: Value) {
        let method_name = Message::classify(&message)
            .claimed_method()
            .unwrap_or("(no method)")
            .to_owned();
        if method_name == method::SUBSCRIPTIONS_LISTEN {
            self.error(
                "open subscriptions with `listen` (e.g. `listen --id 7 tools`): the lab holds \
                 the stream, tracks the subscription and checks every frame on it",
            );
            return;
        }
        self.exchange(message, &method_name, "as typed".to_owned())
            .await;
    }

    async fn listen(
        &mut self,
        id: RequestId,
        asked: SubscriptionFilter,
        retry_of: Option<RequestId>,
    ) {
        if self.st.subs.iter().any(|s| s.id == id && s.is_open()) {
            self.error(format!(
                "{} is still open: a request id MUST NOT reuse the id of an unanswered request \
                 (BASE §Requests); pick another or let the lab choose",
                id
            ));
            return;
        }
        if let Some(old) = self.st.subs.iter().find(|s| s.id == id) {
            let how = match old.state {
                SubState::Broken => "its stream broke",
                _ => "it is over",
            };
            self.client(format!(
                "re-using {id}: {how}, but a request re-issued after a broken stream MUST get a \
                 new id (CHG §Major changes 9) so stale frames can be told apart"
            ));
        }
        let message = protocol::listen_request(&id, &asked);
        self.st.subs.retain(|s| s.id != id);
        self.st.subs.push(Sub {
            id: id.clone(),
            asked: asked.clone(),
            honoured: None,
            state: SubState::AwaitingAck,
            retry_of,
            frames: 0,
        });
        self.st.expecting.push(id.clone());
        self.st.checks.listen_sent(&id, &asked);
        let opened = self.link.listen(id.clone(), message, self.tx.clone()).await;
        self.emit(TranscriptEvent::Send {
            id: Some(id.to_value()),
            method: method::SUBSCRIPTIONS_LISTEN.to_owned(),
            detail: format!("asks for: {}", asked.words()),
            wire: opened.as_ref().ok().map(|o| {
                if o.got_wire.is_empty() {
                    o.sent_wire.clone()
                } else {
                    format!("{}\n\n{}", o.sent_wire, o.got_wire)
                }
            }),
        });
        match opened {
            Ok(o) => {
                if let Some(refusal) = o.refused {
                    let summary = summarise(method::SUBSCRIPTIONS_LISTEN, refusal.as_ref());
                    self.emit(TranscriptEvent::Reply {
                        id: id.to_value(),
                        method: method::SUBSCRIPTIONS_LISTEN.to_owned(),
                        status: o.status,
                        summary,
                        message: refusal.map_or(Value::Null, |m| m.raw().clone()),
                        wire: None,
                    });
                    if let Some(s) = self.st.sub_mut(&id) {
                        s.state = SubState::Broken;
                    }
                    self.st.expecting.retain(|e| e != &id);
                    return;
                }
                let tx = self.tx.clone();
                let wait = self.st.ack_timeout;
                let timer_id = id.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(wait).await;
                    let _ = tx.send(Incoming::AckTimeout { stream: timer_id }).await;
                });
            }
            Err(e) => {
                self.error(format!("subscriptions/listen failed: {e:#}"));
                if let Some(s) = self.st.sub_mut(&id) {
                    s.state = SubState::Broken;
                }
                self.st.expecting.retain(|x| x != &id);
            }
        }
    }

    async fn cancel(&mut self, id: RequestId) {
        let Some(sub) = self.st.sub(&id) else {
            self.error(format!("no subscription {id} (see `status`)"));
            return;
        };
        if !sub.is_open() {
            self.error(format!("{id} is already over (see `status`)"));
            return;
        }
        self.abandon(&id, SubState::Cancelled).await;
    }

    /// The client's cancel, on either transport, shown as such.
    async fn abandon(&mut self, id: &RequestId, state: SubState) {
        self.st.expecting.retain(|e| e != id);
        if let Some(s) = self.st.sub_mut(id) {
            s.state = state;
        }
        self.st.checks.cancelled(id);
        let sent = self.link.cancel(id).await;
        let note = match (&sent, self.is_stdio()) {
            (Ok(Some(_)), _) | (Ok(None), true) => format!(
                "stdio has one channel for everything, so the client says it: notifications/cancelled \
                 with requestId {id}. The server MUST NOT send anything more for it."
            ),
            (Ok(None), false) => {
                "over HTTP closing the stream IS the cancel (no notifications/cancelled \
                 exists there); the server MUST NOT send anything more for it."
                    .to_owned()
            }
            (Err(e), _) => format!("cancel failed: {e:#}"),
        };
        if let Ok(Some(raw)) = &sent {
            self.emit(TranscriptEvent::Send {
                id: None,
                method: method::CANCELLED.to_owned(),
                detail: format!("requestId {id}"),
                wire: Some(raw.clone()),
            });
        }
        let verdicts = std::mem::take(&mut self.st.pending_verdicts);
        self.emit(TranscriptEvent::End {
            stream: id.to_value(),
            how: EndKind::Cancelled,
            note,
            verdicts,
        });
    }

    fn save(&mut self, file: &str) {
        let mut text = String::new();
        for ev in &self.events {
            match serde_json::to_string(ev) {
                Ok(line) => {
                    text.push_str(&line);
                    text.push('\n');
                }
                Err(e) => {
                    self.error(format!("could not encode the transcript: {e}"));
                    return;
                }
            }
        }
        let n = self.events.len();
        match std::fs::write(file, text) {
            Ok(()) => self.info(format!("saved {n} events to {file} (JSON lines)")),
            Err(e) => self.error(format!("could not write {file}: {e}")),
        }
    }
    async fn reset(&mut self) {
        let open = self.st.open_ids();
        for id in open {
            let _ = self.link.cancel(&id).await;
        }
        self.call_tool(mock_server::tool::RESET_FAULTS, json!({}))
            .await;
        self.st.subs.clear();
        self.events.clear();
        self.st.expecting.clear();
        self.st.checks = Checks::new();
        self.st.next_listen = 0;
        self.st.next_request = 0;
        self.info("reset: subscriptions cancelled, faults off, transcript cleared");
    }

    pub async fn shutdown(&mut self) {
        self.link.shutdown().await;
    }

    /// React to one asynchronous event.
    pub async fn handle(&mut self, inc: Incoming) {
        let actions = self.st.interpret(inc);
        self.flush();
        for a in actions {
            match a {
                Action::Relist(f) => {
                    self.client(
                        "acknowledged, so from here on changes will be pushed; nothing before \
                         this point is replayed, so the careful client fetches the current state now",
                    );
                    for m in f
                        .lists()
                        .into_iter()
                        .filter_map(NotificationKind::list_method)
                    {
                        self.plain_request(m, json!({})).await;
                    }
                    for uri in f.uris() {
                        self.plain_request(method::RESOURCES_READ, json!({"uri": uri}))
                            .await;
                    }
                }
                Action::Abandon(id) => {
                    self.abandon(&id, SubState::Abandoned { retried_as: None })
                        .await;
                }
                Action::Retry { filter, of } => {
                    let id = self.st.fresh_listen_id();
                    if let Some(s) = self.st.sub_mut(&of) {
                        s.state = SubState::Abandoned {
                            retried_as: Some(id.clone()),
                        };
                    }
                    self.client(format!(
                        "retrying with a fresh request id {id}; anything still tagged {of} will be dropped"
                    ));
                    self.listen(id, filter, Some(of)).await;
                }
            }
        }
    }
}
