//! Concept groups and their phrases, matched word by word against the analysed answer.

use super::super::text::{Analysis, Token, is_stopword, typo_close};
use super::polarity::{NEGATIONS, is_negation};

/// One word of a concept alternative, analysed like the answer's words.
#[derive(Debug, Clone)]
pub(super) struct Word {
    norm: String,
    stem: String,
    canon: String,
    plain: bool,
}

/// One alternative of a group: a word or a phrase.
#[derive(Debug, Clone)]
pub struct Phrase {
    words: Vec<Word>,
}

/// `a|b|c`: any one alternative satisfies the group.
#[derive(Debug, Clone)]
pub struct Group {
    alts: Vec<Phrase>,
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
    fn parse(text: &str) -> Phrase {
        let a = Analysis::new(text);
        let all: Vec<Word> = a
            .tokens
            .iter()
            .map(|t| Word {
                norm: t.norm.clone(),
                stem: t.stem.clone(),
                canon: t.canon.clone(),
                plain: t.plain_word,
            })
            .collect();
        // Function words are optional in a phrase ("end of the stream" = "end of stream"),
        // unless the phrase is nothing but function words or denies something: "can not"
        // must not shrink to a bare "not".
        let denies = all
            .iter()
            .any(|w| NEGATIONS.contains(&w.norm.as_str()) || w.norm.ends_with("n't"));
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
        Phrase { words }
    }
}

pub(super) fn word_matches(t: &Token, w: &Word, typos: bool) -> bool {
    t.canon == w.canon
        || t.norm == w.norm
        || (typos
            && t.plain_word
            && w.plain
            && (typo_close(&t.stem, &w.stem) || typo_close(&t.norm, &w.norm)))
}

/// Token range `[start, end)` of one occurrence, plus whether it was matched as written.
#[derive(Debug, Clone, Copy)]
pub struct Occurrence {
    pub first: usize,
    pub last: usize,
}

/// Where `p` matches starting at token `i`, within `i`'s claim.
pub(super) fn phrase_at(a: &Analysis, i: usize, p: &Phrase, typos: bool) -> Option<Occurrence> {
    let toks = &a.tokens;
    let claim = toks.get(i)?.claim;
    let same = |j: usize| toks.get(j).is_some_and(|t| t.claim == claim);
    let (mut j, mut w) = (i, 0);
    let (mut stops, mut others) = (0, 0);
    while w < p.words.len() {
        if !same(j) {
            return None;
        }
        let t = &toks[j];
        let word = &p.words[w];
        if word_matches(t, word, typos) {
            j += 1;
            w += 1;
            (stops, others) = (0, 0);
            continue;
        }
        // Compounds: "keep-alive" vs "keepalive", "subscription id" vs "subscriptionId".
        if let Some(next) = p.words.get(w + 1) {
            if t.norm == format!("{}{}", word.norm, next.norm) {
                j += 1;
                w += 2;
                (stops, others) = (0, 0);
                continue;
            }
        }
        if same(j + 1) && format!("{}{}", t.norm, toks[j + 1].norm) == word.norm {
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
        } else if others == 0 && !is_negation(a, j) {
            others += 1;
        } else {
            return None;
        }
        j += 1;
    }
    Some(Occurrence {
        first: i,
        last: j - 1,
    })
}

/// Every occurrence of any alternative of `g` in claim `s`.
pub(super) fn group_occurrences(a: &Analysis, g: &Group, s: usize, typos: bool) -> Vec<Occurrence> {
    group_occurrences_in(a, g, s, s, typos)
}

/// Every occurrence of any alternative of `g` in claims `s..=last`.
pub(super) fn group_occurrences_in(
    a: &Analysis,
    g: &Group,
    s: usize,
    last: usize,
    typos: bool,
) -> Vec<Occurrence> {
    let mut out = Vec::new();
    // Tokens are in claim order: only those claims are scanned.
    let from = a.tokens.partition_point(|t| t.claim < s);
    let to = a.tokens.partition_point(|t| t.claim <= last);
    for i in from..to {
        for alt in &g.alts {
            if let Some(o) = phrase_at(a, i, alt, typos) {
                out.push(o);
                break;
            }
        }
    }
    out
}
