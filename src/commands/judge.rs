//! `mcp-tutor judge`: the model judge's own tools. `setup` finds a model server on this
//! machine and writes the config file; `test` sends one canned answer and says what came back;
//! `requests` writes out what a corpus would send, for replies written without a model (the
//! replay tests).

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
    /// Find a model server on this machine (Ollama :11434, llama.cpp :8080, LM Studio :1234,
    /// vLLM :8000, on loopback only), list its models, and write the judge into the config file
    /// once you say yes.
    #[command(
        after_help = "Examples:\n  mcp-tutor judge setup\n  mcp-tutor judge setup --model llama3.1:8b --yes\n  mcp-tutor judge setup --at http://127.0.0.1:9000/v1\n\nA hosted API is never probed: set it with `url` and `model` under [judge] in the config file\nand its key in MCP_TUTOR_JUDGE_KEY."
    )]
    Setup {
        /// Probe this server (its base URL) instead of the usual local ports; may be repeated.
        #[arg(long, value_name = "URL")]
        at: Vec<String>,
        /// Judge with this model (one a server lists) instead of choosing.
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// Write the config file without asking.
        #[arg(long)]
        yes: bool,
    },
    /// Grade one canned answer with the configured judge (or --judge URL --judge-model NAME)
    /// and print the model, the time it took, its verdict and whether it honoured the reply's
    /// JSON schema. Always sends: nothing is read from the store.
    Test {
        #[command(flatten)]
        judge: crate::judge::JudgeArgs,
    },
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
        JudgeCommand::Setup { at, model, yes } => setup(&at, model.as_deref(), yes),
        JudgeCommand::Test { judge } => test(g, &judge),
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

/// The card and answer `judge test` sends: a paraphrase a fair judge passes.
const TEST_CARD: &str = "subscriptions/listen-first-message";
const TEST_ANSWER: &str =
    "It has to send notifications/subscriptions/acknowledged, and nothing may precede it.";

