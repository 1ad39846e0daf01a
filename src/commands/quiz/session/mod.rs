//! The session loop: one question at a time, each rating committed before the next question.
//!
//! This file holds the session's state and its loop; the loop's seams each have a file: `ask`
//! (a question asked and answered, with hints and the go-deeper ladder), `commit` (the rating
//! prompt, the store write, re-asks, follow-ups and undo) and `report` (the summary and the
//! interview report).

mod ask;
mod commit;
mod judge;
mod report;
mod settle;

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Instant;

use chrono::{DateTime, Local, Utc};

use super::input::{Input, Line};
use super::rating::{self, Effort};
use super::render::{self, Screen, bold, dim, yellow};
use super::{Args, ModeArg, queue};
use crate::card::Card;
use crate::deck::Library;
use crate::global::Global;
use crate::grader::{Grade, Rating, Verdict};
use crate::scheduler::{self, CardState};
use crate::store::{ReviewMode, Store};

/// Pins every measured answer time (seconds), so tests can exercise the time caps.
pub const ANSWER_SECS_ENV: &str = "MCP_TUTOR_ANSWER_SECS";

const COMMANDS: [&str; 6] = ["hint", "deeper", "skip", "undo", "help", "quit"];

const HELP: &str = "\
Commands, typed alone on a line at any prompt:
  hint    reveal the next key point to cover (caps the rating at hard)
  deeper  the next rung of the go-deeper ladder (before answering it caps the rating at hard)
  skip    leave this card for now, unrated
  undo    take back the last rating and ask that card again
  help    this text
  quit    stop; every rating already given is saved
  !       (at the rating prompt) dispute the verdict: say which is right; the rating follows
          your verdict and the answer is kept for the deck's author
Answers: free recall and spot-the-bug take several lines, finished by an empty line or `.`;
the other kinds end on Enter. Rating: Enter takes the suggestion; 1 again, 2 hard, 3 good,
4 easy (or the words) override it.";

struct Rated {
    review_id: i64,
    key: String,
    rating: Rating,
    /// A red flag queued the card to come back: `undo` takes that back too.
    reask_queued: bool,
}

/// One answered question, for the interview report and the summary.
struct Outcome {
    key: String,
    question: String,
    verdict: Verdict,
    rating: Rating,
    seconds: f32,
    solid_target: u32,
    missed_required: Vec<String>,
    red_flags: Vec<(String, String)>,
    followup: bool,
    /// The card was already answered in this session (a red flag brought it back): the
    /// report counts questions, so this answer is a note on the first one, not a new line.
    reask: bool,
}

enum QuestionReply {
    Answered(Box<Answer>),
    Skip,
    Undo,
    Quit,
}

/// An answer as typed and graded, with the help it took.
struct Answer {
    text: String,
    seconds: f32,
    hints: u32,
    deeper: u32,
    grade: Grade,
}

pub struct Session {
    lib: Library,
    store: Store,
    screen: Screen,
    args: Args,
    mode_arg: ModeArg,
    mode: ReviewMode,
    queue: VecDeque<(String, bool)>,
    states: HashMap<String, CardState>,
    hashes: HashMap<String, (String, DateTime<Utc>)>,
    followups: HashMap<String, String>,
    rated: Vec<Rated>,
    asked_followups: HashSet<String>,
    reasks: HashMap<String, u8>,
    outcomes: Vec<Outcome>,
    /// Cards whose answer this session has shown (kept through `undo`).
    revealed: HashSet<String>,
    asked: usize,
    session_id: String,
    /// The model judge, when the learner set one up.
    judge: Option<crate::judge::Judge>,
    /// The answer being rated: for a dispute and for what is kept with the review.
    pending: Option<judge::Pending>,
    /// The card of the question shown last, to tell a re-ask that comes straight back.
    last_key: Option<String>,
}

fn store_mode(arg: ModeArg, args: &Args) -> ReviewMode {
    match arg {
        ModeArg::Cram => ReviewMode::Cram,
        ModeArg::Interview => ReviewMode::Interview,
        ModeArg::Review if args.interviewer => ReviewMode::Interviewer,
        ModeArg::Review if args.exam.is_some() => ReviewMode::Exam,
        ModeArg::Review => ReviewMode::Review,
    }
}

