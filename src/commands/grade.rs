//! `mcp-tutor grade DECK/CARD [ANSWER]`: grade one answer and print the checklist.

use std::io::Read;
use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::deck::Library;
use crate::global::Global;
use crate::grader::{self, Grade};

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

/// The verdict line, then the checklist every command renders the same way (`term::checklist`).
pub fn render(g: &Grade) -> String {
    render_to(g, crate::term::plain(), crate::term::width())
}

/// [`render`] for a given mode and width (snapshot tests pin both).
pub fn render_to(g: &Grade, plain: bool, width: usize) -> String {
    use crate::term::ink;
    let mut out = format!(
        "{}  {}  score {:.0}%  suggested rating: {}\n",
        g.card,
        ink::verdict(g.verdict),
        g.score.max(0.0) * 100.0 + 0.0,
        crate::scheduler::rating_str(g.suggested_rating)
    );
    for line in crate::term::checklist(g, plain, width) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}
