//! Reference model of the Long-haul CNP second level (LH-05..LH-09, LH-12,
//! LH-14, LH-15): the rules of `hdl/src/lh/controller.rs` and of the format
//! table (`hdl/src/lh/format_table.rs`), clock-exact where they depend on
//! time.
//!
//! Time is counted in clocks since reset was released (`k`), as the RTL
//! counts it: the microsecond clock reads `k / CLOCKS_PER_US`; the token
//! bucket, while not full, gains a token every `LH_BUCKET_REFILL_CLOCKS`
//! clocks counted from the clock after a token left the full bucket. A packet's decision happens five clocks
//! after its parsed header appears (the flow table's latency), and a new
//! telemetry depth reaches the controller three clocks after it is sampled.
//! The model is told those clocks ([`LonghaulModel::decide`],
//! [`LonghaulModel::queue_depth_changed`]) and produces the notification
//! frames in the order the RTL sends them, with the clock of each decision.
//!
//! Extension objects (LH-12, LH-13): with any object enabled in
//! `LH_EXT_CONTROL`, Long-haul CNPs of both formats carry the extension
//! structure [`extension`] builds from the registers; the timestamp object
//! holds the gateway's time of day in the clock the notification was
//! decided in ([`time_of_day`]): the base the host set with
//! `LH_TOD_CONTROL.set` plus the uptime, `k * LH_TOD_INCREMENT` units of
//! 2^-56 s after reset (the model takes the increment as unchanged since
//! reset: it has no clock for register writes).

use crate::bucket::TokenBucket;
use crate::meter::EcnRate;
use crate::Frame;
use cngw_packet::cnp::Cnp;
use cngw_packet::envelope::Envelope;
use cngw_packet::flow_key::FlowKey;
use cngw_packet::icmp_extension::{ExtensionStructure, LonghaulObject, C_TYPE_DEVICE_ID};
use cngw_packet::longhaul::{metric_type, Action, LonghaulBody, LonghaulCnp};
use cngw_packet::longhaul_icmpv6::LonghaulIcmpv6;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_regmap::{ext_control, format_control, lh_option, offset, tod_control};
use std::net::{Ipv4Addr, Ipv6Addr};

/// Notified flows the RTL tracks per port.
pub const TRACKER_SLOTS: usize = 8;

/// Clocks from a parsed header to its flow's decision.
pub const DECISION_DELAY: u64 = 5;
/// Clocks from sampling a telemetry depth to the controller seeing it.
pub const QUEUE_DEPTH_DELAY: u64 = 3;
/// An observation window that ends in clock `e` (since reset) sets the
/// top-contributor threshold of decisions from clock `e + TOP_DELAY` on
/// (the port's bytes register, then an 8-step serial product; LH-06).
pub const TOP_DELAY: u64 = 9;

/// What the controller remembers of a notified flow.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tracked {
    key: FlowKey,
    /// The flow's place in the table when it was told (`Packet::place`).
    place: Option<u32>,
    time_us: u32,
    qd: u32,
    row: u8,
    sqp: u32,
    mac: [u8; 6],
    pkey: u16,
    /// The format of the flow's last notification: its Resume's (LH-15).
    format: NotifyFormat,
}

/// LH-15: what a notification to a sender looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotifyFormat {
    /// A standard CNP (the only notification every RoCEv2 sender takes).
    Cnp,
    /// The Long-haul CNP in RoCEv2 format (LH-12).
    LonghaulRocev2,
    /// The Long-haul CNP in ICMPv6 format (LH-13; IPv6 senders only).
    LonghaulIcmpv6,
}

/// LH-15: the format-table entry that decides for `sender` (16 bytes,
/// IPv4 as `::ffff:a.b.c.d`): of the valid entries (`LH_FORMATn_CONTROL.valid`,
/// format not 3) whose first `prefix_len` bits (above 128: 128) equal the
/// sender's, the longest prefix, and of equally long ones the lowest index.
/// Returns the entry's index and format field.
pub fn format_table_match(sender: &[u8; 16], regs: &dyn Registers) -> Option<(usize, u32)> {
    let address = u128::from_be_bytes(*sender);
    let mut best: Option<(usize, u32, u32)> = None;
    for i in 0..format_control::ENTRIES {
        let base = format_control::STRIDE * i as u32;
        let control = regs.reg(offset::LH_FORMAT0_CONTROL + base);
        let format = (control >> format_control::FORMAT_LSB) & 3;
        if control & format_control::VALID == 0 || format == 3 {
            continue;
        }
        let len = ((control >> format_control::PREFIX_LEN_LSB) & 0xFF).min(128);
        let mut prefix = [0u8; 16];
        for w in 0..4 {
            prefix[4 * w..4 * w + 4].copy_from_slice(
                &regs
                    .reg(offset::LH_FORMAT0_PREFIX_0 + base + 4 * w as u32)
                    .to_be_bytes(),
            );
        }
        let mask = u128::MAX.checked_shl(128 - len).unwrap_or(0);
        if (address ^ u128::from_be_bytes(prefix)) & mask == 0
            && !matches!(best, Some((_, l, _)) if l >= len)
        {
            best = Some((i, len, format));
        }
    }
    best.map(|(i, _, format)| (i, format))
}

