"""Compare `mcp-tutor check --json` against the Python SDK server with the expected deviations.

The SDK server must pass every rule except exactly the ones listed in expected-sdk-deviations.txt:
an expected deviation that `check` reports as failed is a PASS here (check named it), one that
`check` now passes or no longer reports is a FAIL (update the list), and any other failed rule is a
FAIL (a new deviation, or a bug in `check`). A rule `check` skips is reported as SKIP. `check`'s own
exit status must be non-zero exactly when it reported a failure.

Accepted JSON shapes (whatever `check --json` settles on): one JSON document or JSON lines; rule
results are the objects carrying an id (`id`, `rule` or `name`) and an outcome (`status`,
`outcome`, `result` or `verdict` = pass/fail/skip, or a boolean `passed`/`ok`), found anywhere in
the document. `spec`/`reference`/`ref` and `message`/`detail` are shown when present.

Usage: python compare_check.py CHECK_JSON EXPECTED_FILE [--exit-status N]
Prints PASS/FAIL/SKIP lines; exit status 1 on any FAIL.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path
from typing import Any

ID_KEYS = ("id", "rule", "name")
OUTCOME_KEYS = ("status", "outcome", "result", "verdict")
BOOL_KEYS = ("passed", "ok")
SPEC_KEYS = ("spec", "reference", "ref", "spec_ref", "specRef")
DETAIL_KEYS = ("message", "detail", "details", "why", "reason")
OUTCOMES = {
    "pass": "pass", "passed": "pass", "ok": "pass", "success": "pass",
    "fail": "fail", "failed": "fail", "failure": "fail", "error": "fail",
    "skip": "skip", "skipped": "skip",
}


def load(text: str) -> list[Any]:
    text = text.strip()
    if not text:
        return []
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def outcome_of(obj: dict[str, Any]) -> str | None:
    for key in OUTCOME_KEYS:
        value = obj.get(key)
        if isinstance(value, str) and value.lower() in OUTCOMES:
            return OUTCOMES[value.lower()]
    for key in BOOL_KEYS:
        if isinstance(obj.get(key), bool):
            return "pass" if obj[key] else "fail"
    return None


def first_str(obj: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def rules(node: Any, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every object in `node` that looks like one rule's result, in document order."""
    if isinstance(node, dict):
        if first_str(node, ID_KEYS) and outcome_of(node) is not None:
            found.append(node)
            return found
        for value in node.values():
            rules(value, found)
    elif isinstance(node, list):
        for value in node:
            rules(value, found)
    return found


def expected(path: Path) -> list[str]:
    """Rule ids (or shell-style patterns) from the list, one per line; `#` starts a comment."""
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            entries.append(entry)
    return entries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("check_json", type=Path)
    parser.add_argument("expected", type=Path)
    parser.add_argument("--exit-status", type=int, default=None, help="check's own exit status")
    args = parser.parse_args()

    failures = 0

    def out(kind: str, text: str) -> None:
        nonlocal failures
        failures += kind == "FAIL"
        print(f"{kind} check: {text}", flush=True)

    try:
        documents = load(args.check_json.read_text(encoding="utf-8"))
        summary = documents[0] if len(documents) == 1 else None
        # `check --json` puts the verdicts under "rules" (its "evidence" repeats rule names); read
        # only those when present, else scan the whole document.
        if len(documents) == 1 and isinstance(documents[0], dict) and isinstance(documents[0].get("rules"), list):
            documents = documents[0]["rules"]
        results = rules(documents, [])
    except (OSError, json.JSONDecodeError) as error:
        out("FAIL", f"cannot read `mcp-tutor check --json` output {args.check_json}: {error}")
        return 1
    if not results:
        out("FAIL", f"`mcp-tutor check --json` reported no rule results ({args.check_json})")
        return 1
    deviations = expected(args.expected)
    matched: set[str] = set()
    any_failed = False

    for rule in results:
        rid = first_str(rule, ID_KEYS)
        outcome = outcome_of(rule)
        spec = first_str(rule, SPEC_KEYS)
        where = f" [{spec}]" if spec else ""
        detail = first_str(rule, DETAIL_KEYS)
        hits = [d for d in deviations if d == rid or fnmatch.fnmatchcase(rid, d)]
        matched.update(hits)
        if outcome == "fail":
            any_failed = True
        if hits:
            if outcome == "fail":
                out("PASS", f"{rid}{where}: the SDK's known deviation, reported as expected")
            elif outcome == "pass":
                out("FAIL", f"{rid}{where}: listed as a known SDK deviation but now passes; "
                            f"update {args.expected.name}")
            else:
                out("FAIL", f"{rid}{where}: listed as a known SDK deviation but check skipped it")
        elif outcome == "pass":
            out("PASS", f"{rid}{where}")
        elif outcome == "skip":
            out("SKIP", f"{rid}{where}" + (f": {detail}" if detail else ""))
        else:
            out("FAIL", f"{rid}{where}: failed against the SDK server and is not a known deviation"
                        + (f": {detail}" if detail else ""))

    tallies = {k: sum(1 for r in results if outcome_of(r) == v) for k, v in (("passed", "pass"), ("failed", "fail"))}
    for key, counted in tallies.items():
        claimed = summary.get(key) if isinstance(summary, dict) else None
        if isinstance(claimed, int) and claimed != counted:
            out("FAIL", f"check's summary says {claimed} {key} but its rules show {counted}")

    for entry in deviations:
        if entry not in matched:
            out("FAIL", f"known SDK deviation '{entry}' is not among check's rules; update {args.expected.name}")

    if args.exit_status is not None and (args.exit_status != 0) != any_failed:
        out("FAIL", f"check exited {args.exit_status} but reported {'a' if any_failed else 'no'} failure; "
                    "it must exit non-zero exactly when a rule fails")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
