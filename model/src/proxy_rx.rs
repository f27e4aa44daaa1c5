//! PX-02, PX-04: the proxy's reception of CN messages, the rules of
//! `hdl/src/px/cn_receiver.rs` and `hdl/src/px/proxy_translator.rs` as
//! the gateway wires them.
//!
//! While `FEATURE_ENABLE.proxy_cn` and `PROXY_CONTROL.enable` are set, a
//! frame on wan_rx is *claimed* when its first 64 bytes show Ethernet (one
//! 802.1Q tag understood) and either IPv4 with a 20-byte header, not a
//! fragment, protocol 17, destination `GW_IPV4`, or IPv6 with next header
//! 17 and destination `GW_IPV6`; and UDP destination port
//! `PROXY_UDP_PORT`. A claimed frame is counted in `PROXY_RX_RECEIVED` and
//! does not reach dc_tx.
//!
//! The walker takes one message at a time and holds it for
//! [`WALK_CLOCKS`] clocks: a message whose parsed-header clock H comes
//! fewer than [`WALK_CLOCKS`] clocks after the last walked one's is lost
//! (`PROXY_RX_BUSY`). A walked message is decided in clock H +
//! [`WALK_CLOCKS`], in this order:
//! 1. the UDP length covers 8 bytes plus the CN header (16, or 40 for
//!    family 6), the frame holds the whole datagram, version 1, family 4
//!    or 6: else `PROXY_RX_MALFORMED`;
//! 2. with `PROXY_CONTROL.filter` (PX-04), the outer source lies in a valid
//!    `FCN_RX_DOMn` prefix (IPv4 as IPv4-mapped): else
//!    `PROXY_RX_OUT_OF_DOMAIN`;
//! 3. [`crate::proxy::request`] on the message as the first 256 bytes of
//!    the frame hold it: `PROXY_RX_NOT_ROCE`, `PROXY_RX_NO_BTH`,
//!    `PROXY_RX_MISMATCH`;
//! 4. with `PROXY_RX_BUCKET_REFILL_CLOCKS` not 0, a token of that bucket:
//!    else `PROXY_RX_RATE_LIMITED`.
//!
//! The flow {SIP, DIP, DQP} is then looked up: absent
//! (`PROXY_RX_UNKNOWN_FLOW`), without a source QP (`PROXY_RX_NO_SQP`), else
//! the standard CNP of [`crate::fcn_rx::translated_cnp`] to the flow's
//! sender — or the Long-haul CNP the LH-15 format table names for it
//! ([`crate::longhaul::proxy_format`], [`crate::longhaul::LonghaulModel::proxy_frame`]) —
//! counted in `PROXY_RX_CNP_SENT`. As for Fast CNPs, the model
//! assumes the translation's slots never fill (`PROXY_RX_QUEUE_DROPS`
//! stays 0) and that the flow does not change between the decision and the
//! look-up.

use crate::bucket::{depth_of, TokenBucket};
use crate::longhaul::{gw_ipv6, Notification, Registers, RegistersMut};
use crate::proxy::{request, ProxyRequest, Reject};
use cngw_packet::proxy_cn::ProxyCnMessage;
use cngw_regmap::{feature, offset, proxy};
use std::net::{Ipv4Addr, Ipv6Addr};

/// Clocks the walker holds a message (`cngw_hdl::px::WALK_CLOCKS`).
pub const WALK_CLOCKS: u64 = 32;
/// Bytes of a frame the walker sees.
pub const WALK_BYTES: usize = 256;

/// The proxy reception is on.
pub fn enabled(r: &dyn Registers) -> bool {
    r.reg(offset::FEATURE_ENABLE) & feature::PROXY_CN != 0
        && r.reg(offset::PROXY_CONTROL) & proxy::ENABLE != 0
}

/// What the walker makes of a claimed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walked {
    Malformed,
    Refused(Reject),
    Flow(ProxyRequest),
}

/// A claimed CN message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Received {
    /// The outer source address (IPv4-mapped for IPv4).
    pub src: Ipv6Addr,
    pub walked: Walked,
}

/// PX-02: `frame` on wan_rx is a CN message for this proxy (taken off the
/// path to dc_tx); what the walker makes of it when it is.
pub fn claim(frame: &[u8], r: &dyn Registers) -> Option<Received> {
    if !enabled(r) {
        return None;
    }
    let mut b = [0u8; WALK_BYTES];
    let n = frame.len().min(WALK_BYTES);
    b[..n].copy_from_slice(&frame[..n]);
    let l3 = if b[12..14] == [0x81, 0x00] { 18 } else { 14 };
    let ethertype = u16::from_be_bytes([b[l3 - 2], b[l3 - 1]]);
    let port = (r.reg(offset::PROXY_UDP_PORT) & 0xFFFF) as u16;
    let (udp, src) = match ethertype {
        0x0800
            if b[l3] == 0x45
                && b[l3 + 6] & 0x3F == 0
                && b[l3 + 7] == 0
                && b[l3 + 9] == 17
                && u32::from_be_bytes(b[l3 + 16..l3 + 20].try_into().unwrap())
                    == r.reg(offset::GW_IPV4)
                && u16::from_be_bytes([b[l3 + 22], b[l3 + 23]]) == port =>
        {
            let s: [u8; 4] = b[l3 + 12..l3 + 16].try_into().unwrap();
            (l3 + 20, Ipv4Addr::from(s).to_ipv6_mapped())
        }
        0x86DD
            if b[l3] >> 4 == 6
                && b[l3 + 6] == 17
                && Ipv6Addr::from(<[u8; 16]>::try_from(&b[l3 + 24..l3 + 40]).unwrap())
                    == gw_ipv6(r)
                && u16::from_be_bytes([b[l3 + 42], b[l3 + 43]]) == port =>
        {
            let s: [u8; 16] = b[l3 + 8..l3 + 24].try_into().unwrap();
            (l3 + 40, Ipv6Addr::from(s))
        }
        _ => return None,
    };
    Some(Received {
        src,
        walked: walk(frame, &b, udp),
    })
}

