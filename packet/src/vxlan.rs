//! VXLAN (RFC 7348 section 5): an 8-byte header after UDP port 4789, then
//! the inner Ethernet frame. Used by the FCN ingress PE's tunnel
//! (draft-he-fcn-in-wan section 4.1, FCN-02), with an outer IPv6 header whose
//! flow label identifies the RoCEv2 flow.
//!
//! ```text
//! +-+-+-+-+-+-+-+-+-----------------------------------------------+
//! |R|R|R|R|I|R|R|R|               Reserved                        |
//! +-+-+-+-+-+-+-+-+-------------------------------+---------------+
//! |           VXLAN Network Identifier (VNI)      |   Reserved    |
//! +-----------------------------------------------+---------------+
//! ```

use crate::checksum::IPPROTO_UDP;
use crate::envelope::Envelope;
use crate::error::{Layer, ParseError};
use crate::frame::{Frame, UdpChecksum, L4};
use crate::udp::{UdpDatagram, VXLAN_PORT};
use crate::wire::{put_u24, Cursor};

/// Length of the VXLAN header.
pub const HEADER_LEN: usize = 8;
/// The I flag: the VNI is valid.
pub const FLAG_VNI_VALID: u8 = 0x08;

/// VXLAN header (reserved fields are zero when written and ignored when read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VxlanHeader {
    pub flags: u8,
    /// 24 bits.
    pub vni: u32,
}

impl VxlanHeader {
    /// I flag set.
    pub fn new(vni: u32) -> Self {
        VxlanHeader {
            flags: FLAG_VNI_VALID,
            vni: vni & 0x00FF_FFFF,
        }
    }

    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(buf, Layer::Vxlan);
        let flags = c.u8()?;
        c.bytes(3)?;
        let vni = c.u24()?;
        c.u8()?;
        Ok(VxlanHeader { flags, vni })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.flags);
        out.extend_from_slice(&[0, 0, 0]);
        put_u24(out, self.vni);
        out.push(0);
    }
}

/// Wraps `inner_frame` (an Ethernet frame without FCS) in outer
/// Ethernet/IP/UDP/VXLAN. The outer IP fields (ECN, flow label, ...) come
/// from `outer`.
pub fn encapsulate(
    outer: &Envelope,
    udp_src_port: u16,
    vni: u32,
    inner_frame: &[u8],
    udp_checksum: UdpChecksum,
) -> Frame {
    let mut payload = Vec::with_capacity(HEADER_LEN + inner_frame.len());
    VxlanHeader::new(vni).write(&mut payload);
    payload.extend_from_slice(inner_frame);
    let udp = UdpDatagram::new(udp_src_port, VXLAN_PORT, payload);
    let mut f = outer.frame(IPPROTO_UDP, L4::Udp(udp));
    f.finalize(udp_checksum);
    f
}

/// The VXLAN header and inner frame of a UDP-4789 frame.
pub fn decapsulate(frame: &Frame) -> Result<(VxlanHeader, Vec<u8>), ParseError> {
    let u = frame.udp_to_port(VXLAN_PORT, Layer::Vxlan)?;
    let h = VxlanHeader::parse(&u.payload)?;
    Ok((h, u.payload[HEADER_LEN..].to_vec()))
}
