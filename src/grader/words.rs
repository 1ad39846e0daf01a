//! Word forms: Snowball stems with the lexicon's overrides, synonym classes, stopwords, typo
//! distance. Applied identically to answers and to the cards' words, so consistency matters
//! more than linguistic accuracy.

use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use super::lexicon::lexicon;

/// The stem of a word: Snowball's English (Porter 2) stemmer, after the lexicon's `[stems]`
/// (domain words whose families it would split). Identifiers and short words stay whole.
pub fn stem(word: &str) -> String {
    let w = word.strip_suffix("'s").unwrap_or(word);
    if let Some(s) = lexicon().stems.get(w) {
        return s.clone();
    }
    if !w.chars().all(|c| c.is_ascii_alphabetic()) || w.len() <= 3 {
        return w.to_string();
    }
    static EN: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    EN.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
        .stem(w)
        .into_owned()
}

fn synonym_table() -> &'static HashMap<String, String> {
    static TABLE: OnceLock<HashMap<String, String>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m = HashMap::default();
        for group in &lexicon().synonym_groups {
            let Some(head) = group.first().map(|w| stem(w)) else {
                continue;
            };
            for w in group {
                m.insert(stem(w), head.clone());
            }
        }
        m
    })
}

/// The synonym class of a stem.
pub fn canon(stem: &str) -> String {
    synonym_table()
        .get(stem)
        .cloned()
        .unwrap_or_else(|| stem.to_string())
}

/// Whether a synonym class is one of the lexicon's polar words (`must`, `first`, ...), whose
/// meaning a preceding "not" flips outright.
pub fn is_polar(canon: &str) -> bool {
    static POLAR: OnceLock<rustc_hash::FxHashSet<String>> = OnceLock::new();
    POLAR
        .get_or_init(|| lexicon().polar.iter().map(|w| word_key(w)).collect())
        .contains(canon)
}

/// The class of a free-text word: lower-cased, stemmed, synonym-classed.
pub fn word_key(w: &str) -> String {
    canon(&stem(&w.to_lowercase()))
}

/// Function words a phrase may drop or add without changing what it says.
pub fn is_stopword(w: &str) -> bool {
    lexicon().stopwords.has(w)
}

/// Whether `a` (from the answer) is a small typo of `b` (from the card): edit distance scaled
/// by length, never on short words, same first letter (people rarely mistype that one).
pub fn typo_close(a: &str, b: &str) -> bool {
    let n = b.chars().count();
    if n < 5 || a.chars().next() != b.chars().next() {
        return false;
    }
    let m = a.chars().count();
    // A letter doubled or undoubled ("ommited", "acknowleged", "cancelation") is the commonest
    // misspelling; it costs two edits, so it is forgiven outright on words long enough
    // (both six letters or more) to carry the word whatever the doubling.
    if n >= 6 && m >= 6 && squeeze(a) == squeeze(b) {
        return true;
    }
    let allowed = if n >= 9 { 2 } else { 1 };
    if m.abs_diff(n) > allowed {
        return false;
    }
    strsim::osa_distance(a, b) <= allowed
}

/// The word with every run of one letter written once.
fn squeeze(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    for c in w.chars() {
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
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
        assert_eq!(word_key("ack"), word_key("acknowledgement"));
        assert_eq!(word_key("must"), word_key("mandatory"));
        assert_eq!(word_key("identifier"), word_key("id"));
        assert_ne!(word_key("must"), word_key("may"));
        assert_eq!(word_key("carries"), word_key("includes"));
        assert_eq!(word_key("chosen"), word_key("picks"));
        // Over-broad classes split: closing a stream is not cancelling, a dropped connection
        // is not an ignored message.
        assert_ne!(word_key("aborting"), word_key("cancelled"));
        assert_ne!(word_key("dropped"), word_key("ignored"));
        assert_ne!(word_key("initialize"), word_key("first"));
        assert_ne!(word_key("identify"), word_key("id"));
    }

    #[test]
    fn typos_scale_with_length() {
        assert!(typo_close("mandatroy", "mandatory"));
        assert!(typo_close("acknowleg", "acknowledg"));
        assert!(!typo_close("sent", "send"));
        assert!(typo_close("ommited", "omitted"));
        assert!(!typo_close("server", "several"));
    }
}
