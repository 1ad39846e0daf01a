//! Accountability: every statement of an answer is credited to a point, flagged, recognised as
//! true, or left unchecked.
//!
//! What the library teaches as true (every card's answers, ladders, explanations and
//! corrections, the catalogue's truths, the facts) is cut into sentences once. A statement of
//! the answer is recognised when its words, those the rubric did not already account for,
//! all stand in one true sentence, with the same stance (denied or affirmed) there. What is
//! left is **unchecked**: the grader says so and is not sure of its verdict, instead of passing
//! a claim it knows nothing about ("...and it resends the whole tools list in the ack").

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use super::idents::{near_miss, protocol_identifiers};
use super::lexicon::lexicon;
use super::segment::{Segments, Token};
use super::stance::{Stance, is_negation};
use super::verdict::{Span, Unchecked};
use super::words::{is_stopword, typo_close, word_key};
use crate::card::Card;

/// A unit's number in the truths, and whether its clause denies it.
type Unit = (u32, bool);

/// The truths an answer is recognised against: every pair of units that stands together in
/// one true sentence, with each unit's stance there.
#[derive(Debug, Default)]
pub struct Truths {
    ids: HashMap<String, u32>,
    /// Units by first letter, for misspelt words.
    by_letter: HashMap<char, Vec<(String, u32)>>,
    /// Units stated alone (a sentence with one unit), and pairs stated together.
    singles: HashSet<Unit>,
    pairs: HashSet<(Unit, Unit)>,
    /// Every protocol identifier the truths write (lower case).
    identifiers: HashSet<String>,
}

/// The unit a word counts as: its synonym class, or (for identifiers, numbers) the word as
/// written in lower case. `None` for words that say nothing checkable.
fn unit(s: &Segments, i: usize, generic: &HashSet<String>) -> Option<String> {
    let t: &Token = s.tokens.get(i)?;
    if is_stopword(&t.norm) || is_negation(s, i) || generic.contains(&t.canon) {
        return None;
    }
    if t.norm.contains('\'') && generic.contains(&t.norm) {
        return None;
    }
    // One-digit numbers in an answer are line numbers and small ids, not claims.
    if t.norm.len() == 1 && t.norm.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(if t.plain {
        t.canon.clone()
    } else {
        t.norm.clone()
    })
}

fn generic() -> &'static HashSet<String> {
    static G: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        lexicon()
            .generic
            .iter()
            .flat_map(|w| [word_key(w), w.to_lowercase()])
            .collect()
    })
}

fn pair(a: Unit, b: Unit) -> (Unit, Unit) {
    if a <= b { (a, b) } else { (b, a) }
}

