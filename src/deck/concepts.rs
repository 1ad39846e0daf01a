//! The domain vocabulary (`decks/concepts.toml`) and the red flags cards share.
//!
//! A concept names one idea of the protocol (the acknowledgement, "first", the subscription-id
//! tag, replay, ...) with every way candidates say it. Cards write `@name` inside a match group
//! instead of repeating the list, so a paraphrase learned once helps every card. A shared red
//! flag is one misconception (replay, a server-minted id, a session header, ...) defined once
//! and named by each card that can meet it in `shared_flags`.
//!
//! Both are resolved when a deck loads: the grader only ever sees plain groups and flags.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde::Deserialize;

use crate::card::{Card, RedFlag};

/// `decks/concepts.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    #[serde(default)]
    pub concepts: BTreeMap<String, Concept>,
    #[serde(default)]
    pub flags: Vec<RedFlag>,
    #[serde(default)]
    pub identifiers: Identifiers,
}

/// The protocol's identifiers, watched for near misses on every card.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identifiers {
    #[serde(default)]
    pub known: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Concept {
    /// What the concept is, for deck authors.
    #[serde(default)]
    #[expect(dead_code, reason = "written for deck authors; accepted, never shown")]
    pub about: String,
    /// Words and phrases that say it, matched like any group alternative (case, word form,
    /// synonyms and small typos forgiven). A form may itself name another concept (`@first`).
    #[serde(default)]
    pub forms: Vec<String>,
}

pub const CONCEPTS_FILE: &str = "concepts.toml";

/// The built-in vocabulary. A broken file is reported by `decks check`; loading goes on with
/// what parsed (nothing), so one bad edit never stops the quiz.
pub fn vocabulary() -> &'static Result<Vocabulary, String> {
    static V: OnceLock<Result<Vocabulary, String>> = OnceLock::new();
    V.get_or_init(|| {
        let text = super::embedded_text(CONCEPTS_FILE).unwrap_or("");
        toml::from_str::<Vocabulary>(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| super::locate::line_col(text, s.start))
                .unwrap_or((1, 1));
            format!(
                "decks/{CONCEPTS_FILE}:{line}:{column}: {}",
                e.message().trim()
            )
        })
    })
}

impl Vocabulary {
    /// The alternatives of `@name`, nested concepts expanded; `None` for an unknown name.
    #[cfg(test)]
    pub fn forms(&self, name: &str) -> Option<Vec<String>> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        self.collect(name, &mut out, &mut seen)?;
        Some(out)
    }

    fn collect(
        &self,
        name: &str,
        out: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> Option<()> {
        let c = self.concepts.get(name)?;
        if !seen.insert(name.to_string()) {
            return Some(());
        }
        for f in &c.forms {
            match f.strip_prefix('@') {
                Some(inner) => self.collect(inner.trim(), out, seen)?,
                None => out.push(f.clone()),
            }
        }
        Some(())
    }

    /// Expand every `@name` alternative of a group string; unknown names are returned apart.
    pub fn expand_group(
        &self,
        group: &str,
        unknown: &mut Vec<String>,
        used: &mut BTreeSet<String>,
    ) -> String {
        let mut alts = Vec::new();
        for alt in group.split('|') {
            let alt = alt.trim();
            match alt.strip_prefix('@') {
                Some(name) => {
                    let mut seen = BTreeSet::new();
                    match self.collect(name, &mut alts, &mut seen) {
                        Some(()) => used.extend(seen),
                        None => unknown.push(name.to_string()),
                    }
                }
                None => alts.push(alt.to_string()),
            }
        }
        alts.join("|")
    }

    pub fn flag(&self, id: &str) -> Option<&RedFlag> {
        self.flags.iter().find(|f| f.id == id)
    }
}

/// What resolving one card found wrong: unknown concept or shared-flag names.
#[derive(Debug, Default)]
pub struct Unresolved {
    pub concepts: Vec<String>,
    pub flags: Vec<String>,
}

/// A catalogue misconception with its `@concepts` expanded, and the concepts that named.
pub struct Misconception {
    flag: RedFlag,
    used: BTreeSet<String>,
    unknown: Vec<String>,
}

