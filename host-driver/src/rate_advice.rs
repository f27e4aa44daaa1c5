//! SCONE Rate Advice (RA-01..RA-04): the explicit-rate law's settings as
//! the host writes them (`RA_*`), and what the gateway reports.
//!
//! Every `RA_INTERVAL_US` the WAN port's advised rate `R` (Mb/s) follows
//! RCP's law, `R <- R (1 + (T/d)(alpha (C - y) - beta q / d) / C)`, kept
//! within [`RA_MIN_MBPS`, 8 C]; with `RA_CONTROL.law` off the advice is
//! 8 C. A flow's advice is `R` or, when lower, the cap of every valid
//! policy entry whose prefix covers its sender. Only senders inside a valid
//! `RA_CAPn` prefix (capable senders, RA-01) are sent Rate Advice messages
//! (RA-03), each when the flow's advice changed, at most once per
//! `RA_FLOW_SPACING_US`.
//!
//! The gateway has no divider: the host writes `T/d` (Q16) and `1/(d C)`
//! (Q32), rounded to nearest exactly as `cngw_model::rate_advice::
//! RcpParams::registers` computes them ([`law_registers`]). `d`, the
//! senders' reaction time, is in no register of its own.
//!
//! Remote mode (RA-04): a WAN egress gateway (`RA_REMOTE_CONTROL.send`)
//! runs a second copy of the law on its data-centre port (capacity
//! `RA_DC_CAPACITY_BYTES_PER_US`, its own `1/(d C)` in `RA_DC_INV_DC_Q32`,
//! the other parameters shared) and sends that port's advice
//! (`RA_DC_PORT_RATE_MBPS`) to each valid peer gateway (`RA_PEERn`) after
//! every interval, on wan_tx to `TUNNEL_NEXT_HOP_MAC`. A source gateway
//! (`RA_REMOTE_CONTROL.accept`) keeps each valid peer's advice and caps
//! with it the advice of flows whose destination lies in the prefix
//! behind that peer, until `RA_REMOTE_TIMEOUT_US` after its last message.

use crate::bus::RegisterBus;
use crate::device::{Device, DeviceError};
use crate::formats::Prefix;
use cngw_regmap::{by_name, fcn_rx_dom_control, feature, offset, ra_remote_control, Register};
use std::net::{IpAddr, Ipv6Addr};
use thiserror::Error;

/// Largest `RA_CAPACITY_BYTES_PER_US` (the gateway uses bits 19..0).
pub const CAPACITY_MAX: u32 = (1 << 20) - 1;
/// Largest `RA_INTERVAL_US` (the gateway uses bits 23..0).
pub const INTERVAL_MAX_US: u32 = (1 << 24) - 1;
/// The law's datapath needs at least this many clocks per interval.
pub const MIN_INTERVAL_CLOCKS: u64 = 133;
/// Largest gain in 1/256 (9 bits of `RA_GAINS_Q8` each).
pub const GAIN_MAX_Q8: u32 = 511;
/// Capable-sender prefixes (`RA_CAP0`, `RA_CAP1`), policy entries
/// (`RA_POLICY0`, `RA_POLICY1`) and peer gateways (`RA_PEER0`, `RA_PEER1`).
pub const ENTRIES: usize = 2;
/// Mb/s per byte per microsecond: the advice's ceiling is this times C.
pub const MBPS_PER_BYTE_PER_US: u32 = 8;
/// The reaction time `d` the reset values of `RA_T_OVER_D_Q16` and
/// `RA_INV_DC_Q32` were computed for: a 10 ms WAN.
pub const DEFAULT_RTT_US: u32 = 10_000;

/// `RA_GAINS_Q8`: alpha in bits 8..0, beta in bits 24..16.
const BETA_LSB: u32 = 16;

/// The two ratios the host precomputes for the law.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LawRegisters {
    /// `T/d` in 1/65536.
    pub t_over_d_q16: u32,
    /// `1/(d C)` in 2^-32 per (us x bytes/us).
    pub inv_dc_q32: u32,
}