/// LH-15: the format the gateway notifies `sender` in. The format table
/// first: its format, except that an IPv4 sender matched by an ICMPv6
/// entry gets a standard CNP (the ICMPv6 format needs IPv6). No entry
/// matches: `LH_OPTIONS` per address family — the RoCEv2 format where
/// `ipv4_longhaul` / `ipv6_longhaul` is set, else the ICMPv6 format to an
/// IPv6 sender and a standard CNP to an IPv4 sender.
pub fn notify_format(sender: Ipv6Addr, regs: &dyn Registers) -> NotifyFormat {
    let ipv4 = sender.to_ipv4_mapped().is_some();
    if let Some((_, format)) = format_table_match(&sender.octets(), regs) {
        return match format {
            1 => NotifyFormat::LonghaulRocev2,
            2 if !ipv4 => NotifyFormat::LonghaulIcmpv6,
            _ => NotifyFormat::Cnp,
        };
    }
    let options = regs.reg(offset::LH_OPTIONS);
    let family = if ipv4 {
        lh_option::IPV4_LONGHAUL
    } else {
        lh_option::IPV6_LONGHAUL
    };
    if options & family != 0 {
        NotifyFormat::LonghaulRocev2
    } else if ipv4 {
        NotifyFormat::Cnp
    } else {
        NotifyFormat::LonghaulIcmpv6
    }
}

/// PX-02: the format a proxy notifies `sender` in: the format table's
/// entry only (a standard CNP without one, and for an IPv4 sender the
/// ICMPv6 format cannot reach).
pub fn proxy_format(sender: Ipv6Addr, regs: &dyn Registers) -> NotifyFormat {
    match format_table_match(&sender.octets(), regs) {
        Some((_, 1)) => NotifyFormat::LonghaulRocev2,
        Some((_, 2)) if sender.to_ipv4_mapped().is_none() => NotifyFormat::LonghaulIcmpv6,
        _ => NotifyFormat::Cnp,
    }
}

/// A notification the model expects, with the clock it was decided in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    pub clock: u64,
    pub frame: Frame,
}

/// The packet fields a decision uses.
#[derive(Clone, Debug)]
pub struct Packet {
    pub key: FlowKey,
    pub sqp: Option<u32>,
    pub src_mac: [u8; 6],
    pub pkey: u16,
    /// The flow's bytes in the current observation window, this packet's
    /// included (LH-06).
    pub window_bytes: u32,
    /// The flow's bytes in its last complete window fell below 7/8 of the
    /// window before (LH-10).
    pub rate_fell: bool,
    /// PX-01: the proxy that serves the sender when the notification is to
    /// leave as a CN message to it (generation on, untagged frame, a
    /// prefix -> proxy table entry covers the sender).
    pub proxy: Option<Ipv6Addr>,
    /// The flow's place in the flow table (its FCN-01 label), which the
    /// RTL's tracker holds instead of the key: a flow that took the place
    /// of a tracked one that aged out finds that one's slot. `None`: the
    /// tracker matches by key.
    pub place: Option<u32>,
}

/// PX-01: a notification handed to the CN generator instead of sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProxyJob {
    pub clock: u64,
    pub proxy: Ipv6Addr,
    /// The action register's congestion level, at most 7.
    pub level: u8,
}

/// Register values the controller reads (a view of the model's registers).
pub trait Registers {
    fn reg(&self, offset: u32) -> u32;
}

#[derive(Clone, Debug, Default)]
pub struct LonghaulModel {
    reset_clock: u64,
    tracker: [Option<Tracked>; TRACKER_SLOTS],
    /// LH-08.
    bucket: TokenBucket,
    /// Clock (since reset) up to which time has been simulated.
    now: u64,
    /// Queue depth the controller sees, and since which clock.
    qd: u32,
    /// The last clock with the depth at or above K_min (`None`: since reset).
    last_high: Option<u64>,
    /// Every depth the controller has seen, from the clock (since reset)
    /// it took effect: the queue-growth samples (LH-02) read it.
    depth_history: Vec<(u64, u32)>,
    /// ECN-capable frames toward the WAN: the marking rate (LH-02).
    ecn: EcnRate,
    /// RoCEv2 look-ups toward the WAN: clock (since reset) and bytes (LH-06).
    port_requests: Vec<(u64, u32)>,
    pending: Vec<Notification>,
    /// PX-01: notifications handed to the CN generator.
    proxy_jobs: Vec<ProxyJob>,
    /// The time-of-day base (NTP) of the last `LH_TOD_CONTROL.set`.
    tod_base: u64,
}

