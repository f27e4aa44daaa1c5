//! HW-04 / LH-03: TOML register settings are validated completely before the
//! first write, and applied in a safe order.

use cngw_driver::config::{apply, apply_config, Config, ConfigError, Plan};
use cngw_driver::{Device, DeviceError, MemBus};
use cngw_regmap::{feature, learn_control, meter_control, offset};

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
    // This bitstream implements every FEATURE_ENABLE bit; a device built
    // before Rate Advice (CAPABILITIES without rate_advice) must refuse it.
    let mut bus = MemBus::new();
    let caps = bus.peek(offset::CAPABILITIES).unwrap();
    bus.poke(
        offset::CAPABILITIES,
        caps & !(feature::RATE_ADVICE << cngw_regmap::capability::FEATURES_LSB),
    );
    let mut dev = Device::open(bus).unwrap();
    let config = Config::parse(&format!(
        "{}\n[rate_advice]\ncapable = [\"::/0\"]\n",
        EXAMPLE.replace("\"lh_ecn_mark\"", "\"lh_ecn_mark\", \"rate_advice\"")
    ))
    .unwrap();
    let err = apply_config(&mut dev, &config).unwrap_err();
    assert!(err.to_string().contains("rate_advice"), "{err}");
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

const SECOND_LEVEL: &str = r#"
features = ["lh_ecn_mark", "lh_cnp"]
[longhaul]
interval = "2ms"
options = ["ipv4_longhaul", "hide_metric"]
dscp = 26
bucket = { refill_clocks = 1000, depth = 4 }
resume = { level = 20, parameter = 0 }
[[longhaul.severity]]
level = 180
action = "rate_reduce"
parameter = 30
[[longhaul.severity]]
threshold = "200M"
level = 220
action = "pause"
parameter = "100us"
[gateway]
mac = "02:c0:6e:00:00:01"
ipv4 = "10.0.1.1"
ipv6 = "fd00::1"
clocks_per_us = 250
[flows]
age_timeout = "10s"
static = [
  { src = "10.0.0.1", dst = "10.0.0.4", dqp = 200, sqp = 100 },
  { src = "fd00::1", dst = "fd00::4", dqp = 0xFFFFFF, sqp = 7 },
]
"#;

#[test]
fn lh_07_config_second_level_gateway_and_flows_plan() {
    use cngw_driver::flows::flow_key;
    let config = Config::parse(SECOND_LEVEL).unwrap();
    let plan = config.plan_with(1, |_| unreachable!("no ports")).unwrap();
    assert_eq!(
        plan.writes,
        [
            (offset::PORT0_FLOW_INTERVAL_US, 2000),
            (offset::CLOCKS_PER_US, 250),
            (offset::LH_BUCKET_REFILL_CLOCKS, 1000),
            (offset::LH_BUCKET_DEPTH, 4),
            (offset::LH_OPTIONS, 0b011),
            (offset::LH_SEV0_ACTION, 0xB480_001E),
            (offset::LH_SEV1_THRESHOLD_BYTES, 200 << 20),
            (offset::LH_SEV1_ACTION, 0xDC40_0064),
            (offset::LH_SEV2_THRESHOLD_BYTES, 0xFFFF_FFFF),
            (offset::LH_RESUME_ACTION, 0x14C0_0000),
            (offset::NOTIFY_DSCP, 26),
            (offset::GW_MAC_HI, 0x02C0),
            (offset::GW_MAC_LO, 0x6E00_0001),
            (offset::GW_IPV4, 0x0A00_0101),
            (offset::GW_IPV6_0, 0xFD00_0000),
            (offset::GW_IPV6_1, 0),
            (offset::GW_IPV6_2, 0),
            (offset::GW_IPV6_3, 1),
            (offset::FLOW_AGE_TIMEOUT_US, 10_000_000),
        ]
    );
    let key = |s: &str, d: &str, q| flow_key(s.parse().unwrap(), d.parse().unwrap(), q).unwrap();
    assert_eq!(
        plan.flows,
        [
            cngw_driver::config::StaticFlow {
                key: key("10.0.0.1", "10.0.0.4", 200),
                sqp: 100
            },
            cngw_driver::config::StaticFlow {
                key: key("fd00::1", "fd00::4", 0xFF_FFFF),
                sqp: 7
            },
        ]
    );
    assert_eq!(plan.features, Some(feature::LH_ECN_MARK | feature::LH_CNP));
    // Registers, then each flow's key, SQP and command, then FEATURE_ENABLE.
    let bus = plan.bus_writes();
    assert_eq!(bus.len(), 19 + 2 * 11 + 1);
    assert_eq!(bus[19 + 10], (offset::FLOW_COMMAND, 2));
    assert_eq!(bus.last(), Some(&(offset::FEATURE_ENABLE, 3)));
    let text = plan.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[19],
        "flow 10.0.0.1 -> 10.0.0.4 DQP 200 <- SQP 100 (static)"
    );
    assert_eq!(
        lines[20],
        "flow fd00::1 -> fd00::4 DQP 16777215 <- SQP 7 (static)"
    );
    assert!(
        lines[21].starts_with("FEATURE_ENABLE @ 0x010 <- 3"),
        "{text}"
    );

    // "rtt" and "off" are the register value 0.
    let config =
        Config::parse("[longhaul]\ninterval = \"rtt\"\n[flows]\nage_timeout = \"off\"\n").unwrap();
    let plan = config.plan_with(1, |_| unreachable!()).unwrap();
    assert_eq!(
        plan.writes,
        [
            (offset::PORT0_FLOW_INTERVAL_US, 0),
            (offset::FLOW_AGE_TIMEOUT_US, 0)
        ]
    );
}

#[test]
fn lh_07_config_rejects_bad_severity_rows_and_resume() {
    let err = rejected(
        r#"
        [longhaul]
        resume = { level = 256, parameter = 50 }
        [[longhaul.severity]]
        threshold = "1M"
        level = 180
        action = "rate_reduce"
        parameter = 130
        [[longhaul.severity]]
        level = 200
        action = "slow_down"
        [[longhaul.severity]]
        threshold = "100M"
        level = 220
        action = "pause"
        parameter = 100
        [[longhaul.severity]]
        threshold = "300M"
        level = 250
        action = "notify"
        "#,
    );
    assert_eq!(
        issues(&err),
        [
            "longhaul.resume.level: 256 is outside 0..=255",
            "longhaul.severity[1].action: unknown action \"slow_down\" (use notify, pause or rate_reduce)",
            "longhaul.severity[2].parameter: needs a unit, e.g. \"100us\"",
        ]
    );
    // Once every value parses, the rules between them.
    let err = rejected(
        r#"
        [longhaul]
        resume = { level = 20, parameter = 101 }
        [[longhaul.severity]]
        threshold = "1M"
        level = 180
        action = "rate_reduce"
        parameter = 130
        [[longhaul.severity]]
        threshold = "300M"
        level = 220
        action = "resume"
        parameter = 10
        [[longhaul.severity]]
        threshold = "100M"
        level = 250
        action = "pause"
        parameter = "70ms"
        [[longhaul.severity]]
        threshold = "400M"
        level = 250
        action = "notify"
        parameter = 1
        "#,
    );
    assert_eq!(
        issues(&err),
        [
            "longhaul.severity[2].parameter: pause 70ms is more than the 65535 us the register holds",
        ],
        "the pause duration is checked while parsing"
    );
    let err = rejected(
        r#"
        [longhaul]
        resume = { level = 20, parameter = 101 }
        [[longhaul.severity]]
        threshold = "1M"
        level = 180
        action = "rate_reduce"
        parameter = 130
        [[longhaul.severity]]
        threshold = "300M"
        level = 220
        action = "resume"
        parameter = 10
        [[longhaul.severity]]
        threshold = "100M"
        level = 250
        action = "pause"
        parameter = "65535us"
        [[longhaul.severity]]
        threshold = "400M"
        level = 250
        action = "notify"
        parameter = 1
        "#,
    );
    assert_eq!(
        issues(&err),
        [
            "longhaul.severity: 4 severity rows given: the table has rows 0..=2",
            "longhaul.severity[0].parameter: rate_reduce takes a percentage of 0..=100, not 130",
            "longhaul.severity[0].threshold: row 0 applies whenever the queue is above K_max and takes no threshold",
            "longhaul.severity[1].action: row 1: resume is not a severity action (the Resume action is its own setting)",
            "longhaul.severity[3].parameter: notify takes no parameter (0), not 1",
            "longhaul.severity[2].threshold: row 2's threshold (104857600 bytes) must be above row 1's (314572800 bytes)",
            "longhaul.resume.parameter: resume takes a percentage of 0..=100, not 101",
        ]
    );
    let err = rejected("[longhaul]\nresume = { level = 20, parameter = 5, action = \"pause\" }\n");
    assert!(err.to_string().contains("unknown field `action`"), "{err}");
    let err = rejected("[[longhaul.severity]]\nlevel = 1\naction = \"pause\"\n");
    assert_eq!(
        issues(&err),
        ["longhaul.severity[0].parameter: pause needs a parameter"]
    );
}

#[test]
fn lh_08_config_rejects_bad_interval_bucket_options_and_dscp() {
    let err = rejected(
        r#"
        [longhaul]
        interval = 5
        options = ["ipv4_longhaul", "fast"]
        dscp = 64
        bucket = { refill_clocks = 0, depth = 9 }
        "#,
    );
    assert_eq!(
        issues(&err),
        [
            "longhaul.interval: needs a unit, e.g. \"1ms\" (or \"rtt\")",
            "longhaul.options: unknown option \"fast\" (known: hide_metric, ipv4_longhaul, ipv6_longhaul, defer)",
        ]
    );
    let err = rejected(
        "[longhaul]\ninterval = \"1.5us\"\ndscp = 64\nbucket = { refill_clocks = 0, depth = 9 }\n",
    );
    assert_eq!(
        issues(&err),
        ["longhaul.interval: interval 1.5µs is not a whole number of microseconds",]
    );
    let err = rejected("[longhaul]\ndscp = 64\nbucket = { refill_clocks = 0, depth = 0 }\n");
    assert_eq!(
        issues(&err),
        [
            "longhaul.bucket.refill_clocks: the token bucket refills every 1 or more clocks, not 0",
            "longhaul.bucket.depth: the token bucket holds 1..=8 tokens, not 0",
            "longhaul.dscp: DSCP 64 is outside 0..=63",
        ]
    );
    let err = rejected("[longhaul]\nbucket = { depth = -1 }\n[flows]\nage_timeout = \"5000s\"\n");
    assert_eq!(
        issues(&err),
        [
            "longhaul.bucket.depth: -1 is outside 0..=4294967295",
            "flows.age_timeout: age_timeout 5000s is more than the 4294967295 us the register holds",
        ]
    );
}

#[test]
fn lh_12_config_rejects_bad_gateway_addresses() {
    let err = rejected(
        "[gateway]\nmac = \"02:c0:6e:00:00\"\nipv4 = \"10.0.1\"\nipv6 = \"fd00::g\"\nclocks_per_us = \"322\"\n",
    );
    assert_eq!(
        issues(&err),
        [
            "gateway.mac: \"02:c0:6e:00:00\" is not a MAC address such as \"02:c0:6e:00:00:01\"",
            "gateway.ipv4: \"10.0.1\" is not an IPv4 address such as \"10.0.1.1\"",
            "gateway.ipv6: \"fd00::g\" is not an IPv6 address such as \"fd00::1\"",
            "gateway.clocks_per_us: expected an integer 0..=4294967295, found string",
        ]
    );
    let err = rejected(
        "[gateway]\nmac = \"01:00:5e:00:00:01\"\nipv6 = \"::ffff:10.0.1.1\"\nclocks_per_us = 0\n",
    );
    assert_eq!(
        issues(&err),
        [
            "gateway.mac: 01:00:5e:00:00:01 is a multicast MAC address: notifications need a unicast source",
            "gateway.ipv6: ::ffff:10.0.1.1 is an IPv4-mapped address: give it as the IPv4 address",
            "gateway.clocks_per_us: clocks per microsecond must be at least 1",
        ]
    );
}

#[test]
fn lh_01_config_rejects_bad_static_flows() {
    let err = rejected(
        r#"
        [flows]
        static = [
          { src = "10.0.0.1", dst = "10.0.0.4", dqp = 200, sqp = 100 },
          { src = "10.0.0.300", dst = "10.0.0.4", dqp = 200, sqp = 100 },
          { src = "10.0.0.1", dst = "fd00::4", dqp = 200, sqp = 100 },
          { src = "10.0.0.1", dst = "10.0.0.4", dqp = 0x1000000, sqp = -1 },
          { src = "10.0.0.1", dst = "10.0.0.4", dqp = 200, sqp = 101 },
        ]
        [registers]
        FLOW_COMMAND = 2
        FLOW_SIP_0 = 1
        "#,
    );
    assert_eq!(
        issues(&err),
        [
            "registers.FLOW_COMMAND: flow-table commands need the FLOW_STATUS handshake: use [flows] static",
            "flows.static[1].src: \"10.0.0.300\" is not an IPv4 or IPv6 address",
            "flows.static[2]: source 10.0.0.1 and destination fd00::4 are of different address families: a flow is IPv4 or IPv6 end to end",
            "flows.static[3].dqp: 16777216 is outside 0..=16777215",
            "flows.static[3].sqp: -1 is outside 0..=16777215",
            "flows.static[4]: the same flow as flows.static[0]",
            "flows.static: sets FLOW_SIP_0, which registers.FLOW_SIP_0 also sets",
        ]
    );
    let err = rejected("[flows]\nstatic = [{ src = \"10.0.0.1\", dst = \"10.0.0.4\", dqp = 1 }]\n");
    assert!(err.to_string().contains("missing field `sqp`"), "{err}");
}

