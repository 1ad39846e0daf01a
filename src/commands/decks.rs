//! `mcp-tutor decks list | show | check | export`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Subcommand, ValueEnum};
use owo_colors::Style;

use crate::term::{paint, paint_err};

use crate::deck::eval;
use crate::deck::eval::report as eval_report;
use crate::deck::{
    Deck, DeckError, Library, concepts, content_checks, export, facts, rubric, validate,
};
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
        Checks the format, ids, follow-ups, facts numbers (against decks/facts.toml), match rules and \
        kind-specific fields, then grades each card's own answer (it must hit every required point \
        and fire no red flag) and each red flag's examples (must fire) and non-examples (must not).\n\n\
        Without PATH or --decks it checks the built-in decks, your decks folder and the graded-answer \
        corpus, and also requires the built-in decks to cover every fact 1-60. With PATHs (files or \
        folders) or --decks folders it checks only those (and that their ids do not clash with a \
        built-in deck's); with --all, --decks folders are checked along with everything else."
    )]
    Check {
        /// Deck files or folders to check instead of the loaded decks.
        paths: Vec<PathBuf>,
        /// With --decks: check the built-in decks, your decks folder and the corpus too.
        #[arg(long, conflicts_with = "paths")]
        all: bool,
        /// Also list every alternative of a format-2 deck that no golden answer, flag example or
        /// tuned corpus answer uses (by default only their number is shown).
        #[arg(long)]
        unused: bool,
    },
    /// Grade the graded-answer corpus and say how often the grader agrees with a fair verdict.
    #[command(
        long_about = "Grade the graded-answer corpus and say how often the grader agrees with a fair verdict.\n\n\
        The corpus (decks/answers/DECK.toml) holds answers written blind, by someone who saw only \
        each question and its point and flag labels, with the verdict a fair interviewer gave, the \
        points earned, the misconceptions stated and any identifier almost right. Answers under \
        decks/answers/held-out/ are never tuned on: their figures are shown apart, as an estimate \
        for answers the grader has never seen.\n\n\
        Prints agreement per card and overall, answers flagged although they state no \
        misconception, misconceptions that passed, and near misses not reported. `decks check` \
        fails on any tuned disagreement not listed in decks/answers/known-disagreements.txt (a \
        regression), and on a listed one that is now graded right.",
        after_help = "Examples:\n  mcp-tutor decks eval\n  mcp-tutor decks eval --card subscriptions/listen-first-message --show\n  mcp-tutor decks eval --json | jq .held_out\n  mcp-tutor decks eval --judge http://localhost:11434/v1 --judge-model llama3.1:8b\n  mcp-tutor decks eval --answers ~/.local/share/mcp-tutor/disputes   (your disputed verdicts)"
    )]
    Eval {
        /// Only this card (DECK/CARD).
        #[arg(long)]
        card: Option<String>,
        /// Also list every tuned answer the grader disagrees with, and why. Held-out answers
        /// stay hidden so nobody tunes on them by accident.
        #[arg(long)]
        show: bool,
        /// Also list (and put in --json) the held-out answers: for auditing a result, never for
        /// tuning.
        #[arg(long)]
        show_held_out: bool,
        /// Leave the held-out part out entirely, figures included: what to run while tuning a
        /// card, so its held-out answers cannot guide the change.
        #[arg(long, conflicts_with = "show_held_out")]
        tuned_only: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Read the corpus from this folder (DIR/*.toml, DIR/held-out/*.toml) instead of the built-in one.
        #[arg(long, value_name = "DIR")]
        answers: Option<PathBuf>,
        /// Rewrite decks/answers/known-disagreements.txt (run from a checkout) with today's
        /// tuned disagreements.
        #[arg(long)]
        write_known: bool,
        /// Grade through a model judge (`--judge URL`), to see how far to trust it: every
        /// answer's rubric and text is sent there (each once: judgements are kept in the store).
        #[command(flatten)]
        judge: crate::judge::JudgeArgs,
    },
    /// Work on the graded-answer corpus: `import` turns your disputed answers into entries.
    Corpus {
        #[command(subcommand)]
        command: CorpusCommand,
    },
    /// Print all decks as JSON (for tools), a Markdown study sheet, or a file for Anki's importer.
    Export {
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
}

#[derive(Debug, Subcommand)]
pub enum CorpusCommand {
    /// Turn the answers you disputed in the quiz into graded-corpus entries (DIR/DECK.toml), each
    /// saying where it came from: your verdict, and the points and flags of the judge's kept
    /// judgement of it when the judge's verdict (after the guards) is yours too.
    #[command(
        after_help = "Example:\n  mcp-tutor decks corpus import --out new-answers\n  mcp-tutor decks eval --answers new-answers"
    )]
    Import {
        /// The folder to write DECK.toml files to (an existing DECK.toml is not overwritten).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Read the answers from this corpus folder instead of your disputes folder.
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Md,
    /// Anki's text import (tab-separated, with its header lines): one note per card.
    Anki,
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    match args.command {
        DecksCommand::List => list(g),
        DecksCommand::Show { card } => show(g, &card),
        DecksCommand::Check { paths, all, unused } => {
            // A folder named on the command line is what the author is working on: checking it
            // should not wait for the whole built-in content and corpus unless asked.
            let named = if paths.is_empty() && !all {
                &g.deck_dirs
            } else {
                &paths
            };
            check(g, named, unused)
        }
        DecksCommand::Eval {
            card,
            show,
            show_held_out,
            tuned_only,
            json,
            answers,
            write_known,
            judge,
        } => eval_cmd(
            g,
            &EvalRun {
                card: card.as_deref(),
                show: eval_report::Show::from_flags(show, show_held_out),
                tuned_only,
                json,
                answers: answers.as_deref(),
                write_known,
            },
            &judge,
        ),
        DecksCommand::Corpus {
            command: CorpusCommand::Import { out, from },
        } => corpus_import(g, &out, from.as_deref()),
        DecksCommand::Export { format } => {
            let lib = Library::load(&g.deck_dirs);
            warn_errors(&lib.errors);
            match format {
                Format::Json => {
                    println!("{}", serde_json::to_string_pretty(&export::to_json(&lib))?)
                }
                Format::Md => print!("{}", export::to_markdown(&lib)),
                Format::Anki => print!("{}", export::to_anki(&lib)),
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
    let width = crate::term::width();
    // The key column is as wide as the widest key, short of leaving the question too little
    // room: a longer key puts its question on the next line instead.
    let key_w = lib
        .cards()
        .map(|(d, c)| d.key(c).chars().count())
        .max()
        .unwrap_or(0)
        .min(width.saturating_sub(2 + 1 + KIND_W + 1 + MIN_QUESTION));
    for d in &lib.decks {
        let n = d.cards.len();
        let head = format!(
            "{}  {} ({}, {})",
            d.meta.id,
            d.meta.title,
            crate::term::count(n, "card"),
            d.source
        );
        // Painted after wrapping, so the escape codes do not count as columns.
        // Continued four columns in, deeper than a card's line.
        let head = crate::term::wrap_to(&head, "", "    ", width).replacen(
            &d.meta.id,
            &paint(&d.meta.id, Style::new().bold()),
            1,
        );
        println!("{head}");
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
            let row = CardRow {
                key: d.key(c),
                kind: c.kind_name(),
                question: c.question.trim().lines().next().unwrap_or(""),
                facts: &facts,
            };
            for line in row.lines(key_w, width) {
                println!("{line}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One card in `decks list`: its key and kind in columns, then its question cut to the
/// width with `…` (the whole of it is `decks show KEY`), facts last and dimmed.
struct CardRow<'a> {
    key: String,
    kind: &'a str,
    question: &'a str,
    facts: &'a str,
}

/// Kind names are at most this wide (`spot-the-bug`).
const KIND_W: usize = 12;
/// Less room than this beside the key and kind, and the question goes on a line of its own.
const MIN_QUESTION: usize = 24;

impl CardRow<'_> {
    fn lines(&self, key_w: usize, width: usize) -> Vec<String> {
        let columns = format!("  {:<key_w$} {:<KIND_W$} ", self.key, self.kind);
        let beside = width.saturating_sub(columns.chars().count());
        if self.key.chars().count() <= key_w && beside >= MIN_QUESTION {
            return vec![format!("{columns}{}", self.tail(beside))];
        }
        // A key is never cut: it is what the other commands take. The kind joins the question
        // under it.
        let indent = "      ";
        let under = format!("{indent}{:<KIND_W$} ", self.kind);
        let tail = self.tail(width.saturating_sub(under.chars().count()));
        vec![format!("  {}", self.key), format!("{under}{tail}")]
    }

    /// The question and the facts in `room` columns: the facts go first when the question
    /// would be left too short to read.
    fn tail(&self, room: usize) -> String {
        let facts_w = self.facts.chars().count();
        let whole = self.question.chars().count() + facts_w <= room;
        let (question, facts) = if whole || facts_w + 2 * MIN_QUESTION <= room {
            (elide(self.question, room - facts_w), self.facts)
        } else {
            (elide(self.question, room), "")
        };
        format!("{question}{}", paint(facts, Style::new().dimmed()))
    }
}

/// `text` in at most `room` columns, cut at a word with `…` when it does not fit.
fn elide(text: &str, room: usize) -> String {
    if text.chars().count() <= room {
        return text.to_string();
    }
    let keep: String = text.chars().take(room.saturating_sub(1)).collect();
    let cut = match keep.rfind(' ') {
        Some(i) if i > keep.len() / 2 => &keep[..i],
        _ => keep.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

fn show(g: &Global, key: &str) -> anyhow::Result<ExitCode> {
    let lib = Library::load(&g.deck_dirs);
    let Some((deck, card)) = lib.card(key) else {
        bail!("{}", unknown_card(&lib, key));
    };
    // The study sheet renders one card exactly as `export --format md` does, follow-ups included.
    let one = Library {
        decks: vec![Deck {
            meta: deck.meta.clone(),
            cards: with_followups(deck, &card.id),
            source: deck.source.clone(),
            concepts_used: Default::default(),
        }],
        errors: Vec::new(),
    };
    let md = export::without_links(&export::to_markdown(&one));
    // Drop the sheet's title, deck heading and coverage footer: just the card.
    let body: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("### "))
        .take_while(|l| *l != "---")
        .collect();
    let body = body.join("\n");
    let text =
        crate::term::markdown::render(body.trim_end(), crate::term::plain(), crate::term::width());
    println!("{text}");
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

fn check(g: &Global, paths: &[PathBuf], list_unused: bool) -> anyhow::Result<ExitCode> {
    let embedded_run = paths.is_empty();
    let lib = if embedded_run {
        Library::load(&g.deck_dirs)
    } else {
        Library::from_paths(paths)
    };
    let mut problems: Vec<DeckError> = lib.errors.clone();
    if !embedded_run {
        problems.extend(lib.embedded_clashes());
    }
    problems.extend(deck_problems(&lib));
    if embedded_run {
        problems.extend(built_in_content_problems());
        problems.extend(vocabulary_problems(&lib));
        problems.extend(crate::deck::catalogue::self_test());
        problems.extend(crate::deck::catalogue::truth_problems(&lib.decks));
        if let Some(e) = crate::grader::lexicon_problem() {
            problems.push(DeckError {
                file: "decks/lexicon.toml".into(),
                line: 0,
                column: 0,
                message: e,
            });
        }
        problems.extend(corpus_problems(&lib));
    }
    report_unused(&lib, list_unused);
    let cards: usize = lib.decks.iter().map(|d| d.cards.len()).sum();
    for p in &problems {
        eprintln!("{} {p}", paint_err("error:", Style::new().red().bold()));
    }
    use crate::term::count;
    if problems.is_empty() {
        println!(
            "{} {}, {}: all checks and self-tests pass",
            paint("ok:", Style::new().green().bold()),
            count(lib.decks.len(), "deck"),
            count(cards, "card")
        );
        Ok(ExitCode::SUCCESS)
    } else {
        // A deck file that did not load is a deck checked too: counting only the loaded ones
        // said "2 problems in 1 deck" of two broken files.
        let loaded: std::collections::BTreeSet<&str> =
            lib.decks.iter().map(|d| d.source.as_str()).collect();
        let unloaded: std::collections::BTreeSet<&str> = lib
            .errors
            .iter()
            .map(|e| e.file.as_str())
            .filter(|f| !loaded.contains(f))
            .collect();
        let decks = if unloaded.is_empty() {
            count(lib.decks.len(), "deck")
        } else {
            format!(
                "{} ({} did not load)",
                count(lib.decks.len() + unloaded.len(), "deck file"),
                unloaded.len()
            )
        };
        eprintln!(
            "{} in {decks}, {}",
            count(problems.len(), "problem"),
            count(cards, "card")
        );
        Ok(ExitCode::from(1))
    }
}

/// Each deck's self-tests, rubric, content checks and lints, read from its own text.
fn deck_problems(lib: &Library) -> Vec<DeckError> {
    let mut problems = Vec::new();
    for d in &lib.decks {
        match source_text(d) {
            Some(text) => {
                problems.extend(validate::self_test(d, &text));
                problems.extend(rubric::check(d, &text));
                problems.extend(content_checks::check(d, &text));
                problems.extend(crate::deck::lint_check(d, &text));
            }
            None => problems.push(DeckError {
                file: d.source.clone(),
                line: 0,
                column: 0,
                message: "cannot re-read the deck to run its self-tests".into(),
            }),
        }
    }
    problems
}

/// [`content_checks::length_bias`] over the lab's scenario predictions (shown in file order, never shuffled),
/// as `decks check` reports it for the built-in content. Here, where both the scenarios and
/// the deck checks are in sight: `deck/` sits below the commands and never imports them.
fn scenario_length_bias() -> Option<DeckError> {
    let scenarios = crate::commands::lab::scenario::all().ok()?;
    let questions = scenarios.iter().flat_map(|s| {
        s.steps.iter().filter_map(|b| b.ask.as_ref()).map(|q| {
            let texts: Vec<&str> = q.choices.iter().map(String::as_str).collect();
            (texts, q.answer_index().into_iter().collect::<Vec<_>>())
        })
    });
    content_checks::length_bias(questions).map(|b| DeckError {
        file: "decks/scenarios/".into(),
        line: 0,
        column: 0,
        message: format!(
            "lab scenario predictions: {b}; make the wrong options as long as the right one, or shorten the right one"
        ),
    })
}

/// What only the built-in content as a whole can get wrong: option lengths that give the
/// answer away, the 60 facts, and facts no card teaches.
fn built_in_content_problems() -> Vec<DeckError> {
    let shipped = Library::embedded();
    let mut problems = Vec::new();
    problems.extend(scenario_length_bias());
    problems.extend(content_checks::decks_length_bias(&shipped.decks));
    if facts::all().len() != 60 {
        problems.push(DeckError {
            file: "decks/facts.toml".into(),
            line: 0,
            column: 0,
            message: format!(
                "expected the 60 facts of decks/facts.toml, found {}",
                facts::all().len()
            ),
        });
    }
    let missing = export::uncovered(&shipped);
    if !missing.is_empty() {
        problems.push(DeckError {
            file: "decks/".into(),
            line: 0,
            column: 0,
            message: format!(
                "the built-in decks leave fact(s) {} uncovered; add cards that teach them and list them in `facts`",
                missing.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    problems
}

/// The graded corpus against today's grader: its own problems, catalogue entries that fire on
/// right answers, and disagreements not yet known.
fn corpus_problems(lib: &Library) -> Vec<DeckError> {
    let report = eval::evaluate(lib, &eval::Corpus::embedded(), None);
    let mut problems = report.problems.clone();
    problems.extend(eval::catalogue_violations(&report));
    let known = eval::parse_known(crate::deck::embedded_text(eval::KNOWN_FILE).unwrap_or(""));
    problems.extend(eval::disagreements(&report, &known));
    problems
}

/// How many alternatives of format-2 decks nothing uses (a note, never a failure: an unused
/// alternative may be a paraphrase no answer has met yet); with `list`, which.
fn report_unused(lib: &Library, list: bool) {
    let corpus = eval::Corpus::embedded();
    let tuned = |key: &str| -> Vec<String> {
        corpus
            .entries
            .iter()
            .filter(|e| e.part == eval::Part::Tuned && e.key() == key)
            .map(|e| e.answer.text.clone())
            .collect()
    };
    let mut all = Vec::new();
    for d in &lib.decks {
        if let Some(text) = source_text(d) {
            all.extend(crate::deck::unused_alternatives(d, &text, &tuned));
        }
    }
    if all.is_empty() {
        return;
    }
    if list {
        for u in &all {
            println!("unused: {} \"{}\": `{}`", u.card, u.label, u.alternative);
        }
    }
    println!(
        "note: {} alternative(s) in format-2 decks are used by no golden answer, flag example or tuned corpus answer{}",
        all.len(),
        if list {
            ""
        } else {
            " (`decks check --unused` lists them)"
        }
    );
}

/// A broken concepts file, and concepts no built-in card uses.
fn vocabulary_problems(lib: &Library) -> Vec<DeckError> {
    let vocab = match concepts::vocabulary() {
        Ok(v) => v,
        Err(e) => {
            return vec![DeckError {
                file: format!("decks/{}", concepts::CONCEPTS_FILE),
                line: 0,
                column: 0,
                message: e.clone(),
            }];
        }
    };
    let used: std::collections::BTreeSet<&String> =
        lib.decks.iter().flat_map(|d| &d.concepts_used).collect();
    vocab
        .concepts
        .keys()
        .filter(|k| !used.contains(k))
        .map(|k| DeckError {
            file: format!("decks/{}", concepts::CONCEPTS_FILE),
            line: 0,
            column: 0,
            message: format!(
                "concept `{k}` is used by no card: name it as `@{k}` in a match group, or remove it"
            ),
        })
        .collect()
}

/// What `decks eval` was asked for, apart from the judge.
struct EvalRun<'a> {
    card: Option<&'a str>,
    show: eval_report::Show,
    tuned_only: bool,
    json: bool,
    answers: Option<&'a std::path::Path>,
    write_known: bool,
}

fn eval_cmd(
    g: &Global,
    run: &EvalRun<'_>,
    judge: &crate::judge::JudgeArgs,
) -> anyhow::Result<ExitCode> {
    let &EvalRun {
        card,
        show,
        tuned_only,
        json,
        answers,
        write_known,
    } = run;
    let lib = Library::load(&g.deck_dirs);
    warn_errors(&lib.errors);
    if let Some(c) = card {
        if lib.card(c).is_none() {
            bail!("{}", unknown_card(&lib, c));
        }
    }
    let mut corpus = match answers {
        Some(dir) => eval::Corpus::from_dir(dir),
        None => eval::Corpus::embedded(),
    };
    if tuned_only {
        corpus.entries.retain(|e| e.part == eval::Part::Tuned);
    }
    let judge = crate::judge::Judge::from_args(judge, crate::judge::Scope::FlagOnly)?;
    if judge.is_some() && write_known {
        bail!("--write-known records the rules' disagreements: run it without --judge");
    }
    let mut report = match &judge {
        None => eval::evaluate(&lib, &corpus, card),
        Some(j) => judged_eval(g, j, &lib, &corpus, card)?,
    };
    if write_known {
        let path = std::path::Path::new("decks").join(eval::KNOWN_FILE);
        if !path.parent().is_some_and(std::path::Path::is_dir) {
            bail!(
                "cannot write {}: run `decks eval --write-known` from the root of an mcp-tutor checkout",
                path.display()
            );
        }
        std::fs::write(&path, eval::render_known(&report))
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    if json {
        if show != eval_report::Show::All {
            report.hide_held_out_texts();
        }
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", eval_report::render(&report, show));
    }
    for p in &report.problems {
        eprintln!("{} {p}", paint_err("error:", Style::new().red().bold()));
    }
    Ok(if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `decks eval --judge`: every answer graded by the rules, then by the judge (each sent once:
/// what it says is kept in the store), and counted on the judge's final verdict.
fn judged_eval(
    g: &Global,
    judge: &crate::judge::Judge,
    lib: &Library,
    corpus: &eval::Corpus,
    card: Option<&str>,
) -> anyhow::Result<eval::Report> {
    use std::io::IsTerminal;
    let store = crate::store::Store::open(&crate::paths::data_dir(g.data_dir.as_deref())?)?;
    let total = corpus
        .entries
        .iter()
        .filter(|e| card.is_none_or(|c| c == e.key() || c == e.answer.card))
        .count();
    let progress = std::io::stderr().is_terminal();
    let mut run = eval::JudgeRun {
        model: judge.settings.model.clone(),
        ..eval::JudgeRun::default()
    };
    let mut readings = Vec::new();
    let mut report = eval::evaluate_with(lib, corpus, card, &mut |key, c, text| {
        let rules = crate::grader::grade(c, text);
        if progress {
            eprint!("\rjudging {} of {total} answers…", run.answers + 1);
        }
        let j = judge.judge(
            Some(&store),
            key,
            c,
            text,
            &rules,
            crate::judge::Wait::quiet(&mut |_| {}),
        );
        run.answers += 1;
        run.stored += usize::from(j.cached);
        run.dropped += j.dropped.len();
        run.agreed_with_rules += usize::from(j.agreed_with_rules == Some(true));
        if let Some(f) = &j.failure {
            *run.fallbacks
                .entry(fallback_kind(f).to_string())
                .or_default() += 1;
        }
        readings.push((j.model_said, j.verdict, rules.verdict));
        j.apply(&rules)
    });
    if progress {
        eprint!("\r\x1b[2K");
    }
    // One reading per outcome, in the same order (the grader is called once per outcome).
    for (o, (model, guarded, rules)) in report.outcomes.iter().zip(readings) {
        let figures = match o.part {
            eval::Part::Tuned => &mut run.tuned,
            eval::Part::HeldOut => &mut run.held_out,
        };
        figures.add(o.expected, model, guarded, rules);
    }
    report.judge = Some(run);
    Ok(report)
}

/// `decks corpus import`: the disputes (or `from`) as corpus entries under `out`.
fn corpus_import(
    g: &Global,
    out: &std::path::Path,
    from: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let data = crate::paths::data_dir(g.data_dir.as_deref())?;
    let from = from.map_or_else(
        || crate::paths::disputes_dir(&data),
        std::path::Path::to_path_buf,
    );
    if !from.is_dir() {
        bail!(
            "no answers to import: {} is not a folder (disputes appear there when you press `!` at the quiz's rating prompt)",
            from.display()
        );
    }
    let corpus = eval::Corpus::from_dir(&from);
    if let Some(e) = corpus.errors.first() {
        bail!("{e}");
    }
    let lib = Library::load(&g.deck_dirs);
    let store = crate::store::Store::open_read_only(&data).ok();
    let imported = crate::judge::import::import(&lib, &corpus, store.as_ref());
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for deck in imported.files.keys() {
        let path = out.join(format!("{deck}.toml"));
        if path.exists() {
            bail!(
                "{} exists: move it away or give another --out (nothing was written)",
                path.display()
            );
        }
    }
    for (deck, text) in &imported.files {
        let path = out.join(format!("{deck}.toml"));
        let head = format!(
            "# Graded answers to deck `{deck}`, imported by `mcp-tutor decks corpus import` from {}.\n\
             # Check each entry, then move it to decks/answers/{deck}.toml (or held-out/ if nobody tunes on it).\n",
            from.display()
        );
        std::fs::write(&path, format!("{head}{text}"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    for s in &imported.skipped {
        eprintln!("skipped {s}");
    }
    println!(
        "imported {} answers into {} ({} labelled from a kept judgement; the rest need their points and flags)",
        imported.entries,
        out.display(),
        imported.labelled
    );
    Ok(ExitCode::SUCCESS)
}

/// A fallback's reason, without its details, for counting.
fn fallback_kind(f: &crate::judge::Failure) -> &'static str {
    use crate::judge::Failure;
    match f {
        Failure::NotFreeText => "not free text",
        Failure::NoAnswer => "no answer",
        Failure::Timeout(_) => "timeout",
        Failure::Connect(_) => "unreachable",
        Failure::Http { .. } => "HTTP error",
        Failure::Oversized => "oversized",
        Failure::Refused(_) => "refused",
        Failure::Malformed(_) => "malformed",
        Failure::Cancelled => "cancelled",
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

/// The one "no card" message, with the nearest keys.
fn unknown_card(lib: &Library, key: &str) -> String {
    let keys: Vec<String> = lib.cards().map(|(d, c)| d.key(c)).collect();
    mock_server::names::unknown(
        "card",
        key,
        keys.iter().map(String::as_str),
        "cards are named DECK/CARD; `mcp-tutor decks list` shows them",
    )
}
