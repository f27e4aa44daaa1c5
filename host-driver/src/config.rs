//! Settings from a TOML file (`cngw config check|apply`, `cngw replay --config`,
//! `cngw flows --config`).
//!
//! ```toml
//! features = ["lh_ecn_mark"]   # FEATURE_ENABLE field names; the list replaces the register
//!
//! [port.0]                     # LH-03 thresholds of WAN port 0
//! rate = "100G"                # bits per second: "100G", "400M" or an integer
//! rtt = "10ms"                 # needs a unit: ns, us, ms, s
//! alpha = 1.0                  # unsigned 8.8 fixed point, 0..=255.996
//! k_base = "64K"               # bytes, binary prefixes: "64K" = 65536
//! # k_min = "32M"              # optional: explicit K_min (bytes) ...
//! # k_min_fraction = 0.5       # ... or a fraction of K_max (default 0.5)
//! # k_max = "100M"             # optional: explicit K_max instead of the formula
//!
//! [meter.0]                    # LH-02 queue meter of WAN port 0; every key optional
//! queue = "internal"           # depth from "telemetry" (the external input; reset) or "internal" (virtual queue)
//! drain = "95G"                # the virtual queue drains at this rate (bits per second), at [gateway] clocks_per_us (else 322)
//! avg_weight_shift = 4         # average queue: avg += (QD - avg) / 2^n every microsecond, 0..=31
//! emr_window = "100us"         # ECN marking-rate window (at least 17 clocks)
//! v_ecn = 0.5                  # LH-05: marking rate (CE share of ECN-capable frames) that triggers; "off" never
//! qgr_interval = "100us"       # queue-growth interval
//! v_growth = "50M"             # LH-05: growth per interval (bytes) that triggers; "off" never
//!
//! [longhaul]                   # second level of the Long-haul CNP; every key optional
//! interval = "1ms"             # minimum interval between CNPs to one flow (LH-08); "rtt" = RTT_est
//! options = ["ipv4_longhaul"]  # LH_OPTIONS names (hide_metric, ipv4_longhaul, ipv6_longhaul, defer); replaces the register
//! dscp = 48                    # DSCP of notifications, 0..=63
//! icmpv6_type = 200            # ICMPv6 type of the ICMPv6 format (LH-13): informational, 128..=255
//! obs_window = "100us"         # LH-06 observation window of the per-flow and per-port byte counts
//! top_share = 0.25             # LH-06: tell only flows with this share of the port's bytes (0 = every flow)
//! bucket = { refill_clocks = 3222, depth = 8 }   # one token every N clocks (>= 1), 1..=8 tokens
//! resume = { level = 20, parameter = 50 }        # Resume (LH-09): level, percent to recover (0 = all)
//! [[longhaul.severity]]        # row 0: the queue is above K_max (LH-07)
//! level = 180                  # Congestion Level 0..=255
//! action = "rate_reduce"       # notify | pause | rate_reduce
//! parameter = 30               # rate_reduce: percent 0..=100; pause: a duration ("100us"); notify: none
//! [[longhaul.severity]]        # rows 1, 2: above K_max and above their threshold
//! threshold = "200M"           # bytes, above row 1's for row 2; rows not listed never apply
//! level = 220
//! action = "pause"
//! parameter = "100us"
//! [[longhaul.formats]]         # LH-15 format table, up to 8 entries; the list replaces the table
//! prefix = "10.0.0.0/24"       # IPv4 or IPv6 prefix (no host bits); the longest match decides
//! format = "rocev2"            # cnp | rocev2 | icmpv6 (IPv6 prefixes only)
//! [longhaul.extension]         # extension objects of Long-haul CNPs (LH-12, LH-13); replaces them all
//! timestamp = true             # the time of day of the decision; `apply` sets the clock from the host's
//! device_id = "gw-paris-1"     # UTF-8, 1..=16 bytes
//! path_id = "0a0b0c0d"         # hex, 1..=8 bytes
//! class_num = 247              # 0..=255 (default 247)
//! clock_hz = 322265625         # core clock: sets the time-of-day increment (optional)
//!
//! [gateway]                    # source addresses of notifications
//! mac = "02:c0:6e:00:00:01"
//! ipv4 = "10.0.1.1"
//! ipv6 = "fd00::1"
//! clocks_per_us = 322          # core clocks per microsecond (time base of every _US register)
//!
//! [flows]                      # the flow table (LH-01)
//! age_timeout = "10s"          # idle learned flows leave after this; "off" (or "0s") never
//! learn = ["cm", "psn"]        # source-QP learning (LH-01): "cm" (RDMA CM REQ/REP), "psn" (request/ACK PSN pairing); [] = none
//! psn_window = 65536           # PSN pairing: request PSNs a tracker remembers, 1..=8388608
//! static = [                   # pinned entries: {SIP, DIP, DQP} -> SQP
//!   { src = "10.0.0.1", dst = "10.0.0.4", dqp = 200, sqp = 100 },
//! ]
//!
//! [pre_ecn]                    # PE-03 congested WAN node (needs features = ["pre_ecn"])
//! wan_marking = true           # two-threshold marking toward the WAN on the average queue
//! t1 = "20M"                   # ECT(1) with a probability rising from 0 at t1 to 1 at t2
//! t2 = "60M"                   # CE with a probability rising from 0 at t2 to 1 at tmax
//! tmax = "100M"
//! seed = 0xACE1                # marking LFSR seed, loaded when marking is switched on
//!
//! [fast_cnp]                   # FCN-03 congested WAN node (needs features = ["fast_cnp"])
//! wan_node = true              # a Fast CNP to the outer source of each frame the [pre_ecn] draw marks
//! copy_label = true            # also put the flow label in the Fast CNP's IPv6 header (a key left out is off)
//! udp_port = 49791             # UDP destination (and source) port of Fast CNPs (draft TBD1)
//! bucket = { refill_clocks = 3222, depth = 8 }   # FCN-06: one Fast CNP every N clocks (>= 1), bursts of 1..=8
//! ingress_pe = true            # FCN-05: Fast CNPs to this PE (GW_IPV6) become standard CNPs to the flow's sender
//! domain = ["fd00:c::/32"]     # FCN-06: the WAN nodes' source prefixes accepted (IPv6, at most 2; needed with ingress_pe)
//! rx_bucket = { refill_clocks = 3222, depth = 8 } # FCN-06: at most one received Fast CNP turned into a CNP every N clocks
//! cnp_mac = "02:00:00:00:0d:c0" # destination MAC of those CNPs (the data-centre next hop)
//!
//! [proxy]                      # PX-02/PX-04 proxy (needs features = ["proxy_cn"]); every key optional
//! enable = true                # CN messages to this gateway become standard CNPs to the flows' senders
//! udp_port = 49792             # UDP destination port of CN messages (draft TBD1)
//! border_filter = true         # PX-04: only CN messages from the domain prefixes (default true; needs a domain)
//! domain = ["198.51.100.0/24", "fd00:c::/32"] # the congested nodes' prefixes (IPv4 or IPv6, at most 2; shared with [fast_cnp] domain: give one)
//! rx_bucket = { refill_clocks = 3222, depth = 8 } # PX-04: at most one CN message translated every N clocks (0: no limit)
//! generate = true              # PX-01: congested-node notifications for senders the table covers go to their proxy as CN messages
//! tx_bucket = { refill_clocks = 3222, depth = 8 } # PX-04: at most one CN message generated every N clocks (0: no limit)
//!                              # the CNPs go to [fast_cnp] cnp_mac (the data-centre next hop)
//! table = [                    # PX-03: the prefix -> proxy table, exactly these entries (at most 16)
//!   { prefix = "10.1.0.0/16", proxy = "192.0.2.9" },
//! ]
//!
//! [rate_advice]                # RA-01..RA-04 SCONE Rate Advice (needs features = ["rate_advice"])
//! law = true                   # RCP's law every interval (default true); false: the advice is 8 C
//! header_bit = false           # RA-01: frames with BTH byte 4 bit 4 set mark their sender capable
//! capacity_gbps = 100          # C, the WAN port's capacity: round(gbps * 125) bytes/us, 1..=1048575
//! interval_us = 1000           # T, 1..=16777215 and at least 133 clocks at [gateway] clocks_per_us; T <= rtt_us
//! rtt_us = 10000               # d, the senders' reaction time (written as T/d and 1/(d C))
//! alpha = 0.4                  # gains, 0 < x < 2, in 1/256 steps (RCP's 0.4 and 0.226)
//! beta = 0.226
//! min_mbps = 100               # floor of the advice, 1..=8 C Mb/s
//! flow_spacing_us = 1000       # a flow is sent a changed advice at most once per this many microseconds
//! opcode = 0x1D                # BTH opcode of Rate Advice messages, 0..=255
//! capable = ["10.1.0.0/16", "2001:db8:100::/40"] # RA-01: only these senders get messages (at most 2)
//! policy = [                   # RA-02: caps of the senders a prefix covers (at most 2)
//!   { prefix = "10.1.2.0/24", mbps = 20000 },
//! ]
//! dc_capacity_gbps = 100       # RA-04: C of the data-centre port (the egress law's; with rtt_us its own 1/(d C))
//! remote_send = false          # RA-04 egress gateway: the data-centre port's advice to every peer after each
//!                              # interval, on wan_tx to [tunnel] next_hop_mac, from [gateway] ipv4/ipv6
//! remote_accept = false        # RA-04 source gateway: a live peer's advice caps flows toward the prefix behind it
//! remote_timeout_us = 10000    # RA-04: a peer's advice lapses this long after its last message (0: never)
//! [[rate_advice.peer]]         # RA-04: the peer gateways (at most 2; needed by remote_send and remote_accept)
//! address = "198.51.100.2"     # the peer gateway's address (IPv4 or IPv6)
//! prefix = "10.1.0.0/16"       # the data-centre prefix behind it (no host bits)
//!
//! [tunnel]                     # FCN-02/PE-01 ingress PE, PE-02/PE-06 egress PE (roles off if left out)
//! ingress_pe = true            # encapsulate every frame from dc_rx toward the WAN (outer flow label = the flow's label)
//! kind = "vxlan"               # the ingress tunnel: "vxlan" (needs remote) or "srv6" (needs segments)
//! remote = "2001:db8:2::1"     # VXLAN: the egress PE, outer destination
//! vni = 4096                   # VXLAN network identifier, 0..=16777215
//! udp_sport = { base = 0xC000, mask = 0x3FFF }   # VXLAN UDP source port: base & !mask | label & mask
//! segments = ["fc00:2::1"]     # SRv6: 1 or 2 SIDs in visiting order; the first is the outer destination
//! hop_limit = 64               # outer hop limit, 1..=255
//! mtu = 9000                   # largest outer IPv6 packet, 1280..=65535; larger frames are dropped and counted
//! compat = false               # RFC 6040 compatibility mode (outer Not-ECT); false: normal mode
//! next_hop_mac = "02:00:00:00:0e:01" # destination MAC of tunnelled frames (the WAN next hop)
//! egress_pe = true             # decapsulate VXLAN and SRv6 frames to GW_IPV6 from the WAN
//! outside_domain = false       # PE-06: the egress output leaves the pre-ECN domain (RFC 6040's table)
//! dc_mac = "02:00:00:00:0d:01" # egress: destination MAC put in front of SRv6 inner packets
//! alt_segments = ["fc00:7::1", "fc00:2::1"] # PE-05: the alternate SRv6 path (1 or 2 SIDs) of slowed flows
//!
//! [tunnel.shaper]              # PE-05: light Fast CNPs slow their flow at the tunnel entrance (every key optional)
//! enable = true                # needs ingress_pe and [fast_cnp] ingress_pe; light notifications then make no CNP
//! max_rate = "100G"            # full rate (a slot recovered to it is freed); rates in steps of 8M (1 byte/us), up to 524G
//! min_rate = "10G"             # floor of the cuts
//! cut_shift = 3                # each light notification cuts rate >> cut_shift, 1..=15
//! recover_interval = "55us"    # quiet time per recovery step, 1us..=65535us
//! recover_step = "10G"         # rate added per step
//! burst = "64K"                # token bucket depth per flow, bytes (at least max_rate's bytes per microsecond)
//! alt_path = true              # SRv6: a flow at or below alt_below takes alt_segments until back at alt_above
//! alt_below = "50G"
//! alt_above = "80G"
//!
//! [adjust]                     # LH-11 loop of `cngw adjust` (`apply` only validates it); every key optional
//! alpha_min = 0.25             # alpha stays in [alpha_min, alpha_max] (8.8 steps)
//! alpha_max = 1.0
//! decrease = 0.75              # standing queue at full link: alpha *= decrease, 0 < f < 1
//! increase = 0.125             # headroom: alpha += increase
//! util_low = 0.5               # headroom below this utilisation; dead band up to util_high
//! util_high = 0.9              # a full link at or above this utilisation
//! persist = 2                  # observations in a row before alpha moves
//! interval = "1s"              # time between observations
//!
//! [registers]                  # raw escape hatch, by register name
//! SCRATCH = 0x1234
//! ```
//!
//! Loading is two steps. [`Config::plan`] validates everything (unknown keys,
//! feature and register names, read-only registers, value ranges, ports the
//! device lacks, a register set by two keys) and turns it into a [`Plan`]; it
//! only reads the device. [`apply`] then checks the plan against the device
//! and carries it out. A configuration with any error therefore writes
//! nothing.
//!
//! Order: raw registers (by offset), each port's thresholds (see
//! [`threshold_writes`]), the second level, the extension objects, the
//! gateway's addresses and the aging timeout (by offset), the format table
//! (entry by entry: `CONTROL` cleared, prefix, `CONTROL`;
//! [`FormatTable::writes`]), the Fast CNP domain prefixes likewise,
//! the Rate Advice settings, capable-sender prefixes, policy entries (each
//! entry likewise, its cap before its `CONTROL`), peer gateways (likewise,
//! the address before the `CONTROL`), `RA_REMOTE_CONTROL` and `RA_CONTROL`,
//! `PE_SHAPER_CONTROL` (the shaper switches on after its settings) and
//! `TUNNEL_CONTROL` (the roles switch on after their tunnel), then the static
//! flows (flow-table commands, [`crate::flows`]), then — with the timestamp
//! object on — the time of day from the host's clock
//! ([`Device::set_time_of_day`]), then FEATURE_ENABLE last, so features switch on only
//! once everything they use is in place. A static insert can still fail on
//! the device (its 8 candidate buckets and the stash full): `apply` then stops with the
//! error before FEATURE_ENABLE.
//!
//! A few settings are legal but probably not meant (a `[rate_advice]`
//! table while `features` leaves `rate_advice` off): they are
//! [`Plan::warnings`], which change nothing in the plan.

