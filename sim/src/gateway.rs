//! Safe handle on the Verilated gateway.
//!
//! Inputs set with the `set_*`/`drive` calls are sampled at the next rising
//! edge, which [`Gateway::step`] produces. Outputs read between steps show
//! the state after the last edge and the combinational response to the
//! inputs set since (the model is evaluated lazily before a read).

use crate::stream::{Beat, InPort, OutPort, BEAT_BYTES};
use cngw_packet::parsed::{FrameClass, ParsedHeader};
use std::ffi::CString;
use std::path::Path;

mod ffi {
    #[repr(C)]
    pub struct CngwModel {
        _private: [u8; 0],
    }
    extern "C" {
        pub fn cngw_model_new() -> *mut CngwModel;
        pub fn cngw_model_free(m: *mut CngwModel);
        pub fn cngw_model_eval(m: *mut CngwModel);
        pub fn cngw_model_tick(m: *mut CngwModel);
        pub fn cngw_model_trace_open(m: *mut CngwModel, path: *const std::os::raw::c_char) -> i32;
        pub fn cngw_model_trace_flush(m: *mut CngwModel);
        pub fn cngw_model_set(m: *mut CngwModel, port: u32, words: *const u32);
        pub fn cngw_model_get(m: *mut CngwModel, port: u32, words: *mut u32);
    }
}

mod ports {
    include!(concat!(env!("OUT_DIR"), "/ports.rs"));
}

pub use ports::PORTS;

/// Directory holding the Verilog this model was built from.
pub const RTL_DIR: &str = env!("CNGW_RTL_DIR");

/// Error of a CSR access through the AXI4-Lite port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsrError {
    /// SLVERR: the register exists but refused the access (read-only).
    SlaveError { offset: u32 },
    /// DECERR: nothing is mapped at this offset.
    DecodeError { offset: u32 },
    /// No response within the time limit.
    Timeout { offset: u32 },
}

impl std::fmt::Display for CsrError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CsrError::SlaveError { offset } => {
                write!(
                    f,
                    "CSR access at {offset:#05x} refused (SLVERR: read-only register)"
                )
            }
            CsrError::DecodeError { offset } => {
                write!(f, "no register at CSR offset {offset:#05x} (DECERR)")
            }
            CsrError::Timeout { offset } => write!(f, "CSR access at {offset:#05x} timed out"),
        }
    }
}

impl std::error::Error for CsrError {}

fn port_index(name: &str) -> u32 {
    PORTS
        .iter()
        .position(|p| p.0 == name)
        .unwrap_or_else(|| panic!("the gateway has no port {name}")) as u32
}

/// Indices of the ports of one stream interface.
#[derive(Clone, Copy)]
struct StreamPorts {
    tdata: u32,
    tkeep: u32,
    tlast: u32,
    tuser: u32,
    tvalid: u32,
    tready: u32,
}

impl StreamPorts {
    fn named(prefix: &str) -> Self {
        StreamPorts {
            tdata: port_index(&format!("{prefix}_tdata")),
            tkeep: port_index(&format!("{prefix}_tkeep")),
            tlast: port_index(&format!("{prefix}_tlast")),
            tuser: port_index(&format!("{prefix}_tuser")),
            tvalid: port_index(&format!("{prefix}_tvalid")),
            tready: port_index(&format!("{prefix}_tready")),
        }
    }
}

#[derive(Clone, Copy)]
struct HeaderPorts {
    valid: u32,
    class: u32,
    vlan_present: u32,
    vlan_id: u32,
    is_ipv6: u32,
    src_ip: u32,
    dst_ip: u32,
    ecn: u32,
    flow_label: u32,
    udp_src_port: u32,
    opcode: u32,
    pkey: u32,
    dest_qp: u32,
    psn: u32,
}

