//! `CnGenerator`: the congested node's side of the proxy draft (PX-01,
//! PX-04): a notification the Long-haul controller hands over becomes a CN
//! message to the sender's proxy, carrying the invoking frame.
//!
//! ```text
//!  tap_* (dc_rx beats) -->[ ring: first 20 beats of every frame, 256 x 512 RAM ]
//!  hdr_valid --> (start, length) of the frame that just ended --> 5-clock pipe --+
//!  go, go_ipv6, go_level, go_proxy (controller, 5 clocks after hdr_valid) -------+
//!     --> checks (filter, busy, bucket, room) --> SUM: invoking bytes' checksum (ring read 1/clk)
//!     --> FOLD: IPv4 and UDP checksums --> COPY: header + ring beats shifted into place
//!     --> 256-beat output FIFO --> m (frames, to a FrameMux on dc_tx)
//! ```
//! **Capture.** Every beat taken on dc_rx (`tap_take`) among the first 20
//! of its frame (1,280 bytes: what the largest CN message carries) is
//! written into a 256-beat ring. At a frame's last beat its first beat's
//! ring address and its length are noted; `hdr_valid` (one clock later,
//! the parser's) pushes them into a five-clock pipe, so they come out in
//! the clock the controller decides on that frame (`go`).
//!
//! **Checks** on `go`, in this order (the model's, `cngw_model::proxy_tx`):
//! `filter` and the proxy outside both domain prefixes (`out_of_domain`);
//! fewer than [`BUSY_CLOCKS`] since the last message taken (`busy`); with
//! `refill_clocks` not 0, no token (`rate_limited`); fewer than 21 free
//! beats in the output FIFO (`queue_drops`); else the message is taken
//! (`sent`). The ring cannot overwrite a taken frame in that time: at most
//! 20 + 6 + 64 beats are written after its first.
//!
//! **Message** (lane order; IPv4-mapped proxies get IPv4 from `gw_ipv4`,
//! others IPv6 from `gw_ipv6`): Ethernet to the invoking frame's source
//! MAC from `gw_mac`; IPv4 (DSCP `dscp`, DF, TTL 64, identification 0) or
//! IPv6 (traffic class `dscp << 2`, flow label 0, hop limit 64); UDP from
//! and to `udp_port`, checksum computed; the CN header (family of the
//! invoking frame, protocol 17, `go_level`, its UDP ports and addresses);
//! then the invoking frame from byte 14 (its IP header) on, cut so the IP
//! packet is at most 576 bytes (IPv4) or 1,280 (IPv6). The invoking bytes
//! go in at an even offset, so their 16-bit sum is the checksum's share.
//! The ones-complement sums work on lane-order 16-bit words: a sum of
//! byte-swapped words is the byte-swapped sum, so the checksums come out
//! in lane order as they are placed.
//!
//! **Timing.** SUM reads one ring beat per clock (at most 20), FOLD takes
//! one clock, COPY writes one message beat per clock into the FIFO (at
//! most 21): a message is in the FIFO within 47 clocks of `go`.
//! `reset` empties the FIFO and the pipe and clears the counters.

use crate::notify::TokenBucket;
use crate::px::PrefixMatch;
use crate::stream::{AxisSource, RamFifo};
use rust_hdl::prelude::*;

/// Clocks after a message is taken during which others are refused.
pub const BUSY_CLOCKS: u64 = 64;
/// Beats of each frame the ring keeps.
pub const RING_BEATS_PER_FRAME: u64 = 20;
// `update` uses the literals 64 and 20.
const _: () = assert!(BUSY_CLOCKS == 64 && RING_BEATS_PER_FRAME == 20);

