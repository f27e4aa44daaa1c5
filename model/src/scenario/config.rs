//! Scenario files (TOML): every parameter of a run, with defaults, and the
//! checks that name the field at fault.

use serde::Deserialize;
use std::net::Ipv4Addr;
use std::str::FromStr;

/// How the network tells senders about congestion (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Receiver CNPs only (ECN marking at the queue).
    Baseline,
    /// The baseline plus Long-haul CNPs from the node at the queue to
    /// legacy senders (standard CNP format).
    Longhaul,
    /// Long-haul CNPs in the RoCEv2 format, applied by the source-side
    /// SmartNIC (LH-16).
    Smartnic,
    /// `longhaul` with the congested queue at the near gateway, in the
    /// source data centre.
    NearSource,
    /// The congested node sends Fast CNPs (draft-he-fcn-in-wan) to the
    /// ingress PE, which turns each into a standard CNP to the sender.
    FastCnp,
    /// Two-threshold ECN (draft-hu-rtgwg-pre-ecn-wan): the congested node
    /// marks ECT(1) (early warning) between T1 and T2 and CE above; light
    /// Fast CNPs slow the flow at the ingress PE (PE-05), severe ones and
    /// CE reach the sender.
    TwoThreshold,
    /// Proxy notification (draft-xiao-rtgwg-proxy-congestion-notification):
    /// the node at the queue sends its notification as a CN message to the
    /// proxy gateway in the source data centre, which sends the CNP.
    Proxy,
    /// SCONE Rate Advice (draft-zz-scone-rate-advice-rocev2): the node at
    /// the queue advises every capable sender of the port's explicit rate
    /// (RA-01..RA-03); the sender keeps its rate at or below the advice.
    RateAdvice,
}

impl Mode {
    pub const ALL: [Mode; 8] = [
        Mode::Baseline,
        Mode::Longhaul,
        Mode::Smartnic,
        Mode::NearSource,
        Mode::FastCnp,
        Mode::TwoThreshold,
        Mode::Proxy,
        Mode::RateAdvice,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Baseline => "baseline",
            Mode::Longhaul => "longhaul",
            Mode::Smartnic => "smartnic",
            Mode::NearSource => "near_source",
            Mode::FastCnp => "fast_cnp",
            Mode::TwoThreshold => "two_threshold",
            Mode::Proxy => "proxy",
            Mode::RateAdvice => "rate_advice",
        }
    }

    /// Whether the mode's Long-haul CNP node is a [`LoopGateway`]
    /// (the model, or the RTL with `run_with`).
    ///
    /// [`LoopGateway`]: super::node::LoopGateway
    pub fn loop_gateway(self) -> bool {
        matches!(self, Mode::Longhaul | Mode::Smartnic | Mode::NearSource)
    }

    /// Whether the gateway model is in the loop.
    pub fn gateway(self) -> bool {
        self != Mode::Baseline
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown mode `{s}` (modes: {})",
                    Mode::ALL.map(Mode::name).join(", ")
                )
            })
    }
}

/// Where the congested queue is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Position {
    /// At the near gateway's WAN egress, in the source data centre.
    Near,
    /// At the far end of the long-haul span (half a WAN RTT from the source).
    Far,
}

/// When the queue decides a packet's CE mark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Marking {
    /// On arrival (the marked packet then waits behind the queue, as on
    /// most switches).
    #[default]
    Enqueue,
    /// On departure.
    Dequeue,
}

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A name for the tables and plots.
    pub name: String,
    /// Simulated time, milliseconds.
    pub duration_ms: f64,
    /// Time-series sampling interval, microseconds (default 100).
    #[serde(default = "default_sample_interval_us")]
    pub sample_interval_us: f64,
    /// Modes `cngw scenario` runs when `--modes` is not given (default: all).
    #[serde(default)]
    pub modes: Vec<Mode>,
    /// Seed of the RED marking draws (default 1).
    #[serde(default = "default_seed")]
    pub seed: u64,
    pub path: PathParams,
    pub bottleneck: Bottleneck,
    #[serde(default)]
    pub gateway: GatewayParams,
    #[serde(default)]
    pub dcqcn: DcqcnParams,
    #[serde(default)]
    pub smartnic: SmartNicParams,
    /// The congested WAN node's two thresholds and the Fast CNP buckets
    /// (`fast_cnp`).
    #[serde(default)]
    pub pre_ecn: PreEcnParams,
    /// The Rate Advice law (`rate_advice`).
    #[serde(default)]
    pub rate_advice: RateAdviceParams,
    /// The senders, one flow (QP) each.
    pub senders: Vec<SenderSpec>,
}

