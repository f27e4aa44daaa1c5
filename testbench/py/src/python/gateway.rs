//! `cngw_sim.Gateway`: the clocked bench ([`crate::Bench`]) for Python.
//!
//! The model handle holds a raw pointer into Verilator, so the class is
//! `unsendable`: it lives on the thread that made it. Per-clock work stays in
//! Rust; Python calls `run`/`run_until_drained` once per wake-up.

use super::convert::{
    frame_arg, frame_bytes, in_port, inputs_arg, out_port, register_offset, PyParsedHeader,
};
use super::model::{capture_dict, PyModel};
use super::{CsrError, ScoreboardMismatch};
use crate::bench::{event, Bench, BenchError};
use crate::pause::Pause;
use cngw_sim::{InPort, OutPort, PORTS};
use cngw_testbench::StreamOptions;
use pyo3::exceptions::{PyRuntimeError, PyTimeoutError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyInt, PyIterator};
use std::collections::VecDeque;
use std::path::PathBuf;

/// Clocks run between two looks at Ctrl-C (and refills of Python patterns).
const CHUNK_CYCLES: u64 = 1 << 20;
const FED_CHUNK_CYCLES: u64 = 4096;

/// A Rust-side pause pattern (fast: no Python call per clock).
#[pyclass(frozen, name = "PausePattern", module = "cngw_sim")]
#[derive(Clone)]
pub struct PyPausePattern {
    pause: Pause,
}

#[pymethods]
impl PyPausePattern {
    /// `pattern` (truthy = pause) repeated forever, like
    /// `itertools.cycle(pattern)` but without a Python call per clock.
    #[staticmethod]
    fn repeat(pattern: &Bound<'_, PyAny>) -> PyResult<Self> {
        let values = pattern
            .try_iter()?
            .map(|v| v?.is_truthy())
            .collect::<PyResult<Vec<bool>>>()?;
        Ok(PyPausePattern {
            pause: Pause::repeat(values),
        })
    }
    /// Paused in a random `probability` of the clocks (seeded).
    #[staticmethod]
    #[pyo3(signature = (probability, seed=0))]
    fn random(probability: f64, seed: u64) -> PyResult<Self> {
        if !(0.0..=1.0).contains(&probability) {
            return Err(PyValueError::new_err("probability must lie in [0, 1]"));
        }
        Ok(PyPausePattern {
            pause: Pause::random(probability, seed),
        })
    }
    /// Never paused.
    #[staticmethod]
    fn never() -> Self {
        PyPausePattern {
            pause: Pause::Never,
        }
    }
    fn __repr__(&self) -> String {
        format!("PausePattern({:?})", self.pause)
    }
}

/// Pause slot indices: two sources, then two sinks.
fn source_slot(port: InPort) -> usize {
    port as usize
}
fn sink_slot(port: OutPort) -> usize {
    2 + port as usize
}

/// The cycle-accurate gateway with a stream source on each input, a sink on
/// each output, parser monitors and an AXI4-Lite master, clocked together.
///
/// Ports are named `"dc_rx"`, `"wan_rx"` (inputs) and `"dc_tx"`, `"wan_tx"`
/// (outputs). Frames are `bytes`, bytes-like objects, scapy packets or
/// `(frame, tuser)` pairs.
#[pyclass(unsendable, name = "Gateway", module = "cngw_sim")]
pub struct PyGateway {
    bench: Option<Bench>,
    /// Python iterators feeding pause patterns, by slot.
    iters: [Option<Py<PyIterator>>; 4],
    trace: Option<PathBuf>,
}

