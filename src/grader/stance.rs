//! Stage 3: how each clause stands towards what it mentions, judged once per answer.
//!
//! A clause may **deny** (a negation cue: "not", "never", "isn't", "unlike", "instead of",
//! "avoid", "... is wrong"), be **taken back** by the clause after it ("..., but it isn't.",
//! "That's wrong."), hang off a denied clause (", which was a handshake" after "Unlike
//! initialize"), continue a denied list ("never mints, echoes or checks"), or state a
//! **condition** ("if the ack never arrives"). A claim may be a **question** or **attributed**
//! to somebody else ("some people think ...", "older revisions ...").
//!
//! The cues are found once here. Whether a clause denies a particular reading depends on which
//! words that reading is made of (a concept's own words, "no longer" in "gone", are no cue
//! against it), so [`Stance::denies`] takes them.

use super::lexicon::lexicon;
use super::segment::{Segments, Token};
use super::words::is_stopword;

/// A negation cue in a clause.
#[derive(Debug, Clone, Copy)]
struct Cue {
    token: usize,
    /// "rather than", "instead of": denies only what follows it.
    ahead_only: bool,
    /// "wrong", "incorrect": before the words it judges it denies only when a "to" or "that"
    /// soon introduces them ("it is wrong to say ..."); otherwise it judges something else
    /// ("line 2 is wrong as the server assigns the id").
    verdict: bool,
}

/// The stance of every clause and claim of one answer.
#[derive(Debug, Default)]
pub struct Stance {
    /// Per clause: its negation cues.
    cues: Vec<Vec<Cue>>,
    /// Per clause: taken back by a short denying tail after it.
    taken_back: Vec<bool>,
    /// Per clause: a condition, not a statement.
    conditional: Vec<bool>,
    /// Per clause: "or"/"nor" in it (a list a denial before it may reach).
    listy: Vec<bool>,
    /// Per clause: opens with "which", "who" or "that".
    relative: Vec<bool>,
    /// Per claim: its view belongs to somebody else.
    attributed: Vec<bool>,
    /// Per claim: it sits in a question.
    question: Vec<bool>,
}