fn default_sample_interval_us() -> f64 {
    100.0
}
fn default_seed() -> u64 {
    1
}

/// Delays and the congested port's rate.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathParams {
    /// Round trip inside a data centre (sender to near gateway and back;
    /// the same on the far side), microseconds.
    pub dc_rtt_us: f64,
    /// Round trip of the WAN between the near gateway and the far end,
    /// milliseconds.
    pub wan_rtt_ms: f64,
    /// Rate of the congested WAN port, Gb/s.
    pub wan_rate_gbps: f64,
    /// Size of every data packet on the wire, bytes (default 4096).
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u32,
}

fn default_mtu() -> u32 {
    4096
}

/// The congested queue.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bottleneck {
    /// `near` or `far` (see [`Position`]).
    pub position: Position,
    /// Buffer size; a packet that does not fit is dropped, bytes.
    pub buffer_bytes: u64,
    /// ECN marking starts above this depth (default: K_max / 2), bytes.
    pub k_min_bytes: Option<u64>,
    /// Marking probability reaches `p_max` here, and the gateway's second
    /// level triggers above it (default: the bandwidth-delay product,
    /// rate * WAN RTT / 8, LH-03 with alpha 1), bytes.
    pub k_max_bytes: Option<u64>,
    /// RED marking probability at K_max (default 0.01, DCQCN's P_max).
    #[serde(default = "default_p_max")]
    pub p_max: f64,
    /// `enqueue` (default) or `dequeue`.
    #[serde(default)]
    pub marking: Marking,
    /// Congestion onset: the queue first holds more than this, bytes
    /// (default 65536, the draft's K_base).
    #[serde(default = "default_onset")]
    pub onset_bytes: u64,
}

fn default_p_max() -> f64 {
    0.01
}
fn default_onset() -> u64 {
    65_536
}

/// The congestion-aware node's registers (the gateway model's), where the
/// defaults are not the reset values.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayParams {
    /// RTT_est (`PORT0_RTT_EST_US`; default the WAN RTT), microseconds.
    pub rtt_est_us: Option<u32>,
    /// Per-flow minimum interval between Long-haul CNPs
    /// (`PORT0_FLOW_INTERVAL_US`; default 0 = RTT_est, LH-08), microseconds.
    #[serde(default)]
    pub flow_interval_us: u32,
    /// Queue-growth sampling interval (`PORT0_QGR_INTERVAL_US`, default 10),
    /// microseconds.
    pub qgr_interval_us: Option<u32>,
    /// Growth per interval that triggers (`PORT0_V_GROWTH_BYTES`; default a
    /// tenth of the port's rate over one interval), bytes.
    pub v_growth_bytes: Option<u32>,
    /// How often the queue depth reaches the gateway's telemetry input
    /// (default 1), microseconds.
    pub telemetry_interval_us: Option<u32>,
    /// The Rate Reduce percentage of the first-severity action
    /// (`LH_SEV0_ACTION` parameter; default 30, the draft's example).
    pub rate_reduce_percent: Option<u16>,
    /// The gateway's IPv4 address, the source of its notifications
    /// (default 10.0.9.1).
    pub address: Option<Ipv4Addr>,
    /// Observation window of the top-contributor and deferral rules
    /// (`LH_OBS_WINDOW_US`, LH-06/LH-10; default 10). Both rules are off
    /// here (top share 0, no deferral), so the window changes no decision;
    /// a short one keeps the model's per-packet window sums short.
    pub obs_window_us: Option<u32>,
}

/// DCQCN reaction-point parameters (Zhu et al., SIGCOMM 2015, whose values
/// are the defaults).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DcqcnParams {
    /// Alpha gain g (default 1/256).
    pub g: f64,
    /// Alpha before any CNP (default 1).
    pub initial_alpha: f64,
    /// The receiver sends at most one CNP per flow per this interval
    /// (the notification point), microseconds (default 50).
    pub cnp_interval_us: f64,
    /// Alpha decays by (1 - g) every this long without a CNP,
    /// microseconds (default 55).
    pub alpha_timer_us: f64,
    /// Rate-increase timer, microseconds (default 55).
    pub rate_increase_timer_us: f64,
    /// Rate-increase byte counter, bytes (default 10 MB).
    pub byte_counter_bytes: u64,
    /// Fast-recovery steps F (default 5).
    pub fast_recovery_steps: u32,
    /// Additive increase R_AI, Mb/s (default 40).
    pub rate_ai_mbps: f64,
    /// Hyper increase R_HAI, Mb/s (default 400).
    pub rate_hai_mbps: f64,
    /// Floor of the current rate, Mb/s (default 10).
    pub min_rate_mbps: f64,
}