fn walk(frame: &[u8], b: &[u8; WALK_BYTES], udp: usize) -> Walked {
    let udp_len = u16::from_be_bytes([b[udp + 4], b[udp + 5]]) as usize;
    let cn = udp + 8;
    let (version, family) = (b[cn] >> 4, b[cn] & 0xF);
    let header = if family == 6 { 40 } else { 16 };
    if udp_len < 8 + header
        || frame.len() < udp + udp_len
        || version != 1
        || !(family == 4 || family == 6)
    {
        return Walked::Malformed;
    }
    let limit = (udp + udp_len).min(WALK_BYTES);
    let Ok(msg) = ProxyCnMessage::parse(&b[cn..limit]) else {
        return Walked::Malformed;
    };
    match request(&msg) {
        Ok(req) => Walked::Flow(req),
        Err(e) => Walked::Refused(e),
    }
}

/// A CN message that passed the checks, waiting for its flow-table read:
/// the RTL's translator asks for the read in clock `ready` (the clock after
/// `msg_valid`) and gets it in the first clock from then on in which no
/// data-path look-up, learning request or Fast CNP read takes the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProxyRead {
    /// The first clock the read may take the table.
    pub ready: u64,
    /// The decision clock (`msg_valid`): the CNP's timestamp.
    pub clock: u64,
    pub request: ProxyRequest,
}

/// The proxy's translation of received CN messages.
#[derive(Clone, Debug, Default)]
pub struct ProxyRxModel {
    reset_clock: u64,
    /// Parsed-header clock of the message the walker took last.
    last_walk: Option<u64>,
    bucket: TokenBucket,
    pending: Vec<Notification>,
}

impl ProxyRxModel {
    /// The state after a reset released at absolute clock `reset_clock`.
    pub fn new(reset_clock: u64) -> Self {
        ProxyRxModel {
            reset_clock,
            ..Default::default()
        }
    }

    /// A claimed CN message whose parsed header came in absolute clock
    /// `header_clock`: the checks and the bucket; a message that passes
    /// them is a flow-table read, returned, which [`Self::answer`] finishes
    /// with the table as the read finds it.
    pub fn received(
        &mut self,
        msg: &Received,
        header_clock: u64,
        regs: &mut dyn RegistersMut,
    ) -> Option<ProxyRead> {
        if self
            .last_walk
            .is_some_and(|t| header_clock < t + WALK_CLOCKS)
        {
            regs.count(offset::PROXY_RX_BUSY);
            return None;
        }
        self.last_walk = Some(header_clock);
        let clock = header_clock + WALK_CLOCKS;
        let r = regs.view();
        let req = match msg.walked {
            Walked::Malformed => {
                regs.count(offset::PROXY_RX_MALFORMED);
                return None;
            }
            _ if r.reg(offset::PROXY_CONTROL) & proxy::FILTER != 0
                && !crate::fcn_rx::in_domain(msg.src, r) =>
            {
                regs.count(offset::PROXY_RX_OUT_OF_DOMAIN);
                return None;
            }
            Walked::Refused(e) => {
                regs.count(match e {
                    Reject::NotRoce => offset::PROXY_RX_NOT_ROCE,
                    Reject::NoBth => offset::PROXY_RX_NO_BTH,
                    Reject::Mismatch => offset::PROXY_RX_MISMATCH,
                });
                return None;
            }
            Walked::Flow(req) => req,
        };
        let refill = r.reg(offset::PROXY_RX_BUCKET_REFILL_CLOCKS);
        if refill != 0 {
            let k = clock.saturating_sub(self.reset_clock);
            let depth = depth_of(r.reg(offset::PROXY_RX_BUCKET_DEPTH));
            if self.bucket.tokens_at(k, depth, refill) == 0 {
                regs.count(offset::PROXY_RX_RATE_LIMITED);
                return None;
            }
            self.bucket.take(k, depth);
        }
        Some(ProxyRead {
            ready: clock + 1,
            clock,
            request: req,
        })
    }

    /// The flow-table read of `read` done: `sqp` is the learned source QP
    /// of its flow (`None`: not in the table; `Some(None)`: present
    /// without one). A standard CNP (or the format table's Long-haul
    /// format) to the flow's sender, or the count of why not.
    pub fn answer(
        &mut self,
        read: &ProxyRead,
        sqp: Option<Option<u32>>,
        lh: &crate::longhaul::LonghaulModel,
        regs: &mut dyn RegistersMut,
    ) {
        let Some(sqp) = sqp else {
            regs.count(offset::PROXY_RX_UNKNOWN_FLOW);
            return;
        };
        let Some(sqp) = sqp else {
            regs.count(offset::PROXY_RX_NO_SQP);
            return;
        };
        let r = regs.view();
        let (req, clock) = (&read.request, read.clock);
        let sender = req.key.sip.to_be_bytes();
        let format = crate::longhaul::proxy_format(sender.into(), r);
        let frame = lh
            .proxy_frame(sender, sqp, req.level, format, clock, r)
            .data;
        regs.count(offset::PROXY_RX_CNP_SENT);
        crate::longhaul::count_sent(regs);
        self.pending.push(Notification {
            clock,
            frame: crate::Frame::new(frame),
        });
    }

    /// The standard CNPs decided so far, in order (taken out).
    pub fn take(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.pending)
    }
}
