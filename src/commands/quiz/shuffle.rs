//! Choice options in a fresh order each time a card is shown, so that where the right answer sits
//! teaches nothing.
//!
//! One showing uses one order throughout: the question, the letters typed, the hint and the
//! feedback all agree. What is stored is graded by option identity: the picks are mapped back to
//! the deck's own order and graded there, so the review log and `mcp-tutor grade` name the same
//! options whatever order they were shown in.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::card::Card;
use crate::grader::{self, Grade, choice_label};

/// Test hook: a fixed seed makes the orders of a session reproducible.
pub const SEED_ENV: &str = "MCP_TUTOR_SHUFFLE_SEED";

/// A card as shown once: for a choice card its options permuted, otherwise the card itself.
#[derive(Debug, Clone)]
pub struct Shown {
    pub card: Card,
    /// `order[k]` is the deck index of the option shown at position `k`.
    pub order: Vec<usize>,
}

static SHOWINGS: AtomicU64 = AtomicU64::new(0);

/// The seed of the next showing: from the test hook, else from the clock; each showing in a
/// process gets a different one.
pub fn next_seed() -> u64 {
    let n = SHOWINGS.fetch_add(1, Ordering::Relaxed);
    let base = std::env::var(SEED_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
    base ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A True/False pair reads naturally only in that order; everything else is shuffled.
fn is_true_false(card: &Card) -> bool {
    card.choices.len() == 2
        && card.choices[0].text.trim().eq_ignore_ascii_case("true")
        && card.choices[1].text.trim().eq_ignore_ascii_case("false")
}

/// `card` as it is shown with `seed`.
pub fn present(card: &Card, seed: u64) -> Shown {
    let n = card.choices.len();
    let mut order: Vec<usize> = (0..n).collect();
    if card.kind.picks_options() && !is_true_false(card) {
        // xorshift64*: small, stable, good enough to place an option.
        let mut x = seed | 1;
        for i in (1..n).rev() {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let r = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
            order.swap(i, (r % (i as u64 + 1)) as usize);
        }
    }
    let mut shown = card.clone();
    shown.choices = order.iter().map(|&k| card.choices[k].clone()).collect();
    Shown { card: shown, order }
}

impl Shown {
    /// The deck indices of the options `grade` (graded on the shown card) says were picked.
    fn picked(&self, grade: &Grade) -> Vec<usize> {
        let mut out = Vec::new();
        for (pos, c) in self.card.choices.iter().enumerate() {
            let chosen = if c.correct {
                grade
                    .points
                    .iter()
                    .any(|p| p.hit && p.label.ends_with(c.text.as_str()))
            } else {
                grade
                    .red_flags
                    .iter()
                    .any(|f| f.label.ends_with(c.text.as_str()))
            };
            if chosen {
                out.push(self.order[pos]);
            }
        }
        out.sort_unstable();
        out
    }

    /// The same answer graded on the deck's own order: what is stored, and what `mcp-tutor
    /// grade` would say for the same options.
    pub fn canonical(&self, original: &Card, grade: &Grade) -> Grade {
        if !original.kind.picks_options() {
            return grade.clone();
        }
        let letters: Vec<String> = self.picked(grade).into_iter().map(choice_label).collect();
        grader::grade(original, &letters.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Choice;

    fn card(n: usize, right: &[usize]) -> Card {
        let mut c = crate::card::test_card(crate::card::CardKind::Choice);
        c.question = "Which?".into();
        c.spec = vec!["SUB §Acknowledgment".into()];
        c.choices = (0..n)
            .map(|i| Choice {
                text: format!("option number {i}"),
                correct: right.contains(&i),
                why: String::new(),
            })
            .collect();
        c
    }

    #[test]
    fn every_position_is_used_and_each_order_is_a_permutation() {
        let c = card(4, &[1]);
        let mut seen = [false; 4];
        for seed in 0..200 {
            let s = present(&c, seed);
            let mut o = s.order.clone();
            o.sort_unstable();
            assert_eq!(o, vec![0, 1, 2, 3]);
            let pos = s
                .card
                .choices
                .iter()
                .position(|x| x.correct)
                .expect("right");
            seen[pos] = true;
        }
        assert_eq!(seen, [true; 4], "the right option reaches every position");
    }

    #[test]
    fn the_stored_grade_names_the_deck_order_whatever_was_shown() {
        let c = card(4, &[0, 2]);
        let want = grader::grade(&c, "a, c");
        for seed in 0..50 {
            let s = present(&c, seed);
            let letters: Vec<String> = (0..4)
                .filter(|&k| s.card.choices[k].correct)
                .map(choice_label)
                .collect();
            let shown_grade = grader::grade(&s.card, &letters.join(" and "));
            let stored = s.canonical(&c, &shown_grade);
            assert_eq!(stored.verdict, want.verdict);
            let labels = |g: &Grade| g.points.iter().map(|p| p.label.clone()).collect::<Vec<_>>();
            assert_eq!(labels(&stored), labels(&want));
        }
    }

    #[test]
    fn true_false_keeps_its_order() {
        let mut c = card(2, &[1]);
        c.choices[0].text = "True".into();
        c.choices[1].text = "False".into();
        for seed in 0..20 {
            assert_eq!(present(&c, seed).order, vec![0, 1]);
        }
    }
}