use crate::adjust::{AdjustParams, AdjustSettings};
use crate::bus::{BusError, RegisterBus};
use crate::device::{
    check_write, feature_bit, port_registers, threshold_writes, Device, DeviceError, PortRegisters,
};
use crate::extension::{parse_hex_id, ExtensionObjects};
use crate::flows::{self, check_qp, flow_key, key_text, FlowKey, QP_MAX};
use crate::formats::{FormatEntry, FormatTable, NotifyFormat, Prefix};
use crate::longhaul::{
    action_name, duration_us, parse_action, parse_mac, ActionWord, FlowInterval, GatewayAddresses,
    LhOptions, SecondLevel, SeverityRow,
};
use crate::meter::{drain_q16, v_ecn_q16, MeterSettings, QueueSource, NEVER};
use crate::rate_advice::{self, gain_q8, PrefixRegisters, RateAdviceLaw};
use crate::thresholds::{compute_thresholds, q8_8_to_alpha, KMin, ThresholdInput, Thresholds};
use crate::units::{parse_bytes, parse_duration, parse_rate};
use cngw_packet::longhaul::Action;
use cngw_regmap::{
    by_name, by_offset, fcn_control, feature, learn_control, offset, pe_control, tunnel_control,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// A parsed (not yet validated) configuration file.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Features to enable; the rest are disabled. `None` leaves FEATURE_ENABLE alone.
    #[serde(default)]
    pub features: Option<Vec<String>>,
    /// Per-port thresholds, keyed by port number.
    #[serde(default)]
    pub port: BTreeMap<String, PortConfig>,
    /// Queue meters, keyed by port number (LH-02).
    #[serde(default)]
    pub meter: BTreeMap<String, MeterConfig>,
    /// The Long-haul CNP second level.
    #[serde(default)]
    pub longhaul: Option<LonghaulConfig>,
    /// The gateway's own addresses.
    #[serde(default)]
    pub gateway: Option<GatewayConfig>,
    /// The flow table: aging and static entries.
    #[serde(default)]
    pub flows: Option<FlowsConfig>,
    /// The LH-11 adjustment loop (`cngw adjust`); writes no register itself.
    #[serde(default)]
    pub adjust: Option<AdjustConfig>,
    /// Precise ECN in the WAN (PE-03: the congested WAN node's marking).
    #[serde(default)]
    pub pre_ecn: Option<PreEcnConfig>,
    /// Fast CNP (FCN-03..FCN-06): the congested WAN node.
    #[serde(default)]
    pub fast_cnp: Option<FastCnpConfig>,
    /// The tunnel roles (FCN-02, PE-01, PE-02, PE-06).
    #[serde(default)]
    pub tunnel: Option<TunnelConfig>,
    /// The proxy for congestion notification (PX-02, PX-04).
    #[serde(default)]
    pub proxy: Option<ProxyConfig>,
    /// SCONE Rate Advice (RA-01..RA-04).
    #[serde(default)]
    pub rate_advice: Option<RateAdviceConfig>,
    /// Raw register values by register name.
    #[serde(default)]
    pub registers: BTreeMap<String, toml::Value>,
}

/// The `[adjust]` table (LH-11); every key optional, defaults of
/// [`AdjustSettings::default`].
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdjustConfig {
    pub alpha_min: Option<toml::Value>,
    pub alpha_max: Option<toml::Value>,
    /// Factor of a decrease, 0 < f < 1.
    pub decrease: Option<toml::Value>,
    /// Alpha added by an increase.
    pub increase: Option<toml::Value>,
    pub util_low: Option<toml::Value>,
    pub util_high: Option<toml::Value>,
    pub persist: Option<toml::Value>,
    /// A duration: time between two observations.
    pub interval: Option<toml::Value>,
}

/// The validated `[adjust]` table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdjustPlan {
    pub params: AdjustParams,
    /// `interval`, if the file gives one.
    pub interval: Option<Duration>,
}

impl AdjustConfig {
    /// The law's parameters and the interval, or the issues found.
    fn plan(&self, issues: &mut Issues) -> Option<AdjustPlan> {
        let before = issues.0.len();
        let mut settings = AdjustSettings::default();
        for (name, value, slot) in [
            ("alpha_min", &self.alpha_min, &mut settings.alpha_min),
            ("alpha_max", &self.alpha_max, &mut settings.alpha_max),
            ("decrease", &self.decrease, &mut settings.decrease),
            ("increase", &self.increase, &mut settings.increase),
            ("util_low", &self.util_low, &mut settings.util_low),
            ("util_high", &self.util_high, &mut settings.util_high),
        ] {
            if let Some(v) = value {
                match number(v) {
                    Ok(x) => *slot = x,
                    Err(m) => issues.add(format!("adjust.{name}"), m),
                }
            }
        }
        if let Some(v) = &self.persist {
            if let Some(n) = int_field(issues, "adjust.persist".into(), v, 1, 1_000_000) {
                settings.persist = n as u32;
            }
        }
        let mut interval = None;
        if let Some(v) = &self.interval {
            match duration(v, "1s") {
                Ok(d) if d.is_zero() => issues.add("adjust.interval", "must be above 0"),
                Ok(d) => interval = Some(d),
                Err(m) => issues.add("adjust.interval", m),
            }
        }
        if issues.0.len() != before {
            return None;
        }
        match settings.params() {
            Ok(params) => Some(AdjustPlan { params, interval }),
            Err(problems) => {
                for e in problems {
                    issues.add(format!("adjust.{}", e.key()), e.to_string());
                }
                None
            }
        }
    }
}

/// The `[longhaul]` table; every key is optional.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LonghaulConfig {
    /// A duration, or `"rtt"` for RTT_est.
    pub interval: Option<toml::Value>,
    pub dscp: Option<toml::Value>,
    /// ICMPv6 type of Long-haul CNPs in the ICMPv6 format (LH-13).
    pub icmpv6_type: Option<toml::Value>,
    /// Observation window of the per-flow and per-port byte counts (LH-06).
    pub obs_window: Option<toml::Value>,
    /// Top-contributor share, a fraction 0..1 (LH-06).
    pub top_share: Option<toml::Value>,
    /// `LH_OPTIONS` field names; the list replaces the register.
    pub options: Option<Vec<String>>,
    pub bucket: Option<BucketConfig>,
    pub resume: Option<ResumeConfig>,
    /// Rows 0, 1, 2 of the severity table; the list replaces the table.
    pub severity: Option<Vec<SeverityConfig>>,
    /// LH-15: the format table; the list replaces the table.
    pub formats: Option<Vec<FormatConfig>>,
    /// The extension objects (LH-12, LH-13); the table replaces them all.
    pub extension: Option<ExtensionConfig>,
}

/// One `[[longhaul.formats]]` entry.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormatConfig {
    /// `"10.0.0.0/24"`, `"fd00:1::/32"`; an address alone is one host.
    pub prefix: String,
    /// `cnp`, `rocev2` or `icmpv6`.
    pub format: String,
}

/// `[longhaul.extension]`: objects not named are off.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtensionConfig {
    pub timestamp: Option<bool>,
    /// UTF-8, 1..=16 bytes.
    pub device_id: Option<String>,
    /// Hexadecimal, 1..=8 bytes.
    pub path_id: Option<String>,
    pub class_num: Option<toml::Value>,
    /// The core clock in hertz (the time-of-day increment).
    pub clock_hz: Option<toml::Value>,
}

/// `[longhaul] bucket = { refill_clocks = N, depth = N }`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BucketConfig {
    pub refill_clocks: Option<toml::Value>,
    pub depth: Option<toml::Value>,
}

/// `[longhaul] resume = { level = N, parameter = PERCENT }`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResumeConfig {
    pub level: toml::Value,
    pub parameter: toml::Value,
}

/// One `[[longhaul.severity]]` row.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeverityConfig {
    /// Bytes (rows 1 and 2 only).
    pub threshold: Option<toml::Value>,
    pub level: toml::Value,
    /// `notify`, `pause` or `rate_reduce`.
    pub action: String,
    /// Percent (`rate_reduce`), a duration (`pause`), absent (`notify`).
    pub parameter: Option<toml::Value>,
}

/// The `[gateway]` table.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayConfig {
    pub mac: Option<String>,
    pub ipv4: Option<String>,
    pub ipv6: Option<String>,
    pub clocks_per_us: Option<toml::Value>,
}

/// The `[flows]` table.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowsConfig {
    /// A duration, or `"off"`.
    pub age_timeout: Option<toml::Value>,
    /// Source-QP learning methods (`"cm"`, `"psn"`); the list replaces
    /// `LEARN_CONTROL`.
    pub learn: Option<Vec<String>>,
    /// PSN pairing's window (`LEARN_PSN_WINDOW`), 1..=2^23.
    pub psn_window: Option<u32>,
    /// Static (pinned) entries.
    #[serde(rename = "static", default)]
    pub static_flows: Vec<StaticFlowConfig>,
}

/// `{ src = "10.0.0.1", dst = "10.0.0.4", dqp = 200, sqp = 100 }`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticFlowConfig {
    pub src: String,
    pub dst: String,
    pub dqp: toml::Value,
    pub sqp: toml::Value,
}

/// A static flow-table entry of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticFlow {
    pub key: FlowKey,
    pub sqp: u32,
}

/// The `[meter.N]` table (LH-02); every key optional.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeterConfig {
    /// `"telemetry"` or `"internal"`.
    pub queue: Option<String>,
    /// Bits per second.
    pub drain: Option<toml::Value>,
    pub avg_weight_shift: Option<toml::Value>,
    /// A duration.
    pub emr_window: Option<toml::Value>,
    /// A fraction 0..=1, or `"off"`.
    pub v_ecn: Option<toml::Value>,
    /// A duration.
    pub qgr_interval: Option<toml::Value>,
    /// Bytes, or `"off"`.
    pub v_growth: Option<toml::Value>,
}

/// The `[pre_ecn]` table (PE-03); every key optional, but T1, T2 and Tmax
/// come together.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreEcnConfig {
    /// The congested WAN node's two-threshold marking (`PE_CONTROL.wan_marking`).
    pub wan_marking: Option<bool>,
    /// Average-queue thresholds in bytes (`"20M"` or an integer), T1 < T2 < Tmax.
    pub t1: Option<toml::Value>,
    pub t2: Option<toml::Value>,
    pub tmax: Option<toml::Value>,
    /// Seed of the marking LFSR, 0..=65535 (0 acts as 1).
    pub seed: Option<toml::Value>,
}

impl PreEcnConfig {
    /// The register writes, or the issues found.
    fn writes(&self, issues: &mut Issues) -> Vec<(u32, u32)> {
        let mut writes = Vec::new();
        let bytes = |key: &str, v: &toml::Value, issues: &mut Issues| match quantity(
            v,
            parse_bytes,
            "a byte size such as \"20M\"",
        )
        .and_then(|b| {
            u32::try_from(b)
                .ok()
                .filter(|&b| b < NEVER)
                .ok_or_else(|| format!("{b} bytes is more than 4 GiB - 2"))
        }) {
            Ok(b) => Some(b),
            Err(m) => {
                issues.add(format!("pre_ecn.{key}"), m);
                None
            }
        };
        match (&self.t1, &self.t2, &self.tmax) {
            (None, None, None) => {}
            (Some(a), Some(b), Some(c)) => {
                let t = [("t1", a), ("t2", b), ("tmax", c)].map(|(k, v)| bytes(k, v, issues));
                if let [Some(t1), Some(t2), Some(tmax)] = t {
                    if t1 < t2 && t2 < tmax {
                        writes.extend([
                            (offset::PE_T1_BYTES, t1),
                            (offset::PE_T2_BYTES, t2),
                            (offset::PE_TMAX_BYTES, tmax),
                        ]);
                    } else {
                        issues.add(
                            "pre_ecn.t1",
                            format!("thresholds must rise: t1 {t1} < t2 {t2} < tmax {tmax} bytes"),
                        );
                    }
                }
            }
            _ => issues.add("pre_ecn.t1", "t1, t2 and tmax come together"),
        }
        if let Some(v) = &self.seed {
            match integer(v, 0, 0xFFFF) {
                Ok(seed) => writes.push((offset::PE_LFSR_SEED, seed as u32)),
                Err(m) => issues.add("pre_ecn.seed", m),
            }
        }
        if let Some(on) = self.wan_marking {
            writes.push((
                offset::PE_CONTROL,
                if on { pe_control::WAN_MARKING } else { 0 },
            ));
        }
        writes
    }
}

/// The `[fast_cnp]` table (FCN-03, FCN-06); every key optional.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastCnpConfig {
    /// The congested WAN node's Fast CNPs (`FCN_CONTROL.wan_node`).
    pub wan_node: Option<bool>,
    /// The label also in the Fast CNP's IPv6 header (`FCN_CONTROL.copy_label`).
    pub copy_label: Option<bool>,
    /// UDP port, 1..=65535.
    pub udp_port: Option<toml::Value>,
    /// The generation rate limit (FCN-06).
    pub bucket: Option<BucketConfig>,
    /// The ingress PE's reception (`FCN_CONTROL.ingress_pe`, FCN-05).
    pub ingress_pe: Option<bool>,
    /// In-domain source prefixes of received Fast CNPs (IPv6, at most 2).
    pub domain: Option<Vec<String>>,
    /// The reception rate limit (FCN-06).
    pub rx_bucket: Option<BucketConfig>,
    /// Destination MAC of the ingress PE's CNPs.
    pub cnp_mac: Option<String>,
}

