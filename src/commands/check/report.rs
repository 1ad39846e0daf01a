//! The outcome of a `check` run: findings folded into one PASS / FAIL / SKIP per rule.

use serde::Serialize;
use serde_json::{Value, json};

use mock_server::validator::{CheckRule, Finding, Level};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        }
    }
}

/// One rule's verdict with the evidence behind it.
#[derive(Debug, Clone, Serialize)]
pub struct RuleOutcome {
    pub rule: CheckRule,
    pub status: Status,
    pub level: Level,
    pub title: &'static str,
    pub spec: &'static str,
    /// The first failure, the skip reason, or the first pass, in one line.
    pub detail: String,
    pub failures: Vec<String>,
    pub passes: Vec<String>,
}

/// Everything a run found, plus the rules it could not exercise and why.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub target: String,
    pub findings: Vec<Finding>,
    pub skips: Vec<(CheckRule, String)>,
}

impl Report {
    pub fn new(target: impl Into<String>) -> Self {
        Report {
            target: target.into(),
            ..Default::default()
        }
    }

    pub fn add(&mut self, f: Finding) {
        self.findings.push(f);
    }

    pub fn extend(&mut self, fs: impl IntoIterator<Item = Finding>) {
        self.findings.extend(fs);
    }

    /// Marks `rule` as not exercised for `why` (ignored when findings exist for it).
    pub fn skip(&mut self, rule: CheckRule, why: impl Into<String>) {
        if !self.skips.iter().any(|(r, _)| *r == rule) {
            self.skips.push((rule, why.into()));
        }
    }

    pub fn has_findings(&self, rule: CheckRule) -> bool {
        self.findings.iter().any(|f| f.rule == rule)
    }

    pub fn has_failure(&self, rule: CheckRule) -> bool {
        self.findings.iter().any(|f| f.rule == rule && !f.ok)
    }

    /// One outcome per rule, in [`CheckRule::all`] order.
    pub fn outcomes(&self) -> Vec<RuleOutcome> {
        CheckRule::all()
            .iter()
            .map(|&rule| {
                let mut failures = Vec::new();
                let mut passes = Vec::new();
                for f in self.findings.iter().filter(|f| f.rule == rule) {
                    if f.ok {
                        passes.push(f.detail.clone());
                    } else {
                        failures.push(f.detail.clone());
                    }
                }
                dedup(&mut failures);
                dedup(&mut passes);
                let (status, detail) = if let Some(first) = failures.first() {
                    (Status::Fail, first.clone())
                } else if let Some(first) = passes.first() {
                    (Status::Pass, first.clone())
                } else {
                    let why = self
                        .skips
                        .iter()
                        .find(|(r, _)| *r == rule)
                        .map(|(_, w)| w.clone())
                        .unwrap_or_else(|| "not exercised by this run".to_owned());
                    (Status::Skip, why)
                };
                RuleOutcome {
                    rule,
                    status,
                    level: rule.level(),
                    title: rule.title(),
                    spec: rule.spec(),
                    detail,
                    failures,
                    passes,
                }
            })
            .collect()
    }

    /// (passed, failed, skipped)
    pub fn counts(&self) -> (usize, usize, usize) {
        let o = self.outcomes();
        let n = |s| o.iter().filter(|x| x.status == s).count();
        (n(Status::Pass), n(Status::Fail), n(Status::Skip))
    }

    /// The `--json` document.
    pub fn to_json(&self) -> Value {
        let (passed, failed, skipped) = self.counts();
        json!({
            "target": self.target,
            "rules": self.outcomes(),
            "passed": passed,
            "failed": failed,
            "skipped": skipped,
            // Each finding as evidence: `kept` (not `ok`) so tools that scan the document for
            // rule verdicts read only `rules`.
            "evidence": self.findings.iter().map(|f| json!({
                "rule": f.rule,
                "kept": f.ok,
                "detail": f.detail,
                "subscription": f.subscription,
            })).collect::<Vec<_>>(),
            "not_run": self.skips.iter().map(|(r, why)| json!({"rule": r, "why": why})).collect::<Vec<_>>(),
        })
    }

    /// The summary line scripts parse: `N passed, M failed` (+ `, K skipped`).
    pub fn summary_line(&self) -> String {
        let (p, f, s) = self.counts();
        if s > 0 {
            format!("{p} passed, {f} failed, {s} skipped")
        } else {
            format!("{p} passed, {f} failed")
        }
    }
}

fn dedup(v: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.clone()));
}
