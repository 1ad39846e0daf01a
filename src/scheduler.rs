//! Scheduling: FSRS-6 (the `fsrs` crate, default parameters) wrapped in learning and
//! relearning steps, with days that turn over at 04:00 local time.
//!
//! FSRS decides *how well* a card is remembered (stability, difficulty); the steps decide *when*
//! a card that is still being learned comes back within the day. A card graduates to day-based
//! intervals after its last learning step, and a lapse sends it through the relearning steps.

use chrono::{DateTime, Duration, Local, NaiveDate, NaiveTime, TimeZone, Utc};
use fsrs::{FSRS, MemoryState};
use serde::{Deserialize, Serialize};

use crate::grader::Rating;

/// The hour at which a new study day begins (local time): a late-night session still counts
/// for the day it started in.
pub const DAY_STARTS_AT_HOUR: u32 = 4;

/// Default share of cards you should still remember when they come due.
pub const DEFAULT_RETENTION: f32 = 0.90;

/// Test hook and time-travel: `MCP_TUTOR_NOW=2026-11-29T10:00:00Z` freezes the clock the
/// scheduler and the store see. Answer timing always uses the monotonic clock.
pub const NOW_ENV: &str = "MCP_TUTOR_NOW";

/// The scheduler's "now": `MCP_TUTOR_NOW` (RFC 3339) when set, else the system clock.
pub fn now() -> DateTime<Utc> {
    std::env::var(NOW_ENV)
        .ok()
        .and_then(|s| DateTime::parse_from_rfc3339(s.trim()).ok())
        .map_or_else(Utc::now, |t| t.with_timezone(&Utc))
}

/// The study day `t` falls in: local calendar date of `t - 4 h`, as days since 1970-01-01.
pub fn day_index(t: DateTime<Utc>) -> i64 {
    let local = t.with_timezone(&Local) - Duration::hours(i64::from(DAY_STARTS_AT_HOUR));
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    (local.date_naive() - epoch).num_days()
}

/// When study day `day` begins: 04:00 local on that date.
pub fn day_start(day: i64) -> DateTime<Utc> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    let date = epoch + Duration::days(day);
    let time = NaiveTime::from_hms_opt(DAY_STARTS_AT_HOUR, 0, 0).unwrap_or_default();
    let naive = date.and_time(time);
    // A DST gap can make 04:00 not exist; fall back to reading it as UTC rather than failing.
    Local
        .from_local_datetime(&naive)
        .earliest()
        .map_or_else(|| naive.and_utc(), |t| t.with_timezone(&Utc))
}

/// The study day a date (as typed for `--exam`) denotes, evaluated at midday so the 04:00
/// boundary never shifts it.
pub fn day_of_date(date: NaiveDate) -> i64 {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    (date - epoch).num_days()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    New,
    Learning,
    Review,
    Relearning,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::New => "new",
            Phase::Learning => "learning",
            Phase::Review => "review",
            Phase::Relearning => "relearning",
        }
    }
    pub fn parse(s: &str) -> Phase {
        match s {
            "learning" => Phase::Learning,
            "review" => Phase::Review,
            "relearning" => Phase::Relearning,
            _ => Phase::New,
        }
    }
}

/// Where a card stands after its reviews so far.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardState {
    pub phase: Phase,
    /// Index into the learning or relearning steps while in those phases.
    pub step: u32,
    pub stability: f32,
    pub difficulty: f32,
    pub due: DateTime<Utc>,
    pub last_review: DateTime<Utc>,
    pub first_review: DateTime<Utc>,
    pub reps: u32,
    pub lapses: u32,
}

impl CardState {
    /// Failed and not yet relearned: in relearning after a lapse, or still on the first
    /// learning step after `again` or `hard`.
    pub fn is_failing(&self) -> bool {
        match self.phase {
            Phase::Relearning => true,
            Phase::Learning => self.step == 0,
            Phase::New | Phase::Review => false,
        }
    }

    /// Still being (re)learned: its FSRS recall prediction says little yet.
    pub fn is_learning(&self) -> bool {
        matches!(self.phase, Phase::Learning | Phase::Relearning)
    }
}

