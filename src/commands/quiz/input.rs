//! Reading the user: rustyline on a terminal (editing, history, one-key ratings, the answer
//! clock), plain lines when standard input is a pipe or a file (so a session can be scripted).
//!
//! Reading stays linear in what is typed or pasted, however long: rustyline writes a typed key
//! straight to the screen only when nothing is drawn after the cursor and the key does not end
//! a screen row; anything else redraws the whole line. So the clock lives in the prompt (redrawn
//! once a second, not after every key), and a line is handed over in chunks of at most
//! [`CHUNK`] bytes (joined again before the quiz sees it), so no redraw costs more than a chunk.
//! A bracketed paste is read key by key like typing, newlines kept, instead of as one insert
//! that would make a 100 kB line.

use std::io::{BufRead, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{
    Cmd, Completer, ConditionalEventHandler, Editor, Event, EventContext, EventHandler,
    ExternalPrinter, Helper, Highlighter, Hinter, KeyCode, KeyEvent, Modifiers, Prompt,
    RepeatCount, Validator,
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
    /// Read one line after showing `prompt`. With `one_key`, a digit 1–4 or `!` typed on an empty
    /// line is taken at once, without Enter (terminal only).
    fn read(&mut self, prompt: &str, one_key: bool) -> anyhow::Result<Line>;

    /// One line of an answer: `fallback` is the prompt where no clock is drawn; `first` says
    /// whether it is the answer's first line. A terminal draws the running clock instead.
    fn answer(&mut self, fallback: &str, _first: bool) -> anyhow::Result<Line> {
        self.read(fallback, false)
    }

    /// Start (with the basics and solid-answer targets) or stop (`None`) the answer clock
    /// shown while typing. Only a terminal shows it.
    fn timer(&mut self, _targets: Option<(u32, u32)>) {}

    /// A person at a terminal (not a script): worth pausing for.
    fn interactive(&self) -> bool {
        false
    }
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

/// The longest piece of a line rustyline edits at once: past it, the next key ends the piece
/// and starts the next one with that key (the quiz gets the pieces joined, as typed). At 80
/// columns a piece is a dozen rows, so a redraw is cheap and stays on one screen.
const CHUNK: usize = 1024;

/// At most this many newlines pasted into one piece, for the same reason.
const CHUNK_ROWS: usize = 16;

#[derive(Default)]
struct KeyState {
    /// One key on an empty line (1–4, a rating; `!`, a dispute) is taken without Enter.
    armed: bool,
    pressed: Option<char>,
    /// Between the terminal's bracketed-paste markers: Enter and Tab are text, not commands.
    pasting: bool,
    after_cr: bool,
    /// Newlines pasted into the current piece.
    rows: usize,
    /// What the key that ended a full piece adds: the start of the next piece.
    carry: Option<String>,
}

/// One handler for every key (and for the one-key answers, which rustyline looks up before
/// the catch-all).
struct Keys {
    one_key: Option<char>,
    state: Arc<Mutex<KeyState>>,
}

impl ConditionalEventHandler for Keys {
    fn handle(&self, evt: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        let Event::KeySeq(keys) = evt else {
            return None;
        };
        let KeyEvent(code, mods) = *keys.first()?;
        let mut st = self.state.lock().ok()?;
        match code {
            KeyCode::BracketedPasteStart => {
                st.pasting = true;
                st.after_cr = false;
                return Some(Cmd::Noop);
            }
            KeyCode::BracketedPasteEnd => {
                st.pasting = false;
                return Some(Cmd::Noop);
            }
            _ => {}
        }
        if let Some(d) = self.one_key
            && st.armed
            && !st.pasting
            && ctx.line().is_empty()
        {
            st.pressed = Some(d);
            return Some(Cmd::AcceptLine);
        }
        let cr = st.pasting && code == KeyCode::Enter;
        let lf = st.pasting && code == KeyCode::Char('J') && mods == Modifiers::CTRL;
        if lf && st.after_cr {
            // "\r\n" is one line break.
            st.after_cr = false;
            return Some(Cmd::Noop);
        }
        st.after_cr = cr;
        let text = match code {
            KeyCode::Char(c)
                if !mods.contains(Modifiers::CTRL) && !mods.contains(Modifiers::ALT) =>
            {
                c.to_string()
            }
            _ if cr || lf => "\n".to_owned(),
            KeyCode::Tab if st.pasting => "\t".to_owned(),
            _ => return None,
        };
        let newline = text == "\n";
        let at_end = ctx.pos() == ctx.line().len();
        if at_end && (ctx.line().len() >= CHUNK || (newline && st.rows >= CHUNK_ROWS)) {
            st.carry = Some(text);
            st.rows = 0;
            return Some(Cmd::AcceptLine);
        }
        if newline {
            st.rows += 1;
        }
        // Pasted Enter and Tab are inserted as text; typed keys take rustyline's own path.
        (newline || text == "\t").then_some(Cmd::Insert(1, text))
    }
}

/// The running answer clock: when it started and its faces, one per second from then on,
/// for each kind of prompt line.
struct Running {
    start: Instant,
    first: Arc<Vec<String>>,
    more: Arc<Vec<String>>,
    piece: Arc<Vec<String>>,
}

/// The clock's faces are drawn up to 9:59 (one width for all); past it the last face stays.
const CLOCK_FACES: u64 = 10 * 60 - 1;

/// Every face of the clock for targets `basics` and `solid`, each followed by `suffix`, all one
/// width (rustyline measures a prompt once per line): `[0:12 · basics 20s] > `, then the
/// target being run against, then `over time` (the rating is capped at hard).
fn faces(basics: u32, solid: u32, suffix: &str) -> Vec<String> {
    let labels = [
        format!("basics {basics}s"),
        format!("solid {solid}s"),
        "over time".to_owned(),
    ];
    let pad = labels.iter().map(String::len).max().unwrap_or(0);
    (0..=CLOCK_FACES)
        .map(|secs| {
            let label = if secs > u64::from(solid) {
                &labels[2]
            } else if secs > u64::from(basics) {
                &labels[1]
            } else {
                &labels[0]
            };
            let face = format!("[{}:{:02} · {label}]", secs / 60, secs % 60);
            format!("{face:<w$}{suffix}", w = pad + 9)
        })
        .collect()
}

/// A prompt that reads the clock when it is drawn: rustyline draws the prompt from `raw()` on
/// every redraw, so the face is always the current second's.
struct ClockPrompt {
    start: Instant,
    faces: Arc<Vec<String>>,
}

impl Prompt for ClockPrompt {
    fn raw(&self) -> &str {
        let at = usize::try_from(self.start.elapsed().as_secs()).unwrap_or(usize::MAX);
        self.faces
            .get(at.min(self.faces.len().saturating_sub(1)))
            .map_or("", String::as_str)
    }
}

/// No completion, hints or highlighting: the helper exists for the key handlers' sake.
#[derive(Helper, Completer, Hinter, Highlighter, Validator)]
struct NoHelp;

/// What the ticker needs to know, and the bell that wakes it.
#[derive(Default)]
struct TickState {
    /// The clock's start, while one runs.
    clock: Option<Instant>,
    /// A line is being read (rustyline is in raw mode and owns the screen).
    reading: bool,
    /// The [`TtyInput`] is gone: the ticker ends.
    done: bool,
}

type Ticks = Arc<(Mutex<TickState>, Condvar)>;

/// What the ticker asks rustyline to print: cursor up one row, then the newline rustyline
/// insists on after an external message, so the cursor is back where it was and nothing
/// scrolls. What the tick buys is the redraw that follows it: the prompt with the current
/// face, the line untouched.
const TICK: &str = "\x1b[A\n";

/// Redraws the prompt at every whole second of the clock while a line is being read, through
/// rustyline's external printer (the only way into its read loop from another thread). Sleeps
/// on the condition variable otherwise, so an idle prompt costs nothing between ticks.
fn tick(ticks: &Ticks, mut printer: impl ExternalPrinter) {
    let (lock, bell) = &**ticks;
    let Ok(mut st) = lock.lock() else {
        return;
    };
    loop {
        if st.done {
            return;
        }
        let Some(start) = st.clock.filter(|_| st.reading) else {
            st = match bell.wait(st) {
                Ok(g) => g,
                Err(_) => return,
            };
            continue;
        };
        // Wake on the next whole second of the clock, so the face turns on time.
        let into = start.elapsed().subsec_nanos();
        let wait = Duration::from_nanos(u64::from(1_000_000_000 - into.min(999_999_999)));
        st = match bell.wait_timeout(st, wait) {
            Ok((g, timeout)) if timeout.timed_out() => g,
            Ok((g, _)) => {
                // Woken by a change (reading ended, clock stopped): look again.
                st = g;
                continue;
            }
            Err(_) => return,
        };
        if st.reading && st.clock == Some(start) {
            // Outside raw mode rustyline would write the tick straight to the terminal:
            // `reading` is cleared, under this lock, as soon as readline returns.
            if printer.print(TICK.to_string()).is_err() {
                return;
            }
        }
    }
}

pub struct TtyInput {
    editor: Editor<NoHelp, DefaultHistory>,
    keys: Arc<Mutex<KeyState>>,
    ticks: Ticks,
    clock: Option<Running>,
    plain: bool,
}

impl TtyInput {
    pub fn new(plain: bool) -> anyhow::Result<TtyInput> {
        let mut editor = Editor::<NoHelp, DefaultHistory>::new()?;
        editor.set_helper(Some(NoHelp));
        let keys = Arc::new(Mutex::new(KeyState::default()));
        // `!` opens a dispute of the verdict at the rating prompt, in one key like a rating.
        for key in ['1', '2', '3', '4', '!'] {
            editor.bind_sequence(
                KeyEvent::from(key),
                EventHandler::Conditional(Box::new(Keys {
                    one_key: Some(key),
                    state: keys.clone(),
                })),
            );
        }
        editor.bind_sequence(
            Event::Any,
            EventHandler::Conditional(Box::new(Keys {
                one_key: None,
                state: keys.clone(),
            })),
        );
        let ticks: Ticks = Arc::default();
        // No printer (not a terminal, or an unsupported one), or a thread that cannot start:
        // the clock turns on every redraw.
        if !plain && let Ok(printer) = editor.create_external_printer() {
            let ticks = ticks.clone();
            let _ = std::thread::Builder::new()
                .name("quiz-clock".into())
                .spawn(move || tick(&ticks, printer));
        }
        Ok(TtyInput {
            editor,
            keys,
            ticks,
            clock: None,
            plain,
        })
    }

    fn arm(&self, on: bool) {
        if let Ok(mut st) = self.keys.lock() {
            st.armed = on;
            st.pressed = None;
        }
    }

    fn set_reading(&self, on: bool) {
        let (lock, bell) = &*self.ticks;
        if let Ok(mut st) = lock.lock() {
            st.reading = on;
            bell.notify_all();
        }
    }

    /// The clock prompts for an answer's first or a later line, and for a further piece.
    fn clock_prompts(&self, first: bool) -> Option<(ClockPrompt, ClockPrompt)> {
        let r = self.clock.as_ref().filter(|_| !self.plain)?;
        let faces = if first { &r.first } else { &r.more };
        let prompt = |faces: &Arc<Vec<String>>| ClockPrompt {
            start: r.start,
            faces: faces.clone(),
        };
        Some((prompt(faces), prompt(&r.piece)))
    }

    /// One line, read in pieces of at most [`CHUNK`] bytes and joined. `prompt` starts it,
    /// `piece` each further piece.
    fn line(
        &mut self,
        prompt: &dyn Prompt,
        piece: &dyn Prompt,
        one_key: bool,
    ) -> anyhow::Result<Line> {
        self.arm(one_key);
        if let Ok(mut st) = self.keys.lock() {
            st.carry = None;
            st.rows = 0;
        }
        // Between the pieces of one line the terminal keeps from echoing, so keys that
        // arrive while one piece ends and the next begins are shown once, by rustyline.
        let _quiet = crate::term::tty::Quiet::stdin();
        let mut text = String::new();
        let mut carry: Option<String> = None;
        let res = loop {
            self.set_reading(true);
            let read = match &carry {
                Some(c) => self.editor.readline_with_initial(piece, (c, "")),
                None if text.is_empty() => self.editor.readline(prompt),
                None => self.editor.readline(piece),
            };
            self.set_reading(false);
            carry = self.keys.lock().ok().and_then(|mut st| st.carry.take());
            match read {
                Ok(part) => {
                    text.push_str(&part);
                    if carry.is_none() {
                        break Ok(());
                    }
                }
                Err(e) => break Err(e),
            }
        };
        let pressed = self.keys.lock().ok().and_then(|mut s| s.pressed.take());
        self.arm(false);
        match res {
            Ok(()) => {
                if let Some(k) = pressed {
                    return Ok(Line::Text(k.to_string()));
                }
                if !text.trim().is_empty() {
                    let _ = self.editor.add_history_entry(text.as_str());
                }
                Ok(Line::Text(text))
            }
            Err(ReadlineError::Eof) => Ok(Line::Eof),
            Err(ReadlineError::Interrupted) => Ok(Line::Interrupted),
            Err(e) => Err(e.into()),
        }
    }
}

impl Drop for TtyInput {
    fn drop(&mut self) {
        let (lock, bell) = &*self.ticks;
        if let Ok(mut st) = lock.lock() {
            st.done = true;
            bell.notify_all();
        }
    }
}

impl Input for TtyInput {
    fn interactive(&self) -> bool {
        true
    }

    fn timer(&mut self, targets: Option<(u32, u32)>) {
        self.clock = targets.map(|(b, s)| Running {
            start: Instant::now(),
            first: Arc::new(faces(b, s, " > ")),
            more: Arc::new(faces(b, s, "  ... ")),
            piece: Arc::new(faces(b, s, "  +   ")),
        });
        let (lock, bell) = &*self.ticks;
        if let Ok(mut st) = lock.lock() {
            st.clock = self.clock.as_ref().map(|r| r.start);
            bell.notify_all();
        }
    }

    fn read(&mut self, prompt: &str, one_key: bool) -> anyhow::Result<Line> {
        let piece = if self.plain { "continued> " } else { "+ " };
        self.line(&prompt.to_owned(), &piece.to_owned(), one_key)
    }

    fn answer(&mut self, fallback: &str, first: bool) -> anyhow::Result<Line> {
        match self.clock_prompts(first) {
            Some((prompt, piece)) => self.line(&prompt, &piece, false),
            None => self.read(fallback, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_face_of_one_line_has_one_width_and_names_the_target_it_runs_against() {
        let f = faces(20, 40, " > ");
        let width = f[0].chars().count();
        assert!(
            f.iter().all(|x| x.chars().count() == width),
            "{:?}",
            &f[..3]
        );
        assert_eq!(f[12].trim_end(), "[0:12 · basics 20s] >");
        assert_eq!(f[25].trim_end(), "[0:25 · solid 40s]  >");
        assert_eq!(f[45].trim_end(), "[0:45 · over time]  >");
        assert_eq!(
            f.last().map(|x| x.trim_end()),
            Some("[9:59 · over time]  >")
        );
    }
}
