//! The RoCEv2 transport packet carried in UDP port 4791 (IBTA Annex A17):
//! BTH, the extended transport headers its opcode implies (IBTA Vol. 1
//! section 9.3), payload, pad bytes and ICRC; and [`RoceFrameBuilder`], which
//! makes whole RoCEv2 frames with valid checksums and ICRC.

use crate::bth::{opcode, Bth, BTH_LEN};
use crate::checksum::IPPROTO_UDP;
use crate::deth::{Deth, DETH_LEN};
use crate::ecn::Ecn;
use crate::envelope::{Envelope, IpPair};
use crate::error::{Layer, ParseError};
use crate::ethernet::{MacAddr, VlanTag};
use crate::frame::{Frame, UdpChecksum, L4};
use crate::icrc::ICRC_LEN;
use crate::udp::{UdpDatagram, ROCEV2_PORT};
use crate::wire::{pad4, put_u24, Cursor};

/// Default UDP source port of generated RoCEv2 frames (RNICs pick one per QP
/// from 0xC000..=0xFFFF).
pub const DEFAULT_UDP_SRC_PORT: u16 = 0xC000;

/// RDMA Extended Transport Header (16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reth {
    pub virtual_address: u64,
    pub rkey: u32,
    pub dma_length: u32,
}

/// ACK Extended Transport Header (4 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Aeth {
    /// Syndrome: 0x00..=0x1F ACK with credit count, 0x20.. RNR NAK, 0x60.. NAK.
    pub syndrome: u8,
    /// Message sequence number (24 bits).
    pub msn: u32,
}

/// Atomic Extended Transport Header (28 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomicEth {
    pub virtual_address: u64,
    pub rkey: u32,
    pub swap_or_add: u64,
    pub compare: u64,
}

/// The extended transport headers between the BTH and the payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExtHeaders {
    pub deth: Option<Deth>,
    pub reth: Option<Reth>,
    pub atomic_eth: Option<AtomicEth>,
    pub aeth: Option<Aeth>,
    /// AtomicAckETH: original remote data.
    pub atomic_ack: Option<u64>,
    /// ImmDt: immediate data.
    pub immediate: Option<u32>,
    /// IETH: R_Key to invalidate.
    pub invalidate_rkey: Option<u32>,
}

/// Which extended transport headers an opcode carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HeaderLayout {
    pub deth: bool,
    pub reth: bool,
    pub atomic_eth: bool,
    pub aeth: bool,
    pub atomic_ack: bool,
    pub immediate: bool,
    pub invalidate_rkey: bool,
}

impl HeaderLayout {
    /// The headers of `op` for RC, UC and UD opcodes (IBTA Vol. 1 table 38).
    /// CNP, RD, XRC, reserved and vendor opcodes (and 0x1D, which this
    /// project also uses for Rate Advice) give no extended headers.
    pub fn of(op: u8) -> Self {
        let mut l = HeaderLayout::default();
        let transport = op & 0xE0;
        let low = op & 0x1F;
        match transport {
            opcode::TRANSPORT_RC | opcode::TRANSPORT_UC => {
                if transport == opcode::TRANSPORT_UC && low > 0x0B {
                    return l;
                }
                match low {
                    0x03 | 0x05 | 0x09 => l.immediate = true,
                    0x06 | 0x0A | 0x0C => l.reth = true,
                    0x0B => {
                        l.reth = true;
                        l.immediate = true;
                    }
                    0x0D | 0x0F | 0x10 | 0x11 => l.aeth = true,
                    0x12 => {
                        l.aeth = true;
                        l.atomic_ack = true;
                    }
                    0x13 | 0x14 => l.atomic_eth = true,
                    0x16 | 0x17 => l.invalidate_rkey = true,
                    _ => {}
                }
            }
            opcode::TRANSPORT_UD => match op {
                opcode::UD_SEND_ONLY => l.deth = true,
                opcode::UD_SEND_ONLY_WITH_IMMEDIATE => {
                    l.deth = true;
                    l.immediate = true;
                }
                _ => {}
            },
            _ => {}
        }
        l
    }
}

