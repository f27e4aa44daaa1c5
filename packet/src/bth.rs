//! InfiniBand Base Transport Header (IBTA Vol. 1 section 9.2), 12 bytes,
//! including the Long-haul CNP Extension Present (E) bit of
//! draft-tian-ccwg-long-haul-cnp-00 section "Extension Present (E) Bit
//! Definition": the most significant of the six reserved bits after BECN,
//! i.e. bit 5 (0x20) of BTH byte 4.
//!
//! ```text
//!  0               1               2               3
//! +---------------+-+-+---+-------+-------------------------------+
//! |    OpCode     |S|M|Pad| TVer  |          Partition Key        |
//! +-+-+-+---------+-+-+---+-------+-------------------------------+
//! |F|B|E|  Rsv5   |              Destination QP                   |
//! +-+-------------+-----------------------------------------------+
//! |A|    Rsv7     |                  PSN                          |
//! +-+-------------+-----------------------------------------------+
//! ```

use crate::error::{Layer, ParseError};
use crate::wire::{put_u24, Cursor};

/// Length of the BTH.
pub const BTH_LEN: usize = 12;
/// Default partition key.
pub const DEFAULT_PKEY: u16 = 0xFFFF;
/// Mask of the E bit in BTH byte 4.
pub const E_BIT_MASK: u8 = 0x20;

/// BTH opcodes (IBTA Vol. 1 table 38; CNP from Annex A17).
pub mod opcode {
    /// Transport bits (top three bits of the opcode).
    pub const TRANSPORT_RC: u8 = 0x00;
    pub const TRANSPORT_UC: u8 = 0x20;
    pub const TRANSPORT_RD: u8 = 0x40;
    pub const TRANSPORT_UD: u8 = 0x60;
    pub const TRANSPORT_CNP: u8 = 0x80;
    pub const TRANSPORT_XRC: u8 = 0xA0;

    pub const RC_SEND_FIRST: u8 = 0x00;
    pub const RC_SEND_MIDDLE: u8 = 0x01;
    pub const RC_SEND_LAST: u8 = 0x02;
    pub const RC_SEND_LAST_WITH_IMMEDIATE: u8 = 0x03;
    pub const RC_SEND_ONLY: u8 = 0x04;
    pub const RC_SEND_ONLY_WITH_IMMEDIATE: u8 = 0x05;
    pub const RC_RDMA_WRITE_FIRST: u8 = 0x06;
    pub const RC_RDMA_WRITE_MIDDLE: u8 = 0x07;
    pub const RC_RDMA_WRITE_LAST: u8 = 0x08;
    pub const RC_RDMA_WRITE_LAST_WITH_IMMEDIATE: u8 = 0x09;
    pub const RC_RDMA_WRITE_ONLY: u8 = 0x0A;
    pub const RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: u8 = 0x0B;
    pub const RC_RDMA_READ_REQUEST: u8 = 0x0C;
    pub const RC_RDMA_READ_RESPONSE_FIRST: u8 = 0x0D;
    pub const RC_RDMA_READ_RESPONSE_MIDDLE: u8 = 0x0E;
    pub const RC_RDMA_READ_RESPONSE_LAST: u8 = 0x0F;
    pub const RC_RDMA_READ_RESPONSE_ONLY: u8 = 0x10;
    pub const RC_ACKNOWLEDGE: u8 = 0x11;
    pub const RC_ATOMIC_ACKNOWLEDGE: u8 = 0x12;
    pub const RC_COMPARE_SWAP: u8 = 0x13;
    pub const RC_FETCH_ADD: u8 = 0x14;
    pub const RC_SEND_LAST_WITH_INVALIDATE: u8 = 0x16;
    pub const RC_SEND_ONLY_WITH_INVALIDATE: u8 = 0x17;
    /// IBTA 1.5 RC ATOMIC WRITE; also the draft-zz Rate Advice default
    /// opcode, hence configurable there.
    pub const RC_ATOMIC_WRITE: u8 = 0x1D;
    pub const UC_SEND_ONLY: u8 = 0x24;
    pub const UC_RDMA_WRITE_ONLY: u8 = 0x2A;
    pub const UD_SEND_ONLY: u8 = 0x64;
    pub const UD_SEND_ONLY_WITH_IMMEDIATE: u8 = 0x65;
    /// Congestion Notification Packet (Annex A17.9.3).
    pub const CNP: u8 = 0x81;
    /// Default BTH opcode of draft-zz-scone-rate-advice-rocev2 RATE_ADVICE.
    pub const RATE_ADVICE_DEFAULT: u8 = 0x1D;
}

