//! cocotb-like harness for the cycle-accurate gateway: stream drivers with
//! random idle cycles, sinks with random backpressure, monitors, and a
//! scoreboard that compares the RTL with the behavioural model.
pub mod bench;
pub mod harness;
pub mod pause;
pub mod scoreboard;
pub mod traffic;

pub use bench::{event, AcceptedFrame, Bench, BenchError, OutputFrame, ParsedAt};
pub use harness::{run, Capture, PortStats, StreamOptions};
pub use pause::Pause;
pub use scoreboard::{check, compare, compare_counters, expect, Mismatch};

/// The README's Rust example compiles and passes (a doctest).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExample;
