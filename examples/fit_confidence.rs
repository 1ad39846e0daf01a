//! Refit the grader's confidence model (`src/grader/confidence.toml`) on the TUNED corpus.
//!
//! Run with `cargo run --release --example fit_confidence` after changing the grader or the
//! tuned corpus. It grades every tuned free-text answer, fits a logistic model of "the verdict
//! is right" over the rules' signals, picks the least probability a sure verdict needs so that
//! sure verdicts are right at least `TARGET` of the time on the tuned corpus, and writes the
//! weights, the threshold and the cards with tuned answers. The held-out figures it prints
//! are for reading only: nothing here looks at them to choose anything.

use std::fmt::Write;

use mcp_tutor::deck::Library;
use mcp_tutor::deck::eval::{Corpus, Part};
use mcp_tutor::grader::{self, confidence};

/// How often a sure verdict must be right on the tuned corpus. Tuned figures flatter the
/// rules, so this asks for more than the 97% promised on unseen answers.
const TARGET: f64 = 0.99;
const RIDGE: f64 = 1.0;
const OWN_WEIGHT: usize = 5;

type Row = (Vec<f64>, bool, Part);

fn main() -> std::io::Result<()> {
    let (rows, own) = grade_corpus();
    let train: Vec<(Vec<f64>, bool)> = rows
        .iter()
        .filter(|r| r.2 == Part::Tuned)
        .map(|r| (r.0.clone(), r.1))
        // Each own answer counts as OWN_WEIGHT tuned answers: `decks check` holds every one of
        // them to a sure pass, so the model must not rank a whole answer below a risky one.
        .chain(
            own.iter()
                .flat_map(|r| std::iter::repeat_n(r.clone(), OWN_WEIGHT)),
        )
        .collect();
    let weights = confidence::fit(&train, RIDGE);
    let model = confidence::Model {
        fitted: String::new(),
        features: confidence::FEATURES.iter().map(|s| s.to_string()).collect(),
        weights,
        threshold: 1.0,
    };
    let (threshold, tuned_line) = choose_threshold(&model, &rows, &own);
    let model = confidence::Model {
        fitted: format!(
            "cargo run --release --example fit_confidence: {} tuned answers and the cards' {} own answers (each counted {OWN_WEIGHT} times); {tuned_line}",
            train.len() - own.len() * OWN_WEIGHT,
            own.len()
        ),
        threshold,
        ..model
    };
    write_model(&model)
}

/// Every tuned and held-out free-text answer graded: (features, verdict right, part), and the
/// cards' own basics and solid answers of every card with tuned answers.
fn grade_corpus() -> (Vec<Row>, Vec<(Vec<f64>, bool)>) {
    let lib = Library::embedded();
    let corpus = Corpus::embedded();
    let mut tuned_cards: Vec<String> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut own: Vec<(Vec<f64>, bool)> = Vec::new();
    for e in &corpus.entries {
        let Some((_, card)) = lib.card(&e.key()) else {
            continue;
        };
        if !grader::is_free_text(card) {
            continue;
        }
        if e.part == Part::Tuned && !tuned_cards.contains(&e.answer.card) {
            tuned_cards.push(e.answer.card.clone());
            // The card's own basics and solid answer are right passes by construction (`decks
            // check` holds them to it): they teach the model what a whole answer looks like.
            for (_, text) in grader::own_answers(card) {
                let g = grader::grade(card, &text);
                let x = g.signals.features(&g);
                own.push((x, g.verdict == grader::Verdict::Pass));
            }
        }
        let g = grader::grade(card, &e.answer.text);
        let x = g.signals.features(&g);
        rows.push((x, g.verdict == e.answer.verdict, e.part));
    }
    (rows, own)
}

/// The least probability a sure verdict needs (tuned corpus only), and the tuned figures line.
fn choose_threshold(
    model: &confidence::Model,
    rows: &[Row],
    own: &[(Vec<f64>, bool)],
) -> (f64, String) {
    // A verdict with anything unchecked is never sure (`Model::sure`): rank it below all.
    let at_one = confidence::Model {
        threshold: 0.0,
        ..model.clone()
    };
    let eligible = |x: &[f64]| {
        if at_one.sure(x) {
            model.p_right(x)
        } else {
            -1.0
        }
    };
    let scored = |part: Part| -> Vec<(f64, bool)> {
        let mut v: Vec<(f64, bool)> = rows
            .iter()
            .filter(|r| r.2 == part)
            .map(|r| (eligible(&r.0), r.1))
            .collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0));
        v
    };
    let tuned = scored(Part::Tuned);
    // The lowest threshold whose sure set (everything at or above it) is right TARGET of the
    // time: walk down the ranking and keep the last cut that still meets the target.
    let mut threshold = 1.0;
    let mut right = 0usize;
    for (k, (p, ok)) in tuned.iter().enumerate() {
        right += usize::from(*ok);
        let next_same = tuned.get(k + 1).is_some_and(|n| n.0 == *p);
        if !next_same && right as f64 / (k + 1) as f64 >= TARGET {
            threshold = *p;
        }
    }
    let lowest_own = own.iter().map(|(x, _)| eligible(x)).fold(1.0f64, f64::min);
    if lowest_own < 0.0 {
        println!(
            "some cards' own answers leave statements unchecked, so no threshold makes them sure: `decks check` lists them"
        );
    } else if lowest_own < threshold {
        println!(
            "the target threshold {threshold:.4} is above the cards' own answers (lowest {lowest_own:.4}): lowered to it"
        );
        threshold = lowest_own;
    }
    let figures = |v: &[(f64, bool)]| {
        let sure: Vec<&(f64, bool)> = v.iter().filter(|r| r.0 >= threshold).collect();
        let ok = sure.iter().filter(|r| r.1).count();
        format!(
            "{} free-text answers, sure on {} ({:.1}%), right when sure {:.1}%",
            v.len(),
            sure.len(),
            100.0 * sure.len() as f64 / v.len().max(1) as f64,
            100.0 * ok as f64 / sure.len().max(1) as f64
        )
    };
    let tuned_line = figures(&tuned);
    println!("tuned:    {tuned_line}");
    println!("held out: {} (read only)", figures(&scored(Part::HeldOut)));
    for (n, w) in confidence::FEATURES.iter().zip(&model.weights) {
        println!("  {n:<20} {w:+.3}");
    }
    println!("threshold {threshold:.4}");
    let own_sure = own.iter().filter(|(x, _)| eligible(x) >= threshold).count();
    println!("the cards' own answers: {own_sure} of {} sure", own.len());

    (threshold, tuned_line)
}

fn write_model(model: &confidence::Model) -> std::io::Result<()> {
    let mut out = String::from(
        "# The grader's confidence model: written by `cargo run --release --example fit_confidence`\n\
         # (fitted on the tuned corpus only). Do not edit by hand.\n",
    );
    let body = toml::to_string(model).map_err(std::io::Error::other)?;
    let _ = write!(out, "{body}");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/grader/confidence.toml");
    std::fs::write(path, out)?;
    println!("wrote {path}");
    Ok(())
}
