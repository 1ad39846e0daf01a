//! The answer grader: deterministic, offline, explainable.
//!
//! [`grade`] judges a typed answer against one card the way an interviewer would: which key
//! points were hit (and where in the answer), which misconceptions were affirmed, which exact
//! identifiers were *almost* right, a score, a verdict and a suggested FSRS rating. Nothing is
//! learned or fetched: the same card and answer always give the same [`Grade`].
//!
//! Prose is read tolerantly (case, Unicode form, punctuation, word forms, domain synonyms,
//! small typos: see [`text`]); identifiers a card marks `exact` must be written exactly.
//! Red flags only fire when affirmed: a mention in a negated clause ("it is *not* a
//! handshake", "unlike the old handshake", "nothing is replayed") or next to one of the flag's
//! `guards` does not count.

mod kinds;
pub mod rules;
pub mod text;

use serde::Serialize;

use crate::card::{Card, CardKind};
use rules::{Group, Mode, Rule};
use text::Analysis;

pub use kinds::{
    ClozeScan, choice_label, cloze_blanks, cloze_scan, golden_answer, named_line, order_display,
};

/// The judgement of one answer.
#[derive(Debug, Clone, Serialize)]
pub struct Grade {
    /// The card graded. [`grade`] fills in the bare card id; [`grade_in`] (and callers that know
    /// the deck) put the `DECK/CARD` key here.
    pub card: String,
    pub verdict: Verdict,
    /// 0..=1: weighted share of key points hit (required points count double), minus a quarter
    /// per red flag. JSON shows it to two decimals.
    #[serde(serialize_with = "two_decimals")]
    pub score: f32,
    pub points: Vec<PointResult>,
    pub red_flags: Vec<FlagHit>,
    pub near_misses: Vec<NearMiss>,
    pub suggested_rating: Rating,
    /// Set when the answer was longer than [`MAX_ANSWER`] and only its start was graded.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

fn two_decimals<S: serde::Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((f64::from(*v) * 100.0).round() / 100.0)
}

/// The longest answer graded, in bytes; the rest is ignored (an interview answer is a few
/// hundred words, and the cap keeps grading fast on pasted garbage).
pub const MAX_ANSWER: usize = 20_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Partial,
    Fail,
}

impl Verdict {
    /// The verdict as stored, exported and printed: `pass`, `partial`, `fail`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Partial => "partial",
            Verdict::Fail => "fail",
        }
    }
}

/// An FSRS rating; also what the quiz stores for a review.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    Again,
    Hard,
    Good,
    Easy,
}

#[derive(Debug, Clone, Serialize)]
pub struct PointResult {
    /// The point's id (`p1` ... when the card gives none).
    pub id: String,
    pub label: String,
    pub required: bool,
    pub hit: bool,
    /// The part of the answer that matched.
    pub span: Option<Span>,
}

/// An affirmed misconception.
#[derive(Debug, Clone, Serialize)]
pub struct FlagHit {
    /// The flag's id: a shared flag's name, or one the card gives.
    pub id: String,
    pub label: String,
    pub span: Span,
    /// What is true instead.
    pub correction: String,
    /// Where the spec says so.
    pub spec: String,
}

/// An exact identifier written almost right: reported, never counted.
#[derive(Debug, Clone, Serialize)]
pub struct NearMiss {
    pub expected: String,
    pub found: String,
    pub span: Span,
}

/// A part of the answer, by byte offsets into the answer as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Span {
    fn of(answer: &str, start: usize, end: usize) -> Span {
        let text = answer.get(start..end).unwrap_or("").to_string();
        Span { start, end, text }
    }

    /// A span of the analysed text, mapped back to the answer.
    fn from_norm(a: &Analysis, answer: &str, start: usize, end: usize) -> Span {
        let (s, e) = a.original(start, end);
        Span::of(answer, s, e)
    }
}

/// Grade `answer` against `card`. `Grade.card` is the bare card id.
pub fn grade(card: &Card, answer: &str) -> Grade {
    let mut cut = answer.len().min(MAX_ANSWER);
    while !answer.is_char_boundary(cut) {
        cut -= 1;
    }
    let truncated = cut < answer.len();
    let answer = &answer[..cut];
    let mut g = grade_whole(card, answer);
    g.truncated = truncated;
    g
}