impl FastCnpConfig {
    /// The register writes, or the issues found.
    fn writes(&self, issues: &mut Issues) -> Vec<(u32, u32)> {
        let mut writes = Vec::new();
        if let Some(v) = &self.udp_port {
            if let Some(port) = int_field(issues, "fast_cnp.udp_port".into(), v, 1, 0xFFFF) {
                writes.push((offset::FCN_UDP_PORT, port as u32));
            }
        }
        if let Some(bucket) = &self.bucket {
            if let Some(v) = &bucket.refill_clocks {
                if let Some(n) = int_field(
                    issues,
                    "fast_cnp.bucket.refill_clocks".into(),
                    v,
                    1,
                    u32::MAX.into(),
                ) {
                    writes.push((offset::FCN_BUCKET_REFILL_CLOCKS, n as u32));
                }
            }
            if let Some(v) = &bucket.depth {
                if let Some(n) = int_field(issues, "fast_cnp.bucket.depth".into(), v, 1, 8) {
                    writes.push((offset::FCN_BUCKET_DEPTH, n as u32));
                }
            }
        }
        if let Some(bucket) = &self.rx_bucket {
            if let Some(v) = &bucket.refill_clocks {
                if let Some(n) = int_field(
                    issues,
                    "fast_cnp.rx_bucket.refill_clocks".into(),
                    v,
                    1,
                    u32::MAX.into(),
                ) {
                    writes.push((offset::FCN_RX_BUCKET_REFILL_CLOCKS, n as u32));
                }
            }
            if let Some(v) = &bucket.depth {
                if let Some(n) = int_field(issues, "fast_cnp.rx_bucket.depth".into(), v, 1, 8) {
                    writes.push((offset::FCN_RX_BUCKET_DEPTH, n as u32));
                }
            }
        }
        if let Some(text) = &self.cnp_mac {
            match crate::longhaul::parse_mac(text) {
                Ok(mac) => {
                    writes.push((
                        offset::FCN_CNP_MAC_HI,
                        u16::from_be_bytes([mac[0], mac[1]]) as u32,
                    ));
                    writes.push((
                        offset::FCN_CNP_MAC_LO,
                        u32::from_be_bytes([mac[2], mac[3], mac[4], mac[5]]),
                    ));
                }
                Err(e) => issues.add("fast_cnp.cnp_mac", e),
            }
        }
        if self.ingress_pe == Some(true) && self.domain.as_ref().is_none_or(|d| d.is_empty()) {
            issues.add(
                "fast_cnp.domain",
                "the ingress PE accepts Fast CNPs only from domain prefixes: give at least one (\"::/0\" accepts every source)",
            );
        }
        if self.wan_node.is_some() || self.copy_label.is_some() || self.ingress_pe.is_some() {
            let mut control = 0;
            if self.wan_node == Some(true) {
                control |= fcn_control::WAN_NODE;
            }
            if self.copy_label == Some(true) {
                control |= fcn_control::COPY_LABEL;
            }
            if self.ingress_pe == Some(true) {
                control |= fcn_control::INGRESS_PE;
            }
            writes.push((offset::FCN_CONTROL, control));
        }
        writes
    }

    /// FCN-06: the domain prefixes' writes ([`domain_writes`]).
    fn domain_writes(&self, issues: &mut Issues) -> Vec<(u32, u32)> {
        match &self.domain {
            Some(domain) => domain_writes("fast_cnp.domain", domain, false, issues),
            None => Vec::new(),
        }
    }
}

/// The Fast CNP UDP port after reset (`FCN_UDP_PORT`).
fn default_fcn_port() -> u16 {
    cngw_regmap::by_name("FCN_UDP_PORT").map_or(0, |r| r.reset as u16)
}

/// FCN-06, PX-04: the domain prefixes' writes ([`prefix_entry_writes`]
/// on `FCN_RX_DOM0`, `FCN_RX_DOM1`). `key` names the configuration key in
/// messages; IPv4 prefixes (compared with IPv4-mapped sources) only with
/// `ipv4`.
fn domain_writes(key: &str, domain: &[String], ipv4: bool, issues: &mut Issues) -> Vec<(u32, u32)> {
    let entries: Vec<PrefixEntry> = domain
        .iter()
        .enumerate()
        .map(|(i, text)| PrefixEntry {
            key: format!("{key}[{i}]"),
            text,
            before_valid: Vec::new(),
        })
        .collect();
    let regs = [
        PrefixRegisters {
            prefix: offset::FCN_RX_DOM0_PREFIX_0,
            control: offset::FCN_RX_DOM0_CONTROL,
        },
        PrefixRegisters {
            prefix: offset::FCN_RX_DOM1_PREFIX_0,
            control: offset::FCN_RX_DOM1_CONTROL,
        },
    ];
    let ipv4_refused = (!ipv4).then_some("Fast CNPs come from IPv6 sources only");
    prefix_entry_writes(key, &entries, &regs, ipv4_refused, issues)
}

/// One prefix to put in a gateway prefix entry.
struct PrefixEntry<'a> {
    /// The configuration key of the prefix (for messages).
    key: String,
    text: &'a str,
    /// Writes made after the prefix words and before the entry turns
    /// valid (a policy entry's cap).
    before_valid: Vec<(u32, u32)>,
}

/// The writes that make the prefix entries `regs` hold `entries` in order
/// (valid, with their length; entries beyond the list invalid): each
/// entry's control cleared, its prefix words (IPv4 as `::ffff:a.b.c.d`,
/// its length + 96), its `before_valid` writes, then its control, so a
/// prefix is never used half-written. `list_key` names the list in
/// messages; IPv4 prefixes are refused with the reason `ipv4_refused`
/// when given. A prefix may cover the IPv4-mapped range (`::/0`: every
/// sender).
fn prefix_entry_writes(
    list_key: &str,
    entries: &[PrefixEntry],
    regs: &[PrefixRegisters],
    ipv4_refused: Option<&str>,
    issues: &mut Issues,
) -> Vec<(u32, u32)> {
    let mut writes = Vec::new();
    if entries.len() > regs.len() {
        issues.add(
            list_key,
            format!(
                "{} prefixes given; the gateway holds {}",
                entries.len(),
                regs.len()
            ),
        );
    }
    for (i, r) in regs.iter().enumerate() {
        let Some(entry) = entries.get(i) else {
            writes.push((r.control, 0));
            continue;
        };
        let key = entry.key.clone();
        let prefix = match crate::formats::Prefix::parse(entry.text) {
            Ok(p) => p,
            Err(e) => {
                issues.add(key, e);
                continue;
            }
        };
        if let Some(reason) = ipv4_refused.filter(|_| prefix.is_ipv4()) {
            issues.add(key, format!("{prefix}: {reason}"));
            continue;
        }
        match prefix.check() {
            Ok(()) | Err(crate::formats::FormatError::CoversIpv4 { .. }) => {}
            Err(e) => {
                issues.add(key, e.to_string());
                continue;
            }
        }
        // Invalid while the prefix changes: never half-written in use.
        writes.push((r.control, 0));
        for (w, word) in prefix.register_words().into_iter().enumerate() {
            writes.push((r.prefix + 4 * w as u32, word));
        }
        writes.extend(entry.before_valid.iter().copied());
        writes.push((
            r.control,
            cngw_regmap::fcn_rx_dom_control::VALID
                | prefix.register_len() << cngw_regmap::fcn_rx_dom_control::LEN_SHIFT,
        ));
    }
    writes
}

/// The `[rate_advice]` table (RA-01..RA-04); every key optional, a key
/// left out takes its register's reset value (`rtt_us`: 10 ms, the `d` of
/// the reset `T/d` and `1/(d C)`; `remote_send`, `remote_accept`: false).
/// The table writes every `RA_*` setting; `capable`, `policy` and `peer`
/// replace both entries of their list.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateAdviceConfig {
    /// `RA_CONTROL.law` (true unless given false).
    pub law: Option<bool>,
    /// RA-01: `RA_CONTROL.header_bit`, frames with the BTH capability bit
    /// mark their sender capable (false unless given true).
    pub header_bit: Option<bool>,
    /// C in Gb/s, a number above 0: `round(gbps * 125)` bytes per microsecond.
    pub capacity_gbps: Option<toml::Value>,
    /// T, microseconds.
    pub interval_us: Option<toml::Value>,
    /// d, the senders' reaction time, microseconds.
    pub rtt_us: Option<toml::Value>,
    /// Gains, 0 < x < 2.
    pub alpha: Option<toml::Value>,
    pub beta: Option<toml::Value>,
    /// The advice's floor, Mb/s.
    pub min_mbps: Option<toml::Value>,
    pub flow_spacing_us: Option<toml::Value>,
    /// BTH opcode, 0..=255.
    pub opcode: Option<toml::Value>,
    /// RA-01: the capable senders' prefixes (IPv4 or IPv6, at most 2).
    pub capable: Option<Vec<String>>,
    /// RA-02: policy caps (at most 2).
    pub policy: Option<Vec<RatePolicyConfig>>,
    /// RA-04: the data-centre port's C in Gb/s, as `capacity_gbps`.
    pub dc_capacity_gbps: Option<toml::Value>,
    /// RA-04: `RA_REMOTE_CONTROL.send` (false unless given true).
    pub remote_send: Option<bool>,
    /// RA-04: `RA_REMOTE_CONTROL.accept` (false unless given true).
    pub remote_accept: Option<bool>,
    /// RA-04: microseconds, 0 (never) ..= 2^32 - 1.
    pub remote_timeout_us: Option<toml::Value>,
    /// RA-04: `[[rate_advice.peer]]`, the peer gateways (at most 2).
    pub peer: Option<Vec<RatePeerConfig>>,
}

/// One `[[rate_advice.peer]]` (RA-04): a peer gateway and the data-centre
/// prefix behind it; both keys required.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatePeerConfig {
    /// IPv4 or IPv6 address of the peer gateway.
    pub address: Option<String>,
    /// The data-centre prefix behind the peer (no host bits).
    pub prefix: Option<String>,
}

/// A capacity key in Gb/s (`capacity_gbps`, `dc_capacity_gbps`) as bytes
/// per microsecond, `round(gbps * 125)` in 1..=[`rate_advice::CAPACITY_MAX`]
/// (`register` names the register in messages).
fn capacity_key(issues: &mut Issues, key: String, register: &str, v: &toml::Value) -> Option<u32> {
    match number(v) {
        Ok(gbps) if gbps > 0.0 && gbps.is_finite() => {
            let bytes = (gbps * 125.0).round();
            if (1.0..=f64::from(rate_advice::CAPACITY_MAX)).contains(&bytes) {
                Some(bytes as u32)
            } else {
                issues.add(
                    key,
                    format!(
                        "{gbps} Gb/s is {bytes} bytes per microsecond; \
                         {register} holds 1..={} (0.008 to 8388.6 Gb/s)",
                        rate_advice::CAPACITY_MAX
                    ),
                );
                None
            }
        }
        Ok(gbps) => {
            issues.add(key, format!("{gbps} Gb/s: the capacity must be above 0"));
            None
        }
        Err(m) => {
            issues.add(key, m);
            None
        }
    }
}

/// RA-04: a peer gateway's address: a unicast IPv4 or IPv6 address (an
/// IPv4-mapped IPv6 one is given as IPv4).
fn peer_address(text: &str) -> Result<IpAddr, String> {
    let addr: IpAddr = text.trim().parse().map_err(|_| {
        format!(
            "{text:?} is not an IPv4 or IPv6 address such as \"198.51.100.2\" or \"2001:db8::2\""
        )
    })?;
    let unicast = match addr {
        IpAddr::V4(v4) => !(v4.is_unspecified() || v4.is_multicast() || v4.is_broadcast()),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return Err(format!(
                    "{v6} is IPv4-mapped: give it as the IPv4 address {v4}"
                ));
            }
            !(v6.is_unspecified() || v6.is_multicast())
        }
    };
    if unicast {
        Ok(addr)
    } else {
        Err(format!("{addr}: a peer gateway has a unicast address"))
    }
}

/// One entry of `[rate_advice] policy`: the senders in `prefix` are advised
/// at most `mbps`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatePolicyConfig {
    pub prefix: String,
    /// Mb/s, at least 1 (required).
    pub mbps: Option<toml::Value>,
}

impl RateAdviceConfig {
    /// The law's settings, or `None` with the issues of each key; ranges
    /// and rules between keys are [`RateAdviceLaw::check`]'s.
    fn law(&self, clocks_per_us: u32, issues: &mut Issues) -> Option<RateAdviceLaw> {
        let before = issues.0.len();
        let k = |name: &str| format!("rate_advice.{name}");
        let mut law = RateAdviceLaw {
            law: self.law != Some(false),
            header_bit: self.header_bit == Some(true),
            remote_send: self.remote_send == Some(true),
            remote_accept: self.remote_accept == Some(true),
            ..RateAdviceLaw::default()
        };
        if let Some(v) = &self.capacity_gbps {
            if let Some(bytes) =
                capacity_key(issues, k("capacity_gbps"), "RA_CAPACITY_BYTES_PER_US", v)
            {
                law.capacity = bytes;
            }
        }
        if let Some(v) = &self.dc_capacity_gbps {
            if let Some(bytes) = capacity_key(
                issues,
                k("dc_capacity_gbps"),
                "RA_DC_CAPACITY_BYTES_PER_US",
                v,
            ) {
                law.dc_capacity = bytes;
            }
        }
        let u32_key = |issues: &mut Issues, name: &str, v: &Option<toml::Value>, min: u64| {
            v.as_ref()
                .and_then(|v| int_field(issues, k(name), v, min, u32::MAX.into()))
                .map(|n| n as u32)
        };
        if let Some(us) = u32_key(issues, "interval_us", &self.interval_us, 1) {
            law.interval_us = us;
        }
        if let Some(us) = u32_key(issues, "rtt_us", &self.rtt_us, 1) {
            law.rtt_us = us;
        }
        if let Some(mbps) = u32_key(issues, "min_mbps", &self.min_mbps, 1) {
            law.min_mbps = mbps;
        }
        if let Some(us) = u32_key(issues, "flow_spacing_us", &self.flow_spacing_us, 0) {
            law.flow_spacing_us = us;
        }
        if let Some(us) = u32_key(issues, "remote_timeout_us", &self.remote_timeout_us, 0) {
            law.remote_timeout_us = us;
        }
        if let Some(v) = &self.opcode {
            if let Some(op) = int_field(issues, k("opcode"), v, 0, 0xFF) {
                law.opcode = op as u32;
            }
        }
        for (name, value, slot) in [
            ("alpha", &self.alpha, &mut law.alpha_q8),
            ("beta", &self.beta, &mut law.beta_q8),
        ] {
            if let Some(v) = value {
                match number(v) {
                    Ok(x) if x > 0.0 && x < 2.0 => *slot = gain_q8(x),
                    Ok(x) => issues.add(
                        k(name),
                        format!("{x} is outside (0, 2): the gain is written in 1/256 steps, at most 511/256"),
                    ),
                    Err(m) => issues.add(k(name), m),
                }
            }
        }
        if issues.0.len() != before {
            return None;
        }
        let problems = law.check(clocks_per_us);
        for (key, e) in &problems {
            issues.add(k(key), e.to_string());
        }
        problems.is_empty().then_some(law)
    }

