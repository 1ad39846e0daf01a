//! The command line: every subcommand, in one place. The small ones are a file each; `quiz`,
//! `lab` and `check` are folders holding their `Args`, their `run` and the logic only they use.
//! Below this layer only `decks check` reaches in, to check the lab's scenario files.

mod check;
mod completions;
mod decks;
mod grade;
mod judge;
pub mod lab;
mod progress;
pub mod quiz;
mod serve;
mod stats;
mod version;
mod why;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

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

impl Cli {
    /// The command line of this process. `--version` also names the MCP revision and counts the
    /// built-in cards (see `version`); that text is built only when it may be printed.
    pub fn from_env() -> Cli {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        let mut command = Cli::command();
        if version::asked(&args) {
            command = command.version(version::text());
        }
        let mut matches = command.get_matches_from(args);
        Cli::from_arg_matches_mut(&mut matches)
            .unwrap_or_else(|e| e.format(&mut Cli::command()).exit())
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train: due cards, typed answers graded like an interviewer would, spaced repetition.
    Quiz(quiz::Args),
    /// Grade one answer against one card and print the checklist.
    Grade(grade::Args),
    /// Set up and test the optional model judge; write the requests it would be sent.
    Judge(judge::Args),
    /// List, show, check and export decks.
    Decks(decks::Args),
    /// What is due, how well you retain, your recurring misconceptions.
    Stats(stats::Args),
    /// Export or reset your review history.
    Progress(progress::Args),
    /// A REPL that drives an MCP server step by step and checks every frame on the wire.
    Lab(lab::Args),
    /// Check any MCP 2026-07-28 server against the subscription rules.
    Check(check::Args),
    /// Run the bundled mock MCP server (Streamable HTTP or stdio), optionally with faults.
    Serve(serve::Args),
    /// Explain a rule (keyword, meaning, cards, check, lab, spec) or the rules behind a card.
    Why(why::Args),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff) for `man`.
    Man(completions::ManArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let g = &cli.global;
    match cli.command {
        Command::Quiz(a) => quiz::run(a, g),
        Command::Grade(a) => grade::run(a, g),
        Command::Decks(a) => decks::run(a, g),
        Command::Judge(a) => judge::run(a, g),
        Command::Stats(a) => stats::run(a, g),
        Command::Progress(a) => progress::run(a, g),
        Command::Lab(a) => lab::run(a, g),
        Command::Why(a) => why::run(a, g),
        Command::Check(a) => check::run(a, g),
        Command::Serve(a) => serve::run(a, g),
        Command::Completions(a) => completions::completions(&a, g),
        Command::Man(a) => completions::man(&a),
    }
}
