//! `cngw replay`, `cngw demo` and `cngw bench` on the cycle-accurate gateway
//! (HW-02, HW-03).

mod common;
use cngw_packet::pcap::read_pcap;
use common::{cngw, number_after, scratch};
use std::path::{Path, PathBuf};

fn gen_traffic(dir: &Path, extra: &[&str]) -> (PathBuf, PathBuf) {
    let (dc, wan) = (dir.join("dc_in.pcap"), dir.join("wan_in.pcap"));
    let mut args = argv!["gen", "traffic", "--dc-out", dc, "--wan-out", wan].to_vec();
    args.extend(extra.iter().map(Into::into));
    cngw(&args).expect_ok();
    (dc, wan)
}

/// With every feature off the gateway forwards each frame unchanged, in
/// order, in both directions; the output pcaps keep the input timestamps.
#[test]
fn hw_03_replay_features_off_is_identity() {
    for (name, traffic, stream) in [
        (
            "v4_line_rate",
            &["--flows", "2", "--frames-per-flow", "4"][..],
            &[][..],
        ),
        (
            "v6_vlan_stalls",
            &[
                "--flows",
                "2",
                "--frames-per-flow",
                "3",
                "--ipv6",
                "--vlan",
                "42",
                "--seed",
                "9",
            ][..],
            &["--idle", "0.3", "--backpressure", "0.4", "--seed", "5"][..],
        ),
    ] {
        let dir = scratch(&format!("replay_identity_{name}"));
        let (dc_in, wan_in) = gen_traffic(&dir, traffic);
        let (dc_out, wan_out) = (dir.join("dc_out.pcap"), dir.join("wan_out.pcap"));
        let mut args = argv![
            "replay",
            "--dc-in",
            dc_in,
            "--wan-in",
            wan_in,
            "--dc-out",
            dc_out,
            "--wan-out",
            wan_out,
        ]
        .to_vec();
        args.extend(stream.iter().map(Into::into));
        let run = cngw(&args).expect_ok();
        assert_eq!(
            read_pcap(&wan_out).unwrap(),
            read_pcap(&dc_in).unwrap(),
            "{name}: dc_rx -> wan_tx"
        );
        assert_eq!(
            read_pcap(&dc_out).unwrap(),
            read_pcap(&wan_in).unwrap(),
            "{name}: wan_rx -> dc_tx"
        );
        assert!(
            run.stdout.contains("RTL matches the reference model"),
            "{}",
            run.stdout
        );
        assert!(run
            .stdout
            .contains("pass-through unchanged: dc_rx -> wan_tx yes, wan_rx -> dc_tx yes"));
        let frames = read_pcap(&dc_in).unwrap().len() as u64;
        assert_eq!(
            number_after(&run.stdout, "frames in"),
            Some(frames),
            "{}",
            run.stdout
        );
        assert_eq!(
            number_after(&run.stdout, "RoCEv2 frames parsed"),
            Some(frames),
            "{}",
            run.stdout
        );
    }
}

/// The real capture (RoCEv2 between two hosts, plus some other traffic)
/// crosses the gateway unchanged and its RoCEv2 frames are all recognised.
#[test]
fn hw_03_replay_real_capture_is_identity() {
    let Some(captures) = std::env::var_os("CNGW_CAPTURES") else {
        eprintln!("skipped: CNGW_CAPTURES is unset (folder of the real captures)");
        return;
    };
    let input = Path::new(&captures).join("oferby_proxy_roce.pcap");
    let dir = scratch("replay_real_capture");
    let wan_out = dir.join("wan_out.pcap");
    let run = cngw(&argv![
        "replay",
        "--dc-in",
        input,
        "--dc-out",
        dir.join("dc_out.pcap"),
        "--wan-out",
        wan_out,
    ])
    .expect_ok();
    let sent = read_pcap(&input).unwrap();
    let got = read_pcap(&wan_out).unwrap();
    assert_eq!(got.len(), sent.len());
    for (i, (g, s)) in got.iter().zip(&sent).enumerate() {
        assert_eq!(g, s, "frame #{i}");
    }
    assert_eq!(
        number_after(&run.stdout, "RoCEv2 frames parsed"),
        Some(105),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("RTL matches the reference model"),
        "{}",
        run.stdout
    );
}

