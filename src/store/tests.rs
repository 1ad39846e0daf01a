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
