//! One driver for the checks over any [`Link`]: it sends, reads everything that arrives into
//! the validator (also while it waits for a reply), and turns waits into findings. The scenario
//! says what to do; this says how, the same way on every transport.

use std::collections::HashMap;

use mock_server::protocol::{self, Message, NotificationKind, RequestId, SubscriptionFilter};
use mock_server::protocol::{header, method};
use mock_server::validator::{CheckRule, Finding, Observation, Subscription, Validator};
use serde_json::{Value, json};
use tokio::time::{Duration, Instant};

use super::{Config, reply_summary};
use crate::client::link::{BoxFut, Incoming, Link, Receiver, Reply, Transport, Tx};
use crate::commands::check::report::Report;

/// At most this many pages of `tools/list`: a server whose every page has a `nextCursor`
/// cannot keep `check` listing.
const MAX_PAGES: usize = 20;

/// Tool names and the first resource URI the server lists.
#[derive(Debug, Default)]
pub(super) struct Catalogue {
    pub(super) tools: Option<Vec<String>>,
    pub(super) tools_error: String,
    pub(super) resource: Option<String>,
}

impl Catalogue {
    /// The tool `name` when configured and offered; otherwise why it cannot be used.
    pub(super) fn tool<'a>(
        &self,
        name: &'a Option<String>,
        option: &str,
    ) -> Result<&'a str, String> {
        let Some(name) = name.as_deref().filter(|n| !n.is_empty()) else {
            return Err(format!("no tool given ({option})"));
        };
        match &self.tools {
            Some(tools) if tools.iter().any(|t| t == name) => Ok(name),
            Some(_) => Err(format!(
                "the server has no tool {name:?} ({option} names the tool that causes it)"
            )),
            None => Err(format!(
                "tools/list failed ({}), so no trigger tool",
                self.tools_error
            )),
        }
    }
}

/// A subscription the scenario opens: its id, and what it is for in findings.
pub(super) type Listen = (RequestId, &'static str);

pub(super) struct Probe<'l> {
    link: &'l dyn Link,
    /// Handed to each HTTP listen for its stream's frames (the stdio link has its own).
    tx: Tx,
    rx: Receiver,
    pub(super) v: Validator,
    pub(super) report: Report,
    pub(super) cfg: Config,
    next_id: i64,
    /// Frames read off listen streams or the stdio channel.
    pub(super) frames: usize,
    /// The stdio channel is gone: nothing more will arrive.
    closed: bool,
    /// Listens answered with no stream (HTTP), and what the answer was.
    refusals: HashMap<RequestId, String>,
}

impl<'l> Probe<'l> {
    pub(super) fn new(
        link: &'l dyn Link,
        tx: Tx,
        rx: Receiver,
        target: String,
        cfg: Config,
    ) -> Self {
        Probe {
            link,
            tx,
            rx,
            v: Validator::new(),
            report: Report::new(target),
            cfg,
            next_id: 1000,
            frames: 0,
            closed: false,
            refusals: HashMap::new(),
        }
    }

    pub(super) fn into_report(self) -> Report {
        self.report
    }

