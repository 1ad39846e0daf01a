//! The listen stream's cost against the machine's: `mcp-tutor serve` and a calibration fan-out
//! (`calibration.rs`, a minimal single-threaded hyper SSE server) measured side by side in one
//! run by the same load generator (`load.rs`), each in its own process.
//!
//! For each stream count (1,000 and 10,000): open the streams (ack latency), let them sit idle
//! (resident memory per stream), then trigger rounds of 20 changes, each round waiting for every
//! delivery (throughput, server CPU per delivery, delivery latency). Runs repeat, alternating
//! which server goes first, so the spread shows what the shared machine did meanwhile.
//!
//! Run with `cargo bench -p mcp-tutor-benches --bench fanout`. Environment:
//! - `FANOUT_STREAMS=1000,10000` stream counts; `FANOUT_CHANGES=20` changes per round;
//!   `FANOUT_DELIVERIES=200000` deliveries per measurement (rounds = this / streams / changes);
//!   `FANOUT_RUNS=3` repeats; `FANOUT_PACING=serial,burst` (below); `FANOUT_ONLY=NAME` weighs one
//!   server only (`mcp-tutor`, `calibration`, `baseline`), e.g. under a profiler.
//! - `FANOUT_SERVER="path/to/mcp-tutor serve --port 0"`: another server to weigh in place of this
//!   build's; `FANOUT_BASELINE="…"` adds one beside it (e.g. a build of an older commit). Each
//!   must print `listening on http://ADDR/mcp` first.

mod calibration;
mod load;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use anyhow::{Context as _, bail};

/// Set in the environment of the child that serves the calibration fan-out.
const ROLE: &str = "FANOUT_CALIBRATION_SERVER";

/// A command line as its words.
fn words(command: &str) -> Vec<String> {
    command.split_whitespace().map(String::from).collect()
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn main() -> anyhow::Result<()> {
    if std::env::var_os(ROLE).is_some() {
        return Ok(calibration::serve()?);
    }
    // `cargo test --benches` builds and runs bench targets with `--test`: nothing to measure.
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return Ok(());
    }
    let streams: Vec<usize> = env_or("FANOUT_STREAMS", "1000,10000")
        .split(',')
        .map(|s| s.trim().parse())
        .collect::<Result<_, _>>()
        .context("FANOUT_STREAMS")?;
    let changes: usize = env_or("FANOUT_CHANGES", "20").parse()?;
    let deliveries: usize = env_or("FANOUT_DELIVERIES", "200000").parse()?;
    let runs: usize = env_or("FANOUT_RUNS", "3").parse()?;
    let server = words(&std::env::var("FANOUT_SERVER").unwrap_or_else(|_| {
        format!(
            "{} serve --port 0",
            mcp_tutor_benches::tutor_bin().display()
        )
    }));
    let calibration = vec![std::env::current_exe()?.display().to_string()];
    let baseline = std::env::var("FANOUT_BASELINE").ok().map(|b| words(&b));
    print_header(changes, deliveries);
    let pacings = pacings()?;
    let only = std::env::var("FANOUT_ONLY").ok();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // (streams, pacing, mcp-tutor's CPU per delivery over the calibration's), one per run.
    let mut ratios: Vec<(usize, load::Pacing, f64)> = Vec::new();
    for &n in &streams {
        let rounds = (deliveries / (n * changes)).max(1);
        for run in 0..runs {
            let mut order = vec![("mcp-tutor", &server), ("calibration", &calibration)];
            if let Some(b) = &baseline {
                order.push(("baseline", b));
            }
            if run % 2 == 1 {
                order.reverse();
            }
            order.retain(|(name, _)| only.as_deref().is_none_or(|o| o == *name));
            let mut cpu: Vec<(&str, load::Pacing, f64)> = Vec::new();
            for (name, command) in order {
                let mut child = spawn(command, name == "calibration")?;
                let (addr, pid) = (listening_on(&mut child)?, child.id());
                let report = rt.block_on(load::run(addr, pid, n, changes, rounds, &pacings));
                stop(&mut child);
                let r = report.with_context(|| format!("{name}, {n} streams"))?;
                for (pacing, d) in &r.deliveries {
                    cpu.push((name, *pacing, d.cpu_us_per_delivery()));
                    println!(
                        "{:>7} {:<7} {:<12} {:>3} {:>12.0} {:>9.2} {:>5.0} {:>6.0} {:>9.1} {:>15} {:>16}",
                        n,
                        pacing.name(),
                        name,
                        run + 1,
                        d.per_sec(),
                        d.cpu_us_per_delivery(),
                        d.sys_share() * 100.0,
                        d.cpu_share() * 100.0,
                        r.idle_kib_per_stream,
                        format!("{:.1}/{:.1}", ms(r.ack.p50), ms(r.ack.p99)),
                        format!("{:.1}/{:.1}", ms(d.latency.p50), ms(d.latency.p99)),
                    );
                }
            }
            for &p in &pacings {
                let of = |who: &str| {
                    cpu.iter()
                        .find(|(name, q, _)| *name == who && *q == p)
                        .map(|(_, _, c)| *c)
                };
                if let (Some(ours), Some(cal)) = (of("mcp-tutor"), of("calibration")) {
                    ratios.push((n, p, ours / cal));
                }
            }
        }
    }
    print_summary(&streams, &pacings, &ratios);
    Ok(())
}

