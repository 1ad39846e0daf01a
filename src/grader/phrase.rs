//! A match group (`"ack|acknowledgement|confirmation message"`) compiled into phrases of
//! analysed words, and how one phrase matches the answer at a given word.

use super::segment::{Segments, Token};
use super::stance::is_negation;
use super::words::{is_stopword, typo_close};

/// One word of a phrase, analysed like the answer's words.
#[derive(Debug, Clone)]
pub struct Word {
    pub norm: String,
    pub stem: String,
    pub canon: String,
    pub plain: bool,
}

impl Word {
    fn of(t: &Token) -> Word {
        Word {
            norm: t.norm.clone(),
            stem: t.stem.clone(),
            canon: t.canon.clone(),
            plain: t.plain,
        }
    }
}

/// One alternative of a group: a word or a phrase.
#[derive(Debug, Clone)]
pub struct Phrase {
    pub words: Vec<Word>,
    /// The alternative as the deck writes it.
    pub source: String,
}

/// `a|b|c`: any one alternative satisfies the group.
#[derive(Debug, Clone, Default)]
pub struct Group {
    pub alts: Vec<Phrase>,
}

impl Group {
    pub fn parse(spec: &str) -> Group {
        let alts = spec
            .split('|')
            .map(Phrase::parse)
            .filter(|p| !p.words.is_empty())
            .collect();
        Group { alts }
    }

    pub fn is_empty(&self) -> bool {
        self.alts.is_empty()
    }
}

impl Phrase {
    pub fn parse(text: &str) -> Phrase {
        let s = Segments::new(text);
        let all: Vec<Word> = s.tokens.iter().map(Word::of).collect();
        // Function words are optional in a phrase ("end of the stream" = "end of stream"),
        // unless the phrase is nothing but function words or denies something: "can not" must
        // not shrink to a bare "not".
        let denies = (0..s.tokens.len()).any(|i| is_negation(&s, i));
        let content: Vec<Word> = all
            .iter()
            .filter(|w| !is_stopword(&w.norm))
            .cloned()
            .collect();
        // Nor may a phrase shrink to one bare word: "is for stdio" says what stdio is for, and
        // must not match every "stdio". Articles still go ("the stream" is any "stream").
        let unarticled: Vec<Word> = all
            .iter()
            .filter(|w| !matches!(w.norm.as_str(), "a" | "an" | "the"))
            .cloned()
            .collect();
        let words = if content.is_empty() || denies {
            all
        } else if content.len() == 1 && unarticled.len() > 1 {
            unarticled
        } else {
            content
        };
        Phrase {
            words,
            source: text.trim().to_string(),
        }
    }

    /// Whether the phrase holds a negation word of its own ("no longer", "cannot tell").
    pub fn denies(&self) -> bool {
        let text: Vec<&str> = self.words.iter().map(|w| w.norm.as_str()).collect();
        let s = Segments::new(&text.join(" "));
        (0..s.tokens.len()).any(|i| is_negation(&s, i))
    }
}

/// Whether answer word `t` is phrase word `w`: the same synonym class or written the same,
/// or (when `typos`) a small misspelling of a plain word.
pub fn word_matches(t: &Token, w: &Word, typos: bool) -> bool {
    t.canon == w.canon
        || t.norm == w.norm
        || (typos
            && t.plain
            && w.plain
            && (typo_close(&t.stem, &w.stem) || typo_close(&t.norm, &w.norm)))
}

/// One occurrence of a phrase: tokens `first..=last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub first: usize,
    pub last: usize,
    /// Found only by forgiving a misspelling: good enough for a key point, never for a red
    /// flag.
    pub typo: bool,
    /// Which alternative of its group matched (for `decks check`'s report of alternatives
    /// nothing uses).
    pub alt: usize,
}

/// Where `p` matches starting at token `i`, within `i`'s claim. `typos(j)` says whether token
/// `j` may be a misspelling (asked only when it matches no phrase word as written).
pub fn phrase_at(
    s: &Segments,
    i: usize,
    p: &Phrase,
    typos: &dyn Fn(usize) -> bool,
) -> Option<Occurrence> {
    let toks = &s.tokens;
    let claim = toks.get(i)?.claim;
    let same = |j: usize| toks.get(j).is_some_and(|t| t.claim == claim);
    let (mut j, mut w) = (i, 0);
    let (mut stops, mut others) = (0, 0);
    let mut typo = false;
    while w < p.words.len() {
        if !same(j) {
            return None;
        }
        let t = &toks[j];
        let word = &p.words[w];
        let exact = word_matches(t, word, false);
        if exact || (typos(j) && word_matches(t, word, true)) {
            typo |= !exact;
            j += 1;
            w += 1;
            (stops, others) = (0, 0);
            continue;
        }
        // Compounds: "keep-alive" vs "keepalive", "subscription id" vs "subscriptionId".
        if let Some(next) = p.words.get(w + 1)
            && t.norm.len() == word.norm.len() + next.norm.len()
            && t.norm.starts_with(&word.norm)
            && t.norm.ends_with(&next.norm)
        {
            j += 1;
            w += 2;
            (stops, others) = (0, 0);
            continue;
        }
        if same(j + 1)
            && word.norm.len() == t.norm.len() + toks[j + 1].norm.len()
            && word.norm.starts_with(&t.norm)
            && word.norm.ends_with(&toks[j + 1].norm)
        {
            j += 2;
            w += 1;
            (stops, others) = (0, 0);
            continue;
        }
        if w == 0 {
            return None;
        }
        // Between phrase words an answer may add a function word or two and one other word
        // ("before any change notification" for "before notification"), never a negation.
        if is_stopword(&t.norm) && stops < 2 {
            stops += 1;
        } else if others == 0 && !is_negation(s, j) {
            others += 1;
        } else {
            return None;
        }
        j += 1;
    }
    Some(Occurrence {
        first: i,
        last: j - 1,
        typo,
        alt: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(answer: &str, phrase: &str) -> Option<(usize, usize)> {
        let s = Segments::new(answer);
        let p = Phrase::parse(phrase);
        (0..s.tokens.len())
            .find_map(|i| phrase_at(&s, i, &p, &|_| true))
            .map(|o| (o.first, o.last))
    }

    #[test]
    fn phrases_forgive_function_words_forms_and_compounds() {
        assert!(at("it ends the stream", "end of the stream").is_some());
        assert!(at("before any notification", "before notification").is_some());
        assert!(at("a keepalive comment", "keep-alive").is_some());
        assert!(at("the subscriptionId key", "subscription id").is_some());
        assert!(at("acknowleged first", "acknowledged").is_some());
        assert!(at("not before the notification", "before notification").is_some());
        assert!(at("before it is not a notification", "before notification").is_none());
        assert!(at("is for stdio", "is for stdio").is_some());
        assert!(at("stdio", "is for stdio").is_none());
    }
}
