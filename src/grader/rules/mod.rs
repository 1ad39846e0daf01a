//! Matching a card's rules against an analysed answer: concept groups, exact identifiers,
//! negation scope and guards, near misses.

use super::text::{self, Analysis};
use crate::card::MatchRule;

mod idents;
mod phrase;
mod polarity;
#[cfg(test)]
mod tests;

pub use idents::*;
use phrase::group_occurrences_in;
pub use phrase::{Group, Occurrence, Phrase};
use polarity::*;
pub(crate) use polarity::{is_negation, negated_at};

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
