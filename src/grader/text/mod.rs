//! Reading an answer the way a tolerant interviewer listens: Unicode-normalised, split into
//! sentences, clauses and words, each word reduced to a stem and a synonym class.

use std::collections::HashMap;
use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;

mod words;
pub use words::*;

/// One word of the answer.
#[derive(Debug, Clone)]
pub struct Token {
    /// Byte range in [`Analysis::norm`].
    pub start: usize,
    pub end: usize,
    /// Lower-cased NFKC form.
    pub norm: String,
    pub stem: String,
    /// Synonym class (the stem of the group's head word), or the stem itself.
    pub canon: String,
    /// Only letters, lower case after the first: typo tolerance applies to these alone, never
    /// to identifiers like `subscriptionId` or `-32602`.
    pub plain_word: bool,
    pub sentence: usize,
    /// The claim: a statement judged on its own (a sentence cut at `;`, `but`, `however`, a
    /// reason, a list item, ...). Every part of a point or flag must stand in one claim.
    pub claim: usize,
    /// The comma-delimited clause: the scope of a negation or a guard.
    pub clause: usize,
}

/// The answer, normalised and segmented.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// NFKC text with typographic quotes and dashes made ASCII; case is kept for exact matching.
    pub norm: String,
    /// For each byte of `norm` (plus one past the end), the byte offset in the original answer.
    map: Vec<usize>,
    pub tokens: Vec<Token>,
    sentence_starts: Vec<usize>,
    claim_starts: Vec<usize>,
    clause_starts: Vec<usize>,
    /// Clauses opened by a subordinating word ("because Mcp-Session-Id is not allowed"): a
    /// negation inside one stays local to it.
    subordinate: Vec<usize>,
    /// Sentences that end with `?`: a question asserts nothing.
    questions: Vec<usize>,
}

