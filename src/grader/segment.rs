//! Stage 2: the normalised text cut into words, sentences, claims and clauses.
//!
//! - A **sentence** ends at `.`, `!` or `?` (not after an abbreviation), or before a list item.
//! - A **claim** is a statement judged on its own: a sentence cut further at `;`, at a new
//!   line, and before a contrast, concession or condition ("but", "however", ", then", ...).
//!   A reason ("because ...") or a consequence stays in its claim: "X because Y" is one
//!   statement. Every part of a red flag must stand in one claim.
//! - A **clause** is the scope of a negation or a guard: a claim cut further at commas,
//!   colons, dashes, closing parentheses and conjunctions.

use super::lexicon::lexicon;
use super::normalise::Text;
use super::words::{canon, stem};

/// One word of the answer.
#[derive(Debug, Clone)]
pub struct Token {
    /// Byte range in [`Text::norm`].
    pub start: usize,
    pub end: usize,
    /// Lower-cased NFKC form.
    pub norm: String,
    pub stem: String,
    /// Synonym class (the stem of the group's head word), or the stem itself.
    pub canon: String,
    /// Only letters, lower case after the first: typo tolerance applies to these alone, never
    /// to identifiers like `subscriptionId` or `-32602`.
    pub plain: bool,
    pub sentence: usize,
    pub claim: usize,
    pub clause: usize,
}

/// The answer, normalised and segmented.
#[derive(Debug, Clone, Default)]
pub struct Segments {
    pub text: Text,
    pub tokens: Vec<Token>,
    sentence_starts: Vec<usize>,
    claim_starts: Vec<usize>,
    clause_starts: Vec<usize>,
    /// Sentences that end with `?`: a question asserts nothing.
    questions: Vec<usize>,
    /// For each claim, the range of its tokens.
    claim_tokens: Vec<(usize, usize)>,
    /// For each clause, the range of its tokens.
    clause_tokens: Vec<(usize, usize)>,
}

/// Where sentences, claims and clauses start (byte offsets), and which sentences are questions.
struct Breaks {
    sentences: Vec<usize>,
    claims: Vec<usize>,
    clauses: Vec<usize>,
    questions: Vec<usize>,
}

/// The breaks punctuation makes: sentence ends, new lines, semicolons, asides.
fn punctuation_breaks(norm: &str, chars: &[(usize, char)]) -> Breaks {
    let mut b = Breaks {
        sentences: vec![0],
        claims: vec![0],
        clauses: vec![0],
        questions: Vec::new(),
    };
    for (k, &(_, c)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|&(_, n)| n);
        let after = chars.get(k + 1).map_or(norm.len(), |&(i, _)| i);
        match c {
            '.' | '!' | '?'
                if next.is_none_or(char::is_whitespace)
                    && !(c == '.' && after_abbreviation(&chars[..k])) =>
            {
                if c == '?' {
                    b.questions.push(b.sentences.len());
                }
                b.sentences.push(after);
                b.claims.push(after);
                b.clauses.push(after);
            }
            '\n' => {
                if starts_new_item(&chars[k + 1..]) {
                    b.sentences.push(after);
                }
                b.claims.push(after);
                b.clauses.push(after);
            }
            ';' => {
                b.claims.push(after);
                b.clauses.push(after);
            }
            // An aside, a colon or a dash elaborates its claim: a new clause, the same
            // claim. A parenthesis qualifies what stands before it ("close the stream
            // (http)"): the clause ends after it, and what is inside is a clause of its own.
            ',' | ')' | '(' | '\u{2013}' | '\u{2014}' => {
                b.clauses.push(if c == '(' { chars[k].0 } else { after });
            }
            ':' if next.is_none_or(char::is_whitespace) => {
                b.clauses.push(after);
            }
            '-' if next == Some(' ')
                && k > 0
                && chars.get(k - 1).is_some_and(|&(_, p)| p == ' ') =>
            {
                b.clauses.push(after);
            }
            _ => {}
        }
    }
    b
}

/// Words: runs of letters and digits, with inner apostrophes ("isn't").
fn words(norm: &str, chars: &[(usize, char)]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        if !is_word_char(chars[k].1) {
            k += 1;
            continue;
        }
        let start = chars[k].0;
        let mut j = k;
        loop {
            while j < chars.len() && is_word_char(chars[j].1) {
                j += 1;
            }
            let apostrophe =
                j + 1 < chars.len() && chars[j].1 == '\'' && is_word_char(chars[j + 1].1);
            if apostrophe {
                j += 1;
            } else {
                break;
            }
        }
        let end = chars.get(j).map_or(norm.len(), |&(i, _)| i);
        let raw = &norm[start..end];
        let plain =
            raw.chars().all(char::is_alphabetic) && raw.chars().skip(1).all(|c| !c.is_uppercase());
        let lower = raw.to_lowercase();
        let stem = stem(&lower);
        let canon = canon(&stem);
        tokens.push(Token {
            start,
            end,
            norm: lower,
            stem,
            canon,
            plain,
            sentence: 0,
            claim: 0,
            clause: 0,
        });
        k = j;
    }
    tokens
}

