//! `cngw adjust` (LH-11) on the simulator: the loop reacts to the gauges of
//! the Verilated gateway, and bad arguments never reach a register.

mod common;
use common::{cngw, scratch, Run};

/// 100 Gb/s, RTT_est 100 us (K_max 1.25 MB at alpha 1), CE marking on,
/// the internal virtual queue draining at `DRAIN`.
const CONFIG: &str = r#"
features = ["lh_ecn_mark"]
[port.0]
rate = "100G"
rtt = "100us"
alpha = ALPHA
k_base = "64K"
[meter.0]
queue = "internal"
drain = "DRAIN"
[adjust]
persist = 1
"#;

fn config(test: &str, alpha: &str, drain: &str) -> std::path::PathBuf {
    let file = scratch(test).join("gw.toml");
    let text = CONFIG.replace("ALPHA", alpha).replace("DRAIN", drain);
    std::fs::write(&file, text).unwrap();
    file
}

/// The number after `"key": ` in `text`.
fn field(text: &str, key: &str) -> u64 {
    let pattern = format!("\"{key}\": ");
    let at = text
        .find(&pattern)
        .unwrap_or_else(|| panic!("{key} in {text}"))
        + pattern.len();
    text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Per JSON step: zone, utilisation (x1000), and K_min, K_max after the step.
fn steps(run: &Run) -> Vec<(String, u64, u64, u64)> {
    run.stdout
        .lines()
        .map(|line| {
            assert!(line.starts_with("{\"tool\": \"cngw adjust\", \"schema_version\": 1"));
            let zone = line.split("\"zone\": \"").nth(1).unwrap();
            let zone = zone[..zone.find('"').unwrap()].to_string();
            let utilisation = line.split("\"utilisation\": ").nth(1).unwrap();
            let utilisation: f64 = utilisation[..utilisation.find(',').unwrap()]
                .parse()
                .unwrap();
            let after = &line[line.find("\"thresholds\"").unwrap()..];
            (
                zone,
                (utilisation * 1000.0).round() as u64,
                field(after, "k_min_bytes"),
                field(after, "k_max_bytes"),
            )
        })
        .collect()
}

/// Replays the logged writes of K_min (0x110) and K_max (0x114) from their
/// reset values and checks K_min < K_max after every one.
fn assert_k_min_below_k_max(run: &Run) {
    let (mut k_min, mut k_max) = (62_500_000u64, 125_000_000u64);
    for line in run.bus_writes() {
        let value = |l: &str| {
            let hex = l.split("<- 0x").nth(1).unwrap();
            u64::from_str_radix(&hex[..8], 16).unwrap()
        };
        if line.contains("(PORT0_K_MIN_BYTES)") {
            k_min = value(line);
        } else if line.contains("(PORT0_K_MAX_BYTES)") {
            k_max = value(line);
        }
        assert!(k_min < k_max, "K_min {k_min} >= K_max {k_max} at {line}");
    }
}

#[test]
fn lh_11_adjust_lowers_k_max_under_a_standing_queue() {
    // 100 Gb/s offered into a 50 Gb/s drain: the queue stands above K_min
    // with the link full; alpha goes 1 -> 0.25 by x0.75 and stays there.
    let file = config("adjust_standing", "1.0", "50G");
    let run = cngw(&argv![
        "--verbose",
        "adjust",
        "--config",
        file,
        "--sim-load",
        "100G",
        "--steps",
        "7",
        "--json"
    ])
    .expect_ok();
    let steps = steps(&run);
    assert_eq!(steps.len(), 7, "{}", run.stdout);
    for (zone, utilisation, k_min, k_max) in &steps {
        assert_eq!(zone, "standing_queue", "{}", run.stdout);
        assert!((990..=1010).contains(utilisation), "{}", run.stdout);
        assert_eq!(*k_min, k_max / 2);
        assert!(*k_max >= 65_536);
    }
    let k_max: Vec<u64> = steps.iter().map(|s| s.3).collect();
    assert_eq!(
        k_max,
        [937_500, 703_125, 527_343, 395_507, 312_500, 312_500, 312_500]
    );
    assert_k_min_below_k_max(&run);
    // The loop's own writes: five moves of alpha, K_min, K_max; nothing at
    // the floor.
    let alpha_writes = run
        .bus_writes()
        .iter()
        .filter(|l| l.contains("(PORT0_ALPHA_Q8_8)"))
        .count();
    assert_eq!(alpha_writes, 1 + 5, "the configuration's and five moves");
}

#[test]
fn lh_11_adjust_raises_k_max_with_light_load() {
    // 20 Gb/s into a 50 Gb/s drain: no queue, utilisation 0.2: alpha climbs
    // from 0.5 by 0.125 a step to alpha_max 1.0.
    let file = config("adjust_headroom", "0.5", "50G");
    let run = cngw(&argv![
        "--verbose",
        "adjust",
        "--config",
        file,
        "--sim-load",
        "20G",
        "--steps",
        "6",
        "--json"
    ])
    .expect_ok();
    let steps = steps(&run);
    let k_max: Vec<u64> = steps.iter().map(|s| s.3).collect();
    assert_eq!(
        k_max,
        [781_250, 937_500, 1_093_750, 1_250_000, 1_250_000, 1_250_000]
    );
    assert!(steps.iter().all(|s| s.0 == "headroom"), "{}", run.stdout);
    assert_k_min_below_k_max(&run);
}

#[test]
fn lh_11_adjust_holds_in_the_dead_band_and_prints_a_table() {
    // 70 Gb/s into a 95 Gb/s drain: utilisation 0.7, no queue: nothing moves.
    let file = config("adjust_band", "1.0", "95G");
    let run = cngw(&argv![
        "--verbose",
        "adjust",
        "--config",
        file,
        "--sim-load",
        "70G",
        "--steps",
        "3"
    ])
    .expect_ok();
    let configured = run.bus_writes().len();
    assert!(
        run.stdout.contains("applied 9 register write(s)"),
        "{}",
        run.stdout
    );
    assert_eq!(
        configured, 9,
        "only the configuration writes: {}",
        run.stderr
    );
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains(" us ") && l.contains("band"))
        .collect();
    assert_eq!(rows.len(), 3, "{}", run.stdout);
    for row in rows {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells.last(), Some(&"0"), "no writes: {row}");
        assert!(row.contains("1.0000"), "alpha unchanged: {row}");
        assert!(row.contains("1250000"), "K_max unchanged: {row}");
    }
    assert!(run.stdout.contains("STEP"), "{}", run.stdout);
    assert!(
        run.stdout.contains("law: alpha in [0.25, 1]"),
        "{}",
        run.stdout
    );
}

