//! `CmSnoop`: recognises RDMA CM REQ and REP MADs on QP1 in a 512-bit
//! AXI4-Stream and reports the fields source-QP learning needs (LH-01).
//!
//! ```text
//!                  +------------------------------+
//!  tdata, tlast -->| beat 0: UDP offset, IP length|
//!  tvalid,      -->|   and bytes 32..63 kept      |
//!  tready          | beat 1: kept                 |--> event.valid (REQ or REP, one clock)
//!                  | beat 2: MAD fields extracted |--> event.is_rep, comm_id, qpn
//!                  | last beat: length checks     |--> event.src_ip, dst_ip (from hdr_*)
//!  hdr_*        -->| (the header parser's result) |
//!                  +------------------------------+
//! ```
//! Like the header parser it taps the stream (`tvalid & tready`) and never
//! stalls it. The fields it reads lie in the first 165 bytes of a frame
//! (the REQ's Local QPN at MAD bytes 56..58, behind at most 106 bytes of
//! headers: 802.1Q and IPv4 with 40 bytes of options), so it does not keep
//! three beats: it keeps bytes 34..63 of the first beat and the second beat
//! (752 bits), and extracts every field while the third beat passes. The
//! UDP header starts 34 + 4k bytes into the frame (k = 0..11: 802.1Q and
//! the IP header length move it in steps of four bytes), so each field is
//! a 12-way choice, not a byte shifter.
//!
//! A frame is a CM REQ/REP event exactly when the model's learner
//! (`cngw_model::learning`, `CmMad::from_frame`) decodes one: the parser
//! calls it RoCEv2 with opcode UD SEND_ONLY (0x64) and DestQP 1 (`hdr_*`),
//! its UDP length leaves room for BTH, DETH, the pad bytes, 256 MAD bytes
//! and the ICRC (`udp_len >= 8 + 12 + 8 + pad + 256 + 4`), the UDP
//! datagram fits in the IP packet (the packet crate cuts the UDP payload at
//! the IP length), the MAD's management class is 0x07 and its attribute is
//! REQ (0x0010) or REP (0x0013). Offsets (IBTA Vol. 1 ch. 12,
//! `cngw_packet::cm`): class at MAD byte 1, attribute ID 16..17, Local
//! Communication ID 24..27, REP Remote Communication ID 28..31, REP Local
//! QPN 36..38, REQ Local QPN 56..58.
//!
//! Latency: `event` is valid in the clock the header parser's `hdr.valid`
//! is (one clock after the last beat), combinationally from `hdr_*` and
//! this block's registers. A CM MAD frame has at least 322 bytes (six
//! beats), so events of one input are at least six clocks apart.
//!
//! Resources (block alone, Yosys 0.70 `synth_xilinx -family xcup`): 853
//! register bits in the RTL, of which synthesis keeps 629 flip-flops (the
//! bytes no field offset reaches are dropped), 1.1K LUTs.

