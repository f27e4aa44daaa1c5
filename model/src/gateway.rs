//! The gateway model: forwarding, parsing and counters.

use crate::longhaul::{LonghaulModel, Notification, Packet, Registers, RegistersMut};
use crate::ports::{InPort, OutPort};
use cngw_packet::parsed::{classify, FrameClass, ParsedHeader};
use cngw_regmap::{control, feature, flow_command, flow_status, offset, Access, REGISTERS};
use std::collections::BTreeMap;

pub use cngw_packet::flow_key::FlowKey;

/// A flow-table entry as the model keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowValue {
    pub sqp: Option<u32>,
    pub pinned: bool,
}

/// A frame as a stream carries it: bytes (no FCS) and the `tuser` error flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub data: Vec<u8>,
    pub user: bool,
}

impl Frame {
    pub fn new(data: Vec<u8>) -> Self {
        Frame { data, user: false }
    }
}

/// What the model produced for one input frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelOutput {
    /// The parser's view of the frame.
    pub parsed: ParsedHeader,
    /// Frames leaving the gateway, in order.
    pub emitted: Vec<(OutPort, Frame)>,
}

/// Behavioural model of the gateway's registers and data path.
#[derive(Clone, Debug)]
pub struct GatewayModel {
    registers: Regs,
    /// The flow table (LH-01). The model has no capacity limit: tests stay
    /// far below the 16,384 entries where the RTL's buckets could overflow.
    flows: BTreeMap<FlowKey, FlowValue>,
    /// The second level (LH-05..LH-09).
    lh: LonghaulModel,
    /// The last decision clock the model was told.
    lh_clock: u64,
}

/// The register file, as the second-level model reads it.
#[derive(Clone, Debug, Default)]
struct Regs(BTreeMap<u32, u32>);

