//! `examples/long-haul`: the operational example of
//! draft-tian-ccwg-long-haul-cnp-00 replayed through the cycle-accurate
//! gateway (LH-03 thresholds, LH-04 first-level CE marking, LH-05..LH-09
//! Long-haul CNP and Resume).

mod common;
use cngw_packet::longhaul::Action;
use cngw_packet::longhaul_rocev2::LonghaulRocev2;
use cngw_packet::pcap::read_pcap;
use cngw_packet::TimedFrame;
use common::{cngw, counter, scratch, Run};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// K_min of the example: K_max / 2 = 125 MB / 2 (LH-03).
const K_MIN: u32 = 62_500_000;

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/long-haul")
        .join(file)
}

/// The README's replay command, writing into `dir`.
fn replay_example(dir: &Path, extra: &[&str]) -> Run {
    let mut args = argv![
        "replay",
        "--config",
        example("gateway.toml"),
        "--dc-in",
        example("dc_in.pcap"),
        "--wan-in",
        example("wan_in.pcap"),
        "--queue-trace",
        example("queue_trace.csv"),
        "--pcap-timing",
        "--dc-out",
        dir.join("dc_out.pcap"),
        "--wan-out",
        dir.join("wan_out.pcap"),
    ]
    .to_vec();
    args.extend(extra.iter().map(Into::into));
    cngw(&args)
}

