//! The transport-independent subscription hub: the registry of live subscriptions, the change
//! broadcast, faults, and the listen stream itself. HTTP and stdio are thin adapters over it.
//!
//! Cost per stream: one broadcast receiver, one watch receiver and a registry entry. No task of
//! its own on HTTP (the SSE body polls the stream); stdio adds one forwarding task per listen.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::Stream;
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use crate::catalog::{self, Revisions};
use crate::fault::Fault;
use crate::protocol::{self, NotificationKind, RequestId, SubscriptionFilter, meta, method};

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
    Graceful,
    /// Transport loss: no result.
    Abrupt,
    /// The client cancelled: nothing more at all.
    Cancelled,
}

/// One item a listen stream yields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Out {
    Msg(Value),
    /// End the transport abruptly (HTTP: reset the body; stdio: just stop).
    Abort,
}

#[derive(Debug, Clone)]
pub(crate) struct Change {
    kind: NotificationKind,
    uri: Option<String>,
}

struct Entry {
    info: SubscriptionInfo,
    end: watch::Sender<Option<End>>,
}

pub(crate) struct Hub {
    pub(crate) ack_delay: Duration,
    pub(crate) keepalive: Duration,
    faults: AtomicU32,
    changes: broadcast::Sender<Change>,
    subs: Mutex<HashMap<u64, Entry>>,
    next_key: AtomicU64,
    /// Cancelled on server shutdown: every stream ends gracefully, result first.
    pub(crate) shutdown: CancellationToken,
    pub(crate) revisions: Revisions,
    /// Whether the control tools are offered (`control.rs`): not on a non-loopback bind.
    control_tools: AtomicBool,
    /// Items per page of a list (`Config::page_size`); 0: one page.
    page_size: AtomicUsize,
}

impl Hub {
    pub(crate) fn new(faults: &[Fault], ack_delay: Duration, keepalive: Duration) -> Arc<Hub> {
        let (changes, _) = broadcast::channel(256);
        let bits = faults.iter().fold(0, |acc, f| acc | f.bit());
        Arc::new(Hub {
            ack_delay,
            keepalive,
            faults: AtomicU32::new(bits),
            changes,
            subs: Mutex::new(HashMap::new()),
            next_key: AtomicU64::new(0),
            shutdown: CancellationToken::new(),
            revisions: Revisions::default(),
            control_tools: AtomicBool::new(true),
            page_size: AtomicUsize::new(0),
        })
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
        // No receivers is fine: nobody is listening.
        let _ = self.changes.send(Change { kind, uri });
    }

    fn end_where(&self, pred: impl Fn(&SubscriptionInfo) -> bool, how: End) -> usize {
        let subs = self.subs();
        let mut n = 0;
        for e in subs.values() {
            if pred(&e.info) && e.end.borrow().is_none() {
                e.end.send_replace(Some(how));
                n += 1;
            }
        }
        n
    }

    /// Whether a subscription with this id is open and not already ending.
    pub(crate) fn is_live(&self, id: &RequestId, transport: Transport) -> bool {
        self.subs()
            .values()
            .any(|e| &e.info.id == id && e.info.transport == transport && e.end.borrow().is_none())
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
        let honoured = Hub::honour(&requested);
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        let (end_tx, end_rx) = watch::channel(None);
        // Subscribe to changes before the entry is visible, so nothing triggered after the
        // listen request is accepted can be missed.
        let rx = self.changes.subscribe();
        self.subs().insert(
            key,
            Entry {
                info: SubscriptionInfo {
                    id: id.clone(),
                    requested: requested.clone(),
                    honoured: honoured.clone(),
                    transport,
                },
                end: end_tx,
            },
        );
        let st = ListenState {
            hub: self.clone(),
            key,
            id,
            requested,
            honoured,
            transport,
            rx,
            end: end_rx,
            phase: Phase::Opening,
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
    requested: SubscriptionFilter,
    honoured: SubscriptionFilter,
    transport: Transport,
    rx: broadcast::Receiver<Change>,
    end: watch::Receiver<Option<End>>,
    phase: Phase,
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
        let e = *self.end.borrow();
        e.or_else(|| self.hub.shutdown.is_cancelled().then_some(End::Graceful))
    }

    async fn open(&mut self) {
        let hub = self.hub.clone();
        if hub.has(Fault::NotifyBeforeAck)
            && let Some(early) = self.early_notification()
        {
            self.queue.push_back(Out::Msg(early));
        }
        if hub.has(Fault::LateAck) && self.pending_end().is_none() {
            tokio::select! {
                _ = tokio::time::sleep(hub.ack_delay) => {}
                _ = self.end.changed() => {}
                _ = hub.shutdown.cancelled() => {}
            }
        }
        if !hub.has(Fault::NoAck) {
            let claimed = if hub.has(Fault::AckOverclaims) {
                &self.requested
            } else {
                &self.honoured
            };
            self.queue
                .push_back(Out::Msg(protocol::ack(&self.id, claimed)));
        }
        if hub.has(Fault::LogOnListen) {
            let mut log = protocol::notification(
                method::MESSAGE,
                json!({"level": "info", "logger": "mock_server",
                       "data": "listen stream opened (this log line must not be here)"}),
            );
            log["params"]["_meta"] = json!({ meta::SUBSCRIPTION_ID: self.id });
            self.queue.push_back(Out::Msg(log));
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

    async fn wait(&mut self) {
        let hub = self.hub.clone();
        tokio::select! {
            biased;
            r = self.end.changed() => {
                // A dropped sender means the entry is gone: treat as abrupt loss.
                let how = if r.is_err() { Some(End::Abrupt) } else { *self.end.borrow() };
                if let Some(how) = how {
                    self.finish(how);
                }
            }
            _ = hub.shutdown.cancelled() => self.finish(End::Graceful),
            r = self.rx.recv() => match r {
                Ok(change) => self.deliver(&change),
                // Best effort (GUIDE "Best Effort"): a lagging stream skips what it missed.
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => self.finish(End::Graceful),
            },
        }
    }

    fn deliver(&mut self, change: &Change) {
        let hub = &self.hub;
        let uri = change.uri.as_deref();
        let wanted = if hub.has(Fault::FilterIgnored) {
            true
        } else {
            self.honoured.wants(change.kind, uri)
        };
        if !wanted {
            return;
        }
        if hub.has(Fault::AckOverclaims) && change.kind == NotificationKind::ToolsListChanged {
            return;
        }
        let mut msg = protocol::change_notification(change.kind, &self.id, uri.unwrap_or(""));
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
        self.queue.push_back(Out::Msg(msg));
    }

    fn finish(&mut self, how: End) {
        if how == End::Graceful {
            // Changes announced before the close still go out, ahead of the result.
            loop {
                match self.rx.try_recv() {
                    Ok(change) => self.deliver(&change),
                    Err(broadcast::error::TryRecvError::Lagged(_)) => continue,
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
                self.queue.push_back(Out::Msg(done));
                if self.transport == Transport::Stdio {
                    // §4.9 mock choice: on stdio, the result and then CAN's server-sent
                    // notifications/cancelled naming the listen id (tagged too).
                    let mut c =
                        protocol::cancelled(&self.id, Some("server closed the subscription"));
                    c["params"]["_meta"] = json!({ meta::SUBSCRIPTION_ID: self.id });
                    self.queue.push_back(Out::Msg(c));
                }
            }
        }
    }
}