impl std::ops::Deref for Regs {
    type Target = BTreeMap<u32, u32>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Regs {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Registers for Regs {
    fn reg(&self, offset: u32) -> u32 {
        self.0[&offset]
    }
}

impl RegistersMut for Regs {
    fn view(&self) -> &dyn Registers {
        self
    }
    fn count(&mut self, offset: u32) {
        let c = self.0.entry(offset).or_insert(0);
        *c = c.wrapping_add(1);
    }
    fn set(&mut self, offset: u32, value: u32) {
        self.0.insert(offset, value);
    }
}

impl Default for GatewayModel {
    fn default() -> Self {
        Self::new()
    }
}

impl GatewayModel {
    /// The state after reset: every register at its reset value.
    pub fn new() -> Self {
        let registers = REGISTERS
            .iter()
            .map(|r| {
                (
                    r.offset,
                    if r.access == Access::WritePulse {
                        0
                    } else {
                        r.reset
                    },
                )
            })
            .collect();
        GatewayModel {
            registers: Regs(registers),
            flows: BTreeMap::new(),
            lh: LonghaulModel::new(0),
            lh_clock: 0,
        }
    }

    /// Value of a register as a CSR read returns it (`None`: unmapped).
    pub fn read_register(&self, offset: u32) -> Option<u32> {
        self.registers.get(&offset).copied()
    }

    /// A CSR write; `false` when the register is unmapped or read-only.
    pub fn write_register(&mut self, offset: u32, value: u32) -> bool {
        let Some(reg) = cngw_regmap::by_offset(offset) else {
            return false;
        };
        match reg.access {
            Access::ReadOnly => false,
            Access::ReadWrite => {
                self.registers.insert(offset, value);
                true
            }
            Access::WritePulse => {
                if offset == offset::CONTROL && value & control::CLEAR_COUNTERS != 0 {
                    for r in REGISTERS
                        .iter()
                        .filter(|r| r.volatile && !cngw_regmap::NOT_CLEARED.contains(&r.offset))
                    {
                        self.registers.insert(r.offset, 0);
                    }
                }
                if offset == offset::FLOW_COMMAND && value & 0xF != 0 {
                    self.flow_command(value);
                }
                true
            }
        }
    }

    /// The key the `FLOW_*` key registers hold.
    fn command_key(&self) -> FlowKey {
        let addr = |first: u32| {
            let mut a = [0u8; 16];
            for i in 0..4 {
                a[4 * i..4 * i + 4].copy_from_slice(&self.reg(first + 4 * i as u32).to_be_bytes());
            }
            a
        };
        FlowKey::new(
            addr(offset::FLOW_SIP_0),
            addr(offset::FLOW_DIP_0),
            self.reg(offset::FLOW_DQP) & 0xFF_FFFF,
        )
    }

    /// A `FLOW_COMMAND` write: look-up, static insert or delete (the lowest
    /// command bit set wins, as in the RTL's decoder: delete over insert
    /// over look-up).
    fn flow_command(&mut self, command: u32) {
        if command & flow_command::READ_LOCATION != 0 {
            // Where a flow sits depends on the RTL's hash and insertion
            // order, which the model does not keep: iteration is checked
            // against the flows the RTL reports (testbench/tests/flows.rs).
            self.registers
                .insert(offset::FLOW_STATUS, flow_status::DONE);
            return;
        }
        let key = self.command_key();
        let before = self.flows.get(&key).copied();
        let mut status = flow_status::DONE;
        if command & flow_command::DELETE != 0 {
            self.flows.remove(&key);
        } else if command & flow_command::INSERT_STATIC != 0 {
            self.flows.insert(
                key,
                FlowValue {
                    sqp: Some(self.reg(offset::FLOW_SQP) & 0xFF_FFFF),
                    pinned: true,
                },
            );
        }
        // The answer shows the entry as the command found it (insert:
        // as it left it).
        let shown = if command & (flow_command::DELETE) == 0
            && command & flow_command::INSERT_STATIC != 0
        {
            self.flows.get(&key).copied()
        } else {
            before
        };
        if before.is_some() {
            status |= flow_status::HIT;
        }
        if let Some(v) = shown {
            if v.sqp.is_some() {
                status |= flow_status::SQP_VALID;
            }
            if v.pinned {
                status |= flow_status::PINNED;
            }
        }
        self.registers.insert(offset::FLOW_STATUS, status);
        self.registers.insert(
            offset::FLOW_RESULT_SQP,
            shown.and_then(|v| v.sqp).unwrap_or(0),
        );
        if shown.is_some() {
            let words = |a: u128| {
                a.to_be_bytes()
                    .chunks(4)
                    .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
                    .collect::<Vec<_>>()
            };
            for (i, w) in words(key.sip).into_iter().enumerate() {
                self.registers
                    .insert(offset::FLOW_RESULT_SIP_0 + 4 * i as u32, w);
            }
            for (i, w) in words(key.dip).into_iter().enumerate() {
                self.registers
                    .insert(offset::FLOW_RESULT_DIP_0 + 4 * i as u32, w);
            }
            self.registers.insert(offset::FLOW_RESULT_DQP, key.dqp);
        }
        self.update_flow_gauges();
    }

    fn update_flow_gauges(&mut self) {
        let occupancy = self.flows.len() as u32;
        let learned = self.flows.values().filter(|v| v.sqp.is_some()).count() as u32;
        self.registers.insert(offset::FLOW_OCCUPANCY, occupancy);
        self.registers.insert(offset::FLOW_LEARNED, learned);
    }

    /// The flow table's entries.
    pub fn flows(&self) -> &BTreeMap<FlowKey, FlowValue> {
        &self.flows
    }

    /// LH-01: a RoCEv2 frame from dc_rx looks its flow up, inserting it
    /// without a source QP when new. Returns the entry.
    fn look_up_and_learn(&mut self, parsed: &ParsedHeader) -> FlowValue {
        let key = FlowKey::of_header(parsed);
        let v = *self.flows.entry(key).or_insert(FlowValue {
            sqp: None,
            pinned: false,
        });
        if v.sqp.is_none() {
            self.count(offset::FLOW_LOOKUPS_WITHOUT_SQP);
        }
        self.update_flow_gauges();
        v
    }

    /// Time base of the second level: the absolute clock at which reset
    /// was released (`cngw_sim::Gateway::reset_released_at`).
    pub fn set_reset_clock(&mut self, clock: u64) {
        self.lh = LonghaulModel::new(clock);
        self.lh_clock = clock;
    }

    /// The telemetry input reported `bytes` in absolute clock `clock`.
    pub fn set_queue_depth_at(&mut self, bytes: u32, clock: u64) {
        self.lh
            .queue_depth_changed(bytes, clock, &mut self.registers);
        self.lh_clock = self.lh_clock.max(clock);
        self.registers
            .insert(offset::PORT0_QUEUE_DEPTH_BYTES, bytes);
    }

    /// The depth the CE marker compares (LH-04), alone: the register the
    /// marker reads, not the second level's view (see
    /// [`GatewayModel::controller_depth_changed`]).
    pub fn set_marker_depth(&mut self, bytes: u32) {
        self.registers
            .insert(offset::PORT0_QUEUE_DEPTH_BYTES, bytes);
    }

    /// The second level's view alone: the telemetry input reported `bytes`
    /// in absolute clock `clock`.
    pub fn controller_depth_changed(&mut self, bytes: u32, clock: u64) {
        self.lh
            .queue_depth_changed(bytes, clock, &mut self.registers);
        self.lh_clock = self.lh_clock.max(clock);
    }

    /// Lets time pass to absolute clock `clock` (Resumes, LH-09).
    pub fn advance_to(&mut self, clock: u64) {
        self.lh.advance_to(clock, &mut self.registers);
    }

    /// Notifications toward senders decided so far, oldest first (taken).
    pub fn take_notifications(&mut self) -> Vec<Notification> {
        self.lh.take_notifications()
    }

    /// The external queue-depth input reported `bytes`.
    /// Without a clock, the change counts from the last clock the model
    /// was told (the second level's timing then is not clock-exact).
    pub fn set_queue_depth(&mut self, bytes: u32) {
        self.set_queue_depth_at(bytes, self.lh_clock);
    }

    fn reg(&self, offset: u32) -> u32 {
        self.registers[&offset]
    }

    /// LH-04: marking enabled and the WAN queue above K_min.
    pub fn above_k_min(&self) -> bool {
        self.reg(offset::FEATURE_ENABLE) & feature::LH_ECN_MARK != 0
            && self.reg(offset::PORT0_QUEUE_DEPTH_BYTES) > self.reg(offset::PORT0_K_MIN_BYTES)
    }

    fn count(&mut self, offset: u32) {
        let c = self.registers.entry(offset).or_insert(0);
        *c = c.wrapping_add(1);
    }

    /// One frame arriving on `port`: what the gateway emits and counts.
    /// Time-dependent decisions (LH-08, LH-09) are taken at the last clock
    /// the model was told; see [`GatewayModel::receive_at`].
    pub fn receive(&mut self, port: InPort, frame: &Frame) -> ModelOutput {
        self.receive_at(port, frame, None)
    }

    /// [`GatewayModel::receive`] with the clock of the frame's parsed
    /// header (`ParsedAt::cycle` of the bench): the second level decides
    /// `DECISION_DELAY` clocks later.
    pub fn receive_at(
        &mut self,
        port: InPort,
        frame: &Frame,
        header_clock: Option<u64>,
    ) -> ModelOutput {
        let decision_clock = header_clock.map(|c| c + crate::longhaul::DECISION_DELAY);
        let parsed = classify(&frame.data);
        let (rx, roce, non_roce, malformed, tx) = match port {
            InPort::DcRx => (
                offset::DC_RX_FRAMES,
                offset::DC_RX_ROCE_FRAMES,
                offset::DC_RX_NON_ROCE_FRAMES,
                offset::DC_RX_MALFORMED_FRAMES,
                offset::WAN_TX_FRAMES,
            ),
            InPort::WanRx => (
                offset::WAN_RX_FRAMES,
                offset::WAN_RX_ROCE_FRAMES,
                offset::WAN_RX_NON_ROCE_FRAMES,
                offset::WAN_RX_MALFORMED_FRAMES,
                offset::DC_TX_FRAMES,
            ),
        };
        self.count(rx);
        self.count(match parsed.class {
            FrameClass::Roce => roce,
            FrameClass::NonRoce => non_roce,
            FrameClass::Malformed => malformed,
        });
        if port == InPort::DcRx && parsed.class == FrameClass::Roce {
            let flow = self.look_up_and_learn(&parsed);
            let pkt = Packet {
                key: FlowKey::of_header(&parsed),
                sqp: flow.sqp,
                src_mac: frame.data[6..12].try_into().unwrap(),
                pkey: parsed.pkey,
            };
            let clock = match decision_clock {
                Some(c) => c,
                None => self.lh_clock,
            };
            self.lh_clock = clock;
            self.lh.decide(&pkt, clock, &mut self.registers);
        }
        // Frames are forwarded whatever they hold, malformed ones included
        // (they are only counted).
        let mut out = frame.clone();
        if port == InPort::DcRx && self.above_k_min() && crate::ecn::ce_mark(&mut out.data) {
            self.count(offset::LH_CE_MARKED_FRAMES);
        }
        self.count(tx);
        ModelOutput {
            parsed,
            emitted: vec![(port.forward_port(), out)],
        }
    }

    /// Every volatile register (counters and status) with its value.
    pub fn counters(&self) -> Vec<(&'static str, u32, u32)> {
        REGISTERS
            .iter()
            .filter(|r| r.volatile)
            .map(|r| (r.name, r.offset, self.registers[&r.offset]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_02_features_off_forwards_every_frame_and_counts_it() {
        let mut m = GatewayModel::new();
        let out = m.receive(InPort::DcRx, &Frame::new(vec![0u8; 10]));
        assert_eq!(out.parsed.class, FrameClass::Malformed);
        assert_eq!(
            out.emitted,
            vec![(OutPort::WanTx, Frame::new(vec![0u8; 10]))]
        );
        assert_eq!(m.read_register(offset::DC_RX_MALFORMED_FRAMES), Some(1));
        assert_eq!(m.read_register(offset::WAN_TX_FRAMES), Some(1));
        assert!(m.write_register(offset::CONTROL, control::CLEAR_COUNTERS));
        assert_eq!(m.read_register(offset::WAN_TX_FRAMES), Some(0));
        assert!(!m.write_register(offset::ID, 0));
    }
}