impl Truths {
    pub fn build<'a>(texts: impl IntoIterator<Item = &'a str>) -> Truths {
        let g = generic();
        let mut t = Truths::default();
        for text in texts {
            for (id, _, _) in protocol_identifiers(text) {
                t.identifiers.insert(id);
            }
            let s = Segments::new(text);
            let st = Stance::of(&s);
            let mut sentence: Vec<Unit> = Vec::new();
            let mut current = usize::MAX;
            for i in 0..s.tokens.len() {
                let tok = &s.tokens[i];
                if tok.sentence != current {
                    t.add_sentence(&sentence);
                    sentence.clear();
                    current = tok.sentence;
                }
                let Some(u) = unit(&s, i, g) else { continue };
                let id = t.intern(&u);
                let unit = (id, st.negated(&s, tok.clause));
                if !sentence.contains(&unit) {
                    sentence.push(unit);
                }
            }
            t.add_sentence(&sentence);
        }
        t
    }

    fn intern(&mut self, u: &str) -> u32 {
        if let Some(&id) = self.ids.get(u) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(u.to_string(), id);
        if let Some(c) = u.chars().next() {
            self.by_letter
                .entry(c)
                .or_default()
                .push((u.to_string(), id));
        }
        id
    }

    fn add_sentence(&mut self, units: &[Unit]) {
        if let [one] = units {
            self.singles.insert(*one);
        }
        for (k, &a) in units.iter().enumerate() {
            self.singles.insert(a);
            for &b in &units[k + 1..] {
                self.pairs.insert(pair(a, b));
            }
        }
    }

    /// Whether the truths write this word (by its synonym class) as it is.
    pub fn has_word(&self, canon: &str) -> bool {
        self.ids.contains_key(canon)
    }

    /// The id of a unit the truths use, forgiving a small misspelling of a plain word.
    fn known(&self, u: &str) -> Option<u32> {
        if let Some(&id) = self.ids.get(u) {
            return Some(id);
        }
        if !u.chars().all(char::is_alphabetic) || u.chars().count() < 5 {
            return None;
        }
        let c = u.chars().next()?;
        self.by_letter
            .get(&c)?
            .iter()
            .find(|(w, _)| typo_close(u, w))
            .map(|&(_, id)| id)
    }

    /// The units of a statement no truth vouches for: an unknown unit, or one that stands in
    /// no true sentence with any other unit of the statement, with the same stance.
    fn unvouched(&self, units: &[(String, bool)]) -> Vec<String> {
        let known: Vec<Option<Unit>> = units
            .iter()
            .map(|(u, d)| self.known(u).map(|id| (id, *d)))
            .collect();
        let mut out = Vec::new();
        for (k, (u, _)) in units.iter().enumerate() {
            let Some(a) = known[k] else {
                out.push(u.clone());
                continue;
            };
            let vouched = if units.len() == 1 {
                self.singles.contains(&a)
            } else {
                known
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .filter_map(|(_, b)| *b)
                    .any(|b| self.pairs.contains(&pair(a, b)))
            };
            if !vouched {
                out.push(u.clone());
            }
        }
        out
    }
}

/// The texts of a card that state what is true: for a card graded outside a library.
pub fn card_texts(card: &Card) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    out.extend(card.basics.iter().map(|b| b.text.clone()));
    out.extend(card.answer.iter().map(|b| b.text.clone()));
    if let Some(d) = &card.deeper {
        out.extend(d.steps.iter().cloned());
        out.push(d.explanation.clone());
    }
    out.extend(card.points.iter().map(|p| p.label.clone()));
    out.extend(card.red_flags.iter().map(|f| f.correction.clone()));
    out.extend(
        card.choices
            .iter()
            .filter(|c| c.correct)
            .map(|c| c.text.clone()),
    );
    out.extend(card.choices.iter().map(|c| c.why.clone()));
    out.push(card.question.clone());
    out.extend(card.transcript.iter().map(|t| t.text.clone()));
    out
}

/// The library's texts and their truths, built once.
type Library = (Arc<Vec<String>>, Rc<Truths>);

/// The truths for `card`: the library's when the card came from one, else its own texts.
/// Built once per thread per library.
pub fn truths_for(card: &Card) -> Rc<Truths> {
    thread_local! {
        static LIBRARY: RefCell<Option<Library>> = const { RefCell::new(None) };
        static OWN: RefCell<HashMap<String, Rc<Truths>>> = RefCell::new(HashMap::default());
    }
    if !card.truths.is_empty() {
        return LIBRARY.with(|l| {
            if let Some((texts, t)) = &*l.borrow()
                && Arc::ptr_eq(texts, &card.truths)
            {
                return t.clone();
            }
            let built = Rc::new(Truths::build(card.truths.iter().map(String::as_str)));
            *l.borrow_mut() = Some((card.truths.clone(), built.clone()));
            built
        });
    }
    let texts = card_texts(card);
    let key = format!("{}\u{0}{}", card.id, texts.join("\u{0}"));
    OWN.with(|o| {
        if let Some(t) = o.borrow().get(&key) {
            return t.clone();
        }
        let built = Rc::new(Truths::build(texts.iter().map(String::as_str)));
        o.borrow_mut().insert(key, built.clone());
        built
    })
}

