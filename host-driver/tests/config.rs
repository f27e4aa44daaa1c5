//! HW-04 / LH-03: TOML register settings are validated completely before the
//! first write, and applied in a safe order.

use cngw_driver::config::{apply, apply_config, Config, ConfigError, Plan};
use cngw_driver::{Device, DeviceError, MemBus};
use cngw_regmap::{feature, offset};

const EXAMPLE: &str = r#"
features = ["lh_ecn_mark"]          # names from the FEATURE_ENABLE fields
[port.0]
rate = "100G"
rtt = "10ms"
alpha = 1.0
k_base = "64K"
# k_min / k_max optional explicit overrides
[registers]                           # raw escape hatch by register name
SCRATCH = 0x1234
"#;

/// A device whose CAPABILITIES list every feature.
fn device() -> Device<MemBus> {
    let mut bus = MemBus::new();
    let caps = bus.peek(offset::CAPABILITIES).unwrap();
    bus.poke(
        offset::CAPABILITIES,
        caps | 0x3f << cngw_regmap::capability::FEATURES_LSB,
    );
    Device::open(bus).unwrap()
}

#[test]
fn hw_04_config_enabling_an_absent_feature_writes_nothing() {
    // This bitstream's own CAPABILITIES: lh_ecn_mark and lh_cnp, not fast_cnp yet.
    let mut dev = Device::open(MemBus::new()).unwrap();
    let config =
        Config::parse(&EXAMPLE.replace("\"lh_ecn_mark\"", "\"lh_ecn_mark\", \"fast_cnp\""))
            .unwrap();
    let err = apply_config(&mut dev, &config).unwrap_err();
    assert!(err.to_string().contains("fast_cnp"), "{err}");
    assert!(
        dev.bus().write_log().is_empty(),
        "{:?}",
        dev.bus().write_log()
    );
}

/// Applies `text` to a fresh device; returns the error and proves nothing was written.
fn rejected(text: &str) -> ConfigError {
    let mut dev = device();
    let result = Config::parse(text).and_then(|config| apply_config(&mut dev, &config));
    let err = result.expect_err("configuration should be rejected");
    assert!(
        dev.bus().write_log().is_empty(),
        "a rejected configuration wrote {:?}",
        dev.bus().write_log()
    );
    err
}

/// The issues of an `Invalid` error as "key: message" lines.
fn issues(err: &ConfigError) -> Vec<String> {
    match err {
        ConfigError::Invalid { issues } => issues.iter().map(|i| i.to_string()).collect(),
        other => panic!("expected Invalid, got {other}"),
    }
}

#[test]
fn hw_04_example_config_applies() {
    let mut dev = device();
    let config = Config::parse(EXAMPLE).unwrap();
    let plan = apply_config(&mut dev, &config).unwrap();
    assert_eq!(dev.read_by_name("SCRATCH").unwrap(), 0x1234);
    assert_eq!(dev.features().unwrap(), feature::LH_ECN_MARK);
    let t = dev.port_thresholds(0).unwrap();
    assert_eq!((t.k_min_bytes, t.k_max_bytes), (62_500_000, 125_000_000));
    assert_eq!(t.k_base_bytes, 65_536);
    // Raw registers first, features last.
    assert_eq!(plan.writes.first(), Some(&(offset::SCRATCH, 0x1234)));
    assert_eq!(plan.features, Some(feature::LH_ECN_MARK));
    assert_eq!(
        plan.bus_writes().last(),
        Some(&(offset::FEATURE_ENABLE, feature::LH_ECN_MARK))
    );
    assert_eq!(dev.bus().write_log(), plan.bus_writes().as_slice());
    assert!(
        plan.to_string()
            .contains("PORT0_RATE_MBPS @ 0x100 <- 100000 (0x186a0)"),
        "{plan}"
    );
}