/// The load, then the table's column heads.
fn print_header(changes: usize, deliveries: usize) {
    println!(
        "load average {}; {changes} changes a round, ~{deliveries} deliveries a measurement",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "{:>7} {:<7} {:<12} {:>3} {:>12} {:>9} {:>5} {:>6} {:>9} {:>15} {:>16}",
        "streams",
        "pacing",
        "server",
        "run",
        "deliveries/s",
        "CPU µs/d",
        "sys %",
        "CPU %",
        "KiB/idle",
        "ack p50/p99 ms",
        "deliv p50/p99 ms"
    );
}

/// `FANOUT_PACING`: serial, burst or both.
fn pacings() -> anyhow::Result<Vec<load::Pacing>> {
    env_or("FANOUT_PACING", "serial,burst")
        .split(',')
        .map(|p| match p.trim() {
            "serial" => Ok(load::Pacing::Serial),
            "burst" => Ok(load::Pacing::Burst),
            other => Err(anyhow::anyhow!(
                "FANOUT_PACING: {other:?} is not serial or burst"
            )),
        })
        .collect::<Result<_, _>>()
}

/// Per stream count and pacing: mcp-tutor's CPU per delivery over the calibration's, the
/// median of the runs and their range.
fn print_summary(
    streams: &[usize],
    pacings: &[load::Pacing],
    ratios: &[(usize, load::Pacing, f64)],
) {
    for &n in streams {
        for &p in pacings {
            let mut r: Vec<f64> = ratios
                .iter()
                .filter(|(m, q, _)| *m == n && *q == p)
                .map(|(_, _, r)| *r)
                .collect();
            r.sort_by(f64::total_cmp);
            if let (Some(lo), Some(hi)) = (r.first(), r.last()) {
                println!(
                    "{n} streams, {}: mcp-tutor's CPU per delivery is {:.2}× the calibration's (median of {}; {lo:.2}–{hi:.2})",
                    p.name(),
                    r[r.len() / 2],
                    r.len()
                );
            }
        }
    }
}

/// SIGTERM first (a profiler wrapping the server writes its report then), SIGKILL after 10 s.
fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    for _ in 0..100 {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn ms(us: u32) -> f64 {
    f64::from(us) / 1000.0
}

fn spawn(command: &[String], calibration: bool) -> anyhow::Result<Child> {
    let (program, args) = command.split_first().context("empty server command")?;
    let mut c = Command::new(program);
    c.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if calibration {
        c.env(ROLE, "1");
    }
    c.spawn().with_context(|| format!("starting {program}"))
}

/// The address from the server's `listening on http://ADDR/mcp` line.
fn listening_on(child: &mut Child) -> anyhow::Result<SocketAddr> {
    let out = child.stdout.take().context("no stdout")?;
    let mut reader = BufReader::new(out);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // Whatever else it prints is drained, so a write to a closed pipe never stops it.
    std::thread::Builder::new()
        .name("server-stdout".into())
        .spawn(move || std::io::copy(&mut reader, &mut std::io::sink()))
        .context("starting the thread that drains the server's output")?;
    let Some(addr) = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|r| r.strip_suffix("/mcp"))
    else {
        bail!("the server said {line:?}, not `listening on http://ADDR/mcp`");
    };
    Ok(addr.parse()?)
}
