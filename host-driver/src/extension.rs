//! The optional extension objects of Long-haul CNPs (LH-12, LH-13) and the
//! gateway's time of day, checked and turned into register values here and
//! nowhere else.
//!
//! - [`ExtensionObjects`]: which objects notifications carry (`LH_EXT_CONTROL`:
//!   timestamp, device identifier, path identifier), their Class-Num, the
//!   identifiers (`LH_EXT_DEVICE_ID_*`, `LH_EXT_PATH_ID_*`) and, optionally,
//!   the core clock frequency that sets the time-of-day increment
//!   (`LH_TOD_INCREMENT`).
//! - [`Device::set_time_of_day`]: the gateway's time of day is its uptime
//!   (clocks since reset times the increment) plus a base; the driver
//!   captures the uptime (`LH_TOD_CONTROL.capture`), reads it, and sets the
//!   base to the host's time minus it (`LH_TOD_BASE_*`, then
//!   `LH_TOD_CONTROL.set`, so the new base takes effect whole).
//!
//! A setting replaces the whole extension configuration: objects it does not
//! name are switched off and their identifier registers zeroed. With no
//! object the notifications carry no extension structure (the draft: the
//! Extension Header MUST then be omitted).

use crate::bus::RegisterBus;
use crate::device::{Device, DeviceError};
use cngw_regmap::{ext_control, offset, tod_control};
use std::time::{SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// Seconds from the NTP era 0 (1900-01-01) to the Unix epoch (1970-01-01).
pub const NTP_UNIX_OFFSET: u64 = 2_208_988_800;
/// The slowest core clock whose increment fits `LH_TOD_INCREMENT`
/// (round(2^56 / f) < 2^32).
pub const CLOCK_HZ_MIN: u64 = (1 << 24) + 1;
/// The fastest core clock the driver accepts (the increment stays above 2^24).
pub const CLOCK_HZ_MAX: u64 = u32::MAX as u64;

/// An extension setting that cannot be programmed.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ExtensionError {
    #[error("the device identifier is empty: leave it out to send no device identifier object")]
    DeviceIdEmpty,
    #[error(
        "the device identifier {id:?} is {bytes} bytes of UTF-8; the registers hold at most {}",
        ext_control::DEVICE_ID_MAX
    )]
    DeviceIdTooLong { id: String, bytes: usize },
    #[error("the path identifier is empty: leave it out to send no path identifier object")]
    PathIdEmpty,
    #[error(
        "the path identifier is {bytes} bytes; the registers hold at most {}",
        ext_control::PATH_ID_MAX
    )]
    PathIdTooLong { bytes: usize },
    #[error("Class-Num {value} is outside 0..=255")]
    ClassNum { value: u32 },
    #[error(
        "a core clock of {hz} Hz has no time-of-day increment: give {CLOCK_HZ_MIN}..={CLOCK_HZ_MAX} Hz"
    )]
    ClockHz { hz: u64 },
}

/// Parses a path identifier written in hexadecimal (`"0a0b0c0d"`, an
/// optional `0x`): an even number of hex digits.
pub fn parse_hex_id(text: &str) -> Result<Vec<u8>, String> {
    let t = text.trim();
    let digits = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    if digits.is_empty() || digits.len() % 2 != 0 || !digits.chars().all(|c| c.is_ascii_hexdigit())
    {
        return Err(format!(
            "{text:?} is not an even number of hex digits such as \"0a0b0c0d\""
        ));
    }
    Ok((0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).expect("hex digits"))
        .collect())
}

/// Which extension objects Long-haul CNPs carry (both formats; a standard
/// CNP never carries any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionObjects {
    /// The timestamp object: the gateway's time of day when the notification
    /// was decided (set it with [`Device::set_time_of_day`]).
    pub timestamp: bool,
    /// The device identifier object: UTF-8, 1..=16 bytes.
    pub device_id: Option<String>,
    /// The path identifier object: opaque, 1..=8 bytes.
    pub path_id: Option<Vec<u8>>,
    /// Class-Num of the objects, 0..=255 (the draft's TBD2; default 247,
    /// private use).
    pub class_num: u32,
    /// The core clock in hertz, for `LH_TOD_INCREMENT`; `None` leaves the
    /// increment alone (reset: 322.265625 MHz).
    pub clock_hz: Option<u64>,
}

