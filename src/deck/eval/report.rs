//! `decks eval` as text: a table per card, the overall figures, and (with `--show`) each
//! disagreement with its reason.

use std::fmt::Write;

use owo_colors::Style;

use super::{Part, Report, Tally, describe};
use crate::term::paint;

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "—".into()
    } else {
        format!("{:.1}%", 100.0 * a as f64 / b as f64)
    }
}

fn summary(name: &str, t: &Tally) -> String {
    format!(
        "{name:<9} {} answers: verdicts agree {} ({}/{}); fully agree {}; false red flags on {} of {} answers stating no misconception ({}); misconceptions caught {} ({}/{}), failed or unsure {}; sure of {} verdicts, right when sure {} ({}/{}); near misses reported {}/{}\n",
        t.answers,
        pct(t.verdicts_agree, t.answers),
        t.verdicts_agree,
        t.answers,
        pct(t.agree, t.answers),
        t.falsely_flagged,
        t.clean,
        pct(t.falsely_flagged, t.clean),
        pct(t.caught, t.misconceived),
        t.caught,
        t.misconceived,
        pct(t.caught_or_unsure, t.misconceived),
        pct(t.sure, t.answers),
        pct(t.sure_agree, t.sure),
        t.sure_agree,
        t.sure,
        t.near_misses_reported,
        t.near_misses,
    )
}

/// Which disagreeing answers `render` lists after the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    None,
    Tuned,
    All,
}

impl Show {
    pub fn from_flags(show: bool, held_out: bool) -> Show {
        match (show, held_out) {
            (_, true) => Show::All,
            (true, false) => Show::Tuned,
            (false, false) => Show::None,
        }
    }
}

pub fn render(r: &Report, show: Show) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<48} {:>9} {:>9} {:>6} {:>7}",
        "card", "tuned", "held-out", "false", "missed"
    );
    for (card, (t, h)) in &r.cards {
        let cell = |x: &Tally| {
            if x.answers == 0 {
                "—".to_string()
            } else {
                format!("{}/{}", x.verdicts_agree, x.answers)
            }
        };
        let _ = writeln!(
            out,
            "{card:<48} {:>9} {:>9} {:>6} {:>7}",
            cell(t),
            cell(h),
            t.falsely_flagged + h.falsely_flagged,
            (t.misconceived - t.caught) + (h.misconceived - h.caught),
        );
    }
    out.push('\n');
    out.push_str(&summary("tuned", &r.tuned));
    out.push_str(&summary("held out", &r.held_out));
    if let Some(j) = &r.judge {
        judge_lines(&mut out, j);
    }
    if show != Show::None {
        let parts: &[Part] = if show == Show::All {
            &[Part::Tuned, Part::HeldOut]
        } else {
            &[Part::Tuned]
        };
        for &part in parts {
            for o in r.outcomes.iter().filter(|o| o.part == part && !o.agrees()) {
                let _ = writeln!(
                    out,
                    "\n{} {}:{} ({}) {}\n  {}",
                    paint("✗", Style::new().red()),
                    o.file,
                    o.line,
                    o.card,
                    describe(o),
                    o.text.trim().replace('\n', "\n  ")
                );
                for u in &o.unchecked {
                    let _ = writeln!(out, "  ? unchecked: “{u}”");
                }
            }
        }
    }
    out
}

/// The judge's lines: how it ran, then per part how often each reading agrees.
fn judge_lines(out: &mut String, j: &super::JudgeRun) {
    let fell: Vec<String> = j
        .fallbacks
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let _ = writeln!(
        out,
        "judge     {}: the verdicts above are the judge's, held to the rules; it agreed with the rules on {} of {} answers; {} item(s) of its replies not believed; {} answer(s) left to the rules{}; {} read from the store, not sent again",
        j.model,
        j.agreed_with_rules,
        j.answers,
        j.dropped,
        j.fallbacks.values().sum::<usize>(),
        if fell.is_empty() {
            String::new()
        } else {
            format!(" ({})", fell.join(", "))
        },
        j.stored
    );
    for (name, f) in [("tuned", &j.tuned), ("held-out", &j.held_out)] {
        if f.answers == 0 {
            continue;
        }
        let pct = |n: usize| 100.0 * n as f64 / f.replied.max(1) as f64;
        let _ = writeln!(
            out,
            "judge     {name}: replies to {} of {} answers; on those, verdicts agree: the model's own {:.1}%, after the guards {:.1}%, the rules' {:.1}%",
            f.replied,
            f.answers,
            pct(f.model_agrees),
            pct(f.guarded_agrees),
            pct(f.rules_agrees)
        );
    }
}
