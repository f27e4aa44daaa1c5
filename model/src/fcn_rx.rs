//! FCN-05, FCN-06: the ingress PE's reception of Fast CNPs
//! (draft-he-fcn-in-wan section 4.1), the rules of
//! `hdl/src/fcn/fast_cnp_receiver.rs` and `hdl/src/fcn/fcn_translator.rs`
//! as the gateway wires them.
//!
//! While `FEATURE_ENABLE.fast_cnp` and `FCN_CONTROL.ingress_pe` are set, a
//! frame on wan_rx is *claimed* when its first 64 bytes show Ethernet (one
//! 802.1Q tag understood), IPv6, next header 17, destination `GW_IPV6` and
//! UDP destination port `FCN_UDP_PORT`. A claimed frame is counted in
//! `FCN_RX_RECEIVED` (and by the wan_rx parser counters, as every frame)
//! but does not reach dc_tx. In the clock after its last beat (the clock
//! its parsed header is reported in) it is checked, in this order:
//! 1. the IPv6 payload length and the UDP length are 12, the frame holds
//!    the 66 bytes (70 with a tag), the UDP checksum is not 0 and verifies
//!    over the IPv6 pseudo-header: else `FCN_RX_MALFORMED`;
//! 2. the source lies in a valid `FCN_RX_DOMn` prefix: else
//!    `FCN_RX_OUT_OF_DOMAIN`;
//! 3. the label is 1..=16392 (FCN-01: a place in the flow table): else
//!    `FCN_RX_UNKNOWN_LABEL`;
//! 4. a token of the `FCN_RX_BUCKET_*` bucket: else `FCN_RX_RATE_LIMITED`.
//!
//! The flow table is then read at the label's place: no flow there
//! (`FCN_RX_UNKNOWN_LABEL`), a flow without a source QP (`FCN_RX_NO_SQP`),
//! else a standard CNP from `GW_IPV4`/`GW_IPV6` (by the sender's family)
//! and `GW_MAC` to the flow's source address and `FCN_CNP_MAC_*`, DSCP
//! `NOTIFY_DSCP`, P_Key 0xFFFF, DestQP the flow's source QP, counted in
//! `FCN_RX_CNP_SENT`. The congestion level is not carried by a standard
//! CNP. The model assumes the translation's four slots never fill
//! (`FCN_RX_QUEUE_DROPS` stays 0) and that the flow table does not change
//! between the check and the read.

use crate::bucket::{depth_of, TokenBucket};
use crate::longhaul::{gw_ipv6, gw_mac, Notification, Registers, RegistersMut};
use crate::placement::Location;
use cngw_packet::checksum::udp_checksum_ipv6;
use cngw_packet::cnp::Cnp;
use cngw_packet::envelope::Envelope;
use cngw_regmap::{fcn_control, fcn_rx_dom_control, feature, offset};
use std::net::{Ipv4Addr, Ipv6Addr};

/// Clocks from the frame's parsed header to the translation's decision
/// (the receiver's pulse comes in the same clock as the parser's report).
pub const DECISION_DELAY: u64 = 0;

/// The ingress-PE reception is on.
pub fn ingress_pe(r: &dyn Registers) -> bool {
    r.reg(offset::FEATURE_ENABLE) & feature::FAST_CNP != 0
        && r.reg(offset::FCN_CONTROL) & fcn_control::INGRESS_PE != 0
}

/// The first 64 bytes of `frame` (missing bytes read as 0, as lanes
/// outside `tkeep` in the simulation), and where its IPv6 header starts.
fn first_beat(frame: &[u8]) -> ([u8; 64], usize) {
    let mut b = [0u8; 64];
    let n = frame.len().min(64);
    b[..n].copy_from_slice(&frame[..n]);
    let l3 = if b[12..14] == [0x81, 0x00] { 18 } else { 14 };
    (b, l3)
}

/// A received Fast CNP as the receiver reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Received {
    pub src: Ipv6Addr,
    pub label: u32,
    pub level: u8,
    pub well_formed: bool,
    pub checksum_ok: bool,
}

