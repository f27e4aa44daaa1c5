//! `RemoteAdviceReceiver`: the source gateway's side of Rate Advice's
//! remote mode (RA-04): claims, at its first beat, each RoCEv2 frame on
//! wan_rx addressed to this gateway, checks that it is a Rate Advice
//! message from a peer gateway and keeps each peer's advice.
//!
//! ```text
//!  tdata, tkeep, tlast, --->| first beat: claim?  |--> claim (combinational)
//!  tvalid, tready (tap)     | beats 0, 1 kept,    |
//!  enable, others, gw_* --->| length counted      |--> (clock H) opcode, version, length,
//!  opcode                   +---------------------+    source == peer k? --> peer k's advice, time
//!  peerN_addr, peerN_valid, now_us, timeout ----------------------------> peerN_mbps, peerN_live
//! ```
//! **Claim.** `claim` is high while a frame's first beat is on the tap and
//! shows, behind Ethernet with at most one 802.1Q tag, IPv4 with a 20-byte
//! header (0x45), not a fragment, protocol 17, destination `gw_ipv4`, or
//! IPv6 with next header 17 and destination `gw_ipv6`; UDP destination
//! port 4791; `enable`; and not `others` (another receiver of the gateway
//! takes this first beat: it has the frame). A claimed frame never reaches
//! dc_tx (the gateway's `FrameFilter`): the gateway has no QP of its own,
//! so every RoCEv2 frame to its address is for this block.
//!
//! **Check**, in the clock after the last beat (clock H, the clock the
//! parsed header is reported in), on the first 128 bytes: the BTH opcode
//! is `opcode` (RA_OPCODE), the body's version (bytes 4..7 after the
//! 12-byte BTH) is 1 and the frame holds the whole message (BTH, 16-byte
//! body, 4-byte ICRC: 74 bytes over IPv4, 94 over IPv6, four more behind a
//! tag). The ICRC is not checked (the MAC's FCS has checked the frame; the
//! ICRC adds no protection against forgery). A good message from the
//! address of a valid peer (`peerN_addr`, lane order, IPv4-mapped) sets
//! that peer's advice to the body's rate and its time to `now_us`
//! (`received` pulses in H; both peers when both have the address);
//! anything else pulses `refused`. The new advice is seen from H + 1.
//!
//! **Lapse.** `peerN_live` is high while the peer is valid, has sent
//! advice since reset and, unless `timeout` is 0, its last one is less
//! than `timeout` microseconds old; `peerN_mbps` is its advice while live,
//! else 0.
//!
//! Throughput: one beat per clock, frames back to back; the block never
//! stalls the stream.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RemoteAdviceReceiver {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// RA_REMOTE_CONTROL.accept and FEATURE_ENABLE.rate_advice.
    pub enable: Signal<In, Bit>,
    /// Another receiver claims this first beat.
    pub others: Signal<In, Bit>,
    pub tdata: Signal<In, Bits<512>>,
    pub tkeep: Signal<In, Bits<64>>,
    pub tlast: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<In, Bit>,
    /// The gateway's addresses, lane order.
    pub gw_ipv4: Signal<In, Bits<32>>,
    pub gw_ipv6: Signal<In, Bits<128>>,
    /// RA_OPCODE.
    pub opcode: Signal<In, Bits<8>>,
    pub peer0_addr: Signal<In, Bits<128>>,
    pub peer0_valid: Signal<In, Bit>,
    pub peer1_addr: Signal<In, Bits<128>>,
    pub peer1_valid: Signal<In, Bit>,
    pub now_us: Signal<In, Bits<32>>,
    pub timeout: Signal<In, Bits<32>>,
    /// The first beat on the tap is claimed (combinational).
    pub claim: Signal<Out, Bit>,
    /// One clock per claimed frame, in H.
    pub received: Signal<Out, Bit>,
    pub refused: Signal<Out, Bit>,
    pub peer0_mbps: Signal<Out, Bits<32>>,
    pub peer0_live: Signal<Out, Bit>,
    pub peer1_mbps: Signal<Out, Bits<32>>,
    pub peer1_live: Signal<Out, Bit>,
    /// 0: the next beat is a first beat; 1: a second; 2: a later one.
    beat: DFF<Bits<2>>,
    tracking: DFF<Bit>,
    done: DFF<Bit>,
    r_v6: DFF<Bit>,
    r_vlan: DFF<Bit>,
    r_src: DFF<Bits<128>>,
    r_beat0: DFF<Bits<512>>,
    r_beat1: DFF<Bits<512>>,
    r_len: DFF<Bits<16>>,
    p0_seen: DFF<Bit>,
    p0_rate: DFF<Bits<32>>,
    p0_us: DFF<Bits<32>>,
    p1_seen: DFF<Bit>,
    p1_rate: DFF<Bits<32>>,
    p1_us: DFF<Bits<32>>,
    transfer: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    vlan: Signal<Local, Bit>,
    ra_ip: Signal<Local, Bits<512>>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    claimed: Signal<Local, Bit>,
    beat_bytes: Signal<Local, Bits<16>>,
    ra_window: Signal<Local, Bits<1024>>,
    opc: Signal<Local, Bits<8>>,
    ver_lanes: Signal<Local, Bits<32>>,
    min_len: Signal<Local, Bits<16>>,
    rate_lanes: Signal<Local, Bits<32>>,
    good: Signal<Local, Bit>,
    hit0: Signal<Local, Bit>,
    hit1: Signal<Local, Bit>,
    live0: Signal<Local, Bit>,
    live1: Signal<Local, Bit>,
}

