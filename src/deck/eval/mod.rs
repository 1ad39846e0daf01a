//! The graded-answer corpus and how well the grader agrees with it.
//!
//! `decks/answers/DECK.toml` holds answers written blind (by someone who saw only the question
//! and the point and flag labels, never the matchers), each with the verdict a fair interviewer
//! gave, the points it earns, the misconceptions it states and any identifier it almost got
//! right. `decks/answers/held-out/DECK.toml` holds more of the same that nobody tunes the grader
//! on: its figures are reported apart and never fail a check, so they stay an honest estimate of
//! how the grader does on answers it has never seen.

pub mod report;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::deck::{DeckError, Library};
use crate::grader::{self, Confidence, Verdict};

/// One `decks/answers/*.toml` file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerFile {
    #[serde(default)]
    pub answers: Vec<GradedAnswer>,
}

/// An answer as a candidate typed it, and how a fair interviewer judged it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GradedAnswer {
    /// The card id within the file's deck.
    pub card: String,
    pub text: String,
    pub verdict: Verdict,
    /// Ids of the points the answer earns.
    #[serde(default)]
    pub points: Vec<String>,
    /// Ids of the red flags whose misconception the answer asserts.
    #[serde(default)]
    pub flags: Vec<String>,
    /// A misconception the answer states that no red flag of the card names.
    #[serde(default)]
    pub other: Option<String>,
    /// An exact identifier written almost right, as the answer writes it.
    #[serde(default)]
    pub near_miss: Option<String>,
    /// In a disputes file (`quiz`, `!` at the rating prompt): the verdict mcp-tutor gave; the
    /// learner's own is `verdict`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graded: Option<Verdict>,
}

impl GradedAnswer {
    /// An answer whose verdict the learner disputed: their verdict, and the one given. Points
    /// and flags are left for the deck's author to fill in.
    pub fn disputed(card: &str, text: &str, learner: Verdict, graded: Verdict) -> GradedAnswer {
        GradedAnswer {
            card: card.to_string(),
            text: text.to_string(),
            verdict: learner,
            points: Vec::new(),
            flags: Vec::new(),
            other: None,
            near_miss: None,
            graded: Some(graded),
        }
    }

    /// Whether the answer states a misconception at all.
    pub fn misconceived(&self) -> bool {
        !self.flags.is_empty() || self.other.is_some()
    }
}

/// Which part of the corpus an answer belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Part {
    /// Answers the grader and the cards may be tuned on; `decks check` fails on any
    /// disagreement here.
    Tuned,
    /// Answers nobody tunes on: an estimate of agreement on unseen answers.
    HeldOut,
}

/// A corpus answer, located.
#[derive(Debug, Clone)]
pub struct Entry {
    pub deck: String,
    pub part: Part,
    pub file: String,
    /// 1-based line of the answer's `[[answers]]`.
    pub line: usize,
    pub answer: GradedAnswer,
}

impl Entry {
    pub fn key(&self) -> String {
        format!("{}/{}", self.deck, self.answer.card)
    }
}

/// The corpus: every answer file of the embedded decks (or of a folder given in its place).
#[derive(Debug, Default)]
pub struct Corpus {
    pub entries: Vec<Entry>,
    pub errors: Vec<DeckError>,
}

const ANSWERS_DIR: &str = "answers";
const HELD_OUT_DIR: &str = "held-out";

impl Corpus {
    /// The corpus shipped inside the binary.
    pub fn embedded() -> Corpus {
        let mut c = Corpus::default();
        for (name, text) in crate::deck::embedded_under(ANSWERS_DIR)
            .into_iter()
            .filter(|(n, _)| n.ends_with(".toml"))
        {
            let part = if name.starts_with(&format!("{ANSWERS_DIR}/{HELD_OUT_DIR}/")) {
                Part::HeldOut
            } else {
                Part::Tuned
            };
            c.add_text(&format!("decks/{name}"), text, part);
        }
        c
    }

    /// The corpus under `dir` (`dir/*.toml` tuned, `dir/held-out/*.toml` held out).
    pub fn from_dir(dir: &Path) -> Corpus {
        let mut c = Corpus::default();
        for (sub, part) in [
            (dir.to_path_buf(), Part::Tuned),
            (dir.join(HELD_OUT_DIR), Part::HeldOut),
        ] {
            let Ok(read) = std::fs::read_dir(&sub) else {
                continue;
            };
            let mut files: Vec<_> = read
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
                .collect();
            files.sort();
            for f in files {
                match std::fs::read_to_string(&f) {
                    Ok(text) => c.add_text(&f.display().to_string(), &text, part),
                    Err(e) => c.errors.push(DeckError {
                        file: f.display().to_string(),
                        line: 0,
                        column: 0,
                        message: format!("cannot read answer file: {e}"),
                    }),
                }
            }
        }
        c
    }

