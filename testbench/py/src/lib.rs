//! The cycle-accurate gateway for Python: the `cngw_sim` extension module.
//!
//! `cngw_testbench::Bench` (sources, sinks, monitors and an AXI4-Lite master
//! clocked together, runs that stop on events) is the clocked bench; the
//! `python` feature, which maturin turns on, wraps it with pyo3. The
//! cocotb-like layer on top is pure Python (`testbench/python/cngw_tb`).

#[cfg(feature = "python")]
mod python;

pub use cngw_testbench::bench::{
    self, event, AcceptedFrame, Bench, BenchError, OutputFrame, ParsedAt,
};
pub use cngw_testbench::pause::{self, Pause};
