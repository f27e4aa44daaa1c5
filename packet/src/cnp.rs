//! Standard RoCEv2 Congestion Notification Packet (IBTA Annex A17.9.3; the
//! figure in draft-he-fcn-in-wan section 3): BTH opcode 0x81 with BECN = 1,
//! P_Key 0xFFFF, PSN 0, DestQP = the QP of the sender to slow down, 16
//! reserved zero bytes, ICRC.
//!
//! Frames match what a ConnectX-4 Lx sends (see the `hw_` capture test):
//! UDP source port 0 and UDP checksum 0, 74 bytes over untagged IPv4.

use crate::bth::{opcode, Bth, DEFAULT_PKEY};
use crate::envelope::Envelope;
use crate::error::{Layer, ParseError};
use crate::frame::{Frame, UdpChecksum};
use crate::roce::{ExtHeaders, RocePacket};

/// Reserved bytes after the BTH of a standard CNP.
pub const CNP_PAYLOAD_LEN: usize = 16;
/// UDP source port of generated CNPs (ConnectX-4 Lx sends 0).
pub const CNP_UDP_SRC_PORT: u16 = 0;

/// A standard CNP's own fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cnp {
    /// QP of the sender that must slow down (24 bits).
    pub dest_qp: u32,
    pub pkey: u16,
}

impl Cnp {
    /// A CNP to `dest_qp` with P_Key 0xFFFF.
    pub fn new(dest_qp: u32) -> Self {
        Cnp {
            dest_qp: dest_qp & 0x00FF_FFFF,
            pkey: DEFAULT_PKEY,
        }
    }

    pub fn bth(&self) -> Bth {
        let mut bth = Bth::new(opcode::CNP, self.dest_qp, 0);
        bth.pkey = self.pkey;
        bth.becn = true;
        bth
    }

    /// The transport packet (ICRC 0 until framed).
    pub fn to_roce(&self) -> RocePacket {
        RocePacket {
            bth: self.bth(),
            ext: ExtHeaders::default(),
            payload: vec![0; CNP_PAYLOAD_LEN],
            icrc: 0,
        }
    }

    /// The whole frame in `env` (UDP source port [`CNP_UDP_SRC_PORT`], UDP
    /// checksum 0, valid ICRC).
    pub fn to_frame(&self, env: &Envelope) -> Frame {
        self.to_frame_with_port(env, CNP_UDP_SRC_PORT)
    }

    pub fn to_frame_with_port(&self, env: &Envelope, udp_src_port: u16) -> Frame {
        self.to_roce()
            .to_frame(env, udp_src_port, UdpChecksum::Zero)
    }

    /// A standard CNP: opcode 0x81, E bit clear, at least 16 payload bytes.
    pub fn from_roce(p: &RocePacket) -> Result<Self, ParseError> {
        if p.bth.e_bit {
            return Err(ParseError::NotThisFormat {
                layer: Layer::Cnp,
                field: "BTH E bit",
                expected: 0,
                found: 1,
            });
        }
        let cnp = Self::legacy_view(p)?;
        if p.payload.len() < CNP_PAYLOAD_LEN {
            return Err(ParseError::truncated(
                Layer::Cnp,
                CNP_PAYLOAD_LEN,
                p.payload.len(),
            ));
        }
        Ok(cnp)
    }

    /// How a legacy RNIC sees any opcode-0x81 packet, E bit and extension
    /// fields ignored (draft-tian-ccwg-long-haul-cnp-00, "Backward
    /// Compatibility": a legacy source processes the RoCEv2 format as a
    /// standard CNP).
    pub fn legacy_view(p: &RocePacket) -> Result<Self, ParseError> {
        if p.bth.opcode != opcode::CNP {
            return Err(ParseError::NotThisFormat {
                layer: Layer::Cnp,
                field: "BTH opcode",
                expected: opcode::CNP as u64,
                found: p.bth.opcode as u64,
            });
        }
        Ok(Cnp {
            dest_qp: p.bth.dest_qp,
            pkey: p.bth.pkey,
        })
    }

    /// The CNP of a parsed frame.
    pub fn from_frame(frame: &Frame) -> Result<Self, ParseError> {
        Self::from_roce(&frame.roce()?)
    }
}
