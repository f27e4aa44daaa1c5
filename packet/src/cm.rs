//! RDMA Communication Manager MADs (IBTA Vol. 1 chapter 12) as RoCEv2 carries
//! them: UD SEND_ONLY (opcode 0x64) to QP 1 with a DETH (Q_Key 0x80010000,
//! source QP 1) and a 256-byte MAD of management class 0x07.
//!
//! The gateway snoops REQ and REP to learn which QPs talk to each other (the
//! "Source QP learning" decision of DESIGN.md): a REQ carries the requester's
//! Local QPN, the REP the responder's, and the REP names the REQ's Local
//! Communication ID as its Remote Communication ID.
//!
//! MAD offsets used (bytes from the start of the MAD):
//!
//! | message | field | offset |
//! |---|---|---|
//! | all | common MAD header (base version, class, class version, method, status, class specific, transaction ID, attribute ID, attribute modifier) | 0..24 |
//! | REQ (0x0010) | Local Communication ID | 24 |
//! | REQ | Service ID | 32 |
//! | REQ | Local CA GUID | 40 |
//! | REQ | Local Q_Key | 52 |
//! | REQ | Local QPN (24 bits) | 56 |
//! | REQ | Starting PSN (24 bits) | 68 |
//! | REQ | Partition Key | 72 |
//! | REP (0x0013) | Local / Remote Communication ID | 24 / 28 |
//! | REP | Local Q_Key | 32 |
//! | REP | Local QPN (24 bits) | 36 |
//! | REP | Starting PSN (24 bits) | 44 |
//! | REP | Local CA GUID | 52 |
//! | RTU (0x0014), DREP (0x0016) | Local / Remote Communication ID | 24 / 28 |
//! | DREQ (0x0015) | Local / Remote Communication ID, Remote QPN | 24 / 28 / 32 |

use crate::bth::{opcode, Bth};
use crate::deth::{Deth, GSI_QKEY};
use crate::envelope::Envelope;
use crate::error::{Layer, ParseError};
use crate::frame::{Frame, UdpChecksum};
use crate::roce::{ExtHeaders, RocePacket};
use crate::wire::Cursor;

/// Length of a MAD.
pub const MAD_LEN: usize = 256;
/// QP of the General Services Interface, where CM MADs go.
pub const CM_QP: u32 = 1;
/// Management class of the Communication Manager.
pub const MGMT_CLASS_CM: u8 = 0x07;
/// MAD base version.
pub const BASE_VERSION: u8 = 1;
/// CM class version.
pub const CM_CLASS_VERSION: u8 = 2;
/// MAD method Send.
pub const METHOD_SEND: u8 = 0x03;

/// CM attribute IDs.
pub mod attr {
    pub const REQ: u16 = 0x0010;
    pub const MRA: u16 = 0x0011;
    pub const REJ: u16 = 0x0012;
    pub const REP: u16 = 0x0013;
    pub const RTU: u16 = 0x0014;
    pub const DREQ: u16 = 0x0015;
    pub const DREP: u16 = 0x0016;
}

/// Connection request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmReq {
    pub local_comm_id: u32,
    pub service_id: u64,
    pub local_ca_guid: u64,
    pub local_qkey: u32,
    /// The requester's QP (24 bits).
    pub local_qpn: u32,
    /// First PSN the requester sends (24 bits).
    pub starting_psn: u32,
    pub pkey: u16,
}

/// Connection reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmRep {
    pub local_comm_id: u32,
    /// The REQ's Local Communication ID.
    pub remote_comm_id: u32,
    pub local_qkey: u32,
    /// The responder's QP (24 bits).
    pub local_qpn: u32,
    /// First PSN the responder sends (24 bits).
    pub starting_psn: u32,
    pub local_ca_guid: u64,
}

/// Ready to use (also the layout of DREP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmCommIds {
    pub local_comm_id: u32,
    pub remote_comm_id: u32,
}

/// Disconnection request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmDreq {
    pub local_comm_id: u32,
    pub remote_comm_id: u32,
    /// QP of the peer (24 bits).
    pub remote_qpn: u32,
}

