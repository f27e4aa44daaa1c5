//! The reference model, the scoreboard, the reference parser, random
//! traffic and pcap I/O for Python.

use super::convert::{
    bytes_list, frame_arg, frames_arg, in_port, inputs_arg, register_offset, PyParsedHeader,
};
use super::ScoreboardMismatch;
use crate::bench::{Bench, BenchError};
use cngw_model::GatewayModel;
use cngw_sim::{InPort, OutPort};
use cngw_testbench::{Capture, StreamOptions};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use rand::SeedableRng;
use std::path::PathBuf;

/// The behavioural reference model of the whole gateway (`cngw_model`).
#[pyclass(name = "Model", module = "cngw_sim")]
pub struct PyModel {
    pub model: GatewayModel,
}

#[pymethods]
impl PyModel {
    /// The state after reset.
    #[new]
    fn new() -> Self {
        PyModel {
            model: GatewayModel::new(),
        }
    }

    /// One frame arriving on `port` (`"dc_rx"`/`"wan_rx"`): returns the
    /// parser's view and the frames the gateway emits, as
    /// `(ParsedHeader, [(out_port, bytes, user), ...])`.
    #[allow(clippy::type_complexity)]
    fn receive<'py>(
        &mut self,
        py: Python<'py>,
        port: &str,
        frame: &Bound<'py, PyAny>,
    ) -> PyResult<(
        PyParsedHeader,
        Vec<(&'static str, Bound<'py, PyBytes>, bool)>,
    )> {
        let p = in_port(port)?;
        let f = frame_arg(frame)?;
        let out = self.model.receive(p, &f);
        let emitted = out
            .emitted
            .iter()
            .map(|(o, fr)| (o.name(), PyBytes::new(py, &fr.data), fr.user))
            .collect();
        Ok((
            PyParsedHeader {
                header: out.parsed,
                cycle: None,
            },
            emitted,
        ))
    }

    /// A register as a CSR read returns it (by name or offset); `None` if unmapped.
    fn read_register(&self, register: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        Ok(self.model.read_register(register_offset(register)?))
    }

    /// A CSR write; `False` when the register is unmapped or read-only.
    fn write_register(&mut self, register: &Bound<'_, PyAny>, value: u32) -> PyResult<bool> {
        Ok(self.model.write_register(register_offset(register)?, value))
    }

    /// The external queue-depth input reported `bytes`.
    fn set_queue_depth(&mut self, bytes: u32) {
        self.model.set_queue_depth(bytes);
    }

    /// Every counter and status register: `{name: value}`.
    fn counters(&self) -> Vec<(&'static str, u32)> {
        self.model
            .counters()
            .into_iter()
            .map(|(name, _, value)| (name, value))
            .collect()
    }
}

/// What a scoreboard run saw, as a dict: `outputs` (`{port: [bytes]}`),
/// `output_users`, `parsed` (`{port: [ParsedHeader]}`), `cycles`, and
/// `beats_per_cycle` per port.
pub fn capture_dict<'py>(py: Python<'py>, cap: &Capture) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let outputs = PyDict::new(py);
    let users = PyDict::new(py);
    for port in OutPort::ALL {
        let frames = cap.outputs.get(&port).map(Vec::as_slice).unwrap_or(&[]);
        let data: Vec<Vec<u8>> = frames.iter().map(|f| f.data.clone()).collect();
        outputs.set_item(port.name(), bytes_list(py, &data)?)?;
        users.set_item(
            port.name(),
            frames.iter().map(|f| f.user).collect::<Vec<_>>(),
        )?;
    }
    let parsed = PyDict::new(py);
    for port in InPort::ALL {
        let headers = cap.parsed.get(&port).map(Vec::as_slice).unwrap_or(&[]);
        let list = PyList::empty(py);
        for h in headers {
            list.append(Bound::new(
                py,
                PyParsedHeader {
                    header: *h,
                    cycle: None,
                },
            )?)?;
        }
        parsed.set_item(port.name(), list)?;
    }
    let rates = PyDict::new(py);
    for (port, stats) in &cap.input_stats {
        rates.set_item(port.name(), stats.beats_per_cycle())?;
    }
    for (port, stats) in &cap.output_stats {
        rates.set_item(port.name(), stats.beats_per_cycle())?;
    }
    d.set_item("outputs", outputs)?;
    d.set_item("output_users", users)?;
    d.set_item("parsed", parsed)?;
    d.set_item("cycles", cap.cycles)?;
    d.set_item("beats_per_cycle", rates)?;
    Ok(d)
}

