//! How sure a free-text verdict is: a small logistic model over the rules' own signals (what
//! share of the answer was accounted for, what was left unchecked, how much evidence each tick
//! and flag stands on, …), fitted on the tuned corpus only and shipped as data
//! (`src/grader/confidence.toml`). A verdict is *sure* when the model's probability that it is
//! right reaches the threshold fitted with it, and the card has tuned answers at all (read from
//! the shipped corpus): a card nobody has measured the rules on yet is never sure.
//!
//! Refit after changing the grader or the tuned corpus:
//! `cargo run --release --example fit_confidence` (it rewrites the data file and prints the
//! tuned and held-out figures of the new weights).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::verdict::{Grade, Verdict};

/// The signals a verdict is judged on, as numbers (see [`Signals::features`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Signals {
    /// Claims (sentence parts that state something) in the answer, and words.
    pub claims: usize,
    pub words: usize,
    /// Claims with nothing credited, flagged or recognised as true in them.
    pub claims_unaccounted: usize,
    /// The fewest words a credited point was read in (0 when nothing was credited).
    pub weakest_tick: usize,
    /// Ticks read in two words or fewer.
    pub thin_ticks: usize,
    /// Flags read in three words or fewer.
    pub thin_flags: usize,
    /// A flag's clause also earned a tick (the stages disagree about one clause).
    pub flag_tick_overlap: usize,
    /// Unchecked statements' words nothing in the library uses.
    pub novel_words: usize,
    /// The card is a spot-the-bug one (its points are line-numbered findings).
    pub spot: bool,
}

/// Names of the features, in the order of [`Signals::features`] and of the weights.
pub const FEATURES: &[&str] = &[
    "bias",
    "pass",
    "partial",
    "flags",
    "catalogue_flags",
    "unchecked",
    "novel_words",
    "near_misses",
    "required_share",
    "points_share",
    "log_claims",
    "log_words",
    "unaccounted_share",
    "weakest_tick",
    "thin_ticks",
    "thin_flags",
    "flag_tick_overlap",
    "spot",
    "pass_and_clean",
    "fail_without_flag",
    "complete",
];

impl Signals {
    /// The feature vector of `g` (whose `signals` are these).
    pub fn features(&self, g: &Grade) -> Vec<f64> {
        let b = |x: bool| if x { 1.0 } else { 0.0 };
        let n = |x: usize, cap: usize| x.min(cap) as f64;
        let required = g.points.iter().filter(|p| p.required).count();
        let required_hit = g.points.iter().filter(|p| p.required && p.hit).count();
        let hit = g.points.iter().filter(|p| p.hit).count();
        let share = |a: usize, t: usize| if t == 0 { 1.0 } else { a as f64 / t as f64 };
        let pass = g.verdict == Verdict::Pass;
        vec![
            1.0,
            b(pass),
            b(g.verdict == Verdict::Partial),
            n(g.red_flags.len(), 3),
            n(g.red_flags.iter().filter(|f| f.catalogue).count(), 3),
            n(g.unchecked.len(), 4),
            n(self.novel_words, 6),
            n(g.near_misses.len(), 3),
            share(required_hit, required),
            share(hit, g.points.len()),
            (self.claims as f64).ln_1p(),
            (self.words as f64).ln_1p(),
            share(self.claims_unaccounted, self.claims.max(1)),
            n(self.weakest_tick, 8),
            n(self.thin_ticks, 4),
            n(self.thin_flags, 3),
            n(self.flag_tick_overlap, 3),
            b(self.spot),
            b(pass && g.unchecked.is_empty() && g.near_misses.is_empty()),
            b(g.verdict == Verdict::Fail && g.red_flags.is_empty()),
            // Every point, optional ones too, with nothing flagged or left unchecked: what a
            // whole answer (a card's own among them) looks like.
            b(hit == g.points.len()
                && !g.points.is_empty()
                && g.red_flags.is_empty()
                && g.unchecked.is_empty()),
        ]
    }
}

/// The shipped model: weights per feature, the threshold a sure verdict needs, and the cards
/// with tuned answers.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// How the weights were made (the command, the corpus size, the fitted figures).
    pub fitted: String,
    pub features: Vec<String>,
    pub weights: Vec<f64>,
    /// The least probability of being right a sure verdict has.
    pub threshold: f64,
}

const SHIPPED: &str = include_str!("confidence.toml");

/// The shipped model; an unreadable or stale file (features that do not match) leaves every
/// free-text verdict unsure, which `decks check` reports.
pub fn model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| {
        toml::from_str::<Model>(SHIPPED)
            .ok()
            .filter(|m| m.usable())
            .unwrap_or_default()
    })
}

