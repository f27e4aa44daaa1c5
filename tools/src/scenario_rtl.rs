//! The Verilated gateway in a scenario's loop (`cngw scenario --gateway
//! rtl`), and the cross-check of the RTL against the reference model on
//! the same scenario (`--cross-check`).
//!
//! [`RtlLoop`] drives a fresh Verilated gateway through the testbench's
//! bench: the configuration through the AXI4-Lite port (each flow-table
//! insert polled to its end), then clock by clock up to each event of the
//! scenario, frames pushed on dc_rx when offered, the telemetry input
//! driven when the depth changes, and every frame that leaves on dc_tx
//! taken as a notification with the clock of its first beat. Clock 0 of
//! the scenario is [`LOOP_START`] clocks after reset release, as for the
//! model ([`cngw_model::scenario::node`]).

use cngw_model::scenario::node::{beats, CONFIG_CLOCK_IN_US, CONFIG_US, HEADER_AFTER_LAST_BEAT};
use cngw_model::scenario::{LoopGateway, LoopNotification, LOOP_START};
use cngw_model::{InPort, OutPort};
use cngw_regmap::{flow_status, offset};
use cngw_sim::Gateway;
use cngw_testbench::bench::Bench;
use std::collections::VecDeque;

/// Registers of windows the gateway counts in microseconds: a window's
/// counter runs on across a write of its length, so windows fall on
/// multiples of the length since reset (as the model counts them) only if
/// the length is written while the counter is at 0.
const WINDOW_REGISTERS: [u32; 3] = [
    offset::PORT0_QGR_INTERVAL_US,
    offset::PORT0_EMR_WINDOW_US,
    offset::LH_OBS_WINDOW_US,
];

/// The windows' length after reset, microseconds.
const WINDOW_RESET_US: u64 = 100;
const _: () = assert!(CONFIG_US / WINDOW_RESET_US * WINDOW_RESET_US == CONFIG_US);

/// Clocks from issuing a CSR write to the clock it takes effect in.
const CSR_WRITE_CLOCKS: u64 = 3;

/// Polls of `FLOW_STATUS` before an insert counts as lost.
const FLOW_POLLS: u32 = 1_000;

/// The Verilated gateway in the loop.
pub struct RtlLoop {
    bench: Bench<Gateway>,
    /// The absolute clock of scenario clock 0.
    base: Option<u64>,
    out: Vec<LoopNotification>,
    /// The header clock each frame on dc_rx should be parsed in, had the
    /// input taken it as the model assumes (one frame after the other).
    expected_headers: VecDeque<u64>,
    rx_free: u64,
    /// The first register write was issued.
    configuring: bool,
    /// What the run saw of dc_rx timing.
    pub frames: u64,
    /// Frames offered while dc_rx was still taking an earlier one.
    pub frames_queued: u64,
    /// Frames whose header came in another clock than expected, and the
    /// first of them: (expected, actual) absolute clocks.
    pub header_mismatches: u64,
    pub first_mismatch: Option<(u64, u64)>,
}

impl Default for RtlLoop {
    fn default() -> Self {
        Self::new()
    }
}

impl RtlLoop {
    /// A fresh, reset gateway.
    pub fn new() -> Self {
        RtlLoop {
            bench: Bench::around(Gateway::new()),
            base: None,
            configuring: false,
            out: Vec::new(),
            expected_headers: VecDeque::new(),
            rx_free: 0,
            frames: 0,
            frames_queued: 0,
            header_mismatches: 0,
            first_mismatch: None,
        }
    }

    /// A fresh gateway when `rtl`.
    pub fn new_if(rtl: bool) -> Option<Self> {
        rtl.then(Self::new)
    }

    /// Scenario clock 0 in absolute clocks; the configuration must be
    /// over by then.
    fn base(&mut self) -> u64 {
        if let Some(b) = self.base {
            return b;
        }
        let b = self.bench.gateway().reset_released_at() + LOOP_START;
        assert!(
            self.bench.cycle() <= b,
            "the configuration took {} clocks, more than the {LOOP_START} before clock 0",
            self.bench.cycle()
        );
        self.base = Some(b);
        b
    }

    /// Waits, if needed, for microsecond [`CONFIG_US`] after reset (a
    /// multiple of [`WINDOW_RESET_US`]: every window counter still at its
    /// reset length is at 0 there), so that the configuration (the
    /// feature's enable, the window lengths) takes effect where the model
    /// takes it. Writes within that
    /// microsecond need no wait.
    fn align_config_write(&mut self) -> Result<(), String> {
        let p = u64::from(self.read_register(offset::CLOCKS_PER_US)?.max(1));
        let reset = self.bench.gateway().reset_released_at();
        let k = self.bench.cycle() - reset;
        let target = CONFIG_US * p + CONFIG_CLOCK_IN_US;
        if k < target {
            // The write lands a few clocks after it is issued.
            let wait = target - k - CSR_WRITE_CLOCKS;
            self.bench.gateway().run(wait);
        } else if k / p != CONFIG_US || k % p > p - 32 {
            return Err(format!(
                "the configuration reached clock {k} after reset, past microsecond {CONFIG_US}"
            ));
        }
        Ok(())
    }