impl HeaderPorts {
    fn named(prefix: &str) -> Self {
        let p = |s: &str| port_index(&format!("{prefix}_hdr_{s}"));
        HeaderPorts {
            valid: p("valid"),
            class: p("class"),
            vlan_present: p("vlan_present"),
            vlan_id: p("vlan_id"),
            is_ipv6: p("is_ipv6"),
            src_ip: p("src_ip"),
            dst_ip: p("dst_ip"),
            ecn: p("ecn"),
            flow_label: p("flow_label"),
            udp_src_port: p("udp_src_port"),
            opcode: p("opcode"),
            pkey: p("pkey"),
            dest_qp: p("dest_qp"),
            psn: p("psn"),
        }
    }
}

#[derive(Clone, Copy)]
struct Axil {
    awaddr: u32,
    awvalid: u32,
    awready: u32,
    wdata: u32,
    wstrb: u32,
    wvalid: u32,
    wready: u32,
    bresp: u32,
    bvalid: u32,
    bready: u32,
    araddr: u32,
    arvalid: u32,
    arready: u32,
    rdata: u32,
    rresp: u32,
    rvalid: u32,
    rready: u32,
}

impl Axil {
    fn new() -> Self {
        let p = |s: &str| port_index(&format!("s_axil_{s}"));
        Axil {
            awaddr: p("awaddr"),
            awvalid: p("awvalid"),
            awready: p("awready"),
            wdata: p("wdata"),
            wstrb: p("wstrb"),
            wvalid: p("wvalid"),
            wready: p("wready"),
            bresp: p("bresp"),
            bvalid: p("bvalid"),
            bready: p("bready"),
            araddr: p("araddr"),
            arvalid: p("arvalid"),
            arready: p("arready"),
            rdata: p("rdata"),
            rresp: p("rresp"),
            rvalid: p("rvalid"),
            rready: p("rready"),
        }
    }
}

/// Clocks a CSR access may take before it counts as hung.
const CSR_TIMEOUT_CYCLES: u32 = 64;

/// The cycle-accurate gateway (one Verilator model with its own context).
/// Clocks `Gateway::reset` waits after releasing reset: more than the flow
/// table's flush (512 clocks: one index of all 8 banks per clock) and a
/// margin. (It stays at the 4,104 of the one-bank table, whose flush took
/// 4,096 clocks, so that tests keep their cycle numbers.)
pub const FLOW_TABLE_FLUSH_CLOCKS: u64 = 4_104;

pub struct Gateway {
    model: *mut ffi::CngwModel,
    dirty: bool,
    cycle: u64,
    reset_released_at: u64,
    reset: u32,
    inputs: [StreamPorts; 2],
    outputs: [StreamPorts; 2],
    headers: [HeaderPorts; 2],
    axil: Axil,
    qd_bytes: u32,
    qd_valid: u32,
    qd_dc_bytes: u32,
    qd_dc_valid: u32,
}

impl Default for Gateway {
    fn default() -> Self {
        Self::new()
    }
}

impl Gateway {
    /// A new model, reset, with every stream idle and every output ready.
    pub fn new() -> Self {
        // SAFETY: the shim allocates a model and returns an owned pointer.
        let model = unsafe { ffi::cngw_model_new() };
        assert!(!model.is_null(), "Verilated model allocation failed");
        let mut gw = Gateway {
            model,
            dirty: true,
            cycle: 0,
            reset_released_at: 0,
            reset: port_index("reset"),
            inputs: [StreamPorts::named("dc_rx"), StreamPorts::named("wan_rx")],
            outputs: [StreamPorts::named("dc_tx"), StreamPorts::named("wan_tx")],
            headers: [HeaderPorts::named("dc"), HeaderPorts::named("wan")],
            axil: Axil::new(),
            qd_bytes: port_index("qd_ext_bytes"),
            qd_valid: port_index("qd_ext_valid"),
            qd_dc_bytes: port_index("qd_dc_bytes"),
            qd_dc_valid: port_index("qd_dc_valid"),
        };
        for port in OutPort::ALL {
            gw.set_ready(port, true);
        }
        gw.reset();
        gw
    }

