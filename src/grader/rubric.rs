//! Stage 6: a card's rubric (its key points and red flags, the catalogue's misconceptions
//! among them) compiled once, and judged on an answer's prose.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use super::claims::{self, Answer, Mode, Pattern, Reading, Role, Slot};
use super::idents::{ident_candidates, looks_like_identifier, near_miss, same_header};
use super::lexicon::lexicon;
use super::mentions::{GroupId, Index, Mentions};
use super::phrase::Occurrence;
use super::segment::Segments;
use super::stance::Stance;
use super::verdict::{FlagHit, NearMiss, PointResult, Span};
use crate::card::{Card, Claim};

/// A card's rubric, compiled: every group filed in one index, every claim a pattern.
#[derive(Debug, Default)]
pub struct Rubric {
    pub index: Index,
    actors: Vec<GroupId>,
    points: Vec<Vec<Pattern>>,
    /// Per red flag: its claims and its guards.
    flags: Vec<(Vec<Pattern>, Vec<GroupId>)>,
}

impl Rubric {
    pub fn compile(card: &Card) -> Rubric {
        let mut r = Rubric::default();
        r.actors = lexicon().actors.iter().map(|a| r.index.add(a)).collect();
        r.points = card
            .points
            .iter()
            .map(|p| p.rules.iter().map(|c| r.pattern(c)).collect())
            .collect();
        r.flags = card
            .red_flags
            .iter()
            .map(|f| {
                let claims = f.rules.iter().map(|c| r.pattern(c)).collect();
                let guards = f.guards.iter().map(|g| r.index.add(g)).collect();
                (claims, guards)
            })
            .collect();
        r
    }

    /// A claim as a pattern of this rubric's groups.
    pub fn pattern(&mut self, c: &Claim) -> Pattern {
        let mut slots = Vec::new();
        let mut add = |ix: &mut Index, spec: &Option<String>, role| {
            if let Some(g) = spec.as_deref().filter(|g| !g.trim().is_empty()) {
                slots.push(Slot {
                    group: ix.add(g),
                    role,
                });
            }
        };
        add(&mut self.index, &c.agent, Role::Agent);
        add(&mut self.index, &c.action, Role::Action);
        add(&mut self.index, &c.theme, Role::Other);
        for g in c.all.iter().filter(|g| !g.trim().is_empty()) {
            slots.push(Slot {
                group: self.index.add(g),
                role: Role::Other,
            });
        }
        slots.retain(|s| self.index.group(s.group).is_some_and(|g| !g.is_empty()));
        Pattern {
            exact: c.exact.iter().filter(|e| !e.is_empty()).cloned().collect(),
            slots,
            negated: c.negated,
            not: c.not.as_deref().map(|g| self.index.add(g)),
            except: c.except.iter().map(|g| self.index.add(g)).collect(),
            framed: c.framed(),
        }
    }

    /// The lexicon's actors wherever they occur, in answer order.
    pub fn actors(&self, m: &Mentions) -> Vec<Occurrence> {
        let mut out: Vec<Occurrence> = self.actors.iter().flat_map(|&g| m.of(g)).copied().collect();
        out.sort_by_key(|o| (o.first, o.last));
        out.dedup_by_key(|o| o.first);
        out
    }
}

/// The rubric of `card`, compiled once per thread and reused while the card's claims are
/// unchanged (keyed by the card's id and a fingerprint of its claims).
pub fn of(card: &Card) -> Rc<Rubric> {
    thread_local! {
        static CACHE: RefCell<HashMap<(String, u64), Rc<Rubric>>> = RefCell::new(HashMap::new());
    }
    let mut h = rustc_hash::FxHasher::default();
    for p in &card.points {
        p.rules.hash(&mut h);
        0u8.hash(&mut h);
    }
    for f in &card.red_flags {
        f.rules.hash(&mut h);
        f.guards.hash(&mut h);
        1u8.hash(&mut h);
    }
    let key = (card.id.clone(), h.finish());
    CACHE.with(|c| {
        if let Some(hit) = c.borrow().get(&key) {
            return hit.clone();
        }
        let built = Rc::new(Rubric::compile(card));
        c.borrow_mut().insert(key, built.clone());
        built
    })
}

