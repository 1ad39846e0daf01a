//! The answer a card's golden self-test grades.

use super::*;

/// The answer a card's golden self-test grades: its solid answer for prose kinds; the right
/// letters, order, blanks or line (plus the solid answer's prose for spot-the-bug) otherwise.
pub fn golden_answer(card: &Card) -> Option<String> {
    let text = card.answer.as_ref().map(|a| a.text.clone());
    match card.kind {
        CardKind::Recall | CardKind::NameIt => text,
        CardKind::Choice => {
            let letters: Vec<String> = card
                .choices
                .iter()
                .enumerate()
                .filter(|(_, c)| c.correct)
                .map(|(i, _)| choice_label(i))
                .collect();
            Some(letters.join(", "))
        }
        CardKind::Order => {
            let display = order_display(card);
            let labels: Vec<String> = (0..card.items.len())
                .filter_map(|item| display.iter().position(|&d| d == item))
                .map(|k| (k + 1).to_string())
                .collect();
            Some(labels.join(" "))
        }
        CardKind::Cloze => {
            let blanks = cloze_blanks(card.cloze.as_deref().unwrap_or(""));
            let firsts: Vec<String> = blanks.iter().filter_map(|b| b.first().cloned()).collect();
            Some(firsts.join("\n"))
        }
        CardKind::SpotTheBug => {
            let line = card.transcript.as_ref()?.bug_line;
            Some(match text {
                Some(t) => format!("Line {line}: {t}"),
                None => format!("Line {line}"),
            })
        }
    }
}