impl Stance {
    pub fn of(s: &Segments) -> Stance {
        let clauses = s.clause_count() + 1;
        let claims = s.claim_count() + 1;
        let mut st = Stance {
            cues: vec![Vec::new(); clauses],
            taken_back: vec![false; clauses],
            conditional: vec![false; clauses],
            listy: vec![false; clauses],
            relative: vec![false; clauses],
            attributed: vec![false; claims],
            question: vec![false; claims],
        };
        for c in 0..clauses {
            let r = s.clause_range(c);
            for i in r.clone() {
                if is_negation(s, i) {
                    let w = s.tokens[i].norm.as_str();
                    // "fails the request with an error and no ack is sent": a negation after a
                    // coordinating word denies what follows it, not the clause before.
                    let coordinated = i > r.start
                        && matches!(s.tokens[i - 1].norm.as_str(), "and" | "or" | "but");
                    st.cues[c].push(Cue {
                        token: i,
                        ahead_only: matches!(w, "rather" | "instead") || coordinated,
                        verdict: matches!(w, "wrong" | "incorrect"),
                    });
                }
            }
            let words: Vec<&str> = s.tokens[r.clone()]
                .iter()
                .map(|t| t.norm.as_str())
                .collect();
            st.listy[c] = words.iter().any(|w| matches!(*w, "or" | "nor"));
            st.relative[c] = words
                .first()
                .is_some_and(|w| matches!(*w, "which" | "who" | "that"));
            // "if the ack never arrives, cancel": the condition ends where its sentence goes
            // on. "If it is missing the server answers -32020", written without the comma, is
            // a rule stated whole, not a condition.
            // And only a supposition is no statement: "if the server assigned the id, the
            // client could not match it"; "if it is unsupported, the server answers an error"
            // states the (mistaken) rule.
            let goes_on = r.end > r.start
                && s.tokens
                    .get(r.end)
                    .is_some_and(|n| n.sentence == s.tokens[r.end - 1].sentence);
            let supposed = goes_on
                && s.tokens[r.end..]
                    .iter()
                    .take_while(|n| n.sentence == s.tokens[r.end - 1].sentence)
                    .any(|n| lexicon().hypothetical.has(&n.norm));
            st.conditional[c] =
                supposed && words.iter().take(2).any(|w| lexicon().conditions.has(w));
        }
        for c in 0..clauses {
            st.taken_back[c] = denied_by_tail(s, &st, c);
        }
        let (past, hedged) = sentence_openings(s);
        for claim in 0..claims {
            let r = s.claim_range(claim);
            if let Some(t) = s.tokens.get(r.start) {
                // "I am not sure where the texts disagree" asks as much as a question does.
                st.question[claim] =
                    s.is_question(t.sentence) || hedged.get(t.sentence).copied().unwrap_or(false);
            }
            let in_the_past = !r.is_empty()
                && s.tokens
                    .get(r.start)
                    .is_some_and(|t| past.get(t.sentence).copied().unwrap_or(false));
            st.attributed[claim] = attributed(&s.tokens[r.clone()]) || in_the_past;
            // "carrying on with the saved cursor would stitch old and new together": an action
            // named as a gerund and then judged with "would" is supposed, not done.
            let toks = &s.tokens[r.clone()];
            let gerund = toks
                .iter()
                .find(|t| {
                    !is_stopword(&t.norm) && !matches!(t.norm.as_str(), "so" | "and" | "just")
                })
                .is_some_and(|t| t.plain && t.norm.len() > 5 && t.norm.ends_with("ing"));
            if gerund && toks.iter().any(|t| lexicon().hypothetical.has(&t.norm)) {
                for t in toks {
                    st.conditional[t.clause] = true;
                }
            }
        }
        st
    }

    /// Whether clause `c` denies a reading made of the tokens `own` (indices; only those in
    /// `c` matter for where a cue points).
    pub fn denies(&self, s: &Segments, c: usize, own: &[usize]) -> bool {
        self.denied_here(s, c, own)
            || self.taken_back.get(c).copied().unwrap_or(false)
            || self.continues_denied_list(s, c, own)
            || self.relative_of_denied(s, c, own)
    }

    fn denied_here(&self, s: &Segments, c: usize, own: &[usize]) -> bool {
        let Some(cues) = self.cues.get(c) else {
            return false;
        };
        let mine: Vec<usize> = own
            .iter()
            .copied()
            .filter(|&i| s.tokens.get(i).is_some_and(|t| t.clause == c))
            .collect();
        let content = mine.iter().copied().min();
        cues.iter().any(|cue| {
            if own.contains(&cue.token) {
                return false;
            }
            if cue.ahead_only && !mine.is_empty() && mine.iter().all(|&j| j < cue.token) {
                return false;
            }
            if cue.verdict && judges_something_else(s, cue.token, content) {
                return false;
            }
            true
        })
    }

    /// Whether the words from token `at` of clause `c` are contrasted away: the clause opens
    /// with a negation ("..., not on the listen stream", "..., never X"), or a "rather than" or
    /// "instead of" before them points at them.
    pub fn contrasts(&self, s: &Segments, c: usize, at: usize, own: &[usize]) -> bool {
        let Some(cues) = self.cues.get(c) else {
            return false;
        };
        let start = s.clause_range(c).start;
        cues.iter()
            .filter(|q| !own.contains(&q.token))
            .any(|q| q.token == start || (q.ahead_only && q.token < at))
    }