#[test]
fn lh_15_config_format_table_plan_and_order() {
    let text = r#"
        [longhaul]
        options = ["ipv6_longhaul"]
        [[longhaul.formats]]
        prefix = "10.0.0.0/24"
        format = "rocev2"
        [[longhaul.formats]]
        prefix = "fd00:1::/32"
        format = "icmpv6"
        [[longhaul.formats]]
        prefix = "10.0.0.7"
        format = "cnp"
        "#;
    let plan = Config::parse(text)
        .unwrap()
        .plan_with(1, |_| unreachable!("no ports"))
        .unwrap();
    let mut want = vec![
        (offset::LH_OPTIONS, 0b100),
        (offset::LH_FORMAT0_CONTROL, 0),
        (offset::LH_FORMAT0_PREFIX_0, 0),
        (offset::LH_FORMAT0_PREFIX_1, 0),
        (offset::LH_FORMAT0_PREFIX_2, 0xFFFF),
        (offset::LH_FORMAT0_PREFIX_3, 0x0A00_0000),
        (offset::LH_FORMAT0_CONTROL, 1 | (1 << 1) | (120 << 8)),
        (offset::LH_FORMAT1_CONTROL, 0),
        (offset::LH_FORMAT1_PREFIX_0, 0xFD00_0001),
        (offset::LH_FORMAT1_PREFIX_1, 0),
        (offset::LH_FORMAT1_PREFIX_2, 0),
        (offset::LH_FORMAT1_PREFIX_3, 0),
        (offset::LH_FORMAT1_CONTROL, 1 | (2 << 1) | (32 << 8)),
        (offset::LH_FORMAT2_CONTROL, 0),
        (offset::LH_FORMAT2_PREFIX_0, 0),
        (offset::LH_FORMAT2_PREFIX_1, 0),
        (offset::LH_FORMAT2_PREFIX_2, 0xFFFF),
        (offset::LH_FORMAT2_PREFIX_3, 0x0A00_0007),
        (offset::LH_FORMAT2_CONTROL, 1 | (128 << 8)),
    ];
    for i in 3..8 {
        want.push((cngw_driver::formats::control_offset(i), 0));
    }
    assert_eq!(plan.writes, want);
    let mut dev = device();
    dev.bus_mut().clear_log();
    apply(&mut dev, &plan).unwrap();
    assert_eq!(dev.bus().write_log(), want.as_slice());
    let table = dev.format_table().unwrap();
    let text: Vec<String> = table
        .iter()
        .map(|(i, e)| format!("{i} {} {}", e.prefix, e.format))
        .collect();
    assert_eq!(
        text,
        [
            "0 10.0.0.0/24 rocev2",
            "1 fd00:1::/32 icmpv6",
            "2 10.0.0.7/32 cnp"
        ]
    );
    // An empty list clears the table.
    let plan = Config::parse("[longhaul]\nformats = []\n")
        .unwrap()
        .plan_with(1, |_| unreachable!())
        .unwrap();
    assert_eq!(
        plan.writes,
        (0..8)
            .map(|i| (cngw_driver::formats::control_offset(i), 0))
            .collect::<Vec<_>>()
    );
}

#[test]
fn lh_15_config_rejects_bad_format_tables() {
    let err = rejected(
        r#"
        [longhaul]
        dscp = 26
        [[longhaul.formats]]
        prefix = "10.0.0.0/33"
        format = "rocev2"
        [[longhaul.formats]]
        prefix = "10.0.0.1/24"
        format = "cnp"
        [[longhaul.formats]]
        prefix = "10.1.0.0/16"
        format = "icmpv6"
        [[longhaul.formats]]
        prefix = "fd00::/129"
        format = "cnp"
        [[longhaul.formats]]
        prefix = "::/0"
        format = "icmpv6"
        [[longhaul.formats]]
        prefix = "::ffff:10.2.0.0/112"
        format = "rocev2"
        [[longhaul.formats]]
        prefix = "fd00::/16"
        format = "rocev2"
        [[longhaul.formats]]
        prefix = "fd00::/16"
        format = "cnp"
        "#,
    );
    assert_eq!(
        issues(&err),
        [
            "longhaul.formats[0].prefix: 10.0.0.0/33: the prefix length is at most 32",
            "longhaul.formats[1].prefix: 10.0.0.1/24 has host bits set: the prefix is 10.0.0.0/24",
            "longhaul.formats[2].format: 10.1.0.0/16 is an IPv4 prefix: icmpv6 needs IPv6 senders (use rocev2 or cnp)",
            "longhaul.formats[3].prefix: fd00::/129: the prefix length is at most 128",
            "longhaul.formats[4].prefix: ::/0 covers the IPv4-mapped range ::ffff:0:0/96, so IPv4 senders would match it: give IPv4 senders IPv4 prefixes (0.0.0.0/0 for all)",
            "longhaul.formats[5].prefix: ::ffff:10.2.0.0/112 is IPv4-mapped: give it as the IPv4 prefix 10.2.0.0/16",
            "longhaul.formats[7]: fd00::/16 is listed twice (entries 6 and 7)",
        ]
    );
    // Nine entries; syntax errors; unknown formats; a raw register the
    // table also sets.
    let nine: String = (0..9)
        .map(|i| format!("[[longhaul.formats]]\nprefix = \"10.0.{i}.0/24\"\nformat = \"rocev2\"\n"))
        .collect();
    assert_eq!(
        issues(&rejected(&nine)),
        ["longhaul.formats: 9 format entries given: the table has 8"]
    );
    let err = rejected(
        r#"
        [[longhaul.formats]]
        prefix = "10.0.0/24"
        format = "rocev2"
        [[longhaul.formats]]
        prefix = "fd00::/x"
        format = "roce"
        [[longhaul.formats]]
        prefix = "10.0.0.0/8"
        format = "ICMPv6 "
        "#,
    );
    assert_eq!(
        issues(&err),
        [
            "longhaul.formats[0].prefix: \"10.0.0/24\" is not a prefix such as \"10.0.0.0/24\" or \"fd00:1::/32\"",
            "longhaul.formats[1].prefix: \"fd00::/x\": the prefix length must be a number of bits",
            "longhaul.formats[1].format: unknown format \"roce\" (use cnp, rocev2, icmpv6)",
            "longhaul.formats[2].format: unknown format \"ICMPv6 \" (use cnp, rocev2, icmpv6)",
        ]
    );
    let err = rejected(
        "[registers]\nLH_FORMAT3_CONTROL = 1\n[[longhaul.formats]]\nprefix = \"10.0.0.0/8\"\nformat = \"cnp\"\n",
    );
    assert_eq!(
        issues(&err),
        ["longhaul.formats: sets LH_FORMAT3_CONTROL, which registers.LH_FORMAT3_CONTROL also sets"]
    );
    let err = rejected("[[longhaul.formats]]\nprefix = \"10.0.0.0/8\"\n");
    assert!(err.to_string().contains("missing field `format`"), "{err}");
    let err =
        rejected("[[longhaul.formats]]\nprefix = \"10.0.0.0/8\"\nformat = \"cnp\"\nlength = 8\n");
    assert!(err.to_string().contains("unknown field `length`"), "{err}");
}

#[cfg(feature = "sim")]
mod rtl {
    use super::*;
    use cngw_driver::flows::{flow_key, FlowEntry};
    use cngw_driver::{BusError, RegisterBus, SimBus};

    /// Logs the writes of the bus it wraps.
    struct Logged<B> {
        bus: B,
        writes: Vec<(u32, u32)>,
    }

    impl<B: RegisterBus> RegisterBus for Logged<B> {
        fn read32(&mut self, off: u32) -> Result<u32, BusError> {
            self.bus.read32(off)
        }
        fn write32(&mut self, off: u32, value: u32) -> Result<(), BusError> {
            self.writes.push((off, value));
            self.bus.write32(off, value)
        }
    }

    #[test]
    fn lh_07_config_applies_second_level_and_static_flows_to_the_rtl() {
        let mut dev = Device::open(Logged {
            bus: SimBus::with_new_gateway(),
            writes: Vec::new(),
        })
        .unwrap();
        let config = Config::parse(SECOND_LEVEL).unwrap();
        let plan = apply_config(&mut dev, &config).unwrap();
        // What went over the bus is the plan, flows expanded, in order.
        assert_eq!(dev.bus().writes, plan.bus_writes());
        for &(off, value) in &plan.writes {
            assert_eq!(dev.bus_mut().read32(off).unwrap(), value, "{off:#x}");
        }
        let key =
            |s: &str, d: &str, q| flow_key(s.parse().unwrap(), d.parse().unwrap(), q).unwrap();
        let mut table = dev.flow_table();
        assert_eq!(
            table.lookup(&key("10.0.0.1", "10.0.0.4", 200)).unwrap(),
            Some(FlowEntry {
                sqp: Some(100),
                pinned: true
            })
        );
        assert_eq!(
            table.lookup(&key("fd00::1", "fd00::4", 0xFF_FFFF)).unwrap(),
            Some(FlowEntry {
                sqp: Some(7),
                pinned: true
            })
        );
        assert_eq!(table.list().unwrap().len(), 2);
        assert_eq!(
            dev.features().unwrap(),
            feature::LH_ECN_MARK | feature::LH_CNP
        );
        assert_eq!(dev.read_by_name("FLOW_LEARNED").unwrap(), 2);
    }

    /// The configuration in README.md is valid and applies.
    #[test]
    fn hw_04_readme_example_config_applies() {
        let readme = include_str!("../../README.md");
        let start = readme
            .find("A configuration file")
            .expect("README has the configuration example");
        let block = &readme[start..];
        let body = &block[block.find("```toml\n").unwrap() + 8..];
        let text = &body[..body.find("```").unwrap()];
        let config = Config::parse(text).unwrap();
        let mut dev = Device::open(SimBus::with_new_gateway()).unwrap();
        let plan = apply_config(&mut dev, &config).unwrap();
        assert!(!plan.flows.is_empty(), "the example shows static flows");
        assert!(plan.features.is_some());
        assert_eq!(dev.flow_table().list().unwrap().len(), plan.flows.len());
        // LH-15: the example's format table, read back from the RTL.
        let formats: Vec<String> = dev
            .format_table()
            .unwrap()
            .iter()
            .map(|(i, e)| format!("{i} {} {}", e.prefix, e.format))
            .collect();
        assert_eq!(formats, ["0 10.0.0.0/24 rocev2", "1 10.0.0.8/29 cnp"]);
    }
}

