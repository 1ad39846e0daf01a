//! The transport-independent subscription hub: the registry of live subscriptions, the change
//! broadcast, faults, and the listen stream itself. HTTP and stdio are thin adapters over it.
//!
//! Cost per stream: one broadcast receiver, a registry entry and a small state; nothing per
//! stream is allocated per change. A change is serialised once ([`Spliced`]) and each stream
//! splices its tag in. Every stream waits on one thing, the broadcast: an end (a close, a drop,
//! a cancel, shutdown) is a flag in the stream's entry plus a [`Event::Wake`] on the broadcast,
//! and keep-alives are a hub-wide [`Event::Tick`], so no stream registers timers or extra wakers.
//!
//! Changes go out in batches: the first change of a burst wakes the hub's task, which lets the
//! other tasks run once and then publishes every change announced meanwhile as one event. No
//! change waits for a timer, and a burst of changes wakes each stream once, not once a change.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::Stream;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::catalog::{self, Revisions};
use crate::fault::Fault;
use crate::protocol::{
    self, NotificationKind, RequestId, Spliced, SubscriptionFilter, meta, method, tag_json,
};

/// Which transport carries a subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    Http,
    Stdio,
}

/// A live subscription as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionInfo {
    /// The listen request's own id, which is the subscription id.
    pub id: RequestId,
    /// What the client asked for.
    pub requested: SubscriptionFilter,
    /// What the server agreed to honour (sent in the ack, faults aside).
    pub honoured: SubscriptionFilter,
    pub transport: Transport,
}

/// How the server ends a subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// Completion result, then close (plus `notifications/cancelled` on stdio, §4.9).
    Graceful = 1,
    /// Transport loss: no result.
    Abrupt = 2,
    /// The client cancelled: nothing more at all.
    Cancelled = 3,
}

impl End {
    fn from_u8(v: u8) -> Option<End> {
        match v {
            1 => Some(End::Graceful),
            2 => Some(End::Abrupt),
            3 => Some(End::Cancelled),
            _ => None,
        }
    }
}

/// One item a listen stream yields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Out {
    Msg(Box<Value>),
    /// Change notifications from one batch, tagged with `tag` (the listen id as JSON): the
    /// changes at `first + i` for each bit `i` set in `mask`. One item for a burst of changes,
    /// so a stream shares the batch rather than holding each change.
    Changes {
        batch: Arc<Batch>,
        first: usize,
        mask: u64,
        tag: Arc<str>,
    },
    /// Nothing was sent for a keep-alive interval (HTTP sends an SSE comment; stdio nothing).
    KeepAlive,
    /// End the transport abruptly (HTTP: reset the body; stdio: just stop).
    Abort,
}

impl Out {
    fn msg(v: Value) -> Out {
        Out::Msg(Box::new(v))
    }

    fn changes(&self) -> impl Iterator<Item = &Spliced> {
        let (batch, first, mut mask) = match self {
            Out::Changes {
                batch, first, mask, ..
            } => (Some(batch), *first, *mask),
            _ => (None, 0, 0),
        };
        std::iter::from_fn(move || {
            while mask != 0 {
                let i = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                if let Some(c) = batch.and_then(|b| b.changes.get(first + i)) {
                    return Some(&**c);
                }
            }
            None
        })
    }

    /// The size of what [`Out::write_messages`] writes, when it is known without writing (all
    /// but a [`Out::Msg`]).
    pub(crate) fn messages_len(&self, wrapping: usize) -> Option<usize> {
        match self {
            Out::Msg(_) => None,
            Out::Changes { tag, .. } => Some(
                self.changes()
                    .map(|c| wrapping + c.len_with(tag.len()))
                    .sum(),
            ),
            Out::KeepAlive | Out::Abort => Some(0),
        }
    }