impl ExtHeaders {
    fn parse(c: &mut Cursor<'_>, layout: HeaderLayout) -> Result<Self, ParseError> {
        let mut e = ExtHeaders::default();
        if layout.deth {
            c.set_layer(Layer::Deth);
            e.deth = Some(Deth::parse(c.bytes(DETH_LEN)?)?);
        }
        if layout.reth {
            c.set_layer(Layer::Reth);
            e.reth = Some(Reth {
                virtual_address: c.u64()?,
                rkey: c.u32()?,
                dma_length: c.u32()?,
            });
        }
        if layout.atomic_eth {
            c.set_layer(Layer::AtomicEth);
            e.atomic_eth = Some(AtomicEth {
                virtual_address: c.u64()?,
                rkey: c.u32()?,
                swap_or_add: c.u64()?,
                compare: c.u64()?,
            });
        }
        if layout.aeth {
            c.set_layer(Layer::Aeth);
            e.aeth = Some(Aeth {
                syndrome: c.u8()?,
                msn: c.u24()?,
            });
        }
        if layout.atomic_ack {
            c.set_layer(Layer::AtomicAckEth);
            e.atomic_ack = Some(c.u64()?);
        }
        if layout.immediate {
            c.set_layer(Layer::ImmDt);
            e.immediate = Some(c.u32()?);
        }
        if layout.invalidate_rkey {
            c.set_layer(Layer::Ieth);
            e.invalidate_rkey = Some(c.u32()?);
        }
        Ok(e)
    }