/// The statements of the answer that nothing accounts for. `accounted` holds the tokens of
/// every credited point and raised flag.
pub fn unchecked(
    answer: &str,
    s: &Segments,
    st: &Stance,
    truths: &Truths,
    accounted: &[usize],
    known: &[String],
) -> Vec<Unchecked> {
    let g = generic();
    let accounted: HashSet<usize> = accounted.iter().copied().collect();
    // Identifiers nobody in the library writes (`notifications/subscriptions/closed`,
    // `-32003`, `Mcp-Tools-Version`): a near miss of a known one is reported as such instead.
    let invented: Vec<(String, usize)> = protocol_identifiers(s.norm())
        .into_iter()
        .filter(|(id, _, _)| !truths.identifiers.contains(id))
        .filter(|(id, _, _)| {
            !known
                .iter()
                .any(|k| k.eq_ignore_ascii_case(id) || near_miss(id, k))
        })
        .map(|(id, start, _)| (id, s.claim_of(start)))
        .collect();
    let mut out = Vec::new();
    for claim in 1..=s.claim_count() {
        let r = s.claim_range(claim);
        if r.is_empty() || st.question(claim) || st.attributed(claim) {
            continue;
        }
        let mut units: Vec<(String, bool)> = Vec::new();
        for i in r.clone() {
            if accounted.contains(&i) {
                continue;
            }
            let Some(u) = unit(s, i, g) else { continue };
            let denied = st.negated(s, s.tokens[i].clause);
            if !units.iter().any(|(x, d)| *x == u && *d == denied) {
                units.push((u, denied));
            }
        }
        let mut unvouched = truths.unvouched(&units);
        unvouched.extend(
            invented
                .iter()
                .filter(|(_, c)| *c == claim)
                .map(|(id, _)| format!("`{id}`")),
        );
        if unvouched.is_empty() {
            continue;
        }
        // The quote starts at what is stated: "but the ack carries ..." from "the".
        let from = r
            .clone()
            .find(|&i| !lexicon().claim_openers.has(&s.tokens[i].norm))
            .unwrap_or(r.start);
        let (Some(first), Some(last)) = (s.tokens.get(from), s.tokens.get(r.end - 1)) else {
            continue;
        };
        let (a, b) = s.original(first.start, last.end);
        let span = Span::of(answer, a, b);
        out.push(Unchecked {
            text: span.text.clone(),
            span,
            novel: unvouched,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(truths: &[&str], answer: &str) -> Vec<String> {
        let t = Truths::build(truths.iter().copied());
        let s = Segments::new(answer);
        let st = Stance::of(&s);
        unchecked(answer, &s, &st, &t, &[], &[])
            .into_iter()
            .map(|u| u.text)
            .collect()
    }

    #[test]
    fn a_statement_of_the_truths_is_recognised_in_other_words() {
        let truths = ["The server MUST send the acknowledgement first. Nothing is replayed."];
        assert!(check(&truths, "The server has to send the ack first.").is_empty());
        assert!(check(&truths, "It does not replay anything.").is_empty());
        assert!(check(&truths, "Yes, basically.").is_empty());
    }

    #[test]
    fn a_new_claim_or_a_flipped_one_is_unchecked() {
        let truths = ["The server MUST send the acknowledgement first. Nothing is replayed."];
        let u = check(
            &truths,
            "The ack comes first. It also carries a sequence number.",
        );
        assert_eq!(u, vec!["It also carries a sequence number"]);
        let u = check(&truths, "Missed changes are replayed.");
        assert_eq!(u.len(), 1, "{u:?}");
    }

    #[test]
    fn questions_and_reported_views_state_nothing() {
        let truths = ["Nothing is replayed."];
        assert!(check(&truths, "Does it carry a sequence number?").is_empty());
        assert!(check(&truths, "Some people think it carries a sequence number.").is_empty());
    }
}
