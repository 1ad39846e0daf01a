//! The checks over Streamable HTTP: one listen stream per subscription.

use super::headers::{header_checks, judge_discover};
use super::*;

struct Open {
    id: RequestId,
    label: &'static str,
    stream: Option<ListenStream>,
    acked: bool,
    answered: bool,
    ended: bool,
    /// Messages after the closing result (anything at all).
    after_result: usize,
}

struct HttpRun {
    client: HttpClient,
    cfg: Config,
    v: Validator,
    report: Report,
    next_id: i64,
    frames: usize,
}

impl HttpRun {
    fn feed(&mut self, id: &RequestId, ev: &WireEvent) {
        if let Some(e) = ev.to_event(Some(id)) {
            if matches!(ev, WireEvent::Frame { .. }) {
                self.frames += 1;
            }
            let fs = self.v.observe(&e);
            self.report.extend(fs);
        }
    }

    /// Reads `open`'s stream until `pred` matches a message, the stream ends, or `dur` passes.
    async fn pump(
        &mut self,
        open: &mut Open,
        dur: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> bool {
        let deadline = Instant::now() + dur;
        loop {
            let Some(stream) = open.stream.as_mut() else {
                return false;
            };
            let ev = match tokio::time::timeout_at(deadline, stream.next()).await {
                Ok(Some(ev)) => ev,
                Ok(None) => {
                    open.stream = None;
                    open.ended = true;
                    return false;
                }
                Err(_) => return false,
            };
            self.feed(&open.id.clone(), &ev);
            match &ev {
                WireEvent::Frame { message, .. } => {
                    if open.answered {
                        open.after_result += 1;
                    }
                    if message.is_method(method::SUBSCRIPTIONS_ACKNOWLEDGED) {
                        open.acked = true;
                    }
                    if message.is_response() {
                        open.answered = true;
                    }
                    if pred(message) {
                        return true;
                    }
                }
                WireEvent::Ended { .. } => {
                    open.stream = None;
                    open.ended = true;
                    return false;
                }
                _ => {}
            }
        }
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    async fn open(&mut self, id: RequestId, label: &'static str, f: &SubscriptionFilter) -> Open {
        let fs = self.v.observe(&Observation::ListenSent {
            id: id.clone(),
            filter: f.clone(),
        });
        self.report.extend(fs);
        let mut open = Open {
            id: id.clone(),
            label,
            stream: None,
            acked: false,
            answered: false,
            ended: false,
            after_result: 0,
        };
        match self.client.listen(&id, f).await {
            Ok(s) => {
                if !s.response.is_sse() {
                    // A JSON reply to listen is a refusal (or a broken server); its body is
                    // fed like any frame so the validator sees it.
                    let status = s.response.status;
                    open.stream = Some(s);
                    self.pump(&mut open, self.cfg.timeout, |_| false).await;
                    if !open.acked {
                        self.report.add(
                            Finding::fail(
                                CheckRule::AckFirst,
                                format!("listen {id} ({label}) was answered with HTTP {status} and no event stream, so no acknowledgement"),
                            ),
                        );
                    }
                    return open;
                }
                let buffering = s.response.header(header::X_ACCEL_BUFFERING);
                self.report.add(match buffering {
                    Some(v) if v.trim().eq_ignore_ascii_case("no") => Finding::pass(
                        CheckRule::SseNoBuffering,
                        format!("listen {id}: text/event-stream with X-Accel-Buffering: no"),
                    ),
                    other => Finding::fail(
                        CheckRule::SseNoBuffering,
                        format!(
                            "listen {id}: the SSE response has {}",
                            match other {
                                Some(v) => format!("X-Accel-Buffering: {v}, not no"),
                                None => "no X-Accel-Buffering: no header".to_owned(),
                            }
                        ),
                    ),
                });
                open.stream = Some(s);
            }
            Err(e) => {
                self.report.add(Finding::fail(
                    CheckRule::AckFirst,
                    format!("listen {id} ({label}) did not open: {e:#}"),
                ));
                open.ended = true;
            }
        }
        open
    }

    async fn await_ack(&mut self, open: &mut Open) {
        if open.stream.is_none() || open.acked {
            return;
        }
        let t = self.cfg.timeout;
        let got = self
            .pump(open, t, |m| m.is_method(method::SUBSCRIPTIONS_ACKNOWLEDGED))
            .await;
        if !got && !open.ended {
            let fs = self.v.observe(&Observation::AckTimeout {
                id: open.id.clone(),
                waited: t,
            });
            self.report.extend(fs);
        }
    }

    async fn call_tool(&mut self, name: &str, args: Value) -> Result<(), String> {
        let id = self.id();
        let msg = protocol::tool_call(&RequestId::Int(id), name, args);
        match self.client.send(&msg).await {
            Ok(ex) => match ex.reply() {
                Some(r @ Message::Result { result, .. }) => {
                    if r.is_tool_error() {
                        Err(format!("{name} reported isError: {result}"))
                    } else {
                        Ok(())
                    }
                }
                other => Err(format!(
                    "calling {name} got {}",
                    reply_summary(Some(ex.response.status), other)
                )),
            },
            Err(e) => Err(format!("calling {name}: {e:#}")),
        }
    }

    async fn catalogue(&mut self) -> Catalogue {
        let mut cat = Catalogue::default();
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..20 {
            let id = self.id();
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let msg = protocol::request(&RequestId::Int(id), method::TOOLS_LIST, params);
            match self.client.send(&msg).await {
                Ok(ex) => match ex.reply().filter(|r| r.result().is_some()) {
                    Some(r) => {
                        tools.extend(r.listed_names("tools", "name"));
                        cursor = r.next_cursor().map(str::to_owned);
                        if cursor.is_none() {
                            cat.tools = Some(tools);
                            break;
                        }
                    }
                    None => {
                        cat.tools_error = reply_summary(Some(ex.response.status), ex.reply());
                        break;
                    }
                },
                Err(e) => {
                    cat.tools_error = format!("{e:#}");
                    break;
                }
            }
        }
        let id = self.id();
        let msg = protocol::request(&RequestId::Int(id), method::RESOURCES_LIST, json!({}));
        if let Ok(ex) = self.client.send(&msg).await
            && let Some(r) = ex.reply().filter(|r| r.result().is_some())
        {
            cat.resource = r.listed_names("resources", "uri").into_iter().next();
        }
        cat
    }

    /// After a change: `want` streams must receive `m`; `dont` streams must not (grace period).
    async fn expect_delivery(
        &mut self,
        opens: &mut [Open],
        want: &[usize],
        dont: &[usize],
        m: &str,
        cause: &str,
    ) {
        for &i in want {
            let open = &mut opens[i];
            if open.stream.is_none() {
                continue;
            }
            let acked_it = self
                .v
                .subscription(&open.id)
                .and_then(|s| s.acked.as_ref())
                .is_some_and(|a| match protocol::NotificationKind::from_method(m) {
                    Some(protocol::NotificationKind::ResourceUpdated) => !a.uris().is_empty(),
                    Some(k) => a.wants(k, None),
                    None => false,
                });
            if !acked_it {
                self.report.add(Finding::pass(
                    CheckRule::AckedTypesDelivered,
                    format!(
                        "listen {} ({}) did not acknowledge {m}, so it is not expected",
                        open.id, open.label
                    ),
                ));
                continue;
            }
            let t = self.cfg.timeout;
            let got = self.pump(open, t, |msg| msg.is_method(m)).await;
            let (id, label) = (open.id.clone(), open.label);
            self.report.add(if got {
                Finding::pass(CheckRule::AckedTypesDelivered, format!("listen {id} ({label}) received {m} after {cause}"))
            } else {
                Finding::fail(
                    CheckRule::AckedTypesDelivered,
                    format!("listen {id} ({label}) acknowledged it but received no {m} within {:.1} s of {cause}", t.as_secs_f64()),
                )
            });
        }
        // One grace period for all: the streams are read in the background meanwhile, so
        // afterwards whatever arrived is already buffered.
        tokio::time::sleep(self.cfg.grace()).await;
        for &i in dont {
            let open = &mut opens[i];
            if open.stream.is_none() {
                continue;
            }
            let got = self
                .pump(open, Duration::ZERO, |msg| msg.is_method(m))
                .await;
            if !got {
                let (id, label) = (open.id.clone(), open.label);
                self.report.add(Finding::pass(
                    CheckRule::OnlyRequestedTypes,
                    format!(
                        "listen {id} ({label}) did not ask for {m}, and {cause} did not send it one"
                    ),
                ));
            }
        }
    }
}

/// Runs every check against the Streamable HTTP endpoint `url`.
pub async fn run_http(url: &str, cfg: Config) -> anyhow::Result<Report> {
    let client = HttpClient::new(url)?.with_timeout(cfg.timeout);
    let alarm = client.alarm().clone();
    tokio::select! {
        biased;
        flood = alarm.raised() => Err(flood.into()),
        report = http_checks(url, client, cfg) => report,
    }
}

async fn http_checks(url: &str, client: HttpClient, cfg: Config) -> anyhow::Result<Report> {
    let mut run = HttpRun {
        client,
        cfg,
        v: Validator::new(),
        report: Report::new(url),
        next_id: 1000,
        frames: 0,
    };

    // server/discover first: it also proves the server is there at all.
    let discover = protocol::request(&RequestId::Int(1), method::SERVER_DISCOVER, json!({}));
    let ex = run.client.send(&discover).await.map_err(|e| {
        e.context(format!(
            "server/discover to {url} failed; is an MCP 2026-07-28 server listening there?"
        ))
    })?;
    if let Some(why) = crate::check::endpoint::not_mcp(&run.client, &ex).await {
        anyhow::bail!(why);
    }
    run.report
        .add(judge_discover(Some(ex.response.status), ex.reply()));

    header_checks(&run.client, &mut run.report).await;

    let cat = run.catalogue().await;
    listen_scenario_http(&mut run, &cat).await;

    run.report.skip(
        CheckRule::NothingAfterCancel,
        "not observable over HTTP: closing the stream is the cancel, so nothing can arrive after it; `check --stdio` tests it",
    );
    Ok(run.report)
}

async fn listen_scenario_http(run: &mut HttpRun, cat: &Catalogue) {
    let a = run
        .open(
            RequestId::from("mcp-tutor-check-a"),
            "string id, tools+prompts",
            &filter(true, true, &[]),
        )
        .await;
    let b = run
        .open(
            RequestId::Int(7301),
            "integer id, tools only",
            &filter(true, false, &[]),
        )
        .await;
    let c = run
        .open(
            RequestId::from("mcp-tutor-check-c"),
            "prompts only",
            &filter(false, true, &[]),
        )
        .await;
    let mut opens = vec![a, b, c];
    if let Some(uri) = &cat.resource {
        let d = run
            .open(
                RequestId::from("mcp-tutor-check-d"),
                "resource subscription",
                &filter(false, false, &[uri, BOGUS_URI]),
            )
            .await;
        opens.push(d);
    }
    for o in opens.iter_mut() {
        run.await_ack(o).await;
    }
    let cfg = run.cfg.clone();
    let mut changed = None;
    match trigger(cat, &cfg.tool_change, "--change-tool") {
        Ok(tool) => match run.call_tool(tool, json!({})).await {
            Ok(()) => {
                let dont: Vec<usize> = (2..opens.len()).collect();
                run.expect_delivery(
                    &mut opens,
                    &[0, 1],
                    &dont,
                    method::TOOLS_LIST_CHANGED,
                    &format!("calling {tool}"),
                )
                .await;
                changed = Some(method::TOOLS_LIST_CHANGED);
            }
            Err(e) => skip_delivery(&mut run.report, &e),
        },
        Err(e) => skip_delivery(&mut run.report, &e),
    }
    judge_concurrency(&mut run.report, &run.v, &opens[0].id, &opens[1].id, changed);
    match trigger(cat, &cfg.prompt_change, "--prompt-change-tool") {
        Ok(tool) => match run.call_tool(tool, json!({})).await {
            Ok(()) => {
                let mut dont = vec![1];
                dont.extend(3..opens.len());
                run.expect_delivery(
                    &mut opens,
                    &[0, 2],
                    &dont,
                    method::PROMPTS_LIST_CHANGED,
                    &format!("calling {tool}"),
                )
                .await
            }
            Err(e) => skip_delivery(&mut run.report, &e),
        },
        Err(e) => skip_delivery(&mut run.report, &e),
    }
    if let Some(uri) = cat.resource.clone() {
        match trigger(cat, &cfg.resource_update, "--resource-update-tool") {
            Ok(tool) => match run.call_tool(tool, json!({"uri": uri})).await {
                Ok(()) => {
                    run.expect_delivery(
                        &mut opens,
                        &[3],
                        &[0, 1, 2],
                        method::RESOURCES_UPDATED,
                        &format!("calling {tool} for {uri}"),
                    )
                    .await
                }
                Err(e) => run.report.skip(CheckRule::UpdatedHasUri, e),
            },
            Err(e) => run.report.skip(CheckRule::UpdatedHasUri, e),
        }
    } else {
        run.report.skip(
            CheckRule::UpdatedHasUri,
            "resources/list offered no resource to subscribe to",
        );
    }

    // Catch stragglers (a notifications/message after the ack, an unasked type, ...).
    tokio::time::sleep(run.cfg.grace()).await;
    for o in opens.iter_mut() {
        run.pump(o, Duration::ZERO, |_| false).await;
    }

    match trigger(cat, &cfg.close, "--close-tool") {
        Ok(tool) => match run.call_tool(tool, json!({})).await {
            Ok(()) => {
                let t = run.cfg.timeout;
                for o in opens.iter_mut() {
                    if o.stream.is_none() {
                        continue;
                    }
                    // Read to the end of the stream: the result, then the close.
                    run.pump(o, t, |_| false).await;
                    if o.stream.is_some() {
                        let (id, label) = (o.id.clone(), o.label);
                        run.report.add(Finding::fail(
                            CheckRule::GracefulClose,
                            if o.answered {
                                format!("listen {id} ({label}) got its result but the stream stayed open for {:.1} s (the final response SHOULD end the stream)", t.as_secs_f64())
                            } else {
                                format!("listen {id} ({label}) got no result within {:.1} s of calling {tool}", t.as_secs_f64())
                            },
                        ));
                        if let Some(mut s) = o.stream.take() {
                            s.cancel();
                        }
                    } else if o.answered && o.after_result == 0 {
                        run.report.add(Finding::pass(
                            CheckRule::NothingAfterResult,
                            format!(
                                "listen {} ({}): the result was the last message",
                                o.id, o.label
                            ),
                        ));
                    }
                }
            }
            Err(e) => skip_close(&mut run.report, &e),
        },
        Err(e) => skip_close(&mut run.report, &e),
    }
    no_result_skips(&mut run.report);
    for o in opens.iter_mut() {
        if let Some(mut s) = o.stream.take() {
            let left = s.cancel();
            for ev in &left {
                run.feed(&o.id.clone(), ev);
            }
            let fs = run
                .v
                .observe(&Observation::ClientCancelled { id: o.id.clone() });
            run.report.extend(fs);
        }
    }
    judge_watch_rules(&mut run.report, run.frames, opens.len());
}