    fn collect(&mut self, base: u64) {
        for f in self.bench.take_frames(OutPort::DcTx, usize::MAX) {
            self.out.push(LoopNotification {
                clock: f.start_cycle - base,
                frame: f.data,
            });
        }
        self.bench.take_frames(OutPort::WanTx, usize::MAX);
        self.bench.take_accepted(InPort::DcRx, usize::MAX);
        for p in self.bench.take_parsed(InPort::DcRx, usize::MAX) {
            let want = self.expected_headers.pop_front();
            if want != Some(p.cycle) {
                self.header_mismatches += 1;
                self.first_mismatch
                    .get_or_insert((want.unwrap_or(u64::MAX), p.cycle));
            }
        }
    }
}

impl LoopGateway for RtlLoop {
    fn write_register(&mut self, off: u32, value: u32) -> Result<(), String> {
        if self.base.is_some() {
            return Err("register writes belong before clock 0".into());
        }
        if !self.configuring || WINDOW_REGISTERS.contains(&off) {
            self.configuring = true;
            self.align_config_write()?;
        }
        let gw = self.bench.gateway();
        gw.csr_write(off, value)
            .map_err(|e| format!("write of {value:#x} to {off:#x}: {e:?}"))?;
        if off == offset::FLOW_COMMAND {
            for _ in 0..FLOW_POLLS {
                let status = gw
                    .csr_read(offset::FLOW_STATUS)
                    .map_err(|e| format!("FLOW_STATUS: {e:?}"))?;
                if status & flow_status::DONE != 0 {
                    if status & flow_status::FAILED != 0 {
                        return Err(format!("flow-table command {value:#x} failed"));
                    }
                    return Ok(());
                }
            }
            return Err(format!("flow-table command {value:#x} did not finish"));
        }
        Ok(())
    }

    fn read_register(&mut self, off: u32) -> Result<u32, String> {
        self.bench
            .gateway()
            .csr_read(off)
            .map_err(|e| format!("read of {off:#x}: {e:?}"))
    }

    fn advance_to(&mut self, clock: u64) {
        let base = self.base();
        let target = base + clock;
        while self.bench.cycle() < target {
            self.bench.clock();
            if self.bench.frames_waiting(OutPort::DcTx) > 0
                || self.bench.frames_waiting(OutPort::WanTx) > 64
            {
                self.collect(base);
            }
        }
        self.collect(base);
    }

    fn receive(&mut self, frame: &[u8], clock: u64) {
        let base = self.base();
        self.advance_to(clock);
        let offered = base + clock;
        let first = offered.max(self.rx_free);
        if first > offered {
            self.frames_queued += 1;
        }
        let beats = beats(frame.len());
        self.rx_free = first + beats;
        self.expected_headers
            .push_back(first + beats - 1 + HEADER_AFTER_LAST_BEAT);
        self.frames += 1;
        self.bench.push_frame(InPort::DcRx, frame, false);
    }

    fn set_queue_depth(&mut self, bytes: u32, clock: u64) {
        self.advance_to(clock);
        self.bench.gateway().set_queue_depth(bytes, true);
    }

    fn take_notifications(&mut self) -> Vec<LoopNotification> {
        std::mem::take(&mut self.out)
    }
}

/// One line about a notification: clock, length, destination, DestQP and,
/// for a Long-haul CNP, its action, parameter and level.
pub fn describe(n: &LoopNotification) -> String {
    use cngw_packet::bth::opcode;
    use cngw_packet::frame::Frame;
    use cngw_packet::longhaul::LonghaulBody;
    let mut s = format!("clock {} {} B", n.clock, n.frame.len());
    let Ok(f) = Frame::parse(&n.frame) else {
        return s + " (does not parse)";
    };
    s += &format!(" to {}", f.ip.header.dst());
    if let Ok(r) = f.roce() {
        s += &format!(" QP {:#x}", r.bth.dest_qp);
        match (r.bth.opcode, r.bth.e_bit) {
            (opcode::CNP, true) => match LonghaulBody::parse(&r.payload) {
                Ok(b) => {
                    s += &format!(
                        " Long-haul {:?} {} level {}",
                        b.action, b.parameter, b.congestion_level
                    )
                }
                Err(_) => s += " Long-haul (short body)",
            },
            (opcode::CNP, false) => s += " CNP",
            (op, _) => s += &format!(" opcode {op:#04x}"),
        }
    } else if f.icmpv6().is_some() {
        s += " ICMPv6";
    }
    s
}

