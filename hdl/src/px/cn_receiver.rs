//! `CnReceiver`: the proxy's CN message recogniser (PX-02, PX-04): claims,
//! at its first beat, each frame on a 512-bit AXI4-Stream that is a CN
//! message (draft-xiao-rtgwg-proxy-congestion-notification section 4, the
//! layout of `cngw_packet::proxy_cn`) addressed to this gateway, keeps its
//! first 256 bytes, and walks them to the flow the message names.
//!
//! ```text
//!                       +-----------------------------+     +-----------------------------+
//!  tdata, tkeep, ------>| first beat: claim?          |     | walker (one header a clock)  |--> msg_valid (one clock)
//!  tlast, tvalid,       | beats 0..3 -> capture       |---->| outer IP/UDP, CN header,     |    msg_src, msg_sip, msg_dip,
//!  tready (tap)         | frame length                |copy | invoking packet: IP, routing |    msg_dqp, msg_level,
//!  enable, gw_ipv4, --->|                             |     | header, UDP, VXLAN/Ethernet, |    msg_verdict
//!  gw_ipv6, udp_port    +-----------------------------+     | BTH; holds WALK_CLOCKS       |--> busy_drop (one clock)
//!                                                           +-----------------------------+
//! ```
//! Like `FastCnpReceiver` it taps the stream (a beat counts when
//! `tvalid & tready`) and never stalls it.
//!
//! **Claim.** `claim` is high while a frame's first beat is on the tap and
//! shows, behind Ethernet with at most one 802.1Q tag, either IPv4 with a
//! 20-byte header (0x45), not a fragment, protocol 17, destination
//! `gw_ipv4`, or IPv6 with next header 17 and destination `gw_ipv6`; and UDP
//! destination port `udp_port`; and `enable`. It depends on the first
//! beat's lanes only (whatever `tkeep` says), never on `tready`.
//!
//! **Capture.** A claimed frame's first four beats (256 bytes) are kept and
//! its length in bytes counted (64 per beat, the last beat's `tkeep` lanes
//! from lane 0 up). In the clock after its last beat (clock H, the clock
//! its parsed header is reported in) the capture goes to the walker when
//! the walker is free (or frees itself in that clock); otherwise the
//! message is lost and `busy_drop` pulses in H. The walker holds a message
//! for `WALK_CLOCKS` clocks: its result is on `msg_*` with `msg_valid` in
//! clock H + `WALK_CLOCKS`, so messages whose H are `WALK_CLOCKS` apart or
//! more are all walked.
//!
//! **Walk.** (The rule of `cngw_model::proxy`, on the first 256 bytes.)
//! With `udp` the UDP header's offset and `end = udp + UDP length`:
//! 1. `msg_verdict` 1 (malformed): the UDP length is below 8 plus the CN
//!    header (16 bytes for family 4, 40 for 6), the frame is shorter than
//!    `end`, the CN version is not 1 or the family not 4 or 6;
//! 2. 2 (not RoCEv2): the five-tuple's protocol is not 17 or its
//!    destination port not 4791;
//! 3. the invoking packet (after the CN header) is walked within
//!    `limit = min(end, 256)`: an IP header (IPv4: IHL >= 5, 20 bytes
//!    present, payload after IHL words; IPv6: 40 bytes present, one routing
//!    header (43) looked through), then by protocol: 17 UDP (8 bytes; port
//!    4791: the BTH, 4789: VXLAN, 8 bytes later an Ethernet header of 14
//!    bytes, 18 with a tag, then IP again), 4 or 41 IP again, 143 an
//!    Ethernet header then IP; at most five IP headers. The BTH needs 8
//!    bytes; its bytes 5..7 are the destination QP. Anything else, or a
//!    header that does not fit below `limit`: 3 (no BTH);
//! 4. 4 (mismatch): the addresses of the last IP header are not the
//!    five-tuple's (IPv4 as IPv4-mapped); else 0 (the flow is named).
//!
//! Outputs in the pulse's clock: `msg_src` the outer source address (lane
//! order, IPv4-mapped for IPv4), `msg_sip`/`msg_dip` the five-tuple's
//! addresses (the same form), `msg_dqp` the BTH's destination QP, `msg_level`
//! the CN level.
//!
//! Throughput: the tap takes one beat per clock, frames back to back; the
//! walker one message per `WALK_CLOCKS` (CN messages are control traffic,
//! rate-limited by their senders and by the proxy's receive bucket).
//! Timing: the walker's path is one 2048-bit byte shifter (position times
//! 8), a 384-bit window and its field compares; the claim is the header
//! compare of `FastCnpReceiver` with two address families.

