//! FCN-03, PE-04, FCN-06: the congested WAN node's Fast CNPs
//! (draft-he-fcn-in-wan), the rules of `hdl/src/fcn/fast_cnp_source.rs`.
//!
//! While `FEATURE_ENABLE.fast_cnp` and `FCN_CONTROL.wan_node` are set, every
//! ECT(0)/ECT(1) frame toward the WAN takes a two-threshold draw (PE-03,
//! [`crate::pre_ecn`]), whether or not `PE_CONTROL.wan_marking` lets the
//! draw remark the frame. A draw that says CE asks for a severe Fast CNP, one
//! that says ECT(1) for a light one, with the level of [`level`]. In the
//! clock after the draw ([`DECISION_DELAY`]): a frame that is not IPv6 or
//! has flow label 0 is counted in `FCN_NO_LABEL`; without a token (the
//! `FCN_BUCKET_*` bucket, [`crate::bucket`]) it is counted in
//! `FCN_RATE_LIMITED`; otherwise a Fast CNP goes to the frame's outer source
//! address and source MAC, from `GW_IPV6`/`GW_MAC` with DSCP `NOTIFY_DSCP`,
//! UDP ports `FCN_UDP_PORT`, and is counted in `FCN_SENT` (and, as every
//! notification, in `NOTIFY_TX_FRAMES` and `DC_TX_FRAMES`). The model
//! assumes the builder drains the RTL's 8-job queue (`FCN_QUEUE_DROPS`
//! stays 0).

use crate::bucket::{depth_of, TokenBucket};
use crate::longhaul::{gw_ipv6, gw_mac, Notification, RegistersMut};
use crate::pre_ecn::{Mark, ALWAYS};
use cngw_packet::envelope::Envelope;
use cngw_packet::fast_cnp::FastCnp;
use cngw_regmap::{fcn_control, offset};
use std::net::Ipv6Addr;

/// Clocks from the draw (the frame's first beat in the CE marker) to the
/// decision (the block registers its inputs).
pub const DECISION_DELAY: u64 = 1;

/// PE-04: the congestion level of a Fast CNP for a draw that marked `mark`
/// with probability `p` (0..=65536): light (ECT(1)) `1 + min(2, 3p/65536)`,
/// severe (CE) `4 + min(3, p/16384)`; 0 when the draw did not mark.
pub fn level(mark: Mark, p: u32) -> u8 {
    let p = p.min(ALWAYS) as u64;
    match mark {
        Mark::None => 0,
        Mark::Ect1 => 1 + ((3 * p) >> 16).min(2) as u8,
        Mark::Ce => 4 + (p >> 14).min(3) as u8,
    }
}

/// The frame fields a Fast CNP decision uses (`None` address: not IPv6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkedFrame {
    pub src: Option<Ipv6Addr>,
    pub flow_label: u32,
    pub src_mac: [u8; 6],
}

impl MarkedFrame {
    /// The outer header of `frame` (one 802.1Q tag understood).
    pub fn of(frame: &[u8]) -> MarkedFrame {
        let src_mac = frame[6..12].try_into().unwrap();
        let l3 = if frame[12..14] == [0x81, 0x00] {
            18
        } else {
            14
        };
        let ethertype = u16::from_be_bytes([frame[l3 - 2], frame[l3 - 1]]);
        if ethertype != cngw_packet::parsed::ETHERTYPE_IPV6 || frame.len() < l3 + 40 {
            return MarkedFrame {
                src: None,
                flow_label: 0,
                src_mac,
            };
        }
        let h = &frame[l3..l3 + 40];
        let src: [u8; 16] = h[8..24].try_into().unwrap();
        MarkedFrame {
            src: Some(Ipv6Addr::from(src)),
            flow_label: u32::from_be_bytes([0, h[1] & 0xF, h[2], h[3]]),
            src_mac,
        }
    }
}

/// The congested WAN node's Fast CNP source.
#[derive(Clone, Debug, Default)]
pub struct FastCnpModel {
    reset_clock: u64,
    bucket: TokenBucket,
    pending: Vec<Notification>,
}

