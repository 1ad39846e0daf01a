//! `mcp-tutor stats`: what is due, how well you actually retain, where you go wrong.
//!
//! Everything here is computed from the review log alone (the card state is replayed from
//! it), so the numbers always agree with `mcp-tutor progress export`.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::process::ExitCode;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use crate::deck::Library;
use crate::global::Global;
use crate::scheduler::{self, CardState, Phase, Scheduler};
use crate::store::{ReviewRow, Store};
use crate::term::count;
use crate::term::ink::{bad as red, faint as dim, strong as bold};

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  mcp-tutor stats                      due today, forecast, retention, weak spots
  mcp-tutor stats --exam 2026-12-15    and how ready you would be on that day
  mcp-tutor stats --json               the same as JSON, for scripts")]
pub struct Args {
    /// Print JSON instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Predict readiness for an interview on this date.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub exam: Option<NaiveDate>,
    /// Days in the forecast.
    #[arg(long, value_name = "N", default_value_t = 14)]
    pub days: u32,
    /// How many entries in each "weakest" list.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,
}

#[derive(Debug, Serialize, Default)]
pub struct Counts {
    pub total: usize,
    pub scheduled: usize,
    pub undone: usize,
    pub by_rating: BTreeMap<String, usize>,
    pub by_mode: BTreeMap<String, usize>,
}

#[derive(Debug, Serialize)]
pub struct DayDue {
    pub date: String,
    pub due: usize,
}

#[derive(Debug, Serialize)]
pub struct Retention {
    /// Reviews of graduated cards (in the review phase when asked).
    pub reviews: usize,
    pub recalled: usize,
    pub rate: Option<f64>,
}

#[derive(Debug, Serialize, Default)]
pub struct Verdicts {
    pub answers: usize,
    pub pass: usize,
    pub partial: usize,
    pub fail: usize,
}

#[derive(Debug, Serialize)]
pub struct WeakCard {
    pub card: String,
    /// `learning`, `relearning` or `review`.
    pub phase: String,
    /// Predicted recall now; null while the card is still being (re)learned, when FSRS's
    /// prediction minutes after a lapse would read as "100%".
    pub recall_now: Option<f64>,
    pub reviews: usize,
    pub again: usize,
    pub lapses: u32,
}

#[derive(Debug, Serialize)]
pub struct WeakPoint {
    pub card: String,
    pub point: String,
    pub missed: usize,
    pub asked: usize,
}

#[derive(Debug, Serialize)]
pub struct FlagCount {
    pub label: String,
    pub count: usize,
    pub cards: Vec<String>,
    pub correction: Option<String>,
    pub spec: Option<String>,
}

#[derive(Debug, Serialize, Default)]
pub struct Times {
    pub answers: usize,
    pub median_s: Option<f64>,
    pub within_basics: usize,
    pub within_solid: usize,
    pub over: usize,
}

#[derive(Debug, Serialize)]
pub struct Readiness {
    pub date: String,
    pub cards: usize,
    pub mean_recall: f64,
    /// Cards predicted at or above the desired retention on that day.
    pub ready: usize,
    /// Studied cards predicted below the desired retention, the lowest first.
    pub at_risk: Vec<String>,
    /// Cards never studied: no prediction to rank them by (their recall counts as nil above).
    pub never_studied: usize,
}

/// How often the learner disputed a card's verdict (`!` in the quiz).
#[derive(Debug, Serialize)]
pub struct CardDisputes {
    pub card: String,
    pub disputes: usize,
}

/// Reviews rated on a model judge's verdict.
#[derive(Debug, Serialize, Default)]
pub struct Judged {
    pub answers: usize,
    pub agreed_with_rules: usize,
}

/// Reviews filed under a card no loaded deck has: renamed or merged without `replaces`, or
/// from a deck that is not loaded.
#[derive(Debug, Serialize)]
pub struct UnknownCard {
    pub card: String,
    pub reviews: usize,
    pub last: DateTime<Utc>,
}