/// The catalogue's misconceptions (`catalogue::misconceptions`, passed in by the loader, which
/// sees both files) expanded once per load: every free-text card carries them, and expanding
/// them again for each card made a 10,000-card deck take seconds.
pub fn expand_misconceptions(catalogue: &[RedFlag], vocab: &Vocabulary) -> Vec<Misconception> {
    catalogue
        .iter()
        .map(|f| {
            let mut m = Misconception {
                flag: f.clone(),
                used: BTreeSet::new(),
                unknown: Vec::new(),
            };
            expand_flag(&mut m.flag, vocab, &mut m.unknown, &mut m.used);
            m
        })
        .collect()
}

fn expand_flag(
    f: &mut RedFlag,
    vocab: &Vocabulary,
    unknown: &mut Vec<String>,
    used: &mut BTreeSet<String>,
) {
    for r in &mut f.rules {
        for g in r.groups_mut() {
            *g = vocab.expand_group(g, unknown, used);
        }
    }
    for g in &mut f.guards {
        *g = vocab.expand_group(g, unknown, used);
    }
}

/// Give points and flags their default ids, attach the card's shared flags and the catalogue's
/// `misconceptions` (from [`expand_misconceptions`]), and expand `@name` concepts everywhere a
/// group is written. Records which concepts were used.
pub fn resolve(
    card: &mut Card,
    vocab: &Vocabulary,
    misconceptions: &[Misconception],
    used: &mut BTreeSet<String>,
) -> Unresolved {
    let mut un = Unresolved::default();
    card.identifiers = vocab.identifiers.known.clone();
    // The catalogue's misconceptions are checked on every free-text card's answers.
    let own = card.red_flags.len();
    if card.kind.free_text() {
        for m in misconceptions {
            if !card.red_flags.iter().any(|g| g.id == m.flag.id) {
                card.red_flags.push(m.flag.clone());
                for c in &m.used {
                    if !used.contains(c) {
                        used.insert(c.clone());
                    }
                }
                un.concepts.extend(m.unknown.iter().cloned());
            }
        }
    }
    // Those are expanded already.
    let catalogued = own..card.red_flags.len();
    for name in card.shared_flags.clone() {
        match vocab.flag(&name) {
            Some(f) if !card.red_flags.iter().any(|g| g.id == f.id) => {
                card.red_flags.push(f.clone())
            }
            Some(_) => {}
            None if misconceptions.iter().any(|m| m.flag.id == name) => {}
            None => un.flags.push(name),
        }
    }
    for (i, p) in card.points.iter_mut().enumerate() {
        if p.id.is_empty() {
            p.id = format!("p{}", i + 1);
        }
        for r in &mut p.rules {
            for g in r.groups_mut() {
                *g = vocab.expand_group(g, &mut un.concepts, used);
            }
        }
    }
    for (i, f) in card.red_flags.iter_mut().enumerate() {
        if f.id.is_empty() {
            f.id = format!("f{}", i + 1);
        }
        if !catalogued.contains(&i) {
            expand_flag(f, vocab, &mut un.concepts, used);
        }
    }
    un
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vocabulary {
        toml::from_str(
            r#"
            [concepts.first]
            forms = ["first", "before"]
            [concepts.ack]
            forms = ["ack", "acknowledgement"]
            [concepts.opening]
            forms = ["@first", "opening", "@ack"]
            "#,
        )
        .unwrap()
    }

    #[test]
    fn expands_nested_concepts_once() {
        let v = vocab();
        assert_eq!(
            v.forms("opening").unwrap(),
            vec!["first", "before", "opening", "ack", "acknowledgement"]
        );
        let mut unknown = Vec::new();
        let mut used = BTreeSet::new();
        assert_eq!(
            v.expand_group("@ack|confirmation|@nope", &mut unknown, &mut used),
            "ack|acknowledgement|confirmation"
        );
        assert_eq!(unknown, vec!["nope"]);
        assert!(used.contains("ack"));
    }
}
