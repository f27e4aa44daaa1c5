//! `cngw rate-advice status` against the simulator (RA-01..RA-03): the
//! example configuration's law settings, capable senders and policy caps
//! read back from the gateway with its advice and counters; bad arguments
//! and configurations refused before any register write.

mod common;
use common::{cngw, counter, scratch};
use std::path::{Path, PathBuf};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/rate-advice/near-source.toml")
}

/// Asserts that `out` holds every one of `parts` (`context` names the
/// case in the message).
fn assert_contains_all(out: &str, context: &str, parts: &[&str]) {
    for part in parts {
        assert!(out.contains(part), "{context}: {part:?} missing:\n{out}");
    }
}

#[test]
fn ra_01_status_shows_the_configured_example() {
    let run = cngw(&argv![
        "--verbose",
        "rate-advice",
        "status",
        "--config",
        example()
    ])
    .expect_ok();
    let out = &run.stdout;
    assert_contains_all(
        out,
        "status output",
        &[
            "rate advice: on (FEATURE_ENABLE.rate_advice)\n",
            "law: on (RCP every 1000 us); capacity 12500 bytes/us (100.00 Gb/s); the advice stays \
             within [100, 100000] Mb/s\n",
            "  T/d 6554/65536 (0.1000), 1/(d C) 34/2^32, alpha 102/256 (0.398), beta 58/256 (0.227)\n",
            "messages: BTH opcode 0x1d; a changed advice at most once per 1000 us per flow\n",
            "capable senders (RA-01):\n  0  10.1.0.0/16\n  1  2001:db8:100::/40\n",
            "policy caps (RA-02):\n  0  10.1.2.0/24  20000 Mb/s\n",
        ],
    );
    // The port's advice is a number of Mb/s within [min, 8 C] once the law
    // runs; no traffic crossed the fresh simulator, so no message was sent.
    assert!(
        out.lines()
            .any(|l| l.starts_with("advice of the port: ")
                && l.ends_with(" Mb/s (RA_PORT_RATE_MBPS)")),
        "{out}"
    );
    for name in ["RA_SENT", "RA_HELD", "RA_NO_SQP", "RA_QUEUE_DROPS"] {
        assert_eq!(counter(out, name), Some(0), "{name}: {out}");
    }
    // The configuration went in first: RA_CONTROL after the entries,
    // FEATURE_ENABLE last; nothing is written after it (status only reads).
    let writes = run.bus_writes();
    let at = |reg: &str| {
        writes
            .iter()
            .rposition(|w| w.ends_with(&format!("({reg})")))
    };
    assert!(at("RA_POLICY0_CONTROL") < at("RA_CONTROL"), "{writes:?}");
    assert!(
        writes.last().unwrap().ends_with("(FEATURE_ENABLE)"),
        "{writes:?}"
    );
    assert!(run.stderr.contains("note: applied"), "{}", run.stderr);

    let run = cngw(&argv![
        "rate-advice",
        "status",
        "--json",
        "--config",
        example()
    ])
    .expect_ok();
    assert_contains_all(
        &run.stdout,
        "status output",
        &[
            "{\"tool\": \"cngw rate-advice status\", \"schema_version\": 1, \"enabled\": true, \
             \"law\": true, ",
            "\"capacity_bytes_per_us\": 12500, \"ceiling_mbps\": 100000, \"interval_us\": 1000, \
             \"alpha_q8\": 102, \"beta_q8\": 58, \"t_over_d_q16\": 6554, \"inv_dc_q32\": 34, \
             \"min_mbps\": 100, \"flow_spacing_us\": 1000, \"opcode\": 29, ",
            "\"capable\": [{\"index\": 0, \"prefix\": \"10.1.0.0/16\"}, {\"index\": 1, \"prefix\": \
             \"2001:db8:100::/40\"}], ",
            "\"policy\": [{\"index\": 0, \"prefix\": \"10.1.2.0/24\", \"mbps\": 20000}], ",
            "\"counters\": {\"sent\": 0, \"held\": 0, \"no_sqp\": 0, \"queue_drops\": 0}}\n",
        ],
    );
}

