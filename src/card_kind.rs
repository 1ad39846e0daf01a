//! What each card kind means above the model: how a deck checks it, how the quiz asks it and
//! shows its answer, and how the exports write it.
//!
//! `card.rs` declares a kind (its variant and fields) and `grader/` grades it; everything else
//! a kind needs is one [`Kind`] implementation here, reached through [`of`]. A new kind is its
//! variant and fields in `card.rs`, a block in this file, and its grader: the match in [`of`]
//! has no `_` arm, so a variant without a block does not compile.
//!
//! This module sits above the grader (it uses the grader's cloze and order helpers) and below
//! `deck/` and `quiz/`, so what it hands up is plain data: [`Problem`]s that the deck checker
//! locates, [`Piece`] lines that the quiz's screen lays out, text for the exports.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::card::{Card, CardKind};
use crate::grader;

/// What `hint` shows for most kinds, one line a time: the points to cover (required first), the
/// kind's last hint, then the first rung of the ladder.
fn hints_by_points(kind: &dyn Kind, card: &Card) -> Vec<String> {
    let mut order: Vec<&crate::card::Point> = card.points.iter().filter(|p| p.required).collect();
    order.extend(card.points.iter().filter(|p| !p.required));
    let mut out: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(i, p)| format!("cover this: {} ({} of {})", p.label, i + 1, order.len()))
        .collect();
    if let Some(h) = kind.last_hint(card) {
        out.push(h);
    } else if let Some(step) = card.deeper.as_ref().and_then(|d| d.steps.first()) {
        out.push(step.clone());
    }
    out
}

/// Every kind, in the order the enum declares them (the derived `ValueEnum` table, so a new
/// variant is listed without anyone remembering to).
pub fn all() -> &'static [CardKind] {
    <CardKind as clap::ValueEnum>::value_variants()
}

/// The behaviour of `kind`.
pub fn of(kind: CardKind) -> &'static dyn Kind {
    match kind {
        CardKind::Recall => &Recall,
        CardKind::NameIt => &NameIt,
        CardKind::Cloze => &Cloze,
        CardKind::Choice => &Choice,
        CardKind::Order => &Order,
        CardKind::SpotTheBug => &SpotTheBug,
    }
}

/// The fields only one kind uses, and whether `card` sets them: a card of another kind that
/// sets one is told so rather than having it silently ignored.
pub fn kind_fields(card: &Card) -> [(&'static str, bool); 4] {
    [
        ("choices", !card.choices.is_empty()),
        ("items", !card.items.is_empty()),
        ("cloze", card.cloze.is_some()),
        ("transcript", card.transcript.is_some()),
    ]
}

/// A problem with one card, found by its kind's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The field it is about (`choices`, `bug_line`), or `None` for the card as a whole.
    pub field: Option<&'static str>,
    pub message: String,
}

impl Problem {
    fn card(message: String) -> Problem {
        Problem {
            field: None,
            message,
        }
    }

    fn field(field: &'static str, message: String) -> Problem {
        Problem {
            field: Some(field),
            message,
        }
    }
}

/// One piece of what the quiz shows for a kind; the screen decides how it is wrapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Prose after a mark (`a.`, `1.`), wrapped under itself.
    Item { mark: String, text: String },
    /// Lines shown as written, indented, never wrapped (JSON, a numbered transcript).
    Code(String),
    /// A faint aside (the transcript's language).
    Aside(String),
    /// One line of prose.
    Line(String),
}

/// The [`Kind`] methods of a prose-only kind: no field of its own, nothing shown beyond the
/// question and the model answer. A macro, not default methods, so that every kind still
/// says what it shows.
macro_rules! prose_only {
    () => {
        fn own_fields(&self) -> &'static [&'static str] {
            &[]
        }
        fn prompt(&self, _card: &Card) -> Vec<Piece> {
            Vec::new()
        }
        fn reveal(&self, _card: &Card) -> Vec<Piece> {
            Vec::new()
        }
        fn last_hint(&self, _card: &Card) -> Option<String> {
            None
        }
        fn markdown(&self, _card: &Card, _out: &mut String) {}
        fn anki_front(&self, _card: &Card, _out: &mut String) {}
        fn anki_back(&self, _card: &Card, _out: &mut String) {}
    };
}