fn grade_whole(card: &Card, answer: &str) -> Grade {
    let mut parts = match card.kind {
        CardKind::Recall | CardKind::NameIt => Parts::default(),
        CardKind::Choice => kinds::choice(card, answer),
        CardKind::Order => kinds::order(card, answer),
        CardKind::Cloze => kinds::cloze(card, answer),
        CardKind::SpotTheBug => kinds::spot_the_bug(card, answer),
    };
    prose(card, answer, &mut parts);
    if card.kind == CardKind::SpotTheBug
        && parts.points.first().is_some_and(|p| !p.hit)
        && kinds::named_line(answer).is_some()
    {
        // The right rule pinned on the wrong line is a wrong diagnosis, so the rule counts
        // only together with the right line. An answer that names no line but states the
        // rule is right as far as it goes: partial, as the line point is required.
        for p in parts.points.iter_mut().skip(1) {
            p.hit = false;
            p.span = None;
        }
    }
    finish(card.id.clone(), parts)
}

/// Grade with `key` (the `DECK/CARD` key progress is stored under) in `Grade.card`.
pub fn grade_in(key: String, card: &Card, answer: &str) -> Grade {
    let mut g = grade(card, answer);
    g.card = key;
    g
}

/// What a kind-specific grader contributes before the prose points and flags are added.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    points: Vec<PointResult>,
    red_flags: Vec<FlagHit>,
    near_misses: Vec<NearMiss>,
}

/// The card's key points and red flags, judged on the answer's prose.
fn prose(card: &Card, answer: &str, parts: &mut Parts) {
    if card.points.is_empty() && card.red_flags.is_empty() {
        return;
    }
    let compiled = compiled(card);
    let a = Analysis::new(answer);
    for (p, rules) in card.points.iter().zip(&compiled.points) {
        let m = rules
            .iter()
            .find_map(|r| rules::match_rule(&a, r, Mode::Point, &[]));
        if m.is_none() {
            near_misses(&a, answer, p.rules.iter().flat_map(|r| &r.exact), parts);
        }
        parts.points.push(PointResult {
            id: p.id.clone(),
            label: p.label.clone(),
            required: p.required,
            hit: m.is_some(),
            span: m.map(|m| Span::from_norm(&a, answer, m.start, m.end)),
        });
    }
    watch_identifiers(&a, answer, card, parts);
    for (f, (rules, guards)) in card.red_flags.iter().zip(&compiled.flags) {
        let hit = rules
            .iter()
            .find_map(|r| rules::match_rule(&a, r, Mode::Flag, guards));
        if let Some(m) = hit {
            let (start, end) = stating_clauses(&a, &m);
            parts.red_flags.push(FlagHit {
                id: f.id.clone(),
                label: f.label.clone(),
                span: Span::from_norm(&a, answer, start, end),
                correction: f.correction.clone(),
                spec: f.spec.clone(),
            });
        }
    }
}

/// The whole clauses a flag's match stands in, so the learner sees what they stated ("the
/// server assigns the subscription id"), not just the words that matched ("server assigns").
fn stating_clauses(a: &Analysis, m: &rules::RuleMatch) -> (usize, usize) {
    let clauses = m
        .tokens
        .iter()
        .filter_map(|&t| a.tokens.get(t))
        .map(|t| t.clause);
    let (Some(first), Some(last)) = (clauses.clone().min(), clauses.max()) else {
        return (m.start, m.end);
    };
    let inside = a
        .tokens
        .iter()
        .filter(|t| (first..=last).contains(&t.clause));
    // A clause opener is not part of what was stated: "but the server assigns ..." quotes
    // from "the".
    let start = inside
        .clone()
        .skip_while(|t| {
            t.start < m.start
                && matches!(
                    t.norm.as_str(),
                    "but" | "and" | "so" | "then" | "however" | "whereas" | "while" | "yet"
                )
        })
        .map(|t| t.start)
        .min()
        .unwrap_or(m.start);
    let end = inside.map(|t| t.end).max().unwrap_or(m.end);
    (start.min(m.start), end.max(m.end))
}

/// A card's match rules, compiled once: every alternative of every group is itself analysed
/// like an answer, which costs more than grading a short answer, and concepts make the groups
/// long. Kept per thread, keyed by the card's id and a fingerprint of its rules, so an edited
/// card is compiled afresh.
struct Compiled {
    points: Vec<Vec<Rule>>,
    flags: Vec<(Vec<Rule>, Vec<Group>)>,
}

