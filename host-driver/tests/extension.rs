//! LH-12 / LH-13: the `[longhaul.extension]` configuration (extension
//! objects of Long-haul CNPs and the time of day) is validated completely
//! before the first write; applying it writes the objects' registers and,
//! with the timestamp object on, sets the gateway's time of day from the
//! host's clock before FEATURE_ENABLE.

use cngw_driver::config::{apply_config, Config, ConfigError};
use cngw_driver::extension::{ntp_time, ExtensionObjects};
use cngw_driver::{Device, MemBus};
use cngw_regmap::{ext_control, offset, tod_control};
use std::time::SystemTime;

const CONFIG: &str = r#"
features = ["lh_cnp"]
[longhaul.extension]
timestamp = true
device_id = "gw-paris-1"
path_id = "0a0b0c0d"
class_num = 200
clock_hz = 250000000
"#;

fn rejected(text: &str) -> Vec<String> {
    let mut dev = Device::open(MemBus::new()).unwrap();
    let err = Config::parse(text)
        .and_then(|config| apply_config(&mut dev, &config))
        .expect_err("configuration should be rejected");
    assert!(
        dev.bus().write_log().is_empty(),
        "a rejected configuration wrote {:?}",
        dev.bus().write_log()
    );
    match err {
        ConfigError::Invalid { issues } => issues.iter().map(|i| i.to_string()).collect(),
        other => vec![other.to_string()],
    }
}

#[test]
fn lh_12_config_extension_objects_plan_and_apply() {
    let mut bus = MemBus::new();
    // What the device latches on LH_TOD_CONTROL.capture: 100.25 s of uptime.
    bus.poke(offset::LH_TOD_UPTIME_SECONDS, 100);
    bus.poke(offset::LH_TOD_UPTIME_FRACTION, 0x4000_0000);
    let mut dev = Device::open(bus).unwrap();
    let config = Config::parse(CONFIG).unwrap();
    let before = ntp_time(SystemTime::now());
    let plan = apply_config(&mut dev, &config).unwrap();
    let after = ntp_time(SystemTime::now());
    assert!(plan.set_time_of_day);
    let text = plan.to_string();
    assert!(text.contains("LH_EXT_CONTROL @ 0x500 <- "), "{text}");
    assert!(text.contains("time of day <- the host's clock"), "{text}");

    let control = 200 << ext_control::CLASS_NUM_LSB
        | 10 << ext_control::DEVICE_ID_LEN_LSB
        | 4 << ext_control::PATH_ID_LEN_LSB
        | ext_control::TIMESTAMP
        | ext_control::DEVICE_ID
        | ext_control::PATH_ID;
    let increment = tod_control::increment_for(250_000_000) as u32;
    assert_eq!(increment, 288_230_376, "round(2^56 / 250 MHz)");
    let log = dev.bus().write_log().to_vec();
    let uptime = 100u64 << 32 | 0x4000_0000;
    let base_fraction = log
        .iter()
        .find(|(o, _)| *o == offset::LH_TOD_BASE_FRACTION)
        .unwrap()
        .1;
    let base_seconds = log
        .iter()
        .find(|(o, _)| *o == offset::LH_TOD_BASE_SECONDS)
        .unwrap()
        .1;
    let base = u64::from(base_seconds) << 32 | u64::from(base_fraction);
    assert!(
        (before.wrapping_sub(uptime)..=after.wrapping_sub(uptime)).contains(&base),
        "base {base:#x}: the host's time minus the uptime"
    );
    assert_eq!(
        log,
        [
            (offset::LH_EXT_CONTROL, control),
            (offset::LH_EXT_DEVICE_ID_0, u32::from_be_bytes(*b"gw-p")),
            (offset::LH_EXT_DEVICE_ID_1, u32::from_be_bytes(*b"aris")),
            (offset::LH_EXT_DEVICE_ID_2, u32::from_be_bytes(*b"-1\0\0")),
            (offset::LH_EXT_DEVICE_ID_3, 0),
            (offset::LH_EXT_PATH_ID_0, 0x0A0B_0C0D),
            (offset::LH_EXT_PATH_ID_1, 0),
            (offset::LH_TOD_INCREMENT, increment),
            // The time of day after every register, before the features.
            (offset::LH_TOD_CONTROL, tod_control::CAPTURE),
            (offset::LH_TOD_BASE_FRACTION, base_fraction),
            (offset::LH_TOD_BASE_SECONDS, base_seconds),
            (offset::LH_TOD_CONTROL, tod_control::SET),
            (offset::FEATURE_ENABLE, cngw_regmap::feature::LH_CNP),
        ]
    );
}

