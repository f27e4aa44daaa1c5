//! Conversions between Python values and the Rust types of the bench:
//! port names, frames, register names, parser results, the register map.

use cngw_model::Frame;
use cngw_packet::parsed::{FrameClass, ParsedHeader};
use cngw_regmap::{Access, REGISTERS};
use cngw_sim::{InPort, OutPort};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};
use std::net::{Ipv4Addr, Ipv6Addr};

/// `"dc_rx"` / `"wan_rx"`.
pub fn in_port(name: &str) -> PyResult<InPort> {
    InPort::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| {
            PyValueError::new_err(format!("no input port {name:?} (use 'dc_rx' or 'wan_rx')"))
        })
}

/// `"dc_tx"` / `"wan_tx"`.
pub fn out_port(name: &str) -> PyResult<OutPort> {
    OutPort::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| {
            PyValueError::new_err(format!("no output port {name:?} (use 'dc_tx' or 'wan_tx')"))
        })
}

/// The bytes of a frame argument: `bytes`, `bytearray`, anything `bytes()`
/// accepts except an integer (a scapy packet, a memoryview).
pub fn frame_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "a frame is bytes, a bytes-like object or a scapy packet",
        ));
    }
    let py = obj.py();
    let b = py.import("builtins")?.getattr("bytes")?.call1((obj,))?;
    Ok(b.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// A frame argument with its `tuser` flag: a frame, or a `(frame, user)` pair.
pub fn frame_arg(obj: &Bound<'_, PyAny>) -> PyResult<Frame> {
    if let Ok(t) = obj.cast::<PyTuple>() {
        if t.len() == 2 {
            return Ok(Frame {
                data: frame_bytes(&t.get_item(0)?)?,
                user: t.get_item(1)?.is_truthy()?,
            });
        }
    }
    Ok(Frame::new(frame_bytes(obj)?))
}

/// Every frame of an iterable of frame arguments.
pub fn frames_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Frame>> {
    obj.try_iter()?.map(|f| frame_arg(&f?)).collect()
}

/// `{"dc_rx": frames, "wan_rx": frames}` as the scoreboard's inputs.
pub fn inputs_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<(InPort, Vec<Frame>)>> {
    let d = obj.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err("inputs is a dict {'dc_rx': frames, 'wan_rx': frames}")
    })?;
    d.iter()
        .map(|(k, v)| Ok((in_port(&k.extract::<String>()?)?, frames_arg(&v)?)))
        .collect()
}

/// A register given by name (case-insensitive) or by byte offset.
pub fn register_offset(obj: &Bound<'_, PyAny>) -> PyResult<u32> {
    if let Ok(name) = obj.extract::<String>() {
        return cngw_regmap::by_name(&name)
            .map(|r| r.offset)
            .ok_or_else(|| PyKeyError::new_err(format!("no register named {name:?}")));
    }
    obj.extract::<u32>()
}

fn class_name(class: FrameClass) -> &'static str {
    match class {
        FrameClass::Roce => "roce",
        FrameClass::NonRoce => "non_roce",
        FrameClass::Malformed => "malformed",
    }
}

fn ip_string(addr: [u8; 16], is_ipv6: bool) -> String {
    let v6 = Ipv6Addr::from(addr);
    match (is_ipv6, v6.to_ipv4_mapped()) {
        (false, Some(v4)) => v4.to_string(),
        (false, None) => Ipv4Addr::UNSPECIFIED.to_string(),
        (true, _) => v6.to_string(),
    }
}

/// What the header parser extracted from one frame (RTL or reference).
///
/// Only `frame_class` is defined for every frame; the other fields are
/// defined for RoCEv2 frames. Addresses are strings (dotted for IPv4).
#[pyclass(frozen, name = "ParsedHeader", module = "cngw_sim")]
pub struct PyParsedHeader {
    pub header: ParsedHeader,
    /// Clock in which the parser reported it (`None` for the reference model).
    #[pyo3(get)]
    pub cycle: Option<u64>,
}