#[test]
fn hw_03_replay_applies_a_configuration_first() {
    let dir = scratch("replay_config");
    let (dc_in, wan_in) = gen_traffic(&dir, &["--flows", "1", "--frames-per-flow", "2"]);
    let config = dir.join("gw.toml");
    std::fs::write(
        &config,
        "features = []\n[port.0]\nrate = \"25G\"\nrtt = \"500us\"\nalpha = 1.0\nk_base = \"64K\"\n",
    )
    .unwrap();
    let run = cngw(&argv![
        "--verbose",
        "replay",
        "--vcd",
        dir.join("wave.vcd"),
        "--queue-depth",
        "1M",
        "--config",
        config,
        "--dc-in",
        dc_in,
        "--wan-in",
        wan_in,
        "--dc-out",
        dir.join("dc_out.pcap"),
        "--wan-out",
        dir.join("wan_out.pcap"),
    ])
    .expect_ok();
    assert!(run.stdout.contains("7 register write(s)"), "{}", run.stdout);
    assert!(run.stdout.contains("features:      none"), "{}", run.stdout);
    assert!(
        run.stdout.contains("RTL matches the reference model"),
        "{}",
        run.stdout
    );
    assert_eq!(run.bus_writes().len(), 7, "{}", run.stderr);
    // The telemetry input reaches PORT0_QUEUE_DEPTH_BYTES as in the model.
    assert!(
        run.stdout.contains("held at 1048576 bytes"),
        "{}",
        run.stdout
    );
}

#[test]
fn hw_03_replay_rejects_bad_inputs_before_simulating() {
    let dir = scratch("replay_bad");
    let (dc_in, _) = gen_traffic(&dir, &["--flows", "1", "--frames-per-flow", "0"]);
    let out = |n: &str| dir.join(n);
    // Only the simulator can stream frames.
    cngw(&argv![
        "--device",
        "pci:0000:01:00.0",
        "replay",
        "--dc-in",
        dc_in,
        "--dc-out",
        out("a"),
        "--wan-out",
        out("b"),
    ])
    .expect_err("cannot run on a PCIe device");
    // A missing or broken input, an output folder that does not exist.
    cngw(&argv![
        "replay",
        "--dc-in",
        out("none.pcap"),
        "--dc-out",
        out("a"),
        "--wan-out",
        out("b")
    ])
    .expect_err("none.pcap");
    std::fs::write(out("junk.pcap"), b"not a pcap at all, just text").unwrap();
    cngw(&argv![
        "replay",
        "--dc-in",
        out("junk.pcap"),
        "--dc-out",
        out("a"),
        "--wan-out",
        out("b")
    ])
    .expect_err("not a classic pcap");
    cngw(&argv![
        "replay",
        "--dc-in",
        dc_in,
        "--dc-out",
        out("a"),
        "--wan-out",
        out("no/such/dir/b")
    ])
    .expect_err("does not exist");
    // Stall probabilities must let the stream drain.
    cngw(&argv![
        "replay",
        "--dc-in",
        dc_in,
        "--dc-out",
        out("a"),
        "--wan-out",
        out("b"),
        "--backpressure",
        "1"
    ])
    .expect_err("0 <= P < 1");
    // A configuration with an unknown key.
    std::fs::write(out("bad.toml"), "featurez = []\n").unwrap();
    cngw(&argv![
        "--verbose",
        "replay",
        "--config",
        out("bad.toml"),
        "--dc-in",
        dc_in,
        "--dc-out",
        out("a"),
        "--wan-out",
        out("b"),
    ])
    .expect_err("unknown field `featurez`");
    assert!(
        !out("a").exists() && !out("b").exists(),
        "no output for a rejected replay"
    );
}

#[test]
fn hw_03_demo_generates_replays_and_summarises() {
    let dir = scratch("demo");
    let run = cngw(&argv![
        "demo",
        "--out",
        dir,
        "--flows",
        "2",
        "--frames-per-flow",
        "4"
    ])
    .expect_ok();
    for file in ["dc_in.pcap", "wan_in.pcap", "dc_out.pcap", "wan_out.pcap"] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    assert_eq!(
        read_pcap(dir.join("wan_out.pcap")).unwrap(),
        read_pcap(dir.join("dc_in.pcap")).unwrap()
    );
    for line in [
        "generated 2 RoCEv2 flow(s)",
        "RDMA CM: 2 REQ, 2 REP, 2 RTU -> 2 complete handshake(s)",
        "RDMA CM crossing the gateway: 2 REQ, 2 REP, 2 RTU -> 2 complete handshake(s)",
        "6 of them RDMA CM MADs",
        "pass-through identical (features off): yes",
        "dc_rx 1.000, wan_tx 1.000, wan_rx 1.000, dc_tx 1.000",
        "RTL matches the reference model",
    ] {
        assert!(
            run.stdout.contains(line),
            "{line:?} missing:\n{}",
            run.stdout
        );
    }
}

