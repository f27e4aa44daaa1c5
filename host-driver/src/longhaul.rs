//! Typed settings of the Long-haul CNP second level (LH-07..LH-09, LH-12,
//! LH-14, LH-15) and of the gateway's own addresses, checked and turned into
//! register values here and nowhere else.
//!
//! - [`SecondLevel`]: severity rows (`LH_SEV*`), the Resume action
//!   (`LH_RESUME_ACTION`), the per-flow minimum interval
//!   (`PORT0_FLOW_INTERVAL_US`), the token bucket (`LH_BUCKET_*`), the
//!   options (`LH_OPTIONS`) and the DSCP of notifications (`NOTIFY_DSCP`).
//! - [`GatewayAddresses`]: the source MAC and IP addresses of notifications
//!   (`GW_MAC_*`, `GW_IPV4`, `GW_IPV6_*`) and the microsecond time base
//!   (`CLOCKS_PER_US`).
//!
//! Every field is optional: `None` leaves its registers alone. [`SecondLevel::check`]
//! lists every problem; [`SecondLevel::writes`] gives the register writes of
//! a valid setting, in offset order. The action words (`level[31:24]
//! action[23:22] parameter[15:0]`) are packed with the field positions of the
//! register map.

use crate::bus::RegisterBus;
use crate::device::{Device, DeviceError};
use cngw_regmap::{by_name, by_offset, offset, Field, Register};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::time::Duration;
use thiserror::Error;

pub use cngw_packet::longhaul::Action;

/// Rows of the severity table: row 0 above K_max, rows 1 and 2 above their
/// own byte thresholds.
pub const SEVERITY_ROWS: usize = 3;
/// Deepest token bucket the controller has.
pub const BUCKET_DEPTH_MAX: u32 = 8;
/// Largest DSCP (6 bits).
pub const DSCP_MAX: u32 = 63;
/// Largest percentage of a Rate Reduce or Resume parameter.
pub const PERCENT_MAX: u16 = 100;

/// The configuration name of an action: `notify`, `pause`, `rate_reduce`, `resume`.
pub fn action_name(action: Action) -> &'static str {
    match action {
        Action::Notify => "notify",
        Action::Pause => "pause",
        Action::RateReduce => "rate_reduce",
        Action::Resume => "resume",
    }
}

/// The action a configuration name stands for.
pub fn parse_action(name: &str) -> Option<Action> {
    [
        Action::Notify,
        Action::Pause,
        Action::RateReduce,
        Action::Resume,
    ]
    .into_iter()
    .find(|&a| action_name(a) == name)
}

/// A second-level setting that cannot be programmed.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum SecondLevelError {
    #[error("{action} takes a percentage of 0..={PERCENT_MAX}, not {parameter}", action = action_name(*.action))]
    PercentOutOfRange { action: Action, parameter: u16 },
    #[error("notify takes no parameter (0), not {parameter}")]
    NotifyParameter { parameter: u16 },
    #[error("row {row}: resume is not a severity action (the Resume action is its own setting)")]
    ResumeAsSeverity { row: usize },
    #[error("the Resume action must be resume, not {}", action_name(*.action))]
    ResumeAction { action: Action },
    #[error("{rows} severity rows given: the table has rows 0..={}", SEVERITY_ROWS - 1)]
    TooManyRows { rows: usize },
    #[error("no severity rows given: row 0 (above K_max) is needed")]
    NoRows,
    #[error("row 0 applies whenever the queue is above K_max and takes no threshold")]
    Row0Threshold,
    #[error(
        "row {row} needs a threshold in bytes (it applies above K_max and above the threshold)"
    )]
    ThresholdMissing { row: usize },
    #[error("row 2's threshold ({row2} bytes) must be above row 1's ({row1} bytes)")]
    ThresholdsNotIncreasing { row1: u32, row2: u32 },
    #[error("the token bucket refills every 1 or more clocks, not 0")]
    RefillZero,
    #[error("the token bucket holds 1..={BUCKET_DEPTH_MAX} tokens, not {depth}")]
    BucketDepth { depth: u32 },
    #[error("DSCP {dscp} is outside 0..={DSCP_MAX}")]
    Dscp { dscp: u32 },
    #[error("clocks per microsecond must be at least 1")]
    ClocksPerUsZero,
    #[error("{mac} is a multicast MAC address: notifications need a unicast source", mac = mac_text(.mac))]
    MulticastMac { mac: [u8; 6] },
    #[error("{address} is an IPv4-mapped address: give it as the IPv4 address")]
    MappedIpv6 { address: Ipv6Addr },
    #[error("{what} {duration:?} is not a whole number of microseconds")]
    NotWholeMicros {
        what: &'static str,
        duration: Duration,
    },
    #[error("{what} {duration:?} is more than the {max_us} us the register holds")]
    TooLong {
        what: &'static str,
        duration: Duration,
        max_us: u64,
    },
}

