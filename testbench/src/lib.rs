//! cocotb-like harness for the cycle-accurate gateway: stream drivers with
//! random idle cycles, sinks with random backpressure, monitors, and a
//! scoreboard that compares the RTL with the behavioural model.
pub mod bench;
pub mod harness;
pub mod marker_clock;
pub mod pause;
pub mod scheduled;
pub mod scoreboard;
pub mod setup;
pub mod soak;
pub mod traffic;

pub use bench::{event, AcceptedFrame, Bench, BenchError, OutputFrame, ParsedAt};
pub use harness::{run, Capture, PortStats, StreamOptions};
pub use marker_clock::{MarkerClock, MarkerClockError, QUEUE_DEPTH_TO_MARKER_CLOCKS};
pub use pause::Pause;
pub use scheduled::{
    check_scheduled, expect_scheduled, run_scheduled, DepthStep, Schedule, ScheduledCapture,
    ScheduledError,
};
pub use scoreboard::{check, compare, compare_counters, expect, Mismatch};

/// The README's Rust example compiles and passes (a doctest).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExample;
