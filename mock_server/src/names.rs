//! A mistyped name and the names it was probably meant to be. Every "no such rule / card /
//! deck / scenario / fault / kind" message of mcp-tutor and of this server is phrased here, so
//! they all read alike and none lists every name there is.

/// At most this many suggestions.
const MAX: usize = 3;

fn norm(s: &str) -> String {
    s.trim().to_lowercase().replace('_', "-")
}

/// The part after the last `/` (the card of a `DECK/CARD` key).
fn tail(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// The names in `names` closest to `given`, closest first, at most three: a typo away
/// (an edit distance of about a third of the name, a swapped pair counting once), compared
/// whole and, for `DECK/CARD` keys, card to card; or containing what was typed. Empty when
/// nothing is near: then the name was not a typo, and a guess would mislead.
pub fn nearest<'a>(given: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let g = norm(given);
    if g.is_empty() {
        return Vec::new();
    }
    let allowed = (g.chars().count() / 3).clamp(1, 3);
    // (distance, distance of the whole name, name): a whole-key match outranks a card-only one.
    let mut scored: Vec<(usize, usize, &str)> = names
        .into_iter()
        .filter_map(|name| {
            let n = norm(name);
            let whole = strsim::damerau_levenshtein(&g, &n);
            let card = strsim::damerau_levenshtein(tail(&g), tail(&n));
            let d = whole.min(card);
            let contains = g.chars().count() >= 3 && n.contains(&g);
            (d <= allowed || contains).then_some((d.min(allowed + 1), whole, name))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.2 == b.2);
    scored.into_iter().take(MAX).map(|(_, _, n)| n).collect()
}

/// The one message for an unknown name: ``no rule `ack-frist`: did you mean `ack-first`?
/// (`mcp-tutor why` …)``. `what` names the kind of thing (`rule`, `card`); `listed` says
/// where the full list is, or lists a short set itself.
pub fn unknown<'a>(
    what: &str,
    given: &str,
    names: impl IntoIterator<Item = &'a str>,
    listed: &str,
) -> String {
    let near = nearest(given, names);
    let quoted: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
    let guess = match quoted.as_slice() {
        [] => String::new(),
        [one] => format!(": did you mean {one}?"),
        [init @ .., last] => format!(": did you mean {} or {last}?", init.join(", ")),
    };
    format!("no {what} `{}`{guess} ({listed})", given.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: [&str; 5] = [
        "ack-first",
        "ack-timeout",
        "tag-present",
        "tag-matches-id",
        "graceful-close",
    ];

    #[test]
    fn a_typo_finds_its_name_and_nothing_else() {
        assert_eq!(nearest("ack-frist", RULES), ["ack-first"]);
        assert_eq!(nearest("gracefull-close", RULES), ["graceful-close"]);
        assert_eq!(nearest("Graceful_Close", RULES), ["graceful-close"]);
        assert!(nearest("nosuch", RULES).is_empty());
    }

    #[test]
    fn a_card_key_is_compared_card_to_card_and_a_fragment_finds_its_names() {
        let keys = [
            "subscriptions/ack-name",
            "subscriptions/ack-no-replay",
            "lifecycle/ack-name",
        ];
        assert_eq!(
            nearest("subscriptions/ack-nmae", keys),
            ["subscriptions/ack-name", "lifecycle/ack-name"]
        );
        assert_eq!(
            nearest("subscription", ["subscriptions", "lifecycle"]),
            ["subscriptions"]
        );
        assert_eq!(nearest("tag", RULES), ["tag-present", "tag-matches-id"]);
    }

    #[test]
    fn one_phrasing() {
        assert_eq!(
            unknown("rule", "ack-frist", RULES, "`mcp-tutor why` lists them"),
            "no rule `ack-frist`: did you mean `ack-first`? (`mcp-tutor why` lists them)"
        );
        assert_eq!(
            unknown("rule", "ack", RULES, "see docs"),
            "no rule `ack`: did you mean `ack-first` or `ack-timeout`? (see docs)"
        );
        assert_eq!(
            unknown("kind", "zzz", ["recall"], "one of: recall"),
            "no kind `zzz` (one of: recall)"
        );
    }
}
