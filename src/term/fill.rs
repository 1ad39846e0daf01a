//! Prose written with hard line breaks (help texts, scenario narration) and two-column lists
//! (steps, rules, faults), filled to the width they are shown at. Both keep a hanging indent
//! under its column, so a wrapped item still reads as one item.

use super::wrap_to;

/// Text with hard line breaks filled to `width`. The lines of one paragraph are joined before
/// filling, so a paragraph written 95 columns wide reads evenly at 60; a list item keeps its
/// continuation lines under its text (`  hint    reveal …`, `- a point`, `1. a step`); blank
/// lines stay; lines laid out by hand (a ``` fence, JSON, a table, a diagram) are kept as
/// written. A line ending in `:` introduces what follows rather than running into it.
pub fn reflow(text: &str, width: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut open: Option<Para> = None;
    let mut fenced = false;
    for line in text.split('\n') {
        let fence = line.trim_start().starts_with("```");
        if fence {
            fenced = !fenced;
        }
        if fence || fenced || laid_out(line) || line.trim().is_empty() {
            if let Some(p) = open.take() {
                out.push(p.fill(width));
            }
            out.push(line.trim_end().to_owned());
            continue;
        }
        let (indent, body) = split_indent(line);
        let head = Head::of(indent, body);
        if let Some(p) = open.as_mut()
            && head.is_none()
            && p.takes(indent)
        {
            p.text.push(' ');
            p.text.push_str(body.trim_end());
            continue;
        }
        if let Some(p) = open.take() {
            out.push(p.fill(width));
        }
        open = Some(match head {
            Some(h) => Para {
                first: h.first,
                column: h.column,
                text: h.text.trim_end().to_owned(),
                item: true,
            },
            None => Para {
                first: indent.to_owned(),
                column: indent.chars().count(),
                text: body.trim_end().to_owned(),
                item: false,
            },
        });
    }
    if let Some(p) = open.take() {
        out.push(p.fill(width));
    }
    out.join("\n")
}

/// Two columns: each term in the first, its description filled beside it with continuation
/// lines under the description's column. A term too long for the column gets a line of its
/// own with the description under the column; when the width leaves the description too
/// little room, every description goes under its term, four columns in. A `\n` in a
/// description starts a new line at the column (a reference under its meaning).
pub fn columns(rows: &[(String, String)], indent: &str, width: usize) -> String {
    let indent_w = indent.chars().count();
    let widest = rows
        .iter()
        .map(|(t, _)| t.chars().count())
        .max()
        .unwrap_or(0);
    // Wide enough for most terms; a rare long one takes its own line instead of pushing
    // every description right (and on a narrow screen, more of them do).
    let column = indent_w + widest.min(26).min(width / 3) + 2;
    let stacked = column + MIN_TEXT > width;
    let mut out = Vec::new();
    for (term, desc) in rows {
        let term_w = term.chars().count();
        // A word (an address, a command held together) longer than the column leaves room
        // for: this row's description goes under its term, where there is more.
        let longest = desc
            .split([' ', '\n'])
            .map(|w| w.chars().count())
            .max()
            .unwrap_or(0);
        let (col, beside) = if stacked || column + longest > width {
            (indent_w + 4, false)
        } else {
            (column, indent_w + term_w + 1 < column)
        };
        let pad = " ".repeat(col);
        let mut first = if beside {
            format!("{indent}{term}{}", " ".repeat(col - indent_w - term_w))
        } else {
            out.push(format!("{indent}{term}"));
            pad.clone()
        };
        for part in desc.split('\n') {
            out.push(wrap_to(part.trim(), &first, &pad, width));
            first.clone_from(&pad);
        }
    }
    out.join("\n")
}

/// Fewer columns than this beside a term, and descriptions go under their terms instead.
const MIN_TEXT: usize = 24;

/// A paragraph being gathered: what starts its first line, the column its other lines start
/// at, and its words.
struct Para {
    first: String,
    column: usize,
    text: String,
    item: bool,
}

impl Para {
    /// Whether a plain line with `indent` continues this paragraph.
    fn takes(&self, indent: &str) -> bool {
        let col = indent.chars().count();
        if self.text.ends_with(':') {
            return false;
        }
        if self.item {
            col == self.column
        } else {
            col == self.first.chars().count()
        }
    }

    fn fill(self, width: usize) -> String {
        let rest = " ".repeat(self.column);
        // A term so wide that its text would be squeezed: the text goes under it instead.
        if self.item && self.column + MIN_TEXT > width {
            let term = self.first.trim_end();
            let indent = term.len() - term.trim_start().len();
            let under = " ".repeat(indent + 4);
            return format!("{term}\n{}", wrap_to(&self.text, &under, &under, width));
        }
        wrap_to(&self.text, &self.first, &rest, width)
    }
}

/// What starts a list item, and the column its text (and continuation lines) start at.
struct Head<'a> {
    first: String,
    column: usize,
    text: &'a str,
}