/// Other settings read back as written: the law off, another capacity,
/// interval, opcode, an IPv6 capable prefix for every sender.
#[test]
fn ra_02_status_reads_back_other_settings() {
    let file = scratch("rate_advice_other").join("gw.toml");
    std::fs::write(
        &file,
        "features = [\"rate_advice\"]\n[rate_advice]\nlaw = false\ncapacity_gbps = 400\n\
         interval_us = 100\nrtt_us = 100\nalpha = 0.5\nbeta = 0.25\nmin_mbps = 1000\nopcode = 0xC8\n\
         capable = [\"::/0\"]\n",
    )
    .unwrap();
    let run = cngw(&argv!["rate-advice", "status", "--config", file]).expect_ok();
    let out = &run.stdout;
    assert_contains_all(
        out,
        "status output",
        &[
            "law: off; the advice is 8 C = 400000 Mb/s (capacity 50000 bytes/us, 400.00 Gb/s), \
             capped by the policy entries\n",
            "  T/d 65536/65536 (1.0000), 1/(d C) 859/2^32, alpha 128/256 (0.500), beta 64/256 \
             (0.250)\n",
            "messages: BTH opcode 0xc8;",
            "capable senders (RA-01):\n  0  ::/0\n",
            "policy caps (RA-02): none\n",
        ],
    );
    // After reset: off, the registers' reset values, no entry.
    let run = cngw(&["rate-advice", "status"]).expect_ok();
    assert!(
        run.stdout
            .starts_with("rate advice: off (FEATURE_ENABLE.rate_advice)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("capable senders (RA-01): none (no sender is sent Rate Advice)\n"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("fresh simulator"), "{}", run.stderr);
}

/// Bad arguments and configurations: a clear message, a non-zero status,
/// no register written.
#[test]
fn ra_02_status_bad_arguments_are_refused_before_any_write() {
    let dir = scratch("rate_advice_bad");
    let text = std::fs::read_to_string(example()).unwrap();
    let variants = [
        (
            "capacity.toml",
            text.replace("capacity_gbps = 100 ", "capacity_gbps = 0 "),
            "rate_advice.capacity_gbps: 0 Gb/s: the capacity must be above 0",
        ),
        (
            "interval.toml",
            text.replace(
                "features = [\"rate_advice\"]",
                "features = [\"rate_advice\"]\n[gateway]\nclocks_per_us = 100",
            )
            .replace("interval_us = 1000 ", "interval_us = 1 "),
            "interval_us 1 at clocks_per_us 100 is 100 clocks",
        ),
        (
            "capable.toml",
            text.replace(
                "  \"2001:db8:100::/40\",",
                "  \"2001:db8:100::/40\", \"fd00::/8\",",
            ),
            "rate_advice.capable: 3 prefixes given; the gateway holds 2",
        ),
        (
            "prefix.toml",
            text.replace("10.1.0.0/16", "10.1.0.1/16"),
            "rate_advice.capable[0]: 10.1.0.1/16 has host bits set",
        ),
        (
            "alpha.toml",
            text.replace("alpha = 0.4", "alpha = 2.5"),
            "rate_advice.alpha: 2.5 is outside (0, 2)",
        ),
        (
            "policy.toml",
            text.replace(", mbps = 20000", ""),
            "rate_advice.policy[0].mbps: a policy entry needs its cap",
        ),
        (
            "no_capable.toml",
            text.replace("capable = [", "capable_off = ["),
            "unknown field `capable_off`",
        ),
        (
            "feature.toml",
            "features = [\"rate_advice\"]\n".to_string(),
            "rate_advice.capable: Rate Advice goes only to capable senders",
        ),
    ];
    for (name, body, needle) in &variants {
        let file = dir.join(name);
        std::fs::write(&file, body).unwrap();
        for args in [
            argv!["--verbose", "rate-advice", "status", "--config", file].to_vec(),
            argv!["--verbose", "config", "check", file].to_vec(),
        ] {
            let run = cngw(&args).expect_err(needle);
            assert!(
                run.bus_writes().is_empty(),
                "{name}: {:?}",
                run.bus_writes()
            );
        }
    }
    for (args, needle) in [
        (
            argv![
                "--verbose",
                "rate-advice",
                "status",
                "--config",
                dir.join("missing.toml")
            ]
            .to_vec(),
            "missing.toml",
        ),
        (argv!["--verbose", "rate-advice"].to_vec(), "Usage"),
        (
            argv!["--verbose", "rate-advice", "show"].to_vec(),
            "unrecognized subcommand",
        ),
        (
            argv!["--verbose", "rate-advice", "status", "--jsn"].to_vec(),
            "--jsn",
        ),
        (
            argv!["--verbose", "rate-advice", "status", "10.1.0.0/16"].to_vec(),
            "unexpected argument",
        ),
    ] {
        let run = cngw(&args).expect_err(needle);
        assert!(
            run.bus_writes().is_empty(),
            "{args:?}: {:?}",
            run.bus_writes()
        );
    }
}

/// A [rate_advice] table while features leaves the feature off: valid,
/// with a warning.
#[test]
fn ra_01_config_warns_when_features_leave_rate_advice_off() {
    let file = scratch("rate_advice_warning").join("gw.toml");
    std::fs::write(
        &file,
        "features = [\"lh_ecn_mark\"]\n[rate_advice]\ncapable = [\"10.1.0.0/16\"]\n",
    )
    .unwrap();
    let run = cngw(&argv!["config", "check", file]).expect_ok();
    assert!(
        run.stderr
            .contains("warning: rate_advice: set up, but features leaves rate_advice off"),
        "{}",
        run.stderr
    );
    let run = cngw(&argv!["rate-advice", "status", "--config", file]).expect_ok();
    assert!(
        run.stderr.contains("warning: rate_advice:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .starts_with("rate advice: off (FEATURE_ENABLE.rate_advice)\n"),
        "{}",
        run.stdout
    );
}

fn remote_example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/rate-advice")
        .join(name)
}

/// RA-04: the remote-mode example pair applies on the simulator and
/// `status` reads it back: the egress gateway sends the data-centre port's
/// advice to its peer, the source gateway accepts its peer's; text and JSON.
#[test]
fn ra_04_status_shows_the_remote_examples() {
    for (file, remote, dc, peer) in [
        (
            "remote-egress.toml",
            "remote mode (RA-04): send on, accept off (RA_REMOTE_CONTROL)\n",
            "capacity 6250 bytes/us (50.00 Gb/s, ceiling 50000 Mb/s), 1/(d C) 69/2^32\n",
            "  peer 0: 198.51.100.2 in front of 10.1.0.0/16; ",
        ),
        (
            "remote-source.toml",
            "remote mode (RA-04): send off, accept on (RA_REMOTE_CONTROL)\n",
            "capacity 12500 bytes/us (100.00 Gb/s, ceiling 100000 Mb/s), 1/(d C) 34/2^32\n",
            "  peer 0: 198.51.100.1 in front of 10.2.0.0/16; ",
        ),
    ] {
        let path = remote_example(file);
        let run = cngw(&argv!["config", "check", path]).expect_ok();
        assert!(!run.stderr.contains("warning"), "{file}: {}", run.stderr);
        let run = cngw(&argv![
            "--verbose",
            "rate-advice",
            "status",
            "--config",
            path
        ])
        .expect_ok();
        let out = &run.stdout;
        assert_contains_all(
            out,
            file,
            &[
                "rate advice: on (FEATURE_ENABLE.rate_advice)\n",
                remote,
                dc,
                "  a peer's advice lapses 10000 us after its last message (RA_REMOTE_TIMEOUT_US)\n",
                peer,
                "  peer 1: not in use\n",
            ],
        );
        // The data-centre port's advice is a number of Mb/s.
        assert!(
            out.lines().any(|l| l
                .strip_prefix("  advice of the data-centre port: ")
                .and_then(|r| r.split(' ').next())
                .is_some_and(|n| n.parse::<u32>().is_ok())),
            "{file}: {out}"
        );
        // Nothing came from the WAN on the fresh simulator.
        for name in ["RA_REMOTE_RECEIVED", "RA_REMOTE_REFUSED"] {
            assert_eq!(counter(out, name), Some(0), "{file}: {name}: {out}");
        }
        assert!(counter(out, "RA_REMOTE_SENT").is_some(), "{file}: {out}");
        // The peer is written invalid first and valid last; remote mode
        // switches on after it, FEATURE_ENABLE last.
        let writes = run.bus_writes();
        let first = |reg: &str| {
            writes
                .iter()
                .position(|w| w.ends_with(&format!("({reg})")))
                .unwrap_or_else(|| panic!("{file}: no write to {reg}: {writes:?}"))
        };
        let last = |reg: &str| {
            writes
                .iter()
                .rposition(|w| w.ends_with(&format!("({reg})")))
                .unwrap()
        };
        assert!(
            first("RA_PEER0_CONTROL") < first("RA_PEER0_ADDR_3"),
            "{writes:?}"
        );
        assert!(
            first("RA_PEER0_PREFIX_3") < last("RA_PEER0_CONTROL"),
            "{writes:?}"
        );
        assert!(
            last("RA_PEER0_ADDR_3") < last("RA_PEER0_CONTROL"),
            "{writes:?}"
        );
        assert!(
            last("RA_PEER1_CONTROL") < first("RA_REMOTE_CONTROL"),
            "{writes:?}"
        );
        assert!(
            writes.last().unwrap().ends_with("(FEATURE_ENABLE)"),
            "{writes:?}"
        );
    }

    let run = cngw(&argv![
        "rate-advice",
        "status",
        "--json",
        "--config",
        remote_example("remote-egress.toml")
    ])
    .expect_ok();
    assert_contains_all(
        &run.stdout,
        "status output",
        &[
            "\"remote\": {\"send\": true, \"accept\": false, \"timeout_us\": 10000, \
             \"dc_port_rate_mbps\": ",
            "\"dc_capacity_bytes_per_us\": 6250, \"dc_ceiling_mbps\": 50000, \"dc_inv_dc_q32\": 69, \
             \"peers\": [{\"index\": 0, \"valid\": true, \"address\": \"198.51.100.2\", \"prefix\": \
             \"10.1.0.0/16\", \"mbps\": 0}, {\"index\": 1, \"valid\": false, \"address\": null, \
             \"prefix\": null, \"mbps\": 0}], \"counters\": {\"sent\": ",
            "\"received\": 0, \"refused\": 0}}, \"counters\": {\"sent\": 0, ",
        ],
    );
    // After reset: remote mode off, no peer, the reset timeout.
    let run = cngw(&["rate-advice", "status"]).expect_ok();
    assert_contains_all(
        &run.stdout,
        "status output",
        &[
            "remote mode (RA-04): send off, accept off (RA_REMOTE_CONTROL)\n",
            "  advice of the data-centre port: 100000 Mb/s (RA_DC_PORT_RATE_MBPS); capacity 12500 \
             bytes/us (100.00 Gb/s, ceiling 100000 Mb/s), 1/(d C) 34/2^32\n",
            "  a peer's advice lapses 10000 us after its last message (RA_REMOTE_TIMEOUT_US)\n",
            "  peer 0: not in use\n  peer 1: not in use\n",
        ],
    );
}

/// RA-04: an IPv6 peer and the other remote keys read back from the
/// simulator as written.
#[test]
fn ra_04_status_reads_back_an_ipv6_peer() {
    let file = scratch("rate_advice_remote_v6").join("gw.toml");
    std::fs::write(
        &file,
        "features = [\"rate_advice\"]\n[rate_advice]\ncapable = [\"2001:db8:100::/40\"]\n\
         remote_accept = true\nremote_timeout_us = 0\ndc_capacity_gbps = 400\n\
         [[rate_advice.peer]]\naddress = \"198.51.100.1\"\nprefix = \"10.2.0.0/16\"\n\
         [[rate_advice.peer]]\naddress = \"2001:db8::1\"\nprefix = \"2001:db8:200::/40\"\n",
    )
    .unwrap();
    let run = cngw(&argv!["rate-advice", "status", "--config", file]).expect_ok();
    assert_contains_all(
        &run.stdout,
        "status output",
        &[
            "remote mode (RA-04): send off, accept on (RA_REMOTE_CONTROL)\n",
            "capacity 50000 bytes/us (400.00 Gb/s, ceiling 400000 Mb/s), 1/(d C) 9/2^32\n",
            "  a peer's advice never lapses (RA_REMOTE_TIMEOUT_US 0)\n",
            "  peer 0: 198.51.100.1 in front of 10.2.0.0/16; no advice in force (none received, or \
             lapsed)\n",
            "  peer 1: 2001:db8::1 in front of 2001:db8:200::/40; no advice in force (none received, \
             or lapsed)\n",
        ],
    );
}

/// RA-04: bad remote settings in the examples are refused before any
/// register write, by `status --config` and by `config check`.
#[test]
fn ra_04_status_bad_remote_config_is_refused_before_any_write() {
    let dir = scratch("rate_advice_remote_bad");
    let egress = std::fs::read_to_string(remote_example("remote-egress.toml")).unwrap();
    let source = std::fs::read_to_string(remote_example("remote-source.toml")).unwrap();
    let variants = [
        (
            "no_peer.toml",
            egress.replace("[[rate_advice.peer]]", "[[rate_advice.peer_off]]"),
            "unknown field `peer_off`",
        ),
        (
            "no_peer_accept.toml",
            source
                .split("[[rate_advice.peer]]")
                .next()
                .unwrap()
                .to_string(),
            "rate_advice.remote_accept: remote mode works between peer gateways",
        ),
        (
            "three.toml",
            format!(
                "{egress}[[rate_advice.peer]]\naddress = \"198.51.100.3\"\nprefix = \"10.3.0.0/16\"\n\
                 [[rate_advice.peer]]\naddress = \"198.51.100.4\"\nprefix = \"10.4.0.0/16\"\n"
            ),
            "rate_advice.peer: 3 peers given; the gateway holds 2",
        ),
        (
            "address.toml",
            egress.replace("address = \"198.51.100.2\"", "address = \"198.51.100.256\""),
            "rate_advice.peer[0].address: \"198.51.100.256\" is not an IPv4 or IPv6 address",
        ),
        (
            "host_bits.toml",
            source.replace("prefix = \"10.2.0.0/16\"", "prefix = \"10.2.0.1/16\""),
            "rate_advice.peer[0].prefix: 10.2.0.1/16 has host bits set",
        ),
        (
            "dc_capacity.toml",
            egress.replace("dc_capacity_gbps = 50 ", "dc_capacity_gbps = 9000 "),
            "rate_advice.dc_capacity_gbps: 9000 Gb/s is 1125000 bytes per microsecond",
        ),
        (
            "timeout.toml",
            source.replace("remote_timeout_us = 10000", "remote_timeout_us = -5"),
            "rate_advice.remote_timeout_us: -5 is outside",
        ),
    ];
    for (name, body, needle) in &variants {
        let file = dir.join(name);
        std::fs::write(&file, body).unwrap();
        for args in [
            argv!["--verbose", "rate-advice", "status", "--config", file].to_vec(),
            argv!["--verbose", "config", "check", file].to_vec(),
        ] {
            let run = cngw(&args).expect_err(needle);
            assert!(
                run.bus_writes().is_empty(),
                "{name}: {:?}",
                run.bus_writes()
            );
        }
    }
}