/// What a kind means outside the model and the grader. No method has a default: a new kind
/// says what it does at every one of them, or does not compile.
pub trait Kind: Sync {
    /// How the quiz names the kind in a question's header (`spot the bug`).
    fn label(&self) -> &'static str;
    /// Answered in one line, Enter finishing it; the others take several lines.
    fn single_line(&self) -> bool;
    /// The line under the question saying how to answer.
    fn how_to_answer(&self) -> &'static str;
    /// The card field(s) from [`kind_fields`] that this kind uses.
    fn own_fields(&self) -> &'static [&'static str];
    /// Whether the card's `answer` text is its golden self-test (the structured kinds build
    /// theirs from their fields instead).
    fn needs_answer_text(&self) -> bool;
    /// The kind's own checks of a card.
    fn check(&self, card: &Card) -> Vec<Problem>;
    /// What the quiz shows under the question.
    fn prompt(&self, card: &Card) -> Vec<Piece>;
    /// What the quiz shows after the verdict, before the model answers.
    fn reveal(&self, card: &Card) -> Vec<Piece>;
    /// A hint once the key points are all hinted.
    fn last_hint(&self, card: &Card) -> Option<String>;
    /// What `hint` shows, one line a time.
    fn hints(&self, card: &Card) -> Vec<String>;
    /// The study sheet's lines for the kind's fields, after the question's meta line.
    fn markdown(&self, card: &Card, out: &mut String);
    /// Anki's front, after the question (HTML).
    fn anki_front(&self, card: &Card, out: &mut String);
    /// Anki's back, before the model answers (HTML).
    fn anki_back(&self, card: &Card, out: &mut String);
}

struct Recall;

impl Kind for Recall {
    fn label(&self) -> &'static str {
        "free recall"
    }
    fn single_line(&self) -> bool {
        false
    }
    fn how_to_answer(&self) -> &'static str {
        "Answer in as many lines as you like; finish with an empty line (or a line with just `.`). Commands: hint, deeper, skip, undo, help, quit."
    }
    fn needs_answer_text(&self) -> bool {
        true
    }
    fn check(&self, card: &Card) -> Vec<Problem> {
        if card.points.iter().any(|p| p.required) {
            return Vec::new();
        }
        vec![Problem::card(format!(
            "recall card `{}` has no required point; mark the points an interviewer must hear with `required = true`",
            card.id
        ))]
    }
    prose_only!();
    fn hints(&self, card: &Card) -> Vec<String> {
        hints_by_points(self, card)
    }
}

struct NameIt;

impl Kind for NameIt {
    fn label(&self) -> &'static str {
        "name it"
    }
    fn single_line(&self) -> bool {
        true
    }
    fn how_to_answer(&self) -> &'static str {
        "Type the exact name and press Enter. Commands: hint, deeper, skip, undo, help, quit."
    }
    /// A point's label is the name itself, so a hint describes the name's shape instead.
    fn hints(&self, card: &Card) -> Vec<String> {
        card.points
            .iter()
            .filter(|p| p.required)
            .filter_map(|p| p.rules.iter().find_map(|r| r.exact.first()))
            .flat_map(|name| crate::name_hint::shape_hints(name))
            .collect()
    }
    fn needs_answer_text(&self) -> bool {
        true
    }
    fn check(&self, card: &Card) -> Vec<Problem> {
        let exact = card
            .points
            .iter()
            .any(|p| p.required && p.rules.iter().any(|r| !r.exact.is_empty()));
        if exact {
            return Vec::new();
        }
        vec![Problem::card(format!(
            "name-it card `{}` needs a required point with an `exact` identifier",
            card.id
        ))]
    }
    prose_only!();
}

struct Cloze;