use super::cm_event::CmEventSource;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CmSnoop {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The stream watched (after the input skid buffer, like the parser's
    /// `tap`; `tkeep` is not needed: the length checks use the UDP length,
    /// which the parser has checked against the frame).
    pub tdata: Signal<In, Bits<512>>,
    pub tlast: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<In, Bit>,
    /// The header parser's result for the same stream.
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_class: Signal<In, Bits<2>>,
    pub hdr_opcode: Signal<In, Bits<8>>,
    pub hdr_dest_qp: Signal<In, Bits<24>>,
    pub hdr_src_ip: Signal<In, Bits<128>>,
    pub hdr_dst_ip: Signal<In, Bits<128>>,
    /// A CM REQ or REP, in the clock of `hdr_valid`.
    pub event: CmEventSource,
    // Frame state.
    beat_index: DFF<Bits<2>>,
    /// Frame bytes 34..63 (byte 34 in bits 7..0).
    beat0_tail: DFF<Bits<240>>,
    beat1: DFF<Bits<512>>,
    /// (UDP header offset - 34) / 4.
    udp_word: DFF<Bits<4>>,
    /// Bytes of IP payload (IPv4 total length - IHL * 4, IPv6 payload length).
    ip_payload_len: DFF<Bits<17>>,
    // Fields taken while the third beat passes.
    udp_len: DFF<Bits<16>>,
    pad_count: DFF<Bits<2>>,
    cm_class: DFF<Bit>,
    is_req: DFF<Bit>,
    is_rep: DFF<Bit>,
    comm_id: DFF<Bits<32>>,
    qpn: DFF<Bits<24>>,
    /// The frame just ended holds a CM REQ/REP MAD (one clock).
    mad_ok: DFF<Bit>,
    // Combinational.
    transfer: Signal<Local, Bit>,
    ethertype_outer: Signal<Local, Bits<16>>,
    vlan: Signal<Local, Bit>,
    ethertype: Signal<Local, Bits<16>>,
    ihl: Signal<Local, Bits<4>>,
    ipv4_total_len: Signal<Local, Bits<17>>,
    ipv6_payload_len: Signal<Local, Bits<17>>,
    /// (UDP header offset - 34) / 4 of the first beat.
    udp_words: Signal<Local, Bits<4>>,
    /// Frame bytes 34..191 while the third beat passes.
    window: Signal<Local, Bits<1264>>,
    /// Bit position of the UDP header in the window.
    udp_shift: Signal<Local, Bits<11>>,
    udp_len_lanes: Signal<Local, Bits<16>>,
    attribute_lanes: Signal<Local, Bits<16>>,
    rep_qpn_lanes: Signal<Local, Bits<24>>,
    req_qpn_lanes: Signal<Local, Bits<24>>,
    qpn_lanes: Signal<Local, Bits<24>>,
}

impl Logic for CmSnoop {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat_index,
            beat0_tail,
            beat1,
            udp_word,
            ip_payload_len,
            udp_len,
            pad_count,
            cm_class,
            is_req,
            is_rep,
            comm_id,
            qpn,
            mad_ok
        );
        self.transfer.next = self.tvalid.val() & self.tready.val();
        self.mad_ok.d.next = false;

        // First beat: where the UDP header starts and how long the IP payload is.
        self.ethertype_outer.next = (bit_cast::<16, 8>(self.tdata.val().get_bits::<8>(96)) << 8)
            | bit_cast::<16, 8>(self.tdata.val().get_bits::<8>(104));
        self.vlan.next = self.ethertype_outer.val() == 0x8100;
        if self.vlan.val() {
            self.ethertype.next = (bit_cast::<16, 8>(self.tdata.val().get_bits::<8>(128)) << 8)
                | bit_cast::<16, 8>(self.tdata.val().get_bits::<8>(136));
            self.ihl.next = self.tdata.val().get_bits::<4>(144);
            self.ipv4_total_len.next = (bit_cast::<17, 8>(self.tdata.val().get_bits::<8>(160))
                << 8)
                | bit_cast::<17, 8>(self.tdata.val().get_bits::<8>(168));
            self.ipv6_payload_len.next = (bit_cast::<17, 8>(self.tdata.val().get_bits::<8>(176))
                << 8)
                | bit_cast::<17, 8>(self.tdata.val().get_bits::<8>(184));
        } else {
            self.ethertype.next = self.ethertype_outer.val();
            self.ihl.next = self.tdata.val().get_bits::<4>(112);
            self.ipv4_total_len.next = (bit_cast::<17, 8>(self.tdata.val().get_bits::<8>(128))
                << 8)
                | bit_cast::<17, 8>(self.tdata.val().get_bits::<8>(136));
            self.ipv6_payload_len.next = (bit_cast::<17, 8>(self.tdata.val().get_bits::<8>(144))
                << 8)
                | bit_cast::<17, 8>(self.tdata.val().get_bits::<8>(152));
        }
        // The UDP header after 14 bytes of Ethernet, 4 of 802.1Q, and a
        // 40-byte IPv6 or (4 * IHL)-byte IPv4 header: 34 + 4 * udp_words.
        self.udp_words.next = self.ihl.val() - 5;
        if self.ethertype.val() == 0x86dd {
            self.udp_words.next = 5.into();
        }
        if self.vlan.val() {
            self.udp_words.next = self.udp_words.val() + 1;
        }

        // Third beat: bytes 34..191 of the frame; the UDP header starts at
        // bit `udp_shift`, the MAD 28 bytes later (UDP 8, BTH 12, DETH 8).
        self.window.next = bit_cast::<1264, 240>(self.beat0_tail.q.val())
            | (bit_cast::<1264, 512>(self.beat1.q.val()) << 240)
            | (bit_cast::<1264, 512>(self.tdata.val()) << 752);
        self.udp_shift.next = bit_cast::<11, 4>(self.udp_word.q.val()) << 5;
        self.udp_len_lanes.next = self
            .window
            .val()
            .get_bits::<16>(self.udp_shift.val().index() + 32);
        // MAD bytes 16..17: 0x00 in the low lane, 0x10 (REQ) or 0x13 (REP) above.
        self.attribute_lanes.next = self
            .window
            .val()
            .get_bits::<16>(self.udp_shift.val().index() + 352);
        self.rep_qpn_lanes.next = self
            .window
            .val()
            .get_bits::<24>(self.udp_shift.val().index() + 512);
        self.req_qpn_lanes.next = self
            .window
            .val()
            .get_bits::<24>(self.udp_shift.val().index() + 672);
        self.qpn_lanes.next = self.req_qpn_lanes.val();
        if self.attribute_lanes.val() == 0x1300 {
            self.qpn_lanes.next = self.rep_qpn_lanes.val();
        }

        if self.transfer.val() {
            if self.beat_index.q.val() == 0 {
                self.beat0_tail.d.next = self.tdata.val().get_bits::<240>(272);
                self.udp_word.d.next = self.udp_words.val();
                self.ip_payload_len.d.next =
                    self.ipv4_total_len.val() - (bit_cast::<17, 4>(self.ihl.val()) << 2);
                if self.ethertype.val() == 0x86dd {
                    self.ip_payload_len.d.next = self.ipv6_payload_len.val();
                }
            }
            if self.beat_index.q.val() == 1 {
                self.beat1.d.next = self.tdata.val();
            }
            if self.beat_index.q.val() == 2 {
                self.udp_len.d.next =
                    (bit_cast::<16, 8>(self.udp_len_lanes.val().get_bits::<8>(0)) << 8)
                        | bit_cast::<16, 8>(self.udp_len_lanes.val().get_bits::<8>(8));
                // BTH byte 1, bits 5..4.
                self.pad_count.d.next = self
                    .window
                    .val()
                    .get_bits::<2>(self.udp_shift.val().index() + 76);
                self.cm_class.d.next = self
                    .window
                    .val()
                    .get_bits::<8>(self.udp_shift.val().index() + 232)
                    == 0x07;
                self.is_req.d.next = self.attribute_lanes.val() == 0x1000;
                self.is_rep.d.next = self.attribute_lanes.val() == 0x1300;
                // REQ: Local Communication ID (MAD 24); REP: Remote (MAD 28).
                self.comm_id.d.next = self
                    .window
                    .val()
                    .get_bits::<32>(self.udp_shift.val().index() + 416);
                if self.attribute_lanes.val() == 0x1300 {
                    self.comm_id.d.next = self
                        .window
                        .val()
                        .get_bits::<32>(self.udp_shift.val().index() + 448);
                }
                self.qpn.d.next = (bit_cast::<24, 8>(self.qpn_lanes.val().get_bits::<8>(0)) << 16)
                    | (bit_cast::<24, 8>(self.qpn_lanes.val().get_bits::<8>(8)) << 8)
                    | bit_cast::<24, 8>(self.qpn_lanes.val().get_bits::<8>(16));
            }
            if self.tlast.val() {
                self.beat_index.d.next = 0.into();
                self.mad_ok.d.next = (self.beat_index.q.val() == 3)
                    & self.cm_class.q.val()
                    & (self.is_req.q.val() | self.is_rep.q.val())
                    & (bit_cast::<17, 16>(self.udp_len.q.val())
                        >= bit_cast::<17, 2>(self.pad_count.q.val()) + 288)
                    & (bit_cast::<17, 16>(self.udp_len.q.val()) <= self.ip_payload_len.q.val());
            } else if self.beat_index.q.val() != 3 {
                self.beat_index.d.next = self.beat_index.q.val() + 1;
            }
        }

        self.event.valid.next = self.hdr_valid.val()
            & (self.hdr_class.val() == 1)
            & (self.hdr_opcode.val() == 0x64)
            & (self.hdr_dest_qp.val() == 1)
            & self.mad_ok.q.val();
        self.event.is_rep.next = self.is_rep.q.val();
        self.event.src_ip.next = self.hdr_src_ip.val();
        self.event.dst_ip.next = self.hdr_dst_ip.val();
        self.event.comm_id.next = self.comm_id.q.val();
        self.event.qpn.next = self.qpn.q.val();

        if self.reset.val() {
            self.beat_index.d.next = 0.into();
            self.mad_ok.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::flow_entry::u128_to_bits;
    use cngw_packet::cm::{CmCommIds, CmMad, CmMessage, CmRep, CmReq};
    use cngw_packet::parsed::{classify, FrameClass};
    use cngw_packet::{Envelope, Frame, IpPair, RoceFrameBuilder};
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    use std::sync::{Arc, Mutex};

    #[test]
    fn hw_01_cm_snoop_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<CmSnoop>("cm_snoop");
    }

    /// {is_rep, SIP, DIP, comm ID, QPN} of an event.
    type Event = (bool, u128, u128, u32, u32);

    /// What the model's learner reads from a frame (`Learner::observe`):
    /// a RoCEv2 UD SEND_ONLY to QP 1 that `CmMad::from_frame` decodes as a
    /// REQ or REP.
    fn expected(frame: &[u8]) -> Option<Event> {
        let h = classify(frame);
        if h.class != FrameClass::Roce || h.opcode != 0x64 || h.dest_qp != 1 {
            return None;
        }
        let mad = CmMad::from_frame(&Frame::parse(frame).ok()?).ok()?;
        let (src, dst) = (u128::from_be_bytes(h.src_ip), u128::from_be_bytes(h.dst_ip));
        match mad.message {
            CmMessage::Req(r) => Some((false, src, dst, r.local_comm_id, r.local_qpn)),
            CmMessage::Rep(r) => Some((true, src, dst, r.remote_comm_id, r.local_qpn)),
            _ => None,
        }
    }

    fn beat_data(chunk: &[u8]) -> Bits<512> {
        let mut v = Bits::<512>::default();
        for (i, w) in chunk.chunks(8).enumerate() {
            let mut b = [0u8; 8];
            b[..w.len()].copy_from_slice(w);
            v = v | (bit_cast::<512, 64>(bits::<64>(u64::from_le_bytes(b))) << (64 * i as u64));
        }
        v
    }

    /// An address in lane order (byte 0 in bits 7..0), as the parser gives it.
    fn lanes(a: [u8; 16]) -> Bits<128> {
        u128_to_bits::<128>(u128::from_le_bytes(a))
    }

    /// `CmSnoop` with its event registered, so a test reads it after the edge.
    #[derive(LogicBlock, Default)]
    struct Probe {
        clock: Signal<In, Clock>,
        tdata: Signal<In, Bits<512>>,
        tlast: Signal<In, Bit>,
        tvalid: Signal<In, Bit>,
        hdr_valid: Signal<In, Bit>,
        hdr_class: Signal<In, Bits<2>>,
        hdr_opcode: Signal<In, Bits<8>>,
        hdr_dest_qp: Signal<In, Bits<24>>,
        hdr_src_ip: Signal<In, Bits<128>>,
        hdr_dst_ip: Signal<In, Bits<128>>,
        valid: Signal<Out, Bit>,
        is_rep: Signal<Out, Bit>,
        src_ip: Signal<Out, Bits<128>>,
        dst_ip: Signal<Out, Bits<128>>,
        comm_id: Signal<Out, Bits<32>>,
        qpn: Signal<Out, Bits<24>>,
        snoop: CmSnoop,
        r_valid: DFF<Bit>,
        r_is_rep: DFF<Bit>,
        r_src_ip: DFF<Bits<128>>,
        r_dst_ip: DFF<Bits<128>>,
        r_comm_id: DFF<Bits<32>>,
        r_qpn: DFF<Bits<24>>,
    }

    impl Logic for Probe {
        #[hdl_gen]
        fn update(&mut self) {
            clock!(self, clock, snoop);
            dff_setup!(self, clock, r_valid, r_is_rep, r_src_ip, r_dst_ip, r_comm_id, r_qpn);
            self.snoop.reset.next = false;
            self.snoop.tdata.next = self.tdata.val();
            self.snoop.tlast.next = self.tlast.val();
            self.snoop.tvalid.next = self.tvalid.val();
            self.snoop.tready.next = true;
            self.snoop.hdr_valid.next = self.hdr_valid.val();
            self.snoop.hdr_class.next = self.hdr_class.val();
            self.snoop.hdr_opcode.next = self.hdr_opcode.val();
            self.snoop.hdr_dest_qp.next = self.hdr_dest_qp.val();
            self.snoop.hdr_src_ip.next = self.hdr_src_ip.val();
            self.snoop.hdr_dst_ip.next = self.hdr_dst_ip.val();
            self.r_valid.d.next = self.snoop.event.valid.val();
            self.r_is_rep.d.next = self.snoop.event.is_rep.val();
            self.r_src_ip.d.next = self.snoop.event.src_ip.val();
            self.r_dst_ip.d.next = self.snoop.event.dst_ip.val();
            self.r_comm_id.d.next = self.snoop.event.comm_id.val();
            self.r_qpn.d.next = self.snoop.event.qpn.val();
            self.valid.next = self.r_valid.q.val();
            self.is_rep.next = self.r_is_rep.q.val();
            self.src_ip.next = self.r_src_ip.q.val();
            self.dst_ip.next = self.r_dst_ip.q.val();
            self.comm_id.next = self.r_comm_id.q.val();
            self.qpn.next = self.r_qpn.q.val();
        }
    }

    /// Streams the frames (an idle clock wherever `idle` says) and drives
    /// `hdr_*` from the reference parser in the clock after each last beat,
    /// as the header parser does; returns the events in order.
    fn run(frames: Vec<Vec<u8>>, idle: fn(usize) -> bool) -> Vec<Event> {
        let out = Arc::new(Mutex::new(Vec::new()));
        let seen = out.clone();
        let mut uut = Probe::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Probe>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<Probe>| {
            let mut x = sim.init()?;
            let mut beats = Vec::new();
            for f in &frames {
                let n = f.len().div_ceil(64);
                for i in 0..n {
                    let mut chunk = f[i * 64..f.len().min(i * 64 + 64)].to_vec();
                    chunk.resize(64, 0xA5);
                    beats.push((beat_data(&chunk), i + 1 == n, classify(f)));
                }
            }
            let mut events = Vec::new();
            let mut header = None;
            let (mut clock, mut next, mut tail) = (0, 0, 0);
            while next < beats.len() || tail < 3 {
                if next == beats.len() {
                    tail += 1;
                }
                x.tvalid.next = false;
                x.hdr_valid.next = false;
                if let Some(h) = header.take() {
                    let h: cngw_packet::parsed::ParsedHeader = h;
                    x.hdr_valid.next = true;
                    x.hdr_class.next = match h.class {
                        FrameClass::Roce => 1,
                        FrameClass::NonRoce => 2,
                        FrameClass::Malformed => 3,
                    }
                    .into();
                    x.hdr_opcode.next = (h.opcode as u64).to_bits();
                    x.hdr_dest_qp.next = (h.dest_qp as u64).to_bits();
                    x.hdr_src_ip.next = lanes(h.src_ip);
                    x.hdr_dst_ip.next = lanes(h.dst_ip);
                }
                if next < beats.len() && !idle(clock) {
                    let (data, last, h) = beats[next];
                    x.tdata.next = data;
                    x.tlast.next = last;
                    x.tvalid.next = true;
                    if last {
                        header = Some(h);
                    }
                    next += 1;
                }
                wait_clock_cycle!(sim, clock, x);
                clock += 1;
                if x.valid.val() {
                    events.push((
                        x.is_rep.val(),
                        u128::from_be_bytes(x.src_ip.val().to_u128().to_le_bytes()),
                        u128::from_be_bytes(x.dst_ip.val().to_u128().to_le_bytes()),
                        x.comm_id.val().to_u32().swap_bytes(),
                        x.qpn.val().to_u32(),
                    ));
                }
            }
            *seen.lock().unwrap() = events;
            sim.done(x)
        });
        sim.run(Box::new(uut), 10_000_000).unwrap();
        let r = out.lock().unwrap().clone();
        r
    }

    fn env(src: &str, dst: &str) -> Envelope {
        let (s, d): (IpAddr, IpAddr) = (src.parse().unwrap(), dst.parse().unwrap());
        Envelope::new(IpPair::new(s, d).unwrap())
    }

    fn mad(env: &Envelope, message: CmMessage) -> Vec<u8> {
        CmMad {
            transaction_id: 7,
            message,
        }
        .to_frame(env, 0, 0xC000)
        .to_bytes()
    }

    fn req(comm: u32, qpn: u32) -> CmMessage {
        CmMessage::Req(CmReq {
            local_comm_id: comm,
            service_id: 0x0106_4853,
            local_ca_guid: 0x02DC_00FF_FE00_0001,
            local_qkey: 0,
            local_qpn: qpn,
            starting_psn: 0x12_3456,
            pkey: 0xFFFF,
        })
    }

    fn rep(comm: u32, remote: u32, qpn: u32) -> CmMessage {
        CmMessage::Rep(CmRep {
            local_comm_id: comm,
            remote_comm_id: remote,
            local_qkey: 0,
            local_qpn: qpn,
            starting_psn: 0x65_4321,
            local_ca_guid: 0x02AC_E0FF_FE00_0001,
        })
    }

    /// `words` 32-bit words of IPv4 options (NOPs) inserted at IP offset `ip`.
    fn with_ipv4_options(frame: &[u8], ip: usize, words: usize) -> Vec<u8> {
        let ihl = (frame[ip] & 0x0F) as usize * 4;
        let mut f = frame[..ip + ihl].to_vec();
        f.extend(std::iter::repeat_n(1u8, 4 * words));
        f.extend_from_slice(&frame[ip + ihl..]);
        f[ip] = 0x40 | (ihl / 4 + words) as u8;
        let total = u16::from_be_bytes([f[ip + 2], f[ip + 3]]) as usize + 4 * words;
        f[ip + 2..ip + 4].copy_from_slice(&(total as u16).to_be_bytes());
        f
    }

    /// LH-01: REQ and REP MADs behind every header length the parser
    /// accepts (IPv4 with 0..10 option words, 802.1Q, IPv6) give their
    /// comm ID and QPN, and exactly the frames the model's learner decodes
    /// as REQ or REP are events: not RTU, DREQ or another class, not a MAD
    /// cut short by the UDP length or the pad count, not a UDP datagram
    /// longer than its IP packet, not another opcode or QP.
    #[test]
    fn lh_01_cm_snoop_finds_req_and_rep_like_the_model() {
        let v4 = env("10.1.0.1", "10.2.0.1");
        let v4_vlan = env("10.1.0.2", "10.2.0.2").with_vlan(7);
        let v6 = env("fd00:dc::1", "fd00:ace::1");
        let v6_vlan = env("fd00:dc::2", "fd00:ace::2").with_vlan(100);
        let mut frames = vec![
            mad(&v4, req(0x0102_0304, 0x00AB_CDEF)),
            mad(&v4_vlan, rep(0x1111_2222, 0x0102_0304, 0x0012_3456)),
            mad(&v6, req(0xDEAD_BEEF, 0x0000_0013)),
            mad(&v6_vlan, rep(0x0A0B_0C0D, 0xDEAD_BEEF, 0x00FF_FFFE)),
        ];
        for words in [1, 4, 10] {
            frames.push(with_ipv4_options(
                &mad(&v4, req(0x100 + words as u32, 0x20 + words as u32)),
                14,
                words,
            ));
            frames.push(with_ipv4_options(
                &mad(
                    &v4_vlan,
                    rep(0x200, 0x100 + words as u32, 0x30 + words as u32),
                ),
                18,
                words,
            ));
        }
        let ids = CmCommIds {
            local_comm_id: 1,
            remote_comm_id: 2,
        };
        frames.push(mad(&v4, CmMessage::Rtu(ids)));
        frames.push(mad(&v6, CmMessage::Drep(ids)));
        let mut other_class = mad(&v4, req(5, 6));
        let at = other_class.len() - 4 - 256;
        other_class[at + 1] = 0x04;
        frames.push(other_class);
        // UDP length 4 short: 252 MAD bytes.
        let mut short = mad(&v4, req(7, 8));
        let udp = 14 + 20;
        let len = u16::from_be_bytes([short[udp + 4], short[udp + 5]]) - 4;
        short[udp + 4..udp + 6].copy_from_slice(&len.to_be_bytes());
        frames.push(short);
        // Pad count 1: the MAD loses its last byte.
        let mut padded = mad(&v6, rep(9, 10, 11));
        padded[14 + 40 + 8 + 1] |= 0x10;
        frames.push(padded);
        // UDP length past the IP packet (into Ethernet padding).
        let mut long = mad(&v4, req(12, 13));
        long.extend_from_slice(&[0; 8]);
        let len = u16::from_be_bytes([long[udp + 4], long[udp + 5]]) + 8;
        long[udp + 4..udp + 6].copy_from_slice(&len.to_be_bytes());
        frames.push(long);
        // Another opcode (UD SEND_ONLY_WITH_IMMEDIATE), another QP.
        let mut imm = mad(&v4, req(14, 15));
        imm[udp + 8] = 0x65;
        frames.push(imm);
        let mut qp2 = mad(&v4, req(16, 17));
        qp2[udp + 8 + 7] = 2;
        frames.push(qp2);
        frames.push(
            RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2))
                .dest_qp(1)
                .payload_len(300)
                .build(),
        );
        frames.push(
            RoceFrameBuilder::ipv6(
                "fd00::1".parse::<Ipv6Addr>().unwrap(),
                "fd00::2".parse::<Ipv6Addr>().unwrap(),
            )
            .payload_len(20)
            .build(),
        );
        frames.push(mad(&v6_vlan, req(0x5555_6666, 0x77)));

        let want: Vec<Event> = frames.iter().filter_map(|f| expected(f)).collect();
        assert_eq!(want.len(), 11, "the reference decodes the REQs and REPs");
        assert_eq!(run(frames.clone(), |_| false), want, "back to back");
        assert_eq!(run(frames, |c| c % 3 == 1), want, "with idle clocks");
    }
}
