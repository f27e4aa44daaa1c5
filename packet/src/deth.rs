//! Datagram Extended Transport Header (IBTA Vol. 1 section 9.3.3): carried by
//! UD packets such as the CM MADs on QP1.
//!
//! ```text
//! +---------------------------------------------------------------+
//! |                            Q_Key                              |
//! +---------------+-----------------------------------------------+
//! |   Reserved    |                Source QP                      |
//! +---------------+-----------------------------------------------+
//! ```

use crate::error::{Layer, ParseError};
use crate::wire::{put_u24, Cursor};

/// Length of the DETH.
pub const DETH_LEN: usize = 8;
/// Well-known Q_Key of the General Services Interface (QP1) (IBTA 13.5.4.1).
pub const GSI_QKEY: u32 = 0x8001_0000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deth {
    pub qkey: u32,
    /// Source QP (24 bits).
    pub src_qp: u32,
}

impl Deth {
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(buf, Layer::Deth);
        let qkey = c.u32()?;
        let _reserved = c.u8()?;
        let src_qp = c.u24()?;
        Ok(Deth { qkey, src_qp })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.qkey.to_be_bytes());
        out.push(0);
        put_u24(out, self.src_qp);
    }
}
