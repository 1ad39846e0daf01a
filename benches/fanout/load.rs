//! The load generator: N listen streams over raw loopback HTTP/1.1, then rounds of changes, with
//! the server's CPU and memory read from `/proc` and each delivery's latency from the client.
//!
//! The client is deliberately thin (a hand-written request, a chunked-body decoder and a line
//! scan, one current-thread runtime) so that it costs the shared machine little and treats every
//! server alike.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use mock_server::protocol::{self, RequestId, SubscriptionFilter};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Notify, Semaphore};

/// Listen requests in flight at once while the streams open.
const OPENING_AT_ONCE: usize = 64;
/// How long a round may take before the run is called failed.
const ROUND_PATIENCE: Duration = Duration::from_secs(120);

/// How the changes of a round are triggered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pacing {
    /// One change at a time, the next once every stream has the last: one event per write.
    Serial,
    /// A round's changes in one pipelined write: streams may send several in one write.
    Burst,
}

impl Pacing {
    pub fn name(self) -> &'static str {
        match self {
            Pacing::Serial => "serial",
            Pacing::Burst => "burst",
        }
    }
}

/// What one server did with one set of streams.
#[derive(Debug, Clone)]
pub struct Report {
    /// Server resident memory per open, idle stream, over its resident memory before.
    pub idle_kib_per_stream: f64,
    /// Microseconds from a listen request written to its ack read.
    pub ack: Percentiles,
    pub deliveries: Vec<(Pacing, Delivery)>,
}

/// Rounds of changes delivered to every stream.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub deliveries: usize,
    pub elapsed: Duration,
    /// Server CPU (user + system, all threads) during the rounds.
    pub server_cpu: Duration,
    /// The system (kernel) part of it (its share as `/proc/PID/stat` counts it).
    pub server_sys: Duration,
    /// Microseconds from a change triggered to its notification read, per stream.
    pub latency: Percentiles,
}

impl Delivery {
    pub fn per_sec(&self) -> f64 {
        self.deliveries as f64 / self.elapsed.as_secs_f64()
    }

    pub fn cpu_us_per_delivery(&self) -> f64 {
        self.server_cpu.as_secs_f64() * 1e6 / self.deliveries as f64
    }

    /// The kernel's share of the server's CPU.
    pub fn sys_share(&self) -> f64 {
        self.server_sys.as_secs_f64() / self.server_cpu.as_secs_f64().max(1e-9)
    }

