//! `mcp-tutor grade DECK/CARD [ANSWER]`: grade one answer and print the checklist.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::deck::Library;
use crate::global::Global;
use crate::grader::{self, Grade};
use crate::judge::{Judge, Scope, Wait};
use crate::store::Store;

#[derive(Debug, clap::Args)]
// Each example is one shell command; a long one is continued with `\` on lines short enough
// that help never breaks them itself (a wrapped option could not be pasted as one command).
#[command(after_help = "Examples:\n  \
    mcp-tutor grade subscriptions/listen-first-message \\\n      \
    \"The server MUST first send notifications/subscriptions/acknowledged ...\"\n  \
    echo \"b, c\" | mcp-tutor grade subscriptions/some-choice-card --json\n  \
    mcp-tutor grade subscriptions/listen-first-message \"...\" \\\n      \
    --judge http://localhost:11434/v1 --judge-model llama3.1:8b\n  \
    mcp-tutor grade subscriptions/listen-first-message \"...\" --judge-prompt\n\n\
    Exits 0 whatever the verdict, and whatever becomes of the judge; non-zero only for an unknown\n\
    card, unreadable input or a judge set up wrong (no model, a URL that is not one).")]
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
    #[command(flatten)]
    pub judge: crate::judge::JudgeArgs,
    /// Print the exact request body the judge would be sent for this answer, and send nothing.
    #[arg(long)]
    pub judge_prompt: bool,
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
        let keys: Vec<String> = lib.cards().map(|(d, c)| d.key(c)).collect();
        bail!(
            "{}{hint}",
            mock_server::names::unknown(
                "card",
                &args.card,
                keys.iter().map(String::as_str),
                "cards are named DECK/CARD; `mcp-tutor decks list` shows them"
            )
        );
    };
    let answer = match args.answer {
        Some(a) => a,
        // Inspecting the prompt needs no answer typed at a terminal.
        None if args.judge_prompt && std::io::stdin().is_terminal() => String::new(),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("cannot read the answer from standard input")?;
            s
        }
    };
    let key = deck.key(card);
    if args.judge_prompt {
        return print_prompt(&args.judge, &key, card, &answer);
    }
    let grade = grader::grade_in(key.clone(), card, &answer);
    let Some(judge) = Judge::from_args(&args.judge, Scope::Learner)? else {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&grade)?);
        } else {
            print!(
                "{}",
                render(&super::quiz::render::order_checklist(card, &grade))
            );
        }
        return Ok(ExitCode::SUCCESS);
    };
    let store = match crate::paths::data_dir(g.data_dir.as_deref()).and_then(|d| Store::open(&d)) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("note: the judgement will not be kept, so the next grading asks again: {e}");
            None
        }
    };
    let j = judge.judge(
        store.as_ref(),
        &key,
        card,
        &answer,
        &grade,
        Wait::quiet(&mut |_| {}),
    );
    if args.json {
        let mut v = serde_json::to_value(&grade)?;
        v["judge"] = serde_json::to_value(&j)?;
        v["final_verdict"] = serde_json::to_value(j.final_verdict())?;
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!(
            "{}",
            render(&super::quiz::render::order_checklist(card, &grade))
        );
        let (plain, width) = (crate::term::plain(), crate::term::width());
        for l in crate::judge::render::lines(&j, &grade, plain, width, false) {
            println!("{l}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--judge-prompt`: the body as it would be sent (the model named as configured).
fn print_prompt(
    args: &crate::judge::JudgeArgs,
    key: &str,
    card: &crate::card::Card,
    answer: &str,
) -> anyhow::Result<ExitCode> {
    let named = crate::judge::config::model_named(args, crate::paths::config_file())?;
    let model = named.unwrap_or_else(|| {
        eprintln!("note: no judge model is set (--judge-model NAME): the body names it MODEL");
        "MODEL".to_string()
    });
    if !crate::judge::request::judges(card.kind) {
        eprintln!(
            "note: the judge is never asked about {} cards: the rules grade them exactly",
            card.kind_name()
        );
    }
    let req = crate::judge::request::build(key, card, answer, &model);
    println!("{}", serde_json::to_string_pretty(&req.body)?);
    Ok(ExitCode::SUCCESS)
}

/// The verdict line, then the checklist every command renders the same way (`term::checklist`).
pub fn render(g: &Grade) -> String {
    render_to(g, crate::term::plain(), crate::term::width())
}

/// [`render`] for a given mode and width (snapshot tests pin both).
pub fn render_to(g: &Grade, plain: bool, width: usize) -> String {
    use crate::term::ink;
    let unsure = match (g.confidence, g.untuned) {
        (grader::Confidence::Sure, _) => "",
        (grader::Confidence::Unsure, false) => " (not sure)",
        // Nobody has measured the rules on this card yet: say so.
        (grader::Confidence::Unsure, true) => " (not sure: no tuned answers yet)",
    };
    let mut out = format!(
        "{}  {}{unsure}  score {:.0}%  suggested rating: {}\n",
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
