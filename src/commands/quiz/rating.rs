//! From a grade to the rating the quiz suggests: the grader judges the content, the quiz adds
//! what an interviewer also notices (time taken, hints asked for).

use crate::grader::{Grade, Rating, Verdict};
use crate::scheduler::rating_number;

/// What happened around the answer besides its text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Effort {
    pub seconds: f32,
    /// Target for the ~20 s basics and the ~40 s solid answer.
    pub basics_target: u32,
    pub solid_target: u32,
    pub hints: u32,
    /// Go-deeper rungs read before answering.
    pub deeper_before: u32,
    /// The card's answer is fresh in mind, so `easy` would overstate it.
    pub fresh: Option<Fresh>,
}

/// Why a card's answer is fresh in mind: said as it happened, not as a failure it was not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fresh {
    /// Failed earlier in this session.
    Failed,
    /// Its answer was shown minutes ago: answered (then undone) in this session, or still on
    /// its first learning step after a rating in the last hour.
    Seen,
}

/// The suggestion and, when something held it down, the ceiling and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    pub rating: Rating,
    /// The highest rating this answer may be given.
    pub cap: Rating,
    pub reasons: Vec<String>,
}

pub fn min(a: Rating, b: Rating) -> Rating {
    if rating_number(a) <= rating_number(b) {
        a
    } else {
        b
    }
}

pub fn suggest(grade: &Grade, e: &Effort) -> Suggestion {
    let mut cap = Rating::Easy;
    let mut reasons = Vec::new();
    if !grade.red_flags.is_empty() {
        cap = Rating::Again;
        reasons.push("a red flag costs the question".to_string());
    }
    if e.hints > 0 {
        cap = min(cap, Rating::Hard);
        reasons.push(format!(
            "you took {} hint{}",
            e.hints,
            if e.hints == 1 { "" } else { "s" }
        ));
    }
    if e.deeper_before > 0 {
        cap = min(cap, Rating::Hard);
        reasons.push("you went deeper before answering".to_string());
    }
    if e.seconds > e.solid_target as f32 {
        cap = min(cap, Rating::Hard);
        reasons.push(format!(
            "over time: {:.0} s against a {} s target",
            e.seconds, e.solid_target
        ));
    } else if e.seconds > e.basics_target as f32 {
        cap = min(cap, Rating::Good);
    }
    if let Some(fresh) = e.fresh
        && cap == Rating::Easy
    {
        cap = Rating::Good;
        reasons.push(
            match fresh {
                Fresh::Failed => "you failed it minutes ago",
                Fresh::Seen => "you saw its answer minutes ago",
            }
            .to_string(),
        );
    }
    let all_points = grade.points.iter().all(|p| p.hit);
    let base = match grade.verdict {
        Verdict::Pass if all_points => Rating::Easy,
        _ => grade.suggested_rating,
    };
    Suggestion {
        rating: min(base, cap),
        cap,
        reasons,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grader::{FlagHit, PointResult, Span};

    fn grade(verdict: Verdict, all: bool, flag: bool) -> Grade {
        let span = Span {
            start: 0,
            end: 1,
            text: "x".into(),
        };
        Grade {
            card: "c".into(),
            verdict,
            score: 1.0,
            points: vec![
                PointResult {
                    id: String::new(),
                    label: "a".into(),
                    required: true,
                    hit: true,
                    span: Some(span.clone()),
                },
                PointResult {
                    id: String::new(),
                    label: "b".into(),
                    required: false,
                    hit: all,
                    span: None,
                },
            ],
            red_flags: if flag {
                vec![FlagHit {
                    id: String::new(),
                    label: "f".into(),
                    span,
                    correction: "c".into(),
                    spec: "s".into(),
                    catalogue: false,
                }]
            } else {
                vec![]
            },
            near_misses: vec![],
            confidence: crate::grader::Confidence::Sure,
            unchecked: vec![],
            suggested_rating: match verdict {
                Verdict::Pass => Rating::Good,
                Verdict::Partial => Rating::Hard,
                Verdict::Fail => Rating::Again,
            },
            truncated: false,
            certainty: None,
            untuned: false,
            signals: Default::default(),
        }
    }

    fn effort(seconds: f32) -> Effort {
        Effort {
            seconds,
            basics_target: 20,
            solid_target: 40,
            ..Effort::default()
        }
    }

    #[test]
    fn fast_and_complete_is_easy_slower_is_good() {
        let g = grade(Verdict::Pass, true, false);
        assert_eq!(suggest(&g, &effort(10.0)).rating, Rating::Easy);
        assert_eq!(suggest(&g, &effort(30.0)).rating, Rating::Good);
        // Every required point but not every point: the grader's `good`.
        let g = grade(Verdict::Pass, false, false);
        assert_eq!(suggest(&g, &effort(10.0)).rating, Rating::Good);
    }

    #[test]
    fn over_time_hints_and_deeper_cap_at_hard() {
        let g = grade(Verdict::Pass, true, false);
        let s = suggest(&g, &effort(55.0));
        assert_eq!((s.rating, s.cap), (Rating::Hard, Rating::Hard));
        assert!(s.reasons[0].contains("over time"));
        let mut e = effort(5.0);
        e.hints = 1;
        assert_eq!(suggest(&g, &e).rating, Rating::Hard);
        let mut e = effort(5.0);
        e.deeper_before = 1;
        assert_eq!(suggest(&g, &e).cap, Rating::Hard);
    }

    #[test]
    fn a_card_failed_minutes_ago_is_never_easy() {
        let g = grade(Verdict::Pass, true, false);
        let mut e = effort(5.0);
        e.fresh = Some(Fresh::Failed);
        let s = suggest(&g, &e);
        assert_eq!((s.rating, s.cap), (Rating::Good, Rating::Good));
        assert_eq!(s.reasons, vec!["you failed it minutes ago".to_string()]);
        // Passed with a hint, or undone: seen, not failed.
        e.fresh = Some(Fresh::Seen);
        let s = suggest(&g, &e);
        assert_eq!((s.rating, s.cap), (Rating::Good, Rating::Good));
        assert_eq!(
            s.reasons,
            vec!["you saw its answer minutes ago".to_string()]
        );
    }

    #[test]
    fn a_red_flag_makes_it_again() {
        let g = grade(Verdict::Fail, true, true);
        let s = suggest(&g, &effort(5.0));
        assert_eq!((s.rating, s.cap), (Rating::Again, Rating::Again));
    }
}