    /// A new model that writes a VCD waveform of every signal to `path`.
    pub fn with_trace(path: &Path) -> std::io::Result<Self> {
        let gw = Self::new();
        let c = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        // SAFETY: model is live; the string outlives the call.
        let rc = unsafe { ffi::cngw_model_trace_open(gw.model, c.as_ptr()) };
        if rc != 0 {
            return Err(std::io::Error::other(format!(
                "cannot open VCD {}",
                path.display()
            )));
        }
        Ok(gw)
    }

    fn set_words(&mut self, port: u32, words: &[u32]) {
        // SAFETY: `words` holds at least the port's width in 32-bit words
        // (callers size it from PORTS); the model is live.
        unsafe { ffi::cngw_model_set(self.model, port, words.as_ptr()) };
        self.dirty = true;
    }

    fn set_u32(&mut self, port: u32, value: u32) {
        self.set_words(port, &[value, 0]);
    }

    fn set_u64(&mut self, port: u32, value: u64) {
        self.set_words(port, &[value as u32, (value >> 32) as u32]);
    }

    fn eval(&mut self) {
        if self.dirty {
            // SAFETY: model is live.
            unsafe { ffi::cngw_model_eval(self.model) };
            self.dirty = false;
        }
    }

    fn get_words<const N: usize>(&mut self, port: u32) -> [u32; N] {
        self.eval();
        let mut w = [0u32; N];
        debug_assert!(PORTS[port as usize].1.div_ceil(32) <= N);
        // SAFETY: `w` has room for the port's width; the model is live.
        unsafe { ffi::cngw_model_get(self.model, port, w.as_mut_ptr()) };
        w
    }

    fn get_u32(&mut self, port: u32) -> u32 {
        self.get_words::<2>(port)[0]
    }

    fn get_u64(&mut self, port: u32) -> u64 {
        let w = self.get_words::<2>(port);
        w[0] as u64 | (w[1] as u64) << 32
    }

    fn get_bool(&mut self, port: u32) -> bool {
        self.get_u32(port) & 1 == 1
    }

    /// Sets any input port by name from little-endian 32-bit words (bit 0 of
    /// word 0 is the port's bit 0). Wider-than-needed words are ignored.
    pub fn set_port(&mut self, name: &str, words: &[u32]) -> Result<(), String> {
        let index = PORTS
            .iter()
            .position(|p| p.0 == name)
            .ok_or_else(|| format!("no port {name}"))?;
        let (_, width, is_output) = PORTS[index];
        if is_output {
            return Err(format!("{name} is an output"));
        }
        let mut w = vec![0u32; width.div_ceil(32).max(2)];
        for (dst, src) in w.iter_mut().zip(words) {
            *dst = *src;
        }
        if width % 32 != 0 {
            let last = width / 32;
            w[last] &= (1u32 << (width % 32)) - 1;
        }
        self.set_words(index as u32, &w);
        Ok(())
    }

    /// Reads any port by name as little-endian 32-bit words.
    pub fn get_port(&mut self, name: &str) -> Result<Vec<u32>, String> {
        let index = PORTS
            .iter()
            .position(|p| p.0 == name)
            .ok_or_else(|| format!("no port {name}"))?;
        let width = PORTS[index].1;
        self.eval();
        let mut w = vec![0u32; width.div_ceil(32).max(2)];
        // SAFETY: `w` has room for the port's width; the model is live.
        unsafe { ffi::cngw_model_get(self.model, index as u32, w.as_mut_ptr()) };
        w.truncate(width.div_ceil(32));
        Ok(w)
    }

    /// One clock cycle: the rising edge samples every input.
    pub fn step(&mut self) {
        self.eval();
        // SAFETY: model is live.
        unsafe { ffi::cngw_model_tick(self.model) };
        // The falling edge is evaluated lazily with the next inputs.
        self.dirty = true;
        self.cycle += 1;
    }

    /// Runs `n` clock cycles with the inputs unchanged.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    /// Clock cycles since the model was created.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The clock in which reset was last released: clock 0 of the
    /// gateway's time base (its microsecond counter, the token bucket).
    pub fn reset_released_at(&self) -> u64 {
        self.reset_released_at
    }