fn test(g: &Global, args: &crate::judge::JudgeArgs) -> anyhow::Result<ExitCode> {
    use crate::judge::{Judge, Scope};
    let Some(judge) = Judge::from_args(args, Scope::Learner)? else {
        anyhow::bail!(
            "no judge is set up: run `mcp-tutor judge setup`, or pass --judge URL --judge-model NAME"
        );
    };
    let lib = Library::load(&g.deck_dirs);
    let Some((deck, card)) = lib.card(TEST_CARD) else {
        anyhow::bail!("the built-in card {TEST_CARD} is missing: run `mcp-tutor decks check`");
    };
    let key = deck.key(card);
    let rules = crate::grader::grade_in(key.clone(), card, TEST_ANSWER);
    let s = &judge.settings;
    println!("judge:   {} at {}", s.model, s.endpoint);
    println!("card:    {key}");
    println!("answer:  {TEST_ANSWER}");
    let t = judge.trial(&key, card, TEST_ANSWER, &rules);
    let tokens = match t.usage {
        Some((p, c)) => format!(", {p} prompt + {c} reply tokens (as the endpoint counts them)"),
        None => String::new(),
    };
    println!(
        "sent:    {:.1} KB; {} {:.1} s{tokens}",
        t.sent as f64 / 1000.0,
        if t.schema.is_some() {
            "replied in"
        } else {
            "no reply after"
        },
        t.elapsed.as_secs_f64()
    );
    let schema = match &t.schema {
        None => "no reply".to_string(),
        Some(Ok(())) => "honoured".to_string(),
        Some(Err(why)) => format!("not honoured: {why} (the reply is read leniently all the same)"),
    };
    println!("schema:  {schema}");
    let j = &t.judgement;
    match (j.verdict, &j.fallback) {
        (Some(v), _) => {
            println!(
                "verdict: {} (the rules: {}; a fair judge says PASS)",
                v.name().to_uppercase(),
                rules.verdict.name().to_uppercase()
            );
            for d in &j.dropped {
                println!(
                    "  not believed: {} `{}`: {}",
                    d.item,
                    d.id.as_deref().unwrap_or("?"),
                    d.why
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        (None, why) => {
            println!(
                "verdict: none: {}; the rules' {} would stand",
                why.as_deref().unwrap_or("no reply"),
                rules.verdict.name().to_uppercase()
            );
            Ok(ExitCode::from(1))
        }
    }
}

fn setup(at: &[String], model: Option<&str>, yes: bool) -> anyhow::Result<ExitCode> {
    use crate::judge::setup;
    let targets: Vec<(String, String)> = if at.is_empty() {
        setup::LOCAL
            .iter()
            .map(|(n, r)| ((*n).to_string(), (*r).to_string()))
            .collect()
    } else {
        at.iter()
            .map(|u| ("server".to_string(), setup::root_of(u)))
            .collect()
    };
    println!(
        "probing {} …",
        targets
            .iter()
            .map(|(n, r)| format!("{n} ({r})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let found = setup::probe(&targets)?;
    let mut choices: Vec<(&str, &str)> = Vec::new();
    for p in &found {
        match &p.models {
            Ok(m) if !m.is_empty() => {
                println!("  {:<10} {}  {}", p.name, p.base, m.join(", "));
                choices.extend(m.iter().map(|m| (p.base.as_str(), m.as_str())));
            }
            Ok(_) => println!("  {:<10} {}  answers, but serves no model", p.name, p.base),
            Err(why) => println!("  {:<10} {}  {why}", p.name, p.base),
        }
    }
    if choices.is_empty() {
        println!(
            "No model server answered. Start one (e.g. `ollama pull llama3.1:8b`, then `ollama serve`) and run this again; for a hosted API, see `mcp-tutor judge setup --help`."
        );
        return Ok(ExitCode::from(1));
    }
    let Some((url, name)) = choose(&choices, model)? else {
        return Ok(ExitCode::from(1));
    };
    let Some(path) = crate::paths::config_file() else {
        anyhow::bail!(
            "this system has no config folder: pass --judge {url} --judge-model {name} instead"
        );
    };
    println!(
        "The judge: model {name} at {url}, written to {} as\n  [judge]\n  url = \"{url}\"\n  model = \"{name}\"",
        path.display()
    );
    if !yes {
        let answer = ask("Write it? [y/N] ")?;
        if !matches!(answer.to_lowercase().as_str(), "y" | "yes") {
            println!("Nothing written.");
            return Ok(ExitCode::SUCCESS);
        }
    }
    setup::write_config(&path, url, name)?;
    println!(
        "Wrote {}. `mcp-tutor judge test` tries it; `quiz` and `grade` now ask it (--no-judge turns it off).",
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The server and model to judge with: `model` if a server lists it, the only one, or the one
/// the learner picks (none when the pick is not one of them).
fn choose<'a>(
    choices: &[(&'a str, &'a str)],
    model: Option<&str>,
) -> anyhow::Result<Option<(&'a str, &'a str)>> {
    let picked = match model {
        Some(m) => match choices.iter().find(|(_, n)| *n == m) {
            Some(c) => *c,
            None => anyhow::bail!(
                "no server lists the model {m:?}; they serve: {}",
                choices
                    .iter()
                    .map(|(_, n)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        None if choices.len() == 1 => choices[0],
        None => {
            for (i, (u, n)) in choices.iter().enumerate() {
                println!("  {}. {n} ({u})", i + 1);
            }
            let picked = ask(&format!(
                "Judge with which? [1-{}, Enter = 1] ",
                choices.len()
            ))?;
            let i = if picked.is_empty() {
                1
            } else {
                match picked.parse::<usize>() {
                    Ok(i) if (1..=choices.len()).contains(&i) => i,
                    _ => {
                        println!(
                            "{picked:?} is not one of 1-{}: nothing written.",
                            choices.len()
                        );
                        return Ok(None);
                    }
                }
            };
            choices[i - 1]
        }
    };
    Ok(Some(picked))
}

/// Ask on standard output, read one line from standard input (empty at its end).
fn ask(prompt: &str) -> anyhow::Result<String> {
    use std::io::Write;
    print!("{prompt}");
    std::io::stdout().flush().ok();
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| anyhow::anyhow!("cannot read your answer: {e}"))?;
    if line.is_empty() {
        println!();
    }
    Ok(line.trim().to_string())
}
