//! An unsure verdict settled fairly: the one short question the quiz may ask BEFORE it shows
//! the card's answer, about a statement of the answer that nothing credited, flagged or
//! recognised. The learner keeps it (nothing changes: the verdict stays unsure and their rating
//! decides) or takes it back (it is dropped, as if never typed). A reply never credits a point
//! and never lifts a verdict, so nothing can be picked after seeing the answer.
//!
//! Nothing is asked where there is nothing fair to settle: a sure or flagged verdict, a fail, an
//! answer cut short (a paste), or a statement that overlaps a credited one.

use super::verdict::{Confidence, Grade, Verdict};

/// The question to settle an unsure verdict: a statement of the answer nothing accounts for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The unchecked statement, as the answer wrote it.
    pub text: String,
}

impl Question {
    /// The question, as the quiz asks it (before the card's answer is shown).
    pub fn prompt(&self) -> String {
        format!(
            "Before the card's answer: the grader cannot check “{}”. Keep it in your answer? Enter or y keeps it (the verdict stays unsure; your rating decides) · n takes it back",
            self.text
        )
    }
}

/// The question to ask about `g`, if it is unsure and a fair question can settle it.
pub fn question(g: &Grade) -> Option<Question> {
    if g.confidence == Confidence::Sure
        || !g.red_flags.is_empty()
        || g.verdict == Verdict::Fail
        || g.truncated
    {
        return None;
    }
    let credited: Vec<(usize, usize)> = g
        .points
        .iter()
        .filter(|p| p.hit)
        .filter_map(|p| p.span.as_ref().map(|s| (s.start, s.end)))
        .collect();
    g.unchecked
        .iter()
        .find(|u| {
            !credited
                .iter()
                .any(|&(s, e)| u.span.start < e && s < u.span.end)
        })
        .map(|u| Question {
            text: u.text.clone(),
        })
}

/// Apply the learner's reply: `n` drops the statement; Enter or `y` keeps it. Anything else
/// is an error saying what is expected. The verdict, points and flags never change.
pub fn apply(g: &mut Grade, q: &Question, reply: &str) -> Result<(), String> {
    match reply.trim().to_lowercase().as_str() {
        "" | "y" | "yes" => Ok(()),
        "n" | "no" => {
            g.unchecked.retain(|u| u.text != q.text);
            if g.certainty.is_some() {
                super::judge_confidence(g);
            }
            Ok(())
        }
        _ => Err("type y or Enter (keep it) or n (take it back)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::verdict::{PointResult, Rating, Span, Unchecked};
    use super::*;

    fn span(start: usize, end: usize) -> Span {
        Span {
            start,
            end,
            text: "x".into(),
        }
    }

    fn unsure(unchecked_at: (usize, usize)) -> Grade {
        Grade {
            card: "c".into(),
            verdict: Verdict::Partial,
            confidence: Confidence::Unsure,
            score: 0.5,
            points: vec![
                PointResult {
                    id: "a".into(),
                    label: "a".into(),
                    required: true,
                    hit: false,
                    span: None,
                },
                PointResult {
                    id: "b".into(),
                    label: "b".into(),
                    required: false,
                    hit: true,
                    span: Some(span(0, 10)),
                },
            ],
            red_flags: vec![],
            near_misses: vec![],
            unchecked: vec![Unchecked {
                text: "it resends the tools list".into(),
                span: span(unchecked_at.0, unchecked_at.1),
                novel: vec![],
            }],
            suggested_rating: Rating::Hard,
            truncated: false,
            certainty: None,
            untuned: false,
            signals: Default::default(),
        }
    }

    #[test]
    fn it_asks_about_an_uncredited_statement_and_no_reply_picks_points() {
        let g = unsure((20, 40));
        let q = question(&g).expect("a question");
        assert_eq!(q.text, "it resends the tools list");
        assert!(q.prompt().starts_with("Before the card's answer"));
        for reply in ["", "y", "n", "1", "1 2 3", "yes", "no"] {
            let mut g2 = g.clone();
            let _ = apply(&mut g2, &q, reply);
            assert_eq!(g2.verdict, Verdict::Partial, "reply {reply:?}");
            assert_eq!(
                g2.points.iter().filter(|p| p.hit).count(),
                1,
                "reply {reply:?}"
            );
            assert!(g2.red_flags.is_empty());
        }
        let mut taken_back = g.clone();
        apply(&mut taken_back, &q, "n").unwrap();
        assert!(taken_back.unchecked.is_empty());
        assert!(apply(&mut g.clone(), &q, "1 2").is_err());
    }

    #[test]
    fn it_never_quotes_a_credited_statement() {
        assert_eq!(question(&unsure((5, 30))), None);
    }

    #[test]
    fn nothing_to_settle_asks_nothing() {
        let mut sure = unsure((20, 40));
        sure.confidence = Confidence::Sure;
        assert_eq!(question(&sure), None);
        let mut fail = unsure((20, 40));
        fail.verdict = Verdict::Fail;
        assert_eq!(question(&fail), None, "\"idk\" and the like");
        let mut paste = unsure((20, 40));
        paste.truncated = true;
        assert_eq!(question(&paste), None, "a paste cut short");
    }
}
