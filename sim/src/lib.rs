//! Cycle-accurate simulation of the gateway through Verilator.
//!
//! `build.rs` emits the Verilog from `cngw-hdl`, verilates it once per build
//! and links a generated C shim; [`Gateway`] is the safe handle on it.
pub mod gateway;
pub mod stream;
pub mod unit;

pub use gateway::{CsrError, Gateway, FLOW_TABLE_FLUSH_CLOCKS, PORTS, RTL_DIR};
pub use stream::*;
pub use unit::{unit_names, Unit};
