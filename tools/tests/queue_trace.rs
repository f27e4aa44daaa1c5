//! `cngw replay --queue-trace` (LH-04): the queue depth of WAN port 0 over
//! time, driven onto the gateway's telemetry input while traffic flows.

mod common;
use cngw_packet::pcap::read_pcap;
use common::{cngw, counter, scratch, Run};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn gen_traffic(dir: &Path) -> (PathBuf, PathBuf) {
    let (dc, wan) = (dir.join("dc_in.pcap"), dir.join("wan_in.pcap"));
    cngw(&argv![
        "gen",
        "traffic",
        "--dc-out",
        dc,
        "--wan-out",
        wan,
        "--flows",
        "2",
        "--frames-per-flow",
        "16"
    ])
    .expect_ok();
    (dc, wan)
}

/// Marking on, K_min = 625,000 bytes (100 Gb/s x 100 us / 2).
fn marking_config(dir: &Path) -> PathBuf {
    let path = dir.join("ecn.toml");
    std::fs::write(
        &path,
        "features = [\"lh_ecn_mark\"]\n[port.0]\nrate = \"100G\"\nrtt = \"100us\"\nalpha = 1.0\nk_base = \"64K\"\n",
    )
    .unwrap();
    path
}

fn replay(dir: &Path, trace: &Path, extra: &[&str]) -> Run {
    let (dc_in, wan_in) = (dir.join("dc_in.pcap"), dir.join("wan_in.pcap"));
    let mut args: Vec<OsString> = argv![
        "--verbose",
        "replay",
        "--config",
        dir.join("ecn.toml"),
        "--queue-trace",
        trace,
        "--dc-in",
        dc_in,
        "--wan-in",
        wan_in,
        "--dc-out",
        dir.join("dc_out.pcap"),
        "--wan-out",
        dir.join("wan_out.pcap"),
    ]
    .to_vec();
    args.extend(extra.iter().map(Into::into));
    cngw(&args)
}

/// Every way a trace file can be wrong is reported with its line number and
/// a non-zero exit status before the simulator is created: no register is
/// touched (`--verbose` logs none) and no output is written.
#[test]
fn lh_04_queue_trace_bad_csv_is_rejected_before_simulating() {
    let dir = scratch("queue_trace_bad");
    gen_traffic(&dir);
    marking_config(&dir);
    let cases: &[(&str, &str, &str)] = &[
        ("empty", "", "line 1: empty file"),
        (
            "no_header",
            "0,0,0\n",
            "line 1: the first line must be the header `time_ns,port,bytes`",
        ),
        (
            "wrong_header",
            "time_us,port,bytes\n0,0,0\n",
            "line 1: the first line must be the header",
        ),
        (
            "no_rows",
            "time_ns,port,bytes\n",
            "no rows after the header",
        ),
        (
            "fields",
            "time_ns,port,bytes\n0,0,0\n5,0\n",
            "line 3: expected 3 fields",
        ),
        (
            "time_unit",
            "time_ns,port,bytes\n10us,0,0\n",
            "line 2: time_ns `10us` is not a whole number of nanoseconds",
        ),
        (
            "time_negative",
            "time_ns,port,bytes\n-5,0,0\n",
            "line 2: time_ns `-5` is not a whole number",
        ),
        (
            "time_goes_back",
            "time_ns,port,bytes\n0,0,0\n100,0,5\n\n99,0,7\n",
            "line 5: time_ns 99 is earlier than 100 on line 3: times must not decrease",
        ),
        (
            "port",
            "time_ns,port,bytes\n0,0,0\n10,1,70000000\n",
            "line 3: port 1: the gateway has one WAN port",
        ),
        (
            "port_not_a_number",
            "time_ns,port,bytes\n0,wan0,0\n",
            "line 2: port `wan0` is not a port number",
        ),
        (
            "bytes_32_bits",
            "time_ns,port,bytes\n0,0,4294967296\n",
            "line 2: bytes 4294967296 does not fit the 32-bit queue-depth input",
        ),
        (
            "bytes_unit",
            "time_ns,port,bytes\n0,0,70MB\n",
            "line 2: bytes `70MB` is not a whole number of bytes",
        ),
    ];
    for (name, text, message) in cases {
        let trace = dir.join(format!("{name}.csv"));
        std::fs::write(&trace, text).unwrap();
        let run = replay(&dir, &trace, &[]).expect_err(message);
        assert_eq!(run.status.code(), Some(1), "{name}");
        assert!(
            run.stderr.contains("rejected before the simulation"),
            "{name}: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("bus:"),
            "{name}: a register was touched:\n{}",
            run.stderr
        );
        assert!(!dir.join("wan_out.pcap").exists(), "{name}: output written");
    }
    // Several bad lines at once: all of them are named.
    let trace = dir.join("many.csv");
    std::fs::write(
        &trace,
        "time_ns,port,bytes\n0,0,0\n10,0,0\n12,2,0\n15,0,x\n1,0,0\n",
    )
    .unwrap();
    let run = replay(&dir, &trace, &[]).expect_err("3 problem(s)");
    for line in [
        "line 4: port 2",
        "line 5: bytes `x`",
        "line 6: time_ns 1 is earlier than 10 on line 3",
    ] {
        assert!(run.stderr.contains(line), "{line}: {}", run.stderr);
    }
    // A file that does not exist, and options that cannot go together or
    // are not values.
    replay(&dir, &dir.join("missing.csv"), &[]).expect_err("cannot read the queue trace");
    let ok = dir.join("ok.csv");
    std::fs::write(&ok, "time_ns,port,bytes\n0,0,0\n").unwrap();
    let run = replay(&dir, &ok, &["--queue-depth", "1M"]).expect_err("cannot be used with");
    assert_eq!(run.status.code(), Some(2));
    replay(&dir, &ok, &["--clock-mhz", "0"]).expect_err("must be above 0");
    replay(&dir, &ok, &["--clock-mhz", "fast"]).expect_err("not a clock frequency");
    replay(&dir, &ok, &["--duration", "5"]).expect_err("missing unit");
    replay(&dir, &ok, &["--duration", "0us"]).expect_err("longer than 0");
    assert!(!dir.join("wan_out.pcap").exists());
}

