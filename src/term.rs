//! Terminal manners in one place: whether to colour, and how errors are printed.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use owo_colors::OwoColorize;

use crate::cli::{ColorChoice, Global};

static PLAIN: AtomicBool = AtomicBool::new(false);

/// Decide colour once, before anything prints. `auto` honours NO_COLOR and a non-terminal stdout.
pub fn init(g: &Global) {
    let colour = !g.plain
        && match g.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stdout().is_terminal()
            }
        };
    owo_colors::set_override(colour);
    PLAIN.store(g.plain, Ordering::Relaxed);
}

/// Screen-reader mode: no box drawing, no cursor tricks, one line per state change.
pub fn plain() -> bool {
    PLAIN.load(Ordering::Relaxed)
}

pub fn print_error(err: &anyhow::Error) {
    eprintln!("{} {err}", "error:".red().bold());
    for cause in err.chain().skip(1) {
        eprintln!("  {} {cause}", "caused by:".dimmed());
    }
}
