//! Word forms: Snowball stems with our overrides, domain synonyms, stopwords, typo distance.

use super::*;

/// Words irregular enough that suffix stripping would split their family.
pub(super) const IRREGULAR: &[(&str, &str)] = &[
    ("notify", "notif"),
    ("notifies", "notif"),
    ("notified", "notif"),
    ("notifying", "notif"),
    ("notification", "notif"),
    ("notifications", "notif"),
    ("notif", "notif"),
    ("notifs", "notif"),
    ("cancellation", "cancel"),
    ("cancelation", "cancel"),
    ("cancellations", "cancel"),
    ("ids", "id"),
    ("acks", "ack"),
    ("acked", "ack"),
    ("acking", "ack"),
    ("sent", "send"),
    ("sending", "send"),
    ("sends", "send"),
    ("began", "begin"),
    ("begun", "begin"),
    ("lost", "lose"),
    ("chosen", "choos"),
    ("chose", "choos"),
    ("ambiguity", "ambigu"),
    ("ambiguous", "ambigu"),
    ("ambiguities", "ambigu"),
    ("mandated", "mandat"),
    ("mandatory", "mandatori"),
    ("reconnection", "reconnect"),
    // Snowball folds "initialize" into "initial", which is "first": the handshake is not.
    ("initialize", "initializ"),
    ("initialise", "initializ"),
    ("initialized", "initializ"),
    ("initialised", "initializ"),
    ("initializes", "initializ"),
    ("initialization", "initializ"),
    ("initialisation", "initializ"),
    ("initializing", "initializ"),
    // Snowball gives "identify" the stem of "identifier", which is "id".
    ("identify", "identify"),
    ("identifies", "identify"),
    ("identified", "identify"),
    ("identifying", "identify"),
    ("subscribe", "subscrib"),
    ("subscribes", "subscrib"),
    ("subscribed", "subscrib"),
    ("subscribing", "subscrib"),
    ("subscription", "subscrib"),
    ("subscriptions", "subscrib"),
    ("notes", "note"),
    ("connection", "connect"),
    ("connections", "connect"),
];

/// The stem of a word: Snowball's English (Porter 2) stemmer, after a few domain words whose
/// families it would split (notify / notification, subscribe / subscription). Identifiers and
/// short words stay whole. Applied identically to answers and to the cards' words, so
/// consistency matters more than linguistic accuracy.
pub fn stem(word: &str) -> String {
    let w = word.strip_suffix("'s").unwrap_or(word);
    if let Some(&(_, s)) = IRREGULAR.iter().find(|(k, _)| *k == w) {
        return s.to_string();
    }
    if !w.chars().all(|c| c.is_ascii_alphabetic()) || w.len() <= 3 {
        return w.to_string();
    }
    static EN: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    EN.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
        .stem(w)
        .into_owned()
}

/// Synonym groups for this domain. The first word names the class.
pub(super) const SYNONYMS: &[&[&str]] = &[
    &[
        "ack",
        "acknowledge",
        "acknowledgement",
        "acknowledgment",
        "acknowledged",
        "acknowledging",
    ],
    &[
        "must",
        "required",
        "require",
        "mandatory",
        "obligatory",
        "compulsory",
        "shall",
        "requirement",
        "mandated",
        "obliged",
        "obligated",
        "obligation",
        "necessary",
    ],
    &["id", "identifier", "ident"],
    &[
        "end",
        "close",
        "terminate",
        "finish",
        "shut",
        "closure",
        "ending",
        "termination",
    ],
    &["send", "emit", "transmit", "dispatch"],
    &[
        "replay",
        "redeliver",
        "redelivery",
        "retransmit",
        "backfill",
    ],
    &["every", "each", "all"],
    &["before", "prior", "precede", "preceding", "ahead"],
    &[
        "after",
        "subsequent",
        "subsequently",
        "following",
        "later",
        "afterwards",
    ],
    &["first", "initial", "firstly"],
    &["ambiguous", "ambiguity", "unclear", "indistinguishable"],
    &["response", "reply"],
    // "drop" stays out: a dropped connection is no ignored message.
    &["ignore", "discard", "disregard"],
    &["meta", "metadata"],
    // "abort" is no synonym of "cancel": aborting a stream (closing it) is not sending
    // `notifications/cancelled`, and cards tell the two apart.
    &["header", "headers"],
    &["optional", "optionally"],
    &["forbidden", "prohibited", "disallowed"],
    &["reconnect", "reconnection"],
    &["error", "errors"],
    &["json", "jsonrpc"],
    &["carry", "include", "contain", "bear"],
    &["should", "recommended", "ought"],
    &["allowed", "permitted"],
    &["omit", "exclude", "omission"],
    &["reject", "refuse", "decline", "rejection"],
    &[
        "correlate",
        "associate",
        "attribute",
        "demultiplex",
        "demux",
        "correlation",
    ],
    &["echo", "mirror", "repeat"],
    &["choose", "pick", "select", "chosen", "chose"],
    &["assign", "allocate", "mint", "generate"],
    &["start", "begin"],
    &["same", "identical", "equal"],
];

pub(super) fn synonym_table() -> &'static HashMap<String, String> {
    static TABLE: OnceLock<HashMap<String, String>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m = HashMap::new();
        for group in SYNONYMS {
            let head = stem(group[0]);
            for w in *group {
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

/// Function words a phrase may drop or add without changing what it says. Negations, modals
/// ("will send" is a promise, "can" a permission) and the words that carry order or quantity
/// ("before", "every", "only") are never here.
pub fn is_stopword(w: &str) -> bool {
    const STOP: &[&str] = &[
        "a", "an", "the", "of", "to", "in", "on", "for", "is", "are", "was", "were", "be", "been",
        "being", "it", "its", "it's", "that", "this", "these", "those", "with", "by", "as", "at",
        "from", "into", "onto", "then", "there", "their", "they", "them", "its", "also", "very",
        "really", "simply", "just", "itself", "i", "you", "we", "your", "our", "my", "some",
        "which", "who", "what", "s",
    ];
    STOP.contains(&w)
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
pub(super) fn squeeze(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    for c in w.chars() {
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}
