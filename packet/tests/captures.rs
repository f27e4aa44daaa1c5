//! Frames captured from real NICs, read from `$CNGW_CAPTURES` (the project's
//! `shared/captures` folder); skipped with a message when it is unset.

use std::net::Ipv4Addr;
use std::path::PathBuf;

use cngw_packet::cnp::Cnp;
use cngw_packet::ethernet::{ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use cngw_packet::pcap::read_pcap;
use cngw_packet::{CmMad, CmMessage};
use cngw_packet::{Ecn, Envelope, Frame};

fn captures_dir() -> Option<PathBuf> {
    match std::env::var_os("CNGW_CAPTURES") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            eprintln!("CNGW_CAPTURES is not set: capture tests skipped");
            None
        }
    }
}

/// HW-01 / FCN-05: the CNP builder reproduces the ConnectX-4 Lx CNP of
/// scapy's `roce.uts` byte for byte, ICRC included.
#[test]
fn hw_cnp_builder_reproduces_connectx4lx_cnp_byte_for_byte() {
    let Some(dir) = captures_dir() else { return };
    let frames = read_pcap(dir.join("scapy_uts_connectx4lx_cnp_hexdump.pcap")).unwrap();
    assert_eq!(frames.len(), 1);
    let captured = &frames[0].1;
    assert_eq!(captured.len(), 74);

    let parsed = Frame::parse(captured).unwrap();
    let ip_id = match &parsed.ip.header {
        cngw_packet::IpHeader::V4(h) => h.identification,
        other => panic!("not IPv4: {other:?}"),
    };
    let env = Envelope::ipv4(Ipv4Addr::new(10, 0, 17, 1), Ipv4Addr::new(10, 0, 18, 1))
        .with_macs(
            [0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32],
            [0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2],
        )
        .with_dscp(48)
        .with_ecn(Ecn::Ect0)
        .with_ttl(64)
        .with_ipv4_id(ip_id);
    assert!(env.dont_fragment);
    let built = Cnp::new(0x000118).to_frame(&env).to_bytes();
    assert_eq!(hex(&built), hex(captured));
    assert_eq!(&built[70..], &[0x82, 0xfd, 0x00, 0x2a]);
    parsed.verify_checksums().unwrap();
    assert_eq!(Cnp::from_frame(&parsed).unwrap(), Cnp::new(0x118));
}

/// Every Ethernet/IP frame of the other captures parses, and every RoCEv2
/// frame among them has its transport headers parsed and a valid ICRC.
#[test]
fn hw_every_captured_ip_frame_parses() {
    let Some(dir) = captures_dir() else { return };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pcap"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "expected the four captures in {dir:?}");
    let mut roce = 0;
    for path in files {
        for (i, (_, bytes)) in read_pcap(&path).unwrap().iter().enumerate() {
            let Ok((eth, _)) = cngw_packet::ethernet::EthernetHeader::parse(bytes) else {
                panic!("{path:?} frame {i}: not Ethernet");
            };
            if eth.ethertype != ETHERTYPE_IPV4 && eth.ethertype != ETHERTYPE_IPV6 {
                continue;
            }
            let frame = Frame::parse(bytes).unwrap_or_else(|e| panic!("{path:?} frame {i}: {e}"));
            assert_eq!(frame.to_bytes(), *bytes, "{path:?} frame {i} re-serialised");
            if frame.is_roce() {
                frame
                    .roce()
                    .unwrap_or_else(|e| panic!("{path:?} frame {i}: {e}"));
                cngw_packet::icrc::verify_frame(bytes)
                    .unwrap_or_else(|e| panic!("{path:?} frame {i}: {e}"));
                roce += 1;
            }
        }
    }
    assert!(roce > 200, "only {roce} RoCEv2 frames found");
}

/// LH-01 / PX-02 (source-QP learning by CM snooping): the REQ/REP MADs of
/// the soft-RoCE capture give the connections tshark shows
/// (10.1.16.62 QP 0x3d <-> 10.1.16.61 QP 0x3b, and 0x3e <-> 0x3c).
#[test]
fn lh_01_cm_req_rep_of_capture_give_qp_pairs() {
    let Some(dir) = captures_dir() else { return };
    let mut reqs = Vec::new();
    let mut reps = Vec::new();
    let mut counts = [0usize; 5];
    for (_, bytes) in read_pcap(dir.join("linlinw5_rdma_cm.pcap")).unwrap() {
        let Ok(frame) = Frame::parse(&bytes) else {
            continue;
        };
        let Ok(mad) = CmMad::from_frame(&frame) else {
            continue;
        };
        match mad.message {
            CmMessage::Req(r) => reqs.push((frame.ip.header.src(), r)),
            CmMessage::Rep(r) => reps.push((frame.ip.header.src(), r)),
            CmMessage::Rtu(_) => counts[2] += 1,
            CmMessage::Dreq(_) => counts[3] += 1,
            CmMessage::Drep(_) => counts[4] += 1,
            CmMessage::Other { attribute_id } => {
                panic!("unexpected CM attribute {attribute_id:#x}")
            }
        }
    }
    counts[0] = reqs.len();
    counts[1] = reps.len();
    assert_eq!(counts, [2, 2, 2, 3, 3]);
    let mut pairs: Vec<_> = reqs
        .iter()
        .filter_map(|(req_ip, req)| {
            reps.iter()
                .find(|(_, rep)| rep.remote_comm_id == req.local_comm_id)
                .map(|(rep_ip, rep)| {
                    (
                        req_ip.to_string(),
                        req.local_qpn,
                        rep_ip.to_string(),
                        rep.local_qpn,
                    )
                })
        })
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        vec![
            (
                "10.1.16.62".to_string(),
                0x3d,
                "10.1.16.61".to_string(),
                0x3b
            ),
            (
                "10.1.16.62".to_string(),
                0x3e,
                "10.1.16.61".to_string(),
                0x3c
            ),
        ]
    );
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