    /// "it never mints, echoes or checks a session id": the "never" reaches every item of the
    /// list up to the "or", in the same claim.
    fn continues_denied_list(&self, s: &Segments, c: usize, own: &[usize]) -> bool {
        if !self.listy.get(c).copied().unwrap_or(false) {
            return false;
        }
        let Some(first) = s.clause_range(c).next().and_then(|i| s.tokens.get(i)) else {
            return false;
        };
        let prev = (1..c)
            .rev()
            .find(|&p| !s.clause_range(p).is_empty())
            .filter(|&p| s.tokens[s.clause_range(p).start].claim == first.claim);
        prev.is_some_and(|p| self.denied_here(s, p, own))
    }

    /// ", which was a handshake" hanging off a denied clause ("Unlike initialize, ...").
    fn relative_of_denied(&self, s: &Segments, c: usize, own: &[usize]) -> bool {
        if !self.relative.get(c).copied().unwrap_or(false) {
            return false;
        }
        // Only a clause that opens with its denial hands it on ("Unlike initialize, which was a
        // handshake"); "line 3 sends no filter, which means everything" states what it means.
        (1..c)
            .rev()
            .find(|&p| !s.clause_range(p).is_empty())
            .is_some_and(|p| {
                let start = s.clause_range(p).start;
                self.cues.get(p).is_some_and(|q| {
                    q.iter()
                        .any(|q| q.token == start && !own.contains(&q.token))
                })
            })
    }

    /// Whether clause `c` is a condition ("if the server assigns the id, ...").
    pub fn conditional(&self, c: usize) -> bool {
        self.conditional.get(c).copied().unwrap_or(false)
    }

    /// Whether claim `k` reports somebody else's view.
    pub fn attributed(&self, k: usize) -> bool {
        self.attributed.get(k).copied().unwrap_or(false)
    }

    /// Whether claim `k` is (part of) a question.
    pub fn question(&self, k: usize) -> bool {
        self.question.get(k).copied().unwrap_or(false)
    }

    /// Whether clause `c` holds any negation cue at all (for the truths of accountability).
    pub fn negated(&self, s: &Segments, c: usize) -> bool {
        self.denies(s, c, &[])
    }
}

/// Per sentence: whether it opens in a past revision, and whether it opens with a hedge.
fn sentence_openings(s: &Segments) -> (Vec<bool>, Vec<bool>) {
    let mut past = Vec::new();
    let mut hedged = Vec::new();
    // Sentences are runs of tokens: judge each one once.
    for sentence in s.tokens.chunk_by(|a, b| a.sentence == b.sentence) {
        past.resize(sentence[0].sentence + 1, false);
        hedged.resize(sentence[0].sentence + 1, false);
        past[sentence[0].sentence] = opens_in_the_past(sentence);
        hedged[sentence[0].sentence] = opens_with_a_hedge(sentence);
    }
    (past, hedged)
}

/// Whether a sentence opens by saying the learner does not know ("I am not sure where …",
/// "I don't know whether …", "not sure, but"): a hedge states no claim of its own.
fn opens_with_a_hedge(sentence: &[Token]) -> bool {
    let words: Vec<&str> = sentence
        .iter()
        .take(6)
        .map(|t| {
            t.norm
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        })
        .filter(|w| !w.is_empty())
        .collect();
    let text = words.join(" ").replace('’', "'");
    [
        "i am not sure",
        "i'm not sure",
        "i m not sure",
        "not sure",
        "i am unsure",
        "i'm unsure",
        "unsure",
        "i don't know",
        "i don t know",
        "i do not know",
        "i dont know",
        "no idea",
        "idk",
    ]
    .iter()
    .any(|h| text == *h || text.starts_with(&format!("{h} ")))
}

