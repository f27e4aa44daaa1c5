//! Simulation speed of each unit model on idle clocks (inputs zero), in
//! clock cycles per second of wall-clock time: where the gateway's
//! simulation time goes. `cargo run --release -p cngw-sim --example
//! unit_speed [UNIT]`.

use cngw_sim::{unit_names, Unit};
use std::time::Instant;
fn main() {
    let only: Option<String> = std::env::args().nth(1);
    for name in unit_names() {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let mut u = Unit::new(name).unwrap();
        let n = 200_000u64;
        let t = Instant::now();
        for _ in 0..n {
            u.step();
        }
        println!(
            "{name}: {:.2} M cycles/s",
            n as f64 / t.elapsed().as_secs_f64() / 1e6
        );
    }
}