/// The CM messages this crate decodes; the others keep their attribute ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmMessage {
    Req(CmReq),
    Rep(CmRep),
    Rtu(CmCommIds),
    Dreq(CmDreq),
    Drep(CmCommIds),
    /// MRA, REJ, LAP, ... (payload not decoded; written as zeros).
    Other {
        attribute_id: u16,
    },
}

impl CmMessage {
    pub fn attribute_id(&self) -> u16 {
        match self {
            CmMessage::Req(_) => attr::REQ,
            CmMessage::Rep(_) => attr::REP,
            CmMessage::Rtu(_) => attr::RTU,
            CmMessage::Dreq(_) => attr::DREQ,
            CmMessage::Drep(_) => attr::DREP,
            CmMessage::Other { attribute_id } => *attribute_id,
        }
    }
}

/// A CM MAD: transaction ID and message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmMad {
    pub transaction_id: u64,
    pub message: CmMessage,
}

impl CmMad {
    /// Parses a MAD (at least 256 bytes) of the CM class.
    pub fn parse(mad: &[u8]) -> Result<Self, ParseError> {
        if mad.len() < MAD_LEN {
            return Err(ParseError::truncated(Layer::Mad, MAD_LEN, mad.len()));
        }
        let mad = &mad[..MAD_LEN];
        let mut c = Cursor::new(mad, Layer::Mad);
        let _base_version = c.u8()?;
        let class = c.u8()?;
        if class != MGMT_CLASS_CM {
            return Err(ParseError::NotThisFormat {
                layer: Layer::Mad,
                field: "management class",
                expected: MGMT_CLASS_CM as u64,
                found: class as u64,
            });
        }
        c.bytes(6)?; // class version, method, status, class specific
        let transaction_id = c.u64()?;
        let attribute_id = c.u16()?;
        let at = |off: usize| {
            let mut c = Cursor::new(mad, Layer::CmMessage);
            c.bytes(off).map(|_| c)
        };
        let message = match attribute_id {
            attr::REQ => {
                let mut c = at(24)?;
                let local_comm_id = c.u32()?;
                c.bytes(4)?;
                let service_id = c.u64()?;
                let local_ca_guid = c.u64()?;
                c.bytes(4)?;
                let local_qkey = c.u32()?;
                let local_qpn = c.u24()?;
                let mut c = at(68)?;
                let starting_psn = c.u24()?;
                c.u8()?;
                let pkey = c.u16()?;
                CmMessage::Req(CmReq {
                    local_comm_id,
                    service_id,
                    local_ca_guid,
                    local_qkey,
                    local_qpn,
                    starting_psn,
                    pkey,
                })
            }
            attr::REP => {
                let mut c = at(24)?;
                let local_comm_id = c.u32()?;
                let remote_comm_id = c.u32()?;
                let local_qkey = c.u32()?;
                let local_qpn = c.u24()?;
                let mut c = at(44)?;
                let starting_psn = c.u24()?;
                let mut c = at(52)?;
                let local_ca_guid = c.u64()?;
                CmMessage::Rep(CmRep {
                    local_comm_id,
                    remote_comm_id,
                    local_qkey,
                    local_qpn,
                    starting_psn,
                    local_ca_guid,
                })
            }
            attr::RTU | attr::DREP => {
                let mut c = at(24)?;
                let ids = CmCommIds {
                    local_comm_id: c.u32()?,
                    remote_comm_id: c.u32()?,
                };
                if attribute_id == attr::RTU {
                    CmMessage::Rtu(ids)
                } else {
                    CmMessage::Drep(ids)
                }
            }
            attr::DREQ => {
                let mut c = at(24)?;
                CmMessage::Dreq(CmDreq {
                    local_comm_id: c.u32()?,
                    remote_comm_id: c.u32()?,
                    remote_qpn: c.u24()?,
                })
            }
            attribute_id => CmMessage::Other { attribute_id },
        };
        Ok(CmMad {
            transaction_id,
            message,
        })
    }