/// Refuse an exam date that has already passed (the day of the exam itself is fine).
pub fn check_exam_date(date: NaiveDate, now: DateTime<Utc>) -> anyhow::Result<()> {
    if day_of_date(date) < day_index(now) {
        let today = (now.with_timezone(&Local) - Duration::hours(i64::from(DAY_STARTS_AT_HOUR)))
            .date_naive();
        anyhow::bail!(
            "--exam {date} is in the past (today is {today}); give the date of your coming interview as YYYY-MM-DD"
        );
    }
    Ok(())
}

pub fn rating_number(r: Rating) -> u32 {
    match r {
        Rating::Again => 1,
        Rating::Hard => 2,
        Rating::Good => 3,
        Rating::Easy => 4,
    }
}

pub fn rating_str(r: Rating) -> &'static str {
    match r {
        Rating::Again => "again",
        Rating::Hard => "hard",
        Rating::Good => "good",
        Rating::Easy => "easy",
    }
}

pub fn parse_rating(s: &str) -> Option<Rating> {
    match s.trim().to_ascii_lowercase().as_str() {
        "again" | "a" | "1" => Some(Rating::Again),
        "hard" | "h" | "2" => Some(Rating::Hard),
        "good" | "g" | "3" => Some(Rating::Good),
        "easy" | "e" | "4" => Some(Rating::Easy),
        _ => None,
    }
}

#[derive(Debug, Clone)]
pub struct Scheduler {
    fsrs: FSRS,
    pub desired_retention: f32,
    pub learning_steps: Vec<Duration>,
    pub relearning_steps: Vec<Duration>,
}

impl Scheduler {
    /// FSRS-6 with its default parameters; learning steps 1 min and 10 min, relearning 10 min.
    pub fn new(desired_retention: f32) -> anyhow::Result<Scheduler> {
        if !(0.70..=0.99).contains(&desired_retention) {
            anyhow::bail!(
                "desired retention {desired_retention} is out of range: use a value from 0.70 to 0.99 (default 0.90)"
            );
        }
        Ok(Scheduler {
            fsrs: FSRS::default(),
            desired_retention,
            learning_steps: vec![Duration::minutes(1), Duration::minutes(10)],
            relearning_steps: vec![Duration::minutes(10)],
        })
    }

    /// The memory state FSRS gives a card after `rating`, from `prev` (None for a new card).
    pub fn next_memory(
        &self,
        prev: Option<&CardState>,
        rating: Rating,
        now: DateTime<Utc>,
    ) -> (MemoryState, f32) {
        let (memory, elapsed) = match prev {
            Some(p) => (
                Some(MemoryState {
                    stability: p.stability,
                    difficulty: p.difficulty,
                }),
                (day_index(now) - day_index(p.last_review)).max(0) as u32,
            ),
            None => (None, 0),
        };
        // next_states only fails on non-finite input; a corrupted state restarts as new.
        let states = self
            .fsrs
            .next_states(memory, self.desired_retention, elapsed)
            .or_else(|_| self.fsrs.next_states(None, self.desired_retention, 0));
        match states {
            Ok(s) => {
                let st = match rating {
                    Rating::Again => s.again,
                    Rating::Hard => s.hard,
                    Rating::Good => s.good,
                    Rating::Easy => s.easy,
                };
                (st.memory, st.interval)
            }
            Err(_) => (
                MemoryState {
                    stability: fsrs::DEFAULT_PARAMETERS[0],
                    difficulty: fsrs::DEFAULT_PARAMETERS[4],
                },
                fsrs::DEFAULT_PARAMETERS[0],
            ),
        }
    }

    /// Whole-day interval for a graduated card, at least one day.
    fn days(&self, interval: f32) -> i64 {
        (interval.round() as i64).clamp(1, 36_500)
    }

    /// The state after reviewing a card with `rating` at `now`.
    pub fn review(
        &self,
        prev: Option<&CardState>,
        rating: Rating,
        now: DateTime<Utc>,
    ) -> CardState {
        let (memory, interval) = self.next_memory(prev, rating, now);
        let mut next = CardState {
            phase: Phase::Learning,
            step: 0,
            stability: memory.stability,
            difficulty: memory.difficulty,
            due: now,
            last_review: now,
            first_review: prev.map_or(now, |p| p.first_review),
            reps: prev.map_or(0, |p| p.reps) + 1,
            lapses: prev.map_or(0, |p| p.lapses),
        };
        let phase = prev.map_or(Phase::New, |p| p.phase);
        let step = prev.map_or(0, |p| p.step);
        match phase {
            Phase::New | Phase::Learning | Phase::Relearning => {
                self.step_review(&mut next, (phase, step), rating, interval, now);
            }
            Phase::Review => self.graduated_review(&mut next, prev, rating, interval, now),
        }
        next
    }