impl Default for DcqcnParams {
    fn default() -> Self {
        DcqcnParams {
            g: 1.0 / 256.0,
            initial_alpha: 1.0,
            cnp_interval_us: 50.0,
            alpha_timer_us: 55.0,
            rate_increase_timer_us: 55.0,
            byte_counter_bytes: 10_000_000,
            fast_recovery_steps: 5,
            rate_ai_mbps: 40.0,
            rate_hai_mbps: 400.0,
            min_rate_mbps: 10.0,
        }
    }
}

/// The source-side SmartNIC (`SourceNicConfig`); unset fields take
/// `SourceNicConfig::new`'s defaults (with the sender's line rate).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmartNicParams {
    /// Floor of every cut, Mb/s (default 100).
    pub min_rate_mbps: Option<u32>,
    /// Notify: `rate -= rate >> shift` (default 1).
    pub notify_cut_shift: Option<u8>,
    /// Quiet time before additive increase, microseconds (default
    /// 2 * RTT_est).
    pub recovery_interval_us: Option<u64>,
    /// Additive increase step, Mb/s (default 1000).
    pub ai_step_mbps: Option<u32>,
    /// Additive increase period, microseconds (default 55).
    pub ai_period_us: Option<u64>,
    /// Largest increase of one Resume, Mb/s (default 10000).
    pub resume_cap_mbps: Option<u32>,
    /// Token bucket depth, bytes (default 16384).
    pub burst_bytes: Option<u32>,
}

/// The congested WAN node's two-threshold draws (PE-03) and the Fast CNP
/// token buckets (FCN-06) of the `fast_cnp` mode; unset fields take the
/// defaults named.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreEcnParams {
    /// T1 (`PE_T1_BYTES`): above it on the average queue a draw may say
    /// ECT(1), a light Fast CNP (default K_min / 10), bytes.
    pub t1_bytes: Option<u32>,
    /// T2 (`PE_T2_BYTES`): the draw says ECT(1) always from here, and CE
    /// (a severe Fast CNP) with a probability rising to 1 at Tmax (default
    /// K_min), bytes.
    pub t2_bytes: Option<u32>,
    /// Tmax (`PE_TMAX_BYTES`; default K_max), bytes.
    pub tmax_bytes: Option<u32>,
    /// Average queue weight (`PORT0_AVG_WEIGHT_SHIFT`: every microsecond
    /// avg += (QD - avg) / 2^n; default the register's 4).
    pub avg_weight_shift: Option<u32>,
    /// One Fast CNP token per this many microseconds at the congested node
    /// (`FCN_BUCKET_REFILL_CLOCKS`), and one receive token at the ingress
    /// PE (`FCN_RX_BUCKET_REFILL_CLOCKS`) (default 10, the registers'
    /// reset value at 322 MHz; depth 8 both).
    pub bucket_refill_us: Option<f64>,
}

/// The node's Rate Advice (RA-02's explicit-rate law, RA-03's spacing) in
/// the `rate_advice` mode; unset fields take the register defaults.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateAdviceParams {
    /// The law's control interval T (`RA_INTERVAL_US`, default 1000),
    /// microseconds.
    pub interval_us: Option<u32>,
    /// The senders' reaction time d of the law (default RTT_est),
    /// microseconds.
    pub reaction_us: Option<u32>,
    /// At most one message per flow per this long (`RA_FLOW_SPACING_US`,
    /// default 1000), microseconds.
    pub flow_spacing_us: Option<u32>,
    /// Floor of the advice (`RA_MIN_MBPS`, default 100), Mb/s.
    pub min_mbps: Option<u32>,
}

/// One sender and its flow.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SenderSpec {
    pub ip: Ipv4Addr,
    /// The sender's QP (the Source QP of notifications), 24 bits.
    pub qp: u32,
    pub receiver_ip: Ipv4Addr,
    /// The receiver's QP (BTH DestQP of the data), 24 bits.
    pub receiver_qp: u32,
    /// NIC line rate, the rate it starts at, Gb/s.
    pub line_rate_gbps: f64,
    /// When it starts sending, microseconds (default 0).
    #[serde(default)]
    pub start_us: f64,
    /// When it stops (default: never), microseconds.
    pub stop_us: Option<f64>,
}

