//! `cngw gen long-haul`: the traffic of the operational example of
//! draft-tian-ccwg-long-haul-cnp-00 ("Operational Example"), the pcaps in
//! `examples/long-haul/`.
//!
//! ```text
//!  10.0.0.1 QP 100 --dc_rx--> [gateway = N1] --wan_tx--> ... 10 ms WAN RTT ... 10.0.0.4 QP 200
//! ```
//! One RC connection set up with RDMA CM, then RDMA WRITEs from 10.0.0.1 to
//! QP 200, ECT(0), one packet every 500 us, each 4-packet message
//! acknowledged by 10.0.0.4 one WAN round trip later. Times (from the REQ):
//!
//! | time | port | frame |
//! |---|---|---|
//! | 0 | dc_rx | CM REQ (QP 100, Not-ECT) |
//! | 10 ms | wan_rx | CM REP (QP 200), one WAN RTT later |
//! | 10.002 ms | dc_rx | CM RTU |
//! | 10.25 ms + k x 500 us, k = 0..31 | dc_rx | RDMA WRITE FIRST/MIDDLE/MIDDLE/LAST to QP 200, 1024 payload bytes, ECT(0) |
//! | last packet of a message + 10 ms | wan_rx | RC ACK to QP 100 |
//!
//! Everything is fixed (no randomness), so the bytes never change; a test
//! checks the committed pcaps against this generator.

use crate::cli::GenLongHaulArgs;
use crate::gen::write_frames;
use crate::summary::FrameSummary;
use anyhow::Result;
use cngw_packet::bth::opcode;
use cngw_packet::cm::{CmCommIds, CmRep, CmReq};
use cngw_packet::roce::{Aeth, Reth};
use cngw_packet::traffic::{
    GATEWAY_DC_MAC, GATEWAY_WAN_MAC, RDMA_CM_SERVICE_ID_TCP, WAN_NEXT_HOP_MAC,
};
use cngw_packet::{CmMad, CmMessage, Ecn, Envelope, RoceFrameBuilder, TimedFrame};
use std::net::Ipv4Addr;

/// The source in DC-A.
pub const SOURCE_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
/// The destination in DC-B.
pub const DEST_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 4);
pub const SOURCE_QP: u32 = 100;
pub const DEST_QP: u32 = 200;
/// WAN round-trip time of the example.
pub const WAN_RTT_NS: u64 = 10_000_000;
/// Round trip between the gateway and the source inside DC-A.
const DC_RTT_NS: u64 = 2_000;
/// First data packet, after the RTU.
const DATA_START_NS: u64 = 10_250_000;
/// Spacing of the data packets.
pub const DATA_GAP_NS: u64 = 500_000;
pub const MESSAGES: usize = 8;
pub const PACKETS_PER_MESSAGE: usize = 4;
const PAYLOAD_BYTES: usize = 1024;
/// Capture time of the REQ: 2025-01-01T00:00:00Z.
const EPOCH_NS: u64 = 1_735_689_600_000_000_000;

const SOURCE_MAC: [u8; 6] = [0x02, 0xDC, 0x00, 0x00, 0x00, 0x01];
const UDP_SRC_PORT_SOURCE: u16 = 0xC064;
const UDP_SRC_PORT_DEST: u16 = 0xC0C8;
const SOURCE_START_PSN: u32 = 0x1000;
const DEST_START_PSN: u32 = 0x2000;
const SOURCE_COMM_ID: u32 = 0x0000_0100;
const DEST_COMM_ID: u32 = 0x0000_0200;
const TRANSACTION_ID: u64 = 0x0000_0001_0000_0064;
const CM_PSN: u32 = 0;

