//! Stage 5: reading a claim of the rubric in the answer.
//!
//! A rubric claim says who does what to what: an `agent`, an `action`, a `theme` and further
//! groups that must be said together, optionally an exact identifier, and whether the claim
//! is stated affirmed ("the server echoes the id") or denied ("nothing is replayed"). It is
//! read in one claim of the answer (a key point may take two neighbouring ones, as in a list),
//! in any word order or voice: the agent is the subject of the action (the nearest actor
//! before it in the active voice, the one after "by" in the passive), and the stance of the
//! clauses it stands in comes from [`super::stance`].

use super::idents::{ExactHit, find_exact};
use super::lexicon::lexicon;
use super::mentions::{GroupId, Mentions};
use super::phrase::Occurrence;
use super::segment::Segments;
use super::stance::Stance;

/// The role a group plays in a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Who does it: the subject of the action.
    Agent,
    /// What is done: the predicate whose stance decides the claim's.
    Action,
    /// Anything else the claim must say (the theme, an object, a qualifier).
    Other,
}

#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub group: GroupId,
    pub role: Role,
}

/// A compiled rubric claim.
#[derive(Debug, Clone, Default)]
pub struct Pattern {
    pub exact: Vec<String>,
    pub slots: Vec<Slot>,
    /// Stated when denied ("nothing is replayed").
    pub negated: bool,
    /// A group that must be mentioned, denied, in the same claim ("..., not an HTTP header").
    pub not: Option<GroupId>,
    /// Groups that, in a clause of the reading, mean the claim is not being made.
    pub except: Vec<GroupId>,
    /// Written with roles, `negated` or `not`: judged by stance. A claim written only as
    /// co-occurring groups keeps the older reading, where only a denial of a polar word right
    /// before it ("not mandatory") undoes a key point.
    pub framed: bool,
}

impl Pattern {
    pub fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.slots.is_empty()
    }

    fn slot(&self, role: Role) -> Option<usize> {
        self.slots.iter().position(|s| s.role == role)
    }
}

/// How a claim is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A key point: may span two neighbouring claims, forgives misspellings.
    Point,
    /// A misconception: stated in one claim, affirmed, not asked, not attributed, not a
    /// condition, not guarded.
    Flag,
    /// Where the words occur, whatever their stance (the structured kinds judge that).
    Plain,
}

/// Where a claim was read: its tokens and their byte range in the normalised text.
#[derive(Debug, Clone)]
pub struct Reading {
    pub start: usize,
    pub end: usize,
    pub tokens: Vec<usize>,
}

/// Everything a claim is read against: one answer, analysed once.
pub struct Answer<'a> {
    pub seg: &'a Segments,
    pub stance: &'a Stance,
    pub mentions: &'a Mentions,
    /// The lexicon's actors (server, client, gateway, ...), wherever they occur.
    pub actors: &'a [Occurrence],
}

/// The most words a red-flag reading may span, first part to last.
const FLAG_WINDOW: usize = 18;

/// One place a slot (or the exact identifiers) matched.
#[derive(Debug, Clone, Copy)]
struct Occ {
    first: usize,
    end: usize,
    clause: usize,
}

impl Occ {
    fn of(s: &Segments, o: &Occurrence) -> Occ {
        Occ {
            first: o.first,
            end: o.last + 1,
            clause: s.tokens[o.first].clause,
        }
    }

    fn exact(s: &Segments, h: &ExactHit) -> Occ {
        let first = s.token_at(h.start);
        Occ {
            first,
            end: s.token_at(h.end).max(first + 1),
            clause: s.clause_of(h.start),
        }
    }

    fn tokens(&self) -> std::ops::Range<usize> {
        self.first..self.end
    }
}

/// The first reading of `p` in the answer, judged by `mode`.
pub fn read(a: &Answer<'_>, p: &Pattern, mode: Mode, guards: &[GroupId]) -> Option<Reading> {
    if p.is_empty() {
        return None;
    }
    let s = a.seg;
    let exact: Vec<ExactHit> = p
        .exact
        .iter()
        .flat_map(|e| find_exact(s.norm(), e))
        .collect();
    if !p.exact.is_empty() && exact.is_empty() {
        return None;
    }
    let span = if mode == Mode::Point { 1 } else { 0 };
    let in_window = |c: usize, first: usize, last: usize| (first..=last).contains(&c);
    'claim: for first in 1..=s.claim_count() {
        let last = first + span;
        // Per slot (and the exact identifiers as one more), its occurrences in the window.
        let mut per: Vec<Vec<Occ>> = Vec::with_capacity(p.slots.len() + 1);
        for slot in &p.slots {
            let occ: Vec<Occ> = a
                .mentions
                .of(slot.group)
                .iter()
                .filter(|o| in_window(s.tokens[o.first].claim, first, last))
                .filter(|o| mode != Mode::Flag || !o.typo)
                .map(|o| Occ::of(s, o))
                .collect();
            if occ.is_empty() {
                continue 'claim;
            }
            per.push(occ);
        }
        if !p.exact.is_empty() {
            let occ: Vec<Occ> = exact
                .iter()
                .filter(|h| in_window(s.claim_of(h.start), first, last))
                .map(|h| Occ::exact(s, h))
                .collect();
            if occ.is_empty() {
                continue;
            }
            per.push(occ);
        }
        let earliest: Vec<Occ> = per.iter().map(|o| o[0]).collect();
        if mode == Mode::Plain {
            return Some(reading(s, &earliest));
        }
        for cand in candidates(a, p, &per, earliest) {
            if judge(a, p, mode, guards, &cand, first, last) {
                return Some(reading(s, &cand));
            }
        }
    }
    None
}

