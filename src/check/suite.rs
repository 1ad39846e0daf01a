//! The checks `mcp-tutor check` runs, over HTTP ([`run_http`]) or stdio ([`run_stdio`]).
//!
//! Every wait is bounded by `Config::timeout` (or a short grace period when proving that
//! something does *not* arrive), so a misbehaving server can make `check` fail, never hang.
//!
//! The listen scenario, on both transports:
//! - A: string id, tools + prompts; B: integer id, tools only; C: string id, prompts only;
//!   D (when the server lists a resource): that URI plus one that does not exist.
//! - Each must be acknowledged first, tagged with its own id (type included).
//! - A tools change must reach A and B and not C; a prompts change A and C and not B;
//!   a resource update D only.
//! - stdio only: B is cancelled with `notifications/cancelled`; a later change must not reach it.
//! - The close tool must end every open subscription with the exact completion result.

use std::time::Duration;

use mock_server::protocol::{
    self, RequestId, SubscriptionFilter, error_code, header, meta, method,
};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::report::Report;
use crate::client::{HeaderEdits, HttpClient, ListenStream, StdioClient, WireEvent};
use mock_server::validator::{Event, Finding, Rule, Validator};

/// What `check` needs to know about the server under test.
#[derive(Debug, Clone)]
pub struct Config {
    /// Bound on every wait.
    pub timeout: Duration,
    /// Tool that changes the tool list (`None`: skip the checks that need it).
    pub tool_change: Option<String>,
    /// Tool that changes the prompt list.
    pub prompt_change: Option<String>,
    /// Tool that updates a resource (called with `{"uri": …}`).
    pub resource_update: Option<String>,
    /// Tool that ends every open subscription gracefully.
    pub close: Option<String>,
}

impl Config {
    fn grace(&self) -> Duration {
        (self.timeout / 10).clamp(Duration::from_millis(200), Duration::from_secs(1))
    }
}

/// A made-up version no server implements, for the -32022 check.
const BOGUS_VERSION: &str = "2031-01-01";
/// A method nobody implements, for the 404 check.
const BOGUS_METHOD: &str = "mcp-tutor/no-such-method";
/// A resource URI that does not exist, to see the honoured subset leave it out.
const BOGUS_URI: &str = "mcp-tutor-check://no-such-resource";

fn filter(tools: bool, prompts: bool, uris: &[&str]) -> SubscriptionFilter {
    SubscriptionFilter {
        tools_list_changed: tools.then_some(true),
        prompts_list_changed: prompts.then_some(true),
        resources_list_changed: None,
        resource_subscriptions: (!uris.is_empty())
            .then(|| uris.iter().map(|u| (*u).to_owned()).collect()),
    }
}

fn is_method(m: &Value, name: &str) -> bool {
    m.get("method").and_then(Value::as_str) == Some(name)
}

fn reply_summary(status: Option<u16>, reply: Option<&Value>) -> String {
    let status = status.map(|s| format!("HTTP {s}")).unwrap_or_default();
    let body = match reply {
        Some(r) => match (r.get("error"), r.get("result")) {
            (Some(e), _) => format!(
                "error {} {:?}",
                e.get("code").map(Value::to_string).unwrap_or_default(),
                e.get("message").and_then(Value::as_str).unwrap_or("")
            ),
            (None, Some(_)) => "a result".to_owned(),
            _ => "an unexpected message".to_owned(),
        },
        None => "no JSON-RPC body".to_owned(),
    };
    if status.is_empty() {
        body
    } else {
        format!("{status} with {body}")
    }
}

