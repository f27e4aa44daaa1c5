//! SCONE Rate Advice message for RoCEv2 (draft-zz-scone-rate-advice-rocev2-00
//! section "Rate Advice Message"): UDP port 4791, a BTH with opcode
//! RATE_ADVICE, the 16-byte Rate Advice packet and the ICRC.
//!
//! ```text
//! Rate Advice Packet { Rate (32, Mbps), Version (32) = 1,
//!                      Destination QP ID (32), Source QP ID (32) }
//! ```
//!
//! The opcode is only an example in the draft ("e.g., 0x1D"); this project
//! defaults to 0x1D and makes it configurable, because IBTA 1.5 already uses
//! 0x1D for RC ATOMIC WRITE. BTH DestQP is the sender's QP (the packet goes to
//! the sender); the body's Destination QP is copied from the data packet's
//! BTH, as the draft's field definition says.

use crate::bth::{opcode, Bth, DEFAULT_PKEY};
use crate::envelope::Envelope;
use crate::error::{Layer, ParseError};
use crate::frame::{Frame, UdpChecksum};
use crate::roce::{ExtHeaders, HeaderLayout, RocePacket, DEFAULT_UDP_SRC_PORT};
use crate::wire::Cursor;

/// Default BTH opcode of RATE_ADVICE.
pub const DEFAULT_OPCODE: u8 = opcode::RATE_ADVICE_DEFAULT;
/// Version of this format.
pub const VERSION_1: u32 = 1;
/// Length of the Rate Advice packet.
pub const BODY_LEN: usize = 16;

/// The Rate Advice packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RateAdvice {
    pub rate_mbps: u32,
    pub version: u32,
    /// Copied from the data packet's BTH DestQP.
    pub destination_qp: u32,
    /// QP of the receiver or of the network node.
    pub source_qp: u32,
}

impl RateAdvice {
    /// Version 1.
    pub fn new(rate_mbps: u32, destination_qp: u32, source_qp: u32) -> Self {
        RateAdvice {
            rate_mbps,
            version: VERSION_1,
            destination_qp,
            source_qp,
        }
    }

    /// Parses exactly 16 bytes.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        if buf.len() != BODY_LEN {
            return Err(ParseError::BadLength {
                layer: Layer::RateAdvice,
                field: "Rate Advice packet length",
                value: buf.len(),
                available: BODY_LEN,
            });
        }
        let mut c = Cursor::new(buf, Layer::RateAdvice);
        Ok(RateAdvice {
            rate_mbps: c.u32()?,
            version: c.u32()?,
            destination_qp: c.u32()?,
            source_qp: c.u32()?,
        })
    }

    pub fn to_bytes(&self) -> [u8; BODY_LEN] {
        let mut b = [0u8; BODY_LEN];
        b[0..4].copy_from_slice(&self.rate_mbps.to_be_bytes());
        b[4..8].copy_from_slice(&self.version.to_be_bytes());
        b[8..12].copy_from_slice(&self.destination_qp.to_be_bytes());
        b[12..16].copy_from_slice(&self.source_qp.to_be_bytes());
        b
    }
}

/// A Rate Advice message: BTH fields and body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RateAdviceMessage {
    /// BTH opcode (configurable RATE_ADVICE).
    pub opcode: u8,
    /// BTH DestQP: the sender's QP (24 bits).
    pub dest_qp: u32,
    pub pkey: u16,
    /// BTH PSN.
    pub psn: u32,
    pub advice: RateAdvice,
}

impl RateAdviceMessage {
    /// Opcode 0x1D, P_Key 0xFFFF, PSN 0.
    pub fn new(dest_qp: u32, advice: RateAdvice) -> Self {
        RateAdviceMessage {
            opcode: DEFAULT_OPCODE,
            dest_qp: dest_qp & 0x00FF_FFFF,
            pkey: DEFAULT_PKEY,
            psn: 0,
            advice,
        }
    }

    pub fn bth(&self) -> Bth {
        let mut bth = Bth::new(self.opcode, self.dest_qp, self.psn);
        bth.pkey = self.pkey;
        bth
    }

    pub fn to_roce(&self) -> RocePacket {
        RocePacket {
            bth: self.bth(),
            ext: ExtHeaders::default(),
            payload: self.advice.to_bytes().to_vec(),
            icrc: 0,
        }
    }

    /// The whole frame (UDP source port 0xC000, UDP checksum 0, ICRC).
    pub fn to_frame(&self, env: &Envelope) -> Frame {
        self.to_frame_with_port(env, DEFAULT_UDP_SRC_PORT)
    }

    pub fn to_frame_with_port(&self, env: &Envelope, udp_src_port: u16) -> Frame {
        self.to_roce()
            .to_frame(env, udp_src_port, UdpChecksum::Zero)
    }

    /// Parses a UDP-4791 payload whose opcode must be `rate_advice_opcode`.
    pub fn parse(udp_payload: &[u8], rate_advice_opcode: u8) -> Result<Self, ParseError> {
        let p = RocePacket::parse_with_layout(udp_payload, HeaderLayout::default())?;
        if p.bth.opcode != rate_advice_opcode {
            return Err(ParseError::NotThisFormat {
                layer: Layer::RateAdvice,
                field: "BTH opcode",
                expected: rate_advice_opcode as u64,
                found: p.bth.opcode as u64,
            });
        }
        Ok(RateAdviceMessage {
            opcode: p.bth.opcode,
            dest_qp: p.bth.dest_qp,
            pkey: p.bth.pkey,
            psn: p.bth.psn,
            advice: RateAdvice::parse(&p.payload)?,
        })
    }

    pub fn from_frame(frame: &Frame, rate_advice_opcode: u8) -> Result<Self, ParseError> {
        let u = frame.udp_to_port(crate::udp::ROCEV2_PORT, Layer::RateAdvice)?;
        Self::parse(&u.payload, rate_advice_opcode)
    }
}
