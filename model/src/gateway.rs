//! The gateway model: forwarding, parsing and counters.

use crate::ports::{InPort, OutPort};
use cngw_packet::parsed::{classify, FrameClass, ParsedHeader};
use cngw_regmap::{control, feature, offset, Access, REGISTERS};
use std::collections::BTreeMap;

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
    registers: BTreeMap<u32, u32>,
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
        GatewayModel { registers }
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
                        .filter(|r| r.volatile && r.offset != offset::PORT0_QUEUE_DEPTH_BYTES)
                    {
                        self.registers.insert(r.offset, 0);
                    }
                }
                true
            }
        }
    }

    /// The external queue-depth input reported `bytes`.
    pub fn set_queue_depth(&mut self, bytes: u32) {
        self.registers
            .insert(offset::PORT0_QUEUE_DEPTH_BYTES, bytes);
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
    pub fn receive(&mut self, port: InPort, frame: &Frame) -> ModelOutput {
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