use rust_hdl::prelude::*;

/// Clocks from a message's clock H to its result (the walk needs at most
/// 23 steps: two for the outer headers, four per IP level, one for the
/// sixth IP header that fails).
pub const WALK_CLOCKS: u64 = 32;

#[derive(LogicBlock)]
pub struct CnReceiver {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub tdata: Signal<In, Bits<512>>,
    pub tkeep: Signal<In, Bits<64>>,
    pub tlast: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    /// This gateway's IPv4 address, lane order.
    pub gw_ipv4: Signal<In, Bits<32>>,
    /// This gateway's IPv6 address, lane order.
    pub gw_ipv6: Signal<In, Bits<128>>,
    /// The CN message UDP destination port (a number).
    pub udp_port: Signal<In, Bits<16>>,
    pub claim: Signal<Out, Bit>,
    pub busy_drop: Signal<Out, Bit>,
    pub msg_valid: Signal<Out, Bit>,
    pub msg_src: Signal<Out, Bits<128>>,
    pub msg_sip: Signal<Out, Bits<128>>,
    pub msg_dip: Signal<Out, Bits<128>>,
    pub msg_dqp: Signal<Out, Bits<24>>,
    pub msg_level: Signal<Out, Bits<3>>,
    pub msg_verdict: Signal<Out, Bits<3>>,
    // Capture.
    /// 0: the next beat is a first beat; 1..3: it is kept there; 4: later.
    beat: DFF<Bits<3>>,
    tracking: DFF<Bit>,
    done: DFF<Bit>,
    cap: Vec<DFF<Bits<512>>>,
    cap_len: DFF<Bits<16>>,
    // Walker.
    hold: DFF<Bit>,
    wbuf: DFF<Bits<2048>>,
    wlen: DFF<Bits<16>>,
    /// 0 idle, 1 outer headers, 2 CN header, 3 IP, 4 routing header,
    /// 5 UDP, 6 Ethernet, 7 BTH; 8 done.
    st: DFF<Bits<4>>,
    pos: DFF<Bits<13>>,
    limit: DFF<Bits<13>>,
    udp_end: DFF<Bits<17>>,
    ipn: DFF<Bits<3>>,
    timer: DFF<Bits<5>>,
    r_src: DFF<Bits<128>>,
    t_sip: DFF<Bits<128>>,
    t_dip: DFF<Bits<128>>,
    got_sip: DFF<Bits<128>>,
    got_dip: DFF<Bits<128>>,
    r_dqp: DFF<Bits<24>>,
    r_level: DFF<Bits<3>>,
    verdict: DFF<Bits<3>>,
    // Combinational.
    transfer: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    vlan: Signal<Local, Bit>,
    wvlan: Signal<Local, Bit>,
    cn_ip: Signal<Local, Bits<512>>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    port_lanes: Signal<Local, Bits<16>>,
    claimed: Signal<Local, Bit>,
    beat_bytes: Signal<Local, Bits<16>>,
    freeing: Signal<Local, Bit>,
    shift: Signal<Local, Bits<15>>,
    cn_shifted: Signal<Local, Bits<2048>>,
    win: Signal<Local, Bits<384>>,
    room: Signal<Local, Bits<13>>,
    next_pos: Signal<Local, Bits<13>>,
    proto: Signal<Local, Bits<8>>,
    dispatch: Signal<Local, Bit>,
    udp_len: Signal<Local, Bits<17>>,
    hdr_len: Signal<Local, Bits<13>>,
    o_udp: Signal<Local, Bits<13>>,
}