/// `02:c0:6e:00:00:01`.
pub fn mac_text(mac: &[u8; 6]) -> String {
    mac.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Parses `02:c0:6e:00:00:01` (or with `-`).
pub fn parse_mac(text: &str) -> Result<[u8; 6], String> {
    let parts: Vec<&str> = text.trim().split([':', '-']).collect();
    let bytes: Vec<u8> = parts
        .iter()
        .filter(|p| p.len() == 2)
        .filter_map(|p| u8::from_str_radix(p, 16).ok())
        .collect();
    <[u8; 6]>::try_from(bytes.as_slice())
        .ok()
        .filter(|_| parts.len() == 6)
        .ok_or_else(|| format!("{text:?} is not a MAC address such as \"02:c0:6e:00:00:01\""))
}

/// A duration as whole microseconds of a register at most `max_us`.
pub fn duration_us(
    what: &'static str,
    duration: Duration,
    max_us: u64,
) -> Result<u32, SecondLevelError> {
    if duration.as_nanos() != duration.as_micros() * 1000 {
        return Err(SecondLevelError::NotWholeMicros { what, duration });
    }
    let us = duration.as_micros();
    if us > u128::from(max_us) {
        return Err(SecondLevelError::TooLong {
            what,
            duration,
            max_us,
        });
    }
    Ok(us as u32)
}

fn register(name: &str) -> &'static Register {
    by_name(name).unwrap_or_else(|| panic!("register map has no {name}"))
}

fn field(reg: &'static Register, name: &str) -> &'static Field {
    reg.field(name)
        .unwrap_or_else(|| panic!("register {} has no field {name}", reg.name))
}

fn place(reg: &'static Register, name: &str, value: u32) -> u32 {
    let f = field(reg, name);
    (value << f.lsb) & f.mask()
}

fn take(reg: &'static Register, name: &str, raw: u32) -> u32 {
    let f = field(reg, name);
    (raw & f.mask()) >> f.lsb
}

/// One action word: what a notification tells the sender (LH-07, LH-12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionWord {
    /// Congestion Level.
    pub level: u8,
    pub action: Action,
    /// Percent (Rate Reduce, Resume: 0..=100; Resume 0 = all), microseconds
    /// (Pause), 0 (Notify).
    pub parameter: u16,
}

impl ActionWord {
    /// Checks the parameter against what the action means.
    pub fn new(level: u8, action: Action, parameter: u16) -> Result<ActionWord, SecondLevelError> {
        let word = ActionWord {
            level,
            action,
            parameter,
        };
        word.check()?;
        Ok(word)
    }

    pub fn check(&self) -> Result<(), SecondLevelError> {
        match self.action {
            Action::Notify if self.parameter != 0 => Err(SecondLevelError::NotifyParameter {
                parameter: self.parameter,
            }),
            Action::RateReduce | Action::Resume if self.parameter > PERCENT_MAX => {
                Err(SecondLevelError::PercentOutOfRange {
                    action: self.action,
                    parameter: self.parameter,
                })
            }
            _ => Ok(()),
        }
    }

    /// The register value (`LH_SEV*_ACTION`, `LH_RESUME_ACTION`).
    pub fn register_value(&self) -> u32 {
        let reg = register("LH_SEV0_ACTION");
        place(reg, "level", u32::from(self.level))
            | place(reg, "action", self.action as u32)
            | place(reg, "parameter", u32::from(self.parameter))
    }

