//! TOML 1.0 only: the decks are read by mcp-tutor's own parser, which also takes TOML 1.1, but
//! authors check and edit them with their own tools, many of which stop at TOML 1.0. This scans a
//! file for the syntax TOML 1.1 added, so `decks check` refuses it with its line and column:
//!
//! - a newline directly inside an inline table (`{ ...` continued on the next line);
//! - a trailing comma before an inline table's `}`;
//! - the `\e` and `\xHH` escapes in basic strings;
//! - a time without seconds (`07:32`).
//!
//! A scanner rather than a second parser: it tracks only strings, comments and brackets, which is
//! all these constructs need, and a file that does not parse at all is reported by the loader.

/// One TOML 1.1-only construct: where it is (1-based line and column) and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub line: usize,
    pub column: usize,
    pub what: &'static str,
    pub fix: &'static str,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Str {
    Basic,
    Literal,
    MultiBasic,
    MultiLiteral,
}

/// Every TOML 1.1-only construct in `text`, in file order.
#[expect(
    clippy::too_many_lines,
    reason = "one scanner loop over TOML's string and bracket states: every branch reads and moves the same cursor (line, column, stack), so split functions would each take all of it"
)]
pub fn findings(text: &str) -> Vec<Finding> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    // Open `{` and `[` of values (table headers open and close on their own line).
    let mut stack: Vec<char> = Vec::new();
    let mut string: Option<Str> = None;
    let (mut line, mut col) = (1usize, 1usize);
    // The last character outside whitespace and comments, for the trailing-comma rule.
    let mut last_significant: Option<char> = None;
    let mut i = 0;
    let at = |line, column, what, fix| Finding {
        line,
        column,
        what,
        fix,
    };
    while i < chars.len() {
        let c = chars[i];
        let starts = |s: &str| {
            s.chars()
                .enumerate()
                .all(|(k, x)| chars.get(i + k) == Some(&x))
        };
        let mut step = 1;
        match string {
            Some(kind @ (Str::Basic | Str::MultiBasic)) => {
                if c == '\\' {
                    match chars.get(i + 1) {
                        Some('e') => out.push(at(
                            line,
                            col,
                            "the `\\e` escape (TOML 1.1)",
                            "write `\\u001b`",
                        )),
                        Some('x') => out.push(at(
                            line,
                            col,
                            "a `\\xHH` escape (TOML 1.1)",
                            "write `\\u00HH`",
                        )),
                        _ => {}
                    }
                    step = 2;
                } else if kind == Str::Basic && c == '"' {
                    string = None;
                } else if kind == Str::MultiBasic && starts("\"\"\"") {
                    string = None;
                    step = 3;
                }
            }
            Some(Str::Literal) if c == '\'' => string = None,
            Some(Str::MultiLiteral) if starts("'''") => {
                string = None;
                step = 3;
            }
            Some(_) => {}
            None => match c {
                '#' => {
                    while i + step < chars.len() && chars[i + step] != '\n' {
                        step += 1;
                    }
                }
                '"' | '\'' => {
                    let multi = if c == '"' { "\"\"\"" } else { "'''" };
                    string = Some(match (c, starts(multi)) {
                        ('"', true) => Str::MultiBasic,
                        ('"', false) => Str::Basic,
                        (_, true) => Str::MultiLiteral,
                        _ => Str::Literal,
                    });
                    if starts(multi) {
                        step = 3;
                    }
                    last_significant = Some(c);
                }
                '{' | '[' => {
                    stack.push(c);
                    last_significant = Some(c);
                }
                '}' | ']' => {
                    if c == '}' && last_significant == Some(',') {
                        out.push(at(
                            line,
                            col,
                            "a trailing comma in an inline table (TOML 1.1)",
                            "remove the comma before `}`",
                        ));
                    }
                    stack.pop();
                    last_significant = Some(c);
                }
                '\n' if stack.last() == Some(&'{') => out.push(at(
                    line,
                    col,
                    "a line break inside an inline table (TOML 1.1)",
                    "keep the inline table on one line, or write it as a [table]",
                )),
                c if c.is_ascii_digit()
                    && !chars[..i].last().is_some_and(char::is_ascii_alphanumeric) =>
                {
                    if let Some(f) = short_time(&chars[i..]) {
                        out.push(at(line, col, f, "add the seconds: `HH:MM:SS`"));
                    }
                    while i + step < chars.len()
                        && (chars[i + step].is_ascii_alphanumeric()
                            || matches!(chars[i + step], ':' | '-' | '.' | '+'))
                    {
                        step += 1;
                    }
                    last_significant = Some(c);
                }
                c if !c.is_whitespace() => last_significant = Some(c),
                _ => {}
            },
        }
        for &ch in &chars[i..(i + step).min(chars.len())] {
            if ch == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        i += step;
    }
    out
}

