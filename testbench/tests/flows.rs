//! The flow table from the CSR (LH-01): static entries, look-ups, deletes
//! and iteration over every location, with flows the data path inserted
//! alongside, in the RTL.

use cngw_model::{InPort, OutPort};
use cngw_packet::RoceFrameBuilder;
use cngw_regmap::{flow_command, flow_status, offset};
use cngw_sim::Gateway;
use cngw_testbench::Bench;
use std::collections::BTreeSet;
use std::net::Ipv4Addr;

fn write(b: &mut Bench<Gateway>, off: u32, v: u32) {
    b.csr_write(off, v).unwrap();
}

fn read(b: &mut Bench<Gateway>, off: u32) -> u32 {
    b.csr_read(off).unwrap()
}

fn words(a: [u8; 16]) -> [u32; 4] {
    [0, 1, 2, 3].map(|i| u32::from_be_bytes(a[4 * i..4 * i + 4].try_into().unwrap()))
}

fn set_key(b: &mut Bench<Gateway>, sip: [u8; 16], dip: [u8; 16], dqp: u32) {
    for (i, w) in words(sip).into_iter().enumerate() {
        write(b, offset::FLOW_SIP_0 + 4 * i as u32, w);
    }
    for (i, w) in words(dip).into_iter().enumerate() {
        write(b, offset::FLOW_DIP_0 + 4 * i as u32, w);
    }
    write(b, offset::FLOW_DQP, dqp);
}

fn command(b: &mut Bench<Gateway>, c: u32) -> u32 {
    write(b, offset::FLOW_COMMAND, c);
    for _ in 0..10 {
        let s = read(b, offset::FLOW_STATUS);
        if s & flow_status::DONE != 0 {
            return s;
        }
    }
    panic!("flow command {c:#x} never completed");
}

fn v4(a: Ipv4Addr) -> [u8; 16] {
    a.to_ipv6_mapped().octets()
}

/// (SIP, DIP, DQP, SQP or None, pinned) of every entry, by iteration.
type Listed = BTreeSet<([u8; 16], [u8; 16], u32, Option<u32>, bool)>;

fn iterate(b: &mut Bench<Gateway>) -> Listed {
    let mut found = BTreeSet::new();
    let locations = (0..4096u32)
        .flat_map(|bucket| (0..4u32).map(move |way| (bucket << 4) | way))
        .chain((0..8u32).map(|slot| 1 << 16 | slot));
    for loc in locations {
        write(b, offset::FLOW_LOCATION, loc);
        let s = command(b, flow_command::READ_LOCATION);
        if s & flow_status::HIT == 0 {
            continue;
        }
        let mut sip = [0u8; 16];
        let mut dip = [0u8; 16];
        for i in 0..4 {
            sip[4 * i..4 * i + 4]
                .copy_from_slice(&read(b, offset::FLOW_RESULT_SIP_0 + 4 * i as u32).to_be_bytes());
            dip[4 * i..4 * i + 4]
                .copy_from_slice(&read(b, offset::FLOW_RESULT_DIP_0 + 4 * i as u32).to_be_bytes());
        }
        let sqp = (s & flow_status::SQP_VALID != 0).then(|| read(b, offset::FLOW_RESULT_SQP));
        found.insert((
            sip,
            dip,
            read(b, offset::FLOW_RESULT_DQP),
            sqp,
            s & flow_status::PINNED != 0,
        ));
    }
    found
}

