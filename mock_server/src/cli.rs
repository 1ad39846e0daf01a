//! The command line shared by the `mcp-tutor-mock` binary and `mcp-tutor serve`.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use crate::{Config, Fault, Limits, start_http};

/// Options of `mcp-tutor-mock` and `mcp-tutor serve`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = after_help())]
pub struct ServeArgs {
    /// Address to bind. Keep the default (loopback) unless you know why: local MCP servers should
    /// not be reachable from the network.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST), value_name = "ADDR")]
    pub host: IpAddr,
    /// Port to bind; 0 picks a free one (the URL is printed when ready).
    #[arg(long, default_value_t = 0, value_name = "PORT")]
    pub port: u16,
    /// Speak newline-delimited JSON-RPC on stdin/stdout instead of HTTP.
    #[arg(long)]
    pub stdio: bool,
    /// Break one subscription rule on purpose (repeatable); see the list below.
    #[arg(long = "fault", value_name = "NAME", value_parser = <Fault as std::str::FromStr>::from_str)]
    pub faults: Vec<Fault>,
    /// Also accept this exact Origin (loopback origins are always accepted; repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// Seconds between SSE keep-alive comment lines on idle listen streams.
    #[arg(long, default_value_t = 15, value_name = "SECS")]
    pub keepalive: u64,
    /// Milliseconds the late-ack fault waits before acknowledging.
    #[arg(long, default_value_t = 3000, value_name = "MS")]
    pub ack_delay: u64,
    /// HTTP: close a connection that has not sent a complete request head within this time of
    /// opening or of its previous response (so idle keep-alive connections too). Never cuts a
    /// listen stream. `10s`, `500ms` or plain seconds.
    #[arg(long, env = "MCP_TUTOR_HEADER_TIMEOUT", default_value = "10s", value_name = "TIME", value_parser = parse_duration)]
    pub header_timeout: Duration,
    /// HTTP: answer 408 and close when a request body takes longer than this to arrive.
    #[arg(long, env = "MCP_TUTOR_BODY_TIMEOUT", default_value = "30s", value_name = "TIME", value_parser = parse_duration)]
    pub body_timeout: Duration,
    /// HTTP: connections open at once; a further one is answered 503. Default: the
    /// file-descriptor limit less a reserve.
    #[arg(long, env = "MCP_TUTOR_MAX_CONNECTIONS", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: Option<u32>,
    /// List at most N items per page of tools/list, prompts/list and resources/list, with a
    /// nextCursor to the next page (a client must follow it). Default: every list on one page.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub page_size: Option<u32>,
    /// Print every fault with the rule it breaks, and exit.
    #[arg(long)]
    pub list_faults: bool,
}

impl ServeArgs {
    pub fn config(&self) -> Config {
        Config {
            host: self.host,
            port: self.port,
            faults: self.faults.clone(),
            keepalive: Duration::from_secs(self.keepalive.max(1)),
            ack_delay: Duration::from_millis(self.ack_delay),
            allowed_origins: self.allowed_origins.clone(),
            limits: Limits {
                header_timeout: self.header_timeout,
                body_timeout: self.body_timeout,
                max_connections: self
                    .max_connections
                    .map_or_else(crate::http::default_max_connections, |n| n as usize),
                ..Limits::default()
            },
            page_size: self.page_size.map(|n| n as usize),
        }
    }
}

/// `10s`, `500ms` or plain seconds (`10`); at least 1 ms.
fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (digits, ms) = if let Some(d) = s.strip_suffix("ms") {
        (d, true)
    } else {
        (s.strip_suffix('s').unwrap_or(s), false)
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a duration; write 10s, 500ms or 10"))?;
    let d = if ms {
        Duration::from_millis(n)
    } else {
        Duration::from_secs(n)
    };
    if d.is_zero() {
        return Err(
            "a timeout of zero would close every connection at once; use at least 1ms".into(),
        );
    }
    Ok(d)
}

/// Resolves on Ctrl-C (and SIGTERM on Unix).
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// The help's tail: the faults as the catalogue lists them, and how to cause changes.
fn after_help() -> String {
    format!(
        "Faults (each breaks one rule; repeat --fault to combine; --list-faults says which):\n{}\n\n\
         Cause changes from any MCP client by calling the tools test_trigger_tool_change,\n\
         test_trigger_prompt_change, test_trigger_resource_list_change, test_trigger_resource_update\n\
         and test_close_subscriptions. The README has a curl walkthrough.",
        crate::fault::help_list()
    )
}

/// Runs the server until Ctrl-C (HTTP) or end of input (stdio).
pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    if args.list_faults {
        for f in Fault::all() {
            println!("{:<22} {}\n{:<22} ({})", f.name(), f.rule(), "", f.spec());
        }
        return Ok(());
    }
    let config = args.config();
    if args.stdio {
        // stdout carries only MCP messages (STDIO intro); talk to humans on stderr.
        eprintln!("mock_server: speaking MCP 2026-07-28 on stdin/stdout");
        let running = crate::start_stdio(config, tokio::io::stdin(), tokio::io::stdout());
        let control = running.control.clone();
        let mut task = tokio::spawn(running.wait());
        tokio::select! {
            r = &mut task => return r?,
            _ = interrupted() => {}
        }
        control.shutdown();
        task.await??;
        // Only end of input is a clean end on stdio; a client must not read exit 0 as one.
        anyhow::bail!(
            "interrupted before the end of input (open subscriptions were ended gracefully)"
        );
    }
    let server = start_http(config.clone()).await?;
    println!("listening on {}", server.url);
    if !config.faults.is_empty() {
        let names: Vec<&str> = config.faults.iter().map(|f| f.name()).collect();
        println!("faults: {}", names.join(", "));
    }
    interrupted().await;
    server.shutdown().await;
    Ok(())
}

/// [`run`] on a fresh Tokio runtime, for synchronous callers.
pub fn run_blocking(args: ServeArgs) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let result = rt.block_on(run(args));
    // Tokio reads stdin on a blocking thread that a signal does not wake; waiting for it would
    // keep an interrupted `--stdio` server alive until its client closed stdin.
    rt.shutdown_background();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_seconds_or_milliseconds() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("0").is_err_and(|e| e.contains("at least 1ms")));
        assert!(parse_duration("1.5s").is_err_and(|e| e.contains("10s, 500ms")));
        assert!(parse_duration("-1").is_err());
    }

    #[test]
    fn limits_flags_reach_the_config() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            serve: ServeArgs,
        }
        let cli = Cli::parse_from([
            "x",
            "--header-timeout",
            "250ms",
            "--body-timeout",
            "3",
            "--max-connections",
            "7",
        ]);
        let l = cli.serve.config().limits;
        assert_eq!(l.header_timeout, Duration::from_millis(250));
        assert_eq!(l.body_timeout, Duration::from_secs(3));
        assert_eq!(l.max_connections, 7);
        let cli = Cli::parse_from(["x"]);
        assert_eq!(
            cli.serve.config().limits.header_timeout,
            Limits::DEFAULT_HEADER_TIMEOUT
        );
        assert!(Cli::try_parse_from(["x", "--max-connections", "0"]).is_err());
    }
}