    /// Parse one answer file; its name (`subscriptions.toml`, or `subscriptions.2.toml` for a
    /// later batch) says which deck it answers.
    fn add_text(&mut self, file: &str, text: &str, part: Part) {
        let deck = Path::new(file)
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string();
        let parsed: AnswerFile = match toml::from_str(text) {
            Ok(p) => p,
            Err(e) => {
                let (line, column) = e
                    .span()
                    .map(|s| crate::deck::locate::line_col(text, s.start))
                    .unwrap_or((0, 0));
                self.errors.push(DeckError {
                    file: file.to_string(),
                    line,
                    column,
                    message: format!(
                        "{} (an answer file is a list of [[answers]] with card, text, verdict, points, flags)",
                        e.message()
                    ),
                });
                return;
            }
        };
        let lines: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == "[[answers]]")
            .map(|(i, _)| i + 1)
            .collect();
        for (i, answer) in parsed.answers.into_iter().enumerate() {
            self.entries.push(Entry {
                deck: deck.clone(),
                part,
                file: file.to_string(),
                line: lines.get(i).copied().unwrap_or(0),
                answer,
            });
        }
    }
}

/// How the grader judged one corpus answer, beside the expected judgement.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub card: String,
    pub part: Part,
    pub file: String,
    pub line: usize,
    pub text: String,
    pub expected: Verdict,
    pub got: Verdict,
    /// The answer states a misconception (a flag of the card, or another).
    pub misconceived: bool,
    /// How sure the grader was of `got`.
    pub confidence: Confidence,
    /// The statements it could not check.
    pub unchecked: Vec<String>,
    /// Flags the grader raised that the answer does not state.
    pub false_flags: Vec<String>,
    /// The answer states a misconception and the grader raised none of its flags.
    pub missed_flags: Vec<String>,
    /// The answer states a misconception no flag covers and the grader raised no flag.
    pub missed_other: bool,
    /// The near miss the answer makes, when the grader did not report it.
    pub missed_near_miss: Option<String>,
    /// Expected points the grader did not credit, and credited points not expected.
    pub points_missed: Vec<String>,
    pub points_extra: Vec<String>,
}

impl Outcome {
    pub fn agrees(&self) -> bool {
        self.expected == self.got
            && self.false_flags.is_empty()
            && self.missed_flags.is_empty()
            && !self.missed_other
            && self.missed_near_miss.is_none()
    }
}

/// Counts for a set of outcomes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    pub answers: usize,
    /// Answers whose verdict matches the fair one.
    pub verdicts_agree: usize,
    /// Answers that agree on verdict, flags and near misses alike.
    pub agree: usize,
    /// Answers stating no misconception, and those of them the grader flagged anyway.
    pub clean: usize,
    pub falsely_flagged: usize,
    /// Answers stating a misconception, and those of them the grader flagged.
    pub misconceived: usize,
    pub caught: usize,
    pub near_misses: usize,
    pub near_misses_reported: usize,
    /// Verdicts the grader was sure of, and those of them that agree.
    pub sure: usize,
    pub sure_agree: usize,
    /// Answers stating a misconception that the grader failed or was unsure of.
    pub caught_or_unsure: usize,
}

impl Tally {
    fn add(&mut self, o: &Outcome, misconceived: bool, near: bool) {
        self.answers += 1;
        self.verdicts_agree += usize::from(o.expected == o.got);
        self.agree += usize::from(o.agrees());
        if o.confidence == Confidence::Sure {
            self.sure += 1;
            self.sure_agree += usize::from(o.expected == o.got);
        }
        if misconceived {
            self.misconceived += 1;
            self.caught += usize::from(o.missed_flags.is_empty() && !o.missed_other);
            self.caught_or_unsure +=
                usize::from(o.got == Verdict::Fail || o.confidence == Confidence::Unsure);
        } else {
            self.clean += 1;
            self.falsely_flagged += usize::from(!o.false_flags.is_empty());
        }
        if near {
            self.near_misses += 1;
            self.near_misses_reported += usize::from(o.missed_near_miss.is_none());
        }
    }
}