/// At line rate from time 0 the depth rises above K_min and falls again
/// while frames cross: the frames in between leave CE-marked, the model
/// (fed the depth each frame met at the marker) agrees frame for frame,
/// also under random stalls, and PORT0_QUEUE_DEPTH_BYTES ends at the last
/// row's depth.
#[test]
fn lh_04_queue_trace_moves_the_marking_during_a_line_rate_replay() {
    let dir = scratch("queue_trace_line_rate");
    let (dc_in, _) = gen_traffic(&dir);
    marking_config(&dir);
    // The dc_rx traffic (44 frames, 32 of them 17 beats long) takes about
    // 570 clocks, 1.8 us, at line rate; the queue is above K_min from 300 ns
    // to 1200 ns.
    let trace = dir.join("trace.csv");
    std::fs::write(
        &trace,
        "time_ns,port,bytes\n0,0,1000\n300,0,2000000\n1200,0,4000\n",
    )
    .unwrap();
    for stalls in [
        &[][..],
        &["--idle", "0.3", "--backpressure", "0.3", "--seed", "3"][..],
    ] {
        let run = replay(&dir, &trace, stalls).expect_ok();
        assert!(
            run.stdout.contains("RTL matches the reference model"),
            "{}",
            run.stdout
        );
        let sent = read_pcap(&dc_in).unwrap();
        let got = read_pcap(dir.join("wan_out.pcap")).unwrap();
        assert_eq!(got.len(), sent.len());
        let ce = |b: &[u8]| {
            cngw_packet::Frame::parse(b).unwrap().ip.header.ecn() == cngw_packet::Ecn::Ce
        };
        let marked: Vec<bool> = got.iter().map(|(_, f)| ce(f)).collect();
        let first = marked.iter().position(|&m| m).expect("some frames marked");
        let last = marked.iter().rposition(|&m| m).unwrap();
        assert!(first > 0 && last + 1 < marked.len(), "{marked:?}");
        // Marked frames form one run, apart from Not-ECT frames (CM MADs).
        for i in first..=last {
            let ect = cngw_packet::Frame::parse(&sent[i].1)
                .unwrap()
                .ip
                .header
                .ecn()
                .is_ecn_capable();
            assert_eq!(marked[i], ect, "frame {i}");
        }
        assert_eq!(
            counter(&run.stdout, "PORT0_QUEUE_DEPTH_BYTES"),
            Some(4000),
            "{}",
            run.stdout
        );
        let ce_count = marked.iter().filter(|&&m| m).count() as u64;
        assert_eq!(
            counter(&run.stdout, "LH_CE_MARKED_FRAMES"),
            Some(ce_count),
            "{}",
            run.stdout
        );
    }
}

/// LH-02 from the command line: `[meter.0] queue = "internal"` makes the
/// gateway act on its virtual egress queue, which a 10 Gb/s drain lets a
/// line-rate replay fill past K_min = 8 KiB: later frames leave CE-marked,
/// the model (given the virtual queue's depth from what left on wan_tx)
/// agrees frame for frame, with and without stalls. With the telemetry
/// source and no depth on the input nothing is marked.
#[test]
fn lh_02_replay_with_the_internal_queue_marks_like_the_model() {
    let dir = scratch("replay_internal_queue");
    let (dc_in, wan_in) = gen_traffic(&dir);
    let write_config = |queue: &str| {
        let path = dir.join(format!("{queue}.toml"));
        std::fs::write(
            &path,
            format!(
                "features = [\"lh_ecn_mark\"]\n[port.0]\nrate = \"100G\"\nrtt = \"100us\"\nalpha = 1.0\nk_base = \"64K\"\nk_min = \"8K\"\n[meter.0]\nqueue = \"{queue}\"\ndrain = \"10G\"\n"
            ),
        )
        .unwrap();
        path
    };
    for (queue, stalls) in [
        ("internal", &[][..]),
        (
            "internal",
            &["--idle", "0.2", "--backpressure", "0.3", "--seed", "5"][..],
        ),
        ("telemetry", &[][..]),
    ] {
        let config = write_config(queue);
        let mut args: Vec<OsString> = argv![
            "replay",
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
        ]
        .to_vec();
        args.extend(stalls.iter().map(Into::into));
        let run = cngw(&args).expect_ok();
        assert!(
            run.stdout.contains("RTL matches the reference model"),
            "{}",
            run.stdout
        );
        let marked = counter(&run.stdout, "LH_CE_MARKED_FRAMES").unwrap();
        let out = read_pcap(dir.join("wan_out.pcap")).unwrap();
        if queue == "internal" {
            assert!(marked >= 10, "{queue} {stalls:?}: {marked} marked");
            assert!(
                marked < out.len() as u64,
                "the first frames find the queue empty"
            );
        } else {
            assert_eq!(marked, 0);
        }
    }
}