/// Built-in negation cues: a mention in the same clause as one of these is being denied.
pub fn is_negation(s: &Segments, i: usize) -> bool {
    let lex = lexicon();
    let Some(t) = s.tokens.get(i) else {
        return false;
    };
    let next = s.tokens.get(i + 1).filter(|n| n.clause == t.clause);
    let w = t.norm.as_str();
    match w {
        // "not only", "not just" affirm; "404 Not Found", "405 Method Not Allowed" name a
        // status.
        "not" => {
            let affirms = next.is_some_and(|n| lex.not_affirming.has(&n.norm));
            // "404 Not Found", "Method not found": the name of a status or an error.
            let status = next.is_some_and(|n| lex.status_phrases.has(&n.norm))
                && (i.saturating_sub(2)..i).any(|j| {
                    let w = s.tokens[j].norm.as_str();
                    w == "method" || (w.len() == 3 && w.chars().all(|c| c.is_ascii_digit()))
                });
            !affirms && !status
        }
        "rather" => next.is_some_and(|n| n.norm == "than"),
        // "instead of X" denies X; a trailing "instead" affirms the replacement.
        "instead" => next.is_some_and(|n| n.norm == "of"),
        // "if something's wrong": a condition, not a verdict.
        "wrong" => !(i.saturating_sub(3)..i)
            .any(|j| s.tokens[j].clause == t.clause && lex.wrong_conditions.has(&s.tokens[j].norm)),
        // "turn the timeout off", "switch it off": the thing is disabled; "off the stream"
        // places it.
        "off" => (i.saturating_sub(5)..i).any(|j| {
            s.tokens[j].clause == t.clause
                && matches!(
                    s.tokens[j].norm.as_str(),
                    "turn"
                        | "turns"
                        | "turned"
                        | "turning"
                        | "switch"
                        | "switches"
                        | "switched"
                        | "switching"
                )
        }),
        // "is a bad idea", "bad practice"; not "the bad line".
        "bad" => next.is_some_and(|n| lex.bad_verdicts.has(&n.norm)),
        // "different from X" sets X aside; "a different id" describes one.
        "different" | "differs" => {
            next.is_some_and(|n| matches!(n.norm.as_str(), "from" | "than" | "to"))
        }
        // "nothing but", "no other than": an "only", not a denial.
        "nothing" | "none" | "no" => !next.is_some_and(|n| lex.only_markers.has(&n.norm)),
        _ => lex.negations.has(w) || w.ends_with("n't"),
    }
}

/// "wrong" before the words it judges denies them only when a "to" or "that" soon introduces
/// them ("it is wrong to say the server assigns the id").
fn judges_something_else(s: &Segments, i: usize, content: Option<usize>) -> bool {
    let Some(content) = content else {
        return false;
    };
    if i > content {
        return false;
    }
    let clause = s.tokens[i].clause;
    !(i + 1..content.min(i + 4))
        .filter(|&j| s.tokens[j].clause == clause)
        .any(|j| matches!(s.tokens[j].norm.as_str(), "to" | "that"))
}

/// Words that, alone after a mention, set it aside ("Last-Event-ID: ignored").
fn dismisses(t: &Token) -> bool {
    lexicon().dismissals.has(&t.norm)
}

/// Whether the clause right after `c` only denies what came before ("it's a handshake, but it
/// isn't", "It replays them. That's wrong.", "..., which is wrong for unknown values").
fn denied_by_tail(s: &Segments, st: &Stance, c: usize) -> bool {
    let lex = lexicon();
    if s.clause_range(c).is_empty() {
        return false;
    }
    let Some(next) = (c + 1..=s.clause_count()).find(|&n| !s.clause_range(n).is_empty()) else {
        return false;
    };
    let tail: Vec<usize> = s.clause_range(next).collect();
    let judged = |i: usize| !st.cues[next].iter().all(|q| q.token != i) || dismisses(&s.tokens[i]);
    let verdict_opener = tail.len() >= 3
        && matches!(s.tokens[tail[0]].norm.as_str(), "which" | "that" | "that's")
        && tail[1..tail.len().min(3)]
            .iter()
            .any(|&i| judged(i) && !lex.tail_not_verdicts.has(&s.tokens[i].norm));
    verdict_opener
        || (!tail.is_empty()
            && tail.len() <= 6
            && tail.iter().all(|&i| {
                let w = s.tokens[i].norm.as_str();
                is_stopword(w) || lex.tail_words.has(w) || judged(i)
            })
            && tail.iter().any(|&i| judged(i)))
}

