//! `mcp-tutor grade DECK/CARD [ANSWER]`: grade one answer and print the checklist.

use std::io::Read;
use std::process::ExitCode;

use anyhow::{Context, bail};
use owo_colors::{OwoColorize, Stream, Style};

use crate::deck::Library;
use crate::global::Global;
use crate::grader::{self, Grade, Verdict};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp-tutor grade subscriptions/listen-first-message \"The server MUST first send notifications/subscriptions/acknowledged ...\"\n  \
    echo \"b, c\" | mcp-tutor grade subscriptions/some-choice-card --json\n\n\
    Exits 0 whatever the verdict; non-zero only for an unknown card or unreadable input.")]
pub struct Args {
    /// The card, as DECK/CARD (see `mcp-tutor decks list`).
    pub card: String,
    /// Your answer. Read from standard input when omitted. An answer that looks like a
    /// negative number (`-32602`) needs no `--`.
    #[arg(allow_negative_numbers = true)]
    pub answer: Option<String>,
    /// Print the grade as JSON instead of a checklist.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    let lib = Library::load(&g.deck_dirs);
    let Some((deck, card)) = lib.card(&args.card) else {
        let hint = if lib.errors.is_empty() {
            String::new()
        } else {
            format!(
                " ({} deck problem(s): run `mcp-tutor decks check`)",
                lib.errors.len()
            )
        };
        bail!(
            "unknown card `{}`; cards are named DECK/CARD, see `mcp-tutor decks list`{hint}",
            args.card
        );
    };
    let answer = match args.answer {
        Some(a) => a,
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("cannot read the answer from standard input")?;
            s
        }
    };
    let grade = grader::grade_in(deck.key(card), card, &answer);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&grade)?);
    } else {
        print!("{}", render(&grade));
    }
    Ok(ExitCode::SUCCESS)
}

/// The checklist a person reads; plain text when colour is off.
pub fn render(g: &Grade) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let verdict = match g.verdict {
        Verdict::Pass => paint("PASS", Style::new().green().bold()),
        Verdict::Partial => paint("PARTIAL", Style::new().yellow().bold()),
        Verdict::Fail => paint("FAIL", Style::new().red().bold()),
    };
    let _ = writeln!(
        out,
        "{}  {verdict}  score {:.0}%  suggested rating: {:?}",
        g.card,
        g.score * 100.0,
        g.suggested_rating
    );
    for p in &g.points {
        let mark = if p.hit {
            paint("[x]", Style::new().green())
        } else {
            paint("[ ]", Style::new().red())
        };
        let req = if p.required { "" } else { " (optional)" };
        let seen = p
            .span
            .as_ref()
            .filter(|_| p.hit)
            .map(|s| format!("  — \"{}\"", s.text))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {mark} {}{req}{}",
            p.label,
            paint(seen, Style::new().dimmed())
        );
    }
    for f in &g.red_flags {
        let _ = writeln!(
            out,
            "  {} {} — you said \"{}\"",
            paint("[!]", Style::new().red().bold()),
            f.label,
            f.span.text
        );
        let spec = if f.spec.is_empty() {
            String::new()
        } else {
            format!(" ({})", f.spec)
        };
        let _ = writeln!(
            out,
            "      {} {}{spec}",
            paint("correction:", Style::new().bold()),
            f.correction
        );
    }
    for n in &g.near_misses {
        let _ = writeln!(
            out,
            "  {} close: you wrote `{}`, the name is `{}`",
            paint("[~]", Style::new().yellow()),
            n.found,
            n.expected
        );
    }
    out
}

/// Colour only when `term::init` decided colour is on (NO_COLOR, `--color`, non-terminal).
fn paint(text: impl std::fmt::Display, style: Style) -> String {
    text.if_supports_color(Stream::Stdout, |t| t.style(style))
        .to_string()
}