/// `T/d` and `1/(d C)` for a capacity (bytes per microsecond), a reaction
/// time `d` and an interval `T` (microseconds), rounded to nearest and
/// saturated at `u32::MAX` (`RcpParams::registers` of the model; `d` and
/// `C` of 0 count as 1).
pub fn law_registers(capacity: u32, rtt_us: u32, interval_us: u32) -> LawRegisters {
    let d = u64::from(rtt_us.max(1));
    let c = u64::from(capacity.max(1));
    let t_over_d = ((u64::from(interval_us) << 16) + d / 2) / d;
    let inv_dc = ((1u64 << 32) + d * c / 2) / (d * c);
    LawRegisters {
        t_over_d_q16: t_over_d.min(u64::from(u32::MAX)) as u32,
        inv_dc_q32: inv_dc.min(u64::from(u32::MAX)) as u32,
    }
}

/// A gain as `RA_GAINS_Q8` holds it: `round(x * 256)`.
pub fn gain_q8(x: f64) -> u32 {
    (x * 256.0).round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// The law's settings and the message parameters (every `RA_*` register
/// but the prefix entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateAdviceLaw {
    /// `RA_CONTROL.law`: compute `R` (else the advice is 8 C).
    pub law: bool,
    /// `RA_CONTROL.header_bit`: a frame with the BTH capability bit marks
    /// its sender capable too (RA-01; off by default).
    pub header_bit: bool,
    /// C, bytes per microsecond (12,500 = 100 Gb/s).
    pub capacity: u32,
    /// T, microseconds.
    pub interval_us: u32,
    /// d, the senders' reaction time, microseconds (written as `T/d` and `1/(d C)`).
    pub rtt_us: u32,
    /// Gains in 1/256.
    pub alpha_q8: u32,
    pub beta_q8: u32,
    /// The floor of `R`, Mb/s.
    pub min_mbps: u32,
    /// A flow is sent a changed advice at most once per this many microseconds.
    pub flow_spacing_us: u32,
    /// BTH opcode of Rate Advice messages.
    pub opcode: u32,
    /// RA-04: the data-centre port's C, bytes per microsecond (the egress
    /// law's; written with its own `1/(d C)`).
    pub dc_capacity: u32,
    /// RA-04: `RA_REMOTE_CONTROL.send`: send the data-centre port's advice
    /// to the peers (WAN egress gateway).
    pub remote_send: bool,
    /// RA-04: `RA_REMOTE_CONTROL.accept`: take the peers' advice (source
    /// gateway).
    pub remote_accept: bool,
    /// RA-04: a peer's advice lapses this many microseconds after its last
    /// message (0: never).
    pub remote_timeout_us: u32,
}

fn reg(name: &str) -> &'static Register {
    by_name(name).unwrap_or_else(|| panic!("register map has no {name}"))
}

impl Default for RateAdviceLaw {
    /// The registers' reset values (`d` = [`DEFAULT_RTT_US`], whose ratios
    /// they hold), with the law on.
    fn default() -> Self {
        let gains = reg("RA_GAINS_Q8").reset;
        RateAdviceLaw {
            law: true,
            header_bit: false,
            capacity: reg("RA_CAPACITY_BYTES_PER_US").reset,
            interval_us: reg("RA_INTERVAL_US").reset,
            rtt_us: DEFAULT_RTT_US,
            alpha_q8: gains & GAIN_MAX_Q8,
            beta_q8: (gains >> BETA_LSB) & GAIN_MAX_Q8,
            min_mbps: reg("RA_MIN_MBPS").reset,
            flow_spacing_us: reg("RA_FLOW_SPACING_US").reset,
            opcode: reg("RA_OPCODE").reset,
            dc_capacity: reg("RA_DC_CAPACITY_BYTES_PER_US").reset,
            remote_send: false,
            remote_accept: false,
            remote_timeout_us: reg("RA_REMOTE_TIMEOUT_US").reset,
        }
    }
}