/// A date or year before this revision ("2025-11-25", "2024", "2025-era").
fn older_date(w: &str) -> bool {
    let revision = mock_server::protocol::PROTOCOL_VERSION;
    let d = w.trim_end_matches("-era").trim_end_matches('s');
    let shape = d.len() >= 4
        && d.chars().all(|c| c.is_ascii_digit() || c == '-')
        && d[..4].chars().all(|c| c.is_ascii_digit())
        && matches!(d.len(), 4 | 7 | 10);
    shape && d.starts_with("20") && revision.get(..d.len()).is_some_and(|r| d < r)
}

/// Whether a sentence (its tokens) describes a past revision: it opens by setting the scene
/// there ("In 2025-11-25 you had resources/subscribe, plus a GET stream"; "In older revisions,
/// ..."), so none of its claims states today's rules. A date elsewhere names an old peer met
/// today ("a 2025-11-25 server hands you a session id"), and comparisons ("unlike 2025-11-25,
/// ...") speak of today.
fn opens_in_the_past(sentence: &[Token]) -> bool {
    let at = &lexicon().attribution;
    let past_at = |i: usize| {
        older_date(&sentence[i].norm)
            || (at.era_words.has(&sentence[i].norm)
                && sentence.get(i + 1).is_some_and(|n| at.eras.has(&n.norm)))
    };
    let compared = |i: usize| {
        sentence[i.saturating_sub(2)..i].iter().any(|t| {
            matches!(
                t.norm.as_str(),
                "like" | "unlike" | "since" | "than" | "from" | "after"
            )
        })
    };
    let opener = sentence.iter().take(2).position(|t| {
        matches!(
            t.norm.as_str(),
            "in" | "under" | "back" | "before" | "until"
        )
    });
    opener.is_some_and(|o| (o + 1..sentence.len().min(o + 5)).any(|i| past_at(i) && !compared(i)))
}

