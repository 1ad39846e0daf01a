//! Progress on disk: an append-only review log in SQLite and the card state derived from it.
//!
//! Every review is its own committed transaction (WAL, `synchronous=FULL`), so a rating the
//! user has seen acknowledged survives Ctrl-C, a closed terminal or `kill -9`. Writers take
//! the database lock up front (`BEGIN IMMEDIATE`) and wait for each other (`busy_timeout`),
//! and the derived state of a card is recomputed from its whole log inside the same
//! transaction, so two sessions at once can interleave but never lose or corrupt a review.
//! `undo` does not delete: it appends the review's id to `undone`.

mod judge;
mod open;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

pub use judge::{Dispute, JudgeCounts, JudgementKey, Kept};
pub use open::{LOCK_WAIT, Problem, SCHEMA_VERSION, StoreError, is_locked};
use serde::Serialize;

use crate::grader::{Rating, Verdict};
use crate::scheduler::{self, CardState, Phase, Scheduler};

pub const DB_FILE: &str = "progress.sqlite3";

/// What kind of session produced a review. Only `cram` leaves the schedule alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewMode {
    Review,
    Cram,
    Interview,
    Exam,
    Interviewer,
    Lab,
}

impl ReviewMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewMode::Review => "review",
            ReviewMode::Cram => "cram",
            ReviewMode::Interview => "interview",
            ReviewMode::Exam => "exam",
            ReviewMode::Interviewer => "interviewer",
            ReviewMode::Lab => "lab",
        }
    }
    pub fn schedules(self) -> bool {
        self != ReviewMode::Cram
    }
}

/// One review to append.
#[derive(Debug, Clone)]
pub struct NewReview {
    /// `DECK/CARD`.
    pub card: String,
    pub at: DateTime<Utc>,
    pub rating: Rating,
    pub suggested: Option<Rating>,
    pub verdict: Option<Verdict>,
    pub score: Option<f32>,
    pub points_hit: Vec<String>,
    pub points_missed: Vec<String>,
    pub red_flags: Vec<String>,
    pub answer_ms: Option<u64>,
    /// The card's targets when it was answered (basics, solid answer), in seconds.
    pub targets: Option<(u32, u32)>,
    pub hints: u32,
    pub deeper: u32,
    pub mode: ReviewMode,
    pub card_hash: Option<String>,
    pub session: Option<String>,
    /// Where the review came from: `quiz`, or e.g. `lab:ack-first`.
    pub source: String,
}

impl NewReview {
    pub fn new(card: &str, rating: Rating, mode: ReviewMode, at: DateTime<Utc>) -> NewReview {
        NewReview {
            card: card.to_string(),
            at,
            rating,
            suggested: None,
            verdict: None,
            score: None,
            points_hit: Vec::new(),
            points_missed: Vec::new(),
            red_flags: Vec::new(),
            answer_ms: None,
            targets: None,
            hints: 0,
            deeper: 0,
            mode,
            card_hash: None,
            session: None,
            source: "quiz".to_string(),
        }
    }
}

/// One review as read back from the log (export, stats).
#[derive(Debug, Clone, Serialize)]
pub struct ReviewRow {
    pub id: i64,
    pub card: String,
    pub at: DateTime<Utc>,
    pub rating: String,
    pub suggested: Option<String>,
    pub verdict: Option<String>,
    pub score: Option<f64>,
    pub points_hit: Vec<String>,
    pub points_missed: Vec<String>,
    pub red_flags: Vec<String>,
    pub answer_ms: Option<i64>,
    pub basics_s: Option<i64>,
    pub solid_s: Option<i64>,
    pub hints: i64,
    pub deeper: i64,
    pub mode: String,
    pub scheduled: bool,
    pub card_hash: Option<String>,
    pub session: Option<String>,
    pub source: Option<String>,
    /// Taken back with `undo`: kept in the log, ignored by the schedule and the stats.
    pub undone: bool,
}

impl ReviewRow {
    pub fn rating(&self) -> Option<Rating> {
        scheduler::parse_rating(&self.rating)
    }
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
    pub scheduler: Scheduler,
    /// Opened read-only: [`Store::carry_over`] maps what it reads instead of writing.
    read_only: bool,
    /// Replaced card → the card that replaced it, applied to the log as it is read (read-only).
    replaced: HashMap<String, String>,
}

/// `rusqlite::Result` for the queries below; the public methods turn its errors into ones that
/// name the store's path and say what to do.
type Sql<T> = rusqlite::Result<T>;

fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn from_ms(v: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(v).single().unwrap_or_default()
}

fn json_list(v: &[String]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".into())
}

fn parse_list(s: &str) -> Vec<String> {
    serde_json::from_str(s).unwrap_or_default()
}

pub fn verdict_str(v: Verdict) -> &'static str {
    v.name()
}

