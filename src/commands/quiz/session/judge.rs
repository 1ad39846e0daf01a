//! The model judge and the learner's dispute, in a session. The rules' verdict is already on
//! screen when the judge is asked; its opinion follows under a spinner that Ctrl-C cancels (the
//! judge, not the session). After either verdict the learner can dispute it with `!` at the
//! rating prompt: the answer goes to the disputes corpus in the data directory, the store counts
//! it, and the rating follows the learner's verdict.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use super::Session;
use crate::card::{Card, CardKind};
use crate::commands::quiz::input::{Input, Line};
use crate::commands::quiz::rating::{self, Effort};
use crate::commands::quiz::render::{dim, yellow};
use crate::grader::{self, Grade, Rating, Verdict};
use crate::scheduler::rating_str;
use crate::store::Dispute;

/// The answer just graded, until it is rated: what a dispute or the saved review needs.
pub(super) struct Pending {
    key: String,
    text: String,
    kind: CardKind,
    /// The grade the rating is based on (the judge's when it counted).
    grade: Grade,
    rules: Verdict,
    judge: Option<Judged>,
    effort: Effort,
    disputed: Option<Verdict>,
}

struct Judged {
    model: String,
    verdict: Verdict,
    stored: Option<i64>,
    agreed: bool,
}

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

impl Session {
    /// After the rules' verdict is shown: the judge's opinion, when one is set up and the card
    /// is free text. Returns the grade to rate on.
    pub(super) fn second_opinion(
        &mut self,
        key: &str,
        card: &Card,
        text: &str,
        grade: Grade,
        effort: Effort,
    ) -> Grade {
        let mut pending = Pending {
            key: key.to_string(),
            text: text.to_string(),
            kind: card.kind,
            rules: grade.verdict,
            grade: grade.clone(),
            judge: None,
            effort,
            disputed: None,
        };
        let asked = !self.args.interviewer
            && crate::judge::request::judges(card.kind)
            && !text.trim().is_empty();
        let rated_on = match (&self.judge, asked) {
            (Some(judge), true) => {
                let at_terminal = std::io::stdin().is_terminal();
                let spin = at_terminal && !self.screen.plain && std::io::stdout().is_terminal();
                let model = judge.settings.model.clone();
                if at_terminal && !spin {
                    self.screen.line(&dim(&format!(
                        "asking the judge ({model}); Ctrl-C skips it…"
                    )));
                    self.screen.flush();
                }
                let screen = &mut self.screen;
                let mut drawn = false;
                let mut tick = |waited: Duration| {
                    if spin {
                        let frame = SPINNER[(waited.as_millis() / 100) as usize % SPINNER.len()];
                        let _ = write!(
                            screen.w,
                            "\r{frame} asking the judge ({model}) · Ctrl-C skips it · {} s ",
                            waited.as_secs()
                        );
                        let _ = screen.w.flush();
                        drawn = true;
                    }
                };
                let j = judge.judge(
                    Some(&self.store),
                    key,
                    card,
                    text,
                    &grade,
                    crate::judge::Wait {
                        tick: &mut tick,
                        ctrl_c: at_terminal,
                    },
                );
                if drawn {
                    let _ = write!(self.screen.w, "\r\x1b[2K");
                }
                let (plain, width) = (self.screen.plain, self.screen.width);
                for l in crate::judge::render::lines(&j, &grade, plain, width, true) {
                    self.screen.verbatim(&l);
                }
                if let Some(v) = j.verdict {
                    pending.judge = Some(Judged {
                        model: j.model.clone(),
                        verdict: v,
                        stored: j.stored,
                        agreed: j.agreed_with_rules == Some(true),
                    });
                }
                j.apply(&grade)
            }
            _ => grade,
        };
        pending.grade = rated_on.clone();
        self.pending = (!self.args.interviewer).then_some(pending);
        rated_on
    }

