//! The command line: global options and one subcommand per job.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "mcp-tutor",
    version,
    about = "Learn the subscription rules of the Model Context Protocol (revision 2026-07-28) cold.",
    long_about = "Learn the subscription rules of the Model Context Protocol (revision 2026-07-28) cold.\n\n\
        `quiz` trains you like an interviewer would: typed answers graded against key points, \
        misconceptions caught, spaced repetition that never loses progress.\n\
        `lab` drives a real MCP server step by step so you watch subscriptions/listen, the \
        acknowledgement, tagged notifications and the graceful close happen on the wire.",
    after_help = "Start with:  mcp-tutor quiz        (due cards from the built-in decks)\n\
                  Or watch:    mcp-tutor lab         (a REPL against the bundled mock server)"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train: due cards, typed answers graded like an interviewer would, spaced repetition.
    Quiz(crate::quiz::Args),
    /// Grade one answer against one card and print the checklist.
    Grade(crate::grade_cmd::Args),
    /// List, show, check and export decks.
    Decks(crate::decks_cmd::Args),
    /// What is due, how well you retain, your recurring misconceptions.
    Stats(crate::stats::Args),
    /// Export or reset your review history.
    Progress(crate::progress_cmd::Args),
    /// A REPL that drives an MCP server step by step and checks every frame on the wire.
    Lab(crate::lab::Args),
    /// Check any MCP 2026-07-28 server against the subscription rules.
    Check(crate::check::Args),
    /// Run the bundled mock MCP server (Streamable HTTP or stdio), optionally with faults.
    Serve(crate::serve::Args),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(crate::completions::CompletionsArgs),
    /// Print the manual page (roff) for `man`.
    Man(crate::completions::ManArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let g = &cli.global;
    match cli.command {
        Command::Quiz(a) => crate::quiz::run(a, g),
        Command::Grade(a) => crate::grade_cmd::run(a, g),
        Command::Decks(a) => crate::decks_cmd::run(a, g),
        Command::Stats(a) => crate::stats::run(a, g),
        Command::Progress(a) => crate::progress_cmd::run(a, g),
        Command::Lab(a) => crate::lab::run(a, g),
        Command::Check(a) => crate::check::run(a, g),
        Command::Serve(a) => crate::serve::run(a, g),
        Command::Completions(a) => crate::completions::completions(&a, g),
        Command::Man(a) => crate::completions::man(&a),
    }
}