/// The first difference between two runs' notifications (RTL first), or
/// `None` when they are the same frames in the same clocks. The message
/// lists the notifications around it from both runs ([`describe`]).
pub fn first_difference(rtl: &[LoopNotification], model: &[LoopNotification]) -> Option<String> {
    let first = rtl
        .iter()
        .zip(model)
        .position(|(a, b)| a != b)
        .or_else(|| (rtl.len() != model.len()).then(|| rtl.len().min(model.len())))?;
    let mut msg = match (rtl.get(first), model.get(first)) {
        (Some(a), Some(b)) if a.frame != b.frame => {
            match a.frame.iter().zip(&b.frame).position(|(x, y)| x != y) {
                Some(k) => format!(
                    "notification {first}: byte {k} is {:#04x} in the RTL, {:#04x} in the model (clocks {} and {})",
                    a.frame[k], b.frame[k], a.clock, b.clock
                ),
                None => format!(
                    "notification {first}: {} bytes in the RTL, {} in the model",
                    a.frame.len(),
                    b.frame.len()
                ),
            }
        }
        (Some(a), Some(b)) => format!(
            "notification {first}: leaves dc_tx in clock {} in the RTL, {} in the model",
            a.clock, b.clock
        ),
        _ => format!(
            "the RTL sent {} notifications, the model {}",
            rtl.len(),
            model.len()
        ),
    };
    let from = first.saturating_sub(3);
    for (name, run) in [("RTL", rtl), ("model", model)] {
        msg += &format!("\n  {name}:");
        for (i, n) in run.iter().enumerate().skip(from).take(first + 3 - from) {
            msg += &format!("\n    {i}: {}", describe(n));
        }
    }
    Some(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(clock: u64, frame: &[u8]) -> LoopNotification {
        LoopNotification {
            clock,
            frame: frame.to_vec(),
        }
    }

    #[test]
    fn scn_cross_check_names_the_first_difference() {
        let a = vec![note(10, &[1, 2, 3]), note(20, &[4, 5])];
        assert_eq!(first_difference(&a, &a.clone()), None);
        let mut b = a.clone();
        b[1].frame[1] = 9;
        let d = first_difference(&a, &b).unwrap();
        assert!(d.contains("notification 1: byte 1"), "{d}");
        let mut c = a.clone();
        c[0].clock = 11;
        let d = first_difference(&a, &c).unwrap();
        assert!(d.contains("clock 10 in the RTL, 11"), "{d}");
        let d = first_difference(&a, &a[..1]).unwrap();
        assert!(d.contains("sent 2 notifications, the model 1"), "{d}");
        // Both runs are listed around the difference.
        let (rtl, model) = d.split_once("\n  model:").expect("both runs listed");
        assert!(
            rtl.ends_with("\n  RTL:\n    0: clock 10 3 B (does not parse)\n    1: clock 20 2 B (does not parse)"),
            "{d}"
        );
        assert_eq!(model, "\n    0: clock 10 3 B (does not parse)", "{d}");
    }

    #[test]
    fn scn_cross_check_describes_each_kind_of_notification() {
        use cngw_packet::bth::opcode;
        use cngw_packet::envelope::Envelope;
        use cngw_packet::longhaul::{Action, LonghaulBody, LonghaulCnp};
        use cngw_packet::longhaul_rocev2::LonghaulRocev2;
        use cngw_packet::roce::RoceFrameBuilder;
        use std::net::Ipv4Addr;
        let (gw, sender) = (Ipv4Addr::new(10, 0, 9, 1), Ipv4Addr::new(10, 0, 0, 1));
        let cnp = RoceFrameBuilder::ipv4(gw, sender)
            .opcode(opcode::CNP)
            .dest_qp(0x64)
            .payload(vec![0; 16])
            .build();
        assert_eq!(
            describe(&note(5, &cnp)),
            "clock 5 74 B to 10.0.0.1 QP 0x64 CNP"
        );
        let body = LonghaulBody {
            congestion_level: 180,
            action: Action::RateReduce,
            parameter: 30,
            source_qp: 0x64,
            metric_type: 1,
            metric_value: 7,
        };
        let lh = LonghaulRocev2::new(0x64, LonghaulCnp::new(body))
            .to_frame(&Envelope::ipv4(gw, sender))
            .to_bytes();
        let d = describe(&note(6, &lh));
        assert!(
            d.ends_with("to 10.0.0.1 QP 0x64 Long-haul RateReduce 30 level 180"),
            "{d}"
        );
    }
}
