//! Matching a card's rules against an analysed answer: concept groups, exact identifiers,
//! negation scope and guards, near misses.

use super::text::{self, Analysis, Token, canon, is_stopword, stem, typo_close};
use crate::card::MatchRule;

/// One word of a concept alternative, analysed like the answer's words.
#[derive(Debug, Clone)]
struct Word {
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

fn word_matches(t: &Token, w: &Word, typos: bool) -> bool {
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
fn phrase_at(a: &Analysis, i: usize, p: &Phrase, typos: bool) -> Option<Occurrence> {
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
fn group_occurrences(a: &Analysis, g: &Group, s: usize, typos: bool) -> Vec<Occurrence> {
    group_occurrences_in(a, g, s, s, typos)
}

/// Every occurrence of any alternative of `g` in claims `s..=last`.
fn group_occurrences_in(
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

/// An exact identifier's byte range in `a.norm`.
#[derive(Debug, Clone, Copy)]
pub struct ExactHit {
    pub start: usize,
    pub end: usize,
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '/'
}

/// Occurrences of `expected` written exactly (case and spelling), not as part of a longer
/// identifier: `subscriptionId` does not match inside `io.modelcontextprotocol/subscriptionId`.
pub fn find_exact(text: &str, expected: &str) -> Vec<ExactHit> {
    let mut out = Vec::new();
    if expected.is_empty() {
        return out;
    }
    let first_ident = expected.chars().next().is_some_and(ident_char);
    let last_ident = expected.chars().last().is_some_and(ident_char);
    for (start, _) in text.match_indices(expected) {
        let end = start + expected.len();
        let mut before = text[..start].chars().rev();
        let mut after = text[end..].chars();
        let ok_before = !first_ident
            || match before.next() {
                None => true,
                Some(c) if ident_char(c) => false,
                Some('.') | Some('-') => !before.next().is_some_and(char::is_alphanumeric),
                Some(_) => true,
            };
        let ok_after = !last_ident
            || match after.next() {
                None => true,
                Some(c) if ident_char(c) => false,
                Some('.') | Some('-') => !after.next().is_some_and(char::is_alphanumeric),
                Some(_) => true,
            };
        if ok_before && ok_after {
            out.push(ExactHit { start, end });
        }
    }
    out
}

/// A compiled match rule.
#[derive(Debug, Clone)]
pub struct Rule {
    exact: Vec<String>,
    groups: Vec<Group>,
}

impl Rule {
    pub fn compile(r: &MatchRule) -> Rule {
        Rule {
            exact: r.exact.iter().filter(|e| !e.is_empty()).cloned().collect(),
            groups: r
                .all
                .iter()
                .map(|g| Group::parse(g))
                .filter(|g| !g.is_empty())
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.groups.is_empty()
    }
}

/// Where a rule matched: a byte range in `a.norm` and the tokens that carried it.
#[derive(Debug, Clone)]
pub struct RuleMatch {
    pub start: usize,
    pub end: usize,
    pub tokens: Vec<usize>,
}

/// How a rule is judged: key points are matched as written (a point about "no replay" may
/// well say "not"); red flags only count when affirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Point,
    Flag,
    /// Where a text occurs, negated or not (option and item texts; the caller judges).
    Plain,
}

/// The most words a red-flag match may span, first part to last.
const FLAG_WINDOW: usize = 18;

/// One place a group (or the rule's exact identifiers) matched.
#[derive(Debug, Clone, Copy)]
struct Occ {
    start: usize,
    end: usize,
    /// Token range `[first, end_tok)`.
    first: usize,
    end_tok: usize,
    clause: usize,
}

impl Occ {
    fn from_tokens(a: &Analysis, o: Occurrence) -> Occ {
        Occ {
            start: a.tokens[o.first].start,
            end: a.tokens[o.last].end,
            first: o.first,
            end_tok: o.last + 1,
            clause: a.tokens[o.first].clause,
        }
    }

    fn from_exact(a: &Analysis, h: &ExactHit) -> Occ {
        Occ {
            start: h.start,
            end: h.end,
            first: a.token_at(h.start),
            end_tok: a.token_at(h.end),
            clause: a.clause_of(h.start),
        }
    }
}

/// The first place `rule` matches the answer (for flags: affirmed and unguarded).
///
/// Every group (and the exact identifiers, when the rule has both) must match within one
/// sentence. For a red flag, the match is denied when the clause of its first word holds a
/// negation cue, or when any other part sits in a negated main clause; a negation inside a
/// subordinate clause ("... because Mcp-Session-Id is not allowed") stays local to it. Words the
/// flag's own alternatives name ("cannot", "no conflict") are never read as negations or guards.
pub fn match_rule(a: &Analysis, rule: &Rule, mode: Mode, guards: &[Group]) -> Option<RuleMatch> {
    if rule.is_empty() {
        return None;
    }
    let typos = mode != Mode::Flag;
    let exact_hits: Vec<ExactHit> = rule
        .exact
        .iter()
        .flat_map(|e| find_exact(&a.norm, e))
        .collect();
    if !rule.exact.is_empty() && exact_hits.is_empty() {
        return None;
    }
    // A key point may take two neighbouring claims ("- data.requested = ..." / "-
    // data.supported = ..." in a list); a misconception is stated in one.
    let span = if mode == Mode::Point { 1 } else { 0 };
    'sentence: for s in 0..=a.claim_count() {
        let last = s + span;
        let mut per_group: Vec<Vec<Occ>> = Vec::new();
        if !rule.exact.is_empty() {
            let here: Vec<Occ> = exact_hits
                .iter()
                .filter(|h| (s..=last).contains(&a.claim_of(h.start)))
                .map(|h| Occ::from_exact(a, h))
                .collect();
            if here.is_empty() {
                continue;
            }
            per_group.push(here);
        }
        for g in &rule.groups {
            let occ = group_occurrences_in(a, g, s, last, typos);
            if occ.is_empty() {
                continue 'sentence;
            }
            per_group.push(occ.into_iter().map(|o| Occ::from_tokens(a, o)).collect());
        }
        let earliest: Vec<Occ> = per_group
            .iter()
            .filter_map(|o| o.first().copied())
            .collect();
        let own: Vec<usize> = per_group
            .iter()
            .flatten()
            .flat_map(|o| o.first..o.end_tok)
            .collect();
        if mode == Mode::Plain {
            return Some(rule_match(&earliest));
        }
        if mode == Mode::Point {
            // "not mandatory" does not say "mandatory": skip occurrences denied right before
            // them, unless the card's own alternatives hold the negation.
            let affirmed: Option<Vec<Occ>> = per_group
                .iter()
                .map(|occ| {
                    occ.iter()
                        .find(|o| !denied_just_before(a, o, &own))
                        .copied()
                })
                .collect();
            match affirmed {
                Some(occ) => return Some(rule_match(&occ)),
                None => continue,
            }
        }
        if a.is_question(a.sentence_of_claim(s)) || attributed(a, s) {
            continue;
        }
        let affirmed_each: Option<Vec<Occ>> = per_group
            .iter()
            .map(|occ| {
                occ.iter()
                    .find(|o| !clause_negated(a, o.clause, &own))
                    .copied()
            })
            .collect();
        // Around each occurrence of one group, the nearest occurrence of every other group:
        // the compact readings of a long sentence.
        let nearest: Vec<Vec<Occ>> = per_group
            .first()
            .into_iter()
            .flatten()
            .map(|anchor| {
                per_group
                    .iter()
                    .filter_map(|occ| {
                        occ.iter()
                            .min_by_key(|o| o.first.abs_diff(anchor.first))
                            .copied()
                    })
                    .collect()
            })
            .collect();
        let candidates = std::iter::once(earliest)
            .chain(affirmed_each)
            .chain(nearest);
        for mut cand in candidates {
            cand.sort_by_key(|o| o.start);
            // A misconception is stated compactly; parts of a long sentence far apart are
            // usually about different things.
            let first_tok = cand.iter().map(|o| o.first).min().unwrap_or(0);
            let last_tok = cand.iter().map(|o| o.end_tok).max().unwrap_or(0);
            if last_tok.saturating_sub(first_tok) > FLAG_WINDOW {
                continue;
            }
            let first_denied = cand.first().is_some_and(|o| {
                clause_negated(a, o.clause, &own) || relative_of_denied(a, o.clause, &own)
            });
            // A negation in a main clause, or in a relative clause that says the flag's words
            // ("progress, which carries no tag"), denies; one in a reason ("because the id is
            // not the client's") stays local to it.
            // Any part of the reading in a denied clause denies it: "... attribute each
            // message, since MCP has no session" says nothing about correlating by session.
            let main_denied = cand.iter().any(|o| clause_negated(a, o.clause, &own));
            let last_clause = cand.iter().map(|o| o.clause).max().unwrap_or(0);
            // A guard speaks for the clauses of this reading only: "on stdio write
            // notifications/cancelled, on HTTP post it as well" is guarded in its first clause
            // and states the misconception in its second.
            let mine: Vec<usize> = cand.iter().flat_map(|o| o.first..o.end_tok).collect();
            if !first_denied
                && !main_denied
                && !denied_by_tail(a, last_clause)
                && !guarded(a, s, &mine, &own, guards)
            {
                return Some(rule_match(&cand));
            }
        }
    }
    None
}

/// Words whose meaning a preceding "not" flips outright ("not mandatory", "not first"). Other
/// words keep their point when denied, because answers contrast them ("a missing `_meta`
/// field, not a header mismatch" still says what a header mismatch is for).
const POLAR: &[&str] = &[
    "must",
    "should",
    "shall",
    "may",
    "first",
    "before",
    "after",
    "every",
    "always",
    "only",
    "allowed",
    "permitted",
    "forbidden",
    "optional",
    "supported",
    "mandatory",
    "required",
    "guaranteed",
    "sent",
    "carry",
    "carries",
    "include",
    "includes",
    // Verbs a point states and a "not" reverses ("doesn't have to come first", "does not
    // arrive before"). Verbs a rule may forbid ("can't reuse the id") are left out: there the
    // negation is the rule.
    "have",
    "has",
    "need",
    "needs",
    "come",
    "comes",
    "arrive",
    "arrives",
    "carried",
    "require",
    "requires",
    "contain",
    "contains",
    "wait",
    "waits",
    "happen",
    "happens",
];

/// A negation cue in the three words before `o`, in its clause ("is not mandatory",
/// "never comes first"), when `o` starts with a word a negation flips.
fn denied_just_before(a: &Analysis, o: &Occ, own: &[usize]) -> bool {
    let Some(head) = a.tokens.get(o.first) else {
        return false;
    };
    let polar = POLAR
        .iter()
        .any(|w| text::canon(&text::stem(w)) == head.canon);
    polar
        && (o.first.saturating_sub(4)..o.first)
            .filter(|&j| a.tokens[j].clause == o.clause && !own.contains(&j))
            .any(|j| is_negation(a, j))
}

fn rule_match(occ: &[Occ]) -> RuleMatch {
    RuleMatch {
        start: occ.iter().map(|o| o.start).min().unwrap_or(0),
        end: occ.iter().map(|o| o.end).max().unwrap_or(0),
        tokens: occ.iter().flat_map(|o| o.first..o.end_tok).collect(),
    }
}

/// Words that deny what their clause says ("not" and "rather" are handled with their context).
const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "nothing",
    "none",
    "neither",
    "nor",
    "without",
    "unlike",
    "instead",
    "cannot",
    "nobody",
    "nowhere",
    "wrong",
    "incorrect",
    "false",
    "myth",
    "mistake",
    "mistaken",
    "misconception",
    "misleading",
    "untrue",
    "nope",
    "isnt",
    "dont",
    "doesnt",
    "arent",
    "wont",
    "cant",
    "wasnt",
    "didnt",
    "shouldnt",
    "mustnt",
    "neednt",
    "different",
    "differs",
    "opposed",
    "contrast",
    "versus",
    "vs",
    "confuse",
    "confused",
    "confusing",
    "avoid",
    "avoids",
    "avoided",
    "avoiding",
    "antipattern",
];

/// Words a short denying tail may consist of ("..., but it isn't.", "That's wrong.").
fn tail_word(a: &Analysis, i: usize) -> bool {
    let w = a.tokens[i].norm.as_str();
    is_stopword(w)
        || is_negation(a, i)
        || matches!(
            w,
            "but"
                | "that's"
                | "isn't"
                | "true"
                | "correct"
                | "right"
                | "case"
                | "so"
                | "really"
                | "actually"
                | "does"
                | "do"
                | "of"
                | "course"
                | "however"
                | "though"
                | "quite"
                | "at"
                | "all"
                | "obviously"
                | "which"
        )
}

/// Whether the clause right after `clause` only denies what came before ("it's a handshake,
/// but it isn't", "It replays them. That's wrong.").
fn denied_by_tail(a: &Analysis, clause: usize) -> bool {
    let Some(next) = a
        .tokens
        .iter()
        .map(|t| t.clause)
        .filter(|&c| c > clause)
        .min()
    else {
        return false;
    };
    let tail: Vec<usize> = (0..a.tokens.len())
        .filter(|&i| a.tokens[i].clause == next)
        .collect();
    let judged = |i: usize| is_negation(a, i) || dismisses(a, i);
    // "..., which is wrong for unknown values": a verdict on what came before, whatever follows.
    let verdict_opener = tail.len() >= 3
        && matches!(a.tokens[tail[0]].norm.as_str(), "which" | "that" | "that's")
        && tail[1..tail.len().min(3)].iter().any(|&i| judged(i));
    verdict_opener
        || (!tail.is_empty()
            && tail.len() <= 6
            && tail.iter().all(|&i| tail_word(a, i) || dismisses(a, i))
            && tail.iter().any(|&i| judged(i)))
}

/// Words that, alone after a mention, set it aside ("Last-Event-ID: ignored", "sessions —
/// gone").
fn dismisses(a: &Analysis, i: usize) -> bool {
    matches!(
        a.tokens[i].norm.as_str(),
        "ignored"
            | "ignore"
            | "gone"
            | "removed"
            | "dropped"
            | "obsolete"
            | "unsupported"
            | "deprecated"
            | "retired"
            | "discarded"
            | "irrelevant"
            | "harmless"
            | "forbidden"
            | "wrong"
            | "incorrect"
            | "false"
            | "untrue"
            | "invalid"
            | "illegal"
            | "prohibited"
    )
}

/// Built-in negation cues: a flag mention in the same clause as one of these is being denied.
pub fn is_negation(a: &Analysis, i: usize) -> bool {
    let Some(t) = a.tokens.get(i) else {
        return false;
    };
    let next = a.tokens.get(i + 1).filter(|n| n.clause == t.clause);
    let w = t.norm.as_str();
    match w {
        // "not only", "not just" affirm.
        "not" => {
            !next.is_some_and(|n| matches!(n.norm.as_str(), "only" | "just" | "merely" | "simply"))
        }
        "rather" => next.is_some_and(|n| n.norm == "than"),
        // "is a bad idea", "bad practice"; not "the bad line".
        "bad" => next.is_some_and(|n| matches!(n.norm.as_str(), "idea" | "practice" | "practise")),
        // "nothing but", "no other than": an "only", not a denial.
        "nothing" | "none" | "no" => {
            !next.is_some_and(|n| matches!(n.norm.as_str(), "but" | "except" | "other"))
        }
        _ => NEGATIONS.contains(&w) || w.ends_with("n't"),
    }
}

/// Whether the clause around `norm[start..end]` denies it ("not true", "never b").
pub fn negated_at(a: &Analysis, start: usize, end: usize) -> bool {
    let own: Vec<usize> = (a.token_at(start)..a.token_at(end)).collect();
    clause_negated(a, a.clause_of(start), &own)
}

/// Whether clause `c` is a relative clause ("which was a handshake") hanging off a denied or
/// contrasted one ("Unlike initialize, which was a handshake, ...").
fn relative_of_denied(a: &Analysis, c: usize, own: &[usize]) -> bool {
    let Some(first) = a.tokens.iter().find(|t| t.clause == c) else {
        return false;
    };
    if !matches!(first.norm.as_str(), "which" | "who" | "that") {
        return false;
    }
    a.tokens
        .iter()
        .map(|t| t.clause)
        .filter(|&p| p < c)
        .max()
        .is_some_and(|p| clause_negated(a, p, own))
}

/// Whether clause `c` holds a negation cue outside the tokens that made the match, or
/// continues a denied list ("it never mints, echoes or checks a session id": the "never"
/// reaches every item up to the "or").
fn clause_negated(a: &Analysis, c: usize, own: &[usize]) -> bool {
    if clause_negated_here(a, c, own) {
        return true;
    }
    let mine: Vec<&Token> = a.tokens.iter().filter(|t| t.clause == c).collect();
    let Some(first) = mine.first() else {
        return false;
    };
    let listy = mine.iter().any(|t| matches!(t.norm.as_str(), "or" | "nor"));
    let prev = a
        .tokens
        .iter()
        .filter(|t| t.clause < c && t.claim == first.claim)
        .map(|t| t.clause)
        .max();
    listy && prev.is_some_and(|p| clause_negated_here(a, p, own))
}

fn clause_negated_here(a: &Analysis, c: usize, own: &[usize]) -> bool {
    let content = own
        .iter()
        .copied()
        .filter(|&i| a.tokens[i].clause == c)
        .min();
    a.tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| t.clause == c && !own.contains(i))
        .any(|(i, _)| is_negation(a, i) && (!judges_something_else(a, i, content)))
}

/// "wrong" and "incorrect" deny a claim they judge ("it is wrong to say the server assigns
/// the id", "the server assigns the id is incorrect") but not one they merely precede: in "line
/// 2 is wrong as the server assigns the id" the line is wrong and the reason is affirmed. So
/// before the matched words, they deny only when a "to" or "that" soon introduces the claim.
fn judges_something_else(a: &Analysis, i: usize, content: Option<usize>) -> bool {
    let t = &a.tokens[i];
    if !matches!(t.norm.as_str(), "wrong" | "incorrect") {
        return false;
    }
    let Some(content) = content else {
        return false;
    };
    if i > content {
        return false;
    }
    !(i + 1..content.min(i + 4))
        .filter(|&j| a.tokens[j].clause == t.clause)
        .any(|j| matches!(a.tokens[j].norm.as_str(), "to" | "that"))
}

/// Whether one of the flag's own guards appears in a clause of the match in claim `s`, other
/// than as the flag's own words (a guard "conflict" must not cancel the flag phrase "no
/// conflict"). A guard in another clause or claim says nothing about this one.
fn guarded(a: &Analysis, s: usize, mine: &[usize], own: &[usize], guards: &[Group]) -> bool {
    let clauses: Vec<usize> = mine.iter().map(|&i| a.tokens[i].clause).collect();
    guards.iter().any(|g| {
        group_occurrences(a, g, s, false).iter().any(|o| {
            clauses.contains(&a.tokens[o.first].clause)
                && !(o.first..=o.last).all(|i| own.contains(&i))
        })
    })
}

/// Who a claim's view belongs to: "some people think ...", "a colleague would say ...", "it's a
/// myth that ...", "older revisions ...", "the seed card showed ...". Such a claim reports a
/// misconception; it does not state it.
fn attributed(a: &Analysis, claim: usize) -> bool {
    const HOLDERS: &[&str] = &[
        "people",
        "some",
        "many",
        "folks",
        "others",
        "colleague",
        "colleagues",
        "candidates",
        "somebody",
        "someone",
        "might",
        "would",
        "you'd",
        "tempting",
        "commonly",
        "often",
        "usually",
        "naive",
        "naively",
        "newcomers",
        "beginners",
        "they",
    ];
    const VIEWS: &[&str] = &[
        "think", "thinks", "believe", "believes", "assume", "assumes", "expect", "expects", "say",
        "says", "claim", "claims", "call", "calls", "quote", "quotes", "answer", "answers",
        "suppose", "imagine", "confuse", "mistake", "guess", "reach",
    ];
    const MARKERS: &[&str] = &[
        "myth",
        "misconception",
        "folklore",
        "seed",
        "legacy",
        "formerly",
        "previously",
        "older",
        "earlier",
        "previous",
        "old",
    ];
    let toks: Vec<&Token> = a.tokens.iter().filter(|t| t.claim == claim).collect();
    let words: Vec<&str> = toks.iter().map(|t| t.norm.as_str()).collect();
    // "older revisions", "the old session model", "it's a myth": "old" must describe a
    // revision, a model or a spec, not a request ("the old request id" is this revision's).
    let marked = words
        .iter()
        .any(|w| matches!(*w, "older" | "legacy" | "formerly"))
        || words.windows(2).any(|p| {
            MARKERS.contains(&p[0])
                && matches!(
                    p[1],
                    "revisions"
                        | "revision"
                        | "versions"
                        | "version"
                        | "spec"
                        | "specs"
                        | "model"
                        | "drafts"
                        | "draft"
                        | "protocol"
                        | "days"
                        | "mcp"
                        | "card"
                        | "transport"
                        | "sse"
                        | "session"
                        | "sessions"
                        | "rules"
                )
        })
        || words.iter().any(|w| {
            matches!(
                *w,
                "myth"
                    | "misconception"
                    | "folklore"
                    | "formerly"
                    | "previously"
                    | "mixup"
                    | "trap"
                    | "pitfall"
                    | "misreading"
                    | "confusion"
            )
        })
        || words
            .windows(2)
            .any(|p| p == ["used", "to"] || p == ["common", "mistake"] || p == ["mix", "up"])
        // "Some SDKs I've seen default to ...": a report of what others do.
        || words.windows(2).any(|p| {
            matches!(p[0], "i've" | "we've" | "ive")
                && matches!(p[1], "seen" | "heard" | "met" | "read")
        });
    // "A lot of people would just carry on", "a naive client would": what others do.
    const GROUPS: &[&str] = &[
        "people",
        "folks",
        "others",
        "colleagues",
        "candidates",
        "newcomers",
        "beginners",
        "somebody",
        "someone",
        "naive",
        "sdks",
    ];
    let habit = words.iter().enumerate().any(|(i, w)| {
        GROUPS.contains(w)
            && words[i + 1..]
                .iter()
                .take(2)
                .any(|v| matches!(*v, "would" | "tend" | "often" | "usually" | "will"))
    });
    let held = words.iter().enumerate().any(|(i, w)| {
        HOLDERS.contains(w) && words[i + 1..].iter().take(4).any(|v| VIEWS.contains(v))
    });
    marked || held || habit
}

/// Identifier-like words of the answer: candidates for "close: you wrote ...".
pub fn ident_candidates(text: &str) -> Vec<(usize, usize)> {
    let sep = |c: char| c.is_whitespace() || "`'\"(),;[]{}<>=".contains(c);
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (start, sep(c)) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                let word = &text[s..i];
                let trimmed = word.trim_end_matches(['.', ':', '!', '?', ',']);
                let lead = trimmed.len() - trimmed.trim_start_matches(':').len();
                let (ws, we) = (s + lead, s + trimmed.len());
                if we > ws {
                    out.push((ws, we));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether a word is written like an identifier (a path, a dotted or dashed name, camelCase,
/// digits): plain words are never near misses.
pub fn looks_like_identifier(w: &str) -> bool {
    let inner = w.get(1..).unwrap_or("");
    w.chars()
        .any(|c| matches!(c, '/' | '_' | '.') || c.is_ascii_digit())
        || inner.contains('-')
        || inner.chars().any(|c| c.is_uppercase())
}

/// HTTP header names are case-insensitive: `MCP-Method` is `Mcp-Method`.
pub fn same_header(found: &str, expected: &str) -> bool {
    let header = expected.contains('-')
        && !expected.contains('/')
        && expected.starts_with(|c: char| c.is_ascii_uppercase());
    header && found.eq_ignore_ascii_case(expected)
}

/// Whether `found` is a near miss of `expected` (and not simply something else).
pub fn near_miss(found: &str, expected: &str) -> bool {
    if found == expected || expected.chars().count() < 4 {
        return false;
    }
    if found.eq_ignore_ascii_case(expected) {
        return true;
    }
    let digits = |s: &str| s.trim_start_matches(['-', '+', '\u{2212}']).to_string();
    let numeric = |s: &str| !digits(s).is_empty() && digits(s).chars().all(|c| c.is_ascii_digit());
    if numeric(expected) || numeric(found) {
        // A different error code is a different thing; only a lost sign is "close".
        return numeric(found) && digits(found) == digits(expected);
    }
    // `subscriptionId` for `io.modelcontextprotocol/subscriptionId`: right key, missing prefix.
    if let Some(last) = expected.rsplit(['/', '.']).next() {
        if last.len() >= 4 && last != expected && found.eq_ignore_ascii_case(last) {
            return true;
        }
    }
    let (f, e) = (found.to_lowercase(), expected.to_lowercase());
    let n = e.chars().count();
    if f.chars().count() * 2 < n {
        return false;
    }
    let allowed = (n / 6).clamp(1, 4);
    strsim::osa_distance(&f, &e) <= allowed
}

/// Stems of a free-text word, for the structured kinds.
pub fn word_key(w: &str) -> String {
    canon(&stem(&w.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(exact: &[&str], all: &[&str]) -> Rule {
        Rule::compile(&MatchRule {
            exact: exact.iter().map(|s| s.to_string()).collect(),
            all: all.iter().map(|s| s.to_string()).collect(),
        })
    }

    fn hits(answer: &str, r: &Rule, mode: Mode) -> bool {
        match_rule(&Analysis::new(answer), r, mode, &[]).is_some()
    }

    #[test]
    fn exact_respects_identifier_boundaries() {
        let t = "uses io.modelcontextprotocol/subscriptionId, and subscriptionId.";
        assert_eq!(find_exact(t, "subscriptionId").len(), 1);
        assert_eq!(
            find_exact(t, "io.modelcontextprotocol/subscriptionId").len(),
            1
        );
        assert!(
            find_exact(
                "notifications/subscriptions/acknowledgedX",
                "notifications/subscriptions/acknowledged"
            )
            .is_empty()
        );
        assert_eq!(find_exact("code -32602.", "-32602").len(), 1);
    }

    #[test]
    fn groups_cooccur_in_one_claim_or_two_neighbours() {
        let r = rule(&[], &["ack", "must|mandatory"]);
        assert!(hits("The acknowledgement is mandatory.", &r, Mode::Point));
        // A point may take two neighbouring claims ("It comes first. It is mandatory."), never
        // parts that stand further apart; a flag must be stated in one claim.
        assert!(hits(
            "The acknowledgement comes first. It is mandatory.",
            &r,
            Mode::Point
        ));
        assert!(!hits(
            "The acknowledgement comes first. Then changes. Then more. It is mandatory.",
            &r,
            Mode::Point
        ));
        assert!(!hits(
            "The acknowledgement comes first. It is mandatory.",
            &r,
            Mode::Flag
        ));
    }

    #[test]
    fn phrases_tolerate_fillers_and_compounds() {
        let r = rule(&[], &["before change notification"]);
        assert!(hits(
            "it comes before any change notification",
            &r,
            Mode::Point
        ));
        let r = rule(&[], &["keepalive"]);
        assert!(hits("send a keep-alive comment", &r, Mode::Point));
        let r = rule(&[], &["subscription id"]);
        assert!(hits("it carries the subscriptionId", &r, Mode::Point));
    }

    #[test]
    fn phrases_keep_their_structure() {
        let r = rule(&[], &["is for stdio"]);
        assert!(hits("That header is for stdio only.", &r, Mode::Point));
        assert!(!hits("It runs over stdio.", &r, Mode::Point));
        let r = rule(&[], &["the stream"]);
        assert!(hits("close a stream", &r, Mode::Point));
        let r = rule(&[], &["get its own SSE"]);
        assert!(hits("each listen gets its own SSE stream", &r, Mode::Point));
        assert!(!hits("clients get SSE from the endpoint", &r, Mode::Point));
    }

    #[test]
    fn negation_is_scoped_to_the_clause() {
        let r = rule(&[], &["handshake"]);
        assert!(!hits("It is not a handshake.", &r, Mode::Flag));
        assert!(!hits(
            "Unlike the old initialize handshake, it is per stream.",
            &r,
            Mode::Flag
        ));
        assert!(hits(
            "Unlike initialize, the ack is a handshake.",
            &r,
            Mode::Flag
        ));
        assert!(hits("It is not only a handshake.", &r, Mode::Flag));
        assert!(hits("It is not a handshake.", &r, Mode::Plain));
        // Contrast keeps a point ("a missing field, not a header mismatch")...
        assert!(hits("It is not a handshake.", &r, Mode::Point));
        // ...but a denied obligation or order is not the point, unless the card's words hold
        // the negation.
        let must = rule(&[], &["must|mandatory"]);
        assert!(!hits("The ack isn't mandatory.", &must, Mode::Point));
        assert!(hits("Not optional: it is mandatory.", &must, Mode::Point));
        let no_replay = rule(&[], &["no|nothing|never", "replay"]);
        assert!(hits("Nothing is replayed.", &no_replay, Mode::Point));
        let r = rule(&[], &["replay"]);
        assert!(!hits(
            "Nothing is replayed after a reconnect.",
            &r,
            Mode::Flag
        ));
        assert!(!hits("There is no replay.", &r, Mode::Flag));
        assert!(hits(
            "Missed notifications are replayed on reconnect.",
            &r,
            Mode::Flag
        ));
    }

    #[test]
    fn wrong_denies_the_claim_it_judges_not_the_reason_it_precedes() {
        let r = rule(&[], &["server", "assign", "id"]);
        for affirmed in [
            "Line 2 is wrong as the server assigns the id.",
            "Line 2 is wrong for the server assigns the id.",
            "Line 2 is incorrect: the server assigns the id.",
        ] {
            assert!(hits(affirmed, &r, Mode::Flag), "{affirmed}");
        }
        for denied in [
            "It is wrong to say the server assigns the id.",
            "It's incorrect that the server assigns the id.",
            "Saying the server assigns the id is wrong.",
            "The server assigns the id, which is wrong.",
        ] {
            assert!(!hits(denied, &r, Mode::Flag), "{denied}");
        }
    }

    #[test]
    fn a_negation_in_another_claim_changes_nothing() {
        let r = rule(&[], &["Last-Event-ID", "resume"]);
        // The leading "No" denies the replay, not what comes after "but".
        assert!(hits(
            "No replay on connect, but the client can send Last-Event-ID to resume.",
            &r,
            Mode::Flag
        ));
        assert!(!hits(
            "There is no resumability: the client cannot resume with Last-Event-ID.",
            &r,
            Mode::Flag
        ));
        let r = rule(&[], &["server", "assign", "id"]);
        assert!(hits(
            "Nothing is replayed; the server assigns the id.",
            &r,
            Mode::Flag
        ));
    }

    #[test]
    fn attributed_claims_state_nothing() {
        let r = rule(&[], &["server", "assign", "id"]);
        for attributed in [
            "Some people think the server assigns the id, but it is the request id.",
            "A colleague would answer that the server assigns the id.",
            "In older revisions the server assigned the id.",
            "It is a myth that the server assigns the id.",
            "A common mixup is that the server assigns the id.",
            "A lot of people would just let the server assign the id.",
            "Some SDKs I've seen let the server assign the id, which is wrong.",
        ] {
            assert!(!hits(attributed, &r, Mode::Flag), "{attributed}");
        }
        assert!(hits("The server assigns the id.", &r, Mode::Flag));
    }

    #[test]
    fn questions_and_taken_back_claims_state_nothing() {
        let r = rule(&[], &["handshake"]);
        assert!(!hits("Is the ack a handshake?", &r, Mode::Flag));
        assert!(!hits("It is a handshake, but it isn't.", &r, Mode::Flag));
        let r = rule(&[], &["Last-Event-ID", "send|honour"]);
        assert!(!hits(
            "Last-Event-ID: ignored, nothing to honour.",
            &r,
            Mode::Flag
        ));
    }

    #[test]
    fn judging_a_practice_bad_denies_it() {
        let r = rule(&[], &["unbounded", "queue"]);
        assert!(!hits(
            "Unbounded queueing for a slow client is a bad idea.",
            &r,
            Mode::Flag
        ));
        assert!(!hits("Avoid an unbounded queue.", &r, Mode::Flag));
        assert!(hits("Keep an unbounded queue per client.", &r, Mode::Flag));
    }

    #[test]
    fn a_negated_requirement_earns_no_point() {
        let r = rule(&[], &["ack", "have to come first|comes first"]);
        assert!(!hits(
            "The ack doesn't have to come first.",
            &r,
            Mode::Point
        ));
        assert!(!hits("The ack never comes first.", &r, Mode::Point));
        assert!(hits("The ack has to come first.", &r, Mode::Point));
        // A rule that forbids keeps its negation: "can't reuse" is the point.
        let r = rule(&[], &["reuse", "id"]);
        assert!(hits(
            "You can't reuse the id of a live request.",
            &r,
            Mode::Point
        ));
    }

    #[test]
    fn a_denied_list_denies_every_item() {
        let r = rule(&[], &["echo", "session"]);
        assert!(!hits(
            "The server never mints, echoes or checks a session id.",
            &r,
            Mode::Flag
        ));
        assert!(hits("The server echoes the session id.", &r, Mode::Flag));
    }

    #[test]
    fn a_point_may_span_two_list_items_a_flag_may_not() {
        let r = rule(&[], &["supported", "requested"]);
        let list = "- data.requested = 2031-01-01\n- data.supported = 2026-07-28";
        assert!(hits(list, &r, Mode::Point));
        assert!(!hits(list, &r, Mode::Flag));
    }

    #[test]
    fn near_misses() {
        let e = "notifications/subscriptions/acknowledged";
        assert!(near_miss("notifications/subscription/acknowledge", e));
        assert!(near_miss("Notifications/Subscriptions/Acknowledged", e));
        assert!(!near_miss("notifications/tools/list_changed", e));
        assert!(near_miss("32602", "-32602"));
        assert!(!near_miss("-32601", "-32602"));
        assert!(near_miss(
            "subscriptionId",
            "io.modelcontextprotocol/subscriptionId"
        ));
    }
}