impl Logic for RemoteAdviceReceiver {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, beat, tracking, done, r_v6, r_vlan, r_src, r_beat0, r_beat1, r_len,
            p0_seen, p0_rate, p0_us, p1_seen, p1_rate, p1_us
        );
        self.transfer.next = self.tvalid.val() & self.tready.val();
        self.first.next = self.beat.q.val() == 0;

        // Claim: the first beat from the IP header on (`ra_ip`, lane order).
        // EtherType lanes: 0x8100 -> 0x0081, 0x0800 -> 0x0008, 0x86DD ->
        // 0xDD86; UDP port 4791 (0x12B7) -> 0xB712.
        self.vlan.next = self.tdata.val().get_bits::<16>(96) == 0x0081;
        self.ra_ip.next = self.tdata.val() >> 112;
        self.is_v4.next = self.tdata.val().get_bits::<16>(96) == 0x0008;
        self.is_v6.next = self.tdata.val().get_bits::<16>(96) == 0xdd86;
        if self.vlan.val() {
            self.ra_ip.next = self.tdata.val() >> 144;
            self.is_v4.next = self.tdata.val().get_bits::<16>(128) == 0x0008;
            self.is_v6.next = self.tdata.val().get_bits::<16>(128) == 0xdd86;
        }
        self.is_v4.next = self.is_v4.val()
            & (self.ra_ip.val().get_bits::<8>(0) == 0x45)
            & ((self.ra_ip.val().get_bits::<16>(48) & 0xff3f) == 0)
            & (self.ra_ip.val().get_bits::<8>(72) == 17)
            & (self.ra_ip.val().get_bits::<32>(128) == self.gw_ipv4.val())
            & (self.ra_ip.val().get_bits::<16>(176) == 0xB712);
        self.is_v6.next = self.is_v6.val()
            & (self.ra_ip.val().get_bits::<4>(4) == 6)
            & (self.ra_ip.val().get_bits::<8>(48) == 17)
            & (self.ra_ip.val().get_bits::<128>(192) == self.gw_ipv6.val())
            & (self.ra_ip.val().get_bits::<16>(336) == 0xB712);
        self.claimed.next = self.first.val()
            & self.enable.val()
            & !self.others.val()
            & (self.is_v4.val() | self.is_v6.val());
        self.claim.next = self.tvalid.val() & self.claimed.val();

        // Capture: beats 0 and 1, the source address, the length.
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
                self.r_beat0.d.next = self.tdata.val();
                self.r_beat1.d.next = 0.into();
                self.r_len.d.next = self.beat_bytes.val();
                self.r_vlan.d.next = self.vlan.val();
                self.r_v6.d.next = self.is_v6.val();
                // IPv4-mapped: bytes 10, 11 are 0xff, 12..15 the address.
                self.r_src.d.next = (bit_cast::<128, 32>(self.ra_ip.val().get_bits::<32>(96))
                    << 96)
                    | (bits::<128>(0xffff) << 80);
                if self.is_v6.val() {
                    self.r_src.d.next = self.ra_ip.val().get_bits::<128>(64);
                }
            } else {
                self.done.d.next = self.tlast.val() & self.tracking.q.val();
                if self.r_len.q.val() < 0xff00 {
                    self.r_len.d.next = self.r_len.q.val() + self.beat_bytes.val();
                }
            }
            if self.beat.q.val() == 1 {
                self.r_beat1.d.next = self.tdata.val();
            }
            if self.tlast.val() {
                self.beat.d.next = 0.into();
            } else if self.beat.q.val() != 2 {
                self.beat.d.next = self.beat.q.val() + 1;
            }
        }

        // Check in H: the BTH at 42 (IPv4), 46 (IPv4, tag), 62 (IPv6) or
        // 66 (IPv6, tag) bytes; the body's rate 12 bytes later, its
        // version 16 (lanes of 1: 0x0100_0000).
        self.ra_window.next = bit_cast::<1024, 512>(self.r_beat0.q.val())
            | (bit_cast::<1024, 512>(self.r_beat1.q.val()) << 512);
        self.opc.next = self.ra_window.val().get_bits::<8>(336);
        self.rate_lanes.next = self.ra_window.val().get_bits::<32>(432);
        self.ver_lanes.next = self.ra_window.val().get_bits::<32>(464);
        self.min_len.next = 74.into();
        if self.r_v6.q.val() {
            self.opc.next = self.ra_window.val().get_bits::<8>(496);
            self.rate_lanes.next = self.ra_window.val().get_bits::<32>(592);
            self.ver_lanes.next = self.ra_window.val().get_bits::<32>(624);
            self.min_len.next = 94.into();
        }
        if self.r_vlan.q.val() {
            self.opc.next = self.ra_window.val().get_bits::<8>(368);
            self.rate_lanes.next = self.ra_window.val().get_bits::<32>(464);
            self.ver_lanes.next = self.ra_window.val().get_bits::<32>(496);
            self.min_len.next = 78.into();
            if self.r_v6.q.val() {
                self.opc.next = self.ra_window.val().get_bits::<8>(528);
                self.rate_lanes.next = self.ra_window.val().get_bits::<32>(624);
                self.ver_lanes.next = self.ra_window.val().get_bits::<32>(656);
                self.min_len.next = 98.into();
            }
        }
        self.good.next = (self.opc.val() == self.opcode.val())
            & (self.ver_lanes.val() == 0x0100_0000)
            & (self.r_len.q.val() >= self.min_len.val());
        self.hit0.next = self.good.val()
            & self.peer0_valid.val()
            & (self.r_src.q.val() == self.peer0_addr.val());
        self.hit1.next = self.good.val()
            & self.peer1_valid.val()
            & (self.r_src.q.val() == self.peer1_addr.val());
        self.received.next = self.done.q.val() & (self.hit0.val() | self.hit1.val());
        self.refused.next = self.done.q.val() & !self.hit0.val() & !self.hit1.val();
        if self.done.q.val() & self.hit0.val() {
            self.p0_seen.d.next = true;
            self.p0_us.d.next = self.now_us.val();
            self.p0_rate.d.next = (self.rate_lanes.val() >> 24)
                | ((self.rate_lanes.val() >> 8) & 0xFF00)
                | ((self.rate_lanes.val() << 8) & 0xFF_0000)
                | (self.rate_lanes.val() << 24);
        }
        if self.done.q.val() & self.hit1.val() {
            self.p1_seen.d.next = true;
            self.p1_us.d.next = self.now_us.val();
            self.p1_rate.d.next = (self.rate_lanes.val() >> 24)
                | ((self.rate_lanes.val() >> 8) & 0xFF00)
                | ((self.rate_lanes.val() << 8) & 0xFF_0000)
                | (self.rate_lanes.val() << 24);
        }

        // Lapse.
        self.live0.next = self.peer0_valid.val()
            & self.p0_seen.q.val()
            & ((self.timeout.val() == 0)
                | ((self.now_us.val() - self.p0_us.q.val()) < self.timeout.val()));
        self.live1.next = self.peer1_valid.val()
            & self.p1_seen.q.val()
            & ((self.timeout.val() == 0)
                | ((self.now_us.val() - self.p1_us.q.val()) < self.timeout.val()));
        self.peer0_live.next = self.live0.val();
        self.peer1_live.next = self.live1.val();
        self.peer0_mbps.next = 0.into();
        if self.live0.val() {
            self.peer0_mbps.next = self.p0_rate.q.val();
        }
        self.peer1_mbps.next = 0.into();
        if self.live1.val() {
            self.peer1_mbps.next = self.p1_rate.q.val();
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.tracking.d.next = false;
            self.done.d.next = false;
            self.p0_seen.d.next = false;
            self.p1_seen.d.next = false;
        }
    }
}