    /// The table's writes in order: the parameters ([`RateAdviceLaw::writes`]),
    /// the capable-sender entries, the policy entries (each cap before its
    /// entry turns valid; [`prefix_entry_writes`]), the peer gateways (each
    /// address before its entry turns valid), then `RA_REMOTE_CONTROL` and
    /// `RA_CONTROL`.
    fn writes(&self, clocks_per_us: u32, issues: &mut Issues) -> Vec<(u32, u32)> {
        let law = self.law(clocks_per_us, issues);
        let mut writes = law.map(|l| l.writes()).unwrap_or_default();
        let capable: Vec<PrefixEntry> = self
            .capable
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, text)| PrefixEntry {
                key: format!("rate_advice.capable[{i}]"),
                text,
                before_valid: Vec::new(),
            })
            .collect();
        writes.extend(prefix_entry_writes(
            "rate_advice.capable",
            &capable,
            &rate_advice::CAPABLE,
            None,
            issues,
        ));
        let mut policy = Vec::new();
        for (i, p) in self.policy.iter().flatten().enumerate() {
            let key = format!("rate_advice.policy[{i}]");
            let cap = match &p.mbps {
                Some(v) => int_field(issues, format!("{key}.mbps"), v, 1, u32::MAX.into()),
                None => {
                    issues.add(
                        format!("{key}.mbps"),
                        "a policy entry needs its cap: mbps = N (Mb/s, at least 1)",
                    );
                    None
                }
            };
            let mbps_reg = rate_advice::POLICY_MBPS.get(i).copied();
            policy.push(PrefixEntry {
                key: format!("{key}.prefix"),
                text: &p.prefix,
                before_valid: cap
                    .zip(mbps_reg)
                    .map(|(mbps, reg)| vec![(reg, mbps as u32)])
                    .unwrap_or_default(),
            });
        }
        writes.extend(prefix_entry_writes(
            "rate_advice.policy",
            &policy,
            &rate_advice::POLICY,
            None,
            issues,
        ));
        writes.extend(self.peer_writes(issues));
        if let Some(law) = law {
            writes.push((offset::RA_REMOTE_CONTROL, law.remote_control()));
            writes.push((offset::RA_CONTROL, law.control()));
        }
        writes
    }

    /// RA-04: the peer gateway entries `RA_PEER0`, `RA_PEER1` from `peer`
    /// (the rest invalid), each written as a prefix entry
    /// ([`prefix_entry_writes`]) with its address words before it turns
    /// valid; `remote_send` and `remote_accept` need a peer.
    fn peer_writes(&self, issues: &mut Issues) -> Vec<(u32, u32)> {
        let peers = self.peer.as_deref().unwrap_or_default();
        if peers.len() > rate_advice::ENTRIES {
            issues.add(
                "rate_advice.peer",
                format!(
                    "{} peers given; the gateway holds {} (RA_PEER0, RA_PEER1)",
                    peers.len(),
                    rate_advice::ENTRIES
                ),
            );
        }
        if peers.is_empty() {
            for (name, on) in [
                ("remote_send", self.remote_send),
                ("remote_accept", self.remote_accept),
            ] {
                if on == Some(true) {
                    issues.add(
                        format!("rate_advice.{name}"),
                        "remote mode works between peer gateways: give at least one \
                         [[rate_advice.peer]] (address, prefix)",
                    );
                }
            }
        }
        let mut entries = Vec::new();
        for (i, p) in peers.iter().take(rate_advice::ENTRIES).enumerate() {
            let key = format!("rate_advice.peer[{i}]");
            let address = match &p.address {
                Some(text) => peer_address(text)
                    .map_err(|m| issues.add(format!("{key}.address"), m))
                    .ok(),
                None => {
                    issues.add(
                        format!("{key}.address"),
                        "a peer needs its address: address = \"198.51.100.2\" (IPv4 or IPv6)",
                    );
                    None
                }
            };
            let Some(prefix) = &p.prefix else {
                issues.add(
                    format!("{key}.prefix"),
                    "a peer needs the data-centre prefix behind it: prefix = \"10.1.0.0/16\"",
                );
                continue;
            };
            let first = rate_advice::PEER_ADDR[i];
            entries.push(PrefixEntry {
                key: format!("{key}.prefix"),
                text: prefix,
                before_valid: address
                    .map(|a| {
                        rate_advice::address_words(a)
                            .into_iter()
                            .enumerate()
                            .map(|(w, word)| (first + 4 * w as u32, word))
                            .collect()
                    })
                    .unwrap_or_default(),
            });
        }
        prefix_entry_writes(
            "rate_advice.peer",
            &entries,
            &rate_advice::PEER,
            None,
            issues,
        )
    }

    /// Someone is sent Rate Advice: a capable-sender prefix is given, or
    /// the header bit marks capable senders, or (RA-04) the peers are sent
    /// the data-centre port's advice.
    fn has_capable(&self) -> bool {
        self.header_bit == Some(true)
            || self.capable.as_ref().is_some_and(|c| !c.is_empty())
            || self.remote_send == Some(true)
    }
}

/// The `[proxy]` table (PX-02, PX-04); every key optional.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProxyConfig {
    /// `PROXY_CONTROL.enable`.
    pub enable: Option<bool>,
    /// UDP port, 1..=65535.
    pub udp_port: Option<toml::Value>,
    /// `PROXY_CONTROL.filter` (true unless given false).
    pub border_filter: Option<bool>,
    /// The congested nodes' prefixes (IPv4 or IPv6, at most 2).
    pub domain: Option<Vec<String>>,
    /// The reception rate limit (refill clocks 0: none).
    pub rx_bucket: Option<BucketConfig>,
    /// PX-01: `PROXY_CONTROL.generate`.
    pub generate: Option<bool>,
    /// PX-04: the generating rate limit (refill clocks 0: none).
    pub tx_bucket: Option<BucketConfig>,
    /// PX-03: the prefix -> proxy table, entry by entry (the rest cleared).
    pub table: Option<Vec<ProxyRouteConfig>>,
}

/// One entry of `[proxy] table`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProxyRouteConfig {
    pub prefix: String,
    pub proxy: String,
}

/// PX-03: the writes that make the table exactly `table` (entry i from
/// the i-th route, the others invalid): each entry staged, then committed
/// with one `PROXY_ENTRY_COMMAND` write.
fn proxy_table_writes(table: &[ProxyRouteConfig], issues: &mut Issues) -> Vec<(u32, u32)> {
    use cngw_regmap::proxy;
    let mut writes = Vec::new();
    if table.len() > proxy::ENTRIES as usize {
        issues.add(
            "proxy.table",
            format!(
                "{} entries given; the table holds {}",
                table.len(),
                proxy::ENTRIES
            ),
        );
        return writes;
    }
    let mut seen = Vec::new();
    for i in 0..proxy::ENTRIES as usize {
        let mut words = [0u32; 8];
        let mut control = 0;
        if let Some(route) = table.get(i) {
            let key = format!("proxy.table[{i}]");
            let prefix = match crate::proxy_table::checked_prefix(&route.prefix) {
                Ok(p) => p,
                Err(e) => {
                    issues.add(format!("{key}.prefix"), e.to_string());
                    continue;
                }
            };
            let Ok(addr) = route.proxy.trim().parse::<std::net::IpAddr>() else {
                issues.add(
                    format!("{key}.proxy"),
                    format!("{:?} is not an IPv4 or IPv6 address", route.proxy),
                );
                continue;
            };
            if addr.is_ipv4() != prefix.addr.is_ipv4() {
                issues.add(
                    format!("{key}.proxy"),
                    format!("{prefix} and proxy {addr} are of different address families"),
                );
                continue;
            }
            if seen.contains(&prefix) {
                issues.add(format!("{key}.prefix"), format!("{prefix} is given twice"));
                continue;
            }
            seen.push(prefix);
            let mapped = |a: std::net::IpAddr| match a {
                std::net::IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
                std::net::IpAddr::V6(v6) => v6.octets(),
            };
            let p = mapped(prefix.addr);
            let a = mapped(addr);
            for w in 0..4 {
                words[w] = u32::from_be_bytes(p[4 * w..4 * w + 4].try_into().unwrap());
                words[4 + w] = u32::from_be_bytes(a[4 * w..4 * w + 4].try_into().unwrap());
            }
            control = proxy::ENTRY_VALID | prefix.register_len() << proxy::ENTRY_LEN_SHIFT;
        }
        for (w, v) in words.into_iter().enumerate() {
            let first = if w < 4 {
                offset::PROXY_ENTRY_PREFIX_0
            } else {
                offset::PROXY_ENTRY_ADDR_0 - 16
            };
            writes.push((first + 4 * w as u32, v));
        }
        writes.push((offset::PROXY_ENTRY_CONTROL, control));
        writes.push((offset::PROXY_ENTRY_INDEX, i as u32));
        writes.push((offset::PROXY_ENTRY_COMMAND, proxy::COMMIT));
    }
    writes
}

impl ProxyConfig {
    /// The register writes (`PROXY_CONTROL` last), or the issues found;
    /// `fcn_domain`: `[fast_cnp] domain` is given.
    fn writes(&self, fcn_domain: bool, issues: &mut Issues) -> Vec<(u32, u32)> {
        let mut writes = Vec::new();
        if let Some(v) = &self.udp_port {
            if let Some(port) = int_field(issues, "proxy.udp_port".into(), v, 1, 0xFFFF) {
                writes.push((offset::PROXY_UDP_PORT, port as u32));
            }
        }
        if let Some(bucket) = &self.rx_bucket {
            if let Some(v) = &bucket.refill_clocks {
                if let Some(n) = int_field(
                    issues,
                    "proxy.rx_bucket.refill_clocks".into(),
                    v,
                    0,
                    u32::MAX.into(),
                ) {
                    writes.push((offset::PROXY_RX_BUCKET_REFILL_CLOCKS, n as u32));
                }
            }
            if let Some(v) = &bucket.depth {
                if let Some(n) = int_field(issues, "proxy.rx_bucket.depth".into(), v, 1, 8) {
                    writes.push((offset::PROXY_RX_BUCKET_DEPTH, n as u32));
                }
            }
        }
        if let Some(bucket) = &self.tx_bucket {
            if let Some(v) = &bucket.refill_clocks {
                if let Some(n) = int_field(
                    issues,
                    "proxy.tx_bucket.refill_clocks".into(),
                    v,
                    0,
                    u32::MAX.into(),
                ) {
                    writes.push((offset::PROXY_TX_BUCKET_REFILL_CLOCKS, n as u32));
                }
            }
            if let Some(v) = &bucket.depth {
                if let Some(n) = int_field(issues, "proxy.tx_bucket.depth".into(), v, 1, 8) {
                    writes.push((offset::PROXY_TX_BUCKET_DEPTH, n as u32));
                }
            }
        }
        let filter = self.border_filter != Some(false);
        let enable = self.enable == Some(true);
        let generate = self.generate == Some(true);
        let domain = self.domain.as_ref().is_some_and(|d| !d.is_empty()) || fcn_domain;
        if (enable || generate) && filter && !domain {
            issues.add(
                "proxy.domain",
                "border filtering accepts CN messages only from and to domain prefixes: give at least one (or border_filter = false)",
            );
        }
        if self.enable.is_some() || self.border_filter.is_some() || self.generate.is_some() {
            let mut control = 0;
            if enable {
                control |= cngw_regmap::proxy::ENABLE;
            }
            if filter {
                control |= cngw_regmap::proxy::FILTER;
            }
            if generate {
                control |= cngw_regmap::proxy::GENERATE;
            }
            writes.push((offset::PROXY_CONTROL, control));
        }
        writes
    }
}

/// `udp_sport` of `[tunnel]`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpSportConfig {
    pub base: Option<toml::Value>,
    pub mask: Option<toml::Value>,
}

/// The `[tunnel]` table (FCN-02, PE-01, PE-02, PE-06); every key optional.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunnelConfig {
    /// The ingress PE role (`TUNNEL_CONTROL.ingress_pe`).
    pub ingress_pe: Option<bool>,
    /// "vxlan" or "srv6".
    pub kind: Option<String>,
    /// VXLAN: the remote PE (IPv6).
    pub remote: Option<String>,
    pub vni: Option<toml::Value>,
    pub udp_sport: Option<UdpSportConfig>,
    /// SRv6: one or two SIDs in visiting order.
    pub segments: Option<Vec<String>>,
    pub hop_limit: Option<toml::Value>,
    pub mtu: Option<toml::Value>,
    /// RFC 6040 compatibility mode.
    pub compat: Option<bool>,
    /// Destination MAC of tunnelled frames.
    pub next_hop_mac: Option<String>,
    /// The egress PE role (`TUNNEL_CONTROL.egress_pe`).
    pub egress_pe: Option<bool>,
    /// PE-06: RFC 6040's decapsulation table.
    pub outside_domain: Option<bool>,
    /// Egress: destination MAC in front of SRv6 inner packets.
    pub dc_mac: Option<String>,
    /// PE-05: the alternate SRv6 path (one or two SIDs in visiting order).
    pub alt_segments: Option<Vec<String>>,
    /// PE-05: `[tunnel.shaper]`.
    pub shaper: Option<ShaperConfig>,
}

/// The `[tunnel.shaper]` table (PE-05); every key optional, a key left out
/// keeps the register's reset value.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShaperConfig {
    pub enable: Option<bool>,
    /// Rates: bits per second (`"100G"` or an integer), stored in bytes per
    /// microsecond (8 Mb/s steps).
    pub max_rate: Option<toml::Value>,
    pub min_rate: Option<toml::Value>,
    pub cut_shift: Option<toml::Value>,
    /// A duration (`"55us"`).
    pub recover_interval: Option<toml::Value>,
    pub recover_step: Option<toml::Value>,
    /// Bytes (`"64K"` or an integer).
    pub burst: Option<toml::Value>,
    pub alt_path: Option<bool>,
    pub alt_below: Option<toml::Value>,
    pub alt_above: Option<toml::Value>,
}

