//! The session loop: one question at a time, each rating committed before the next question.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Instant;

use chrono::{DateTime, Local, Utc};

use super::input::{Input, Line};
use super::rating::{self, Effort, Suggestion};
use super::render::{self, Screen, bold, dim, green, red, yellow};
use super::{Args, ModeArg, interviewer, queue};
use crate::card::Card;
use crate::deck::Library;
use crate::global::Global;
use crate::grader::{self, Grade, Rating, Verdict};
use crate::scheduler::{self, CardState, rating_str};
use crate::store::{Mode, NewReview, Store};

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

enum Step {
    Answered {
        text: String,
        seconds: f32,
        hints: u32,
        deeper: u32,
        grade: Grade,
    },
    Skip,
    Undo,
    Quit,
}

pub struct Session {
    lib: Library,
    store: Store,
    screen: Screen,
    args: Args,
    mode_arg: ModeArg,
    mode: Mode,
    queue: VecDeque<(String, bool)>,
    states: HashMap<String, CardState>,
    hashes: HashMap<String, (String, DateTime<Utc>)>,
    followups: HashMap<String, String>,
    rated: Vec<Rated>,
    asked_followups: HashSet<String>,
    reasks: HashMap<String, u8>,
    outcomes: Vec<Outcome>,
    asked: usize,
    session_id: String,
}