    /// Holds `reset` for four clocks with every input idle.
    pub fn reset(&mut self) {
        for port in InPort::ALL {
            self.drive(port, None);
        }
        self.idle_csr();
        self.set_u32(self.reset, 1);
        self.run(4);
        self.set_u32(self.reset, 0);
        // The gateway registers `reset` once before its blocks see it, so
        // their first clock out of reset is the one after the input falls.
        self.reset_released_at = self.cycle() + 1;
        // The flow table clears its block RAM after reset, one index of
        // every bank per clock; frames before that would pass but not be
        // looked up.
        self.run(FLOW_TABLE_FLUSH_CLOCKS);
        self.eval();
    }

    /// Drives one stream input: `Some(beat)` raises `tvalid` with the beat,
    /// `None` lowers it.
    pub fn drive(&mut self, port: InPort, beat: Option<&Beat>) {
        let p = self.inputs[port as usize];
        match beat {
            Some(b) => {
                let mut words = [0u32; BEAT_BYTES / 4];
                for (i, w) in words.iter_mut().enumerate() {
                    *w = u32::from_le_bytes(b.data[4 * i..4 * i + 4].try_into().unwrap());
                }
                self.set_words(p.tdata, &words);
                self.set_u64(p.tkeep, b.keep);
                self.set_u32(p.tlast, b.last as u32);
                self.set_u32(p.tuser, b.user as u32);
                self.set_u32(p.tvalid, 1);
            }
            None => self.set_u32(p.tvalid, 0),
        }
    }

    /// `tready` of a stream input.
    pub fn ready(&mut self, port: InPort) -> bool {
        let p = self.inputs[port as usize];
        self.get_bool(p.tready)
    }

    /// Sets `tready` of a stream output.
    pub fn set_ready(&mut self, port: OutPort, ready: bool) {
        let p = self.outputs[port as usize];
        self.set_u32(p.tready, ready as u32);
    }