/// A shaper rate in bytes per microsecond (1..=65535), from bits per second.
fn shaper_rate(issues: &mut Issues, key: &str, value: &toml::Value) -> Option<u32> {
    match quantity(value, parse_rate, "a rate such as \"100G\"") {
        Ok(bps) => {
            let bytes_per_us = bps / 8_000_000;
            if (1..=0xFFFF).contains(&bytes_per_us) {
                Some(bytes_per_us as u32)
            } else {
                issues.add(
                    key,
                    format!(
                        "{bps} b/s is {bytes_per_us} bytes per microsecond; the shaper takes \
                         8M..=524G (1..=65535 bytes per microsecond)"
                    ),
                );
                None
            }
        }
        Err(m) => {
            issues.add(key, m);
            None
        }
    }
}

impl ShaperConfig {
    /// The shaper's parameter writes (`PE_SHAPER_RATE`, `_RECOVER`, `_BURST`,
    /// `_ALT`, each composed with the reset value of the fields left out)
    /// and its `PE_SHAPER_CONTROL`, or the issues found. `tunnel` is the
    /// enclosing table (for the rules between the two).
    fn writes(&self, tunnel: &TunnelConfig, issues: &mut Issues) -> (Vec<(u32, u32)>, Option<u32>) {
        use cngw_regmap::pe_shaper;
        let before = issues.0.len();
        let reset = |name: &str| by_name(name).expect("register map has the shaper").reset;
        let k = |name: &str| format!("tunnel.shaper.{name}");
        let rate_of = |issues: &mut Issues, name: &str, v: &Option<toml::Value>| {
            v.as_ref().and_then(|v| shaper_rate(issues, &k(name), v))
        };
        let max = rate_of(issues, "max_rate", &self.max_rate);
        let min = rate_of(issues, "min_rate", &self.min_rate);
        let step = rate_of(issues, "recover_step", &self.recover_step);
        let below = rate_of(issues, "alt_below", &self.alt_below);
        let above = rate_of(issues, "alt_above", &self.alt_above);
        let cut = self
            .cut_shift
            .as_ref()
            .and_then(|v| int_field(issues, k("cut_shift"), v, 1, 15).map(|n| n as u32));
        let quiet = self.recover_interval.as_ref().and_then(|v| {
            duration(v, "55us")
                .and_then(|d| {
                    let us = d.as_micros();
                    if (1..=0xFFFF).contains(&us) && d.as_nanos() % 1000 == 0 {
                        Ok(us as u32)
                    } else {
                        Err(format!(
                            "{d:?}: whole microseconds 1us..=65535us (the shaper counts microseconds)"
                        ))
                    }
                })
                .map_err(|m| issues.add(k("recover_interval"), m))
                .ok()
        });
        let burst = self.burst.as_ref().and_then(|v| {
            quantity(v, parse_bytes, "a byte size such as \"64K\"")
                .and_then(|b| {
                    if (1..=0xFF_FFFF).contains(&b) {
                        Ok(b as u32)
                    } else {
                        Err(format!("{b} bytes is outside 1..=16777215"))
                    }
                })
                .map_err(|m| issues.add(k("burst"), m))
                .ok()
        });
        // The packed registers: given fields over the reset value's.
        let (rate_reset, recover_reset, alt_reset) = (
            reset("PE_SHAPER_RATE"),
            reset("PE_SHAPER_RECOVER"),
            reset("PE_SHAPER_ALT"),
        );
        let lo = |v: Option<u32>, r: u32| v.unwrap_or(r & 0xFFFF);
        let hi = |v: Option<u32>, r: u32| v.unwrap_or(r >> 16);
        let (max_v, min_v) = (lo(max, rate_reset), hi(min, rate_reset));
        let (below_v, above_v) = (lo(below, alt_reset), hi(above, alt_reset));
        let burst_v = burst.unwrap_or(reset("PE_SHAPER_BURST"));
        if issues.0.len() == before {
            if min_v > max_v {
                issues.add(
                    k(if min.is_some() {
                        "min_rate"
                    } else {
                        "max_rate"
                    }),
                    format!("min_rate ({min_v} bytes/us) is above max_rate ({max_v} bytes/us)"),
                );
            }
            if below_v >= above_v {
                issues.add(
                    k(if below.is_some() {
                        "alt_below"
                    } else {
                        "alt_above"
                    }),
                    format!(
                        "alt_below ({below_v} bytes/us) must be below alt_above ({above_v} \
                         bytes/us): the hysteresis between the paths"
                    ),
                );
            }
            if burst_v < max_v {
                issues.add(
                    k(if burst.is_some() { "burst" } else { "max_rate" }),
                    format!(
                        "burst ({burst_v} bytes) is below max_rate's {max_v} bytes per \
                         microsecond: the bucket, refilled every microsecond, could never \
                         carry the full rate"
                    ),
                );
            }
        }
        if self.enable == Some(true) && tunnel.ingress_pe != Some(true) {
            issues.add(
                k("enable"),
                "the shaper sits in the ingress PE's path: needs [tunnel] ingress_pe = true",
            );
        }
        if self.alt_path == Some(true) {
            if self.enable != Some(true) {
                issues.add(
                    k("alt_path"),
                    "the alternate path is for shaped flows: needs enable = true",
                );
            }
            if tunnel.kind.as_deref() != Some("srv6") {
                issues.add(
                    k("alt_path"),
                    "the alternate path is an SRv6 segment list: needs kind = \"srv6\"",
                );
            }
            if tunnel.alt_segments.is_none() {
                issues.add(k("alt_path"), "needs [tunnel] alt_segments (1 or 2 SIDs)");
            }
        }
        let mut writes = Vec::new();
        if max.is_some() || min.is_some() {
            writes.push((offset::PE_SHAPER_RATE, max_v | min_v << 16));
        }
        if quiet.is_some() || step.is_some() {
            writes.push((
                offset::PE_SHAPER_RECOVER,
                lo(quiet, recover_reset) | hi(step, recover_reset) << 16,
            ));
        }
        if burst.is_some() {
            writes.push((offset::PE_SHAPER_BURST, burst_v));
        }
        if below.is_some() || above.is_some() {
            writes.push((offset::PE_SHAPER_ALT, below_v | above_v << 16));
        }
        let mut control = reset("PE_SHAPER_CONTROL");
        if let Some(c) = cut {
            control = control & !(0xF << pe_shaper::CUT_SHIFT_LSB) | c << pe_shaper::CUT_SHIFT_LSB;
        }
        for (on, bit) in [
            (self.enable, pe_shaper::ENABLE),
            (self.alt_path, pe_shaper::ALT_ENABLE),
        ] {
            if on == Some(true) {
                control |= bit;
            }
        }
        if tunnel.alt_segments.as_ref().is_some_and(|s| s.len() == 2) {
            control |= pe_shaper::ALT_TWO_SIDS;
        }
        (writes, Some(control))
    }
}

/// An IPv6 address for a tunnel key, as four register words (first byte
/// in bits 31..24 of the first).
fn tunnel_ipv6(issues: &mut Issues, key: String, text: &str) -> Option<[u32; 4]> {
    let a: std::net::Ipv6Addr = match text.parse() {
        Ok(a) => a,
        Err(_) => {
            issues.add(key, format!("{text:?} is not an IPv6 address"));
            return None;
        }
    };
    if a.is_unspecified() || a.is_multicast() || a.to_ipv4_mapped().is_some() {
        issues.add(
            key,
            format!("{a}: a tunnel endpoint is a unicast IPv6 address"),
        );
        return None;
    }
    let o = a.octets();
    Some(std::array::from_fn(|i| {
        u32::from_be_bytes([o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]])
    }))
}

/// A MAC address key as `*_MAC_HI`/`*_MAC_LO` writes.
fn mac_writes(issues: &mut Issues, key: &str, text: &str, hi: u32, lo: u32) -> Vec<(u32, u32)> {
    match crate::longhaul::parse_mac(text) {
        Ok(mac) => vec![
            (hi, u16::from_be_bytes([mac[0], mac[1]]) as u32),
            (lo, u32::from_be_bytes([mac[2], mac[3], mac[4], mac[5]])),
        ],
        Err(e) => {
            issues.add(key, e);
            Vec::new()
        }
    }
}

impl TunnelConfig {
    /// The tunnel's parameter writes (any order), or the issues found.
    fn writes(&self, issues: &mut Issues) -> Vec<(u32, u32)> {
        let mut writes = Vec::new();
        let srv6 = match self.kind.as_deref() {
            None => None,
            Some("vxlan") => Some(false),
            Some("srv6") => Some(true),
            Some(other) => {
                issues.add(
                    "tunnel.kind",
                    format!("{other:?}: the tunnel kinds are \"vxlan\" and \"srv6\""),
                );
                None
            }
        };
        if self.ingress_pe == Some(true) {
            match (srv6, &self.remote, &self.segments) {
                (None, ..) if self.kind.is_none() => issues.add(
                    "tunnel.kind",
                    "the ingress PE needs its tunnel: kind = \"vxlan\" or \"srv6\"",
                ),
                (Some(false), None, _) => issues.add(
                    "tunnel.remote",
                    "a VXLAN tunnel needs the remote PE's IPv6 address",
                ),
                (Some(true), _, None) => issues.add(
                    "tunnel.segments",
                    "an SRv6 tunnel needs its segment list (1 or 2 SIDs)",
                ),
                _ => {}
            }
            if self.next_hop_mac.is_none() {
                issues.add(
                    "tunnel.next_hop_mac",
                    "the ingress PE needs the destination MAC of its tunnelled frames",
                );
            }
        }
        if let Some(text) = &self.remote {
            if let Some(words) = tunnel_ipv6(issues, "tunnel.remote".into(), text) {
                for (i, w) in words.into_iter().enumerate() {
                    writes.push((offset::TUNNEL_REMOTE_0 + 4 * i as u32, w));
                }
            }
        }
        if let Some(segments) = &self.segments {
            if segments.is_empty() || segments.len() > 2 {
                issues.add(
                    "tunnel.segments",
                    format!(
                        "{} SIDs given; the PE sends paths of 1 or 2",
                        segments.len()
                    ),
                );
            }
            let firsts = [offset::TUNNEL_SID0_0, offset::TUNNEL_SID1_0];
            for (i, (text, first)) in segments.iter().zip(firsts).enumerate() {
                if let Some(words) = tunnel_ipv6(issues, format!("tunnel.segments[{i}]"), text) {
                    for (w, word) in words.into_iter().enumerate() {
                        writes.push((first + 4 * w as u32, word));
                    }
                }
            }
        }
        if let Some(segments) = &self.alt_segments {
            if segments.is_empty() || segments.len() > 2 {
                issues.add(
                    "tunnel.alt_segments",
                    format!(
                        "{} SIDs given; the alternate path has 1 or 2",
                        segments.len()
                    ),
                );
            }
            let firsts = [offset::TUNNEL_ALT_SID0_0, offset::TUNNEL_ALT_SID1_0];
            for (i, (text, first)) in segments.iter().zip(firsts).enumerate() {
                if let Some(words) = tunnel_ipv6(issues, format!("tunnel.alt_segments[{i}]"), text)
                {
                    for (w, word) in words.into_iter().enumerate() {
                        writes.push((first + 4 * w as u32, word));
                    }
                }
            }
        }
        if let Some(v) = &self.vni {
            if let Some(n) = int_field(issues, "tunnel.vni".into(), v, 0, 0xFF_FFFF) {
                writes.push((offset::TUNNEL_VNI, n as u32));
            }
        }
        if let Some(sport) = &self.udp_sport {
            let base = sport.base.as_ref().map_or(Some(0), |v| {
                int_field(issues, "tunnel.udp_sport.base".into(), v, 0, 0xFFFF)
            });
            let mask = sport.mask.as_ref().map_or(Some(0), |v| {
                int_field(issues, "tunnel.udp_sport.mask".into(), v, 0, 0xFFFF)
            });
            if let (Some(base), Some(mask)) = (base, mask) {
                writes.push((offset::TUNNEL_UDP_SPORT, (mask << 16 | base) as u32));
            }
        }
        if let Some(v) = &self.hop_limit {
            if let Some(n) = int_field(issues, "tunnel.hop_limit".into(), v, 1, 255) {
                writes.push((offset::TUNNEL_HOP_LIMIT, n as u32));
            }
        }
        if let Some(v) = &self.mtu {
            if let Some(n) = int_field(issues, "tunnel.mtu".into(), v, 1280, 0xFFFF) {
                writes.push((offset::TUNNEL_WAN_MTU, n as u32));
            }
        }
        if let Some(text) = &self.next_hop_mac {
            writes.extend(mac_writes(
                issues,
                "tunnel.next_hop_mac",
                text,
                offset::TUNNEL_NEXT_HOP_MAC_HI,
                offset::TUNNEL_NEXT_HOP_MAC_LO,
            ));
        }
        if let Some(text) = &self.dc_mac {
            writes.extend(mac_writes(
                issues,
                "tunnel.dc_mac",
                text,
                offset::TUNNEL_DC_MAC_HI,
                offset::TUNNEL_DC_MAC_LO,
            ));
        }
        writes
    }

    /// `TUNNEL_CONTROL`, written after every other tunnel register so a
    /// role starts with its whole tunnel in place (`None`: no key sets it).
    fn control(&self) -> Option<u32> {
        let keys = [
            self.ingress_pe,
            self.egress_pe,
            self.outside_domain,
            self.compat,
        ];
        if keys.iter().all(Option::is_none) && self.kind.is_none() && self.segments.is_none() {
            return None;
        }
        let mut c = 0;
        let bits = [
            (self.ingress_pe, tunnel_control::INGRESS_PE),
            (self.egress_pe, tunnel_control::EGRESS_PE),
            (self.outside_domain, tunnel_control::OUTSIDE_DOMAIN),
            (self.compat, tunnel_control::COMPAT),
        ];
        for (on, bit) in bits {
            if on == Some(true) {
                c |= bit;
            }
        }
        if self.kind.as_deref() == Some("srv6") {
            c |= tunnel_control::SRV6;
        }
        if self.segments.as_ref().is_some_and(|s| s.len() == 2) {
            c |= tunnel_control::TWO_SIDS;
        }
        Some(c)
    }
}

/// The `[port.N]` table.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortConfig {
    /// Bits per second: a string with a prefix (`"100G"`) or an integer.
    pub rate: toml::Value,
    /// A string with a unit (`"10ms"`).
    pub rtt: toml::Value,
    pub alpha: toml::Value,
    /// Bytes: a string with a binary prefix (`"64K"`) or an integer.
    pub k_base: toml::Value,
    #[serde(default)]
    pub k_min: Option<toml::Value>,
    #[serde(default)]
    pub k_min_fraction: Option<toml::Value>,
    #[serde(default)]
    pub k_max: Option<toml::Value>,
}