impl PyGateway {
    fn bench(&mut self) -> PyResult<&mut Bench> {
        self.bench
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("the gateway was closed"))
    }

    fn pause_slot(&mut self, slot: usize) -> PyResult<&mut Pause> {
        let b = self.bench()?;
        Ok(if slot < 2 {
            b.source_pause(InPort::ALL[slot])
        } else {
            b.sink_pause(OutPort::ALL[slot - 2])
        })
    }

    fn set_pause(&mut self, slot: usize, pattern: &Bound<'_, PyAny>, seed: u64) -> PyResult<()> {
        self.iters[slot] = None;
        let pause = if pattern.is_none() {
            Pause::Never
        } else if let Ok(p) = pattern.cast::<PyPausePattern>() {
            p.get().pause.clone()
        } else if pattern.is_instance_of::<PyFloat>() || pattern.is_instance_of::<PyInt>() {
            let probability: f64 = pattern.extract()?;
            if !(0.0..=1.0).contains(&probability) {
                return Err(PyValueError::new_err(
                    "a pause probability must lie in [0, 1]",
                ));
            }
            Pause::random(probability, seed)
        } else {
            let it = PyIterator::from_object(pattern).map_err(|_| {
                PyTypeError::new_err(
                    "a pause pattern is None, a probability, a PausePattern or an iterable",
                )
            })?;
            self.iters[slot] = Some(it.unbind());
            Pause::Fed(VecDeque::new())
        };
        *self.pause_slot(slot)? = pause;
        Ok(())
    }

    /// Pulls values from Python pause iterators so each holds `cycles`.
    fn feed(&mut self, py: Python<'_>, cycles: u64) -> PyResult<()> {
        for slot in 0..4 {
            let Some(it) = self.iters[slot].as_ref() else {
                continue;
            };
            let mut it = it.bind(py).clone();
            let have = self.pause_slot(slot)?.fed_len() as u64;
            let mut pulled = Vec::new();
            let mut exhausted = false;
            for _ in have..cycles {
                match it.next() {
                    Some(v) => pulled.push(v?.is_truthy()?),
                    None => {
                        exhausted = true;
                        break;
                    }
                }
            }
            if let Pause::Fed(values) = self.pause_slot(slot)? {
                values.extend(pulled);
            }
            if exhausted {
                self.iters[slot] = None;
            }
        }
        Ok(())
    }

    fn chunk(&self, left: u64) -> u64 {
        let limit = if self.iters.iter().any(Option::is_some) {
            FED_CHUNK_CYCLES
        } else {
            CHUNK_CYCLES
        };
        left.min(limit)
    }

    fn run_inner(&mut self, py: Python<'_>, cycles: u64, until: u32) -> PyResult<(u64, u32)> {
        self.run_with(py, cycles, until, [1, 1])
    }

    fn run_with(
        &mut self,
        py: Python<'_>,
        cycles: u64,
        until: u32,
        min_waiting: [usize; 2],
    ) -> PyResult<(u64, u32)> {
        let (mut done, mut seen) = (0u64, 0u32);
        while done < cycles {
            let chunk = self.chunk(cycles - done);
            self.feed(py, chunk)?;
            let (n, ev) = self.bench()?.run_with(chunk, until, min_waiting);
            done += n;
            seen |= ev;
            if ev & until != 0 {
                break;
            }
            py.check_signals()?;
        }
        Ok((done, seen))
    }

    fn wait_csr(&mut self, py: Python<'_>, id: u64) -> PyResult<u32> {
        loop {
            if let Some(r) = self.bench()?.take_csr_result(id) {
                return r.map_err(|e| CsrError::new_err(e.to_string()));
            }
            self.run_inner(py, u64::MAX, event::CSR_DONE)?;
        }
    }
}

fn limit(max: Option<usize>) -> usize {
    max.unwrap_or(usize::MAX)
}

#[pymethods]
impl PyGateway {
    /// A fresh gateway after reset; `trace` names a VCD file to write.
    #[new]
    #[pyo3(signature = (trace=None))]
    fn new(trace: Option<PathBuf>) -> PyResult<Self> {
        let bench = Bench::new(trace.as_deref())
            .map_err(|e| PyRuntimeError::new_err(format!("cannot create the gateway: {e}")))?;
        Ok(PyGateway {
            bench: Some(bench),
            iters: [None, None, None, None],
            trace,
        })
    }

    /// Clocks since the gateway was created (reset included).
    #[getter]
    fn cycle(&mut self) -> PyResult<u64> {
        Ok(self.bench()?.cycle())
    }

    /// The VCD file being written, if any.
    #[getter]
    fn trace_path(&self) -> Option<PathBuf> {
        self.trace.clone()
    }

    /// Keep parser results and input timings (default). Turn off for long
    /// benchmarks; counts are kept either way.
    #[getter]
    fn get_record(&mut self) -> PyResult<bool> {
        Ok(self.bench()?.record)
    }
    #[setter]
    fn set_record(&mut self, record: bool) -> PyResult<()> {
        self.bench()?.record = record;
        Ok(())
    }

    /// Holds reset for four clocks; drops queued and half-moved frames.
    fn reset(&mut self) -> PyResult<()> {
        self.bench()?
            .reset()
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// Frees the model now (and closes the VCD file); later calls fail.
    fn close(&mut self) {
        self.bench = None;
        self.iters = [None, None, None, None];
    }

    /// Flushes the VCD file, if tracing.
    fn flush_trace(&mut self) -> PyResult<()> {
        self.bench()?.flush_trace();
        Ok(())
    }

    /// Runs `n` clocks; returns the events seen (bit flags).
    #[pyo3(signature = (n=1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<u32> {
        Ok(self.run_inner(py, n, 0)?.1)
    }