/// The gateway's time of day (NTP 32.32) in clock `k` after reset: `base`
/// plus the uptime, which gains `increment` units of 2^-56 s every clock
/// (an 88-bit counter whose bits 87..24 are the NTP time).
pub fn time_of_day(k: u64, increment: u32, base: u64) -> u64 {
    let uptime = (k as u128 * increment as u128) >> tod_control::INCREMENT_EXTRA_BITS;
    base.wrapping_add(uptime as u64)
}

/// The extension structure of Long-haul CNPs the registers ask for
/// (`LH_EXT_*`), with `timestamp` in the timestamp object; `None` when no
/// object is enabled (the draft: the Extension Header is then omitted).
/// Objects in C-Type order: timestamp, device identifier, path
/// identifier; identifier lengths above 16 and 8 bytes send 16 and 8.
pub fn extension(r: &dyn Registers, timestamp: u64) -> Option<ExtensionStructure> {
    let control = r.reg(offset::LH_EXT_CONTROL);
    let class_num = (control >> ext_control::CLASS_NUM_LSB) as u8;
    let mut objects = Vec::new();
    if control & ext_control::TIMESTAMP != 0 {
        objects.push(LonghaulObject::Timestamp(timestamp));
    }
    if control & ext_control::DEVICE_ID != 0 {
        let len = ((control >> ext_control::DEVICE_ID_LEN_LSB) & 0x1F) as usize;
        let mut id: Vec<u8> = (0..4)
            .flat_map(|i| r.reg(offset::LH_EXT_DEVICE_ID_0 + 4 * i).to_be_bytes())
            .collect();
        id.truncate(len.min(ext_control::DEVICE_ID_MAX));
        objects.push(match String::from_utf8(id) {
            Ok(text) => LonghaulObject::DeviceId(text),
            // The registers may hold any bytes; the hardware sends them.
            Err(e) => LonghaulObject::Other {
                c_type: C_TYPE_DEVICE_ID,
                payload: e.into_bytes(),
            },
        });
    }
    if control & ext_control::PATH_ID != 0 {
        let len = ((control >> ext_control::PATH_ID_LEN_LSB) & 0xF) as usize;
        let mut id: Vec<u8> = (0..2)
            .flat_map(|i| r.reg(offset::LH_EXT_PATH_ID_0 + 4 * i).to_be_bytes())
            .collect();
        id.truncate(len.min(ext_control::PATH_ID_MAX));
        objects.push(LonghaulObject::PathId(id));
    }
    (!objects.is_empty()).then(|| ExtensionStructure::from_longhaul(class_num, &objects))
}

/// The gateway's MAC address (`GW_MAC_HI`/`_LO`): the source of its
/// notifications.
pub fn gw_mac(r: &dyn Registers) -> [u8; 6] {
    mac_registers(r, offset::GW_MAC_HI, offset::GW_MAC_LO)
}

/// A MAC address held in a `*_MAC_HI` register (bytes 0..1 in bits 15..0)
/// and a `*_MAC_LO` register (bytes 2..5).
pub fn mac_registers(r: &dyn Registers, hi: u32, lo: u32) -> [u8; 6] {
    let hi = r.reg(hi).to_be_bytes();
    let lo = r.reg(lo).to_be_bytes();
    [hi[2], hi[3], lo[0], lo[1], lo[2], lo[3]]
}

/// The gateway's IPv6 address (`GW_IPV6_0..3`, most significant word first).
pub fn gw_ipv6(r: &dyn Registers) -> Ipv6Addr {
    ipv6_registers(r, offset::GW_IPV6_0)
}

/// An IPv6 address held in four registers from `first` (bytes 0..3 first,
/// the first byte in bits 31..24).
pub fn ipv6_registers(r: &dyn Registers, first: u32) -> Ipv6Addr {
    let mut a = [0u8; 16];
    for i in 0..4 {
        a[4 * i..4 * i + 4].copy_from_slice(&r.reg(first + 4 * i as u32).to_be_bytes());
    }
    Ipv6Addr::from(a)
}

fn now_us(k: u64, regs: &dyn Registers) -> u32 {
    (k / regs.reg(offset::CLOCKS_PER_US).max(1) as u64) as u32
}

fn depth(regs: &dyn Registers) -> u32 {
    crate::bucket::depth_of(regs.reg(offset::LH_BUCKET_DEPTH))
}

impl LonghaulModel {
    /// The state after a reset released at absolute clock `reset_clock`.
    pub fn new(reset_clock: u64) -> Self {
        LonghaulModel {
            reset_clock,
            ..Default::default()
        }
    }

    /// The absolute clock reset was released in.
    pub fn reset_clock(&self) -> u64 {
        self.reset_clock
    }