/// The alternatives of `card`'s groups (as the deck writes them, `@concepts` expanded) that
/// occur in `answer`, typos forgiven: what `decks check` counts as used.
pub fn alternatives_used(card: &Card, answer: &str) -> Vec<String> {
    let seg = Segments::new(answer);
    let rubric = of(card);
    let m = rubric.index.find(&seg, true, &|_| false);
    let mut out: Vec<String> = m
        .alternatives()
        .filter_map(|(g, k)| rubric.index.group(g)?.alts.get(k))
        .map(|p| p.source.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What the prose stage found.
#[derive(Debug, Default)]
pub struct Prose {
    pub points: Vec<PointResult>,
    pub red_flags: Vec<FlagHit>,
    pub near_misses: Vec<NearMiss>,
    /// The tokens each credited point and each flag was read in: accounted for.
    pub accounted: Vec<usize>,
}

/// The card's key points and red flags, judged on the answer.
/// `known` says whether a word of the answer is one the library writes as it is (so no
/// misspelling of a rubric's word).
pub fn judge(
    card: &Card,
    answer: &str,
    seg: &Segments,
    stance: &Stance,
    known: &dyn Fn(&super::segment::Token) -> bool,
    known_ident: &dyn Fn(&str) -> bool,
) -> Prose {
    let mut out = Prose::default();
    if card.points.is_empty() && card.red_flags.is_empty() {
        return out;
    }
    let rubric = of(card);
    let mentions = rubric.index.find(seg, true, known);
    let actors = rubric.actors(&mentions);
    let a = Answer {
        seg,
        stance,
        mentions: &mentions,
        actors: &actors,
    };
    let span = |start: usize, end: usize| {
        let (s, e) = seg.original(start, end);
        Span::of(answer, s, e)
    };
    for (p, patterns) in card.points.iter().zip(&rubric.points) {
        let m = patterns
            .iter()
            .find_map(|pat| claims::read(&a, pat, Mode::Point, &[]));
        let bare = m.is_none().then(|| bare_yes_no(card, p, seg)).flatten();
        if m.is_none() {
            for e in p.rules.iter().flat_map(|r| &r.exact) {
                near_miss_of(seg, answer, e, known_ident, &mut out.near_misses);
            }
        }
        if let Some(m) = &m {
            out.accounted.extend(&m.tokens);
        }
        out.points.push(PointResult {
            id: p.id.clone(),
            label: p.label.clone(),
            required: p.required,
            hit: m.is_some() || bare.is_some(),
            span: m
                .map(|m| span(m.start, m.end))
                .or(bare.map(|(a, b)| span(a, b))),
        });
    }
    watch_identifiers(seg, answer, card, known_ident, &mut out.near_misses);
    for (f, (patterns, guards)) in card.red_flags.iter().zip(&rubric.flags) {
        let hit = patterns
            .iter()
            .find_map(|pat| claims::read(&a, pat, Mode::Flag, guards));
        if let Some(m) = hit {
            // A claim that states a misconception is judged whole: what else it says is moot.
            let claims = m.tokens.iter().filter_map(|&t| seg.tokens.get(t));
            for claim in claims.map(|t| t.claim) {
                out.accounted.extend(seg.claim_range(claim));
            }
            let (start, end) = stating_clauses(seg, &m);
            out.red_flags.push(FlagHit {
                id: f.id.clone(),
                label: f.label.clone(),
                span: span(start, end),
                correction: f.correction.clone(),
                spec: f.spec.clone(),
                catalogue: f.catalogue,
            });
        }
    }
    // A card's own flag says the misconception in its question's words: a catalogue entry
    // read in the same words is the same mistake, reported once.
    let own: Vec<(usize, usize)> = out
        .red_flags
        .iter()
        .filter(|f| !f.catalogue)
        .map(|f| (f.span.start, f.span.end))
        .collect();
    out.red_flags
        .retain(|f| !f.catalogue || !own.iter().any(|&(s, e)| f.span.start < e && s < f.span.end));
    settle_overlaps(card, &mut out);
    out
}

/// Where the stages overlap: a name credited as written exactly is not also a near miss, and
/// the clause a flag quotes earns no point.
fn settle_overlaps(card: &Card, out: &mut Prose) {
    // A name the checklist credits as written exactly is never also "close" to something.
    let exact_ticked: Vec<&str> = card
        .points
        .iter()
        .zip(&out.points)
        .filter(|(_, r)| r.hit)
        .flat_map(|(p, _)| p.rules.iter().flat_map(|r| &r.exact))
        .map(String::as_str)
        .collect();
    out.near_misses
        .retain(|n| !exact_ticked.contains(&n.found.as_str()));
    // The clause a flag quotes states a misconception: it earns no point as well ("the server
    // generates a unique subscription id" is no tick for "the client chooses it").
    for p in out.points.iter_mut().filter(|p| p.hit) {
        let in_flag = p.span.as_ref().is_some_and(|t| {
            out.red_flags
                .iter()
                .any(|f| t.start < f.span.end && f.span.start < t.end)
        });
        if in_flag {
            p.hit = false;
            p.span = None;
        }
    }
}

/// A yes/no question's bare answer ("No.", "No, it doesn't.") earns the point whose label
/// opens with that answer: the span of the word.
fn bare_yes_no(card: &Card, p: &crate::card::Point, seg: &Segments) -> Option<(usize, usize)> {
    let polar = card
        .question
        .split_whitespace()
        .next()
        .map(str::to_lowercase)
        .is_some_and(|w| {
            matches!(
                w.as_str(),
                "does"
                    | "do"
                    | "is"
                    | "are"
                    | "can"
                    | "should"
                    | "must"
                    | "may"
                    | "will"
                    | "would"
                    | "could"
                    | "has"
                    | "have"
                    | "did"
                    | "was"
                    | "were"
            )
        });
    if !polar || !card.question.trim_end().ends_with('?') {
        return None;
    }
    let first = seg.tokens.first()?;
    let word = first.norm.as_str();
    let label = p.label.to_lowercase();
    let wanted = ["no", "yes"]
        .into_iter()
        .find(|w| label.starts_with(&format!("{w}:")) || label.starts_with(&format!("{w},")))?;
    // The word alone before its sentence goes on: "No." / "No, …", not "No replay happens".
    let alone = seg.tokens.get(1).is_none_or(|n| {
        seg.norm()
            .get(first.end..n.start)
            .is_some_and(|gap| gap.contains(['.', ',', ';', ':', '!', '-', '—']))
    });
    (word == wanted && alone).then_some((first.start, first.end))
}

/// The whole clauses a flag's reading stands in, so the learner sees what they stated ("the
/// server assigns the subscription id"), not just the words that matched ("server assigns").
fn stating_clauses(s: &Segments, m: &Reading) -> (usize, usize) {
    let clauses = m
        .tokens
        .iter()
        .filter_map(|&t| s.tokens.get(t))
        .map(|t| t.clause);
    let (Some(first), Some(last)) = (clauses.clone().min(), clauses.max()) else {
        return (m.start, m.end);
    };
    let inside = s
        .tokens
        .iter()
        .filter(|t| (first..=last).contains(&t.clause));
    // A clause opener is not part of what was stated: "but the server assigns ..." quotes
    // from "the".
    let start = inside
        .clone()
        .skip_while(|t| {
            t.start < m.start
                && matches!(
                    t.norm.as_str(),
                    "but" | "and" | "so" | "then" | "however" | "whereas" | "while" | "yet"
                )
        })
        .map(|t| t.start)
        .min()
        .unwrap_or(m.start);
    let end = inside.map(|t| t.end).max().unwrap_or(m.end);
    (start.min(m.start), end.max(m.end))
}

/// Identifier-like words written almost like one of the protocol's identifiers, and not
/// themselves one of its names: reported on every card, whatever it asks (a misspelt
/// `notifications/subscription/acknowledged` reaches for the acknowledgement's name; the
/// capability `tools.listChanged` reaches for nothing but itself).
fn watch_identifiers(
    s: &Segments,
    answer: &str,
    card: &Card,
    known_ident: &dyn Fn(&str) -> bool,
    out: &mut Vec<NearMiss>,
) {
    if card.identifiers.is_empty() {
        return;
    }
    let norm = s.norm();
    for (a, b) in ident_candidates(norm) {
        let found = &norm[a..b];
        if !looks_like_identifier(found) || known_ident(found) {
            continue;
        }
        let Some(expected) = card
            .identifiers
            .iter()
            .find(|k| near_miss(found, k) && !same_header(found, k))
        else {
            continue;
        };
        push_near_miss(s, answer, expected, a, b, out);
    }
}

/// A near miss of `expected`, an exact name a point asks for that the answer did not write:
/// only a word that reaches for it, and is not itself one of the protocol's names
/// (`tools.listChanged` is a capability, not a misspelt `toolsListChanged`).
fn near_miss_of(
    s: &Segments,
    answer: &str,
    expected: &str,
    known_ident: &dyn Fn(&str) -> bool,
    out: &mut Vec<NearMiss>,
) {
    let norm = s.norm();
    if let Some(&(a, b)) = ident_candidates(norm).iter().find(|&&(a, b)| {
        let found = &norm[a..b];
        // The bare key of a prefixed name a point asks for exactly (`subscriptionId` for
        // `io.modelcontextprotocol/subscriptionId`) reaches for it.
        let bare_key = expected.rsplit(['/', '.']).next() == Some(found);
        near_miss(found, expected)
            && !same_header(found, expected)
            && (bare_key || !known_ident(found))
    }) {
        push_near_miss(s, answer, expected, a, b, out);
    }
}

fn push_near_miss(
    s: &Segments,
    answer: &str,
    expected: &str,
    a: usize,
    b: usize,
    out: &mut Vec<NearMiss>,
) {
    let (x, y) = s.original(a, b);
    let span = Span::of(answer, x, y);
    if !out.iter().any(|n| n.span == span) {
        out.push(NearMiss {
            expected: expected.to_string(),
            found: span.text.clone(),
            span,
        });
    }
}
