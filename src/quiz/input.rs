//! Reading the user: rustyline on a terminal (editing, history, one-key ratings), plain lines
//! when standard input is a pipe or a file (so a session can be scripted).

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustyline::error::ReadlineError;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::{
    Cmd, Completer, ConditionalEventHandler, Context, Editor, Event, EventContext, EventHandler,
    ExternalPrinter, Helper, Highlighter, KeyEvent, RepeatCount, Validator,
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

/// The running answer clock: when it started and its face for every second from then on.
struct Running {
    start: Instant,
    faces: Arc<Vec<String>>,
}

type Clock = Arc<Mutex<Option<Running>>>;

/// The clock's faces are drawn for this long; past it the last face stays.
const CLOCK_FACES: u64 = 60 * 60;

/// Every face of the clock for targets `basics` and `solid`, padded to one width so a redraw
/// never changes the line's layout.
fn faces(basics: u32, solid: u32) -> Vec<String> {
    const OVER: &str = " (over time: capped at hard)";
    const PAST: &str = " (past the basics target)";
    let pad = OVER.len().max(PAST.len());
    (0..=CLOCK_FACES)
        .map(|secs| {
            let state = if secs > u64::from(solid) {
                OVER
            } else if secs > u64::from(basics) {
                PAST
            } else {
                ""
            };
            format!("   ⏱ {}:{:02}{state:<pad$}", secs / 60, secs % 60)
        })
        .collect()
}

/// A hint that reads the clock when it is drawn, not when it is made: rustyline keeps the hint
/// from the last keystroke and redraws it on every tick, so the face must be the current one.
struct ClockFace {
    start: Instant,
    faces: Arc<Vec<String>>,
}

impl rustyline::hint::Hint for ClockFace {
    fn display(&self) -> &str {
        let at = usize::try_from(self.start.elapsed().as_secs()).unwrap_or(usize::MAX);
        self.faces
            .get(at.min(self.faces.len().saturating_sub(1)))
            .map_or("", String::as_str)
    }

    fn completion(&self) -> Option<&str> {
        None
    }
}

/// The running answer clock, drawn after the cursor as a rustyline hint: it is redrawn on every
/// keystroke and every second (see [`tick`]) and erased when the line is accepted, so it never
/// ends up in the transcript. `--plain` shows none (a screen reader would read every tick).
#[derive(Helper, Completer, Highlighter, Validator)]
struct ClockHint {
    clock: Clock,
    plain: bool,
}

impl Hinter for ClockHint {
    type Hint = ClockFace;

    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<ClockFace> {
        if self.plain || pos < line.len() {
            return None;
        }
        let guard = self.clock.lock().ok()?;
        let running = guard.as_ref()?;
        Some(ClockFace {
            start: running.start,
            faces: running.faces.clone(),
        })
    }
}

/// What the ticker asks rustyline to print: cursor up one row, then the newline rustyline
/// insists on after an external message, so the cursor is back where it was and nothing
/// scrolls. What the tick buys is the redraw that follows it: prompt, line buffer untouched,
/// and a freshly read [`ClockFace`].
const TICK: &str = "\x1b[A\n";

/// Redraws the prompt once a second while a clock runs and a line is being read, through
/// rustyline's external printer (the only way into its read loop from another thread). Ends
/// when the [`TtyInput`] that owns the clock is dropped.
fn tick(clock: &Clock, reading: &Arc<AtomicBool>, mut printer: impl ExternalPrinter) {
    let clock = Arc::downgrade(clock);
    let reading = Arc::downgrade(reading);
    loop {
        let wait = {
            let (Some(clock), Some(reading)) = (clock.upgrade(), reading.upgrade()) else {
                return;
            };
            let start = clock.lock().ok().and_then(|c| c.as_ref().map(|r| r.start));
            match start {
                Some(start) if reading.load(Ordering::SeqCst) => {
                    // Outside raw mode rustyline would write the tick straight to the
                    // terminal; `reading` is cleared as soon as readline returns.
                    if printer.print(TICK.to_string()).is_err() {
                        return;
                    }
                    // Wake on the next whole second of the clock, so the face turns on time.
                    let into = start.elapsed().subsec_nanos();
                    Duration::from_nanos(u64::from(1_000_000_000 - into.min(999_999_999)))
                }
                _ => Duration::from_millis(200),
            }
        };
        std::thread::sleep(wait);
    }
}

pub struct TtyInput {
    editor: Editor<ClockHint, DefaultHistory>,
    one_key: Arc<Mutex<OneKeyState>>,
    clock: Clock,
    reading: Arc<AtomicBool>,
}

impl TtyInput {
    pub fn new(plain: bool) -> anyhow::Result<TtyInput> {
        let mut editor = Editor::<ClockHint, DefaultHistory>::new()?;
        let clock: Clock = Arc::new(Mutex::new(None));
        editor.set_helper(Some(ClockHint {
            clock: clock.clone(),
            plain,
        }));
        let one_key = Arc::new(Mutex::new(OneKeyState::default()));
        // `!` opens a dispute of the verdict at the rating prompt, in one key like a rating.
        for key in ['1', '2', '3', '4', '!'] {
            editor.bind_sequence(
                KeyEvent::from(key),
                EventHandler::Conditional(Box::new(OneKey {
                    key,
                    state: one_key.clone(),
                })),
            );
        }
        let reading = Arc::new(AtomicBool::new(false));
        // No printer (not a terminal, or an unsupported one): the clock still redraws on
        // every keystroke.
        if !plain && let Ok(printer) = editor.create_external_printer() {
            let (clock, reading) = (clock.clone(), reading.clone());
            // A thread that cannot start leaves the clock as without a printer: redrawn on
            // every keystroke.
            let _ = std::thread::Builder::new()
                .name("quiz-clock".into())
                .spawn(move || tick(&clock, &reading, printer));
        }
        Ok(TtyInput {
            editor,
            one_key,
            clock,
            reading,
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
            *c = targets.map(|(b, s)| Running {
                start: Instant::now(),
                faces: Arc::new(faces(b, s)),
            });
        }
    }

    fn read(&mut self, prompt: &str, one_key: bool) -> anyhow::Result<Line> {
        self.arm(one_key);
        self.reading.store(true, Ordering::SeqCst);
        let res = self.editor.readline(prompt);
        self.reading.store(false, Ordering::SeqCst);
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
