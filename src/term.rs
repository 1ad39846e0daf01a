//! Terminal manners in one place: whether to colour, the palette, how wide to wrap, the grade
//! checklist every command shows the same way, and how errors are printed.

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use owo_colors::{OwoColorize, Stream, Style};

use crate::global::ColorChoice;
use crate::grader::Grade;

mod fill;
pub(crate) mod markdown;
pub(crate) mod tty;

pub use fill::{columns, reflow};

static PLAIN: AtomicBool = AtomicBool::new(false);
/// `--width`, or 0 for "ask the terminal".
static WIDTH: AtomicUsize = AtomicUsize::new(0);

/// Decide colour once, before anything prints.
///
/// `auto` sets no override, so owo-colors asks each stream on its own: stdout piped into a file
/// loses its colour while stderr on the terminal keeps it, and NO_COLOR / TERM=dumb are honoured.
pub fn init(color: ColorChoice, plain: bool, width: Option<usize>) {
    match (plain, color) {
        (true, _) | (_, ColorChoice::Never) => owo_colors::set_override(false),
        (false, ColorChoice::Always) => owo_colors::set_override(true),
        (false, ColorChoice::Auto) => {
            // supports-color treats an empty NO_COLOR as unset; the convention says any value.
            if std::env::var_os("NO_COLOR").is_some() {
                owo_colors::set_override(false);
            }
        }
    }
    PLAIN.store(plain, Ordering::Relaxed);
    WIDTH.store(width.unwrap_or(0), Ordering::Relaxed);
}

/// Screen-reader mode: no box drawing, no cursor tricks, one line per state change.
pub fn plain() -> bool {
    PLAIN.load(Ordering::Relaxed)
}

/// The columns prose is wrapped to: `--width`, else the terminal's width, else 80 (a pipe or a
/// file, so a transcript reads the same wherever it was made).
pub fn width() -> usize {
    match WIDTH.load(Ordering::Relaxed) {
        0 => terminal_size::terminal_size_of(std::io::stdout())
            .map_or(80, |(terminal_size::Width(w), _)| usize::from(w)),
        w => w,
    }
    .max(MIN_WIDTH)
}

/// Narrower than this, hanging indents leave no room for words.
const MIN_WIDTH: usize = 30;

/// `text` filled to `width` (the terminal's is [`width`]; snapshot tests pin it): the first line
/// starts with `first`, the rest with `rest`, so a list item keeps its hanging indent. Breaks
/// only at spaces and never inside a word, so a method name, a `code span` or a URL is never
/// split (a longer one overflows instead). A no-break space (see [`nobreak`]) holds two words
/// on one line and prints as a plain space.
pub fn wrap_to(text: &str, first: &str, rest: &str, width: usize) -> String {
    let opts = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::fill(text, opts).replace(NBSP, " ")
}

const NBSP: char = '\u{a0}';

/// `text` kept on one line by [`wrap_to`]: a command to type (`mcp-tutor why ack-first`) or a
/// number and its unit (`20 s`).
pub fn nobreak(text: &str) -> String {
    text.replace(' ', "\u{a0}")
}

/// One laid-out line filled to `width`, its continuation lines hanging two columns deeper
/// than its own indent (so `  missed 2 of 3  …` stays visibly one item). Multi-line input is
/// filled line by line.
pub fn hang(text: &str, width: usize) -> String {
    let mut out = String::new();
    // Joined by index, not by "is there output yet": a leading empty line is a blank line too.
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let body = line.trim_start_matches(' ');
        let indent = &line[..line.len() - body.len()];
        out.push_str(&wrap_to(body, indent, &format!("{indent}  "), width));
    }
    out
}

/// Like [`hang`], for output that mixes prose with laid-out lines: a line that holds JSON or
/// wire text (`{`, `[`, `| data: …`) or draws a diagram (`│`) is left exactly as it is.
pub fn hang_prose(text: &str, width: usize) -> String {
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let body = line.trim_start();
        let laid_out = body.starts_with(['{', '[', '|', '│', '┌', '└', '├'])
            || line.contains("{\"")
            || line.contains('│');
        if laid_out {
            out.push_str(line);
        } else {
            out.push_str(&hang(line, width));
        }
    }
    out
}

/// Multi-line text indented by `indent`, prose lines wrapped, anything that looks like code left
/// as written: lines inside a ``` fence, lines that start with whitespace (already laid out),
/// and JSON or table lines (`{`, `[`, `|`).
pub fn wrap_block_to(text: &str, indent: &str, width: usize) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.trim_end().lines() {
        if !out.is_empty() {
            out.push('\n');
        }
        let fence = line.trim_start().starts_with("```");
        if fence {
            fenced = !fenced;
        }
        let verbatim = fence
            || fenced
            || line.starts_with([' ', '\t', '{', '[', '|', '}', ']'])
            || line.trim().is_empty();
        if verbatim {
            out.push_str(indent);
            out.push_str(line);
        } else {
            out.push_str(&wrap_to(line, indent, indent, width));
        }
    }
    out
}