/// FCN-05: `frame` on wan_rx is a Fast CNP for this PE (taken off the
/// path to dc_tx); its fields when it is.
pub fn claim(frame: &[u8], r: &dyn Registers) -> Option<Received> {
    if !ingress_pe(r) {
        return None;
    }
    let (b, l3) = first_beat(frame);
    let ethertype = u16::from_be_bytes([b[l3 - 2], b[l3 - 1]]);
    let dst: [u8; 16] = b[l3 + 24..l3 + 40].try_into().unwrap();
    let dport = u16::from_be_bytes([b[l3 + 42], b[l3 + 43]]);
    if ethertype != cngw_packet::parsed::ETHERTYPE_IPV6
        || b[l3 + 6] != 17
        || Ipv6Addr::from(dst) != gw_ipv6(r)
        || dport != (r.reg(offset::FCN_UDP_PORT) & 0xFFFF) as u16
    {
        return None;
    }
    // Bytes past the frame read as 0 (a second beat the frame lacks).
    let at = |i: usize| frame.get(i).copied().unwrap_or(0);
    let src: [u8; 16] = b[l3 + 8..l3 + 24].try_into().unwrap();
    let src = Ipv6Addr::from(src);
    let udp = l3 + 40;
    let complete = frame.len() >= udp + 12;
    let payload_len = u16::from_be_bytes([b[l3 + 4], b[l3 + 5]]);
    let udp_len = u16::from_be_bytes([at(udp + 4), at(udp + 5)]);
    let p = [at(udp + 8), at(udp + 9), at(udp + 10), at(udp + 11)];
    // Only the verdict matters (a wrong UDP length fails the frame
    // anyway), so the datagram's 12 bytes are summed with the checksum.
    let checksum_ok = complete && u16::from_be_bytes([at(udp + 6), at(udp + 7)]) != 0 && {
        let mut d = frame[udp..udp + 12].to_vec();
        let stored = u16::from_be_bytes([d[6], d[7]]);
        d[6] = 0;
        d[7] = 0;
        udp_checksum_ipv6(src, Ipv6Addr::from(dst), &d) == stored
    };
    Some(Received {
        src,
        label: u32::from_be_bytes([0, p[0], p[1], p[2]]) >> 4,
        level: (p[2] >> 1) & 7,
        well_formed: complete && payload_len == 12 && udp_len == 12,
        checksum_ok,
    })
}

/// FCN-06: `src` lies in a valid `FCN_RX_DOMn` prefix.
pub fn in_domain(src: Ipv6Addr, r: &dyn Registers) -> bool {
    [
        (offset::FCN_RX_DOM0_PREFIX_0, offset::FCN_RX_DOM0_CONTROL),
        (offset::FCN_RX_DOM1_PREFIX_0, offset::FCN_RX_DOM1_CONTROL),
    ]
    .into_iter()
    .any(|(prefix, control)| prefix_covers(src, r, prefix, control))
}

/// The prefix in the four registers from `prefix` (network order, IPv4 as
/// `::ffff:a.b.c.d`) with the valid bit and length of register `control`
/// (`FCN_RX_DOMn_CONTROL`'s fields) covers `src` (the hardware's
/// `PrefixMatch`).
pub fn prefix_covers(src: Ipv6Addr, r: &dyn Registers, prefix: u32, control: u32) -> bool {
    let c = r.reg(control);
    if c & fcn_rx_dom_control::VALID == 0 {
        return false;
    }
    let len = ((c >> fcn_rx_dom_control::LEN_SHIFT) & 0xFF).min(128);
    let mut p = [0u8; 16];
    for i in 0..4 {
        p[4 * i..4 * i + 4].copy_from_slice(&r.reg(prefix + 4 * i as u32).to_be_bytes());
    }
    let mask = if len == 0 {
        0
    } else {
        u128::MAX << (128 - len)
    };
    (u128::from(src) ^ u128::from_be_bytes(p)) & mask == 0
}

/// A Fast CNP that passed the checks, waiting for the read of its label's
/// place: the translator shows it on `rd_valid` from clock `ready` (the
/// clock after `msg_valid`), and the gateway grants it in the first clock
/// from then on in which no data-path look-up or learning request takes the
/// flow table (before the proxy's reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FcnRead {
    /// The first clock the read may take the table.
    pub ready: u64,
    /// The decision clock (`msg_valid`).
    pub clock: u64,
    /// The place the label names.
    pub place: Location,
}

/// The ingress PE's translation of received Fast CNPs.
#[derive(Clone, Debug, Default)]
pub struct FcnRxModel {
    reset_clock: u64,
    bucket: TokenBucket,
    pending: Vec<Notification>,
    light: Vec<LightNote>,
}

/// PE-05: a light Fast CNP (level 1..3) the PE keeps for its own shaper
/// while `PE_SHAPER_CONTROL.enable` (and the tunnel's ingress role) is on:
/// checked and rate-limited like any, then no CNP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LightNote {
    /// The clock the shaper sees it (the translator's decision clock).
    pub clock: u64,
    pub label: u32,
}