/// Back-to-back frames of every size, both directions at once, at one beat
/// per clock; the pass-through latency is a fixed number of clocks.
#[test]
fn hw_02_bench_reports_line_rate() {
    let run = cngw(&["bench", "--frames", "16", "--sizes", "64,65,1024", "--json"]).expect_ok();
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("\"frame\":"))
        .collect();
    // Three kinds x three sizes, but 64 and 65 bytes give the same (shortest,
    // 78-byte) RoCEv2 frame over IPv6, measured once.
    assert_eq!(rows.len(), 8, "{}", run.stdout);
    for row in rows {
        assert!(row.contains("\"rtl_matches_model\": true"), "{row}");
        assert_eq!(row.matches(": 1.000000").count(), 4, "not line rate: {row}");
        assert!(row.contains("\"dc_rx_to_wan_tx\": 2"), "{row}");
    }
    // Still line rate with every implemented feature on and a congested queue.
    let run = cngw(&[
        "bench",
        "--frames",
        "8",
        "--sizes",
        "64,1024",
        "--all-features",
        "--queue-depth",
        "200M",
        "--json",
    ])
    .expect_ok();
    for row in run.stdout.lines().filter(|l| l.contains("\"frame\":")) {
        assert!(row.contains("\"rtl_matches_model\": true"), "{row}");
        assert_eq!(row.matches(": 1.000000").count(), 4, "not line rate: {row}");
    }
    let table = cngw(&["bench", "--frames", "4", "--sizes", "128"]).expect_ok();
    assert!(table.stdout.contains("host-dependent"), "{}", table.stdout);
    assert!(table.stdout.contains("rocev2-ipv6"), "{}", table.stdout);
    cngw(&["bench", "--sizes", "20"]).expect_err("frame size");
    cngw(&["--device", "pci:01:00.0", "bench"]).expect_err("cannot run on a PCIe device");
}

/// LH-04 through the CLI: with marking on and the queue above K_min, the
/// ECN-capable frames toward the WAN leave CE-marked, as the model says.
#[test]
fn lh_04_replay_with_ecn_marking_matches_the_model() {
    let caps = cngw_regmap::by_name("CAPABILITIES").unwrap();
    let implemented = caps
        .field("features")
        .map_or(0, |f| (caps.reset & f.mask()) >> f.lsb);
    if implemented & cngw_regmap::feature::LH_ECN_MARK == 0 {
        eprintln!("skipped: this device does not implement lh_ecn_mark");
        return;
    }
    let dir = scratch("replay_ecn");
    let (dc_in, wan_in) = gen_traffic(&dir, &["--flows", "2", "--frames-per-flow", "4"]);
    let config = dir.join("ecn.toml");
    // 100 Gb/s x 100 us: K_max = 1.25 MB, K_min = 625 kB; the queue sits at 2 MiB.
    std::fs::write(
        &config,
        "features = [\"lh_ecn_mark\"]\n[port.0]\nrate = \"100G\"\nrtt = \"100us\"\nalpha = 1.0\nk_base = \"64K\"\n",
    )
    .unwrap();
    let wan_out = dir.join("wan_out.pcap");
    let run = cngw(&argv![
        "replay",
        "--config",
        config,
        "--queue-depth",
        "2M",
        "--dc-in",
        dc_in,
        "--wan-in",
        wan_in,
        "--dc-out",
        dir.join("dc_out.pcap"),
        "--wan-out",
        wan_out,
    ])
    .expect_ok();
    assert!(
        run.stdout.contains("RTL matches the reference model"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("dc_rx -> wan_tx no, wan_rx -> dc_tx yes"),
        "{}",
        run.stdout
    );
    let ecn = |bytes: &[u8]| cngw_packet::Frame::parse(bytes).unwrap().ip.header.ecn();
    let sent = read_pcap(&dc_in).unwrap();
    let got = read_pcap(&wan_out).unwrap();
    let mut marked = 0;
    for ((_, s), (_, g)) in sent.iter().zip(&got) {
        if ecn(s).is_ecn_capable() {
            assert_eq!(ecn(g), cngw_packet::Ecn::Ce);
            marked += 1;
        } else {
            assert_eq!(g, s, "Not-ECT frames (the CM MADs) pass untouched");
        }
    }
    assert!(marked > 0);
}
