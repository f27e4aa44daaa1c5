//! UDP datagram (RFC 768).

use crate::error::{Layer, ParseError};
use crate::wire::Cursor;

/// Length of the UDP header.
pub const HEADER_LEN: usize = 8;
/// RoCEv2 destination port (IBTA Annex A17).
pub const ROCEV2_PORT: u16 = 4791;
/// VXLAN destination port (RFC 7348).
pub const VXLAN_PORT: u16 = 4789;

/// A UDP datagram. The length field is derived from `payload` when written
/// and checked when parsed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UdpDatagram {
    pub src_port: u16,
    pub dst_port: u16,
    /// Checksum as carried (0: none, allowed for IPv4 and by RoCEv2).
    pub checksum: u16,
    pub payload: Vec<u8>,
}

impl UdpDatagram {
    pub fn new(src_port: u16, dst_port: u16, payload: Vec<u8>) -> Self {
        UdpDatagram {
            src_port,
            dst_port,
            checksum: 0,
            payload,
        }
    }

    /// Length on the wire (header + payload).
    pub fn len(&self) -> usize {
        HEADER_LEN + self.payload.len()
    }

    /// Never empty; present for clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Parses a datagram from the IP payload `buf`. The UDP length must be at
    /// least 8 and fit in `buf`; bytes after it are ignored.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(buf, Layer::Udp);
        let src_port = c.u16()?;
        let dst_port = c.u16()?;
        let length = c.u16()? as usize;
        let checksum = c.u16()?;
        if length < HEADER_LEN || length > buf.len() {
            return Err(ParseError::BadLength {
                layer: Layer::Udp,
                field: "length",
                value: length,
                available: buf.len(),
            });
        }
        Ok(UdpDatagram {
            src_port,
            dst_port,
            checksum,
            payload: buf[HEADER_LEN..length].to_vec(),
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.src_port.to_be_bytes());
        out.extend_from_slice(&self.dst_port.to_be_bytes());
        out.extend_from_slice(&(self.len().min(u16::MAX as usize) as u16).to_be_bytes());
        out.extend_from_slice(&self.checksum.to_be_bytes());
        out.extend_from_slice(&self.payload);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write(&mut v);
        v
    }
}
