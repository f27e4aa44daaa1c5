//! PX-03: the prefix -> proxy table in the RTL against the reference model
//! (`cngw_model::proxy_table`): random IPv4 and IPv6 prefixes of every
//! length, nested, replaced and cleared entries, then look-ups of addresses
//! inside and outside them — the longest prefix wins, the lowest index among
//! equals — and every entry read back as committed (host bits cleared).

use cngw_model::GatewayModel;
use cngw_regmap::{offset, proxy};
use cngw_sim::Gateway;
use cngw_testbench::setup::{both, words};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A random address: IPv4-mapped half the time, from a few /8s so that
/// prefixes nest and collide.
fn address(rng: &mut StdRng) -> u128 {
    let top = [0x0a_u128, 0x0b, 0xc6][rng.gen_range(0..3)];
    if rng.gen_bool(0.5) {
        (0xffff_u128 << 32) | (top << 24) | rng.gen_range(0..1u128 << 24) & 0xff_ffff
    } else {
        (0xfd00_u128 << 112) | (top << 104) | (rng.gen::<u128>() >> 24)
    }
}

fn write_entry(
    gw: &mut Gateway,
    m: &mut GatewayModel,
    index: u32,
    prefix: u128,
    len: u32,
    addr: u128,
    valid: bool,
) {
    for (i, w) in words(prefix).into_iter().enumerate() {
        both(gw, m, offset::PROXY_ENTRY_PREFIX_0 + 4 * i as u32, w);
    }
    for (i, w) in words(addr).into_iter().enumerate() {
        both(gw, m, offset::PROXY_ENTRY_ADDR_0 + 4 * i as u32, w);
    }
    let control = if valid { proxy::ENTRY_VALID } else { 0 } | len << proxy::ENTRY_LEN_SHIFT;
    both(gw, m, offset::PROXY_ENTRY_CONTROL, control);
    both(gw, m, offset::PROXY_ENTRY_INDEX, index);
    both(gw, m, offset::PROXY_ENTRY_COMMAND, proxy::COMMIT);
}

fn compare(gw: &mut Gateway, m: &GatewayModel, offs: &[u32], what: &str) {
    for &o in offs {
        let name = cngw_regmap::by_offset(o).unwrap().name;
        assert_eq!(gw.csr_read(o).ok(), m.read_register(o), "{what}: {name}");
    }
}

#[test]
fn px_03_proxy_table_longest_prefix_match_equals_the_model() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut gw = Gateway::new();
    let mut m = GatewayModel::new();
    let read_back: Vec<u32> = (0..9)
        .map(|i| offset::PROXY_ENTRY_READ_PREFIX_0 + 4 * i)
        .collect();
    let mut hits = 0;
    for round in 0..6 {
        // Rewrite a few entries: nested prefixes (lengths near each other),
        // equal ones in two entries, some invalid, lengths past 128.
        for _ in 0..10 {
            let index = rng.gen_range(0..proxy::ENTRIES);
            let base = address(&mut rng);
            let len = match rng.gen_range(0..10) {
                0 => 0,
                1 => rng.gen_range(129..=255),
                2..=5 => rng.gen_range(96..=128),
                _ => rng.gen_range(1..=128),
            };
            write_entry(
                &mut gw,
                &mut m,
                index,
                base,
                len,
                address(&mut rng),
                rng.gen_bool(0.85),
            );
        }
        // Every entry reads back as the model holds it.
        for index in 0..proxy::ENTRIES {
            both(&mut gw, &mut m, offset::PROXY_ENTRY_INDEX, index);
            compare(
                &mut gw,
                &m,
                &read_back,
                &format!("round {round} entry {index}"),
            );
        }
        // Look-ups: addresses near the entries' prefixes and random ones.
        for _ in 0..40 {
            let a = if rng.gen_bool(0.6) {
                let e = m.proxy_table().entries[rng.gen_range(0..proxy::ENTRIES as usize)];
                let host = if e.len >= 128 {
                    0
                } else {
                    rng.gen::<u128>() >> e.len
                };
                e.prefix | host
            } else {
                address(&mut rng)
            };
            for (i, w) in words(a).into_iter().enumerate() {
                both(
                    &mut gw,
                    &mut m,
                    offset::PROXY_LOOKUP_ADDR_0 + 4 * i as u32,
                    w,
                );
            }
            // The answer is registered twice after the address (the driver
            // reads once in between).
            gw.run(4);
            let what = format!("look-up {a:#x} in {:#x?}", m.proxy_table().entries);
            compare(&mut gw, &m, &[offset::PROXY_LOOKUP_RESULT], &what);
            if m.read_register(offset::PROXY_LOOKUP_RESULT).unwrap() & proxy::LOOKUP_HIT != 0 {
                hits += 1;
            }
        }
    }
    assert!(hits > 100, "{hits} hits");
    // Reset clears the table.
    gw.reset();
    both(&mut gw, &mut m, offset::PROXY_ENTRY_INDEX, 0);
    assert_eq!(gw.csr_read(offset::PROXY_ENTRY_READ_STATE), Ok(0));
}