/// Judges `server/discover`'s reply (§5).
fn judge_discover(status: Option<u16>, reply: Option<&Value>) -> Finding {
    let Some(result) = reply.and_then(|r| r.get("result")) else {
        return Finding::fail(
            Rule::Discover,
            format!("server/discover got {}", reply_summary(status, reply)),
        );
    };
    let mut problems = Vec::new();
    match result.get("resultType") {
        Some(Value::String(t)) if t == "complete" => {}
        Some(other) => problems.push(format!("resultType is {other}, not \"complete\"")),
        None => problems.push("resultType is missing (every result MUST carry it)".to_owned()),
    }
    match result.get("supportedVersions").and_then(Value::as_array) {
        Some(vs) if vs.iter().any(|v| v == protocol::PROTOCOL_VERSION) => {}
        Some(vs) => problems.push(format!(
            "supportedVersions {} lacks {}",
            Value::Array(vs.clone()),
            protocol::PROTOCOL_VERSION
        )),
        None => problems.push("supportedVersions is missing".to_owned()),
    }
    let info = result.get("_meta").and_then(|m| m.get(meta::SERVER_INFO));
    match info {
        Some(i) if i.get("name").is_some_and(Value::is_string) && i.get("version").is_some_and(Value::is_string) => {}
        Some(i) => problems.push(format!("_meta serverInfo {i} needs string name and version")),
        None if result.get("serverInfo").is_some() => problems.push(
            "serverInfo is a top-level field; it belongs in result _meta as io.modelcontextprotocol/serverInfo".to_owned(),
        ),
        None => problems.push("result _meta has no io.modelcontextprotocol/serverInfo".to_owned()),
    }
    if problems.is_empty() {
        Finding::pass(
            Rule::Discover,
            format!(
                "resultType complete, supportedVersions include {}, serverInfo {}",
                protocol::PROTOCOL_VERSION,
                info.map(Value::to_string).unwrap_or_default()
            ),
        )
    } else {
        Finding::fail(
            Rule::Discover,
            format!("server/discover: {}", problems.join("; ")),
        )
    }
}

/// Judges a refused request: the expected HTTP status and JSON-RPC code.
fn judge_refusal(
    rule: Rule,
    what: &str,
    got: Result<crate::client::Exchange, anyhow::Error>,
    status: u16,
    code: Option<i64>,
) -> (Finding, Option<Value>) {
    let ex = match got {
        Ok(ex) => ex,
        Err(e) => return (Finding::fail(rule, format!("{what}: {e:#}")), None),
    };
    let got_code = ex.error_code();
    let reply = ex.reply().cloned();
    let ok_status = ex.response.status == status;
    let ok_code = code.is_none_or(|c| got_code == Some(c));
    let want = match code {
        Some(c) => format!(
            "HTTP {status} with {c} ({})",
            error_code::name(c).unwrap_or("error")
        ),
        None => format!("HTTP {status}"),
    };
    let finding = if ok_status && ok_code {
        Finding::pass(rule, format!("{what}: {want}"))
    } else {
        let minted = ex
            .response
            .header(header::MCP_SESSION_ID)
            .map(|sid| {
                format!("; it also minted {}: {sid} (2026-07-28 has no sessions: a server SHOULD never mint one)", header::MCP_SESSION_ID)
            })
            .unwrap_or_default();
        Finding::fail(
            rule,
            format!(
                "{what}: expected {want}, got {}{minted}",
                reply_summary(Some(ex.response.status), reply.as_ref())
            ),
        )
    };
    (finding, reply)
}

fn tools_list_request(id: i64) -> Value {
    protocol::request(&RequestId::Int(id), method::TOOLS_LIST, json!({}))
}

