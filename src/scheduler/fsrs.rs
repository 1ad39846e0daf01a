//! The FSRS-6 memory model with its default parameters: the part of the `fsrs` crate
//! (fsrs-rs 6.6.2) the scheduler uses, namely the next memory state for each rating, the interval
//! for a desired retention and the recall after some days.
//!
//! Why not the crate itself: it also carries the parameter optimizer and the simulator, and with
//! them ndarray, rayon, rand, strum and snafu, a large share of a cold release build for about a
//! hundred lines of arithmetic. The formulas below are the crate's scalar ones (`model.rs`,
//! `inference.rs`), in the same order of operations, so they give the same `f32` bits; the test
//! `matches_the_fsrs_crate_bit_for_bit` (with `fsrs` as a dev-dependency) holds them to that.

/// The FSRS-6 default parameters w0..w20 ("fit the average person's learning habits").
pub const DEFAULT_PARAMETERS: [f32; 21] = [
    0.212,
    1.2931,
    2.3065,
    8.2956,
    6.4133,
    0.8334,
    3.0194,
    0.001,
    1.8722,
    0.1666,
    0.796,
    1.4835,
    0.0614,
    0.2629,
    1.6483,
    0.6014,
    1.8729,
    0.5425,
    0.0912,
    0.0658,
    DEFAULT_DECAY,
];

/// The FSRS-6 default decay of the forgetting curve (w20).
pub const DEFAULT_DECAY: f32 = 0.1542;

const S_MIN: f32 = 0.001;
const S_MAX: f32 = 36500.0;
const D_MIN: f32 = 1.0;
const D_MAX: f32 = 10.0;

/// How well a card is remembered: stability in days (the interval at which recall is 90%) and
/// difficulty from 1 to 10.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryState {
    pub stability: f32,
    pub difficulty: f32,
}

/// The memory state after one rating, and the interval in days at which recall falls to the
/// desired retention.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NextState {
    pub memory: MemoryState,
    pub interval: f32,
}

/// The states after rating a card again, hard, good and easy (in that order) `days_elapsed`
/// study days after its last review (`prev` None for a new card): the crate's `next_states`.
/// None when any of them comes out non-finite (a corrupted `prev`), where the crate returns an
/// error.
pub fn next_states(
    prev: Option<MemoryState>,
    days_elapsed: u32,
    desired_retention: f32,
) -> Option<[NextState; 4]> {
    let w = &DEFAULT_PARAMETERS;
    let (state, nth) = match prev {
        Some(s) => (s, 1),
        None => (
            MemoryState {
                stability: 0.0,
                difficulty: 0.0,
            },
            0,
        ),
    };
    let mut out = [NextState {
        memory: state,
        interval: 0.0,
    }; 4];
    for (rating, slot) in (1..=4u8).zip(out.iter_mut()) {
        let memory = step(w, days_elapsed as f32, f32::from(rating), state, nth);
        if !memory.stability.is_finite() || !memory.difficulty.is_finite() {
            return None;
        }
        *slot = NextState {
            memory,
            interval: next_interval(w, memory.stability, desired_retention),
        };
    }
    Some(out)
}

/// Probability of recall `days_elapsed` days after the last review, on the curve with `decay`.
pub fn retrievability(state: MemoryState, days_elapsed: f32, decay: f32) -> f32 {
    let factor = 0.9f32.powf(1.0 / -decay) - 1.0;
    (days_elapsed / state.stability * factor + 1.0).powf(-decay)
}

fn power_forgetting_curve(w: &[f32; 21], t: f32, s: f32) -> f32 {
    let decay = -w[20];
    let factor = (0.9f32.ln() / decay).exp() - 1.0;
    (t / s * factor + 1.0).powf(decay)
}

fn next_interval(w: &[f32; 21], stability: f32, desired_retention: f32) -> f32 {
    let decay = -w[20];
    let factor = (0.9f32.ln() / decay).exp() - 1.0;
    stability / factor * (desired_retention.powf(1.0 / decay) - 1.0)
}

fn init_stability(w: &[f32; 21], rating: usize) -> f32 {
    w[rating.saturating_sub(1).min(3)]
}

fn init_difficulty(w: &[f32; 21], rating: usize) -> f32 {
    w[4] - (w[5] * rating.saturating_sub(1) as f32).exp() + 1.0
}

fn mean_reversion(w: &[f32; 21], new_d: f32) -> f32 {
    w[7] * (init_difficulty(w, 4) - new_d) + new_d
}

fn linear_damping(delta_d: f32, old_d: f32) -> f32 {
    (10.0 - old_d) * delta_d / 9.0
}

fn next_difficulty(w: &[f32; 21], difficulty: f32, rating: f32) -> f32 {
    let delta_d = -w[6] * (rating - 3.0);
    difficulty + linear_damping(delta_d, difficulty)
}

fn stability_after_success(w: &[f32; 21], last_s: f32, last_d: f32, r: f32, rating: f32) -> f32 {
    let hard_penalty = if rating == 2.0 { w[15] } else { 1.0 };
    let easy_bonus = if rating == 4.0 { w[16] } else { 1.0 };
    last_s
        * (w[8].exp()
            * (11.0 - last_d)
            * last_s.powf(-w[9])
            * (((1.0 - r) * w[10]).exp() - 1.0)
            * hard_penalty
            * easy_bonus
            + 1.0)
}

