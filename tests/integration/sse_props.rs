//! The SSE parser on hostile input, as a bounded property test: whatever bytes arrive and
//! wherever the chunks split them (inside a UTF-8 sequence, between `\r` and `\n`), it never
//! panics, it yields the same items as when the bytes arrive whole, and no item it keeps is
//! larger than its bound.

use mcp_tutor::client::sse::{SseItem, SseParser};
use proptest::prelude::*;

fn stream() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Arbitrary bytes.
        proptest::collection::vec(any::<u8>(), 0..2_000),
        // SSE-shaped lines: fields, comments, blank lines, every line ending, non-ASCII.
        proptest::collection::vec(
            prop_oneof![
                Just("data: {\"jsonrpc\":\"2.0\"}".to_string()),
                Just("data:é😀".to_string()),
                Just(":".to_string()),
                Just(": keep-alive".to_string()),
                Just("event: message".to_string()),
                Just("id: 7".to_string()),
                Just("retry: 10".to_string()),
                Just(String::new()),
                "[ -~]{0,40}".prop_map(|s| format!("data: {s}")),
            ],
            0..60,
        )
        .prop_flat_map(|lines| {
            let n = lines.len();
            (Just(lines), proptest::collection::vec(0..3usize, n))
        })
        .prop_map(|(lines, ends)| {
            let mut out = Vec::new();
            for (l, e) in lines.iter().zip(ends) {
                out.extend_from_slice(l.as_bytes());
                out.extend_from_slice([&b"\n"[..], b"\r\n", b"\r"][e]);
            }
            out
        }),
    ]
}

fn parse(chunks: &[&[u8]], max: usize) -> (Vec<SseItem>, Option<String>) {
    let mut p = SseParser::with_max_event(max);
    let mut items = Vec::new();
    for c in chunks {
        items.extend(p.push(c));
    }
    (items, p.finish())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn any_split_gives_the_same_items_and_nothing_outgrows_the_bound(
        bytes in stream(),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        max in 16usize..4_096,
    ) {
        let whole = parse(&[&bytes], max);
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        at.sort_unstable();
        at.dedup();
        let mut chunks = Vec::new();
        let mut from = 0;
        for &c in &at {
            chunks.push(&bytes[from..c]);
            from = c;
        }
        chunks.push(&bytes[from..]);
        let split = parse(&chunks, max);
        prop_assert_eq!(&split.0, &whole.0);
        for item in &whole.0 {
            match item {
                // The bound counts the bytes received; `raw` joins the lines with a newline each,
                // and an invalid UTF-8 byte shows as U+FFFD (three bytes).
                SseItem::Event { raw, .. } => {
                    prop_assert!(raw.len() <= 3 * max + raw.lines().count(), "{} > {max}", raw.len())
                }
                SseItem::Oversized { head, .. } => prop_assert!(head.len() <= 4 * 200 + 4),
                SseItem::Comment { .. } => {}
            }
        }
    }
}