impl Store {
    /// Open (creating if needed) the store in `data_dir`, with the desired retention saved
    /// there (default 0.90). The store is checked (version, layout) before this returns.
    pub fn open(data_dir: &Path) -> anyhow::Result<Store> {
        Store::open_with(data_dir, None)
    }

    /// Like [`Store::open`]; `retention` (when given) becomes the saved desired retention.
    pub fn open_with(data_dir: &Path, retention: Option<f32>) -> anyhow::Result<Store> {
        let (conn, path) = open::open_rw(data_dir)?;
        let mut store = Store {
            conn,
            path,
            scheduler: Scheduler::new(scheduler::DEFAULT_RETENTION)?,
            read_only: false,
            replaced: HashMap::new(),
        };
        let saved = store
            .setting("desired_retention")?
            .and_then(|v| v.parse::<f32>().ok());
        let retention = match retention {
            Some(r) => {
                let s = Scheduler::new(r)?;
                store.set_setting("desired_retention", &r.to_string())?;
                s.desired_retention
            }
            None => saved.unwrap_or(scheduler::DEFAULT_RETENTION),
        };
        store.scheduler = Scheduler::new(retention)?;
        Ok(store)
    }

    /// Open the store for reading only (`stats`, `progress export`): nothing is created or
    /// written, so a read-only file or folder works, and a missing store reads as empty.
    pub fn open_read_only(data_dir: &Path) -> anyhow::Result<Store> {
        let (conn, path) = open::open_ro(data_dir)?;
        let mut store = Store {
            conn,
            path,
            scheduler: Scheduler::new(scheduler::DEFAULT_RETENTION)?,
            read_only: true,
            replaced: HashMap::new(),
        };
        let saved = store
            .setting("desired_retention")?
            .and_then(|v| v.parse::<f32>().ok())
            .and_then(|r| Scheduler::new(r).ok());
        if let Some(s) = saved {
            store.scheduler = s;
        }
        Ok(store)
    }

