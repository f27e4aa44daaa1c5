//! Pause patterns of stream sources and sinks (cocotbext-axi's "pause
//! generator"): one value per clock, `true` meaning "pause in this clock".
//! A paused source does not start a new beat (a beat already presented stays
//! until it is taken, as AXI4-Stream requires); a paused sink holds `tready`
//! low. Every pattern advances exactly once per clock, paused or not, so a
//! pattern of period 4 lines up with the clock the same way in every run.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Whether a source idles / a sink stalls, clock by clock.
#[derive(Clone, Debug, Default)]
pub enum Pause {
    /// Never paused: back to back, always ready.
    #[default]
    Never,
    /// Paused with a fixed probability in each clock, from a seeded generator.
    Random { probability: f64, rng: Box<StdRng> },
    /// A pattern repeated forever (`itertools.cycle([1, 1, 1, 0])`).
    Repeat { pattern: Vec<bool>, at: usize },
    /// Values handed in from outside (a Python iterator), consumed one per
    /// clock; when they run out the port is no longer paused.
    Fed(VecDeque<bool>),
}

impl Pause {
    /// Paused in `probability` of the clocks, reproducibly for a `seed`.
    pub fn random(probability: f64, seed: u64) -> Self {
        if probability <= 0.0 {
            Pause::Never
        } else {
            Pause::Random {
                probability: probability.min(1.0),
                rng: Box::new(StdRng::seed_from_u64(seed)),
            }
        }
    }

    /// `pattern` repeated forever; an empty pattern never pauses.
    pub fn repeat(pattern: Vec<bool>) -> Self {
        if pattern.iter().any(|&p| p) {
            Pause::Repeat { pattern, at: 0 }
        } else {
            Pause::Never
        }
    }

    /// The value for the coming clock; advances the pattern.
    #[inline]
    pub fn pause_this_clock(&mut self) -> bool {
        match self {
            Pause::Never => false,
            Pause::Random { probability, rng } => rng.gen_bool(*probability),
            Pause::Repeat { pattern, at } => {
                let p = pattern[*at];
                *at = if *at + 1 == pattern.len() { 0 } else { *at + 1 };
                p
            }
            Pause::Fed(values) => values.pop_front().unwrap_or(false),
        }
    }

    /// Values still waiting in a fed pattern (0 for the others).
    pub fn fed_len(&self) -> usize {
        match self {
            Pause::Fed(v) => v.len(),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_03_repeat_pattern_advances_once_per_clock() {
        let mut p = Pause::repeat(vec![true, true, true, false]);
        let got: Vec<bool> = (0..8).map(|_| p.pause_this_clock()).collect();
        assert_eq!(got, [true, true, true, false, true, true, true, false]);
    }

    #[test]
    fn hw_03_random_pause_is_reproducible_and_near_its_probability() {
        let a: Vec<bool> = {
            let mut p = Pause::random(0.25, 7);
            (0..10_000).map(|_| p.pause_this_clock()).collect()
        };
        let mut p = Pause::random(0.25, 7);
        assert!(a.iter().all(|&x| x == p.pause_this_clock()));
        let paused = a.iter().filter(|&&x| x).count();
        assert!((2_200..2_800).contains(&paused), "{paused}");
    }

    #[test]
    fn hw_03_fed_pattern_stops_pausing_when_exhausted() {
        let mut p = Pause::Fed(VecDeque::from(vec![true, false, true]));
        let got: Vec<bool> = (0..5).map(|_| p.pause_this_clock()).collect();
        assert_eq!(got, [true, false, true, false, false]);
    }
}