/// PE-05: the light notifications this PE handles itself.
pub fn keeps_light(msg: &Received, r: &dyn Registers) -> bool {
    r.reg(offset::TUNNEL_CONTROL) & cngw_regmap::tunnel_control::INGRESS_PE != 0
        && r.reg(offset::PE_SHAPER_CONTROL) & cngw_regmap::pe_shaper::ENABLE != 0
        && (1..=3).contains(&msg.level)
}

impl FcnRxModel {
    /// The state after a reset released at absolute clock `reset_clock`.
    pub fn new(reset_clock: u64) -> Self {
        FcnRxModel {
            reset_clock,
            ..Default::default()
        }
    }

    /// A claimed Fast CNP decided in absolute clock `clock`: the checks,
    /// the bucket and the shaper's light notifications; a message that
    /// passes them is a read of its label's place in the flow table,
    /// returned, which [`Self::answer`] finishes with the table as the read
    /// finds it.
    pub fn received(
        &mut self,
        msg: &Received,
        clock: u64,
        regs: &mut dyn RegistersMut,
    ) -> Option<FcnRead> {
        let r = regs.view();
        if !(msg.well_formed && msg.checksum_ok) {
            regs.count(offset::FCN_RX_MALFORMED);
            return None;
        }
        if !in_domain(msg.src, r) {
            regs.count(offset::FCN_RX_OUT_OF_DOMAIN);
            return None;
        }
        let Some(place) = Location::of_label(msg.label) else {
            regs.count(offset::FCN_RX_UNKNOWN_LABEL);
            return None;
        };
        let k = clock.saturating_sub(self.reset_clock);
        let depth = depth_of(r.reg(offset::FCN_RX_BUCKET_DEPTH));
        let refill = r.reg(offset::FCN_RX_BUCKET_REFILL_CLOCKS);
        if self.bucket.tokens_at(k, depth, refill) == 0 {
            regs.count(offset::FCN_RX_RATE_LIMITED);
            return None;
        }
        self.bucket.take(k, depth);
        if keeps_light(msg, r) {
            self.light.push(LightNote {
                clock,
                label: msg.label,
            });
            return None;
        }
        Some(FcnRead {
            ready: clock + 1,
            clock,
            place,
        })
    }

    /// The read of `read`'s place done: `flow` is the flow there, `(source
    /// address, source QP)` (`None`: no entry). A standard CNP to the
    /// flow's sender, or the count of why not.
    pub fn answer(
        &mut self,
        read: &FcnRead,
        flow: Option<([u8; 16], Option<u32>)>,
        regs: &mut dyn RegistersMut,
    ) {
        let Some((sip, sqp)) = flow else {
            regs.count(offset::FCN_RX_UNKNOWN_LABEL);
            return;
        };
        let Some(sqp) = sqp else {
            regs.count(offset::FCN_RX_NO_SQP);
            return;
        };
        let frame = translated_cnp(sip, sqp, regs.view());
        regs.count(offset::FCN_RX_CNP_SENT);
        crate::longhaul::count_sent(regs);
        self.pending.push(Notification {
            clock: read.clock,
            frame: crate::Frame::new(frame),
        });
    }

    /// The light notifications handed to the shaper so far (taken out).
    pub fn take_light(&mut self) -> Vec<LightNote> {
        std::mem::take(&mut self.light)
    }

    /// The standard CNPs decided so far, in order (taken out).
    pub fn take(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.pending)
    }
}

/// The standard CNP a translation sends (FCN-05, PX-02): from `GW_IPV4`
/// or `GW_IPV6` (by the sender's family) and `GW_MAC` to the sender `sip`
/// (IPv4-mapped for IPv4) and `FCN_CNP_MAC_*`, DSCP `NOTIFY_DSCP`, P_Key
/// 0xFFFF, DestQP `sqp`.
pub fn translated_cnp(sip: [u8; 16], sqp: u32, r: &dyn Registers) -> Vec<u8> {
    let sender = Ipv6Addr::from(sip);
    let env = match sender.to_ipv4_mapped() {
        Some(v4) => Envelope::ipv4(Ipv4Addr::from(r.reg(offset::GW_IPV4)), v4),
        None => Envelope::ipv6(gw_ipv6(r), sender),
    };
    let env = env
        .with_macs(gw_mac(r), cnp_mac(r))
        .with_dscp((r.reg(offset::NOTIFY_DSCP) & 0x3F) as u8);
    Cnp::new(sqp).to_frame(&env).to_bytes()
}

/// `FCN_CNP_MAC_HI`/`_LO`: the destination MAC of the ingress PE's CNPs.
pub fn cnp_mac(r: &dyn Registers) -> [u8; 6] {
    crate::longhaul::mac_registers(r, offset::FCN_CNP_MAC_HI, offset::FCN_CNP_MAC_LO)
}