fn stability_after_failure(w: &[f32; 21], last_s: f32, last_d: f32, r: f32) -> f32 {
    let new_s = w[11]
        * last_d.powf(-w[12])
        * ((last_s + 1.0).powf(w[13]) - 1.0)
        * ((1.0 - r) * w[14]).exp();
    let new_s_min = last_s / (w[17] * w[18]).exp();
    new_s.min(new_s_min)
}

fn stability_short_term(w: &[f32; 21], last_s: f32, rating: f32) -> f32 {
    let sinc = (w[17] * (rating - 3.0 + w[18])).exp() * last_s.powf(-w[19]);
    last_s * if rating >= 2.0 { sinc.max(1.0) } else { sinc }
}

/// One review: the crate's `model::step`. A review on the same day (`delta_t` 0) uses the
/// short-term stability formula; a first review takes the initial stability and difficulty.
/// Ratings here are 1 to 4, so the crate's branch for rating 0 (a manual reschedule) is left out.
fn step(w: &[f32; 21], delta_t: f32, rating: f32, state: MemoryState, nth: usize) -> MemoryState {
    let last_s = state.stability.clamp(S_MIN, S_MAX);
    let last_d = state.difficulty.clamp(D_MIN, D_MAX);

    let retrievability = power_forgetting_curve(w, delta_t, last_s);
    let mut new_s = if rating == 1.0 {
        stability_after_failure(w, last_s, last_d, retrievability)
    } else {
        stability_after_success(w, last_s, last_d, retrievability, rating)
    };
    if delta_t == 0.0 {
        new_s = stability_short_term(w, last_s, rating);
    }

    let mut new_d = next_difficulty(w, last_d, rating);
    new_d = mean_reversion(w, new_d).clamp(D_MIN, D_MAX);

    if nth == 0 && state.stability == 0.0 {
        let init_rating = (rating as u32).clamp(1, 4) as usize;
        new_s = init_stability(w, init_rating);
        new_d = init_difficulty(w, init_rating).clamp(D_MIN, D_MAX);
    }

    MemoryState {
        stability: new_s.clamp(S_MIN, S_MAX),
        difficulty: new_d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Ours against the crate for one input: every output bit the same, or both refuse.
    fn same_as_crate(prev: Option<MemoryState>, days: u32, retention: f32) {
        let crate_prev = prev.map(|p| ::fsrs::MemoryState {
            stability: p.stability,
            difficulty: p.difficulty,
        });
        let theirs = ::fsrs::FSRS::default()
            .next_states(crate_prev, retention, days)
            .ok()
            .map(|t| {
                [t.again, t.hard, t.good, t.easy].map(|s| {
                    (
                        s.memory.stability.to_bits(),
                        s.memory.difficulty.to_bits(),
                        s.interval.to_bits(),
                    )
                })
            });
        let ours = next_states(prev, days, retention).map(|o| {
            o.map(|s| {
                (
                    s.memory.stability.to_bits(),
                    s.memory.difficulty.to_bits(),
                    s.interval.to_bits(),
                )
            })
        });
        assert_eq!(
            theirs, ours,
            "from {prev:?} after {days} days at retention {retention}"
        );
    }

    #[test]
    fn the_parameters_are_the_crates() {
        assert_eq!(DEFAULT_PARAMETERS, ::fsrs::DEFAULT_PARAMETERS);
        assert_eq!(DEFAULT_DECAY, ::fsrs::FSRS6_DEFAULT_DECAY);
    }

    #[test]
    fn new_cards_and_edge_states_match_the_fsrs_crate() {
        for retention in [0.70, 0.80, 0.90, 0.97, 0.99] {
            same_as_crate(None, 0, retention);
            for days in [0, 1, 2, 10, 365, 36_500, u32::MAX] {
                for (s, d) in [
                    (0.0, 0.0),
                    (S_MIN, D_MIN),
                    (S_MAX, D_MAX),
                    (0.212, 6.4133),
                    (8.2956, 1.0),
                    (1e-9, 11.0),
                    (f32::MAX, -1.0),
                    // Non-finite: both refuse (the scheduler then restarts the card as new).
                    (f32::NAN, 5.0),
                    (2.0, f32::INFINITY),
                ] {
                    same_as_crate(
                        Some(MemoryState {
                            stability: s,
                            difficulty: d,
                        }),
                        days,
                        retention,
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4_000))]
        #[test]
        fn matches_the_fsrs_crate_bit_for_bit(
            stability in 0.0001f32..40_000.0,
            difficulty in 0.5f32..10.5,
            days in prop_oneof![0u32..3, 0u32..400, 0u32..40_000],
            retention in 0.70f32..=0.99,
        ) {
            same_as_crate(Some(MemoryState { stability, difficulty }), days, retention);
        }

        #[test]
        fn recall_matches_the_fsrs_crate_bit_for_bit(
            stability in 0.0001f32..40_000.0,
            difficulty in 1.0f32..10.0,
            days in 0.0f32..40_000.0,
        ) {
            let ours = retrievability(MemoryState { stability, difficulty }, days, DEFAULT_DECAY);
            let theirs = ::fsrs::current_retrievability(
                ::fsrs::MemoryState { stability, difficulty },
                days,
                ::fsrs::FSRS6_DEFAULT_DECAY,
            );
            prop_assert_eq!(ours.to_bits(), theirs.to_bits());
        }
    }
}
