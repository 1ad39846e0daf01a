//! Bounds that keep the client's memory flat whatever a server sends (a reply that never ends,
//! a listen stream sending as fast as it can, one enormous frame).
//!
//! - One frame (an SSE event or a stdio line) is kept up to [`MAX_FRAME_BYTES`]; a longer one is
//!   dropped and shown as a malformed frame with its first bytes.
//! - A reply keeps its first and last [`KEPT_FRAMES`] / 2 frames and counts the rest; its text is
//!   kept up to [`KEPT_BODY_BYTES`].
//! - Streams and the stdio channel hand frames over a bounded channel, so a consumer that falls
//!   behind slows the reader (and the server, through TCP or the pipe) instead of queueing.
//! - More than [`FLOOD_FRAMES_PER_SEC`] frames within one second is a flood: the reader stops
//!   and raises the client's [`Alarm`] with a [`Flood`] saying what it saw.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::watch;

/// The largest SSE event or stdio line kept.
pub const MAX_FRAME_BYTES: usize = 1 << 20;
/// Frames kept from one reply: the first half and the last half of this many.
pub const KEPT_FRAMES: usize = 200;
/// Reply text kept for display.
pub const KEPT_BODY_BYTES: usize = 64 * 1024;
/// Frames per second above which a server is flooding. Nothing in MCP subscriptions sends
/// this fast: a notification says "something changed", and changes are rare.
pub const FLOOD_FRAMES_PER_SEC: usize = 1_000;
/// Events a stream or channel holds before its reader waits for the consumer.
pub(crate) const CHANNEL_CAPACITY: usize = 256;

/// What a flooding server did before the client stopped reading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flood {
    /// Frames read.
    pub frames: usize,
    /// Seconds from the first frame to the moment the client stopped.
    pub secs: f64,
    /// Frames read but not kept.
    pub dropped: usize,
}

impl fmt::Display for Flood {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "server is flooding: {} frames in {:.1} s, dropped {}",
            self.frames, self.secs, self.dropped
        )
    }
}

impl std::error::Error for Flood {}

/// Counts frames and says when more than its limit arrive within one second (the client's
/// [`FLOOD_FRAMES_PER_SEC`] by default; the lab shows fewer).
#[derive(Debug)]
pub(crate) struct FloodMeter {
    start: Instant,
    window: Instant,
    in_window: usize,
    frames: usize,
    limit: usize,
}

impl FloodMeter {
    pub(crate) fn new() -> Self {
        Self::with_limit(FLOOD_FRAMES_PER_SEC)
    }

    pub(crate) fn with_limit(limit: usize) -> Self {
        let now = Instant::now();
        FloodMeter {
            start: now,
            window: now,
            in_window: 0,
            frames: 0,
            limit,
        }
    }

    /// Counts one frame; `true` when this one makes a flood.
    pub(crate) fn tick(&mut self) -> bool {
        self.frames += 1;
        let now = Instant::now();
        if now.duration_since(self.window) >= Duration::from_secs(1) {
            self.window = now;
            self.in_window = 0;
        }
        self.in_window += 1;
        self.in_window > self.limit
    }

    pub(crate) fn flood(&self, dropped: usize) -> Flood {
        Flood {
            frames: self.frames,
            secs: self.start.elapsed().as_secs_f64(),
            dropped,
        }
    }
}

/// Keeps the first and the last `KEPT_FRAMES / 2` items and counts the ones in between.
#[derive(Debug)]
pub(crate) struct HeadTail<T> {
    head: Vec<T>,
    tail: VecDeque<T>,
    dropped: usize,
}

impl<T> HeadTail<T> {
    pub(crate) fn new() -> Self {
        HeadTail {
            head: Vec::new(),
            tail: VecDeque::new(),
            dropped: 0,
        }
    }

    pub(crate) fn push(&mut self, item: T) {
        let half = KEPT_FRAMES / 2;
        if self.head.len() < half {
            self.head.push(item);
            return;
        }
        if self.tail.len() == half {
            self.tail.pop_front();
            self.dropped += 1;
        }
        self.tail.push_back(item);
    }

    pub(crate) fn dropped(&self) -> usize {
        self.dropped
    }

    pub(crate) fn into_vec(self) -> Vec<T> {
        let mut v = self.head;
        v.extend(self.tail);
        v
    }
}

/// Appends `chunk` to `text` while it is under [`KEPT_BODY_BYTES`]; counts what is left out.
pub(crate) fn keep_text(text: &mut String, left_out: &mut usize, chunk: &str) {
    let room = KEPT_BODY_BYTES.saturating_sub(text.len());
    if chunk.len() <= room {
        text.push_str(chunk);
        return;
    }
    let mut cut = room;
    while !chunk.is_char_boundary(cut) {
        cut -= 1;
    }
    text.push_str(&chunk[..cut]);
    *left_out += chunk.len() - cut;
}

/// Raised once by whichever reader of a client sees a flood; `check` waits on it beside its
/// checks and stops them all.
#[derive(Debug, Clone)]
pub struct Alarm(Arc<watch::Sender<Option<Flood>>>);

impl Default for Alarm {
    fn default() -> Self {
        Alarm(Arc::new(watch::channel(None).0))
    }
}

impl Alarm {
    pub(crate) fn raise(&self, flood: Flood) {
        self.0.send_if_modified(|v| {
            if v.is_none() {
                *v = Some(flood);
                true
            } else {
                false
            }
        });
    }

    /// The flood, once one was seen.
    pub fn flood(&self) -> Option<Flood> {
        self.0.borrow().clone()
    }

    /// Waits until a flood is seen (forever if none is).
    pub async fn raised(&self) -> Flood {
        let mut rx = self.0.subscribe();
        loop {
            if let Some(f) = rx.borrow_and_update().clone() {
                return f;
            }
            if rx.changed().await.is_err() {
                return std::future::pending().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_tail_keeps_both_ends_and_counts_the_middle() {
        let mut h = HeadTail::new();
        for i in 0..KEPT_FRAMES + 50 {
            h.push(i);
        }
        assert_eq!(h.dropped(), 50);
        let v = h.into_vec();
        assert_eq!(v.len(), KEPT_FRAMES);
        assert_eq!(v[0], 0);
        assert_eq!(v[KEPT_FRAMES / 2], KEPT_FRAMES / 2 + 50);
        assert_eq!(v[KEPT_FRAMES - 1], KEPT_FRAMES + 49);
    }

    #[test]
    fn kept_text_stops_at_the_bound_on_a_char_boundary() {
        let mut text = String::new();
        let mut left = 0;
        keep_text(&mut text, &mut left, &"é".repeat(KEPT_BODY_BYTES));
        assert!(text.len() <= KEPT_BODY_BYTES);
        assert_eq!(text.len() + left, 2 * KEPT_BODY_BYTES);
    }

    #[test]
    fn a_meter_calls_a_burst_a_flood() {
        let mut m = FloodMeter::new();
        let flooding = (0..=FLOOD_FRAMES_PER_SEC).map(|_| m.tick()).last();
        assert_eq!(flooding, Some(true));
        assert!(
            m.flood(3)
                .to_string()
                .starts_with("server is flooding: 1001 frames in ")
        );
    }
}
