//! Terminal manners in one place: whether to colour, how to paint, and how errors are printed.

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, Ordering};

use owo_colors::{OwoColorize, Stream, Style};

use crate::global::ColorChoice;

static PLAIN: AtomicBool = AtomicBool::new(false);

/// Decide colour once, before anything prints.
///
/// `auto` sets no override, so owo-colors asks each stream on its own: stdout piped into a file
/// loses its colour while stderr on the terminal keeps it, and NO_COLOR / TERM=dumb are honoured.
pub fn init(color: ColorChoice, plain: bool) {
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

pub fn print_error(err: &anyhow::Error) {
    eprintln!("{} {err}", paint_err("error:", Style::new().red().bold()));
    for cause in err.chain().skip(1) {
        eprintln!(
            "  {} {cause}",
            paint_err("caused by:", Style::new().dimmed())
        );
    }
}