    fn k(&self, clock: u64) -> u64 {
        clock.saturating_sub(self.reset_clock)
    }

    /// `LH_TOD_CONTROL.set`: the time of day becomes uptime + `base`.
    pub fn set_time_of_day_base(&mut self, base: u64) {
        self.tod_base = base;
    }

    /// The time of day in clock `k` after reset.
    fn tod(&self, k: u64, r: &dyn Registers) -> u64 {
        time_of_day(k, r.reg(offset::LH_TOD_INCREMENT), self.tod_base)
    }

    /// PX-02: the proxy's Long-haul CNP to `sender` (its source QP `sqp`)
    /// in `format`, for a CN message of congestion level `level` decided in
    /// absolute clock `clock`: to `FCN_CNP_MAC` with the default P_Key, the
    /// action and parameter of `LH_SEV0_ACTION`, no metric (the proxy does
    /// not see the queue), extension objects as configured.
    pub fn proxy_frame(
        &self,
        sender: [u8; 16],
        sqp: u32,
        level: u8,
        format: NotifyFormat,
        clock: u64,
        r: &dyn Registers,
    ) -> Frame {
        let k = clock.saturating_sub(self.reset_clock);
        let sender = Ipv6Addr::from(sender);
        let env = match sender.to_ipv4_mapped() {
            Some(v4) => Envelope::ipv4(Ipv4Addr::from(r.reg(offset::GW_IPV4)), v4),
            None => Envelope::ipv6(gw_ipv6(r), sender),
        };
        let mac = mac_registers(r, offset::FCN_CNP_MAC_HI, offset::FCN_CNP_MAC_LO);
        let env = env
            .with_macs(gw_mac(r), mac)
            .with_dscp((r.reg(offset::NOTIFY_DSCP) & 0x3F) as u8);
        let action = r.reg(offset::LH_SEV0_ACTION);
        let cnp = LonghaulCnp {
            body: LonghaulBody {
                congestion_level: level & 7,
                action: Action::from_flags(((action >> 22) as u8 & 3) << 6),
                parameter: action as u16,
                source_qp: sqp,
                metric_type: 0,
                metric_value: 0,
            },
            extension: extension(r, self.tod(k, r)),
        };
        let data = match format {
            NotifyFormat::LonghaulRocev2 => {
                let lh = LonghaulRocev2::new(sqp, cnp);
                lh.to_frame(&env).to_bytes()
            }
            NotifyFormat::LonghaulIcmpv6 => {
                let mut m = LonghaulIcmpv6::new(cnp);
                m.icmp_type = (r.reg(offset::LH_ICMPV6_TYPE) & 0xFF) as u8;
                m.to_frame(&env).expect("an IPv6 envelope").to_bytes()
            }
            NotifyFormat::Cnp => crate::fcn_rx::translated_cnp(sender.octets(), sqp, r),
        };
        Frame::new(data)
    }

    /// Tokens at clock `k` (refills since the last event added, capped).
    fn tokens_at(&mut self, k: u64, regs: &dyn Registers) -> u32 {
        let refill = regs.reg(offset::LH_BUCKET_REFILL_CLOCKS);
        self.bucket.tokens_at(k, depth(regs), refill)
    }

    /// Takes a token at clock `k` (after `tokens_at(k)` said there is one).
    fn take_token(&mut self, k: u64, regs: &dyn Registers) {
        self.bucket.take(k, depth(regs));
    }

    /// The first clock after `k` at which a refill is visible.
    fn next_refill(&self, k: u64, regs: &dyn Registers) -> u64 {
        self.bucket
            .next_refill(k, regs.reg(offset::LH_BUCKET_REFILL_CLOCKS))
    }