/// One problem in a configuration, tied to the key it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigIssue {
    /// Dotted path of the key: `port.0.rate`, `registers.SCRATCH`, `features`.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// Why a configuration cannot be loaded or applied.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("{path}: {source}", path = path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}{source}", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
    Parse {
        path: Option<PathBuf>,
        source: Box<toml::de::Error>,
    },
    #[error("invalid configuration:\n{}", issues.iter().map(|i| format!("  {i}")).collect::<Vec<_>>().join("\n"))]
    Invalid { issues: Vec<ConfigIssue> },
    #[error(transparent)]
    Device(#[from] DeviceError),
}

/// What a validated configuration does, in the order it must happen:
/// `writes`, then `flows`, then `features`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Register writes as (byte offset, value) pairs: raw registers, port
    /// thresholds, second level, gateway addresses, aging, format table.
    pub writes: Vec<(u32, u32)>,
    /// Static flow-table entries, inserted after `writes`.
    pub flows: Vec<StaticFlow>,
    /// FEATURE_ENABLE, written last.
    pub features: Option<u32>,
    /// The device must have at least this many ports.
    pub ports_needed: u32,
    /// Set the gateway's time of day from the host's clock (the timestamp
    /// object is on), after `flows` and before `features`.
    pub set_time_of_day: bool,
    /// Legal settings that are probably not meant (a `[rate_advice]`
    /// table while `features` leaves `rate_advice` off); they change
    /// nothing in the plan. The CLI prints them.
    pub warnings: Vec<ConfigIssue>,
}

impl Plan {
    /// The register writes of the plan without the flow-table commands:
    /// `writes`, then FEATURE_ENABLE.
    pub fn register_writes(&self) -> Vec<(u32, u32)> {
        let mut writes = self.writes.clone();
        writes.extend(self.features.map(|bits| (offset::FEATURE_ENABLE, bits)));
        writes
    }

    /// Every register write of the plan in order, each static flow as the
    /// key, SQP and command writes of its insert ([`flows::insert_static_writes`]).
    /// A device also needs the `FLOW_STATUS` polls between them ([`apply`]
    /// makes them); the reference model, which answers at once, does not.
    pub fn bus_writes(&self) -> Vec<(u32, u32)> {
        let mut writes = self.writes.clone();
        for flow in &self.flows {
            writes.extend(flows::insert_static_writes(&flow.key, flow.sqp));
        }
        writes.extend(self.features.map(|bits| (offset::FEATURE_ENABLE, bits)));
        writes
    }

    /// Nothing to do.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
            && self.flows.is_empty()
            && self.features.is_none()
            && !self.set_time_of_day
    }
}

impl fmt::Display for Plan {
    /// One line per write, `PORT0_RATE_MBPS @ 0x100 <- 100000 (0x186a0)`, and
    /// per static flow, `flow 10.0.0.1 -> 10.0.0.4 DQP 200 <- SQP 100 (static)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let write = |f: &mut fmt::Formatter<'_>, offset: u32, value: u32| {
            let name = by_offset(offset).map_or("?", |r| r.name);
            writeln!(f, "{name} @ {offset:#05x} <- {value} ({value:#x})")
        };
        for &(offset, value) in &self.writes {
            write(f, offset, value)?;
        }
        for flow in &self.flows {
            writeln!(
                f,
                "flow {} <- SQP {} (static)",
                key_text(&flow.key),
                flow.sqp
            )?;
        }
        if self.set_time_of_day {
            writeln!(
                f,
                "time of day <- the host's clock (LH_TOD_CONTROL.capture, LH_TOD_BASE_*, LH_TOD_CONTROL.set)"
            )?;
        }
        if let Some(bits) = self.features {
            write(f, offset::FEATURE_ENABLE, bits)?;
        }
        Ok(())
    }
}

/// Collects issues while validating.
#[derive(Default)]
struct Issues(Vec<ConfigIssue>);

impl Issues {
    fn add(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.0.push(ConfigIssue {
            key: key.into(),
            message: message.into(),
        });
    }
}

fn type_name(value: &toml::Value) -> &'static str {
    value.type_str()
}

/// An integer or a string with a unit, parsed by `parse`.
fn quantity<E: fmt::Display>(
    value: &toml::Value,
    parse: impl Fn(&str) -> Result<u64, E>,
    expected: &str,
) -> Result<u64, String> {
    match value {
        toml::Value::Integer(n) => u64::try_from(*n).map_err(|_| format!("{n} is negative")),
        toml::Value::String(s) => parse(s).map_err(|e| e.to_string()),
        other => Err(format!("expected {expected}, found {}", type_name(other))),
    }
}

fn number(value: &toml::Value) -> Result<f64, String> {
    match value {
        toml::Value::Float(x) => Ok(*x),
        toml::Value::Integer(n) => Ok(*n as f64),
        other => Err(format!("expected a number, found {}", type_name(other))),
    }
}

/// An integer in `min..=max`.
fn integer(value: &toml::Value, min: u64, max: u64) -> Result<u64, String> {
    match value {
        toml::Value::Integer(n) => match u64::try_from(*n) {
            Ok(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(format!("{n} is outside {min}..={max}")),
        },
        other => Err(format!(
            "expected an integer {min}..={max}, found {}",
            type_name(other)
        )),
    }
}

/// A duration with a unit (`"100us"`); integers are refused: durations need a unit.
fn duration(value: &toml::Value, example: &str) -> Result<Duration, String> {
    match value {
        toml::Value::String(s) => parse_duration(s).map_err(|e| e.to_string()),
        toml::Value::Integer(_) => Err(format!("needs a unit, e.g. \"{example}\"")),
        other => Err(format!(
            "expected a duration such as \"{example}\", found {}",
            type_name(other)
        )),
    }
}

/// A duration, or `word` (`"rtt"`, `"off"`) for the register value 0.
fn duration_or(
    value: &toml::Value,
    word: &str,
    example: &str,
    what: &'static str,
) -> Result<u32, String> {
    if value.as_str() == Some(word) {
        return Ok(0);
    }
    let d = duration(value, example).map_err(|e| format!("{e} (or \"{word}\")"))?;
    duration_us(what, d, u64::from(u32::MAX)).map_err(|e| e.to_string())
}

/// `CLOCKS_PER_US` after reset: the clock the meter's rates are converted
/// at when the configuration does not set `[gateway] clocks_per_us`.
const DEFAULT_CLOCKS_PER_US: u32 = 322;

/// `"off"` (the register value that never triggers) or what `parse` makes.
fn off_or(
    value: &toml::Value,
    parse: impl FnOnce(&toml::Value) -> Result<u32, String>,
) -> Result<u32, String> {
    if value.as_str() == Some("off") {
        Ok(NEVER)
    } else {
        parse(value)
    }
}

impl MeterConfig {
    /// The typed settings, or the issues found (keys under `key`).
    fn settings(
        &self,
        key: &str,
        clocks_per_us: u32,
        issues: &mut Issues,
    ) -> Option<MeterSettings> {
        let before = issues.0.len();
        let mut s = MeterSettings::default();
        if let Some(q) = &self.queue {
            match q.as_str() {
                "telemetry" => s.source = Some(QueueSource::Telemetry),
                "internal" => s.source = Some(QueueSource::Internal),
                other => issues.add(
                    format!("{key}.queue"),
                    format!("{other:?} is not a queue source (telemetry, internal)"),
                ),
            }
        }
        if let Some(v) = &self.drain {
            match quantity(v, parse_rate, "a rate such as \"95G\"")
                .and_then(|bps| drain_q16(bps, clocks_per_us).map_err(|e| e.to_string()))
            {
                Ok(q) => s.drain_q16 = Some(q),
                Err(m) => issues.add(format!("{key}.drain"), m),
            }
        }
        if let Some(v) = &self.avg_weight_shift {
            s.avg_weight_shift =
                int_field(issues, format!("{key}.avg_weight_shift"), v, 0, 31).map(|v| v as u32);
        }
        let micros = |v: &toml::Value, what: &'static str| -> Result<u32, String> {
            let d = duration(v, "100us")?;
            duration_us(what, d, u64::from(u32::MAX)).map_err(|e| e.to_string())
        };
        if let Some(v) = &self.emr_window {
            match micros(v, "emr_window") {
                Ok(us) => s.emr_window_us = Some(us),
                Err(m) => issues.add(format!("{key}.emr_window"), m),
            }
        }
        if let Some(v) = &self.qgr_interval {
            match micros(v, "qgr_interval") {
                Ok(us) => s.qgr_interval_us = Some(us),
                Err(m) => issues.add(format!("{key}.qgr_interval"), m),
            }
        }
        if let Some(v) = &self.v_ecn {
            match off_or(v, |v| {
                number(v).and_then(|f| v_ecn_q16(f).map_err(|e| e.to_string()))
            }) {
                Ok(q) => s.v_ecn_q16 = Some(q),
                Err(m) => issues.add(format!("{key}.v_ecn"), format!("{m} (or \"off\")")),
            }
        }
        if let Some(v) = &self.v_growth {
            match off_or(v, |v| {
                quantity(v, parse_bytes, "a byte size such as \"50M\"").and_then(|b| {
                    u32::try_from(b)
                        .ok()
                        .filter(|&b| b < NEVER)
                        .ok_or_else(|| format!("{b} bytes is more than 4 GiB - 2"))
                })
            }) {
                Ok(b) => s.v_growth_bytes = Some(b),
                Err(m) => issues.add(format!("{key}.v_growth"), format!("{m} (or \"off\")")),
            }
        }
        (issues.0.len() == before).then_some(s)
    }
}

impl PortConfig {
    /// The threshold inputs, or the issues found (keys relative to the port).
    fn input(&self, key: &str, issues: &mut Issues) -> Option<ThresholdInput> {
        let before = issues.0.len();
        let mut field = |name: &str, result: Result<u64, String>| match result {
            Ok(v) => v,
            Err(message) => {
                issues.add(format!("{key}.{name}"), message);
                0
            }
        };
        let rate_bps = field(
            "rate",
            quantity(
                &self.rate,
                parse_rate,
                "a rate such as \"100G\" or bits per second",
            ),
        );
        let rtt = match &self.rtt {
            toml::Value::String(s) => parse_duration(s).map_err(|e| e.to_string()),
            toml::Value::Integer(_) => Err("needs a unit, e.g. \"10ms\" or \"500us\"".to_string()),
            other => Err(format!(
                "expected a duration such as \"10ms\", found {}",
                type_name(other)
            )),
        };
        let k_base_bytes = field(
            "k_base",
            quantity(&self.k_base, parse_bytes, "a byte size such as \"64K\""),
        );
        let k_min_bytes = self.k_min.as_ref().map(|v| {
            field(
                "k_min",
                quantity(v, parse_bytes, "a byte size such as \"32M\""),
            )
        });
        let k_max_bytes = self.k_max.as_ref().map(|v| {
            field(
                "k_max",
                quantity(v, parse_bytes, "a byte size such as \"100M\""),
            )
        });
        let rtt = rtt.unwrap_or_else(|message| {
            issues.add(format!("{key}.rtt"), message);
            Default::default()
        });
        let alpha = number(&self.alpha).unwrap_or_else(|message| {
            issues.add(format!("{key}.alpha"), message);
            0.0
        });
        let k_min = match (k_min_bytes, &self.k_min_fraction) {
            (Some(_), Some(_)) => {
                issues.add(
                    format!("{key}.k_min_fraction"),
                    "give either k_min or k_min_fraction, not both",
                );
                KMin::default()
            }
            (Some(bytes), None) => KMin::Bytes(bytes),
            (None, Some(fraction)) => KMin::Fraction(number(fraction).unwrap_or_else(|message| {
                issues.add(format!("{key}.k_min_fraction"), message);
                0.5
            })),
            (None, None) => KMin::default(),
        };
        (issues.0.len() == before).then_some(ThresholdInput {
            rate_bps,
            rtt,
            alpha,
            k_base_bytes,
            k_min,
            k_max_bytes,
        })
    }
}

/// What validation produced before the current threshold values are known.
struct Validated {
    warnings: Vec<ConfigIssue>,
    set_time_of_day: bool,
    raw: Vec<(u32, u32)>,
    ports: Vec<(u32, PortRegisters, Thresholds)>,
    /// Second level, gateway addresses, aging: by offset.
    typed: Vec<(u32, u32)>,
    /// The format table, in its own order.
    formats: Vec<(u32, u32)>,
    flows: Vec<StaticFlow>,
    features: Option<u32>,
    ports_needed: u32,
}

