//! ICMPv6 message (RFC 4443 section 2.1): type, code, checksum and body.

use crate::error::{Layer, ParseError};
use crate::wire::Cursor;

/// Length of the ICMPv6 header (type, code, checksum).
pub const HEADER_LEN: usize = 4;

/// An ICMPv6 message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Icmpv6Message {
    pub icmp_type: u8,
    pub code: u8,
    /// Checksum as carried.
    pub checksum: u16,
    /// Everything after the checksum.
    pub body: Vec<u8>,
}

impl Icmpv6Message {
    pub fn new(icmp_type: u8, code: u8, body: Vec<u8>) -> Self {
        Icmpv6Message {
            icmp_type,
            code,
            checksum: 0,
            body,
        }
    }

    pub fn len(&self) -> usize {
        HEADER_LEN + self.body.len()
    }

    /// Never empty; present for clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Parses the whole IPv6 upper-layer payload `buf` as one message.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(buf, Layer::Icmpv6);
        Ok(Icmpv6Message {
            icmp_type: c.u8()?,
            code: c.u8()?,
            checksum: c.u16()?,
            body: c.rest().to_vec(),
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.icmp_type);
        out.push(self.code);
        out.extend_from_slice(&self.checksum.to_be_bytes());
        out.extend_from_slice(&self.body);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write(&mut v);
        v
    }
}
