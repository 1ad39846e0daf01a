//! Which cards a session asks, in which order.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};

use super::{Args, ModeArg};
use crate::deck::Library;
use crate::scheduler::{self, CardState, Phase, Scheduler};

pub struct Context<'a> {
    pub lib: &'a Library,
    pub states: &'a HashMap<String, CardState>,
    pub sched: &'a Scheduler,
    pub now: DateTime<Utc>,
    pub introduced_today: usize,
    pub followups: &'a HashMap<String, String>,
}

fn selected(args: &Args, deck: &str, key: &str, tags: &[String]) -> bool {
    (args.decks.is_empty() || args.decks.iter().any(|d| d == deck))
        && (args.tags.is_empty() || args.tags.iter().any(|t| tags.contains(t)))
        && (args.cards.is_empty() || args.cards.iter().any(|c| c == key))
}

/// Whether the --deck/--tag/--card filters match any loaded card at all.
pub fn any_match(args: &Args, lib: &Library) -> bool {
    lib.cards().any(|(d, c)| {
        let key = format!("{}/{}", d.meta.id, c.id);
        selected(args, &d.meta.id, &key, &c.tags)
    })
}

/// The moment predictions are made for: midday of the exam date, else now.
pub fn horizon(args: &Args, now: DateTime<Utc>) -> DateTime<Utc> {
    match args.exam {
        Some(d) => scheduler::day_start(scheduler::day_of_date(d)) + Duration::hours(8),
        None => now,
    }
}

/// Candidate cards (key) after the --deck/--tag/--card filters; follow-ups only when named
/// with --card, since they are asked right after their parent.
fn candidates(args: &Args, cx: &Context) -> Vec<String> {
    if !args.cards.is_empty() {
        return args
            .cards
            .iter()
            .filter(|k| cx.lib.card(k).is_some())
            .cloned()
            .collect();
    }
    cx.lib
        .cards()
        .filter_map(|(d, c)| {
            let key = format!("{}/{}", d.meta.id, c.id);
            let waiting_for_parent = cx
                .followups
                .get(&key)
                .is_some_and(|parent| !cx.states.contains_key(parent));
            let waiting_for_basis = !cx.states.contains_key(&key) && !ready(c, cx.lib, cx.states);
            (selected(args, &d.meta.id, &key, &c.tags) && !waiting_for_parent && !waiting_for_basis)
                .then_some(key)
        })
        .collect()
}

/// Whether every card `card` builds on (`after`) has been answered at least once. A key that
/// names no loaded card does not hold anything back.
pub fn ready(card: &crate::card::Card, lib: &Library, states: &HashMap<String, CardState>) -> bool {
    card.after
        .iter()
        .all(|k| states.contains_key(k) || lib.card(k).is_none())
}

fn rank_by_recall(keys: &mut [String], cx: &Context, at: DateTime<Utc>) {
    // A stable sort keeps deck order among equals (all new cards predict 0).
    keys.sort_by(|a, b| {
        let (ca, ra) = cx.sched.weakness(cx.states.get(a), at);
        let (cb, rb) = cx.sched.weakness(cx.states.get(b), at);
        ca.cmp(&cb).then(ra.total_cmp(&rb))
    });
}

pub fn build(args: &Args, mode: ModeArg, cx: &Context) -> Vec<String> {
    let all = candidates(args, cx);
    let mut out = match mode {
        ModeArg::Cram => {
            let mut v = all;
            if args.exam.is_some() {
                rank_by_recall(&mut v, cx, horizon(args, cx.now));
            }
            v
        }
        ModeArg::Interview => {
            let mut v = all;
            rank_by_recall(&mut v, cx, horizon(args, cx.now));
            v
        }
        ModeArg::Review => {
            if !args.cards.is_empty() {
                all
            } else {
                review(args, cx, all)
            }
        }
    };
    if let Some(n) = args.question_limit(mode) {
        out.truncate(n);
    }
    out
}

