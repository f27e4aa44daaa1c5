//! The cycle-accurate gateway for Python: the `cngw_sim` extension module.
//!
//! [`bench::Bench`] is plain Rust (sources, sinks, monitors and an AXI4-Lite
//! master clocked together, batch runs that stop on events); the `python`
//! feature, which maturin turns on, wraps it with pyo3. The cocotb-like
//! layer on top is pure Python (`testbench/python/cngw_tb`).
pub mod bench;
pub mod pause;

#[cfg(feature = "python")]
mod python;

pub use bench::{event, AcceptedFrame, Bench, BenchError, OutputFrame, ParsedAt};
pub use pause::Pause;
