//! The interactive lab: rustyline on the main thread, frames handled by a pump task and
//! printed above the prompt through rustyline's external printer (never `readline` inside a
//! tokio task), like rustlings' watch loop.

use std::borrow::Cow;
use std::sync::Arc;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, ExternalPrinter, Helper};
use tokio::runtime::Runtime;
use tokio::sync::Mutex;
use tokio::sync::mpsc::UnboundedReceiver;

use super::event::Event;
use super::link::Incoming;
use super::render::{Look, render};
use super::session::{Lab, Sink};
use super::step::{self, HELP};

/// Prints above the prompt without garbling what the user is typing.
pub struct PrinterSink<P: ExternalPrinter + Send> {
    pub printer: P,
    pub json: bool,
}

impl<P: ExternalPrinter + Send> Sink for PrinterSink<P> {
    fn show(&mut self, ev: &Event, look: Look) {
        let text = if self.json {
            serde_json::to_string(ev).unwrap_or_default() + "\n"
        } else {
            render(ev, look)
        };
        if !text.is_empty() {
            let _ = self.printer.print(text);
        }
    }
}

/// Completion and hints: step names first, then what each step takes.
pub struct LabHelper {
    /// Words offered after the step name: subscription ids, fault names, URIs.
    pub ids: Arc<std::sync::Mutex<Vec<String>>>,
    pub faults: Vec<String>,
    pub uris: Vec<String>,
}

impl LabHelper {
    fn candidates(&self, head: &str, nth: usize) -> Vec<String> {
        let words = |ws: &[&str]| ws.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        match (head, nth) {
            ("list" | "change", 1) => words(&["tools", "prompts", "resources"]),
            ("listen", _) => {
                let mut v = words(&["tools", "prompts", "resources", "--id"]);
                v.extend(self.uris.iter().cloned());
                v
            }
            ("read" | "update", 1) => self.uris.clone(),
            ("close", 1) => {
                let mut v = self.ids.lock().map(|i| i.clone()).unwrap_or_default();
                v.push("all".into());
                v
            }
            ("cancel", 1) => self.ids.lock().map(|i| i.clone()).unwrap_or_default(),
            ("fault", 1) => self.faults.clone(),
            ("fault", 2) | ("wire", 1) => words(&["on", "off"]),
            ("help", 1) => HELP.iter().map(|h| h.name.to_owned()).collect(),
            _ => Vec::new(),
        }
    }
}

impl Completer for LabHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &before[start..];
        let done: Vec<&str> = before[..start].split_whitespace().collect();
        let options: Vec<String> = match done.first() {
            None => step::step_names().map(str::to_owned).collect(),
            Some(head) => self.candidates(head, done.len()),
        };
        let pairs = options
            .into_iter()
            .filter(|o| o.starts_with(word))
            .map(|o| Pair {
                display: o.clone(),
                replacement: format!("{o} "),
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for LabHelper {
    type Hint = String;

    /// After a complete step name, show its usage greyed out.
    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        if pos < line.len() {
            return None;
        }
        let head = line.trim_end();
        if !line.ends_with(' ') || head.contains(' ') {
            return None;
        }
        HELP.iter()
            .find(|h| h.name == head)
            .and_then(|h| h.usage.strip_prefix(h.name))
            .map(|rest| rest.trim_start().to_owned())
            .filter(|r| !r.is_empty())
    }
}

impl Highlighter for LabHelper {
    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if owo_colors::Stream::Stdout.supports_color_hint() {
            Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
        } else {
            Cow::Borrowed(hint)
        }
    }
}

impl Validator for LabHelper {}
impl Helper for LabHelper {}

trait SupportsHint {
    fn supports_color_hint(self) -> bool;
}

impl SupportsHint for owo_colors::Stream {
    fn supports_color_hint(self) -> bool {
        use owo_colors::OwoColorize as _;
        // owo-colors decides once (term::init); ask it through a throwaway styled string.
        "x".if_supports_color(self, |t| t.dimmed()).to_string() != "x"
    }
}

pub fn editor(helper: LabHelper) -> anyhow::Result<Editor<LabHelper, DefaultHistory>> {
    let config = rustyline::Config::builder()
        .auto_add_history(false)
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut rl: Editor<LabHelper, DefaultHistory> = Editor::with_config(config)?;
    rl.set_helper(Some(helper));
    Ok(rl)
}

/// The interactive loop. `lab` is shared with the pump that handles frames as they arrive.
pub fn run(
    rt: &Runtime,
    mut rl: Editor<LabHelper, DefaultHistory>,
    lab: Arc<Mutex<Lab>>,
    mut rx: UnboundedReceiver<Incoming>,
    ids: Arc<std::sync::Mutex<Vec<String>>>,
    history: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }
    let pump_lab = lab.clone();
    let pump = rt.spawn(async move {
        while let Some(inc) = rx.recv().await {
            pump_lab.lock().await.handle(inc).await;
        }
    });
    let prompt = "lab> ";
    loop {
        // Offer the ids of open subscriptions to completion.
        let open = rt.block_on(async {
            let l = lab.lock().await;
            l.subs
                .iter()
                .map(|s| s.id.to_string().trim_matches('"').to_owned())
                .collect::<Vec<_>>()
        });
        if let Ok(mut i) = ids.lock() {
            *i = open;
        }
        let line = match rl.readline(prompt) {
            Ok(l) => l,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        };
        if line.trim().is_empty() {
            continue;
        }
        let _ = rl.add_history_entry(line.as_str());
        let step = match step::parse(&line) {
            Ok(Some(s)) => s,
            Ok(None) => continue,
            Err(e) => {
                let mut l = rt.block_on(lab.lock());
                l.emit(Event::Error { text: e.0 });
                continue;
            }
        };
        let go_on = rt.block_on(async {
            let mut l = lab.lock().await;
            l.record(Event::Step {
                line: line.trim().to_owned(),
            });
            l.run(step).await
        });
        if !go_on {
            break;
        }
    }
    if let Some(h) = &history {
        if let Some(dir) = h.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = rl.save_history(h);
    }
    pump.abort();
    rt.block_on(async { lab.lock().await.shutdown().await });
    Ok(())
}