    /// Simulates Resumes up to (not including) absolute clock `clock`.
    pub fn advance_to(&mut self, clock: u64, regs_mut: &mut dyn RegistersMut) {
        let end = self.k(clock);
        let mut sent = 0;
        let regs = regs_mut.view();
        let enable = regs.reg(offset::FEATURE_ENABLE) & cngw_regmap::feature::LH_CNP != 0;
        let k_min = regs.reg(offset::PORT0_K_MIN_BYTES);
        let rtt = regs.reg(offset::PORT0_RTT_EST_US);
        let p = regs.reg(offset::CLOCKS_PER_US).max(1) as u64;
        if !enable || self.qd >= k_min {
            // The Resume timer restarts in every clock at K_min or above,
            // and in every clock the feature is off (the RTL's
            // `above_since_us`): after an enable it counts from the enable.
            if end > 0 {
                self.last_high = Some(end - 1);
            }
            self.now = self.now.max(end);
            self.set_gauges(end, regs_mut);
            return;
        }
        let base_us = self.last_high.map(|c| now_us(c, regs)).unwrap_or(0);
        // First clock with now_us >= base_us + rtt.
        let due = (base_us as u64 + rtt as u64) * p;
        // A flow is released no earlier than the per-flow interval (LH-08)
        // after its last notification: the first clock whose microsecond
        // is `interval` past it.
        let interval = match regs.reg(offset::PORT0_FLOW_INTERVAL_US) {
            0 => rtt,
            v => v,
        };
        let ready = |t: &Tracked| (t.time_us as u64 + interval as u64) * p;
        let mut k = self.now.max(due);
        while k < end {
            let Some(first) = self.tracker.iter().flatten().map(ready).min() else {
                break;
            };
            if first > k {
                k = first;
                continue;
            }
            let slot = self
                .tracker
                .iter()
                .position(|t| t.as_ref().is_some_and(|t| ready(t) <= k))
                .unwrap();
            if self.tracker[slot].as_ref().unwrap().format == NotifyFormat::Cnp {
                // A standard CNP cannot say Resume: the flow leaves the
                // tracker without a frame or a token, one per clock.
                self.tracker[slot] = None;
                k += 1;
                continue;
            }
            if self.tokens_at(k, regs) == 0 {
                // The Resume waits for a token; a slot before it in the
                // tracker that falls ready meanwhile is served first (the
                // RTL looks at the lowest ready slot in every clock).
                let refill = self.next_refill(k, regs);
                let sooner = self
                    .tracker
                    .iter()
                    .flatten()
                    .map(ready)
                    .filter(|&r| r > k)
                    .min();
                k = sooner.map_or(refill, |r| r.min(refill));
                continue;
            }
            let t = self.tracker[slot].take().unwrap();
            let action = regs.reg(offset::LH_RESUME_ACTION);
            let frame = self.frame(&t.key, t.sqp, t.mac, t.pkey, action, t.format, k, regs);
            self.pending.push(Notification {
                clock: self.reset_clock + k,
                frame,
            });
            self.take_token(k, regs);
            sent += 1;
            k += 1;
        }
        self.now = self.now.max(end);
        self.set_gauges(end, regs_mut);
        for _ in 0..sent {
            regs_mut.count(offset::LH_RESUME_SENT);
            count_sent(regs_mut);
        }
    }

    /// The growth and marking-rate status registers in clock `k`.
    fn set_gauges(&self, k: u64, regs_mut: &mut dyn RegistersMut) {
        let growth = self.growth_at(k, regs_mut.view()).0;
        regs_mut.set(offset::PORT0_QUEUE_GROWTH_BYTES, growth);
        let emr = self.emr_at(k, regs_mut.view()).0;
        regs_mut.set(offset::PORT0_EMR_Q16, emr);
        let port = self.port_window_at(k, regs_mut.view()).0;
        regs_mut.set(offset::LH_PORT_WINDOW_BYTES, port);
    }

    /// The depth the controller saw in clock `k` (since reset).
    /// RA-02: the RoCEv2 bytes toward the WAN looked up in clocks `lo..hi`
    /// (since reset).
    pub fn port_bytes_between(&self, lo: u64, hi: u64) -> u64 {
        let a = self.port_requests.partition_point(|r| r.0 < lo);
        let b = self.port_requests.partition_point(|r| r.0 < hi);
        self.port_requests[a..b].iter().map(|r| r.1 as u64).sum()
    }

    /// The queue depth the controller sees in clock `k` (since reset).
    pub fn depth_at(&self, k: u64) -> u32 {
        let n = self.depth_history.partition_point(|(e, _)| *e <= k);
        if n == 0 {
            0
        } else {
            self.depth_history[n - 1].1
        }
    }

    /// An ECN-capable frame toward the WAN passed the CE marker in absolute
    /// clock `clock` and left CE (`ce`) or not (LH-02).
    pub fn ecn_frame(&mut self, clock: u64, ce: bool) {
        if clock >= self.reset_clock {
            self.ecn.frame(self.k(clock), ce);
        }
    }

    fn obs_window_clocks(regs: &dyn Registers) -> u64 {
        regs.reg(offset::LH_OBS_WINDOW_US).max(1) as u64
            * regs.reg(offset::CLOCKS_PER_US).max(1) as u64
    }

    /// LH-06: a RoCEv2 packet toward the WAN of `bytes` bytes is looked up
    /// in absolute clock `clock`; returns the observation window's number
    /// (mod 256, the flow table's epoch) and counts its bytes for the port.
    pub fn window_request(&mut self, clock: u64, bytes: u32, regs: &dyn Registers) -> u8 {
        let k = self.k(clock);
        let at = self.port_requests.partition_point(|r| r.0 <= k);
        self.port_requests.insert(at, (k, bytes));
        (k / Self::obs_window_clocks(regs)) as u8
    }