/// The readings worth judging in one window: the earliest occurrence of each slot; around each
/// occurrence of the anchor (the action, else the first slot), the nearest of every other
/// slot (the agent: the subject of that action, when there is one); the first occurrence of
/// each slot that its clause does not deny.
fn candidates(a: &Answer<'_>, p: &Pattern, per: &[Vec<Occ>], earliest: Vec<Occ>) -> Vec<Vec<Occ>> {
    let anchor = p.slot(Role::Action).unwrap_or(0);
    let agent = p.slot(Role::Agent);
    let mut out = vec![earliest];
    if let Some(anchors) = per.get(anchor) {
        for an in anchors {
            let mut cand = Vec::with_capacity(per.len());
            for (k, occ) in per.iter().enumerate() {
                if k == anchor {
                    cand.push(*an);
                    continue;
                }
                let subject = (Some(k) == agent && p.slot(Role::Action).is_some())
                    .then(|| subject_of(a, an))
                    .flatten();
                let pick = subject
                    .and_then(|(sf, se)| occ.iter().find(|o| o.first < se && sf < o.end))
                    .or_else(|| occ.iter().min_by_key(|o| o.first.abs_diff(an.first)));
                if let Some(o) = pick {
                    cand.push(*o);
                }
            }
            out.push(cand);
        }
    }
    let own: Vec<usize> = per.iter().flatten().flat_map(|o| o.tokens()).collect();
    let first_where = |keep: &dyn Fn(&Occ) -> bool| -> Option<Vec<Occ>> {
        per.iter()
            .map(|occ| occ.iter().find(|o| keep(o)).copied())
            .collect()
    };
    out.extend(first_where(&|o| !a.stance.denies(a.seg, o.clause, &own)));
    out.extend(first_where(&|o| !denied_just_before(a, o, &own)));
    out
}

/// Whether one reading states the claim the way `mode` needs.
fn judge(
    a: &Answer<'_>,
    p: &Pattern,
    mode: Mode,
    guards: &[GroupId],
    cand: &[Occ],
    first: usize,
    last: usize,
) -> bool {
    let s = a.seg;
    let lo = cand.iter().map(|o| o.first).min().unwrap_or(0);
    let hi = cand.iter().map(|o| o.end).max().unwrap_or(0);
    if mode == Mode::Flag && hi.saturating_sub(lo) > FLAG_WINDOW {
        return false;
    }
    let own: Vec<usize> = cand.iter().flat_map(|o| o.tokens()).collect();
    // Roles: the agent is the subject of the action.
    if let (Some(ag), Some(ac)) = (p.slot(Role::Agent), p.slot(Role::Action)) {
        let (agent, action) = (cand[ag], cand[ac]);
        match subject_of(a, &action) {
            Some((sf, se)) if sf < agent.end && agent.first < se => {}
            _ => return false,
        }
    }
    // The predicate: the action's clause decides; another part (never the agent, whose own
    // aside may deny it: "the server, not the client, ...") counts as denied only when it is
    // contrasted away: "it answers -32602 rather than -32020", "..., not on the listen stream".
    let agent = p.slot(Role::Agent);
    let denied = if p.framed || mode == Mode::Flag {
        match p.slot(Role::Action) {
            Some(ac) => {
                a.stance.denies(s, cand[ac].clause, &own)
                    || cand
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| Some(*k) != agent && *k != ac)
                        .any(|(_, o)| {
                            a.stance.contrasts(s, o.clause, o.first, &own)
                                // "progress never rides that stream, and the ack carries the
                                // tag": a part whose own clause, not the action's, denies it.
                                || (mode == Mode::Flag
                                    && !p.negated
                                    && o.clause != cand[ac].clause
                                    && !subordinate(s, o.clause)
                                    && a.stance.denies(s, o.clause, &own))
                        })
            }
            None => cand.iter().any(|o| a.stance.denies(s, o.clause, &own)),
        }
    } else {
        cand.iter().any(|o| denied_just_before(a, o, &own))
    };
    if denied != p.negated {
        return false;
    }
    if let Some(not) = p.not {
        let denied_mention = a.mentions.of(not).iter().filter(|o| !o.typo).any(|o| {
            let c = s.tokens[o.first].claim;
            (first..=last).contains(&c) && {
                let toks: Vec<usize> = (o.first..=o.last).collect();
                a.stance.denies(s, s.tokens[o.first].clause, &toks)
            }
        });
        if !denied_mention {
            return false;
        }
    }
    let clauses: Vec<usize> = cand.iter().map(|o| o.clause).collect();
    // A guard is a cue: only words written as the deck writes them count ("comes" is no
    // misspelt "codes").
    let guarded = |g: &GroupId| {
        a.mentions.of(*g).iter().any(|o| {
            !o.typo
                && clauses.contains(&s.tokens[o.first].clause)
                && !(o.first..=o.last).all(|i| own.contains(&i))
        })
    };
    if p.except.iter().any(guarded) {
        return false;
    }
    if mode == Mode::Flag {
        let claim = s.tokens[lo].claim;
        if a.stance.question(claim) || a.stance.attributed(claim) || guards.iter().any(guarded) {
            return false;
        }
        // "if the server assigned the id, ..." supposes; "if it is missing, the server answers
        // -32020" states a rule: only a reading wholly inside conditions states nothing.
        if cand.iter().all(|o| a.stance.conditional(o.clause)) {
            return false;
        }
    }
    true
}

