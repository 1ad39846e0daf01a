//! The study sheet's Markdown, drawn for a terminal: headings as headings, emphasis as bold,
//! quotes and lists with hanging indents, code blocks exactly as written. Covers the subset
//! `deck::export::to_markdown` writes, not all of CommonMark.

use super::{ink, unglyph, wrap_to};

/// `md` laid out for a terminal `width` columns wide; `plain` uses words for decoration.
pub fn render(md: &str, plain: bool, width: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut code: Option<Vec<String>> = None;
    for line in md.lines() {
        if let Some(block) = code.as_mut() {
            if line.trim_start().starts_with("```") {
                out.append(block);
                code = None;
            } else {
                // Code and JSON are never wrapped: a broken line would no longer parse.
                block.push(format!("    {line}"));
            }
            continue;
        }
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            if !lang.is_empty() {
                out.push(ink::faint(&format!("    ({lang})")));
            }
            code = Some(Vec::new());
            continue;
        }
        out.push(block_line(line, plain, width));
    }
    // An unclosed fence still shows its code.
    if let Some(mut block) = code {
        out.append(&mut block);
    }
    let text = out.join("\n");
    if plain { unglyph(&text) } else { text }
}

fn block_line(line: &str, plain: bool, width: usize) -> String {
    if let Some(title) = line.strip_prefix("### ") {
        return wrap_to(&ink::strong(&inline(title)), "", "", width);
    }
    if let Some(title) = line.strip_prefix("#### ") {
        let title = inline(title);
        return if plain {
            wrap_to(&format!("{title}:"), "", "", width)
        } else {
            wrap_to(&ink::strong(&format!("── {title}")), "", "   ", width)
        };
    }
    if let Some(quote) = line.strip_prefix("> ") {
        return wrap_to(&inline(quote), "  ", "  ", width);
    }
    if let Some(item) = line.strip_prefix("- ") {
        let bullet = if plain { "  - " } else { "  • " };
        return wrap_to(&inline(item), bullet, "    ", width);
    }
    if let Some((num, item)) = numbered(line) {
        let first = format!("  {num}. ");
        let rest = " ".repeat(first.chars().count());
        return wrap_to(&inline(item), &first, &rest, width);
    }
    if line.starts_with('|') || line.starts_with(' ') {
        return line.to_owned();
    }
    if let Some(meta) = line
        .strip_prefix('*')
        .and_then(|l| l.strip_suffix('*'))
        .filter(|m| !m.starts_with('*'))
    {
        return wrap_to(&ink::faint(meta), "", "", width);
    }
    wrap_to(&inline(line), "", "", width)
}

/// `12. text` → (12, text).
fn numbered(line: &str) -> Option<(&str, &str)> {
    let (num, rest) = line.split_once(". ")?;
    (!num.is_empty() && num.chars().all(|c| c.is_ascii_digit())).then_some((num, rest))
}

/// `**strong**` painted bold without its stars; code spans keep their backticks, which mark
/// identifiers even without colour.
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("**") {
        let Some(len) = rest[start + 2..].find("**") else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(&ink::strong(&rest[start + 2..start + 2 + len]));
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_lists_quotes_and_code_are_drawn_not_printed_raw() {
        let md = "### Title\n\n*`a/b` · recall*\n\n- one **two** three\n\n> quoted text\n\n\
                  ```json\n{\"a\": 1, \"b\": [1, 2, 3]}\n```\n\n**Go deeper**\n\n1. first\n";
        let out = render(md, false, 80);
        assert!(
            !out.contains("###") && !out.contains("**") && !out.contains("```"),
            "{out}"
        );
        assert!(out.contains("  • one two three"), "{out}");
        assert!(out.contains("\n  quoted text\n"), "{out}");
        assert!(
            out.contains("    (json)\n    {\"a\": 1, \"b\": [1, 2, 3]}"),
            "{out}"
        );
        assert!(out.contains("  1. first"), "{out}");
        assert!(
            out.contains("`a/b` · recall") && !out.contains("*`a/b`"),
            "{out}"
        );
    }

    #[test]
    fn code_is_never_wrapped_prose_is() {
        let md = format!("{}\n```\n{}\n```", "word ".repeat(30), "x ".repeat(60));
        let out = render(&md, false, 40);
        assert!(
            out.lines()
                .take_while(|l| !l.starts_with("    x"))
                .all(|l| l.len() <= 40)
        );
        assert!(out.contains(&format!("    {}", "x ".repeat(60))), "{out}");
    }
}
