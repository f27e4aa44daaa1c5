//! `cngw gen verilog|regmap|traffic` (HW-01, HW-04, HW-03).

mod common;
use common::{cngw, scratch};

#[test]
fn hw_01_gen_verilog_writes_files() {
    let dir = scratch("gen_verilog");
    let out = dir.join("rtl");
    let run = cngw(&argv!["gen", "verilog", "--out", out]).expect_ok();
    for file in [
        "cngw_gateway_core.v",
        "cngw_gateway.v",
        "cngw_lint.vlt",
        "files.f",
    ] {
        let path = out.join(file);
        assert!(path.is_file(), "{file} missing");
        assert!(std::fs::metadata(&path).unwrap().len() > 0, "{file} empty");
        assert!(
            run.stdout.contains(file),
            "{file} not listed:\n{}",
            run.stdout
        );
    }
    let wrapper = std::fs::read_to_string(out.join("cngw_gateway.v")).unwrap();
    assert!(wrapper.contains("module cngw_gateway"));
    let list = std::fs::read_to_string(out.join("files.f")).unwrap();
    assert_eq!(
        list.lines().collect::<Vec<_>>(),
        ["cngw_gateway_core.v", "cngw_gateway.v"]
    );
    assert!(
        run.stdout.contains("verilator --lint-only"),
        "{}",
        run.stdout
    );
}

#[test]
fn hw_04_gen_regmap_formats() {
    let dir = scratch("gen_regmap");
    for (format, marker) in [
        ("rdl", "addrmap cngw"),
        ("c", "#define CNGW_REG_ID"),
        ("md", "| "),
    ] {
        let run = cngw(&["gen", "regmap", "--format", format]).expect_ok();
        assert!(run.stdout.contains(marker), "{format}: {marker:?} missing");
        assert!(run.stdout.contains("PORT0_K_MAX_BYTES"), "{format}");
        // --out writes the same text to a file.
        let file = dir.join(format!("regs.{format}"));
        let to_file = cngw(&argv!["gen", "regmap", "--format", format, "--out", file]).expect_ok();
        assert!(to_file.stdout.is_empty());
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            run.stdout,
            "{format}"
        );
    }
    assert_eq!(
        cngw_regmap::export::to_systemrdl(),
        cngw(&["gen", "regmap", "--format", "rdl"]).stdout
    );
    cngw(&["gen", "regmap", "--format", "vhdl"]).expect_err("invalid value 'vhdl'");
}

#[test]
fn hw_03_gen_traffic_writes_rdma_cm_conversations() {
    let dir = scratch("gen_traffic");
    let (dc, wan) = (dir.join("dc.pcap"), dir.join("wan.pcap"));
    let run = cngw(&argv![
        "gen",
        "traffic",
        "--dc-out",
        dc,
        "--wan-out",
        wan,
        "--flows",
        "3",
        "--frames-per-flow",
        "4",
        "--ipv6",
        "--seed",
        "7",
    ])
    .expect_ok();
    // Per flow: DC side REQ + RTU + 4 WRITEs + 1 ACK, WAN side REP + 4 SENDs + 1 ACK.
    let dc_frames = cngw_packet::read_pcap(&dc).unwrap();
    let wan_frames = cngw_packet::read_pcap(&wan).unwrap();
    assert_eq!(dc_frames.len(), 3 * 7);
    assert_eq!(wan_frames.len(), 3 * 6);
    assert!(
        run.stdout.contains("3 RoCEv2 flow(s): IPv6"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("3 REQ, 3 REP, 3 RTU -> 3 complete handshake(s)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("12 RDMA WRITE"), "{}", run.stdout);
    // The same seed gives the same bytes.
    let again = dir.join("dc2.pcap");
    cngw(&argv![
        "gen",
        "traffic",
        "--dc-out",
        again,
        "--wan-out",
        dir.join("wan2.pcap"),
        "--flows=3",
        "--frames-per-flow=4",
        "--ipv6",
        "--seed=7",
    ])
    .expect_ok();
    assert_eq!(std::fs::read(&dc).unwrap(), std::fs::read(&again).unwrap());
    cngw(&[
        "gen",
        "traffic",
        "--dc-out",
        "a",
        "--wan-out",
        "b",
        "--mtu",
        "1500",
    ])
    .expect_err("MTU");
    cngw(&[
        "gen",
        "traffic",
        "--dc-out",
        "a",
        "--wan-out",
        "b",
        "--flows",
        "0",
    ])
    .expect_err("--flows");
}