/// How a model judge fared over the corpus (`decks eval --judge`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct JudgeRun {
    pub model: String,
    pub answers: usize,
    /// Judged answers whose verdict the rules share.
    pub agreed_with_rules: usize,
    /// Read from the store: not sent again.
    pub stored: usize,
    /// Items of replies not believed (a quote not in the answer, a near-miss identifier).
    pub dropped: usize,
    /// Answers left to the rules, by reason.
    pub fallbacks: BTreeMap<String, usize>,
    /// Verdict agreement with the fair verdicts, per part: the model's own, after the
    /// guardrails, and the rules'.
    pub tuned: JudgeFigures,
    pub held_out: JudgeFigures,
}

/// How often each reading of the answers a judge replied to agrees with the fair verdict.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JudgeFigures {
    pub answers: usize,
    /// Answers the judge gave a usable reply to (the rest were left to the rules).
    pub replied: usize,
    /// Of those: the verdict the model wrote, the one recomputed after the guardrails, and
    /// the rules' alone, each equal to the fair verdict.
    pub model_agrees: usize,
    pub guarded_agrees: usize,
    pub rules_agrees: usize,
}

impl JudgeFigures {
    /// Count one answer: the fair verdict, the model's own (none without a reply), the
    /// guarded one, the rules'.
    pub fn add(
        &mut self,
        fair: Verdict,
        model: Option<Verdict>,
        guarded: Option<Verdict>,
        rules: Verdict,
    ) {
        self.answers += 1;
        let Some(guarded) = guarded else {
            return;
        };
        self.replied += 1;
        self.model_agrees += usize::from(model == Some(fair));
        self.guarded_agrees += usize::from(guarded == fair);
        self.rules_agrees += usize::from(rules == fair);
    }
}

/// The whole evaluation.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Set when a model judge graded the corpus (its verdicts are the ones counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRun>,
    pub tuned: Tally,
    pub held_out: Tally,
    /// Per `DECK/CARD`: the tuned and held-out tallies.
    pub cards: BTreeMap<String, (Tally, Tally)>,
    pub outcomes: Vec<Outcome>,
    /// Corpus answers naming a card, point or flag that does not exist.
    pub problems: Vec<DeckError>,
}

impl Report {
    /// Blank the held-out answers' texts, so a report printed while tuning cannot leak them.
    pub fn hide_held_out_texts(&mut self) {
        for o in self.outcomes.iter_mut().filter(|o| o.part == Part::HeldOut) {
            o.text = String::from("(held out: shown only with --show-held-out)");
        }
    }
}

/// Grade every corpus answer (only those of `only`, a `DECK/CARD`, when given).
pub fn evaluate(lib: &Library, corpus: &Corpus, only: Option<&str>) -> Report {
    evaluate_with(lib, corpus, only, &mut |_, card, text| {
        grader::grade(card, text)
    })
}

/// [`evaluate`] with another grader (`decks eval --judge`: the rules, then the model judge),
/// called with the answer's `DECK/CARD`, its card and its text.
pub fn evaluate_with(
    lib: &Library,
    corpus: &Corpus,
    only: Option<&str>,
    grade: &mut dyn FnMut(&str, &crate::card::Card, &str) -> grader::Grade,
) -> Report {
    let mut r = Report {
        problems: corpus.errors.clone(),
        ..Report::default()
    };
    for e in &corpus.entries {
        let key = e.key();
        if only.is_some_and(|o| o != key && o != e.answer.card) {
            continue;
        }
        let Some((_, card)) = lib.card(&key) else {
            r.problems.push(DeckError {
                file: e.file.clone(),
                line: e.line,
                column: 1,
                message: format!("no card `{key}`: fix the answer's `card` or the file name (the file is named after its deck)"),
            });
            continue;
        };
        let point_ids: Vec<String> = card.points.iter().map(|p| p.id.clone()).collect();
        r.problems.extend(unknown_labels(e, &key, card));
        let g = grade(&key, card, &e.answer.text);
        let want = &e.answer;
        let outcome = outcome(e, &key, &point_ids, &g);
        let near = want.near_miss.is_some();
        let tally = r.cards.entry(key).or_default();
        let (all, one) = match e.part {
            Part::Tuned => (&mut r.tuned, &mut tally.0),
            Part::HeldOut => (&mut r.held_out, &mut tally.1),
        };
        all.add(&outcome, want.misconceived(), near);
        one.add(&outcome, want.misconceived(), near);
        r.outcomes.push(outcome);
    }
    r
}