    /// Runs up to `cycles` clocks, stopping after the first clock in which
    /// one of the events in `until` happened. Returns `(clocks, events)`.
    /// A FRAME_DC_TX / FRAME_WAN_TX event only stops the run once that
    /// output holds `min_dc_tx` / `min_wan_tx` collected frames.
    #[pyo3(signature = (cycles, until=0, min_dc_tx=1, min_wan_tx=1))]
    fn run(
        &mut self,
        py: Python<'_>,
        cycles: u64,
        until: u32,
        min_dc_tx: usize,
        min_wan_tx: usize,
    ) -> PyResult<(u64, u32)> {
        self.run_with(py, cycles, until, [min_dc_tx, min_wan_tx])
    }

    /// Runs until every source is empty and nothing moved for `quiet`
    /// clocks; returns the clocks run. TimeoutError after `max_cycles`.
    #[pyo3(signature = (max_cycles=10_000_000, quiet=64))]
    fn run_until_drained(&mut self, py: Python<'_>, max_cycles: u64, quiet: u32) -> PyResult<u64> {
        let (mut done, mut still) = (0u64, 0u32);
        while done < max_cycles {
            let chunk = self.chunk(max_cycles - done);
            self.feed(py, chunk)?;
            let (n, drained) = self.bench()?.drain(chunk, quiet, &mut still);
            done += n;
            if drained {
                return Ok(done);
            }
            py.check_signals()?;
        }
        Err(PyTimeoutError::new_err(
            BenchError::Timeout { cycles: max_cycles }.to_string(),
        ))
    }

    /// Queues one frame on an input; returns its 1-based number on that port.
    #[pyo3(signature = (port, frame, user=false))]
    fn push_frame(&mut self, port: &str, frame: &Bound<'_, PyAny>, user: bool) -> PyResult<u64> {
        let p = in_port(port)?;
        let data = frame_bytes(frame)?;
        Ok(self.bench()?.push_frame(p, &data, user))
    }

    /// Queues frames (or `(frame, user)` pairs) on an input; returns the
    /// number of the last one.
    fn push_frames(&mut self, port: &str, frames: &Bound<'_, PyAny>) -> PyResult<u64> {
        let p = in_port(port)?;
        let mut n = self.bench()?.frames_accepted(p) + self.bench()?.frames_pending(p);
        for f in frames.try_iter()? {
            let f = frame_arg(&f?)?;
            n = self.bench()?.push_frame(p, &f.data, f.user);
        }
        Ok(n)
    }

    /// Frames queued on an input whose last beat has not entered yet.
    fn frames_pending(&mut self, port: &str) -> PyResult<u64> {
        let p = in_port(port)?;
        Ok(self.bench()?.frames_pending(p))
    }

    /// Frames an input accepted completely, since creation.
    fn frames_accepted(&mut self, port: &str) -> PyResult<u64> {
        let p = in_port(port)?;
        Ok(self.bench()?.frames_accepted(p))
    }

    /// Frames an output delivered, since creation.
    fn frames_received(&mut self, port: &str) -> PyResult<u64> {
        let p = out_port(port)?;
        Ok(self.bench()?.frames_received(p))
    }

    /// Collected frames of an output not popped yet.
    fn frames_waiting(&mut self, port: &str) -> PyResult<usize> {
        let p = out_port(port)?;
        Ok(self.bench()?.frames_waiting(p))
    }