    /// LH-06: the port's RoCEv2 bytes in the last observation window
    /// complete by clock `k` (since reset), and the top-contributor
    /// threshold that decisions in clock `k` use (`LH_TOP_SHARE_Q8` / 256
    /// of the bytes of the last window that ended `TOP_DELAY` clocks or
    /// more before).
    pub fn port_window_at(&self, k: u64, regs: &dyn Registers) -> (u32, u32) {
        let w = Self::obs_window_clocks(regs);
        let bytes_of = |n: u64| -> u32 {
            let lo = self.port_requests.partition_point(|r| r.0 < (n - 1) * w);
            let hi = self.port_requests.partition_point(|r| r.0 < n * w);
            self.port_requests[lo..hi]
                .iter()
                .fold(0u32, |a, r| a.saturating_add(r.1))
        };
        let complete = k / w;
        let port = if complete >= 1 { bytes_of(complete) } else { 0 };
        let share = (regs.reg(offset::LH_TOP_SHARE_Q8) & 0xFF) as u64;
        let thr = match k.checked_sub(TOP_DELAY - 1).map(|x| x / w) {
            Some(n) if n >= 1 => ((bytes_of(n) as u64 * share) >> 8) as u32,
            _ => 0,
        };
        (port, thr)
    }

    /// LH-02/LH-05: the marking rate of the last window decided by clock
    /// `k` (since reset), 0.16 fixed point, and whether it exceeds V_ecn.
    pub fn emr_at(&self, k: u64, regs: &dyn Registers) -> (u32, bool) {
        self.ecn.at(
            k,
            regs.reg(offset::PORT0_EMR_WINDOW_US),
            regs.reg(offset::CLOCKS_PER_US),
            regs.reg(offset::PORT0_V_ECN_Q16),
        )
    }

    /// LH-02: the growth of the last complete interval before clock `k`
    /// and whether it exceeded V_growth. The gateway samples the depth at
    /// the last clock of every `PORT0_QGR_INTERVAL_US` microseconds since
    /// reset; growth counts from the second sample on.
    pub fn growth_at(&self, k: u64, regs: &dyn Registers) -> (u32, bool) {
        let p = regs.reg(offset::CLOCKS_PER_US).max(1) as u64;
        let i = regs.reg(offset::PORT0_QGR_INTERVAL_US).max(1) as u64;
        let n = k / (p * i);
        if n == 0 {
            return (0, false);
        }
        let sample = |n: u64| self.depth_at(p * i * n - 1);
        let prev = if n >= 2 { sample(n - 1) } else { 0 };
        let growth = sample(n).saturating_sub(prev);
        let high = n >= 2 && growth > regs.reg(offset::PORT0_V_GROWTH_BYTES);
        (growth, high)
    }

    /// The telemetry depth `bytes` was sampled in absolute clock `clock`.
    pub fn queue_depth_changed(&mut self, bytes: u32, clock: u64, regs: &mut dyn RegistersMut) {
        let eff = clock + QUEUE_DEPTH_DELAY;
        self.advance_to(eff, regs);
        let k_min = regs.view().reg(offset::PORT0_K_MIN_BYTES);
        let k = self.k(eff);
        if self.qd >= k_min && k > 0 {
            self.last_high = Some(k - 1);
        }
        self.qd = bytes;
        self.depth_history.push((k, bytes));
    }