    /// The 256-byte MAD. Fields this crate does not model get the values
    /// librdmacm uses for RoCE (timeouts 20, retry counts 7, MTU 1024).
    pub fn to_mad(&self) -> [u8; MAD_LEN] {
        let mut m = [0u8; MAD_LEN];
        m[0] = BASE_VERSION;
        m[1] = MGMT_CLASS_CM;
        m[2] = CM_CLASS_VERSION;
        m[3] = METHOD_SEND;
        m[8..16].copy_from_slice(&self.transaction_id.to_be_bytes());
        m[16..18].copy_from_slice(&self.message.attribute_id().to_be_bytes());
        let put32 = |m: &mut [u8; MAD_LEN], at: usize, v: u32| {
            m[at..at + 4].copy_from_slice(&v.to_be_bytes())
        };
        let put24 = |m: &mut [u8; MAD_LEN], at: usize, v: u32| {
            m[at..at + 3].copy_from_slice(&v.to_be_bytes()[1..])
        };
        match self.message {
            CmMessage::Req(r) => {
                put32(&mut m, 24, r.local_comm_id);
                m[32..40].copy_from_slice(&r.service_id.to_be_bytes());
                m[40..48].copy_from_slice(&r.local_ca_guid.to_be_bytes());
                put32(&mut m, 52, r.local_qkey);
                put24(&mut m, 56, r.local_qpn);
                // Remote CM response timeout 20, transport RC.
                m[67] = 20 << 3;
                put24(&mut m, 68, r.starting_psn);
                // Local CM response timeout 20, retry count 7.
                m[71] = (20 << 3) | 7;
                m[72..74].copy_from_slice(&r.pkey.to_be_bytes());
                // Path MTU 1024 (3), RNR retry count 7; max CM retries 15.
                m[74] = (3 << 4) | 7;
                m[75] = 15 << 4;
            }
            CmMessage::Rep(r) => {
                put32(&mut m, 24, r.local_comm_id);
                put32(&mut m, 28, r.remote_comm_id);
                put32(&mut m, 32, r.local_qkey);
                put24(&mut m, 36, r.local_qpn);
                put24(&mut m, 44, r.starting_psn);
                // RNR retry count 7.
                m[51] = 7 << 5;
                m[52..60].copy_from_slice(&r.local_ca_guid.to_be_bytes());
            }
            CmMessage::Rtu(ids) | CmMessage::Drep(ids) => {
                put32(&mut m, 24, ids.local_comm_id);
                put32(&mut m, 28, ids.remote_comm_id);
            }
            CmMessage::Dreq(d) => {
                put32(&mut m, 24, d.local_comm_id);
                put32(&mut m, 28, d.remote_comm_id);
                put24(&mut m, 32, d.remote_qpn);
            }
            CmMessage::Other { .. } => {}
        }
        m
    }

    /// The UD SEND_ONLY packet to QP 1 carrying this MAD.
    pub fn to_roce(&self, psn: u32) -> RocePacket {
        RocePacket {
            bth: Bth::new(opcode::UD_SEND_ONLY, CM_QP, psn),
            ext: ExtHeaders {
                deth: Some(Deth {
                    qkey: GSI_QKEY,
                    src_qp: CM_QP,
                }),
                ..ExtHeaders::default()
            },
            payload: self.to_mad().to_vec(),
            icrc: 0,
        }
    }

    /// The whole frame (UDP checksum 0, valid ICRC).
    pub fn to_frame(&self, env: &Envelope, psn: u32, udp_src_port: u16) -> Frame {
        self.to_roce(psn)
            .to_frame(env, udp_src_port, UdpChecksum::Zero)
    }

    /// The CM MAD of a RoCEv2 packet: UD SEND_ONLY to QP 1 with a DETH.
    pub fn from_roce(p: &RocePacket) -> Result<Self, ParseError> {
        if p.bth.opcode != opcode::UD_SEND_ONLY {
            return Err(ParseError::NotThisFormat {
                layer: Layer::Mad,
                field: "BTH opcode",
                expected: opcode::UD_SEND_ONLY as u64,
                found: p.bth.opcode as u64,
            });
        }
        if p.bth.dest_qp != CM_QP {
            return Err(ParseError::NotThisFormat {
                layer: Layer::Mad,
                field: "BTH DestQP",
                expected: CM_QP as u64,
                found: p.bth.dest_qp as u64,
            });
        }
        Self::parse(&p.payload)
    }

    /// The CM MAD of a frame.
    pub fn from_frame(frame: &Frame) -> Result<Self, ParseError> {
        Self::from_roce(&frame.roce()?)
    }
}