    /// Appends each message as JSON between `before` and `after`; nothing for a keep-alive or
    /// an abort, which are not messages.
    pub(crate) fn write_messages(&self, before: &[u8], after: &[u8], out: &mut Vec<u8>) {
        match self {
            Out::Msg(v) => {
                out.extend_from_slice(before);
                // Writing JSON into a Vec cannot fail.
                let _ = serde_json::to_writer(&mut *out, v);
                out.extend_from_slice(after);
            }
            Out::Changes { tag, .. } => {
                for c in self.changes() {
                    out.extend_from_slice(before);
                    c.write(tag, out);
                    out.extend_from_slice(after);
                }
            }
            Out::KeepAlive | Out::Abort => {}
        }
    }
}

/// Changes announced together, numbered from `first`.
#[derive(Debug, PartialEq)]
pub(crate) struct Batch {
    first: u64,
    changes: Vec<Arc<Spliced>>,
}

/// Changes announced and not yet published.
#[derive(Default)]
struct Pending {
    changes: Vec<Arc<Spliced>>,
    /// The number the next announced change gets.
    next: u64,
}

/// What the hub tells every listen stream at once.
#[derive(Debug, Clone)]
pub(crate) enum Event {
    Changes(Arc<Batch>),
    /// Some stream's end flag was set, or the server is closing: each stream checks its own.
    Wake,
    /// A keep-alive interval passed.
    Tick,
}

/// No end requested (the other values are [`End`]'s).
const LIVE: u8 = 0;

struct Entry {
    info: SubscriptionInfo,
    end: Arc<AtomicU8>,
}

pub(crate) struct Hub {
    pub(crate) ack_delay: Duration,
    pub(crate) keepalive: Duration,
    faults: AtomicU32,
    events: broadcast::Sender<Event>,
    pending: Mutex<Pending>,
    /// Wakes the hub's task to publish what is pending.
    publish: Arc<tokio::sync::Notify>,
    subs: Mutex<HashMap<u64, Entry>>,
    next_key: AtomicU64,
    /// Cancelled on server shutdown: every stream ends gracefully, result first.
    pub(crate) shutdown: CancellationToken,
    /// Set (then a [`Event::Wake`]) once `shutdown` is cancelled; streams read this flag rather
    /// than each registering with the token.
    closing: AtomicBool,
    /// Whether the task that ticks keep-alives and relays shutdown runs (started with the first
    /// listen, so a hub needs no runtime until then).
    driven: AtomicBool,
    pub(crate) revisions: Revisions,
    /// Whether the control tools are offered (`control.rs`): not on a non-loopback bind.
    control_tools: AtomicBool,
    /// Items per page of a list (`Config::page_size`); 0: one page.
    page_size: AtomicUsize,
}

impl Hub {
    pub(crate) fn new(faults: &[Fault], ack_delay: Duration, keepalive: Duration) -> Arc<Hub> {
        let (events, _) = broadcast::channel(256);
        let bits = faults.iter().fold(0, |acc, f| acc | f.bit());
        Arc::new(Hub {
            ack_delay,
            keepalive,
            faults: AtomicU32::new(bits),
            events,
            pending: Mutex::new(Pending::default()),
            publish: Arc::new(tokio::sync::Notify::new()),
            subs: Mutex::new(HashMap::new()),
            next_key: AtomicU64::new(0),
            shutdown: CancellationToken::new(),
            closing: AtomicBool::new(false),
            driven: AtomicBool::new(false),
            revisions: Revisions::default(),
            control_tools: AtomicBool::new(true),
            page_size: AtomicUsize::new(0),
        })
    }