/// A law setting that cannot be written; `key` names the configuration key.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RateAdviceError {
    #[error("{bytes_per_us} bytes per microsecond is outside 1..={CAPACITY_MAX} (RA_CAPACITY_BYTES_PER_US has 20 bits: 0.008 to 8388.6 Gb/s)")]
    Capacity { bytes_per_us: u64 },
    #[error("{us} us is outside 1..={INTERVAL_MAX_US} (RA_INTERVAL_US has 24 bits)")]
    Interval { us: u32 },
    #[error("interval_us {us} at clocks_per_us {clocks_per_us} is {clocks} clocks: the law needs at least {MIN_INTERVAL_CLOCKS} clocks per interval (interval_us >= {min_us} at this clock)")]
    IntervalTooShort {
        us: u32,
        clocks_per_us: u32,
        clocks: u64,
        min_us: u64,
    },
    #[error("the reaction time must be at least 1 us")]
    ZeroRtt,
    #[error(
        "interval_us {interval_us} is longer than rtt_us {rtt_us}: RCP's law is stable with T <= d"
    )]
    IntervalAboveRtt { interval_us: u32, rtt_us: u32 },
    #[error("T/d = {interval_us}/{rtt_us} rounds to 0 in the 1/65536 steps of RA_T_OVER_D_Q16: the queue would never lower the rate")]
    TOverDZero { interval_us: u32, rtt_us: u32 },
    #[error("rtt_us {rtt_us} x capacity {capacity} bytes/us is {product}: 1/(d C) rounds to 0 in the 2^-32 steps of RA_INV_DC_Q32 and the rate would never move (d C must stay at most 2^33)")]
    InvDcZero {
        rtt_us: u32,
        capacity: u32,
        product: u64,
    },
    #[error(
        "{q8}/256 is outside 1..={GAIN_MAX_Q8} (9 bits of RA_GAINS_Q8: gains from 0.004 to 1.996)"
    )]
    Gain { q8: u32 },
    #[error("{min_mbps} Mb/s is outside 1..={ceiling}: the advice stays within [min_mbps, 8 C] (C = capacity)")]
    MinMbps { min_mbps: u32, ceiling: u64 },
    #[error("{0} is outside 0..=255 (a BTH opcode)")]
    Opcode(u32),
    #[error("{bytes_per_us} bytes per microsecond is outside 1..={CAPACITY_MAX} (RA_DC_CAPACITY_BYTES_PER_US has 20 bits: 0.008 to 8388.6 Gb/s)")]
    DcCapacity { bytes_per_us: u64 },
    #[error("rtt_us {rtt_us} x dc capacity {capacity} bytes/us is {product}: 1/(d C) rounds to 0 in the 2^-32 steps of RA_DC_INV_DC_Q32 and the data-centre port's advice would never move (d C must stay at most 2^33)")]
    DcInvDcZero {
        rtt_us: u32,
        capacity: u32,
        product: u64,
    },
    #[error("min_mbps {min_mbps} is above the data-centre port's ceiling 8 C = {ceiling} Mb/s: the advice sent to the peers stays within [min_mbps, 8 C] (C = dc capacity)")]
    DcMinMbps { min_mbps: u32, ceiling: u64 },
}

impl RateAdviceLaw {
    /// `T/d` and `1/(d C)` of these settings.
    pub fn law_registers(&self) -> LawRegisters {
        law_registers(self.capacity, self.rtt_us, self.interval_us)
    }

    /// The advice's ceiling, 8 C Mb/s.
    pub fn ceiling_mbps(&self) -> u64 {
        u64::from(self.capacity) * u64::from(MBPS_PER_BYTE_PER_US)
    }

    /// RA-04: `1/(d C)` of the data-centre port (`RA_DC_INV_DC_Q32`),
    /// computed as the WAN port's ([`law_registers`]).
    pub fn dc_inv_dc_q32(&self) -> u32 {
        law_registers(self.dc_capacity, self.rtt_us, self.interval_us).inv_dc_q32
    }

    /// RA-04: the data-centre port's ceiling, 8 C Mb/s.
    pub fn dc_ceiling_mbps(&self) -> u64 {
        u64::from(self.dc_capacity) * u64::from(MBPS_PER_BYTE_PER_US)
    }

