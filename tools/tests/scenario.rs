//! Issue 8 item 2: `cngw scenario` on the draft's operational example
//! (shortened with --duration-ms): the table, the CSV files, the PNG plots,
//! the progress on stderr, JSON, and a bad scenario file refused with the
//! field named.

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
        "--progress",
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
        "precise",
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("unknown mode `precise`"),
        "{}",
        text(&o).1
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// A decoded PNG: width, height and RGB(A) pixels.
struct Image {
    width: u32,
    height: u32,
    pixels: Vec<[u8; 3]>,
}

fn decode(path: &Path) -> Image {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(file)
        .read_info()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}", path.display());
    let step = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        c => panic!("{}: colour type {c:?}", path.display()),
    };
    let pixels = buf[..info.buffer_size()]
        .chunks(step)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    Image {
        width: info.width,
        height: info.height,
        pixels,
    }
}

/// Issue 8 item 2 outputs: a PNG per mode (queue depth, sender rates,
/// notification arrivals) and one comparing the modes, next to the CSV
/// files: they decode, have the figure's size, are not blank, and show the
/// series' colours (the first sender's line, the gateway's notifications
/// in `longhaul`).
#[test]
fn scn_plots_written_next_to_the_csv_files() {
    let out = scratch("plots");
    let file = example("draft-example.toml");
    let o = cngw(&[
        "scenario",
        file.to_str().unwrap(),
        "--modes",
        "baseline,longhaul",
        "--duration-ms",
        "12",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("plots: "), "{stdout}");
    // Colours of the plots: the first series (sender 0, the first mode),
    // the gateway's notifications in the arrivals panel.
    let blue = [31, 119, 180];
    let olive = [188, 189, 34];
    let mut notes = std::collections::BTreeMap::new();
    for (name, height) in [
        ("baseline.png", 1000),
        ("longhaul.png", 1000),
        ("modes.png", 680),
    ] {
        let path = out.join(name);
        assert!(stdout.contains(&path.display().to_string()), "{stdout}");
        let img = decode(&path);
        assert_eq!((img.width, img.height), (1200, height), "{name}");
        assert_eq!(img.pixels.len(), (img.width * img.height) as usize);
        let white = img.pixels.iter().filter(|p| **p == [255; 3]).count();
        let ink = img.pixels.len() - white;
        assert!(
            ink > img.pixels.len() / 50,
            "{name}: only {ink} non-white pixels"
        );
        let colours: std::collections::HashSet<_> = img.pixels.iter().collect();
        assert!(colours.len() > 20, "{name}: {} colours", colours.len());
        let count = |c: [u8; 3]| img.pixels.iter().filter(|p| **p == c).count();
        // In modes.png the second mode's lines cover the first's until the
        // Long-haul CNPs cut the rates, ~10 ms in.
        let least = if name == "modes.png" { 200 } else { 1000 };
        let first = count(blue);
        assert!(
            first > least,
            "{name}: the first series is missing ({first})"
        );
        notes.insert(name, count(olive));
    }
    // longhaul's 4 Long-haul CNPs reach the senders ~10 ms in: a stem most
    // of the panel high; baseline has only the legend's sample line.
    assert!(
        notes["longhaul.png"] > notes["baseline.png"] + 200,
        "notification stems: {notes:?}"
    );
    assert!(out.join("baseline.csv").exists() && out.join("longhaul.csv").exists());
    let _ = std::fs::remove_dir_all(&out);
}

/// Plots asked for with `--font` that cannot be drawn: the CSV files and
/// the table are still written, the command fails and names the font.
/// `--no-plots` writes no PNG.
#[test]
fn scn_plots_an_unusable_font_fails_after_the_csv_files() {
    let out = scratch("font");
    let file = example("near-source.toml");
    let not_a_font = out.join("not-a-font.ttf");
    std::fs::write(&not_a_font, "plain text").unwrap();
    let missing = out.join("missing.ttf");
    for (font, why) in [
        (&missing, "reading the font"),
        (&not_a_font, "not a TrueType or OpenType font"),
    ] {
        let o = cngw(&[
            "scenario",
            file.to_str().unwrap(),
            "--modes",
            "longhaul",
            "--duration-ms",
            "2",
            "--font",
            font.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let (stdout, stderr) = text(&o);
        assert!(!o.status.success(), "{stdout}");
        assert!(stderr.contains(why), "{stderr}");
        assert!(stderr.contains(&font.display().to_string()), "{stderr}");
        assert!(stdout.contains("longhaul "), "the table: {stdout}");
        assert!(out.join("longhaul.csv").exists());
        assert!(!out.join("longhaul.png").exists());
    }
    let o = cngw(&[
        "scenario",
        file.to_str().unwrap(),
        "--modes",
        "longhaul",
        "--duration-ms",
        "2",
        "--no-plots",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert!(out.join("longhaul.csv").exists());
    assert!(!out.join("longhaul.png").exists());
    assert!(!out.join("modes.png").exists());
    let _ = std::fs::remove_dir_all(&out);
}

/// Issue 8 progress bar: on stderr with `--progress`; without it (and
/// with stderr not a terminal, as here) nothing, and never on stdout, so
/// `--json` output stays one JSON document.
#[test]
fn scn_progress_only_when_asked_or_on_a_terminal() {
    let out = scratch("progress");
    let file = example("near-source.toml");
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "scenario".to_string(),
            file.to_str().unwrap().to_string(),
            "--modes".into(),
            "baseline".into(),
            "--duration-ms".into(),
            "2".into(),
            "--no-plots".into(),
            "--json".into(),
            "--out".into(),
            out.to_str().unwrap().to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>| {
        Command::new(env!("CARGO_BIN_EXE_cngw"))
            .args(&a)
            .output()
            .unwrap()
    };
    let quiet = run(args(&[]));
    let (stdout, stderr) = text(&quiet);
    assert!(quiet.status.success(), "{stderr}");
    assert!(!stderr.contains('%'), "no progress asked: {stderr}");
    assert!(stdout.trim_start().starts_with('{') && stdout.trim_end().ends_with('}'));
    let shown = run(args(&["--progress"]));
    let (stdout2, stderr2) = text(&shown);
    assert!(shown.status.success(), "{stderr2}");
    for pct in ["0%", "25%", "50%", "75%", "100%"] {
        assert!(stderr2.contains(&format!("baseline: {pct}")), "{stderr2}");
    }
    assert_eq!(stdout, stdout2, "progress never reaches stdout");
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
    for mode in ["longhaul", "smartnic", "near_source"] {
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
