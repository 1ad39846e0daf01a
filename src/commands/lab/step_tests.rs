//! The step table and the parser: every step reachable and documented, mistakes explained.

use super::*;

#[test]
fn listen_takes_any_filter_parts() {
    let s = parse("listen tools prompts mock://notes/today")
        .unwrap()
        .unwrap();
    let Step::Listen { id, filter } = s else {
        panic!("not a listen: {s:?}")
    };
    assert_eq!(id, None);
    assert_eq!(
        serde_json::to_value(&filter).unwrap(),
        serde_json::json!({"toolsListChanged":true,"promptsListChanged":true,
                           "resourceSubscriptions":["mock://notes/today"]})
    );
    let Some(Step::Listen { filter, .. }) = parse("listen resources").unwrap() else {
        panic!()
    };
    assert_eq!(
        serde_json::to_value(&filter).unwrap(),
        serde_json::json!({"resourcesListChanged":true})
    );
}

#[test]
fn ids_keep_their_json_type() {
    assert_eq!(parse_id("7"), Value::from(7));
    assert_eq!(parse_id("\"7\""), Value::from("7"));
    assert_eq!(parse_id("lab-1"), Value::from("lab-1"));
    assert_eq!(
        parse("listen --id 7 tools").unwrap(),
        Some(Step::Listen {
            id: Some(Value::from(7)),
            filter: SubscriptionFilter {
                tools_list_changed: Some(true),
                ..SubscriptionFilter::default()
            }
        })
    );
}

#[test]
fn mistakes_are_explained() {
    let e = parse("lisen tools").unwrap_err();
    assert!(e.0.contains("did you mean `listen`"), "{e}");
    let e = parse("change everything").unwrap_err();
    assert!(e.0.contains("usage: change tools|prompts|resources"), "{e}");
    assert_eq!(parse("  # a comment").unwrap(), None);
}

/// Every step in the table is documented, and its example line parses to that very step;
/// every alias leads to it too.
#[test]
fn every_step_is_listed_documented_and_reachable() {
    let readme = include_str!("../../../README.md");
    let from = readme
        .find("### Steps")
        .expect("the README has a Steps section");
    let readme_steps = &readme[from..];
    let readme_steps = &readme_steps[..readme_steps[4..]
        .find("\n### ")
        .map_or(readme_steps.len(), |i| i + 4)];
    let mut seen = std::collections::HashSet::new();
    for d in STEPS {
        assert!(seen.insert(d.name), "{} twice", d.name);
        assert!(
            !d.brief.is_empty() && !d.what.is_empty(),
            "{} undocumented",
            d.name
        );
        assert!(d.usage.starts_with(d.name), "{}: usage {}", d.name, d.usage);
        assert!(
            d.example.starts_with(d.name),
            "{}: example {}",
            d.name,
            d.example
        );
        let step = parse(d.example)
            .unwrap_or_else(|e| panic!("{}: {e}", d.example))
            .unwrap_or_else(|| panic!("{}: parsed to nothing", d.example));
        assert_eq!(step.name(), d.name, "{} runs another step", d.example);
        for a in d.aliases {
            let line = d.example.replacen(d.name, a, 1);
            assert_eq!(parse(&line).unwrap().map(|s| s.name()), Some(d.name));
        }
        assert!(
            help_text(None, 1000).contains(d.usage),
            "{} missing from help",
            d.name
        );
        assert!(help_text(Some(d.name), 1000).contains(d.what));
        assert!(
            readme_steps.contains(&format!("`{}", d.name)),
            "{} is missing from the README's step table",
            d.name
        );
    }
}

#[test]
fn honoured_subset_differences() {
    let Some(Step::Listen { filter: asked, .. }) =
        parse("listen tools mock://a mock://nope").unwrap()
    else {
        panic!()
    };
    let Some(Step::Listen { filter: got, .. }) = parse("listen tools prompts mock://a").unwrap()
    else {
        panic!()
    };
    assert_eq!(asked.missing_from(&got), vec!["mock://nope".to_owned()]);
    assert_eq!(got.missing_from(&asked), vec!["prompts".to_owned()]);
}