    pub(super) fn link(&self) -> &'l dyn Link {
        self.link
    }

    /// Every listen has a stream of its own, which must end after its result (HTTP); on stdio
    /// the result is the end.
    fn streams(&self) -> bool {
        match self.link.transport() {
            Transport::Http => true,
            Transport::Stdio => false,
        }
    }

    fn observe(&mut self, o: &Observation) {
        let fs = self.v.observe(o);
        self.report.extend(fs);
    }

    fn take(&mut self, inc: Incoming) {
        let o = match inc {
            Incoming::Frame {
                stream, message, ..
            } => {
                self.frames += 1;
                Observation::Message { stream, message }
            }
            Incoming::Malformed { stream, raw, error } => {
                Observation::Malformed { stream, raw, error }
            }
            Incoming::KeepAlive { stream, .. } => Observation::KeepAlive {
                stream: Some(stream),
            },
            Incoming::Ended { stream, clean } => Observation::Ended {
                stream: Some(stream),
                graceful: clean,
            },
            Incoming::ChannelClosed { .. } => {
                self.closed = true;
                Observation::Ended {
                    stream: None,
                    graceful: true,
                }
            }
            // The lab's own ack timer and its display limit: neither happens to `check`.
            Incoming::AckTimeout { .. } | Incoming::Flooding { .. } => return,
        };
        self.observe(&o);
    }

    /// Judges what arrives until `done` holds, the stdio channel is gone, or `deadline` passes.
    pub(super) async fn pump_until(&mut self, deadline: Instant, done: impl Fn(&Self) -> bool) {
        while !done(self) && !self.closed {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(inc)) => self.take(inc),
                // The probe holds a sender, so the channel never closes under it.
                Ok(None) | Err(_) => return,
            }
        }
    }

    /// Judges whatever arrives within `d` (to see what must not).
    pub(super) async fn watch(&mut self, d: Duration) {
        self.pump_until(Instant::now() + d, |_| false).await;
    }

    /// Judges what already arrived.
    pub(super) fn drain(&mut self) {
        while let Ok(inc) = self.rx.try_recv() {
            self.take(inc);
        }
    }

    /// Awaits `fut`, judging what arrives meanwhile (a stdio link hands replies over only
    /// after the frames queued before them).
    async fn alongside<T>(&mut self, fut: BoxFut<'_, T>) -> T {
        tokio::pin!(fut);
        loop {
            tokio::select! {
                done = &mut fut => return done,
                Some(inc) = self.rx.recv() => self.take(inc),
            }
        }
    }

    fn id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId::Int(self.next_id)
    }

    /// Sends a request and waits (the link's timeout) for its reply.
    pub(super) async fn request(&mut self, m: &str, params: Value) -> anyhow::Result<Reply> {
        self.request_edited(m, params, |_| {}).await
    }

    /// Like [`Probe::request`], with the message changed by `edit` before it goes out (a
    /// probe that leaves out a required field).
    pub(super) async fn request_edited(
        &mut self,
        m: &str,
        params: Value,
        edit: impl FnOnce(&mut Value),
    ) -> anyhow::Result<Reply> {
        let mut msg = protocol::request(&self.id(), m, params);
        edit(&mut msg);
        let link = self.link;
        let reply = self.alongside(link.request(msg)).await?;
        if !self.streams()
            && let Some(message) = &reply.message
        {
            // On stdio the reply came on the one channel the validator watches whole.
            let o = Observation::Message {
                stream: None,
                message: message.clone(),
            };
            self.observe(&o);
        }
        Ok(reply)
    }

    /// Calls the tool `name`; `Err` says why it did not succeed.
    pub(super) async fn call_tool(&mut self, name: &str, args: Value) -> Result<(), String> {
        let params = json!({"name": name, "arguments": args});
        let reply = self
            .request(method::TOOLS_CALL, params)
            .await
            .map_err(|e| format!("calling {name}: {e:#}"))?;
        match &reply.message {
            Some(r @ Message::Result { result, .. }) if r.is_tool_error() => {
                Err(format!("{name} reported isError: {result}"))
            }
            Some(Message::Result { .. }) => Ok(()),
            other => Err(format!(
                "calling {name} got {}",
                reply_summary(reply.status, other.as_ref())
            )),
        }
    }

    /// Every tool the server lists (following `nextCursor`), and its first resource.
    pub(super) async fn catalogue(&mut self) -> Catalogue {
        let mut cat = Catalogue::default();
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
            let reply = match self.request(method::TOOLS_LIST, params).await {
                Ok(r) => r,
                Err(e) => {
                    cat.tools_error = format!("{e:#}");
                    return self.resources(cat).await;
                }
            };
            let Some(page) = reply.message.as_ref().filter(|m| m.result().is_some()) else {
                cat.tools_error = reply_summary(reply.status, reply.message.as_ref());
                return self.resources(cat).await;
            };
            tools.extend(page.listed_names("tools", "name"));
            cursor = page.next_cursor().map(str::to_owned);
            if cursor.is_none() {
                cat.tools = Some(tools);
                return self.resources(cat).await;
            }
        }
        cat.tools_error = format!("page {MAX_PAGES} still had a nextCursor");
        self.resources(cat).await
    }

    async fn resources(&mut self, mut cat: Catalogue) -> Catalogue {
        if let Ok(r) = self.request(method::RESOURCES_LIST, json!({})).await
            && let Some(m) = r.message.filter(|m| m.result().is_some())
        {
            cat.resource = m.listed_names("resources", "uri").into_iter().next();
        }
        cat
    }

    /// Opens `listen` with `filter`. Over HTTP the stream must be SSE without proxy buffering;
    /// a reply without a stream is a refusal, judged once every ack had its chance.
    pub(super) async fn open(&mut self, listen: &Listen, filter: &SubscriptionFilter) {
        let (id, label) = listen;
        self.observe(&Observation::ListenSent {
            id: id.clone(),
            filter: filter.clone(),
        });
        let msg = protocol::listen_request(id, filter);
        let link = self.link;
        let tx = self.tx.clone();
        let opened = match self.alongside(link.listen(id.clone(), msg, tx)).await {
            Ok(o) => o,
            Err(e) => {
                let f = Finding::fail(
                    CheckRule::AckFirst,
                    format!("listen {id} ({label}) did not open: {e:#}"),
                );
                self.report.add(f.about(id));
                return;
            }
        };
        if let Some(refusal) = opened.refused {
            // Its body is judged like any frame on that stream.
            let what = reply_summary(opened.status, refusal.as_ref());
            if let Some(message) = refusal {
                let stream = Some(id.clone());
                self.observe(&Observation::Message { stream, message });
            }
            let stream = Some(id.clone());
            self.observe(&Observation::Ended {
                stream,
                graceful: true,
            });
            self.refusals.insert(id.clone(), what);
            return;
        }
        if let Some(response) = &opened.response {
            let f = match response.header(header::X_ACCEL_BUFFERING) {
                Some(v) if v.trim().eq_ignore_ascii_case("no") => Finding::pass(
                    CheckRule::SseNoBuffering,
                    format!("listen {id}: text/event-stream with X-Accel-Buffering: no"),
                ),
                Some(v) => Finding::fail(
                    CheckRule::SseNoBuffering,
                    format!("listen {id}: the SSE response has X-Accel-Buffering: {v}, not no"),
                ),
                None => Finding::fail(
                    CheckRule::SseNoBuffering,
                    format!("listen {id}: the SSE response has no X-Accel-Buffering: no header"),
                ),
            };
            self.report.add(f.about(id));
        }
    }

    fn sub(&self, id: &RequestId) -> Option<&Subscription> {
        self.v.subscription(id)
    }

    /// Still expecting traffic: opened, not answered, cancelled or ended.
    pub(super) fn is_open(&self, id: &RequestId) -> bool {
        self.sub(id).is_some_and(Subscription::is_open)
    }

    pub(super) fn acked(&self, id: &RequestId) -> bool {
        self.sub(id).is_some_and(|s| s.acked.is_some())
    }

    /// Waits for every listen's acknowledgement at once: one deadline for all, `--timeout`
    /// from when they were sent. A listen answered without an ack was refused.
    pub(super) async fn await_acks(&mut self, listens: &[Listen]) {
        let t = self.cfg.timeout;
        let settled = |p: &Self, id: &RequestId| {
            p.sub(id)
                .is_none_or(|s| s.acked.is_some() || s.answered || s.ended)
        };
        let deadline = Instant::now() + t;
        self.pump_until(deadline, |p| listens.iter().all(|(id, _)| settled(p, id)))
            .await;
        for (id, label) in listens {
            // The validator judges only the ones still waiting.
            self.observe(&Observation::AckTimeout {
                id: id.clone(),
                waited: t,
            });
            let refused = self
                .sub(id)
                .is_some_and(|s| s.answered && s.acked.is_none() && !s.early);
            if refused {
                let what = self
                    .refusals
                    .get(id)
                    .cloned()
                    .unwrap_or_else(|| "an error".to_owned());
                let f = Finding::fail(
                    CheckRule::AckFirst,
                    format!(
                        "listen {id} ({label}) was answered with {what} and no acknowledgement"
                    ),
                );
                self.report.add(f.about(id));
            }
        }
    }

    /// How many `m` the subscription `id` received so far.
    pub(super) fn delivered(&self, id: &RequestId, m: &str) -> usize {
        self.sub(id).map_or(0, |s| {
            s.delivered.iter().filter(|d| d.as_str() == m).count()
        })
    }

    /// Whether the acknowledgement of `id` granted the notification `m`.
    fn granted(&self, id: &RequestId, m: &str) -> bool {
        let Some(acked) = self.sub(id).and_then(|s| s.acked.as_ref()) else {
            return false;
        };
        match NotificationKind::from_method(m) {
            Some(NotificationKind::ResourceUpdated) => !acked.uris().is_empty(),
            Some(k) => acked.wants(k, None),
            None => false,
        }
    }

    /// Calls `tool` with `args` and judges the change it causes: each open listen of `want`
    /// that acknowledged `m` must receive it (one deadline for all); no open listen of `dont`
    /// may (whatever arrives within a grace period is judged).
    pub(super) async fn change(
        &mut self,
        (tool, args): (&str, Value),
        m: &str,
        cause: &str,
        want: &[Listen],
        dont: &[Listen],
    ) -> Result<(), String> {
        let count = |p: &Self, ls: &[Listen]| -> Vec<usize> {
            ls.iter().map(|(id, _)| p.delivered(id, m)).collect()
        };
        let (want_before, dont_before) = (count(self, want), count(self, dont));
        self.call_tool(tool, args).await?;
        let mut expected = Vec::new();
        for ((id, label), n) in want.iter().zip(want_before) {
            if !self.is_open(id) {
                continue;
            }
            if self.granted(id, m) {
                expected.push((id, *label, n));
            } else {
                let f = Finding::pass(
                    CheckRule::AckedTypesDelivered,
                    format!("listen {id} ({label}) did not acknowledge {m}, so it is not expected"),
                );
                self.report.add(f.about(id));
            }
        }
        let t = self.cfg.timeout;
        let deadline = Instant::now() + t;
        self.pump_until(deadline, |p| {
            expected.iter().all(|(id, _, n)| p.delivered(id, m) > *n)
        })
        .await;
        for (id, label, n) in &expected {
            let f = if self.delivered(id, m) > *n {
                Finding::pass(
                    CheckRule::AckedTypesDelivered,
                    format!("listen {id} ({label}) received {m} after {cause}"),
                )
            } else {
                Finding::fail(
                    CheckRule::AckedTypesDelivered,
                    format!(
                        "listen {id} ({label}) acknowledged it but received no {m} within {:.1} s of {cause}",
                        t.as_secs_f64()
                    ),
                )
            };
            self.report.add(f.about(id));
        }
        self.watch(self.cfg.grace()).await;
        for ((id, label), n) in dont.iter().zip(dont_before) {
            if self.is_open(id) && self.delivered(id, m) == n {
                let f = Finding::pass(
                    CheckRule::OnlyRequestedTypes,
                    format!(
                        "listen {id} ({label}) did not ask for {m}, and {cause} did not send it one"
                    ),
                );
                self.report.add(f.about(id));
            }
        }
        Ok(())
    }

    /// The client cancel of `id` (HTTP: the stream is closed; stdio: notifications/cancelled).
    /// What arrived before it is judged first: over HTTP the link hands over what the stream
    /// had delivered as it closes it; over stdio what crosses the notification in flight counts
    /// as before it, the race both sides must allow for (CAN §Timing Considerations).
    pub(super) async fn cancel(&mut self, id: &RequestId) -> anyhow::Result<()> {
        self.drain();
        let link = self.link;
        let sent = self.alongside(link.cancel(id)).await;
        self.drain();
        self.observe(&Observation::ClientCancelled { id: id.clone() });
        sent.map(|_| ())
    }

    /// After asking the server to close every subscription: waits (one deadline for all) until
    /// each of `ids` is over, its result in and, over HTTP, its stream ended. The validator
    /// judges graceful-close; nothing-after-result passes for each closed one it did not fail.
    pub(super) async fn await_close(&mut self, ids: &[RequestId]) {
        let t = self.cfg.timeout;
        let streams = self.streams();
        let over = |p: &Self, id: &RequestId| {
            p.sub(id)
                .is_none_or(|s| s.cancelled || s.ended || (s.answered && !streams))
        };
        let deadline = Instant::now() + t;
        self.pump_until(deadline, |p| ids.iter().all(|id| over(p, id)))
            .await;
        // stdio: the teardown notifications/cancelled may follow the result; then nothing more.
        self.watch(self.cfg.grace()).await;
        for id in ids {
            self.observe(&Observation::CloseTimeout {
                stream: streams.then(|| id.clone()),
                id: id.clone(),
                waited: t,
            });
            let clean = self
                .sub(id)
                .is_some_and(|s| s.answered && (s.ended || !streams));
            let after = self.report.findings.iter().any(|f| {
                !f.ok
                    && f.rule == CheckRule::NothingAfterResult
                    && f.subscription.as_ref() == Some(id)
            });
            if clean && !after {
                let f = Finding::pass(
                    CheckRule::NothingAfterResult,
                    format!("listen {id}: the result was the last message for it"),
                );
                self.report.add(f.about(id));
            }
        }
    }
}