impl Kind for Cloze {
    fn label(&self) -> &'static str {
        "cloze"
    }
    fn single_line(&self) -> bool {
        true
    }
    fn how_to_answer(&self) -> &'static str {
        "Fill the blanks in order, separated by commas, and press Enter. Commands: hint, deeper, skip, undo, help, quit."
    }
    fn own_fields(&self) -> &'static [&'static str] {
        &["cloze"]
    }
    fn check(&self, card: &Card) -> Vec<Problem> {
        let id = &card.id;
        let Some(text) = card.cloze.as_deref() else {
            return vec![Problem::card(format!(
                "cloze card `{id}` has no `cloze` text; write it with `{{{{blank}}}}` markers"
            ))];
        };
        let blanks = grader::cloze_blanks(text);
        let problem = if blanks.is_empty() || blanks.iter().any(Vec::is_empty) {
            format!(
                "cloze text of card `{id}` has no `{{{{…}}}}` blank (or an empty one); mark each answer as `{{{{answer}}}}`"
            )
        } else if grader::cloze_scan(text).unclosed.is_some() {
            format!(
                "cloze text of card `{id}` has an unclosed `{{{{`; close every blank with `}}}}`"
            )
        } else {
            return Vec::new();
        };
        vec![Problem::field("cloze", problem)]
    }
    fn prompt(&self, card: &Card) -> Vec<Piece> {
        // Cloze text is often JSON: never wrapped.
        card.cloze
            .iter()
            .map(|text| Piece::Code(numbered_blanks(text)))
            .collect()
    }
    fn markdown(&self, card: &Card, out: &mut String) {
        if let Some(t) = &card.cloze {
            // The answers shown in bold where the blanks are, paired as the grader pairs them.
            let mut shown = String::new();
            let mut at = 0;
            for (start, end) in grader::cloze_scan(t).spans {
                shown.push_str(&t[at..start]);
                shown.push_str(&format!("**{}**", &t[start + 2..end - 2]));
                at = end;
            }
            shown.push_str(&t[at..]);
            let _ = writeln!(out, "{shown}\n");
        }
    }
    fn anki_front(&self, card: &Card, out: &mut String) {
        if let Some(c) = &card.cloze {
            out.push_str(&anki_pre(&anki_blanks(c)));
        }
    }
    fn anki_back(&self, card: &Card, out: &mut String) {
        if let Some(c) = &card.cloze {
            out.push_str(&anki_pre(&c.replace("{{", "").replace("}}", "")));
        }
    }
    fn needs_answer_text(&self) -> bool {
        false
    }
    fn reveal(&self, _card: &Card) -> Vec<Piece> {
        Vec::new()
    }
    fn last_hint(&self, _card: &Card) -> Option<String> {
        None
    }
    fn hints(&self, card: &Card) -> Vec<String> {
        hints_by_points(self, card)
    }
}

