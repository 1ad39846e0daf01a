//! The options every command understands, kept at the bottom of the crate so the commands (and
//! `cli.rs`, which lists them) import it while nothing below the commands needs the CLI.

use std::path::PathBuf;

use clap::ValueEnum;

/// Options every subcommand understands.
#[derive(Debug, Clone, clap::Args)]
pub struct Global {
    /// When to use colour. `auto` turns it off when output is not a terminal or NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    /// Screen-reader friendly output: no colour, no box drawing, no cursor tricks.
    #[arg(long, global = true)]
    pub plain: bool,
    /// Where progress is stored (default: your data directory, e.g. ~/.local/share/mcp-tutor).
    #[arg(long, env = "MCP_TUTOR_HOME", global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Extra deck folder to load beside the built-in decks (repeatable).
    #[arg(long = "decks", global = true, value_name = "DIR")]
    pub deck_dirs: Vec<PathBuf>,
    /// Wrap text to this many columns (default: the terminal's width, or 80 when output is not
    /// a terminal).
    #[arg(long, global = true, value_name = "COLUMNS")]
    pub width: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}