    /// A review of a card still on its (re)learning steps, at `step` of `phase`.
    fn step_review(
        &self,
        next: &mut CardState,
        (phase, step): (Phase, u32),
        rating: Rating,
        interval: f32,
        now: DateTime<Utc>,
    ) {
        let today = day_index(now);
        let steps = if phase == Phase::Relearning {
            &self.relearning_steps
        } else {
            &self.learning_steps
        };
        next.phase = if phase == Phase::Relearning {
            Phase::Relearning
        } else {
            Phase::Learning
        };
        let step = if phase == Phase::New { 0 } else { step };
        match rating {
            Rating::Again => self.at_step(next, steps, 0, now),
            Rating::Hard => {
                // Hard repeats the current step; on the first of several steps it waits
                // halfway to the next, as Anki does.
                let delay = match (steps.get(step as usize), steps.get(step as usize + 1)) {
                    (Some(a), Some(b)) if step == 0 => (*a + *b) / 2,
                    (Some(a), _) => *a,
                    (None, _) => Duration::minutes(10),
                };
                next.step = step;
                next.due = now + delay;
            }
            Rating::Good => {
                // A new card sits at step 0, so `good` moves it to the second step.
                let after = step + 1;
                if (after as usize) < steps.len() {
                    self.at_step(next, steps, after, now);
                } else {
                    graduate(next, today, self.days(interval));
                }
            }
            Rating::Easy => graduate(next, today, self.days(interval)),
        }
        if steps.is_empty() && next.phase != Phase::Review {
            graduate(next, today, self.days(interval));
        }
    }

    /// A review of a graduated card: a lapse goes back to relearning; otherwise the next
    /// interval, hard < good < easy in whole days.
    fn graduated_review(
        &self,
        next: &mut CardState,
        prev: Option<&CardState>,
        rating: Rating,
        interval: f32,
        now: DateTime<Utc>,
    ) {
        let today = day_index(now);
        if rating == Rating::Again {
            next.lapses += 1;
            next.phase = Phase::Relearning;
            if self.relearning_steps.is_empty() {
                graduate(next, today, self.days(interval));
            } else {
                let steps = self.relearning_steps.clone();
                self.at_step(next, &steps, 0, now);
            }
            return;
        }
        // Keep hard < good < easy in whole days even when FSRS rounds them together.
        let (_, hard) = self.next_memory(prev, Rating::Hard, now);
        let (_, good) = self.next_memory(prev, Rating::Good, now);
        let (_, easy) = self.next_memory(prev, Rating::Easy, now);
        let hard = self.days(hard);
        let good = self.days(good).max(hard + 1);
        let easy = self.days(easy).max(good + 1);
        let days = match rating {
            Rating::Hard => hard,
            Rating::Good => good,
            _ => easy,
        };
        graduate(next, today, days);
    }

    fn at_step(&self, next: &mut CardState, steps: &[Duration], step: u32, now: DateTime<Utc>) {
        next.step = step;
        next.due = now
            + steps
                .get(step as usize)
                .copied()
                .unwrap_or(Duration::minutes(10));
    }

    /// Replay a card's reviews (oldest first) into its current state.
    pub fn replay(
        &self,
        reviews: impl IntoIterator<Item = (Rating, DateTime<Utc>)>,
    ) -> Option<CardState> {
        let mut state: Option<CardState> = None;
        for (rating, at) in reviews {
            state = Some(self.review(state.as_ref(), rating, at));
        }
        state
    }

    /// Predicted probability of recalling the card at `at` (0 for a card never reviewed).
    pub fn recall_at(&self, state: Option<&CardState>, at: DateTime<Utc>) -> f32 {
        let Some(s) = state else { return 0.0 };
        let days = (at - s.last_review).num_seconds().max(0) as f32 / 86_400.0;
        fsrs::current_retrievability(
            MemoryState {
                stability: s.stability,
                difficulty: s.difficulty,
            },
            days,
            fsrs::FSRS6_DEFAULT_DECAY,
        )
    }

