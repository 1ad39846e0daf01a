//! The README's command examples, run: the ones that work offline are executed as written
//! (with the built binary first on PATH), and where the README shows output the real output
//! must match it, so the examples cannot drift from the program.

use std::path::Path;
use std::process::Command;

/// A README example: the shell line and the output the README shows for it (may be empty).
struct Example {
    line: usize,
    command: String,
    shown: Vec<String>,
    /// The exit status the README says it ends with (`$ cmd  # exits 1`), else 0.
    code: i32,
}

/// Examples that need a running server, a network, files the reader supplies, or that never
/// end (a server) are left out; everything else offline runs.
fn runs_offline(cmd: &str) -> bool {
    // `check` against the bundled server over stdio needs nothing but the binary.
    if cmd.contains("check --stdio") && cmd.contains("-- mcp-tutor serve --stdio") {
        return !cmd.trim_end().ends_with('&');
    }
    let needs = [
        "serve --port",
        "serve --stdio",
        "mcp-tutor serve  ",
        "check http",
        "check --stdio",
        "curl",
        "jq",
        "answers.txt",
        "steps.txt",
        "my-decks",
        "~/",
        "$PROFILE",
        "cargo ",
        "quiz",
        // A judge at a URL: the judge's tests use a stub on loopback, never a real model.
        "--judge http",
        // They probe or ask a model server on this machine (tests/integration/judge_setup.rs).
        "judge setup",
        "judge test",
    ];
    // The whole content's check and eval are the slowest commands there are; they run once,
    // in `decks::the_built_in_decks_and_the_corpus_pass_every_check`.
    let whole_content = ["mcp-tutor decks check", "mcp-tutor decks eval"];
    cmd.contains("mcp-tutor")
        && !cmd.trim_end().ends_with('&')
        && cmd.trim() != "mcp-tutor serve"
        && !whole_content.contains(&cmd.trim())
        && !needs.iter().any(|n| cmd.contains(n))
}

/// Every example in ```sh and ```console blocks.
fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, raw) in readme.lines().enumerate() {
        if let Some(lang) = raw.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(if lang.is_empty() { "text" } else { lang }),
            };
            continue;
        }
        match fence {
            Some("sh") => {
                // `cmd   # comment`: the comment is the README's, not the shell's.
                let cmd = raw.split("  #").next().unwrap_or("").trim();
                if !cmd.is_empty() && !cmd.starts_with('#') && !cmd.ends_with('\\') {
                    out.push(Example {
                        line: i + 1,
                        command: cmd.to_owned(),
                        shown: Vec::new(),
                        code: 0,
                    });
                }
            }
            Some("console") => {
                if let Some(cmd) = raw.strip_prefix("$ ") {
                    let (cmd, code) = match cmd.split_once("  # exits ") {
                        Some((c, n)) => (c.trim(), n.trim().parse().unwrap_or(-1)),
                        None => (cmd, 0),
                    };
                    out.push(Example {
                        line: i + 1,
                        command: cmd.to_owned(),
                        shown: Vec::new(),
                        code,
                    });
                } else if let Some(last) = out.last_mut() {
                    last.shown.push(raw.to_owned());
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `actual` shows every `shown` line in order. A `...` line skips any number of lines;
/// `…` or `...` inside a line stands for any text there.
fn shows(shown: &[String], actual: &str) -> Result<(), String> {
    let lines: Vec<&str> = actual.lines().map(str::trim_end).collect();
    let mut at = 0;
    let mut gap = false;
    for want in shown {
        let want = want.trim_end();
        if want.trim() == "..." {
            gap = true;
            continue;
        }
        let parts: Vec<&str> = want.split("...").flat_map(|p| p.split('…')).collect();
        let fits = |l: &str| {
            if parts.len() == 1 {
                return l == want;
            }
            let mut from = 0;
            parts.iter().all(|p| match l[from..].find(p) {
                Some(k) => {
                    from += k + p.len();
                    true
                }
                None => false,
            })
        };
        let found = if gap {
            lines[at..].iter().position(|l| fits(l)).map(|k| at + k)
        } else {
            lines.get(at).filter(|l| fits(l)).map(|_| at)
        };
        match found {
            Some(k) => at = k + 1,
            None => {
                return Err(format!(
                    "the README shows\n  {want}\nbut not at that place in:\n{actual}"
                ));
            }
        }
        gap = false;
    }
    Ok(())
}

#[test]
fn readme_examples_run_and_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mcp-tutor"))
        .parent()
        .expect("binary dir")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for ex in examples(&readme)
        .iter()
        .filter(|e| runs_offline(&e.command))
    {
        let home = tempfile::tempdir().expect("temp dir");
        let out = Command::new("sh")
            .args(["-c", &ex.command])
            .current_dir(home.path())
            .env("PATH", &path)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("MCP_TUTOR_HOME", home.path().join("data"))
            .env("NO_COLOR", "1")
            .output()
            .expect("sh runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.code() == Some(ex.code),
            "README.md:{}: `{}` ended with {}, the README says {}:\n{stdout}\n{}",
            ex.line,
            ex.command,
            out.status,
            ex.code,
            String::from_utf8_lossy(&out.stderr)
        );
        if let Err(e) = shows(&ex.shown, &stdout) {
            panic!("README.md:{}: `{}`: {e}", ex.line, ex.command);
        }
        ran += 1;
        eprintln!("ran README.md:{}: {}", ex.line, ex.command);
    }
    // The grade transcript, the decks commands, lab transcripts, the fault list…
    assert!(ran >= 8, "only {ran} README examples ran");
}

#[test]
fn the_matcher_skips_and_wildcards_as_documented() {
    let actual = "a\nb long line\nc\nd\n";
    let shown = |s: &[&str]| s.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>();
    assert!(shows(&shown(&["a", "b ... line", "...", "d"]), actual).is_ok());
    assert!(shows(&shown(&["a", "c"]), actual).is_err());
    assert!(shows(&shown(&["a", "b long line", "d"]), actual).is_err());
}