/// RTL-vs-model scoreboard on a fresh gateway and a fresh model: drives
/// `inputs` (`{"dc_rx": frames, "wan_rx": frames}`) with random idle and
/// backpressure and compares frames, parser results and counters. Raises
/// ScoreboardMismatch with the first difference; returns what the RTL did.
#[pyfunction]
#[pyo3(signature = (inputs, idle=0.0, backpressure=0.0, seed=0, trace=None, max_cycles=50_000_000))]
pub fn check<'py>(
    py: Python<'py>,
    inputs: &Bound<'py, PyAny>,
    idle: f64,
    backpressure: f64,
    seed: u64,
    trace: Option<PathBuf>,
    max_cycles: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let inputs = inputs_arg(inputs)?;
    let mut bench = Bench::new(trace.as_deref()).map_err(|e| PyOSError::new_err(e.to_string()))?;
    let mut model = GatewayModel::new();
    match bench.check(
        &mut model,
        &inputs,
        StreamOptions {
            idle,
            backpressure,
            seed,
            max_cycles,
            marker_shadow: true,
        },
    ) {
        Ok(cap) => capture_dict(py, &cap),
        Err(BenchError::Mismatch(m)) => Err(ScoreboardMismatch::new_err(m.to_string())),
        Err(e) => Err(PyRuntimeError::new_err(e.to_string())),
    }
}

/// The reference classification of a frame (what the RTL parser must report).
#[pyfunction]
pub fn classify(frame: &Bound<'_, PyAny>) -> PyResult<PyParsedHeader> {
    let f = frame_arg(frame)?;
    Ok(PyParsedHeader {
        header: cngw_packet::parsed::classify(&f.data),
        cycle: None,
    })
}

/// `n` random frames as `(bytes, user)`: mostly RoCEv2 (IPv4/IPv6, with and
/// without 802.1Q), some other traffic, some malformed frames.
#[pyfunction]
#[pyo3(signature = (n, seed=0))]
pub fn random_mix<'py>(py: Python<'py>, n: usize, seed: u64) -> Vec<(Bound<'py, PyBytes>, bool)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    cngw_testbench::traffic::random_mix(&mut rng, n)
        .into_iter()
        .map(|f| (PyBytes::new(py, &f.data), f.user))
        .collect()
}

/// `n` random well-formed RoCEv2 frames (IPv4/IPv6, with and without
/// 802.1Q, every ECN value, sizes up to 4 KiB) with valid ICRCs, as bytes.
#[pyfunction]
#[pyo3(signature = (n, seed=0))]
pub fn random_roce<'py>(py: Python<'py>, n: usize, seed: u64) -> Vec<Bound<'py, PyBytes>> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| PyBytes::new(py, &cngw_testbench::traffic::random_roce(&mut rng)))
        .collect()
}

/// The frames of a classic pcap file (Ethernet), as bytes.
#[pyfunction]
pub fn read_pcap<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyList>> {
    let frames = cngw_packet::pcap::read_pcap(&path)
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
    let data: Vec<Vec<u8>> = frames.into_iter().map(|(_, d)| d).collect();
    bytes_list(py, &data)
}

/// Writes frames to a classic pcap file (one microsecond apart).
#[pyfunction]
pub fn write_pcap(path: PathBuf, frames: &Bound<'_, PyAny>) -> PyResult<()> {
    let timed: Vec<(u64, Vec<u8>)> = frames_arg(frames)?
        .into_iter()
        .enumerate()
        .map(|(i, f)| (i as u64 * 1_000, f.data))
        .collect();
    cngw_packet::pcap::write_pcap(&path, &timed)
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))
}