    /// The action word a register holds.
    pub fn from_register(raw: u32) -> ActionWord {
        let reg = register("LH_SEV0_ACTION");
        ActionWord {
            level: take(reg, "level", raw) as u8,
            action: Action::from_flags((take(reg, "action", raw) << 6) as u8),
            parameter: take(reg, "parameter", raw) as u16,
        }
    }
}

/// One row of the severity table (LH-07).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeverityRow {
    /// Rows 1 and 2: the row applies when the queue is above K_max and above
    /// this many bytes. Row 0: `None` (it applies above K_max).
    pub threshold_bytes: Option<u32>,
    pub action: ActionWord,
}

/// The per-flow minimum interval between notifications (LH-08).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowInterval {
    /// The port's RTT_est (register value 0).
    RttEst,
    Micros(u32),
}

impl FlowInterval {
    /// A duration as an interval; zero means RTT_est.
    pub fn from_duration(duration: Duration) -> Result<FlowInterval, SecondLevelError> {
        match duration_us("interval", duration, u64::from(u32::MAX))? {
            0 => Ok(FlowInterval::RttEst),
            us => Ok(FlowInterval::Micros(us)),
        }
    }

    pub fn register_value(self) -> u32 {
        match self {
            FlowInterval::RttEst => 0,
            FlowInterval::Micros(us) => us,
        }
    }
}

/// `LH_OPTIONS` (LH-14, LH-15).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LhOptions {
    /// Send Metric Type and Value as zero.
    pub hide_metric: bool,
    /// IPv4 senders get the Long-haul RoCEv2 format (else a standard CNP).
    pub ipv4_longhaul: bool,
    /// IPv6 senders get the Long-haul RoCEv2 format (else a standard CNP).
    pub ipv6_longhaul: bool,
    /// LH-10 downstream deferral: no CNP to flows whose rate already fell.
    pub defer: bool,
}

impl LhOptions {
    /// The options named (the `LH_OPTIONS` field names); unknown names are returned.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<LhOptions, String> {
        let mut options = LhOptions::default();
        for name in names {
            match name {
                "hide_metric" => options.hide_metric = true,
                "ipv4_longhaul" => options.ipv4_longhaul = true,
                "ipv6_longhaul" => options.ipv6_longhaul = true,
                "defer" => options.defer = true,
                other => return Err(other.to_string()),
            }
        }
        Ok(options)
    }

    /// Every option name.
    pub fn names() -> Vec<&'static str> {
        register("LH_OPTIONS")
            .fields
            .iter()
            .map(|f| f.name)
            .collect()
    }

    pub fn register_value(self) -> u32 {
        let reg = register("LH_OPTIONS");
        place(reg, "hide_metric", self.hide_metric.into())
            | place(reg, "ipv4_longhaul", self.ipv4_longhaul.into())
            | place(reg, "ipv6_longhaul", self.ipv6_longhaul.into())
            | place(reg, "defer", self.defer.into())
    }
}

/// The second level's settings; `None` leaves a setting as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecondLevel {
    /// Rows 0.. of the severity table; the list replaces the table: rows not
    /// given never apply (their threshold is set to 0xffffffff).
    pub severity: Option<Vec<SeverityRow>>,
    /// The Resume action (its action must be [`Action::Resume`]).
    pub resume: Option<ActionWord>,
    /// Minimum interval between notifications to one flow, WAN port 0.
    pub flow_interval: Option<FlowInterval>,
    /// One token every this many clocks (>= 1).
    pub bucket_refill_clocks: Option<u32>,
    /// Tokens the bucket holds, 1..=8.
    pub bucket_depth: Option<u32>,
    pub options: Option<LhOptions>,
    /// DSCP of notification frames, 0..=63.
    pub notify_dscp: Option<u32>,
}

/// Threshold register value of a severity row that never applies.
pub const THRESHOLD_NEVER: u32 = u32::MAX;

