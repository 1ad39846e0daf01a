//! The card model: what one card in a deck file deserializes into.
//!
//! This is the contract between deck authors, the grader, the quiz and the lab, so it stays
//! declarative: no behaviour lives here, and it sits at the bottom of the crate (the grader
//! depends on cards only; deck loading depends on cards and the grader). A card keeps every part
//! of the seed study card (question, key points, ~20 s basics, ~40 s solid answer, code,
//! go-deeper ladder, follow-ups, red flags) and adds what the tool needs (stable id, kind, facts,
//! spec references).

use serde::{Deserialize, Serialize};

/// A card's kind. Adding one: its variant (and any fields of its own on [`Card`]) here, what
/// decks, the quiz and the exports do with it in `card_kind.rs`, and its grader in `grader/`.
/// `ValueEnum` is derived for the list of every kind (`card_kind::all`); its names are the serde ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum CardKind {
    /// Free recall, graded against key points and red flags.
    Recall,
    /// One exact identifier (a method name, a `_meta` key, an error code).
    NameIt,
    /// A text with blanks written `{{answer}}`; each blank is an exact point.
    Cloze,
    /// One or several right options (true/false is a two-option choice).
    Choice,
    /// Put frames or steps in order; `items` are written in the right order.
    Order,
    /// A JSON or SSE transcript with one violation: name the faulty line and the rule.
    SpotTheBug,
}

/// What a kind is, asked wherever code treats kinds differently. Each is an exhaustive match,
/// so a new kind is placed in every one of them before it compiles.
impl CardKind {
    /// Answered in prose: graded on the rubric's claims, checked against the catalogue's
    /// misconceptions, given a go-deeper ladder, and read by the model judge.
    pub fn free_text(self) -> bool {
        match self {
            CardKind::Recall | CardKind::SpotTheBug => true,
            CardKind::NameIt | CardKind::Cloze | CardKind::Choice | CardKind::Order => false,
        }
    }

    /// Shows options the learner picks by letter, shuffled per showing.
    pub fn picks_options(self) -> bool {
        match self {
            CardKind::Choice => true,
            CardKind::Recall
            | CardKind::NameIt
            | CardKind::Cloze
            | CardKind::Order
            | CardKind::SpotTheBug => false,
        }
    }

    /// The answer puts the card's items in order.
    pub fn orders_items(self) -> bool {
        match self {
            CardKind::Order => true,
            CardKind::Recall
            | CardKind::NameIt
            | CardKind::Cloze
            | CardKind::Choice
            | CardKind::SpotTheBug => false,
        }
    }

