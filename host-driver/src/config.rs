//! Register settings from a TOML file (`cngw config apply`, `cngw replay --config`).
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
//! [registers]                  # raw escape hatch, by register name
//! SCRATCH = 0x1234
//! ```
//!
//! Loading is two steps. [`Config::plan`] validates everything (unknown keys,
//! feature and register names, read-only registers, value ranges, ports the
//! device lacks) and turns it into a [`Plan`], an ordered list of register writes;
//! it only reads the device. [`apply`] then performs the writes. A configuration
//! with any error therefore writes nothing.
//!
//! Write order: raw registers (by offset), then each port's thresholds (see
//! [`threshold_writes`]), then FEATURE_ENABLE last, so features switch on only
//! once their thresholds are in place.

use crate::bus::{BusError, RegisterBus};
use crate::device::{
    check_write, feature_bit, port_registers, threshold_writes, Device, DeviceError, PortRegisters,
};
use crate::thresholds::{compute_thresholds, KMin, ThresholdInput, Thresholds};
use crate::units::{parse_bytes, parse_duration, parse_rate};
use cngw_regmap::{by_name, by_offset};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
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
    /// Raw register values by register name.
    #[serde(default)]
    pub registers: BTreeMap<String, toml::Value>,
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

/// Validated register writes, in the order they must happen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// (byte offset, value) pairs.
    pub writes: Vec<(u32, u32)>,
    /// The device must have at least this many ports.
    pub ports_needed: u32,
}

impl fmt::Display for Plan {
    /// One line per write: `PORT0_RATE_MBPS @ 0x100 <- 100000 (0x186a0)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &(offset, value) in &self.writes {
            let name = by_offset(offset).map_or("?", |r| r.name);
            writeln!(f, "{name} @ {offset:#05x} <- {value} ({value:#x})")?;
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
    raw: Vec<(u32, u32)>,
    ports: Vec<(u32, PortRegisters, Thresholds)>,
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
        if let Some(bits) = validated.features {
            let reg = by_name("FEATURE_ENABLE").expect("register map has FEATURE_ENABLE");
            writes.push((reg.offset, bits));
        }
        Ok(Plan {
            writes,
            ports_needed: validated.ports_needed,
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

        if issues.0.is_empty() {
            Ok(Validated {
                raw,
                ports,
                features,
                ports_needed,
            })
        } else {
            Err(ConfigError::Invalid { issues: issues.0 })
        }
    }
}

/// Performs the writes of `plan` in order. Checks the whole plan against the
/// device and the register map before the first write.
pub fn apply<B: RegisterBus>(device: &mut Device<B>, plan: &Plan) -> Result<(), DeviceError> {
    if plan.ports_needed > device.num_ports() {
        return Err(DeviceError::PortOutOfRange {
            port: plan.ports_needed - 1,
            num_ports: device.num_ports(),
        });
    }
    for &(offset, value) in &plan.writes {
        let reg = by_offset(offset).ok_or(BusError::Unmapped { offset })?;
        device.check(reg, value)?;
    }
    for &(offset, value) in &plan.writes {
        device.write_offset(offset, value)?;
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