impl Config {
    /// Parses TOML text.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|source| ConfigError::Parse {
            path: None,
            source: Box::new(source),
        })
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|source| ConfigError::Parse {
            path: Some(path.to_path_buf()),
            source: Box::new(source),
        })
    }

    /// The `[adjust]` table, validated with the rest of the file (`None`
    /// without the table).
    pub fn adjust_plan(&self, num_ports: u32) -> Result<Option<AdjustPlan>, ConfigError> {
        self.validate(num_ports)?;
        let mut issues = Issues::default();
        let plan = self.adjust.as_ref().and_then(|a| a.plan(&mut issues));
        debug_assert!(issues.0.is_empty(), "validate checked [adjust]");
        Ok(plan)
    }

    /// Validates the configuration for `device` and orders its writes. Only reads
    /// the device (the current K_max of each configured port, for the order).
    pub fn plan<B: RegisterBus>(&self, device: &mut Device<B>) -> Result<Plan, ConfigError> {
        let num_ports = device.num_ports();
        self.plan_with(num_ports, |regs| device.read(regs.k_max_bytes))
    }

    /// [`Config::plan`] without a device: `num_ports` is what the device reports,
    /// `current_k_max` reads a port's K_max now (only called once the whole
    /// configuration is valid).
    pub fn plan_with(
        &self,
        num_ports: u32,
        mut current_k_max: impl FnMut(&PortRegisters) -> Result<u32, DeviceError>,
    ) -> Result<Plan, ConfigError> {
        let validated = self.validate(num_ports)?;
        let mut writes = validated.raw;
        for (_, regs, thresholds) in &validated.ports {
            writes.extend(threshold_writes(regs, thresholds, current_k_max(regs)?));
        }
        writes.extend(validated.typed);
        writes.extend(validated.formats);
        Ok(Plan {
            writes,
            flows: validated.flows,
            features: validated.features,
            ports_needed: validated.ports_needed,
            set_time_of_day: validated.set_time_of_day,
            warnings: validated.warnings,
        })
    }

    /// Checks every key and value; all problems are reported together.
    fn validate(&self, num_ports: u32) -> Result<Validated, ConfigError> {
        let mut issues = Issues::default();
        let mut touched: BTreeMap<u32, String> = BTreeMap::new();
        let mut claim = |issues: &mut Issues, offset: u32, key: String| {
            if let Some(previous) = touched.insert(offset, key.clone()) {
                let name = by_offset(offset).map_or("?", |r| r.name);
                issues.add(key, format!("sets {name}, which {previous} also sets"));
            }
        };

        // [registers]
        let mut raw = Vec::new();
        for (name, value) in &self.registers {
            let key = format!("registers.{name}");
            let Some(reg) = by_name(name) else {
                issues.add(key, "unknown register");
                continue;
            };
            let value = match value {
                toml::Value::Integer(n) => match u32::try_from(*n) {
                    Ok(v) => v,
                    Err(_) => {
                        issues.add(key, format!("value {n} is out of range 0..=0xffffffff"));
                        continue;
                    }
                },
                other => {
                    issues.add(
                        key,
                        format!("expected an integer, found {}", type_name(other)),
                    );
                    continue;
                }
            };
            if let Err(e) = check_write(reg, value) {
                issues.add(key, e.to_string());
                continue;
            }
            if reg.offset == offset::FLOW_COMMAND {
                issues.add(
                    key,
                    "flow-table commands need the FLOW_STATUS handshake: use [flows] static",
                );
                continue;
            }
            claim(&mut issues, reg.offset, key);
            raw.push((reg.offset, value));
        }
        raw.sort_by_key(|&(offset, _)| offset);

        // [port.N]
        let mut ports = Vec::new();
        let mut ports_needed = 0;
        for (port_key, port_config) in &self.port {
            let key = format!("port.{port_key}");
            let Ok(port) = port_key.parse::<u32>() else {
                issues.add(key, "not a port number");
                continue;
            };
            if port >= num_ports {
                issues.add(
                    key,
                    format!("the device has {num_ports} WAN port(s), numbered from 0"),
                );
                continue;
            }
            let Some(regs) = port_registers(port) else {
                issues.add(
                    key,
                    "the register map has no threshold registers for this port",
                );
                continue;
            };
            let Some(input) = port_config.input(&key, &mut issues) else {
                continue;
            };
            match compute_thresholds(&input) {
                Ok(thresholds) => {
                    for reg in [
                        regs.rate_mbps,
                        regs.rtt_est_us,
                        regs.k_base_bytes,
                        regs.alpha_q8_8,
                        regs.k_min_bytes,
                        regs.k_max_bytes,
                    ] {
                        claim(&mut issues, reg.offset, key.clone());
                    }
                    ports_needed = ports_needed.max(port + 1);
                    ports.push((port, regs, thresholds));
                }
                Err(e) => issues.add(format!("{key}.{}", e.key()), e.to_string()),
            }
        }
        ports.sort_by_key(|&(port, ..)| port);

        // features
        let features = self.features.as_ref().map(|names| {
            let mut bits = 0;
            for name in names {
                match feature_bit(name) {
                    Ok(bit) => bits |= bit,
                    Err(e) => issues.add("features", e.to_string()),
                }
            }
            bits
        });
        if features.is_some() {
            let reg = by_name("FEATURE_ENABLE").expect("register map has FEATURE_ENABLE");
            claim(&mut issues, reg.offset, "features".to_string());
        }

        // [longhaul], [gateway], [flows]
        let mut typed = Vec::new();
        let mut typed_writes = |issues: &mut Issues, section: &str, writes: Vec<(u32, u32)>| {
            for (offset, value) in writes {
                claim(issues, offset, section.to_string());
                typed.push((offset, value));
            }
        };
        if let Some(longhaul) = &self.longhaul {
            if let Some(settings) = longhaul.settings(&mut issues) {
                let problems = settings.check();
                for (key, e) in &problems {
                    issues.add(format!("longhaul.{key}"), e.to_string());
                }
                if problems.is_empty() {
                    let writes = settings.writes().expect("checked");
                    typed_writes(&mut issues, "longhaul", writes);
                }
            }
        }
        if let Some(v) = self.longhaul.as_ref().and_then(|l| l.icmpv6_type.as_ref()) {
            // Informational messages only (RFC 4443: types 128..=255).
            if let Some(t) = int_field(&mut issues, "longhaul.icmpv6_type".into(), v, 128, 255) {
                typed_writes(
                    &mut issues,
                    "longhaul.icmpv6_type",
                    vec![(offset::LH_ICMPV6_TYPE, t as u32)],
                );
            }
        }
        if let Some(v) = self.longhaul.as_ref().and_then(|l| l.obs_window.as_ref()) {
            match duration(v, "100us").and_then(|d| {
                duration_us("obs_window", d, u64::from(u32::MAX)).map_err(|e| e.to_string())
            }) {
                Ok(0) => issues.add("longhaul.obs_window", "must be at least 1us"),
                Ok(us) => typed_writes(
                    &mut issues,
                    "longhaul.obs_window",
                    vec![(offset::LH_OBS_WINDOW_US, us)],
                ),
                Err(m) => issues.add("longhaul.obs_window", m),
            }
        }
        if let Some(v) = self.longhaul.as_ref().and_then(|l| l.top_share.as_ref()) {
            // 1/256 steps; 1.0 would need 256: at most 255/256.
            match number(v) {
                Ok(f) if (0.0..1.0).contains(&f) => typed_writes(
                    &mut issues,
                    "longhaul.top_share",
                    vec![(
                        offset::LH_TOP_SHARE_Q8,
                        (f * 256.0).round().min(255.0) as u32,
                    )],
                ),
                Ok(f) => issues.add(
                    "longhaul.top_share",
                    format!("{f} is not a share from 0 (every flow) to below 1"),
                ),
                Err(m) => issues.add("longhaul.top_share", m),
            }
        }
        let clocks_per_us = self
            .gateway
            .as_ref()
            .and_then(|g| g.clocks_per_us.as_ref())
            .and_then(|v| v.as_integer())
            .and_then(|v| u32::try_from(v).ok())
            .filter(|&v| v > 0)
            .unwrap_or(DEFAULT_CLOCKS_PER_US);
        for (port_key, meter_config) in &self.meter {
            let key = format!("meter.{port_key}");
            if port_key != "0" {
                issues.add(key, "only WAN port 0 has a queue meter (\"0\")");
                continue;
            }
            if let Some(settings) = meter_config.settings(&key, clocks_per_us, &mut issues) {
                let problems = settings.check(clocks_per_us);
                for (k, e) in &problems {
                    issues.add(format!("{key}.{k}"), e.to_string());
                }
                if problems.is_empty() {
                    typed_writes(&mut issues, &key, settings.writes());
                }
            }
        }
        let mut set_time_of_day = false;
        if let Some(extension) = self.longhaul.as_ref().and_then(|l| l.extension.as_ref()) {
            if let Some(objects) = extension.objects(&mut issues) {
                let problems = objects.check();
                for (key, e) in &problems {
                    issues.add(format!("longhaul.extension.{key}"), e.to_string());
                }
                if problems.is_empty() {
                    let writes = objects.writes().expect("checked");
                    typed_writes(&mut issues, "longhaul.extension", writes);
                    set_time_of_day = objects.timestamp;
                }
            }
        }
        if let Some(gateway) = &self.gateway {
            if let Some(addresses) = gateway.addresses(&mut issues) {
                let problems = addresses.check();
                for (key, e) in &problems {
                    issues.add(format!("gateway.{key}"), e.to_string());
                }
                if problems.is_empty() {
                    let writes = addresses.writes().expect("checked");
                    typed_writes(&mut issues, "gateway", writes);
                }
            }
        }
        if let Some(pre_ecn) = &self.pre_ecn {
            let writes = pre_ecn.writes(&mut issues);
            typed_writes(&mut issues, "pre_ecn", writes);
        }
        if let Some(fast_cnp) = &self.fast_cnp {
            let writes = fast_cnp.writes(&mut issues);
            typed_writes(&mut issues, "fast_cnp", writes);
        }
        if let Some(proxy) = &self.proxy {
            let fcn_domain = self
                .fast_cnp
                .as_ref()
                .and_then(|f| f.domain.as_ref())
                .is_some_and(|d| !d.is_empty());
            let writes = proxy.writes(fcn_domain, &mut issues);
            // One UDP port cannot be both receivers' (both would claim).
            let port = |w: &[(u32, u32)], off: u32, default: u32| {
                w.iter().rev().find(|x| x.0 == off).map_or(default, |x| x.1)
            };
            let fcn_port = self
                .fast_cnp
                .as_ref()
                .and_then(|f| f.udp_port.as_ref())
                .and_then(|v| v.as_integer())
                .map_or(u32::from(default_fcn_port()), |p| p as u32);
            if port(
                &writes,
                offset::PROXY_UDP_PORT,
                cngw_regmap::proxy::DEFAULT_UDP_PORT,
            ) == fcn_port
            {
                issues.add(
                    "proxy.udp_port",
                    format!("{fcn_port} is the Fast CNP port too: CN messages need their own"),
                );
            }
            typed_writes(&mut issues, "proxy", writes);
        }
        let mut shaper_control = None;
        if let Some(tunnel) = &self.tunnel {
            let writes = tunnel.writes(&mut issues);
            typed_writes(&mut issues, "tunnel", writes);
            if let Some(shaper) = &tunnel.shaper {
                let (writes, control) = shaper.writes(tunnel, &mut issues);
                typed_writes(&mut issues, "tunnel.shaper", writes);
                shaper_control = control;
                let light_in = self.fast_cnp.as_ref().and_then(|f| f.ingress_pe) == Some(true);
                if shaper.enable == Some(true) && !light_in {
                    issues.add(
                        "tunnel.shaper.enable",
                        "light notifications arrive as Fast CNPs: needs [fast_cnp] ingress_pe = true",
                    );
                }
            }
        }
        let mut flows = Vec::new();
        if let Some(flows_config) = &self.flows {
            if let Some(timeout) = &flows_config.age_timeout {
                match duration_or(timeout, "off", "10s", "age_timeout") {
                    Ok(us) => typed_writes(
                        &mut issues,
                        "flows.age_timeout",
                        vec![(offset::FLOW_AGE_TIMEOUT_US, us)],
                    ),
                    Err(message) => issues.add("flows.age_timeout", message),
                }
            }
            if let Some(methods) = &flows_config.learn {
                let mut bits = 0;
                for m in methods {
                    match m.as_str() {
                        "cm" => bits |= learn_control::CM_ENABLE,
                        "psn" => bits |= learn_control::PSN_ENABLE,
                        other => issues.add(
                            "flows.learn",
                            format!("unknown learning method {other:?} (known: cm, psn)"),
                        ),
                    }
                }
                typed_writes(
                    &mut issues,
                    "flows.learn",
                    vec![(offset::LEARN_CONTROL, bits)],
                );
            }
            if let Some(window) = flows_config.psn_window {
                if (1..=1 << 23).contains(&window) {
                    typed_writes(
                        &mut issues,
                        "flows.psn_window",
                        vec![(offset::LEARN_PSN_WINDOW, window)],
                    );
                } else {
                    issues.add(
                        "flows.psn_window",
                        format!("{window} PSNs is outside 1..=8388608 (half the 24-bit PSN space)"),
                    );
                }
            }
            flows = flows_config.static_flows(&mut issues);
            if !flows.is_empty() {
                // The inserts leave their own values in the command registers.
                let command_registers = flows::insert_static_writes(&flows[0].key, 0);
                for &(offset, _) in &command_registers {
                    claim(&mut issues, offset, "flows.static".to_string());
                }
            }
        }
        typed.sort_by_key(|&(offset, _)| offset);
        // The format table keeps its order (an entry's CONTROL twice).
        let mut formats = Vec::new();
        if let Some(table) = self
            .longhaul
            .as_ref()
            .and_then(|longhaul| longhaul.format_table(&mut issues))
        {
            let problems = table.check();
            for (key, e) in &problems {
                issues.add(format!("longhaul.{key}"), e.to_string());
            }
            if problems.is_empty() {
                formats = table.writes().expect("checked");
                let mut offsets: Vec<u32> = formats.iter().map(|&(o, _)| o).collect();
                offsets.sort_unstable();
                offsets.dedup();
                for offset in offsets {
                    claim(&mut issues, offset, "longhaul.formats".to_string());
                }
            }
        }
        // The Fast CNP domain prefixes keep their order too.
        if let Some(fast_cnp) = &self.fast_cnp {
            let writes = fast_cnp.domain_writes(&mut issues);
            let mut offsets: Vec<u32> = writes.iter().map(|&(o, _)| o).collect();
            offsets.sort_unstable();
            offsets.dedup();
            for offset in offsets {
                claim(&mut issues, offset, "fast_cnp.domain".to_string());
            }
            formats.extend(writes);
        }
        if let Some(table) = self.proxy.as_ref().and_then(|p| p.table.as_ref()) {
            let writes = proxy_table_writes(table, &mut issues);
            let mut offsets: Vec<u32> = writes.iter().map(|&(o, _)| o).collect();
            offsets.sort_unstable();
            offsets.dedup();
            for offset in offsets {
                claim(&mut issues, offset, "proxy.table".to_string());
            }
            formats.extend(writes);
        }
        if let Some(domain) = self.proxy.as_ref().and_then(|p| p.domain.as_ref()) {
            let writes = domain_writes("proxy.domain", domain, true, &mut issues);
            let mut offsets: Vec<u32> = writes.iter().map(|&(o, _)| o).collect();
            offsets.sort_unstable();
            offsets.dedup();
            for offset in offsets {
                claim(&mut issues, offset, "proxy.domain".to_string());
            }
            formats.extend(writes);
        }
        // [rate_advice]: the parameters, the prefix entries in their order,
        // RA_CONTROL last.
        let mut warnings = Vec::new();
        if let Some(ra) = &self.rate_advice {
            let writes = ra.writes(clocks_per_us, &mut issues);
            let mut offsets: Vec<u32> = writes.iter().map(|&(o, _)| o).collect();
            offsets.sort_unstable();
            offsets.dedup();
            for offset in offsets {
                claim(&mut issues, offset, "rate_advice".to_string());
            }
            formats.extend(writes);
            if features.is_some_and(|bits| bits & feature::RATE_ADVICE == 0) {
                warnings.push(ConfigIssue {
                    key: "rate_advice".to_string(),
                    message: "set up, but features leaves rate_advice off: no Rate Advice is \
                              sent until FEATURE_ENABLE.rate_advice is set (add \"rate_advice\" \
                              to features)"
                        .to_string(),
                });
            }
        }
        let ra_on = features.is_some_and(|bits| bits & feature::RATE_ADVICE != 0);
        if ra_on
            && !self
                .rate_advice
                .as_ref()
                .is_some_and(RateAdviceConfig::has_capable)
        {
            issues.add(
                "rate_advice.capable",
                "Rate Advice goes only to capable senders (RA-01): give at least one prefix in \
                 [rate_advice] capable (\"::/0\" makes every sender capable) or set \
                 header_bit = true (or, a WAN egress gateway, remote_send = true)",
            );
        }
        // The shaper switches on once its settings are written, the tunnel
        // roles once their tunnel (and the shaper) are.
        if let Some(control) = shaper_control {
            claim(
                &mut issues,
                offset::PE_SHAPER_CONTROL,
                "tunnel.shaper".to_string(),
            );
            formats.push((offset::PE_SHAPER_CONTROL, control));
        }
        if let Some(control) = self.tunnel.as_ref().and_then(TunnelConfig::control) {
            claim(&mut issues, offset::TUNNEL_CONTROL, "tunnel".to_string());
            formats.push((offset::TUNNEL_CONTROL, control));
        }

        // [adjust]: no writes; its bounds must hold the alpha [port.0] sets.
        if let Some(plan) = self.adjust.as_ref().and_then(|a| a.plan(&mut issues)) {
            let alpha_0 = ports
                .iter()
                .find(|(port, ..)| *port == 0)
                .map(|(_, _, t)| t.alpha_q8_8);
            let (lo, hi) = (plan.params.alpha_min_q8_8, plan.params.alpha_max_q8_8);
            if let Some(alpha) = alpha_0.filter(|a| !(lo..=hi).contains(a)) {
                issues.add(
                    "adjust.alpha_max",
                    format!(
                        "port.0.alpha {} is outside [alpha_min, alpha_max] = [{}, {}]: \
                         the loop would move it at its first step",
                        q8_8_to_alpha(alpha),
                        q8_8_to_alpha(lo),
                        q8_8_to_alpha(hi)
                    ),
                );
            }
        }

        if issues.0.is_empty() {
            Ok(Validated {
                warnings,
                set_time_of_day,
                raw,
                ports,
                typed,
                formats,
                flows,
                features,
                ports_needed,
            })
        } else {
            Err(ConfigError::Invalid { issues: issues.0 })
        }
    }
}