#[test]
fn lh_02_config_meter_learning_and_icmpv6_type_plan() {
    let config = Config::parse(
        r#"
[gateway]
clocks_per_us = 100
[meter.0]
queue = "internal"
drain = "6.4G"
avg_weight_shift = 3
emr_window = "50us"
v_ecn = 0.25
qgr_interval = "200us"
v_growth = "8M"
[longhaul]
icmpv6_type = 201
obs_window = "20us"
top_share = 0.25
[flows]
learn = ["cm", "psn"]
psn_window = 1024
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    for (off, want) in [
        (offset::PORT0_METER_CONTROL, meter_control::INTERNAL_QUEUE),
        // 6.4 Gb/s at 100 clocks per microsecond: 8 bytes per clock.
        (offset::PORT0_VQ_DRAIN_Q16, 8 << 16),
        (offset::PORT0_AVG_WEIGHT_SHIFT, 3),
        (offset::PORT0_EMR_WINDOW_US, 50),
        (offset::PORT0_V_ECN_Q16, 0x4000),
        (offset::PORT0_QGR_INTERVAL_US, 200),
        (offset::PORT0_V_GROWTH_BYTES, 8 << 20),
        (offset::LH_ICMPV6_TYPE, 201),
        (offset::LH_OBS_WINDOW_US, 20),
        (offset::LH_TOP_SHARE_Q8, 64),
        (
            offset::LEARN_CONTROL,
            learn_control::CM_ENABLE | learn_control::PSN_ENABLE,
        ),
        (offset::LEARN_PSN_WINDOW, 1024),
        (offset::CLOCKS_PER_US, 100),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    // "off" turns both triggers off; telemetry goes back to the input.
    let config = Config::parse(
        "[meter.0]\nqueue = \"telemetry\"\nv_ecn = \"off\"\nv_growth = \"off\"\n[flows]\nlearn = []\n",
    )
    .unwrap();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    assert_eq!(bus.peek(offset::PORT0_METER_CONTROL), Some(0));
    assert_eq!(bus.peek(offset::PORT0_V_ECN_Q16), Some(u32::MAX));
    assert_eq!(bus.peek(offset::PORT0_V_GROWTH_BYTES), Some(u32::MAX));
    assert_eq!(bus.peek(offset::LEARN_CONTROL), Some(0));
}

#[test]
fn lh_02_config_rejects_bad_meter_learning_and_icmpv6_values() {
    for (text, key) in [
        ("[meter.0]\nqueue = \"external\"", "meter.0.queue"),
        ("[meter.1]\nqueue = \"internal\"", "meter.1"),
        ("[meter.0]\ndrain = \"0G\"", "meter.0.drain"),
        ("[meter.0]\ndrain = \"fast\"", "meter.0.drain"),
        ("[meter.0]\ndrain = \"10000T\"", "meter.0.drain"),
        (
            "[meter.0]\navg_weight_shift = 32",
            "meter.0.avg_weight_shift",
        ),
        ("[meter.0]\nemr_window = 100", "meter.0.emr_window"),
        (
            "[gateway]\nclocks_per_us = 10\n[meter.0]\nemr_window = \"1us\"",
            "meter.0.emr_window",
        ),
        ("[meter.0]\nv_ecn = 1.5", "meter.0.v_ecn"),
        ("[meter.0]\nv_ecn = \"half\"", "meter.0.v_ecn"),
        ("[meter.0]\nqgr_interval = \"0us\"", "meter.0.qgr_interval"),
        ("[meter.0]\nv_growth = \"8G\"", "meter.0.v_growth"),
        ("[meter.0]\nlimit = 3", "limit"),
        ("[longhaul]\nicmpv6_type = 1", "longhaul.icmpv6_type"),
        ("[longhaul]\nicmpv6_type = 256", "longhaul.icmpv6_type"),
        ("[flows]\nlearn = [\"acks\"]", "flows.learn"),
        ("[flows]\npsn_window = 0", "flows.psn_window"),
        ("[flows]\npsn_window = 8388609", "flows.psn_window"),
        ("[longhaul]\ntop_share = 1.0", "longhaul.top_share"),
        ("[longhaul]\ntop_share = -0.5", "longhaul.top_share"),
        ("[longhaul]\nobs_window = \"0us\"", "longhaul.obs_window"),
        ("[longhaul]\nobs_window = 5", "longhaul.obs_window"),
        (
            "[meter.0]\nv_growth = \"off\"\n[registers]\nPORT0_V_GROWTH_BYTES = 5",
            "PORT0_V_GROWTH_BYTES",
        ),
    ] {
        let err = rejected(text);
        assert!(
            err.to_string().contains(key),
            "{text:?} should be rejected at {key}: {err}"
        );
    }
}

#[test]
fn lh_11_config_adjust_table_is_validated_and_writes_nothing() {
    let mut dev = device();
    let text = r#"
        [port.0]
        rate = "100G"
        rtt = "1ms"
        alpha = 0.5
        k_base = "64K"
        [adjust]
        alpha_min = 0.125
        alpha_max = 2
        decrease = 0.5
        increase = 0.25
        util_low = 0.4
        util_high = 0.95
        persist = 3
        interval = "500ms"
        "#;
    let config = Config::parse(text).unwrap();
    let plan = apply_config(&mut dev, &config).unwrap();
    // Only the port's six registers: [adjust] is read by `cngw adjust`.
    assert_eq!(plan.writes.len(), 6, "{plan}");
    let adjust = config.adjust_plan(1).unwrap().unwrap();
    let p = adjust.params;
    assert_eq!((p.alpha_min_q8_8, p.alpha_max_q8_8), (0x20, 0x200));
    assert_eq!((p.decrease_q8, p.increase_q8_8), (128, 0x40));
    assert_eq!((p.util_low, p.util_high, p.persist), (0.4, 0.95, 3));
    assert_eq!(adjust.interval, Some(std::time::Duration::from_millis(500)));
    // Keys left out take the defaults; no table, no plan.
    let defaults = Config::parse("[adjust]\n").unwrap().adjust_plan(1).unwrap();
    assert_eq!(
        defaults.unwrap().params,
        cngw_driver::AdjustParams::default()
    );
    assert_eq!(Config::parse("").unwrap().adjust_plan(1).unwrap(), None);
}

#[test]
fn lh_11_config_rejects_bad_adjust_values() {
    let err = rejected(
        r#"
        [adjust]
        alpha_min = "low"
        decrease = 1.5
        increase = 0
        util_low = 0.9
        util_high = 0.8
        persist = 0
        interval = "0s"
        "#,
    );
    let lines = issues(&err);
    for key in [
        "adjust.alpha_min: expected a number",
        "adjust.persist: 0 is outside 1..=1000000",
        "adjust.interval: must be above 0",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(key)), "{key}: {lines:?}");
    }
    // Once every value parses, the law's own checks list the rest.
    let lines = issues(&rejected(
        "[adjust]\ndecrease = 1.5\nincrease = 0\nutil_low = 0.9\nutil_high = 0.8\n",
    ));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("adjust.decrease: decrease 1.5 must be a factor"));
    assert!(lines[1].starts_with("adjust.increase:"));
    assert!(lines[2].starts_with("adjust.util_high: util_low 0.9 and util_high 0.8"));
    let lines = issues(&rejected("[adjust]\nalpha_min = 2.0\nalpha_max = 1.0\n"));
    assert_eq!(
        lines,
        ["adjust.alpha_max: alpha_min 2 is above alpha_max 1"]
    );
    // The bounds must hold the alpha [port.0] sets.
    let lines = issues(&rejected(
        r#"
        [port.0]
        rate = "100G"
        rtt = "1ms"
        alpha = 1.5
        k_base = "64K"
        [adjust]
        alpha_max = 1.0
        "#,
    ));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(
            "adjust.alpha_max: port.0.alpha 1.5 is outside [alpha_min, alpha_max] = [0.25, 1]"
        ),
        "{lines:?}"
    );
    let lines = issues(&rejected("[adjust]\ninterval = 5\n"));
    assert_eq!(lines, ["adjust.interval: needs a unit, e.g. \"1s\""]);
    let err = rejected("[adjust]\nspeed = 1\n");
    assert!(err.to_string().contains("unknown field `speed`"), "{err}");
}

