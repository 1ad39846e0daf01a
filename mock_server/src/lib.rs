//! The mcp-tutor mock server: MCP 2026-07-28 over Streamable HTTP and stdio, faithful to the
//! subscription rules of `docs/rules.md`, and able to break each of them on demand.
//!
//! # In-process API (what the lab and `mcp-tutor check` build on)
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use mcp_tutor_mock::{Config, Fault, start_http};
//! use mcp_tutor_mock::protocol::{NotificationKind, RequestId};
//!
//! let server = start_http(Config::default()).await?;     // 127.0.0.1, a free port
//! println!("{}", server.url);                            // http://127.0.0.1:PORT/mcp
//! let control = server.control.clone();                  // Clone + Send + Sync
//! control.trigger(NotificationKind::ToolsListChanged, None);
//! control.trigger(NotificationKind::ResourceUpdated, Some("mock://notes/today"));
//! control.set_fault(Fault::Untagged, true);
//! for s in control.subscriptions() { println!("{} {:?}", s.id, s.honoured); }
//! control.close(&RequestId::from("tutor-7"));            // graceful: result, then close
//! control.drop_all();                                    // abrupt: no result
//! server.shutdown().await;                               // every stream ends gracefully
//! # Ok(()) }
//! ```
//!
//! - [`start_http`] → [`RunningServer`] `{ url, addr, control }` and [`RunningServer::shutdown`].
//! - [`start_stdio`] / [`run_stdio`]: the same server over any `AsyncRead`/`AsyncWrite` pair.
//! - [`Control`]: `trigger`, `close`, `close_all`, `drop_all`, `set_fault`, `faults`,
//!   `subscriptions` (→ [`SubscriptionInfo`]), `shutdown`. Works the same for both transports.
//! - [`cli::ServeArgs`] / [`cli::run`]: the `--host/--port/--stdio/--fault` command line shared by
//!   the `mcp-tutor-mock` binary and `mcp-tutor serve`.
//! - [`Fault`]: one per rule, `--fault NAME` names, [`Fault::rule`] and [`Fault::spec`].
//! - [`protocol`]: the ONE place for MCP message types and constants.
//!
//! The catalogue: tools `echo`, `read_note`, `test_trigger_tool_change`,
//! `test_trigger_prompt_change`, `test_trigger_resource_list_change`,
//! `test_trigger_resource_update` (optional `uri`), `test_close_subscriptions`,
//! `test_missing_capability`, `test_streaming_elicitation`, `test_logging_tool`, and on a
//! loopback-bound or stdio server the control tools `test_close_subscription` (`id`),
//! `test_drop_subscriptions`, `test_set_fault` (`name`, `on`), `test_list_faults`,
//! `test_reset_faults` (what the lab's `close ID`, `drop`, `fault` and `reset` send); prompts
//! `explain_rule`, `interview_question`; resources `mock://notes`, `mock://notes/today`,
//! `mock://notes/ideas`, `mock://status`.

mod catalog;
pub mod cli;
mod control;
pub mod fault;
#[doc(hidden)]
pub mod fuzzing;
mod http;
mod hub;
mod methods;
pub mod names;
pub mod protocol;
mod stdio;
pub mod validator;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinHandle;

pub use catalog::{DEFAULT_UPDATE_URI, resource_uris, tool};
pub use fault::{Fault, UnknownFault};
pub use http::MCP_PATH;
pub use hub::{SubscriptionInfo, Transport};
pub use methods::{capabilities, close_result, server_info};
use protocol::{NotificationKind, RequestId};

/// How to run the server.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to bind (HTTP). Default 127.0.0.1: local servers SHOULD bind loopback (§1.3).
    pub host: IpAddr,
    /// Port to bind; 0 picks a free one.
    pub port: u16,
    /// Faults active from the start (they can be switched later with [`Control::set_fault`]).
    pub faults: Vec<Fault>,
    /// Interval of SSE keep-alive comment lines (`:`) on idle listen streams.
    pub keepalive: Duration,
    /// How late the `late-ack` fault sends the acknowledgement.
    pub ack_delay: Duration,
    /// Extra allowed `Origin` values (e.g. `https://tutor.example`, compared by scheme, host
    /// and port); loopback origins are always allowed. Their host names are also accepted in
    /// `Host`.
    pub allowed_origins: Vec<String>,
    /// Sizes and timeouts that keep a misbehaving client from holding the server's memory or
    /// connections.
    pub limits: Limits,
    /// Items per page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list`, the rest behind `nextCursor` (PAGE); `None`: one page.
    pub page_size: Option<usize>,
}

/// The server's bounds against slow, idle, flooding or oversized clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// HTTP: a connection must deliver a complete request head within this time of opening or
    /// of its previous response ending, so this also closes idle keep-alive connections. It
    /// never runs while a response (a listen stream) is being written.
    pub header_timeout: Duration,
    /// HTTP: the whole request body must arrive within this time of its head (else 408).
    pub body_timeout: Duration,
    /// HTTP: open connections at once; a connection beyond this is answered 503.
    pub max_connections: usize,
    /// HTTP: the largest request body (else 413).
    pub max_body_bytes: usize,
    /// stdio: the longest line; the rest of a longer one is discarded and answered -32700.
    pub max_line_bytes: usize,
}