#[test]
fn lh_03_config_overrides_and_integers() {
    let mut dev = device();
    let config = Config::parse(
        r#"
        [port.0]
        rate = 25000000000
        rtt = "500us"
        alpha = 2
        k_base = 65536
        k_min = "1M"
        k_max = "4M"
        "#,
    )
    .unwrap();
    apply_config(&mut dev, &config).unwrap();
    let t = dev.port_thresholds(0).unwrap();
    assert_eq!(
        (t.rate_mbps, t.rtt_est_us, t.alpha_q8_8),
        (25_000, 500, 0x200)
    );
    assert_eq!((t.k_min_bytes, t.k_max_bytes), (1 << 20, 4 << 20));
    // Features untouched when the key is absent.
    assert_eq!(dev.features().unwrap(), 0);

    let config = Config::parse(
        "[port.0]\nrate = \"10G\"\nrtt = \"1ms\"\nalpha = 1.0\nk_base = \"64K\"\nk_min_fraction = 0.25\n",
    )
    .unwrap();
    apply_config(&mut dev, &config).unwrap();
    let t = dev.port_thresholds(0).unwrap();
    assert_eq!((t.k_min_bytes, t.k_max_bytes), (312_500, 1_250_000));
}

#[test]
fn hw_04_empty_features_list_disables_everything() {
    let mut dev = device();
    dev.set_features(0x3f).unwrap();
    apply_config(&mut dev, &Config::parse("features = []").unwrap()).unwrap();
    assert_eq!(dev.features().unwrap(), 0);
}

#[test]
fn hw_04_config_rejects_unknown_keys() {
    let err = rejected("featurez = []");
    assert!(matches!(err, ConfigError::Parse { .. }), "{err}");
    assert!(err.to_string().contains("featurez"), "{err}");

    let err = rejected(
        "[port.0]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\nkbase = 1\n",
    );
    assert!(err.to_string().contains("kbase"), "{err}");

    let err = rejected("[port.0]\nrate = \"100G\"\n");
    assert!(err.to_string().contains("missing field `rtt`"), "{err}");
}

#[test]
fn hw_04_config_rejects_unknown_names_and_read_only_registers() {
    let err = rejected(
        r#"
        features = ["lh_ecn_mark", "warp_drive"]
        [registers]
        NO_SUCH_REG = 1
        VERSION = 2
        DC_RX_FRAMES = 0
        "#,
    );
    let issues = issues(&err);
    assert_eq!(issues.len(), 4, "{issues:#?}");
    assert!(
        issues
            .iter()
            .any(|i| i.starts_with("features: unknown feature \"warp_drive\"")),
        "{issues:#?}"
    );
    assert!(
        issues.contains(&"registers.NO_SUCH_REG: unknown register".to_string()),
        "{issues:#?}"
    );
    assert!(
        issues.contains(&"registers.VERSION: register VERSION is read-only".to_string()),
        "{issues:#?}"
    );
    assert!(
        issues
            .iter()
            .any(|i| i.starts_with("registers.DC_RX_FRAMES: ")),
        "{issues:#?}"
    );
    // Every problem is listed in the message.
    assert!(
        err.to_string().contains("warp_drive") && err.to_string().contains("NO_SUCH_REG"),
        "{err}"
    );
}

#[test]
fn hw_04_config_rejects_out_of_range_values() {
    let err = rejected(
        r#"
        [registers]
        SCRATCH = -1
        PORT0_RATE_MBPS = 0x100000000
        FEATURE_ENABLE = 0x40
        CONTROL = "1"
        "#,
    );
    let issues = issues(&err);
    assert_eq!(issues.len(), 4, "{issues:#?}");
    assert!(
        issues.contains(&"registers.SCRATCH: value -1 is out of range 0..=0xffffffff".to_string()),
        "{issues:#?}"
    );
    assert!(
        issues
            .iter()
            .any(|i| i.starts_with("registers.PORT0_RATE_MBPS: value 4294967296")),
        "{issues:#?}"
    );
    assert!(
        issues
            .iter()
            .any(|i| i.starts_with("registers.FEATURE_ENABLE: value 0x40 sets bits outside")),
        "{issues:#?}"
    );
    assert!(
        issues.contains(&"registers.CONTROL: expected an integer, found string".to_string()),
        "{issues:#?}"
    );
}

