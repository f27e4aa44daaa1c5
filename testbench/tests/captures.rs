//! Real RoCEv2 captures from real NICs through the RTL, compared with the
//! reference model (HW-01, HW-02). The captures are third-party data and
//! live outside the project: `CNGW_CAPTURES` names their folder.

use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::parsed::FrameClass;
use cngw_sim::Gateway;
use cngw_testbench::{check, StreamOptions};
use std::path::PathBuf;

fn captures() -> Option<PathBuf> {
    match std::env::var_os("CNGW_CAPTURES") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!("skipped: CNGW_CAPTURES is unset (it names the folder of real captures)");
            None
        }
    }
}

fn load(dir: &std::path::Path, name: &str) -> Vec<Frame> {
    cngw_packet::pcap::read_pcap(dir.join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .into_iter()
        .map(|(_, data)| Frame::new(data))
        .collect()
}

/// (capture, RoCEv2 frames in it) as SOURCES.md and tshark count them.
const CAPTURES: [(&str, usize); 4] = [
    ("oferby_proxy_roce.pcap", 105),
    ("linlinw5_rdma_cm.pcap", 96),
    ("linlinw5_pingpong_ud.pcap", 10),
    ("scapy_uts_connectx4lx_cnp_hexdump.pcap", 1),
];

#[test]
fn hw_01_real_captures_parse_like_the_reference_in_both_directions() {
    let Some(dir) = captures() else { return };
    for (name, roce) in CAPTURES {
        let frames = load(&dir, name);
        for port in InPort::ALL {
            let mut gw = Gateway::new();
            let mut model = GatewayModel::new();
            let cap = check(
                &mut gw,
                &mut model,
                &[(port, frames.clone())],
                StreamOptions::random(0.2, 0.3, 7),
            )
            .unwrap_or_else(|m| panic!("{name} on {}: {m}", port.name()));
            let parsed = cap.parsed[&port]
                .iter()
                .filter(|h| h.class == FrameClass::Roce)
                .count();
            assert_eq!(
                parsed,
                roce,
                "{name}: RoCEv2 frames parsed on {}",
                port.name()
            );
            assert_eq!(
                cap.outputs[&port.forward_port()],
                frames,
                "{name}: forwarded unchanged"
            );
        }
    }
}

#[test]
fn hw_01_connectx4_cnp_fields_from_the_rtl_parser() {
    let Some(dir) = captures() else { return };
    let frames = load(&dir, "scapy_uts_connectx4lx_cnp_hexdump.pcap");
    let mut gw = Gateway::new();
    let cap = cngw_testbench::run(
        &mut gw,
        &[(InPort::DcRx, frames)],
        StreamOptions::line_rate(),
    );
    let h = cap.parsed[&InPort::DcRx][0];
    assert_eq!(h.class, FrameClass::Roce);
    assert_eq!(h.opcode, 0x81, "CNP opcode");
    assert_eq!(h.pkey, 0xffff);
    assert_eq!(h.dest_qp, 0x000118);
    assert_eq!(h.ecn, 0b10, "TOS 0xC2 carries ECT(0)");
    assert_eq!(cap.outputs[&OutPort::WanTx].len(), 1);
}