/// What is wrong with the shipped model, for `decks check`.
pub fn problem() -> Option<String> {
    match toml::from_str::<Model>(SHIPPED) {
        Err(e) => Some(format!(
            "src/grader/confidence.toml: {} (refit with `cargo run --release --example fit_confidence`)",
            e.message()
        )),
        Ok(m) if !m.usable() => Some(
            "src/grader/confidence.toml was fitted for other features: refit with `cargo run --release --example fit_confidence`"
                .into(),
        ),
        Ok(_) => None,
    }
}

impl Model {
    fn usable(&self) -> bool {
        self.features
            .iter()
            .map(String::as_str)
            .eq(FEATURES.iter().copied())
            && self.weights.len() == FEATURES.len()
    }

    /// The probability that a verdict with features `x` is right.
    pub fn p_right(&self, x: &[f64]) -> f64 {
        if !self.usable() {
            return 0.0;
        }
        sigmoid(self.weights.iter().zip(x).map(|(w, v)| w * v).sum())
    }

    /// Whether a verdict with features `x` is sure: the model vouches for it, and nothing in
    /// the answer was left unchecked (a statement nobody checked may be the misconception
    /// that decides the verdict, whatever the other signals say).
    pub fn sure(&self, x: &[f64]) -> bool {
        let unchecked = FEATURES.iter().position(|f| *f == "unchecked");
        let clean = unchecked.and_then(|i| x.get(i)).is_some_and(|v| *v == 0.0);
        clean && self.p_right(x) >= self.threshold
    }
}

/// Whether the card (by its bare id) has answers in the shipped tuned corpus: read from the
/// corpus itself, so a card gains its answers and its sure verdicts together.
pub fn tuned(card: &str) -> bool {
    static CARDS: OnceLock<Vec<String>> = OnceLock::new();
    let cards = CARDS.get_or_init(|| {
        let mut ids: Vec<String> = crate::deck::embedded_under("answers")
            .into_iter()
            .filter(|(name, _)| name.ends_with(".toml") && !name.contains("/held-out/"))
            .flat_map(|(_, text)| {
                text.lines()
                    .filter_map(|l| l.trim().strip_prefix("card = \""))
                    .filter_map(|l| l.strip_suffix('"'))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        ids.sort();
        ids.dedup();
        ids
    });
    cards.binary_search_by(|c| c.as_str().cmp(card)).is_ok()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Fit logistic weights to `rows` (features, whether the verdict was right) by Newton's method
/// with a small ridge penalty (not on the bias), so a rare signal cannot take an extreme weight.
#[allow(clippy::needless_range_loop)]
pub fn fit(rows: &[(Vec<f64>, bool)], ridge: f64) -> Vec<f64> {
    let d = FEATURES.len();
    let mut w = vec![0.0; d];
    for _ in 0..50 {
        let mut grad = vec![0.0; d];
        let mut hess = vec![vec![0.0; d]; d];
        for (x, y) in rows {
            let p = sigmoid(w.iter().zip(x).map(|(a, b)| a * b).sum());
            let r = p - if *y { 1.0 } else { 0.0 };
            let s = (p * (1.0 - p)).max(1e-9);
            for i in 0..d {
                grad[i] += r * x[i];
                for j in 0..d {
                    hess[i][j] += s * x[i] * x[j];
                }
            }
        }
        for i in 1..d {
            grad[i] += ridge * w[i];
            hess[i][i] += ridge;
        }
        hess[0][0] += 1e-6;
        let Some(step) = solve(hess, grad) else { break };
        let mut moved = 0.0f64;
        for i in 0..d {
            w[i] -= step[i];
            moved = moved.max(step[i].abs());
        }
        if moved < 1e-8 {
            break;
        }
    }
    w
}

/// Solve `a x = b` by Gaussian elimination with partial pivoting.
// Row and column indexes are the algorithm: iterators would hide which entry is which.
#[allow(clippy::needless_range_loop)]
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            for k in c..n {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_model_reads_and_matches_the_features() {
        assert_eq!(problem(), None);
        assert!(model().threshold > 0.5);
    }

    #[test]
    fn the_fit_separates_a_signal_that_predicts_the_label() {
        let d = FEATURES.len();
        let row = |on: bool| {
            let mut x = vec![0.0; d];
            x[0] = 1.0;
            x[1] = if on { 1.0 } else { 0.0 };
            x
        };
        let mut rows = Vec::new();
        for k in 0..100 {
            rows.push((row(true), k % 10 != 0));
            rows.push((row(false), k % 10 == 0));
        }
        let w = fit(&rows, 0.1);
        assert!(w[1] > 2.0, "{w:?}");
    }
}
