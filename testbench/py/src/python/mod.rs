//! pyo3 bindings: the `cngw_sim` extension module.
mod convert;
mod gateway;
mod model;
mod module;

pub use module::{CsrError, ScoreboardMismatch};
