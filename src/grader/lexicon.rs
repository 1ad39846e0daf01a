//! The grader's English, read from `decks/lexicon.toml`: every word list the algorithms use.
//!
//! The file is compiled into the binary and parsed once. A broken lexicon is a build-time
//! mistake of the project, never a learner's: a test parses it, and should it ever fail to
//! parse at run time the grader falls back to empty lists (it then hears no negation), which
//! `decks check` reports.

use std::collections::HashMap;

use rustc_hash::FxHashSet as HashSet;
use std::sync::OnceLock;

use serde::Deserialize;

/// `decks/lexicon.toml`, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    stems: HashMap<String, String>,
    #[serde(default)]
    synonyms: Vec<Vec<String>>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    generic: Vec<String>,
    #[serde(default)]
    negations: Vec<String>,
    #[serde(default)]
    not_affirming: Vec<String>,
    #[serde(default)]
    status_phrases: Vec<String>,
    #[serde(default)]
    only_markers: Vec<String>,
    #[serde(default)]
    wrong_conditions: Vec<String>,
    #[serde(default)]
    bad_verdicts: Vec<String>,
    #[serde(default)]
    tail_words: Vec<String>,
    #[serde(default)]
    tail_not_verdicts: Vec<String>,
    #[serde(default)]
    dismissals: Vec<String>,
    #[serde(default)]
    clause_openers: Vec<String>,
    #[serde(default)]
    subordinators: Vec<String>,
    #[serde(default)]
    claim_openers: Vec<String>,
    #[serde(default)]
    adverb_openers: Vec<String>,
    #[serde(default)]
    but_idioms: Vec<String>,
    #[serde(default)]
    abbreviations: Vec<String>,
    #[serde(default)]
    conditions: Vec<String>,
    #[serde(default)]
    hypothetical: Vec<String>,
    #[serde(default)]
    polar: Vec<String>,
    #[serde(default)]
    passive_auxiliaries: Vec<String>,
    #[serde(default)]
    participles: Vec<String>,
    #[serde(default)]
    prepositions: Vec<String>,
    #[serde(default)]
    actors: Vec<String>,
    #[serde(default)]
    attribution: AttributionFile,
    #[serde(default)]
    blame: BlameFile,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttributionFile {
    #[serde(default)]
    groups: Vec<String>,
    #[serde(default)]
    holders: Vec<String>,
    #[serde(default)]
    views: Vec<String>,
    #[serde(default)]
    group_views: Vec<String>,
    #[serde(default)]
    habits: Vec<String>,
    #[serde(default)]
    markers: Vec<String>,
    #[serde(default)]
    era_words: Vec<String>,
    #[serde(default)]
    eras: Vec<String>,
    #[serde(default)]
    pairs: Vec<[String; 2]>,
    #[serde(default)]
    witnesses: Vec<String>,
    #[serde(default)]
    witnessed: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BlameFile {
    #[serde(default)]
    bug: Vec<String>,
    #[serde(default)]
    bug_pairs: Vec<[String; 2]>,
    #[serde(default)]
    fine: Vec<String>,
    #[serde(default)]
    blame_pairs: Vec<[String; 2]>,
    #[serde(default)]
    acquit_pairs: Vec<[String; 2]>,
    #[serde(default)]
    acquit_nouns: Vec<String>,
    #[serde(default)]
    as_intended: Vec<String>,
    #[serde(default)]
    conclusions: Vec<String>,
    #[serde(default)]
    pointers: Vec<String>,
}

/// A set of words compared as written.
#[derive(Debug, Default)]
pub struct Words(HashSet<String>);

impl Words {
    fn of(v: Vec<String>) -> Words {
        Words(v.into_iter().collect())
    }

    pub fn has(&self, w: &str) -> bool {
        self.0.contains(w)
    }
}

/// Pairs of words compared as written ("used to").
#[derive(Debug, Default)]
pub struct Pairs(Vec<[String; 2]>);

impl Pairs {
    /// Whether `words` holds one of the pairs side by side.
    pub fn in_words(&self, words: &[&str]) -> bool {
        words
            .windows(2)
            .any(|w| self.0.iter().any(|[a, b]| a == w[0] && b == w[1]))
    }
}

/// The lexicon, compiled: sets to look words up in.
#[derive(Debug, Default)]
pub struct Lexicon {
    pub stems: HashMap<String, String>,
    /// Synonym classes: the first word of each group, by the stems of its words (filled in by
    /// `words::synonym_table`, which needs the stems first).
    pub synonym_groups: Vec<Vec<String>>,
    pub stopwords: Words,
    pub generic: Vec<String>,
    pub negations: Words,
    pub not_affirming: Words,
    pub status_phrases: Words,
    pub only_markers: Words,
    pub wrong_conditions: Words,
    pub bad_verdicts: Words,
    pub tail_words: Words,
    pub tail_not_verdicts: Words,
    pub dismissals: Words,
    pub clause_openers: Words,
    pub subordinators: Words,
    pub claim_openers: Words,
    pub adverb_openers: Words,
    pub but_idioms: Words,
    pub abbreviations: Words,
    pub conditions: Words,
    pub hypothetical: Words,
    pub polar: Vec<String>,
    pub passive_auxiliaries: Words,
    pub participles: Words,
    pub prepositions: Words,
    /// Group specs (`server`, `load balancer`) for who can be the subject of an action.
    pub actors: Vec<String>,
    pub attribution: Attribution,
    pub blame: Blame,
}

#[derive(Debug, Default)]
pub struct Attribution {
    pub groups: Words,
    pub holders: Words,
    pub views: Words,
    pub group_views: Words,
    pub habits: Words,
    pub markers: Words,
    pub era_words: Words,
    pub eras: Words,
    pub pairs: Pairs,
    pub witnesses: Words,
    pub witnessed: Words,
}

#[derive(Debug, Default)]
pub struct Blame {
    pub bug: Words,
    pub bug_pairs: Pairs,
    pub fine: Words,
    pub blame_pairs: Pairs,
    pub acquit_pairs: Pairs,
    pub acquit_nouns: Words,
    pub as_intended: Words,
    pub conclusions: Words,
    pub pointers: Words,
}

/// The text of `decks/lexicon.toml`, compiled in.
pub const SOURCE: &str = include_str!("../../decks/lexicon.toml");

/// The lexicon, or why it cannot be read (`decks/lexicon.toml:LINE:COL: ...`).
pub fn parse(text: &str) -> Result<Lexicon, String> {
    let f: File = toml::from_str(text).map_err(|e| {
        let (line, col) = e
            .span()
            .map(|s| {
                let before = &text[..s.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                (line, col)
            })
            .unwrap_or((1, 1));
        format!("decks/lexicon.toml:{line}:{col}: {}", e.message().trim())
    })?;
    let a = f.attribution;
    let b = f.blame;
    Ok(Lexicon {
        stems: f.stems,
        synonym_groups: f.synonyms,
        stopwords: Words::of(f.stopwords),
        generic: f.generic,
        negations: Words::of(f.negations),
        not_affirming: Words::of(f.not_affirming),
        status_phrases: Words::of(f.status_phrases),
        only_markers: Words::of(f.only_markers),
        wrong_conditions: Words::of(f.wrong_conditions),
        bad_verdicts: Words::of(f.bad_verdicts),
        tail_words: Words::of(f.tail_words),
        tail_not_verdicts: Words::of(f.tail_not_verdicts),
        dismissals: Words::of(f.dismissals),
        clause_openers: Words::of(f.clause_openers),
        subordinators: Words::of(f.subordinators),
        claim_openers: Words::of(f.claim_openers),
        adverb_openers: Words::of(f.adverb_openers),
        but_idioms: Words::of(f.but_idioms),
        abbreviations: Words::of(f.abbreviations),
        conditions: Words::of(f.conditions),
        hypothetical: Words::of(f.hypothetical),
        polar: f.polar,
        passive_auxiliaries: Words::of(f.passive_auxiliaries),
        participles: Words::of(f.participles),
        prepositions: Words::of(f.prepositions),
        actors: f.actors,
        attribution: Attribution {
            groups: Words::of(a.groups),
            holders: Words::of(a.holders),
            views: Words::of(a.views),
            group_views: Words::of(a.group_views),
            habits: Words::of(a.habits),
            markers: Words::of(a.markers),
            era_words: Words::of(a.era_words),
            eras: Words::of(a.eras),
            pairs: Pairs(a.pairs),
            witnesses: Words::of(a.witnesses),
            witnessed: Words::of(a.witnessed),
        },
        blame: Blame {
            bug: Words::of(b.bug),
            bug_pairs: Pairs(b.bug_pairs),
            fine: Words::of(b.fine),
            blame_pairs: Pairs(b.blame_pairs),
            acquit_pairs: Pairs(b.acquit_pairs),
            acquit_nouns: Words::of(b.acquit_nouns),
            as_intended: Words::of(b.as_intended),
            conclusions: Words::of(b.conclusions),
            pointers: Words::of(b.pointers),
        },
    })
}

/// The built-in lexicon, parsed once.
pub fn lexicon() -> &'static Lexicon {
    static L: OnceLock<Lexicon> = OnceLock::new();
    L.get_or_init(|| parse(SOURCE).unwrap_or_default())
}

/// Why the built-in lexicon cannot be read, for `decks check`.
pub fn problem() -> Option<String> {
    parse(SOURCE).err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_lexicon_parses_and_is_not_empty() {
        let l = parse(SOURCE).expect("decks/lexicon.toml parses");
        assert!(l.negations.has("not") && l.negations.has("never"));
        assert!(l.stopwords.has("the"));
        assert!(l.attribution.views.has("think"));
        assert!(l.blame.bug.has("bug"));
        assert!(!l.synonym_groups.is_empty());
        assert_eq!(
            l.stems.get("notification").map(String::as_str),
            Some("notif")
        );
    }

    #[test]
    fn a_broken_lexicon_is_located() {
        let e = parse("stopwords = [\"a\",\nnegations = 3").unwrap_err();
        assert!(e.starts_with("decks/lexicon.toml:"), "{e}");
    }
}