#[derive(LogicBlock)]
pub struct CnGenerator {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub clear_counters: Signal<In, Bit>,
    /// dc_rx beats as they are taken.
    pub tap_tdata: Signal<In, Bits<512>>,
    pub tap_tkeep: Signal<In, Bits<64>>,
    pub tap_tlast: Signal<In, Bit>,
    pub tap_take: Signal<In, Bit>,
    /// The parser's header of the frame whose last beat was taken a clock ago.
    pub hdr_valid: Signal<In, Bit>,
    /// The controller's hand-over, five clocks after that frame's `hdr_valid`.
    pub go: Signal<In, Bit>,
    pub go_ipv6: Signal<In, Bit>,
    pub go_level: Signal<In, Bits<3>>,
    /// The proxy, lane order (IPv4-mapped for IPv4).
    pub go_proxy: Signal<In, Bits<128>>,
    pub filter: Signal<In, Bit>,
    pub dom0_prefix: Signal<In, Bits<128>>,
    pub dom0_len: Signal<In, Bits<8>>,
    pub dom0_valid: Signal<In, Bit>,
    pub dom1_prefix: Signal<In, Bits<128>>,
    pub dom1_len: Signal<In, Bits<8>>,
    pub dom1_valid: Signal<In, Bit>,
    pub refill_clocks: Signal<In, Bits<32>>,
    pub bucket_depth: Signal<In, Bits<4>>,
    /// Lane order.
    pub gw_mac: Signal<In, Bits<48>>,
    /// Lane order (the address's first byte in bits 7..0).
    pub gw_ipv4: Signal<In, Bits<32>>,
    pub gw_ipv6: Signal<In, Bits<128>>,
    pub dscp: Signal<In, Bits<6>>,
    pub udp_port: Signal<In, Bits<16>>,
    pub m: AxisSource,
    pub sent: Signal<Out, Bits<32>>,
    pub out_of_domain: Signal<Out, Bits<32>>,
    pub busy: Signal<Out, Bits<32>>,
    pub rate_limited: Signal<Out, Bits<32>>,
    pub queue_drops: Signal<Out, Bits<32>>,
    // Constants.
    ones512: Constant<Bits<512>>,
    ones64: Constant<Bits<64>>,
    /// 1..64: the byte count of a last beat whose top kept byte is b.
    keep_count: Vec<Constant<Bits<7>>>,
    // Capture.
    ring: RAM<Bits<512>, 8>,
    wptr: DFF<Bits<8>>,
    beats: DFF<Bits<16>>,
    cur_start: DFF<Bits<8>>,
    done_start: DFF<Bits<8>>,
    done_len: DFF<Bits<16>>,
    info: Vec<DFF<Bits<24>>>,
    // Checks.
    dom: PrefixMatch,
    bucket: TokenBucket,
    idle: DFF<Bits<7>>,
    used: DFF<Bits<9>>,
    counts: Vec<DFF<Bits<32>>>,
    accept: Signal<Local, Bit>,
    // The message being made.
    phase: DFF<Bits<2>>,
    cnt: DFF<Bits<6>>,
    r_start: DFF<Bits<8>>,
    r_inv_len: DFF<Bits<11>>,
    r_o6: DFF<Bit>,
    r_t6: DFF<Bit>,
    r_level: DFF<Bits<3>>,
    r_proxy: DFF<Bits<128>>,
    r_fb0: DFF<Bits<512>>,
    inv_sum: DFF<Bits<32>>,
    rd_v: DFF<Bit>,
    rd_k: DFF<Bits<6>>,
    cp_v: DFF<Bit>,
    cp_m: DFF<Bits<6>>,
    prev: DFF<Bits<512>>,
    r_ipck: DFF<Bits<16>>,
    r_udpck: DFF<Bits<16>>,
    msg_fifo: RamFifo<Bits<520>>,
    // Combinational.
    nb: Signal<Local, Bits<7>>,
    go_len: Signal<Local, Bits<16>>,
    go_max: Signal<Local, Bits<16>>,
    go_inv: Signal<Local, Bits<16>>,
    hdr_len: Signal<Local, Bits<12>>,
    l_out: Signal<Local, Bits<12>>,
    n_out: Signal<Local, Bits<6>>,
    msg_beats_w: Signal<Local, Bits<12>>,
    inv_beats_w: Signal<Local, Bits<12>>,
    joined_shift: Signal<Local, Bits<1024>>,
    n_in: Signal<Local, Bits<6>>,
    ip_len: Signal<Local, Bits<16>>,
    udp_len: Signal<Local, Bits<16>>,
    ip_len_l: Signal<Local, Bits<16>>,
    udp_len_l: Signal<Local, Bits<16>>,
    port_l: Signal<Local, Bits<16>>,
    cn: Signal<Local, Bits<1024>>,
    hdr0: Signal<Local, Bits<1024>>,
    hdr: Signal<Local, Bits<1024>>,
    lo: Signal<Local, Bits<12>>,
    hi: Signal<Local, Bits<12>>,
    masked: Signal<Local, Bits<512>>,
    acc: Signal<Local, Bits<32>>,
    s_ip: Signal<Local, Bits<32>>,
    s_udp: Signal<Local, Bits<32>>,
    ip_fold1: Signal<Local, Bits<32>>,
    ip_fold2: Signal<Local, Bits<32>>,
    udp_fold1: Signal<Local, Bits<32>>,
    udp_fold2: Signal<Local, Bits<32>>,
    udpck: Signal<Local, Bits<16>>,
    rd_idx: Signal<Local, Bits<8>>,
    shift: Signal<Local, Bits<11>>,
    joined: Signal<Local, Bits<1024>>,
    shifted: Signal<Local, Bits<512>>,
    j: Signal<Local, Bits<6>>,
    ob_lo: Signal<Local, Bits<12>>,
    ob_hi: Signal<Local, Bits<12>>,
    ob_data: Signal<Local, Bits<512>>,
    ob_last: Signal<Local, Bit>,
    ob_nb: Signal<Local, Bits<7>>,
    ob_push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
}

