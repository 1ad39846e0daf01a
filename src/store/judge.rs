//! What the model judge and the learner's disputes leave in the store: each judgement once,
//! keyed by card, answer, model and prompt version (so the same answer is never sent twice),
//! the judgement a review was rated on, and each disputed verdict.
//!
//! A store opened read-only from before these tables existed simply has none: reads return
//! nothing rather than failing.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, params};

use super::{Sql, Store, ms};
use crate::grader::Verdict;

/// The tables, created by the migration to store version 2 (see `open.rs`).
pub(super) const TABLES: &str = "
CREATE TABLE IF NOT EXISTS judgements (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    card        TEXT    NOT NULL,
    answer      TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    prompt      TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,
    reply       TEXT    NOT NULL,
    UNIQUE (card, answer, model, prompt)
);
CREATE TABLE IF NOT EXISTS review_judgements (
    review_id   INTEGER PRIMARY KEY,
    judgement   INTEGER NOT NULL,
    verdict     TEXT    NOT NULL,
    agreed      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS disputes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    review_id   INTEGER,
    card        TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,
    graded      TEXT    NOT NULL,
    rules       TEXT    NOT NULL,
    judge       TEXT,
    learner     TEXT    NOT NULL
);
";

/// What a judgement is cached under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgementKey {
    /// `DECK/CARD`.
    pub card: String,
    /// A fingerprint of the answer's text (the text itself is not kept).
    pub answer: String,
    pub model: String,
    pub prompt: String,
}

/// A judgement as kept.
#[derive(Debug, Clone)]
pub struct Kept {
    pub model: String,
    pub prompt: String,
    pub at_ms: i64,
    /// The reply as read (the judge's `Reply`, as JSON).
    pub reply: String,
}

/// A disputed verdict.
#[derive(Debug, Clone)]
pub struct Dispute {
    pub review_id: Option<i64>,
    pub card: String,
    pub at: chrono::DateTime<chrono::Utc>,
    /// The verdict the learner disputed (the judge's when it counted, else the rules').
    pub graded: Verdict,
    pub rules: Verdict,
    pub judge: Option<Verdict>,
    pub learner: Verdict,
}

/// How often each card's verdict was disputed, and how its judged reviews went.
#[derive(Debug, Clone, Default)]
pub struct JudgeCounts {
    pub disputes: BTreeMap<String, usize>,
    pub judged: usize,
    pub agreed: usize,
}