/// Without the timestamp object the clock is left alone; an empty table
/// switches every object off (the state after reset).
#[test]
fn lh_12_config_without_timestamp_leaves_the_clock_alone() {
    let mut dev = Device::open(MemBus::new()).unwrap();
    let config = Config::parse("[longhaul.extension]\npath_id = \"0x01\"\n").unwrap();
    let plan = apply_config(&mut dev, &config).unwrap();
    assert!(!plan.set_time_of_day);
    assert!(dev
        .bus()
        .write_log()
        .iter()
        .all(|(o, _)| !matches!(*o, offset::LH_TOD_CONTROL | offset::LH_TOD_INCREMENT)));
    assert_eq!(
        dev.read_by_name("LH_EXT_CONTROL").unwrap(),
        247 << 8 | 1 << 24 | ext_control::PATH_ID
    );
    let mut dev = Device::open(MemBus::new()).unwrap();
    let plan = apply_config(&mut dev, &Config::parse("[longhaul.extension]\n").unwrap()).unwrap();
    assert_eq!(
        plan.writes,
        ExtensionObjects::default().writes().unwrap(),
        "no objects, identifiers zeroed"
    );
}

/// Every bad value is named with its key, all at once, and nothing is
/// written: identifiers too long (17 bytes of UTF-8, 9 bytes of hex) or
/// empty, a path identifier that is not hex, a Class-Num outside 0..=255,
/// a clock without a 32-bit increment, wrong types, unknown keys.
#[test]
fn lh_12_config_rejects_bad_extension_settings_before_any_write() {
    let issues = rejected(
        r#"
        [longhaul.extension]
        timestamp = true
        device_id = "gw-paris-1-ßßßß"
        path_id = "000102030405060708"
        class_num = 256
        clock_hz = 16777216
        "#,
    );
    assert_eq!(issues.len(), 4, "{issues:#?}");
    assert!(
        issues[0].starts_with("longhaul.extension.device_id: "),
        "{issues:#?}"
    );
    assert!(issues[0].contains("19 bytes"), "{issues:#?}");
    assert!(
        issues[1].starts_with("longhaul.extension.path_id: "),
        "{issues:#?}"
    );
    assert!(issues[1].contains("9 bytes"), "{issues:#?}");
    assert!(
        issues[2].starts_with("longhaul.extension.class_num: "),
        "{issues:#?}"
    );
    assert!(
        issues[3].starts_with("longhaul.extension.clock_hz: "),
        "{issues:#?}"
    );

    let issues = rejected(
        r#"
        features = ["lh_cnp"]
        [longhaul.extension]
        device_id = ""
        path_id = "0a0"
        class_num = -1
        "#,
    );
    assert_eq!(issues.len(), 2, "{issues:#?}");
    assert!(
        issues[0].starts_with("longhaul.extension.path_id: "),
        "{issues:#?}"
    );
    assert!(issues[0].contains("hex"), "{issues:#?}");
    assert!(
        issues[1].starts_with("longhaul.extension.class_num: "),
        "{issues:#?}"
    );
    // The empty identifier is reported once the values parse.
    let issues = rejected("[longhaul.extension]\ndevice_id = \"\"\n");
    assert!(issues[0].contains("empty"), "{issues:#?}");
    let issues = rejected("[longhaul.extension]\npath_id = \"zz\"\n");
    assert!(
        issues[0].starts_with("longhaul.extension.path_id: "),
        "{issues:#?}"
    );

    for text in [
        "[longhaul.extension]\ntimestamp = \"yes\"\n",
        "[longhaul.extension]\ndevice = \"gw\"\n",
        "[longhaul.extension]\npath_id = 12\n",
    ] {
        let issues = rejected(text);
        assert_eq!(issues.len(), 1, "{text}: {issues:#?}");
    }
    // A raw write of the same register clashes with the typed key.
    let issues =
        rejected("[longhaul.extension]\ntimestamp = true\n[registers]\nLH_EXT_CONTROL = 1\n");
    assert!(
        issues.iter().any(|i| i.contains("LH_EXT_CONTROL")),
        "{issues:#?}"
    );
}