    /// The controller's decision for a RoCEv2 packet toward the WAN, in
    /// absolute clock `clock`. Returns whether a notification was queued.
    pub fn decide(&mut self, pkt: &Packet, clock: u64, regs: &mut dyn RegistersMut) -> bool {
        self.advance_to(clock, regs);
        let k = self.k(clock);
        let r = regs.view();
        let enable = r.reg(offset::FEATURE_ENABLE) & cngw_regmap::feature::LH_CNP != 0;
        let qd = self.qd;
        let growing = self.growth_at(k, r).1 || self.emr_at(k, r).1;
        if !(enable && (qd > r.reg(offset::PORT0_K_MAX_BYTES) || growing)) {
            return false;
        }
        // The clock of a congested packet's decision sends no Resume (the
        // RTL's `send_resume` waits for a clock without one): a Resume due
        // now leaves in the next clock.
        self.now = self.now.max(k + 1);
        let Some(sqp) = pkt.sqp else {
            regs.count(offset::LH_CNP_NO_SQP);
            return false;
        };
        if pkt.window_bytes < self.port_window_at(k, r).1 {
            regs.count(offset::LH_CNP_NOT_TOP);
            return false;
        }
        if pkt.rate_fell && r.reg(offset::LH_OPTIONS) & lh_option::DEFER != 0 {
            regs.count(offset::LH_CNP_DEFERRED);
            return false;
        }
        let now = now_us(k, r);
        let interval = match r.reg(offset::PORT0_FLOW_INTERVAL_US) {
            0 => r.reg(offset::PORT0_RTT_EST_US),
            v => v,
        };
        let hit = self.tracker.iter().position(|t| {
            t.as_ref().is_some_and(|t| match (t.place, pkt.place) {
                (Some(a), Some(b)) => a == b,
                _ => t.key == pkt.key,
            })
        });
        if let Some(h) = hit {
            if now.wrapping_sub(self.tracker[h].as_ref().unwrap().time_us) < interval {
                regs.count(offset::LH_CNP_SUPPRESSED);
                return false;
            }
        }
        let free = self.tracker.iter().position(|t| t.is_none());
        if hit.is_none() && free.is_none() {
            regs.count(offset::LH_CNP_TRACKER_FULL);
            return false;
        }
        if self.tokens_at(k, regs.view()) == 0 {
            regs.count(offset::LH_CNP_RATE_LIMITED);
            return false;
        }
        let r = regs.view();
        let mut row = 0u8;
        if qd > r.reg(offset::LH_SEV1_THRESHOLD_BYTES) {
            row = 1;
        }
        if qd > r.reg(offset::LH_SEV2_THRESHOLD_BYTES) {
            row = 2;
        }
        if let Some(h) = hit {
            let t = self.tracker[h].as_ref().unwrap();
            if qd > t.qd && t.row >= row {
                row = (t.row + 1).min(2);
            }
        }
        let action = match row {
            0 => r.reg(offset::LH_SEV0_ACTION),
            1 => r.reg(offset::LH_SEV1_ACTION),
            _ => r.reg(offset::LH_SEV2_ACTION),
        };
        let format = match pkt.proxy {
            // The sender hears from its proxy: a standard CNP, no Resume.
            Some(_) => NotifyFormat::Cnp,
            None => notify_format(Ipv6Addr::from(pkt.key.sip), r),
        };
        match pkt.proxy {
            Some(proxy) => self.proxy_jobs.push(ProxyJob {
                clock,
                proxy,
                level: ((action >> 24) as u8).min(7),
            }),
            None => {
                let frame = self.frame(&pkt.key, sqp, pkt.src_mac, pkt.pkey, action, format, k, r);
                self.pending.push(Notification { clock, frame });
            }
        }
        self.tracker[hit.or(free).unwrap()] = Some(Tracked {
            key: pkt.key,
            place: pkt.place,
            time_us: now,
            qd,
            row,
            sqp,
            mac: pkt.src_mac,
            pkey: pkt.pkey,
            format,
        });
        self.take_token(k, regs.view());
        if pkt.proxy.is_none() {
            regs.count(offset::LH_CNP_SENT);
            count_sent(regs);
        }
        true
    }

    /// PX-01: the notifications handed to the CN generator (taken out).
    pub fn take_proxy_jobs(&mut self) -> Vec<ProxyJob> {
        std::mem::take(&mut self.proxy_jobs)
    }

    /// Notifications decided so far, oldest first (taken).
    pub fn take_notifications(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.pending)
    }

    /// The frame for the flow `key` with the action register `action` in
    /// `format` (never the ICMPv6 format to an IPv4 sender), decided in
    /// clock `k` after reset.
    #[allow(clippy::too_many_arguments)]
    fn frame(
        &self,
        key: &FlowKey,
        sqp: u32,
        mac: [u8; 6],
        pkey: u16,
        action: u32,
        format: NotifyFormat,
        k: u64,
        r: &dyn Registers,
    ) -> Frame {
        let options = r.reg(offset::LH_OPTIONS);
        let hide = options & lh_option::HIDE_METRIC != 0;
        let sender = Ipv6Addr::from(key.sip);
        let env = match sender.to_ipv4_mapped() {
            Some(v4) => Envelope::ipv4(Ipv4Addr::from(r.reg(offset::GW_IPV4)), v4),
            None => Envelope::ipv6(gw_ipv6(r), sender),
        };
        let env = env
            .with_macs(gw_mac(r), mac)
            .with_dscp((r.reg(offset::NOTIFY_DSCP) & 0x3F) as u8);
        let qd_kb = (self.qd / 1000).min(0xFF_FFFF);
        let body = LonghaulBody {
            congestion_level: (action >> 24) as u8,
            action: Action::from_flags(((action >> 22) as u8 & 3) << 6),
            parameter: action as u16,
            source_qp: sqp,
            metric_type: if hide { 0 } else { metric_type::QUEUE_DEPTH_KB },
            metric_value: if hide { 0 } else { qd_kb },
        };
        // LH-12/LH-13: the optional extension objects (both Long-haul
        // formats; a standard CNP never has them).
        let cnp = LonghaulCnp {
            body,
            extension: extension(r, self.tod(k, r)),
        };
        let data = match format {
            NotifyFormat::LonghaulRocev2 => {
                let mut lh = LonghaulRocev2::new(sqp, cnp);
                lh.pkey = pkey;
                lh.to_frame(&env).to_bytes()
            }
            NotifyFormat::LonghaulIcmpv6 => {
                let mut m = LonghaulIcmpv6::new(cnp);
                m.icmp_type = (r.reg(offset::LH_ICMPV6_TYPE) & 0xFF) as u8;
                m.to_frame(&env).expect("an IPv6 envelope").to_bytes()
            }
            NotifyFormat::Cnp => {
                let mut cnp = Cnp::new(sqp);
                cnp.pkey = pkey;
                cnp.to_frame(&env).to_bytes()
            }
        };
        Frame::new(data)
    }
}