    /// `!` at the rating prompt: the learner says which verdict is right. Returns the rating
    /// that verdict earns (with the caps hints and time set), or None when nothing is disputed.
    pub(super) fn dispute(&mut self, input: &mut dyn Input) -> anyhow::Result<Option<Rating>> {
        let Some(p) = self.pending.as_ref() else {
            self.screen.line(&format!(
                "{} there is no verdict to dispute.",
                dim("dispute:")
            ));
            return Ok(None);
        };
        if p.kind.picks_options() {
            self.screen.line(&format!(
                "{} a choice is checked against the card's key, and its letters change every showing, so it is not kept; rate it 1–4 as you see fit.",
                dim("dispute:")
            ));
            return Ok(None);
        }
        let graded = p.grade.verdict;
        self.screen.line(&format!(
            "{} the verdict was {}: which is right? 1 fail · 2 partial · 3 pass (Enter keeps it)",
            yellow("dispute:"),
            crate::term::ink::verdict(graded)
        ));
        let word = match input.read("your verdict > ", true)? {
            Line::Text(t) => t.trim().to_ascii_lowercase(),
            Line::Eof | Line::Interrupted => String::new(),
        };
        let learner = match word.as_str() {
            "1" | "fail" => Verdict::Fail,
            "2" | "partial" => Verdict::Partial,
            "3" | "pass" => Verdict::Pass,
            _ => {
                self.screen
                    .line(&format!("{} the verdict stands.", dim("dispute:")));
                return Ok(None);
            }
        };
        if learner == graded {
            self.screen.line(&format!(
                "{} that is the verdict given: nothing to dispute.",
                dim("dispute:")
            ));
            return Ok(None);
        }
        let Some(p) = self.pending.as_mut() else {
            return Ok(None);
        };
        p.disputed = Some(learner);
        // The rating the learner's verdict earns: a flag they dispute no longer caps it; hints
        // and time still do.
        let mut g = p.grade.clone();
        g.verdict = learner;
        g.suggested_rating = grader::rating_for(learner);
        if learner != Verdict::Fail {
            g.red_flags.clear();
        }
        let r = rating::suggest(&g, &p.effort).rating;
        let key = p.key.clone();
        let file = self.disputes_file(&key);
        self.screen.line(&format!(
            "{} you say {} where it was graded {}; saving {}. The answer is kept in {} for the deck's author.",
            yellow("disputed:"),
            crate::term::ink::verdict(learner),
            crate::term::ink::verdict(graded),
            rating_str(r),
            file.display()
        ));
        Ok(Some(r))
    }

    fn disputes_file(&self, key: &str) -> std::path::PathBuf {
        let deck = key.split('/').next().unwrap_or_default();
        let dir = self
            .store
            .path()
            .parent()
            .map(crate::paths::disputes_dir)
            .unwrap_or_default();
        dir.join(format!("{deck}.toml"))
    }

    /// Once review `review_id` is saved: which judgement it was rated on, and its dispute.
    /// A failure here costs the note, never the rating (already saved).
    pub(super) fn keep_judged(&mut self, review_id: i64) {
        let Some(p) = self.pending.take() else {
            return;
        };
        let mut problems = Vec::new();
        if let Some(j) = &p.judge
            && let Some(id) = j.stored
            && let Err(e) = self
                .store
                .link_judgement(review_id, id, j.verdict, j.agreed)
        {
            problems.push(e.to_string());
        }
        if let Some(learner) = p.disputed {
            let at = crate::scheduler::now();
            let d = Dispute {
                review_id: Some(review_id),
                card: p.key.clone(),
                at,
                graded: p.grade.verdict,
                rules: p.rules,
                judge: p.judge.as_ref().map(|j| j.verdict),
                learner,
            };
            if let Err(e) = self.store.record_dispute(&d) {
                problems.push(e.to_string());
            }
            let note = format!(
                "{}: graded {} (rules {}{}); the learner says {}",
                at.format("%Y-%m-%d %H:%M UTC"),
                d.graded.name(),
                d.rules.name(),
                p.judge
                    .as_ref()
                    .map(|j| format!(", judge {} {}", j.model, j.verdict.name()))
                    .unwrap_or_default(),
                learner.name()
            );
            let (deck, card) = p.key.split_once('/').unwrap_or(("", &p.key));
            let entry = crate::deck::eval::GradedAnswer::disputed(card, &p.text, learner, d.graded);
            if let Some(dir) = self.store.path().parent().map(crate::paths::disputes_dir)
                && let Err(e) = crate::deck::eval::append_dispute(&dir, deck, &entry, &note)
            {
                problems.push(format!("{e:#}"));
            }
        }
        for e in problems {
            self.screen.line(&format!("{} {e}", yellow("not kept:")));
        }
    }
}