    fn write(&self, out: &mut Vec<u8>) {
        if let Some(d) = self.deth {
            d.write(out);
        }
        if let Some(r) = self.reth {
            out.extend_from_slice(&r.virtual_address.to_be_bytes());
            out.extend_from_slice(&r.rkey.to_be_bytes());
            out.extend_from_slice(&r.dma_length.to_be_bytes());
        }
        if let Some(a) = self.atomic_eth {
            out.extend_from_slice(&a.virtual_address.to_be_bytes());
            out.extend_from_slice(&a.rkey.to_be_bytes());
            out.extend_from_slice(&a.swap_or_add.to_be_bytes());
            out.extend_from_slice(&a.compare.to_be_bytes());
        }
        if let Some(a) = self.aeth {
            out.push(a.syndrome);
            put_u24(out, a.msn);
        }
        if let Some(v) = self.atomic_ack {
            out.extend_from_slice(&v.to_be_bytes());
        }
        if let Some(v) = self.immediate {
            out.extend_from_slice(&v.to_be_bytes());
        }
        if let Some(v) = self.invalidate_rkey {
            out.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// Bytes these headers take.
    pub fn len(&self) -> usize {
        let mut n = 0;
        n += self.deth.map_or(0, |_| DETH_LEN);
        n += self.reth.map_or(0, |_| 16);
        n += self.atomic_eth.map_or(0, |_| 28);
        n += self.aeth.map_or(0, |_| 4);
        n += self.atomic_ack.map_or(0, |_| 8);
        n += self.immediate.map_or(0, |_| 4);
        n += self.invalidate_rkey.map_or(0, |_| 4);
        n
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A RoCEv2 transport packet: the UDP payload of a port-4791 datagram.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RocePacket {
    pub bth: Bth,
    pub ext: ExtHeaders,
    /// Payload without the `bth.pad_count` pad bytes.
    pub payload: Vec<u8>,
    /// ICRC as carried (the wire bytes read least significant first).
    pub icrc: u32,
}

impl RocePacket {
    /// Parses a UDP payload, taking the extended headers from the opcode
    /// (see [`HeaderLayout::of`]).
    pub fn parse(udp_payload: &[u8]) -> Result<Self, ParseError> {
        let op = udp_payload.first().copied().unwrap_or(0);
        Self::parse_with_layout(udp_payload, HeaderLayout::of(op))
    }

    /// Parses a UDP payload with an explicit header layout.
    pub fn parse_with_layout(udp_payload: &[u8], layout: HeaderLayout) -> Result<Self, ParseError> {
        let mut c = Cursor::new(udp_payload, Layer::Bth);
        let bth = Bth::parse(c.bytes(BTH_LEN)?)?;
        let ext = ExtHeaders::parse(&mut c, layout)?;
        c.set_layer(Layer::Icrc);
        let rest = c.rest();
        if rest.len() < ICRC_LEN {
            return Err(ParseError::truncated(
                Layer::Icrc,
                udp_payload.len() - rest.len() + ICRC_LEN,
                udp_payload.len(),
            ));
        }
        let (body, icrc) = rest.split_at(rest.len() - ICRC_LEN);
        let pad = bth.pad_count as usize;
        if pad > body.len() {
            return Err(ParseError::BadLength {
                layer: Layer::RocePayload,
                field: "pad count",
                value: pad,
                available: body.len(),
            });
        }
        Ok(RocePacket {
            bth,
            ext,
            payload: body[..body.len() - pad].to_vec(),
            icrc: u32::from_le_bytes([icrc[0], icrc[1], icrc[2], icrc[3]]),
        })
    }

    /// Length on the wire (UDP payload length).
    pub fn len(&self) -> usize {
        BTH_LEN + self.ext.len() + self.payload.len() + self.bth.pad_count as usize + ICRC_LEN
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        self.bth.write(out);
        self.ext.write(out);
        out.extend_from_slice(&self.payload);
        out.resize(out.len() + self.bth.pad_count as usize, 0);
        out.extend_from_slice(&self.icrc.to_le_bytes());
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write(&mut v);
        v
    }

    /// A complete frame carrying this packet in `env`, with the BTH pad count
    /// set from the payload length, ICRC, IPv4 checksum, the UDP checksum by
    /// `udp_checksum`, and padding to 60 bytes.
    pub fn to_frame(&self, env: &Envelope, udp_src_port: u16, udp_checksum: UdpChecksum) -> Frame {
        let mut p = self.clone();
        p.bth.pad_count = pad4(p.payload.len()) as u8;
        let udp = UdpDatagram::new(udp_src_port, ROCEV2_PORT, p.to_bytes());
        let mut frame = env.frame(IPPROTO_UDP, L4::Udp(udp));
        frame.finalize(udp_checksum);
        frame
    }
}

/// Builds RoCEv2 frames for tests and traffic generation:
///
/// ```
/// use cngw_packet::{RoceFrameBuilder, Ecn, bth::opcode};
/// let frame = RoceFrameBuilder::ipv4([10, 0, 0, 1].into(), [10, 0, 0, 2].into())
///     .vlan(100)
///     .ecn(Ecn::Ect0)
///     .opcode(opcode::RC_SEND_ONLY)
///     .dest_qp(0x12)
///     .psn(7)
///     .payload_len(64)
///     .build();
/// cngw_packet::icrc::verify_frame(&frame).unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoceFrameBuilder {
    pub envelope: Envelope,
    pub udp_src_port: u16,
    pub udp_checksum: UdpChecksum,
    pub packet: RocePacket,
}

impl RoceFrameBuilder {
    /// RC SEND_ONLY to QP 0, PSN 0, P_Key 0xFFFF, empty payload, UDP
    /// source port 0xC000, UDP checksum 0, in `envelope` as given.
    pub fn new(envelope: Envelope) -> Self {
        RoceFrameBuilder {
            envelope,
            udp_src_port: DEFAULT_UDP_SRC_PORT,
            udp_checksum: UdpChecksum::Zero,
            packet: RocePacket {
                bth: Bth::new(opcode::RC_SEND_ONLY, 0, 0),
                ext: ExtHeaders::default(),
                payload: Vec::new(),
                icrc: 0,
            },
        }
    }

    /// IPv4 with the [`Envelope`] defaults, but ECT(0) as RoCEv2 senders set.
    pub fn ipv4(src: std::net::Ipv4Addr, dst: std::net::Ipv4Addr) -> Self {
        Self::new(Envelope::new(IpPair::V4 { src, dst }).with_ecn(Ecn::Ect0))
    }

    /// IPv6 with the [`Envelope`] defaults, but ECT(0) as RoCEv2 senders set.
    pub fn ipv6(src: std::net::Ipv6Addr, dst: std::net::Ipv6Addr) -> Self {
        Self::new(Envelope::new(IpPair::V6 { src, dst }).with_ecn(Ecn::Ect0))
    }

    pub fn macs(mut self, src: MacAddr, dst: MacAddr) -> Self {
        self.envelope.src_mac = src;
        self.envelope.dst_mac = dst;
        self
    }

    /// Adds an 802.1Q tag (inside any already present).
    pub fn vlan(mut self, vid: u16) -> Self {
        self.envelope.vlans.push(VlanTag::new(vid));
        self
    }

    pub fn ecn(mut self, ecn: Ecn) -> Self {
        self.envelope.ecn = ecn;
        self
    }

    pub fn dscp(mut self, dscp: u8) -> Self {
        self.envelope.dscp = dscp & 0x3F;
        self
    }

    pub fn ttl(mut self, ttl: u8) -> Self {
        self.envelope.ttl = ttl;
        self
    }

    pub fn flow_label(mut self, flow_label: u32) -> Self {
        self.envelope.flow_label = flow_label & 0x000F_FFFF;
        self
    }

    pub fn udp_src_port(mut self, port: u16) -> Self {
        self.udp_src_port = port;
        self
    }

    pub fn udp_checksum(mut self, policy: UdpChecksum) -> Self {
        self.udp_checksum = policy;
        self
    }

    /// Sets the opcode and the extended headers it implies (zero-valued;
    /// override with [`Self::reth`], [`Self::aeth`], ...).
    pub fn opcode(mut self, op: u8) -> Self {
        self.packet.bth.opcode = op;
        let l = HeaderLayout::of(op);
        let e = &mut self.packet.ext;
        e.deth = l
            .deth
            .then_some(e.deth.unwrap_or(Deth { qkey: 0, src_qp: 0 }));
        e.reth = l.reth.then_some(e.reth.unwrap_or(Reth {
            virtual_address: 0,
            rkey: 0,
            dma_length: 0,
        }));
        e.atomic_eth = l.atomic_eth.then_some(e.atomic_eth.unwrap_or(AtomicEth {
            virtual_address: 0,
            rkey: 0,
            swap_or_add: 0,
            compare: 0,
        }));
        e.aeth = l.aeth.then_some(e.aeth.unwrap_or(Aeth {
            syndrome: 0,
            msn: 0,
        }));
        e.atomic_ack = l.atomic_ack.then_some(e.atomic_ack.unwrap_or(0));
        e.immediate = l.immediate.then_some(e.immediate.unwrap_or(0));
        e.invalidate_rkey = l.invalidate_rkey.then_some(e.invalidate_rkey.unwrap_or(0));
        self
    }

    pub fn dest_qp(mut self, qp: u32) -> Self {
        self.packet.bth.dest_qp = qp & 0x00FF_FFFF;
        self
    }

    pub fn psn(mut self, psn: u32) -> Self {
        self.packet.bth.psn = psn & 0x00FF_FFFF;
        self
    }

    pub fn pkey(mut self, pkey: u16) -> Self {
        self.packet.bth.pkey = pkey;
        self
    }

    pub fn ack_req(mut self, ack_req: bool) -> Self {
        self.packet.bth.ack_req = ack_req;
        self
    }

    pub fn solicited_event(mut self, se: bool) -> Self {
        self.packet.bth.solicited_event = se;
        self
    }

    pub fn fecn(mut self, fecn: bool) -> Self {
        self.packet.bth.fecn = fecn;
        self
    }

    pub fn becn(mut self, becn: bool) -> Self {
        self.packet.bth.becn = becn;
        self
    }

    /// Replaces the whole BTH (the pad count is still set from the payload).
    pub fn bth(mut self, bth: Bth) -> Self {
        self.packet.bth = bth;
        self
    }

    pub fn deth(mut self, deth: Deth) -> Self {
        self.packet.ext.deth = Some(deth);
        self
    }

    pub fn reth(mut self, reth: Reth) -> Self {
        self.packet.ext.reth = Some(reth);
        self
    }

    pub fn aeth(mut self, aeth: Aeth) -> Self {
        self.packet.ext.aeth = Some(aeth);
        self
    }

    pub fn immediate(mut self, imm: u32) -> Self {
        self.packet.ext.immediate = Some(imm);
        self
    }

    /// Replaces the extended headers.
    pub fn ext_headers(mut self, ext: ExtHeaders) -> Self {
        self.packet.ext = ext;
        self
    }

    pub fn payload(mut self, payload: Vec<u8>) -> Self {
        self.packet.payload = payload;
        self
    }

    /// A payload of `len` bytes counting up from 0 (mod 256).
    pub fn payload_len(mut self, len: usize) -> Self {
        self.packet.payload = (0..len).map(|i| i as u8).collect();
        self
    }

    /// The frame, finalized (pad count, ICRC, checksums, 60-byte minimum).
    pub fn build_frame(&self) -> Frame {
        self.packet
            .to_frame(&self.envelope, self.udp_src_port, self.udp_checksum)
    }

    /// The frame's bytes (without FCS).
    pub fn build(&self) -> Vec<u8> {
        self.build_frame().to_bytes()
    }
}
