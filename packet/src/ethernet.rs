//! Ethernet II header with zero or more 802.1Q / 802.1ad tags (IEEE 802.1Q
//! section 9).

use crate::error::{Layer, ParseError};
use crate::wire::Cursor;

/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// EtherType of IPv6.
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
/// EtherType of ARP.
pub const ETHERTYPE_ARP: u16 = 0x0806;
/// TPID of a customer 802.1Q tag.
pub const TPID_8021Q: u16 = 0x8100;
/// TPID of a service (802.1ad, Q-in-Q) tag.
pub const TPID_8021AD: u16 = 0x88A8;
/// Pre-standard Q-in-Q TPID still used by some switches.
pub const TPID_QINQ_LEGACY: u16 = 0x9100;
/// Minimum Ethernet frame length without the FCS; shorter frames are padded.
pub const MIN_FRAME_LEN: usize = 60;
/// Length of an untagged Ethernet II header.
pub const HEADER_LEN: usize = 14;

/// A MAC address.
pub type MacAddr = [u8; 6];

/// One VLAN tag (TPID, PCP, DEI, VID).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VlanTag {
    /// Tag protocol identifier: 0x8100, 0x88A8 or 0x9100.
    pub tpid: u16,
    /// Priority code point (3 bits).
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier (12 bits).
    pub vid: u16,
}

impl VlanTag {
    /// An 802.1Q (TPID 0x8100) tag with priority 0.
    pub fn new(vid: u16) -> Self {
        VlanTag {
            tpid: TPID_8021Q,
            pcp: 0,
            dei: false,
            vid: vid & 0x0FFF,
        }
    }

    /// The 16-bit tag control information.
    pub fn tci(&self) -> u16 {
        ((self.pcp as u16 & 7) << 13) | ((self.dei as u16) << 12) | (self.vid & 0x0FFF)
    }
}

/// Whether `ethertype` is a VLAN TPID this parser follows.
pub fn is_vlan_tpid(ethertype: u16) -> bool {
    matches!(ethertype, TPID_8021Q | TPID_8021AD | TPID_QINQ_LEGACY)
}

/// Ethernet II header; `vlans` lists the tags outermost first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EthernetHeader {
    pub dst: MacAddr,
    pub src: MacAddr,
    pub vlans: Vec<VlanTag>,
    /// EtherType after the last tag.
    pub ethertype: u16,
}

impl EthernetHeader {
    /// Header length in bytes (14 + 4 per tag).
    pub fn len(&self) -> usize {
        HEADER_LEN + 4 * self.vlans.len()
    }

    /// Never empty; present for clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Parses the header; returns it and its length.
    pub fn parse(buf: &[u8]) -> Result<(Self, usize), ParseError> {
        let mut c = Cursor::new(buf, Layer::Ethernet);
        let dst = c.array()?;
        let src = c.array()?;
        let mut ethertype = c.u16()?;
        let mut vlans = Vec::new();
        while is_vlan_tpid(ethertype) {
            c.set_layer(Layer::Vlan);
            let tci = c.u16()?;
            let next = c.u16()?;
            vlans.push(VlanTag {
                tpid: ethertype,
                pcp: (tci >> 13) as u8,
                dei: tci & 0x1000 != 0,
                vid: tci & 0x0FFF,
            });
            ethertype = next;
        }
        let len = c.position();
        Ok((
            EthernetHeader {
                dst,
                src,
                vlans,
                ethertype,
            },
            len,
        ))
    }

    /// Appends the header to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.dst);
        out.extend_from_slice(&self.src);
        for tag in &self.vlans {
            out.extend_from_slice(&tag.tpid.to_be_bytes());
            out.extend_from_slice(&tag.tci().to_be_bytes());
        }
        out.extend_from_slice(&self.ethertype.to_be_bytes());
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write(&mut v);
        v
    }
}