    /// The answer names the faulty line of a transcript.
    pub fn names_a_line(self) -> bool {
        match self {
            CardKind::SpotTheBug => true,
            CardKind::Recall
            | CardKind::NameIt
            | CardKind::Cloze
            | CardKind::Choice
            | CardKind::Order => false,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Card {
    /// Stable id, unique within the deck, `[a-z0-9-]+`. Progress is keyed by `DECK/ID`.
    pub id: String,
    pub kind: CardKind,
    pub question: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Numbers of the quiz facts (`decks/facts.toml`) this card teaches.
    #[serde(default)]
    pub facts: Vec<u32>,
    /// Spec references in the short form of docs/rules.md, e.g. `"SUB §Acknowledgment"`.
    #[serde(default)]
    pub spec: Vec<String>,
    /// Set when the card teaches a tension between spec texts: the quiz labels it as such.
    #[serde(default)]
    pub tension: Option<String>,
    /// The ~20 s interview answer.
    #[serde(default)]
    pub basics: Option<TimedAnswer>,
    /// The ~40 s solid answer. Its text must pass this card's own grader (golden self-test).
    #[serde(default)]
    pub answer: Option<TimedAnswer>,
    #[serde(default)]
    pub code: Option<Code>,
    #[serde(default)]
    pub deeper: Option<Deeper>,
    /// Key points the grader looks for.
    #[serde(default)]
    pub points: Vec<Point>,
    /// Misconceptions that cost the question.
    #[serde(default)]
    pub red_flags: Vec<RedFlag>,
    /// Ids of red flags defined once in `decks/concepts.toml` and shared by several cards;
    /// they are added to `red_flags` when the deck loads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_flags: Vec<String>,
    /// The protocol's identifiers (from the concepts file), watched for near misses: filled in
    /// when the deck loads, never written in a deck.
    #[serde(skip)]
    pub identifiers: Vec<String>,
    /// What the whole library teaches as true (every card's answers, ladders and corrections,
    /// the catalogue's truths, the facts): the grader recognises an answer's statements
    /// against it. Filled in when the library loads, never written in a deck.
    #[serde(skip)]
    pub truths: std::sync::Arc<Vec<String>>,
    /// `DECK/CARD` keys of cards this one builds on (often in another deck): while any of them
    /// has never been answered, this card is not introduced, not even as a follow-up.
    #[serde(default)]
    pub after: Vec<String>,
    /// Ids (within the same deck) of follow-up cards, asked right after this one.
    #[serde(default)]
    pub followups: Vec<String>,
    /// `DECK/CARD` keys of cards this one took the place of (renamed, or merged into it): their
    /// review history is this card's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaces: Vec<String>,
    /// `choice` cards: the options, in display order.
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// `order` cards: the items in their correct order (shown shuffled).
    #[serde(default)]
    pub items: Vec<String>,
    /// `cloze` cards: text with `{{blank}}` markers; each blank must be answered exactly.
    #[serde(default)]
    pub cloze: Option<String>,
    /// `spot-the-bug` cards: the transcript and where its one violation is.
    #[serde(default)]
    pub transcript: Option<Transcript>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimedAnswer {
    /// Target speaking time in seconds (~20 for basics, ~40 for the solid answer).
    pub seconds: u32,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Code {
    /// `json`, `sse`, `http`, `rust`, `text`, ...
    pub lang: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deeper {
    /// The go-deeper ladder, shallowest rung first.
    #[serde(default)]
    pub steps: Vec<String>,
    /// The long explanation (Markdown), shown after the last rung.
    #[serde(default)]
    pub explanation: String,
}

/// A key point: hit when any one of its claims is read in the answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Stable name within the card (`[a-z0-9-]+`, e.g. `ack-first`), used by the graded-answer
    /// corpus and the review log; `decks check` refuses a missing or positional one.
    #[serde(default)]
    pub id: String,
    pub label: String,
    #[serde(default)]
    pub required: bool,
    /// The ways the point can be stated (`claims = [...]`; older decks write `match`).
    #[serde(rename = "claims", alias = "match", default)]
    pub rules: Vec<Claim>,
}

/// One way a point or a red flag is stated: who does what to what, with which identifiers.
///
/// Every part it sets must be said in one claim of the answer (a key point may take two
/// neighbouring ones). Groups are alternatives separated by `|` (`"@server|the host"`), each a
/// word or phrase matched with tolerance for case, Unicode form, word form, the lexicon's
/// synonyms and (for key points) small typos; `@name` stands for a concept of
/// `decks/concepts.toml`.
///
/// - `agent`: who does it, read as the subject of `action` in any voice ("the server assigns
///   the id", "the id is assigned by the server").
/// - `action`: what is done; its clause's stance (denied, asked, attributed to somebody else,
///   a condition) is the claim's.
/// - `theme` and `all`: what else the claim must say.
/// - `negated`: the claim is stated denied ("nothing is replayed", "the client never answers
///   it"); negation words never go inside groups.
/// - `not`: a group that must be said, denied, in the same claim ("in `_meta`, not an HTTP
///   header").
/// - `except`: groups that, in a clause of the reading, mean the claim is not being made.
/// - `exact`: identifiers that must appear as written (any one of them suffices). Case and
///   spelling are significant; near misses are reported, never counted.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exact: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub all: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub except: Vec<String>,
}

impl Claim {
    /// Every group the claim names, in the order agent, action, theme, all, not, except.
    pub fn groups_mut(&mut self) -> impl Iterator<Item = &mut String> {
        self.agent
            .iter_mut()
            .chain(self.action.iter_mut())
            .chain(self.theme.iter_mut())
            .chain(self.all.iter_mut())
            .chain(self.not.iter_mut())
            .chain(self.except.iter_mut())
    }

    /// Whether the claim is written with roles or stance (`agent`, `action`, `negated`,
    /// `not`) rather than as co-occurring groups only.
    pub fn framed(&self) -> bool {
        self.agent.is_some() || self.action.is_some() || self.negated || self.not.is_some()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedFlag {
    /// Stable id (`[a-z0-9-]+`): a shared flag's name, or one unique within the card; defaults
    /// to `f1`, `f2`, ... by position.
    #[serde(default)]
    pub id: String,
    pub label: String,
    /// The ways the misconception can be stated (`claims = [...]`; older decks write `match`).
    #[serde(rename = "claims", alias = "match", default)]
    pub rules: Vec<Claim>,
    /// Extra cues (same `a|b` syntax) that, near a match, mean the misconception is being denied
    /// rather than affirmed. The grader's own negation handling ("not", "no longer", "unlike",
    /// "instead of", ...) always applies on top of these.
    #[serde(default)]
    pub guards: Vec<String>,
    /// What is true instead.
    pub correction: String,
    /// Spec reference for the correction, in the short form of docs/rules.md.
    pub spec: String,
    /// Set on the misconceptions of the catalogue (`decks/concepts.toml`), which are checked
    /// on every free-text card's answers, not only on cards that name them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub catalogue: bool,
    /// Answers that must fire this flag (checked by `decks check`).
    #[serde(default)]
    pub examples: Vec<String>,
    /// Answers that must not fire it: negated or corrected mentions.
    #[serde(default)]
    pub non_examples: Vec<String>,
    /// Catalogue entries only: true statements close to the misconception, which it must not
    /// fire on. A non-example denies the misconception; a truth states what is right nearby
    /// ("retrying an answered request under its old id"), and `decks check` grades it against
    /// every card the entry reaches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub truths: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    pub text: String,
    #[serde(default)]
    pub correct: bool,
    /// Why this option is right or wrong; shown after answering (and as the correction when a
    /// wrong option is picked).
    #[serde(default)]
    pub why: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transcript {
    /// `json`, `sse`, `stdio`, `http`.
    pub lang: String,
    /// Shown with line numbers starting at 1.
    pub text: String,
    /// The 1-based line that breaks a rule.
    pub bug_line: u32,
}

impl Card {
    /// Whether `deeper` has anything to show: a rung or the long explanation.
    pub fn has_ladder(&self) -> bool {
        self.deeper
            .as_ref()
            .is_some_and(|d| !d.steps.is_empty() || !d.explanation.trim().is_empty())
    }

    /// The kind as deck files write it (`spot-the-bug`).
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }

    /// The red flags the card names (its own and its shared ones), without the catalogue's
    /// misconceptions every free-text card is also checked against: what a rubric lists.
    pub fn own_flags(&self) -> impl Iterator<Item = &RedFlag> {
        self.red_flags.iter().filter(|f| !f.catalogue)
    }
}

/// The one builder of cards for unit tests: the smallest card of `kind` (id `c`, question `q`,
/// nothing else), for each test to fill in the fields it is about.
#[cfg(test)]
pub(crate) fn test_card(kind: CardKind) -> Card {
    Card {
        id: "c".into(),
        kind,
        question: "q".into(),
        tags: Vec::new(),
        facts: Vec::new(),
        spec: Vec::new(),
        tension: None,
        basics: None,
        answer: None,
        code: None,
        deeper: None,
        points: Vec::new(),
        red_flags: Vec::new(),
        shared_flags: Vec::new(),
        identifiers: Vec::new(),
        truths: Default::default(),
        after: Vec::new(),
        followups: Vec::new(),
        replaces: Vec::new(),
        choices: Vec::new(),
        items: Vec::new(),
        cloze: None,
        transcript: None,
    }
}

impl CardKind {
    pub fn name(self) -> &'static str {
        match self {
            CardKind::Recall => "recall",
            CardKind::NameIt => "name-it",
            CardKind::Cloze => "cloze",
            CardKind::Choice => "choice",
            CardKind::Order => "order",
            CardKind::SpotTheBug => "spot-the-bug",
        }
    }
}
