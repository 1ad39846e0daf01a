//! `mcp-tutor quiz`: ask, time, listen, grade, explain, schedule.
//!
//! The session is a queue of card keys. Each answer is graded, shown with its checklist and the
//! model answers, rated (the suggestion is one Enter away) and committed to the store before
//! the next question appears. Follow-ups jump the queue right after their parent; a red flag
//! sends the card back a few questions later.

mod input;
mod interviewer;
mod queue;
pub(crate) mod rating;
pub(crate) mod render;
mod session;
pub(crate) mod shuffle;

use std::collections::HashMap;
use std::io::IsTerminal;
use std::process::ExitCode;

use chrono::NaiveDate;

use crate::deck::Library;
use crate::global::Global;
use crate::store::Store;

pub use session::Session;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// Cards due today, then new cards up to the daily cap. Updates the schedule.
    Review,
    /// Practise anything (filter with --deck/--tag) without touching the schedule.
    Cram,
    /// A timed mock interview of N questions with follow-ups, ending in a report.
    Interview,
}

#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
How a question works:
  The question shows its kind and the time targets (~20 s basics, ~40 s solid answer).
  Type your answer. Free-recall and spot-the-bug answers take several lines: finish with an
  empty line or a line with just `.`. One-line kinds (name it, choice, order, cloze) end on Enter.
  You then see each key point hit (with what you said) or missed, any red flag with its
  correction and spec reference, near misses of exact names, the basics, the solid answer and
  the code. Press Enter to take the suggested rating, or 1 again · 2 hard · 3 good · 4 easy.
  A hint, going deeper before answering, or going over time caps the rating at `hard`; a red
  flag makes it `again` and the card comes back later in the session.

At any prompt:  hint · deeper · skip · undo · help · quit   (Ctrl-D or Ctrl-C also quit;
  every rating already given is saved)
At the rating prompt, `!` disputes the verdict: say which is right; the answer is kept for the
  deck's author (DATA/disputes/DECK.toml) and the rating follows your verdict.

A second opinion (optional): --judge URL --judge-model NAME asks a language model at an
  OpenAI-compatible endpoint (e.g. Ollama's http://localhost:11434/v1) about free-text answers,
  after the rules' verdict is shown; Ctrl-C skips it. See the README, \"The model judge\".

Examples:
  mcp-tutor quiz                           due cards, then up to 10 new ones
  mcp-tutor quiz cram --deck subscriptions practise a deck without touching the schedule
  mcp-tutor quiz interview -n 5            a 5-question mock interview with a report
  mcp-tutor quiz --exam 2026-12-15         put the cards you would forget by then first
  mcp-tutor quiz --interviewer             a friend reads the rubric and ticks what you say

Scripting: with standard input not a terminal, answers are read line by line.
Set MCP_TUTOR_NOW=2026-11-29T10:00:00Z to fix the scheduler's clock, and
MCP_TUTOR_ANSWER_SECS=N to pin every measured answer time (both are for tests).")]
pub struct Args {
    /// review (default), cram or interview.
    #[arg(value_enum, default_value_t = ModeArg::Review)]
    pub mode: ModeArg,
    /// Only cards from this deck (repeatable).
    #[arg(long = "deck", value_name = "DECK")]
    pub decks: Vec<String>,
    /// Only cards with this tag (repeatable; any of them).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Only these cards, `DECK/CARD` (repeatable), in this order.
    #[arg(long = "card", value_name = "DECK/CARD")]
    pub cards: Vec<String>,
    /// New cards per day in review mode.
    #[arg(long = "new", value_name = "N", default_value_t = 10)]
    pub new_per_day: usize,
    /// At most this many questions this session (follow-ups and re-asks not counted).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// How many questions: an interview's length (default 5); in review and cram, the same as
    /// --limit.
    #[arg(short = 'n', long = "questions", value_name = "N")]
    pub questions: Option<usize>,
    /// Your interview date: cards are ranked by the recall predicted for that day, and
    /// cards you would likely forget by then are included even if not yet due.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub exam: Option<NaiveDate>,
    /// Desired retention for scheduling, 0.70–0.99 (saved for later sessions; default 0.90).
    #[arg(long, value_name = "R")]
    pub retention: Option<f32>,
    /// Two people: the interviewer sees the rubric and ticks what the candidate says aloud.
    #[arg(long)]
    pub interviewer: bool,
    #[command(flatten)]
    pub judge: crate::judge::JudgeArgs,
}

impl Args {
    /// How many questions the session asks at most. `-n` and `--limit` say the same thing;
    /// an interview is 5 questions unless told otherwise.
    pub fn question_limit(&self, mode: ModeArg) -> Option<usize> {
        let n = self.limit.or(self.questions);
        match mode {
            ModeArg::Interview => Some(n.unwrap_or(5).max(1)),
            _ => n,
        }
    }

    /// `-n` and `--limit` given with different numbers.
    fn check_counts(&self) -> anyhow::Result<()> {
        if let (Some(n), Some(l)) = (self.questions, self.limit)
            && n != l
        {
            anyhow::bail!(
                "-n {n} and --limit {l} both say how many questions to ask: give one of them"
            );
        }
        Ok(())
    }
}

/// FNV-1a, 64-bit: a hash that stays the same across Rust versions and machines, for card
/// fingerprints stored in the log.
pub fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Fingerprint of a card's content, stored with each review to notice edited cards.
pub fn card_hash(card: &crate::card::Card) -> String {
    let text = serde_json::to_string(card).unwrap_or_default();
    format!("{:016x}", fnv(text.as_bytes()))
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    let plain = crate::term::plain();
    let mut screen = render::Screen::stdout(plain);
    screen.interviewer = args.interviewer;
    let mut session = Session::prepare(args, g, screen)?;
    let stdin = std::io::stdin();
    let mut input: Box<dyn input::Input> = if stdin.is_terminal() {
        Box::new(input::TtyInput::new(plain)?)
    } else {
        Box::new(input::LineInput::new(stdin.lock()))
    };
    session.run(input.as_mut())?;
    Ok(ExitCode::SUCCESS)
}

/// Everything up to and including the first question, printed to `out`: what the startup
/// benchmark measures.
pub fn first_question(args: Args, g: &Global, out: Box<dyn std::io::Write>) -> anyhow::Result<()> {
    let mut session = Session::prepare(
        args,
        g,
        render::Screen {
            w: out,
            plain: false,
            width: 80,
            followup_next: false,
            interviewer: false,
            again_next: false,
        },
    )?;
    session.show_first();
    Ok(())
}

/// Follow-up card → its parent. A follow-up is introduced by its parent: it joins the new
/// cards on its own only once the parent has been answered.
fn followup_keys(lib: &Library) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for (deck, card) in lib.cards() {
        for f in &card.followups {
            out.insert(
                format!("{}/{}", deck.meta.id, f),
                format!("{}/{}", deck.meta.id, card.id),
            );
        }
    }
    out
}

fn open_store(g: &Global, retention: Option<f32>) -> anyhow::Result<Store> {
    let dir = crate::paths::data_dir(g.data_dir.as_deref())?;
    Store::open_with(&dir, retention)
}