fn store_mode(arg: ModeArg, args: &Args) -> Mode {
    match arg {
        ModeArg::Cram => Mode::Cram,
        ModeArg::Interview => Mode::Interview,
        ModeArg::Review if args.interviewer => Mode::Interviewer,
        ModeArg::Review if args.exam.is_some() => Mode::Exam,
        ModeArg::Review => Mode::Review,
    }
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
        let store = super::open_store(g, args.retention)?;
        let mode_arg = args.mode;
        let mode = store_mode(mode_arg, &args);
        for c in &args.cards {
            if lib.card(c).is_none() {
                anyhow::bail!(
                    "no card `{c}`: cards are named DECK/CARD; `mcp-tutor decks list` shows them"
                );
            }
        }
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
            asked: 0,
            session_id: format!(
                "{}-{}",
                scheduler::now().format("%Y%m%dT%H%M%S"),
                std::process::id()
            ),
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
            // One order of the options for this whole showing; what is stored is graded on the
            // deck's own order (see shuffle.rs).
            let shown = super::shuffle::present(&card, super::shuffle::next_seed());
            let step = self.ask(&key, &card, &shown.card, input)?;
            match step {
                Step::Quit => {
                    self.queue.push_front((key.clone(), is_followup));
                    self.screen.line(&format!(
                        "{} this card was not rated, so it was not saved.",
                        yellow("quit:")
                    ));
                    break;
                }
                Step::Skip => {
                    self.screen
                        .line(&format!("{} {key} (not rated)", dim("skipped:")));
                }
                Step::Undo => {
                    self.queue.push_front((key.clone(), is_followup));
                    self.undo();
                }
                Step::Answered {
                    text,
                    seconds,
                    hints,
                    deeper,
                    grade,
                } => {
                    let effort = {
                        let (b, s) = render::targets(&card);
                        Effort {
                            seconds,
                            basics_target: b,
                            solid_target: s,
                            hints,
                            deeper_before: deeper,
                        }
                    };
                    let sugg = rating::suggest(&grade, &effort);
                    if !self.args.interviewer {
                        self.screen.feedback(&shown.card, &grade, seconds);
                    } else {
                        self.screen.feedback_as(
                            "interviewer's ticks",
                            &shown.card,
                            &grade,
                            seconds,
                        );
                    }
                    let _ = text;
                    let stored = shown.canonical(&card, &grade);
                    match self.rate(&shown.card, &sugg, effort.deeper_before, input)? {
                        RateStep::Rated(r) => {
                            let rating = (&stored, &sugg, &effort, r);
                            if !self.save(&key, &card, rating, is_followup, input)? {
                                self.queue.push_front((key.clone(), is_followup));
                                self.screen.line(&format!(
                                    "{} this rating was not saved; every earlier one is.",
                                    yellow("quit:")
                                ));
                                break;
                            }
                            self.after_rating(&key, &card, &stored, r);
                        }
                        RateStep::Skip => {
                            self.screen
                                .line(&format!("{} {key} (not rated)", dim("skipped:")));
                        }
                        RateStep::Undo => {
                            self.queue.push_front((key.clone(), is_followup));
                            self.undo();
                        }
                        RateStep::Quit => {
                            self.queue.push_front((key.clone(), is_followup));
                            self.screen.line(&format!(
                                "{} this card was not rated, so it was not saved.",
                                yellow("quit:")
                            ));
                            break;
                        }
                    }
                }
            }
        }
        self.finish();
        Ok(())
    }

    fn intro(&mut self) {
        let what = match self.mode {
            Mode::Cram => "cram (the schedule is not touched)".to_string(),
            // The question count follows on the same line.
            Mode::Interview => "mock interview".to_string(),
            Mode::Exam => format!(
                "review ranked for your exam on {}",
                self.args.exam.map(|d| d.to_string()).unwrap_or_default()
            ),
            Mode::Interviewer => "interviewer: the rubric is for the interviewer's eyes".into(),
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
        self.mode = Mode::Cram;
        self.build_queue(ModeArg::Cram)?;
        Ok(!self.queue.is_empty())
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

    /// Asks `card` as `shown` (its options in this showing's order); the change note compares
    /// the deck's own card with what was last answered.
    fn ask(
        &mut self,
        key: &str,
        original: &Card,
        card: &Card,
        input: &mut dyn Input,
    ) -> anyhow::Result<Step> {
        let note = self.change_note(key, original);
        let total = self.asked + 1 + self.queue.len();
        self.screen
            .question((self.asked + 1, total), key, card, note.as_deref());
        if self.args.interviewer {
            interviewer::rubric(&mut self.screen, card);
        }
        let started = Instant::now();
        let (basics, solid) = render::targets(card);
        input.timer(Some((basics, solid)));
        let step = self.answer(card, input, started, (basics, solid));
        input.timer(None);
        step
    }

    fn answer(
        &mut self,
        card: &Card,
        input: &mut dyn Input,
        started: Instant,
        (basics, solid): (u32, u32),
    ) -> anyhow::Result<Step> {
        let mut lines: Vec<String> = Vec::new();
        let mut hints = 0u32;
        let mut deeper = 0u32;
        let mut shown_points: usize = 0;
        let single = self.args.interviewer || crate::kinds::of(card.kind).single_line();
        loop {
            let secs = self.measured(started) as u64;
            let prompt = if self.screen.plain {
                if lines.is_empty() {
                    format!("answer (targets {basics} s / {solid} s)> ")
                } else {
                    format!("answer, {secs} s so far> ")
                }
            } else if lines.is_empty() {
                // The clock starts with the question; later lines show the time so far.
                format!("[targets {basics}s·{solid}s] > ")
            } else {
                format!("[{}:{:02}]  ... ", secs / 60, secs % 60)
            };
            let line = match input.read(&prompt, false)? {
                Line::Text(t) => t,
                Line::Eof if !lines.is_empty() => String::new(),
                Line::Eof | Line::Interrupted => return Ok(Step::Quit),
            };
            let word = line.trim().to_ascii_lowercase();
            if COMMANDS.contains(&word.as_str()) {
                match word.as_str() {
                    "hint" => {
                        hints += 1;
                        self.hint(card, &mut shown_points);
                    }
                    "deeper" => {
                        // Only a rung actually shown costs anything: a card without a ladder,
                        // or a ladder already climbed, leaves the rating alone.
                        if self.deeper(card, deeper + 1) {
                            deeper += 1;
                            self.screen.line(&dim(
                                "(going deeper before answering caps this card at `hard`)",
                            ));
                        }
                    }
                    "skip" => return Ok(Step::Skip),
                    "undo" => return Ok(Step::Undo),
                    "help" => self.screen.line(HELP),
                    _ => return Ok(Step::Quit),
                }
                continue;
            }
            let trimmed = line.trim();
            if lines.is_empty() && trimmed.is_empty() {
                self.screen.line(&dim(
                    "(empty answer ignored: type your answer, `.` to give up and see it, or `skip`)",
                ));
                continue;
            }
            if trimmed == "." {
                break;
            }
            if single {
                lines.push(line);
                break;
            }
            if trimmed.is_empty() {
                break;
            }
            lines.push(line);
        }
        let seconds = self.measured(started);
        let text = lines.join("\n");
        let grade = if self.args.interviewer {
            match interviewer::grade_from_ticks(card, &text) {
                Ok(g) => g,
                Err(msg) => {
                    self.screen.line(&yellow(&msg));
                    interviewer::grade_from_ticks(card, "")
                        .unwrap_or_else(|_| grader::grade(card, ""))
                }
            }
        } else {
            grader::grade(card, &text)
        };
        Ok(Step::Answered {
            text,
            seconds,
            hints,
            deeper,
            grade,
        })
    }

    fn hint(&mut self, card: &Card, shown: &mut usize) {
        // Required points first: they are what the question turns on.
        let mut order: Vec<&crate::card::Point> =
            card.points.iter().filter(|p| p.required).collect();
        order.extend(card.points.iter().filter(|p| !p.required));
        if let Some(p) = order.get(*shown) {
            *shown += 1;
            self.screen.line(&format!(
                "{} cover this: {} ({} of {})",
                cyan_hint(),
                p.label,
                *shown,
                order.len()
            ));
        } else if let Some(hint) = crate::kinds::of(card.kind).last_hint(card) {
            self.screen.line(&format!("{} {hint}", cyan_hint()));
        } else if let Some(step) = card.deeper.as_ref().and_then(|d| d.steps.first()) {
            self.screen.line(&format!("{} {step}", cyan_hint()));
        } else {
            self.screen
                .line(&format!("{} no more hints for this card.", cyan_hint()));
        }
        self.screen
            .line(&dim("(a hint caps this card's rating at `hard`)"));
    }

    /// Shows rung `rung` (1-based) of the card's ladder; false when there was nothing to show.
    fn deeper(&mut self, card: &Card, rung: u32) -> bool {
        let Some(d) = card
            .deeper
            .as_ref()
            .filter(|d| !d.steps.is_empty() || !d.explanation.trim().is_empty())
        else {
            self.screen.line(&format!(
                "{} this card has no go-deeper ladder (nothing was counted against your rating).",
                dim("deeper:")
            ));
            return false;
        };
        let i = rung as usize - 1;
        if let Some(step) = d.steps.get(i) {
            self.screen
                .heading(&format!("deeper {}/{}", i + 1, d.steps.len()));
            self.screen.block(step);
            true
        } else if i == d.steps.len() && !d.explanation.trim().is_empty() {
            self.screen.heading("the long explanation");
            self.screen.block(&d.explanation);
            true
        } else {
            self.screen
                .line(&format!("{} that was the last rung.", dim("deeper:")));
            false
        }
    }

    fn rate(
        &mut self,
        card: &Card,
        sugg: &Suggestion,
        rungs_read: u32,
        input: &mut dyn Input,
    ) -> anyhow::Result<RateStep> {
        // After answering, `deeper` carries on from the rung reached before (no penalty now).
        let mut rung = rungs_read;
        loop {
            let prompt = self
                .screen
                .rating_prompt(sugg.rating, sugg.cap, &sugg.reasons);
            let line = match input.read(&prompt, true)? {
                Line::Text(t) => t,
                Line::Eof | Line::Interrupted => return Ok(RateStep::Quit),
            };
            let word = line.trim().to_ascii_lowercase();
            if word.is_empty() {
                return Ok(RateStep::Rated(sugg.rating));
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
                    return Ok(RateStep::Rated(sugg.cap));
                }
                return Ok(RateStep::Rated(r));
            }
            match word.as_str() {
                "deeper" => {
                    rung += 1;
                    self.deeper(card, rung);
                }
                "hint" => self
                    .screen
                    .line(&dim("the answers are above; `deeper` goes further.")),
                "skip" => return Ok(RateStep::Skip),
                "undo" => return Ok(RateStep::Undo),
                "quit" => return Ok(RateStep::Quit),
                "help" => self.screen.line(HELP),
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
    fn save(
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
        rev.card_hash = Some(super::card_hash(card));
        rev.session = Some(self.session_id.clone());
        let Some(id) = self.commit(&rev, input)? else {
            return Ok(false);
        };
        self.asked += 1;
        self.rated.push(Rated {
            review_id: id,
            key: key.to_string(),
            rating: r,
            reask_queued: false,
        });
        self.hashes
            .insert(key.to_string(), (super::card_hash(card), now));
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

    fn after_rating(&mut self, key: &str, card: &Card, grade: &Grade, _r: Rating) {
        if !grade.red_flags.is_empty() {
            let n = self.reasks.entry(key.to_string()).or_insert(0);
            if *n < 2 {
                *n += 1;
                let at = self.queue.len().min(3);
                self.queue.insert(at, (key.to_string(), false));
                if let Some(last) = self.rated.last_mut() {
                    last.reask_queued = true;
                }
                self.screen.line(&format!(
                    "{} this card comes back later in this session.",
                    red("red flag:")
                ));
            }
        }
        let deck = key.split('/').next().unwrap_or_default();
        for f in card.followups.iter().rev() {
            let fk = format!("{deck}/{f}");
            // A follow-up that builds on another deck's card waits until that card is introduced.
            let ready = self
                .lib
                .card(&fk)
                .is_some_and(|(_, c)| super::queue::ready(c, &self.lib, &self.states));
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
    }

    fn undo(&mut self) {
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

    fn finish(&mut self) {
        if self.mode == Mode::Interview {
            self.report();
        }
        let n = self.outcomes.len();
        let mut counts = [0usize; 4];
        for o in &self.outcomes {
            counts[scheduler::rating_number(o.rating) as usize - 1] += 1;
        }
        self.screen.blank();
        self.screen.line(&format!(
            "{} {n} rated (again {}, hard {}, good {}, easy {}); every rating is saved in {}.",
            bold("session:"),
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            self.store.path().display()
        ));
        if !self.queue.is_empty() {
            let n = self.queue.len();
            let line = match self.mode {
                // Only review keeps a schedule to come back to; cram and interview start afresh.
                Mode::Cram => format!(
                    "{n} more not practised; cram keeps no queue, so the next cram starts afresh."
                ),
                Mode::Interview => format!("{n} more questions not asked in this interview."),
                _ => format!("{n} more waiting: run `mcp-tutor quiz` again to resume."),
            };
            self.screen.line(&line);
        }
        self.screen.flush();
    }

    fn report(&mut self) {
        self.screen.heading("interview report");
        let main: Vec<&Outcome> = self.outcomes.iter().filter(|o| !o.reask).collect();
        let passed = main
            .iter()
            .filter(|o| o.verdict == Verdict::Pass && o.seconds <= o.solid_target as f32)
            .count();
        let lines: Vec<String> = main
            .iter()
            .map(|o| {
                let ok = o.verdict == Verdict::Pass && o.seconds <= o.solid_target as f32;
                let mark = if ok {
                    green("would pass")
                } else {
                    red("would not pass")
                };
                let fu = if o.followup { "  follow-up " } else { "" };
                let mut s = format!(
                    "{fu}{mark}: {} — {} ({:.0} s of {} s)",
                    o.key, o.question, o.seconds, o.solid_target
                );
                for (label, said) in &o.red_flags {
                    s.push_str(&format!(
                        "\n      cost the question: “{}” ({label})",
                        said.trim()
                    ));
                }
                for m in &o.missed_required {
                    s.push_str(&format!("\n      missing: {m}"));
                }
                if o.seconds > o.solid_target as f32 {
                    s.push_str("\n      too slow for an interview answer");
                }
                for again in self.outcomes.iter().filter(|a| a.reask && a.key == o.key) {
                    let ok = again.verdict == Verdict::Pass
                        && again.seconds <= again.solid_target as f32;
                    s.push_str(&format!(
                        "\n      asked again after the red flag: {}",
                        if ok {
                            "right this time"
                        } else {
                            "still not right"
                        }
                    ));
                }
                s
            })
            .collect();
        for l in lines {
            self.screen.line(&l);
        }
        self.screen.line(&format!(
            "{} {passed} of {} answers would pass an interviewer.",
            bold("result:"),
            main.len()
        ));
    }
}

enum RateStep {
    Rated(Rating),
    Skip,
    Undo,
    Quit,
}

fn cyan_hint() -> String {
    render::cyan("hint:")
}
