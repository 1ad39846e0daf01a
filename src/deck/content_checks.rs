//! The content checks `decks check` adds on top of the format: things a deck can get wrong while
//! still parsing and passing its self-tests.
//!
//! - every spec reference (a card's `spec`, a red flag's `spec`) resolves through
//!   `docs/rules.md`, so a learner can follow it;
//! - every free-text card (recall, spot-the-bug) has a go-deeper ladder of 3 or 4 rungs;
//! - right answers of choice cards do not pile up on one letter (options are shown shuffled, but
//!   `grade`, exports and printed decks show the file's order, and a learner notices a pattern);
//! - a choice card's answer text does not name letters, which mean nothing once shuffled;
//! - every fact a card lists is one it tests (`facts_tested`);
//! - every key point and card red flag has a stable name (`ack-first`, not `p1`): the graded
//!   corpus and the review log refer to them, and a position changes when a point is inserted;
//! - a card never prints its answer before it is asked: a `tension` banner (shown above the
//!   question) must not earn a required point of its own card when graded as an answer, nor, on
//!   a choice card, use the words that set a right option apart from the wrong ones;
//! - "exactly" only where the name is the question: a required point whose label says
//!   "exactly" belongs to a question that asks for a name;
//! - the right option is not the longest too often (choice cards per deck, and the lab's
//!   scenario predictions, [`length_bias`]): a learner who picks the longest option should not
//!   beat chance; and a multi-answer card's right options are not all the longest
//!   ([`multi_answer_longest`]), where a learner ticking the longest wins the whole card;
//! - the file is TOML 1.0 ([`super::toml10`]), so authors can use their own tools.

use super::locate::Locator;
use super::{Deck, DeckError};
use crate::card::Card;
use crate::grader::choice_label;
use crate::rules_doc;

/// Most right answers one letter may hold, as a share of the deck's right answers.
pub const MAX_LETTER_SHARE: f64 = 0.40;
/// Below this many right answers a share says nothing, so the bias rule does not apply.
pub const MIN_ANSWERS_FOR_BIAS: usize = 5;
/// A go-deeper ladder has this many rungs.
pub const LADDER_RUNGS: std::ops::RangeInclusive<usize> = 3..=4;

pub fn check(deck: &Deck, text: &str) -> Vec<DeckError> {
    let loc = Locator::new(deck, text);
    let mut errors = Vec::new();
    for (i, card) in deck.cards.iter().enumerate() {
        references(&loc, i, card, &mut errors);
        ladder(&loc, i, card, &mut errors);
        letter_answer(&loc, i, card, &mut errors);
        stable_ids(&loc, i, card, &mut errors);
        tension_leak(&loc, i, card, &mut errors);
        multi_answer_longest(&loc, i, card, &mut errors);
        exactly_without_name(&loc, i, card, &mut errors);
        super::facts_tested::check(&loc, i, card, &mut errors);
    }
    if let Some(e) = position_bias(deck, &loc) {
        errors.push(e);
    }
    if let Some(b) = length_bias(choice_options(deck)) {
        errors.push(loc.at_line(
            1,
            format!(
                "deck `{}`: {b}; make the wrong options as long as the right one, or shorten the right one",
                deck.meta.id
            ),
        ));
    }
    for f in super::toml10::findings(text) {
        errors.push(DeckError {
            file: deck.source.clone(),
            line: f.line,
            column: f.column,
            message: format!(
                "{}: TOML 1.0 parsers refuse it, and authors check decks with their own tools; {}",
                f.what, f.fix
            ),
        });
    }
    errors
}

