//! Decks: the card model, loading with located errors, and validation.
//!
//! Loading never fails as a whole: each deck file is parsed and validated on its own, and every
//! problem becomes a [`DeckError`] naming the file, line and column, so one broken deck never
//! hides the others.

pub(crate) mod catalogue;
pub(crate) mod concepts;
pub(crate) mod content_checks;
pub mod eval;
pub(crate) mod export;
pub mod facts;
mod facts_tested;
mod lint;
mod load;
pub(crate) mod locate;
pub mod model;
pub(crate) mod rubric;
mod toml10;
pub mod validate;

use std::fmt;
use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};
use serde::Serialize;

use crate::card::Card;

/// The shipped decks, embedded so an installed binary works anywhere.
static EMBEDDED: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/decks");

/// The file beside the decks that lists the quiz facts; never loaded as a deck.
pub const FACTS_FILE: &str = "facts.toml";
/// The grader's English (`grader::lexicon`): data beside the decks, not a deck.
pub const LEXICON_FILE: &str = "lexicon.toml";

/// One loaded deck file.
#[derive(Debug, Clone, Serialize)]
pub struct Deck {
    pub meta: model::DeckMeta,
    pub cards: Vec<Card>,
    /// Where it came from: `decks/x.toml` for an embedded deck, else the file's path.
    pub source: String,
    /// The `@concepts` its cards use (for `decks check`'s unused-concept report).
    #[serde(skip)]
    pub concepts_used: std::collections::BTreeSet<String>,
}

impl Deck {
    pub fn card(&self, id: &str) -> Option<&Card> {
        self.cards.iter().find(|c| c.id == id)
    }

    /// The `DECK/CARD` key progress is stored under.
    pub fn key(&self, card: &Card) -> String {
        format!("{}/{}", self.meta.id, card.id)
    }
}

/// A located problem in a deck file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeckError {
    pub file: String,
    /// 1-based; 0 when the problem is not tied to a place in a file (e.g. an unreadable folder).
    pub line: usize,
    /// 1-based.
    pub column: usize,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for DeckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for DeckError {}

/// Every deck that loaded, and every problem found on the way.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Library {
    pub decks: Vec<Deck>,
    pub errors: Vec<DeckError>,
}

impl Library {
    /// The decks a command works on: the embedded decks, each `--decks DIR`, and the user's
    /// decks folder (`paths::user_decks_dir()`) when it exists.
    pub fn load(deck_dirs: &[PathBuf]) -> Library {
        let mut dirs = deck_dirs.to_vec();
        if let Some(user) = crate::paths::user_decks_dir().filter(|u| u.is_dir())
            && !dirs.contains(&user)
        {
            dirs.push(user);
        }
        Library::from_dirs(&dirs, true)
    }

    /// Only the decks shipped inside the binary.
    pub fn embedded() -> Library {
        Library::from_dirs(&[], true)
    }

    /// Give every card what the whole library teaches as true (see `Card::truths`): its
    /// cards' answers, ladders, explanations and corrections, and the facts. Done once, after
    /// the last deck is in, so loading stays linear in the number of cards.
    fn attach_truths(&mut self) {
        let mut texts: Vec<String> = self
            .cards()
            .flat_map(|(_, c)| crate::grader::card_texts(c))
            .collect();
        texts.extend(facts::all().iter().map(|f| f.text.clone()));
        texts.extend(catalogue::truths().map(str::to_string));
        let texts = std::sync::Arc::new(texts);
        for d in &mut self.decks {
            for c in &mut d.cards {
                c.truths = texts.clone();
            }
        }
    }

    /// Decks from folders (top-level `*.toml` only, `facts.toml` skipped), optionally after the
    /// embedded decks. A folder that cannot be read is an error, not a panic.
    pub fn from_dirs(dirs: &[PathBuf], with_embedded: bool) -> Library {
        let mut lib = Library::read_dirs(dirs, with_embedded);
        lib.check_replacements();
        lib
    }

    fn read_dirs(dirs: &[PathBuf], with_embedded: bool) -> Library {
        let mut lib = Library::default();
        if with_embedded {
            for (source, text) in embedded_files() {
                lib.add_text(&source, text);
            }
        }
        for dir in dirs {
            match deck_files_in(dir) {
                Ok((files, skipped)) => {
                    lib.errors.extend(skipped);
                    for f in files {
                        lib.add_file(&f);
                    }
                }
                Err(e) => lib.errors.push(DeckError {
                    file: dir.display().to_string(),
                    line: 0,
                    column: 0,
                    message: format!("cannot read deck folder: {e} (check the --decks path)"),
                }),
            }
        }
        lib.attach_truths();
        lib
    }