/// Words whose meaning a preceding "not" flips outright: for key points written as plain
/// co-occurring groups, only such a denial undoes them ("not mandatory").
fn denied_just_before(a: &Answer<'_>, o: &Occ, own: &[usize]) -> bool {
    let s = a.seg;
    let Some(head) = s.tokens.get(o.first) else {
        return false;
    };
    let polar = super::words::is_polar(&head.canon);
    polar
        && (o.first.saturating_sub(4)..o.first)
            .filter(|&j| s.tokens[j].clause == o.clause && !own.contains(&j))
            .any(|j| super::stance::is_negation(s, j))
}

/// The token range of the subject of the verb at `action`: in the active voice the nearest
/// actor before it in its claim (not one governed by a preposition, not one in a denied
/// aside: "The server, not the client, chooses"); in the passive the actor after "by".
fn subject_of(a: &Answer<'_>, action: &Occ) -> Option<(usize, usize)> {
    let s = a.seg;
    let lex = lexicon();
    let at = action.first;
    let claim = s.tokens.get(at)?.claim;
    let verb_end = action.end;
    let passive = is_passive(s, action);
    if passive {
        let by = (verb_end..(verb_end + 3).min(s.tokens.len()))
            .find(|&j| s.tokens[j].claim == claim && s.tokens[j].norm == "by")?;
        return a
            .actors
            .iter()
            .filter(|o| o.first > by && o.first <= by + 3)
            .map(|o| (o.first, o.last + 1))
            .next();
    }
    a.actors
        .iter()
        .filter(|o| o.last < at && s.tokens[o.first].claim == claim)
        .filter(|o| {
            let before = (0..o.first).rev().find(|&j| {
                !matches!(
                    s.tokens[j].norm.as_str(),
                    "the" | "a" | "an" | "its" | "their"
                )
            });
            !before.is_some_and(|j| {
                s.tokens[j].clause == s.tokens[o.first].clause
                    && lex.prepositions.has(&s.tokens[j].norm)
            })
        })
        .filter(|o| {
            let c = s.tokens[o.first].clause;
            c == action.clause || !a.stance.denies(s, c, &[])
        })
        .map(|o| (o.first, o.last + 1))
        .next_back()
}

/// A clause that gives a reason or a condition (`subordinators` in the lexicon): its denial is
/// about the circumstance, not the claim.
fn subordinate(s: &Segments, c: usize) -> bool {
    s.clause_range(c)
        .next()
        .is_some_and(|i| lexicon().subordinators.has(&s.tokens[i].norm))
}

/// "is assigned", "gets chosen", "assigned by the server": a participle after a form of
/// "be" or "get", or any verb followed by "by".
fn is_passive(s: &Segments, action: &Occ) -> bool {
    let lex = lexicon();
    let Some(head) = s.tokens.get(action.first) else {
        return false;
    };
    let w = head.norm.as_str();
    let participle = w.ends_with("ed") || w.ends_with("en") || lex.participles.has(w);
    let aux_before = (action.first.saturating_sub(3)..action.first).any(|j| {
        s.tokens[j].clause == head.clause && lex.passive_auxiliaries.has(&s.tokens[j].norm)
    });
    let by_after = s
        .tokens
        .get(action.end)
        .is_some_and(|t| t.norm == "by" && t.claim == head.claim);
    (participle && aux_before) || by_after
}