/// Screen-reader text for `--plain`: decorative glyphs read aloud as noise, so they become the
/// plain characters or words they stand for.
pub fn unglyph(text: &str) -> String {
    text.replace(" · ", ", ")
        .replace('·', " ")
        .replace(['“', '”'], "\"")
        .replace(['‘', '’'], "'")
        .replace(" — ", " - ")
        .replace('—', "-")
        .replace("§", "section ")
        .replace("⏱ ", "")
        .replace('⏱', "")
}

/// The palette: what each colour means, so every command paints a meaning the same way.
/// Meaning is always carried by words or marks as well; colour only adds to it.
pub mod ink {
    use owo_colors::Style;

    /// Hit, passed, done.
    pub fn good(s: &str) -> String {
        super::paint(s, Style::new().green())
    }
    /// Missed, failed, a misconception.
    pub fn bad(s: &str) -> String {
        super::paint(s, Style::new().red())
    }
    /// Partly there, close, worth a second look.
    pub fn warn(s: &str) -> String {
        super::paint(s, Style::new().yellow())
    }
    /// Headings and names to find at a glance.
    pub fn strong(s: &str) -> String {
        super::paint(s, Style::new().bold())
    }
    /// Asides: sources, hints on how to answer, what you said.
    pub fn faint(s: &str) -> String {
        super::paint(s, Style::new().dimmed())
    }
    /// Help the program offers (a hint, a notice).
    pub fn note(s: &str) -> String {
        super::paint(s, Style::new().cyan())
    }
    /// A verdict word, bold in its meaning's colour.
    pub fn verdict(v: crate::grader::Verdict) -> String {
        use crate::grader::Verdict;
        let (word, style) = match v {
            Verdict::Pass => ("PASS", Style::new().green().bold()),
            Verdict::Partial => ("PARTIAL", Style::new().yellow().bold()),
            Verdict::Fail => ("FAIL", Style::new().red().bold()),
        };
        super::paint(word, style)
    }
}

/// The grade checklist, one renderer for `grade` and the quiz: each key point hit or missed,
/// each red flag with its correction, each near miss. Marks are symbols on a terminal and words
/// with `plain` (a screen reader says "hit" better than "check mark"). Lines are wrapped to
/// `width` with the text hanging under the first word after the mark.
pub fn checklist(g: &Grade, plain: bool, width: usize) -> Vec<String> {
    let mut c = Checklist {
        plain,
        width,
        dash: if plain { " -" } else { " —" },
        lines: Vec::new(),
    };
    if g.truncated {
        let bare = if plain { "cut:" } else { "✂" };
        c.lines.push(wrap_to(
            &format!(
                "{} only the first {} bytes of this answer were graded; the rest was not read",
                ink::warn(bare),
                thousands(crate::grader::MAX_ANSWER)
            ),
            "  ",
            &" ".repeat(3 + bare.chars().count()),
            width,
        ));
    }
    c.points(g);
    c.red_flags(g);
    c.asides(g);
    if plain {
        c.lines.iter().map(|l| unglyph(l)).collect()
    } else {
        c.lines
    }
}

/// The checklist being written.
struct Checklist {
    plain: bool,
    width: usize,
    dash: &'static str,
    lines: Vec<String>,
}

impl Checklist {
    fn quote(&self, s: &str) -> String {
        if self.plain {
            format!("\"{}\"", s.trim())
        } else {
            format!("“{}”", s.trim())
        }
    }

    /// One item under a mark (`bare` is the mark without colour, for the hanging indent).
    fn item(&mut self, mark: String, bare: &str, text: String) {
        let hang = " ".repeat(2 + bare.chars().count() + 1);
        self.lines
            .push(wrap_to(&text, &format!("  {mark} "), &hang, self.width));
    }

    /// Each key point, hit (with what the learner said) or missed.
    fn points(&mut self, g: &Grade) {
        let dash = self.dash;
        for p in &g.points {
            let req = if p.required { " (required)" } else { "" };
            if p.hit {
                let said = p
                    .span
                    .as_ref()
                    .map(|s| ink::faint(&format!("{dash} you said {}", self.quote(&s.text))))
                    .unwrap_or_default();
                let bare = if self.plain { "hit:" } else { "✓" };
                self.item(ink::good(bare), bare, format!("{}{req}{said}", p.label));
            } else {
                let bare = if self.plain { "missed:" } else { "✗" };
                self.item(ink::bad(bare), bare, format!("{}{req}", p.label));
            }
        }
    }

    /// Each red flag raised, with its correction and reference.
    fn red_flags(&mut self, g: &Grade) {
        let dash = self.dash;
        for f in &g.red_flags {
            let bare = if self.plain {
                "red flag:"
            } else {
                "⚑ RED FLAG"
            };
            let text = format!(
                "{}{dash} you said {}",
                ink::strong(&f.label),
                self.quote(&f.span.text)
            );
            self.item(ink::bad(bare), bare, text);
            let spec = if f.spec.is_empty() {
                String::new()
            } else {
                format!(" ({})", f.spec)
            };
            self.lines.push(wrap_to(
                &format!("correction: {}{spec}", f.correction),
                "      ",
                "        ",
                self.width,
            ));
        }
    }