/// A corpus answer labelled with a point or flag its card does not have.
fn unknown_labels(e: &Entry, key: &str, card: &crate::card::Card) -> Option<DeckError> {
    let point_ids: Vec<String> = card.points.iter().map(|p| p.id.clone()).collect();
    let flag_ids: Vec<String> = card.red_flags.iter().map(|f| f.id.clone()).collect();
    let unknown: Vec<&String> = e
        .answer
        .points
        .iter()
        .filter(|p| !point_ids.contains(p))
        .chain(e.answer.flags.iter().filter(|f| !flag_ids.contains(f)))
        .collect();
    (!unknown.is_empty()).then(|| DeckError {
        file: e.file.clone(),
        line: e.line,
        column: 1,
        message: format!(
            "`{key}` has no point or flag {}; its points are {} and its flags {}",
            join(unknown.iter().map(|s| s.as_str())),
            join(point_ids.iter().map(String::as_str)),
            join(flag_ids.iter().map(String::as_str)),
        ),
    })
}

/// How the grader's `g` compares with what the answer `e` was labelled.
fn outcome(e: &Entry, key: &str, point_ids: &[String], g: &grader::Grade) -> Outcome {
    let raised: Vec<String> = g.red_flags.iter().map(|f| f.id.clone()).collect();
    let credited: Vec<String> = g
        .points
        .iter()
        .filter(|p| p.hit && point_ids.contains(&p.id))
        .map(|p| p.id.clone())
        .collect();
    let want = &e.answer;
    Outcome {
        card: key.to_owned(),
        part: e.part,
        file: e.file.clone(),
        line: e.line,
        text: want.text.clone(),
        expected: want.verdict,
        got: g.verdict,
        misconceived: want.misconceived(),
        confidence: g.confidence,
        unchecked: g
            .unchecked
            .iter()
            .map(|u| format!("{} [{}]", u.text, u.novel.join(" ")))
            .collect(),
        false_flags: if want.misconceived() && want.flags.is_empty() {
            // A misconception no flag names: any flag raised is a fair catch.
            Vec::new()
        } else {
            raised
                .iter()
                .filter(|f| !want.flags.contains(f))
                .cloned()
                .collect()
        },
        missed_flags: if want.flags.is_empty() || want.flags.iter().any(|f| raised.contains(f)) {
            Vec::new()
        } else {
            want.flags.clone()
        },
        missed_other: want.other.is_some()
            && want.flags.is_empty()
            && raised.is_empty()
            && g.verdict != Verdict::Fail,
        missed_near_miss: want
            .near_miss
            .as_ref()
            .filter(|n| !g.near_misses.iter().any(|m| m.found.trim() == n.trim()))
            .cloned(),
        points_missed: want
            .points
            .iter()
            .filter(|p| !credited.contains(p))
            .cloned()
            .collect(),
        points_extra: credited
            .iter()
            .filter(|p| !want.points.contains(p))
            .cloned()
            .collect(),
    }
}