    /// Pops collected frames of an output (oldest first) as bytes.
    #[pyo3(signature = (port, max=None))]
    fn pop_frames<'py>(
        &mut self,
        py: Python<'py>,
        port: &str,
        max: Option<usize>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let p = out_port(port)?;
        let frames = self.bench()?.take_frames(p, limit(max));
        Ok(frames.iter().map(|f| PyBytes::new(py, &f.data)).collect())
    }

    /// Pops collected frames as `(bytes, user, start_cycle, end_cycle)`.
    #[pyo3(signature = (port, max=None))]
    #[allow(clippy::type_complexity)]
    fn pop_frames_detail<'py>(
        &mut self,
        py: Python<'py>,
        port: &str,
        max: Option<usize>,
    ) -> PyResult<Vec<(Bound<'py, PyBytes>, bool, u64, u64)>> {
        let p = out_port(port)?;
        let frames = self.bench()?.take_frames(p, limit(max));
        Ok(frames
            .iter()
            .map(|f| {
                (
                    PyBytes::new(py, &f.data),
                    f.user,
                    f.start_cycle,
                    f.end_cycle,
                )
            })
            .collect())
    }

    /// Pops the clocks `(start_cycle, end_cycle)` at which input frames'
    /// first and last beats entered.
    #[pyo3(signature = (port, max=None))]
    fn pop_accepted(&mut self, port: &str, max: Option<usize>) -> PyResult<Vec<(u64, u64)>> {
        let p = in_port(port)?;
        Ok(self
            .bench()?
            .take_accepted(p, limit(max))
            .iter()
            .map(|a| (a.start_cycle, a.end_cycle))
            .collect())
    }

    /// Parser results of an input recorded and not popped yet.
    fn parsed_waiting(&mut self, port: &str) -> PyResult<usize> {
        let p = in_port(port)?;
        Ok(self.bench()?.parsed_waiting(p))
    }

    /// Parser results of an input reported since creation.
    fn parsed_count(&mut self, port: &str) -> PyResult<u64> {
        let p = in_port(port)?;
        Ok(self.bench()?.parsed_count(p))
    }

    /// Pops recorded parser results of an input (oldest first).
    #[pyo3(signature = (port, max=None))]
    fn pop_parsed(&mut self, port: &str, max: Option<usize>) -> PyResult<Vec<PyParsedHeader>> {
        let p = in_port(port)?;
        let parsed = self.bench()?.take_parsed(p, limit(max));
        Ok(parsed
            .into_iter()
            .map(|a| PyParsedHeader {
                header: a.header,
                cycle: Some(a.cycle),
            })
            .collect())
    }

    /// The parser output of an input right now (between clocks): the result
    /// while `*_hdr_valid` is high, else `None`.
    fn parsed_now(&mut self, port: &str) -> PyResult<Option<PyParsedHeader>> {
        let p = in_port(port)?;
        let b = self.bench()?;
        let cycle = b.cycle();
        Ok(b.gateway().parsed(p).map(|header| PyParsedHeader {
            header,
            cycle: Some(cycle),
        }))
    }

    /// Idle pattern of an input's source: `None` (back to back), a
    /// probability (seeded with `seed`), a `PausePattern`, or any iterable of
    /// truthy (idle) / falsy values, one per clock (`itertools.cycle([1, 0])`).
    #[pyo3(signature = (port, pattern, seed=0))]
    fn set_idle(&mut self, port: &str, pattern: &Bound<'_, PyAny>, seed: u64) -> PyResult<()> {
        let slot = source_slot(in_port(port)?);
        self.set_pause(slot, pattern, seed)
    }

    /// Backpressure pattern of an output's sink (truthy = `tready` low);
    /// same forms as `set_idle`.
    #[pyo3(signature = (port, pattern, seed=0))]
    fn set_backpressure(
        &mut self,
        port: &str,
        pattern: &Bound<'_, PyAny>,
        seed: u64,
    ) -> PyResult<()> {
        let slot = sink_slot(out_port(port)?);
        self.set_pause(slot, pattern, seed)
    }

    /// Every top-level port as `(name, width_bits, is_output)`.
    #[staticmethod]
    fn ports() -> Vec<(&'static str, usize, bool)> {
        PORTS
            .iter()
            .map(|&(name, width, output)| (name, width, output))
            .collect()
    }

    /// Sets an input port by name (sampled at the next rising edge). Stream
    /// inputs belong to the sources; drive them yourself only on a port
    /// whose source has nothing queued.
    fn set_port(&mut self, name: &str, value: &Bound<'_, PyInt>) -> PyResult<()> {
        let width = PORTS
            .iter()
            .find(|p| p.0 == name)
            .map(|p| p.1)
            .ok_or_else(|| PyValueError::new_err(format!("no port {name}")))?;
        let nbytes = width.div_ceil(32) * 4;
        let bytes = value
            .call_method1("to_bytes", (nbytes, "little"))
            .map_err(|_| {
                PyValueError::new_err(format!(
                    "{value} does not fit {name} ({width} bits, unsigned)"
                ))
            })?;
        let bytes = bytes.cast::<PyBytes>()?.as_bytes().to_vec();
        let words: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4-byte chunk")))
            .collect();
        self.bench()?
            .gateway()
            .set_port(name, &words)
            .map_err(PyValueError::new_err)
    }

    /// Reads any port by name as an unsigned integer.
    fn get_port<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let words = self
            .bench()?
            .gateway()
            .get_port(name)
            .map_err(PyValueError::new_err)?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        py.import("builtins")?
            .getattr("int")?
            .call_method1("from_bytes", (PyBytes::new(py, &bytes), "little"))
    }

    /// Drives the external queue-depth telemetry input.
    #[pyo3(signature = (bytes, valid=true))]
    fn set_queue_depth(&mut self, bytes: u32, valid: bool) -> PyResult<()> {
        self.bench()?.gateway().set_queue_depth(bytes, valid);
        Ok(())
    }

    /// Reads a register (by name or offset) over AXI4-Lite; clocks the
    /// gateway until the response (streams keep moving). Raises CsrError.
    fn csr_read(&mut self, py: Python<'_>, register: &Bound<'_, PyAny>) -> PyResult<u32> {
        let offset = register_offset(register)?;
        let id = self.bench()?.submit_csr_read(offset);
        self.wait_csr(py, id)
    }

    /// Writes a register (by name or offset) over AXI4-Lite; clocks the
    /// gateway until the response. Raises CsrError.
    fn csr_write(
        &mut self,
        py: Python<'_>,
        register: &Bound<'_, PyAny>,
        value: u32,
    ) -> PyResult<()> {
        let offset = register_offset(register)?;
        let id = self.bench()?.submit_csr_write(offset, value);
        self.wait_csr(py, id).map(|_| ())
    }

    /// Queues a CSR read without clocking; returns an id for `csr_result`.
    fn csr_submit_read(&mut self, register: &Bound<'_, PyAny>) -> PyResult<u64> {
        let offset = register_offset(register)?;
        Ok(self.bench()?.submit_csr_read(offset))
    }

    /// Queues a CSR write without clocking; returns an id for `csr_result`.
    fn csr_submit_write(&mut self, register: &Bound<'_, PyAny>, value: u32) -> PyResult<u64> {
        let offset = register_offset(register)?;
        Ok(self.bench()?.submit_csr_write(offset, value))
    }

    /// The outcome of a queued CSR access: `None` while it runs, the data
    /// (0 for a write) once done; raises CsrError if it failed.
    fn csr_result(&mut self, id: u64) -> PyResult<Option<u32>> {
        match self.bench()?.take_csr_result(id) {
            None => Ok(None),
            Some(r) => r.map(Some).map_err(|e| CsrError::new_err(e.to_string())),
        }
    }

    /// RTL-vs-model scoreboard on this gateway: drives `inputs`
    /// (`{"dc_rx": frames, "wan_rx": frames}`) with random idle and
    /// backpressure, runs the same frames through `model`, and compares
    /// frames, parser results and every counter. `model` must have seen the
    /// same traffic as this gateway so far. Raises ScoreboardMismatch;
    /// returns what the RTL did.
    #[pyo3(signature = (model, inputs, idle=0.0, backpressure=0.0, seed=0, max_cycles=50_000_000))]
    #[allow(clippy::too_many_arguments)]
    fn check<'py>(
        &mut self,
        py: Python<'py>,
        model: &mut PyModel,
        inputs: &Bound<'py, PyAny>,
        idle: f64,
        backpressure: f64,
        seed: u64,
        max_cycles: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let inputs = inputs_arg(inputs)?;
        let opts = StreamOptions {
            idle,
            backpressure,
            seed,
            max_cycles,
            marker_shadow: true,
        };
        match self.bench()?.check(&mut model.model, &inputs, opts) {
            Ok(cap) => capture_dict(py, &cap),
            Err(BenchError::Mismatch(m)) => Err(ScoreboardMismatch::new_err(m.to_string())),
            Err(e) => Err(PyRuntimeError::new_err(e.to_string())),
        }
    }

    fn __repr__(&mut self) -> String {
        match self.bench.as_ref() {
            Some(b) => format!("<cngw_sim.Gateway at cycle {}>", b.cycle()),
            None => "<cngw_sim.Gateway (closed)>".to_string(),
        }
    }
}

/// The event flags `run` reports, by name.
pub fn events(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (name, flag) in [
        ("FRAME_DC_TX", event::FRAME_DC_TX),
        ("FRAME_WAN_TX", event::FRAME_WAN_TX),
        ("PARSED_DC_RX", event::PARSED_DC_RX),
        ("PARSED_WAN_RX", event::PARSED_WAN_RX),
        ("DRAINED_DC_RX", event::DRAINED_DC_RX),
        ("DRAINED_WAN_RX", event::DRAINED_WAN_RX),
        ("ACCEPTED_DC_RX", event::ACCEPTED_DC_RX),
        ("ACCEPTED_WAN_RX", event::ACCEPTED_WAN_RX),
        ("CSR_DONE", event::CSR_DONE),
        ("ACTIVITY", event::ACTIVITY),
    ] {
        d.set_item(name, flag)?;
    }
    Ok(d)
}