impl Limits {
    pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
    pub const DEFAULT_MAX_BODY_BYTES: usize = 2 << 20;
    pub const DEFAULT_MAX_LINE_BYTES: usize = 8 << 20;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Limits::DEFAULT_HEADER_TIMEOUT,
            body_timeout: Limits::DEFAULT_BODY_TIMEOUT,
            max_connections: http::default_max_connections(),
            max_body_bytes: Limits::DEFAULT_MAX_BODY_BYTES,
            max_line_bytes: Limits::DEFAULT_MAX_LINE_BYTES,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            faults: Vec::new(),
            keepalive: Duration::from_secs(15),
            ack_delay: Duration::from_secs(3),
            allowed_origins: Vec::new(),
            limits: Limits::default(),
            page_size: None,
        }
    }
}

/// Controls a running server from the same process: cause changes, end subscriptions, switch
/// faults, list what is open. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Control {
    hub: Arc<hub::Hub>,
}

impl Control {
    /// Announces a change. List changes go to streams that asked for that list; a resource update
    /// (default URI `mock://notes/today`) changes that resource and goes to streams subscribed to
    /// it or to a parent URI.
    pub fn trigger(&self, kind: NotificationKind, uri: Option<&str>) {
        self.hub.trigger(kind, uri);
    }

    /// Ends every subscription with this id gracefully: the completion result, then close
    /// (on stdio also `notifications/cancelled`). False when none is open.
    pub fn close(&self, id: &RequestId) -> bool {
        self.hub.close(id)
    }

    /// Ends every open subscription gracefully; returns how many.
    pub fn close_all(&self) -> usize {
        self.hub.close_all()
    }

    /// Ends every open subscription abruptly, with no result (transport loss); returns how many.
    pub fn drop_all(&self) -> usize {
        self.hub.drop_all()
    }

    pub fn set_fault(&self, f: Fault, on: bool) {
        self.hub.set_fault(f, on);
    }

    /// The active faults, in [`Fault::all`] order.
    pub fn faults(&self) -> Vec<Fault> {
        self.hub.faults()
    }

    /// Stops the server: every open stream ends gracefully (result first), then serving stops.
    pub fn shutdown(&self) {
        self.hub.shutdown.cancel();
    }

    /// The open subscriptions, oldest first.
    pub fn subscriptions(&self) -> Vec<SubscriptionInfo> {
        self.hub.subscriptions()
    }
}

/// A server started by [`start_http`].
pub struct RunningServer {
    /// The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    pub addr: SocketAddr,
    pub control: Control,
    task: JoinHandle<std::io::Result<()>>,
}

impl RunningServer {
    /// Ends every open stream gracefully (result first, then close) and stops serving. Returns
    /// within about a second even if a client holds a connection open.
    pub async fn shutdown(self) {
        self.control.hub.shutdown.cancel();
        let mut task = self.task;
        if tokio::time::timeout(Duration::from_secs(1), &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
    }

    /// Waits until the server stops: after [`Control::shutdown`] on a clone of `control` (open
    /// streams end gracefully first), or on an I/O error.
    pub async fn wait(self) -> anyhow::Result<()> {
        self.task.await?.context("the HTTP server failed")
    }
}

/// Starts the Streamable HTTP server on `config.host:config.port`, endpoint [`MCP_PATH`].
pub async fn start_http(config: Config) -> anyhow::Result<RunningServer> {
    let guard = http::Guard::new(&config.allowed_origins, config.host.is_loopback())
        .map_err(anyhow::Error::msg)?;
    let listener = tokio::net::TcpListener::bind((config.host, config.port))
        .await
        .with_context(|| {
            format!(
                "cannot listen on {}:{} (is the port in use? try --port 0 for a free one)",
                config.host, config.port
            )
        })?;
    let addr = listener.local_addr()?;
    let hub = hub::Hub::new(&config.faults, config.ack_delay, config.keepalive);
    // Control tools break the server on request: only for clients on this machine.
    hub.set_control_tools(config.host.is_loopback());
    hub.set_page_size(config.page_size);
    let app = http::App {
        hub: hub.clone(),
        guard: Arc::new(guard),
        limits: config.limits,
    };
    let shown = if addr.ip().is_unspecified() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
    } else {
        addr
    };
    let token = hub.shutdown.clone();
    let streams = http::StreamsThread::start().context("starting the listen streams' thread")?;
    let task = tokio::spawn(http::serve(
        listener,
        http::router(app),
        config.limits,
        token,
        streams,
    ));
    Ok(RunningServer {
        url: format!("http://{shown}{MCP_PATH}"),
        addr,
        control: Control { hub },
        task,
    })
}

/// A server started by [`start_stdio`].
pub struct RunningStdio {
    pub control: Control,
    task: JoinHandle<anyhow::Result<()>>,
}

impl RunningStdio {
    /// Ends every open subscription gracefully (result, then `notifications/cancelled`) and
    /// stops reading.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        self.control.hub.shutdown.cancel();
        self.wait().await
    }

    /// Waits until input ends (then subscriptions end gracefully and output is flushed).
    pub async fn wait(self) -> anyhow::Result<()> {
        self.task.await?
    }
}

/// Starts the server over a stdio-like pair (`--stdio`), returning its control.
pub fn start_stdio<R, W>(config: Config, input: R, output: W) -> RunningStdio
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let hub = hub::Hub::new(&config.faults, config.ack_delay, config.keepalive);
    hub.set_page_size(config.page_size);
    let task = tokio::spawn(stdio::serve(
        hub.clone(),
        input,
        output,
        config.limits.max_line_bytes,
    ));
    RunningStdio {
        control: Control { hub },
        task,
    }
}

/// Runs the server over a stdio-like pair until input ends.
pub async fn run_stdio<R, W>(config: Config, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    start_stdio(config, input, output).wait().await
}
