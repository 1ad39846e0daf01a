//! One open connection, counted while it lives: the connection loop (`serve`) takes one per
//! accepted connection, and a listen stream that takes the socket over (`listen`) keeps it.
//! Its own module so that neither of the two has to import the other for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts one open connection while alive.
pub(crate) struct Slot(Arc<AtomicUsize>);

impl Slot {
    /// Takes a slot when fewer than `max` are taken.
    pub(crate) fn take(counter: &Arc<AtomicUsize>, max: usize) -> Option<Slot> {
        counter
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(counter.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