/// The congested-WAN-node role is on.
pub fn wan_node(r: &dyn crate::longhaul::Registers) -> bool {
    r.reg(offset::FEATURE_ENABLE) & cngw_regmap::feature::FAST_CNP != 0
        && r.reg(offset::FCN_CONTROL) & fcn_control::WAN_NODE != 0
}

impl FastCnpModel {
    /// The state after a reset released at absolute clock `reset_clock`.
    pub fn new(reset_clock: u64) -> Self {
        FastCnpModel {
            reset_clock,
            ..Default::default()
        }
    }

    /// A draw in absolute clock `draw_clock` marked `frame` with `mark`
    /// (probability `p`). Clocks must not decrease from call to call.
    pub fn marked(
        &mut self,
        frame: &MarkedFrame,
        mark: Mark,
        p: u32,
        draw_clock: u64,
        regs: &mut dyn RegistersMut,
    ) {
        if mark == Mark::None || !wan_node(regs.view()) {
            return;
        }
        let clock = draw_clock + DECISION_DELAY;
        let (Some(dst), true) = (frame.src, frame.flow_label != 0) else {
            regs.count(offset::FCN_NO_LABEL);
            return;
        };
        let r = regs.view();
        let k = clock.saturating_sub(self.reset_clock);
        let depth = depth_of(r.reg(offset::FCN_BUCKET_DEPTH));
        let refill = r.reg(offset::FCN_BUCKET_REFILL_CLOCKS);
        if self.bucket.tokens_at(k, depth, refill) == 0 {
            regs.count(offset::FCN_RATE_LIMITED);
            return;
        }
        self.bucket.take(k, depth);
        let port = r.reg(offset::FCN_UDP_PORT) as u16;
        let env = Envelope::ipv6(gw_ipv6(r), dst)
            .with_macs(gw_mac(r), frame.src_mac)
            .with_dscp((r.reg(offset::NOTIFY_DSCP) & 0x3F) as u8);
        let mut f = FastCnp::new(frame.flow_label, level(mark, p))
            .to_frame(&env, port, port)
            .to_bytes();
        if r.reg(offset::FCN_CONTROL) & fcn_control::COPY_LABEL == 0 {
            // The label only in the payload: IPv6 bytes 1..3 (the UDP
            // checksum does not cover it).
            f[15] &= 0xF0;
            f[16] = 0;
            f[17] = 0;
        }
        regs.count(offset::FCN_SENT);
        crate::longhaul::count_sent(regs);
        self.pending.push(Notification {
            clock,
            frame: crate::Frame::new(f),
        });
    }

    /// The Fast CNPs decided so far, in order (taken out).
    pub fn take(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_04_levels_rise_with_the_marking_probability() {
        assert_eq!(level(Mark::None, ALWAYS), 0);
        assert_eq!(level(Mark::Ect1, 0), 1);
        assert_eq!(level(Mark::Ect1, 21_845), 1);
        assert_eq!(level(Mark::Ect1, 21_846), 2);
        assert_eq!(level(Mark::Ect1, 43_690), 2);
        assert_eq!(level(Mark::Ect1, 43_691), 3);
        assert_eq!(level(Mark::Ect1, ALWAYS), 3);
        assert_eq!(level(Mark::Ce, 1), 4);
        assert_eq!(level(Mark::Ce, 16_383), 4);
        assert_eq!(level(Mark::Ce, 16_384), 5);
        assert_eq!(level(Mark::Ce, 49_152), 7);
        assert_eq!(level(Mark::Ce, ALWAYS), 7);
    }

    #[test]
    fn fcn_03_outer_fields_of_a_frame() {
        let f = cngw_packet::RoceFrameBuilder::ipv6(
            "fd00::7".parse().unwrap(),
            "fd00::9".parse().unwrap(),
        )
        .flow_label(0xABCDE)
        .build();
        let m = MarkedFrame::of(&f);
        assert_eq!(m.src, Some("fd00::7".parse().unwrap()));
        assert_eq!(m.flow_label, 0xABCDE);
        assert_eq!(m.src_mac, <[u8; 6]>::try_from(&f[6..12]).unwrap());
        let v4 =
            cngw_packet::RoceFrameBuilder::ipv4([10, 0, 0, 1].into(), [10, 0, 0, 2].into()).build();
        assert_eq!(MarkedFrame::of(&v4).src, None);
    }
}
