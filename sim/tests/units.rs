//! The notification engine's arithmetic blocks, in the Verilog that ships,
//! against the packet crate's software (LH-12, LH-13): the ICRC's CRC-32
//! engine, the frame ICRC, the IPv4 header and ICMPv6 checksum units.

use cngw_packet::checksum::{icmpv6_checksum, ipv4_header_checksum};
use cngw_packet::crc32::crc32_ieee;
use cngw_packet::icrc::compute_frame;
use cngw_packet::RoceFrameBuilder;
use cngw_sim::{frame_to_beats, Unit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::Ipv6Addr;

fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.gen()).collect()
}

/// Drives messages back to back (with random idle clocks when `idle` > 0)
/// into a unit with the engine's beat inputs; collects `out` at `out_valid`.
fn run_beats(
    unit: &mut Unit,
    messages: &[Vec<u8>],
    idle: f64,
    rng: &mut StdRng,
    out: &str,
    out_valid: &str,
) -> Vec<u64> {
    let mut results = Vec::new();
    let sample = |u: &mut Unit, results: &mut Vec<u64>| {
        if u.get_u64(out_valid).unwrap() == 1 {
            results.push(u.get_u64(out).unwrap());
        }
    };
    for m in messages {
        let beats = frame_to_beats(m, false);
        for (i, b) in beats.iter().enumerate() {
            while idle > 0.0 && rng.gen_bool(idle) {
                unit.set_u64("valid", 0).unwrap();
                sample(unit, &mut results);
                unit.step();
            }
            unit.set_bytes("data", &b.data).unwrap();
            unit.set_u64("keep", b.keep).unwrap();
            unit.set_u64("valid", 1).unwrap();
            unit.set_u64("first", (i == 0) as u64).unwrap();
            unit.set_u64("last", b.last as u64).unwrap();
            sample(unit, &mut results);
            unit.step();
        }
    }
    unit.set_u64("valid", 0).unwrap();
    for _ in 0..10 {
        sample(unit, &mut results);
        unit.step();
    }
    results
}

#[test]
fn lh_12_crc32_engine_matches_software_on_every_length() {
    let mut rng = StdRng::seed_from_u64(12);
    let mut messages: Vec<Vec<u8>> = (1..=300).map(|len| random_bytes(&mut rng, len)).collect();
    messages.extend((0..200).map(|_| {
        let len = rng.gen_range(1..1500);
        random_bytes(&mut rng, len)
    }));
    for idle in [0.0, 0.3] {
        let mut unit = Unit::new("crc32_engine").unwrap();
        let got = run_beats(&mut unit, &messages, idle, &mut rng, "crc", "crc_valid");
        let want: Vec<u64> = messages.iter().map(|m| crc32_ieee(m) as u64).collect();
        assert_eq!(
            got.len(),
            want.len(),
            "one result per message (idle {idle})"
        );
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g,
                w,
                "message {i} of {} bytes (idle {idle})",
                messages[i].len()
            );
        }
    }
}

#[test]
fn lh_13_icmpv6_checksum_unit_matches_software() {
    let mut rng = StdRng::seed_from_u64(13);
    let src: Ipv6Addr = "2001:db8::1".parse().unwrap();
    let dst: Ipv6Addr = "2001:db8:ffff::7".parse().unwrap();
    let mut unit = Unit::new("icmpv6_checksum").unwrap();
    unit.set_bytes("src_ip", &src.octets()).unwrap();
    unit.set_bytes("dst_ip", &dst.octets()).unwrap();
    let messages: Vec<Vec<u8>> = (4..=200)
        .step_by(4)
        .map(|len| {
            let mut m = random_bytes(&mut rng, len);
            m[2] = 0; // the checksum field
            m[3] = 0;
            m
        })
        .collect();
    let got = run_beats(
        &mut unit,
        &messages,
        0.2,
        &mut rng,
        "checksum",
        "checksum_valid",
    );
    let want: Vec<u64> = messages
        .iter()
        .map(|m| icmpv6_checksum(src, dst, m) as u64)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn lh_12_ipv4_header_checksum_unit_matches_software() {
    let mut rng = StdRng::seed_from_u64(4);
    let mut unit = Unit::new("ipv4_checksum").unwrap();
    let headers: Vec<Vec<u8>> = (0..500).map(|_| random_bytes(&mut rng, 20)).collect();
    let mut got = Vec::new();
    for h in &headers {
        unit.set_bytes("header", h).unwrap();
        unit.set_u64("valid", 1).unwrap();
        if unit.get_u64("checksum_valid").unwrap() == 1 {
            got.push(unit.get_u64("checksum").unwrap());
        }
        unit.step();
    }
    unit.set_u64("valid", 0).unwrap();
    for _ in 0..5 {
        if unit.get_u64("checksum_valid").unwrap() == 1 {
            got.push(unit.get_u64("checksum").unwrap());
        }
        unit.step();
    }
    let want: Vec<u64> = headers
        .iter()
        .map(|h| ipv4_header_checksum(h) as u64)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn lh_12_frame_icrc_matches_software_on_rocev2_frames() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut frames = Vec::new();
    for i in 0..120 {
        let len = rng.gen_range(0..600usize) & !3;
        let b = if i % 2 == 0 {
            RoceFrameBuilder::ipv4("10.0.0.1".parse().unwrap(), "10.0.0.4".parse().unwrap())
        } else {
            RoceFrameBuilder::ipv6("fd00::1".parse().unwrap(), "fd00::4".parse().unwrap())
        };
        let b = if i % 3 == 0 {
            b.vlan(rng.gen_range(1..4095))
        } else {
            b
        };
        frames.push(
            b.dest_qp(rng.gen_range(0..1 << 24))
                .psn(rng.gen_range(0..1 << 24))
                .payload_len(len)
                .build(),
        );
    }
    let mut unit = Unit::new("frame_icrc").unwrap();
    unit.set_u64("tap_tready", 1).unwrap();
    let mut got = Vec::new();
    let sample = |u: &mut Unit, got: &mut Vec<u64>| {
        if u.get_u64("icrc_valid").unwrap() == 1 {
            got.push(u.get_u64("icrc").unwrap());
        }
    };
    for f in &frames {
        for b in frame_to_beats(f, false) {
            if rng.gen_bool(0.2) {
                unit.set_u64("tap_tvalid", 0).unwrap();
                sample(&mut unit, &mut got);
                unit.step();
            }
            unit.set_bytes("tap_tdata", &b.data).unwrap();
            unit.set_u64("tap_tkeep", b.keep).unwrap();
            unit.set_u64("tap_tlast", b.last as u64).unwrap();
            unit.set_u64("tap_tvalid", 1).unwrap();
            sample(&mut unit, &mut got);
            unit.step();
        }
    }
    unit.set_u64("tap_tvalid", 0).unwrap();
    for _ in 0..10 {
        sample(&mut unit, &mut got);
        unit.step();
    }
    let want: Vec<u64> = frames
        .iter()
        .map(|f| compute_frame(f).unwrap() as u64)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn hw_03_units_are_listed_and_unknown_ones_refused() {
    assert!(cngw_sim::unit_names().contains(&"crc32_engine"));
    assert!(Unit::new("warp_core").is_err());
}