#[pymethods]
impl PyParsedHeader {
    /// "roce", "non_roce" or "malformed".
    #[getter]
    fn frame_class(&self) -> &'static str {
        class_name(self.header.class)
    }
    #[getter]
    fn is_roce(&self) -> bool {
        self.header.class == FrameClass::Roce
    }
    /// 802.1Q VLAN ID, `None` without a tag.
    #[getter]
    fn vlan_id(&self) -> Option<u16> {
        self.header.vlan_id
    }
    #[getter]
    fn is_ipv6(&self) -> bool {
        self.header.is_ipv6
    }
    #[getter]
    fn src_ip(&self) -> String {
        ip_string(self.header.src_ip, self.header.is_ipv6)
    }
    #[getter]
    fn dst_ip(&self) -> String {
        ip_string(self.header.dst_ip, self.header.is_ipv6)
    }
    /// The 16-byte source address as the flow table keys it (IPv4-mapped).
    #[getter]
    fn src_ip_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.header.src_ip)
    }
    #[getter]
    fn dst_ip_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.header.dst_ip)
    }
    #[getter]
    fn ecn(&self) -> u8 {
        self.header.ecn
    }
    #[getter]
    fn flow_label(&self) -> u32 {
        self.header.flow_label
    }
    #[getter]
    fn udp_src_port(&self) -> u16 {
        self.header.udp_src_port
    }
    #[getter]
    fn opcode(&self) -> u8 {
        self.header.opcode
    }
    #[getter]
    fn pkey(&self) -> u16 {
        self.header.pkey
    }
    #[getter]
    fn dest_qp(&self) -> u32 {
        self.header.dest_qp
    }
    #[getter]
    fn psn(&self) -> u32 {
        self.header.psn
    }

    /// Equal as the scoreboard compares: the class always, the fields when
    /// the frame is RoCEv2 (the clock is not compared).
    fn matches(&self, other: &PyParsedHeader) -> bool {
        cngw_testbench::scoreboard::parsed_matches(&self.header, &other.header)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyParsedHeader>() {
            Ok(o) => self.matches(o.get()),
            Err(_) => false,
        }
    }

    /// The fields as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("frame_class", self.frame_class())?;
        d.set_item("vlan_id", self.vlan_id())?;
        d.set_item("is_ipv6", self.is_ipv6())?;
        d.set_item("src_ip", self.src_ip())?;
        d.set_item("dst_ip", self.dst_ip())?;
        d.set_item("ecn", self.ecn())?;
        d.set_item("flow_label", self.flow_label())?;
        d.set_item("udp_src_port", self.udp_src_port())?;
        d.set_item("opcode", self.opcode())?;
        d.set_item("pkey", self.pkey())?;
        d.set_item("dest_qp", self.dest_qp())?;
        d.set_item("psn", self.psn())?;
        d.set_item("cycle", self.cycle)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let h = &self.header;
        if h.class != FrameClass::Roce {
            return format!(
                "ParsedHeader({}, cycle={})",
                self.frame_class(),
                cycle_repr(self.cycle)
            );
        }
        format!(
            "ParsedHeader(roce, vlan_id={}, {} -> {}, ecn={}, flow_label={:#x}, udp_src_port={}, \
             opcode={:#04x}, pkey={:#06x}, dest_qp={:#08x}, psn={:#08x}, cycle={})",
            h.vlan_id.map_or("None".to_string(), |v| v.to_string()),
            self.src_ip(),
            self.dst_ip(),
            h.ecn,
            h.flow_label,
            h.udp_src_port,
            h.opcode,
            h.pkey,
            h.dest_qp,
            h.psn,
            cycle_repr(self.cycle)
        )
    }
}

fn cycle_repr(cycle: Option<u64>) -> String {
    cycle.map_or("None".to_string(), |c| c.to_string())
}

fn access_name(a: Access) -> &'static str {
    match a {
        Access::ReadOnly => "read_only",
        Access::ReadWrite => "read_write",
        Access::WritePulse => "write_pulse",
    }
}

/// The register map (`cngw_regmap::REGISTERS`) as a list of dicts.
pub fn regmap_list(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for r in REGISTERS {
        let d = PyDict::new(py);
        d.set_item("name", r.name)?;
        d.set_item("offset", r.offset)?;
        d.set_item("access", access_name(r.access))?;
        d.set_item("writable", r.access.is_writable())?;
        d.set_item("reset", r.reset)?;
        d.set_item("volatile", r.volatile)?;
        d.set_item("doc", r.doc.trim())?;
        let fields = PyList::empty(py);
        for f in r.fields {
            let fd = PyDict::new(py);
            fd.set_item("name", f.name)?;
            fd.set_item("lsb", f.lsb)?;
            fd.set_item("width", f.width)?;
            fd.set_item("mask", f.mask())?;
            fd.set_item("doc", f.doc)?;
            fields.append(fd)?;
        }
        d.set_item("fields", fields)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A Python list of `bytes` from frames.
pub fn bytes_list<'py>(py: Python<'py>, frames: &[Vec<u8>]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, frames.iter().map(|f| PyBytes::new(py, f)))
}
