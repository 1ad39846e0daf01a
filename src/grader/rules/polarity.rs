//! Whether a claim asserts what it mentions: negation and its scope, denying tails,
//! dismissals, guards and attribution to somebody else.

use super::super::text::{Analysis, Token, is_stopword};
use super::phrase::{Group, group_occurrences};

/// Words that deny what their clause says ("not" and "rather" are handled with their context).
pub(super) const NEGATIONS: &[&str] = &[
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
pub(super) fn tail_word(a: &Analysis, i: usize) -> bool {
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
pub(super) fn denied_by_tail(a: &Analysis, clause: usize) -> bool {
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
        && tail[1..tail.len().min(3)].iter().any(|&i| {
            // "which nobody wants" says something about the claim; it does not take it back.
            judged(i)
                && !matches!(
                    a.tokens[i].norm.as_str(),
                    "nobody" | "nothing" | "no" | "none"
                )
        });
    verdict_opener
        || (!tail.is_empty()
            && tail.len() <= 6
            && tail.iter().all(|&i| tail_word(a, i) || dismisses(a, i))
            && tail.iter().any(|&i| judged(i)))
}

/// Words that, alone after a mention, set it aside ("Last-Event-ID: ignored", "sessions —
/// gone").
pub(super) fn dismisses(a: &Analysis, i: usize) -> bool {
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
pub(crate) fn is_negation(a: &Analysis, i: usize) -> bool {
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
        // "instead of X" denies X; a trailing "instead" ("... defines a 30 s timeout
        // instead") affirms the replacement.
        "instead" => next.is_some_and(|n| n.norm == "of"),
        // "if something's wrong", "when anything goes wrong": a condition, not a verdict.
        "wrong" => !(i.saturating_sub(3)..i).any(|j| {
            a.tokens[j].clause == t.clause
                && matches!(
                    a.tokens[j].norm.as_str(),
                    "something's" | "something" | "anything" | "goes" | "went" | "go"
                )
        }),
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
pub(crate) fn negated_at(a: &Analysis, start: usize, end: usize) -> bool {
    let own: Vec<usize> = (a.token_at(start)..a.token_at(end)).collect();
    clause_negated(a, a.clause_of(start), &own)
}

/// Whether clause `c` is a relative clause ("which was a handshake") hanging off a denied or
/// contrasted one ("Unlike initialize, which was a handshake, ...").
pub(super) fn relative_of_denied(a: &Analysis, c: usize, own: &[usize]) -> bool {
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
pub(super) fn clause_negated(a: &Analysis, c: usize, own: &[usize]) -> bool {
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

pub(super) fn clause_negated_here(a: &Analysis, c: usize, own: &[usize]) -> bool {
    let content = own
        .iter()
        .copied()
        .filter(|&i| a.tokens[i].clause == c)
        .min();
    a.tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| t.clause == c && !own.contains(i))
        .any(|(i, _)| {
            is_negation(a, i)
                && !judges_something_else(a, i, content)
                && !points_ahead(a, i, c, own)
        })
}

/// "rather than" and "instead of" deny what follows them only: in "the tag should be the
/// server's own handle rather than a copy of the request id" the handle is affirmed.
fn points_ahead(a: &Analysis, i: usize, c: usize, own: &[usize]) -> bool {
    matches!(a.tokens[i].norm.as_str(), "rather" | "instead")
        && own
            .iter()
            .filter(|&&j| a.tokens[j].clause == c)
            .all(|&j| j < i)
}

/// "wrong" and "incorrect" deny a claim they judge ("it is wrong to say the server assigns
/// the id", "the server assigns the id is incorrect") but not one they merely precede: in "line
/// 2 is wrong as the server assigns the id" the line is wrong and the reason is affirmed. So
/// before the matched words, they deny only when a "to" or "that" soon introduces the claim.
pub(super) fn judges_something_else(a: &Analysis, i: usize, content: Option<usize>) -> bool {
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
pub(super) fn guarded(
    a: &Analysis,
    s: usize,
    mine: &[usize],
    own: &[usize],
    guards: &[Group],
) -> bool {
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
pub(super) fn attributed(a: &Analysis, claim: usize) -> bool {
    // Other people, by name: they may hold a view ("people think") or a habit ("people would").
    const GROUPS: &[&str] = &[
        "people",
        "folks",
        "others",
        "colleague",
        "colleagues",
        "candidates",
        "newcomers",
        "beginners",
        "somebody",
        "someone",
        "naive",
        "sdks",
    ];
    // Words that introduce somebody's view, not a habit ("some think", "you'd assume").
    const HOLDERS: &[&str] = &[
        "some", "many", "might", "would", "you'd", "tempting", "commonly", "often", "usually",
        "naively", "they",
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
    let habit = words.iter().enumerate().any(|(i, w)| {
        GROUPS.contains(w)
            && words[i + 1..]
                .iter()
                .take(2)
                .any(|v| matches!(*v, "would" | "tend" | "often" | "usually" | "will"))
    });
    let held = words.iter().enumerate().any(|(i, w)| {
        (GROUPS.contains(w) || HOLDERS.contains(w))
            && words[i + 1..].iter().take(4).any(|v| VIEWS.contains(v))
    });
    marked || held || habit
}