fn compiled(card: &Card) -> std::rc::Rc<Compiled> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::hash::{Hash, Hasher};
    thread_local! {
        static CACHE: RefCell<HashMap<(String, u64), std::rc::Rc<Compiled>>> = RefCell::new(HashMap::new());
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in &card.points {
        for r in &p.rules {
            (&r.exact, &r.all).hash(&mut h);
        }
        0u8.hash(&mut h);
    }
    for f in &card.red_flags {
        for r in &f.rules {
            (&r.exact, &r.all).hash(&mut h);
        }
        f.guards.hash(&mut h);
        1u8.hash(&mut h);
    }
    let key = (card.id.clone(), h.finish());
    CACHE.with(|c| {
        if let Some(hit) = c.borrow().get(&key) {
            return hit.clone();
        }
        let built = std::rc::Rc::new(Compiled {
            points: card
                .points
                .iter()
                .map(|p| p.rules.iter().map(Rule::compile).collect())
                .collect(),
            flags: card
                .red_flags
                .iter()
                .map(|f| {
                    (
                        f.rules.iter().map(Rule::compile).collect(),
                        f.guards.iter().map(|g| Group::parse(g)).collect(),
                    )
                })
                .collect(),
        });
        c.borrow_mut().insert(key, built.clone());
        built
    })
}

/// Identifier-like words written almost like one of the protocol's identifiers: reported on
/// every card, whatever it asks.
fn watch_identifiers(a: &Analysis, answer: &str, card: &Card, parts: &mut Parts) {
    if card.identifiers.is_empty() {
        return;
    }
    for (s, t) in rules::ident_candidates(&a.norm) {
        let found = &a.norm[s..t];
        if !rules::looks_like_identifier(found) || card.identifiers.iter().any(|k| k == found) {
            continue;
        }
        let Some(expected) = card
            .identifiers
            .iter()
            .find(|k| rules::near_miss(found, k) && !rules::same_header(found, k))
        else {
            continue;
        };
        let span = Span::from_norm(a, answer, s, t);
        if !parts.near_misses.iter().any(|n| n.span == span) {
            parts.near_misses.push(NearMiss {
                expected: expected.clone(),
                found: span.text.clone(),
                span,
            });
        }
    }
}

fn near_misses<'a>(
    a: &Analysis,
    answer: &str,
    expected: impl Iterator<Item = &'a String>,
    parts: &mut Parts,
) {
    let candidates = rules::ident_candidates(&a.norm);
    for e in expected {
        let found = candidates
            .iter()
            .find(|&&(s, t)| rules::near_miss(&a.norm[s..t], e));
        if let Some(&(s, t)) = found {
            let span = Span::from_norm(a, answer, s, t);
            if !parts.near_misses.iter().any(|n| n.span == span) {
                parts.near_misses.push(NearMiss {
                    expected: e.clone(),
                    found: span.text.clone(),
                    span,
                });
            }
        }
    }
}

fn finish(card: String, parts: Parts) -> Grade {
    let verdict = verdict_for(&parts.points, parts.red_flags.len());
    Grade {
        card,
        verdict,
        score: score_for(&parts.points, parts.red_flags.len()),
        points: parts.points,
        red_flags: parts.red_flags,
        near_misses: parts.near_misses,
        suggested_rating: rating_for(verdict),
        truncated: false,
    }
}

/// The verdict rule (README, "Verdict"), from the points decided and the misconceptions stated:
/// a fair interviewer fails a stated misconception whatever else is right, passes an answer
/// with every required point, and calls one that is right as far as it goes partial. Public so
/// that a second opinion (the model judge) is held to the same rule.
pub fn verdict_for(points: &[PointResult], red_flags: usize) -> Verdict {
    let required = points.iter().filter(|p| p.required).count();
    let required_hit = points.iter().filter(|p| p.required && p.hit).count();
    let any_hit = points.iter().any(|p| p.hit);
    if red_flags > 0 {
        Verdict::Fail
    } else if required_hit == required && (required > 0 || any_hit) {
        Verdict::Pass
    } else if any_hit {
        Verdict::Partial
    } else {
        Verdict::Fail
    }
}

/// 0..=1: weighted share of key points hit (required points count double), minus a quarter per
/// red flag.
pub fn score_for(points: &[PointResult], red_flags: usize) -> f32 {
    let weight = |p: &PointResult| if p.required { 2.0 } else { 1.0 };
    let total: f32 = points.iter().map(weight).sum();
    let got: f32 = points.iter().filter(|p| p.hit).map(weight).sum();
    let base = if total > 0.0 { got / total } else { 1.0 };
    (base - 0.25 * red_flags as f32).clamp(0.0, 1.0)
}

/// The grader's normalisation of a text (Unicode NFKC, typographic quotes and dashes folded,
/// case kept): what a quote from an answer is compared in.
pub fn normalise(text: &str) -> String {
    Analysis::new(text).norm
}

/// fail → again, partial → hard, pass → good. The quiz may move it (easy for a fast pass,
/// capped after hints).
pub fn rating_for(v: Verdict) -> Rating {
    match v {
        Verdict::Fail => Rating::Again,
        Verdict::Partial => Rating::Hard,
        Verdict::Pass => Rating::Good,
    }
}
