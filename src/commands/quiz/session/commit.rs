//! After the grade: the rating prompt, the write to the store (waiting out another process's
//! lock), what a rating sets off (a re-ask after a red flag, the follow-ups) and undo.

use super::{HELP, Outcome, Rated, RatingReply, Session, until};
use crate::card::Card;
use crate::commands::quiz::input::{Input, Line};
use crate::commands::quiz::rating::{self, Effort, Suggestion};
use crate::commands::quiz::render::{dim, green, red, yellow};
use crate::grader::{Grade, Rating};
use crate::scheduler::{self, rating_str};
use crate::store::NewReview;

impl Session {
    pub(super) fn rate(
        &mut self,
        card: &Card,
        sugg: &Suggestion,
        rungs_read: u32,
        input: &mut dyn Input,
    ) -> anyhow::Result<RatingReply> {
        // After answering, `deeper` carries on from the rung reached before (no penalty now).
        let mut rung = rungs_read;
        loop {
            let prompt = self
                .screen
                .rating_prompt(sugg.rating, sugg.cap, &sugg.reasons);
            let line = match input.read(&prompt, true)? {
                Line::Text(t) => t,
                Line::Eof | Line::Interrupted => return Ok(RatingReply::Quit),
            };
            let word = line.trim().to_ascii_lowercase();
            if word.is_empty() {
                return Ok(RatingReply::Rated(sugg.rating));
            }
            if let Some(r) = scheduler::parse_rating(&word) {
                if rating::min(r, sugg.cap) != r {
                    self.screen.line(&format!(
                        "{} this answer can be rated at most {} ({}); saving {}.",
                        yellow("capped:"),
                        rating_str(sugg.cap),
                        sugg.reasons.join("; "),
                        rating_str(sugg.cap)
                    ));
                    return Ok(RatingReply::Rated(sugg.cap));
                }
                return Ok(RatingReply::Rated(r));
            }
            match word.as_str() {
                "deeper" => {
                    rung += 1;
                    self.deeper(card, rung);
                }
                "hint" => self.screen.line(&dim(if card.has_ladder() {
                    "the answers are above; `deeper` goes further."
                } else {
                    "the answers are above."
                })),
                "!" | "dispute" => {
                    if let Some(r) = self.dispute(input)? {
                        return Ok(RatingReply::Rated(r));
                    }
                }
                "skip" => return Ok(RatingReply::Skip),
                "undo" => return Ok(RatingReply::Undo),
                "quit" => return Ok(RatingReply::Quit),
                "help" => self.screen.prose(HELP),
                _ => self.screen.line(&format!(
                    "{} `{}`: press Enter for {}, or 1/2/3/4 (again/hard/good/easy).",
                    yellow("not a rating:"),
                    line.trim(),
                    rating_str(sugg.rating)
                )),
            }
        }
    }

    /// Commit the rating; false when the store stayed locked and the user chose to quit.
    pub(super) fn save(
        &mut self,
        key: &str,
        card: &Card,
        (grade, sugg, effort, r): (&Grade, &Suggestion, &Effort, Rating),
        followup: bool,
        input: &mut dyn Input,
    ) -> anyhow::Result<bool> {
        let now = scheduler::now();
        let mut rev = NewReview::new(key, r, self.mode, now);
        rev.suggested = Some(sugg.rating);
        rev.verdict = Some(grade.verdict);
        rev.score = Some(grade.score);
        rev.points_hit = grade
            .points
            .iter()
            .filter(|p| p.hit)
            .map(|p| p.label.clone())
            .collect();
        rev.points_missed = grade
            .points
            .iter()
            .filter(|p| !p.hit)
            .map(|p| p.label.clone())
            .collect();
        rev.red_flags = grade.red_flags.iter().map(|f| f.label.clone()).collect();
        rev.answer_ms = Some((effort.seconds * 1000.0).round() as u64);
        rev.targets = Some((effort.basics_target, effort.solid_target));
        rev.hints = effort.hints;
        rev.deeper = effort.deeper_before;
        rev.card_hash = Some(crate::commands::quiz::card_hash(card));
        rev.session = Some(self.session_id.clone());
        let Some(id) = self.commit(&rev, input)? else {
            return Ok(false);
        };
        self.keep_judged(id);
        self.asked += 1;
        self.rated.push(Rated {
            review_id: id,
            key: key.to_string(),
            rating: r,
            reask_queued: false,
        });
        self.hashes.insert(
            key.to_string(),
            (crate::commands::quiz::card_hash(card), now),
        );
        let saved = if self.mode.schedules() {
            self.states = self.store.states()?;
            match self.states.get(key) {
                Some(s) => format!("next {} ({})", until(now, s.due), s.phase.as_str()),
                None => String::new(),
            }
        } else {
            "cram: schedule unchanged".to_string()
        };
        self.screen
            .line(&format!("{} {} · {saved}", green("saved:"), rating_str(r)));
        let reask = self.outcomes.iter().any(|o| o.key == key);
        self.outcomes.push(Outcome {
            reask,
            key: key.to_string(),
            question: card.question.lines().next().unwrap_or("").to_string(),
            verdict: grade.verdict,
            rating: r,
            seconds: effort.seconds,
            solid_target: effort.solid_target,
            missed_required: grade
                .points
                .iter()
                .filter(|p| p.required && !p.hit)
                .map(|p| p.label.clone())
                .collect(),
            red_flags: grade
                .red_flags
                .iter()
                .map(|f| (f.label.clone(), f.span.text.clone()))
                .collect(),
            followup,
        });
        Ok(true)
    }