#[derive(Debug, Serialize)]
pub struct Stats {
    pub now: DateTime<Utc>,
    pub desired_retention: f32,
    pub reviews: Counts,
    pub cards_known: usize,
    pub cards_seen: usize,
    pub due_today: usize,
    pub new_waiting: usize,
    pub forecast: Vec<DayDue>,
    pub true_retention: Retention,
    pub verdicts: Verdicts,
    pub weakest_cards: Vec<WeakCard>,
    pub weakest_points: Vec<WeakPoint>,
    pub recurring_red_flags: Vec<FlagCount>,
    pub answer_times: Times,
    pub exam: Option<Readiness>,
    /// Cards whose verdict was disputed, most disputed first.
    pub disputes: Vec<CardDisputes>,
    pub judged: Judged,
    pub unknown_history: Vec<UnknownCard>,
}

/// The cards in `rows` that no deck in `known` has, most reviewed first.
fn unknown_history(rows: &[&ReviewRow], known: &[String]) -> Vec<UnknownCard> {
    let known: std::collections::HashSet<&str> = known.iter().map(String::as_str).collect();
    let mut by_card: BTreeMap<&str, UnknownCard> = BTreeMap::new();
    for r in rows.iter().filter(|r| !known.contains(r.card.as_str())) {
        let e = by_card.entry(&r.card).or_insert_with(|| UnknownCard {
            card: r.card.clone(),
            reviews: 0,
            last: r.at,
        });
        e.reviews += 1;
        e.last = e.last.max(r.at);
    }
    let mut out: Vec<UnknownCard> = by_card.into_values().collect();
    out.sort_by(|a, b| b.reviews.cmp(&a.reviews).then(a.card.cmp(&b.card)));
    out
}

/// Replay the log: each card's state now, and how reviews of graduated cards went.
fn replay(sched: &Scheduler, rows: &[&ReviewRow]) -> (HashMap<String, CardState>, Retention) {
    let mut states: HashMap<String, CardState> = HashMap::new();
    let (mut n, mut ok) = (0, 0);
    for r in rows.iter().filter(|r| r.scheduled) {
        let Some(rating) = r.rating() else { continue };
        let prev = states.get(&r.card);
        if prev.is_some_and(|s| s.phase == Phase::Review) {
            n += 1;
            if rating != crate::grader::Rating::Again {
                ok += 1;
            }
        }
        let next = sched.review(prev, rating, r.at);
        states.insert(r.card.clone(), next);
    }
    (
        states,
        Retention {
            reviews: n,
            recalled: ok,
            rate: (n > 0).then(|| ok as f64 / n as f64),
        },
    )
}

pub fn compute(
    lib: &Library,
    store: &Store,
    now: DateTime<Utc>,
    args: &Args,
) -> anyhow::Result<Stats> {
    let sched = &store.scheduler;
    let all = store.reviews()?;
    let rows: Vec<&ReviewRow> = all.iter().filter(|r| !r.undone).collect();
    let counts = counts(&rows, all.len());
    let (states, true_retention) = replay(sched, &rows);
    let known: Vec<String> = lib
        .cards()
        .map(|(d, c)| format!("{}/{}", d.meta.id, c.id))
        .collect();
    let (due_today, forecast) = forecast(&states, now, args.days);
    let tally = Tally::of(&rows);
    let judge_counts = store.judge_counts()?;
    let mut disputes: Vec<CardDisputes> = judge_counts
        .disputes
        .into_iter()
        .map(|(card, disputes)| CardDisputes { card, disputes })
        .collect();
    disputes.sort_by(|a, b| b.disputes.cmp(&a.disputes).then(a.card.cmp(&b.card)));
    Ok(Stats {
        disputes,
        judged: Judged {
            answers: judge_counts.judged,
            agreed_with_rules: judge_counts.agreed,
        },
        unknown_history: unknown_history(&rows, &known),
        now,
        desired_retention: sched.desired_retention,
        cards_known: known.len(),
        cards_seen: states.len(),
        new_waiting: known.iter().filter(|k| !states.contains_key(*k)).count(),
        reviews: counts,
        due_today,
        forecast,
        true_retention,
        weakest_cards: weakest_cards(sched, &states, &tally.by_card, now, args.top),
        weakest_points: weakest_points(tally.missed, &tally.asked, args.top),
        recurring_red_flags: recurring_flags(lib, tally.flags, args.top),
        verdicts: tally.verdicts,
        answer_times: tally.times,
        exam: args
            .exam
            .map(|d| readiness(sched, &states, &known, d, args.top)),
    })
}

