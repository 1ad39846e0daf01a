//! The checks over stdio: every subscription on one channel, plus the client cancel (§2).

use super::headers::judge_discover;
use super::*;

struct StdioRun {
    client: StdioClient,
    cfg: Config,
    v: Validator,
    report: Report,
    next_id: i64,
    frames: usize,
    ended: bool,
}

impl StdioRun {
    fn feed(&mut self, ev: &WireEvent) {
        if let Some(e) = ev.to_event(None) {
            if matches!(ev, WireEvent::Frame { .. }) {
                self.frames += 1;
            }
            let fs = self.v.observe(&e);
            self.report.extend(fs);
        }
        if matches!(ev, WireEvent::Ended { .. }) {
            self.ended = true;
        }
    }

    /// Reads the channel until `pred` matches, the channel ends, or `dur` passes.
    async fn pump(&mut self, dur: Duration, pred: impl Fn(&Message) -> bool) -> Option<Message> {
        let deadline = Instant::now() + dur;
        while !self.ended {
            let ev = match tokio::time::timeout_at(deadline, self.client.next()).await {
                Ok(Some(ev)) => ev,
                Ok(None) => {
                    self.ended = true;
                    return None;
                }
                Err(_) => return None,
            };
            self.feed(&ev);
            if let WireEvent::Frame { message, .. } = &ev
                && pred(message)
            {
                return Some(message.clone());
            }
        }
        None
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a request and waits for its response (other traffic is judged meanwhile).
    async fn request(&mut self, method_name: &str, params: Value) -> Result<Message, String> {
        let id = RequestId::Int(self.id());
        let msg = protocol::request(&id, method_name, params);
        self.client.send(&msg).await.map_err(|e| format!("{e:#}"))?;
        let t = self.cfg.timeout;
        // Anything without a method that names our id answers it, even a malformed response.
        self.pump(t, |m| {
            m.claimed_method().is_none() && m.claimed_id().as_ref() == Some(&id)
        })
        .await
        .ok_or_else(|| {
            format!(
                "no response to {method_name} within {:.1} s",
                t.as_secs_f64()
            )
        })
    }

    async fn call_tool(&mut self, name: &str, args: Value) -> Result<(), String> {
        let r = self
            .request(method::TOOLS_CALL, json!({"name": name, "arguments": args}))
            .await?;
        match r.result() {
            Some(_) if !r.is_tool_error() => Ok(()),
            _ => Err(format!(
                "calling {name} got {}",
                reply_summary(None, Some(&r))
            )),
        }
    }

    async fn listen(&mut self, id: RequestId, f: &SubscriptionFilter) -> Result<(), String> {
        let fs = self.v.observe(&Observation::ListenSent {
            id: id.clone(),
            filter: f.clone(),
        });
        self.report.extend(fs);
        self.client
            .listen(&id, f)
            .await
            .map(|_| ())
            .map_err(|e| format!("{e:#}"))
    }

    fn acked(&self, id: &RequestId) -> bool {
        self.v.subscription(id).is_some_and(|s| s.acked.is_some())
    }

    async fn await_acks(&mut self, ids: &[RequestId]) {
        let t = self.cfg.timeout;
        let deadline = Instant::now() + t;
        while !ids.iter().all(|id| self.acked(id)) && Instant::now() < deadline && !self.ended {
            let left = deadline.saturating_duration_since(Instant::now());
            self.pump(left, |m| m.is_method(method::SUBSCRIPTIONS_ACKNOWLEDGED))
                .await;
        }
        for id in ids {
            if !self.acked(id) && !self.ended {
                let fs = self.v.observe(&Observation::AckTimeout {
                    id: id.clone(),
                    waited: t,
                });
                self.report.extend(fs);
            }
        }
    }

    fn delivered(&self, id: &RequestId, m: &str) -> usize {
        self.v
            .subscription(id)
            .map(|s| s.delivered.iter().filter(|d| d.as_str() == m).count())
            .unwrap_or(0)
    }

    /// After a change: `want` subscriptions must each receive `m` (if they acked it).
    async fn expect_delivery(
        &mut self,
        want: &[RequestId],
        before: &[usize],
        m: &str,
        cause: &str,
    ) {
        let t = self.cfg.timeout;
        let deadline = Instant::now() + t;
        let kind = protocol::NotificationKind::from_method(m);
        let expected: Vec<(RequestId, usize)> = want
            .iter()
            .zip(before)
            .filter(|(id, _)| {
                self.v
                    .subscription(id)
                    .and_then(|s| s.acked.as_ref())
                    .is_some_and(|a| match kind {
                        Some(protocol::NotificationKind::ResourceUpdated) => !a.uris().is_empty(),
                        Some(k) => a.wants(k, None),
                        None => false,
                    })
            })
            .map(|(id, n)| (id.clone(), *n))
            .collect();
        while expected.iter().any(|(id, n)| self.delivered(id, m) <= *n)
            && Instant::now() < deadline
            && !self.ended
        {
            let left = deadline.saturating_duration_since(Instant::now());
            self.pump(left, |x| x.is_method(m)).await;
        }
        for (id, n) in &expected {
            self.report.add(if self.delivered(id, m) > *n {
                Finding::pass(
                    CheckRule::AckedTypesDelivered,
                    format!("listen {id} received {m} after {cause}"),
                )
            } else {
                Finding::fail(
                    CheckRule::AckedTypesDelivered,
                    format!(
                        "listen {id} acknowledged it but received no {m} within {:.1} s of {cause}",
                        t.as_secs_f64()
                    ),
                )
            });
        }
    }
}

/// Runs the subscription checks against a server spawned as `cmd` over stdio (§2).
pub async fn run_stdio(cmd: &[String], cfg: Config) -> anyhow::Result<Report> {
    let (program, args) = cmd
        .split_first()
        .ok_or_else(|| anyhow::anyhow!("--stdio needs the server command after `--`"))?;
    // `mcp-tutor` means this very binary, so the README's example works from a clone before
    // `cargo install` puts one on PATH.
    let program = if program == "mcp-tutor" {
        std::env::current_exe().map_or_else(|_| program.into(), |p| p.into_os_string())
    } else {
        program.into()
    };
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let client = StdioClient::spawn(command)?;
    let alarm = client.alarm().clone();
    tokio::select! {
        biased;
        flood = alarm.raised() => Err(flood.into()),
        report = stdio_checks(cmd, client, cfg) => report,
    }
}

async fn stdio_checks(cmd: &[String], client: StdioClient, cfg: Config) -> anyhow::Result<Report> {
    let mut run = StdioRun {
        client,
        cfg,
        v: Validator::new(),
        report: Report::new(format!("stdio: {}", cmd.join(" "))),
        next_id: 1000,
        frames: 0,
        ended: false,
    };
    for rule in CheckRule::all().iter().copied().filter(|r| r.http_only()) {
        run.report.skip(
            rule,
            "HTTP only: stdio has no header layer (STDIO §Request Metadata)",
        );
    }

    match run.request(method::SERVER_DISCOVER, json!({})).await {
        Ok(r) => run.report.add(judge_discover(None, Some(&r))),
        Err(e) => {
            let stderr = run.client.stderr();
            anyhow::bail!(
                "server/discover over stdio failed: {e}{}",
                if stderr.is_empty() {
                    String::new()
                } else {
                    format!("\nserver stderr:\n{stderr}")
                }
            );
        }
    }

    let mut tools = None;
    let mut tools_error = String::new();
    match run.request(method::TOOLS_LIST, json!({})).await {
        Ok(r) => match r.result() {
            Some(_) => tools = Some(r.listed_names("tools", "name")),
            None => tools_error = reply_summary(None, Some(&r)),
        },
        Err(e) => tools_error = e,
    }
    let resource = match run.request(method::RESOURCES_LIST, json!({})).await {
        Ok(r) => r.listed_names("resources", "uri").into_iter().next(),
        Err(_) => None,
    };
    let cat = Catalogue {
        tools,
        tools_error,
        resource,
    };

    let a = RequestId::from("mcp-tutor-check-a");
    let b = RequestId::Int(7301);
    let c = RequestId::from("mcp-tutor-check-c");
    let d = RequestId::from("mcp-tutor-check-d");
    let mut opened = Vec::new();
    let mut listens = vec![
        (a.clone(), filter(true, true, &[])),
        (b.clone(), filter(true, false, &[])),
        (c.clone(), filter(false, true, &[])),
    ];
    if let Some(uri) = &cat.resource {
        listens.push((d.clone(), filter(false, false, &[uri, BOGUS_URI])));
    }
    for (id, f) in listens {
        match run.listen(id.clone(), &f).await {
            Ok(()) => opened.push(id),
            Err(e) => anyhow::bail!("could not write the listen request: {e}"),
        }
    }
    run.await_acks(&opened).await;
    let cfg = run.cfg.clone();
    let grace = cfg.grace();
    let count = |run: &StdioRun, m: &str| -> Vec<usize> {
        [&a, &b, &c].iter().map(|id| run.delivered(id, m)).collect()
    };
    let tool_trigger = trigger(&cat, &cfg.tool_change, "--change-tool");
    let mut tools_changed = None;
    match &tool_trigger {
        Ok(tool) => {
            let before = count(&run, method::TOOLS_LIST_CHANGED);
            match run.call_tool(tool, json!({})).await {
                Ok(()) => {
                    run.expect_delivery(
                        &[a.clone(), b.clone()],
                        &before[..2],
                        method::TOOLS_LIST_CHANGED,
                        &format!("calling {tool}"),
                    )
                    .await;
                    run.pump(grace, |_| false).await;
                    tools_changed = Some(method::TOOLS_LIST_CHANGED);
                    if run.delivered(&c, method::TOOLS_LIST_CHANGED) == 0 {
                        run.report.add(Finding::pass(
                        CheckRule::OnlyRequestedTypes,
                        format!("listen {c} (prompts only) got no tools/list_changed after calling {tool}"),
                    ));
                    }
                }
                Err(e) => skip_delivery(&mut run.report, &e),
            }
        }
        Err(e) => skip_delivery(&mut run.report, e),
    }
    judge_concurrency(&mut run.report, &run.v, &a, &b, tools_changed);
    match trigger(&cat, &cfg.prompt_change, "--prompt-change-tool") {
        Ok(tool) => {
            let before = count(&run, method::PROMPTS_LIST_CHANGED);
            match run.call_tool(tool, json!({})).await {
                Ok(()) => {
                    run.expect_delivery(
                        &[a.clone(), c.clone()],
                        &[before[0], before[2]],
                        method::PROMPTS_LIST_CHANGED,
                        &format!("calling {tool}"),
                    )
                    .await;
                    run.pump(grace, |_| false).await;
                    if run.delivered(&b, method::PROMPTS_LIST_CHANGED) == 0 {
                        run.report.add(Finding::pass(
                        CheckRule::OnlyRequestedTypes,
                        format!("listen {b} (tools only) got no prompts/list_changed after calling {tool}"),
                    ));
                    }
                }
                Err(e) => skip_delivery(&mut run.report, &e),
            }
        }
        Err(e) => skip_delivery(&mut run.report, &e),
    }
    match (
        &cat.resource,
        trigger(&cat, &cfg.resource_update, "--resource-update-tool"),
    ) {
        (Some(uri), Ok(tool)) => {
            let before = run.delivered(&d, method::RESOURCES_UPDATED);
            match run.call_tool(tool, json!({"uri": uri})).await {
                Ok(()) => {
                    run.expect_delivery(
                        std::slice::from_ref(&d),
                        &[before],
                        method::RESOURCES_UPDATED,
                        &format!("calling {tool} for {uri}"),
                    )
                    .await;
                    run.pump(grace, |_| false).await;
                }
                Err(e) => run.report.skip(CheckRule::UpdatedHasUri, e),
            }
        }
        (None, _) => run.report.skip(
            CheckRule::UpdatedHasUri,
            "resources/list offered no resource to subscribe to",
        ),
        (_, Err(e)) => run.report.skip(CheckRule::UpdatedHasUri, e),
    }

    // Client cancel on stdio: notifications/cancelled, then a change must not reach B.
    match (&tool_trigger, run.acked(&b)) {
        (Ok(tool), true) => {
            // Whatever already arrived was sent before the cancel: judge it first.
            run.pump(Duration::ZERO, |_| false).await;
            let fs = run
                .v
                .observe(&Observation::ClientCancelled { id: b.clone() });
            run.report.extend(fs);
            let sent = run
                .client
                .cancel(&b, Some("mcp-tutor check: client cancel"))
                .await;
            if let Err(e) = sent {
                anyhow::bail!("could not write notifications/cancelled: {e:#}");
            }
            let had = run.report.has_failure(CheckRule::NothingAfterCancel);
            let before = count(&run, method::TOOLS_LIST_CHANGED);
            match run.call_tool(tool, json!({})).await {
                Ok(()) => {
                    run.expect_delivery(
                        std::slice::from_ref(&a),
                        &before[..1],
                        method::TOOLS_LIST_CHANGED,
                        &format!("calling {tool} again"),
                    )
                    .await;
                    run.pump(grace, |_| false).await;
                    if !had && !run.report.has_failure(CheckRule::NothingAfterCancel) {
                        run.report.add(Finding::pass(
                            CheckRule::NothingAfterCancel,
                            format!("after notifications/cancelled for {b}, calling {tool} sent nothing for it"),
                        ));
                    }
                }
                Err(e) => run.report.skip(CheckRule::NothingAfterCancel, e),
            }
        }
        (Err(e), _) => run.report.skip(CheckRule::NothingAfterCancel, e.clone()),
        (Ok(_), false) => run.report.skip(
            CheckRule::NothingAfterCancel,
            format!("listen {b} was never acknowledged"),
        ),
    }

    match trigger(&cat, &cfg.close, "--close-tool") {
        Ok(tool) => match run.call_tool(tool, json!({})).await {
            Ok(()) => {
                let t = cfg.timeout;
                let deadline = Instant::now() + t;
                let open: Vec<RequestId> = [&a, &c, &d]
                    .into_iter()
                    .filter(|id| run.v.subscription(id).is_some_and(|s| s.acked.is_some()))
                    .cloned()
                    .collect();
                let answered = |run: &StdioRun| {
                    open.iter()
                        .all(|id| run.v.subscription(id).is_some_and(|s| s.answered))
                };
                while !answered(&run) && Instant::now() < deadline && !run.ended {
                    let left = deadline.saturating_duration_since(Instant::now());
                    run.pump(left, |m| m.result().is_some()).await;
                }
                // The teardown notifications/cancelled may follow; then nothing more.
                run.pump(grace, |_| false).await;
                for id in &open {
                    let s = run.v.subscription(id).cloned();
                    if s.as_ref().is_some_and(|s| s.answered) {
                        if !run.report.findings.iter().any(|f| {
                            !f.ok
                                && f.rule == CheckRule::NothingAfterResult
                                && f.subscription.as_ref() == Some(id)
                        }) {
                            run.report.add(Finding::pass(
                                CheckRule::NothingAfterResult,
                                format!("listen {id}: nothing but an optional notifications/cancelled followed the result"),
                            ));
                        }
                        run.report.add(Finding::pass(
                            CheckRule::GracefulClose,
                            format!("listen {id} ended with its result after calling {tool}"),
                        ));
                    } else {
                        run.report.add(Finding::fail(
                            CheckRule::GracefulClose,
                            format!("listen {id} got no result within {:.1} s of calling {tool} (the result is a SHOULD)", t.as_secs_f64()),
                        ));
                    }
                }
            }
            Err(e) => skip_close(&mut run.report, &e),
        },
        Err(e) => skip_close(&mut run.report, &e),
    }

    no_result_skips(&mut run.report);
    // Polite shutdown; whatever is still open is the client's to cancel, not an abrupt end.
    for id in [&a, &c, &d] {
        if run.v.subscription(id).is_some_and(|s| s.is_open()) {
            let fs = run
                .v
                .observe(&Observation::ClientCancelled { id: id.clone() });
            run.report.extend(fs);
        }
    }
    let frames = run.frames;
    let mut report = run.report;
    judge_watch_rules(&mut report, frames, opened.len());
    run.client.close(Duration::from_secs(2)).await.ok();
    Ok(report)
}