/// Every `--card`, `--deck` and `--tag` names something loaded; a typo is answered with the
/// nearest names.
fn check_names(args: &Args, lib: &Library) -> anyhow::Result<()> {
    use mock_server::names::unknown;
    let listed = "`mcp-tutor decks list` shows them";
    let keys: Vec<String> = lib.cards().map(|(d, c)| d.key(c)).collect();
    for c in &args.cards {
        if lib.card(c).is_none() {
            anyhow::bail!(
                "{}",
                unknown("card", c, keys.iter().map(String::as_str), listed)
            );
        }
    }
    for d in &args.decks {
        if !lib.decks.iter().any(|x| x.meta.id == *d) {
            let ids = lib.decks.iter().map(|x| x.meta.id.as_str());
            anyhow::bail!("{}", unknown("deck", d, ids, listed));
        }
    }
    let mut tags: Vec<&str> = lib
        .cards()
        .flat_map(|(_, c)| c.tags.iter().map(String::as_str))
        .collect();
    tags.sort_unstable();
    tags.dedup();
    for t in &args.tags {
        if !tags.contains(&t.as_str()) {
            anyhow::bail!(
                "{}",
                unknown(
                    "tag",
                    t,
                    tags.iter().copied(),
                    "`mcp-tutor decks export --format json` lists each card's tags"
                )
            );
        }
    }
    Ok(())
}

pub fn local(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local)
        .format("%a %Y-%m-%d %H:%M")
        .to_string()
}

pub fn until(from: DateTime<Utc>, to: DateTime<Utc>) -> String {
    // Round up: "in 0 min" for a card due in 40 s would read as "due now".
    let m = ((to - from).num_seconds().max(0) + 59) / 60;
    if m < 60 {
        format!("in {m} min")
    } else if m < 48 * 60 {
        format!("in {} h", (m + 30) / 60)
    } else {
        format!("in {} days", (m + 720) / 1440)
    }
}

impl Session {
    pub fn prepare(args: Args, g: &Global, screen: Screen) -> anyhow::Result<Session> {
        if let Some(d) = args.exam {
            scheduler::check_exam_date(d, scheduler::now())?;
        }
        let lib = Library::load(&g.deck_dirs);
        let judge = crate::judge::Judge::from_args(&args.judge, crate::judge::Scope::Learner)?;
        let mut store = super::open_store(g, args.retention)?;
        // Reviews of renamed or merged cards count for the card that replaced them.
        store.carry_over(&lib.replacements())?;
        let mode_arg = args.mode;
        let mode = store_mode(mode_arg, &args);
        check_names(&args, &lib)?;
        args.check_counts()?;
        let mut s = Session {
            followups: super::followup_keys(&lib),
            states: store.states()?,
            hashes: store.last_hashes()?,
            lib,
            store,
            screen,
            args,
            mode_arg,
            mode,
            queue: VecDeque::new(),
            rated: Vec::new(),
            asked_followups: HashSet::new(),
            reasks: HashMap::new(),
            outcomes: Vec::new(),
            revealed: HashSet::new(),
            asked: 0,
            last_key: None,
            session_id: format!(
                "{}-{}",
                scheduler::now().format("%Y%m%dT%H%M%S"),
                std::process::id()
            ),
            judge,
            pending: None,
        };
        s.build_queue(mode_arg)?;
        Ok(s)
    }

    fn build_queue(&mut self, mode: ModeArg) -> anyhow::Result<()> {
        let now = scheduler::now();
        let cx = self.queue_context(now)?;
        let queue = queue::build(&self.args, mode, &cx);
        self.queue = queue.into_iter().map(|k| (k, false)).collect();
        Ok(())
    }

