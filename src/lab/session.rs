//! The lab's state and its careful client: runs steps, reacts to frames, keeps the transcript.
//!
//! One `Lab` owns everything; the REPL shares it with the frame pump behind a mutex, a script
//! drives it directly. Frames are handled in [`Lab::handle`], the one place that interprets
//! what arrived: it annotates, asks the validator, and keeps the discipline a careful client
//! keeps (ack time-out then close and retry, re-list once acknowledged, drop late frames).

use std::time::Duration;

use mock_server::protocol::{self, NotificationKind, RequestId, SubscriptionFilter, method};
use serde_json::{Value, json};

use super::checks::Checks;
use super::event::{EndKind, Event, Verdict, kind_of, show_id};
use super::explain;
use super::link::{Incoming, Link, Tx};
use super::render::{Look, render};
use super::step::{FilterAsk, HELP, ListKind, Step, Target};
use super::timeline;
use crate::client::Route;

/// Where rendered events go: stdout, the REPL's external printer, or JSON lines.
pub trait Sink: Send {
    fn show(&mut self, ev: &Event, look: Look);
}

/// Plain stdout: text for people, or one JSON object per event.
pub struct Stdout {
    pub json: bool,
}

impl Sink for Stdout {
    fn show(&mut self, ev: &Event, look: Look) {
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

/// How the lab makes the server do things a client cannot ask for directly.
pub trait ServerControl: Send + Sync {
    fn trigger(&self, kind: NotificationKind, uri: Option<&str>);
    fn close(&self, id: &RequestId) -> bool;
    fn close_all(&self) -> usize;
    fn drop_all(&self) -> usize;
    fn set_fault(&self, name: &str, on: bool) -> anyhow::Result<()>;
    /// (name, on, rule it breaks, spec reference)
    fn faults(&self) -> Vec<(String, bool, String, String)>;
}

/// Trigger tools a server exposes for tests (the conformance suite's names).
pub struct TriggerTools {
    pub tools: String,
    pub prompts: String,
    pub resources: String,
    pub update: String,
    pub close: String,
}

impl Default for TriggerTools {
    fn default() -> Self {
        TriggerTools {
            tools: "test_trigger_tool_change".into(),
            prompts: "test_trigger_prompt_change".into(),
            resources: "test_trigger_resource_list_change".into(),
            update: "test_trigger_resource_update".into(),
            close: "test_close_subscriptions".into(),
        }
    }
}

pub enum Controls {
    /// The bundled server, in this process.
    InProcess(Box<dyn ServerControl>),
    /// Any server: changes and closes go through its trigger tools; drop and faults do not exist.
    Tools(TriggerTools),
}

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
    pub asked: FilterAsk,
    pub honoured: Option<FilterAsk>,
    pub state: SubState,
    pub retry_of: Option<RequestId>,
    pub frames: usize,
}

impl Sub {
    fn is_open(&self) -> bool {
        matches!(self.state, SubState::AwaitingAck | SubState::Live)
    }
}

/// Things the lab does in reaction to a frame, after it has been shown.
#[derive(Debug)]
enum Action {
    Relist(FilterAsk),
    Abandon(RequestId),
    Retry { filter: FilterAsk, of: RequestId },
}

pub struct Lab {
    link: Box<dyn Link>,
    controls: Controls,
    tx: Tx,
    out: Box<dyn Sink>,
    checks: Checks,
    pub look: Look,
    pub subs: Vec<Sub>,
    pub events: Vec<Event>,
    next_request: u64,
    next_listen: i64,
    ack_timeout: Duration,
    /// Streams a script should wait to hear from before moving on.
    pub expecting: Vec<RequestId>,
    /// Verdicts settled by a time-out, shown on the cancel that follows it.
    pending_verdicts: Vec<Verdict>,
    /// The learner's `drop` cut the streams (so an abrupt end is expected, and said so).
    dropped: bool,
}

fn word_kind(k: ListKind) -> NotificationKind {
    match k {
        ListKind::Tools => NotificationKind::ToolsListChanged,
        ListKind::Prompts => NotificationKind::PromptsListChanged,
        ListKind::Resources => NotificationKind::ResourcesListChanged,
    }
}

fn list_method(k: ListKind) -> &'static str {
    match k {
        ListKind::Tools => method::TOOLS_LIST,
        ListKind::Prompts => method::PROMPTS_LIST,
        ListKind::Resources => method::RESOURCES_LIST,
    }
}