impl Default for CnReceiver {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tdata: Default::default(),
            tkeep: Default::default(),
            tlast: Default::default(),
            tvalid: Default::default(),
            tready: Default::default(),
            enable: Default::default(),
            gw_ipv4: Default::default(),
            gw_ipv6: Default::default(),
            udp_port: Default::default(),
            claim: Default::default(),
            busy_drop: Default::default(),
            msg_valid: Default::default(),
            msg_src: Default::default(),
            msg_sip: Default::default(),
            msg_dip: Default::default(),
            msg_dqp: Default::default(),
            msg_level: Default::default(),
            msg_verdict: Default::default(),
            beat: Default::default(),
            tracking: Default::default(),
            done: Default::default(),
            cap: (0..4).map(|_| Default::default()).collect(),
            cap_len: Default::default(),
            hold: Default::default(),
            wbuf: Default::default(),
            wlen: Default::default(),
            st: Default::default(),
            pos: Default::default(),
            limit: Default::default(),
            udp_end: Default::default(),
            ipn: Default::default(),
            timer: Default::default(),
            r_src: Default::default(),
            t_sip: Default::default(),
            t_dip: Default::default(),
            got_sip: Default::default(),
            got_dip: Default::default(),
            r_dqp: Default::default(),
            r_level: Default::default(),
            verdict: Default::default(),
            transfer: Default::default(),
            first: Default::default(),
            vlan: Default::default(),
            wvlan: Default::default(),
            cn_ip: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            port_lanes: Default::default(),
            claimed: Default::default(),
            beat_bytes: Default::default(),
            freeing: Default::default(),
            shift: Default::default(),
            cn_shifted: Default::default(),
            win: Default::default(),
            room: Default::default(),
            next_pos: Default::default(),
            proto: Default::default(),
            dispatch: Default::default(),
            udp_len: Default::default(),
            hdr_len: Default::default(),
            o_udp: Default::default(),
        }
    }
}

