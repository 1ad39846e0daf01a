//! The review log and derived state: append-only undo, cram, retention, concurrent writers.
use super::*;
use chrono::Duration;

fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

#[test]
fn record_undo_and_state() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    let a = s
        .record(&NewReview::new(
            "d/c",
            Rating::Good,
            ReviewMode::Review,
            t0(),
        ))
        .unwrap();
    let b = s
        .record(&NewReview::new(
            "d/c",
            Rating::Good,
            ReviewMode::Review,
            t0() + Duration::minutes(10),
        ))
        .unwrap();
    assert!(b > a);
    let st = s.state("d/c").unwrap().unwrap();
    assert_eq!(st.phase, Phase::Review);
    assert_eq!(st.reps, 2);
    s.undo(b).unwrap();
    let st = s.state("d/c").unwrap().unwrap();
    assert_eq!(st.phase, Phase::Learning);
    assert_eq!(st.reps, 1);
    let rows = s.reviews().unwrap();
    assert_eq!(rows.len(), 2, "undo keeps the log append-only");
    assert!(rows[1].undone && !rows[0].undone);
    s.undo(a).unwrap();
    assert!(s.state("d/c").unwrap().is_none());
}

#[test]
fn cram_does_not_touch_the_schedule_and_lapses_do() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    s.record(&NewReview::new(
        "d/c",
        Rating::Again,
        ReviewMode::Cram,
        t0(),
    ))
    .unwrap();
    assert!(s.state("d/c").unwrap().is_none());
    s.record_lapse("d/c", "lab:ack-first").unwrap();
    let rows = s.reviews().unwrap();
    assert_eq!(rows[1].mode, "lab");
    assert_eq!(rows[1].rating, "again");
    assert_eq!(rows[1].source.as_deref(), Some("lab:ack-first"));
    assert!(s.state("d/c").unwrap().is_some());
}

#[test]
fn retention_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    Store::open_with(dir.path(), Some(0.85)).unwrap();
    let s = Store::open(dir.path()).unwrap();
    assert!((s.scheduler.desired_retention - 0.85).abs() < 1e-6);
    assert!(Store::open_with(dir.path(), Some(2.0)).is_err());
}

#[test]
fn two_writers_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    Store::open(dir.path()).unwrap();
    let threads: Vec<std::thread::JoinHandle<()>> = (0..2)
        .map(|w| {
            let path = dir.path().to_path_buf();
            std::thread::Builder::new().spawn(move || {
                let s = Store::open(&path).unwrap();
                for i in 0..40 {
                    let at = t0() + Duration::minutes(i);
                    s.record(&NewReview::new(
                        "d/shared",
                        Rating::Good,
                        ReviewMode::Review,
                        at,
                    ))
                    .unwrap();
                    s.record(&NewReview::new(
                        &format!("d/own-{w}"),
                        Rating::Hard,
                        ReviewMode::Review,
                        at,
                    ))
                    .unwrap();
                }
            })
        })
        .collect::<std::io::Result<_>>()
        .unwrap();
    for t in threads {
        t.join().unwrap();
    }
    let s = Store::open(dir.path()).unwrap();
    assert_eq!(s.reviews().unwrap().len(), 160);
    let states = s.states().unwrap();
    assert_eq!(states["d/shared"].reps, 80);
    assert_eq!(states["d/own-0"].reps, 40);
    assert_eq!(states["d/own-1"].reps, 40);
}

#[test]
fn reset_forgets_a_deck() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(dir.path()).unwrap();
    for c in ["a/x", "a/y", "b/z"] {
        s.record(&NewReview::new(c, Rating::Good, ReviewMode::Review, t0()))
            .unwrap();
    }
    let m = s.cards_matching(Some("a")).unwrap();
    assert_eq!(m.len(), 2);
    let cards: Vec<String> = m.into_iter().map(|(c, _)| c).collect();
    assert_eq!(s.reset(&cards).unwrap(), 2);
    assert_eq!(s.reviews().unwrap().len(), 1);
    assert_eq!(s.states().unwrap().len(), 1);
}

#[test]
fn a_replaced_card_s_history_carries_over_to_the_card_that_replaced_it() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = ("stdio/stdio-restart", "lifecycle/abrupt-loss");
    {
        let s = Store::open(dir.path()).unwrap();
        for (card, minutes) in [(old, 0), (old, 10), (new, 60 * 24)] {
            let at = t0() + Duration::minutes(minutes);
            s.record(&NewReview::new(card, Rating::Good, ReviewMode::Review, at))
                .unwrap();
        }
    }
    let replaced = [(old.to_string(), new.to_string())];

    // Read-only (stats): the log reads as carried over; nothing on disk changes.
    let mut ro = Store::open_read_only(dir.path()).unwrap();
    assert_eq!(ro.carry_over(&replaced).unwrap(), 0);
    let cards: Vec<String> = ro.reviews().unwrap().into_iter().map(|r| r.card).collect();
    assert_eq!(cards, [new, new, new]);
    drop(ro);
    assert_eq!(
        Store::open(dir.path())
            .unwrap()
            .state(old)
            .unwrap()
            .unwrap()
            .reps,
        2
    );

    // Writable (quiz): re-keyed once, the state replayed from the whole history.
    let mut s = Store::open(dir.path()).unwrap();
    assert_eq!(s.carry_over(&replaced).unwrap(), 2);
    assert!(
        s.state(old).unwrap().is_none(),
        "the replaced card has no state left"
    );
    let st = s.state(new).unwrap().unwrap();
    assert_eq!(st.reps, 3);
    assert_eq!(
        st.first_review,
        t0(),
        "its history starts with the replaced card's"
    );
    let rows = s.reviews().unwrap();
    assert_eq!(rows.len(), 3, "every review is kept");
    assert!(rows.iter().all(|r| r.card == new));
    assert_eq!(
        s.setting(&format!("replaced:{old}")).unwrap().as_deref(),
        Some(new)
    );
    assert_eq!(s.carry_over(&replaced).unwrap(), 0, "once only");
    // A carried review is the new card's to undo.
    s.undo(rows[0].id).unwrap();
    assert_eq!(s.state(new).unwrap().unwrap().reps, 2);
}