fn review(args: &Args, cx: &Context, all: Vec<String>) -> Vec<String> {
    let new_left = args.new_per_day.saturating_sub(cx.introduced_today);
    let mut due = Vec::new();
    let mut new = Vec::new();
    let mut at_risk = Vec::new();
    let at = horizon(args, cx.now);
    for key in all {
        match cx.states.get(&key) {
            None => new.push(key),
            Some(s) if cx.sched.is_due(s, cx.now) => due.push(key),
            Some(s) if args.exam.is_some() => {
                if cx.sched.recall_at(Some(s), at) < cx.sched.desired_retention {
                    at_risk.push(key);
                }
            }
            Some(_) => {}
        }
    }
    new.truncate(new_left);
    if args.exam.is_some() {
        let mut v: Vec<String> = due.into_iter().chain(at_risk).chain(new).collect();
        rank_by_recall(&mut v, cx, at);
        return v;
    }
    // Cards in (re)learning first (they are fragile), then reviews by due time, then new.
    due.sort_by_key(|k| {
        let s = &cx.states[k];
        (s.phase == Phase::Review, s.due)
    });
    due.into_iter().chain(new).collect()
}

/// When the next filtered card comes due, for the "nothing due" message.
pub fn next_due(args: &Args, cx: &Context) -> Option<DateTime<Utc>> {
    candidates(args, cx)
        .iter()
        .filter_map(|k| cx.states.get(k))
        .map(|s| match s.phase {
            Phase::Review => s.due.max(scheduler::day_start(scheduler::day_index(s.due))),
            _ => s.due,
        })
        .min()
}

/// Whether unseen cards remain beyond today's cap.
pub fn new_waiting(args: &Args, cx: &Context) -> usize {
    candidates(args, cx)
        .iter()
        .filter(|k| !cx.states.contains_key(*k))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grader::Rating;
    use clap::Parser;

    /// The quiz options alone, so this test does not reach up to the whole command line.
    #[derive(Parser)]
    struct Quiz {
        #[command(flatten)]
        args: Args,
    }

    fn args(extra: &[&str]) -> Args {
        let mut v = vec!["quiz"];
        v.extend_from_slice(extra);
        Quiz::parse_from(v).args
    }

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn exam_ranks_by_predicted_recall_and_review_puts_new_cards_last() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/quiz");
        let lib = Library::from_dirs(&[dir], false);
        let sched = Scheduler::new(0.9).unwrap();
        let day1 = t("2026-11-29T10:00:00Z");
        let mut states = HashMap::new();
        // name-key: learned well (easy, due in 8 days); graceful-close: barely (hard, 1 day).
        states.insert(
            "qz/name-key".to_string(),
            sched.review(None, Rating::Easy, day1),
        );
        let hard = sched.review(None, Rating::Hard, day1);
        let hard = sched.review(Some(&hard), Rating::Good, day1 + Duration::minutes(10));
        states.insert("qz/graceful-close".to_string(), hard);
        let followups = crate::commands::quiz::followup_keys(&lib);
        let cx = Context {
            lib: &lib,
            states: &states,
            sched: &sched,
            now: t("2026-11-30T10:00:00Z"),
            introduced_today: 0,
            followups: &followups,
        };
        // Review: graceful-close is due; the new parent card follows; its follow-up waits for it.
        let q = build(&args(&["--deck", "qz"]), ModeArg::Review, &cx);
        assert_eq!(q, vec!["qz/graceful-close", "qz/first-message"]);
        // Exam in three weeks: new cards (recall 0) first, then the weakest, then the strongest.
        let q = build(
            &args(&["--deck", "qz", "--exam", "2026-12-20"]),
            ModeArg::Review,
            &cx,
        );
        assert_eq!(
            q,
            vec!["qz/first-message", "qz/graceful-close", "qz/name-key"]
        );
        // Interview: the weakest N.
        let q = build(&args(&["--deck", "qz", "-n", "1"]), ModeArg::Interview, &cx);
        assert_eq!(q, vec!["qz/first-message"]);
        // A card failed minutes ago is weaker than any new card.
        let now = t("2026-11-30T10:00:00Z");
        let lapsed = sched.review(states.get("qz/name-key"), Rating::Again, now);
        states.insert("qz/name-key".to_string(), lapsed);
        let cx = Context {
            lib: &lib,
            states: &states,
            sched: &sched,
            now: now + Duration::minutes(3),
            introduced_today: 0,
            followups: &followups,
        };
        let q = build(&args(&["--deck", "qz", "-n", "2"]), ModeArg::Interview, &cx);
        assert_eq!(q, vec!["qz/name-key", "qz/first-message"]);
    }
}
