//! Hints for a card whose answer is a name: its shape, never the name.
//!
//! A hint that prints the name spends the card. So a name is described the way a person
//! would help someone who has it on the tip of the tongue: how many parts and how they are
//! joined, the grammar of each part (plural, past tense, camelCase), and last the first letter
//! and length of each part. Numbers get their sign, their digit count and the range they sit in.

/// The hints for `name`, from the vaguest to the most telling.
pub fn shape_hints(name: &str) -> Vec<String> {
    let name = name.trim();
    if let Some(n) = number(name) {
        return number_hints(name, n);
    }
    let (sep, parts) = split(name);
    let mut hints = vec![outline(sep, &parts)];
    let grammar: Vec<String> = parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| grammar(p).map(|g| format!("{} {g}", ordinal_part(i, parts.len()))))
        .collect();
    if !grammar.is_empty() {
        hints.push(format!("{}.", capitalise(&grammar.join("; "))));
    }
    // For a name of a few letters its first letter is most of it.
    if name.chars().count() <= 4 {
        return hints;
    }
    hints.push(format!(
        "each part's first letter and length: {}",
        parts
            .iter()
            .map(|p| initial(p))
            .collect::<Vec<_>>()
            .join(&format!(" {sep} "))
    ));
    hints
}

fn number(s: &str) -> Option<i64> {
    s.parse::<i64>().ok()
}

fn number_hints(text: &str, n: i64) -> Vec<String> {
    let digits = text.trim_start_matches(['-', '+']).len();
    let sign = if n < 0 { "a negative" } else { "a" };
    let mut hints = vec![format!("{sign} whole number of {digits} digits.")];
    if (-32768..=-32000).contains(&n) {
        hints.push(
            "It lies in the range JSON-RPC reserves for its own errors (-32768 to -32000)."
                .to_string(),
        );
    }
    hints
}

/// The outermost separator `name` uses (a method's `/` before a domain's `.`), and the parts.
fn split(name: &str) -> (char, Vec<&str>) {
    let sep = ['/', '-', '.', '_'].into_iter().find(|c| name.contains(*c));
    match sep {
        Some(c) => (c, name.split(c).filter(|p| !p.is_empty()).collect()),
        None => (' ', vec![name]),
    }
}

fn outline(sep: char, parts: &[&str]) -> String {
    if parts.len() == 1 {
        let p = parts[0];
        let what = if p.chars().all(|c| c.is_ascii_lowercase()) {
            "one lower-case word"
        } else {
            "one word"
        };
        return format!("{what} of {} letters.", p.chars().count());
    }
    let dotted = parts
        .iter()
        .filter(|p| p.contains('.'))
        .map(|p| p.split('.').count())
        .next();
    match dotted {
        Some(d) => format!(
            "{} parts joined by `{sep}`; the first is itself {d} words joined by `.`, \
             reverse-domain style.",
            parts.len()
        ),
        None => format!("{} parts joined by `{sep}`.", parts.len()),
    }
}

fn ordinal_part(i: usize, n: usize) -> String {
    if i + 1 == n && n > 1 {
        return "the last part is".to_string();
    }
    let ord = ["first", "second", "third", "fourth", "fifth"]
        .get(i)
        .copied()
        .unwrap_or("next");
    format!("the {ord} part is")
}

fn grammar(part: &str) -> Option<String> {
    let last = part.split('.').next_back().unwrap_or(part);
    let lower = last.to_ascii_lowercase();
    let mut says = Vec::new();
    if last.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && last.chars().next().is_some_and(|c| c.is_ascii_lowercase())
    {
        says.push("camelCase".to_string());
    } else if last.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
        says.push("capitalised".to_string());
    }
    if lower.ends_with("ed") {
        says.push("a verb in the past tense".to_string());
    } else if lower.ends_with('s') && !lower.ends_with("ss") && lower.len() > 3 {
        says.push("a plural noun".to_string());
    }
    (!says.is_empty()).then(|| says.join(", "))
}

/// `s…` with the part's length: enough to jog memory, too little to copy.
fn initial(part: &str) -> String {
    let first: String = part.chars().take(1).collect();
    format!("{first}… ({} characters)", part.chars().count())
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ack_name_is_described_not_given() {
        let h = shape_hints("notifications/subscriptions/acknowledged");
        assert_eq!(
            h,
            vec![
                "3 parts joined by `/`.".to_string(),
                "The first part is a plural noun; the second part is a plural noun; the last part \
                 is a verb in the past tense."
                    .to_string(),
                "each part's first letter and length: n… (13 characters) / s… (13 characters) / \
                 a… (12 characters)"
                    .to_string(),
            ]
        );
    }

    #[test]
    fn a_dotted_key_and_a_number() {
        let h = shape_hints("io.modelcontextprotocol/subscriptionId");
        assert_eq!(
            h[0],
            "2 parts joined by `/`; the first is itself 2 words joined by `.`, reverse-domain style."
        );
        assert_eq!(h[1], "The last part is camelCase.");
        let n = shape_hints("-32602");
        assert_eq!(n[0], "a negative whole number of 5 digits.");
        assert!(n[1].contains("JSON-RPC reserves"), "{n:?}");
    }
}
