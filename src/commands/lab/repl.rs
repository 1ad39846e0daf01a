//! The interactive lab: rustyline on its own thread feeding typed lines into one event loop
//! that owns the lab; frames are printed above the prompt through rustyline's external printer
//! (never `readline` inside a tokio task), like rustlings' watch loop.

use std::borrow::Cow;
use std::sync::Arc;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, ExternalPrinter, Helper};
use tokio::sync::mpsc::UnboundedReceiver;

use super::event::TranscriptEvent;
use super::render::{Look, render};
use super::session::{Lab, Sink};
use super::step::{self, Args};
use crate::client::link::{Incoming, Receiver};

/// Prints above the prompt without garbling what the user is typing.
pub struct PrinterSink<P: ExternalPrinter + Send> {
    pub printer: P,
    pub json: bool,
}

impl<P: ExternalPrinter + Send> Sink for PrinterSink<P> {
    fn show(&mut self, ev: &TranscriptEvent, look: Look) {
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
    /// The server's tool names, for `call`.
    pub tools: Arc<std::sync::Mutex<Vec<String>>>,
}

impl LabHelper {
    /// What completes the `nth` word (1 = the first argument) of step `head`, as its table
    /// entry says.
    fn candidates(&self, head: &str, nth: usize) -> Vec<String> {
        let words = |ws: &[&str]| ws.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        let open = || self.ids.lock().map(|i| i.clone()).unwrap_or_default();
        let Some(def) = step::find(head) else {
            return Vec::new();
        };
        match (def.args, nth) {
            (Args::Kinds, 1) => words(&["tools", "prompts", "resources"]),
            (Args::Uris, 1) => self.uris.clone(),
            (Args::Listen, _) => {
                let mut v = words(&["tools", "prompts", "resources", "--id"]);
                v.extend(self.uris.iter().cloned());
                v
            }
            (Args::OpenIds, 1) => open(),
            (Args::OpenIdsOrAll, 1) => {
                let mut v = open();
                v.push("all".into());
                v
            }
            (Args::Fault, 1) => self.faults.clone(),
            (Args::Fault, 2) | (Args::OnOff, 1) => words(&["on", "off"]),
            (Args::Steps, 1) => step::step_names().map(str::to_owned).collect(),
            (Args::Tools, 1) => self.tools.lock().map(|t| t.clone()).unwrap_or_default(),
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
        step::find(head)
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

/// The keyboard: rustyline on its own thread (never `readline` inside a tokio task), reading
/// one line each time the loop asks for one, with the prompt the loop chose. Lines come back
/// on a channel; `None` is end of input (Ctrl-D).
pub struct Keyboard {
    asks: std::sync::mpsc::Sender<Ask>,
    typed: UnboundedReceiver<Option<String>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Ask {
    prompt: String,
    /// Steps go to the history; prediction letters do not.
    remember: bool,
}

impl Keyboard {
    pub fn start(
        mut rl: Editor<LabHelper, DefaultHistory>,
        history: Option<std::path::PathBuf>,
    ) -> std::io::Result<Keyboard> {
        if let Some(h) = &history {
            let _ = rl.load_history(h);
        }
        let (asks, asked) = std::sync::mpsc::channel::<Ask>();
        let (send, typed) = tokio::sync::mpsc::unbounded_channel();
        let thread = std::thread::Builder::new()
            .name("lab-keyboard".into())
            .spawn(move || {
                while let Ok(ask) = asked.recv() {
                    let line = loop {
                        match rl.readline(&ask.prompt) {
                            Ok(l) => break Some(l),
                            Err(ReadlineError::Interrupted) => continue,
                            Err(_) => break None,
                        }
                    };
                    if ask.remember
                        && let Some(l) = &line
                        && !l.trim().is_empty()
                    {
                        let _ = rl.add_history_entry(l.as_str());
                    }
                    let eof = line.is_none();
                    if send.send(line).is_err() || eof {
                        break;
                    }
                }
                if let Some(h) = &history {
                    if let Some(dir) = h.parent() {
                        let _ = std::fs::create_dir_all(dir);
                    }
                    let _ = rl.save_history(h);
                }
            })?;
        Ok(Keyboard {
            asks,
            typed,
            thread: Some(thread),
        })
    }

    /// Ask for the next line; it arrives on [`Keyboard::next`].
    fn ask(&self, prompt: &str, remember: bool) {
        let _ = self.asks.send(Ask {
            prompt: prompt.to_owned(),
            remember,
        });
    }

    /// The line asked for last; `None` at end of input.
    async fn next(&mut self) -> Option<String> {
        self.typed.recv().await.flatten()
    }

    /// Ask and wait (a scenario's prediction).
    pub async fn line(&mut self, prompt: &str) -> Option<String> {
        self.ask(prompt, false);
        self.next().await
    }

    /// Stop the thread (it saves the history). A readline still waiting for a key is left to
    /// end with the process.
    pub fn finish(mut self) {
        let Keyboard { asks, thread, .. } = &mut self;
        drop(std::mem::replace(asks, std::sync::mpsc::channel().0));
        if let Some(t) = thread.take()
            && t.is_finished()
        {
            let _ = t.join();
        }
    }
}

/// Everything the interactive lab reacts to, in one enum: a line typed (or the end of
/// typing), or something from the server (a frame, a stream's end, an ack timer).
enum LabEvent {
    Typed(String),
    Eof,
    Net(Box<Incoming>),
}

const PROMPT: &str = "lab> ";

/// The interactive loop: one task owns the lab and handles one event at a time, so no lock
/// is held while waiting on the network. A typed line is preferred over frames, so `quit`
/// works however busy the server is.
pub async fn run(
    lab: &mut Lab,
    rx: &mut Receiver,
    kb: &mut Keyboard,
    ids: Arc<std::sync::Mutex<Vec<String>>>,
    tools: Arc<std::sync::Mutex<Vec<String>>>,
) {
    lab.fetch_tool_names().await;
    if let Ok(mut t) = tools.lock() {
        *t = lab.tool_names.clone();
    }
    kb.ask(PROMPT, true);
    loop {
        let ev = tokio::select! {
            biased;
            line = kb.next() => match line {
                Some(l) => LabEvent::Typed(l),
                None => LabEvent::Eof,
            },
            Some(inc) = rx.recv() => LabEvent::Net(Box::new(inc)),
        };
        match ev {
            LabEvent::Eof => break,
            LabEvent::Net(inc) => lab.handle(*inc).await,
            LabEvent::Typed(line) => {
                if !typed(lab, &line).await {
                    break;
                }
                // Offer the ids of open subscriptions to completion.
                if let Ok(mut i) = ids.lock() {
                    *i = lab.st.open_id_words();
                }
                if let Ok(mut t) = tools.lock() {
                    t.clone_from(&lab.tool_names);
                }
                kb.ask(PROMPT, true);
            }
        }
    }
    lab.shutdown().await;
}

/// Run one typed line. Returns false on `quit`.
async fn typed(lab: &mut Lab, line: &str) -> bool {
    let step = match step::parse(line) {
        Ok(Some(s)) => s,
        Ok(None) => return true,
        Err(e) => {
            lab.emit(TranscriptEvent::Error { text: e.0 });
            return true;
        }
    };
    lab.record(TranscriptEvent::Step {
        line: line.trim().to_owned(),
    });
    lab.run(step).await
}