#[test]
fn lh_11_adjust_bad_arguments_write_nothing() {
    let dir = scratch("adjust_bad");
    let file = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let bad_law = file("law.toml", "[adjust]\ndecrease = 1.5\n");
    let overflow = file(
        "overflow.toml",
        "[port.0]\nrate = \"400G\"\nrtt = \"10ms\"\nalpha = 1.0\nk_base = \"64K\"\n[adjust]\nalpha_max = 16\n",
    );
    let raw_alpha = file("alpha.toml", "[registers]\nPORT0_ALPHA_Q8_8 = 0x200\n");
    let long = file("long.toml", "[adjust]\ninterval = \"1s\"\n");
    let window = file("window.toml", "[longhaul]\nobs_window = \"500us\"\n");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--interval".into(), "50us".into()],
            "shorter than the observation window (LH_OBS_WINDOW_US = 100 us)",
        ),
        (
            vec!["--sim-load".into(), "300G".into()],
            "--sim-load must be above 0 and at most the simulated DC port's 164.864 Gb/s",
        ),
        (
            vec!["--interval".into(), "1s".into()],
            "at most 10ms on the simulator",
        ),
        (vec!["--steps".into(), "0".into()], "--steps 0"),
        (
            vec!["--interval".into(), "0s".into()],
            "a run must last longer than 0",
        ),
        (
            vec!["--config".into(), bad_law],
            "adjust.decrease: decrease 1.5 must be a factor above 0 and below 1",
        ),
        (
            vec!["--config".into(), overflow],
            "the [adjust] bounds do not fit port 0 (400000 Mb/s, RTT_est 10000 us)",
        ),
        (
            vec!["--config".into(), raw_alpha],
            "port 0's alpha 2 (from configuration",
        ),
        (vec!["--config".into(), long], "[adjust] interval"),
        (
            vec!["--config".into(), window],
            "shorter than the observation window (LH_OBS_WINDOW_US = 500 us)",
        ),
    ];
    for (args, needle) in cases {
        let mut argv = vec!["--verbose".to_string(), "adjust".to_string()];
        argv.extend(args.iter().cloned());
        let run = cngw(&argv).expect_err(needle);
        assert!(
            run.bus_writes().is_empty(),
            "{args:?} wrote:\n{}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    // A PCIe device is refused --sim-load before it is opened.
    let run = cngw(&["--device", "pci:0000:00:00.0", "adjust", "--sim-load", "1G"])
        .expect_err("--sim-load offers traffic inside the simulator");
    assert!(run.bus_writes().is_empty());
}
