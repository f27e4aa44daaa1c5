//! Issue 8 item 2: `cngw scenario` on the draft's operational example
//! (shortened with --duration-ms): the table, the CSV files, JSON, and a
//! bad scenario file refused with the field named.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/scenarios")
        .join(file)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cngw-scenario-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cngw(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cngw"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn scn_cli_prints_the_table_and_writes_the_time_series() {
    let out = scratch("table");
    let file = example("draft-example.toml");
    let o = cngw(&[
        "scenario",
        file.to_str().unwrap(),
        "--modes",
        "baseline,longhaul",
        "--duration-ms",
        "20",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    let row = |mode: &str| -> Vec<String> {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("{mode} ")))
            .unwrap_or_else(|| panic!("no {mode} row in\n{stdout}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    // Columns: mode, onset ms, first cut ms, x RTT, ...
    let rtts = |mode: &str| row(mode)[3].parse::<f64>().unwrap();
    assert!(rtts("longhaul") <= 0.6, "{stdout}");
    assert!((0.9..=1.5).contains(&rtts("baseline")), "{stdout}");
    assert!(stderr.contains("longhaul: 100%"), "progress: {stderr}");
    for mode in ["baseline", "longhaul"] {
        let csv = std::fs::read_to_string(out.join(format!("{mode}.csv"))).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "time_us,queue_bytes,rate_gbps_10.0.0.1_qp100,rate_gbps_10.0.0.2_qp101,\
             rate_gbps_10.0.0.3_qp102,rate_gbps_10.0.0.7_qp103,cnp_arrivals,\
             notification_arrivals,drops"
        );
        assert_eq!(lines.count(), 201, "0 to 20 ms every 100 us");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn scn_cli_json() {
    let out = scratch("json");
    let file = example("near-source.toml");
    let o = cngw(&[
        "scenario",
        file.to_str().unwrap(),
        "--modes",
        "longhaul",
        "--duration-ms",
        "3",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("\"mode\": \"longhaul\""), "{stdout}");
    assert!(stdout.contains("\"time_to_first_cut_ns\": "), "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn scn_cli_rejects_a_bad_file_naming_the_field() {
    let out = scratch("bad");
    let good = std::fs::read_to_string(example("draft-example.toml")).unwrap();
    for (bad, field) in [
        (
            good.replace("k_min_bytes = 62_500_000", "k_min_bytes = 200_000_000"),
            "bottleneck.k_min_bytes",
        ),
        (
            good.replace("wan_rtt_ms = 10.0", "wan_rtt_ms = \"ten\""),
            "wan_rtt_ms",
        ),
        (good.replace("seed = 1", "sead = 1"), "sead"),
    ] {
        let path = out.join("bad.toml");
        std::fs::write(&path, bad).unwrap();
        let o = cngw(&[
            "scenario",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let (stdout, stderr) = text(&o);
        assert!(!o.status.success(), "{stdout}");
        assert!(stderr.contains(field), "{field}: {stderr}");
        assert!(stderr.contains("bad.toml"), "{stderr}");
    }
    let o = cngw(&[
        "scenario",
        example("draft-example.toml").to_str().unwrap(),
        "--modes",
        "proxy",
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("unknown mode `proxy`"),
        "{}",
        text(&o).1
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// Issue 8: "RTL-in-the-loop and model-in-the-loop runs of the same short
/// scenario give the same notification sequence". `--cross-check` runs each
/// gateway mode with the Verilated gateway in the loop and again with the
/// model timed as the RTL's input, and fails at the first notification that
/// differs in a byte or in its dc_tx clock, or when the summaries differ.
/// The scenario must make the gateway notify, or the check proves nothing.
#[test]
fn scn_rtl_in_the_loop_sends_the_models_notifications() {
    let out = scratch("rtl");
    let file = example("rtl-short.toml");
    let o = cngw(&[
        "scenario",
        file.to_str().unwrap(),
        "--cross-check",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    {
        let mode = "longhaul";
        let entry = stdout
            .lines()
            .find(|l| l.contains(&format!("\"mode\": \"{mode}\"")))
            .unwrap_or_else(|| panic!("no {mode} entry in\n{stdout}"));
        let num = |key: &str| -> u64 {
            let at = entry
                .find(&format!("\"{key}\": "))
                .unwrap_or_else(|| panic!("no {key} in {entry}"));
            entry[at + key.len() + 4..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let check = &entry[entry.find("\"cross_check\": {").expect("cross-checked")..];
        assert!(
            num("notifications") >= 4,
            "{mode}: too few notifications to compare: {entry}"
        );
        // The cross-check's count follows the run's (first) "notifications",
        // which counts those that reached a sender: every one of them here.
        assert!(
            check.contains(&format!("\"notifications\": {}", num("notifications"))),
            "{entry}"
        );
        // Frames went through the RTL.
        assert!(!check.contains("\"frames\": 0,"), "{entry}");
        assert!(num("first_cut_ns") > 0, "{entry}");
    }
}