/// The frames into dc_rx (what 10.0.0.1 sends) and into wan_rx (what
/// 10.0.0.4 sends), by time.
pub fn traffic() -> (Vec<TimedFrame>, Vec<TimedFrame>) {
    let to_wan = Envelope::ipv4(SOURCE_IP, DEST_IP).with_macs(SOURCE_MAC, GATEWAY_DC_MAC);
    let to_dc = Envelope::ipv4(DEST_IP, SOURCE_IP).with_macs(WAN_NEXT_HOP_MAC, GATEWAY_WAN_MAC);
    let mut dc = Vec::new();
    let mut wan = Vec::new();
    let at = |ns: u64| EPOCH_NS + ns;

    let req = CmMad {
        transaction_id: TRANSACTION_ID,
        message: CmMessage::Req(CmReq {
            local_comm_id: SOURCE_COMM_ID,
            service_id: RDMA_CM_SERVICE_ID_TCP | 18515,
            local_ca_guid: 0x02DC_00FF_FE00_0001,
            local_qkey: 0,
            local_qpn: SOURCE_QP,
            starting_psn: SOURCE_START_PSN,
            pkey: 0xFFFF,
        }),
    };
    dc.push((
        at(0),
        req.to_frame(&to_wan, CM_PSN, UDP_SRC_PORT_SOURCE)
            .to_bytes(),
    ));
    let rep = CmMad {
        transaction_id: TRANSACTION_ID,
        message: CmMessage::Rep(CmRep {
            local_comm_id: DEST_COMM_ID,
            remote_comm_id: SOURCE_COMM_ID,
            local_qkey: 0,
            local_qpn: DEST_QP,
            starting_psn: DEST_START_PSN,
            local_ca_guid: 0x02AC_E0FF_FE00_0004,
        }),
    };
    wan.push((
        at(WAN_RTT_NS),
        rep.to_frame(&to_dc, CM_PSN, UDP_SRC_PORT_DEST).to_bytes(),
    ));
    let rtu = CmMad {
        transaction_id: TRANSACTION_ID,
        message: CmMessage::Rtu(CmCommIds {
            local_comm_id: SOURCE_COMM_ID,
            remote_comm_id: DEST_COMM_ID,
        }),
    };
    dc.push((
        at(WAN_RTT_NS + DC_RTT_NS),
        rtu.to_frame(&to_wan, CM_PSN + 1, UDP_SRC_PORT_SOURCE)
            .to_bytes(),
    ));

    let data_env = to_wan.with_ecn(Ecn::Ect0);
    let ack_env = to_dc.with_ecn(Ecn::Ect0);
    let mut psn = SOURCE_START_PSN;
    let mut t = DATA_START_NS;
    for msg in 0..MESSAGES {
        for k in 0..PACKETS_PER_MESSAGE {
            let last = k + 1 == PACKETS_PER_MESSAGE;
            let op = match k {
                0 => opcode::RC_RDMA_WRITE_FIRST,
                _ if last => opcode::RC_RDMA_WRITE_LAST,
                _ => opcode::RC_RDMA_WRITE_MIDDLE,
            };
            let mut b = RoceFrameBuilder::new(data_env.clone())
                .udp_src_port(UDP_SRC_PORT_SOURCE)
                .opcode(op)
                .dest_qp(DEST_QP)
                .psn(psn)
                .ack_req(last)
                .payload(
                    (0..PAYLOAD_BYTES)
                        .map(|i| (psn as usize + i) as u8)
                        .collect(),
                );
            if k == 0 {
                b = b.reth(Reth {
                    virtual_address: 0x7F00_0000_0000
                        + (msg * PACKETS_PER_MESSAGE * PAYLOAD_BYTES) as u64,
                    rkey: 0x1000 | DEST_QP,
                    dma_length: (PACKETS_PER_MESSAGE * PAYLOAD_BYTES) as u32,
                });
            }
            dc.push((at(t), b.build()));
            if last {
                let ack = RoceFrameBuilder::new(ack_env.clone())
                    .udp_src_port(UDP_SRC_PORT_DEST)
                    .opcode(opcode::RC_ACKNOWLEDGE)
                    .dest_qp(SOURCE_QP)
                    .psn(psn)
                    .aeth(Aeth {
                        syndrome: 0x1F,
                        msn: msg as u32 + 1,
                    })
                    .build();
                wan.push((at(t + WAN_RTT_NS), ack));
            }
            psn += 1;
            t += DATA_GAP_NS;
        }
    }
    (dc, wan)
}

pub fn generate(args: &GenLongHaulArgs) -> Result<()> {
    let (dc, wan) = traffic();
    write_frames(&args.dc_out, &dc)?;
    write_frames(&args.wan_out, &wan)?;
    println!(
        "generated the Long-haul CNP draft's operational example: {SOURCE_IP} QP {SOURCE_QP} -> \
         {DEST_IP} QP {DEST_QP}, {} ms WAN round trip",
        WAN_RTT_NS / 1_000_000
    );
    for (port, path, frames) in [
        ("dc_rx ", &args.dc_out, &dc),
        ("wan_rx", &args.wan_out, &wan),
    ] {
        let s = FrameSummary::of(frames.iter().map(|(_, f)| f.as_slice()));
        println!(
            "  into {port} -> {}: {} frames: {}",
            path.display(),
            s.frames,
            s.breakdown()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_packet::parsed::{classify, FrameClass};

    #[test]
    fn lh_04_example_traffic_is_the_drafts_flow() {
        let (dc, wan) = traffic();
        assert_eq!(dc.len(), 2 + MESSAGES * PACKETS_PER_MESSAGE);
        assert_eq!(wan.len(), 1 + MESSAGES);
        let s = FrameSummary::of(dc.iter().map(|(_, f)| f.as_slice()))
            .merged(&FrameSummary::of(wan.iter().map(|(_, f)| f.as_slice())));
        assert_eq!(s.handshakes(), 1);
        assert_eq!(s.rdma_write, 32);
        assert_eq!(s.ack, 8);
        for (_, f) in dc.iter().skip(2) {
            let p = classify(f);
            assert_eq!(p.class, FrameClass::Roce);
            assert_eq!(p.dest_qp, DEST_QP);
            assert_eq!(p.ecn, Ecn::Ect0.bits());
            assert_eq!(&p.src_ip[12..], &SOURCE_IP.octets());
            assert_eq!(&p.dst_ip[12..], &DEST_IP.octets());
            cngw_packet::icrc::verify_frame(f).unwrap();
        }
        // Times never decrease within a port.
        for side in [&dc, &wan] {
            assert!(side.windows(2).all(|w| w[0].0 <= w[1].0));
        }
        assert_eq!(traffic(), (dc, wan), "reproducible");
    }
}