    /// Every setting that cannot work at `clocks_per_us`, with the
    /// configuration key it comes from (`capacity_gbps`, `interval_us`,
    /// `rtt_us`, `alpha`, `beta`, `min_mbps`, `opcode`, `dc_capacity_gbps`).
    /// The data-centre port's `1/(d C)` and ceiling are checked only with
    /// `remote_send` (its advice is used only then).
    pub fn check(&self, clocks_per_us: u32) -> Vec<(&'static str, RateAdviceError)> {
        let mut problems = Vec::new();
        let capacity_ok = (1..=CAPACITY_MAX).contains(&self.capacity);
        if !capacity_ok {
            problems.push((
                "capacity_gbps",
                RateAdviceError::Capacity {
                    bytes_per_us: self.capacity.into(),
                },
            ));
        }
        let interval_ok = (1..=INTERVAL_MAX_US).contains(&self.interval_us);
        if !interval_ok {
            problems.push((
                "interval_us",
                RateAdviceError::Interval {
                    us: self.interval_us,
                },
            ));
        } else {
            let clocks = u64::from(self.interval_us) * u64::from(clocks_per_us);
            if clocks < MIN_INTERVAL_CLOCKS {
                problems.push((
                    "interval_us",
                    RateAdviceError::IntervalTooShort {
                        us: self.interval_us,
                        clocks_per_us,
                        clocks,
                        min_us: MIN_INTERVAL_CLOCKS.div_ceil(u64::from(clocks_per_us.max(1))),
                    },
                ));
            }
        }
        if self.rtt_us == 0 {
            problems.push(("rtt_us", RateAdviceError::ZeroRtt));
        } else if interval_ok {
            let ratios = self.law_registers();
            if self.interval_us > self.rtt_us {
                problems.push((
                    "interval_us",
                    RateAdviceError::IntervalAboveRtt {
                        interval_us: self.interval_us,
                        rtt_us: self.rtt_us,
                    },
                ));
            } else if ratios.t_over_d_q16 == 0 {
                problems.push((
                    "rtt_us",
                    RateAdviceError::TOverDZero {
                        interval_us: self.interval_us,
                        rtt_us: self.rtt_us,
                    },
                ));
            }
            if capacity_ok && ratios.inv_dc_q32 == 0 {
                problems.push((
                    "rtt_us",
                    RateAdviceError::InvDcZero {
                        rtt_us: self.rtt_us,
                        capacity: self.capacity,
                        product: u64::from(self.rtt_us) * u64::from(self.capacity),
                    },
                ));
            }
        }
        for (key, q8) in [("alpha", self.alpha_q8), ("beta", self.beta_q8)] {
            if !(1..=GAIN_MAX_Q8).contains(&q8) {
                problems.push((key, RateAdviceError::Gain { q8 }));
            }
        }
        if capacity_ok && !(1..=self.ceiling_mbps()).contains(&u64::from(self.min_mbps)) {
            problems.push((
                "min_mbps",
                RateAdviceError::MinMbps {
                    min_mbps: self.min_mbps,
                    ceiling: self.ceiling_mbps(),
                },
            ));
        }
        if self.opcode > 0xFF {
            problems.push(("opcode", RateAdviceError::Opcode(self.opcode)));
        }
        let dc_capacity_ok = (1..=CAPACITY_MAX).contains(&self.dc_capacity);
        if !dc_capacity_ok {
            problems.push((
                "dc_capacity_gbps",
                RateAdviceError::DcCapacity {
                    bytes_per_us: self.dc_capacity.into(),
                },
            ));
        } else if self.remote_send && self.rtt_us != 0 {
            if self.dc_inv_dc_q32() == 0 {
                problems.push((
                    "dc_capacity_gbps",
                    RateAdviceError::DcInvDcZero {
                        rtt_us: self.rtt_us,
                        capacity: self.dc_capacity,
                        product: u64::from(self.rtt_us) * u64::from(self.dc_capacity),
                    },
                ));
            }
            if u64::from(self.min_mbps) > self.dc_ceiling_mbps() {
                problems.push((
                    "min_mbps",
                    RateAdviceError::DcMinMbps {
                        min_mbps: self.min_mbps,
                        ceiling: self.dc_ceiling_mbps(),
                    },
                ));
            }
        }
        problems
    }

