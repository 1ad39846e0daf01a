//! `mcp-tutor judge`: the model judge's own tools. `requests` writes out what a corpus would
//! send, for replies written without a model (the replay tests).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};

use crate::deck::Library;
use crate::deck::eval::{Corpus, Part};
use crate::global::Global;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: JudgeCommand,
}

#[derive(Debug, Subcommand)]
pub enum JudgeCommand {
    /// Write the exact requests the judge would be sent for the graded corpus, card by card,
    /// with a README saying how to write the replies a replay serves (sends nothing).
    #[command(
        after_help = "Example:\n  mcp-tutor judge requests out/requests --replies out/replies --part held-out"
    )]
    Requests {
        /// The folder to write: prefix.txt, schema.json, cards/DECK--CARD.md, README.md.
        out: PathBuf,
        /// Where the README tells the replier to write one DECK--CARD.json per card.
        #[arg(long, value_name = "DIR", default_value = "replies")]
        replies: PathBuf,
        /// Which part of the corpus.
        #[arg(long, value_enum, default_value_t = Which::HeldOut)]
        part: Which,
        /// Read the corpus from this folder (DIR/*.toml, DIR/held-out/*.toml) instead of the
        /// built-in one.
        #[arg(long, value_name = "DIR")]
        answers: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Which {
    HeldOut,
    Tuned,
    All,
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    match args.command {
        JudgeCommand::Requests {
            out,
            replies,
            part,
            answers,
        } => {
            let lib = Library::load(&g.deck_dirs);
            let corpus = match &answers {
                Some(dir) => Corpus::from_dir(dir),
                None => Corpus::embedded(),
            };
            if let Some(e) = corpus.errors.first() {
                anyhow::bail!("{e}");
            }
            let part = match part {
                Which::HeldOut => Some(Part::HeldOut),
                Which::Tuned => Some(Part::Tuned),
                Which::All => None,
            };
            let d = crate::judge::replay::dump(&lib, &corpus, part, &out, &replies)?;
            println!(
                "wrote {} answers to {} cards under {} ({} answers to cards the judge does not read left out)",
                d.answers,
                d.cards,
                out.display(),
                d.skipped
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