fn field(name: &str, ok: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("field `{name}`: {}", why()))
    }
}

fn positive(name: &str, v: f64) -> Result<(), String> {
    field(name, v.is_finite() && v > 0.0, || {
        format!("must be a positive number, not {v}")
    })
}

impl Scenario {
    /// Parses and checks a scenario file's text.
    pub fn from_toml(text: &str) -> Result<Scenario, String> {
        let s: Scenario = toml::from_str(text).map_err(|e| {
            // toml's message names the key (`... for key `path.dc_rtt_us``,
            // `unknown field `x``, `missing field `y``).
            e.to_string().trim_end().to_string()
        })?;
        s.validate()?;
        Ok(s)
    }

    /// Checks every field; the message names the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        positive("duration_ms", self.duration_ms)?;
        positive("sample_interval_us", self.sample_interval_us)?;
        positive("path.dc_rtt_us", self.path.dc_rtt_us)?;
        positive("path.wan_rtt_ms", self.path.wan_rtt_ms)?;
        positive("path.wan_rate_gbps", self.path.wan_rate_gbps)?;
        field(
            "path.mtu_bytes",
            (256..=9216).contains(&self.path.mtu_bytes),
            || format!("must be 256..=9216, not {}", self.path.mtu_bytes),
        )?;
        let b = &self.bottleneck;
        field(
            "bottleneck.buffer_bytes",
            b.buffer_bytes >= self.path.mtu_bytes as u64,
            || format!("must hold a packet ({} bytes)", self.path.mtu_bytes),
        )?;
        let (k_min, k_max) = (self.k_min_bytes(), self.k_max_bytes());
        field(
            "bottleneck.k_max_bytes",
            k_max > 0 && k_max <= u32::MAX as u64,
            || format!("must be 1..={} (a 32-bit register), not {k_max}", u32::MAX),
        )?;
        field("bottleneck.k_min_bytes", k_min < k_max, || {
            format!("must be below K_max ({k_max}), not {k_min}")
        })?;
        field("bottleneck.p_max", (0.0..=1.0).contains(&b.p_max), || {
            format!("must be 0..=1, not {}", b.p_max)
        })?;
        let g = &self.gateway;
        field("gateway.rtt_est_us", self.rtt_est_us() > 0, || {
            "must be at least 1".into()
        })?;
        field(
            "gateway.qgr_interval_us",
            self.qgr_interval_us() > 0,
            || "must be at least 1".into(),
        )?;
        field(
            "gateway.telemetry_interval_us",
            self.telemetry_interval_us() > 0,
            || "must be at least 1".into(),
        )?;
        field(
            "gateway.obs_window_us",
            self.gateway.obs_window_us.unwrap_or(10) > 0,
            || "must be at least 1".into(),
        )?;
        field(
            "gateway.rate_reduce_percent",
            g.rate_reduce_percent.unwrap_or(30) <= 100,
            || "must be 0..=100".into(),
        )?;
        let (t1, t2, tmax) = self.pe_thresholds();
        field("pre_ecn.t2_bytes", t1 < t2, || {
            format!("must be above T1 ({t1}), not {t2}")
        })?;
        field("pre_ecn.tmax_bytes", t2 < tmax, || {
            format!("must be above T2 ({t2}), not {tmax}")
        })?;
        field(
            "pre_ecn.avg_weight_shift",
            self.pre_ecn.avg_weight_shift.unwrap_or(4) <= 31,
            || "must be 0..=31".into(),
        )?;
        positive(
            "pre_ecn.bucket_refill_us",
            self.pre_ecn.bucket_refill_us.unwrap_or(10.0),
        )?;
        let ra = &self.rate_advice;
        for (name, v) in [
            ("rate_advice.interval_us", ra.interval_us),
            ("rate_advice.reaction_us", ra.reaction_us),
        ] {
            field(name, v.is_none_or(|v| v > 0), || {
                "must be at least 1".into()
            })?;
        }
        field(
            "path.wan_rate_gbps",
            self.path.wan_rate_gbps * 125.0 < u32::MAX as f64,
            || "too large".into(),
        )?;
        let d = &self.dcqcn;
        field("dcqcn.g", d.g > 0.0 && d.g < 1.0, || {
            format!("must be in (0, 1), not {}", d.g)
        })?;
        field(
            "dcqcn.initial_alpha",
            (0.0..=1.0).contains(&d.initial_alpha),
            || format!("must be 0..=1, not {}", d.initial_alpha),
        )?;
        positive("dcqcn.cnp_interval_us", d.cnp_interval_us)?;
        positive("dcqcn.alpha_timer_us", d.alpha_timer_us)?;
        positive("dcqcn.rate_increase_timer_us", d.rate_increase_timer_us)?;
        field("dcqcn.byte_counter_bytes", d.byte_counter_bytes > 0, || {
            "must be at least 1".into()
        })?;
        positive("dcqcn.rate_ai_mbps", d.rate_ai_mbps)?;
        positive("dcqcn.rate_hai_mbps", d.rate_hai_mbps)?;
        positive("dcqcn.min_rate_mbps", d.min_rate_mbps)?;
        field("senders", !self.senders.is_empty(), || {
            "at least one sender".into()
        })?;
        for (i, s) in self.senders.iter().enumerate() {
            let name = |f: &str| format!("senders[{i}].{f}");
            positive(&name("line_rate_gbps"), s.line_rate_gbps)?;
            field(
                &name("line_rate_gbps"),
                s.line_rate_gbps * 1000.0 >= d.min_rate_mbps,
                || "must not be below dcqcn.min_rate_mbps".into(),
            )?;
            field(&name("qp"), s.qp <= 0xFF_FFFF, || {
                "QP numbers are 24 bits".into()
            })?;
            field(&name("receiver_qp"), s.receiver_qp <= 0xFF_FFFF, || {
                "QP numbers are 24 bits".into()
            })?;
            field(
                &name("start_us"),
                s.start_us.is_finite() && s.start_us >= 0.0,
                || "must be 0 or more".into(),
            )?;
            if let Some(stop) = s.stop_us {
                field(&name("stop_us"), stop > s.start_us, || {
                    "must be after start_us".into()
                })?;
            }
            let dup = self.senders[..i].iter().any(|p| {
                (p.ip == s.ip && p.qp == s.qp)
                    || (p.receiver_ip == s.receiver_ip && p.receiver_qp == s.receiver_qp)
            });
            field(&name("qp"), !dup, || {
                "another sender has the same (ip, qp) or (receiver_ip, receiver_qp)".into()
            })?;
        }
        Ok(())
    }

    /// K_max: the given value, else rate * WAN RTT / 8 (bytes).
    pub fn k_max_bytes(&self) -> u64 {
        self.bottleneck.k_max_bytes.unwrap_or_else(|| {
            (self.path.wan_rate_gbps * 1e9 * self.path.wan_rtt_ms * 1e-3 / 8.0) as u64
        })
    }

    /// K_min: the given value, else K_max / 2.
    pub fn k_min_bytes(&self) -> u64 {
        self.bottleneck
            .k_min_bytes
            .unwrap_or(self.k_max_bytes() / 2)
    }

    pub fn rtt_est_us(&self) -> u32 {
        self.gateway
            .rtt_est_us
            .unwrap_or((self.path.wan_rtt_ms * 1000.0).round() as u32)
    }

    pub fn qgr_interval_us(&self) -> u32 {
        self.gateway.qgr_interval_us.unwrap_or(10)
    }

    /// V_growth: the given value, else a tenth of the port's rate over one
    /// growth interval.
    pub fn v_growth_bytes(&self) -> u32 {
        self.gateway.v_growth_bytes.unwrap_or_else(|| {
            let per_us = self.path.wan_rate_gbps * 1e3 / 8.0;
            (per_us * self.qgr_interval_us() as f64 / 10.0).min(u32::MAX as f64) as u32
        })
    }

    pub fn telemetry_interval_us(&self) -> u32 {
        self.gateway.telemetry_interval_us.unwrap_or(1)
    }

    /// PE-03 thresholds `(T1, T2, Tmax)`, bytes.
    pub fn pe_thresholds(&self) -> (u32, u32, u32) {
        let clamp = |v: u64| v.min(u32::MAX as u64) as u32;
        let p = &self.pre_ecn;
        (
            p.t1_bytes.unwrap_or(clamp(self.k_min_bytes() / 10)),
            p.t2_bytes.unwrap_or(clamp(self.k_min_bytes())),
            p.tmax_bytes.unwrap_or(clamp(self.k_max_bytes())),
        )
    }

    /// The modes to run when none are asked for.
    pub fn default_modes(&self) -> Vec<Mode> {
        if self.modes.is_empty() {
            Mode::ALL.to_vec()
        } else {
            self.modes.clone()
        }
    }
}