    /// The beat a stream output presents, if `tvalid` is high.
    pub fn output(&mut self, port: OutPort) -> Option<Beat> {
        let p = self.outputs[port as usize];
        if !self.get_bool(p.tvalid) {
            return None;
        }
        let words = self.get_words::<{ BEAT_BYTES / 4 }>(p.tdata);
        let mut data = [0u8; BEAT_BYTES];
        for (i, w) in words.iter().enumerate() {
            data[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        Some(Beat {
            data,
            keep: self.get_u64(p.tkeep),
            last: self.get_bool(p.tlast),
            user: self.get_bool(p.tuser),
        })
    }

    /// The parser's result for the frame whose last beat entered `port` one
    /// clock earlier (`*_hdr_valid` high), if any.
    pub fn parsed(&mut self, port: InPort) -> Option<ParsedHeader> {
        let h = self.headers[port as usize];
        if !self.get_bool(h.valid) {
            return None;
        }
        let class = match self.get_u32(h.class) {
            1 => FrameClass::Roce,
            2 => FrameClass::NonRoce,
            _ => FrameClass::Malformed,
        };
        let addr = |gw: &mut Gateway, port: u32| {
            let w = gw.get_words::<4>(port);
            let mut a = [0u8; 16];
            for (i, word) in w.iter().enumerate() {
                a[4 * i..4 * i + 4].copy_from_slice(&word.to_le_bytes());
            }
            a
        };
        Some(ParsedHeader {
            class,
            vlan_id: if self.get_bool(h.vlan_present) {
                Some(self.get_u32(h.vlan_id) as u16)
            } else {
                None
            },
            is_ipv6: self.get_bool(h.is_ipv6),
            src_ip: addr(self, h.src_ip),
            dst_ip: addr(self, h.dst_ip),
            ecn: self.get_u32(h.ecn) as u8,
            flow_label: self.get_u32(h.flow_label),
            udp_src_port: self.get_u32(h.udp_src_port) as u16,
            opcode: self.get_u32(h.opcode) as u8,
            pkey: self.get_u32(h.pkey) as u16,
            dest_qp: self.get_u32(h.dest_qp),
            psn: self.get_u32(h.psn),
        })
    }

    /// Drives the external queue-depth telemetry input.
    pub fn set_queue_depth(&mut self, bytes: u32, valid: bool) {
        self.set_u32(self.qd_bytes, bytes);
        self.set_u32(self.qd_valid, valid as u32);
    }

    /// Drives the data-centre port's queue-depth telemetry input
    /// (`qd_dc_*`, RA-04's egress law).
    pub fn set_dc_queue_depth(&mut self, bytes: u32, valid: bool) {
        self.set_u32(self.qd_dc_bytes, bytes);
        self.set_u32(self.qd_dc_valid, valid as u32);
    }

    fn idle_csr(&mut self) {
        let a = self.axil;
        self.set_u32(a.awvalid, 0);
        self.set_u32(a.wvalid, 0);
        self.set_u32(a.arvalid, 0);
        self.set_u32(a.bready, 0);
        self.set_u32(a.rready, 0);
    }

    fn resp_error(resp: u32, offset: u32) -> Result<(), CsrError> {
        match resp {
            0 | 1 => Ok(()),
            2 => Err(CsrError::SlaveError { offset }),
            _ => Err(CsrError::DecodeError { offset }),
        }
    }

    /// One AXI4-Lite write (all byte lanes); clocks the model until the
    /// response arrives.
    pub fn csr_write(&mut self, offset: u32, value: u32) -> Result<(), CsrError> {
        let a = self.axil;
        self.set_u32(a.awaddr, offset);
        self.set_u32(a.wdata, value);
        self.set_u32(a.wstrb, 0xf);
        self.set_u32(a.awvalid, 1);
        self.set_u32(a.wvalid, 1);
        self.set_u32(a.bready, 1);
        let (mut aw_done, mut w_done) = (false, false);
        for _ in 0..CSR_TIMEOUT_CYCLES {
            let aw_fire = !aw_done && self.get_bool(a.awready);
            let w_fire = !w_done && self.get_bool(a.wready);
            let b = self.get_bool(a.bvalid);
            let resp = self.get_u32(a.bresp);
            self.step();
            aw_done |= aw_fire;
            w_done |= w_fire;
            if aw_done {
                self.set_u32(a.awvalid, 0);
            }
            if w_done {
                self.set_u32(a.wvalid, 0);
            }
            if b && aw_done && w_done {
                self.idle_csr();
                return Self::resp_error(resp, offset);
            }
        }
        self.idle_csr();
        Err(CsrError::Timeout { offset })
    }

    /// One AXI4-Lite read; clocks the model until the data arrives.
    pub fn csr_read(&mut self, offset: u32) -> Result<u32, CsrError> {
        let a = self.axil;
        self.set_u32(a.araddr, offset);
        self.set_u32(a.arvalid, 1);
        self.set_u32(a.rready, 1);
        let mut ar_done = false;
        for _ in 0..CSR_TIMEOUT_CYCLES {
            let ar_fire = !ar_done && self.get_bool(a.arready);
            let r = self.get_bool(a.rvalid);
            let data = self.get_u32(a.rdata);
            let resp = self.get_u32(a.rresp);
            self.step();
            ar_done |= ar_fire;
            if ar_done {
                self.set_u32(a.arvalid, 0);
            }
            if r && ar_done {
                self.idle_csr();
                return Self::resp_error(resp, offset).map(|_| data);
            }
        }
        self.idle_csr();
        Err(CsrError::Timeout { offset })
    }

    /// Flushes the VCD file, if tracing.
    pub fn flush_trace(&mut self) {
        // SAFETY: model is live.
        unsafe { ffi::cngw_model_trace_flush(self.model) };
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        // SAFETY: the pointer came from cngw_model_new and is freed once.
        unsafe { ffi::cngw_model_free(self.model) };
    }
}