impl Default for CnGenerator {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear_counters: Default::default(),
            tap_tdata: Default::default(),
            tap_tkeep: Default::default(),
            tap_tlast: Default::default(),
            tap_take: Default::default(),
            hdr_valid: Default::default(),
            go: Default::default(),
            go_ipv6: Default::default(),
            go_level: Default::default(),
            go_proxy: Default::default(),
            filter: Default::default(),
            dom0_prefix: Default::default(),
            dom0_len: Default::default(),
            dom0_valid: Default::default(),
            dom1_prefix: Default::default(),
            dom1_len: Default::default(),
            dom1_valid: Default::default(),
            refill_clocks: Default::default(),
            bucket_depth: Default::default(),
            gw_mac: Default::default(),
            gw_ipv4: Default::default(),
            gw_ipv6: Default::default(),
            dscp: Default::default(),
            udp_port: Default::default(),
            m: Default::default(),
            sent: Default::default(),
            out_of_domain: Default::default(),
            busy: Default::default(),
            rate_limited: Default::default(),
            queue_drops: Default::default(),
            ones512: Constant::new(!Bits::<512>::default()),
            ones64: Constant::new(!Bits::<64>::default()),
            keep_count: (0..64).map(|b| Constant::new(bits(b as u64 + 1))).collect(),
            ring: Default::default(),
            wptr: Default::default(),
            beats: Default::default(),
            cur_start: Default::default(),
            done_start: Default::default(),
            done_len: Default::default(),
            info: (0..5).map(|_| Default::default()).collect(),
            dom: Default::default(),
            bucket: Default::default(),
            idle: Default::default(),
            used: Default::default(),
            counts: (0..5).map(|_| Default::default()).collect(),
            accept: Default::default(),
            phase: Default::default(),
            cnt: Default::default(),
            r_start: Default::default(),
            r_inv_len: Default::default(),
            r_o6: Default::default(),
            r_t6: Default::default(),
            r_level: Default::default(),
            r_proxy: Default::default(),
            r_fb0: Default::default(),
            inv_sum: Default::default(),
            rd_v: Default::default(),
            rd_k: Default::default(),
            cp_v: Default::default(),
            cp_m: Default::default(),
            prev: Default::default(),
            r_ipck: Default::default(),
            r_udpck: Default::default(),
            msg_fifo: Default::default(),
            nb: Default::default(),
            go_len: Default::default(),
            go_max: Default::default(),
            go_inv: Default::default(),
            hdr_len: Default::default(),
            l_out: Default::default(),
            n_out: Default::default(),
            msg_beats_w: Default::default(),
            inv_beats_w: Default::default(),
            joined_shift: Default::default(),
            n_in: Default::default(),
            ip_len: Default::default(),
            udp_len: Default::default(),
            ip_len_l: Default::default(),
            udp_len_l: Default::default(),
            port_l: Default::default(),
            cn: Default::default(),
            hdr0: Default::default(),
            hdr: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            masked: Default::default(),
            acc: Default::default(),
            s_ip: Default::default(),
            s_udp: Default::default(),
            ip_fold1: Default::default(),
            ip_fold2: Default::default(),
            udp_fold1: Default::default(),
            udp_fold2: Default::default(),
            udpck: Default::default(),
            rd_idx: Default::default(),
            shift: Default::default(),
            joined: Default::default(),
            shifted: Default::default(),
            j: Default::default(),
            ob_lo: Default::default(),
            ob_hi: Default::default(),
            ob_data: Default::default(),
            ob_last: Default::default(),
            ob_nb: Default::default(),
            ob_push: Default::default(),
            pop: Default::default(),
        }
    }
}