/// The trace's rows as (time_ns, bytes), read independently of the tool.
fn trace_rows() -> Vec<(u64, u32)> {
    let text = std::fs::read_to_string(example("queue_trace.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("time_ns,port,bytes"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f[1], "0");
            (f[0].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

/// IPv4 ECN field of an untagged frame.
fn ecn(frame: &[u8]) -> u8 {
    assert_eq!(&frame[12..14], &[0x08, 0x00], "untagged IPv4");
    frame[15] & 0x03
}

fn ipv4_header_checksum_ok(frame: &[u8]) -> bool {
    let sum: u32 = frame[14..34]
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum();
    let folded = (sum & 0xffff) + (sum >> 16);
    (folded & 0xffff) + (folded >> 16) == 0xffff
}

/// LH-04 on the draft's example: the queue of N1's WAN port goes 0 -> 70 MB
/// -> 130 MB -> 30 MB while 10.0.0.1 writes to QP 200 across a 10 ms WAN.
/// Frame by frame: every ECT(0) frame toward the WAN that entered while the
/// depth was above K_min (the 70 MB and 130 MB periods) leaves CE-marked,
/// with only its ECN bits and IPv4 checksum changed; every other frame
/// leaves byte for byte as it came. The RTL matches the reference model,
/// and the device counted exactly the marked frames.
#[test]
fn lh_05_long_haul_example_marks_notifies_and_resumes() {
    let dir = scratch("long_haul_example");
    let started = Instant::now();
    let run = replay_example(&dir, &[]).expect_ok();
    eprintln!(
        "example replay: {:.1} s wall time",
        started.elapsed().as_secs_f64()
    );
    for line in [
        "RTL matches the reference model",
        &format!("K_min = {K_MIN} bytes; lh_ecn_mark on"),
        "pass-through unchanged: dc_rx -> wan_tx no, wan_rx -> dc_tx no",
        "RTL matches the reference model: 45 frames",
    ] {
        assert!(run.stdout.contains(line), "{line:?}:\n{}", run.stdout);
    }

    let rows = trace_rows();
    let levels: Vec<u32> = rows.iter().map(|r| r.1).collect();
    assert_eq!(levels, [0, 70_000_000, 130_000_000, 30_000_000]);
    let dc_in = read_pcap(example("dc_in.pcap")).unwrap();
    let wan_in = read_pcap(example("wan_in.pcap")).unwrap();
    let wan_out = read_pcap(dir.join("wan_out.pcap")).unwrap();
    let dc_out_all = read_pcap(dir.join("dc_out.pcap")).unwrap();
    // Notifications from N1 (its MAC, from the config) and the WAN's frames.
    let (notes, dc_out): (Vec<TimedFrame>, Vec<TimedFrame>) = dc_out_all
        .into_iter()
        .partition(|(_, f)| f[6..12] == [0x02, 0xc0, 0x6e, 0x00, 0x00, 0x01]);
    assert_eq!(wan_out.len(), dc_in.len());
    let t0 = dc_in[0].0.min(wan_in[0].0);

    // Per trace row: ECT(0) frames that entered while it held, and how many left marked.
    let mut ect = vec![0; rows.len()];
    let mut marked = vec![0; rows.len()];
    for (i, ((t, sent), (_, got))) in dc_in.iter().zip(&wan_out).enumerate() {
        let at = t - t0;
        // Every ECN-capable frame is far (>= 1 us) from a step, so neither
        // the clock nor the marker's two-clock delay decides its level.
        assert!(
            ecn(sent) == 0 || rows.iter().all(|(s, _)| at.abs_diff(*s) >= 1_000),
            "frame {i} at {at} ns"
        );
        let level = rows.iter().rposition(|(s, _)| *s <= at).unwrap();
        let congested = rows[level].1 > K_MIN;
        if ecn(sent) == 0b10 {
            ect[level] += 1;
        }
        if ecn(sent) == 0b10 && congested {
            assert_eq!(ecn(got), 0b11, "frame {i} at {at} ns leaves CE-marked");
            assert!(ipv4_header_checksum_ok(got), "frame {i}: IPv4 checksum");
            assert_eq!(got.len(), sent.len());
            for (k, (g, s)) in got.iter().zip(sent).enumerate() {
                if !(k == 15 || k == 24 || k == 25) {
                    assert_eq!(g, s, "frame {i}: byte {k} changed");
                }
            }
            marked[level] += 1;
        } else {
            assert_eq!(got, sent, "frame {i} at {at} ns leaves untouched");
        }
    }
    // 8 data packets in each period; the CM REQ and RTU (Not-ECT) in the first.
    assert_eq!(ect, [8, 8, 8, 8]);
    assert_eq!(marked, [0, 8, 8, 0]);
    assert_eq!(counter(&run.stdout, "LH_CE_MARKED_FRAMES"), Some(16));
    assert_eq!(
        counter(&run.stdout, "PORT0_QUEUE_DEPTH_BYTES"),
        Some(30_000_000)
    );
    assert_eq!(
        counter(&run.stdout, "DC_RX_FRAMES"),
        Some(dc_in.len() as u64)
    );

    // LH-05..LH-09: at 130 MB one Long-haul CNP to 10.0.0.1 (the later
    // packets fall within RTT_est of it); 10 ms after the queue fell below
    // K_min at 22 ms, one Resume. Both in the RoCEv2 format, E bit set,
    // BTH DestQP = the source QP 100.
    assert_eq!(notes.len(), 2, "a Long-haul CNP and a Resume");
    let lh = |f: &[u8]| {
        LonghaulRocev2::from_frame(&cngw_packet::frame::Frame::parse(f).unwrap()).unwrap()
    };
    let (cnp, resume) = (lh(&notes[0].1), lh(&notes[1].1));
    assert_eq!(cnp.dest_qp, 100);
    assert_eq!(cnp.cnp.body.action, Action::RateReduce);
    assert_eq!(
        (cnp.cnp.body.parameter, cnp.cnp.body.congestion_level),
        (30, 180)
    );
    assert_eq!(
        (cnp.cnp.body.metric_type, cnp.cnp.body.metric_value),
        (1, 130_000)
    );
    assert_eq!(resume.dest_qp, 100);
    assert_eq!(resume.cnp.body.action, Action::Resume);
    assert_eq!(
        (resume.cnp.body.parameter, resume.cnp.body.congestion_level),
        (50, 20)
    );
    assert_eq!(resume.cnp.body.metric_value, 30_000);
    let at = |i: usize| notes[i].0 - t0;
    // The CNP follows the first data packet to meet the 130 MB queue within
    // the notification latency (tens of clocks).
    let first_congested = dc_in
        .iter()
        .map(|(t, _)| t - t0)
        .find(|&t| t >= 18_000_000)
        .unwrap();
    assert!(
        (first_congested..first_congested + 200).contains(&at(0)),
        "CNP at {} ns, first packet at 130 MB entered at {first_congested} ns",
        at(0)
    );
    // 10 ms after 22 ms, in the gateway's microseconds of CLOCKS_PER_US =
    // 322 clocks (0.9992 us at 322.265625 MHz: 8 us early over 10 ms).
    assert!(
        (31_990_000..32_001_000).contains(&at(1)),
        "Resume at {} ns",
        at(1)
    );
    // LH-01: N1 learnt the source QP from the CM REQ/REP (one pairing: a
    // binding for each direction of the connection).
    assert_eq!(counter(&run.stdout, "LEARN_CM_BINDINGS"), Some(2));
    assert_eq!(counter(&run.stdout, "FLOW_LEARNED"), Some(2));
    assert_eq!(counter(&run.stdout, "LH_CNP_SENT"), Some(1));
    assert_eq!(counter(&run.stdout, "LH_RESUME_SENT"), Some(1));
    let frames: Vec<Vec<u8>> = notes.iter().map(|(_, f)| f.clone()).collect();
    if let Some(dissected) = cngw_packet::scapy::dissect(&frames) {
        for f in &dissected {
            cngw_packet::scapy::assert_checksums_ok(f);
            assert_eq!(cngw_packet::scapy::get(f, "icrc_ok"), "True");
        }
    }

    // The WAN side (CM REP, ACKs) is never marked.
    let bytes = |f: &[TimedFrame]| f.iter().map(|(_, d)| d.clone()).collect::<Vec<_>>();
    assert_eq!(bytes(&dc_out), bytes(&wan_in));
    // --pcap-timing: each frame entered at its timestamp (relative to the
    // REQ, across both files) and left two clocks later; outputs carry the
    // simulated time they left.
    for (input, output) in [(&dc_in, &wan_out), (&wan_in, &dc_out)] {
        for ((ti, _), (to, _)) in input.iter().zip(output.iter()) {
            let delay = to.checked_sub(*ti).expect("left before it entered");
            assert!(
                (6..=13).contains(&delay),
                "left {delay} ns after its timestamp"
            );
        }
    }
}

/// The committed pcaps are exactly what `cngw gen long-haul` writes.
#[test]
fn lh_04_long_haul_example_pcaps_are_what_the_generator_writes() {
    let dir = scratch("long_haul_generate");
    let (dc, wan) = (dir.join("dc_in.pcap"), dir.join("wan_in.pcap"));
    let run = cngw(&argv!["gen", "long-haul", "--dc-out", dc, "--wan-out", wan]).expect_ok();
    assert!(
        run.stdout.contains("1 CM REQ, 1 CM RTU, 32 RDMA WRITE"),
        "{}",
        run.stdout
    );
    for (generated, committed) in [(dc, "dc_in.pcap"), (wan, "wan_in.pcap")] {
        assert!(
            std::fs::read(&generated).unwrap() == std::fs::read(example(committed)).unwrap(),
            "examples/long-haul/{committed} differs from `cngw gen long-haul`; regenerate it \
             (examples/long-haul/README.md)"
        );
    }
}

/// The example's configuration gives the draft's thresholds (LH-03) and
/// turns marking on, through `cngw config check` as through the replay.
#[test]
fn lh_03_long_haul_example_config_gives_the_drafts_thresholds() {
    let run = cngw(&argv!["config", "check", example("gateway.toml")]).expect_ok();
    for line in [
        "PORT0_K_MAX_BYTES @ 0x114 <- 125000000",
        "PORT0_K_MIN_BYTES @ 0x110 <- 62500000",
        "PORT0_RATE_MBPS @ 0x100 <- 100000",
        "PORT0_RTT_EST_US @ 0x104 <- 10000",
        "FEATURE_ENABLE @ 0x010 <- 3",
    ] {
        assert!(run.stdout.contains(line), "{line}:\n{}", run.stdout);
    }
}

/// `--duration` stops feeding: at 15 ms the REQ, RTU and ten data packets
/// have entered (two of them in the 70 MB period, marked), the REP but no
/// ACK, and the 18 ms and 22 ms rows never applied.
#[test]
fn lh_04_replay_duration_stops_the_schedule() {
    let dir = scratch("long_haul_duration");
    let run = replay_example(&dir, &["--duration", "15ms"]).expect_ok();
    assert!(
        run.stdout.contains("RTL matches the reference model"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("(22 not sent: after --duration)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("(8 not sent: after --duration)"),
        "{}",
        run.stdout
    );
    assert_eq!(counter(&run.stdout, "DC_RX_FRAMES"), Some(12));
    assert_eq!(counter(&run.stdout, "WAN_RX_FRAMES"), Some(1));
    assert_eq!(counter(&run.stdout, "LH_CE_MARKED_FRAMES"), Some(2));
    assert_eq!(
        counter(&run.stdout, "PORT0_QUEUE_DEPTH_BYTES"),
        Some(70_000_000)
    );
    assert_eq!(read_pcap(dir.join("wan_out.pcap")).unwrap().len(), 12);
}