/// How many reviews, by rating and by mode; `all` counts the undone ones too.
fn counts(rows: &[&ReviewRow], all: usize) -> Counts {
    let mut counts = Counts {
        total: rows.len(),
        undone: all - rows.len(),
        ..Counts::default()
    };
    for r in rows {
        counts.scheduled += usize::from(r.scheduled);
        *counts.by_rating.entry(r.rating.clone()).or_default() += 1;
        *counts.by_mode.entry(r.mode.clone()).or_default() += 1;
    }
    counts
}

/// How many cards are due today, and on each of the next `days` days (today first).
fn forecast(
    states: &HashMap<String, CardState>,
    now: DateTime<Utc>,
    days: u32,
) -> (usize, Vec<DayDue>) {
    let today = scheduler::day_index(now);
    // Due today means by the end of this study day: a learning card coming back this
    // evening counts, as do overdue cards.
    let due_today = states
        .values()
        .filter(|s| scheduler::day_index(s.due) <= today)
        .count();
    let forecast = (0..i64::from(days))
        .map(|d| {
            let day = today + d;
            // Today first (the same count as "due today"), then the days after it.
            let due = if d == 0 {
                due_today
            } else {
                states
                    .values()
                    .filter(|s| scheduler::day_index(s.due) == day)
                    .count()
            };
            let date = scheduler::day_start(day)
                .with_timezone(&chrono::Local)
                .format("%a %Y-%m-%d")
                .to_string();
            DayDue { date, due }
        })
        .collect();
    (due_today, forecast)
}

/// What one pass over the log counts: verdicts, answer times, and per card and point how
/// often it was asked, rated `again`, missed or red-flagged.
#[derive(Default)]
struct Tally<'r> {
    verdicts: Verdicts,
    times: Times,
    /// Card → (reviews, rated again).
    by_card: HashMap<&'r str, (usize, usize)>,
    /// (card, point label) → times missed.
    missed: HashMap<(String, String), usize>,
    /// Card → answers graded.
    asked: HashMap<String, usize>,
    /// Flag label → (times raised, cards it was raised on).
    flags: BTreeMap<String, (usize, Vec<String>)>,
}