/// Each blank becomes `[n]____`; pairing is the grader's, so JSON braces in the text stay text.
fn numbered_blanks(text: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (n, (start, end)) in grader::cloze_scan(text).spans.into_iter().enumerate() {
        out.push_str(&text[at..start]);
        out.push_str(&format!("[{}]____", n + 1));
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// The cloze text with every `{{answer}}` shown as `[...]`.
fn anki_blanks(cloze: &str) -> String {
    let mut out = String::new();
    let mut rest = cloze;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        match rest[i..].find("}}") {
            Some(j) => {
                out.push_str("[...]");
                rest = &rest[i + j + 2..];
            }
            None => {
                rest = &rest[i..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

struct Choice;

impl Kind for Choice {
    fn label(&self) -> &'static str {
        "choice"
    }
    fn single_line(&self) -> bool {
        true
    }
    fn how_to_answer(&self) -> &'static str {
        "Type the letter(s) of every right option (e.g. `b` or `a, c`) and press Enter. Commands: hint, deeper, skip, undo, help, quit."
    }
    fn own_fields(&self) -> &'static [&'static str] {
        &["choices"]
    }
    fn check(&self, card: &Card) -> Vec<Problem> {
        let id = &card.id;
        let mut out = Vec::new();
        if card.choices.len() < 2 {
            out.push(format!(
                "choice card `{id}` needs at least two `[[cards.choices]]`"
            ));
        }
        if !card.choices.iter().any(|c| c.correct) {
            out.push(format!(
                "choice card `{id}` has no correct option; set `correct = true` on the right one(s)"
            ));
        }
        if card.choices.len() > 26 {
            out.push(format!(
                "choice card `{id}` has more than 26 options; options are lettered a–z"
            ));
        }
        out.into_iter()
            .map(|m| Problem::field("choices", m))
            .collect()
    }
    fn prompt(&self, card: &Card) -> Vec<Piece> {
        card.choices
            .iter()
            .enumerate()
            .map(|(i, c)| Piece::Item {
                mark: format!("{}.", grader::choice_label(i)),
                text: c.text.clone(),
            })
            .collect()
    }
    fn reveal(&self, card: &Card) -> Vec<Piece> {
        card.choices
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let tag = if c.correct { "right" } else { "wrong" };
                Piece::Item {
                    mark: format!("{}.", grader::choice_label(i)),
                    text: format!("{tag}: {}", c.why),
                }
            })
            .collect()
    }
    fn last_hint(&self, card: &Card) -> Option<String> {
        let n = card.choices.iter().filter(|c| c.correct).count();
        Some(format!(
            "{n} of the {} options {} right.",
            card.choices.len(),
            if n == 1 { "is" } else { "are" }
        ))
    }
    fn markdown(&self, card: &Card, out: &mut String) {
        for (i, ch) in card.choices.iter().enumerate() {
            let mark = if ch.correct { "**✓**" } else { "✗" };
            let why = if ch.why.is_empty() {
                String::new()
            } else {
                format!(" — {}", ch.why)
            };
            let _ = writeln!(
                out,
                "- ({}) {} {mark}{why}",
                grader::choice_label(i),
                ch.text
            );
        }
        out.push('\n');
    }
    fn anki_front(&self, card: &Card, out: &mut String) {
        out.push_str("<ol type=\"a\">");
        for c in &card.choices {
            let _ = write!(out, "<li>{}</li>", anki_html(&c.text));
        }
        out.push_str("</ol>");
    }
    fn anki_back(&self, card: &Card, out: &mut String) {
        let right: Vec<String> = card
            .choices
            .iter()
            .filter(|c| c.correct)
            .map(|c| anki_html(&c.text))
            .collect();
        let _ = write!(out, "<b>Right:</b> {}<br><br>", right.join("; "));
    }
    fn needs_answer_text(&self) -> bool {
        false
    }
    fn hints(&self, card: &Card) -> Vec<String> {
        hints_by_points(self, card)
    }
}

struct Order;

impl Kind for Order {
    fn label(&self) -> &'static str {
        "order"
    }
    fn single_line(&self) -> bool {
        true
    }
    fn how_to_answer(&self) -> &'static str {
        "Type the numbers in the right order (e.g. `3 1 2`) and press Enter. Commands: hint, deeper, skip, undo, help, quit."
    }
    fn own_fields(&self) -> &'static [&'static str] {
        &["items"]
    }
    fn check(&self, card: &Card) -> Vec<Problem> {
        let id = &card.id;
        let mut out = Vec::new();
        if card.items.len() < 2 {
            out.push(format!(
                "order card `{id}` needs at least two `items`, written in the correct order"
            ));
        }
        let distinct: BTreeSet<&String> = card.items.iter().collect();
        if distinct.len() != card.items.len() {
            out.push(format!(
                "order card `{id}` repeats an item; each item must be distinct"
            ));
        }
        out.into_iter()
            .map(|m| Problem::field("items", m))
            .collect()
    }
    fn prompt(&self, card: &Card) -> Vec<Piece> {
        // The grader reads "3 1 2" against this same display order.
        grader::order_display(card)
            .iter()
            .enumerate()
            .filter_map(|(shown, item)| {
                card.items.get(*item).map(|text| Piece::Item {
                    mark: format!("{}.", shown + 1),
                    text: text.clone(),
                })
            })
            .collect()
    }
    fn reveal(&self, card: &Card) -> Vec<Piece> {
        grader::golden_answer(card)
            .map(|order| Piece::Line(format!("  right order: {order}")))
            .into_iter()
            .collect()
    }
    fn markdown(&self, card: &Card, out: &mut String) {
        let _ = writeln!(out, "Correct order:\n");
        for (i, it) in card.items.iter().enumerate() {
            let _ = writeln!(out, "{}. {it}", i + 1);
        }
        out.push('\n');
    }
    fn anki_front(&self, card: &Card, out: &mut String) {
        out.push_str("<ul>");
        for &k in &grader::order_display(card) {
            if let Some(item) = card.items.get(k) {
                let _ = write!(out, "<li>{}</li>", anki_html(item));
            }
        }
        out.push_str("</ul>");
    }
    fn anki_back(&self, card: &Card, out: &mut String) {
        let items: Vec<String> = card.items.iter().map(|i| anki_html(i)).collect();
        let _ = write!(
            out,
            "<b>Order:</b><ol><li>{}</li></ol>",
            items.join("</li><li>")
        );
    }
    fn needs_answer_text(&self) -> bool {
        false
    }
    fn last_hint(&self, _card: &Card) -> Option<String> {
        None
    }
    fn hints(&self, card: &Card) -> Vec<String> {
        hints_by_points(self, card)
    }
}