impl<'a> Head<'a> {
    /// `  term   text` (an indented term, two or more spaces, text), `- text`, `* text`,
    /// `• text`, `1. text`, `2) text`.
    fn of(indent: &str, body: &'a str) -> Option<Head<'a>> {
        let bullet = ["- ", "* ", "• "]
            .iter()
            .find(|b| body.starts_with(**b))
            .map(|b| b.len())
            .or_else(|| {
                let digits = body.chars().take_while(char::is_ascii_digit).count();
                let rest = &body[digits..];
                (digits > 0 && (rest.starts_with(". ") || rest.starts_with(") ")))
                    .then_some(digits + 2)
            });
        let marker_end = match bullet {
            Some(n) => n + body[n..].len() - body[n..].trim_start().len(),
            // A term column only in indented text: in a paragraph two spaces are a typo.
            None if !indent.is_empty() => {
                let gap = body.find("  ")?;
                let term = &body[..gap];
                if term.is_empty() || term.chars().count() > 36 || term.ends_with(['.', ',']) {
                    return None;
                }
                let after = body[gap..].trim_start();
                if after.is_empty() {
                    return None;
                }
                body.len() - after.len()
            }
            None => return None,
        };
        let first = format!("{indent}{}", &body[..marker_end]);
        Some(Head {
            column: first.chars().count(),
            first,
            text: &body[marker_end..],
        })
    }
}

fn split_indent(line: &str) -> (&str, &str) {
    let body = line.trim_start_matches(' ');
    (&line[..line.len() - body.len()], body)
}

/// JSON, a table row, wire text, a diagram or a heading (`== Title ==`, `# Title`): shown as
/// written, never run into the next line.
fn laid_out(line: &str) -> bool {
    let body = line.trim_start();
    body.starts_with(['{', '[', '|', '│', '┌', '└', '├', '}', ']', '─', '━'])
        || body.starts_with("== ")
        || body.starts_with("# ")
        || body.starts_with("## ")
        || line.contains("{\"")
        || line.contains('│')
        || line.starts_with('\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELP: &str = "\
Commands, typed alone on a line at any prompt:
  hint    reveal the next key point to cover (caps the rating at hard)
  skip    leave this card for now, unrated
Answers: free recall and spot-the-bug take several lines, finished by an empty line or `.`;
the other kinds end on Enter. Rating: Enter takes the suggestion; 1 again, 2 hard, 3 good,
4 easy (or the words) override it.";

    #[test]
    fn a_paragraph_is_joined_before_it_is_filled() {
        let out = reflow(HELP, 60);
        let want = "\
Commands, typed alone on a line at any prompt:
  hint    reveal the next key point to cover (caps the
          rating at hard)
  skip    leave this card for now, unrated
Answers: free recall and spot-the-bug take several lines,
finished by an empty line or `.`; the other kinds end on
Enter. Rating: Enter takes the suggestion; 1 again, 2 hard,
3 good, 4 easy (or the words) override it.";
        assert_eq!(out, want);
        for line in out.lines() {
            assert!(line.chars().count() <= 60, "{line}");
        }
    }

    #[test]
    fn continuation_lines_of_an_item_stay_under_its_text() {
        let text = "  listen [KINDS]    open a subscription for\n                    the kinds named\n- a bullet that\n  goes on\n";
        assert_eq!(
            reflow(text, 80),
            "  listen [KINDS]    open a subscription for the kinds named\n- a bullet that goes on\n"
        );
    }

    #[test]
    fn laid_out_lines_blank_lines_and_fences_are_kept() {
        let text = "Say this:\n\n```\nlisten   tools\nsecond\n```\n{\"a\": 1}\n| x | y |";
        assert_eq!(reflow(text, 20), text);
    }

    #[test]
    fn a_wide_term_puts_its_text_underneath_when_narrow() {
        let out = reflow("  a-very-long-step-name [WITH ARGS]  what it does", 40);
        assert_eq!(
            out,
            "  a-very-long-step-name [WITH ARGS]\n      what it does"
        );
    }

    #[test]
    fn columns_hang_under_the_column_and_stack_when_narrow() {
        let rows = vec![
            (
                "no-ack".to_owned(),
                "The server MUST send the ack first.\nSUB §Acknowledgment".to_owned(),
            ),
            (
                "a-name-much-longer-than-the-column".to_owned(),
                "short".to_owned(),
            ),
        ];
        let wide = columns(&rows, "", 80);
        assert_eq!(
            wide,
            "no-ack                      The server MUST send the ack first.\n\
             \x20                           SUB §Acknowledgment\n\
             a-name-much-longer-than-the-column\n\
             \x20                           short"
        );
        // Narrower, the column moves in; narrower still, descriptions go under their terms.
        let narrow = columns(&rows, "", 40);
        assert!(
            narrow.starts_with("no-ack         The server MUST send the\n"),
            "{narrow}"
        );
        let stacked = columns(&rows, "", 30);
        assert!(
            stacked.starts_with("no-ack\n    The server MUST send the"),
            "{stacked}"
        );
        for line in narrow.lines().chain(stacked.lines()) {
            assert!(line.chars().count() <= 40, "{line}");
        }
    }
}