impl Default for ExtensionObjects {
    /// No objects, Class-Num 247: the state after reset.
    fn default() -> Self {
        ExtensionObjects {
            timestamp: false,
            device_id: None,
            path_id: None,
            class_num: ext_control::DEFAULT_CLASS_NUM,
            clock_hz: None,
        }
    }
}

impl ExtensionObjects {
    /// Every problem, each with its key (relative to `[longhaul.extension]`).
    pub fn check(&self) -> Vec<(String, ExtensionError)> {
        let mut problems = Vec::new();
        if let Some(id) = &self.device_id {
            if id.is_empty() {
                problems.push(("device_id".to_string(), ExtensionError::DeviceIdEmpty));
            } else if id.len() > ext_control::DEVICE_ID_MAX {
                problems.push((
                    "device_id".to_string(),
                    ExtensionError::DeviceIdTooLong {
                        id: id.clone(),
                        bytes: id.len(),
                    },
                ));
            }
        }
        if let Some(id) = &self.path_id {
            if id.is_empty() {
                problems.push(("path_id".to_string(), ExtensionError::PathIdEmpty));
            } else if id.len() > ext_control::PATH_ID_MAX {
                problems.push((
                    "path_id".to_string(),
                    ExtensionError::PathIdTooLong { bytes: id.len() },
                ));
            }
        }
        if self.class_num > 255 {
            problems.push((
                "class_num".to_string(),
                ExtensionError::ClassNum {
                    value: self.class_num,
                },
            ));
        }
        if let Some(hz) = self.clock_hz {
            if !(CLOCK_HZ_MIN..=CLOCK_HZ_MAX).contains(&hz) {
                problems.push(("clock_hz".to_string(), ExtensionError::ClockHz { hz }));
            }
        }
        problems
    }

