//! `mcp-tutor lab`: drive an MCP server step by step and watch the subscription rules happen
//! on the wire. Every frame is annotated and checked by the checking client's validator.

mod checks;
mod connect;
mod control;
mod event;
mod explain;
mod faults;
mod filter;
mod render;
mod repl;
mod runner;
pub mod scenario;
mod session;
mod state;
mod step;
mod summary;
mod timeline;

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::global::Global;
pub(crate) use faults::{FaultRow, fault_table};
use render::Look;
use runner::{Lapses, Predictor, Runner, Scripted};
use session::{Lab, Sink, Stdout};

#[derive(Debug, clap::Args)]
#[command(
    about = "A REPL that drives an MCP server step by step and checks every frame on the wire",
    long_about = "A REPL that drives an MCP server step by step and checks every frame on the wire.\n\n\
        By default the lab starts the bundled mock server in this process on 127.0.0.1 (a free \
        port) and talks to it over real HTTP. Type `help` for the steps: `listen tools`, \
        `change tools`, `close all`, `cancel lab-1`, `drop`, `fault NAME on`, `timeline`, \
        `explain`...\n\n\
        Frames that arrive while you type are printed above the prompt, each annotated: the \
        acknowledgement first with the honoured subset, the tag on every notification, the \
        graceful result or the abrupt end. Broken rules are flagged in place with their spec \
        reference.",
    after_help = "Examples:\n  \
        mcp-tutor lab                          the REPL against the bundled server\n  \
        mcp-tutor lab --list                   the guided scenarios\n  \
        mcp-tutor lab --scenario ack-first     one guided scenario (predict, then watch)\n  \
        mcp-tutor lab --url http://127.0.0.1:3000/mcp   any 2026-07-28 server\n  \
        mcp-tutor lab --stdio                  a `mcp-tutor serve --stdio` child over its stdio\n  \
        printf 'listen tools\\nchange tools\\nclose all\\n' | mcp-tutor lab   a transcript"
)]
pub struct Args {
    /// Talk to this MCP endpoint instead of the bundled server. The steps work the same: they
    /// call the server's trigger and control tools, which `mcp-tutor serve` offers.
    #[arg(long, value_name = "URL", conflicts_with = "stdio")]
    pub url: Option<String>,
    /// Start `mcp-tutor serve --stdio` as a child and talk over its standard streams.
    #[arg(long)]
    pub stdio: bool,
    /// Run one guided scenario (see --list).
    #[arg(long, value_name = "NAME")]
    pub scenario: Option<String>,
    /// List the guided scenarios and exit.
    #[arg(long)]
    pub list: bool,
    /// Run the steps in FILE (one per line, `#` comments) and print the transcript. With
    /// --scenario, FILE holds the predictions instead (`predict b`, one per question).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// One JSON object per event instead of text.
    #[arg(long)]
    pub json: bool,
    /// How long the careful client waits for an acknowledgement before it cancels and retries
    /// (a scenario that is about a missing ack sets its own).
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 2000,
        env = "MCP_TUTOR_ACK_TIMEOUT"
    )]
    pub ack_timeout: u64,
    /// Start the bundled server with this fault switched on (repeatable; see `fault` in the lab).
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
}

/// Wrong predictions become lapses in the quiz's store.
struct StoreLapses {
    dir: Option<PathBuf>,
}

impl Lapses for StoreLapses {
    fn record(&mut self, card: &str, source: &str) -> anyhow::Result<()> {
        let dir = self
            .dir
            .as_ref()
            .context("no data directory: pass --data-dir DIR")?;
        connect::record_lapse(dir, card, source)
    }
}

/// Reads predictions from the terminal, through the REPL's one keyboard thread.
struct AskUser<'k> {
    kb: &'k mut repl::Keyboard,
}

impl Predictor for AskUser<'_> {
    fn predict<'a>(&'a mut self, q: &'a scenario::Question) -> runner::BoxFut<'a, Option<String>> {
        Box::pin(async move {
            let letters: String = q.letters().collect();
            loop {
                let line = self
                    .kb
                    .line(&format!("your prediction [{letters}] (enter to skip)> "))
                    .await?;
                let l = line.trim().to_ascii_lowercase();
                let l = l.strip_prefix("predict").unwrap_or(&l).trim().to_owned();
                if l.is_empty() {
                    return None;
                }
                if l.len() == 1 && letters.contains(&l) {
                    return Some(l);
                }
                println!("  type one of {letters}");
            }
        })
    }
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    if args.list {
        return list_scenarios();
    }
    let sc = args.scenario.as_deref().map(scenario::find).transpose()?;
    let script_lines = script_lines(&args)?;
    let look = Look {
        wire: false,
        plain: g.plain,
    };
    let mut ack_timeout = Duration::from_millis(args.ack_timeout);
    let mut target = connect::Endpoint::from_args(&args);
    if let Some(sc) = &sc {
        if let Some(ms) = sc.scenario.ack_timeout_ms {
            ack_timeout = Duration::from_millis(ms);
        }
        target = connect::Endpoint::for_scenario(&args, sc);
    }

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let (tx, rx) = crate::client::link::channel();
    let conn = rt.block_on(connect::connect(&target, tx.clone()))?;
    let data_dir = crate::paths::data_dir(g.data_dir.as_deref()).ok();
    let history = data_dir.as_ref().map(|d| d.join("lab_history"));
    let lapses = StoreLapses { dir: data_dir };
    let sink: Box<dyn Sink> = Box::new(Stdout { json: args.json });
    let lab = Lab::new(conn.link, tx, sink, look, ack_timeout);
    let session = Started {
        rt,
        lab,
        rx,
        lapses,
        sc,
        keep: conn.keep,
    };
    let code = match script_lines {
        Some(lines) => session.script(&lines),
        None => {
            let helper = repl::LabHelper {
                ids: Arc::new(std::sync::Mutex::new(Vec::new())),
                tools: Arc::new(std::sync::Mutex::new(Vec::new())),
                faults: conn.fault_names,
                uris: conn.uris,
            };
            session.interactive(helper, history, args.json)?
        }
    };
    Ok(code)
}

