//! Reading the user: rustyline on a terminal (editing, history, one-key ratings), plain lines
//! when standard input is a pipe or a file (so a session can be scripted).

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rustyline::error::ReadlineError;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::{
    Cmd, Completer, ConditionalEventHandler, Context, Editor, Event, EventContext, EventHandler,
    Helper, Highlighter, KeyEvent, RepeatCount, Validator,
};

/// One line from the user.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Text(String),
    /// End of input (Ctrl-D, or the end of a piped script).
    Eof,
    /// Ctrl-C.
    Interrupted,
}

pub trait Input {
    /// Read one line after showing `prompt`. With `one_key`, a digit 1–4 typed on an empty
    /// line is taken at once, without Enter (terminal only).
    fn read(&mut self, prompt: &str, one_key: bool) -> anyhow::Result<Line>;

    /// Start (with the basics and solid-answer targets) or stop (`None`) the answer clock
    /// shown while typing. Only a terminal shows it.
    fn timer(&mut self, _targets: Option<(u32, u32)>) {}
}

/// Lines from any reader (standard input when it is not a terminal). The prompt is still
/// printed so a transcript of a scripted session reads like the real thing.
pub struct LineInput<R: BufRead> {
    reader: R,
}

impl<R: BufRead> LineInput<R> {
    pub fn new(reader: R) -> Self {
        LineInput { reader }
    }
}

impl<R: BufRead> Input for LineInput<R> {
    fn read(&mut self, prompt: &str, _one_key: bool) -> anyhow::Result<Line> {
        let mut out = std::io::stdout();
        write!(out, "{prompt}")?;
        out.flush()?;
        let mut buf = String::new();
        if self.reader.read_line(&mut buf)? == 0 {
            writeln!(out)?;
            return Ok(Line::Eof);
        }
        // Echo nothing: the user's script is theirs; end the prompt line for readability.
        writeln!(out)?;
        Ok(Line::Text(buf.trim_end_matches(['\n', '\r']).to_string()))
    }
}

#[derive(Default)]
struct OneKeyState {
    armed: bool,
    pressed: Option<char>,
}

struct OneKey {
    key: char,
    state: Arc<Mutex<OneKeyState>>,
}

impl ConditionalEventHandler for OneKey {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        let mut st = self.state.lock().ok()?;
        if st.armed && ctx.line().is_empty() {
            st.pressed = Some(self.key);
            Some(Cmd::AcceptLine)
        } else {
            None
        }
    }
}

type Clock = Arc<Mutex<Option<(Instant, u32, u32)>>>;

/// The running answer clock, drawn after the cursor as a rustyline hint: it is redrawn on every
/// keystroke and erased when the line is accepted, so it never ends up in the transcript.
#[derive(Helper, Completer, Highlighter, Validator)]
struct ClockHint {
    clock: Clock,
}

impl Hinter for ClockHint {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        if pos < line.len() {
            return None;
        }
        let (start, basics, solid) = (*self.clock.lock().ok()?)?;
        let secs = start.elapsed().as_secs();
        let state = if secs > u64::from(solid) {
            " (over time: capped at hard)"
        } else if secs > u64::from(basics) {
            " (past the basics target)"
        } else {
            ""
        };
        Some(format!("   ⏱ {}:{:02}{state}", secs / 60, secs % 60))
    }
}

pub struct TtyInput {
    editor: Editor<ClockHint, DefaultHistory>,
    one_key: Arc<Mutex<OneKeyState>>,
    clock: Clock,
}

impl TtyInput {
    pub fn new() -> anyhow::Result<TtyInput> {
        let mut editor = Editor::<ClockHint, DefaultHistory>::new()?;
        let clock: Clock = Arc::new(Mutex::new(None));
        editor.set_helper(Some(ClockHint {
            clock: clock.clone(),
        }));
        let one_key = Arc::new(Mutex::new(OneKeyState::default()));
        for key in ['1', '2', '3', '4'] {
            editor.bind_sequence(
                KeyEvent::from(key),
                EventHandler::Conditional(Box::new(OneKey {
                    key,
                    state: one_key.clone(),
                })),
            );
        }
        Ok(TtyInput {
            editor,
            one_key,
            clock,
        })
    }

    fn arm(&self, on: bool) {
        if let Ok(mut st) = self.one_key.lock() {
            st.armed = on;
            st.pressed = None;
        }
    }
}

impl Input for TtyInput {
    fn timer(&mut self, targets: Option<(u32, u32)>) {
        if let Ok(mut c) = self.clock.lock() {
            *c = targets.map(|(b, s)| (Instant::now(), b, s));
        }
    }

    fn read(&mut self, prompt: &str, one_key: bool) -> anyhow::Result<Line> {
        self.arm(one_key);
        let res = self.editor.readline(prompt);
        let pressed = self.one_key.lock().ok().and_then(|mut s| s.pressed.take());
        self.arm(false);
        match res {
            Ok(line) => {
                if let Some(k) = pressed {
                    return Ok(Line::Text(k.to_string()));
                }
                if !line.trim().is_empty() {
                    let _ = self.editor.add_history_entry(line.as_str());
                }
                Ok(Line::Text(line))
            }
            Err(ReadlineError::Eof) => Ok(Line::Eof),
            Err(ReadlineError::Interrupted) => Ok(Line::Interrupted),
            Err(e) => Err(e.into()),
        }
    }
}