/// PE-03: `[pre_ecn]` writes the thresholds, the seed and the role, and
/// `features = ["pre_ecn"]` turns it on last (after the seed, so the LFSR
/// loads it).
#[test]
fn pe_03_config_pre_ecn_plan() {
    let config = Config::parse(
        r#"
features = ["pre_ecn"]
[pre_ecn]
wan_marking = true
t1 = "20M"
t2 = "60M"
tmax = 100000000
seed = 0x1234
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    for (off, want) in [
        (offset::PE_T1_BYTES, 20 << 20),
        (offset::PE_T2_BYTES, 60 << 20),
        (offset::PE_TMAX_BYTES, 100_000_000),
        (offset::PE_LFSR_SEED, 0x1234),
        (offset::PE_CONTROL, cngw_regmap::pe_control::WAN_MARKING),
        (offset::FEATURE_ENABLE, feature::PRE_ECN),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    let order: Vec<u32> = bus
        .write_log()
        .iter()
        .map(|&(o, _)| o)
        .filter(|o| [offset::PE_LFSR_SEED, offset::FEATURE_ENABLE].contains(o))
        .collect();
    assert_eq!(order, [offset::PE_LFSR_SEED, offset::FEATURE_ENABLE]);
}

/// PE-03: bad `[pre_ecn]` values are refused before any write.
#[test]
fn pe_03_config_rejects_bad_pre_ecn_values() {
    for (text, key) in [
        ("[pre_ecn]\nt1 = \"20M\"", "pre_ecn.t1"),
        (
            "[pre_ecn]\nt1 = \"60M\"\nt2 = \"20M\"\ntmax = \"100M\"",
            "pre_ecn.t1",
        ),
        (
            "[pre_ecn]\nt1 = \"20M\"\nt2 = \"20M\"\ntmax = \"100M\"",
            "pre_ecn.t1",
        ),
        (
            "[pre_ecn]\nt1 = \"a lot\"\nt2 = \"20M\"\ntmax = \"100M\"",
            "pre_ecn.t1",
        ),
        ("[pre_ecn]\nt1 = 1\nt2 = 2\ntmax = \"8G\"", "pre_ecn.tmax"),
        ("[pre_ecn]\nseed = 65536", "pre_ecn.seed"),
        ("[pre_ecn]\nseed = -1", "pre_ecn.seed"),
        ("[pre_ecn]\nwan_marking = 1", "wan_marking"),
        ("[pre_ecn]\nfast = true", "fast"),
    ] {
        let err = rejected(text);
        assert!(
            err.to_string().contains(key),
            "{text:?} should be rejected at {key}: {err}"
        );
    }
}

/// FCN-03/FCN-06: `[fast_cnp]` writes the role, the port and the bucket,
/// before `FEATURE_ENABLE` switches it on.
#[test]
fn fcn_03_config_fast_cnp_plan() {
    let config = Config::parse(
        r#"
features = ["fast_cnp", "pre_ecn"]
[fast_cnp]
wan_node = true
copy_label = true
udp_port = 50000
bucket = { refill_clocks = 1000, depth = 4 }
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    let control = cngw_regmap::fcn_control::WAN_NODE | cngw_regmap::fcn_control::COPY_LABEL;
    for (off, want) in [
        (offset::FCN_CONTROL, control),
        (offset::FCN_UDP_PORT, 50_000),
        (offset::FCN_BUCKET_REFILL_CLOCKS, 1_000),
        (offset::FCN_BUCKET_DEPTH, 4),
        (offset::FEATURE_ENABLE, feature::FAST_CNP | feature::PRE_ECN),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    let last = bus.write_log().last().copied();
    assert_eq!(last.map(|w| w.0), Some(offset::FEATURE_ENABLE));
    // A role left out is off.
    let config = Config::parse("[fast_cnp]\ncopy_label = true").unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    assert_eq!(
        dev.bus().peek(offset::FCN_CONTROL),
        Some(cngw_regmap::fcn_control::COPY_LABEL)
    );
}

/// FCN-03/FCN-06: bad `[fast_cnp]` values are refused before any write.
#[test]
fn fcn_06_config_rejects_bad_fast_cnp_values() {
    for (text, key) in [
        ("[fast_cnp]\nudp_port = 0", "fast_cnp.udp_port"),
        ("[fast_cnp]\nudp_port = 65536", "fast_cnp.udp_port"),
        ("[fast_cnp]\nudp_port = \"http\"", "fast_cnp.udp_port"),
        (
            "[fast_cnp]\nbucket = { refill_clocks = 0 }",
            "fast_cnp.bucket.refill_clocks",
        ),
        (
            "[fast_cnp]\nbucket = { depth = 9 }",
            "fast_cnp.bucket.depth",
        ),
        (
            "[fast_cnp]\nbucket = { depth = 0 }",
            "fast_cnp.bucket.depth",
        ),
        ("[fast_cnp]\nwan_node = 1", "wan_node"),
        ("[fast_cnp]\nrate = 5", "rate"),
    ] {
        let err = rejected(text);
        assert!(
            err.to_string().contains(key),
            "{text:?} should be rejected at {key}: {err}"
        );
    }
}

/// FCN-05/FCN-06: the ingress PE role with its domain prefixes, receive
/// bucket and CNP next hop; the second prefix slot is cleared when one
/// prefix is given.
#[test]
fn fcn_05_config_ingress_pe_plan() {
    let config = Config::parse(
        r#"
features = ["fast_cnp"]
[fast_cnp]
ingress_pe = true
domain = ["fd00:c::/32", "::/0"]
rx_bucket = { refill_clocks = 500, depth = 2 }
cnp_mac = "02:00:00:00:0d:c0"
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    use cngw_regmap::fcn_rx_dom_control::{LEN_SHIFT, VALID};
    for (off, want) in [
        (offset::FCN_CONTROL, cngw_regmap::fcn_control::INGRESS_PE),
        (offset::FCN_RX_DOM0_PREFIX_0, 0xfd00_000c),
        (offset::FCN_RX_DOM0_PREFIX_1, 0),
        (offset::FCN_RX_DOM0_CONTROL, VALID | 32 << LEN_SHIFT),
        (offset::FCN_RX_DOM1_PREFIX_0, 0),
        (offset::FCN_RX_DOM1_CONTROL, VALID),
        (offset::FCN_RX_BUCKET_REFILL_CLOCKS, 500),
        (offset::FCN_RX_BUCKET_DEPTH, 2),
        (offset::FCN_CNP_MAC_HI, 0x0200),
        (offset::FCN_CNP_MAC_LO, 0x0000_0dc0),
        (offset::FEATURE_ENABLE, feature::FAST_CNP),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    let last = bus.write_log().last().copied();
    assert_eq!(last.map(|w| w.0), Some(offset::FEATURE_ENABLE));
    // Each prefix is invalid while its words change.
    let log = bus.write_log();
    let at = |w: (u32, u32)| log.iter().position(|&x| x == w).unwrap();
    let words = at((offset::FCN_RX_DOM0_PREFIX_0, 0xfd00_000c));
    assert!(at((offset::FCN_RX_DOM0_CONTROL, 0)) < words);
    assert!(words < at((offset::FCN_RX_DOM0_CONTROL, VALID | 32 << LEN_SHIFT)));
    let config =
        Config::parse("[fast_cnp]\ningress_pe = true\ndomain = [\"fd00:e:1::/48\"]").unwrap();
    let mut dev = device();
    dev.bus_mut().poke(offset::FCN_RX_DOM1_CONTROL, VALID);
    apply_config(&mut dev, &config).unwrap();
    assert_eq!(
        dev.bus().peek(offset::FCN_RX_DOM0_CONTROL),
        Some(VALID | 48 << LEN_SHIFT)
    );
    assert_eq!(dev.bus().peek(offset::FCN_RX_DOM1_CONTROL), Some(0));
}

/// FCN-05/FCN-06: bad ingress-PE values are refused before any write.
#[test]
fn fcn_06_config_rejects_bad_ingress_pe_values() {
    for (text, key) in [
        ("[fast_cnp]\ningress_pe = true", "fast_cnp.domain"),
        (
            "[fast_cnp]\ningress_pe = true\ndomain = []",
            "fast_cnp.domain",
        ),
        (
            "[fast_cnp]\ndomain = [\"fd00::/16\", \"fd01::/16\", \"fd02::/16\"]",
            "fast_cnp.domain",
        ),
        (
            "[fast_cnp]\ndomain = [\"10.0.0.0/8\"]",
            "fast_cnp.domain[0]",
        ),
        (
            "[fast_cnp]\ndomain = [\"fd00::1/16\"]",
            "fast_cnp.domain[0]",
        ),
        (
            "[fast_cnp]\ndomain = [\"fd00::/129\"]",
            "fast_cnp.domain[0]",
        ),
        (
            "[fast_cnp]\ndomain = [\"fd00::/16\", \"nonsense\"]",
            "fast_cnp.domain[1]",
        ),
        (
            "[fast_cnp]\ncnp_mac = \"02:00:00:00:0d\"",
            "fast_cnp.cnp_mac",
        ),
        (
            "[fast_cnp]\nrx_bucket = { refill_clocks = 0 }",
            "fast_cnp.rx_bucket.refill_clocks",
        ),
        (
            "[fast_cnp]\nrx_bucket = { depth = 9 }",
            "fast_cnp.rx_bucket.depth",
        ),
    ] {
        let err = rejected(text);
        assert!(
            err.to_string().contains(key),
            "{text:?} should be rejected at {key}: {err}"
        );
    }
}

/// FCN-02/PE-01/PE-02: `[tunnel]` writes the ingress PE's tunnel (VXLAN
/// and SRv6) and the egress settings, and switches the roles on only after
/// every other tunnel register is written.
#[test]
fn fcn_02_config_tunnel_plan() {
    use cngw_regmap::tunnel_control as tc;
    let config = Config::parse(
        r#"
[tunnel]
ingress_pe = true
kind = "vxlan"
remote = "2001:db8:2::1"
vni = 0x123456
udp_sport = { base = 0xC000, mask = 0x3FFF }
hop_limit = 32
mtu = 1500
next_hop_mac = "02:00:00:00:0e:01"
egress_pe = true
dc_mac = "02:00:00:00:0d:01"
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    for (off, want) in [
        (offset::TUNNEL_CONTROL, tc::INGRESS_PE | tc::EGRESS_PE),
        (offset::TUNNEL_REMOTE_0, 0x2001_0db8),
        (offset::TUNNEL_REMOTE_1, 0x0002_0000),
        (offset::TUNNEL_REMOTE_3, 1),
        (offset::TUNNEL_VNI, 0x12_3456),
        (offset::TUNNEL_UDP_SPORT, 0x3FFF_C000),
        (offset::TUNNEL_HOP_LIMIT, 32),
        (offset::TUNNEL_WAN_MTU, 1500),
        (offset::TUNNEL_NEXT_HOP_MAC_HI, 0x0200),
        (offset::TUNNEL_NEXT_HOP_MAC_LO, 0x0000_0e01),
        (offset::TUNNEL_DC_MAC_HI, 0x0200),
        (offset::TUNNEL_DC_MAC_LO, 0x0000_0d01),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    // The roles come on after the tunnel's registers.
    let log = bus.write_log();
    let control = log
        .iter()
        .position(|w| w.0 == offset::TUNNEL_CONTROL)
        .unwrap();
    for (i, w) in log.iter().enumerate() {
        let tunnel_reg = (offset::TUNNEL_DC_MAC_HI..=offset::TUNNEL_SID1_3).contains(&w.0);
        assert!(
            !tunnel_reg || i < control,
            "{:#x} written after the role",
            w.0
        );
    }
    // SRv6 with two SIDs in compatibility mode.
    let config = Config::parse(
        r#"
[tunnel]
ingress_pe = true
kind = "srv6"
segments = ["fc00:2::100", "fc00:3::200"]
compat = true
next_hop_mac = "02:00:00:00:0e:01"
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    for (off, want) in [
        (
            offset::TUNNEL_CONTROL,
            tc::INGRESS_PE | tc::SRV6 | tc::TWO_SIDS | tc::COMPAT,
        ),
        (offset::TUNNEL_SID0_0, 0xfc00_0002),
        (offset::TUNNEL_SID0_3, 0x100),
        (offset::TUNNEL_SID1_0, 0xfc00_0003),
        (offset::TUNNEL_SID1_3, 0x200),
        (offset::TUNNEL_WAN_MTU, 9000),
        (offset::TUNNEL_HOP_LIMIT, 64),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
}

/// FCN-02: bad `[tunnel]` values are refused before any write.
#[test]
fn fcn_02_config_rejects_bad_tunnel_values() {
    let mac = "next_hop_mac = \"02:00:00:00:0e:01\"";
    for (text, key) in [
        (format!("[tunnel]\ningress_pe = true\n{mac}"), "tunnel.kind"),
        (
            format!("[tunnel]\ningress_pe = true\nkind = \"gre\"\n{mac}"),
            "tunnel.kind",
        ),
        (
            format!("[tunnel]\ningress_pe = true\nkind = \"vxlan\"\n{mac}"),
            "tunnel.remote",
        ),
        (
            format!("[tunnel]\ningress_pe = true\nkind = \"srv6\"\n{mac}"),
            "tunnel.segments",
        ),
        (
            "[tunnel]\ningress_pe = true\nkind = \"vxlan\"\nremote = \"2001:db8::1\"".into(),
            "tunnel.next_hop_mac",
        ),
        ("[tunnel]\nremote = \"10.0.0.1\"".into(), "tunnel.remote"),
        (
            "[tunnel]\nremote = \"::ffff:10.0.0.1\"".into(),
            "tunnel.remote",
        ),
        ("[tunnel]\nremote = \"ff02::1\"".into(), "tunnel.remote"),
        ("[tunnel]\nsegments = []".into(), "tunnel.segments"),
        (
            "[tunnel]\nsegments = [\"fc00::1\", \"fc00::2\", \"fc00::3\"]".into(),
            "tunnel.segments",
        ),
        (
            "[tunnel]\nsegments = [\"fc00::1\", \"nonsense\"]".into(),
            "tunnel.segments[1]",
        ),
        ("[tunnel]\nvni = 16777216".into(), "tunnel.vni"),
        (
            "[tunnel]\nudp_sport = { base = 65536 }".into(),
            "tunnel.udp_sport.base",
        ),
        ("[tunnel]\nhop_limit = 0".into(), "tunnel.hop_limit"),
        ("[tunnel]\nmtu = 1279".into(), "tunnel.mtu"),
        (
            "[tunnel]\nnext_hop_mac = \"02:00\"".into(),
            "tunnel.next_hop_mac",
        ),
        ("[tunnel]\ndc_mac = \"zz\"".into(), "tunnel.dc_mac"),
        (
            "[tunnel]\negress_pe = true\n[registers]\nTUNNEL_CONTROL = 1".into(),
            "TUNNEL_CONTROL",
        ),
    ] {
        let err = rejected(&text);
        assert!(
            err.to_string().contains(key),
            "{text:?} should be rejected at {key}: {err}"
        );
    }
}

/// PE-05: `[tunnel] alt_segments` and `[tunnel.shaper]`: every register,
/// rates converted to bytes per microsecond, packed registers completed
/// from their reset values, and the shaper switched on after its settings
/// and before the tunnel roles.
#[test]
fn pe_05_config_shaper_plan() {
    use cngw_regmap::pe_shaper;
    let config = Config::parse(
        r#"
[fast_cnp]
ingress_pe = true
domain = ["fd00:c::/32"]

[tunnel]
ingress_pe = true
kind = "srv6"
segments = ["fc00:2::100"]
alt_segments = ["fc00:7::700", "fc00:8::800"]
next_hop_mac = "02:00:00:00:0e:01"

[tunnel.shaper]
enable = true
max_rate = "40G"
min_rate = "2G"
cut_shift = 2
recover_interval = "20us"
recover_step = "4G"
burst = "16K"
alt_path = true
alt_below = "10G"
alt_above = "30G"
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    // 40 Gb/s = 5000 bytes per microsecond, 2 Gb/s = 250, 4 Gb/s = 500,
    // 10 Gb/s = 1250, 30 Gb/s = 3750.
    let bytes = |gbps: u32| gbps * 1_000 / 8;
    for (off, want) in [
        (offset::PE_SHAPER_RATE, bytes(40) | bytes(2) << 16),
        (offset::PE_SHAPER_RECOVER, 20 | bytes(4) << 16),
        (offset::PE_SHAPER_BURST, 16 * 1024),
        (offset::PE_SHAPER_ALT, bytes(10) | bytes(30) << 16),
        (
            offset::PE_SHAPER_CONTROL,
            pe_shaper::ENABLE
                | pe_shaper::ALT_ENABLE
                | pe_shaper::ALT_TWO_SIDS
                | 2 << pe_shaper::CUT_SHIFT_LSB,
        ),
        (offset::TUNNEL_ALT_SID0_0, 0xfc00_0007),
        (offset::TUNNEL_ALT_SID0_3, 0x700),
        (offset::TUNNEL_ALT_SID1_0, 0xfc00_0008),
        (offset::TUNNEL_ALT_SID1_3, 0x800),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    assert_eq!(bytes(40), 5000);
    // Settings, then the shaper, then the roles.
    let log = bus.write_log();
    let at = |o: u32| log.iter().position(|w| w.0 == o).unwrap();
    let (shaper, roles) = (at(offset::PE_SHAPER_CONTROL), at(offset::TUNNEL_CONTROL));
    assert!(shaper < roles);
    for (i, w) in log.iter().enumerate() {
        let setting = (offset::TUNNEL_ALT_SID0_0..=offset::PE_SHAPER_ALT).contains(&w.0)
            && w.0 != offset::PE_SHAPER_CONTROL;
        assert!(
            !setting || i < shaper,
            "{:#x} written after the shaper",
            w.0
        );
    }

    // Only one rate given: the other half of PE_SHAPER_RATE keeps its
    // reset value; the cut keeps its reset value in PE_SHAPER_CONTROL.
    let config = Config::parse(
        "[fast_cnp]\ningress_pe = true\ndomain = [\"fd00:c::/32\"]\n\
         [tunnel]\ningress_pe = true\nkind = \"vxlan\"\nremote = \"2001:db8::2\"\n\
         next_hop_mac = \"02:00:00:00:0e:01\"\n[tunnel.shaper]\nenable = true\nmax_rate = \"80G\"\n",
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let reset = |name| cngw_regmap::by_name(name).unwrap().reset;
    assert_eq!(
        dev.bus().peek(offset::PE_SHAPER_RATE),
        Some(10_000 | reset("PE_SHAPER_RATE") & 0xFFFF_0000)
    );
    assert_eq!(
        dev.bus().peek(offset::PE_SHAPER_CONTROL),
        Some(reset("PE_SHAPER_CONTROL") | pe_shaper::ENABLE)
    );
    for untouched in [
        offset::PE_SHAPER_RECOVER,
        offset::PE_SHAPER_ALT,
        offset::PE_SHAPER_BURST,
    ] {
        assert!(
            dev.bus().write_log().iter().all(|w| w.0 != untouched),
            "{untouched:#x} written"
        );
    }
}

/// PE-05: bad shaper values are refused, naming the key, before any write.
#[test]
fn pe_05_config_rejects_bad_shaper_values() {
    let head = "[fast_cnp]\ningress_pe = true\ndomain = [\"fd00:c::/32\"]\n\
                [tunnel]\ningress_pe = true\nkind = \"srv6\"\nsegments = [\"fc00::1\"]\n\
                alt_segments = [\"fc00::7\"]\nnext_hop_mac = \"02:00:00:00:0e:01\"\n";
    let shaper = |keys: &str| format!("{head}[tunnel.shaper]\nenable = true\n{keys}\n");
    for (text, key) in [
        (shaper("max_rate = \"0\""), "tunnel.shaper.max_rate"),
        (shaper("max_rate = \"4M\""), "tunnel.shaper.max_rate"),
        (shaper("max_rate = \"525G\""), "tunnel.shaper.max_rate"),
        (shaper("max_rate = \"fast\""), "tunnel.shaper.max_rate"),
        (
            shaper("max_rate = \"10G\"\nmin_rate = \"20G\""),
            "tunnel.shaper.min_rate",
        ),
        (
            shaper("alt_below = \"50G\"\nalt_above = \"50G\""),
            "tunnel.shaper.alt_below",
        ),
        (shaper("cut_shift = 0"), "tunnel.shaper.cut_shift"),
        (shaper("cut_shift = 16"), "tunnel.shaper.cut_shift"),
        (
            shaper("recover_interval = 55"),
            "tunnel.shaper.recover_interval",
        ),
        (
            shaper("recover_interval = \"1500ns\""),
            "tunnel.shaper.recover_interval",
        ),
        (
            shaper("recover_interval = \"70ms\""),
            "tunnel.shaper.recover_interval",
        ),
        (
            shaper("max_rate = \"100G\"\nburst = \"8K\""),
            "tunnel.shaper.burst",
        ),
        (shaper("burst = \"16M\""), "tunnel.shaper.burst"),
        (shaper("speed = 1"), "speed"),
        (
            format!(
                "{}[tunnel.shaper]\nenable = true\nalt_path = true\n",
                head.replace("alt_segments = [\"fc00::7\"]\n", "")
            ),
            "tunnel.shaper.alt_path",
        ),
        (
            format!(
                "{}[tunnel.shaper]\nenable = true\nalt_path = true\n",
                head.replace(
                    "kind = \"srv6\"\nsegments = [\"fc00::1\"]",
                    "kind = \"vxlan\"\nremote = \"2001:db8::2\""
                )
            ),
            "tunnel.shaper.alt_path",
        ),
        (
            format!("{head}[tunnel.shaper]\nalt_path = true\n"),
            "tunnel.shaper.alt_path",
        ),
        (
            format!(
                "{}[tunnel.shaper]\nenable = true\n",
                head.replace("ingress_pe = true\nkind", "kind")
            ),
            "tunnel.shaper.enable",
        ),
        (
            format!(
                "{}[tunnel.shaper]\nenable = true\n",
                head.replace(
                    "[fast_cnp]\ningress_pe = true\ndomain = [\"fd00:c::/32\"]\n",
                    ""
                )
            ),
            "tunnel.shaper.enable",
        ),
        (
            head.replace(
                "alt_segments = [\"fc00::7\"]",
                "alt_segments = [\"fc00::7\", \"fc00::8\", \"fc00::9\"]",
            ),
            "tunnel.alt_segments",
        ),
        (
            head.replace(
                "alt_segments = [\"fc00::7\"]",
                "alt_segments = [\"ff0e::7\"]",
            ),
            "tunnel.alt_segments[0]",
        ),
        (
            format!("{head}[registers]\nPE_SHAPER_CONTROL = 1\n[tunnel.shaper]\nenable = true\n"),
            "PE_SHAPER_CONTROL",
        ),
    ] {
        let err = rejected(&text);
        assert!(
            err.to_string().contains(key),
            "{text:?} should be rejected at {key}: {err}"
        );
    }
}

/// PX-02/PX-04: `[proxy]` writes the port, the receive bucket, the domain
/// prefixes (IPv4 ones as IPv4-mapped) and `PROXY_CONTROL` (border filter
/// on unless turned off) after them.
#[test]
fn px_04_config_proxy_plan() {
    let config = Config::parse(
        r#"
features = ["proxy_cn"]
[proxy]
enable = true
udp_port = 50000
domain = ["198.51.100.0/24", "fd00:c::/32"]
rx_bucket = { refill_clocks = 0, depth = 3 }
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    use cngw_regmap::fcn_rx_dom_control::{LEN_SHIFT, VALID};
    use cngw_regmap::proxy;
    for (off, want) in [
        (offset::PROXY_CONTROL, proxy::ENABLE | proxy::FILTER),
        (offset::PROXY_UDP_PORT, 50000),
        (offset::PROXY_RX_BUCKET_REFILL_CLOCKS, 0),
        (offset::PROXY_RX_BUCKET_DEPTH, 3),
        (offset::FCN_RX_DOM0_PREFIX_0, 0),
        (offset::FCN_RX_DOM0_PREFIX_2, 0xffff),
        (offset::FCN_RX_DOM0_PREFIX_3, 0xc633_6400),
        (offset::FCN_RX_DOM0_CONTROL, VALID | 120 << LEN_SHIFT),
        (offset::FCN_RX_DOM1_PREFIX_0, 0xfd00_000c),
        (offset::FCN_RX_DOM1_CONTROL, VALID | 32 << LEN_SHIFT),
        (offset::FEATURE_ENABLE, feature::PROXY_CN),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    let log = bus.write_log();
    let at = |w: (u32, u32)| log.iter().position(|&x| x == w).unwrap();
    assert!(
        at((offset::PROXY_CONTROL, proxy::ENABLE | proxy::FILTER))
            < at((offset::FEATURE_ENABLE, feature::PROXY_CN))
    );
    // Border filtering off: no domain needed.
    let config = Config::parse("[proxy]\nenable = true\nborder_filter = false").unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    assert_eq!(dev.bus().peek(offset::PROXY_CONTROL), Some(proxy::ENABLE));
    // The [fast_cnp] domain serves the proxy too.
    let config = Config::parse(
        "[fast_cnp]\ningress_pe = true\ndomain = [\"fd00:c::/32\"]\n[proxy]\nenable = true",
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    assert_eq!(
        dev.bus().peek(offset::PROXY_CONTROL),
        Some(proxy::ENABLE | proxy::FILTER)
    );
}

/// PX-01/PX-04: the congested node's keys: generation and its bucket.
#[test]
fn px_01_config_generation_plan() {
    let config = Config::parse(
        r#"
features = ["lh_cnp", "proxy_cn"]
[proxy]
generate = true
domain = ["fd00:a::/32"]
tx_bucket = { refill_clocks = 5000, depth = 2 }
table = [{ prefix = "10.1.0.0/16", proxy = "192.0.2.10" }]
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    use cngw_regmap::proxy;
    for (off, want) in [
        (offset::PROXY_CONTROL, proxy::GENERATE | proxy::FILTER),
        (offset::PROXY_TX_BUCKET_REFILL_CLOCKS, 5000),
        (offset::PROXY_TX_BUCKET_DEPTH, 2),
        (offset::PROXY_RX_BUCKET_REFILL_CLOCKS, 0),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    // Generation alone, no filter: no domain needed.
    let config = Config::parse("[proxy]\ngenerate = true\nborder_filter = false").unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    assert_eq!(dev.bus().peek(offset::PROXY_CONTROL), Some(proxy::GENERATE));
}

/// PX-04: bad proxy values are refused before any write.
#[test]
fn px_04_config_rejects_bad_proxy_values() {
    for (text, key) in [
        ("[proxy]\nenable = true", "proxy.domain"),
        ("[proxy]\nenable = true\ndomain = []", "proxy.domain"),
        ("[proxy]\ngenerate = true", "proxy.domain"),
        (
            "[proxy]\ntx_bucket = { depth = 9 }",
            "proxy.tx_bucket.depth",
        ),
        (
            "[proxy]\ntx_bucket = { refill_clocks = -1 }",
            "proxy.tx_bucket.refill_clocks",
        ),
        ("[proxy]\nudp_port = 0", "proxy.udp_port"),
        ("[proxy]\nudp_port = 65536", "proxy.udp_port"),
        (
            "[proxy]\nrx_bucket = { depth = 0 }",
            "proxy.rx_bucket.depth",
        ),
        ("[proxy]\ndomain = [\"10.0.0.1/8\"]", "proxy.domain[0]"),
        (
            "[proxy]\ndomain = [\"10.0.0.0/8\", \"fd00::/16\", \"fd01::/16\"]",
            "proxy.domain",
        ),
        (
            "[fast_cnp]\ndomain = [\"fd00::/16\"]\n[proxy]\ndomain = [\"fd01::/16\"]",
            "proxy.domain",
        ),
        ("[proxy]\nenabled = true", "enabled"),
        ("[proxy]\nudp_port = 49791", "proxy.udp_port"),
        (
            "[fast_cnp]\nudp_port = 50000\n[proxy]\nudp_port = 50000",
            "proxy.udp_port",
        ),
    ] {
        let err = rejected(text);
        assert!(
            err.to_string().contains(key),
            "{text:?} should be rejected at {key}: {err}"
        );
    }
}

/// PX-03: `[proxy] table` makes the table exactly its entries: each staged
/// and committed with one command write, the other entries cleared.
#[test]
fn px_03_config_proxy_table_plan() {
    use cngw_regmap::proxy;
    let config = Config::parse(
        "[proxy]\ntable = [\n  { prefix = \"10.1.0.0/16\", proxy = \"192.0.2.9\" },\n  \
         { prefix = \"fd00:1::/32\", proxy = \"fd00::9\" },\n]\n",
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    let log = dev.bus().write_log();
    let commits: Vec<usize> = log
        .iter()
        .enumerate()
        .filter(|(_, w)| w.0 == offset::PROXY_ENTRY_COMMAND)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(commits.len(), proxy::ENTRIES as usize);
    // Entry 0: the IPv4 prefix as ::ffff:10.1.0.0/112, its proxy mapped too.
    let before = |k: usize, off: u32| {
        log[..commits[k]]
            .iter()
            .rev()
            .find(|w| w.0 == off)
            .map(|w| w.1)
    };
    assert_eq!(before(0, offset::PROXY_ENTRY_PREFIX_2), Some(0xffff));
    assert_eq!(before(0, offset::PROXY_ENTRY_PREFIX_3), Some(0x0a01_0000));
    assert_eq!(before(0, offset::PROXY_ENTRY_ADDR_3), Some(0xc000_0209));
    assert_eq!(
        before(0, offset::PROXY_ENTRY_CONTROL),
        Some(proxy::ENTRY_VALID | 112 << proxy::ENTRY_LEN_SHIFT)
    );
    assert_eq!(before(1, offset::PROXY_ENTRY_PREFIX_0), Some(0xfd00_0001));
    assert_eq!(before(1, offset::PROXY_ENTRY_INDEX), Some(1));
    assert_eq!(
        before(1, offset::PROXY_ENTRY_CONTROL),
        Some(proxy::ENTRY_VALID | 32 << proxy::ENTRY_LEN_SHIFT)
    );
    for k in 2..proxy::ENTRIES as usize {
        assert_eq!(before(k, offset::PROXY_ENTRY_CONTROL), Some(0), "entry {k}");
        assert_eq!(before(k, offset::PROXY_ENTRY_INDEX), Some(k as u32));
    }
}

/// PX-03: bad table entries are refused before any write.
#[test]
fn px_03_config_rejects_bad_proxy_tables() {
    let many: String = (0..17)
        .map(|i| format!("{{ prefix = \"10.{i}.0.0/16\", proxy = \"192.0.2.9\" }},"))
        .collect();
    for (text, key) in [
        (format!("[proxy]\ntable = [{many}]"), "proxy.table"),
        (
            "[proxy]\ntable = [{ prefix = \"10.1.0.1/16\", proxy = \"192.0.2.9\" }]".to_string(),
            "proxy.table[0].prefix",
        ),
        (
            "[proxy]\ntable = [{ prefix = \"10.1.0.0/16\", proxy = \"fd00::9\" }]".to_string(),
            "proxy.table[0].proxy",
        ),
        (
            "[proxy]\ntable = [{ prefix = \"10.1.0.0/16\", proxy = \"gw\" }]".to_string(),
            "proxy.table[0].proxy",
        ),
        (
            "[proxy]\ntable = [{ prefix = \"10.1.0.0/16\", proxy = \"192.0.2.9\" }, { prefix = \"10.1.0.0/16\", proxy = \"192.0.2.8\" }]".to_string(),
            "proxy.table[1].prefix",
        ),
        (
            "[proxy]\ntable = [{ prefix = \"10.1.0.0/16\" }]".to_string(),
            "proxy",
        ),
    ] {
        let err = rejected(&text);
        assert!(
            err.to_string().contains(key),
            "{text:?} should be rejected at {key}: {err}"
        );
    }
}

/// RA-02: the full `[rate_advice]` example as a register plan: the
/// parameters in offset order, the capable-sender entries and the policy
/// entries (each cleared, its prefix, a policy entry's cap, then its
/// control), `RA_CONTROL` last before FEATURE_ENABLE.
const RATE_ADVICE: &str = r#"
features = ["rate_advice"]
[rate_advice]
law = true
capacity_gbps = 100
interval_us = 1000
rtt_us = 10000
alpha = 0.4
beta = 0.226
min_mbps = 200
flow_spacing_us = 500
opcode = 0x1E
capable = ["10.1.0.0/16", "2001:db8:100::/40"]
policy = [{ prefix = "10.1.2.0/24", mbps = 20000 }]
"#;

#[test]
fn ra_02_config_law_registers() {
    use cngw_regmap::fcn_rx_dom_control::{LEN_SHIFT, VALID};
    let config = Config::parse(RATE_ADVICE).unwrap();
    let mut dev = device();
    let plan = apply_config(&mut dev, &config).unwrap();
    assert_eq!(
        plan.writes,
        [
            (offset::RA_OPCODE, 0x1E),
            (offset::RA_CAPACITY_BYTES_PER_US, 12_500),
            (offset::RA_INTERVAL_US, 1_000),
            (offset::RA_GAINS_Q8, 102 | 58 << 16),
            (offset::RA_T_OVER_D_Q16, 6_554),
            (offset::RA_INV_DC_Q32, 34),
            (offset::RA_MIN_MBPS, 200),
            (offset::RA_FLOW_SPACING_US, 500),
            (offset::RA_DC_CAPACITY_BYTES_PER_US, 12_500),
            (offset::RA_DC_INV_DC_Q32, 34),
            (offset::RA_REMOTE_TIMEOUT_US, 10_000),
            (offset::RA_CAP0_CONTROL, 0),
            (offset::RA_CAP0_PREFIX_0, 0),
            (offset::RA_CAP0_PREFIX_1, 0),
            (offset::RA_CAP0_PREFIX_2, 0xffff),
            (offset::RA_CAP0_PREFIX_3, 0x0a01_0000),
            (offset::RA_CAP0_CONTROL, VALID | 112 << LEN_SHIFT),
            (offset::RA_CAP1_CONTROL, 0),
            (offset::RA_CAP1_PREFIX_0, 0x2001_0db8),
            (offset::RA_CAP1_PREFIX_1, 0x0100_0000),
            (offset::RA_CAP1_PREFIX_2, 0),
            (offset::RA_CAP1_PREFIX_3, 0),
            (offset::RA_CAP1_CONTROL, VALID | 40 << LEN_SHIFT),
            (offset::RA_POLICY0_CONTROL, 0),
            (offset::RA_POLICY0_PREFIX_0, 0),
            (offset::RA_POLICY0_PREFIX_1, 0),
            (offset::RA_POLICY0_PREFIX_2, 0xffff),
            (offset::RA_POLICY0_PREFIX_3, 0x0a01_0200),
            (offset::RA_POLICY0_MBPS, 20_000),
            (offset::RA_POLICY0_CONTROL, VALID | 120 << LEN_SHIFT),
            (offset::RA_POLICY1_CONTROL, 0),
            (offset::RA_PEER0_CONTROL, 0),
            (offset::RA_PEER1_CONTROL, 0),
            (offset::RA_REMOTE_CONTROL, 0),
            (offset::RA_CONTROL, 1),
        ]
    );
    assert_eq!(plan.features, Some(feature::RATE_ADVICE));
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    assert_eq!(dev.bus().write_log(), plan.bus_writes().as_slice());
    assert!(
        plan.to_string()
            .contains("RA_GAINS_Q8 @ 0x870 <- 3801190 (0x3a0066)"),
        "{plan}"
    );
    // What the driver reads back.
    let s = dev.rate_advice().unwrap();
    assert!(s.enabled && s.law);
    assert_eq!(
        (s.opcode, s.capacity, s.interval_us, s.alpha_q8, s.beta_q8),
        (0x1E, 12_500, 1_000, 102, 58)
    );
    assert_eq!((s.t_over_d_q16, s.inv_dc_q32, s.min_mbps), (6_554, 34, 200));
    assert_eq!((s.flow_spacing_us, s.ceiling_mbps()), (500, 100_000));
    let d = s.reaction_time_us().unwrap();
    assert!((d - 10_000.0).abs() < 1.0, "{d}");
    let capable: Vec<String> = s.capable.iter().map(|(i, p)| format!("{i} {p}")).collect();
    assert_eq!(capable, ["0 10.1.0.0/16", "1 2001:db8:100::/40"]);
    let policy: Vec<String> = s
        .policy
        .iter()
        .map(|(i, p, mbps)| format!("{i} {p} {mbps}"))
        .collect();
    assert_eq!(policy, ["0 10.1.2.0/24 20000"]);

    // Every key left out: the registers' reset values (RcpParams::default()
    // of the model), the law on.
    let config = Config::parse("[rate_advice]\ncapable = [\"::/0\"]").unwrap();
    let mut dev = device();
    let plan = apply_config(&mut dev, &config).unwrap();
    let p = cngw_model::rate_advice::RcpParams::default();
    let r = p.registers();
    for (off, want) in [
        (offset::RA_OPCODE, 0x1D),
        (offset::RA_CAPACITY_BYTES_PER_US, p.capacity),
        (offset::RA_INTERVAL_US, p.interval_us),
        (offset::RA_GAINS_Q8, p.alpha_q8 | p.beta_q8 << 16),
        (offset::RA_T_OVER_D_Q16, r.t_over_d_q16),
        (offset::RA_INV_DC_Q32, r.inv_dc_q32),
        (offset::RA_MIN_MBPS, p.min_mbps),
        (offset::RA_FLOW_SPACING_US, 1_000),
        (offset::RA_DC_CAPACITY_BYTES_PER_US, p.capacity),
        (offset::RA_DC_INV_DC_Q32, r.inv_dc_q32),
        (offset::RA_REMOTE_TIMEOUT_US, 10_000),
        (offset::RA_REMOTE_CONTROL, 0),
        (offset::RA_PEER0_CONTROL, 0),
        (offset::RA_PEER1_CONTROL, 0),
        (offset::RA_CAP0_CONTROL, VALID),
        (offset::RA_CONTROL, 1),
    ] {
        let reg = cngw_regmap::by_offset(off).unwrap();
        assert_eq!(dev.bus().peek(off), Some(want), "{}", reg.name);
        if off != offset::RA_CONTROL && off != offset::RA_CAP0_CONTROL {
            assert_eq!(want, reg.reset, "{}", reg.name);
        }
    }
    assert_eq!(plan.features, None);
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    // law = false: the advice is 8 C.
    let config = Config::parse("[rate_advice]\nlaw = false\ncapacity_gbps = 400").unwrap();
    let mut dev = device();
    let plan = apply_config(&mut dev, &config).unwrap();
    assert_eq!(plan.writes.last(), Some(&(offset::RA_CONTROL, 0)));
    assert_eq!(
        dev.bus().peek(offset::RA_CAPACITY_BYTES_PER_US),
        Some(50_000)
    );
}

/// Law parameter sets the ratio tests round: (capacity bytes/us, d us,
/// T us).
const LAW_SETS: [(u32, u32, u32); 9] = [
    (12_500, 10_000, 1_000),
    (12_500, 100, 10),
    (50_000, 2_500, 250),
    (1_250, 30_000, 3_000),
    (1_048_575, 8_000, 7),
    (1, 1, 1),
    (3_125, 777, 333),
    (125_000, 65_000, 65_000),
    (12_345, 123_457, 1),
];

/// RA-02: the host's T/d and 1/(d C) round exactly as the model's
/// `RcpParams::registers()`, for the driver's function and through a
/// configuration file.
#[test]
fn ra_02_config_ratios_round_like_the_model() {
    use cngw_driver::rate_advice::law_registers;
    use cngw_model::rate_advice::RcpParams;
    for (capacity, rtt_us, interval_us) in LAW_SETS {
        let model = RcpParams {
            capacity,
            rtt_us,
            interval_us,
            ..RcpParams::default()
        }
        .registers();
        let host = law_registers(capacity, rtt_us, interval_us);
        assert_eq!(
            (host.t_over_d_q16, host.inv_dc_q32),
            (model.t_over_d_q16, model.inv_dc_q32),
            "C {capacity}, d {rtt_us}, T {interval_us}"
        );
        // The same through [rate_advice] (capacity in Gb/s: bytes/us / 125).
        let gbps = capacity as f64 / 125.0;
        let text = format!(
            "[rate_advice]\ncapacity_gbps = {gbps:?}\nrtt_us = {rtt_us}\ninterval_us = {interval_us}\n\
             min_mbps = 1\n[gateway]\nclocks_per_us = 322\n"
        );
        let plan = Config::parse(&text)
            .unwrap()
            .plan_with(1, |_| unreachable!("no port"))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let at = |off: u32| plan.writes.iter().find(|w| w.0 == off).map(|w| w.1);
        assert_eq!(
            at(offset::RA_CAPACITY_BYTES_PER_US),
            Some(capacity),
            "{text}"
        );
        assert_eq!(
            at(offset::RA_T_OVER_D_Q16),
            Some(model.t_over_d_q16),
            "{text}"
        );
        assert_eq!(at(offset::RA_INV_DC_Q32), Some(model.inv_dc_q32), "{text}");
    }
    // Gains: round(x * 256).
    let plan = Config::parse("[rate_advice]\nalpha = 0.5\nbeta = 1.998")
        .unwrap()
        .plan_with(1, |_| unreachable!())
        .unwrap();
    assert!(
        plan.writes
            .contains(&(offset::RA_GAINS_Q8, 128 | 511 << 16)),
        "{plan}"
    );
}

/// RA-01/RA-02: capable senders and policy entries; entries not listed are
/// cleared; the feature needs a capable prefix, and a table the features
/// leave off is a warning.
#[test]
fn ra_01_config_capable_prefixes_and_policy() {
    use cngw_regmap::fcn_rx_dom_control::{LEN_SHIFT, VALID};
    let config = Config::parse(
        r#"
features = ["lh_ecn_mark", "rate_advice"]
[rate_advice]
capable = ["::/0"]
policy = [
  { prefix = "2001:db8::/32", mbps = 5000 },
  { prefix = "0.0.0.0/0", mbps = 40000 },
]
"#,
    )
    .unwrap();
    let mut dev = device();
    // Entries left over from before: cleared by the new lists.
    dev.write_by_name("RA_CAP1_CONTROL", VALID | 128 << LEN_SHIFT)
        .unwrap();
    dev.bus_mut().clear_log();
    let plan = apply_config(&mut dev, &config).unwrap();
    let bus = dev.bus();
    for (off, want) in [
        (offset::RA_CAP0_CONTROL, VALID),
        (offset::RA_CAP0_PREFIX_0, 0),
        (offset::RA_CAP1_CONTROL, 0),
        (offset::RA_POLICY0_PREFIX_0, 0x2001_0db8),
        (offset::RA_POLICY0_CONTROL, VALID | 32 << LEN_SHIFT),
        (offset::RA_POLICY0_MBPS, 5_000),
        (offset::RA_POLICY1_PREFIX_2, 0xffff),
        (offset::RA_POLICY1_PREFIX_3, 0),
        (offset::RA_POLICY1_CONTROL, VALID | 96 << LEN_SHIFT),
        (offset::RA_POLICY1_MBPS, 40_000),
        (
            offset::FEATURE_ENABLE,
            feature::LH_ECN_MARK | feature::RATE_ADVICE,
        ),
    ] {
        assert_eq!(bus.peek(off), Some(want), "{off:#x}");
    }
    // A cap is in place before its entry turns valid; RA_CONTROL after
    // every entry, FEATURE_ENABLE last.
    let log = bus.write_log();
    let at = |w: (u32, u32)| log.iter().position(|&x| x == w).unwrap();
    assert!(
        at((offset::RA_POLICY1_MBPS, 40_000))
            < at((offset::RA_POLICY1_CONTROL, VALID | 96 << LEN_SHIFT))
    );
    assert!(
        at((offset::RA_POLICY1_CONTROL, VALID | 96 << LEN_SHIFT)) < at((offset::RA_CONTROL, 1))
    );
    assert_eq!(log.last().unwrap().0, offset::FEATURE_ENABLE);
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    let s = dev.rate_advice().unwrap();
    assert_eq!(s.capable.len(), 1);
    assert_eq!(s.capable[0].1.to_string(), "::/0");
    assert_eq!(s.policy[1].1.to_string(), "0.0.0.0/0");

    // The feature without a capable sender: nothing would ever be sent
    // (as [proxy] generate without a domain).
    for text in [
        "features = [\"rate_advice\"]",
        "features = [\"rate_advice\"]\n[rate_advice]\nlaw = true",
        "features = [\"rate_advice\"]\n[rate_advice]\ncapable = []",
    ] {
        let err = rejected(text);
        assert!(
            issues(&err)
                .iter()
                .any(|i| i
                    .starts_with("rate_advice.capable: Rate Advice goes only to capable senders")),
            "{text}: {err}"
        );
    }
    // The table while features leaves rate_advice off: valid, with a warning;
    // without a features key (FEATURE_ENABLE left alone) no warning.
    let config =
        Config::parse("features = [\"lh_ecn_mark\"]\n[rate_advice]\ncapable = [\"10.0.0.0/8\"]")
            .unwrap();
    let mut dev = device();
    let plan = apply_config(&mut dev, &config).unwrap();
    assert_eq!(plan.warnings.len(), 1, "{:?}", plan.warnings);
    assert_eq!(plan.warnings[0].key, "rate_advice");
    assert!(
        plan.warnings[0]
            .message
            .contains("features leaves rate_advice off"),
        "{:?}",
        plan.warnings
    );
    let config = Config::parse("[rate_advice]\ncapable = [\"10.0.0.0/8\"]").unwrap();
    let plan = apply_config(&mut device(), &config).unwrap();
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
}

/// RA-01..RA-03: bad values are refused before any write, each at its key.
#[test]
fn ra_02_config_rejects_bad_values() {
    let policy3 = "[rate_advice]\npolicy = [{ prefix = \"10.1.0.0/16\", mbps = 1 }, \
                   { prefix = \"10.2.0.0/16\", mbps = 1 }, { prefix = \"10.3.0.0/16\", mbps = 1 }]";
    for (text, key, message) in [
        (
            "[rate_advice]\ncapacity_gbps = 0",
            "rate_advice.capacity_gbps",
            "above 0",
        ),
        (
            "[rate_advice]\ncapacity_gbps = -100",
            "rate_advice.capacity_gbps",
            "above 0",
        ),
        (
            "[rate_advice]\ncapacity_gbps = 10000",
            "rate_advice.capacity_gbps",
            "1250000 bytes per microsecond",
        ),
        (
            "[rate_advice]\ncapacity_gbps = 0.001",
            "rate_advice.capacity_gbps",
            "0 bytes per microsecond",
        ),
        (
            "[rate_advice]\ncapacity_gbps = \"100G\"",
            "rate_advice.capacity_gbps",
            "expected a number",
        ),
        (
            "[rate_advice]\ninterval_us = 0",
            "rate_advice.interval_us",
            "outside",
        ),
        (
            "[rate_advice]\ninterval_us = 16777216\nrtt_us = 20000000\ncapacity_gbps = 1",
            "rate_advice.interval_us",
            "outside 1..=16777215",
        ),
        (
            "[gateway]\nclocks_per_us = 100\n[rate_advice]\ninterval_us = 1\nrtt_us = 10",
            "rate_advice.interval_us",
            "interval_us 1 at clocks_per_us 100 is 100 clocks",
        ),
        (
            "[gateway]\nclocks_per_us = 41\n[rate_advice]\ninterval_us = 3\nrtt_us = 10",
            "rate_advice.interval_us",
            "at least 133 clocks per interval (interval_us >= 4",
        ),
        (
            "[rate_advice]\ninterval_us = 20000",
            "rate_advice.interval_us",
            "longer than rtt_us 10000",
        ),
        ("[rate_advice]\nrtt_us = 0", "rate_advice.rtt_us", "outside"),
        (
            "[rate_advice]\nrtt_us = 1000000\ncapacity_gbps = 1000",
            "rate_advice.rtt_us",
            "1/(d C) rounds to 0",
        ),
        (
            "[rate_advice]\nrtt_us = 200000\ninterval_us = 1\ncapacity_gbps = 1",
            "rate_advice.rtt_us",
            "RA_T_OVER_D_Q16",
        ),
        (
            "[rate_advice]\nalpha = 0",
            "rate_advice.alpha",
            "outside (0, 2)",
        ),
        (
            "[rate_advice]\nalpha = 2.0",
            "rate_advice.alpha",
            "outside (0, 2)",
        ),
        (
            "[rate_advice]\nalpha = 1.999",
            "rate_advice.alpha",
            "512/256",
        ),
        ("[rate_advice]\nalpha = 0.001", "rate_advice.alpha", "0/256"),
        (
            "[rate_advice]\nbeta = -0.2",
            "rate_advice.beta",
            "outside (0, 2)",
        ),
        (
            "[rate_advice]\nbeta = \"0.2\"",
            "rate_advice.beta",
            "expected a number",
        ),
        (
            "[rate_advice]\nmin_mbps = 0",
            "rate_advice.min_mbps",
            "outside",
        ),
        (
            "[rate_advice]\nmin_mbps = 100001",
            "rate_advice.min_mbps",
            "outside 1..=100000",
        ),
        (
            "[rate_advice]\nopcode = 256",
            "rate_advice.opcode",
            "outside 0..=255",
        ),
        (
            "[rate_advice]\nflow_spacing_us = -1",
            "rate_advice.flow_spacing_us",
            "outside",
        ),
        (
            "[rate_advice]\ncapable = [\"10.0.0.0/8\", \"fd00::/16\", \"fd01::/16\"]",
            "rate_advice.capable",
            "3 prefixes given; the gateway holds 2",
        ),
        (
            "[rate_advice]\ncapable = [\"10.1.0.1/16\"]",
            "rate_advice.capable[0]",
            "host bits",
        ),
        (
            "[rate_advice]\ncapable = [\"10.1.0.0/33\"]",
            "rate_advice.capable[0]",
            "at most 32",
        ),
        (
            "[rate_advice]\ncapable = [\"10.0.0.0/8\", \"senders\"]",
            "rate_advice.capable[1]",
            "not a prefix",
        ),
        (
            "[rate_advice]\ncapable = [\"::ffff:10.0.0.0/104\"]",
            "rate_advice.capable[0]",
            "10.0.0.0/8",
        ),
        (
            "[rate_advice]\npolicy = [{ prefix = \"10.1.2.0/24\" }]",
            "rate_advice.policy[0].mbps",
            "needs its cap",
        ),
        (
            "[rate_advice]\npolicy = [{ prefix = \"10.1.2.0/24\", mbps = 0 }]",
            "rate_advice.policy[0].mbps",
            "outside 1..=4294967295",
        ),
        (
            "[rate_advice]\npolicy = [{ prefix = \"10.1.2.0/24\", mbps = \"10G\" }]",
            "rate_advice.policy[0].mbps",
            "expected an integer",
        ),
        (
            "[rate_advice]\npolicy = [{ prefix = \"10.1.2.1/24\", mbps = 10 }]",
            "rate_advice.policy[0].prefix",
            "host bits",
        ),
        (policy3, "rate_advice.policy", "3 prefixes given"),
        (
            "[rate_advice]\ncapable = [\"10.0.0.0/8\"]\n[registers]\nRA_OPCODE = 5",
            "rate_advice",
            "sets RA_OPCODE, which registers.RA_OPCODE also sets",
        ),
    ] {
        let err = rejected(text);
        let found = issues(&err);
        assert!(
            found
                .iter()
                .any(|i| i.starts_with(&format!("{key}: ")) && i.contains(message)),
            "{text:?} should be rejected at {key} with {message:?}: {found:#?}"
        );
    }
    // Keys the table does not know, and a policy entry's.
    for (text, message) in [
        ("[rate_advice]\ncapacity = 100", "unknown field `capacity`"),
        (
            "[rate_advice]\npolicy = [{ prefix = \"10.1.2.0/24\", cap = 5 }]",
            "unknown field `cap`",
        ),
        ("[rate_advice]\nlaw = 1", "invalid type"),
    ] {
        let err = rejected(text);
        assert!(matches!(err, ConfigError::Parse { .. }), "{text}: {err}");
        assert!(err.to_string().contains(message), "{text}: {err}");
    }
}

/// RA-01's header indication: `header_bit = true` sets RA_CONTROL's field
/// (with the law's) and is enough capability for `rate_advice` without a
/// prefix; it is off unless given.
#[test]
fn ra_01_config_header_bit() {
    use cngw_regmap::ra_control::{HEADER_BIT, LAW};
    let config = Config::parse(
        r#"
features = ["rate_advice"]
[rate_advice]
header_bit = true
"#,
    )
    .unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    assert_eq!(dev.bus().peek(offset::RA_CONTROL), Some(LAW | HEADER_BIT));
    let config = Config::parse("[rate_advice]\nlaw = false\ncapable = [\"10.0.0.0/8\"]\n").unwrap();
    let mut dev = device();
    apply_config(&mut dev, &config).unwrap();
    assert_eq!(dev.bus().peek(offset::RA_CONTROL), Some(0));
    let err = Config::parse("features = [\"rate_advice\"]\n[rate_advice]\nheader_bit = false\n")
        .and_then(|c| apply_config(&mut device(), &c).map(|_| ()))
        .unwrap_err();
    assert!(err.to_string().contains("header_bit"), "{err}");
}

/// RA-04 remote mode: both peer gateways (IPv4 and IPv6), the data-centre
/// port's capacity and 1/(d C), the timeout and both remote bits.
const RATE_ADVICE_REMOTE: &str = r#"
features = ["rate_advice"]
[rate_advice]
capacity_gbps = 100
dc_capacity_gbps = 50
interval_us = 1000
rtt_us = 10000
remote_send = true
remote_accept = true
remote_timeout_us = 2500
capable = ["10.3.0.0/16"]
[[rate_advice.peer]]
address = "198.51.100.2"
prefix = "10.1.0.0/16"
[[rate_advice.peer]]
address = "2001:db8::2"
prefix = "2001:db8:200::/40"
"#;

/// RA-04: the remote keys as registers: the data-centre port's C and
/// 1/(d C) and the timeout with the other parameters; each peer entry
/// cleared, its prefix and address words (IPv4 as ::ffff:a.b.c.d), then
/// valid with its length; RA_REMOTE_CONTROL after the entries, RA_CONTROL
/// last. The driver reads it all back.
#[test]
fn ra_04_config_remote_registers() {
    use cngw_driver::rate_advice::address_words;
    use cngw_driver::{Prefix, RatePeer};
    use cngw_regmap::fcn_rx_dom_control::{LEN_SHIFT, VALID};
    use cngw_regmap::ra_remote_control::{ACCEPT, SEND};
    let config = Config::parse(RATE_ADVICE_REMOTE).unwrap();
    let mut dev = device();
    let plan = apply_config(&mut dev, &config).unwrap();
    let params = [
        (offset::RA_FLOW_SPACING_US, 1_000),
        (offset::RA_DC_CAPACITY_BYTES_PER_US, 6_250),
        // round(2^32 / (10000 us x 6250 bytes/us)) = round(68.72)
        (offset::RA_DC_INV_DC_Q32, 69),
        (offset::RA_REMOTE_TIMEOUT_US, 2_500),
        (offset::RA_CAP0_CONTROL, 0),
    ];
    assert!(
        plan.writes.windows(params.len()).any(|w| w == params),
        "{plan}"
    );
    let tail = [
        (offset::RA_PEER0_CONTROL, 0),
        (offset::RA_PEER0_PREFIX_0, 0),
        (offset::RA_PEER0_PREFIX_1, 0),
        (offset::RA_PEER0_PREFIX_2, 0xffff),
        (offset::RA_PEER0_PREFIX_3, 0x0a01_0000),
        (offset::RA_PEER0_ADDR_0, 0),
        (offset::RA_PEER0_ADDR_1, 0),
        (offset::RA_PEER0_ADDR_2, 0xffff),
        (offset::RA_PEER0_ADDR_3, 0xc633_6402),
        (offset::RA_PEER0_CONTROL, VALID | 112 << LEN_SHIFT),
        (offset::RA_PEER1_CONTROL, 0),
        (offset::RA_PEER1_PREFIX_0, 0x2001_0db8),
        (offset::RA_PEER1_PREFIX_1, 0x0200_0000),
        (offset::RA_PEER1_PREFIX_2, 0),
        (offset::RA_PEER1_PREFIX_3, 0),
        (offset::RA_PEER1_ADDR_0, 0x2001_0db8),
        (offset::RA_PEER1_ADDR_1, 0),
        (offset::RA_PEER1_ADDR_2, 0),
        (offset::RA_PEER1_ADDR_3, 2),
        (offset::RA_PEER1_CONTROL, VALID | 40 << LEN_SHIFT),
        (offset::RA_REMOTE_CONTROL, SEND | ACCEPT),
        (offset::RA_CONTROL, 1),
    ];
    assert!(plan.writes.ends_with(&tail), "{plan}");
    assert_eq!(plan.features, Some(feature::RATE_ADVICE));
    assert_eq!(dev.bus().write_log(), plan.bus_writes().as_slice());
    assert_eq!(SEND | ACCEPT, 3);
    assert_eq!(
        address_words("198.51.100.2".parse().unwrap()),
        [0, 0, 0xffff, 0xc633_6402]
    );
    // What the driver reads back.
    let s = dev.rate_advice().unwrap();
    assert!(s.remote_send && s.remote_accept);
    assert_eq!(
        (s.remote_timeout_us, s.dc_capacity, s.dc_inv_dc_q32),
        (2_500, 6_250, 69)
    );
    assert_eq!(s.dc_ceiling_mbps(), 50_000);
    assert_eq!(
        s.peers[0].peer,
        Some(RatePeer {
            address: "198.51.100.2".parse().unwrap(),
            prefix: Prefix::parse("10.1.0.0/16").unwrap(),
        })
    );
    assert_eq!(
        s.peers[1].peer,
        Some(RatePeer {
            address: "2001:db8::2".parse().unwrap(),
            prefix: Prefix::parse("2001:db8:200::/40").unwrap(),
        })
    );
    // The advice in force and the counters are the gateway's (RO).
    dev.bus_mut().poke(offset::RA_PEER0_MBPS, 25_000);
    dev.bus_mut().poke(offset::RA_DC_PORT_RATE_MBPS, 31_000);
    dev.bus_mut().poke(offset::RA_REMOTE_SENT, 7);
    dev.bus_mut().poke(offset::RA_REMOTE_RECEIVED, 5);
    dev.bus_mut().poke(offset::RA_REMOTE_REFUSED, 3);
    let s = dev.rate_advice().unwrap();
    assert_eq!((s.peers[0].mbps, s.peers[1].mbps), (25_000, 0));
    assert_eq!(s.dc_port_rate_mbps, 31_000);
    let c = s.counters;
    assert_eq!(
        (c.remote_sent, c.remote_received, c.remote_refused),
        (7, 5, 3)
    );
}

/// RA-04: peers not listed are written invalid, so a re-applied
/// configuration leaves no stale peer; a peer that changes is invalid
/// while its words change; without remote keys remote mode is off.
#[test]
fn ra_04_config_clears_stale_peers() {
    use cngw_regmap::fcn_rx_dom_control::{LEN_SHIFT, VALID};
    let mut dev = device();
    apply_config(&mut dev, &Config::parse(RATE_ADVICE_REMOTE).unwrap()).unwrap();
    assert_eq!(
        dev.bus().peek(offset::RA_PEER1_CONTROL),
        Some(VALID | 40 << LEN_SHIFT)
    );
    dev.bus_mut().clear_log();
    // One peer now, another address: peer 1 cleared, peer 0 rewritten.
    let one = RATE_ADVICE_REMOTE
        .split("[[rate_advice.peer]]\naddress = \"2001:db8::2\"")
        .next()
        .unwrap()
        .replace("198.51.100.2", "198.51.100.9");
    apply_config(&mut dev, &Config::parse(&one).unwrap()).unwrap();
    let bus = dev.bus();
    assert_eq!(bus.peek(offset::RA_PEER1_CONTROL), Some(0));
    assert_eq!(
        bus.peek(offset::RA_PEER0_CONTROL),
        Some(VALID | 112 << LEN_SHIFT)
    );
    assert_eq!(bus.peek(offset::RA_PEER0_ADDR_3), Some(0xc633_6409));
    let log = bus.write_log();
    let first = |w: (u32, u32)| log.iter().position(|&x| x == w).unwrap();
    let last = |w: (u32, u32)| log.iter().rposition(|&x| x == w).unwrap();
    // Peer 0 turns invalid before its address changes and valid after.
    assert!(first((offset::RA_PEER0_CONTROL, 0)) < first((offset::RA_PEER0_ADDR_3, 0xc633_6409)));
    assert!(
        first((offset::RA_PEER0_ADDR_3, 0xc633_6409))
            < last((offset::RA_PEER0_CONTROL, VALID | 112 << LEN_SHIFT))
    );
    // Remote mode switches on only after both peers are written.
    assert!(last((offset::RA_PEER1_CONTROL, 0)) < first((offset::RA_REMOTE_CONTROL, 3)));

    // No peer and no remote key: both invalid, remote mode off, the
    // timeout and the data-centre port back at their reset values.
    apply_config(
        &mut dev,
        &Config::parse("[rate_advice]\ncapable = [\"10.3.0.0/16\"]").unwrap(),
    )
    .unwrap();
    for (off, want) in [
        (offset::RA_PEER0_CONTROL, 0),
        (offset::RA_PEER1_CONTROL, 0),
        (offset::RA_REMOTE_CONTROL, 0),
        (offset::RA_REMOTE_TIMEOUT_US, 10_000),
        (offset::RA_DC_CAPACITY_BYTES_PER_US, 12_500),
        (offset::RA_DC_INV_DC_Q32, 34),
    ] {
        let reg = cngw_regmap::by_offset(off).unwrap();
        assert_eq!(dev.bus().peek(off), Some(want), "{}", reg.name);
    }
    let s = dev.rate_advice().unwrap();
    assert_eq!(s.peers, [Default::default(); 2]);
    assert!(!s.remote_send && !s.remote_accept);
}

/// RA-04: RA_DC_INV_DC_Q32 is computed exactly as RA_INV_DC_Q32 (and the
/// model's `RcpParams::registers()`), from the data-centre capacity and
/// the shared rtt_us; the capacity rounds as capacity_gbps does.
#[test]
fn ra_04_config_dc_ratio_rounds_like_the_wan() {
    use cngw_driver::rate_advice::law_registers;
    use cngw_model::rate_advice::RcpParams;
    for (capacity, rtt_us, interval_us) in LAW_SETS {
        let model = RcpParams {
            capacity,
            rtt_us,
            interval_us,
            ..RcpParams::default()
        }
        .registers();
        let gbps = capacity as f64 / 125.0;
        // The same capacity on both ports: the same ratio, written twice.
        let text = format!(
            "[rate_advice]\ncapacity_gbps = {gbps:?}\ndc_capacity_gbps = {gbps:?}\n\
             rtt_us = {rtt_us}\ninterval_us = {interval_us}\nmin_mbps = 1\n\
             [gateway]\nclocks_per_us = 322\n"
        );
        let plan = Config::parse(&text)
            .unwrap()
            .plan_with(1, |_| unreachable!("no port"))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let at = |off: u32| plan.writes.iter().find(|w| w.0 == off).map(|w| w.1);
        assert_eq!(
            at(offset::RA_DC_CAPACITY_BYTES_PER_US),
            Some(capacity),
            "{text}"
        );
        assert_eq!(
            at(offset::RA_DC_INV_DC_Q32),
            Some(model.inv_dc_q32),
            "{text}"
        );
        assert_eq!(
            at(offset::RA_DC_INV_DC_Q32),
            at(offset::RA_INV_DC_Q32),
            "{text}"
        );
        // A data-centre port at a quarter of the WAN's (at least 1 byte/us):
        // its own C, the shared d.
        let dc = (capacity / 4).max(1);
        let text = format!(
            "[rate_advice]\ncapacity_gbps = {gbps:?}\ndc_capacity_gbps = {:?}\n\
             rtt_us = {rtt_us}\ninterval_us = {interval_us}\nmin_mbps = 1\n",
            dc as f64 / 125.0
        );
        let plan = Config::parse(&text)
            .unwrap()
            .plan_with(1, |_| unreachable!("no port"))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let at = |off: u32| plan.writes.iter().find(|w| w.0 == off).map(|w| w.1);
        let want = RcpParams {
            capacity: dc,
            rtt_us,
            interval_us,
            ..RcpParams::default()
        }
        .registers()
        .inv_dc_q32;
        assert_eq!(law_registers(dc, rtt_us, interval_us).inv_dc_q32, want);
        assert_eq!(at(offset::RA_DC_CAPACITY_BYTES_PER_US), Some(dc), "{text}");
        assert_eq!(at(offset::RA_DC_INV_DC_Q32), Some(want), "{text}");
    }
    // rtt_us alone moves both ratios; the data-centre capacity keeps its
    // reset value (12500 bytes/us).
    let plan = Config::parse("[rate_advice]\nrtt_us = 20000")
        .unwrap()
        .plan_with(1, |_| unreachable!())
        .unwrap();
    let want = law_registers(12_500, 20_000, 1_000).inv_dc_q32;
    assert_eq!(want, 17);
    for w in [
        (offset::RA_DC_CAPACITY_BYTES_PER_US, 12_500),
        (offset::RA_DC_INV_DC_Q32, want),
        (offset::RA_INV_DC_Q32, want),
    ] {
        assert!(plan.writes.contains(&w), "{w:?}: {plan}");
    }
}

/// RA-04: bad remote settings are refused before any write, each at its key.
#[test]
fn ra_04_config_rejects_bad_remote_values() {
    let peer = "[[rate_advice.peer]]\naddress = \"198.51.100.2\"\nprefix = \"10.1.0.0/16\"\n";
    let with_peer = |address: &str, prefix: &str| {
        format!("[[rate_advice.peer]]\naddress = \"{address}\"\nprefix = \"{prefix}\"\n")
    };
    let three = format!(
        "[rate_advice]\n{}{}{}",
        with_peer("198.51.100.2", "10.1.0.0/16"),
        with_peer("198.51.100.3", "10.2.0.0/16"),
        with_peer("198.51.100.4", "10.3.0.0/16")
    );
    let cases: Vec<(String, &str, &str)> = vec![
        (
            "[rate_advice]\ndc_capacity_gbps = 0".into(),
            "rate_advice.dc_capacity_gbps",
            "0 Gb/s: the capacity must be above 0",
        ),
        (
            "[rate_advice]\ndc_capacity_gbps = -50".into(),
            "rate_advice.dc_capacity_gbps",
            "above 0",
        ),
        (
            "[rate_advice]\ndc_capacity_gbps = 10000".into(),
            "rate_advice.dc_capacity_gbps",
            "1250000 bytes per microsecond; RA_DC_CAPACITY_BYTES_PER_US holds 1..=1048575",
        ),
        (
            "[rate_advice]\ndc_capacity_gbps = 0.001".into(),
            "rate_advice.dc_capacity_gbps",
            "0 bytes per microsecond",
        ),
        (
            "[rate_advice]\ndc_capacity_gbps = \"50G\"".into(),
            "rate_advice.dc_capacity_gbps",
            "expected a number",
        ),
        (
            format!(
                "[rate_advice]\nremote_send = true\ncapacity_gbps = 1\nrtt_us = 1000000\n\
                 dc_capacity_gbps = 1000\n{peer}"
            ),
            "rate_advice.dc_capacity_gbps",
            "1/(d C) rounds to 0 in the 2^-32 steps of RA_DC_INV_DC_Q32",
        ),
        (
            format!(
                "[rate_advice]\nremote_send = true\ndc_capacity_gbps = 1\nmin_mbps = 2000\n{peer}"
            ),
            "rate_advice.min_mbps",
            "min_mbps 2000 is above the data-centre port's ceiling 8 C = 1000 Mb/s",
        ),
        (
            "[rate_advice]\nremote_timeout_us = -1".into(),
            "rate_advice.remote_timeout_us",
            "outside 0..=4294967295",
        ),
        (
            "[rate_advice]\nremote_timeout_us = 4294967296".into(),
            "rate_advice.remote_timeout_us",
            "outside 0..=4294967295",
        ),
        (
            "[rate_advice]\nremote_timeout_us = \"10ms\"".into(),
            "rate_advice.remote_timeout_us",
            "expected an integer",
        ),
        (
            "[rate_advice]\nremote_send = true".into(),
            "rate_advice.remote_send",
            "give at least one [[rate_advice.peer]]",
        ),
        (
            "[rate_advice]\nremote_accept = true\npeer = []".into(),
            "rate_advice.remote_accept",
            "give at least one [[rate_advice.peer]]",
        ),
        (
            three,
            "rate_advice.peer",
            "3 peers given; the gateway holds 2",
        ),
        (
            format!("[rate_advice]\n{}", with_peer("gw-2", "10.1.0.0/16")),
            "rate_advice.peer[0].address",
            "\"gw-2\" is not an IPv4 or IPv6 address",
        ),
        (
            format!(
                "[rate_advice]\n{}",
                with_peer("198.51.100.2/32", "10.1.0.0/16")
            ),
            "rate_advice.peer[0].address",
            "is not an IPv4 or IPv6 address",
        ),
        (
            format!(
                "[rate_advice]\n{peer}{}",
                with_peer("224.0.0.1", "10.2.0.0/16")
            ),
            "rate_advice.peer[1].address",
            "224.0.0.1: a peer gateway has a unicast address",
        ),
        (
            format!(
                "[rate_advice]\n{}",
                with_peer("255.255.255.255", "10.1.0.0/16")
            ),
            "rate_advice.peer[0].address",
            "unicast",
        ),
        (
            format!("[rate_advice]\n{}", with_peer("::", "10.1.0.0/16")),
            "rate_advice.peer[0].address",
            "unicast",
        ),
        (
            format!("[rate_advice]\n{}", with_peer("ff02::1", "10.1.0.0/16")),
            "rate_advice.peer[0].address",
            "unicast",
        ),
        (
            format!(
                "[rate_advice]\n{}",
                with_peer("::ffff:198.51.100.2", "10.1.0.0/16")
            ),
            "rate_advice.peer[0].address",
            "give it as the IPv4 address 198.51.100.2",
        ),
        (
            "[rate_advice]\n[[rate_advice.peer]]\nprefix = \"10.1.0.0/16\"".into(),
            "rate_advice.peer[0].address",
            "a peer needs its address",
        ),
        (
            "[rate_advice]\n[[rate_advice.peer]]\naddress = \"198.51.100.2\"".into(),
            "rate_advice.peer[0].prefix",
            "a peer needs the data-centre prefix behind it",
        ),
        (
            format!(
                "[rate_advice]\n{}",
                with_peer("198.51.100.2", "10.1.0.1/16")
            ),
            "rate_advice.peer[0].prefix",
            "10.1.0.1/16 has host bits set: the prefix is 10.1.0.0/16",
        ),
        (
            format!(
                "[rate_advice]\n{peer}{}",
                with_peer("2001:db8::2", "2001:db8:200::1/40")
            ),
            "rate_advice.peer[1].prefix",
            "host bits",
        ),
        (
            format!(
                "[rate_advice]\n{}",
                with_peer("198.51.100.2", "10.1.0.0/33")
            ),
            "rate_advice.peer[0].prefix",
            "at most 32",
        ),
        (
            format!("[rate_advice]\n{}", with_peer("198.51.100.2", "dc-2")),
            "rate_advice.peer[0].prefix",
            "not a prefix",
        ),
        (
            format!(
                "[rate_advice]\n{}",
                with_peer("198.51.100.2", "::ffff:10.0.0.0/104")
            ),
            "rate_advice.peer[0].prefix",
            "give it as the IPv4 prefix 10.0.0.0/8",
        ),
        (
            format!("[rate_advice]\nremote_send = true\n{peer}[registers]\nRA_REMOTE_CONTROL = 1"),
            "rate_advice",
            "sets RA_REMOTE_CONTROL, which registers.RA_REMOTE_CONTROL also sets",
        ),
        (
            format!("[rate_advice]\n{peer}[registers]\nRA_PEER0_ADDR_3 = 1"),
            "rate_advice",
            "sets RA_PEER0_ADDR_3, which registers.RA_PEER0_ADDR_3 also sets",
        ),
    ];
    for (text, key, message) in &cases {
        let err = rejected(text);
        let found = issues(&err);
        assert!(
            found
                .iter()
                .any(|i| i.starts_with(&format!("{key}: ")) && i.contains(message)),
            "{text:?} should be rejected at {key} with {message:?}: {found:#?}"
        );
    }
    // Keys the table and a peer do not know; wrong types.
    for (text, message) in [
        (
            "[rate_advice]\n[[rate_advice.peer]]\naddr = \"198.51.100.2\"\nprefix = \"10.1.0.0/16\"",
            "unknown field `addr`",
        ),
        ("[rate_advice]\nremote_send = 1", "invalid type"),
        ("[rate_advice]\nremote_accept = \"yes\"", "invalid type"),
        ("[rate_advice]\npeers = []", "unknown field `peers`"),
    ] {
        let err = rejected(text);
        assert!(matches!(err, ConfigError::Parse { .. }), "{text}: {err}");
        assert!(err.to_string().contains(message), "{text}: {err}");
    }
    // The data-centre port's ratio and floor matter only with remote_send:
    // without it the same settings are accepted.
    for text in [
        "[rate_advice]\ncapacity_gbps = 1\nrtt_us = 1000000\ndc_capacity_gbps = 1000",
        "[rate_advice]\ndc_capacity_gbps = 1\nmin_mbps = 2000",
    ] {
        let config = Config::parse(text).unwrap();
        apply_config(&mut device(), &config).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

/// RA-04: remote_send is enough for the feature without a capable prefix
/// (the peers are sent advice); remote_accept is not (its cap only reaches
/// capable senders).
#[test]
fn ra_04_config_remote_send_needs_no_capable_sender() {
    let peer = "[[rate_advice.peer]]\naddress = \"198.51.100.2\"\nprefix = \"10.1.0.0/16\"\n";
    let config = Config::parse(&format!(
        "features = [\"rate_advice\"]\n[rate_advice]\nremote_send = true\n{peer}"
    ))
    .unwrap();
    let plan = apply_config(&mut device(), &config).unwrap();
    assert_eq!(plan.features, Some(feature::RATE_ADVICE));
    let err = rejected(&format!(
        "features = [\"rate_advice\"]\n[rate_advice]\nremote_accept = true\n{peer}"
    ));
    assert!(
        issues(&err)
            .iter()
            .any(|i| i.starts_with("rate_advice.capable: Rate Advice goes only to capable senders")),
        "{err}"
    );
}

/// RA-04: the example pair of examples/rate-advice/ parses and applies:
/// each gateway the other's peer, the egress one sending (to the WAN next
/// hop [tunnel] next_hop_mac), the source one accepting.
#[test]
fn ra_04_remote_examples_apply() {
    use cngw_regmap::fcn_rx_dom_control::{LEN_SHIFT, VALID};
    use cngw_regmap::ra_remote_control::{ACCEPT, SEND};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/rate-advice");
    // (file, its own address, the peer's address, the prefix behind the
    // peer, RA_REMOTE_CONTROL)
    for (file, own, peer, prefix, control) in [
        (
            "remote-egress.toml",
            0xc633_6401,
            0xc633_6402,
            0x0a01_0000,
            SEND,
        ),
        (
            "remote-source.toml",
            0xc633_6402,
            0xc633_6401,
            0x0a02_0000,
            ACCEPT,
        ),
    ] {
        let config = Config::load(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut dev = device();
        let plan = apply_config(&mut dev, &config).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(plan.warnings.is_empty(), "{file}: {:?}", plan.warnings);
        assert_eq!(plan.features, Some(feature::RATE_ADVICE), "{file}");
        let bus = dev.bus();
        for (off, want) in [
            (offset::RA_REMOTE_CONTROL, control),
            (offset::RA_CONTROL, 1),
            (offset::RA_PEER0_ADDR_2, 0xffff),
            (offset::RA_PEER0_ADDR_3, peer),
            (offset::RA_PEER0_PREFIX_2, 0xffff),
            (offset::RA_PEER0_PREFIX_3, prefix),
            (offset::RA_PEER0_CONTROL, VALID | 112 << LEN_SHIFT),
            (offset::RA_PEER1_CONTROL, 0),
            (offset::GW_IPV4, own),
            (offset::FEATURE_ENABLE, feature::RATE_ADVICE),
        ] {
            let reg = cngw_regmap::by_offset(off).unwrap();
            assert_eq!(bus.peek(off), Some(want), "{file}: {}", reg.name);
        }
        if control == SEND {
            // The messages go to the WAN next hop; the egress law's C.
            assert_eq!(bus.peek(offset::TUNNEL_NEXT_HOP_MAC_HI), Some(0x0200));
            assert_eq!(bus.peek(offset::TUNNEL_NEXT_HOP_MAC_LO), Some(0x0000_0e01));
            assert_eq!(bus.peek(offset::RA_DC_CAPACITY_BYTES_PER_US), Some(6_250));
            assert_eq!(bus.peek(offset::RA_DC_INV_DC_Q32), Some(69));
            assert_eq!(bus.peek(offset::RA_CAP0_CONTROL), Some(0));
        } else {
            assert_eq!(bus.peek(offset::RA_REMOTE_TIMEOUT_US), Some(10_000));
            assert_eq!(
                bus.peek(offset::RA_CAP0_CONTROL),
                Some(VALID | 112 << LEN_SHIFT)
            );
            assert_eq!(bus.peek(offset::RA_CAP0_PREFIX_3), Some(0x0a01_0000));
        }
    }
}
