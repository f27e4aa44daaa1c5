//! `cngw shaper` against the simulator (PE-05), and every example
//! configuration under `examples/` passing `cngw config check`.

mod common;
use common::{cngw, scratch};
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// The example's shaper as the device reads back after `--config`, in
/// Gb/s and bytes per microsecond; no traffic has crossed the fresh
/// simulator, so no flow is shaped.
#[test]
fn pe_05_shaper_reads_back_the_configured_shaper() {
    let file = examples().join("tunnel/ingress-pe-srv6-shaper.toml");
    let run = cngw(&argv!["shaper", "--config", file]).expect_ok();
    assert_eq!(
        run.stdout,
        "shaper: on; alternate path: on (TUNNEL_ALT_SID*, 2 SIDs) at 50.00 Gb/s or below, back at \
         80.00 Gb/s\n\
         rate 10.00 to 100.00 Gb/s (1250 to 12500 bytes/us); each light notification cuts rate >> \
         3; +10.00 Gb/s every 55 quiet us; burst 65536 bytes\n\
         SLOT  LABEL  FLOW  GBPS  TOKENS  PATH  WAITING\n\
         0 flow(s) shaped; shaped frames 0, notifications taken 0, dropped (slots full) 0, \
         reroutes 0, returns 0\n"
    );
    assert!(run.stderr.contains("no flow is shaped"), "{}", run.stderr);
    let run = cngw(&argv!["shaper", "--json", "--config", file]).expect_ok();
    for needle in [
        "\"enabled\": true",
        "\"alternate_two_sids\": true",
        "\"max_rate_bytes_per_us\": 12500",
        "\"burst_bytes\": 65536",
        "\"slots\": [],",
    ] {
        assert!(run.stdout.contains(needle), "{needle}: {}", run.stdout);
    }
    // After reset: off, the register map's defaults.
    let run = cngw(&["shaper"]).expect_ok();
    assert!(
        run.stdout
            .starts_with("shaper: off; alternate path: off\nrate 10.00 to 100.00 Gb/s"),
        "{}",
        run.stdout
    );
}

/// A shaper the configuration rejects: nothing is written, the key is named.
#[test]
fn pe_05_shaper_rejects_a_bad_configuration_before_writing() {
    let text = std::fs::read_to_string(examples().join("tunnel/ingress-pe-srv6-shaper.toml"))
        .unwrap()
        .replace("burst = \"64K\"", "burst = \"1K\"");
    let file = scratch("shaper_bad").join("bad.toml");
    std::fs::write(&file, text).unwrap();
    let run =
        cngw(&argv!["--verbose", "shaper", "--config", file]).expect_err("tunnel.shaper.burst");
    assert!(run.bus_writes().is_empty(), "{:?}", run.bus_writes());
}

/// Every configuration under examples/ is valid for this gateway.
#[test]
fn hw_04_every_example_configuration_checks() {
    let mut files = Vec::new();
    let mut dirs = vec![examples()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                // Scenario files (`cngw scenario`) are not device
                // configurations; tools/tests/scenario.rs runs them.
                if !p.ends_with("scenarios") {
                    dirs.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "toml") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 3, "{files:?}");
    for f in &files {
        cngw(&argv!["config", "check", f]).expect_ok();
    }
}