/// A notification frame is counted on dc_tx (the RTL counts it when it
/// leaves; the model when it is decided: equal once the gateway drained).
pub fn count_sent(regs: &mut dyn RegistersMut) {
    regs.count(offset::NOTIFY_TX_FRAMES);
    regs.count(offset::DC_TX_FRAMES);
}

/// Registers the controller reads and counts into.
pub trait RegistersMut {
    fn view(&self) -> &dyn Registers;
    fn count(&mut self, offset: u32);
    /// A status register the gateway drives.
    fn set(&mut self, offset: u32, value: u32);
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_packet::icmp_extension::{ExtensionObject, C_TYPE_PATH_ID, C_TYPE_TIMESTAMP};
    use cngw_regmap::{by_offset, tod_control};
    use std::collections::BTreeMap;

    struct Regs(BTreeMap<u32, u32>);
    impl Registers for Regs {
        fn reg(&self, offset: u32) -> u32 {
            self.0
                .get(&offset)
                .copied()
                .unwrap_or_else(|| by_offset(offset).unwrap().reset)
        }
    }

    /// The registers' objects, in C-Type order; lengths past the
    /// registers capped at 16 and 8 bytes; bytes that are not UTF-8 sent
    /// as they are; nothing when no object is enabled (reset).
    #[test]
    fn lh_12_extension_objects_come_from_the_registers() {
        let mut r = Regs(BTreeMap::new());
        assert_eq!(extension(&r, 5), None, "no extension after reset");
        r.0.insert(offset::LH_EXT_DEVICE_ID_0, u32::from_be_bytes(*b"gw-p"));
        r.0.insert(offset::LH_EXT_DEVICE_ID_1, u32::from_be_bytes(*b"aris"));
        r.0.insert(offset::LH_EXT_DEVICE_ID_2, u32::from_be_bytes(*b"-1xy"));
        r.0.insert(offset::LH_EXT_DEVICE_ID_3, 0xFFFF_FFFF);
        r.0.insert(offset::LH_EXT_PATH_ID_0, 0x0A0B_0C0D);
        r.0.insert(offset::LH_EXT_PATH_ID_1, 0x0102_0304);
        r.0.insert(offset::LH_EXT_CONTROL, 0x0F0A_F707);
        let e = extension(&r, 0x1122_3344_5566_7788).unwrap();
        assert_eq!(
            e,
            ExtensionStructure::from_longhaul(
                247,
                &[
                    LonghaulObject::Timestamp(0x1122_3344_5566_7788),
                    LonghaulObject::DeviceId("gw-paris-1".into()),
                    LonghaulObject::PathId(vec![10, 11, 12, 13, 1, 2, 3, 4]),
                ]
            )
        );
        assert_eq!(e.len(), 4 + 12 + 16 + 12);
        // Device identifier length 31: 16 bytes, the last four 0xFF.
        r.0.insert(offset::LH_EXT_CONTROL, 0x001F_0102);
        let e = extension(&r, 0).unwrap();
        let mut id = b"gw-paris-1xy".to_vec();
        id.extend([0xFF; 4]);
        assert_eq!(
            e.objects,
            [ExtensionObject {
                class_num: 1,
                c_type: C_TYPE_DEVICE_ID,
                payload: id
            }]
        );
        r.0.insert(offset::LH_EXT_CONTROL, 0x0000_0005);
        let e = extension(&r, 7).unwrap();
        assert_eq!(
            e.objects.iter().map(|o| o.c_type).collect::<Vec<_>>(),
            [C_TYPE_TIMESTAMP, C_TYPE_PATH_ID]
        );
        assert_eq!(e.objects[1].payload, Vec::<u8>::new(), "length 0");
    }

    /// The time of day: base + floor(k * increment / 2^24), modulo 2^64.
    #[test]
    fn lh_12_time_of_day_is_base_plus_clocks_times_increment() {
        let inc = tod_control::DEFAULT_INCREMENT;
        assert_eq!(time_of_day(0, inc, 42), 42);
        // 322,265,625 clocks of 322.265625 MHz: one second (within 1 ns).
        let t = time_of_day(322_265_625, inc, 0);
        assert_eq!(t >> 32, 1);
        assert!(
            (t & 0xFFFF_FFFF) < 5 || (t & 0xFFFF_FFFF) > 0xFFFF_FFFA,
            "{t:#x}"
        );
        assert_eq!(time_of_day(3, 1 << 24, u64::MAX), 2, "wraps");
    }
}