    /// Decks from explicit paths: files are loaded as given, folders as in [`Library::from_dirs`].
    pub fn from_paths(paths: &[PathBuf]) -> Library {
        let mut lib = Library::default();
        for p in paths {
            if p.is_dir() {
                let more = Library::read_dirs(std::slice::from_ref(p), false);
                lib.merge(more);
            } else {
                lib.add_file(p);
            }
        }
        lib.attach_truths();
        lib.check_replacements();
        lib
    }

    /// `(replaced, replacement)` progress keys, one per `replaces` entry: the history of the
    /// first is the second's (`Store::carry_over`).
    pub fn replacements(&self) -> Vec<(String, String)> {
        self.cards()
            .flat_map(|(d, c)| c.replaces.iter().map(move |r| (r.clone(), d.key(c))))
            .collect()
    }

    /// A replaced card must be gone, and its history can go to one card only.
    fn check_replacements(&mut self) {
        use std::collections::HashMap;
        let live: HashMap<String, &str> = self
            .cards()
            .map(|(d, c)| (d.key(c), d.source.as_str()))
            .collect();
        let mut claimed: HashMap<&str, String> = HashMap::new();
        let mut errors = Vec::new();
        for (deck, card) in self.cards() {
            let key = deck.key(card);
            for r in &card.replaces {
                let message = if let Some(source) = live.get(r) {
                    format!(
                        "card `{key}` replaces `{r}`, which still exists in {source}: a replaced card is one that is gone (remove it, or drop it from `replaces`)"
                    )
                } else if let Some(first) = claimed.insert(r, key.clone()) {
                    format!(
                        "`{r}` is replaced by both `{first}` and `{key}`; its history can go to one card only"
                    )
                } else {
                    continue;
                };
                errors.push(DeckError {
                    file: deck.source.clone(),
                    line: 0,
                    column: 0,
                    message,
                });
            }
        }
        self.errors.extend(errors);
    }

    fn merge(&mut self, other: Library) {
        self.errors.extend(other.errors);
        for d in other.decks {
            self.push_deck(d, None);
        }
    }

    /// Load one deck file from disk. Only a regular file is read: a FIFO named `*.toml` would
    /// block the read forever.
    pub fn add_file(&mut self, path: &Path) {
        let source = path.display().to_string();
        if let Some(message) = not_a_deck_file(path) {
            self.errors.push(DeckError {
                file: source,
                line: 0,
                column: 0,
                message,
            });
            return;
        }
        match std::fs::read_to_string(path) {
            Ok(text) => self.add_text(&source, &text),
            Err(e) => self.errors.push(DeckError {
                file: source,
                line: 0,
                column: 0,
                message: format!("cannot read deck file: {e}"),
            }),
        }
    }

    /// Parse and validate one deck's text; `source` names it in errors.
    pub fn add_text(&mut self, source: &str, text: &str) {
        let (deck, errors) = load::parse_deck(source, text);
        self.errors.extend(errors);
        if let Some(deck) = deck {
            self.push_deck(deck, Some(text));
        }
    }

    fn push_deck(&mut self, deck: Deck, text: Option<&str>) {
        if let Some(first) = self.decks.iter().find(|d| d.meta.id == deck.meta.id) {
            let (line, column) = text
                .and_then(|t| locate::find_key_line(t, "id", &deck.meta.id, 0))
                .unwrap_or((1, 1));
            self.errors.push(DeckError {
                file: deck.source.clone(),
                line,
                column,
                message: format!(
                    "deck id `{}` is already used by {}; give this deck another id (cards are addressed as DECK/CARD)",
                    deck.meta.id, first.source
                ),
            });
            return;
        }
        self.decks.push(deck);
    }

    /// Decks whose id a built-in deck already uses: at run time the built-in deck is loaded
    /// first and these are skipped, so `decks check DIR` reports them.
    pub fn embedded_clashes(&self) -> Vec<DeckError> {
        let shipped: Vec<(String, String)> = embedded_files()
            .into_iter()
            .filter_map(|(source, text)| {
                let (deck, _) = load::parse_deck(&source, text);
                deck.map(|d| (d.meta.id, source))
            })
            .collect();
        self.decks
            .iter()
            .filter_map(|d| {
                let (_, builtin) = shipped.iter().find(|(id, _)| *id == d.meta.id)?;
                let (line, column) = std::fs::read_to_string(&d.source)
                    .ok()
                    .and_then(|t| locate::find_key_line(&t, "id", &d.meta.id, 0))
                    .unwrap_or((1, 1));
                Some(DeckError {
                    file: d.source.clone(),
                    line,
                    column,
                    message: format!(
                        "deck id `{}` is already used by the built-in deck {builtin}, so this deck would be skipped when loaded beside it; give it another id",
                        d.meta.id
                    ),
                })
            })
            .collect()
    }