/// A bare value starting at `s` that holds a time `HH:MM` not followed by `:SS`.
fn short_time(s: &[char]) -> Option<&'static str> {
    let end = s
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '.' | '+')))
        .unwrap_or(s.len());
    let token: String = s[..end].iter().collect();
    let time = token.rsplit(['T', 't']).next().unwrap_or(&token);
    let b = time.as_bytes();
    let hhmm = b.len() >= 5
        && b[..2].iter().all(u8::is_ascii_digit)
        && b[2] == b':'
        && b[3..5].iter().all(u8::is_ascii_digit);
    (hhmm && b.get(5) != Some(&b':')).then_some("a time without seconds (TOML 1.1)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whats(text: &str) -> Vec<(usize, usize, &'static str)> {
        findings(text)
            .into_iter()
            .map(|f| (f.line, f.column, f.what))
            .collect()
    }

    #[test]
    fn toml_1_1_constructs_are_found_where_they_stand() {
        let text =
            "a = { b = 1, }\nc = { d = 2,\n  e = 3 }\nf = \"x\\e\"\ng = \"\\x41\"\nh = 07:32\n";
        let found = whats(text);
        assert_eq!(found.len(), 5, "{found:?}");
        assert_eq!((found[0].0, found[0].1), (1, 14));
        assert!(found[0].2.contains("trailing comma"));
        assert_eq!(found[1].0, 2);
        assert!(found[1].2.contains("line break"));
        assert!(found[2].2.contains("\\e"));
        assert!(found[3].2.contains("\\xHH"));
        assert_eq!(found[4].0, 6);
        assert!(found[4].2.contains("without seconds"));
    }

    #[test]
    fn toml_1_0_is_left_alone() {
        let text = r#"
[[cards]]  # a comment with { and , }
id = "x, }"
claims = [
  { all = ["a|b"], not = "c" },
  { exact = ["{", "}"] },
]
ask = { prompt = "p", choices = [
  "one",
  "two",
], why = """
multi-line "strings" may hold { , } and \\e written escaped
""" }
lit = 'C:\e\x41'
ml = '''{ a, }'''
when = 1979-05-27T07:32:00Z
port = 8080
"#;
        assert_eq!(whats(text), Vec::new());
    }
}

#[cfg(test)]
mod shipped {
    use std::path::{Path, PathBuf};

    fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                toml_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }

    /// Every TOML file under decks/ (decks, concepts, the catalogue, the lexicon, facts,
    /// scenarios and the graded corpus) stays TOML 1.0, so any TOML tool reads it.
    #[test]
    fn every_shipped_toml_file_is_toml_1_0() {
        let mut files = Vec::new();
        toml_files(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("decks"),
            &mut files,
        );
        assert!(files.len() > 20, "found only {} files", files.len());
        let mut problems = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).expect("readable");
            for x in super::findings(&text) {
                problems.push(format!(
                    "{}:{}:{}: {}",
                    f.display(),
                    x.line,
                    x.column,
                    x.what
                ));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