impl SecondLevel {
    /// Every problem of the setting, each with the key it is about as the
    /// configuration file names it (relative to `[longhaul]`).
    pub fn check(&self) -> Vec<(String, SecondLevelError)> {
        let mut problems = Vec::new();
        let mut add = |key: String, error| problems.push((key, error));
        if let Some(rows) = &self.severity {
            if rows.is_empty() {
                add("severity".to_string(), SecondLevelError::NoRows);
            }
            if rows.len() > SEVERITY_ROWS {
                add(
                    "severity".to_string(),
                    SecondLevelError::TooManyRows { rows: rows.len() },
                );
            }
            for (row, r) in rows.iter().enumerate() {
                if r.action.action == Action::Resume {
                    add(
                        format!("severity[{row}].action"),
                        SecondLevelError::ResumeAsSeverity { row },
                    );
                } else if let Err(e) = r.action.check() {
                    add(format!("severity[{row}].parameter"), e);
                }
                match (row, r.threshold_bytes) {
                    (0, Some(_)) => add(
                        "severity[0].threshold".to_string(),
                        SecondLevelError::Row0Threshold,
                    ),
                    (1.., None) => add(
                        format!("severity[{row}].threshold"),
                        SecondLevelError::ThresholdMissing { row },
                    ),
                    _ => {}
                }
            }
            if let (Some(Some(row1)), Some(Some(row2))) = (
                rows.get(1).map(|r| r.threshold_bytes),
                rows.get(2).map(|r| r.threshold_bytes),
            ) {
                if row2 <= row1 {
                    add(
                        "severity[2].threshold".to_string(),
                        SecondLevelError::ThresholdsNotIncreasing { row1, row2 },
                    );
                }
            }
        }
        if let Some(resume) = &self.resume {
            if resume.action != Action::Resume {
                add(
                    "resume".to_string(),
                    SecondLevelError::ResumeAction {
                        action: resume.action,
                    },
                );
            } else if let Err(e) = resume.check() {
                add("resume.parameter".to_string(), e);
            }
        }
        if self.bucket_refill_clocks == Some(0) {
            add(
                "bucket.refill_clocks".to_string(),
                SecondLevelError::RefillZero,
            );
        }
        if let Some(depth) = self.bucket_depth {
            if !(1..=BUCKET_DEPTH_MAX).contains(&depth) {
                add(
                    "bucket.depth".to_string(),
                    SecondLevelError::BucketDepth { depth },
                );
            }
        }
        if let Some(dscp) = self.notify_dscp {
            if dscp > DSCP_MAX {
                add("dscp".to_string(), SecondLevelError::Dscp { dscp });
            }
        }
        problems
    }

    /// The register writes, in offset order; the first problem if any.
    pub fn writes(&self) -> Result<Vec<(u32, u32)>, SecondLevelError> {
        if let Some((_, e)) = self.check().into_iter().next() {
            return Err(e);
        }
        let mut writes = Vec::new();
        if let Some(rows) = &self.severity {
            let actions = [
                offset::LH_SEV0_ACTION,
                offset::LH_SEV1_ACTION,
                offset::LH_SEV2_ACTION,
            ];
            let thresholds = [
                None,
                Some(offset::LH_SEV1_THRESHOLD_BYTES),
                Some(offset::LH_SEV2_THRESHOLD_BYTES),
            ];
            for row in 0..SEVERITY_ROWS {
                match rows.get(row) {
                    Some(r) => {
                        writes.push((actions[row], r.action.register_value()));
                        if let (Some(reg), Some(bytes)) = (thresholds[row], r.threshold_bytes) {
                            writes.push((reg, bytes));
                        }
                    }
                    None => {
                        if let Some(reg) = thresholds[row] {
                            writes.push((reg, THRESHOLD_NEVER));
                        }
                    }
                }
            }
        }
        if let Some(resume) = &self.resume {
            writes.push((offset::LH_RESUME_ACTION, resume.register_value()));
        }
        if let Some(interval) = self.flow_interval {
            writes.push((offset::PORT0_FLOW_INTERVAL_US, interval.register_value()));
        }
        if let Some(clocks) = self.bucket_refill_clocks {
            writes.push((offset::LH_BUCKET_REFILL_CLOCKS, clocks));
        }
        if let Some(depth) = self.bucket_depth {
            writes.push((offset::LH_BUCKET_DEPTH, depth));
        }
        if let Some(options) = self.options {
            writes.push((offset::LH_OPTIONS, options.register_value()));
        }
        if let Some(dscp) = self.notify_dscp {
            writes.push((offset::NOTIFY_DSCP, dscp));
        }
        writes.sort_by_key(|&(offset, _)| offset);
        Ok(writes)
    }
}

