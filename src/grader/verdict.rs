//! Stage 7: what the grader concludes: the points, flags and near misses found, the clauses it
//! could not check, a score, a verdict with its confidence, and a suggested rating.

use serde::Serialize;

/// The judgement of one answer.
#[derive(Debug, Clone, Serialize)]
pub struct Grade {
    /// The card graded. [`super::grade`] fills in the bare card id; [`super::grade_in`] (and
    /// callers that know the deck) put the `DECK/CARD` key here.
    pub card: String,
    pub verdict: Verdict,
    /// `sure` when every substantive statement of the answer was credited to a point,
    /// recognised as true or flagged, and no required point was decided on thin evidence.
    pub confidence: Confidence,
    /// 0..=1: weighted share of key points hit (required points count double), minus a quarter
    /// per red flag. JSON shows it to two decimals.
    #[serde(serialize_with = "two_decimals")]
    pub score: f32,
    pub points: Vec<PointResult>,
    pub red_flags: Vec<FlagHit>,
    pub near_misses: Vec<NearMiss>,
    /// Statements of the answer the grader could not check against anything it knows: compare
    /// them with the card's answer.
    pub unchecked: Vec<Unchecked>,
    pub suggested_rating: Rating,
    /// Set when the answer was longer than [`super::MAX_ANSWER`] and only its start was graded.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The confidence model's probability that this free-text verdict is right
    /// ([`super::confidence`]); absent for the structured kinds, which are read exactly.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "two_decimals_opt"
    )]
    pub certainty: Option<f32>,
    /// The card has no tuned corpus answers yet: nobody has measured the rules on it, so its
    /// verdicts are never sure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untuned: bool,
    /// What the confidence was judged on.
    #[serde(skip)]
    pub signals: super::confidence::Signals,
}

fn two_decimals_opt<S: serde::Serializer>(v: &Option<f32>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => two_decimals(v, s),
        None => s.serialize_none(),
    }
}

fn two_decimals<S: serde::Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((f64::from(*v) * 100.0).round() / 100.0)
}

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

/// How far the grader stands behind its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Sure,
    Unsure,
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
    /// The point's stable name (empty for the structured kinds' generated points).
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
    /// The flag's id: a shared or catalogue flag's name, or one the card gives.
    pub id: String,
    pub label: String,
    /// The clause that stated it, in the answer's own words.
    pub span: Span,
    /// What is true instead.
    pub correction: String,
    /// Where the spec says so.
    pub spec: String,
    /// From the misconception catalogue, checked on every card.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub catalogue: bool,
}

/// An exact identifier written almost right: reported, never counted.
#[derive(Debug, Clone, Serialize)]
pub struct NearMiss {
    pub expected: String,
    pub found: String,
    pub span: Span,
}

/// A statement of the answer the grader could not check.
#[derive(Debug, Clone, Serialize)]
pub struct Unchecked {
    /// The statement, as the answer wrote it.
    pub text: String,
    pub span: Span,
    /// Its words that nothing the library teaches uses at all (stems).
    #[serde(skip)]
    pub novel: Vec<String>,
}

/// A part of the answer, by byte offsets into the answer as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Span {
    pub fn of(answer: &str, start: usize, end: usize) -> Span {
        let text = answer.get(start..end).unwrap_or("").to_string();
        Span { start, end, text }
    }
}

/// What the stages found, before the verdict.
#[derive(Debug, Default)]
pub struct Parts {
    pub points: Vec<PointResult>,
    pub red_flags: Vec<FlagHit>,
    pub near_misses: Vec<NearMiss>,
    pub unchecked: Vec<Unchecked>,
    /// A required point was decided on thin evidence.
    pub thin: bool,
}

/// The verdict rule (README, "How far to trust the verdict"): a fair interviewer fails a
/// stated misconception whatever else is right, passes an answer with every required point,
/// and calls one that is right as far as it goes partial.
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

/// The score: weighted share of points hit (required count double), a quarter off per flag.
pub fn score_for(points: &[PointResult], flags: usize) -> f32 {
    let weight = |p: &PointResult| if p.required { 2.0 } else { 1.0 };
    let total: f32 = points.iter().map(weight).sum();
    let got: f32 = points.iter().filter(|p| p.hit).map(weight).sum();
    let base = if total > 0.0 { got / total } else { 1.0 };
    (base - 0.25 * flags as f32).clamp(0.0, 1.0)
}

pub fn finish(card: String, parts: Parts) -> Grade {
    let verdict = verdict_for(&parts.points, parts.red_flags.len());
    let score = score_for(&parts.points, parts.red_flags.len());
    let confidence = if parts.unchecked.is_empty() && !parts.thin {
        Confidence::Sure
    } else {
        Confidence::Unsure
    };
    Grade {
        card,
        verdict,
        confidence,
        score,
        points: parts.points,
        red_flags: parts.red_flags,
        near_misses: parts.near_misses,
        unchecked: parts.unchecked,
        suggested_rating: rating_for(verdict),
        truncated: false,
        certainty: None,
        untuned: false,
        signals: Default::default(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn point(required: bool, hit: bool) -> PointResult {
        PointResult {
            id: String::new(),
            label: String::new(),
            required,
            hit,
            span: None,
        }
    }

    #[test]
    fn the_verdict_rule() {
        let all = [point(true, true), point(false, false)];
        assert_eq!(verdict_for(&all, 0), Verdict::Pass);
        assert_eq!(verdict_for(&all, 1), Verdict::Fail);
        let some = [point(true, false), point(false, true)];
        assert_eq!(verdict_for(&some, 0), Verdict::Partial);
        let none = [point(true, false), point(false, false)];
        assert_eq!(verdict_for(&none, 0), Verdict::Fail);
        // A card with optional points only passes on any of them, fails on none.
        assert_eq!(verdict_for(&[point(false, true)], 0), Verdict::Pass);
        assert_eq!(verdict_for(&[point(false, false)], 0), Verdict::Fail);
    }

    #[test]
    fn the_score_weighs_required_points_double_and_flags_cost_a_quarter() {
        let p = [point(true, true), point(false, false)];
        assert!((score_for(&p, 0) - 2.0 / 3.0).abs() < 1e-6);
        assert!((score_for(&p, 1) - (2.0 / 3.0 - 0.25)).abs() < 1e-6);
        assert_eq!(score_for(&p, 9), 0.0);
    }
}
