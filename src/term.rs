//! Terminal manners in one place: whether to colour, how to paint, and how errors are printed.

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, Ordering};

use owo_colors::{OwoColorize, Stream, Style};

use crate::cli::{ColorChoice, Global};

static PLAIN: AtomicBool = AtomicBool::new(false);

/// Decide colour once, before anything prints.
///
/// `auto` sets no override, so owo-colors asks each stream on its own: stdout piped into a file
/// loses its colour while stderr on the terminal keeps it, and NO_COLOR / TERM=dumb are honoured.
pub fn init(g: &Global) {
    match (g.plain, g.color) {
        (true, _) | (_, ColorChoice::Never) => owo_colors::set_override(false),
        (false, ColorChoice::Always) => owo_colors::set_override(true),
        (false, ColorChoice::Auto) => {
            // supports-color treats an empty NO_COLOR as unset; the convention says any value.
            if std::env::var_os("NO_COLOR").is_some() {
                owo_colors::set_override(false);
            }
        }
    }
    PLAIN.store(g.plain, Ordering::Relaxed);
}

/// Screen-reader mode: no box drawing, no cursor tricks, one line per state change.
pub fn plain() -> bool {
    PLAIN.load(Ordering::Relaxed)
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
            std::process::exit(i32::from(READER_GONE));
        }
        default(info);
    }));
}

pub fn print_error(err: &anyhow::Error) {
    eprintln!("{} {err}", paint_err("error:", Style::new().red().bold()));
    for cause in err.chain().skip(1) {
        eprintln!(
            "  {} {cause}",
            paint_err("caused by:", Style::new().dimmed())
        );
    }
}