impl<'r> Tally<'r> {
    fn of(rows: &[&'r ReviewRow]) -> Tally<'r> {
        let mut t = Tally::default();
        let mut secs = Vec::new();
        for r in rows {
            let e = t.by_card.entry(r.card.as_str()).or_default();
            e.0 += 1;
            if r.rating == "again" {
                e.1 += 1;
            }
            if let Some(v) = &r.verdict {
                t.verdicts.answers += 1;
                match v.as_str() {
                    "pass" => t.verdicts.pass += 1,
                    "partial" => t.verdicts.partial += 1,
                    _ => t.verdicts.fail += 1,
                }
                *t.asked.entry(r.card.clone()).or_default() += 1;
            }
            for p in &r.points_missed {
                *t.missed.entry((r.card.clone(), by_text(p))).or_default() += 1;
            }
            for f in &r.red_flags {
                let e = t.flags.entry(by_text(f)).or_default();
                e.0 += 1;
                if !e.1.contains(&r.card) {
                    e.1.push(r.card.clone());
                }
            }
            if let (Some(ms), Some(b), Some(s)) = (r.answer_ms, r.basics_s, r.solid_s) {
                let secs_taken = ms as f64 / 1000.0;
                secs.push(secs_taken);
                t.times.answers += 1;
                if secs_taken <= b as f64 {
                    t.times.within_basics += 1;
                }
                if secs_taken <= s as f64 {
                    t.times.within_solid += 1;
                } else {
                    t.times.over += 1;
                }
            }
        }
        t.times.median_s = median(&mut secs);
        t
    }
}

fn median(xs: &mut [f64]) -> Option<f64> {
    xs.sort_by(f64::total_cmp);
    (!xs.is_empty()).then(|| {
        let m = xs.len() / 2;
        if xs.len().is_multiple_of(2) {
            (xs[m - 1] + xs[m]) / 2.0
        } else {
            xs[m]
        }
    })
}

/// The `top` cards most likely forgotten first (learning cards first, then by recall now).
fn weakest_cards(
    sched: &Scheduler,
    states: &HashMap<String, CardState>,
    by_card: &HashMap<&str, (usize, usize)>,
    now: DateTime<Utc>,
    top: usize,
) -> Vec<WeakCard> {
    let mut ranked = states
        .iter()
        .map(|(k, s)| {
            let (n, again) = by_card.get(k.as_str()).copied().unwrap_or_default();
            let weakness = sched.weakness(Some(s), now);
            let card = WeakCard {
                card: k.clone(),
                phase: s.phase.as_str().to_string(),
                recall_now: (!s.is_learning()).then(|| f64::from(weakness.1)),
                reviews: n,
                again,
                lapses: s.lapses,
            };
            (weakness, card)
        })
        .collect::<Vec<_>>();
    ranked.sort_by(|(wa, a), (wb, b)| {
        wa.0.cmp(&wb.0)
            .then(wa.1.total_cmp(&wb.1))
            .then(b.again.cmp(&a.again))
            .then(a.card.cmp(&b.card))
    });
    ranked.into_iter().map(|(_, c)| c).take(top).collect()
}

/// The `top` key points missed most often (then most often for how often they were asked).
fn weakest_points(
    missed: HashMap<(String, String), usize>,
    asked: &HashMap<String, usize>,
    top: usize,
) -> Vec<WeakPoint> {
    let mut points: Vec<WeakPoint> = missed
        .into_iter()
        .map(|((card, point), n)| WeakPoint {
            asked: asked.get(&card).copied().unwrap_or(n),
            card,
            point,
            missed: n,
        })
        .collect();
    points.sort_by(|a, b| {
        b.missed
            .cmp(&a.missed)
            .then((b.missed * a.asked).cmp(&(a.missed * b.asked)))
            .then(a.card.cmp(&b.card))
            .then(a.point.cmp(&b.point))
    });
    points.truncate(top);
    points
}

/// The `top` red flags raised most often, each with the correction and reference of the card
/// (or wrong option) that raised it.
fn recurring_flags(
    lib: &Library,
    flags: BTreeMap<String, (usize, Vec<String>)>,
    top: usize,
) -> Vec<FlagCount> {
    let mut out: Vec<FlagCount> = flags
        .into_iter()
        .map(|(label, (count, cards))| {
            let def = cards.iter().find_map(|k| {
                let (_, c) = lib.card(k)?;
                if let Some(f) = c.red_flags.iter().find(|f| f.label == label) {
                    return Some((f.correction.clone(), f.spec.clone()));
                }
                // A wrong option: its own `why`, under the card's first reference.
                let option = c.choices.iter().find(|o| {
                    !o.correct
                        && !o.why.is_empty()
                        && by_text(&label).ends_with(&format!("“{}”", o.text))
                })?;
                Some((
                    option.why.clone(),
                    c.spec.first().cloned().unwrap_or_default(),
                ))
            });
            FlagCount {
                correction: def.as_ref().map(|(c, _)| c.clone()),
                spec: def.map(|(_, s)| s).filter(|s| !s.is_empty()),
                label,
                count,
                cards,
            }
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.label.cmp(&b.label)));
    out.truncate(top);
    out
}

/// Predicted recall of every known card on the morning of the exam date `d`.
fn readiness(
    sched: &Scheduler,
    states: &HashMap<String, CardState>,
    known: &[String],
    d: NaiveDate,
    top: usize,
) -> Readiness {
    let at = scheduler::day_start(scheduler::day_of_date(d)) + Duration::hours(8);
    let mut recalls: Vec<(String, f32)> = known
        .iter()
        .map(|k| (k.clone(), sched.recall_at(states.get(k), at)))
        .collect();
    recalls.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let ready = recalls
        .iter()
        .filter(|(_, r)| *r >= sched.desired_retention)
        .count();
    let mean = if recalls.is_empty() {
        0.0
    } else {
        recalls.iter().map(|(_, r)| f64::from(*r)).sum::<f64>() / recalls.len() as f64
    };
    Readiness {
        date: d.to_string(),
        cards: recalls.len(),
        mean_recall: mean,
        ready,
        // A card never studied has no memory to predict: listing those alphabetically as
        // "most at risk" would name cards by their spelling.
        at_risk: recalls
            .iter()
            .filter(|(k, r)| *r < sched.desired_retention && states.contains_key(k))
            .take(top)
            .map(|(k, _)| k.clone())
            .collect(),
        never_studied: known.iter().filter(|k| !states.contains_key(*k)).count(),
    }
}

/// A choice card's option named by its text, not by a letter: the letters are those of the
/// deck's order, while the learner saw the options shuffled (`picked (a) X` → `picked “X”`).
fn by_text(label: &str) -> String {
    for verb in ["picked", "picks"] {
        if let Some(rest) = label.strip_prefix(verb).and_then(|r| r.strip_prefix(" ("))
            && let Some((letter, text)) = rest.split_once(") ")
            && letter.len() == 1
            && letter.chars().all(|c| c.is_ascii_lowercase())
        {
            return format!("{verb} “{text}”");
        }
    }
    label.to_owned()
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "n/a".into()
    } else {
        format!("{:.0}%", 100.0 * n as f64 / of as f64)
    }
}

/// The report as text (printed in one write, so a closed pipe is no panic).
fn render(s: &Stats, plain: bool, width: usize) -> String {
    let mut o = Page {
        text: String::new(),
        plain,
        width,
    };
    overview(&mut o, s);
    weaknesses(&mut o, s);
    judged(&mut o, s);
    if let Some(e) = &s.exam {
        o.head(&format!("Readiness for {}", e.date));
        o.line(format_args!(
            "  predicted recall {:.0}% on average; {} of {} cards at or above {:.0}%",
            e.mean_recall * 100.0,
            e.ready,
            e.cards,
            s.desired_retention * 100.0
        ));
        if !e.at_risk.is_empty() {
            o.line(format_args!("  most at risk: {}", e.at_risk.join(", ")));
        }
        if e.never_studied > 0 {
            o.line(format_args!(
                "  not studied yet: {} (no review yet, so no recall to predict)",
                count(e.never_studied, "card")
            ));
        }
        if !e.at_risk.is_empty() || e.never_studied > 0 {
            o.line(format_args!(
                "  practise them with: mcp-tutor quiz --exam {}",
                e.date
            ));
        }
    }
    if plain {
        crate::term::unglyph(&o.text)
    } else {
        o.text
    }
}

/// The report being written: every line filled to the terminal's width with a hanging indent.
struct Page {
    text: String,
    plain: bool,
    width: usize,
}

impl Page {
    fn line(&mut self, args: std::fmt::Arguments) {
        use std::fmt::Write as _;
        let _ = writeln!(
            self.text,
            "{}",
            crate::term::hang(&args.to_string(), self.width)
        );
    }