/// The gateway's own addresses: the source of its notifications.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GatewayAddresses {
    pub mac: Option<[u8; 6]>,
    /// Source of notifications to IPv4 senders.
    pub ipv4: Option<Ipv4Addr>,
    /// Source of notifications to IPv6 senders.
    pub ipv6: Option<Ipv6Addr>,
    /// Clocks per microsecond of the core clock (the time base of every
    /// microsecond register; 322 at 322.265625 MHz).
    pub clocks_per_us: Option<u32>,
}

impl GatewayAddresses {
    /// Every problem, with its key (relative to `[gateway]`).
    pub fn check(&self) -> Vec<(String, SecondLevelError)> {
        let mut problems = Vec::new();
        if let Some(mac) = self.mac {
            if mac[0] & 1 != 0 {
                problems.push(("mac".to_string(), SecondLevelError::MulticastMac { mac }));
            }
        }
        if let Some(address) = self.ipv6 {
            if address.to_ipv4_mapped().is_some() {
                problems.push(("ipv6".to_string(), SecondLevelError::MappedIpv6 { address }));
            }
        }
        if self.clocks_per_us == Some(0) {
            problems.push((
                "clocks_per_us".to_string(),
                SecondLevelError::ClocksPerUsZero,
            ));
        }
        problems
    }

    /// The register writes, in offset order; the first problem if any.
    pub fn writes(&self) -> Result<Vec<(u32, u32)>, SecondLevelError> {
        if let Some((_, e)) = self.check().into_iter().next() {
            return Err(e);
        }
        let mut writes = Vec::new();
        if let Some(clocks) = self.clocks_per_us {
            writes.push((offset::CLOCKS_PER_US, clocks));
        }
        if let Some(m) = self.mac {
            writes.push((
                offset::GW_MAC_HI,
                u32::from(u16::from_be_bytes([m[0], m[1]])),
            ));
            writes.push((
                offset::GW_MAC_LO,
                u32::from_be_bytes([m[2], m[3], m[4], m[5]]),
            ));
        }
        if let Some(ipv4) = self.ipv4 {
            writes.push((offset::GW_IPV4, u32::from(ipv4)));
        }
        if let Some(ipv6) = self.ipv6 {
            let o = ipv6.octets();
            for i in 0..4 {
                writes.push((
                    offset::GW_IPV6_0 + 4 * i as u32,
                    u32::from_be_bytes([o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]]),
                ));
            }
        }
        writes.sort_by_key(|&(offset, _)| offset);
        Ok(writes)
    }
}

impl<B: RegisterBus> Device<B> {
    fn write_all(&mut self, writes: &[(u32, u32)]) -> Result<(), DeviceError> {
        for &(off, value) in writes {
            let reg = by_offset(off).expect("second-level writes name mapped registers");
            self.check(reg, value)?;
        }
        for &(off, value) in writes {
            self.write_offset(off, value)?;
        }
        Ok(())
    }

    /// Programs the second level after checking it; an invalid setting
    /// writes nothing.
    pub fn set_second_level(&mut self, settings: &SecondLevel) -> Result<(), DeviceError> {
        let writes = settings.writes()?;
        self.write_all(&writes)
    }

    /// Programs the gateway's addresses after checking them.
    pub fn set_gateway_addresses(
        &mut self,
        addresses: &GatewayAddresses,
    ) -> Result<(), DeviceError> {
        let writes = addresses.writes()?;
        self.write_all(&writes)
    }

