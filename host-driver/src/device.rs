//! Typed access to a cngw device over any [`RegisterBus`] (HW-04).
//!
//! [`Device::open`] checks the self-describing header (ID, VERSION, CAPABILITIES
//! at +0x0/+0x4/+0x8) before anything else is touched. Every register is reached
//! through the one definition in `cngw-regmap`; names are looked up there, never
//! retyped here.

use crate::bus::{BusError, RegisterBus};
use crate::flows::{CommandState, FlowError, DEFAULT_POLL_LIMIT};
use crate::longhaul::SecondLevelError;
use crate::thresholds::{compute_thresholds, ThresholdError, ThresholdInput, Thresholds};
use cngw_regmap::{
    by_name, by_offset, offset, Access, Field, Register, DEVICE_ID, MAP_VERSION, REGISTERS,
};
use std::fmt;
use thiserror::Error;

/// Major register-map version this driver speaks; minor versions only add.
pub const SUPPORTED_MAJOR: u16 = (MAP_VERSION >> 16) as u16;

/// A failed device operation.
#[derive(Debug, Error)]
pub enum DeviceError {
    #[error(transparent)]
    Bus(#[from] BusError),
    #[error("not a cngw device: ID reads {found:#010x}, expected {expected:#010x} (\"CNGW\")", expected = DEVICE_ID)]
    WrongId { found: u32 },
    #[error("register map version {found} is not supported: this driver speaks major version {SUPPORTED_MAJOR}")]
    VersionMismatch { found: Version },
    #[error("unknown register {0:?}")]
    UnknownRegister(String),
    #[error("register {0} is read-only")]
    ReadOnly(&'static str),
    #[error(
        "value {value:#x} sets bits outside the fields of {register} (defined bits {mask:#x})"
    )]
    UndefinedBits {
        register: &'static str,
        value: u32,
        mask: u32,
    },
    #[error("unknown feature {name:?} (known: {known})", known = feature_fields().iter().map(|f| f.name).collect::<Vec<_>>().join(", "))]
    UnknownFeature { name: String },
    #[error("feature(s) {names} not implemented by this device (CAPABILITIES.features = {available:#x})", names = .absent.join(", "))]
    FeatureAbsent {
        absent: Vec<&'static str>,
        available: u32,
    },
    #[error("port {port} does not exist: the device has {num_ports} WAN port(s)")]
    PortOutOfRange { port: u32, num_ports: u32 },
    #[error("port {port} has no threshold registers in this register map")]
    NoPortRegisters { port: u32 },
    #[error("scratch test failed: wrote {wrote:#010x} to SCRATCH, read back {read:#010x}")]
    ScratchMismatch { wrote: u32, read: u32 },
    #[error(transparent)]
    Threshold(#[from] ThresholdError),
    #[error(transparent)]
    Flow(#[from] FlowError),
    #[error(transparent)]
    SecondLevel(#[from] SecondLevelError),
    #[error(transparent)]
    Format(#[from] crate::formats::FormatError),
    #[error(transparent)]
    Extension(#[from] crate::extension::ExtensionError),
}

/// The VERSION register: major in bits 31..16, minor in 15..0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u16,
    pub minor: u16,
}

impl Version {
    pub fn from_raw(raw: u32) -> Version {
        Version {
            major: (raw >> 16) as u16,
            minor: raw as u16,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

fn register(name: &str) -> &'static Register {
    by_name(name).unwrap_or_else(|| panic!("register map has no {name}"))
}

fn field_of(reg: &'static Register, field: &str) -> &'static Field {
    reg.field(field)
        .unwrap_or_else(|| panic!("register {} has no field {field}", reg.name))
}

/// The value of `field` in the raw register value `raw`.
pub fn field_value(field: &Field, raw: u32) -> u32 {
    (raw & field.mask()) >> field.lsb
}

/// The CAPABILITIES register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities(pub u32);

impl Capabilities {
    pub fn raw(self) -> u32 {
        self.0
    }

    fn field(self, name: &str) -> u32 {
        field_value(field_of(register("CAPABILITIES"), name), self.0)
    }

    /// The header parser and its counters are present.
    pub fn parser(self) -> bool {
        self.field("parser") != 0
    }

    /// Number of WAN egress ports.
    pub fn num_ports(self) -> u32 {
        self.field("num_ports")
    }

    /// FEATURE_ENABLE bits the device implements.
    pub fn features(self) -> u32 {
        self.field("features")
    }

    /// Names of the capability fields that are set (single-bit fields only).
    pub fn names(self) -> Vec<&'static str> {
        register("CAPABILITIES")
            .fields
            .iter()
            .filter(|f| f.width == 1 && field_value(f, self.0) != 0)
            .map(|f| f.name)
            .collect()
    }
}

/// The fields of FEATURE_ENABLE, one per feature.
pub fn feature_fields() -> &'static [Field] {
    register("FEATURE_ENABLE").fields
}

/// The FEATURE_ENABLE bit of a feature, by field name (case-insensitive).
pub fn feature_bit(name: &str) -> Result<u32, DeviceError> {
    register("FEATURE_ENABLE")
        .field(name)
        .map(Field::mask)
        .ok_or_else(|| DeviceError::UnknownFeature {
            name: name.to_string(),
        })
}

/// Names of the features whose bits are set in `bits`.
pub fn feature_names(bits: u32) -> Vec<&'static str> {
    feature_fields()
        .iter()
        .filter(|f| bits & f.mask() != 0)
        .map(|f| f.name)
        .collect()
}

/// Bits a register defines: the union of its fields, or all 32 when it has none.
pub fn defined_bits(reg: &Register) -> u32 {
    if reg.fields.is_empty() {
        u32::MAX
    } else {
        reg.fields.iter().fold(0, |mask, f| mask | f.mask())
    }
}

/// Checks that software may write `value` to `reg`: it is writable and the
/// value sets no bit outside the register's fields.
pub fn check_write(reg: &'static Register, value: u32) -> Result<(), DeviceError> {
    if !reg.access.is_writable() {
        return Err(DeviceError::ReadOnly(reg.name));
    }
    let mask = defined_bits(reg);
    if value & !mask != 0 {
        return Err(DeviceError::UndefinedBits {
            register: reg.name,
            value,
            mask,
        });
    }
    Ok(())
}

/// The LH-03 registers of one WAN port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortRegisters {
    pub rate_mbps: &'static Register,
    pub rtt_est_us: &'static Register,
    pub k_base_bytes: &'static Register,
    pub alpha_q8_8: &'static Register,
    pub k_min_bytes: &'static Register,
    pub k_max_bytes: &'static Register,
}

/// The registers of port `port` (`PORT<n>_RATE_MBPS` and its neighbours), if the
/// register map has them.
pub fn port_registers(port: u32) -> Option<PortRegisters> {
    let reg = |suffix: &str| by_name(&format!("PORT{port}_{suffix}"));
    Some(PortRegisters {
        rate_mbps: reg("RATE_MBPS")?,
        rtt_est_us: reg("RTT_EST_US")?,
        k_base_bytes: reg("K_BASE_BYTES")?,
        alpha_q8_8: reg("ALPHA_Q8_8")?,
        k_min_bytes: reg("K_MIN_BYTES")?,
        k_max_bytes: reg("K_MAX_BYTES")?,
    })
}

/// The writes that program `t` into a port, in a safe order.
///
/// Rate, RTT, K_base and alpha first, then K_min and K_max last (so explicit
/// values win over any recomputation the device does). K_min < K_max holds after
/// every single write, given it held before: when K_max grows it is written
/// first, when it shrinks K_min is. `current_k_max` is the port's K_max now.
pub fn threshold_writes(
    regs: &PortRegisters,
    t: &Thresholds,
    current_k_max: u32,
) -> Vec<(u32, u32)> {
    let mut writes = vec![
        (regs.rate_mbps.offset, t.rate_mbps),
        (regs.rtt_est_us.offset, t.rtt_est_us),
        (regs.k_base_bytes.offset, t.k_base_bytes),
        (regs.alpha_q8_8.offset, t.alpha_q8_8),
    ];
    let k_min = (regs.k_min_bytes.offset, t.k_min_bytes);
    let k_max = (regs.k_max_bytes.offset, t.k_max_bytes);
    if t.k_max_bytes >= current_k_max {
        writes.extend([k_max, k_min]);
    } else {
        writes.extend([k_min, k_max]);
    }
    writes
}

/// Patterns the scratch test writes: both polarities, alternating bits, then a
/// walking one.
fn scratch_patterns() -> impl Iterator<Item = u32> {
    [
        0x0000_0000,
        0xffff_ffff,
        0xa5a5_a5a5,
        0x5a5a_5a5a,
        0x1234_5678,
    ]
    .into_iter()
    .chain((0..32).map(|bit| 1u32 << bit))
}

/// A cngw device on a register bus.
#[derive(Debug)]
pub struct Device<B: RegisterBus> {
    bus: B,
    version: Version,
    capabilities: Capabilities,
    /// The flow-command port as this driver left it (`crate::flows`).
    pub(crate) flow_state: CommandState,
    pub(crate) flow_poll_limit: u32,
}

impl<B: RegisterBus> Device<B> {
    /// Checks ID and the register-map major version and reads CAPABILITIES.
    /// Writes nothing.
    pub fn open(mut bus: B) -> Result<Device<B>, DeviceError> {
        let id = bus.read32(offset::ID)?;
        if id == u32::MAX {
            return Err(BusError::DeviceGone { offset: offset::ID }.into());
        }
        if id != DEVICE_ID {
            return Err(DeviceError::WrongId { found: id });
        }
        let version = Version::from_raw(bus.read32(offset::VERSION)?);
        if version.major != SUPPORTED_MAJOR {
            return Err(DeviceError::VersionMismatch { found: version });
        }
        let capabilities = Capabilities(bus.read32(offset::CAPABILITIES)?);
        Ok(Device {
            bus,
            version,
            capabilities,
            flow_state: CommandState::Unknown,
            flow_poll_limit: DEFAULT_POLL_LIMIT,
        })
    }

    pub fn version(&self) -> Version {
        self.version
    }

    pub fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    /// Number of WAN egress ports, from CAPABILITIES.
    pub fn num_ports(&self) -> u32 {
        self.capabilities.num_ports()
    }

    pub fn bus(&self) -> &B {
        &self.bus
    }

    /// The bus itself, for raw accesses outside the typed API.
    pub fn bus_mut(&mut self) -> &mut B {
        &mut self.bus
    }

    pub fn into_bus(self) -> B {
        self.bus
    }

    /// Reads one register.
    pub fn read(&mut self, reg: &Register) -> Result<u32, DeviceError> {
        Ok(self.bus.read32(reg.offset)?)
    }

    /// Checks a write against the register map ([`check_write`]) and against
    /// this device: FEATURE_ENABLE may only set features CAPABILITIES lists.
    pub fn check(&self, reg: &'static Register, value: u32) -> Result<(), DeviceError> {
        check_write(reg, value)?;
        if reg.offset == register("FEATURE_ENABLE").offset {
            let available = self.capabilities().features();
            let absent = feature_names(value & !available);
            if !absent.is_empty() {
                return Err(DeviceError::FeatureAbsent { absent, available });
            }
        }
        Ok(())
    }

    /// Writes one register after [`Device::check`].
    pub fn write(&mut self, reg: &'static Register, value: u32) -> Result<(), DeviceError> {
        self.check(reg, value)?;
        Ok(self.bus.write32(reg.offset, value)?)
    }

    /// Reads a register by name (case-insensitive).
    pub fn read_by_name(&mut self, name: &str) -> Result<u32, DeviceError> {
        let reg = by_name(name).ok_or_else(|| DeviceError::UnknownRegister(name.to_string()))?;
        self.read(reg)
    }

    /// Writes a register by name (case-insensitive) after [`check_write`].
    pub fn write_by_name(&mut self, name: &str, value: u32) -> Result<(), DeviceError> {
        let reg = by_name(name).ok_or_else(|| DeviceError::UnknownRegister(name.to_string()))?;
        self.write(reg, value)
    }

    /// Writes the register at `offset` after [`check_write`].
    pub fn write_offset(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
        let reg = by_offset(offset).ok_or(BusError::Unmapped { offset })?;
        self.write(reg, value)
    }

    /// The FEATURE_ENABLE bits.
    pub fn features(&mut self) -> Result<u32, DeviceError> {
        self.read(register("FEATURE_ENABLE"))
    }

    /// Replaces the FEATURE_ENABLE bits (see [`feature_bit`]).
    pub fn set_features(&mut self, bits: u32) -> Result<(), DeviceError> {
        self.write(register("FEATURE_ENABLE"), bits)
    }

    /// Writes patterns to SCRATCH and reads each back, then restores its value.
    pub fn scratch_test(&mut self) -> Result<(), DeviceError> {
        let scratch = register("SCRATCH");
        let saved = self.read(scratch)?;
        let mut result = Ok(());
        for pattern in scratch_patterns() {
            self.write(scratch, pattern)?;
            let read = self.read(scratch)?;
            if read != pattern {
                result = Err(DeviceError::ScratchMismatch {
                    wrote: pattern,
                    read,
                });
                break;
            }
        }
        self.write(scratch, saved)?;
        result
    }

    /// Every volatile register (counters and status), by name.
    pub fn counters(&mut self) -> Result<Vec<(&'static str, u32)>, DeviceError> {
        REGISTERS
            .iter()
            .filter(|r| r.volatile)
            .map(|r| Ok((r.name, self.read(r)?)))
            .collect()
    }

    /// Pulses CONTROL.clear_counters.
    pub fn clear_counters(&mut self) -> Result<(), DeviceError> {
        let control = register("CONTROL");
        self.write(control, field_of(control, "clear_counters").mask())
    }

    /// Every register and its value, in offset order (write-pulse registers read as 0).
    pub fn dump(&mut self) -> Result<Vec<(&'static Register, u32)>, DeviceError> {
        REGISTERS
            .iter()
            .map(|r| {
                let value = match r.access {
                    Access::WritePulse => 0,
                    Access::ReadOnly | Access::ReadWrite => self.read(r)?,
                };
                Ok((r, value))
            })
            .collect()
    }

    /// The registers of `port`, after checking the device has that port.
    pub fn port_registers(&self, port: u32) -> Result<PortRegisters, DeviceError> {
        let num_ports = self.num_ports();
        if port >= num_ports {
            return Err(DeviceError::PortOutOfRange { port, num_ports });
        }
        port_registers(port).ok_or(DeviceError::NoPortRegisters { port })
    }

    /// The LH-03 values programmed into `port`.
    pub fn port_thresholds(&mut self, port: u32) -> Result<Thresholds, DeviceError> {
        let regs = self.port_registers(port)?;
        Ok(Thresholds {
            rate_mbps: self.read(regs.rate_mbps)?,
            rtt_est_us: self.read(regs.rtt_est_us)?,
            k_base_bytes: self.read(regs.k_base_bytes)?,
            alpha_q8_8: self.read(regs.alpha_q8_8)?,
            k_min_bytes: self.read(regs.k_min_bytes)?,
            k_max_bytes: self.read(regs.k_max_bytes)?,
        })
    }

    /// Computes LH-03 thresholds and programs them into `port` (see
    /// [`threshold_writes`] for the order). Validates the port and the values
    /// before the first write.
    pub fn set_port_thresholds(
        &mut self,
        port: u32,
        input: &ThresholdInput,
    ) -> Result<Thresholds, DeviceError> {
        let regs = self.port_registers(port)?;
        let thresholds = compute_thresholds(input)?;
        let current_k_max = self.read(regs.k_max_bytes)?;
        for (offset, value) in threshold_writes(&regs, &thresholds, current_k_max) {
            self.write_offset(offset, value)?;
        }
        Ok(thresholds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::MemBus;
    use std::time::Duration;

    fn open() -> Device<MemBus> {
        Device::open(MemBus::new()).unwrap()
    }

    #[test]
    fn hw_04_open_reads_the_self_describing_header() {
        let mut dev = open();
        assert_eq!(dev.version(), Version { major: 1, minor: 0 });
        assert_eq!(dev.num_ports(), 1);
        assert!(dev.capabilities().parser());
        assert_eq!(dev.capabilities().names(), ["parser"]);
        assert!(dev.bus().write_log().is_empty(), "open must not write");
        assert_eq!(dev.read_by_name("id").unwrap(), DEVICE_ID);
    }

    #[test]
    fn hw_04_open_rejects_a_wrong_id() {
        let mut bus = MemBus::new();
        bus.poke(offset::ID, 0x1234_5678);
        let err = Device::open(bus).unwrap_err();
        assert!(
            matches!(err, DeviceError::WrongId { found: 0x1234_5678 }),
            "{err}"
        );
        assert!(err.to_string().contains("not a cngw device"), "{err}");
    }

    #[test]
    fn hw_04_open_treats_all_ones_id_as_device_gone() {
        let mut bus = MemBus::new();
        bus.poke(offset::ID, u32::MAX);
        let err = Device::open(bus).unwrap_err();
        assert!(
            matches!(err, DeviceError::Bus(BusError::DeviceGone { .. })),
            "{err}"
        );
    }

    #[test]
    fn hw_04_open_rejects_another_major_version() {
        let mut bus = MemBus::new();
        bus.poke(offset::VERSION, 0x0002_0000);
        let err = Device::open(bus).unwrap_err();
        assert!(
            matches!(
                err,
                DeviceError::VersionMismatch {
                    found: Version { major: 2, minor: 0 }
                }
            ),
            "{err}"
        );
        // A newer minor version only adds registers.
        let mut bus = MemBus::new();
        bus.poke(offset::VERSION, 0x0001_0007);
        assert_eq!(Device::open(bus).unwrap().version().to_string(), "1.7");
    }

    #[test]
    fn hw_04_features_absent_from_capabilities_are_refused() {
        // This bitstream implements every feature; a device built before
        // Rate Advice lists lh_ecn_mark, lh_cnp, fast_cnp, pre_ecn and
        // proxy_cn, not rate_advice.
        let mut bus = MemBus::new();
        let caps = bus.peek(offset::CAPABILITIES).unwrap();
        bus.poke(
            offset::CAPABILITIES,
            caps & !(feature_bit("rate_advice").unwrap() << cngw_regmap::capability::FEATURES_LSB),
        );
        let mut dev = Device::open(bus).unwrap();
        dev.set_features(feature_bit("lh_ecn_mark").unwrap() | feature_bit("lh_cnp").unwrap())
            .unwrap();
        dev.bus_mut().clear_log();
        let bits = feature_bit("rate_advice").unwrap();
        let err = dev.set_features(bits).unwrap_err();
        assert!(matches!(err, DeviceError::FeatureAbsent { .. }), "{err}");
        assert!(dev.bus().write_log().is_empty(), "nothing written");
    }

    #[test]
    fn hw_04_features_by_name() {
        // A device whose CAPABILITIES list every feature.
        let mut bus = MemBus::new();
        let caps = bus.peek(offset::CAPABILITIES).unwrap();
        bus.poke(
            offset::CAPABILITIES,
            caps | 0x3f << cngw_regmap::capability::FEATURES_LSB,
        );
        let mut dev = Device::open(bus).unwrap();
        assert_eq!(
            dev.features().unwrap(),
            0,
            "every feature is off after reset"
        );
        let bits = feature_bit("lh_ecn_mark").unwrap() | feature_bit("LH_CNP").unwrap();
        dev.set_features(bits).unwrap();
        assert_eq!(
            feature_names(dev.features().unwrap()),
            ["lh_ecn_mark", "lh_cnp"]
        );
        assert!(matches!(
            feature_bit("warp_drive"),
            Err(DeviceError::UnknownFeature { .. })
        ));
        assert!(matches!(
            dev.set_features(1 << 31),
            Err(DeviceError::UndefinedBits { .. })
        ));
    }

    #[test]
    fn hw_04_read_and_write_by_name() {
        let mut dev = open();
        dev.write_by_name("scratch", 0x1234).unwrap();
        assert_eq!(dev.read_by_name("SCRATCH").unwrap(), 0x1234);
        assert!(matches!(
            dev.write_by_name("VERSION", 1),
            Err(DeviceError::ReadOnly("VERSION"))
        ));
        assert!(matches!(
            dev.read_by_name("nope"),
            Err(DeviceError::UnknownRegister(_))
        ));
        assert!(matches!(
            dev.write_offset(0x18, 0),
            Err(DeviceError::Bus(BusError::Unmapped { offset: 0x18 }))
        ));
    }

    #[test]
    fn hw_04_scratch_test_restores_the_value() {
        let mut dev = open();
        dev.write_by_name("SCRATCH", 0xcafe).unwrap();
        dev.scratch_test().unwrap();
        assert_eq!(dev.read_by_name("SCRATCH").unwrap(), 0xcafe);
    }

    /// A bus whose SCRATCH has a stuck-at-0 bit 5.
    struct StuckBit(MemBus);

    impl RegisterBus for StuckBit {
        fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
            let value = self.0.read32(offset)?;
            Ok(if offset == offset::SCRATCH {
                value & !(1 << 5)
            } else {
                value
            })
        }

        fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
            self.0.write32(offset, value)
        }
    }

    #[test]
    fn hw_04_scratch_test_finds_a_stuck_bit() {
        let mut dev = Device::open(StuckBit(MemBus::new())).unwrap();
        let err = dev.scratch_test().unwrap_err();
        assert!(
            matches!(
                err,
                DeviceError::ScratchMismatch {
                    wrote: 0xffff_ffff,
                    read: 0xffff_ffdf
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn hw_04_counters_dump_and_clear() {
        let mut dev = open();
        dev.bus_mut().poke(offset::DC_RX_FRAMES, 10);
        dev.bus_mut().poke(offset::WAN_TX_FRAMES, 9);
        let counters = dev.counters().unwrap();
        assert_eq!(
            counters.len(),
            REGISTERS.iter().filter(|r| r.volatile).count()
        );
        assert!(counters.contains(&("DC_RX_FRAMES", 10)));
        assert!(counters.contains(&("WAN_TX_FRAMES", 9)));
        dev.clear_counters().unwrap();
        assert!(dev.counters().unwrap().iter().all(|&(_, v)| v == 0));
        let dump = dev.dump().unwrap();
        assert_eq!(dump.len(), REGISTERS.len());
        assert_eq!(dump[0].0.name, "ID");
        assert_eq!(dump[0].1, DEVICE_ID);
    }

    #[test]
    fn lh_03_set_port_thresholds_programs_the_port() {
        let mut dev = open();
        let input = ThresholdInput::new(25_000_000_000, Duration::from_micros(500), 1.5, 64 * 1024);
        let t = dev.set_port_thresholds(0, &input).unwrap();
        // 1.5 * 25e9 * 500e-6 / 8 = 2,343,750 bytes.
        assert_eq!(t.k_max_bytes, 2_343_750);
        assert_eq!(t.k_min_bytes, 1_171_875);
        assert_eq!(dev.port_thresholds(0).unwrap(), t);
        assert_eq!(dev.read_by_name("PORT0_ALPHA_Q8_8").unwrap(), 0x180);
        assert_eq!(dev.read_by_name("PORT0_RATE_MBPS").unwrap(), 25_000);
        assert_eq!(dev.read_by_name("PORT0_RTT_EST_US").unwrap(), 500);
    }

    /// Records whether K_min >= K_max was ever visible on the bus.
    fn assert_order_keeps_k_min_below_k_max(writes: &[(u32, u32)], mut k_min: u32, mut k_max: u32) {
        for &(offset, value) in writes {
            if offset == offset::PORT0_K_MIN_BYTES {
                k_min = value;
            }
            if offset == offset::PORT0_K_MAX_BYTES {
                k_max = value;
            }
            assert!(
                k_min < k_max,
                "K_min {k_min} >= K_max {k_max} after writing {offset:#x}"
            );
        }
    }

    #[test]
    fn lh_03_threshold_writes_keep_k_min_below_k_max() {
        let mut dev = open();
        // Grow far above the reset values, then shrink far below them.
        let grow = ThresholdInput::new(400_000_000_000, Duration::from_millis(20), 1.0, 65_536);
        dev.set_port_thresholds(0, &grow).unwrap();
        assert_order_keeps_k_min_below_k_max(dev.bus().write_log(), 62_500_000, 125_000_000);
        assert_eq!(dev.port_thresholds(0).unwrap().k_max_bytes, 1_000_000_000);
        dev.bus_mut().clear_log();
        let shrink = ThresholdInput::new(10_000_000_000, Duration::from_micros(100), 1.0, 65_536);
        dev.set_port_thresholds(0, &shrink).unwrap();
        assert_order_keeps_k_min_below_k_max(dev.bus().write_log(), 500_000_000, 1_000_000_000);
        assert_eq!(dev.port_thresholds(0).unwrap().k_max_bytes, 125_000);
    }

    #[test]
    fn lh_03_bad_port_or_thresholds_write_nothing() {
        let mut dev = open();
        let input = ThresholdInput::new(100_000_000_000, Duration::from_millis(10), 1.0, 65_536);
        let err = dev.set_port_thresholds(1, &input).unwrap_err();
        assert!(
            matches!(
                err,
                DeviceError::PortOutOfRange {
                    port: 1,
                    num_ports: 1
                }
            ),
            "{err}"
        );
        let overflow = ThresholdInput {
            rtt: Duration::from_secs(1),
            ..input
        };
        let err = dev.set_port_thresholds(0, &overflow).unwrap_err();
        assert!(
            matches!(
                err,
                DeviceError::Threshold(ThresholdError::Overflow {
                    quantity: "k_max",
                    ..
                })
            ),
            "{err}"
        );
        assert!(dev.bus().write_log().is_empty());
    }
}