/// Who a claim's view belongs to: "some people think ...", "a colleague would say ...", "it's a
/// myth that ...", "older revisions ...". Such a claim reports a view; it does not state it.
fn attributed(toks: &[Token]) -> bool {
    let at = &lexicon().attribution;
    let words: Vec<&str> = toks.iter().map(|t| t.norm.as_str()).collect();
    let marked = words.iter().any(|w| at.markers.has(w))
        || words
            .windows(2)
            .any(|p| at.era_words.has(p[0]) && at.eras.has(p[1]))
        || at.pairs.in_words(&words)
        || words
            .windows(2)
            .any(|p| at.witnesses.has(p[0]) && at.witnessed.has(p[1]));
    let habit = words
        .iter()
        .enumerate()
        .any(|(i, w)| at.groups.has(w) && words[i + 1..].iter().take(2).any(|v| at.habits.has(v)));
    let held = words.iter().enumerate().any(|(i, w)| {
        let group = at.groups.has(w);
        (group || at.holders.has(w))
            && words[i + 1..]
                .iter()
                .take(4)
                .any(|v| at.views.has(v) || (group && at.group_views.has(v)))
    });
    marked || habit || held
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stance(text: &str) -> (Segments, Stance) {
        let s = Segments::new(text);
        let st = Stance::of(&s);
        (s, st)
    }

    /// Whether the clause holding word `w` denies a reading made of that word alone.
    fn denies(text: &str, w: &str) -> bool {
        let (s, st) = stance(text);
        let i = s.tokens.iter().position(|t| t.norm == w).unwrap();
        st.denies(&s, s.tokens[i].clause, &[i])
    }

    #[test]
    fn negation_reaches_its_clause() {
        assert!(denies(
            "The server never replays missed changes.",
            "replays"
        ));
        assert!(denies("Nothing is replayed.", "replayed"));
        assert!(denies("Missed changes aren't replayed.", "replayed"));
        assert!(!denies(
            "Not only is it mandatory, it comes first.",
            "mandatory"
        ));
        assert!(!denies("It comes first, not last.", "first"));
        assert!(denies("It comes first, not last.", "last"));
        assert!(!denies("Nothing but JSON-RPC goes on stdout.", "stdout"));
        assert!(denies(
            "Turn the normal timeout off for listens.",
            "timeout"
        ));
        assert!(denies(
            "Disable the request timeout for listens.",
            "timeout"
        ));
        assert!(!denies("Progress goes off the listen stream.", "progress"));
    }

    #[test]
    fn rather_than_denies_only_what_follows() {
        assert!(!denies(
            "It uses the request id rather than a new one.",
            "request"
        ));
        assert!(denies(
            "It uses the request id rather than a new one.",
            "new"
        ));
        assert!(!denies("It defines a 30 s timeout instead.", "timeout"));
    }

    #[test]
    fn tails_lists_and_relatives() {
        assert!(denies("It replays them. That's wrong.", "replays"));
        assert!(denies("It is a handshake, but it isn't.", "handshake"));
        assert!(!denies("It drops them, which nobody wants.", "drops"));
        assert!(denies(
            "It never mints, echoes or checks a session id.",
            "echoes"
        ));
        assert!(denies(
            "Unlike initialize, which was a handshake, it is per stream.",
            "handshake"
        ));
        assert!(!denies(
            "If something's wrong, the server closes the stream.",
            "closes"
        ));
        assert!(!denies(
            "Line 2 is wrong as the server assigns the id.",
            "assigns"
        ));
        assert!(denies(
            "It is wrong to say the server assigns the id.",
            "assigns"
        ));
    }

    #[test]
    fn questions_attribution_conditions() {
        let (s, st) = stance("Does it replay? Some people think the server assigns the id.");
        assert!(st.question(s.tokens[0].claim));
        let assigns = s.tokens.iter().find(|t| t.norm == "assigns").unwrap();
        assert!(st.attributed(assigns.claim));
        // A supposition states nothing; a rule in "if ..., then" form does.
        let (s, st) = stance("If the server assigned the id, the client could not match it.");
        assert!(st.conditional(s.tokens[0].clause));
        assert!(!st.conditional(s.tokens.last().unwrap().clause));
        let (s, st) = stance("If the type is unsupported, the server returns an error.");
        assert!(!st.conditional(s.tokens[0].clause));
        let (s, st) = stance("Older revisions had a handshake.");
        assert!(st.attributed(s.tokens[0].claim));
        let (s, st) = stance("The old request id is dropped.");
        assert!(!st.attributed(s.tokens[0].claim));
    }

    #[test]
    fn a_past_revision_sets_the_scene_for_its_sentence() {
        let claim_of = |s: &Segments, w: &str| s.tokens.iter().find(|t| t.norm == w).unwrap().claim;
        let (s, st) = stance(
            "In 2025-11-25 you had resources/subscribe, plus a client-opened GET stream. Both are gone and the server sends the ack first.",
        );
        assert!(st.attributed(claim_of(&s, "get")));
        assert!(!st.attributed(claim_of(&s, "ack")));
        let (s, st) = stance(
            "In the 2025-era transport, Mcp-Session-Id tied requests together, and Last-Event-ID resumed streams.",
        );
        assert!(st.attributed(claim_of(&s, "resumed")));
        let (s, st) = stance("Unlike 2025-11-25, the server assigns the id.");
        assert!(!st.attributed(claim_of(&s, "assigns")));
        let (s, st) = stance("In 2026-07-28 the server assigns the id.");
        assert!(!st.attributed(claim_of(&s, "assigns")));
        assert!(older_date("2025-11-25") && older_date("2025") && older_date("2024-era"));
        assert!(!older_date("2026-07-28") && !older_date("-32602") && !older_date("20000"));
    }
}