    /// Starts the hub's one task, once: it publishes announced changes, ticks keep-alives
    /// every `keepalive`, and relays the shutdown to the streams. It holds the hub weakly, so a
    /// dropped hub ends it.
    fn drive(self: &Arc<Self>) {
        if self.driven.swap(true, Ordering::AcqRel) {
            return;
        }
        let hub = Arc::downgrade(self);
        let token = self.shutdown.clone();
        let publish = self.publish.clone();
        let keepalive = self.keepalive;
        let task = async move {
            let mut ticks = tokio::time::interval(keepalive);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await; // the first tick is immediate
            loop {
                tokio::select! {
                    _ = token.cancelled() => {
                        if let Some(hub) = Weak::upgrade(&hub) {
                            hub.flush();
                            hub.closing.store(true, Ordering::Release);
                            let _ = hub.events.send(Event::Wake);
                        }
                        return;
                    }
                    _ = publish.notified() => {
                        // Whatever else is running (a client's next pipelined trigger) gets
                        // its turn first, so a burst goes out as one batch.
                        tokio::task::yield_now().await;
                        let Some(hub) = Weak::upgrade(&hub) else { return };
                        hub.flush();
                    }
                    _ = ticks.tick() => {
                        let Some(hub) = Weak::upgrade(&hub) else { return };
                        let _ = hub.events.send(Event::Tick);
                    }
                }
            }
        };
        // On the runtime of the first listen, where triggers are handled: woken by a trigger,
        // it runs once the handler's task yields, after the rest of a pipelined burst.
        tokio::spawn(task);
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        // Pushes and takes only: a panic cannot leave it inconsistent.
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes every announced change as one batch.
    fn flush(&self) {
        let batch = {
            let mut p = self.pending();
            if p.changes.is_empty() {
                return;
            }
            let changes = std::mem::take(&mut p.changes);
            Batch {
                first: p.next - changes.len() as u64,
                changes,
            }
        };
        // No receivers is fine: nobody is listening.
        let _ = self.events.send(Event::Changes(Arc::new(batch)));
    }

    pub(crate) fn control_tools(&self) -> bool {
        self.control_tools.load(Ordering::Relaxed)
    }

    pub(crate) fn set_control_tools(&self, on: bool) {
        self.control_tools.store(on, Ordering::Relaxed);
    }

    pub(crate) fn page_size(&self) -> Option<usize> {
        Some(self.page_size.load(Ordering::Relaxed)).filter(|n| *n > 0)
    }

    pub(crate) fn set_page_size(&self, n: Option<usize>) {
        self.page_size.store(n.unwrap_or(0), Ordering::Relaxed);
    }

    pub(crate) fn has(&self, f: Fault) -> bool {
        self.faults.load(Ordering::Relaxed) & f.bit() != 0
    }

    pub(crate) fn set_fault(&self, f: Fault, on: bool) {
        if on {
            self.faults.fetch_or(f.bit(), Ordering::Relaxed);
        } else {
            self.faults.fetch_and(!f.bit(), Ordering::Relaxed);
        }
    }

    pub(crate) fn faults(&self) -> Vec<Fault> {
        Fault::all()
            .iter()
            .copied()
            .filter(|f| self.has(*f))
            .collect()
    }

    fn subs(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Entry>> {
        // A panic while holding the lock cannot leave the map inconsistent (single inserts/removes).
        self.subs.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn subscriptions(&self) -> Vec<SubscriptionInfo> {
        let subs = self.subs();
        let mut v: Vec<(&u64, &Entry)> = subs.iter().collect();
        v.sort_by_key(|(k, _)| **k);
        v.into_iter().map(|(_, e)| e.info.clone()).collect()
    }

    /// Announces a change to every live subscription (each decides by its own filter).
    /// A resource update also changes the resource's content.
    pub(crate) fn trigger(&self, kind: NotificationKind, uri: Option<&str>) {
        let uri = match kind {
            NotificationKind::ResourceUpdated => {
                let u = uri.unwrap_or(catalog::DEFAULT_UPDATE_URI);
                self.revisions.bump(u);
                Some(u.to_owned())
            }
            _ => None,
        };
        // Nobody listening: nothing to announce (and nothing for a later listen to see).
        if self.events.receiver_count() == 0 {
            return;
        }
        let change = Spliced::new(kind, uri.as_deref());
        let first = {
            let mut p = self.pending();
            p.changes.push(change);
            p.next += 1;
            p.changes.len() == 1
        };
        if first {
            self.publish.notify_one();
        }
    }

    fn end_where(&self, pred: impl Fn(&SubscriptionInfo) -> bool, how: End) -> usize {
        let n = {
            let subs = self.subs();
            let mut n = 0;
            for e in subs.values() {
                if pred(&e.info)
                    && e.end
                        .compare_exchange(LIVE, how as u8, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                {
                    n += 1;
                }
            }
            n
        };
        if n > 0 {
            // Changes announced before the end go out before it.
            self.flush();
            let _ = self.events.send(Event::Wake);
        }
        n
    }

    /// Whether a subscription with this id is open and not already ending.
    pub(crate) fn is_live(&self, id: &RequestId, transport: Transport) -> bool {
        self.subs().values().any(|e| {
            &e.info.id == id
                && e.info.transport == transport
                && e.end.load(Ordering::Acquire) == LIVE
        })
    }

    /// The `-32600` for a request that reuses the id of a live listen on the same transport, or
    /// `None`. BASE §Requests: an id MUST NOT repeat a still-unanswered request's, and a live
    /// listen is unanswered. [SILENT] on HTTP the server cannot tell clients apart (no sessions),
    /// so the mock's choice is to refuse on both transports alike.
    pub(crate) fn reused_id_error(&self, id: &RequestId, transport: Transport) -> Option<Value> {
        self.is_live(id, transport).then(|| {
            protocol::error_response(
                Some(id),
                protocol::error_code::INVALID_REQUEST,
                &format!("id {id} belongs to a live subscriptions/listen; use a fresh id"),
                None,
            )
        })
    }

    pub(crate) fn close(&self, id: &RequestId) -> bool {
        self.end_where(|i| &i.id == id, End::Graceful) > 0
    }

    pub(crate) fn close_all(&self) -> usize {
        self.end_where(|_| true, End::Graceful)
    }

    pub(crate) fn drop_all(&self) -> usize {
        self.end_where(|_| true, End::Abrupt)
    }

    /// A client cancel (stdio `notifications/cancelled`). Returns false when nothing matched.
    pub(crate) fn cancel(&self, id: &RequestId, transport: Transport) -> bool {
        self.end_where(|i| &i.id == id && i.transport == transport, End::Cancelled) > 0
    }

    /// The subset of `requested` the mock honours: all three list changes when asked for (it
    /// offers them all, §4.4 [SILENT]) and the subscribed URIs that name or cover a resource.
    pub(crate) fn honour(requested: &SubscriptionFilter) -> SubscriptionFilter {
        let yes = |b: Option<bool>| (b == Some(true)).then_some(true);
        let uris: Vec<String> = requested
            .uris()
            .iter()
            .filter(|u| catalog::uri_is_known(u))
            .cloned()
            .collect();
        SubscriptionFilter {
            tools_list_changed: yes(requested.tools_list_changed),
            prompts_list_changed: yes(requested.prompts_list_changed),
            resources_list_changed: yes(requested.resources_list_changed),
            resource_subscriptions: (!uris.is_empty()).then_some(uris),
        }
    }

    /// Registers a subscription and returns its message stream. Dropping the stream (client
    /// disconnect) unregisters it.
    pub(crate) fn listen(
        self: &Arc<Self>,
        id: RequestId,
        requested: SubscriptionFilter,
        transport: Transport,
    ) -> impl Stream<Item = Out> + Send + 'static {
        self.drive();
        let honoured = Hub::honour(&requested);
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        let end = Arc::new(AtomicU8::new(LIVE));
        // Subscribe to changes before the entry is visible, so nothing triggered after the
        // listen request is accepted can be missed; changes announced before are skipped.
        let (rx, first_change) = {
            let p = self.pending();
            (self.events.subscribe(), p.next)
        };
        self.subs().insert(
            key,
            Entry {
                info: SubscriptionInfo {
                    id: id.clone(),
                    requested,
                    honoured: honoured.clone(),
                    transport,
                },
                end: end.clone(),
            },
        );
        let st = ListenState {
            hub: self.clone(),
            key,
            tag: tag_json(&id).into(),
            id,
            honoured,
            transport,
            rx,
            first_change,
            end,
            phase: Phase::Opening,
            quiet: false,
            queue: VecDeque::new(),
        };
        futures_util::stream::unfold(st, |mut st| async move {
            let out = st.next().await?;
            Some((out, st))
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Opening,
    Live,
    Done,
}

struct ListenState {
    hub: Arc<Hub>,
    key: u64,
    id: RequestId,
    /// `id` as JSON, spliced into every change.
    tag: Arc<str>,
    honoured: SubscriptionFilter,
    transport: Transport,
    rx: broadcast::Receiver<Event>,
    /// The number of the first change announced after this stream opened.
    first_change: u64,
    /// Set by the hub to ask this stream to end ([`End`] as u8; [`LIVE`] until then).
    end: Arc<AtomicU8>,
    phase: Phase,
    /// Nothing was sent since the last keep-alive tick.
    quiet: bool,
    queue: VecDeque<Out>,
}

impl Drop for ListenState {
    fn drop(&mut self) {
        self.hub.subs().remove(&self.key);
    }
}

/// The server-minted id the `wrong-subscription-id` fault uses (the seed card's mistake).
const MINTED_ID: &str = "sub-8f21";

impl ListenState {
    async fn next(&mut self) -> Option<Out> {
        loop {
            if let Some(o) = self.queue.pop_front() {
                if !matches!(o, Out::KeepAlive) {
                    self.quiet = false;
                }
                return Some(o);
            }
            match self.phase {
                Phase::Done => return None,
                Phase::Opening => self.open().await,
                Phase::Live => self.wait().await,
            }
        }
    }

    /// A pending end request, if any (server shutdown counts as graceful).
    fn pending_end(&self) -> Option<End> {
        End::from_u8(self.end.load(Ordering::Acquire)).or_else(|| {
            self.hub
                .closing
                .load(Ordering::Acquire)
                .then_some(End::Graceful)
        })
    }

    async fn open(&mut self) {
        let hub = self.hub.clone();
        if hub.has(Fault::NotifyBeforeAck)
            && let Some(early) = self.early_notification()
        {
            self.queue.push_back(Out::msg(early));
        }
        // Changes announced while a late ack waits go out after it.
        let mut held: Vec<Arc<Batch>> = Vec::new();
        if hub.has(Fault::LateAck) && self.pending_end().is_none() {
            let delay = tokio::time::sleep(hub.ack_delay);
            tokio::pin!(delay);
            loop {
                tokio::select! {
                    _ = &mut delay => break,
                    r = self.rx.recv() => match r {
                        Ok(Event::Changes(b)) => held.push(b),
                        Ok(Event::Tick) => {}
                        Ok(Event::Wake) | Err(broadcast::error::RecvError::Lagged(_)) => {
                            if self.pending_end().is_some() {
                                break;
                            }
                        }
                        Err(broadcast::error::RecvError::Closed) => break,
                    },
                }
            }
        }
        if !hub.has(Fault::NoAck) {
            self.queue
                .push_back(Out::msg(protocol::ack(&self.id, &self.honoured)));
        }
        if hub.has(Fault::LogOnListen) {
            let mut log = protocol::notification(
                method::MESSAGE,
                json!({"level": "info", "logger": "mock_server",
                       "data": "listen stream opened (this log line must not be here)"}),
            );
            log["params"]["_meta"] = json!({ meta::SUBSCRIPTION_ID: self.id });
            self.queue.push_back(Out::msg(log));
        }
        for b in held {
            self.deliver(b);
        }
        self.phase = Phase::Live;
        // Ended while opening (e.g. during a late ack): a graceful end still acks first, so that
        // late-ack breaks nothing; a cancel or drop discards what was queued.
        if let Some(how) = self.pending_end() {
            self.finish(how);
        }
    }

    /// For `notify-before-ack`: a notification the client did ask for, so that only the ordering
    /// rule is broken. None when the filter honours nothing.
    fn early_notification(&self) -> Option<Value> {
        let h = &self.honoured;
        let kind = [
            (h.wants_tools(), NotificationKind::ToolsListChanged),
            (h.wants_prompts(), NotificationKind::PromptsListChanged),
            (
                h.wants_resources_list(),
                NotificationKind::ResourcesListChanged,
            ),
        ]
        .into_iter()
        .find_map(|(w, k)| w.then_some(k));
        match (kind, h.uris().first()) {
            (Some(k), _) => Some(protocol::list_changed(k, &self.id)),
            (None, Some(uri)) => Some(protocol::resource_updated(&self.id, uri)),
            (None, None) => None,
        }
    }

    /// Waits for the next event; an end is checked first, so it is never missed (a stream that
    /// lagged past a [`Event::Wake`] reads its flag too).
    async fn wait(&mut self) {
        if let Some(how) = self.pending_end() {
            self.finish(how);
            return;
        }
        match self.rx.recv().await {
            Ok(Event::Changes(batch)) => self.deliver(batch),
            Ok(Event::Wake) => {}
            Ok(Event::Tick) => {
                if self.quiet && self.transport == Transport::Http {
                    self.queue.push_back(Out::KeepAlive);
                }
                self.quiet = true;
            }
            // Best effort (GUIDE "Best Effort"): a lagging stream skips what it missed.
            Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => self.finish(End::Graceful),
        }
    }

    fn deliver(&mut self, batch: Arc<Batch>) {
        let hub = &self.hub;
        let fresh = self.first_change.saturating_sub(batch.first) as usize;
        let all = hub.has(Fault::FilterIgnored);
        let no_tools = hub.has(Fault::AckOverclaims);
        let retag = [
            Fault::Untagged,
            Fault::WrongSubscriptionId,
            Fault::IdTypeChanged,
        ]
        .iter()
        .any(|f| hub.has(*f));
        let wanted = |c: &Spliced| {
            (all || self.honoured.wants(c.kind, c.uri.as_deref()))
                && !(no_tools && c.kind == NotificationKind::ToolsListChanged)
        };
        if retag {
            for c in batch.changes.iter().skip(fresh) {
                if wanted(c) {
                    let msg = self.retagged(c);
                    self.queue.push_back(Out::msg(msg));
                }
            }
            return;
        }
        let mask_at = |first: usize| {
            batch.changes[first..]
                .iter()
                .take(64)
                .enumerate()
                .filter(|(_, c)| wanted(c))
                .fold(0u64, |m, (i, _)| m | 1 << i)
        };
        let n = batch.changes.len();
        if n <= fresh + 64 {
            // The usual case, one item: the batch moves into it, no count shared with the
            // other streams is touched again.
            let mask = if fresh < n { mask_at(fresh) } else { 0 };
            if mask != 0 {
                self.queue.push_back(Out::Changes {
                    batch,
                    first: fresh,
                    mask,
                    tag: self.tag.clone(),
                });
            }
            return;
        }
        for first in (fresh..n).step_by(64) {
            let mask = mask_at(first);
            if mask != 0 {
                self.queue.push_back(Out::Changes {
                    batch: batch.clone(),
                    first,
                    mask,
                    tag: self.tag.clone(),
                });
            }
        }
    }

    /// A change as a fault that breaks its tag sends it.
    fn retagged(&self, change: &Spliced) -> Value {
        let hub = &self.hub;
        let uri = change.uri.as_deref().unwrap_or("");
        let mut msg = protocol::change_notification(change.kind, &self.id, uri);
        if hub.has(Fault::Untagged) {
            if let Some(params) = msg["params"].as_object_mut() {
                params.remove("_meta");
            }
        } else if hub.has(Fault::WrongSubscriptionId) {
            let minted = if self.id == RequestId::from(MINTED_ID) {
                "sub-8f22"
            } else {
                MINTED_ID
            };
            msg["params"]["_meta"][meta::SUBSCRIPTION_ID] = minted.into();
        } else if hub.has(Fault::IdTypeChanged) {
            msg["params"]["_meta"][meta::SUBSCRIPTION_ID] = self.id.type_flipped();
        }
        msg
    }

    fn finish(&mut self, how: End) {
        if how == End::Graceful {
            // Changes announced before the close still go out, ahead of the result.
            loop {
                match self.rx.try_recv() {
                    Ok(Event::Changes(batch)) => self.deliver(batch),
                    Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => continue,
                    Err(_) => break,
                }
            }
        }
        self.phase = Phase::Done;
        let hub = &self.hub;
        match how {
            End::Cancelled => self.queue.clear(),
            End::Abrupt => {
                self.queue.clear();
                self.queue.push_back(Out::Abort);
            }
            // The stream ends with no result. It ends cleanly rather than breaking off, so that
            // changes announced before the close still reach the client: only the result is
            // missing, which is the one rule this fault breaks.
            End::Graceful if hub.has(Fault::AbruptClose) => {}
            End::Graceful => {
                let mut done = crate::close_result(&self.id);
                if hub.has(Fault::CloseWithoutTag)
                    && let Some(m) = done["result"]["_meta"].as_object_mut()
                {
                    m.remove(meta::SUBSCRIPTION_ID);
                }
                self.queue.push_back(Out::msg(done));
                if self.transport == Transport::Stdio {
                    // §4.9 mock choice: on stdio, the result and then CAN's server-sent
                    // notifications/cancelled naming the listen id (tagged too).
                    let mut c =
                        protocol::cancelled(&self.id, Some("server closed the subscription"));
                    c["params"]["_meta"] = json!({ meta::SUBSCRIPTION_ID: self.id });
                    self.queue.push_back(Out::msg(c));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    fn tools() -> SubscriptionFilter {
        SubscriptionFilter {
            tools_list_changed: Some(true),
            ..SubscriptionFilter::default()
        }
    }

    fn hub() -> Arc<Hub> {
        Hub::new(&[], Duration::from_secs(3), Duration::from_secs(3600))
    }

    /// The change notifications of one item, as the stream would send them.
    fn lines(out: &Out) -> Vec<Value> {
        let mut buf = Vec::new();
        out.write_messages(b"", b"\n", &mut buf);
        buf.split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    #[tokio::test]
    async fn a_burst_of_changes_reaches_a_stream_as_one_item_each_tagged() {
        let hub = hub();
        let mut s = Box::pin(hub.listen(RequestId::Int(7), tools(), Transport::Http));
        let ack = s.next().await.unwrap();
        assert!(matches!(&ack, Out::Msg(v) if v["method"] == method::SUBSCRIPTIONS_ACKNOWLEDGED));
        for _ in 0..3 {
            hub.trigger(NotificationKind::ToolsListChanged, None);
        }
        // Not asked for: filtered out of the same batch.
        hub.trigger(NotificationKind::PromptsListChanged, None);
        let item = s.next().await.unwrap();
        let expected = protocol::list_changed(NotificationKind::ToolsListChanged, &7.into());
        assert_eq!(lines(&item), vec![expected; 3]);
    }

    #[tokio::test]
    async fn a_change_announced_before_a_listen_never_reaches_it() {
        let hub = hub();
        let mut early = Box::pin(hub.listen(RequestId::Int(1), tools(), Transport::Http));
        early.next().await.unwrap();
        // Announced, not yet published (the hub's task has not run), when the second opens.
        hub.trigger(NotificationKind::ToolsListChanged, None);
        let mut late = Box::pin(hub.listen(RequestId::Int(2), tools(), Transport::Http));
        late.next().await.unwrap();
        assert_eq!(lines(&early.next().await.unwrap()).len(), 1);
        hub.trigger(NotificationKind::ToolsListChanged, None);
        let got = lines(&late.next().await.unwrap());
        assert_eq!(
            got,
            vec![protocol::list_changed(
                NotificationKind::ToolsListChanged,
                &2.into()
            )],
            "only the change after the listen"
        );
    }

    #[tokio::test]
    async fn a_change_before_a_close_goes_out_before_the_result() {
        let hub = hub();
        let mut s = Box::pin(hub.listen(RequestId::Int(3), tools(), Transport::Http));
        s.next().await.unwrap();
        hub.trigger(NotificationKind::ToolsListChanged, None);
        assert!(hub.close(&RequestId::Int(3)));
        assert_eq!(lines(&s.next().await.unwrap()).len(), 1);
        let result = lines(&s.next().await.unwrap());
        assert_eq!(result, vec![crate::close_result(&3.into())]);
        assert!(s.next().await.is_none());
    }
}