    /// The parameter registers in offset order (`RA_OPCODE` ..
    /// `RA_FLOW_SPACING_US`, then RA-04's `RA_DC_CAPACITY_BYTES_PER_US`,
    /// `RA_DC_INV_DC_Q32` and `RA_REMOTE_TIMEOUT_US`), without `RA_CONTROL`
    /// ([`RateAdviceLaw::control`]) and `RA_REMOTE_CONTROL`
    /// ([`RateAdviceLaw::remote_control`]), which go after the prefix
    /// entries. Only meaningful once [`RateAdviceLaw::check`] found nothing.
    pub fn writes(&self) -> Vec<(u32, u32)> {
        let ratios = self.law_registers();
        vec![
            (offset::RA_OPCODE, self.opcode),
            (offset::RA_CAPACITY_BYTES_PER_US, self.capacity),
            (offset::RA_INTERVAL_US, self.interval_us),
            (
                offset::RA_GAINS_Q8,
                self.alpha_q8 | self.beta_q8 << BETA_LSB,
            ),
            (offset::RA_T_OVER_D_Q16, ratios.t_over_d_q16),
            (offset::RA_INV_DC_Q32, ratios.inv_dc_q32),
            (offset::RA_MIN_MBPS, self.min_mbps),
            (offset::RA_FLOW_SPACING_US, self.flow_spacing_us),
            (offset::RA_DC_CAPACITY_BYTES_PER_US, self.dc_capacity),
            (offset::RA_DC_INV_DC_Q32, self.dc_inv_dc_q32()),
            (offset::RA_REMOTE_TIMEOUT_US, self.remote_timeout_us),
        ]
    }

    /// `RA_REMOTE_CONTROL`.
    pub fn remote_control(&self) -> u32 {
        let mut c = 0;
        if self.remote_send {
            c |= ra_remote_control::SEND;
        }
        if self.remote_accept {
            c |= ra_remote_control::ACCEPT;
        }
        c
    }

    /// `RA_CONTROL`.
    pub fn control(&self) -> u32 {
        let mut c = 0;
        if self.law {
            c |= law_bit();
        }
        if self.header_bit {
            c |= header_bit();
        }
        c
    }
}

fn law_bit() -> u32 {
    reg("RA_CONTROL")
        .field("law")
        .expect("RA_CONTROL has the law field")
        .mask()
}

fn header_bit() -> u32 {
    reg("RA_CONTROL")
        .field("header_bit")
        .expect("RA_CONTROL has the header_bit field")
        .mask()
}

/// The registers of one prefix entry: the first of its four `_PREFIX_n`
/// words and its `_CONTROL` (valid, length: the `FCN_RX_DOMn_CONTROL`
/// fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrefixRegisters {
    pub prefix: u32,
    pub control: u32,
}

/// `RA_CAP0`, `RA_CAP1`: the capable senders (RA-01).
pub const CAPABLE: [PrefixRegisters; ENTRIES] = [
    PrefixRegisters {
        prefix: offset::RA_CAP0_PREFIX_0,
        control: offset::RA_CAP0_CONTROL,
    },
    PrefixRegisters {
        prefix: offset::RA_CAP1_PREFIX_0,
        control: offset::RA_CAP1_CONTROL,
    },
];

/// `RA_POLICY0`, `RA_POLICY1`: the policy entries (RA-02); each cap in
/// [`POLICY_MBPS`].
pub const POLICY: [PrefixRegisters; ENTRIES] = [
    PrefixRegisters {
        prefix: offset::RA_POLICY0_PREFIX_0,
        control: offset::RA_POLICY0_CONTROL,
    },
    PrefixRegisters {
        prefix: offset::RA_POLICY1_PREFIX_0,
        control: offset::RA_POLICY1_CONTROL,
    },
];

/// `RA_POLICY0_MBPS`, `RA_POLICY1_MBPS`.
pub const POLICY_MBPS: [u32; ENTRIES] = [offset::RA_POLICY0_MBPS, offset::RA_POLICY1_MBPS];

/// `RA_PEER0`, `RA_PEER1`: the peer gateways (RA-04): the prefix behind
/// each and its control (valid, the prefix's length); each peer's address
/// in [`PEER_ADDR`].
pub const PEER: [PrefixRegisters; ENTRIES] = [
    PrefixRegisters {
        prefix: offset::RA_PEER0_PREFIX_0,
        control: offset::RA_PEER0_CONTROL,
    },
    PrefixRegisters {
        prefix: offset::RA_PEER1_PREFIX_0,
        control: offset::RA_PEER1_CONTROL,
    },
];