/// The header, version, `_meta`, method and GET checks (§1.3). HTTP only.
async fn header_checks(client: &HttpClient, report: &mut Report) {
    let probe = tools_list_request(901);
    let (f, _) = judge_refusal(
        Rule::HeaderMethodMissing,
        "tools/list without Mcp-Method",
        client
            .send_with(&probe, &HeaderEdits::new().omit(header::MCP_METHOD))
            .await,
        400,
        Some(error_code::HEADER_MISMATCH),
    );
    report.add(f);

    let probe = tools_list_request(902);
    let (f, _) = judge_refusal(
        Rule::HeaderMethodMismatch,
        "tools/list with Mcp-Method: prompts/list",
        client
            .send_with(
                &probe,
                &HeaderEdits::new().set(header::MCP_METHOD, method::PROMPTS_LIST),
            )
            .await,
        400,
        Some(error_code::HEADER_MISMATCH),
    );
    report.add(f);

    let probe = tools_list_request(903);
    let (mut f, _) = judge_refusal(
        Rule::HeaderVersionMissing,
        "tools/list without MCP-Protocol-Version",
        client
            .send_with(
                &probe,
                &HeaderEdits::new().omit(header::MCP_PROTOCOL_VERSION),
            )
            .await,
        400,
        Some(error_code::HEADER_MISMATCH),
    );
    if !f.ok {
        f.detail.push_str(" (only a server that still serves pre-2025-06-18 clients MAY assume 2025-03-26; any other MUST reject)");
    }
    report.add(f);

    // A 2025 revision in the header, 2026-07-28 in the body: a mismatch, whatever else the server
    // speaks.
    let probe = tools_list_request(907);
    let (f, _) = judge_refusal(
        Rule::HeaderVersionMismatch,
        "tools/list with MCP-Protocol-Version: 2025-06-18 but 2026-07-28 in _meta",
        client
            .send_with(
                &probe,
                &HeaderEdits::new().set(header::MCP_PROTOCOL_VERSION, "2025-06-18"),
            )
            .await,
        400,
        Some(error_code::HEADER_MISMATCH),
    );
    report.add(f);

    let mut probe = tools_list_request(904);
    probe["params"]["_meta"][meta::PROTOCOL_VERSION] = json!(BOGUS_VERSION);
    let (mut f, reply) = judge_refusal(
        Rule::UnsupportedVersion,
        &format!("tools/list at version {BOGUS_VERSION} (header and body agree)"),
        client.send(&probe).await,
        400,
        Some(error_code::UNSUPPORTED_PROTOCOL_VERSION),
    );
    if f.ok {
        let data = reply
            .as_ref()
            .and_then(|r| r.get("error"))
            .and_then(|e| e.get("data"));
        let supported = data.and_then(|d| d.get("supported"));
        let requested = data.and_then(|d| d.get("requested"));
        let mut problems = Vec::new();
        match supported.and_then(Value::as_array) {
            Some(a) if !a.is_empty() && a.iter().all(Value::is_string) => {}
            _ => problems.push(format!(
                "data.supported should be a list of versions, got {}",
                supported
                    .map(Value::to_string)
                    .unwrap_or_else(|| "nothing".into())
            )),
        }
        if requested != Some(&json!(BOGUS_VERSION)) {
            problems.push(format!(
                "data.requested should be \"{BOGUS_VERSION}\", got {}",
                requested
                    .map(Value::to_string)
                    .unwrap_or_else(|| "nothing".into())
            ));
        }
        if !problems.is_empty() {
            f = Finding::fail(Rule::UnsupportedVersion, problems.join("; "));
        } else {
            f.detail = format!(
                "{}; data.supported {}, data.requested \"{BOGUS_VERSION}\"",
                f.detail,
                supported.map(Value::to_string).unwrap_or_default()
            );
        }
    }
    report.add(f);

    // _meta present (its version matches the header) but the REQUIRED clientCapabilities missing:
    // unambiguously a _meta failure, not a header mismatch.
    let mut probe = tools_list_request(905);
    if let Some(m) = probe["params"]["_meta"].as_object_mut() {
        m.remove(meta::CLIENT_CAPABILITIES);
    }
    let (f, _) = judge_refusal(
        Rule::MissingMeta,
        "tools/list whose _meta lacks io.modelcontextprotocol/clientCapabilities",
        client.send(&probe).await,
        400,
        Some(error_code::INVALID_PARAMS),
    );
    report.add(f);

    let probe = protocol::request(&RequestId::Int(906), BOGUS_METHOD, json!({}));
    let (f, _) = judge_refusal(
        Rule::UnknownMethod,
        &format!("{BOGUS_METHOD} (an unknown method)"),
        client.send(&probe).await,
        404,
        Some(error_code::METHOD_NOT_FOUND),
    );
    report.add(f);

    // A browser page on another site reaching a local server: the Origin a DNS-rebinding attack
    // carries.
    let probe = tools_list_request(908);
    let mut headers = crate::client::standard_headers(&probe);
    headers.push((
        "Origin".to_owned(),
        "http://mcp-tutor-check.invalid".to_owned(),
    ));
    let (f, _) = judge_refusal(
        Rule::OriginRejected,
        "tools/list with Origin: http://mcp-tutor-check.invalid",
        client
            .send_raw("POST", Some(probe.to_string()), headers)
            .await,
        403,
        None,
    );
    report.add(f);

    // A modern client's GET/DELETE (version header present): only a legacy client would expect
    // a stream or a session end here.
    for verb in ["GET", "DELETE"] {
        let (f, _) = judge_refusal(
            Rule::GetDeleteNotAllowed,
            &format!("{verb} on the endpoint"),
            client
                .send_raw(
                    verb,
                    None,
                    vec![
                        ("Accept".to_owned(), header::ACCEPT_VALUE.to_owned()),
                        (
                            header::MCP_PROTOCOL_VERSION.to_owned(),
                            protocol::PROTOCOL_VERSION.to_owned(),
                        ),
                    ],
                )
                .await,
            405,
            None,
        );
        report.add(f);
    }
}