    /// What the queue is built from at `now`: the library, card states and today's new cards.
    fn queue_context(&self, now: DateTime<Utc>) -> anyhow::Result<queue::Context<'_>> {
        Ok(queue::Context {
            lib: &self.lib,
            states: &self.states,
            sched: &self.store.scheduler,
            now,
            introduced_today: self.store.introduced_on(scheduler::day_index(now))?,
            followups: &self.followups,
        })
    }

    fn deck_errors(&mut self) {
        for e in &self.lib.errors {
            eprintln!("warning: deck skipped: {e}");
        }
    }

    /// Print what comes before the first answer (the benchmark's finish line).
    pub fn show_first(&mut self) {
        self.deck_errors();
        if let Some((key, _)) = self.queue.front().cloned()
            && let Some((_, card)) = self.lib.card(&key)
        {
            let card = card.clone();
            self.screen
                .question((1, self.queue.len()), &key, &card, None);
        }
    }

    pub fn run(&mut self, input: &mut dyn Input) -> anyhow::Result<()> {
        self.deck_errors();
        if self.lib.cards().next().is_none() {
            anyhow::bail!("no cards loaded: check the deck errors above, or pass --decks DIR");
        }
        if !queue::any_match(&self.args, &self.lib) {
            anyhow::bail!(
                "no card matches --deck/--tag/--card: `mcp-tutor decks list` shows the deck ids, cards and tags"
            );
        }
        if self.queue.is_empty() && !self.nothing_due(input)? {
            return Ok(());
        }
        self.intro();
        while let Some((key, is_followup)) = self.queue.pop_front() {
            let Some((_, card)) = self.lib.card(&key) else {
                continue;
            };
            let card = card.clone();
            let again = self.answered(&key);
            if again
                && self.last_key.as_deref() == Some(key.as_str())
                && !self.pause_before_reask(&key, input)?
            {
                self.queue.push_front((key.clone(), is_followup));
                break;
            }
            self.last_key = Some(key.clone());
            self.screen.again_next = again;
            // One order of the options for this whole showing; what is stored is graded on the
            // deck's own order (see shuffle.rs).
            let shown = super::shuffle::present(&card, super::shuffle::next_seed());
            let step = self.ask(&key, &card, &shown.card, input)?;
            let go_on = match step {
                QuestionReply::Quit => {
                    self.stop_unrated(&key, is_followup);
                    false
                }
                QuestionReply::Skip => {
                    self.screen
                        .line(&format!("{} {key} (not rated)", dim("skipped:")));
                    true
                }
                QuestionReply::Undo => {
                    self.queue.push_front((key.clone(), is_followup));
                    self.undo();
                    true
                }
                QuestionReply::Answered(answer) => {
                    self.rate_answer(&key, &card, &shown, is_followup, *answer, input)?
                }
            };
            if !go_on {
                break;
            }
        }
        self.finish();
        Ok(())
    }

    /// Feedback on an answer, a second opinion, the rating and its saving. Returns whether the
    /// session goes on.
    fn rate_answer(
        &mut self,
        key: &str,
        card: &Card,
        shown: &super::shuffle::Shown,
        is_followup: bool,
        answer: Answer,
        input: &mut dyn Input,
    ) -> anyhow::Result<bool> {
        let Answer {
            text,
            seconds,
            hints,
            deeper,
            grade,
        } = answer;
        let effort = {
            let (b, s) = render::targets(card);
            Effort {
                seconds,
                basics_target: b,
                solid_target: s,
                hints,
                deeper_before: deeper,
                fresh: self.fresh(key),
            }
        };
        // Asked before the card's answer is on screen, never after it.
        let grade = self.settle(grade, input)?;
        self.revealed.insert(key.to_owned());
        if !self.args.interviewer {
            self.screen.feedback(key, &shown.card, &grade, seconds);
        } else {
            self.screen
                .feedback_as("interviewer's ticks", key, &shown.card, &grade, seconds);
        }
        let grade = self.second_opinion(key, card, &text, grade, effort);
        let sugg = rating::suggest(&grade, &effort);
        let stored = shown.canonical(card, &grade);
        match self.rate(&shown.card, &sugg, effort.deeper_before, input)? {
            RatingReply::Rated(r) => {
                let rating = (&stored, &sugg, &effort, r);
                if !self.save(key, card, rating, is_followup, input)? {
                    self.queue.push_front((key.to_owned(), is_followup));
                    self.screen.line(&format!(
                        "{} this rating was not saved; every earlier one is.",
                        yellow("quit:")
                    ));
                    return Ok(false);
                }
                self.after_rating(key, card, &stored, r);
            }
            RatingReply::Skip => {
                self.screen
                    .line(&format!("{} {key} (not rated)", dim("skipped:")));
            }
            RatingReply::Undo => {
                self.queue.push_front((key.to_owned(), is_followup));
                self.undo();
            }
            RatingReply::Quit => {
                self.stop_unrated(key, is_followup);
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Quit before a rating: the card goes back on the queue, unsaved.
    fn stop_unrated(&mut self, key: &str, is_followup: bool) {
        self.queue.push_front((key.to_owned(), is_followup));
        self.screen.line(&format!(
            "{} this card was not rated, so it was not saved.",
            yellow("quit:")
        ));
    }

    fn intro(&mut self) {
        let what = match self.mode {
            ReviewMode::Cram => "cram (the schedule is not touched)".to_string(),
            // The question count follows on the same line.
            ReviewMode::Interview => "mock interview".to_string(),
            ReviewMode::Exam => format!(
                "review ranked for your exam on {}",
                self.args.exam.map(|d| d.to_string()).unwrap_or_default()
            ),
            ReviewMode::Interviewer => {
                "interviewer: the rubric is for the interviewer's eyes".into()
            }
            _ => "review".into(),
        };
        self.screen.line(&format!(
            "{} {} · {} question{} · type `help` for commands",
            bold("mcp-tutor quiz:"),
            what,
            self.queue.len(),
            if self.queue.len() == 1 { "" } else { "s" }
        ));
    }

    /// Nothing due: say when the next card is, offer cram. True when a cram queue was built.
    fn nothing_due(&mut self, input: &mut dyn Input) -> anyhow::Result<bool> {
        let now = scheduler::now();
        let cx = self.queue_context(now)?;
        let next = queue::next_due(&self.args, &cx);
        let waiting = queue::new_waiting(&self.args, &cx);
        let mut msg = "Nothing is due right now.".to_string();
        if let Some(t) = next {
            msg.push_str(&format!(" Next card due {} ({}).", local(t), until(now, t)));
        }
        if waiting > 0 {
            msg.push_str(&format!(
                " Today's {} new cards are done ({waiting} more wait for tomorrow, or raise --new).",
                self.args.new_per_day
            ));
        }
        self.screen.line(&msg);
        if self.mode_arg != ModeArg::Review {
            return Ok(false);
        }
        let answer = input.read(
            "Cram instead (practice without touching the schedule)? [y/N] > ",
            false,
        )?;
        let yes = matches!(answer, Line::Text(ref s) if s.trim().eq_ignore_ascii_case("y") || s.trim().eq_ignore_ascii_case("yes"));
        if !yes {
            return Ok(false);
        }
        self.mode_arg = ModeArg::Cram;
        self.mode = ReviewMode::Cram;
        self.build_queue(ModeArg::Cram)?;
        Ok(!self.queue.is_empty())
    }

    /// `key` was already answered in this session (a red flag brought it back).
    fn answered(&self, key: &str) -> bool {
        self.outcomes.iter().any(|o| o.key == key)
    }

    /// Failed in this session; or its answer shown in this session (an `undo` brings a card
    /// back), or still on its first (re)learning step from a rating in the last hour: `easy`
    /// would only measure that the answer was just shown.
    fn fresh(&self, key: &str) -> Option<rating::Fresh> {
        let failed = self
            .outcomes
            .iter()
            .any(|o| o.key == key && (o.rating == Rating::Again || o.verdict == Verdict::Fail));
        if failed {
            return Some(rating::Fresh::Failed);
        }
        let stored = self.states.get(key).is_some_and(|s| {
            s.is_failing() && scheduler::now() - s.last_review < chrono::Duration::hours(1)
        });
        (stored || self.revealed.contains(key)).then_some(rating::Fresh::Seen)
    }

    /// A red-flagged card that comes straight back (nothing else is queued before it): on a
    /// terminal, wait for Enter and clear the screen, so the answer just shown is not in view
    /// and nothing typed for the shell lands in the answer. False when the user quits.
    fn pause_before_reask(&mut self, key: &str, input: &mut dyn Input) -> anyhow::Result<bool> {
        if !input.interactive() {
            return Ok(true);
        }
        self.screen.blank();
        self.screen.line(&format!(
            "{} {key} comes straight back for a second try; the answers above are cleared first.",
            yellow("re-ask:")
        ));
        match input.read("press Enter for the re-ask (or type `quit`) > ", false)? {
            Line::Text(t) if t.trim().eq_ignore_ascii_case("quit") => Ok(false),
            Line::Text(_) => {
                self.screen.clear();
                Ok(true)
            }
            Line::Eof | Line::Interrupted => Ok(false),
        }
    }

    fn measured(&self, started: Instant) -> f32 {
        std::env::var(ANSWER_SECS_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f32>().ok())
            .unwrap_or_else(|| started.elapsed().as_secs_f32())
    }

    fn change_note(&self, key: &str, card: &Card) -> Option<String> {
        let (hash, at) = self.hashes.get(key)?;
        (*hash != super::card_hash(card)).then(|| {
            format!(
                "note: this card changed since you last answered it ({}); your progress is kept.",
                local(*at)
            )
        })
    }
}

enum RatingReply {
    Rated(Rating),
    Skip,
    Undo,
    Quit,
}