/// `RA_PEER0_ADDR_0`, `RA_PEER1_ADDR_0`: the first of each peer's four
/// address words.
pub const PEER_ADDR: [u32; ENTRIES] = [offset::RA_PEER0_ADDR_0, offset::RA_PEER1_ADDR_0];

/// `RA_PEER0_MBPS`, `RA_PEER1_MBPS`.
pub const PEER_MBPS: [u32; ENTRIES] = [offset::RA_PEER0_MBPS, offset::RA_PEER1_MBPS];

/// An address as the gateway's four words hold it (16 bytes, IPv4 as
/// `::ffff:a.b.c.d`, byte 0 in bits 31..24 of word 0).
pub fn address_words(addr: IpAddr) -> [u32; 4] {
    let o = match addr {
        IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
        IpAddr::V6(v6) => v6.octets(),
    };
    std::array::from_fn(|w| {
        u32::from_be_bytes([o[4 * w], o[4 * w + 1], o[4 * w + 2], o[4 * w + 3]])
    })
}

/// The address four words hold ([`address_words`]); an IPv4-mapped one
/// reads as IPv4.
pub fn address_from_words(words: [u32; 4]) -> IpAddr {
    let mut bytes = [0u8; 16];
    for (w, word) in words.iter().enumerate() {
        bytes[4 * w..4 * w + 4].copy_from_slice(&word.to_be_bytes());
    }
    let v6 = Ipv6Addr::from(bytes);
    match v6.to_ipv4_mapped() {
        Some(v4) => IpAddr::V4(v4),
        None => IpAddr::V6(v6),
    }
}

/// The Rate Advice counters (RA-03).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateAdviceCounters {
    /// `RA_SENT`: messages queued for dc_tx.
    pub sent: u32,
    /// `RA_HELD`: frames of capable flows whose changed advice waited for the spacing.
    pub held: u32,
    /// `RA_NO_SQP`: frames of capable flows without a learned source QP.
    pub no_sqp: u32,
    /// `RA_QUEUE_DROPS`: messages lost because the queue toward the builder was full.
    pub queue_drops: u32,
    /// RA-04 `RA_REMOTE_SENT`: remote advice messages sent to the peers (wan_tx).
    pub remote_sent: u32,
    /// RA-04 `RA_REMOTE_RECEIVED`: remote advice messages accepted from a peer.
    pub remote_received: u32,
    /// RA-04 `RA_REMOTE_REFUSED`: frames to the gateway's address dropped
    /// while accepting (not Rate Advice, or not from a valid peer).
    pub remote_refused: u32,
}

/// A valid peer gateway entry (RA-04).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatePeer {
    /// The peer gateway's address (`RA_PEERn_ADDR_*`).
    pub address: IpAddr,
    /// The data-centre prefix behind it (`RA_PEERn_PREFIX_*`, the length
    /// of `RA_PEERn_CONTROL`).
    pub prefix: Prefix,
}

/// One peer gateway slot as the gateway reports it (RA-04).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RatePeerState {
    /// The entry, when `RA_PEERn_CONTROL.valid`.
    pub peer: Option<RatePeer>,
    /// `RA_PEERn_MBPS`: the advice in force from the peer (0: none
    /// received, or lapsed).
    pub mbps: u32,
}