    /// The register writes, in offset order; the first problem if any.
    pub fn writes(&self) -> Result<Vec<(u32, u32)>, ExtensionError> {
        if let Some((_, e)) = self.check().into_iter().next() {
            return Err(e);
        }
        let device = self.device_id.as_deref().unwrap_or("").as_bytes();
        let path = self.path_id.as_deref().unwrap_or(&[]);
        let mut control = self.class_num << ext_control::CLASS_NUM_LSB
            | (device.len() as u32) << ext_control::DEVICE_ID_LEN_LSB
            | (path.len() as u32) << ext_control::PATH_ID_LEN_LSB;
        if self.timestamp {
            control |= ext_control::TIMESTAMP;
        }
        if self.device_id.is_some() {
            control |= ext_control::DEVICE_ID;
        }
        if self.path_id.is_some() {
            control |= ext_control::PATH_ID;
        }
        let words = |bytes: &[u8], n: usize| -> Vec<u32> {
            let mut b = bytes.to_vec();
            b.resize(4 * n, 0);
            b.chunks(4)
                .map(|c| u32::from_be_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        let mut writes = vec![(offset::LH_EXT_CONTROL, control)];
        for (i, w) in words(device, 4).into_iter().enumerate() {
            writes.push((offset::LH_EXT_DEVICE_ID_0 + 4 * i as u32, w));
        }
        for (i, w) in words(path, 2).into_iter().enumerate() {
            writes.push((offset::LH_EXT_PATH_ID_0 + 4 * i as u32, w));
        }
        if let Some(hz) = self.clock_hz {
            writes.push((
                offset::LH_TOD_INCREMENT,
                tod_control::increment_for(hz) as u32,
            ));
        }
        writes.sort_by_key(|&(offset, _)| offset);
        Ok(writes)
    }
}

/// A system time in NTP format: seconds since 1900 in bits 63..32 (era 0,
/// wrapping in 2036 as NTP does), the fraction of a second in 31..0.
pub fn ntp_time(t: SystemTime) -> u64 {
    let since_unix = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since_unix.as_secs().wrapping_add(NTP_UNIX_OFFSET) & 0xFFFF_FFFF;
    let fraction = (u64::from(since_unix.subsec_nanos()) << 32) / 1_000_000_000;
    seconds << 32 | fraction
}

impl<B: RegisterBus> Device<B> {
    /// Programs the extension objects after checking them; an invalid
    /// setting writes nothing.
    pub fn set_extension(&mut self, objects: &ExtensionObjects) -> Result<(), DeviceError> {
        let writes = objects.writes()?;
        for &(off, value) in &writes {
            let reg = cngw_regmap::by_offset(off).expect("extension writes name mapped registers");
            self.check(reg, value)?;
        }
        for (off, value) in writes {
            self.write_offset(off, value)?;
        }
        Ok(())
    }

    /// The gateway's uptime now (NTP 32.32): captured, then read.
    pub fn capture_uptime(&mut self) -> Result<u64, DeviceError> {
        self.write_offset(offset::LH_TOD_CONTROL, tod_control::CAPTURE)?;
        let seconds = self.bus_mut().read32(offset::LH_TOD_UPTIME_SECONDS)?;
        let fraction = self.bus_mut().read32(offset::LH_TOD_UPTIME_FRACTION)?;
        Ok(u64::from(seconds) << 32 | u64::from(fraction))
    }

    /// Sets the gateway's time of day: captures the uptime, asks `now` for
    /// the time (NTP 32.32) right after, and sets the base to `now - uptime`
    /// (fraction and seconds, then `LH_TOD_CONTROL.set`). Returns the base.
    /// The error is the bus latency between the capture and `now`.
    pub fn set_time_of_day(&mut self, now: impl FnOnce() -> u64) -> Result<u64, DeviceError> {
        let uptime = self.capture_uptime()?;
        let base = now().wrapping_sub(uptime);
        self.write_offset(offset::LH_TOD_BASE_FRACTION, base as u32)?;
        self.write_offset(offset::LH_TOD_BASE_SECONDS, (base >> 32) as u32)?;
        self.write_offset(offset::LH_TOD_CONTROL, tod_control::SET)?;
        Ok(base)
    }

    /// [`Device::set_time_of_day`] from the host's clock.
    pub fn set_time_of_day_from_system_clock(&mut self) -> Result<u64, DeviceError> {
        self.set_time_of_day(|| ntp_time(SystemTime::now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::MemBus;
    use std::time::Duration;

    #[test]
    fn lh_12_extension_objects_pack_into_the_registers() {
        let objects = ExtensionObjects {
            timestamp: true,
            device_id: Some("gw-paris-1".to_string()),
            path_id: Some(parse_hex_id("0a0b0c0d").unwrap()),
            class_num: 247,
            clock_hz: Some(322_265_625),
        };
        assert_eq!(
            objects.writes().unwrap(),
            [
                (offset::LH_EXT_CONTROL, 0x040A_F707),
                (offset::LH_EXT_DEVICE_ID_0, u32::from_be_bytes(*b"gw-p")),
                (offset::LH_EXT_DEVICE_ID_1, u32::from_be_bytes(*b"aris")),
                (offset::LH_EXT_DEVICE_ID_2, u32::from_be_bytes(*b"-1\0\0")),
                (offset::LH_EXT_DEVICE_ID_3, 0),
                (offset::LH_EXT_PATH_ID_0, 0x0A0B_0C0D),
                (offset::LH_EXT_PATH_ID_1, 0),
                (offset::LH_TOD_INCREMENT, tod_control::DEFAULT_INCREMENT),
            ]
        );
        // No object: LH_EXT_CONTROL as after reset, identifiers zeroed.
        let none = ExtensionObjects::default().writes().unwrap();
        assert_eq!(
            none[0],
            (
                offset::LH_EXT_CONTROL,
                cngw_regmap::by_name("LH_EXT_CONTROL").unwrap().reset
            )
        );
        assert!(none[1..].iter().all(|&(_, v)| v == 0));
        // Sixteen bytes of UTF-8 (multi-byte characters count as bytes).
        let ok = ExtensionObjects {
            device_id: Some("ßßßßßßßß".to_string()),
            path_id: Some(vec![0xFF; 8]),
            ..Default::default()
        };
        assert!(ok.check().is_empty());
        let mut dev = Device::open(MemBus::new()).unwrap();
        dev.set_extension(&ok).unwrap();
        assert_eq!(
            dev.read_by_name("LH_EXT_CONTROL").unwrap(),
            0x0810_F706,
            "device 16 bytes, path 8 bytes, Class-Num 247"
        );
    }

    #[test]
    fn lh_12_bad_extension_settings_are_listed_and_write_nothing() {
        let bad = ExtensionObjects {
            timestamp: true,
            device_id: Some("gateway-paris-01x".to_string()),
            path_id: Some(vec![0; 9]),
            class_num: 256,
            clock_hz: Some(1 << 24),
        };
        let keys: Vec<String> = bad.check().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["device_id", "path_id", "class_num", "clock_hz"]);
        let mut dev = Device::open(MemBus::new()).unwrap();
        let err = dev.set_extension(&bad).unwrap_err();
        assert!(err.to_string().contains("17 bytes"), "{err}");
        assert!(dev.bus().write_log().is_empty());
        let empty = ExtensionObjects {
            device_id: Some(String::new()),
            path_id: Some(Vec::new()),
            ..Default::default()
        };
        assert_eq!(
            empty.check(),
            [
                ("device_id".to_string(), ExtensionError::DeviceIdEmpty),
                ("path_id".to_string(), ExtensionError::PathIdEmpty)
            ]
        );
        for text in ["", "0a0", "0g", "0x", "0a 0b"] {
            assert!(parse_hex_id(text).is_err(), "{text:?}");
        }
        assert_eq!(parse_hex_id("0X0A0b"), Ok(vec![0x0A, 0x0B]));
        assert!(ExtensionObjects {
            clock_hz: Some(CLOCK_HZ_MIN),
            ..Default::default()
        }
        .check()
        .is_empty());
        assert!(tod_control::increment_for(CLOCK_HZ_MIN) <= u32::MAX as u64);
        assert!(tod_control::increment_for(CLOCK_HZ_MIN - 1) > u32::MAX as u64);
    }

    /// NTP time of known instants, and the base: host time minus the
    /// captured uptime, written fraction first, then the `set` strobe.
    #[test]
    fn lh_12_time_of_day_base_is_the_host_time_minus_the_uptime() {
        assert_eq!(ntp_time(UNIX_EPOCH), NTP_UNIX_OFFSET << 32);
        assert_eq!(
            ntp_time(UNIX_EPOCH + Duration::from_millis(1500)),
            (NTP_UNIX_OFFSET + 1) << 32 | 0x8000_0000
        );
        let mut bus = MemBus::new();
        bus.poke(offset::LH_TOD_UPTIME_SECONDS, 3);
        bus.poke(offset::LH_TOD_UPTIME_FRACTION, 0xC000_0000);
        let mut dev = Device::open(bus).unwrap();
        let now = 0xE000_0010_4000_0000u64;
        let base = dev.set_time_of_day(|| now).unwrap();
        assert_eq!(base, now - 0x0000_0003_C000_0000);
        let log = dev.bus().write_log().to_vec();
        assert_eq!(
            log,
            [
                (offset::LH_TOD_CONTROL, tod_control::CAPTURE),
                (offset::LH_TOD_BASE_FRACTION, base as u32),
                (offset::LH_TOD_BASE_SECONDS, (base >> 32) as u32),
                (offset::LH_TOD_CONTROL, tod_control::SET),
            ]
        );
    }
}
