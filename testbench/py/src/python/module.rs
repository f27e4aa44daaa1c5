//! The `cngw_sim` module: its classes, functions, exceptions and constants.

use super::convert::{regmap_list, PyParsedHeader};
use super::gateway::{events, PyGateway, PyPausePattern};
use super::model::{check, classify, random_mix, random_roce, read_pcap, write_pcap, PyModel};
use pyo3::prelude::*;
use pyo3::types::PyList;

pyo3::create_exception!(
    cngw_sim,
    CsrError,
    pyo3::exceptions::PyException,
    "An AXI4-Lite access failed: SLVERR (read-only), DECERR (unmapped) or no response."
);
pyo3::create_exception!(
    cngw_sim,
    ScoreboardMismatch,
    pyo3::exceptions::PyAssertionError,
    "The RTL and the reference model disagree (first difference in the message)."
);

/// The register map (the one Rust definition) as a list of dicts: name,
/// offset, access, writable, reset, volatile, doc, fields.
#[pyfunction]
fn regmap(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    regmap_list(py)
}

/// The cycle-accurate (Verilator) cngw gateway with stream sources and
/// sinks, an AXI4-Lite master, the reference model and the scoreboard.
#[pymodule]
#[pyo3(name = "cngw_sim")]
fn cngw_sim_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyGateway>()?;
    m.add_class::<PyModel>()?;
    m.add_class::<PyParsedHeader>()?;
    m.add_class::<PyPausePattern>()?;
    m.add("CsrError", py.get_type::<CsrError>())?;
    m.add("ScoreboardMismatch", py.get_type::<ScoreboardMismatch>())?;
    m.add_function(wrap_pyfunction!(regmap, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(classify, m)?)?;
    m.add_function(wrap_pyfunction!(random_mix, m)?)?;
    m.add_function(wrap_pyfunction!(random_roce, m)?)?;
    m.add_function(wrap_pyfunction!(read_pcap, m)?)?;
    m.add_function(wrap_pyfunction!(write_pcap, m)?)?;
    for (name, flag) in events(py)?.iter() {
        m.add(name.extract::<String>()?, flag)?;
    }
    m.add("EVENTS", events(py)?)?;
    m.add("RTL_DIR", cngw_sim::RTL_DIR)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