/// What the `RA_*` registers say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateAdviceState {
    /// `FEATURE_ENABLE.rate_advice`.
    pub enabled: bool,
    /// `RA_CONTROL.law`.
    pub law: bool,
    /// `RA_CONTROL.header_bit`.
    pub header_bit: bool,
    pub opcode: u32,
    /// Bytes per microsecond (bits 19..0).
    pub capacity: u32,
    /// Microseconds (bits 23..0).
    pub interval_us: u32,
    pub alpha_q8: u32,
    pub beta_q8: u32,
    pub t_over_d_q16: u32,
    pub inv_dc_q32: u32,
    pub min_mbps: u32,
    pub flow_spacing_us: u32,
    /// `RA_PORT_RATE_MBPS`: the port's advice now.
    pub port_rate_mbps: u32,
    /// The valid capable-sender prefixes, by entry.
    pub capable: Vec<(usize, Prefix)>,
    /// The valid policy entries and their caps (Mb/s), by entry.
    pub policy: Vec<(usize, Prefix, u32)>,
    /// RA-04 `RA_REMOTE_CONTROL.send`.
    pub remote_send: bool,
    /// RA-04 `RA_REMOTE_CONTROL.accept`.
    pub remote_accept: bool,
    /// RA-04 `RA_REMOTE_TIMEOUT_US` (0: a peer's advice never lapses).
    pub remote_timeout_us: u32,
    /// RA-04: the data-centre port's C, bytes per microsecond (bits 19..0).
    pub dc_capacity: u32,
    /// RA-04 `RA_DC_INV_DC_Q32`.
    pub dc_inv_dc_q32: u32,
    /// RA-04 `RA_DC_PORT_RATE_MBPS`: the data-centre port's advice now.
    pub dc_port_rate_mbps: u32,
    /// RA-04: both peer gateway slots, by entry.
    pub peers: [RatePeerState; ENTRIES],
    pub counters: RateAdviceCounters,
}

impl RateAdviceState {
    /// The advice's ceiling, 8 C Mb/s.
    pub fn ceiling_mbps(&self) -> u64 {
        u64::from(self.capacity) * u64::from(MBPS_PER_BYTE_PER_US)
    }

    /// RA-04: the data-centre port's ceiling, 8 C Mb/s.
    pub fn dc_ceiling_mbps(&self) -> u64 {
        u64::from(self.dc_capacity) * u64::from(MBPS_PER_BYTE_PER_US)
    }

    /// The reaction time `d` the ratios were computed for, `T / (T/d)` in
    /// microseconds (`None` when `RA_T_OVER_D_Q16` is 0).
    pub fn reaction_time_us(&self) -> Option<f64> {
        (self.t_over_d_q16 != 0)
            .then(|| f64::from(self.interval_us) * 65536.0 / f64::from(self.t_over_d_q16))
    }
}

impl<B: RegisterBus> Device<B> {
    /// A prefix entry as the gateway uses it (`None` when not valid).
    fn prefix_entry(&mut self, regs: PrefixRegisters) -> Result<Option<Prefix>, DeviceError> {
        let control = self.bus_mut().read32(regs.control)?;
        if control & fcn_rx_dom_control::VALID == 0 {
            return Ok(None);
        }
        let mut words = [0u32; 4];
        for (w, word) in words.iter_mut().enumerate() {
            *word = self.bus_mut().read32(regs.prefix + 4 * w as u32)?;
        }
        let len = (control >> fcn_rx_dom_control::LEN_SHIFT) & 0xFF;
        Ok(Some(Prefix::from_register_words(words, len)))
    }

    /// A peer gateway slot (RA-04): its entry when valid, and its advice.
    fn peer_entry(&mut self, i: usize) -> Result<RatePeerState, DeviceError> {
        let peer = match self.prefix_entry(PEER[i])? {
            Some(prefix) => {
                let mut words = [0u32; 4];
                for (w, word) in words.iter_mut().enumerate() {
                    *word = self.bus_mut().read32(PEER_ADDR[i] + 4 * w as u32)?;
                }
                Some(RatePeer {
                    address: address_from_words(words),
                    prefix,
                })
            }
            None => None,
        };
        let mbps = self.bus_mut().read32(PEER_MBPS[i])?;
        Ok(RatePeerState { peer, mbps })
    }

