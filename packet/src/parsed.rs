//! What the hardware header parser extracts from a frame, and the reference
//! definition of how it classifies frames.
//!
//! [`classify`] is the behavioural specification of `hdl`'s `HeaderParser`: the
//! RTL is compared with it frame for frame. It deliberately parses less than
//! the full packet parsers of this crate (no IPv6 extension headers, one 802.1Q
//! tag), because the hardware only looks at the first 128 bytes of a frame.
//!
//! Rules, in order (`L` = frame length in bytes, without FCS):
//! 1. `L < 14`: malformed (runt).
//! 2. EtherType 0x8100: one 802.1Q tag; `L < 18` is malformed; the inner
//!    EtherType follows the tag. Any other EtherType than 0x0800/0x86DD: not RoCE.
//! 3. IPv4: fewer than 20 header bytes present, version != 4, IHL < 5,
//!    total length < IHL*4 or past the end of the frame: malformed.
//!    Protocol != 17 or a fragment (MF set or offset != 0): not RoCE.
//! 4. IPv6: fewer than 40 bytes present, version != 6, or payload length past
//!    the end of the frame: malformed. Next header != 17 (this includes every
//!    extension header): not RoCE.
//! 5. UDP: fewer than 8 bytes present: malformed. Destination port != 4791:
//!    not RoCE. For port 4791, a UDP length below 8 + 12 (no room for a BTH) or
//!    past the end of the frame, or fewer than 12 BTH bytes present: malformed.
//! 6. Otherwise RoCEv2: the BTH fields are extracted.
//!
//! Addresses are kept IPv6-sized; IPv4 addresses are IPv4-mapped
//! (`::ffff:a.b.c.d`), the key format of the flow table.

/// RoCEv2 UDP destination port.
pub const ROCEV2_UDP_PORT: u16 = 4791;
/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// EtherType of IPv6.
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
/// EtherType (TPID) of an 802.1Q tag.
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// Bytes of a frame the hardware parser can see.
pub const PARSER_WINDOW_BYTES: usize = 128;

/// How the parser classified a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameClass {
    /// RoCEv2 over UDP 4791 with a complete BTH.
    Roce,
    /// Well-formed as far as the parser looked, but not RoCEv2.
    NonRoce,
    /// Truncated or inconsistent headers.
    Malformed,
}

/// Fields the header parser extracts. Only `class` is defined for every frame;
/// the other fields are defined when `class` is [`FrameClass::Roce`] (the
/// hardware leaves them unspecified otherwise, and comparisons ignore them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParsedHeader {
    pub class: FrameClass,
    /// 802.1Q VLAN ID when the frame carries a tag.
    pub vlan_id: Option<u16>,
    pub is_ipv6: bool,
    /// Source address, IPv4-mapped for IPv4.
    pub src_ip: [u8; 16],
    /// Destination address, IPv4-mapped for IPv4.
    pub dst_ip: [u8; 16],
    /// ECN field (2 bits) of the IP header.
    pub ecn: u8,
    /// IPv6 flow label (0 for IPv4).
    pub flow_label: u32,
    pub udp_src_port: u16,
    /// BTH opcode.
    pub opcode: u8,
    /// BTH partition key.
    pub pkey: u16,
    /// BTH destination QP (24 bits).
    pub dest_qp: u32,
    /// BTH packet sequence number (24 bits).
    pub psn: u32,
}

impl ParsedHeader {
    fn empty(class: FrameClass) -> Self {
        ParsedHeader {
            class,
            vlan_id: None,
            is_ipv6: false,
            src_ip: [0; 16],
            dst_ip: [0; 16],
            ecn: 0,
            flow_label: 0,
            udp_src_port: 0,
            opcode: 0,
            pkey: 0,
            dest_qp: 0,
            psn: 0,
        }
    }
}

