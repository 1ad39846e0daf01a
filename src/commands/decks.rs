//! `mcp-tutor decks list | show | check | export`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use clap::{Subcommand, ValueEnum};
use owo_colors::Style;

use crate::term::{paint, paint_err};

use crate::deck::{Deck, DeckError, Library, export, facts, validate};
use crate::global::Global;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: DecksCommand,
}

#[derive(Debug, Subcommand)]
pub enum DecksCommand {
    /// Every deck and card, with its kind and the facts it teaches.
    List,
    /// One card in full: question, key points, answers, code, go-deeper, red flags.
    Show {
        /// DECK/CARD (a bare CARD works when only one deck has it).
        card: String,
    },
    /// Validate decks and run each card's golden self-tests; exit 1 on any problem.
    #[command(
        long_about = "Validate decks and run each card's golden self-tests.\n\n\
        Checks the format, ids, follow-ups, facts numbers (against PROTOCOL.md §9), match rules and \
        kind-specific fields, then grades each card's own answer (it must hit every required point \
        and fire no red flag) and each red flag's examples (must fire) and non-examples (must not).\n\n\
        Without PATH it checks the built-in decks plus --decks folders and your decks folder, and \
        also requires the built-in decks to cover every fact 1-60. With PATHs (files or folders) \
        it checks only those."
    )]
    Check {
        /// Deck files or folders to check instead of the loaded decks.
        paths: Vec<PathBuf>,
    },
    /// Print all decks as JSON (for tools) or as a Markdown study sheet.
    Export {
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Md,
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    match args.command {
        DecksCommand::List => list(g),
        DecksCommand::Show { card } => show(g, &card),
        DecksCommand::Check { paths } => check(g, &paths),
        DecksCommand::Export { format } => {
            let lib = Library::load(&g.deck_dirs);
            warn_errors(&lib.errors);
            match format {
                Format::Json => {
                    println!("{}", serde_json::to_string_pretty(&export::to_json(&lib))?)
                }
                Format::Md => print!("{}", export::to_markdown(&lib)),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn warn_errors(errors: &[DeckError]) {
    for e in errors {
        eprintln!(
            "{} {e}",
            paint_err("warning:", Style::new().yellow().bold())
        );
    }
    if !errors.is_empty() {
        eprintln!("run `mcp-tutor decks check` for details");
    }
}

fn list(g: &Global) -> anyhow::Result<ExitCode> {
    let lib = Library::load(&g.deck_dirs);
    warn_errors(&lib.errors);
    for d in &lib.decks {
        println!(
            "{}  {} ({} cards, {})",
            paint(&d.meta.id, Style::new().bold()),
            d.meta.title,
            d.cards.len(),
            paint(&d.source, Style::new().dimmed())
        );
        for c in &d.cards {
            let facts = if c.facts.is_empty() {
                String::new()
            } else {
                format!(
                    " [facts {}]",
                    c.facts
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                )
            };
            println!(
                "  {:<44} {:<12} {}{}",
                d.key(c),
                c.kind_name(),
                first_line(&c.question),
                paint(facts, Style::new().dimmed())
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn first_line(s: &str) -> String {
    let line = s.trim().lines().next().unwrap_or("");
    if line.chars().count() > 70 {
        format!("{}…", line.chars().take(69).collect::<String>())
    } else {
        line.to_string()
    }
}

fn show(g: &Global, key: &str) -> anyhow::Result<ExitCode> {
    let lib = Library::load(&g.deck_dirs);
    let Some((deck, card)) = lib.card(key) else {
        bail!("unknown card `{key}`; cards are named DECK/CARD, see `mcp-tutor decks list`");
    };
    // The study sheet renders one card exactly as `export --format md` does, follow-ups included.
    let one = Library {
        decks: vec![Deck {
            meta: deck.meta.clone(),
            cards: with_followups(deck, &card.id),
            source: deck.source.clone(),
        }],
        errors: Vec::new(),
    };
    let md = export::to_markdown(&one);
    // Drop the sheet's title, deck heading and coverage footer: just the card.
    let body: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("### "))
        .take_while(|l| *l != "---")
        .collect();
    println!("{}", body.join("\n").trim_end());
    Ok(ExitCode::SUCCESS)
}

fn with_followups(deck: &Deck, id: &str) -> Vec<crate::card::Card> {
    let mut out = Vec::new();
    let mut todo = vec![id.to_string()];
    while let Some(id) = todo.pop() {
        if out.iter().any(|c: &crate::card::Card| c.id == id) {
            continue;
        }
        if let Some(c) = deck.card(&id) {
            todo.extend(c.followups.iter().rev().cloned());
            out.push(c.clone());
        }
    }
    out
}

fn check(g: &Global, paths: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let embedded_run = paths.is_empty();
    let lib = if embedded_run {
        Library::load(&g.deck_dirs)
    } else {
        Library::from_paths(paths)
    };
    let mut problems: Vec<DeckError> = lib.errors.clone();
    for d in &lib.decks {
        match source_text(d) {
            Some(text) => problems.extend(validate::self_test(d, &text)),
            None => problems.push(DeckError {
                file: d.source.clone(),
                line: 0,
                column: 0,
                message: "cannot re-read the deck to run its self-tests".into(),
            }),
        }
    }
    if embedded_run {
        if facts::all().len() != 60 {
            problems.push(DeckError {
                file: "decks/facts.toml".into(),
                line: 0,
                column: 0,
                message: format!(
                    "expected the 60 facts of PROTOCOL.md §9, found {}",
                    facts::all().len()
                ),
            });
        }
        let shipped = Library::embedded();
        let missing = export::uncovered(&shipped);
        if !missing.is_empty() {
            problems.push(DeckError {
                file: "decks/".into(),
                line: 0,
                column: 0,
                message: format!(
                    "the built-in decks leave PROTOCOL.md §9 fact(s) {} uncovered; add cards that teach them and list them in `facts`",
                    missing.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                ),
            });
        }
    }
    let cards: usize = lib.decks.iter().map(|d| d.cards.len()).sum();
    for p in &problems {
        eprintln!("{} {p}", paint_err("error:", Style::new().red().bold()));
    }
    if problems.is_empty() {
        println!(
            "{} {} deck(s), {cards} card(s): all checks and self-tests pass",
            paint("ok:", Style::new().green().bold()),
            lib.decks.len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "{} problem(s) in {} deck(s), {cards} card(s)",
            problems.len(),
            lib.decks.len()
        );
        Ok(ExitCode::from(1))
    }
}

/// The deck file's text, to locate self-test failures: the file on disk when there is one
/// (`decks check decks/new.toml`), else the embedded copy.
fn source_text(d: &Deck) -> Option<String> {
    if let Ok(t) = std::fs::read_to_string(&d.source) {
        return Some(t);
    }
    let name = d.source.strip_prefix("decks/")?;
    crate::deck::embedded_text(name).map(str::to_string)
}
