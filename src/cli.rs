//! The command line: global options and one subcommand per job.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::global::Global;

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
    /// Explain a rule (keyword, meaning, cards, check, lab, spec) or the rules behind a card.
    Why(crate::why_cmd::Args),
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
        Command::Why(a) => crate::why_cmd::run(a, g),
        Command::Check(a) => crate::check::run(a, g),
        Command::Serve(a) => crate::serve::run(a, g),
        Command::Completions(a) => crate::completions::completions(&a, g),
        Command::Man(a) => crate::completions::man(&a),
    }
}