/// The breaks words make: clause openers ("because", "which") and words that open a new claim.
fn word_breaks(tokens: &[Token], norm: &str, b: &mut Breaks) {
    let lex = lexicon();
    for (i, t) in tokens.iter().enumerate() {
        // "nothing but JSON-RPC" is one thought ("only JSON-RPC"), not two clauses.
        let idiom = t.norm == "but" && i > 0 && lex.but_idioms.has(&tokens[i - 1].norm);
        if idiom {
            continue;
        }
        if lex.clause_openers.has(&t.norm) {
            b.clauses.push(t.start);
        }
        if opens_claim(tokens, i, norm) {
            b.claims.push(t.start);
            b.clauses.push(t.start);
        }
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

impl Segments {
    pub fn new(answer: &str) -> Segments {
        Segments::of(Text::new(answer))
    }

    pub fn of(text: Text) -> Segments {
        let chars: Vec<(usize, char)> = text.norm.char_indices().collect();
        let mut b = punctuation_breaks(&text.norm, &chars);
        let tokens = words(&text.norm, &chars);
        word_breaks(&tokens, &text.norm, &mut b);
        for v in [&mut b.sentences, &mut b.claims, &mut b.clauses] {
            v.sort_unstable();
            v.dedup();
        }
        let mut s = Segments {
            text,
            tokens,
            sentence_starts: b.sentences,
            claim_starts: b.claims,
            clause_starts: b.clauses,
            questions: b.questions,
            claim_tokens: Vec::new(),
            clause_tokens: Vec::new(),
        };
        for i in 0..s.tokens.len() {
            let at = s.tokens[i].start;
            s.tokens[i].sentence = s.sentence_of(at);
            s.tokens[i].claim = s.claim_of(at);
            s.tokens[i].clause = s.clause_of(at);
        }
        s.claim_tokens = ranges(&s.tokens, s.claim_starts.len() + 1, |t| t.claim);
        s.clause_tokens = ranges(&s.tokens, s.clause_starts.len() + 1, |t| t.clause);
        s
    }

    pub fn norm(&self) -> &str {
        &self.text.norm
    }

    pub fn sentence_of(&self, at: usize) -> usize {
        self.sentence_starts.partition_point(|&s| s <= at)
    }

    pub fn claim_of(&self, at: usize) -> usize {
        self.claim_starts.partition_point(|&s| s <= at)
    }

    pub fn clause_of(&self, at: usize) -> usize {
        self.clause_starts.partition_point(|&s| s <= at)
    }

    /// Claims are numbered from 1 to `claim_count()`.
    pub fn claim_count(&self) -> usize {
        self.claim_starts.len()
    }

    /// Clauses are numbered from 1 to `clause_count()`.
    pub fn clause_count(&self) -> usize {
        self.clause_starts.len()
    }

    /// The tokens of claim `c`, as an index range.
    pub fn claim_range(&self, c: usize) -> std::ops::Range<usize> {
        let (s, e) = self.claim_tokens.get(c).copied().unwrap_or((0, 0));
        s..e
    }

    /// The tokens of clause `c`, as an index range.
    pub fn clause_range(&self, c: usize) -> std::ops::Range<usize> {
        let (s, e) = self.clause_tokens.get(c).copied().unwrap_or((0, 0));
        s..e
    }

    pub fn is_question(&self, sentence: usize) -> bool {
        self.questions.contains(&sentence)
    }

    /// Index of the first token whose start is `>= at`.
    pub fn token_at(&self, at: usize) -> usize {
        self.tokens.partition_point(|t| t.start < at)
    }

    /// A byte range of the normalised text as a byte range of the original answer.
    pub fn original(&self, start: usize, end: usize) -> (usize, usize) {
        self.text.original(start, end)
    }
}

/// For each unit numbered `0..n`, the token range it covers (tokens are in order).
fn ranges(tokens: &[Token], n: usize, unit: impl Fn(&Token) -> usize) -> Vec<(usize, usize)> {
    let mut out = vec![(0, 0); n + 1];
    let mut i = 0;
    while i < tokens.len() {
        let u = unit(&tokens[i]);
        let start = i;
        while i < tokens.len() && unit(&tokens[i]) == u {
            i += 1;
        }
        if let Some(slot) = out.get_mut(u) {
            *slot = (start, i);
        }
    }
    out
}

/// Whether token `i` opens a claim: a claim opener or ", then". A relative clause
/// (", which ..."), a consequence (", so ...") or a sequence ("first ... and then ...") stays
/// in its claim: it says more about the same thing.
fn opens_claim(tokens: &[Token], i: usize, norm: &str) -> bool {
    let t = &tokens[i];
    if i == 0 {
        return false;
    }
    if lexicon().claim_openers.has(&t.norm) {
        // "rather than"/"instead of" contrast a phrase, not a claim: keep them in theirs.
        if t.norm == "instead" && tokens.get(i + 1).is_some_and(|n| n.norm == "of") {
            return false;
        }
        // An adverb in mid-clause ("the ack does however carry ...", "it would, though") opens
        // nothing; after a stop or a comma it does ("..., however, the client ...").
        let after_break = norm[..t.start]
            .trim_end()
            .ends_with([',', ';', ':', '(', '\u{2014}', '\u{2013}']);
        // "Servers, though, MUST implement it": set off by commas on both sides, an aside.
        let aside = norm[t.end..].trim_start().starts_with(',');
        return !lexicon().adverb_openers.has(&t.norm) || (after_break && !aside);
    }
    t.norm == "then" && norm[..t.start].trim_end().ends_with(',')
}

/// Whether the text before a `.` ends with an abbreviation ("e.g.", "vs."), which ends no
/// sentence.
fn after_abbreviation(before: &[(usize, char)]) -> bool {
    let word: String = before
        .iter()
        .rev()
        .map(|&(_, c)| c)
        .take_while(|c| c.is_alphabetic() || *c == '.')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<String>()
        .to_lowercase();
    lexicon().abbreviations.has(&word)
}

/// After a newline, a bullet or a numbered item (or a blank line) starts a new statement.
fn starts_new_item(rest: &[(usize, char)]) -> bool {
    let mut it = rest
        .iter()
        .map(|&(_, c)| c)
        .skip_while(|c| *c == ' ' || *c == '\t');
    match it.next() {
        None | Some('\n') | Some('-') | Some('*') | Some('\u{2022}') | Some('+') => true,
        Some(c) if c.is_ascii_digit() => {
            let mut it = it.skip_while(char::is_ascii_digit);
            matches!(it.next(), Some('.') | Some(')'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(s: &Segments, w: &str) -> usize {
        s.tokens.iter().find(|t| t.norm == w).unwrap().claim
    }

    fn clause(s: &Segments, w: &str) -> usize {
        s.tokens.iter().find(|t| t.norm == w).unwrap().clause
    }

    #[test]
    fn claims_split_at_contrast_not_at_reasons() {
        let s = Segments::new("No replay, but the client resumes. It fails because ids differ.");
        assert_ne!(claim(&s, "replay"), claim(&s, "resumes"));
        assert_eq!(claim(&s, "fails"), claim(&s, "differ"));
        assert_ne!(clause(&s, "fails"), clause(&s, "differ"));
        let s = Segments::new("- first item\n- second item");
        assert_ne!(claim(&s, "first"), claim(&s, "second"));
        assert_ne!(s.tokens[0].sentence, s.tokens[2].sentence);
        let s = Segments::new("It sends the ack and then the change notifications.");
        assert_eq!(claim(&s, "ack"), claim(&s, "change"));
        let s = Segments::new("It sends the ack, then the changes.");
        assert_ne!(claim(&s, "ack"), claim(&s, "changes"));
        let s = Segments::new("Nothing but JSON-RPC goes on stdout.");
        assert_eq!(claim(&s, "nothing"), claim(&s, "stdout"));
    }

    #[test]
    fn parentheses_are_clauses_of_their_own() {
        let s = Segments::new("close the stream (not a cancel message) on HTTP");
        assert_ne!(clause(&s, "close"), clause(&s, "cancel"));
        assert_ne!(clause(&s, "cancel"), clause(&s, "http"));
        assert_eq!(claim(&s, "close"), claim(&s, "http"));
    }

    #[test]
    fn questions_and_abbreviations() {
        let s = Segments::new("Is it a handshake? No, e.g. it has no id.");
        assert!(s.is_question(s.tokens[0].sentence));
        assert!(!s.is_question(s.tokens.last().unwrap().sentence));
        assert_eq!(claim(&s, "no"), claim(&s, "id"));
    }

    #[test]
    fn ranges_cover_every_token_once() {
        let s = Segments::new("a b, c; d. e (f) g");
        let mut seen = vec![0; s.tokens.len()];
        for c in 0..=s.clause_count() {
            for i in s.clause_range(c) {
                seen[i] += 1;
                assert_eq!(s.tokens[i].clause, c);
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
    }
}