/// Tool names and the first resource URI the server lists.
#[derive(Debug, Default)]
struct Catalogue {
    tools: Option<Vec<String>>,
    tools_error: String,
    resource: Option<String>,
}

fn names_in(result: &Value, list: &str, field: &str) -> Vec<String> {
    result
        .get(list)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| t.get(field).and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A trigger tool if configured and offered; otherwise why not.
fn trigger<'a>(cat: &Catalogue, name: &'a Option<String>, option: &str) -> Result<&'a str, String> {
    let Some(name) = name.as_deref().filter(|n| !n.is_empty()) else {
        return Err(format!("no tool given ({option})"));
    };
    match &cat.tools {
        Some(tools) if tools.iter().any(|t| t == name) => Ok(name),
        Some(_) => Err(format!(
            "the server has no tool {name:?} ({option} names the tool that causes it)"
        )),
        None => Err(format!(
            "tools/list failed ({}), so no trigger tool",
            cat.tools_error
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

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
        pred: impl Fn(&Value) -> bool,
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
                    let is_answer = message.get("method").is_none()
                        && (message.get("result").is_some() || message.get("error").is_some());
                    if open.answered {
                        open.after_result += 1;
                    }
                    if is_method(message, method::SUBSCRIPTIONS_ACKNOWLEDGED) {
                        open.acked = true;
                    }
                    if is_answer {
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
        let filter_json = serde_json::to_value(f).unwrap_or(Value::Null);
        let fs = self.v.observe(&Event::ListenSent {
            id: id.clone(),
            filter: filter_json,
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
                                Rule::AckFirst,
                                format!("listen {id} ({label}) was answered with HTTP {status} and no event stream, so no acknowledgement"),
                            ),
                        );
                    }
                    return open;
                }
                let buffering = s.response.header(header::X_ACCEL_BUFFERING);
                self.report.add(match buffering {
                    Some(v) if v.trim().eq_ignore_ascii_case("no") => Finding::pass(
                        Rule::SseNoBuffering,
                        format!("listen {id}: text/event-stream with X-Accel-Buffering: no"),
                    ),
                    other => Finding::fail(
                        Rule::SseNoBuffering,
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
                    Rule::AckFirst,
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
            .pump(open, t, |m| {
                is_method(m, method::SUBSCRIPTIONS_ACKNOWLEDGED)
            })
            .await;
        if !got && !open.ended {
            let fs = self.v.observe(&Event::AckTimeout {
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
                Some(r) if r.get("result").is_some() => {
                    if r["result"].get("isError") == Some(&Value::Bool(true)) {
                        Err(format!("{name} reported isError: {}", r["result"]))
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
                Ok(ex) => match ex.reply().and_then(|r| r.get("result")) {
                    Some(r) => {
                        tools.extend(names_in(r, "tools", "name"));
                        cursor = r
                            .get("nextCursor")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
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
            && let Some(r) = ex.reply().and_then(|r| r.get("result"))
        {
            cat.resource = names_in(r, "resources", "uri").into_iter().next();
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
                    Rule::AckedTypesDelivered,
                    format!(
                        "listen {} ({}) did not acknowledge {m}, so it is not expected",
                        open.id, open.label
                    ),
                ));
                continue;
            }
            let t = self.cfg.timeout;
            let got = self.pump(open, t, |msg| is_method(msg, m)).await;
            let (id, label) = (open.id.clone(), open.label);
            self.report.add(if got {
                Finding::pass(Rule::AckedTypesDelivered, format!("listen {id} ({label}) received {m} after {cause}"))
            } else {
                Finding::fail(
                    Rule::AckedTypesDelivered,
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
                .pump(open, Duration::ZERO, |msg| is_method(msg, m))
                .await;
            if !got {
                let (id, label) = (open.id.clone(), open.label);
                self.report.add(Finding::pass(
                    Rule::OnlyRequestedTypes,
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
    if let Some(why) = super::endpoint::not_mcp(&run.client, &ex).await {
        anyhow::bail!(why);
    }
    run.report
        .add(judge_discover(Some(ex.response.status), ex.reply()));

    header_checks(&run.client, &mut run.report).await;

    let cat = run.catalogue().await;
    listen_scenario_http(&mut run, &cat).await;

    run.report.skip(
        Rule::NothingAfterCancel,
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
                Err(e) => run.report.skip(Rule::UpdatedHasUri, e),
            },
            Err(e) => run.report.skip(Rule::UpdatedHasUri, e),
        }
    } else {
        run.report.skip(
            Rule::UpdatedHasUri,
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
                            Rule::GracefulClose,
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
                            Rule::NothingAfterResult,
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
            let fs = run.v.observe(&Event::ClientCancelled { id: o.id.clone() });
            run.report.extend(fs);
        }
    }
    judge_watch_rules(&mut run.report, run.frames, opens.len());
}

fn skip_delivery(report: &mut Report, why: &str) {
    report.skip(Rule::AckedTypesDelivered, why);
    report.skip(Rule::OnlyRequestedTypes, why);
}

/// When no subscription was closed with a result, the rules about the result were not exercised.
fn no_result_skips(report: &mut Report) {
    if !report.has_findings(Rule::CloseResultShape) {
        let why = "no subscription was closed with a result (see graceful-close)";
        report.skip(Rule::CloseResultShape, why);
        report.skip(Rule::NothingAfterResult, why);
    }
}

fn skip_close(report: &mut Report, why: &str) {
    report.skip(Rule::CloseResultShape, why);
    report.skip(Rule::NothingAfterResult, why);
    report.skip(Rule::GracefulClose, why);
}

/// Two subscriptions open at once (§4.7): each acknowledged, and (when a change was caused)
/// each delivered it. Tag values are [`Rule::TagMatchesId`]'s business, not judged twice here.
fn judge_concurrency(
    report: &mut Report,
    v: &Validator,
    a: &RequestId,
    b: &RequestId,
    change: Option<&str>,
) {
    let acked = |id: &RequestId| v.subscription(id).is_some_and(|s| s.acked.is_some());
    let got = |id: &RequestId, m: &str| {
        v.subscription(id)
            .is_some_and(|s| s.delivered.iter().any(|d| d == m))
    };
    let f = match (acked(a), acked(b)) {
        (false, false) => {
            report.skip(
                Rule::ConcurrentStreams,
                format!("neither listen {a} nor {b} was acknowledged (see ack-first)"),
            );
            return;
        }
        (true, false) | (false, true) => {
            let (yes, no) = if acked(a) { (a, b) } else { (b, a) };
            Finding::fail(
                Rule::ConcurrentStreams,
                format!(
                    "with listens {a} and {b} open at once, only {yes} was acknowledged; {no} was not"
                ),
            )
        }
        (true, true) => match change {
            None => Finding::pass(
                Rule::ConcurrentStreams,
                format!("listens {a} and {b} open at once, each acknowledged on its own"),
            ),
            Some(m) => match (got(a, m), got(b, m)) {
                (true, true) => Finding::pass(
                    Rule::ConcurrentStreams,
                    format!(
                        "listens {a} and {b} open at once: each acknowledged, each got its own {m}"
                    ),
                ),
                (false, false) => {
                    report.skip(
                        Rule::ConcurrentStreams,
                        format!("neither {a} nor {b} received {m} (see acked-types-delivered)"),
                    );
                    return;
                }
                (ga, _) => {
                    let (yes, no) = if ga { (a, b) } else { (b, a) };
                    Finding::fail(
                        Rule::ConcurrentStreams,
                        format!(
                            "with listens {a} and {b} open at once, the change reached {yes} but not {no}"
                        ),
                    )
                }
            },
        },
    };
    report.add(f);
}

/// Rules judged by watching: no failure after watching real traffic is a pass.
fn judge_watch_rules(report: &mut Report, frames: usize, streams: usize) {
    if frames == 0 {
        return;
    }
    for (rule, what) in [
        (Rule::WellFormed, "every frame was one JSON-RPC message"),
        (
            Rule::NoProgressOrMessage,
            "no progress or message notification on a listen stream",
        ),
        (Rule::NoServerRequests, "no server-sent request"),
    ] {
        if !report.has_failure(rule) {
            report.add(Finding::pass(
                rule,
                format!("{what} ({frames} frames on {streams} subscriptions)"),
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------------------------

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
    async fn pump(&mut self, dur: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
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
    async fn request(&mut self, method_name: &str, params: Value) -> Result<Value, String> {
        let id = RequestId::Int(self.id());
        let msg = protocol::request(&id, method_name, params);
        self.client.send(&msg).await.map_err(|e| format!("{e:#}"))?;
        let want = id.to_value();
        let t = self.cfg.timeout;
        self.pump(t, |m| {
            m.get("id") == Some(&want) && m.get("method").is_none()
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
        match r.get("result") {
            Some(res) if res.get("isError") != Some(&Value::Bool(true)) => Ok(()),
            _ => Err(format!(
                "calling {name} got {}",
                reply_summary(None, Some(&r))
            )),
        }
    }

    async fn listen(&mut self, id: RequestId, f: &SubscriptionFilter) -> Result<(), String> {
        let fs = self.v.observe(&Event::ListenSent {
            id: id.clone(),
            filter: serde_json::to_value(f).unwrap_or(Value::Null),
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
            self.pump(left, |m| is_method(m, method::SUBSCRIPTIONS_ACKNOWLEDGED))
                .await;
        }
        for id in ids {
            if !self.acked(id) && !self.ended {
                let fs = self.v.observe(&Event::AckTimeout {
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
            self.pump(left, |x| is_method(x, m)).await;
        }
        for (id, n) in &expected {
            self.report.add(if self.delivered(id, m) > *n {
                Finding::pass(
                    Rule::AckedTypesDelivered,
                    format!("listen {id} received {m} after {cause}"),
                )
            } else {
                Finding::fail(
                    Rule::AckedTypesDelivered,
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
    for rule in Rule::ALL.into_iter().filter(|r| r.http_only()) {
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
        Ok(r) => match r.get("result") {
            Some(res) => tools = Some(names_in(res, "tools", "name")),
            None => tools_error = reply_summary(None, Some(&r)),
        },
        Err(e) => tools_error = e,
    }
    let resource = match run.request(method::RESOURCES_LIST, json!({})).await {
        Ok(r) => r
            .get("result")
            .and_then(|res| names_in(res, "resources", "uri").into_iter().next()),
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
                        Rule::OnlyRequestedTypes,
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
                        Rule::OnlyRequestedTypes,
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
                Err(e) => run.report.skip(Rule::UpdatedHasUri, e),
            }
        }
        (None, _) => run.report.skip(
            Rule::UpdatedHasUri,
            "resources/list offered no resource to subscribe to",
        ),
        (_, Err(e)) => run.report.skip(Rule::UpdatedHasUri, e),
    }

    // Client cancel on stdio: notifications/cancelled, then a change must not reach B.
    match (&tool_trigger, run.acked(&b)) {
        (Ok(tool), true) => {
            // Whatever already arrived was sent before the cancel: judge it first.
            run.pump(Duration::ZERO, |_| false).await;
            let fs = run.v.observe(&Event::ClientCancelled { id: b.clone() });
            run.report.extend(fs);
            let sent = run
                .client
                .cancel(&b, Some("mcp-tutor check: client cancel"))
                .await;
            if let Err(e) = sent {
                anyhow::bail!("could not write notifications/cancelled: {e:#}");
            }
            let had = run.report.has_failure(Rule::NothingAfterCancel);
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
                    if !had && !run.report.has_failure(Rule::NothingAfterCancel) {
                        run.report.add(Finding::pass(
                            Rule::NothingAfterCancel,
                            format!("after notifications/cancelled for {b}, calling {tool} sent nothing for it"),
                        ));
                    }
                }
                Err(e) => run.report.skip(Rule::NothingAfterCancel, e),
            }
        }
        (Err(e), _) => run.report.skip(Rule::NothingAfterCancel, e.clone()),
        (Ok(_), false) => run.report.skip(
            Rule::NothingAfterCancel,
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
                    run.pump(left, |m| m.get("result").is_some()).await;
                }
                // The teardown notifications/cancelled may follow; then nothing more.
                run.pump(grace, |_| false).await;
                for id in &open {
                    let s = run.v.subscription(id).cloned();
                    if s.as_ref().is_some_and(|s| s.answered) {
                        if !run.report.findings.iter().any(|f| {
                            !f.ok
                                && f.rule == Rule::NothingAfterResult
                                && f.subscription.as_ref() == Some(id)
                        }) {
                            run.report.add(Finding::pass(
                                Rule::NothingAfterResult,
                                format!("listen {id}: nothing but an optional notifications/cancelled followed the result"),
                            ));
                        }
                        run.report.add(Finding::pass(
                            Rule::GracefulClose,
                            format!("listen {id} ended with its result after calling {tool}"),
                        ));
                    } else {
                        run.report.add(Finding::fail(
                            Rule::GracefulClose,
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
            let fs = run.v.observe(&Event::ClientCancelled { id: id.clone() });
            run.report.extend(fs);
        }
    }
    let frames = run.frames;
    let mut report = run.report;
    judge_watch_rules(&mut report, frames, opened.len());
    run.client.close(Duration::from_secs(2)).await.ok();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{Exchange, RawRequest, RawResponse};

    fn reply(status: u16, body: Value) -> anyhow::Result<Exchange> {
        Ok(Exchange {
            request: RawRequest {
                method: "POST".into(),
                url: "http://127.0.0.1:1/mcp".into(),
                headers: vec![],
                body: String::new(),
            },
            response: RawResponse {
                status,
                headers: vec![("Mcp-Session-Id".into(), "abc".into())],
            },
            body: body.to_string(),
            events: vec![WireEvent::Frame {
                raw: body.to_string(),
                message: body,
            }],
        })
    }

    #[test]
    fn discover_needs_result_type_versions_and_server_info_in_meta() {
        let good = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {}, "ttlMs": 0, "cacheScope": "public",
            "_meta": {meta::SERVER_INFO: {"name": "s", "version": "1"}}}});
        assert!(judge_discover(Some(200), Some(&good)).ok);
        let old_shape = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "supportedVersions": ["2025-11-25"], "serverInfo": {"name": "s", "version": "1"}}});
        let f = judge_discover(Some(200), Some(&old_shape));
        assert!(!f.ok);
        assert!(f.detail.contains("resultType is missing"), "{}", f.detail);
        assert!(f.detail.contains("lacks 2026-07-28"), "{}", f.detail);
        assert!(f.detail.contains("top-level"), "{}", f.detail);
        let err = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}});
        let f = judge_discover(Some(404), Some(&err));
        assert!(
            !f.ok && f.detail.contains("HTTP 404 with error -32601"),
            "{}",
            f.detail
        );
    }

    #[test]
    fn refusals_need_both_the_status_and_the_code() {
        let e =
            |code: i64| json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m"}});
        let (f, _) = judge_refusal(
            Rule::HeaderMethodMissing,
            "x",
            reply(400, e(-32020)),
            400,
            Some(-32020),
        );
        assert!(f.ok);
        let (f, _) = judge_refusal(
            Rule::HeaderMethodMissing,
            "x",
            reply(400, e(-32600)),
            400,
            Some(-32020),
        );
        assert!(!f.ok);
        assert!(
            f.detail.contains("got HTTP 400 with error -32600"),
            "{}",
            f.detail
        );
        assert!(
            f.detail.contains("minted Mcp-Session-Id: abc"),
            "{}",
            f.detail
        );
        let ok = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}});
        let (f, _) = judge_refusal(Rule::MissingMeta, "x", reply(200, ok), 400, Some(-32602));
        assert!(
            !f.ok && f.detail.contains("HTTP 200 with a result"),
            "{}",
            f.detail
        );
        let (f, _) = judge_refusal(
            Rule::UnknownMethod,
            "x",
            Err(anyhow::anyhow!("no complete reply within 1.0 s")),
            404,
            Some(-32601),
        );
        assert!(!f.ok && f.detail.contains("within 1.0 s"));
    }
}