/// Base Transport Header; every bit is kept, reserved ones included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bth {
    pub opcode: u8,
    pub solicited_event: bool,
    pub mig_req: bool,
    /// Pad count (2 bits): pad bytes before the ICRC.
    pub pad_count: u8,
    /// Transport header version (4 bits).
    pub tver: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    /// Long-haul CNP Extension Present bit (MSB of the reserved six bits).
    pub e_bit: bool,
    /// The remaining five reserved bits of byte 4.
    pub reserved5: u8,
    /// Destination QP (24 bits).
    pub dest_qp: u32,
    pub ack_req: bool,
    /// Reserved seven bits of byte 8.
    pub reserved7: u8,
    /// Packet sequence number (24 bits).
    pub psn: u32,
}

impl Bth {
    /// A BTH with P_Key 0xFFFF and every flag clear.
    pub fn new(opcode: u8, dest_qp: u32, psn: u32) -> Self {
        Bth {
            opcode,
            solicited_event: false,
            mig_req: false,
            pad_count: 0,
            tver: 0,
            pkey: DEFAULT_PKEY,
            fecn: false,
            becn: false,
            e_bit: false,
            reserved5: 0,
            dest_qp: dest_qp & 0x00FF_FFFF,
            ack_req: false,
            reserved7: 0,
            psn: psn & 0x00FF_FFFF,
        }
    }

    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(buf, Layer::Bth);
        let opcode = c.u8()?;
        let b1 = c.u8()?;
        let pkey = c.u16()?;
        let b4 = c.u8()?;
        let dest_qp = c.u24()?;
        let b8 = c.u8()?;
        let psn = c.u24()?;
        Ok(Bth {
            opcode,
            solicited_event: b1 & 0x80 != 0,
            mig_req: b1 & 0x40 != 0,
            pad_count: (b1 >> 4) & 3,
            tver: b1 & 0x0F,
            pkey,
            fecn: b4 & 0x80 != 0,
            becn: b4 & 0x40 != 0,
            e_bit: b4 & E_BIT_MASK != 0,
            reserved5: b4 & 0x1F,
            dest_qp,
            ack_req: b8 & 0x80 != 0,
            reserved7: b8 & 0x7F,
            psn,
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.opcode);
        out.push(
            ((self.solicited_event as u8) << 7)
                | ((self.mig_req as u8) << 6)
                | ((self.pad_count & 3) << 4)
                | (self.tver & 0x0F),
        );
        out.extend_from_slice(&self.pkey.to_be_bytes());
        out.push(
            ((self.fecn as u8) << 7)
                | ((self.becn as u8) << 6)
                | ((self.e_bit as u8) << 5)
                | (self.reserved5 & 0x1F),
        );
        put_u24(out, self.dest_qp);
        out.push(((self.ack_req as u8) << 7) | (self.reserved7 & 0x7F));
        put_u24(out, self.psn);
    }

    pub fn to_bytes(&self) -> [u8; BTH_LEN] {
        let mut v = Vec::with_capacity(BTH_LEN);
        self.write(&mut v);
        let mut a = [0u8; BTH_LEN];
        a.copy_from_slice(&v);
        a
    }
}
