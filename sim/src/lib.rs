//! Cycle-accurate simulation of the gateway through Verilator.
pub mod stream;
pub use stream::*;