/// `lab --list`: the guided scenarios in two columns.
fn list_scenarios() -> anyhow::Result<ExitCode> {
    let rows: Vec<(String, String)> = scenario::all()?
        .into_iter()
        .map(|s| {
            let t = match s.scenario.transport {
                scenario::Transport::Http => "http",
                scenario::Transport::Stdio => "stdio",
            };
            (s.scenario.id, format!("({t}) {}", s.scenario.summary))
        })
        .collect();
    println!("{}", crate::term::columns(&rows, "", crate::term::width()));
    println!("\nrun one with: mcp-tutor lab --scenario NAME");
    Ok(ExitCode::SUCCESS)
}

/// The steps to run without a REPL: `--script FILE`, or standard input when it is not a
/// terminal. `None`: interactive.
fn script_lines(args: &Args) -> anyhow::Result<Option<Vec<String>>> {
    Ok(match &args.script {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the script {}", path.display()))?
                .lines()
                .map(str::to_owned)
                .collect(),
        ),
        None if !std::io::stdin().is_terminal() => Some(
            std::io::stdin()
                .lock()
                .lines()
                .collect::<Result<_, _>>()
                .context("cannot read steps from standard input")?,
        ),
        None => None,
    })
}

/// A lab connected to its server, before it runs a script or the REPL.
struct Started {
    rt: tokio::runtime::Runtime,
    lab: Lab,
    rx: crate::client::link::Receiver,
    lapses: StoreLapses,
    sc: Option<scenario::ScenarioFile>,
    /// The bundled server when the lab started one: stopped before the runtime it runs on.
    keep: Option<Box<dyn std::any::Any + Send>>,
}

impl Started {
    /// Scripts and scenario scripts run step by step, settling after each.
    fn script(self, lines: &[String]) -> ExitCode {
        let Started {
            rt,
            lab,
            rx,
            mut lapses,
            sc,
            keep,
        } = self;
        let mut runner = Runner {
            lab,
            rx,
            quiet: Duration::from_millis(400),
        };
        let lab_failed = rt.block_on(async {
            runner.lab.banner();
            if let Some(sc) = &sc {
                let mut predictor = Scripted::from_lines(lines);
                runner.scenario(sc, &mut predictor, &mut lapses).await;
            } else {
                for line in lines {
                    if !runner.line(line).await {
                        break;
                    }
                }
            }
            runner.lab.shutdown().await;
            // Like `check`: a step that could not run, or a rule the server broke, fails.
            runner.lab.failed
        });
        drop(keep);
        // A script that hit an error or a broken rule says so in its exit status, so CI
        // notices; a scenario's faults are its lesson, not a failure.
        if lab_failed && sc.is_none() {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }

    /// The REPL, after the scenario if there is one: one keyboard thread for the whole
    /// session, predictions included.
    fn interactive(
        self,
        helper: repl::LabHelper,
        history: Option<PathBuf>,
        json: bool,
    ) -> anyhow::Result<ExitCode> {
        let Started {
            rt,
            mut lab,
            mut rx,
            mut lapses,
            sc,
            keep,
        } = self;
        let (ids, tools) = (helper.ids.clone(), helper.tools.clone());
        let mut rl = repl::editor(helper)?;
        let printer = rl.create_external_printer().ok();
        let mut kb = repl::Keyboard::start(rl, history)
            .context("could not start the lab's keyboard thread")?;
        rt.block_on(async {
            lab.banner();
            if let Some(sc) = &sc {
                // The scenario owns the screen until it hands over to the REPL.
                let mut runner = Runner {
                    lab,
                    rx,
                    quiet: Duration::from_millis(400),
                };
                let mut predictor = AskUser { kb: &mut kb };
                runner.scenario(sc, &mut predictor, &mut lapses).await;
                (lab, rx) = (runner.lab, runner.rx);
            }
            if let Some(printer) = printer {
                lab.set_sink(Box::new(repl::PrinterSink { printer, json }));
            }
            lab.emit(event::TranscriptEvent::Info {
                text: if sc.is_some() {
                    "the scenario is over; keep experimenting here (`help` for the steps, `quit` to leave)"
                        .into()
                } else {
                    "type `help` for the steps, `quit` to leave; try `listen tools` then `change tools`"
                        .into()
                },
            });
            repl::run(&mut lab, &mut rx, &mut kb, ids, tools).await;
        });
        kb.finish();
        drop(keep);
        Ok(ExitCode::SUCCESS)
    }
}