impl Store {
    fn has_table(&self, name: &str) -> Sql<bool> {
        self.conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get::<_, i64>(0).map(|n| n > 0),
        )
    }

    /// The stored judgement under `key`: its id and the reply as kept.
    pub fn judgement(&self, key: &JudgementKey) -> anyhow::Result<Option<(i64, String)>> {
        self.judgement_sql(key)
            .map_err(self.explain("reading a stored judgement"))
    }

    fn judgement_sql(&self, k: &JudgementKey) -> Sql<Option<(i64, String)>> {
        if !self.has_table("judgements")? {
            return Ok(None);
        }
        self.conn
            .query_row(
                "SELECT id, reply FROM judgements
                 WHERE card = ?1 AND answer = ?2 AND model = ?3 AND prompt = ?4",
                params![k.card, k.answer, k.model, k.prompt],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
    }

    /// Every judgement kept for `answer` (a fingerprint) to `card`, whatever the model or
    /// prompt, newest first: for `decks corpus import`.
    pub fn judgements_of(&self, card: &str, answer: &str) -> anyhow::Result<Vec<Kept>> {
        self.judgements_of_sql(card, answer)
            .map_err(self.explain("reading the stored judgements"))
    }

    fn judgements_of_sql(&self, card: &str, answer: &str) -> Sql<Vec<Kept>> {
        if !self.has_table("judgements")? {
            return Ok(Vec::new());
        }
        let mut q = self.conn.prepare(
            "SELECT model, prompt, at_ms, reply FROM judgements
             WHERE card = ?1 AND answer = ?2 ORDER BY at_ms DESC, id DESC",
        )?;
        q.query_map(params![card, answer], |r| {
            Ok(Kept {
                model: r.get(0)?,
                prompt: r.get(1)?,
                at_ms: r.get(2)?,
                reply: r.get(3)?,
            })
        })?
        .collect()
    }

    /// Keep a judgement (the first one kept under a key stays); its id.
    pub fn save_judgement(&self, key: &JudgementKey, reply: &str) -> anyhow::Result<i64> {
        self.save_judgement_sql(key, reply)
            .map_err(self.explain("saving a judgement"))
    }

    fn save_judgement_sql(&self, k: &JudgementKey, reply: &str) -> Sql<i64> {
        self.conn.execute(
            "INSERT OR IGNORE INTO judgements (card, answer, model, prompt, at_ms, reply)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                k.card,
                k.answer,
                k.model,
                k.prompt,
                ms(crate::scheduler::now()),
                reply
            ],
        )?;
        self.conn.query_row(
            "SELECT id FROM judgements WHERE card = ?1 AND answer = ?2 AND model = ?3 AND prompt = ?4",
            params![k.card, k.answer, k.model, k.prompt],
            |r| r.get(0),
        )
    }

    /// Note that review `review_id` was rated on judgement `judgement`.
    pub fn link_judgement(
        &self,
        review_id: i64,
        judgement: i64,
        verdict: Verdict,
        agreed: bool,
    ) -> anyhow::Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO review_judgements (review_id, judgement, verdict, agreed)
                 VALUES (?1, ?2, ?3, ?4)",
                params![review_id, judgement, verdict.name(), agreed],
            )
            .map(|_| ())
            .map_err(self.explain("saving which judgement a review used"))
    }

    pub fn record_dispute(&self, d: &Dispute) -> anyhow::Result<()> {
        self.conn
            .execute(
                "INSERT INTO disputes (review_id, card, at_ms, graded, rules, judge, learner)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    d.review_id,
                    d.card,
                    ms(d.at),
                    d.graded.name(),
                    d.rules.name(),
                    d.judge.map(Verdict::name),
                    d.learner.name()
                ],
            )
            .map(|_| ())
            .map_err(self.explain("saving a disputed verdict"))
    }

    /// Disputes per card and judged reviews, leaving out reviews taken back with `undo`.
    pub fn judge_counts(&self) -> anyhow::Result<JudgeCounts> {
        self.judge_counts_sql()
            .map_err(self.explain("counting disputes and judgements"))
    }

    fn judge_counts_sql(&self) -> Sql<JudgeCounts> {
        let mut out = JudgeCounts::default();
        if !self.has_table("disputes")? {
            return Ok(out);
        }
        let mut stmt = self.conn.prepare(
            "SELECT card, COUNT(*) FROM disputes
             WHERE review_id IS NULL OR review_id NOT IN (SELECT review_id FROM undone)
             GROUP BY card ORDER BY card",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (card, n) = row?;
            out.disputes.insert(card, n as usize);
        }
        let (judged, agreed): (i64, Option<i64>) = self.conn.query_row(
            "SELECT COUNT(*), SUM(agreed) FROM review_judgements
             WHERE review_id NOT IN (SELECT review_id FROM undone)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        out.judged = judged as usize;
        out.agreed = agreed.unwrap_or(0) as usize;
        Ok(out)
    }

    /// `progress reset`: a forgotten card's judgements and disputes go with its reviews.
    pub(super) fn forget_judged(tx: &rusqlite::Transaction<'_>, card: &str) -> Sql<()> {
        let has: i64 = tx.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'judgements'",
            [],
            |r| r.get(0),
        )?;
        if has == 0 {
            return Ok(());
        }
        tx.execute(
            "DELETE FROM review_judgements WHERE review_id IN (SELECT id FROM reviews WHERE card = ?1)",
            [card],
        )?;
        tx.execute("DELETE FROM judgements WHERE card = ?1", [card])?;
        tx.execute("DELETE FROM disputes WHERE card = ?1", [card])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DB_FILE, NewReview, ReviewMode};
    use super::*;
    use crate::grader::Rating;

    fn key(answer: &str) -> JudgementKey {
        JudgementKey {
            card: "d/c".into(),
            answer: answer.into(),
            model: "m".into(),
            prompt: "judge-1.x".into(),
        }
    }

    #[test]
    fn a_judgement_is_kept_once_per_card_answer_model_and_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(dir.path()).unwrap();
        assert!(s.judgement(&key("a")).unwrap().is_none());
        let id = s.save_judgement(&key("a"), "{\"first\":1}").unwrap();
        assert_eq!(
            s.save_judgement(&key("a"), "{\"second\":2}").unwrap(),
            id,
            "the first judgement stays"
        );
        assert_eq!(
            s.judgement(&key("a")).unwrap(),
            Some((id, "{\"first\":1}".to_string()))
        );
        let mut other = key("a");
        other.model = "n".into();
        assert!(s.judgement(&other).unwrap().is_none());
    }

    #[test]
    fn disputes_count_per_card_without_undone_reviews_and_go_with_a_reset() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(dir.path()).unwrap();
        let now = crate::scheduler::now();
        let mut ids = Vec::new();
        for _ in 0..3 {
            let id = s
                .record(&NewReview::new(
                    "d/c",
                    Rating::Good,
                    ReviewMode::Review,
                    now,
                ))
                .unwrap();
            s.record_dispute(&Dispute {
                review_id: Some(id),
                card: "d/c".into(),
                at: now,
                graded: Verdict::Fail,
                rules: Verdict::Fail,
                judge: None,
                learner: Verdict::Pass,
            })
            .unwrap();
            ids.push(id);
        }
        let j = s.save_judgement(&key("a"), "{}").unwrap();
        s.link_judgement(ids[0], j, Verdict::Pass, false).unwrap();
        s.undo(ids[2]).unwrap();
        let c = s.judge_counts().unwrap();
        assert_eq!(c.disputes.get("d/c"), Some(&2));
        assert_eq!((c.judged, c.agreed), (1, 0));
        s.reset(&["d/c".to_string()]).unwrap();
        let c = s.judge_counts().unwrap();
        assert!(c.disputes.is_empty());
        assert_eq!(c.judged, 0);
        assert!(s.judgement(&key("a")).unwrap().is_none());
    }

    #[test]
    fn a_version_1_store_reads_as_having_no_judgements_and_migrates_with_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let c = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
        c.execute_batch(super::super::open::SCHEMA).unwrap();
        c.pragma_update(None, "user_version", 1).unwrap();
        c.execute(
            "INSERT INTO reviews (card, at_ms, rating, mode, scheduled) VALUES ('d/c', 0, 'good', 'review', 1)",
            [],
        )
        .unwrap();
        drop(c);
        let ro = Store::open_read_only(dir.path()).unwrap();
        assert!(ro.judge_counts().unwrap().disputes.is_empty());
        assert!(ro.judgement(&key("a")).unwrap().is_none());
        drop(ro);
        let s = Store::open(dir.path()).unwrap();
        assert_eq!(s.reviews().unwrap().len(), 1);
        s.save_judgement(&key("a"), "{}").unwrap();
        assert!(dir.path().join(format!("{DB_FILE}.v1-backup")).exists());
    }
}