    /// Record a review, waiting for a store another process holds: the rating is kept in
    /// memory, the user sees why nothing happens, and it is saved as soon as the lock is
    /// free. None when the user quits instead (then it was never acknowledged as saved).
    fn commit(&mut self, rev: &NewReview, input: &mut dyn Input) -> anyhow::Result<Option<i64>> {
        // A short first try, so a held store is announced at once rather than after 10 s.
        self.store
            .set_lock_wait(std::time::Duration::from_secs(1))?;
        let first = self.store.record(rev);
        self.store.set_lock_wait(crate::store::LOCK_WAIT)?;
        match first {
            Ok(id) => return Ok(Some(id)),
            Err(e) if crate::store::is_locked(&e) => self.screen.line(&format!(
                "{} the progress store {} is held by another process; waiting up to {} s (your rating is kept)…",
                yellow("waiting:"),
                self.store.path().display(),
                crate::store::LOCK_WAIT.as_secs()
            )),
            Err(e) => return Err(e),
        }
        loop {
            match self.store.record(rev) {
                Ok(id) => return Ok(Some(id)),
                Err(e) if crate::store::is_locked(&e) => {
                    self.screen.line(&format!("{} {e}", yellow("waiting:")));
                    self.screen.line(
                        "your rating is kept, not yet saved: press Enter to try again, or type `quit` to stop without saving it.",
                    );
                    match input.read("retry > ", false)? {
                        Line::Text(t) if t.trim().eq_ignore_ascii_case("quit") => return Ok(None),
                        Line::Text(_) => {}
                        Line::Eof | Line::Interrupted => return Ok(None),
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    pub(super) fn after_rating(&mut self, key: &str, card: &Card, grade: &Grade, _r: Rating) {
        let mut reask = false;
        if !grade.red_flags.is_empty() {
            let n = self.reasks.entry(key.to_string()).or_insert(0);
            if *n < 2 {
                *n += 1;
                let at = self.queue.len().min(3);
                self.queue.insert(at, (key.to_string(), false));
                if let Some(last) = self.rated.last_mut() {
                    last.reask_queued = true;
                }
                reask = true;
            }
        }
        let deck = key.split('/').next().unwrap_or_default();
        for f in card.followups.iter().rev() {
            let fk = format!("{deck}/{f}");
            // A follow-up that builds on another deck's card waits until that card is introduced.
            let ready = self.lib.card(&fk).is_some_and(|(_, c)| {
                crate::commands::quiz::queue::ready(c, &self.lib, &self.states)
            });
            if ready && self.asked_followups.insert(fk.clone()) {
                // Asked now, as an interviewer would, rather than again later as a new card.
                self.queue.retain(|(k, _)| *k != fk);
                self.queue.push_front((fk, true));
            }
        }
        if card.followups.iter().any(|f| {
            self.queue
                .front()
                .is_some_and(|(k, fu)| *fu && k.ends_with(&format!("/{f}")))
        }) {
            self.screen.followup_next = true;
        }
        if reask {
            let when = if self.queue.front().is_some_and(|(k, _)| k == key) {
                "next"
            } else {
                "later in this session"
            };
            self.screen.line(&format!(
                "{} this card comes back {when}.",
                red("red flag:")
            ));
        }
    }

    pub(super) fn undo(&mut self) {
        let Some(last) = self.rated.pop() else {
            self.screen.line(&format!(
                "{} nothing to undo in this session.",
                dim("undo:")
            ));
            return;
        };
        match self.store.undo(last.review_id) {
            Ok(()) => {
                self.asked = self.asked.saturating_sub(1);
                if let Some(i) = self.outcomes.iter().rposition(|o| o.key == last.key) {
                    self.outcomes.remove(i);
                }
                if let Ok(s) = self.store.states() {
                    self.states = s;
                }
                if last.reask_queued {
                    // The re-ask belonged to the rating just taken back.
                    if let Some(i) = self.queue.iter().position(|(k, _)| *k == last.key) {
                        self.queue.remove(i);
                    }
                    if let Some(n) = self.reasks.get_mut(&last.key) {
                        *n = n.saturating_sub(1);
                    }
                }
                self.queue.push_front((last.key.clone(), false));
                self.screen.line(&format!(
                    "{} took back `{}` on {}; asking it again.",
                    yellow("undone:"),
                    rating_str(last.rating),
                    last.key
                ));
            }
            Err(e) => {
                self.screen
                    .line(&format!("{} could not undo: {e}", red("error:")));
                // Still the last rating: `undo` can be tried again.
                self.rated.push(last);
            }
        }
    }
}