    /// How weak a card is at `at`, smallest first, for "weakest first" orderings. A card that
    /// was just failed reads close to 100% recall for minutes after the lapse (its low
    /// stability has had no time to decay), so by recall alone it would rank after cards never
    /// seen; a failed card still being (re)learned therefore comes first, then unseen cards,
    /// then the rest by predicted recall.
    pub fn weakness(&self, state: Option<&CardState>, at: DateTime<Utc>) -> (u8, f32) {
        match state {
            Some(s) if s.is_failing() => (0, self.recall_at(Some(s), at)),
            None => (1, 0.0),
            Some(s) => (2, self.recall_at(Some(s), at)),
        }
    }

    /// Is the card due by the end of the study day containing `now`? Cards still in
    /// (re)learning are due at their exact time.
    pub fn is_due(&self, state: &CardState, now: DateTime<Utc>) -> bool {
        match state.phase {
            Phase::Review => day_index(state.due) <= day_index(now),
            _ => state.due <= now,
        }
    }
}

/// A card leaves its steps: due at the start of the study day `days` after `today`.
fn graduate(next: &mut CardState, today: i64, days: i64) {
    next.phase = Phase::Review;
    next.step = 0;
    next.due = day_start(today + days);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn new_card_stabilities_match_the_fsrs_crate_published_numbers() {
        let s = Scheduler::new(0.9).unwrap();
        let now = t("2026-11-29T10:00:00Z");
        let expect = [
            (Rating::Again, 0.212),
            (Rating::Hard, 1.2931),
            (Rating::Good, 2.3065),
            (Rating::Easy, 8.2956),
        ];
        for (rating, stability) in expect {
            let st = s.review(None, rating, now);
            assert!(
                (st.stability - stability).abs() < 1e-4,
                "{rating:?}: {} != {stability}",
                st.stability
            );
        }
        // Difficulty for a first `easy` is clamped to the minimum, as published.
        assert!((s.review(None, Rating::Easy, now).difficulty - 1.0).abs() < 1e-4);
    }

    #[test]
    fn learning_steps_then_graduation() {
        let s = Scheduler::new(0.9).unwrap();
        let now = t("2026-11-29T10:00:00Z");
        let a = s.review(None, Rating::Good, now);
        assert_eq!(a.phase, Phase::Learning);
        assert_eq!(a.due, now + Duration::minutes(10));
        let b = s.review(Some(&a), Rating::Good, a.due);
        assert_eq!(b.phase, Phase::Review);
        assert!(b.due > a.due + Duration::hours(12));
        let again = s.review(None, Rating::Again, now);
        assert_eq!(again.due, now + Duration::minutes(1));
        let easy = s.review(None, Rating::Easy, now);
        assert_eq!(easy.phase, Phase::Review);
        // 8.3 days rounds to 8: due at the start of the study day 8 days on.
        assert_eq!(day_index(easy.due), day_index(now) + 8);
    }

    #[test]
    fn a_lapse_goes_through_relearning_and_counts() {
        let s = Scheduler::new(0.9).unwrap();
        let now = t("2026-11-29T10:00:00Z");
        let easy = s.review(None, Rating::Easy, now);
        let later = easy.due + Duration::hours(1);
        let lapse = s.review(Some(&easy), Rating::Again, later);
        assert_eq!(lapse.phase, Phase::Relearning);
        assert_eq!(lapse.lapses, 1);
        assert_eq!(lapse.due, later + Duration::minutes(10));
        assert!(lapse.stability < easy.stability);
        let back = s.review(Some(&lapse), Rating::Good, lapse.due);
        assert_eq!(back.phase, Phase::Review);
    }

    #[test]
    fn review_intervals_are_ordered_hard_good_easy() {
        let s = Scheduler::new(0.9).unwrap();
        let now = t("2026-11-29T10:00:00Z");
        let g = s.review(None, Rating::Good, now);
        let g = s.review(Some(&g), Rating::Good, g.due);
        let at = g.due + Duration::hours(2);
        let d = |r| day_index(s.review(Some(&g), r, at).due);
        assert!(d(Rating::Hard) < d(Rating::Good));
        assert!(d(Rating::Good) < d(Rating::Easy));
    }

    #[test]
    fn higher_retention_means_shorter_intervals() {
        let now = t("2026-11-29T10:00:00Z");
        let lo = Scheduler::new(0.8).unwrap().review(None, Rating::Easy, now);
        let hi = Scheduler::new(0.97)
            .unwrap()
            .review(None, Rating::Easy, now);
        assert!(hi.due < lo.due);
        assert!(Scheduler::new(1.5).is_err());
    }

    #[test]
    fn recall_decays_and_new_cards_are_zero() {
        let s = Scheduler::new(0.9).unwrap();
        let now = t("2026-11-29T10:00:00Z");
        let st = s.review(None, Rating::Good, now);
        let r1 = s.recall_at(Some(&st), now + Duration::days(1));
        let r10 = s.recall_at(Some(&st), now + Duration::days(10));
        assert!(r1 > r10 && r10 > 0.0);
        // At exactly its stability, recall is 90% by definition.
        let at_s = now + Duration::seconds((st.stability * 86_400.0) as i64);
        assert!((s.recall_at(Some(&st), at_s) - 0.9).abs() < 0.01);
        assert_eq!(s.recall_at(None, now), 0.0);
    }

    #[test]
    fn the_study_day_turns_over_at_four_in_the_morning_local_time() {
        let local = |d: u32, h: u32, m: u32| {
            let naive = NaiveDate::from_ymd_opt(2026, 11, d)
                .unwrap()
                .and_hms_opt(h, m, 0)
                .unwrap();
            Local
                .from_local_datetime(&naive)
                .earliest()
                .unwrap()
                .with_timezone(&Utc)
        };
        // A late-night session still belongs to the day it started in...
        assert_eq!(day_index(local(29, 23, 0)), day_index(local(30, 3, 59)));
        // ...and 04:00 starts the next one.
        assert_eq!(day_index(local(30, 4, 0)), day_index(local(30, 3, 59)) + 1);
        assert_eq!(day_start(day_index(local(30, 12, 0))), local(30, 4, 0));
        // A card graduated with `easy` late at night is due at 04:00 eight study days on.
        let s = Scheduler::new(0.9).unwrap();
        let easy = s.review(None, Rating::Easy, local(30, 2, 0));
        assert_eq!(easy.due, local(29, 4, 0) + Duration::days(8));
        assert!(s.is_due(&easy, local(29, 4, 0) + Duration::days(8)));
        assert!(!s.is_due(&easy, local(29, 3, 59) + Duration::days(8)));
    }

    #[test]
    fn a_fresh_failure_is_weaker_than_an_unseen_card() {
        let s = Scheduler::new(0.9).unwrap();
        let now = t("2026-11-29T10:00:00Z");
        let easy = s.review(None, Rating::Easy, now);
        let later = easy.due + Duration::hours(1);
        let lapse = s.review(Some(&easy), Rating::Again, later);
        let soon = later + Duration::minutes(2);
        // By recall alone the lapse looks nearly perfect two minutes on...
        assert!(s.recall_at(Some(&lapse), soon) > 0.95);
        // ...but it ranks before a card never seen, which ranks before a solid card.
        let w = |st: Option<&CardState>| s.weakness(st, soon);
        assert!(w(Some(&lapse)) < w(None));
        let solid = s.review(None, Rating::Easy, soon);
        assert!(w(None) < w(Some(&solid)));
        let again_new = s.review(None, Rating::Again, now);
        assert!(again_new.is_failing() && again_new.is_learning());
        let good_new = s.review(None, Rating::Good, now);
        assert!(!good_new.is_failing() && good_new.is_learning());
    }

    #[test]
    fn a_past_exam_date_is_refused() {
        let now = t("2026-11-29T10:00:00Z");
        let past = NaiveDate::from_ymd_opt(2020, 1, 1).unwrap();
        let err = check_exam_date(past, now).unwrap_err().to_string();
        assert!(err.contains("--exam 2020-01-01 is in the past"), "{err}");
        assert!(check_exam_date(now.date_naive(), now).is_ok());
        assert!(check_exam_date(NaiveDate::from_ymd_opt(2026, 12, 15).unwrap(), now).is_ok());
    }

    #[test]
    fn parse_ratings() {
        assert_eq!(parse_rating("G"), Some(Rating::Good));
        assert_eq!(parse_rating("4"), Some(Rating::Easy));
        assert_eq!(parse_rating("again"), Some(Rating::Again));
        assert_eq!(parse_rating("x"), None);
    }
}