    /// What the grader could not check, and exact names almost written.
    fn asides(&mut self, g: &Grade) {
        let dash = self.dash;
        // The same note said once, with how often ("×49" for a pasted sentence repeated).
        for (u, n) in collapse(&g.unchecked, |u| u.text.trim().to_string()) {
            let bare = if self.plain { "not checked:" } else { "?" };
            let text = format!(
                "not checked against the card: {}{dash} compare it with the card's answer{}",
                self.quote(&u.text),
                times(n)
            );
            self.item(ink::warn(bare), bare, text);
        }
        for (n, k) in collapse(&g.near_misses, |n| {
            format!("{}\u{0}{}", n.found, n.expected)
        }) {
            let bare = if self.plain { "near miss:" } else { "≈" };
            self.item(
                ink::warn(bare),
                bare,
                format!(
                    "close: you wrote `{}`, the exact name is `{}` (not counted){}",
                    n.found,
                    n.expected,
                    times(k)
                ),
            );
        }
    }
}

/// `n` and its noun, singular for one: `1 card`, `2 cards` (`noun` is the singular; the plural
/// adds `s`).
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` with a comma between thousands: 20,000.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `text` in `style` when stdout takes colour, as it is otherwise.
pub fn paint<T: Display>(text: T, style: Style) -> String {
    text.if_supports_color(Stream::Stdout, |t| t.style(style))
        .to_string()
}

/// Like [`paint`], for text bound for stderr.
pub fn paint_err<T: Display>(text: T, style: Style) -> String {
    text.if_supports_color(Stream::Stderr, |t| t.style(style))
        .to_string()
}

/// Whether whoever read our standard output has gone (`mcp-tutor decks list | head -1`).
///
/// Asked of the descriptor itself rather than guessed from an error's text: a pipe whose reader
/// closed reports POLLERR on its write end. SIGPIPE stays ignored (Rust's default), so a server
/// child or socket that goes away still surfaces as an error the command can explain.
pub fn stdout_reader_gone() -> bool {
    #[cfg(unix)]
    {
        let mut fd = libc::pollfd {
            fd: libc::STDOUT_FILENO,
            events: 0,
            revents: 0,
        };
        // SAFETY: one valid pollfd, zero timeout; poll only writes `revents`.
        // SAFETY: a plain libc call on a stack value we own; no pointer outlives it.
        #[allow(unsafe_code)]
        let ready = unsafe { libc::poll(&raw mut fd, 1, 0) };
        ready == 1 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// The exit status a shell gives a command its reader stopped listening to (128 + SIGPIPE).
pub const READER_GONE: u8 = 141;

/// Every command that prints ends quietly when its reader goes away: `println!` panics on a
/// closed pipe and `writeln!(…)?` returns an error, and both end up here (the hook, or
/// [`print_error`]'s caller) and become a silent exit 141 instead of a panic or an error.
pub fn end_quietly_when_reader_leaves() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if stdout_reader_gone() {
            #[allow(
                clippy::disallowed_methods,
                reason = "a panic hook cannot return a status to main; the reader is gone, so \
                          there is nothing left to flush for it"
            )]
            std::process::exit(i32::from(READER_GONE));
        }
        default(info);
    }));
}

/// An error on stderr: filled to the terminal with a hanging indent when stderr is one (a
/// sentence broke mid-word at the terminal's edge), one line per message otherwise, for logs
/// and scripts that match it.
pub fn print_error(err: &anyhow::Error) {
    use std::io::IsTerminal;
    let width = if !std::io::stderr().is_terminal() {
        None
    } else {
        match WIDTH.load(Ordering::Relaxed) {
            0 => terminal_size::terminal_size_of(std::io::stderr())
                .map(|(terminal_size::Width(w), _)| usize::from(w).max(MIN_WIDTH)),
            w => Some(w.max(MIN_WIDTH)),
        }
    };
    let fill = |line: String| match width {
        Some(w) => hang(&line, w),
        None => line,
    };
    eprintln!(
        "{}",
        fill(format!(
            "{} {err}",
            paint_err("error:", Style::new().red().bold())
        ))
    );
    for cause in err.chain().skip(1) {
        eprintln!(
            "{}",
            fill(format!(
                "  {} {cause}",
                paint_err("caused by:", Style::new().dimmed())
            ))
        );
    }
}

/// Items with the same key, once each in first-seen order, with their count.
fn collapse<T>(items: &[T], key: impl Fn(&T) -> String) -> Vec<(&T, usize)> {
    let mut out: Vec<(&T, usize, String)> = Vec::new();
    for it in items {
        let k = key(it);
        match out.iter_mut().find(|(_, _, seen)| *seen == k) {
            Some(o) => o.1 += 1,
            None => out.push((it, 1, k)),
        }
    }
    out.into_iter().map(|(t, n, _)| (t, n)).collect()
}

fn times(n: usize) -> String {
    if n > 1 {
        format!(" (×{n})")
    } else {
        String::new()
    }
}
