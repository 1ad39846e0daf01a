//! `mcp-tutor progress`: take your review history with you, or start a card over.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};

use crate::global::Global;
use crate::store::{ReviewRow, Store};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON object per review.
    Jsonl,
    /// A header row, then one row per review (lists joined with `; `).
    Csv,
}

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Print the whole review log (undone reviews included, marked `undone`).
    #[command(after_help = "Example:  mcp-tutor progress export --format csv > reviews.csv")]
    Export {
        #[arg(long, value_enum, default_value_t = Format::Jsonl)]
        format: Format,
    },
    /// Forget the progress of one card (DECK/CARD), a whole deck (DECK), or everything (--all).
    #[command(after_help = "\
Asks before deleting; --yes skips the question (for scripts).
Examples:
  mcp-tutor progress reset subscriptions/listen-first-message
  mcp-tutor progress reset subscriptions
  mcp-tutor progress reset --all --yes")]
    Reset {
        /// DECK/CARD or DECK.
        #[arg(
            value_name = "CARD|DECK",
            required_unless_present = "all",
            conflicts_with = "all"
        )]
        target: Option<String>,
        /// Every card.
        #[arg(long)]
        all: bool,
        /// Do not ask.
        #[arg(long)]
        yes: bool,
    },
}

const CSV_COLUMNS: [&str; 21] = [
    "id",
    "card",
    "at",
    "rating",
    "suggested",
    "verdict",
    "score",
    "points_hit",
    "points_missed",
    "red_flags",
    "answer_ms",
    "basics_s",
    "solid_s",
    "hints",
    "deeper",
    "mode",
    "scheduled",
    "card_hash",
    "session",
    "source",
    "undone",
];

/// A review as JSON with its score to two decimals, as `grade --json` writes it (the store
/// keeps a 32-bit float: 0.1666666865348816 is 0.17).
fn rounded(r: &ReviewRow) -> anyhow::Result<serde_json::Value> {
    let mut v = serde_json::to_value(r)?;
    if let Some(score) = v.get_mut("score")
        && let Some(x) = score.as_f64()
    {
        *score = serde_json::json!((x * 100.0).round() / 100.0);
    }
    Ok(v)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn csv_row(r: &ReviewRow) -> String {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let num = |v: Option<i64>| v.map(|n| n.to_string()).unwrap_or_default();
    let fields = [
        r.id.to_string(),
        r.card.clone(),
        r.at.to_rfc3339(),
        r.rating.clone(),
        opt(&r.suggested),
        opt(&r.verdict),
        r.score.map(|s| format!("{s:.2}")).unwrap_or_default(),
        r.points_hit.join("; "),
        r.points_missed.join("; "),
        r.red_flags.join("; "),
        num(r.answer_ms),
        num(r.basics_s),
        num(r.solid_s),
        r.hints.to_string(),
        r.deeper.to_string(),
        r.mode.clone(),
        r.scheduled.to_string(),
        opt(&r.card_hash),
        opt(&r.session),
        opt(&r.source),
        r.undone.to_string(),
    ];
    fields
        .iter()
        .map(|f| csv_field(f))
        .collect::<Vec<_>>()
        .join(",")
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    let dir = crate::paths::data_dir(g.data_dir.as_deref())?;
    match args.command {
        Cmd::Export { format } => {
            // Export only reads: it works on a read-only store.
            let store = Store::open_read_only(&dir)?;
            match export(&store, format) {
                Err(e)
                    if e.downcast_ref::<std::io::Error>()
                        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
                {
                    // `progress export | head` closed the pipe: not an error.
                    Ok(ExitCode::SUCCESS)
                }
                other => other,
            }
        }
        Cmd::Reset { target, all, yes } => reset(&Store::open(&dir)?, target, all, yes),
    }
}

fn export(store: &Store, format: Format) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let rows = store.reviews()?;
    if format == Format::Csv {
        writeln!(out, "{}", CSV_COLUMNS.join(","))?;
    }
    for r in &rows {
        match format {
            Format::Jsonl => writeln!(out, "{}", serde_json::to_string(&rounded(r)?)?)?,
            Format::Csv => writeln!(out, "{}", csv_row(r))?,
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn reset(store: &Store, target: Option<String>, all: bool, yes: bool) -> anyhow::Result<ExitCode> {
    let target = if all { None } else { target };
    let cards = store.cards_matching(target.as_deref())?;
    let what = target.as_deref().unwrap_or("every card");
    if cards.is_empty() && target.is_none() {
        // Asking to forget everything when nothing is recorded already has its result.
        println!(
            "nothing to reset: no reviews are recorded yet in {}.",
            store.path().display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if cards.is_empty() {
        eprintln!(
            "nothing to reset: no progress recorded for `{what}` (cards are DECK/CARD, decks DECK; see `mcp-tutor progress export`)"
        );
        return Ok(ExitCode::from(1));
    }
    let reviews: usize = cards.iter().map(|(_, n)| n).sum();
    let question = format!(
        "Reset {what}: forget {} card{} and delete {reviews} review{}? This cannot be undone. [y/N] ",
        cards.len(),
        if cards.len() == 1 { "" } else { "s" },
        if reviews == 1 { "" } else { "s" }
    );
    if !yes {
        eprint!("{question}");
        std::io::stderr().flush()?;
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        if !std::io::stdin().is_terminal() {
            eprintln!();
        }
        if !matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            eprintln!("nothing reset.");
            return Ok(ExitCode::from(1));
        }
    }
    let keys: Vec<String> = cards.into_iter().map(|(c, _)| c).collect();
    let n = store.reset(&keys)?;
    println!(
        "reset {} card{}: {n} review{} deleted.",
        keys.len(),
        if keys.len() == 1 { "" } else { "s" },
        if n == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}