    /// The severity table as programmed: each row's threshold (row 0: none)
    /// and action word.
    pub fn severity_table(&mut self) -> Result<Vec<SeverityRow>, DeviceError> {
        let mut read = |off: u32| -> Result<u32, DeviceError> { Ok(self.bus_mut().read32(off)?) };
        Ok(vec![
            SeverityRow {
                threshold_bytes: None,
                action: ActionWord::from_register(read(offset::LH_SEV0_ACTION)?),
            },
            SeverityRow {
                threshold_bytes: Some(read(offset::LH_SEV1_THRESHOLD_BYTES)?),
                action: ActionWord::from_register(read(offset::LH_SEV1_ACTION)?),
            },
            SeverityRow {
                threshold_bytes: Some(read(offset::LH_SEV2_THRESHOLD_BYTES)?),
                action: ActionWord::from_register(read(offset::LH_SEV2_ACTION)?),
            },
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::MemBus;

    #[test]
    fn lh_07_action_words_pack_as_the_reset_values() {
        // The draft's example rows are the reset values (docs/decisions.md).
        let examples = [
            (
                "LH_SEV0_ACTION",
                ActionWord::new(180, Action::RateReduce, 30),
            ),
            ("LH_SEV1_ACTION", ActionWord::new(220, Action::Pause, 100)),
            ("LH_SEV2_ACTION", ActionWord::new(250, Action::Pause, 1000)),
            ("LH_RESUME_ACTION", ActionWord::new(20, Action::Resume, 50)),
        ];
        for (name, word) in examples {
            let word = word.unwrap();
            let reset = register(name).reset;
            assert_eq!(word.register_value(), reset, "{name}");
            assert_eq!(ActionWord::from_register(reset), word, "{name}");
        }
        assert_eq!(
            ActionWord::new(0, Action::RateReduce, 101),
            Err(SecondLevelError::PercentOutOfRange {
                action: Action::RateReduce,
                parameter: 101
            })
        );
        assert!(ActionWord::new(0, Action::Resume, 101).is_err());
        assert!(ActionWord::new(0, Action::Pause, u16::MAX).is_ok());
        assert_eq!(
            ActionWord::new(0, Action::Notify, 1),
            Err(SecondLevelError::NotifyParameter { parameter: 1 })
        );
        for a in [
            Action::Notify,
            Action::Pause,
            Action::RateReduce,
            Action::Resume,
        ] {
            assert_eq!(parse_action(action_name(a)), Some(a));
        }
        assert_eq!(parse_action("slow_down"), None);
    }

    fn row(threshold_bytes: Option<u32>, level: u8, action: Action, parameter: u16) -> SeverityRow {
        SeverityRow {
            threshold_bytes,
            action: ActionWord {
                level,
                action,
                parameter,
            },
        }
    }

    #[test]
    fn lh_07_severity_rows_replace_the_table() {
        let settings = SecondLevel {
            severity: Some(vec![
                row(None, 100, Action::Notify, 0),
                row(Some(200_000_000), 200, Action::Pause, 500),
            ]),
            ..Default::default()
        };
        assert_eq!(
            settings.writes().unwrap(),
            [
                (offset::LH_SEV0_ACTION, 0x6400_0000),
                (offset::LH_SEV1_THRESHOLD_BYTES, 200_000_000),
                (offset::LH_SEV1_ACTION, 0xC840_01F4),
                (offset::LH_SEV2_THRESHOLD_BYTES, THRESHOLD_NEVER),
            ]
        );
        let mut dev = Device::open(MemBus::new()).unwrap();
        dev.set_second_level(&settings).unwrap();
        let table = dev.severity_table().unwrap();
        assert_eq!(table[0], settings.severity.as_ref().unwrap()[0]);
        assert_eq!(table[1], settings.severity.as_ref().unwrap()[1]);
        assert_eq!(table[2].threshold_bytes, Some(THRESHOLD_NEVER));
    }

    #[test]
    fn lh_07_bad_second_level_settings_are_all_listed_and_write_nothing() {
        let settings = SecondLevel {
            severity: Some(vec![
                row(Some(1), 180, Action::RateReduce, 130),
                row(Some(300), 220, Action::Resume, 10),
                row(Some(200), 250, Action::Pause, 1000),
            ]),
            resume: Some(ActionWord {
                level: 20,
                action: Action::Pause,
                parameter: 50,
            }),
            bucket_refill_clocks: Some(0),
            bucket_depth: Some(9),
            notify_dscp: Some(64),
            ..Default::default()
        };
        let problems = settings.check();
        let keys: Vec<&str> = problems.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "severity[0].parameter",
                "severity[0].threshold",
                "severity[1].action",
                "severity[2].threshold",
                "resume",
                "bucket.refill_clocks",
                "bucket.depth",
                "dscp"
            ],
            "{problems:#?}"
        );
        let mut dev = Device::open(MemBus::new()).unwrap();
        let err = dev.set_second_level(&settings).unwrap_err();
        assert!(err.to_string().contains("percentage"), "{err}");
        assert!(dev.bus().write_log().is_empty());
        assert_eq!(
            SecondLevel {
                severity: Some(vec![]),
                ..Default::default()
            }
            .check(),
            [("severity".to_string(), SecondLevelError::NoRows)]
        );
        assert_eq!(
            SecondLevel {
                severity: Some(vec![
                    row(None, 1, Action::Notify, 0),
                    row(None, 2, Action::Notify, 0)
                ]),
                ..Default::default()
            }
            .check(),
            [(
                "severity[1].threshold".to_string(),
                SecondLevelError::ThresholdMissing { row: 1 }
            )]
        );
    }

    #[test]
    fn lh_08_interval_bucket_options_and_dscp() {
        let settings = SecondLevel {
            flow_interval: Some(FlowInterval::from_duration(Duration::from_millis(2)).unwrap()),
            bucket_refill_clocks: Some(1),
            bucket_depth: Some(8),
            options: Some(LhOptions::from_names(["ipv4_longhaul", "hide_metric"]).unwrap()),
            notify_dscp: Some(26),
            ..Default::default()
        };
        assert_eq!(
            settings.writes().unwrap(),
            [
                (offset::PORT0_FLOW_INTERVAL_US, 2000),
                (offset::LH_BUCKET_REFILL_CLOCKS, 1),
                (offset::LH_BUCKET_DEPTH, 8),
                (offset::LH_OPTIONS, 0b011),
                (offset::NOTIFY_DSCP, 26),
            ]
        );
        assert_eq!(
            FlowInterval::from_duration(Duration::ZERO),
            Ok(FlowInterval::RttEst)
        );
        assert!(matches!(
            FlowInterval::from_duration(Duration::from_nanos(1500)),
            Err(SecondLevelError::NotWholeMicros { .. })
        ));
        assert_eq!(LhOptions::from_names(["fast"]), Err("fast".to_string()));
        assert_eq!(
            LhOptions::names(),
            ["hide_metric", "ipv4_longhaul", "ipv6_longhaul", "defer"]
        );
    }

    #[test]
    fn lh_12_gateway_addresses_in_network_order() {
        let addresses = GatewayAddresses {
            mac: Some(parse_mac("02:c0:6e:00:00:01").unwrap()),
            ipv4: Some(Ipv4Addr::new(10, 0, 1, 1)),
            ipv6: Some("fd00::1:2".parse().unwrap()),
            clocks_per_us: Some(250),
        };
        assert_eq!(
            addresses.writes().unwrap(),
            [
                (offset::CLOCKS_PER_US, 250),
                (offset::GW_MAC_HI, 0x02C0),
                (offset::GW_MAC_LO, 0x6E00_0001),
                (offset::GW_IPV4, 0x0A00_0101),
                (offset::GW_IPV6_0, 0xFD00_0000),
                (offset::GW_IPV6_1, 0),
                (offset::GW_IPV6_2, 0),
                (offset::GW_IPV6_3, 0x0001_0002),
            ]
        );
        let bad = GatewayAddresses {
            mac: Some([0x01, 0, 0x5e, 0, 0, 1]),
            ipv6: Some("::ffff:10.0.0.1".parse().unwrap()),
            clocks_per_us: Some(0),
            ..Default::default()
        };
        let keys: Vec<String> = bad.check().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["mac", "ipv6", "clocks_per_us"]);
        for text in [
            "02:c0:6e:00:00",
            "02:c0:6e:00:00:01:02",
            "zz:c0:6e:00:00:01",
            "2:c0:6e:0:0:1",
        ] {
            assert!(parse_mac(text).is_err(), "{text}");
        }
        assert_eq!(parse_mac("02-C0-6E-00-00-01"), Ok([2, 0xc0, 0x6e, 0, 0, 1]));
    }
}