struct SpotTheBug;

impl Kind for SpotTheBug {
    fn label(&self) -> &'static str {
        "spot the bug"
    }
    fn single_line(&self) -> bool {
        false
    }
    fn how_to_answer(&self) -> &'static str {
        "Name the faulty line number and the rule it breaks; finish with an empty line (or `.`). Commands: hint, deeper, skip, undo, help, quit."
    }
    fn own_fields(&self) -> &'static [&'static str] {
        &["transcript"]
    }
    fn needs_answer_text(&self) -> bool {
        true
    }
    fn check(&self, card: &Card) -> Vec<Problem> {
        let id = &card.id;
        let Some(t) = &card.transcript else {
            return vec![Problem::card(format!(
                "spot-the-bug card `{id}` has no `[cards.transcript]` with `lang`, `text` and `bug_line`"
            ))];
        };
        let lines = t.text.lines().count();
        if t.bug_line == 0 || t.bug_line as usize > lines {
            return vec![Problem::field(
                "bug_line",
                format!(
                    "card `{id}` has bug_line = {}, but its transcript has {lines} lines (lines count from 1)",
                    t.bug_line
                ),
            )];
        }
        Vec::new()
    }
    fn prompt(&self, card: &Card) -> Vec<Piece> {
        let Some(t) = &card.transcript else {
            return Vec::new();
        };
        let numbered: Vec<String> = t
            .text
            .trim_end()
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:>3} | {l}", i + 1))
            .collect();
        vec![
            Piece::Aside(format!("  ({})", t.lang)),
            Piece::Code(numbered.join("\n")),
        ]
    }
    fn reveal(&self, card: &Card) -> Vec<Piece> {
        card.transcript
            .iter()
            .map(|t| Piece::Line(format!("  the faulty line is {}", t.bug_line)))
            .collect()
    }
    fn markdown(&self, card: &Card, out: &mut String) {
        if let Some(t) = &card.transcript {
            let _ = writeln!(out, "```{}", t.lang);
            for (n, line) in t.text.lines().enumerate() {
                let mark = if n as u32 + 1 == t.bug_line {
                    "  ← the bug"
                } else {
                    ""
                };
                let _ = writeln!(out, "{:>2} {line}{mark}", n + 1);
            }
            let _ = writeln!(out, "```\n");
        }
    }
    fn anki_front(&self, card: &Card, out: &mut String) {
        if let Some(t) = &card.transcript {
            let numbered: Vec<String> = t
                .text
                .trim_end()
                .lines()
                .enumerate()
                .map(|(i, l)| format!("{:>2}  {l}", i + 1))
                .collect();
            out.push_str(&anki_pre(&numbered.join("\n")));
        }
    }
    fn anki_back(&self, card: &Card, out: &mut String) {
        if let Some(t) = &card.transcript {
            let _ = write!(out, "<b>The faulty line:</b> {}<br><br>", t.bug_line);
        }
    }
    fn last_hint(&self, _card: &Card) -> Option<String> {
        None
    }
    fn hints(&self, card: &Card) -> Vec<String> {
        hints_by_points(self, card)
    }
}

/// Text safe inside an Anki HTML field, with `code` spans and line breaks kept. Anki's text
/// import splits on tabs and newlines, so neither may survive. (Here rather than in the export
/// because the kinds write their own fields with it.)
pub fn anki_html(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\t', "    ");
    let mut out = String::new();
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{part}</code>");
        } else {
            out.push_str(part);
        }
    }
    out.trim().replace("\\\n", " ").replace('\n', "<br>")
}

/// Preformatted text for an Anki HTML field.
pub fn anki_pre(text: &str) -> String {
    let escaped = text
        .trim_end()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\t', "    ");
    format!("<pre>{}</pre>", escaped.replace('\n', "<br>"))
}

#[cfg(test)]
#[path = "card_kind_tests.rs"]
mod tests;