    pub fn deck(&self, id: &str) -> Option<&Deck> {
        self.decks.iter().find(|d| d.meta.id == id)
    }

    /// Look a card up by `DECK/CARD`; a bare `CARD` works too when exactly one deck has it.
    pub fn card(&self, key: &str) -> Option<(&Deck, &Card)> {
        if let Some((deck, card)) = key.split_once('/') {
            let d = self.deck(deck)?;
            return d.card(card).map(|c| (d, c));
        }
        let mut found = self.cards().filter(|(_, c)| c.id == key);
        let first = found.next()?;
        if found.next().is_some() {
            return None;
        }
        Some(first)
    }

    /// Every card of every deck, deck order then card order.
    pub fn cards(&self) -> impl Iterator<Item = (&Deck, &Card)> {
        self.decks
            .iter()
            .flat_map(|d| d.cards.iter().map(move |c| (d, c)))
    }
}

/// `(source, text)` of each embedded deck, sorted by file name.
fn embedded_files() -> Vec<(String, &'static str)> {
    let mut files: Vec<_> = EMBEDDED
        .files()
        .filter(|f| is_deck_file(f.path()))
        .filter_map(|f| {
            let text = f.contents_utf8()?;
            Some((format!("decks/{}", f.path().display()), text))
        })
        .collect();
    files.sort();
    files
}

/// The text of an embedded file, by its name inside `decks/`.
pub fn embedded_text(name: &str) -> Option<&'static str> {
    EMBEDDED.get_file(name).and_then(|f| f.contents_utf8())
}

/// The embedded `decks/facts.toml`.
pub(crate) fn embedded_facts_text() -> &'static str {
    EMBEDDED
        .get_file(FACTS_FILE)
        .and_then(|f| f.contents_utf8())
        .unwrap_or("")
}

fn is_deck_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "toml")
        && path.file_name().is_some_and(|n| {
            n != FACTS_FILE
                && n != LEXICON_FILE
                && n != concepts::CONCEPTS_FILE
                && n != catalogue::CATALOGUE_FILE
        })
}

/// `(name, text)` of every embedded file under `dir` (recursively), sorted by name.
pub fn embedded_under(dir: &str) -> Vec<(String, &'static str)> {
    fn walk(d: &'static Dir<'static>, out: &mut Vec<(String, &'static str)>) {
        for f in d.files() {
            if let Some(t) = f.contents_utf8() {
                out.push((f.path().display().to_string(), t));
            }
        }
        for sub in d.dirs() {
            walk(sub, out);
        }
    }
    let mut out = Vec::new();
    if let Some(d) = EMBEDDED.get_dir(dir) {
        walk(d, &mut out);
    }
    out.sort();
    out
}

/// Why `path` cannot be read as a deck, if it cannot: a symlink loop or a dangling link, a
/// FIFO, socket or device, or a folder. Checked without opening it, so nothing blocks.
fn not_a_deck_file(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => None,
        Ok(m) if m.is_dir() => Some("is a folder, not a deck file; skipped".into()),
        Ok(_) => Some(
            "is not a regular file (a FIFO, socket or device); a deck must be a regular .toml file, so it was skipped"
                .into(),
        ),
        Err(e) => {
            let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            Some(if link {
                format!(
                    "is a symbolic link that leads nowhere readable ({e}: a link loop or a missing target); fix or remove the link. Skipped"
                )
            } else {
                format!("cannot read deck file: {e}")
            })
        }
    }
}

/// The `*.toml` files in `dir`, sorted, with a warning for each `*.toml` entry that is not a
/// readable regular file (rather than skipping it without a word).
fn deck_files_in(dir: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<DeckError>)> {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        // A folder that happens to end in `.toml` is not meant as a deck.
        if !is_deck_file(&path) || path.is_dir() {
            continue;
        }
        match not_a_deck_file(&path) {
            None => files.push(path),
            Some(message) => skipped.push(DeckError {
                file: path.display().to_string(),
                line: 0,
                column: 0,
                message,
            }),
        }
    }
    files.sort();
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    Ok((files, skipped))
}

pub use lint::Unused;

/// The alternatives of a format-2 deck nothing uses (see `lint::unused`).
pub fn unused_alternatives(
    deck: &Deck,
    text: &str,
    corpus: &dyn Fn(&str) -> Vec<String>,
) -> Vec<Unused> {
    if deck.meta.format() < model::FORMAT_VERSION {
        return Vec::new();
    }
    lint::unused(deck, text, corpus)
}

/// `decks check`'s lints on how a deck writes its claims (see `lint`).
pub fn lint_check(deck: &Deck, text: &str) -> Vec<DeckError> {
    if deck.meta.format() < model::FORMAT_VERSION {
        return Vec::new();
    }
    lint::check(deck, text)
}