fn reading(s: &Segments, occ: &[Occ]) -> Reading {
    let start = occ
        .iter()
        .filter_map(|o| s.tokens.get(o.first))
        .map(|t| t.start)
        .min()
        .unwrap_or(0);
    let end = occ
        .iter()
        .filter_map(|o| s.tokens.get(o.end.saturating_sub(1)))
        .map(|t| t.end)
        .max()
        .unwrap_or(start);
    Reading {
        start,
        end,
        tokens: occ.iter().flat_map(|o| o.tokens()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::rubric::Rubric;
    use super::*;
    use crate::card::Claim;

    /// Whether `claim` is read in `answer` as a red flag (affirmed, stated) would be.
    fn states(claim: Claim, answer: &str, mode: Mode) -> bool {
        let mut r = Rubric::default();
        let actors: Vec<GroupId> = lexicon().actors.iter().map(|a| r.index.add(a)).collect();
        let p = r.pattern(&claim);
        let s = Segments::new(answer);
        let st = Stance::of(&s);
        let m = r.index.find(&s, mode == Mode::Point, &|_| false);
        let mut acts: Vec<Occurrence> = actors.iter().flat_map(|&g| m.of(g)).copied().collect();
        acts.sort_by_key(|o| o.first);
        let a = Answer {
            seg: &s,
            stance: &st,
            mentions: &m,
            actors: &acts,
        };
        read(&a, &p, mode, &[]).is_some()
    }

    #[test]
    fn a_part_denied_in_its_own_clause_is_not_read_into_the_next() {
        let progress_tagged = || Claim {
            theme: Some("progress".into()),
            action: Some("carry|carries".into()),
            all: vec!["tag".into()],
            ..Claim::default()
        };
        assert!(!states(
            progress_tagged(),
            "Progress never rides that stream, and the ack itself carries the tag.",
            Mode::Flag
        ));
        assert!(states(
            progress_tagged(),
            "Progress rides that stream, and it carries the tag.",
            Mode::Flag
        ));
        // A reason's denial is about the circumstance, not the claim.
        assert!(states(
            progress_tagged(),
            "Progress carries the tag because it is not a change notification.",
            Mode::Flag
        ));
    }

    fn server_assigns() -> Claim {
        Claim {
            agent: Some("server".into()),
            action: Some("assign|mint|choose|generate".into()),
            theme: Some("id|subscription id".into()),
            ..Claim::default()
        }
    }

    #[test]
    fn a_frame_is_read_in_the_active_and_the_passive() {
        let f = |a: &str| states(server_assigns(), a, Mode::Flag);
        assert!(f("The server assigns the subscription id."));
        assert!(f("The subscription id is assigned by the server."));
        assert!(f("It is the server that mints the id."));
        assert!(f("The server, not the client, chooses the id."));
        assert!(!f("The client chooses the id and the server echoes it."));
        assert!(!f("The id is chosen by the client, never by the server."));
        assert!(!f("The server never assigns the id."));
        assert!(!f("Some people think the server assigns the id."));
        assert!(!f(
            "The id comes from the client; the server gets it from the request."
        ));
        assert!(!f("Does the server assign the id?"));
    }

    #[test]
    fn a_negated_claim_is_read_only_when_denied() {
        let no_replay = Claim {
            action: Some("replay|redeliver|resend".into()),
            negated: true,
            ..Claim::default()
        };
        assert!(states(
            no_replay.clone(),
            "Nothing is replayed.",
            Mode::Point
        ));
        assert!(states(
            no_replay.clone(),
            "The server doesn't replay missed changes.",
            Mode::Point
        ));
        assert!(!states(
            no_replay,
            "The server replays missed changes.",
            Mode::Point
        ));
    }

    #[test]
    fn a_not_slot_wants_its_group_denied() {
        let in_meta = Claim {
            theme: Some("tag".into()),
            all: vec!["_meta|meta".into()],
            not: Some("header".into()),
            ..Claim::default()
        };
        assert!(states(
            in_meta.clone(),
            "The tag lives in _meta, not in an HTTP header.",
            Mode::Point
        ));
        assert!(!states(
            in_meta.clone(),
            "The tag lives in _meta.",
            Mode::Point
        ));
        assert!(!states(
            in_meta,
            "The tag lives in _meta and in a header.",
            Mode::Point
        ));
    }

    #[test]
    fn a_condition_or_an_except_group_states_nothing() {
        assert!(!states(
            server_assigns(),
            "If the server assigned the id, it would clash.",
            Mode::Flag
        ));
        let guarded = Claim {
            except: vec!["older|legacy draft".into()],
            ..server_assigns()
        };
        assert!(!states(
            guarded,
            "In a legacy draft the server assigns the id.",
            Mode::Flag
        ));
    }
}