impl Logic for CnGenerator {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, bucket, msg_fifo);
        dff_setup!(
            self, clock, wptr, beats, cur_start, done_start, done_len, idle, used, phase, cnt,
            r_start, r_inv_len, r_o6, r_t6, r_level, r_proxy, r_fb0, inv_sum, rd_v, rd_k, cp_v,
            cp_m, prev, r_ipck, r_udpck
        );
        for i in 0..5 {
            self.info[i].clock.next = self.clock.val();
            self.counts[i].clock.next = self.clock.val();
            self.counts[i].d.next = self.counts[i].q.val();
        }
        self.ring.read_clock.next = self.clock.val();
        self.ring.write_clock.next = self.clock.val();

        // Capture: the first 20 beats of every frame into the ring.
        self.ring.write_address.next = self.wptr.q.val();
        self.ring.write_data.next = self.tap_tdata.val();
        self.ring.write_enable.next = self.tap_take.val() & (self.beats.q.val() < 20);
        self.nb.next = 0.into();
        for b in 0..64 {
            if self.tap_tkeep.val().get_bit(b) {
                self.nb.next = self.keep_count[b].val();
            }
        }
        if self.tap_take.val() {
            if self.beats.q.val() < 20 {
                self.wptr.d.next = self.wptr.q.val() + 1;
            }
            if self.beats.q.val() == 0 {
                self.cur_start.d.next = self.wptr.q.val();
            }
            self.beats.d.next = self.beats.q.val() + 1;
            if self.beats.q.val() == 0xFFFF {
                self.beats.d.next = self.beats.q.val();
            }
            if self.tap_tlast.val() {
                self.beats.d.next = 0.into();
                self.done_start.d.next = self.cur_start.q.val();
                if self.beats.q.val() == 0 {
                    self.done_start.d.next = self.wptr.q.val();
                }
                self.done_len.d.next = (self.beats.q.val() << 6) + bit_cast::<16, 7>(self.nb.val());
            }
        }
        // (start, length) ride beside the look-up.
        self.info[0].d.next = 0.into();
        if self.hdr_valid.val() {
            self.info[0].d.next = bit_cast::<24, 8>(self.done_start.q.val())
                | (bit_cast::<24, 16>(self.done_len.q.val()) << 8);
        }
        self.info[1].d.next = self.info[0].q.val();
        self.info[2].d.next = self.info[1].q.val();
        self.info[3].d.next = self.info[2].q.val();
        self.info[4].d.next = self.info[3].q.val();

        // What the message will carry: the invoking frame from byte 14 on,
        // cut to the family's limit (576 or 1280 less the headers).
        self.go_len.next = self.info[4].q.val().get_bits::<16>(8);
        self.go_max.next = 532.into();
        if self.go_proxy.val().get_bits::<80>(0) != 0 {
            self.go_max.next = 1216.into();
        }
        if self.go_proxy.val().get_bits::<16>(80) != 0xFFFF {
            self.go_max.next = 1216.into();
        }
        if self.go_ipv6.val() {
            self.go_max.next = self.go_max.val() - 24;
        }
        self.go_inv.next = self.go_len.val() - 14;
        if self.go_len.val() < 14 {
            self.go_inv.next = 0.into();
        }
        if self.go_inv.val() > self.go_max.val() {
            self.go_inv.next = self.go_max.val();
        }

        // Checks.
        self.dom.addr.next = self.go_proxy.val();
        self.dom.dom0_prefix.next = self.dom0_prefix.val();
        self.dom.dom0_len.next = self.dom0_len.val();
        self.dom.dom0_valid.next = self.dom0_valid.val();
        self.dom.dom1_prefix.next = self.dom1_prefix.val();
        self.dom.dom1_len.next = self.dom1_len.val();
        self.dom.dom1_valid.next = self.dom1_valid.val();
        self.idle.d.next = self.idle.q.val() + 1;
        if self.idle.q.val() >= 64 {
            self.idle.d.next = 64.into();
        }
        self.accept.next = false;
        if self.go.val() {
            if self.filter.val() & !self.dom.in_domain.val() {
                self.counts[1].d.next = self.counts[1].q.val() + 1;
            } else if self.idle.q.val() < 64 {
                self.counts[2].d.next = self.counts[2].q.val() + 1;
            } else if (self.refill_clocks.val() != 0) & (self.bucket.tokens.val() == 0) {
                self.counts[3].d.next = self.counts[3].q.val() + 1;
            } else if (self.used.q.val() > 235) | self.msg_fifo.full.val() {
                self.counts[4].d.next = self.counts[4].q.val() + 1;
            } else {
                self.accept.next = true;
                self.counts[0].d.next = self.counts[0].q.val() + 1;
            }
        }
        self.bucket.reset.next = self.reset.val();
        self.bucket.refill_clocks.next = self.refill_clocks.val();
        self.bucket.depth.next = self.bucket_depth.val();
        self.bucket.take.next = self.accept.val() & (self.refill_clocks.val() != 0);
        if self.accept.val() {
            self.idle.d.next = 1.into();
            self.phase.d.next = 1.into();
            self.cnt.d.next = 0.into();
            self.inv_sum.d.next = 0.into();
            self.r_start.d.next = self.info[4].q.val().get_bits::<8>(0);
            self.r_inv_len.d.next = self.go_inv.val().get_bits::<11>(0);
            self.r_o6.d.next = self.go_max.val() > 600;
            self.r_t6.d.next = self.go_ipv6.val();
            self.r_level.d.next = self.go_level.val();
            self.r_proxy.d.next = self.go_proxy.val();
        }

        // Sizes of the message being made.
        self.hdr_len.next = 58.into();
        if self.r_o6.q.val() {
            self.hdr_len.next = 78.into();
        }
        if self.r_t6.q.val() {
            self.hdr_len.next = self.hdr_len.val() + 24;
        }
        self.l_out.next = self.hdr_len.val() + bit_cast::<12, 11>(self.r_inv_len.q.val());
        self.msg_beats_w.next = (self.l_out.val() + 63) >> 6;
        self.n_out.next = self.msg_beats_w.val().get_bits::<6>(0);
        self.inv_beats_w.next = (bit_cast::<12, 11>(self.r_inv_len.q.val()) + 14 + 63) >> 6;
        self.n_in.next = self.inv_beats_w.val().get_bits::<6>(0);
        self.ip_len.next = bit_cast::<16, 12>(self.l_out.val()) - 14;
        self.udp_len.next = bit_cast::<16, 12>(self.l_out.val()) - 34;
        if self.r_o6.q.val() {
            self.ip_len.next = bit_cast::<16, 12>(self.l_out.val()) - 54;
            self.udp_len.next = bit_cast::<16, 12>(self.l_out.val()) - 54;
        }
        self.ip_len_l.next = (self.ip_len.val() >> 8) | (self.ip_len.val() << 8);
        self.udp_len_l.next = (self.udp_len.val() >> 8) | (self.udp_len.val() << 8);
        self.port_l.next = (self.udp_port.val() >> 8) | (self.udp_port.val() << 8);

        // The CN header (at byte 0 here): version 1 and family, protocol 17,
        // level, the invoking frame's ports and addresses.
        self.cn.next = bit_cast::<1024, 8>(bits::<8>(0x14))
            | (bit_cast::<1024, 8>(bits::<8>(17)) << 8)
            | (bit_cast::<1024, 3>(self.r_level.q.val()) << 21)
            | (bit_cast::<1024, 32>(self.r_fb0.q.val().get_bits::<32>(272)) << 32)
            | (bit_cast::<1024, 64>(self.r_fb0.q.val().get_bits::<64>(208)) << 64);
        if self.r_t6.q.val() {
            self.cn.next = bit_cast::<1024, 8>(bits::<8>(0x16))
                | (bit_cast::<1024, 8>(bits::<8>(17)) << 8)
                | (bit_cast::<1024, 3>(self.r_level.q.val()) << 21)
                | (bit_cast::<1024, 32>(self.r_fb0.q.val().get_bits::<32>(432)) << 32)
                | (bit_cast::<1024, 256>(self.r_fb0.q.val().get_bits::<256>(176)) << 64);
        }
        // Ethernet, IP, UDP (checksums 0), the CN header.
        self.hdr0.next = bit_cast::<1024, 48>(self.r_fb0.q.val().get_bits::<48>(48))
            | (bit_cast::<1024, 48>(self.gw_mac.val()) << 48);
        if !self.r_o6.q.val() {
            self.hdr0.next = self.hdr0.val()
                | (bit_cast::<1024, 8>(bits::<8>(0x08)) << 96)
                | (bit_cast::<1024, 8>(bits::<8>(0x45)) << 112)
                | (bit_cast::<1024, 6>(self.dscp.val()) << 122)
                | (bit_cast::<1024, 16>(self.ip_len_l.val()) << 128)
                | (bit_cast::<1024, 8>(bits::<8>(0x40)) << 160)
                | (bit_cast::<1024, 8>(bits::<8>(64)) << 176)
                | (bit_cast::<1024, 8>(bits::<8>(17)) << 184)
                | (bit_cast::<1024, 32>(self.gw_ipv4.val()) << 208)
                | (bit_cast::<1024, 32>(self.r_proxy.q.val().get_bits::<32>(96)) << 240)
                | (bit_cast::<1024, 16>(self.port_l.val()) << 272)
                | (bit_cast::<1024, 16>(self.port_l.val()) << 288)
                | (bit_cast::<1024, 16>(self.udp_len_l.val()) << 304)
                | (self.cn.val() << 336);
        } else {
            self.hdr0.next = self.hdr0.val()
                | (bit_cast::<1024, 8>(bits::<8>(0x86)) << 96)
                | (bit_cast::<1024, 8>(bits::<8>(0xDD)) << 104)
                | (bit_cast::<1024, 8>(bits::<8>(0x60)) << 112)
                | (bit_cast::<1024, 4>(self.dscp.val().get_bits::<4>(2)) << 112)
                | (bit_cast::<1024, 2>(self.dscp.val().get_bits::<2>(0)) << 126)
                | (bit_cast::<1024, 16>(self.ip_len_l.val()) << 144)
                | (bit_cast::<1024, 8>(bits::<8>(17)) << 160)
                | (bit_cast::<1024, 8>(bits::<8>(64)) << 168)
                | (bit_cast::<1024, 128>(self.gw_ipv6.val()) << 176)
                | (bit_cast::<1024, 128>(self.r_proxy.q.val()) << 304)
                | (bit_cast::<1024, 16>(self.port_l.val()) << 432)
                | (bit_cast::<1024, 16>(self.port_l.val()) << 448)
                | (bit_cast::<1024, 16>(self.udp_len_l.val()) << 464)
                | (self.cn.val() << 496);
        }
        self.hdr.next = self.hdr0.val() | (bit_cast::<1024, 16>(self.r_udpck.q.val()) << 320);
        if !self.r_o6.q.val() {
            self.hdr.next = self.hdr.val() | (bit_cast::<1024, 16>(self.r_ipck.q.val()) << 192);
        } else {
            self.hdr.next = self.hdr0.val() | (bit_cast::<1024, 16>(self.r_udpck.q.val()) << 480);
        }

        // The ring's one read port: SUM, then COPY.
        self.rd_idx.next = self.r_start.q.val() + bit_cast::<8, 6>(self.cnt.q.val());
        self.ring.read_address.next = self.rd_idx.val();
        self.rd_v.d.next = false;
        self.cp_v.d.next = false;
        self.rd_k.d.next = self.cnt.q.val();
        self.cp_m.d.next = self.cnt.q.val();
        if self.phase.q.val() == 1 {
            // SUM: beats 0 .. n_in - 1.
            if self.cnt.q.val() < self.n_in.val() {
                self.rd_v.d.next = true;
                self.cnt.d.next = self.cnt.q.val() + 1;
            } else {
                self.phase.d.next = 2.into();
            }
        }
        if self.phase.q.val() == 2 {
            self.phase.d.next = 3.into();
            self.cnt.d.next = 0.into();
        }
        if self.phase.q.val() == 3 {
            // COPY: ring beats -q-1 .. n_out - q - 1 (q = 0 for an IPv4
            // message with an IPv4 five-tuple, else 1).
            self.ring.read_address.next = self.rd_idx.val() - 1;
            if self.r_o6.q.val() | self.r_t6.q.val() {
                self.ring.read_address.next = self.rd_idx.val() - 2;
            }
            if self.cnt.q.val() <= self.n_out.val() {
                self.cp_v.d.next = true;
                self.cnt.d.next = self.cnt.q.val() + 1;
            } else {
                self.phase.d.next = 0.into();
            }
        }

        // SUM: the kept bytes of beat k are frame bytes 14 .. 14 + inv_len.
        self.lo.next = 0.into();
        if self.rd_k.q.val() == 0 {
            self.lo.next = 14.into();
        }
        self.hi.next = bit_cast::<12, 11>(self.r_inv_len.q.val()) + 14
            - (bit_cast::<12, 6>(self.rd_k.q.val()) << 6);
        if self.hi.val() > 64 {
            self.hi.next = 64.into();
        }
        self.masked.next = self.ring.read_data.val()
            & (self.ones512.val() << (self.lo.val() << 3))
            & (self.ones512.val() >> ((bits::<12>(64) - self.hi.val()) << 3));
        // (bit_cast takes no loop index: 32-bit selections, masked.)
        self.acc.next = bit_cast::<32, 16>(self.masked.val().get_bits::<16>(496));
        for w in 0..31 {
            self.acc.next = self.acc.val() + (self.masked.val().get_bits::<32>(16 * w) & 0xFFFF);
        }
        if self.rd_v.q.val() {
            self.inv_sum.d.next = self.inv_sum.q.val() + self.acc.val();
            if self.rd_k.q.val() == 0 {
                self.r_fb0.d.next = self.ring.read_data.val();
            }
        }

        // FOLD: the IPv4 header's checksum; the UDP checksum over the
        // pseudo-header (addresses from the header, protocol, length), the
        // UDP and CN headers and the invoking bytes.
        self.s_ip.next = 0.into();
        for w in 7..17 {
            self.s_ip.next = self.s_ip.val() + (self.hdr0.val().get_bits::<32>(16 * w) & 0xFFFF);
        }
        self.s_udp.next = self.inv_sum.q.val() + 0x1100 + bit_cast::<32, 16>(self.udp_len_l.val());
        for w in 13..51 {
            self.s_udp.next = self.s_udp.val() + (self.hdr0.val().get_bits::<32>(16 * w) & 0xFFFF);
        }
        if self.r_o6.q.val() {
            self.s_udp.next = self.s_udp.val()
                + bit_cast::<32, 16>(self.hdr0.val().get_bits::<16>(176))
                + bit_cast::<32, 16>(self.hdr0.val().get_bits::<16>(192));
        }
        self.ip_fold1.next = (self.s_ip.val() & 0xFFFF) + (self.s_ip.val() >> 16);
        self.ip_fold2.next = (self.ip_fold1.val() & 0xFFFF) + (self.ip_fold1.val() >> 16);
        self.udp_fold1.next = (self.s_udp.val() & 0xFFFF) + (self.s_udp.val() >> 16);
        self.udp_fold2.next = (self.udp_fold1.val() & 0xFFFF) + (self.udp_fold1.val() >> 16);
        self.udpck.next = !self.udp_fold2.val().get_bits::<16>(0);
        if self.udpck.val() == 0 {
            self.udpck.next = 0xFFFF.into();
        }
        if self.phase.q.val() == 2 {
            self.r_ipck.d.next = !self.ip_fold2.val().get_bits::<16>(0);
            self.r_udpck.d.next = self.udpck.val();
        }

        // COPY: output beat j = m - 1 from ring beats m - 1 (prev) and m
        // (shifted by the header length less 14, modulo 64 bytes), the
        // header over its bytes, bytes past the message cleared.
        self.prev.d.next = self.ring.read_data.val();
        self.shift.next = 160.into(); // 8 * (64 - 44)
        if self.r_o6.q.val() {
            self.shift.next = 512.into(); // 8 * (64 - 0)
            if self.r_t6.q.val() {
                self.shift.next = 320.into(); // 8 * (64 - 24)
            }
        } else if self.r_t6.q.val() {
            self.shift.next = 480.into(); // 8 * (64 - 4)
        }
        self.joined.next = bit_cast::<1024, 512>(self.prev.q.val())
            | (bit_cast::<1024, 512>(self.ring.read_data.val()) << 512);
        self.joined_shift.next = self.joined.val() >> self.shift.val();
        self.shifted.next = self.joined_shift.val().get_bits::<512>(0);
        self.j.next = self.cp_m.q.val() - 1;
        self.ob_lo.next = 0.into();
        if self.j.val() == 0 {
            self.ob_lo.next = self.hdr_len.val();
        }
        if self.j.val() == 1 {
            self.ob_lo.next = self.hdr_len.val() - 64;
            if self.hdr_len.val() < 64 {
                self.ob_lo.next = 0.into();
            }
        }
        self.ob_hi.next = self.l_out.val() - (bit_cast::<12, 6>(self.j.val()) << 6);
        self.ob_last.next = self.ob_hi.val() <= 64;
        if self.ob_hi.val() > 64 {
            self.ob_hi.next = 64.into();
        }
        self.ob_nb.next = self.ob_hi.val().get_bits::<7>(0);
        self.ob_data.next = self.shifted.val()
            & (self.ones512.val() << (self.ob_lo.val() << 3))
            & (self.ones512.val() >> ((bits::<12>(64) - self.ob_hi.val()) << 3));
        if self.j.val() == 0 {
            self.ob_data.next = self.ob_data.val() | self.hdr.val().get_bits::<512>(0);
        }
        if self.j.val() == 1 {
            self.ob_data.next = self.ob_data.val() | self.hdr.val().get_bits::<512>(512);
        }
        self.ob_push.next = self.cp_v.q.val() & (self.cp_m.q.val() != 0);
        self.msg_fifo.push.next = self.ob_push.val();
        self.msg_fifo.push_data.next = bit_cast::<520, 512>(self.ob_data.val())
            | (bit_cast::<520, 7>(self.ob_nb.val()) << 513);
        if self.ob_last.val() {
            self.msg_fifo.push_data.next = bit_cast::<520, 512>(self.ob_data.val())
                | (bit_cast::<520, 7>(self.ob_nb.val()) << 513)
                | (bits::<520>(1) << 512);
        }

        // Output.
        self.m.tvalid.next = !self.msg_fifo.empty.val();
        self.m.tdata.next = self.msg_fifo.pop_data.val().get_bits::<512>(0);
        self.m.tlast.next = self.msg_fifo.pop_data.val().get_bit(512);
        self.m.tkeep.next =
            self.ones64.val() >> (bits::<7>(64) - self.msg_fifo.pop_data.val().get_bits::<7>(513));
        self.m.tuser.next = false;
        self.pop.next = !self.msg_fifo.empty.val() & self.m.tready.val();
        self.msg_fifo.pop.next = self.pop.val();
        if self.ob_push.val() & !self.pop.val() {
            self.used.d.next = self.used.q.val() + 1;
        }
        if !self.ob_push.val() & self.pop.val() {
            self.used.d.next = self.used.q.val() - 1;
        }
        self.msg_fifo.reset.next = self.reset.val();

        self.sent.next = self.counts[0].q.val();
        self.out_of_domain.next = self.counts[1].q.val();
        self.busy.next = self.counts[2].q.val();
        self.rate_limited.next = self.counts[3].q.val();
        self.queue_drops.next = self.counts[4].q.val();
        if self.clear_counters.val() | self.reset.val() {
            for i in 0..5 {
                self.counts[i].d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.idle.d.next = 64.into();
            self.used.d.next = 0.into();
            self.phase.d.next = 0.into();
            self.beats.d.next = 0.into();
            for i in 0..5 {
                self.info[i].d.next = 0.into();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_cn_generator_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<CnGenerator>("cn_generator");
    }
}