/// Characters NFKC leaves alone but people type for the same thing.
fn fold_char(c: char) -> Option<char> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' | '`' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{202F}' => ' ',
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{FEFF}' => return None,
        _ => c,
    })
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// Words that open a subordinate clause (a reason, a concession, a relative clause).
const SUBORDINATORS: &[&str] = &[
    "because",
    "since",
    "which",
    "so",
    "although",
    "though",
    "whereas",
    "while",
    "whilst",
    "otherwise",
    "except",
    "unless",
];

const CONJUNCTIONS: &[&str] = &[
    "but",
    "because",
    "although",
    "though",
    "whereas",
    "while",
    "whilst",
    "however",
    "since",
    "which",
    "yet",
    "so",
    "otherwise",
    "except",
    "unless",
];

impl Analysis {
    pub fn new(answer: &str) -> Analysis {
        let mut norm = String::with_capacity(answer.len());
        let mut map = Vec::with_capacity(answer.len() + 1);
        for (at, c) in answer.char_indices() {
            for n in c.nfkc() {
                let Some(n) = fold_char(n) else { continue };
                let before = norm.len();
                norm.push(n);
                map.extend(std::iter::repeat_n(at, norm.len() - before));
            }
        }
        map.push(answer.len());

        // Sentence and clause boundaries from punctuation.
        let mut sentence_starts = vec![0];
        let mut claim_starts = vec![0];
        let mut clause_starts = vec![0];
        let mut questions = Vec::new();
        let chars: Vec<(usize, char)> = norm.char_indices().collect();
        for (k, &(_, c)) in chars.iter().enumerate() {
            let next = chars.get(k + 1).map(|&(_, n)| n);
            let after = chars.get(k + 1).map_or(norm.len(), |&(i, _)| i);
            match c {
                '.' | '!' | '?'
                    if next.is_none_or(char::is_whitespace)
                        && !(c == '.' && after_abbreviation(&chars[..k])) =>
                {
                    if c == '?' {
                        questions.push(sentence_starts.len());
                    }
                    sentence_starts.push(after);
                    claim_starts.push(after);
                    clause_starts.push(after);
                }
                '\n' => {
                    if starts_new_item(&chars[k + 1..]) {
                        sentence_starts.push(after);
                    }
                    claim_starts.push(after);
                    clause_starts.push(after);
                }
                ';' => {
                    claim_starts.push(after);
                    clause_starts.push(after);
                }
                // An aside, a colon or a dash elaborates its claim ("missing (an older
                // server): treat it as complete"): a new clause, the same claim. A colon inside
                // `resultType:"complete"` is no break at all.
                // A parenthesis qualifies what stands before it ("close the stream (http)"):
                // the clause ends after it, not before.
                ',' | ')' | '\u{2013}' | '\u{2014}' => {
                    clause_starts.push(after);
                }
                ':' if next.is_none_or(char::is_whitespace) => {
                    clause_starts.push(after);
                }
                '-' if next == Some(' ')
                    && k > 0
                    && chars.get(k - 1).is_some_and(|&(_, p)| p == ' ') =>
                {
                    clause_starts.push(after);
                }
                _ => {}
            }
        }

        // Words: runs of letters and digits, with inner apostrophes ("isn't").
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
            let plain_word = raw.chars().all(char::is_alphabetic)
                && raw.chars().skip(1).all(|c| !c.is_uppercase());
            let lower = raw.to_lowercase();
            let stem = stem(&lower);
            let canon = canon(&stem);
            tokens.push(Token {
                start,
                end,
                norm: lower,
                stem,
                canon,
                plain_word,
                sentence: 0,
                claim: 0,
                clause: 0,
            });
            k = j;
        }
        for (i, t) in tokens.iter().enumerate() {
            // "nothing but JSON-RPC" is one thought ("only JSON-RPC"), not two clauses.
            let idiom = t.norm == "but"
                && i > 0
                && matches!(
                    tokens[i - 1].norm.as_str(),
                    "nothing" | "none" | "anything" | "everything" | "all" | "no"
                );
            if CONJUNCTIONS.contains(&t.norm.as_str()) && !idiom {
                clause_starts.push(t.start);
            }
            if opens_claim(&tokens, i, &norm) && !idiom {
                claim_starts.push(t.start);
            }
        }
        sentence_starts.sort_unstable();
        sentence_starts.dedup();
        claim_starts.sort_unstable();
        claim_starts.dedup();
        clause_starts.sort_unstable();
        clause_starts.dedup();
        let mut a = Analysis {
            norm,
            map,
            tokens,
            sentence_starts,
            claim_starts,
            clause_starts,
            subordinate: Vec::new(),
            questions,
        };
        for i in 0..a.tokens.len() {
            let at = a.tokens[i].start;
            a.tokens[i].sentence = a.sentence_of(at);
            a.tokens[i].claim = a.claim_of(at);
            a.tokens[i].clause = a.clause_of(at);
            if SUBORDINATORS.contains(&a.tokens[i].norm.as_str()) {
                a.subordinate.push(a.tokens[i].clause);
            }
        }
        a
    }

    pub fn sentence_of(&self, at: usize) -> usize {
        self.sentence_starts.partition_point(|&s| s <= at)
    }

    pub fn claim_of(&self, at: usize) -> usize {
        self.claim_starts.partition_point(|&s| s <= at)
    }

    pub fn claim_count(&self) -> usize {
        self.claim_starts.len()
    }

    /// The sentence a claim belongs to.
    pub fn sentence_of_claim(&self, claim: usize) -> usize {
        let start = self
            .claim_starts
            .get(claim.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        self.sentence_of(start)
    }

    pub fn clause_of(&self, at: usize) -> usize {
        self.clause_starts.partition_point(|&s| s <= at)
    }

    pub fn is_question(&self, sentence: usize) -> bool {
        self.questions.contains(&sentence)
    }

    pub fn is_subordinate(&self, clause: usize) -> bool {
        self.subordinate.contains(&clause)
    }

    pub fn sentence_count(&self) -> usize {
        self.sentence_starts.len()
    }

    /// A byte range of `norm` as a byte range of the original answer.
    pub fn original(&self, start: usize, end: usize) -> (usize, usize) {
        let s = self.map.get(start).copied().unwrap_or(0);
        // The end maps to the original byte where the next normalised char starts.
        let e = self.map.get(end).copied().unwrap_or(s);
        (s, e.max(s))
    }

    /// Index of the first token whose start is `>= at`.
    pub fn token_at(&self, at: usize) -> usize {
        self.tokens.partition_point(|t| t.start < at)
    }
}

/// Words that start a new claim wherever they stand: a contrast, a concession, a condition.
/// A reason ("because ...") stays in its claim: "X because Y" is one statement.
/// What follows them is judged apart from what came before ("No replay, but the client
/// resumes with Last-Event-ID" states a misconception after its "but").
const CLAIM_OPENERS: &[&str] = &[
    "but",
    "however",
    "whereas",
    "although",
    "though",
    "yet",
    "unless",
    "except",
    "otherwise",
    "while",
    "whilst",
    "instead",
];

/// Whether token `i` opens a claim: one of [`CLAIM_OPENERS`] or ", then". A relative clause
/// (", which ..."), a consequence (", so ...") or a sequence ("first ... and then ...") stays
/// in its claim: it says more about the same thing.
fn opens_claim(tokens: &[Token], i: usize, norm: &str) -> bool {
    let t = &tokens[i];
    let w = t.norm.as_str();
    if i == 0 {
        return false;
    }
    if CLAIM_OPENERS.contains(&w) {
        // "rather than"/"instead of" contrast a phrase, not a claim: keep them in theirs.
        return !(w == "instead" && tokens.get(i + 1).is_some_and(|n| n.norm == "of"));
    }
    let after_comma = norm[..t.start].trim_end().ends_with(',');
    match w {
        "then" => after_comma,
        _ => false,
    }
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
    matches!(
        word.as_str(),
        "e.g" | "i.e" | "eg" | "ie" | "vs" | "etc" | "cf" | "approx" | "resp" | "incl" | "esp"
    )
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

    #[test]
    fn word_families_share_a_stem() {
        let families: &[&[&str]] = &[
            &[
                "acknowledge",
                "acknowledged",
                "acknowledgement",
                "acknowledgment",
                "acknowledging",
                "acknowledges",
            ],
            &["notify", "notification", "notifications", "notified"],
            &["replay", "replayed", "replays", "replaying"],
            &["close", "closes", "closed", "closing"],
            &["cancel", "cancelled", "canceled", "cancellation", "cancels"],
            &["subscribe", "subscription", "subscriptions", "subscribed"],
            &["correlate", "correlation", "correlated"],
            &["stream", "streams", "streaming"],
            &["require", "required", "requires", "requirement"],
            &["reply", "replies", "replied"],
            &["message", "messages"],
            &["update", "updates", "updated"],
        ];
        for f in families {
            let s0 = stem(f[0]);
            for w in *f {
                assert_eq!(stem(w), s0, "{w} vs {}", f[0]);
            }
        }
        assert_ne!(stem("header"), stem("head"));
    }

    #[test]
    fn synonyms_share_a_class() {
        assert_eq!(canon(&stem("ack")), canon(&stem("acknowledgement")));
        assert_eq!(canon(&stem("must")), canon(&stem("mandatory")));
        assert_eq!(canon(&stem("required")), canon(&stem("mandatory")));
        assert_eq!(canon(&stem("identifier")), canon(&stem("id")));
        assert_ne!(canon(&stem("must")), canon(&stem("may")));
        assert_eq!(canon(&stem("carries")), canon(&stem("includes")));
        assert_eq!(canon(&stem("chosen")), canon(&stem("picks")));
        assert_eq!(canon(&stem("rejects")), canon(&stem("refused")));
        // Over-broad groups split: closing a stream is not cancelling, a dropped connection is
        // not an ignored message.
        assert_ne!(canon(&stem("aborting")), canon(&stem("cancelled")));
        assert_ne!(canon(&stem("dropped")), canon(&stem("ignored")));
        assert_eq!(canon(&stem("discards")), canon(&stem("ignored")));
    }

    #[test]
    fn typos_scale_with_length() {
        assert!(typo_close("mandatroy", "mandatory"));
        assert!(typo_close("acknowleg", "acknowledg"));
        assert!(!typo_close("sent", "send"));
        assert!(!typo_close("xandatory", "mandatory"));
        assert!(!typo_close("manda", "mandatory"));
        // Doubled or undoubled letters on longer words.
        assert!(typo_close("ommited", "omitted"));
        assert!(typo_close("recieved", "received"));
        assert!(typo_close("occured", "occurred"));
    }

    #[test]
    fn segments_sentences_and_clauses() {
        let a =
            Analysis::new("It is not a handshake, unlike initialize. Then io.x/y is used.\n- next");
        let handshake = a.tokens.iter().find(|t| t.norm == "handshake").unwrap();
        let unlike = a.tokens.iter().find(|t| t.norm == "unlike").unwrap();
        let io = a.tokens.iter().find(|t| t.norm == "io").unwrap();
        let y = a.tokens.iter().find(|t| t.norm == "y").unwrap();
        let next = a.tokens.iter().find(|t| t.norm == "next").unwrap();
        assert_eq!(handshake.sentence, unlike.sentence);
        assert_ne!(handshake.clause, unlike.clause);
        assert_eq!(
            io.sentence, y.sentence,
            "a dot inside an identifier is no sentence end"
        );
        assert_ne!(io.sentence, handshake.sentence);
        assert_ne!(next.sentence, y.sentence);
    }

    #[test]
    fn claims_break_at_contrast_not_at_asides() {
        let claim = |a: &Analysis, w: &str| a.tokens.iter().find(|t| t.norm == w).map(|t| t.claim);
        let a = Analysis::new("No replay on connect, but the client resumes with Last-Event-ID.");
        assert_ne!(claim(&a, "replay"), claim(&a, "resumes"));
        let a = Analysis::new(
            "If it is missing (an older server), treat it as complete; unknown is invalid.",
        );
        assert_eq!(claim(&a, "missing"), claim(&a, "complete"));
        assert_ne!(claim(&a, "complete"), claim(&a, "invalid"));
        let a = Analysis::new("Missing: complete. It fails because the id is wrong, so retry.");
        assert_eq!(claim(&a, "missing"), claim(&a, "complete"));
        assert_eq!(claim(&a, "fails"), claim(&a, "retry"));
        let a = Analysis::new("- first item\n- second item");
        assert_ne!(claim(&a, "first"), claim(&a, "second"));
        // A sequence is one statement: "cancel first and then open the new one".
        let a = Analysis::new("It sends the ack and then the change notifications.");
        assert_eq!(claim(&a, "ack"), claim(&a, "change"));
    }

    #[test]
    fn snowball_stems_keep_domain_families_apart() {
        assert_ne!(canon(&stem("initialize")), canon(&stem("first")));
        assert_ne!(canon(&stem("identify")), canon(&stem("id")));
        assert_eq!(stem("subscribe"), stem("subscriptions"));
    }

    #[test]
    fn maps_back_to_original_offsets() {
        let answer = "ﬁrst “ack” isn’t late";
        let a = Analysis::new(answer);
        let t = a.tokens.iter().find(|t| t.norm == "ack").unwrap();
        let (s, e) = a.original(t.start, t.end);
        assert_eq!(&answer[s..e], "ack");
        assert!(a.tokens.iter().any(|t| t.norm == "first"));
        assert!(a.tokens.iter().any(|t| t.norm == "isn't"));
    }
}