/// A `tension` banner is shown above the question: graded as an answer to its own card, it
/// must earn no required point, or copying it back passes. A choice card has no points, so
/// there the banner must not give a right option away ([`banner_gives_away`]).
fn tension_leak(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    let Some(banner) = card.tension.as_deref().filter(|t| !t.trim().is_empty()) else {
        return;
    };
    if card.kind.picks_options() {
        if let Some(words) = banner_gives_away(card, banner) {
            errors.push(loc.field(
                i,
                "tension",
                format!(
                    "card `{}`'s tension banner, shown above the question, gives its right option away: it says {}, which set that option apart from the wrong ones; say only that the texts disagree, not what they say",
                    card.id,
                    words
                        .iter()
                        .map(|w| format!("\"{w}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        return;
    }
    let g = crate::grader::grade(card, banner);
    let leaked: Vec<&str> = g
        .points
        .iter()
        .filter(|p| p.required && p.hit)
        .map(|p| p.label.as_str())
        .collect();
    if !leaked.is_empty() {
        errors.push(loc.field(
            i,
            "tension",
            format!(
                "card `{}`'s tension banner, shown above the question, states its answer: read as an answer it earns {}; say only that the texts disagree, not what they say",
                card.id,
                leaked
                    .iter()
                    .map(|l| format!("\"{l}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
}

/// The words of a text as the grader keys them (stemmed, synonym-classed), each with its first
/// spelling; function and generic words say nothing about which option is right, so they are
/// left out. Identifiers (`resultType`, `notifications/cancelled`, `-32602`) stay one word.
fn content_words(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for raw in text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.'))) {
        let w = raw.trim_matches(|c: char| matches!(c, '-' | '/' | '.'));
        if w.chars().count() < 2 || crate::grader::is_common_word(w) {
            continue;
        }
        let key = crate::grader::word_key(w);
        if !out.iter().any(|(k, _)| *k == key) {
            out.push((key, w.to_string()));
        }
    }
    out
}

/// Whether a choice card's `banner` gives a right option away: it uses at least half of the
/// words that option alone has (in no wrong option and not in the question, which is on screen
/// anyway), and at least two of them when the option has two or more. Returns the words used.
pub fn banner_gives_away(card: &Card, banner: &str) -> Option<Vec<String>> {
    let said: Vec<String> = content_words(banner).into_iter().map(|(k, _)| k).collect();
    let shared: Vec<String> = card
        .choices
        .iter()
        .filter(|o| !o.correct)
        .map(|o| o.text.as_str())
        .chain([card.question.as_str()])
        .flat_map(content_words)
        .map(|(k, _)| k)
        .collect();
    card.choices.iter().filter(|o| o.correct).find_map(|o| {
        let own: Vec<(String, String)> = content_words(&o.text)
            .into_iter()
            .filter(|(k, _)| !shared.contains(k))
            .collect();
        let used: Vec<String> = own
            .iter()
            .filter(|(k, _)| said.contains(k))
            .map(|(_, w)| w.clone())
            .collect();
        let leaks =
            !used.is_empty() && used.len() >= own.len().min(2) && used.len() * 2 >= own.len();
        leaks.then_some(used)
    })
}

/// A multi-answer choice card whose right options are all at least as long as every wrong one:
/// a learner who ticks the longest options gets the whole card right. Ties count, since the
/// learner then guesses between a few options instead of all of them.
fn multi_answer_longest(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    if !card.kind.picks_options() {
        return;
    }
    let len = |t: &str| t.trim().chars().count();
    let right: Vec<usize> = card
        .choices
        .iter()
        .filter(|o| o.correct)
        .map(|o| len(&o.text))
        .collect();
    let wrong: Vec<usize> = card
        .choices
        .iter()
        .filter(|o| !o.correct)
        .map(|o| len(&o.text))
        .collect();
    let (Some(&shortest_right), Some(&longest_wrong)) = (right.iter().min(), wrong.iter().max())
    else {
        return;
    };
    if right.len() >= 2 && shortest_right >= longest_wrong {
        errors.push(loc.card(
            i,
            format!(
                "multi-answer card `{}`: its {} right options are its {} longest (shortest right {shortest_right} characters, longest wrong {longest_wrong}), so ticking the longest wins; lengthen a wrong option or tighten a right one",
                card.id,
                right.len(),
                right.len()
            ),
        ));
    }
}

/// Words of a question that ask for a name: only then may a required point demand one exactly.
const ASKS_FOR_A_NAME: &[&str] = &[
    "name",
    "names",
    "named",
    "called",
    "exact",
    "exactly",
    "spell",
    "spelled",
    "spelt",
    "which method",
    "what method",
    "which notification",
    "what notification",
    "which header",
    "what header",
    "which headers",
    "what headers",
    "which http headers",
    "what goes in",
    "which key",
    "what key",
    "which field",
    "what field",
    "which code",
    "what code",
    "which error code",
    "what error code",
    "which value",
    "what value",
    "which identifier",
];

/// Whether `question` asks for a name (an identifier, a code, a header) in so many words.
pub fn asks_for_a_name(question: &str) -> bool {
    let q = question.to_lowercase();
    let words: Vec<&str> = q
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let text = format!(" {} ", words.join(" "));
    ASKS_FOR_A_NAME
        .iter()
        .any(|k| text.contains(&format!(" {k} ")))
}

/// "Exactly" only where the name is the question: a required point that demands an identifier
/// written exactly turns a right answer in other words into a fail.
fn exactly_without_name(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    if !card.kind.free_text() || asks_for_a_name(&card.question) {
        return;
    }
    for p in card.points.iter().filter(|p| p.required) {
        if p.label.to_lowercase().contains("exactly") {
            errors.push(loc.label(
                i,
                &p.label,
                format!(
                    "required point \"{}\" of card `{}` says \"exactly\" but the question does not ask for a name: make the point optional (a bonus for the exact name), or ask for the name in the question",
                    p.label, card.id
                ),
            ));
        }
    }
}

/// Most questions whose one right option is also the longest, as a share of those questions.
pub const MAX_LONGEST_SHARE: f64 = 0.40;

/// Options as shown (`texts`) and the indexes of the right ones, per question: when, over the
/// questions with one right option among three or more, the right option is strictly the
/// longest more often than [`MAX_LONGEST_SHARE`] (and at least [`MIN_ANSWERS_FOR_BIAS`]
/// questions count), what to report.
pub fn length_bias<'a>(
    questions: impl IntoIterator<Item = (Vec<&'a str>, Vec<usize>)>,
) -> Option<String> {
    let (mut counted, mut longest) = (0usize, 0usize);
    for (texts, right) in questions {
        let [r] = right[..] else {
            continue;
        };
        if texts.len() < 3 {
            continue;
        }
        counted += 1;
        let len = |k: usize| texts[k].trim().chars().count();
        if (0..texts.len()).all(|k| k == r || len(k) < len(r)) {
            longest += 1;
        }
    }
    if counted < MIN_ANSWERS_FOR_BIAS {
        return None;
    }
    let share = longest as f64 / counted as f64;
    (share > MAX_LONGEST_SHARE).then(|| {
        format!(
            "the right option is the longest in {longest} of its {counted} single-answer questions ({:.0}% > {:.0}%), so picking the longest beats chance",
            share * 100.0,
            MAX_LONGEST_SHARE * 100.0
        )
    })
}

fn references(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    let doc = rules_doc::doc();
    for r in &card.spec {
        if let Err(why) = doc.resolve(r) {
            errors.push(loc.card(
                i,
                format!(
                    "card `{}` cites a reference nobody can follow: {why}",
                    card.id
                ),
            ));
        }
    }
    for f in &card.red_flags {
        if let Err(why) = doc.resolve(&f.spec) {
            errors.push(loc.label(
                i,
                &f.label,
                format!(
                    "red flag \"{}\" of card `{}` cites a reference nobody can follow: {why}",
                    f.label, card.id
                ),
            ));
        }
    }
}

fn ladder(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    if !card.kind.free_text() {
        return;
    }
    let rungs = card.deeper.as_ref().map_or(0, |d| d.steps.len());
    if !LADDER_RUNGS.contains(&rungs) {
        errors.push(loc.card(
            i,
            format!(
                "{} card `{}` has {rungs} go-deeper rung(s); free-text cards need {}–{} under [cards.deeper] steps = [...], shallowest first",
                card.kind_name(),
                card.id,
                LADDER_RUNGS.start(),
                LADDER_RUNGS.end()
            ),
        ));
    }
}

/// `p3`, `f2`: the ids the loader gives a point or flag written without one.
pub fn is_positional(id: &str) -> bool {
    let mut c = id.chars();
    matches!(c.next(), Some('p' | 'f')) && !c.as_str().is_empty() && c.all(|d| d.is_ascii_digit())
}

fn stable_ids(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    let points = card.points.iter().map(|p| ("key point", &p.id, &p.label));
    let flags = card.red_flags.iter().map(|f| ("red flag", &f.id, &f.label));
    for (what, id, label) in points.chain(flags).filter(|(_, id, _)| is_positional(id)) {
        errors.push(loc.label(
            i,
            label,
            format!(
                "{what} \"{label}\" of card `{}` has no stable name (it would be `{id}` by position, which changes when a point is inserted): add `id = \"…\"`, a short name for the idea such as `ack-first`",
                card.id
            ),
        ));
    }
}

/// `(a)`, `(b) False`, `a and c`: letters that stop meaning anything once options are shuffled.
fn names_letters(text: &str) -> bool {
    let t = text.trim();
    let b = t.as_bytes();
    b.len() >= 3 && b[0] == b'(' && b[1].is_ascii_lowercase() && b[2] == b')'
}

fn letter_answer(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    if !card.kind.picks_options() {
        return;
    }
    if let Some(a) = card.answer.as_ref().filter(|a| names_letters(&a.text)) {
        errors.push(loc.card(
            i,
            format!(
                "choice card `{}` answers with a letter ({:?}); options are shown shuffled, so write the right option(s) in words",
                card.id,
                a.text.trim()
            ),
        ));
    }
}

/// The letters of every right option in the deck, in file order.
pub fn right_letters(deck: &Deck) -> Vec<String> {
    deck.cards
        .iter()
        .filter(|c| c.kind.picks_options())
        .flat_map(|c| {
            c.choices
                .iter()
                .enumerate()
                .filter(|(_, o)| o.correct)
                .map(|(k, _)| choice_label(k))
        })
        .collect()
}

fn position_bias(deck: &Deck, loc: &Locator<'_>) -> Option<DeckError> {
    let letters = right_letters(deck);
    if letters.len() < MIN_ANSWERS_FOR_BIAS {
        return None;
    }
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for l in &letters {
        *counts.entry(l.as_str()).or_default() += 1;
    }
    let (letter, n) = counts.iter().max_by_key(|(_, n)| **n)?;
    let share = *n as f64 / letters.len() as f64;
    (share > MAX_LETTER_SHARE).then(|| {
        loc.at_line(
            1,
            format!(
                "deck `{}`: {n} of its {} right answers sit on option ({letter}) ({:.0}% > {:.0}%); move right options to other positions",
                deck.meta.id,
                letters.len(),
                share * 100.0,
                MAX_LETTER_SHARE * 100.0
            ),
        )
    })
}

/// Each choice card's options as shown and the indexes of its right ones.
fn choice_options(deck: &Deck) -> impl Iterator<Item = (Vec<&str>, Vec<usize>)> {
    deck.cards
        .iter()
        .filter(|c| c.kind.picks_options())
        .map(|c| {
            let texts: Vec<&str> = c.choices.iter().map(|o| o.text.as_str()).collect();
            let right: Vec<usize> = (0..c.choices.len())
                .filter(|&k| c.choices[k].correct)
                .collect();
            (texts, right)
        })
}

/// [`length_bias`] over the choice cards of several decks together: a learner meets the
/// built-in decks one after another, so a habit the decks share shows even when each deck has
/// too few choice cards to judge alone.
pub fn decks_length_bias(decks: &[Deck]) -> Option<DeckError> {
    length_bias(decks.iter().flat_map(choice_options)).map(|b| DeckError {
        file: "decks/".into(),
        line: 0,
        column: 0,
        message: format!(
            "the choice cards of the built-in decks together: {b}; make the wrong options as long as the right one, or shorten the right one"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_asks_for_a_name_in_so_many_words() {
        assert!(asks_for_a_name(
            "Name the notification that opens a stream."
        ));
        assert!(asks_for_a_name("Which HTTP headers must the POST carry?"));
        assert!(asks_for_a_name("What is that message called?"));
        assert!(!asks_for_a_name(
            "What must a server send first on a listen stream?"
        ));
        assert!(!asks_for_a_name("Why does the renamed field matter?"));
    }

    #[test]
    fn length_bias_counts_single_answer_questions_of_three_options_or_more() {
        let q = |right: usize| {
            (
                vec!["short", "a much longer option", "mid one"],
                vec![right],
            )
        };
        // The longest is right in 3 of 5: reported.
        let b = length_bias([q(1), q(1), q(1), q(0), q(2)]).expect("biased");
        assert!(b.contains("longest in 3 of its 5"), "{b}");
        // 2 of 5 is 40%, not more: fine.
        assert_eq!(length_bias([q(1), q(1), q(0), q(0), q(2)]), None);
        // Too few questions to judge; two-option and multi-answer questions do not count.
        assert_eq!(length_bias([q(1), q(1), q(1), q(1)]), None);
        let tf = (vec!["True", "False, it is longer"], vec![1]);
        let multi = (vec!["a", "bb", "ccc"], vec![1, 2]);
        assert_eq!(
            length_bias([q(1), q(1), q(1), q(0), tf, multi]),
            None,
            "3 of 4 counted questions, below the minimum of 5"
        );
        // A tie for longest is not a tell.
        let tie = || (vec!["same length", "same length", "x"], vec![0]);
        assert_eq!(length_bias([tie(), tie(), tie(), tie(), tie()]), None);
    }
}