#[test]
fn lh_01_csr_static_entries_lookup_delete_and_iteration() {
    let mut b = Bench::new(None).unwrap();
    let mut expected = Listed::new();
    // Static entries, IPv4 and IPv6.
    for i in 0..12u32 {
        let sip = if i % 2 == 0 {
            v4(Ipv4Addr::new(10, 0, 0, i as u8 + 1))
        } else {
            let mut a = [0u8; 16];
            a[0] = 0xfd;
            a[15] = i as u8;
            a
        };
        let dip = v4(Ipv4Addr::new(10, 0, 9, 9));
        set_key(&mut b, sip, dip, 0x100 + i);
        write(&mut b, offset::FLOW_SQP, 0x2000 + i);
        let s = command(&mut b, flow_command::INSERT_STATIC);
        assert_eq!(s & (flow_status::HIT | flow_status::FAILED), 0, "{s:#x}");
        expected.insert((sip, dip, 0x100 + i, Some(0x2000 + i), true));
    }
    // Flows the data path inserts, without a source QP.
    for i in 0..6u32 {
        let src = Ipv4Addr::new(192, 168, 1, i as u8);
        let dst = Ipv4Addr::new(192, 168, 2, 1);
        let f = RoceFrameBuilder::ipv4(src, dst)
            .dest_qp(0x500 + i)
            .payload_len(64)
            .build();
        b.push_frame(InPort::DcRx, &f, false);
        expected.insert((v4(src), v4(dst), 0x500 + i, None, false));
    }
    b.run_until_drained(10_000, 32).unwrap();
    assert_eq!(b.take_frames(OutPort::WanTx, usize::MAX).len(), 6);
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), 18);
    assert_eq!(read(&mut b, offset::FLOW_LEARNED), 12);

    // Look-up: hit with the source QP and the key read back; a miss.
    let sip = v4(Ipv4Addr::new(10, 0, 0, 5));
    let dip = v4(Ipv4Addr::new(10, 0, 9, 9));
    set_key(&mut b, sip, dip, 0x104);
    let s = command(&mut b, flow_command::LOOKUP);
    assert_eq!(
        s,
        flow_status::DONE | flow_status::HIT | flow_status::SQP_VALID | flow_status::PINNED
    );
    assert_eq!(read(&mut b, offset::FLOW_RESULT_SQP), 0x2004);
    assert_eq!(read(&mut b, offset::FLOW_RESULT_SIP_3), 0x0A00_0005);
    assert_eq!(read(&mut b, offset::FLOW_RESULT_SIP_2), 0x0000_FFFF);
    assert_eq!(read(&mut b, offset::FLOW_RESULT_DQP), 0x104);
    set_key(&mut b, sip, dip, 0x999);
    let s = command(&mut b, flow_command::LOOKUP);
    assert_eq!(s & flow_status::HIT, 0, "{s:#x}");

    // Iteration finds exactly the entries, static and learned.
    assert_eq!(iterate(&mut b), expected);

    // Delete one of each kind; they are gone from look-ups and iteration.
    set_key(&mut b, sip, dip, 0x104);
    assert_ne!(command(&mut b, flow_command::DELETE) & flow_status::HIT, 0);
    assert_eq!(command(&mut b, flow_command::LOOKUP) & flow_status::HIT, 0);
    expected.remove(&(sip, dip, 0x104, Some(0x2004), true));
    let (s0, d0) = (
        v4(Ipv4Addr::new(192, 168, 1, 0)),
        v4(Ipv4Addr::new(192, 168, 2, 1)),
    );
    set_key(&mut b, s0, d0, 0x500);
    assert_ne!(command(&mut b, flow_command::DELETE) & flow_status::HIT, 0);
    expected.remove(&(s0, d0, 0x500, None, false));
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), 16);
    assert_eq!(iterate(&mut b), expected);
}

#[test]
fn lh_01_aging_removes_idle_learned_flows_but_not_static_ones() {
    let mut b = Bench::new(None).unwrap();
    let sip = v4(Ipv4Addr::new(10, 0, 0, 1));
    let dip = v4(Ipv4Addr::new(10, 0, 0, 4));
    set_key(&mut b, sip, dip, 200);
    write(&mut b, offset::FLOW_SQP, 100);
    command(&mut b, flow_command::INSERT_STATIC);
    let f = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 4))
        .dest_qp(300)
        .build();
    b.push_frame(InPort::DcRx, &f, false);
    b.run_until_drained(10_000, 32).unwrap();
    assert_eq!(read(&mut b, offset::FLOW_OCCUPANCY), 2);
    // 20 us timeout; a scan pass takes 512 idle clocks (~1.6 us).
    write(&mut b, offset::FLOW_AGE_TIMEOUT_US, 20);
    b.run(10 * 322, 0);
    assert_eq!(
        read(&mut b, offset::FLOW_OCCUPANCY),
        2,
        "not yet idle for 20 us"
    );
    b.run(40 * 322, 0);
    assert_eq!(
        read(&mut b, offset::FLOW_OCCUPANCY),
        1,
        "the learned flow aged out"
    );
    assert_eq!(read(&mut b, offset::FLOW_AGED), 1);
    set_key(&mut b, sip, dip, 200);
    assert_ne!(
        command(&mut b, flow_command::LOOKUP) & flow_status::HIT,
        0,
        "static stays"
    );
}