/// An integer for a typed field, or an issue at `key`.
fn int_field(
    issues: &mut Issues,
    key: String,
    value: &toml::Value,
    min: u64,
    max: u64,
) -> Option<u64> {
    integer(value, min, max)
        .map_err(|message| issues.add(key, message))
        .ok()
}

impl LonghaulConfig {
    /// The typed settings, or `None` with the issues of each key. Ranges and
    /// rules between keys are [`SecondLevel::check`]'s.
    fn settings(&self, issues: &mut Issues) -> Option<SecondLevel> {
        let before = issues.0.len();
        let mut settings = SecondLevel::default();
        if let Some(value) = &self.interval {
            match duration_or(value, "rtt", "1ms", "interval") {
                Ok(0) => settings.flow_interval = Some(FlowInterval::RttEst),
                Ok(us) => settings.flow_interval = Some(FlowInterval::Micros(us)),
                Err(message) => issues.add("longhaul.interval", message),
            }
        }
        if let Some(value) = &self.dscp {
            settings.notify_dscp =
                int_field(issues, "longhaul.dscp".into(), value, 0, u32::MAX.into())
                    .map(|v| v as u32);
        }
        if let Some(names) = &self.options {
            match LhOptions::from_names(names.iter().map(String::as_str)) {
                Ok(options) => settings.options = Some(options),
                Err(name) => issues.add(
                    "longhaul.options",
                    format!(
                        "unknown option {name:?} (known: {})",
                        LhOptions::names().join(", ")
                    ),
                ),
            }
        }
        if let Some(bucket) = &self.bucket {
            if let Some(value) = &bucket.refill_clocks {
                settings.bucket_refill_clocks = int_field(
                    issues,
                    "longhaul.bucket.refill_clocks".into(),
                    value,
                    0,
                    u32::MAX.into(),
                )
                .map(|v| v as u32);
            }
            if let Some(value) = &bucket.depth {
                settings.bucket_depth = int_field(
                    issues,
                    "longhaul.bucket.depth".into(),
                    value,
                    0,
                    u32::MAX.into(),
                )
                .map(|v| v as u32);
            }
        }
        if let Some(resume) = &self.resume {
            let level = int_field(
                issues,
                "longhaul.resume.level".into(),
                &resume.level,
                0,
                255,
            );
            let parameter = int_field(
                issues,
                "longhaul.resume.parameter".into(),
                &resume.parameter,
                0,
                u16::MAX.into(),
            );
            if let (Some(level), Some(parameter)) = (level, parameter) {
                settings.resume = Some(ActionWord {
                    level: level as u8,
                    action: Action::Resume,
                    parameter: parameter as u16,
                });
            }
        }
        if let Some(rows) = &self.severity {
            let mut table = Vec::new();
            for (row, r) in rows.iter().enumerate() {
                let key = format!("longhaul.severity[{row}]");
                let threshold = r.threshold.as_ref().and_then(|v| {
                    quantity(v, parse_bytes, "a byte size such as \"200M\"")
                        .and_then(|bytes| {
                            u32::try_from(bytes).map_err(|_| {
                                format!("{bytes} bytes does not fit the 32-bit register")
                            })
                        })
                        .map_err(|message| issues.add(format!("{key}.threshold"), message))
                        .ok()
                });
                let level = int_field(issues, format!("{key}.level"), &r.level, 0, 255);
                let Some(action) = parse_action(&r.action) else {
                    issues.add(
                        format!("{key}.action"),
                        format!(
                            "unknown action {:?} (use {}, {} or {})",
                            r.action,
                            action_name(Action::Notify),
                            action_name(Action::Pause),
                            action_name(Action::RateReduce)
                        ),
                    );
                    continue;
                };
                let parameter = match (action, &r.parameter) {
                    (Action::Notify, None) => Some(0),
                    (_, None) => {
                        issues.add(
                            format!("{key}.parameter"),
                            format!("{} needs a parameter", action_name(action)),
                        );
                        None
                    }
                    (Action::Pause, Some(v)) => duration(v, "100us")
                        .and_then(|d| {
                            duration_us("pause", d, u16::MAX.into()).map_err(|e| e.to_string())
                        })
                        .map_err(|message| issues.add(format!("{key}.parameter"), message))
                        .ok()
                        .map(u64::from),
                    (_, Some(v)) => {
                        int_field(issues, format!("{key}.parameter"), v, 0, u16::MAX.into())
                    }
                };
                if let (Some(level), Some(parameter)) = (level, parameter) {
                    table.push(SeverityRow {
                        threshold_bytes: threshold,
                        action: ActionWord {
                            level: level as u8,
                            action,
                            parameter: parameter as u16,
                        },
                    });
                }
            }
            settings.severity = Some(table);
        }
        (issues.0.len() == before).then_some(settings)
    }
}

impl LonghaulConfig {
    /// The format table (`None` without `formats`, or with the issues of
    /// its keys). Rules between entries are [`FormatTable::check`]'s.
    fn format_table(&self, issues: &mut Issues) -> Option<FormatTable> {
        let entries = self.formats.as_ref()?;
        let before = issues.0.len();
        let mut table = FormatTable::default();
        for (i, e) in entries.iter().enumerate() {
            let key = format!("longhaul.formats[{i}]");
            let prefix = Prefix::parse(&e.prefix)
                .map_err(|message| issues.add(format!("{key}.prefix"), message))
                .ok();
            let format = NotifyFormat::from_name(e.format.trim());
            if format.is_none() {
                issues.add(
                    format!("{key}.format"),
                    format!(
                        "unknown format {:?} (use {})",
                        e.format,
                        NotifyFormat::ALL.map(|f| f.name()).join(", ")
                    ),
                );
            }
            if let (Some(prefix), Some(format)) = (prefix, format) {
                table.entries.push(FormatEntry { prefix, format });
            }
        }
        (issues.0.len() == before).then_some(table)
    }
}

impl ExtensionConfig {
    /// The typed objects, or `None` with the issues of each key. Lengths
    /// and ranges are [`ExtensionObjects::check`]'s.
    fn objects(&self, issues: &mut Issues) -> Option<ExtensionObjects> {
        let before = issues.0.len();
        let mut objects = ExtensionObjects {
            timestamp: self.timestamp.unwrap_or(false),
            device_id: self.device_id.clone(),
            ..Default::default()
        };
        if let Some(text) = &self.path_id {
            match parse_hex_id(text) {
                Ok(id) => objects.path_id = Some(id),
                Err(message) => issues.add("longhaul.extension.path_id", message),
            }
        }
        if let Some(value) = &self.class_num {
            if let Some(v) = int_field(
                issues,
                "longhaul.extension.class_num".into(),
                value,
                0,
                u32::MAX.into(),
            ) {
                objects.class_num = v as u32;
            }
        }
        if let Some(value) = &self.clock_hz {
            objects.clock_hz = int_field(
                issues,
                "longhaul.extension.clock_hz".into(),
                value,
                0,
                u64::MAX,
            );
        }
        (issues.0.len() == before).then_some(objects)
    }
}

impl GatewayConfig {
    fn addresses(&self, issues: &mut Issues) -> Option<GatewayAddresses> {
        let before = issues.0.len();
        let mut addresses = GatewayAddresses::default();
        if let Some(text) = &self.mac {
            match parse_mac(text) {
                Ok(mac) => addresses.mac = Some(mac),
                Err(message) => issues.add("gateway.mac", message),
            }
        }
        if let Some(text) = &self.ipv4 {
            match text.trim().parse() {
                Ok(ip) => addresses.ipv4 = Some(ip),
                Err(_) => issues.add(
                    "gateway.ipv4",
                    format!("{text:?} is not an IPv4 address such as \"10.0.1.1\""),
                ),
            }
        }
        if let Some(text) = &self.ipv6 {
            match text.trim().parse() {
                Ok(ip) => addresses.ipv6 = Some(ip),
                Err(_) => issues.add(
                    "gateway.ipv6",
                    format!("{text:?} is not an IPv6 address such as \"fd00::1\""),
                ),
            }
        }
        if let Some(value) = &self.clocks_per_us {
            addresses.clocks_per_us = int_field(
                issues,
                "gateway.clocks_per_us".into(),
                value,
                0,
                u32::MAX.into(),
            )
            .map(|v| v as u32);
        }
        (issues.0.len() == before).then_some(addresses)
    }
}

impl FlowsConfig {
    /// The static entries; issues for bad addresses, QPs and repeated keys.
    fn static_flows(&self, issues: &mut Issues) -> Vec<StaticFlow> {
        let mut flows: Vec<StaticFlow> = Vec::new();
        let mut seen: BTreeMap<FlowKey, usize> = BTreeMap::new();
        for (i, f) in self.static_flows.iter().enumerate() {
            let key = format!("flows.static[{i}]");
            let mut address = |name: &str, text: &str| -> Option<IpAddr> {
                text.trim()
                    .parse()
                    .map_err(|_| {
                        issues.add(
                            format!("{key}.{name}"),
                            format!("{text:?} is not an IPv4 or IPv6 address"),
                        )
                    })
                    .ok()
            };
            let src = address("src", &f.src);
            let dst = address("dst", &f.dst);
            let dqp = int_field(issues, format!("{key}.dqp"), &f.dqp, 0, QP_MAX.into());
            let sqp = int_field(issues, format!("{key}.sqp"), &f.sqp, 0, QP_MAX.into());
            let (Some(src), Some(dst), Some(dqp), Some(sqp)) = (src, dst, dqp, sqp) else {
                continue;
            };
            match flow_key(src, dst, dqp as u32) {
                Ok(flow) => {
                    if let Some(first) = seen.insert(flow, i) {
                        issues.add(key, format!("the same flow as flows.static[{first}]"));
                    } else {
                        flows.push(StaticFlow {
                            key: flow,
                            sqp: sqp as u32,
                        });
                    }
                }
                Err(e) => issues.add(key, e.to_string()),
            }
        }
        flows
    }
}

/// Carries `plan` out: its register writes, its static flows (each a
/// flow-table command, [`crate::flows`]), then FEATURE_ENABLE. Checks the
/// whole plan against the device and the register map, and that the flow
/// table is idle when there are flows to insert, before the first write.
pub fn apply<B: RegisterBus>(device: &mut Device<B>, plan: &Plan) -> Result<(), DeviceError> {
    if plan.ports_needed > device.num_ports() {
        return Err(DeviceError::PortOutOfRange {
            port: plan.ports_needed - 1,
            num_ports: device.num_ports(),
        });
    }
    for (offset, value) in plan.register_writes() {
        let reg = by_offset(offset).ok_or(BusError::Unmapped { offset })?;
        device.check(reg, value)?;
    }
    for flow in &plan.flows {
        check_qp("destination QP", flow.key.dqp)?;
        check_qp("source QP", flow.sqp)?;
    }
    if !plan.flows.is_empty() {
        device.flow_table().wait_idle()?;
    }
    for &(offset, value) in &plan.writes {
        device.write_offset(offset, value)?;
    }
    for flow in &plan.flows {
        device.flow_table().insert_static(&flow.key, flow.sqp)?;
    }
    if plan.set_time_of_day {
        device.set_time_of_day_from_system_clock()?;
    }
    if let Some(bits) = plan.features {
        device.write_offset(offset::FEATURE_ENABLE, bits)?;
    }
    Ok(())
}

/// Plans and applies `config`; returns the plan that was carried out.
pub fn apply_config<B: RegisterBus>(
    device: &mut Device<B>,
    config: &Config,
) -> Result<Plan, ConfigError> {
    let plan = config.plan(device)?;
    apply(device, &plan)?;
    Ok(plan)
}
