//! PX-01, PX-04: the congested node's side of the proxy draft — CN
//! messages to the proxy that serves a sender, the rules of
//! `hdl/src/px/cn_generator.rs` as the gateway wires it.
//!
//! While `FEATURE_ENABLE.proxy_cn` and `PROXY_CONTROL.generate` are set, a
//! notification the Long-haul controller decides (LH-05..LH-09: every
//! check of [`crate::longhaul::LonghaulModel::decide`], its tracker and its
//! bucket) for an untagged RoCEv2 frame from dc_rx whose sender the
//! prefix -> proxy table covers (PX-03) is not sent to the sender: the
//! controller hands it to the CN generator instead (the flow stays in the
//! tracker as if told with a standard CNP, so it gets no Resume). Decided
//! in clock D, the generator applies, in this order:
//! 1. with `PROXY_CONTROL.filter`, the proxy lies in a valid `FCN_RX_DOMn`
//!    prefix (IPv4 as IPv4-mapped): else `PROXY_TX_OUT_OF_DOMAIN` (PX-04:
//!    a CN message never leaves the domain);
//! 2. D is at least [`BUSY_CLOCKS`] after the last message taken: else
//!    `PROXY_TX_BUSY`;
//! 3. with `PROXY_TX_BUCKET_REFILL_CLOCKS` not 0, a token of that bucket:
//!    else `PROXY_TX_RATE_LIMITED`;
//! 4. room for the message in the output queue (the model assumes there
//!    is: `PROXY_TX_QUEUE_DROPS` stays 0).
//!
//! The message ([`cn_message`]) is counted in `PROXY_TX_SENT` and leaves
//! on dc_tx, between other frames.

use crate::bucket::{depth_of, TokenBucket};
use crate::longhaul::{gw_ipv6, gw_mac, Notification, Registers, RegistersMut};
use cngw_packet::envelope::{Envelope, IpPair};
use cngw_packet::parsed::ParsedHeader;
use cngw_packet::proxy_cn::{FiveTuple, ProxyCnMessage};
use cngw_regmap::{feature, offset, proxy};
use std::net::{Ipv4Addr, Ipv6Addr};

/// Clocks the generator takes to copy a message (it takes no other one
/// meanwhile): a fixed time, so that which messages are lost never depends
/// on the output's backpressure.
pub const BUSY_CLOCKS: u64 = 64;

/// Generation is on.
pub fn enabled(r: &dyn Registers) -> bool {
    r.reg(offset::FEATURE_ENABLE) & feature::PROXY_CN != 0
        && r.reg(offset::PROXY_CONTROL) & proxy::GENERATE != 0
}

/// The CN message for the invoking frame `frame` (untagged Ethernet, its
/// parsed header `parsed`), sent to `proxy` (IPv4-mapped for an IPv4
/// proxy, which gets an IPv4 message from `GW_IPV4`; otherwise IPv6 from
/// `GW_IPV6`) with congestion level `level`: to the frame's source MAC (the
/// previous hop, as for notifications), from `GW_MAC`, DSCP `NOTIFY_DSCP`,
/// UDP ports both `PROXY_UDP_PORT`; the five-tuple of the frame (RoCEv2:
/// UDP, its source port, 4791), the invoking packet from the frame's IP
/// header on, cut to the draft's 576 / 1280 bytes; UDP checksum computed.
pub fn cn_message(
    frame: &[u8],
    parsed: &ParsedHeader,
    proxy: Ipv6Addr,
    level: u8,
    r: &dyn Registers,
) -> Vec<u8> {
    let addrs = if parsed.is_ipv6 {
        IpPair::V6 {
            src: Ipv6Addr::from(parsed.src_ip),
            dst: Ipv6Addr::from(parsed.dst_ip),
        }
    } else {
        let v4 = |a: [u8; 16]| Ipv4Addr::new(a[12], a[13], a[14], a[15]);
        IpPair::V4 {
            src: v4(parsed.src_ip),
            dst: v4(parsed.dst_ip),
        }
    };
    let msg = ProxyCnMessage {
        five_tuple: FiveTuple {
            addrs,
            protocol: cngw_packet::checksum::IPPROTO_UDP,
            src_port: parsed.udp_src_port,
            dst_port: cngw_packet::udp::ROCEV2_PORT,
        },
        level: level.min(7),
        invoking_packet: frame[14..].to_vec(),
    };
    let env = match proxy.to_ipv4_mapped() {
        Some(v4) => Envelope::ipv4(Ipv4Addr::from(r.reg(offset::GW_IPV4)), v4),
        None => Envelope::ipv6(gw_ipv6(r), proxy),
    };
    let env = env
        .with_macs(gw_mac(r), frame[6..12].try_into().unwrap())
        .with_dscp((r.reg(offset::NOTIFY_DSCP) & 0x3F) as u8);
    let port = (r.reg(offset::PROXY_UDP_PORT) & 0xFFFF) as u16;
    msg.to_frame(&env, port, port).to_bytes()
}

/// The generator's state.
#[derive(Clone, Debug, Default)]
pub struct ProxyTxModel {
    reset_clock: u64,
    /// Decision clock of the last message taken.
    last: Option<u64>,
    bucket: TokenBucket,
    pending: Vec<Notification>,
}

impl ProxyTxModel {
    /// The state after a reset released at absolute clock `reset_clock`.
    pub fn new(reset_clock: u64) -> Self {
        ProxyTxModel {
            reset_clock,
            ..Default::default()
        }
    }

    /// A notification the controller handed over in absolute clock `clock`.
    pub fn decided(
        &mut self,
        clock: u64,
        frame: &[u8],
        parsed: &ParsedHeader,
        proxy_addr: Ipv6Addr,
        level: u8,
        regs: &mut dyn RegistersMut,
    ) {
        let r = regs.view();
        if r.reg(offset::PROXY_CONTROL) & proxy::FILTER != 0
            && !crate::fcn_rx::in_domain(proxy_addr, r)
        {
            regs.count(offset::PROXY_TX_OUT_OF_DOMAIN);
            return;
        }
        if self.last.is_some_and(|t| clock < t + BUSY_CLOCKS) {
            regs.count(offset::PROXY_TX_BUSY);
            return;
        }
        let refill = r.reg(offset::PROXY_TX_BUCKET_REFILL_CLOCKS);
        if refill != 0 {
            let k = clock.saturating_sub(self.reset_clock);
            let depth = depth_of(r.reg(offset::PROXY_TX_BUCKET_DEPTH));
            if self.bucket.tokens_at(k, depth, refill) == 0 {
                regs.count(offset::PROXY_TX_RATE_LIMITED);
                return;
            }
            self.bucket.take(k, depth);
        }
        self.last = Some(clock);
        let bytes = cn_message(frame, parsed, proxy_addr, level, regs.view());
        regs.count(offset::PROXY_TX_SENT);
        regs.count(offset::DC_TX_FRAMES);
        self.pending.push(Notification {
            clock,
            frame: crate::Frame::new(bytes),
        });
    }

    /// The CN messages decided so far, in order (taken out).
    pub fn take(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.pending)
    }
}