fn join<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<String> = items.map(|s| format!("`{s}`")).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Append `entry` to the disputes corpus `dir/DECK.toml` (created with a header saying what it
/// is), after a comment line `note`; returns the file.
pub fn append_dispute(
    dir: &Path,
    deck: &str,
    entry: &GradedAnswer,
    note: &str,
) -> anyhow::Result<std::path::PathBuf> {
    use anyhow::Context;
    use std::io::Write;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the disputes folder {}", dir.display()))?;
    let path = dir.join(format!("{deck}.toml"));
    let mut out = String::new();
    if !path.exists() {
        out.push_str(&format!(
            "# Answers to deck `{deck}` whose verdict you disputed in `mcp-tutor quiz` (`!` at the rating\n\
             # prompt): `verdict` is yours, `graded` the one given. A graded-answer corpus: grade it with\n\
             # `mcp-tutor decks eval --answers {}`; to make an entry part of the shipped corpus, add the\n\
             # points it earns and the flags it states, and move it to decks/answers/{deck}.toml.\n",
            dir.display()
        ));
    }
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    out.push_str(&format!(
        "\n# {}\n[[answers]]\ncard = {}\ntext = {}\nverdict = {}\n",
        note.replace('\n', " "),
        q(&entry.card),
        q(&entry.text),
        q(entry.verdict.name())
    ));
    if let Some(g) = entry.graded {
        out.push_str(&format!("graded = {}\n", q(g.name())));
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot write the disputes file {}", path.display()))?;
    f.write_all(out.as_bytes())
        .with_context(|| format!("cannot write the disputes file {}", path.display()))?;
    Ok(path)
}

/// The tuned answers the grader is known to misjudge today (`decks/answers/known-disagreements.txt`):
/// the work list of the grader, and the ratchet of `decks check`. A line is
/// `DECK/CARD <fingerprint of the answer's text>  # why`.
pub const KNOWN_FILE: &str = "answers/known-disagreements.txt";

/// A stable fingerprint of an answer's text (FNV-1a, 64 bits), independent of where it sits.
pub fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.trim().bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn known_key(o: &Outcome) -> String {
    format!("{} {}", o.card, fingerprint(&o.text))
}

/// Parse the known-disagreements list: the keys it names.
pub fn parse_known(text: &str) -> std::collections::BTreeSet<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// The list as it should read for `report`: one line per tuned disagreement, with its reason.
pub fn render_known(report: &Report) -> String {
    let mut out = String::from(
        "# Tuned corpus answers the grader misjudges today: its work list. `decks check` fails on any\n\
         # other disagreement (a regression) and on a line here that now agrees (take it out).\n\
         # Regenerate with `mcp-tutor decks eval --write-known`.\n",
    );
    for o in report
        .outcomes
        .iter()
        .filter(|o| o.part == Part::Tuned && !o.agrees())
    {
        out.push_str(&format!("{}  # {}\n", known_key(o), describe(o)));
    }
    out
}

/// `decks check`'s view of the tuned corpus: a disagreement the known list does not name is a
/// regression; a listed answer that now agrees must leave the list. Both are located.
pub fn disagreements(
    report: &Report,
    known: &std::collections::BTreeSet<String>,
) -> Vec<DeckError> {
    let mut out: Vec<DeckError> = report
        .outcomes
        .iter()
        .filter(|o| o.part == Part::Tuned && !o.agrees() && !known.contains(&known_key(o)))
        .map(|o| DeckError {
            file: o.file.clone(),
            line: o.line,
            column: 1,
            message: format!(
                "graded answer for `{}` is misjudged and not in decks/{KNOWN_FILE}: {}",
                o.card,
                describe(o)
            ),
        })
        .collect();
    out.extend(
        report
            .outcomes
            .iter()
            .filter(|o| o.part == Part::Tuned && o.agrees() && known.contains(&known_key(o)))
            .map(|o| DeckError {
                file: format!("decks/{KNOWN_FILE}"),
                line: 0,
                column: 0,
                message: format!(
                    "`{}` is now graded right: remove it from the list (`mcp-tutor decks eval --write-known`)",
                    known_key(o)
                ),
            }),
    );
    out
}

/// The catalogue's rule, which no known-disagreement excuses: a misconception checked on every
/// card must fire on no tuned answer that states no misconception.
pub fn catalogue_violations(report: &Report) -> Vec<DeckError> {
    let ids: Vec<&str> = crate::deck::catalogue::misconceptions()
        .iter()
        .map(|m| m.id.as_str())
        .collect();
    report
        .outcomes
        .iter()
        .filter(|o| o.part == Part::Tuned && !o.misconceived)
        .flat_map(|o| {
            o.false_flags
                .iter()
                .filter(|f| ids.contains(&f.as_str()))
                .map(move |f| DeckError {
                    file: o.file.clone(),
                    line: o.line,
                    column: 1,
                    message: format!(
                        "catalogue misconception `{f}` fires on this right answer to `{}`; a catalogue entry must be wrong whatever the question: narrow its claims in decks/catalogue.toml, or make it a card's flag",
                        o.card
                    ),
                })
        })
        .collect()
}

/// What went wrong with one outcome, in words.
pub fn describe(o: &Outcome) -> String {
    let mut parts = Vec::new();
    if o.expected != o.got {
        parts.push(format!(
            "expected {}, graded {}",
            o.expected.name(),
            o.got.name()
        ));
    }
    if !o.false_flags.is_empty() {
        parts.push(format!(
            "false red flag {}",
            join(o.false_flags.iter().map(String::as_str))
        ));
    }
    if !o.missed_flags.is_empty() {
        parts.push(format!(
            "missed red flag {}",
            join(o.missed_flags.iter().map(String::as_str))
        ));
    }
    if o.missed_other {
        parts.push("a stated misconception passed".into());
    }
    if let Some(n) = &o.missed_near_miss {
        parts.push(format!("near miss `{n}` not reported"));
    }
    if !o.points_missed.is_empty() {
        parts.push(format!(
            "points not credited {}",
            join(o.points_missed.iter().map(String::as_str))
        ));
    }
    if !o.points_extra.is_empty() {
        parts.push(format!(
            "points credited beyond the fair ones {}",
            join(o.points_extra.iter().map(String::as_str))
        ));
    }
    if parts.is_empty() {
        "agrees".into()
    } else {
        parts.join("; ")
    }
}