#[test]
fn lh_03_config_rejects_bad_port_values() {
    let err = rejected(
        r#"
        [port.0]
        rate = "100X"
        rtt = 10
        alpha = "one"
        k_base = -5
        "#,
    );
    let keys: Vec<String> = issues(&err)
        .iter()
        .map(|i| i.split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(
        keys,
        ["port.0.rate", "port.0.k_base", "port.0.rtt", "port.0.alpha"],
        "{err}"
    );
    assert!(
        err.to_string().contains("port.0.rtt: needs a unit"),
        "{err}"
    );

    // K_max of 400 Gb/s x 100 ms = 5 GB does not fit 32 bits.
    let err =
        rejected("[port.0]\nrate = \"400G\"\nrtt = \"100ms\"\nalpha = 1.0\nk_base = \"64K\"\n");
    assert_eq!(issues(&err).len(), 1);
    assert!(
        issues(&err)[0].starts_with("port.0.k_max: k_max = 5000000000 does not fit"),
        "{err}"
    );

    let err =
        rejected("[port.0]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 300.0\nk_base = \"64K\"\n");
    assert!(issues(&err)[0].starts_with("port.0.alpha: "), "{err}");

    let err = rejected("[port.0]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\nk_min = \"200M\"\n");
    assert!(
        issues(&err)[0].starts_with("port.0.k_min: k_min (209715200 bytes) must be below k_max"),
        "{err}"
    );

    let err = rejected(
        "[port.0]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\nk_min = 1\nk_min_fraction = 0.5\n",
    );
    assert!(
        issues(&err)[0].starts_with("port.0.k_min_fraction: give either"),
        "{err}"
    );
}

#[test]
fn hw_04_config_rejects_ports_the_device_lacks() {
    let err =
        rejected("[port.1]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\n");
    assert_eq!(
        issues(&err),
        ["port.1: the device has 1 WAN port(s), numbered from 0"]
    );
    let err =
        rejected("[port.x]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\n");
    assert_eq!(issues(&err), ["port.x: not a port number"]);
}

#[test]
fn hw_04_config_rejects_a_register_set_twice() {
    let err = rejected(
        "features = []\n[port.0]\nrate = \"100G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\n\
         [registers]\nPORT0_K_MIN_BYTES = 5\nfeature_enable = 1\n",
    );
    let issues = issues(&err);
    assert_eq!(issues.len(), 2, "{issues:#?}");
    assert!(
        issues[0].contains("PORT0_K_MIN_BYTES, which registers.PORT0_K_MIN_BYTES also sets"),
        "{issues:#?}"
    );
    assert!(
        issues[1].starts_with("features: sets FEATURE_ENABLE"),
        "{issues:#?}"
    );
}

#[test]
fn hw_04_apply_checks_the_plan_before_writing() {
    let mut dev = device();
    let too_many_ports = Plan {
        writes: vec![(offset::SCRATCH, 1)],
        ports_needed: 2,
        ..Default::default()
    };
    assert!(matches!(
        apply(&mut dev, &too_many_ports),
        Err(DeviceError::PortOutOfRange { .. })
    ));
    let read_only_last = Plan {
        writes: vec![(offset::SCRATCH, 1), (offset::ID, 0)],
        ..Default::default()
    };
    assert!(matches!(
        apply(&mut dev, &read_only_last),
        Err(DeviceError::ReadOnly("ID"))
    ));
    assert!(dev.bus().write_log().is_empty());
}

#[test]
fn hw_04_config_load_from_file() {
    let path = std::env::temp_dir().join(format!("cngw-driver-config-{}.toml", std::process::id()));
    std::fs::write(&path, EXAMPLE).unwrap();
    let config = Config::load(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(config.unwrap(), Config::parse(EXAMPLE).unwrap());

    let err = Config::load(&path).unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }), "{err}");
    assert!(err.to_string().contains("cngw-driver-config-"), "{err}");
}

#[test]
fn hw_04_plan_offline_without_a_device() {
    let config = Config::parse(EXAMPLE).unwrap();
    let plan = config
        .plan_with(1, |regs| Ok(regs.k_max_bytes.reset))
        .unwrap();
    assert_eq!(plan.ports_needed, 1);
    assert_eq!(plan.writes.len(), 1 + 6);
    assert_eq!(plan.register_writes().len(), 1 + 6 + 1);
    assert!(config
        .plan_with(0, |_| unreachable!("invalid configs read nothing"))
        .is_err());
}