    fn head(&mut self, t: &str) {
        if self.plain {
            self.line(format_args!("{t}:"));
        } else {
            self.line(format_args!("{}", bold(t)));
        }
    }
}

/// The header, what is due, the forecast, retention, verdicts and answer times.
fn overview(o: &mut Page, s: &Stats) {
    o.line(format_args!(
        "{} {} · day starts 04:00 local · desired retention {:.0}%",
        bold("mcp-tutor stats"),
        s.now.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M"),
        s.desired_retention * 100.0
    ));
    o.line(format_args!(
        "Due today: {} · new cards waiting: {} · cards seen: {} of {} · reviews: {}{}",
        s.due_today,
        s.new_waiting,
        s.cards_seen,
        s.cards_known,
        s.reviews.total,
        if s.reviews.undone > 0 {
            format!(" (+{} undone)", s.reviews.undone)
        } else {
            String::new()
        }
    ));
    if !s.unknown_history.is_empty() {
        let cards: Vec<String> = s
            .unknown_history
            .iter()
            .map(|u| format!("{} ({} reviews)", u.card, u.reviews))
            .collect();
        o.line(format_args!(
            "History for cards no deck has: {}. A card renamed or merged keeps it when the card that took its place lists it in `replaces`; `mcp-tutor progress reset CARD` forgets it.",
            cards.join(", ")
        ));
    }
    o.head(&format!("Forecast, next {} days", s.forecast.len()));
    let max = s.forecast.iter().map(|d| d.due).max().unwrap_or(0).max(1);
    for d in &s.forecast {
        let bar = if o.plain {
            String::new()
        } else {
            "█".repeat((d.due * 30).div_ceil(max))
        };
        o.line(format_args!("  {}  {:>3} {bar}", d.date, d.due));
    }
    let r = &s.true_retention;
    match r.rate {
        Some(v) => o.line(format_args!(
            "True retention: {:.0}% ({} of {} of graduated cards recalled)",
            v * 100.0,
            r.recalled,
            count(r.reviews, "review")
        )),
        None => o.line(format_args!(
            "True retention: n/a, no graduated card reviewed yet"
        )),
    }
    let v = &s.verdicts;
    o.line(format_args!(
        "Grader verdicts: pass {} · partial {} · fail {} (of {})",
        v.pass,
        v.partial,
        v.fail,
        count(v.answers, "answer")
    ));
    let t = &s.answer_times;
    o.line(format_args!(
        "Answer times: median {} · within the basics target {} · within the solid target {} · over {}",
        t.median_s.map_or("n/a".into(), |m| format!("{m:.0} s")),
        pct(t.within_basics, t.answers),
        pct(t.within_solid, t.answers),
        t.over
    ));
}

/// The weakest cards, the points missed most and the recurring misconceptions.
fn weaknesses(o: &mut Page, s: &Stats) {
    if !s.weakest_cards.is_empty() {
        o.head("Weakest cards");
        for w in &s.weakest_cards {
            let recall = match w.recall_now {
                Some(r) => format!("{:>3.0}% recall now", r * 100.0),
                // Right after a lapse FSRS predicts ~100%: say what is true instead.
                None => format!("{:<15}", w.phase),
            };
            o.line(format_args!(
                "  {recall}  {}  ({}, {} again, {})",
                w.card,
                count(w.reviews, "review"),
                w.again,
                count(w.lapses as usize, "lapse")
            ));
        }
    }
    if !s.weakest_points.is_empty() {
        o.head("Key points you miss most");
        for p in &s.weakest_points {
            o.line(format_args!(
                "  missed {} of {}  {} {}",
                p.missed,
                p.asked,
                p.point,
                dim(&format!("({})", p.card))
            ));
        }
    }
    if !s.recurring_red_flags.is_empty() {
        o.head("Your recurring misconceptions");
        for f in &s.recurring_red_flags {
            o.line(format_args!(
                "  {}× {} {}",
                f.count,
                red(&f.label),
                dim(&format!("({})", f.cards.join(", ")))
            ));
            if let Some(c) = &f.correction {
                o.line(format_args!(
                    "      correction: {c}{}",
                    f.spec
                        .as_ref()
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default()
                ));
            }
        }
    }
}

/// What the model judge rated and which verdicts the learner disputed.
fn judged(o: &mut Page, s: &Stats) {
    if s.judged.answers > 0 {
        let n = s.judged.answers;
        o.line(format_args!(
            "Model judge: {n} answer{} rated on its verdict; it agreed with the rules on {}",
            if n == 1 { "" } else { "s" },
            s.judged.agreed_with_rules
        ));
    }
    if !s.disputes.is_empty() {
        o.head("Verdicts you disputed");
        for d in &s.disputes {
            o.line(format_args!("  {}× {}", d.disputes, d.card));
        }
        o.line(format_args!(
            "  {}",
            dim(
                "(the answers are kept in the disputes folder of your data directory; `mcp-tutor decks eval --answers DIR` grades them)"
            )
        ));
    }
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    if let Some(d) = args.exam {
        scheduler::check_exam_date(d, scheduler::now())?;
    }
    let lib = Library::load(&g.deck_dirs);
    for e in &lib.errors {
        eprintln!("warning: deck skipped: {e}");
    }
    // Only reads: works on a read-only store, and creates nothing when there is none.
    let mut store = Store::open_read_only(&crate::paths::data_dir(g.data_dir.as_deref())?)?;
    store.carry_over(&lib.replacements())?;
    let stats = compute(&lib, &store, scheduler::now(), &args)?;
    let text = if args.json {
        serde_json::to_string_pretty(&stats)? + "\n"
    } else {
        render(&stats, crate::term::plain(), crate::term::width())
    };
    let mut out = std::io::stdout().lock();
    // `stats | head` closes the pipe early: that is not an error.
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(e.into());
    }
    Ok(ExitCode::SUCCESS)
}