/// IPv4-mapped IPv6 form of an IPv4 address.
pub fn ipv4_mapped(v4: [u8; 4]) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[10] = 0xff;
    a[11] = 0xff;
    a[12..].copy_from_slice(&v4);
    a
}

fn be16(f: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([f[at], f[at + 1]])
}

fn be24(f: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([0, f[at], f[at + 1], f[at + 2]])
}

/// Classifies a frame exactly as the hardware header parser does.
pub fn classify(frame: &[u8]) -> ParsedHeader {
    use FrameClass::*;
    let len = frame.len();
    let mut h = ParsedHeader::empty(Malformed);
    if len < 14 {
        return h;
    }
    let mut ethertype = be16(frame, 12);
    let mut l3 = 14;
    if ethertype == ETHERTYPE_VLAN {
        if len < 18 {
            return h;
        }
        h.vlan_id = Some(be16(frame, 14) & 0x0fff);
        ethertype = be16(frame, 16);
        l3 = 18;
    }
    let udp;
    match ethertype {
        ETHERTYPE_IPV4 => {
            if len < l3 + 20 {
                return h;
            }
            let version = frame[l3] >> 4;
            let ihl = (frame[l3] & 0x0f) as usize;
            let total_len = be16(frame, l3 + 2) as usize;
            if version != 4 || ihl < 5 || total_len < ihl * 4 || l3 + total_len > len {
                return h;
            }
            h.ecn = frame[l3 + 1] & 3;
            h.src_ip = ipv4_mapped(frame[l3 + 12..l3 + 16].try_into().unwrap());
            h.dst_ip = ipv4_mapped(frame[l3 + 16..l3 + 20].try_into().unwrap());
            let flags_frag = be16(frame, l3 + 6);
            let fragment = flags_frag & 0x2000 != 0 || flags_frag & 0x1fff != 0;
            if frame[l3 + 9] != 17 || fragment {
                h.class = NonRoce;
                return h;
            }
            udp = l3 + ihl * 4;
        }
        ETHERTYPE_IPV6 => {
            if len < l3 + 40 {
                return h;
            }
            let version = frame[l3] >> 4;
            let payload_len = be16(frame, l3 + 4) as usize;
            if version != 6 || l3 + 40 + payload_len > len {
                return h;
            }
            h.is_ipv6 = true;
            let vtcfl = u32::from_be_bytes(frame[l3..l3 + 4].try_into().unwrap());
            h.ecn = ((vtcfl >> 20) & 3) as u8;
            h.flow_label = vtcfl & 0x000f_ffff;
            h.src_ip.copy_from_slice(&frame[l3 + 8..l3 + 24]);
            h.dst_ip.copy_from_slice(&frame[l3 + 24..l3 + 40]);
            if frame[l3 + 6] != 17 {
                h.class = NonRoce;
                return h;
            }
            udp = l3 + 40;
        }
        _ => {
            h.class = NonRoce;
            return h;
        }
    }
    if len < udp + 8 {
        return h;
    }
    h.udp_src_port = be16(frame, udp);
    if be16(frame, udp + 2) != ROCEV2_UDP_PORT {
        h.class = NonRoce;
        return h;
    }
    let udp_len = be16(frame, udp + 4) as usize;
    if udp_len < 8 + 12 || udp + udp_len > len || len < udp + 8 + 12 {
        return h;
    }
    let bth = udp + 8;
    h.opcode = frame[bth];
    h.pkey = be16(frame, bth + 2);
    h.dest_qp = be24(frame, bth + 5);
    h.psn = be24(frame, bth + 9);
    h.class = Roce;
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_runt_is_malformed() {
        assert_eq!(classify(&[0u8; 13]).class, FrameClass::Malformed);
    }

    #[test]
    fn hw_01_non_ip_is_not_roce() {
        let mut f = vec![0u8; 60];
        f[12] = 0x08;
        f[13] = 0x06; // ARP
        assert_eq!(classify(&f).class, FrameClass::NonRoce);
    }
}