    fn explain(&self, doing: &str) -> impl FnOnce(rusqlite::Error) -> anyhow::Error + '_ {
        let doing = doing.to_string();
        move |e| open::explain(e, &self.path, &doing)
    }

    pub fn record(&self, r: &NewReview) -> anyhow::Result<i64> {
        self.record_sql(r).map_err(self.explain("saving a review"))
    }

    pub fn states(&self) -> anyhow::Result<HashMap<String, CardState>> {
        self.states_sql()
            .map_err(self.explain("reading the card states"))
    }

    pub fn last_hashes(&self) -> anyhow::Result<HashMap<String, (String, DateTime<Utc>)>> {
        self.last_hashes_sql()
            .map_err(self.explain("reading the card fingerprints"))
    }

    pub fn reviews(&self) -> anyhow::Result<Vec<ReviewRow>> {
        let mut rows = self
            .reviews_sql()
            .map_err(self.explain("reading the review log"))?;
        for r in &mut rows {
            if let Some(new) = self.replaced.get(&r.card) {
                r.card.clone_from(new);
            }
        }
        Ok(rows)
    }

    /// Files the history of replaced cards (a deck's `replaces`: renamed, or merged into
    /// another) under the card that replaced them, given as `(replaced, replacement)` keys.
    /// A writable store re-keys those reviews in one transaction (once: a second call finds
    /// none), recomputes the replacement's state and notes the move in its settings
    /// (`replaced:OLD` = `NEW`); every review is kept as it was. A read-only store applies the
    /// same mapping to the log as it reads it. Returns how many reviews were re-keyed.
    pub fn carry_over(&mut self, replaced: &[(String, String)]) -> anyhow::Result<usize> {
        if self.read_only {
            self.replaced = replaced.iter().cloned().collect();
            return Ok(0);
        }
        self.carry_over_sql(replaced)
            .map_err(self.explain("carrying the history of replaced cards over"))
    }

    fn carry_over_sql(&self, replaced: &[(String, String)]) -> Sql<usize> {
        let tx = self.begin()?;
        let mut moved = 0;
        for (old, new) in replaced {
            let n = tx.execute(
                "UPDATE reviews SET card = ?2 WHERE card = ?1",
                params![old, new],
            )?;
            if n == 0 {
                continue;
            }
            moved += n;
            self.recompute(&tx, old)?;
            self.recompute(&tx, new)?;
            tx.execute(
                "INSERT INTO settings(key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![format!("replaced:{old}"), new],
            )?;
        }
        tx.commit()?;
        Ok(moved)
    }

    pub fn cards_matching(&self, target: Option<&str>) -> anyhow::Result<Vec<(String, usize)>> {
        self.cards_matching_sql(target)
            .map_err(self.explain("listing the cards with progress"))
    }

    pub fn reset(&self, cards: &[String]) -> anyhow::Result<usize> {
        self.reset_sql(cards)
            .map_err(self.explain("forgetting progress"))
    }

    /// How long a write waits for another process's lock before failing as locked
    /// (default [`LOCK_WAIT`]).
    pub fn set_lock_wait(&self, wait: std::time::Duration) -> anyhow::Result<()> {
        self.conn
            .busy_timeout(wait)
            .map_err(self.explain("setting its lock wait"))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn setting(&self, key: &str) -> anyhow::Result<Option<String>> {
        self.conn
            .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(self.explain("reading its settings"))
    }

    pub fn set_setting(&self, key: &str, value: &str) -> anyhow::Result<()> {
        self.conn
            .execute(
                "INSERT INTO settings(key, value) VALUES (?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map_err(self.explain("saving a setting"))?;
        Ok(())
    }

    fn begin(&self) -> Sql<Transaction<'_>> {
        Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
    }

    /// Append a review and update the card's state; committed when this returns.
    fn record_sql(&self, r: &NewReview) -> Sql<i64> {
        let tx = self.begin()?;
        tx.execute(
            "INSERT INTO reviews (card, at_ms, rating, suggested, verdict, score, points_hit,
                points_missed, red_flags, answer_ms, basics_s, solid_s, hints, deeper, mode,
                scheduled, card_hash, session, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, ?19)",
            params![
                r.card,
                ms(r.at),
                scheduler::rating_str(r.rating),
                r.suggested.map(scheduler::rating_str),
                r.verdict.map(verdict_str),
                r.score.map(f64::from),
                json_list(&r.points_hit),
                json_list(&r.points_missed),
                json_list(&r.red_flags),
                r.answer_ms.map(|v| v as i64),
                r.targets.map(|t| t.0),
                r.targets.map(|t| t.1),
                r.hints,
                r.deeper,
                r.mode.as_str(),
                r.mode.schedules(),
                r.card_hash,
                r.session,
                r.source,
            ],
        )?;
        let id = tx.last_insert_rowid();
        if r.mode.schedules() {
            self.recompute(&tx, &r.card)?;
        }
        tx.commit()?;
        Ok(id)
    }

    /// The lab's hook: a wrong prediction about a linked card counts as an `again` review
    /// (mode `lab`), scheduled like any other.
    pub fn record_lapse(&self, card_key: &str, source: &str) -> anyhow::Result<()> {
        let mut r = NewReview::new(card_key, Rating::Again, ReviewMode::Lab, scheduler::now());
        r.source = source.to_string();
        self.record(&r)?;
        Ok(())
    }

    /// Take a review back: it stays in the log, marked undone, and the card's state is
    /// recomputed without it.
    pub fn undo(&self, review_id: i64) -> anyhow::Result<()> {
        if !self
            .undo_sql(review_id)
            .map_err(self.explain("taking a review back"))?
        {
            anyhow::bail!("review {review_id} is not in the log");
        }
        Ok(())
    }

    /// False when the review is not in the log.
    fn undo_sql(&self, review_id: i64) -> Sql<bool> {
        let tx = self.begin()?;
        let card: Option<String> = tx
            .query_row("SELECT card FROM reviews WHERE id = ?1", [review_id], |r| {
                r.get(0)
            })
            .optional()?;
        let Some(card) = card else {
            return Ok(false);
        };
        tx.execute(
            "INSERT OR IGNORE INTO undone(review_id, at_ms) VALUES (?1, ?2)",
            params![review_id, ms(scheduler::now())],
        )?;
        self.recompute(&tx, &card)?;
        tx.commit()?;
        Ok(true)
    }

    fn scheduled_history(
        &self,
        conn: &Connection,
        card: &str,
    ) -> Sql<Vec<(Rating, DateTime<Utc>)>> {
        let mut stmt = conn.prepare_cached(
            "SELECT rating, at_ms FROM reviews
             WHERE card = ?1 AND scheduled = 1 AND id NOT IN (SELECT review_id FROM undone)
             ORDER BY at_ms, id",
        )?;
        let rows = stmt.query_map([card], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (rating, at) = row?;
            if let Some(rating) = scheduler::parse_rating(&rating) {
                out.push((rating, from_ms(at)));
            }
        }
        Ok(out)
    }

    fn recompute(&self, tx: &Transaction<'_>, card: &str) -> Sql<()> {
        let history = self.scheduled_history(tx, card)?;
        match self.scheduler.replay(history) {
            None => {
                tx.execute("DELETE FROM card_state WHERE card = ?1", [card])?;
            }
            Some(s) => {
                tx.execute(
                    "INSERT OR REPLACE INTO card_state
                     (card, phase, step, stability, difficulty, due_ms, last_ms, first_ms, reps, lapses)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![
                        card,
                        s.phase.as_str(),
                        s.step,
                        f64::from(s.stability),
                        f64::from(s.difficulty),
                        ms(s.due),
                        ms(s.last_review),
                        ms(s.first_review),
                        s.reps,
                        s.lapses
                    ],
                )?;
            }
        }
        Ok(())
    }

    /// Every card's current state, keyed by `DECK/CARD`.
    fn states_sql(&self) -> Sql<HashMap<String, CardState>> {
        let mut stmt = self.conn.prepare(
            "SELECT card, phase, step, stability, difficulty, due_ms, last_ms, first_ms, reps, lapses
             FROM card_state",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                CardState {
                    phase: Phase::parse(&r.get::<_, String>(1)?),
                    step: r.get(2)?,
                    stability: r.get::<_, f64>(3)? as f32,
                    difficulty: r.get::<_, f64>(4)? as f32,
                    due: from_ms(r.get(5)?),
                    last_review: from_ms(r.get(6)?),
                    first_review: from_ms(r.get(7)?),
                    reps: r.get(8)?,
                    lapses: r.get(9)?,
                },
            ))
        })?;
        let mut out = HashMap::new();
        for row in rows {
            let (k, v) = row?;
            out.insert(k, v);
        }
        Ok(out)
    }

    pub fn state(&self, card: &str) -> anyhow::Result<Option<CardState>> {
        Ok(self.states()?.remove(card))
    }

    /// The card-text hash stored with each card's latest review, to tell the user when a card
    /// changed since they last saw it.
    fn last_hashes_sql(&self) -> Sql<HashMap<String, (String, DateTime<Utc>)>> {
        let mut stmt = self.conn.prepare(
            "SELECT card, card_hash, at_ms, MAX(id) FROM reviews
             WHERE card_hash IS NOT NULL AND id NOT IN (SELECT review_id FROM undone)
             GROUP BY card",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        let mut out = HashMap::new();
        for row in rows {
            let (card, hash, at) = row?;
            out.insert(card, (hash, from_ms(at)));
        }
        Ok(out)
    }

    /// The whole log, oldest first, undone reviews included (and marked).
    fn reviews_sql(&self) -> Sql<Vec<ReviewRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, card, at_ms, rating, suggested, verdict, score, points_hit, points_missed,
                    red_flags, answer_ms, basics_s, solid_s, hints, deeper, mode, scheduled,
                    card_hash, session, source,
                    id IN (SELECT review_id FROM undone)
             FROM reviews ORDER BY at_ms, id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(ReviewRow {
                id: r.get(0)?,
                card: r.get(1)?,
                at: from_ms(r.get(2)?),
                rating: r.get(3)?,
                suggested: r.get(4)?,
                verdict: r.get(5)?,
                score: r.get(6)?,
                points_hit: parse_list(&r.get::<_, String>(7)?),
                points_missed: parse_list(&r.get::<_, String>(8)?),
                red_flags: parse_list(&r.get::<_, String>(9)?),
                answer_ms: r.get(10)?,
                basics_s: r.get(11)?,
                solid_s: r.get(12)?,
                hints: r.get(13)?,
                deeper: r.get(14)?,
                mode: r.get(15)?,
                scheduled: r.get(16)?,
                card_hash: r.get(17)?,
                session: r.get(18)?,
                source: r.get(19)?,
                undone: r.get(20)?,
            })
        })?;
        rows.collect()
    }

    /// Cards whose first scheduled review falls on study day `day` (for the daily new-card cap).
    pub fn introduced_on(&self, day: i64) -> anyhow::Result<usize> {
        Ok(self
            .states()?
            .values()
            .filter(|s| scheduler::day_index(s.first_review) == day)
            .count())
    }

    /// Cards with any review whose key is `target` (a card) or starts with `target/` (a deck);
    /// `None` means every card.
    fn cards_matching_sql(&self, target: Option<&str>) -> Sql<Vec<(String, usize)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT card, COUNT(*) FROM reviews GROUP BY card ORDER BY card")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as usize))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (card, n) = row?;
            let keep = match target {
                None => true,
                Some(t) => card == t || card.starts_with(&format!("{t}/")),
            };
            if keep {
                out.push((card, n));
            }
        }
        Ok(out)
    }

    /// Forget cards entirely: their reviews and state are deleted (the one deliberate
    /// exception to append-only, asked for by the user).
    fn reset_sql(&self, cards: &[String]) -> Sql<usize> {
        let tx = self.begin()?;
        let mut n = 0;
        for card in cards {
            Store::forget_judged(&tx, card)?;
            tx.execute(
                "DELETE FROM undone WHERE review_id IN (SELECT id FROM reviews WHERE card = ?1)",
                [card],
            )?;
            n += tx.execute("DELETE FROM reviews WHERE card = ?1", [card])?;
            tx.execute("DELETE FROM card_state WHERE card = ?1", [card])?;
        }
        tx.commit()?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