    /// The Rate Advice settings, prefix entries, the ports' advice, the
    /// peer gateways and the counters (RA-01..RA-04). Reads only.
    pub fn rate_advice(&mut self) -> Result<RateAdviceState, DeviceError> {
        let read = |dev: &mut Self, name: &str| dev.read(reg(name));
        let features = self.features()?;
        let control = read(self, "RA_CONTROL")?;
        let gains = read(self, "RA_GAINS_Q8")?;
        let mut capable = Vec::new();
        for (i, regs) in CAPABLE.into_iter().enumerate() {
            if let Some(p) = self.prefix_entry(regs)? {
                capable.push((i, p));
            }
        }
        let mut policy = Vec::new();
        for (i, regs) in POLICY.into_iter().enumerate() {
            if let Some(p) = self.prefix_entry(regs)? {
                let mbps = self.bus_mut().read32(POLICY_MBPS[i])?;
                policy.push((i, p, mbps));
            }
        }
        let remote = read(self, "RA_REMOTE_CONTROL")?;
        let peers = [self.peer_entry(0)?, self.peer_entry(1)?];
        Ok(RateAdviceState {
            enabled: features & feature::RATE_ADVICE != 0,
            law: control & law_bit() != 0,
            header_bit: control & header_bit() != 0,
            opcode: read(self, "RA_OPCODE")? & 0xFF,
            capacity: read(self, "RA_CAPACITY_BYTES_PER_US")? & CAPACITY_MAX,
            interval_us: read(self, "RA_INTERVAL_US")? & INTERVAL_MAX_US,
            alpha_q8: gains & GAIN_MAX_Q8,
            beta_q8: (gains >> BETA_LSB) & GAIN_MAX_Q8,
            t_over_d_q16: read(self, "RA_T_OVER_D_Q16")?,
            inv_dc_q32: read(self, "RA_INV_DC_Q32")?,
            min_mbps: read(self, "RA_MIN_MBPS")?,
            flow_spacing_us: read(self, "RA_FLOW_SPACING_US")?,
            port_rate_mbps: read(self, "RA_PORT_RATE_MBPS")?,
            capable,
            policy,
            remote_send: remote & ra_remote_control::SEND != 0,
            remote_accept: remote & ra_remote_control::ACCEPT != 0,
            remote_timeout_us: read(self, "RA_REMOTE_TIMEOUT_US")?,
            dc_capacity: read(self, "RA_DC_CAPACITY_BYTES_PER_US")? & CAPACITY_MAX,
            dc_inv_dc_q32: read(self, "RA_DC_INV_DC_Q32")?,
            dc_port_rate_mbps: read(self, "RA_DC_PORT_RATE_MBPS")?,
            peers,
            counters: RateAdviceCounters {
                sent: read(self, "RA_SENT")?,
                held: read(self, "RA_HELD")?,
                no_sqp: read(self, "RA_NO_SQP")?,
                queue_drops: read(self, "RA_QUEUE_DROPS")?,
                remote_sent: read(self, "RA_REMOTE_SENT")?,
                remote_received: read(self, "RA_REMOTE_RECEIVED")?,
                remote_refused: read(self, "RA_REMOTE_REFUSED")?,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ra_02_defaults_are_the_reset_values() {
        let law = RateAdviceLaw::default();
        assert_eq!(
            (law.capacity, law.interval_us, law.min_mbps, law.opcode),
            (12_500, 1_000, 100, 0x1D)
        );
        // RCP's 0.4 and 0.226.
        assert_eq!((law.alpha_q8, law.beta_q8), (102, 58));
        assert_eq!((gain_q8(0.4), gain_q8(0.226)), (102, 58));
        // The reset ratios are those of d = 10 ms.
        let r = law.law_registers();
        assert_eq!(r.t_over_d_q16, reg("RA_T_OVER_D_Q16").reset);
        assert_eq!(r.inv_dc_q32, reg("RA_INV_DC_Q32").reset);
        assert!(law.check(322).is_empty());
        for (off, value) in law.writes() {
            let r = cngw_regmap::by_offset(off).unwrap();
            assert_eq!(value, r.reset, "{}", r.name);
        }
    }

    #[test]
    fn ra_02_interval_needs_133_clocks() {
        // The gateway's law writes its rate LAW_CLOCKS after an interval's
        // end and takes the next end from the clock after.
        assert_eq!(MIN_INTERVAL_CLOCKS, cngw_hdl::ra::LAW_CLOCKS + 1);
        assert_eq!(MIN_INTERVAL_CLOCKS, 133);
        let law = RateAdviceLaw {
            interval_us: 1,
            rtt_us: 10,
            ..Default::default()
        };
        assert!(law.check(133).is_empty());
        let problems = law.check(132);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].0, "interval_us");
        let text = problems[0].1.to_string();
        assert!(
            text.contains("interval_us 1 at clocks_per_us 132 is 132 clocks"),
            "{text}"
        );
        assert!(text.contains("interval_us >= 2"), "{text}");
    }
}