    /// Server CPU as a share of one core while delivering.
    pub fn cpu_share(&self) -> f64 {
        self.server_cpu.as_secs_f64() / self.elapsed.as_secs_f64()
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Percentiles {
    pub p50: u32,
    pub p99: u32,
}

fn percentiles(mut v: Vec<u32>) -> Percentiles {
    v.sort_unstable();
    let at = |q: f64| {
        v.get(((v.len() as f64 * q) as usize).min(v.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0)
    };
    Percentiles {
        p50: at(0.50),
        p99: at(0.99),
    }
}

/// State shared by the stream readers and the driver.
struct Shared {
    start: Instant,
    /// When change k was triggered, in ns since `start` (0 = not yet).
    triggered: Vec<AtomicU64>,
    delivered: AtomicUsize,
    progress: Notify,
    acks: Mutex<Vec<u32>>,
    latencies: Mutex<Vec<u32>>,
    /// Notifications that did not carry their own stream's tag.
    mistagged: AtomicUsize,
}

/// Opens `streams` listen streams to the server at `addr` (process `pid`), weighs them idle,
/// then for each pacing runs `rounds` rounds of `changes` changes.
pub async fn run(
    addr: SocketAddr,
    pid: u32,
    streams: usize,
    changes: usize,
    rounds: usize,
    pacings: &[Pacing],
) -> anyhow::Result<Report> {
    let total_changes = changes * rounds * pacings.len();
    let shared = Arc::new(Shared {
        start: Instant::now(),
        triggered: (0..total_changes).map(|_| AtomicU64::new(0)).collect(),
        delivered: AtomicUsize::new(0),
        progress: Notify::new(),
        acks: Mutex::new(Vec::with_capacity(streams)),
        latencies: Mutex::new(Vec::with_capacity(streams * changes * rounds)),
        mistagged: AtomicUsize::new(0),
    });
    let mut trigger = Trigger::connect(addr).await?;
    trigger.warm().await?; // the server has answered once before it is weighed
    let rss_before = rss_kib(pid)?;

    let gate = Arc::new(Semaphore::new(OPENING_AT_ONCE));
    let filter: SubscriptionFilter = serde_json::from_value(json!({"toolsListChanged": true}))?;
    let mut readers = tokio::task::JoinSet::new();
    for i in 0..streams {
        let permit = gate.clone().acquire_owned().await?;
        let body = protocol::listen_request(&RequestId::Int(i as i64), &filter).to_string();
        let request = http_request(addr, "subscriptions/listen", None, &body);
        let shared = shared.clone();
        readers.spawn(async move {
            let r = read_stream(addr, i, request, permit, &shared).await;
            if let Err(e) = &r {
                eprintln!("stream {i}: {e:#}");
            }
        });
    }
    // Every ack read (the last permits come back).
    let _all = gate.acquire_many(OPENING_AT_ONCE as u32).await?;
    let acked = shared.acks.lock().map(|a| a.len()).unwrap_or(0);
    if acked != streams {
        bail!("{acked} of {streams} streams were acknowledged");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_kib_per_stream = (rss_kib(pid)? - rss_before) as f64 / streams as f64;

    let mut deliveries = Vec::new();
    let mut next_change = 0;
    for &pacing in pacings {
        let cpu_before = (cpu_ns(pid)?, cpu_ticks(pid)?);
        let began = Instant::now();
        for round in 0..rounds {
            let first = next_change;
            next_change += changes;
            let changes = first..next_change;
            one_round(&mut trigger, &shared, pacing, changes, streams, round).await?;
        }
        let elapsed = began.elapsed();
        let cpu_after = (cpu_ns(pid)?, cpu_ticks(pid)?);
        let ticks = |(user, sys): (u64, u64)| (user + sys) as f64;
        let sys_share = (cpu_after.1.1 - cpu_before.1.1) as f64
            / (ticks(cpu_after.1) - ticks(cpu_before.1)).max(1.0);
        let server_cpu = Duration::from_nanos(cpu_after.0 - cpu_before.0);
        deliveries.push((
            pacing,
            Delivery {
                deliveries: streams * changes * rounds,
                elapsed,
                server_cpu,
                server_sys: server_cpu.mul_f64(sys_share),
                latency: percentiles(take(&shared.latencies)),
            },
        ));
    }
    readers.abort_all();
    let mistagged = shared.mistagged.load(Ordering::Relaxed);
    if mistagged > 0 {
        bail!("{mistagged} notifications carried another stream's tag");
    }
    Ok(Report {
        idle_kib_per_stream,
        ack: percentiles(take(&shared.acks)),
        deliveries,
    })
}

/// One round: the `changes` triggered one at a time (each delivered everywhere before the
/// next) or all at once, then waited for on every stream.
async fn one_round(
    trigger: &mut Trigger,
    shared: &Shared,
    pacing: Pacing,
    changes: std::ops::Range<usize>,
    streams: usize,
    round: usize,
) -> anyhow::Result<()> {
    match pacing {
        Pacing::Serial => {
            for n in changes {
                shared.stamp(n);
                trigger.call_many(n, 1).await?;
                shared.wait_for(streams * (n + 1), round).await?;
            }
        }
        Pacing::Burst => {
            for n in changes.clone() {
                shared.stamp(n);
            }
            trigger.call_many(changes.start, changes.len()).await?;
            shared.wait_for(streams * changes.end, round).await?;
        }
    }
    Ok(())
}

fn take(m: &Mutex<Vec<u32>>) -> Vec<u32> {
    m.lock()
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default()
}

impl Shared {
    fn stamp(&self, n: usize) {
        let at = self.start.elapsed().as_nanos() as u64;
        self.triggered[n].store(at.max(1), Ordering::Release);
    }

    /// Waits until `want` deliveries in all have arrived.
    async fn wait_for(&self, want: usize, round: usize) -> anyhow::Result<()> {
        let deadline = Instant::now() + ROUND_PATIENCE;
        while self.delivered.load(Ordering::Acquire) < want {
            if Instant::now() > deadline {
                bail!(
                    "round {round}: {} of {want} deliveries arrived",
                    self.delivered.load(Ordering::Acquire)
                );
            }
            let _ = tokio::time::timeout(Duration::from_millis(50), self.progress.notified()).await;
        }
        Ok(())
    }
}

fn http_request(addr: SocketAddr, method: &str, name: Option<&str>, body: &str) -> Vec<u8> {
    let name = name
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nMCP-Protocol-Version: {}\r\nMcp-Method: {method}\r\n\
         {name}Content-Length: {}\r\n\r\n{body}",
        protocol::PROTOCOL_VERSION,
        body.len()
    )
    .into_bytes()
}

/// One listen stream: write the request, read the ack (then give the opening permit back), then
/// count each change notification and its latency until aborted.
async fn read_stream(
    addr: SocketAddr,
    i: usize,
    request: Vec<u8>,
    permit: tokio::sync::OwnedSemaphorePermit,
    shared: &Shared,
) -> anyhow::Result<()> {
    let mut tcp = TcpStream::connect(addr).await?;
    let sent = Instant::now();
    tcp.write_all(&request).await?;
    let mut buf = vec![0u8; 4096];
    let mut head = Vec::new();
    let body_start = loop {
        let n = tcp.read(&mut buf).await?;
        if n == 0 {
            bail!("closed before the response head");
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(p) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    if !head.starts_with(b"HTTP/1.1 200") {
        bail!("{}", String::from_utf8_lossy(&head));
    }
    // Every change notification ends with this stream's tag and the closing braces.
    let tag_end = format!("\"{}\":{i}}}}}}}", protocol::meta::SUBSCRIPTION_ID);
    let mut body = Dechunk::default();
    let mut text = Vec::new();
    let mut permit = Some(permit);
    let mut seen = 0usize;
    body.feed(&head[body_start..], &mut text);
    loop {
        let mut start = 0;
        while let Some(nl) = text[start..].iter().position(|b| *b == b'\n') {
            let line = &text[start..start + nl];
            start += nl + 1;
            if !line.starts_with(b"data: ") {
                continue;
            }
            let now = Instant::now();
            if permit.take().is_some() {
                lock(&shared.acks)?.push((now - sent).as_micros() as u32);
                continue;
            }
            if !line.ends_with(tag_end.as_bytes()) {
                shared.mistagged.fetch_add(1, Ordering::Relaxed);
            }
            let at = shared
                .triggered
                .get(seen)
                .map_or(0, |t| t.load(Ordering::Acquire));
            let now_ns = (now - shared.start).as_nanos() as u64;
            lock(&shared.latencies)?.push((now_ns.saturating_sub(at) / 1000) as u32);
            seen += 1;
            shared.delivered.fetch_add(1, Ordering::Release);
            shared.progress.notify_one();
        }
        text.drain(..start);
        let n = tcp.read(&mut buf).await?;
        if n == 0 {
            bail!("stream closed");
        }
        body.feed(&buf[..n], &mut text);
    }
}

fn lock(m: &Mutex<Vec<u32>>) -> anyhow::Result<std::sync::MutexGuard<'_, Vec<u32>>> {
    m.lock().map_err(|_| anyhow::anyhow!("poisoned"))
}

/// A `Transfer-Encoding: chunked` body decoder.
#[derive(Default)]
struct Dechunk {
    state: ChunkState,
    /// The chunk size read so far (in `Size`), or the payload bytes left (in `Data`).
    size: usize,
}

#[derive(Default, PartialEq, Eq)]
enum ChunkState {
    /// The hex digits of a chunk-size line.
    #[default]
    Size,
    /// The rest of a chunk-size line (an extension, the CR).
    SizeLine,
    Data,
    /// The CRLF after a chunk's payload.
    Crlf,
}

impl Dechunk {
    /// Appends the payload bytes of `input` to `out`.
    fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
        while let Some((&b, rest)) = input.split_first() {
            match self.state {
                ChunkState::Data => {
                    let take = self.size.min(input.len());
                    out.extend_from_slice(&input[..take]);
                    input = &input[take..];
                    self.size -= take;
                    if self.size == 0 {
                        self.state = ChunkState::Crlf;
                    }
                    continue;
                }
                ChunkState::Size | ChunkState::SizeLine if b == b'\n' => {
                    self.state = if self.size > 0 {
                        ChunkState::Data
                    } else {
                        ChunkState::Crlf
                    };
                }
                ChunkState::Size => match (b as char).to_digit(16) {
                    Some(d) => self.size = self.size * 16 + d as usize,
                    None => self.state = ChunkState::SizeLine,
                },
                ChunkState::SizeLine => {}
                ChunkState::Crlf if b == b'\n' => self.state = ChunkState::Size,
                ChunkState::Crlf => {}
            }
            input = rest;
        }
    }
}

/// One keep-alive connection that calls `test_trigger_tool_change`.
struct Trigger {
    addr: SocketAddr,
    tcp: TcpStream,
    buf: Vec<u8>,
}

impl Trigger {
    async fn connect(addr: SocketAddr) -> anyhow::Result<Trigger> {
        let tcp = TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        Ok(Trigger {
            addr,
            tcp,
            buf: Vec::new(),
        })
    }

    /// One `tools/list`, answered.
    async fn warm(&mut self) -> anyhow::Result<()> {
        let id = RequestId::from("warm");
        let body = protocol::request(&id, protocol::method::TOOLS_LIST, json!({})).to_string();
        let request = http_request(self.addr, protocol::method::TOOLS_LIST, None, &body);
        self.tcp.write_all(&request).await?;
        self.answers(1).await
    }

    /// Calls the trigger tool `count` times in one pipelined write, and reads every answer.
    async fn call_many(&mut self, first: usize, count: usize) -> anyhow::Result<()> {
        let mut requests = Vec::new();
        for n in first..first + count {
            let id = RequestId::Str(format!("t-{n}"));
            let body = protocol::tool_call(&id, "test_trigger_tool_change", json!({})).to_string();
            requests.extend(http_request(
                self.addr,
                protocol::method::TOOLS_CALL,
                Some("test_trigger_tool_change"),
                &body,
            ));
        }
        self.tcp.write_all(&requests).await?;
        self.answers(count).await
    }

    /// Reads `count` responses with a `Content-Length` body.
    async fn answers(&mut self, mut count: usize) -> anyhow::Result<()> {
        let mut chunk = [0u8; 8192];
        while count > 0 {
            if let Some(p) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..p]).to_ascii_lowercase();
                if !head.starts_with("http/1.1 200") {
                    bail!("trigger refused: {head}");
                }
                let len = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .context("a trigger answer without Content-Length")?;
                if self.buf.len() >= p + 4 + len {
                    self.buf.drain(..p + 4 + len);
                    count -= 1;
                    continue;
                }
            }
            let n = self.tcp.read(&mut chunk).await?;
            if n == 0 {
                bail!("the trigger connection closed");
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
        Ok(())
    }
}

/// Resident memory of a process, in KiB.
pub fn rss_kib(pid: u32) -> anyhow::Result<i64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmRSS in /proc/PID/status")
}

/// CPU time of a process, in nanoseconds: the sum over its threads of the scheduler's own
/// account (`/proc/PID/task/TID/schedstat`), finer than the 10 ms ticks of `/proc/PID/stat`.
pub fn cpu_ns(pid: u32) -> anyhow::Result<u64> {
    let mut total = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let stat = std::fs::read_to_string(task?.path().join("schedstat"))?;
        total += stat
            .split_whitespace()
            .next()
            .and_then(|ns| ns.parse::<u64>().ok())
            .context("malformed schedstat")?;
    }
    Ok(total)
}

/// User and system CPU of a process (all its threads), in clock ticks: only their ratio is
/// used, to split [`cpu_ns`] into user and system time.
pub fn cpu_ticks(pid: u32) -> anyhow::Result<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the `(comm)`, which may itself hold spaces: state is field 3, utime 14.
    let rest = stat.rsplit_once(')').context("malformed /proc/PID/stat")?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| -> anyhow::Result<u64> {
        fields
            .get(n - 3)
            .and_then(|f| f.parse().ok())
            .context("malformed /proc/PID/stat")
    };
    Ok((field(14)?, field(15)?))
}
