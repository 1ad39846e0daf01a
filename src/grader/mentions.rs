//! Stage 4: every place the answer mentions one of a rubric's groups, found in one pass.
//!
//! An [`Index`] holds the groups of one rubric (a card's points and flags, the catalogue's
//! misconceptions, the lexicon's actors), each alternative filed under its first word. Reading
//! an answer is then one walk over its words: at each word only the alternatives that can start
//! there are tried, instead of every alternative of every group.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::phrase::{Group, Occurrence, phrase_at};
use super::segment::{Segments, Token};
use super::words::typo_close;

/// A group's number in its index.
pub type GroupId = usize;

/// The groups of one rubric, filed for lookup.
#[derive(Debug, Default)]
pub struct Index {
    groups: Vec<Group>,
    /// Group spec as written → id, so a group named twice is matched once.
    ids: HashMap<String, GroupId>,
    /// First-word key (canon, written form, or a two-word compound) → (group, alternative).
    by_key: HashMap<String, Vec<(GroupId, usize)>>,
    /// Plain first words (five letters or more) by their first letter, for misspellings:
    /// (written form, stem, canon).
    fuzzy: HashMap<char, Vec<(String, String, String)>>,
    /// Every word of every alternative (canon and written form): a word of the answer found
    /// here is no misspelling.
    words: HashSet<String>,
}

/// Where each group of an index occurs in one answer.
#[derive(Debug, Default)]
pub struct Mentions {
    per_group: Vec<Vec<Occurrence>>,
}

impl Mentions {
    /// Every (group, alternative) that occurred.
    pub fn alternatives(&self) -> impl Iterator<Item = (GroupId, usize)> + '_ {
        self.per_group
            .iter()
            .enumerate()
            .flat_map(|(g, occ)| occ.iter().map(move |o| (g, o.alt)))
    }

    /// The occurrences of group `g`, in answer order.
    pub fn of(&self, g: GroupId) -> &[Occurrence] {
        self.per_group.get(g).map_or(&[], Vec::as_slice)
    }
}

impl Index {
    /// The id of the group written `spec`, adding it if it is new.
    pub fn add(&mut self, spec: &str) -> GroupId {
        if let Some(&id) = self.ids.get(spec) {
            return id;
        }
        let g = Group::parse(spec);
        let id = self.groups.len();
        for (k, alt) in g.alts.iter().enumerate() {
            for w in &alt.words {
                self.words.insert(w.canon.clone());
                self.words.insert(w.norm.clone());
            }
            let Some(first) = alt.words.first() else {
                continue;
            };
            let mut keys = vec![first.canon.clone(), first.norm.clone()];
            if let Some(second) = alt.words.get(1) {
                keys.push(format!("{}{}", first.norm, second.norm));
            }
            keys.sort();
            keys.dedup();
            for key in keys {
                self.by_key.entry(key).or_default().push((id, k));
            }
            if first.plain
                && first.norm.chars().count() >= 5
                && let Some(c) = first.norm.chars().next()
            {
                let bucket = self.fuzzy.entry(c).or_default();
                let entry = (first.norm.clone(), first.stem.clone(), first.canon.clone());
                if !bucket.contains(&entry) {
                    bucket.push(entry);
                }
            }
        }
        self.groups.push(g);
        self.ids.insert(spec.to_string(), id);
        id
    }

    pub fn group(&self, g: GroupId) -> Option<&Group> {
        self.groups.get(g)
    }

    /// Every occurrence of every group in the answer. With `typos`, plain words may be small
    /// misspellings of a phrase's words (such occurrences are marked), unless the rubric or
    /// `known` (the words the library writes) knows them as they are: a misspelling is rare,
    /// and checking every word against every phrase word was most of the grader's time.
    pub fn find(&self, s: &Segments, typos: bool, known: &dyn Fn(&Token) -> bool) -> Mentions {
        let mut per_group: Vec<Vec<Occurrence>> = vec![Vec::new(); self.groups.len()];
        let mut tried: Vec<(GroupId, usize)> = Vec::new();
        let maybe: Vec<bool> = s
            .tokens
            .iter()
            .map(|t| {
                typos
                    && t.plain
                    && t.norm.chars().count() >= 4
                    && !self.words.contains(&t.canon)
                    && !self.words.contains(&t.norm)
                    && !known(t)
            })
            .collect();
        let may_be_typo = |j: usize| maybe.get(j).copied().unwrap_or(false);
        for (i, t) in s.tokens.iter().enumerate() {
            tried.clear();
            let mut keys: Vec<String> = vec![t.canon.clone(), t.norm.clone()];
            if let Some(n) = s.tokens.get(i + 1).filter(|n| n.claim == t.claim) {
                keys.push(format!("{}{}", t.norm, n.norm));
            }
            if may_be_typo(i)
                && let Some(bucket) = t.norm.chars().next().and_then(|c| self.fuzzy.get(&c))
            {
                for (norm, stem, canon) in bucket {
                    if norm != &t.norm && (typo_close(&t.stem, stem) || typo_close(&t.norm, norm)) {
                        keys.push(canon.clone());
                        keys.push(norm.clone());
                    }
                }
            }
            for key in &keys {
                let Some(cands) = self.by_key.get(key) else {
                    continue;
                };
                for &(g, k) in cands {
                    if tried.contains(&(g, k)) {
                        continue;
                    }
                    tried.push((g, k));
                    // One occurrence per group and word; one found as written replaces one
                    // found through a misspelling (red flags use only the former).
                    let last = per_group[g].last().filter(|o| o.first == i).copied();
                    if last.is_some_and(|o| !o.typo) {
                        continue;
                    }
                    let alt = &self.groups[g].alts[k];
                    if let Some(o) = phrase_at(s, i, alt, &may_be_typo) {
                        let found = Occurrence { alt: k, ..o };
                        match last {
                            Some(_) if !found.typo => {
                                per_group[g].pop();
                                per_group[g].push(found);
                            }
                            Some(_) => {}
                            None => per_group[g].push(found),
                        }
                    }
                }
            }
        }
        Mentions { per_group }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_finds_every_group() {
        let mut ix = Index::default();
        let ack = ix.add("ack|acknowledgement|confirmation message");
        let first = ix.add("first|before|ahead of");
        let again = ix.add("ack|acknowledgement|confirmation message");
        assert_eq!(ack, again);
        let s = Segments::new("The acknowledgment comes first, ahead of any confirmation message.");
        let m = ix.find(&s, true, &|_| false);
        assert_eq!(m.of(ack).len(), 2);
        assert_eq!(m.of(first).len(), 2);
        let s = Segments::new("The acknowlegement comes frist.");
        let m = ix.find(&s, true, &|_| false);
        assert_eq!(m.of(ack).len(), 1);
        assert!(m.of(ack)[0].typo);
        assert!(ix.find(&s, false, &|_| false).of(ack).is_empty());
    }
}