impl Logic for CnReceiver {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, beat, tracking, done, cap_len, hold, wbuf, wlen, st, pos, limit, udp_end,
            ipn, timer, r_src, t_sip, t_dip, got_sip, got_dip, r_dqp, r_level, verdict
        );
        for i in 0..4 {
            self.cap[i].clock.next = self.clock.val();
            self.cap[i].d.next = self.cap[i].q.val();
        }
        self.transfer.next = self.tvalid.val() & self.tready.val();
        self.first.next = self.beat.q.val() == 0;

        // Claim: the first beat from the IP header on (`cn_ip`, lane order).
        self.vlan.next = self.tdata.val().get_bits::<16>(96) == 0x0081;
        self.cn_ip.next = self.tdata.val() >> 112;
        if self.vlan.val() {
            self.cn_ip.next = self.tdata.val() >> 144;
        }
        self.port_lanes.next = (self.udp_port.val() >> 8) | (self.udp_port.val() << 8);
        // EtherType lanes just before the IP header: 0x0800 -> 0x0008.
        self.is_v4.next = (self.tdata.val().get_bits::<16>(96) == 0x0008)
            & (self.cn_ip.val().get_bits::<8>(0) == 0x45)
            & ((self.cn_ip.val().get_bits::<16>(48) & 0xff3f) == 0)
            & (self.cn_ip.val().get_bits::<8>(72) == 17)
            & (self.cn_ip.val().get_bits::<32>(128) == self.gw_ipv4.val())
            & (self.cn_ip.val().get_bits::<16>(176) == self.port_lanes.val());
        self.is_v6.next = (self.tdata.val().get_bits::<16>(96) == 0xdd86)
            & (self.cn_ip.val().get_bits::<4>(4) == 6)
            & (self.cn_ip.val().get_bits::<8>(48) == 17)
            & (self.cn_ip.val().get_bits::<128>(192) == self.gw_ipv6.val())
            & (self.cn_ip.val().get_bits::<16>(336) == self.port_lanes.val());
        if self.vlan.val() {
            self.is_v4.next = (self.tdata.val().get_bits::<16>(128) == 0x0008)
                & (self.cn_ip.val().get_bits::<8>(0) == 0x45)
                & ((self.cn_ip.val().get_bits::<16>(48) & 0xff3f) == 0)
                & (self.cn_ip.val().get_bits::<8>(72) == 17)
                & (self.cn_ip.val().get_bits::<32>(128) == self.gw_ipv4.val())
                & (self.cn_ip.val().get_bits::<16>(176) == self.port_lanes.val());
            self.is_v6.next = (self.tdata.val().get_bits::<16>(128) == 0xdd86)
                & (self.cn_ip.val().get_bits::<4>(4) == 6)
                & (self.cn_ip.val().get_bits::<8>(48) == 17)
                & (self.cn_ip.val().get_bits::<128>(192) == self.gw_ipv6.val())
                & (self.cn_ip.val().get_bits::<16>(336) == self.port_lanes.val());
        }
        self.claimed.next =
            self.first.val() & self.enable.val() & (self.is_v4.val() | self.is_v6.val());
        self.claim.next = self.tvalid.val() & self.claimed.val();

        // Capture.
        self.beat_bytes.next = 64.into();
        if self.tlast.val() {
            self.beat_bytes.next = 0.into();
            for i in 0..64 {
                if self.tkeep.val().get_bit(i) {
                    self.beat_bytes.next = self.beat_bytes.val() + 1;
                }
            }
        }
        self.done.d.next = false;
        if self.transfer.val() {
            if self.first.val() {
                self.tracking.d.next = self.claimed.val();
                self.done.d.next = self.tlast.val() & self.claimed.val();
                self.cap[0].d.next = self.tdata.val();
                self.cap[1].d.next = 0.into();
                self.cap[2].d.next = 0.into();
                self.cap[3].d.next = 0.into();
                self.cap_len.d.next = self.beat_bytes.val();
            } else {
                self.done.d.next = self.tlast.val() & self.tracking.q.val();
                if self.cap_len.q.val() < 0xff00 {
                    self.cap_len.d.next = self.cap_len.q.val() + self.beat_bytes.val();
                }
            }
            if self.beat.q.val() == 1 {
                self.cap[1].d.next = self.tdata.val();
            }
            if self.beat.q.val() == 2 {
                self.cap[2].d.next = self.tdata.val();
            }
            if self.beat.q.val() == 3 {
                self.cap[3].d.next = self.tdata.val();
            }
            if self.tlast.val() {
                self.beat.d.next = 0.into();
            } else if self.beat.q.val() != 4 {
                self.beat.d.next = self.beat.q.val() + 1;
            }
        }

        // Hand-over in clock H.
        self.freeing.next = self.hold.q.val() & (self.timer.q.val() == 31);
        self.busy_drop.next = false;
        self.wvlan.next = false;
        if self.done.q.val() {
            if !self.hold.q.val() | self.freeing.val() {
                self.wbuf.d.next = bit_cast::<2048, 512>(self.cap[0].q.val())
                    | (bit_cast::<2048, 512>(self.cap[1].q.val()) << 512)
                    | (bit_cast::<2048, 512>(self.cap[2].q.val()) << 1024)
                    | (bit_cast::<2048, 512>(self.cap[3].q.val()) << 1536);
                self.wlen.d.next = self.cap_len.q.val();
            } else {
                self.busy_drop.next = true;
            }
        }

        // Walker: the 48-byte window at `pos`.
        self.shift.next = bit_cast::<15, 13>(self.pos.q.val()) << 3;
        self.cn_shifted.next = self.wbuf.q.val() >> self.shift.val();
        self.win.next = self.cn_shifted.val().get_bits::<384>(0);
        self.room.next = self.limit.q.val() - self.pos.q.val();
        if self.pos.q.val() > self.limit.q.val() {
            self.room.next = 0.into();
        }
        self.next_pos.next = self.pos.q.val();
        self.proto.next = 0.into();
        self.dispatch.next = false;
        self.udp_len.next = 0.into();
        self.hdr_len.next = 16.into();
        self.o_udp.next = 0.into();
        if self.hold.q.val() {
            self.timer.d.next = self.timer.q.val() + 1;
        }
        if self.st.q.val() == 1 {
            // Outer headers at fixed places: UDP at 34, 38 (tag), 54, 58.
            self.wvlan.next = self.wbuf.q.val().get_bits::<16>(96) == 0x0081;
            self.o_udp.next = 34.into();
            if self.wbuf.q.val().get_bits::<4>(116) == 6 {
                self.o_udp.next = 54.into();
                self.r_src.d.next = self.wbuf.q.val().get_bits::<128>(176);
            } else {
                self.r_src.d.next = (bit_cast::<128, 32>(self.wbuf.q.val().get_bits::<32>(208))
                    << 96)
                    | (bits::<128>(0xffff) << 80);
            }
            if self.wvlan.val() {
                self.o_udp.next = 38.into();
                if self.wbuf.q.val().get_bits::<4>(148) == 6 {
                    self.o_udp.next = 58.into();
                    self.r_src.d.next = self.wbuf.q.val().get_bits::<128>(208);
                } else {
                    self.r_src.d.next =
                        (bit_cast::<128, 32>(self.wbuf.q.val().get_bits::<32>(240)) << 96)
                            | (bits::<128>(0xffff) << 80);
                }
            }
            self.pos.d.next = self.o_udp.val();
            self.st.d.next = 2.into();
        }
        if self.st.q.val() == 2 {
            // At the UDP header: its length, then the CN header 8 bytes on.
            self.udp_len.next = (bit_cast::<17, 8>(self.win.val().get_bits::<8>(32)) << 8)
                | bit_cast::<17, 8>(self.win.val().get_bits::<8>(40));
            self.udp_end.d.next = bit_cast::<17, 13>(self.pos.q.val()) + self.udp_len.val();
            if self.win.val().get_bits::<4>(64) == 6 {
                self.hdr_len.next = 40.into();
            }
            self.limit.d.next = 256.into();
            if bit_cast::<17, 13>(self.pos.q.val()) + self.udp_len.val() < 256 {
                self.limit.d.next = self.pos.q.val() + bit_cast::<13, 17>(self.udp_len.val());
            }
            self.r_level.d.next = self.win.val().get_bits::<3>(85);
            self.t_sip.d.next = (bit_cast::<128, 32>(self.win.val().get_bits::<32>(128)) << 96)
                | (bits::<128>(0xffff) << 80);
            self.t_dip.d.next = (bit_cast::<128, 32>(self.win.val().get_bits::<32>(160)) << 96)
                | (bits::<128>(0xffff) << 80);
            if self.win.val().get_bits::<4>(64) == 6 {
                self.t_sip.d.next = self.win.val().get_bits::<128>(128);
                self.t_dip.d.next = self.win.val().get_bits::<128>(256);
            }
            self.pos.d.next = self.pos.q.val() + 8 + self.hdr_len.val();
            self.st.d.next = 3.into();
            self.ipn.d.next = 0.into();
            if (self.udp_len.val() < bit_cast::<17, 13>(self.hdr_len.val()) + 8)
                | (bit_cast::<17, 16>(self.wlen.q.val())
                    < bit_cast::<17, 13>(self.pos.q.val()) + self.udp_len.val())
                | (self.win.val().get_bits::<4>(68) != 1)
                | ((self.win.val().get_bits::<4>(64) != 4)
                    & (self.win.val().get_bits::<4>(64) != 6))
            {
                self.verdict.d.next = 1.into();
                self.st.d.next = 8.into();
            } else if (self.win.val().get_bits::<8>(72) != 17)
                | (self.win.val().get_bits::<16>(112) != 0xb712)
            {
                self.verdict.d.next = 2.into();
                self.st.d.next = 8.into();
            }
        }
        if self.st.q.val() == 3 {
            // An IP header.
            self.verdict.d.next = 3.into();
            self.st.d.next = 8.into();
            if (self.ipn.q.val() < 5) & (self.room.val() >= 20) {
                if (self.win.val().get_bits::<4>(4) == 4) & (self.win.val().get_bits::<4>(0) >= 5) {
                    self.got_sip.d.next = (bit_cast::<128, 32>(self.win.val().get_bits::<32>(96))
                        << 96)
                        | (bits::<128>(0xffff) << 80);
                    self.got_dip.d.next = (bit_cast::<128, 32>(self.win.val().get_bits::<32>(128))
                        << 96)
                        | (bits::<128>(0xffff) << 80);
                    self.proto.next = self.win.val().get_bits::<8>(72);
                    self.next_pos.next = self.pos.q.val()
                        + (bit_cast::<13, 4>(self.win.val().get_bits::<4>(0)) << 2);
                    self.dispatch.next = true;
                }
                if (self.win.val().get_bits::<4>(4) == 6) & (self.room.val() >= 40) {
                    self.got_sip.d.next = self.win.val().get_bits::<128>(64);
                    self.got_dip.d.next = self.win.val().get_bits::<128>(192);
                    self.proto.next = self.win.val().get_bits::<8>(48);
                    self.next_pos.next = self.pos.q.val() + 40;
                    self.dispatch.next = true;
                    if self.proto.val() == 43 {
                        self.dispatch.next = false;
                        self.pos.d.next = self.next_pos.val();
                        self.st.d.next = 4.into();
                    }
                }
            }
            self.ipn.d.next = self.ipn.q.val() + 1;
        }
        if self.st.q.val() == 4 {
            // IPv6 routing header: next header, length in 8-byte units.
            self.verdict.d.next = 3.into();
            self.st.d.next = 8.into();
            if self.room.val() >= 2 {
                self.proto.next = self.win.val().get_bits::<8>(0);
                self.next_pos.next = self.pos.q.val()
                    + ((bit_cast::<13, 8>(self.win.val().get_bits::<8>(8)) + 1) << 3);
                self.dispatch.next = true;
            }
        }
        if self.st.q.val() == 5 {
            // UDP: 4791 (lanes 0xb712) the BTH, 4789 (0xb512) VXLAN.
            self.verdict.d.next = 3.into();
            self.st.d.next = 8.into();
            if self.room.val() >= 8 {
                if self.win.val().get_bits::<16>(16) == 0xb712 {
                    self.pos.d.next = self.pos.q.val() + 8;
                    self.st.d.next = 7.into();
                }
                if self.win.val().get_bits::<16>(16) == 0xb512 {
                    self.pos.d.next = self.pos.q.val() + 16;
                    self.st.d.next = 6.into();
                }
            }
        }
        if self.st.q.val() == 6 {
            // Ethernet, at most one tag, then IP.
            self.verdict.d.next = 3.into();
            self.st.d.next = 8.into();
            if self.room.val() >= 14 {
                self.pos.d.next = self.pos.q.val() + 14;
                if self.win.val().get_bits::<16>(96) == 0x0081 {
                    self.pos.d.next = self.pos.q.val() + 18;
                }
                self.st.d.next = 3.into();
            }
        }
        if self.st.q.val() == 7 {
            // The BTH: destination QP in bytes 5..7.
            self.verdict.d.next = 3.into();
            self.st.d.next = 8.into();
            if self.room.val() >= 8 {
                self.r_dqp.d.next = (bit_cast::<24, 8>(self.win.val().get_bits::<8>(40)) << 16)
                    | (bit_cast::<24, 8>(self.win.val().get_bits::<8>(48)) << 8)
                    | bit_cast::<24, 8>(self.win.val().get_bits::<8>(56));
                self.verdict.d.next = 0.into();
                if (self.got_sip.q.val() != self.t_sip.q.val())
                    | (self.got_dip.q.val() != self.t_dip.q.val())
                {
                    self.verdict.d.next = 4.into();
                }
            }
        }
        if self.dispatch.val() {
            self.pos.d.next = self.next_pos.val();
            self.verdict.d.next = 3.into();
            self.st.d.next = 8.into();
            if self.proto.val() == 17 {
                self.st.d.next = 5.into();
            }
            if (self.proto.val() == 4) | (self.proto.val() == 41) {
                self.st.d.next = 3.into();
            }
            if self.proto.val() == 143 {
                self.st.d.next = 6.into();
            }
        }

        // The result, WALK_CLOCKS after H.
        self.msg_valid.next = self.freeing.val();
        self.msg_src.next = self.r_src.q.val();
        self.msg_sip.next = self.t_sip.q.val();
        self.msg_dip.next = self.t_dip.q.val();
        self.msg_dqp.next = self.r_dqp.q.val();
        self.msg_level.next = self.r_level.q.val();
        self.msg_verdict.next = self.verdict.q.val();
        if self.freeing.val() {
            self.hold.d.next = false;
            self.st.d.next = 0.into();
        }
        if self.done.q.val() & (!self.hold.q.val() | self.freeing.val()) {
            self.hold.d.next = true;
            self.timer.d.next = 0.into();
            self.st.d.next = 1.into();
            self.verdict.d.next = 0.into();
            self.r_dqp.d.next = 0.into();
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.tracking.d.next = false;
            self.done.d.next = false;
            self.hold.d.next = false;
            self.st.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_cn_receiver_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<CnReceiver>("cn_receiver");
    }
}
