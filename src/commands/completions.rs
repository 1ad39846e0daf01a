//! `mcp-tutor completions SHELL` and `mcp-tutor man`: the command line described for shells
//! and for `man`.
//!
//! Completion scripts are static, so values that live in decks (card ids, deck ids, guided
//! scenarios, the mock server's faults, the rules `why` explains) are written into the script as value lists when it is
//! generated: regenerate it after adding a deck.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::builder::PossibleValuesParser;
use clap::{Command, CommandFactory};

use super::Cli;
use crate::deck::Library;
use crate::global::Global;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Install (bash):  mcp-tutor completions bash > ~/.local/share/bash-completion/completions/mcp-tutor\n\
    Install (zsh):   mcp-tutor completions zsh > ~/.zfunc/_mcp-tutor   (with fpath+=~/.zfunc)\n\
    Install (fish):  mcp-tutor completions fish > ~/.config/fish/completions/mcp-tutor.fish\n\n\
    Card ids, deck ids, scenarios and faults are listed in the script: regenerate it after \
    adding a deck (the --decks folders given here are included)."
)]
pub struct CompletionsArgs {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Install:  mcp-tutor man --out-dir ~/.local/share/man/man1\n    Read one: mcp-tutor man | man -l -"
)]
pub struct ManArgs {
    /// Write a page for every command (mcp-tutor.1, mcp-tutor-quiz.1, …) into DIR instead of
    /// printing the top page.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<std::path::PathBuf>,
}

pub fn completions(args: &CompletionsArgs, g: &Global) -> anyhow::Result<ExitCode> {
    // Built first so positional arguments have their indexes: a value list swapped onto
    // `grade CARD` must not move CARD behind the optional ANSWER.
    let mut built = Cli::command();
    built.build();
    let mut cmd = with_values(built, &Values::load(g));
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, BIN, &mut script);
    if args.shell == clap_complete::Shell::Bash {
        script = fix_bash_hyphen(&String::from_utf8_lossy(&script)).into_bytes();
    }
    std::io::stdout().write_all(&script)?;
    Ok(ExitCode::SUCCESS)
}

const BIN: &str = "mcp-tutor";

/// clap_complete's bash script spells the state of a hyphenated binary's subcommands two ways
/// (the loop sets `mcp__tutor__subcmd__quiz`, the arms match `mcp__subcmd__tutor__subcmd__quiz`),
/// so nothing after a subcommand ever completed (clap-rs/clap#6421). Spell the arms like the
/// loop; once clap_complete is fixed this replaces nothing.
fn fix_bash_hyphen(script: &str) -> String {
    script.replace("mcp__subcmd__tutor", "mcp__tutor")
}

pub fn man(args: &ManArgs) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        clap_mangen::generate_to(Cli::command(), dir)
            .with_context(|| format!("cannot write the pages into {}", dir.display()))?;
        println!("wrote the manual pages into {}", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    std::io::stdout().write_all(&page)?;
    Ok(ExitCode::SUCCESS)
}

/// What the shell can offer beyond the command line's own names.
struct Values {
    cards: Vec<String>,
    /// What `why` takes: the rules of docs/rules.md, then the cards.
    rules_and_cards: Vec<String>,
    decks: Vec<String>,
    scenarios: Vec<String>,
    faults: Vec<String>,
}

impl Values {
    fn load(g: &Global) -> Values {
        let lib = Library::load(&g.deck_dirs);
        let cards: Vec<String> = lib
            .cards()
            .map(|(d, c)| format!("{}/{}", d.meta.id, c.id))
            .collect();
        let mut decks: Vec<String> = lib.cards().map(|(d, _)| d.meta.id.clone()).collect();
        decks.dedup();
        // A scenario file that does not parse is `lab --list`'s to report, not ours.
        let scenarios = super::lab::scenario::all()
            .map(|all| all.into_iter().map(|s| s.scenario.id).collect())
            .unwrap_or_default();
        let faults = mock_server::Fault::all()
            .iter()
            .map(|f| f.name().to_owned())
            .collect();
        let rules_and_cards = crate::rules_doc::doc()
            .rules
            .iter()
            .map(|r| r.id.clone())
            .chain(cards.iter().cloned())
            .collect();
        Values {
            cards,
            rules_and_cards,
            decks,
            scenarios,
            faults,
        }
    }
}

/// `cmd` with value lists on the arguments that name cards, decks, scenarios and faults.
fn with_values(cmd: Command, v: &Values) -> Command {
    let cmd = offer(cmd, &["quiz"], "cards", &v.cards);
    let cmd = offer(cmd, &["quiz"], "decks", &v.decks);
    let cmd = offer(cmd, &["grade"], "card", &v.cards);
    let cmd = offer(cmd, &["decks", "show"], "card", &v.cards);
    let cmd = offer(cmd, &["why"], "what", &v.rules_and_cards);
    let cmd = offer(cmd, &["lab"], "scenario", &v.scenarios);
    let cmd = offer(cmd, &["lab"], "faults", &v.faults);
    offer(cmd, &["serve"], "faults", &v.faults)
}

/// Offers `values` for argument `arg` of the subcommand at `path`, if both exist (another
/// command's arguments may be renamed; the completions test names the ones that matter).
fn offer(cmd: Command, path: &[&str], arg: &str, values: &[String]) -> Command {
    let Some((first, rest)) = path.split_first() else {
        if values.is_empty() || !cmd.get_arguments().any(|a| a.get_id() == arg) {
            return cmd;
        }
        let values = values.to_vec();
        return cmd.mut_arg(arg, |a| a.value_parser(PossibleValuesParser::new(values)));
    };
    if cmd.find_subcommand(first).is_none() {
        return cmd;
    }
    cmd.mut_subcommand(first, |sub| offer(sub, rest, arg, values))
}
