//! LH-15 from the command line: `[[longhaul.formats]]` in a configuration
//! file, checked and applied by `cngw config`, and used by `cngw replay
//! --config` (the draft's operational example with its sender moved to the
//! standard CNP by the format table).

mod common;
use cngw_packet::cnp::Cnp;
use cngw_packet::frame::Frame;
use cngw_packet::pcap::read_pcap;
use common::{cngw, counter, scratch};
use std::path::{Path, PathBuf};

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/long-haul")
        .join(file)
}

const TABLE: &str = r#"
[longhaul]
options = ["ipv4_longhaul"]
[[longhaul.formats]]
prefix = "10.0.0.0/8"
format = "rocev2"
[[longhaul.formats]]
prefix = "fd00:1::/32"
format = "icmpv6"
"#;

#[test]
fn lh_15_config_apply_writes_the_format_table_in_order() {
    let dir = scratch("lh15_config_apply");
    let file = dir.join("gw.toml");
    std::fs::write(&file, TABLE).unwrap();
    let run = cngw(&argv!["--verbose", "config", "apply", file]).expect_ok();
    // LH_OPTIONS, then per entry CONTROL 0, PREFIX_0..3, CONTROL; the six
    // unused entries cleared.
    assert!(
        run.stdout.contains("applied 19 register write(s)"),
        "{}",
        run.stdout
    );
    let names: Vec<String> = run
        .bus_writes()
        .iter()
        .map(|l| {
            let open = l.find('(').unwrap();
            l[open + 1..l.len() - 1].to_string()
        })
        .collect();
    let mut want = vec!["LH_OPTIONS".to_string()];
    for i in 0..2 {
        want.push(format!("LH_FORMAT{i}_CONTROL"));
        for w in 0..4 {
            want.push(format!("LH_FORMAT{i}_PREFIX_{w}"));
        }
        want.push(format!("LH_FORMAT{i}_CONTROL"));
    }
    for i in 2..8 {
        want.push(format!("LH_FORMAT{i}_CONTROL"));
    }
    assert_eq!(names, want, "{}", run.stderr);
    // The last write of entry 0 is its CONTROL: valid, rocev2, 96 + 8.
    let control0 = run.bus_writes()[6];
    assert!(
        control0.contains(&format!("<- {:#010x}", 1 | (1 << 1) | (104 << 8))),
        "{control0}"
    );
}

#[test]
fn lh_15_config_check_rejects_a_bad_format_table_without_a_write() {
    let dir = scratch("lh15_config_bad");
    let file = dir.join("gw.toml");
    std::fs::write(
        &file,
        "[[longhaul.formats]]\nprefix = \"10.0.0.0/8\"\nformat = \"icmpv6\"\n\
         [[longhaul.formats]]\nprefix = \"10.0.0.1/24\"\nformat = \"cnp\"\n",
    )
    .unwrap();
    for command in ["check", "apply"] {
        let run = cngw(&argv!["--verbose", "config", command, &file])
            .expect_err("longhaul.formats[0].format: 10.0.0.0/8 is an IPv4 prefix");
        assert!(
            run.stderr
                .contains("longhaul.formats[1].prefix: 10.0.0.1/24 has host bits set"),
            "{}",
            run.stderr
        );
        assert!(run.bus_writes().is_empty(), "{}", run.stderr);
    }
}

/// The operational example with the sender's prefix set to `cnp`: it gets a
/// standard CNP instead of the Long-haul CNP, and no Resume (a standard CNP
/// cannot say Resume); the replay checks the RTL against the model.
#[test]
fn lh_15_replay_with_a_format_table_sends_the_chosen_format() {
    let dir = scratch("lh15_replay");
    let config = dir.join("gateway.toml");
    let mut text = std::fs::read_to_string(example("gateway.toml")).unwrap();
    text.push_str("\n[[longhaul.formats]]\nprefix = \"10.0.0.0/24\"\nformat = \"cnp\"\n");
    std::fs::write(&config, text).unwrap();
    let run = cngw(&argv![
        "replay",
        "--config",
        config,
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
    ])
    .expect_ok();
    assert!(
        run.stdout
            .contains("RTL matches the reference model: 44 frames"),
        "{}",
        run.stdout
    );
    let notes: Vec<Vec<u8>> = read_pcap(dir.join("dc_out.pcap"))
        .unwrap()
        .into_iter()
        .map(|(_, f)| f)
        .filter(|f| f[6..12] == [0x02, 0xc0, 0x6e, 0x00, 0x00, 0x01])
        .collect();
    assert_eq!(notes.len(), 1, "one notification, no Resume");
    let cnp = Cnp::from_frame(&Frame::parse(&notes[0]).unwrap()).unwrap();
    assert_eq!(cnp.dest_qp, 100);
    assert_eq!(notes[0].len(), 74, "a standard CNP, no Long-haul extension");
    assert_eq!(counter(&run.stdout, "LH_CNP_SENT"), Some(1));
    assert_eq!(counter(&run.stdout, "LH_RESUME_SENT"), Some(0));
    if let Some(dissected) = cngw_packet::scapy::dissect(&notes) {
        cngw_packet::scapy::assert_checksums_ok(&dissected[0]);
        assert_eq!(cngw_packet::scapy::get(&dissected[0], "icrc_ok"), "True");
        assert_eq!(cngw_packet::scapy::get(&dissected[0], "BTH.dqpn"), "100");
    }
}
