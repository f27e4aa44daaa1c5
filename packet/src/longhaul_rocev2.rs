//! Long-haul CNP in the RoCEv2 backward-compatible format
//! (draft-tian-ccwg-long-haul-cnp-00, "RoCEv2 Backward-Compatible Extension
//! Format", "BTH Field Values for Long-haul CNP"): a standard CNP BTH (opcode
//! 0x81, BECN 1, FECN 0, PSN 0, P_Key 0xFFFF or the flow's) with the E bit set,
//! followed straight away by the 12-byte body, optional extension structure,
//! and the ICRC over all of it. Without objects the UDP length is 36 (a
//! standard CNP has 40). The E bit lies in the ICRC-masked BTH byte 4, so the
//! ICRC does not protect it.

use crate::bth::{opcode, Bth, DEFAULT_PKEY};
use crate::cnp::CNP_UDP_SRC_PORT;
use crate::envelope::Envelope;
use crate::error::{Layer, ParseError};
use crate::frame::{Frame, UdpChecksum};
use crate::longhaul::LonghaulCnp;
use crate::roce::{ExtHeaders, RocePacket};

/// A Long-haul CNP in RoCEv2 format.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LonghaulRocev2 {
    /// BTH DestQP: the QP at the source to be controlled (24 bits).
    pub dest_qp: u32,
    pub pkey: u16,
    pub cnp: LonghaulCnp,
}

impl LonghaulRocev2 {
    /// With P_Key 0xFFFF.
    pub fn new(dest_qp: u32, cnp: LonghaulCnp) -> Self {
        LonghaulRocev2 {
            dest_qp: dest_qp & 0x00FF_FFFF,
            pkey: DEFAULT_PKEY,
            cnp,
        }
    }

    pub fn bth(&self) -> Bth {
        let mut bth = Bth::new(opcode::CNP, self.dest_qp, 0);
        bth.pkey = self.pkey;
        bth.becn = true;
        bth.e_bit = true;
        bth
    }

    /// The transport packet (ICRC 0 until framed).
    pub fn to_roce(&self) -> RocePacket {
        RocePacket {
            bth: self.bth(),
            ext: ExtHeaders::default(),
            payload: self.cnp.to_bytes(),
            icrc: 0,
        }
    }

    /// The whole frame (UDP source port 0, UDP checksum 0, valid ICRC).
    pub fn to_frame(&self, env: &Envelope) -> Frame {
        self.to_frame_with_port(env, CNP_UDP_SRC_PORT)
    }

    pub fn to_frame_with_port(&self, env: &Envelope, udp_src_port: u16) -> Frame {
        self.to_roce()
            .to_frame(env, udp_src_port, UdpChecksum::Zero)
    }

    /// A Long-haul CNP: opcode 0x81 with the E bit set.
    pub fn from_roce(p: &RocePacket) -> Result<Self, ParseError> {
        if p.bth.opcode != opcode::CNP {
            return Err(ParseError::NotThisFormat {
                layer: Layer::LonghaulCnp,
                field: "BTH opcode",
                expected: opcode::CNP as u64,
                found: p.bth.opcode as u64,
            });
        }
        if !p.bth.e_bit {
            return Err(ParseError::NotThisFormat {
                layer: Layer::LonghaulCnp,
                field: "BTH E bit",
                expected: 1,
                found: 0,
            });
        }
        Ok(LonghaulRocev2 {
            dest_qp: p.bth.dest_qp,
            pkey: p.bth.pkey,
            cnp: LonghaulCnp::parse(&p.payload)?,
        })
    }

    pub fn from_frame(frame: &Frame) -> Result<Self, ParseError> {
        Self::from_roce(&frame.roce()?)
    }
}