/// A one-line summary of a plain reply, in the words of what it returned.
fn summarise(method_name: &str, message: &Value) -> String {
    if let Some(err) = message.get("error") {
        let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
        let name = protocol::error_code::name(code).unwrap_or("error");
        let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
        return format!("error {code} {name}: {msg}");
    }
    let Some(result) = message.get("result") else {
        return "no JSON-RPC body".to_owned();
    };
    let names = |key: &str, field: &str| -> String {
        let items = result.get(key).and_then(Value::as_array);
        let n = items.map_or(0, Vec::len);
        let list: Vec<&str> = items
            .into_iter()
            .flatten()
            .filter_map(|i| i.get(field).and_then(Value::as_str))
            .collect();
        format!("{n} {key}: {}", list.join(", "))
    };
    match method_name {
        method::TOOLS_LIST => names("tools", "name"),
        method::PROMPTS_LIST => names("prompts", "name"),
        method::RESOURCES_LIST => names("resources", "uri"),
        method::RESOURCES_READ => {
            let text = result
                .get("contents")
                .and_then(|c| c.get(0))
                .and_then(|c| c.get("text"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let first: String = text.lines().next().unwrap_or("").chars().take(60).collect();
            format!("{first:?}")
        }
        method::SERVER_DISCOVER => {
            let versions = result
                .get("supportedVersions")
                .cloned()
                .unwrap_or(Value::Null);
            let caps = result.get("capabilities").cloned().unwrap_or(Value::Null);
            format!("versions {versions}, capabilities {caps}")
        }
        _ => {
            let text = result
                .get("content")
                .and_then(|c| c.get(0))
                .and_then(|c| c.get("text"))
                .and_then(Value::as_str);
            match text {
                Some(t) => t.to_owned(),
                None => format!(
                    "resultType {}",
                    result.get("resultType").unwrap_or(&Value::Null)
                ),
            }
        }
    }
}

impl Lab {
    pub fn new(
        link: Box<dyn Link>,
        controls: Controls,
        tx: Tx,
        out: Box<dyn Sink>,
        look: Look,
        ack_timeout: Duration,
    ) -> Self {
        Lab {
            link,
            controls,
            tx,
            out,
            checks: Checks::new(),
            look,
            subs: Vec::new(),
            events: Vec::new(),
            next_request: 0,
            next_listen: 0,
            ack_timeout,
            expecting: Vec::new(),
            pending_verdicts: Vec::new(),
            dropped: false,
        }
    }

    pub fn emit(&mut self, ev: Event) {
        self.out.show(&ev, self.look);
        self.events.push(ev);
    }

    /// Where events are shown from now on (an interactive scenario hands over to the REPL).
    pub fn set_sink(&mut self, out: Box<dyn Sink>) {
        self.out = out;
    }

    /// Keep an event in the transcript without showing it (the REPL's own typed line).
    pub fn record(&mut self, ev: Event) {
        self.events.push(ev);
    }

    pub fn banner(&mut self) {
        let ev = Event::Banner {
            server: self.link.describe(),
            transport: self.link.transport().to_owned(),
        };
        self.emit(ev);
    }

    fn info(&mut self, text: impl Into<String>) {
        self.emit(Event::Info { text: text.into() });
    }

    fn error(&mut self, text: impl Into<String>) {
        self.emit(Event::Error { text: text.into() });
    }

    fn client(&mut self, text: impl Into<String>) {
        self.emit(Event::Client { text: text.into() });
    }

    pub fn ack_timeout(&self) -> Duration {
        self.ack_timeout
    }

    pub fn set_ack_timeout(&mut self, t: Duration) {
        self.ack_timeout = t;
    }

    fn sub(&self, id: &RequestId) -> Option<&Sub> {
        self.subs.iter().find(|s| &s.id == id)
    }

    fn sub_mut(&mut self, id: &RequestId) -> Option<&mut Sub> {
        self.subs.iter_mut().find(|s| &s.id == id)
    }

    /// Listen ids: `"lab-1"`, `"lab-2"`, and every third a bare integer, so the learner sees
    /// the server echo the JSON type it was given.
    fn fresh_listen_id(&mut self) -> RequestId {
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

    fn fresh_request_id(&mut self) -> RequestId {
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
            Incoming::ChannelClosed { .. } => None,
        }
    }

    /// Whether `inc` is news about subscription `id` (what a script waits for).
    pub fn concerns(&self, inc: &Incoming, id: &RequestId) -> bool {
        match inc {
            Incoming::ChannelClosed { .. } => true,
            _ => Lab::owner_of(inc).as_ref() == Some(id),
        }
    }

    /// The order subscriptions were opened in: a script sorts simultaneous frames by it.
    pub fn open_order(&self, id: &RequestId) -> usize {
        self.subs
            .iter()
            .position(|s| &s.id == id)
            .unwrap_or(usize::MAX)
    }

    pub fn is_stdio(&self) -> bool {
        self.link.transport() == "stdio"
    }

    /// Run one step. Returns false on `quit`.
    pub async fn run(&mut self, step: Step) -> bool {
        if !matches!(step, Step::Drop) {
            self.dropped = false;
        }
        match step {
            Step::Discover => {
                self.plain_request(method::SERVER_DISCOVER, json!({})).await;
            }
            Step::List(k) => {
                self.plain_request(list_method(k), json!({})).await;
            }
            Step::Read(uri) => {
                self.plain_request(method::RESOURCES_READ, json!({"uri": uri}))
                    .await;
            }
            Step::Listen { id, filter } => {
                let id = match id.as_ref().map(RequestId::from_value) {
                    Some(Some(id)) => id,
                    Some(None) => {
                        self.error("a listen id must be a string or an integer");
                        return true;
                    }
                    None => self.fresh_listen_id(),
                };
                self.listen(id, filter, None).await;
            }
            Step::Change(k) => self.change(word_kind(k), None).await,
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
            Step::Fault { name, on } => self.fault(name, on),
            Step::Wire(on) => {
                self.look.wire = on;
                self.info(if on {
                    "wire on: raw requests, headers and frames are shown"
                } else {
                    "wire off"
                });
            }
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
                let t = self.status();
                self.info(t);
            }
            Step::Reset => self.reset().await,
            Step::Help(topic) => {
                let t = help_text(topic.as_deref());
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

    async fn plain_request(&mut self, method_name: &str, params: Value) -> Option<Value> {
        let id = self.fresh_request_id();
        let message = protocol::request(&id, method_name, params.clone());
        let detail = match params.get("uri").or_else(|| params.get("name")) {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        match self.link.request(message).await {
            Ok(reply) => {
                self.emit(Event::Send {
                    id: Some(id.to_value()),
                    method: method_name.to_owned(),
                    detail,
                    wire: Some(reply.sent_wire.clone()),
                });
                let summary = summarise(method_name, &reply.message);
                self.emit(Event::Reply {
                    id: id.to_value(),
                    method: method_name.to_owned(),
                    status: reply.status,
                    summary,
                    message: reply.message.clone(),
                    wire: Some(reply.got_wire),
                });
                Some(reply.message)
            }
            Err(e) => {
                self.emit(Event::Send {
                    id: Some(id.to_value()),
                    method: method_name.to_owned(),
                    detail,
                    wire: None,
                });
                self.error(format!("{method_name} failed: {e:#}"));
                None
            }
        }
    }

    async fn listen(&mut self, id: RequestId, asked: FilterAsk, retry_of: Option<RequestId>) {
        if self.subs.iter().any(|s| s.id == id && s.is_open()) {
            self.error(format!(
                "{} is still open: a request id MUST NOT reuse the id of an unanswered request \
                 (BASE §Requests); pick another or let the lab choose",
                id
            ));
            return;
        }
        if let Some(old) = self.subs.iter().find(|s| s.id == id) {
            let how = match old.state {
                SubState::Broken => "its stream broke",
                _ => "it is over",
            };
            self.client(format!(
                "re-using {id}: {how}, but a request re-issued after a broken stream MUST get a \
                 new id (CHG §Major changes 9) so stale frames can be told apart"
            ));
        }
        let filter: SubscriptionFilter = asked.to_filter();
        let message = protocol::listen_request(&id, &filter);
        self.subs.retain(|s| s.id != id);
        self.subs.push(Sub {
            id: id.clone(),
            asked: asked.clone(),
            honoured: None,
            state: SubState::AwaitingAck,
            retry_of,
            frames: 0,
        });
        self.expecting.push(id.clone());
        self.checks.listen_sent(&id, &filter);
        let opened = self.link.listen(id.clone(), message, self.tx.clone()).await;
        self.emit(Event::Send {
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
                    let summary = summarise(method::SUBSCRIPTIONS_LISTEN, &refusal);
                    self.emit(Event::Reply {
                        id: id.to_value(),
                        method: method::SUBSCRIPTIONS_LISTEN.to_owned(),
                        status: o.status,
                        summary,
                        message: refusal,
                        wire: None,
                    });
                    if let Some(s) = self.sub_mut(&id) {
                        s.state = SubState::Broken;
                    }
                    self.expecting.retain(|e| e != &id);
                    return;
                }
                let tx = self.tx.clone();
                let wait = self.ack_timeout;
                let timer_id = id.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(wait).await;
                    let _ = tx.send(Incoming::AckTimeout { stream: timer_id });
                });
            }
            Err(e) => {
                self.error(format!("subscriptions/listen failed: {e:#}"));
                if let Some(s) = self.sub_mut(&id) {
                    s.state = SubState::Broken;
                }
                self.expecting.retain(|x| x != &id);
            }
        }
    }

    async fn change(&mut self, kind: NotificationKind, uri: Option<String>) {
        // Which open streams should hear about it: a script waits for them.
        for s in self.subs.iter().filter(|s| s.state == SubState::Live) {
            let wants = s
                .honoured
                .as_ref()
                .map(|h| h.to_filter().wants(kind, uri.as_deref()))
                .unwrap_or(false);
            if wants && !self.expecting.contains(&s.id) {
                self.expecting.push(s.id.clone());
            }
        }
        let what = match &uri {
            Some(u) => format!("resource {u} changed"),
            None => format!("{} list changed", kind_word(kind)),
        };
        match &self.controls {
            Controls::InProcess(c) => {
                c.trigger(kind, uri.as_deref());
                self.info(format!(
                    "server side: {what} (the lab poked the bundled server directly; nothing went over the wire)"
                ));
            }
            Controls::Tools(t) => {
                let tool = match kind {
                    NotificationKind::ToolsListChanged => t.tools.clone(),
                    NotificationKind::PromptsListChanged => t.prompts.clone(),
                    NotificationKind::ResourcesListChanged => t.resources.clone(),
                    NotificationKind::ResourceUpdated => t.update.clone(),
                };
                let args = match &uri {
                    Some(u) => json!({"uri": u}),
                    None => json!({}),
                };
                self.plain_request(method::TOOLS_CALL, json!({"name": tool, "arguments": args}))
                    .await;
            }
        }
    }

    /// Ids of the subscriptions still open, in the order they were opened.
    fn open_ids(&self) -> Vec<RequestId> {
        self.subs
            .iter()
            .filter(|s| s.is_open())
            .map(|s| s.id.clone())
            .collect()
    }

    async fn close(&mut self, target: Target) {
        let open = self.open_ids();
        match (&self.controls, &target) {
            (Controls::InProcess(c), Target::All) => {
                let n = c.close_all();
                self.expecting.extend(open);
                self.info(format!(
                    "server side: ending {n} subscription(s) gracefully (result, then close)"
                ));
            }
            (Controls::InProcess(c), Target::One(v)) => {
                let Some(id) = RequestId::from_value(v) else {
                    self.error("a subscription id is a string or an integer");
                    return;
                };
                if c.close(&id) {
                    self.expecting.push(id.clone());
                    self.info(format!(
                        "server side: ending {id} gracefully (result, then close)"
                    ));
                } else {
                    self.error(format!(
                        "the server has no open subscription {id} (ids keep their JSON type: 7 ≠ \"7\")"
                    ));
                }
            }
            (Controls::Tools(t), Target::All) => {
                let tool = t.close.clone();
                self.expecting.extend(open);
                self.plain_request(method::TOOLS_CALL, json!({"name": tool, "arguments": {}}))
                    .await;
            }
            (Controls::Tools(t), Target::One(_)) => {
                let tool = t.close.clone();
                self.error(format!(
                    "this server can only end every subscription at once (its `{tool}` tool): use `close all`"
                ));
            }
        }
    }

    async fn cancel(&mut self, id: RequestId) {
        let Some(sub) = self.sub(&id) else {
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
        self.expecting.retain(|e| e != id);
        if let Some(s) = self.sub_mut(id) {
            s.state = state;
        }
        self.checks.cancelled(id);
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
            self.emit(Event::Send {
                id: None,
                method: method::CANCELLED.to_owned(),
                detail: format!("requestId {id}"),
                wire: Some(raw.clone()),
            });
        }
        let verdicts = std::mem::take(&mut self.pending_verdicts);
        self.emit(Event::End {
            stream: id.to_value(),
            how: EndKind::Cancelled,
            note,
            verdicts,
        });
    }

    async fn drop_all(&mut self) {
        match &self.controls {
            Controls::InProcess(c) => {
                let n = c.drop_all();
                self.dropped = true;
                let open = self.open_ids();
                self.expecting.extend(open);
                self.info(format!(
                    "server side: {n} stream(s) cut with no result, as if the server vanished"
                ));
            }
            Controls::Tools(_) => {
                let open = self.open_ids();
                match self.link.vanish().await {
                    Ok(true) => {
                        self.dropped = true;
                        self.expecting.extend(open);
                        self.info(
                            "the server process was killed mid-stream; the careful client \
                             restarts it (STDIO §Unexpected Termination) and must listen again: \
                             no subscription survives",
                        );
                    }
                    Ok(false) => self.error(
                        "`drop` needs the bundled server or --stdio (a remote server cannot be \
                         told to vanish); stop your server by hand to see the same",
                    ),
                    Err(e) => self.error(format!("could not restart the server: {e:#}")),
                }
            }
        }
    }

    fn fault(&mut self, name: Option<String>, on: bool) {
        let Controls::InProcess(c) = &self.controls else {
            self.error(
                "faults belong to the bundled mock server; with --url or --stdio start the \
                 server yourself with `mcp-tutor serve --fault NAME`",
            );
            return;
        };
        match name {
            None => {
                let mut t = String::from("faults (fault NAME on|off):\n");
                for (n, state, rule, spec) in c.faults() {
                    let mark = if state { "on " } else { "off" };
                    t.push_str(&format!("  [{mark}] {n:<28} breaks: {rule} ({spec})\n"));
                }
                self.info(t);
            }
            Some(n) => match c.set_fault(&n, on) {
                Ok(()) => {
                    let state = if on { "on" } else { "off" };
                    self.info(format!("fault {n} {state}"));
                }
                Err(e) => self.error(format!("{e:#}")),
            },
        }
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

    async fn reset(&mut self) {
        let open = self.open_ids();
        for id in open {
            let _ = self.link.cancel(&id).await;
        }
        if let Controls::InProcess(c) = &self.controls {
            for (name, on, _, _) in c.faults() {
                if on {
                    let _ = c.set_fault(&name, false);
                }
            }
        }
        self.subs.clear();
        self.events.clear();
        self.expecting.clear();
        self.checks = Checks::new();
        self.next_listen = 0;
        self.next_request = 0;
        self.info("reset: subscriptions cancelled, faults off, transcript cleared");
    }

    pub async fn shutdown(&mut self) {
        self.link.shutdown().await;
    }

    /// React to one asynchronous event.
    pub async fn handle(&mut self, inc: Incoming) {
        let actions = self.interpret(inc);
        for a in actions {
            match a {
                Action::Relist(f) => {
                    self.client(
                        "acknowledged, so from here on changes will be pushed; nothing before \
                         this point is replayed, so the careful client fetches the current state now",
                    );
                    for (on, k) in [
                        (f.tools, ListKind::Tools),
                        (f.prompts, ListKind::Prompts),
                        (f.resources, ListKind::Resources),
                    ] {
                        if on {
                            self.plain_request(list_method(k), json!({})).await;
                        }
                    }
                    for uri in f.uris {
                        self.plain_request(method::RESOURCES_READ, json!({"uri": uri}))
                            .await;
                    }
                }
                Action::Abandon(id) => {
                    self.abandon(&id, SubState::Abandoned { retried_as: None })
                        .await;
                }
                Action::Retry { filter, of } => {
                    let id = self.fresh_listen_id();
                    if let Some(s) = self.sub_mut(&of) {
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

    fn interpret(&mut self, inc: Incoming) -> Vec<Action> {
        match inc {
            Incoming::Frame {
                stream,
                raw,
                message,
            } => self.on_frame(stream, raw, message),
            Incoming::KeepAlive { stream, raw } => {
                let vstream = if self.is_stdio() { None } else { Some(&stream) };
                self.checks.keep_alive(vstream);
                if self.look.wire {
                    self.emit(Event::KeepAlive {
                        stream: stream.to_value(),
                        raw,
                    });
                }
                Vec::new()
            }
            Incoming::Malformed { stream, raw, error } => {
                let vstream = if self.is_stdio() {
                    None
                } else {
                    stream.as_ref()
                };
                let verdicts = self.checks.malformed(vstream, &raw, &error);
                self.emit(Event::Frame {
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
                Vec::new()
            }
            Incoming::Ended { stream, clean } => {
                self.expecting.retain(|e| e != &stream);
                let verdicts = self.checks.ended(Some(&stream), clean);
                let Some(sub) = self.sub_mut(&stream) else {
                    return Vec::new();
                };
                let (how, note) = match &sub.state {
                    SubState::Cancelled | SubState::Abandoned { .. } => return Vec::new(),
                    SubState::Closed => (
                        EndKind::Graceful,
                        "the server closed the stream after the result".to_owned(),
                    ),
                    _ => {
                        sub.state = SubState::Broken;
                        let cause = if self.dropped {
                            "you made the server vanish (`drop`): this is what a transport loss looks like"
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
                self.emit(Event::End {
                    stream: stream.to_value(),
                    how,
                    note,
                    verdicts,
                });
                Vec::new()
            }
            Incoming::ChannelClosed { why } => {
                let open = self.open_ids();
                self.expecting.clear();
                self.client(format!("the channel is gone: {why}"));
                let mut verdicts = self.checks.ended(None, false);
                for id in open {
                    let verdicts = std::mem::take(&mut verdicts);
                    if let Some(s) = self.sub_mut(&id) {
                        s.state = SubState::Broken;
                    }
                    self.emit(Event::End {
                        stream: id.to_value(),
                        how: EndKind::Abrupt,
                        note: "lost with the channel: after a reconnect the client MUST listen \
                               again; the server keeps no subscription state"
                            .to_owned(),
                        verdicts,
                    });
                }
                Vec::new()
            }
            Incoming::AckTimeout { stream } => {
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
        }
    }

    fn on_frame(&mut self, stream: Option<RequestId>, raw: String, message: Value) -> Vec<Action> {
        let kind = kind_of(&message);
        let tag = message
            .get("params")
            .or_else(|| message.get("result"))
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(protocol::meta::SUBSCRIPTION_ID))
            .cloned();
        let owner = stream.clone().or_else(|| owner_by_content(&message));
        let vstream = if self.is_stdio() {
            None
        } else {
            stream.as_ref()
        };
        let verdicts: Vec<Verdict> = self.checks.frame(vstream, &message);
        let stream_value = owner
            .as_ref()
            .map(RequestId::to_value)
            .unwrap_or(Value::String("?".into()));
        self.expecting.retain(|e| Some(e) != owner.as_ref());

        let Some(id) = owner else {
            self.emit(Event::Frame {
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
            self.emit(Event::Frame {
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
        let late = match &sub.state {
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
            SubState::Closed | SubState::Broken
                if message.get("method").and_then(Value::as_str) != Some(method::CANCELLED) =>
            {
                Some(format!(
                    "{id} is already over; nothing may follow its end, so this is dropped"
                ))
            }
            _ => None,
        };
        if let Some(why) = late {
            self.emit(Event::Dropped {
                stream: stream_value,
                kind,
                message,
                why,
                verdicts,
            });
            return Vec::new();
        }
        let mut notes = Vec::new();
        let mut actions = Vec::new();
        let tag_note = match &tag {
            Some(t) if *t == id.to_value() => {
                format!("tag {} = the listen request's own id", show_id(t))
            }
            Some(t) => format!("tag {}, but this stream's listen id is {id}", show_id(t)),
            None => "no subscriptionId tag in _meta".to_owned(),
        };
        let method_name = message.get("method").and_then(Value::as_str).unwrap_or("");
        let mut new_state = None;
        match method_name {
            method::SUBSCRIPTIONS_ACKNOWLEDGED => {
                let honoured = FilterAsk::from_json(
                    message
                        .get("params")
                        .and_then(|p| p.get("notifications"))
                        .unwrap_or(&Value::Null),
                );
                let first = sub.frames == 0;
                notes.push(format!(
                    "acknowledgement{}; {tag_note}",
                    if first {
                        ", the first message for this subscription"
                    } else {
                        ", but NOT the first message for this subscription"
                    }
                ));
                let missing = sub.asked.missing_from(&honoured);
                let extra = sub.asked.extra_in(&honoured);
                let mut subset = format!(
                    "honoured: {} (asked: {})",
                    honoured.words(),
                    sub.asked.words()
                );
                if !missing.is_empty() {
                    subset.push_str(&format!(
                        "; left out: {} — the server will not deliver it, and that is not an error",
                        missing.join(" ")
                    ));
                }
                if !extra.is_empty() {
                    subset.push_str(&format!("; claims never asked for: {}", extra.join(" ")));
                }
                notes.push(subset);
                if sub.state == SubState::AwaitingAck {
                    new_state = Some(SubState::Live);
                    if let Some(s) = self.sub_mut(&id) {
                        s.honoured = Some(honoured.clone());
                    }
                    actions.push(Action::Relist(honoured));
                }
            }
            method::TOOLS_LIST_CHANGED
            | method::PROMPTS_LIST_CHANGED
            | method::RESOURCES_LIST_CHANGED => {
                notes.push(format!(
                    "{tag_note}; no data inside: a careful client fetches the list again"
                ));
            }
            method::RESOURCES_UPDATED => {
                let uri = message
                    .get("params")
                    .and_then(|p| p.get("uri"))
                    .and_then(Value::as_str)
                    .unwrap_or("(no uri)");
                let subscribed = sub.honoured.as_ref().unwrap_or(&sub.asked).uris.join(" ");
                notes.push(format!(
                    "{uri} changed (subscribed: {subscribed}); {tag_note}"
                ));
            }
            method::CANCELLED => {
                notes.push(format!(
                    "the server tore down {id} on stdio by naming it in notifications/cancelled"
                ));
                new_state = Some(SubState::Closed);
            }
            "" if message.get("result").is_some() => {
                let rt = message
                    .get("result")
                    .and_then(|r| r.get("resultType"))
                    .cloned()
                    .unwrap_or(Value::Null);
                notes.push(format!(
                    "the listen request's result (resultType {rt}): the server ended {id} \
                     gracefully; {tag_note}"
                ));
                new_state = Some(SubState::Closed);
                // Over HTTP the stream's end follows, and a script waits for it too.
                if !self.is_stdio() {
                    self.expecting.push(id.clone());
                }
            }
            "" if message.get("error").is_some() => {
                notes.push(format!(
                    "the listen was refused: {}",
                    summarise(method::SUBSCRIPTIONS_LISTEN, &message)
                ));
                new_state = Some(SubState::Broken);
            }
            other => {
                notes.push(format!("{other} on a listen stream; {tag_note}"));
            }
        }
        if let Some(s) = self.sub_mut(&id) {
            s.frames += 1;
            if let Some(st) = new_state {
                s.state = st;
            }
        }
        self.emit(Event::Frame {
            stream: stream_value,
            kind,
            message,
            raw,
            notes,
            verdicts,
        });
        actions
    }
}

/// stdio demultiplexing: a tagged message by its tag, a response by its id, a server cancel by
/// the request it names (STDIO §Receiving Messages).
fn owner_by_content(message: &Value) -> Option<RequestId> {
    match crate::client::route(message) {
        Route::Response(id) | Route::Cancelled(id) => Some(id),
        Route::Subscription(tag) => RequestId::from_value(&tag),
        Route::Other => None,
    }
}

fn kind_word(k: NotificationKind) -> &'static str {
    match k {
        NotificationKind::ToolsListChanged => "tools",
        NotificationKind::PromptsListChanged => "prompts",
        NotificationKind::ResourcesListChanged => "resources",
        NotificationKind::ResourceUpdated => "resource",
    }
}

pub fn help_text(topic: Option<&str>) -> String {
    match topic {
        Some(t) => match HELP.iter().find(|h| h.name == t) {
            Some(h) => format!("{}\n\n{}\n", h.usage, h.what),
            None => format!("no step `{t}`; `help` lists them all\n"),
        },
        None => {
            let mut s = String::from("steps (help STEP for more):\n");
            for h in HELP {
                if h.usage.len() > 34 {
                    s.push_str(&format!("  {}\n  {:<34} {}\n", h.usage, "", h.brief));
                } else {
                    s.push_str(&format!("  {:<34} {}\n", h.usage, h.brief));
                }
            }
            s
        }
    }
}
