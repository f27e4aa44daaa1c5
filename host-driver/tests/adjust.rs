//! LH-11: the adjustment loop on the Verilated gateway, through the
//! simulator backend. RoCEv2 frames offered faster than the internal virtual
//! queue drains build a standing queue at a full link: the loop lowers
//! alpha, K_max and K_min step by step to their floor. Once the load stops
//! and the queue has drained it raises them back to the ceiling. After every
//! write the test reads K_min and K_max back from the hardware.
#![cfg(feature = "sim")]

use cngw_driver::adjust::{step, AdjustParams, AdjustState, Step, Zone};
use cngw_driver::config::{apply_config, Config};
use cngw_driver::{BusError, Device, RegisterBus, SimBus};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::offset;
use cngw_sim::{frame_to_beats, Beat, Gateway, InPort, OutPort};
use std::net::Ipv4Addr;

/// 100 Gb/s, RTT_est 100 us: K_max 1.25 MB and K_min 625 KB at alpha 1.
/// The virtual queue drains at 50 Gb/s.
const CONFIG: &str = r#"
features = ["lh_ecn_mark"]
[port.0]
rate = "100G"
rtt = "100us"
alpha = 1.0
k_base = "64K"
[meter.0]
queue = "internal"
drain = "50G"
v_growth = "200K"
v_ecn = 0.5
"#;

/// Clocks per step: 200 us at 322 clocks per microsecond (two observation
/// windows, so each step sees a window of its own).
const STEP_CLOCKS: u64 = 200 * 322;

/// A bus over the gateway that reads K_min and K_max back from the
/// hardware after every write and records the writes.
struct CheckedBus<'a> {
    bus: SimBus<&'a mut Gateway>,
    writes: &'a mut Vec<(u32, u32)>,
}

impl RegisterBus for CheckedBus<'_> {
    fn read32(&mut self, off: u32) -> Result<u32, BusError> {
        self.bus.read32(off)
    }

    fn write32(&mut self, off: u32, value: u32) -> Result<(), BusError> {
        self.bus.write32(off, value)?;
        self.writes.push((off, value));
        let k_min = self.bus.read32(offset::PORT0_K_MIN_BYTES)?;
        let k_max = self.bus.read32(offset::PORT0_K_MAX_BYTES)?;
        assert!(
            k_min < k_max,
            "the gateway holds K_min {k_min} >= K_max {k_max} after the write of {value} to {off:#x}"
        );
        Ok(())
    }
}

/// Offers 1022-byte RoCEv2 frames (ECT(0)) to dc_rx at
/// `bytes_per_clock` (at most 64) for `clocks` clocks; every output ready.
fn offer(gw: &mut Gateway, clocks: u64, bytes_per_clock: u64, beats: &[Beat]) {
    gw.set_ready(OutPort::WanTx, true);
    gw.set_ready(OutPort::DcTx, true);
    let frame_bytes = 1022;
    let mut credit = 0u64;
    let mut next: Option<usize> = None;
    for _ in 0..clocks {
        if next.is_none() && bytes_per_clock > 0 && credit >= frame_bytes {
            credit -= frame_bytes;
            next = Some(0);
        }
        credit = (credit + bytes_per_clock).min(2 * frame_bytes);
        let beat = next.map(|i| &beats[i]);
        gw.drive(InPort::DcRx, beat);
        let taken = beat.is_some() && gw.ready(InPort::DcRx);
        gw.step();
        if taken {
            let i = next.unwrap() + 1;
            next = (i < beats.len()).then_some(i);
        }
    }
    gw.drive(InPort::DcRx, None);
}

/// A 1022-byte RoCEv2 frame 10.0.0.1 -> 10.0.9.1, ECT(0), as beats.
fn data_beats() -> Vec<Beat> {
    let frame = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 9, 1))
        .macs(
            [0x02, 0x11, 0x22, 0x33, 0x44, 0x01],
            [0x02, 0, 0, 0, 0, 0xFE],
        )
        .ecn(Ecn::Ect0)
        .dest_qp(0x100)
        .payload_len(964)
        .build();
    assert_eq!(frame.len(), 1022);
    frame_to_beats(&frame, false)
}

/// One step of the loop on the gateway, checking every write.
fn adjust_step(
    gw: &mut Gateway,
    params: &AdjustParams,
    state: &mut AdjustState,
    writes: &mut Vec<(u32, u32)>,
) -> Step {
    let mut dev = Device::open(CheckedBus {
        bus: SimBus::new(gw),
        writes,
    })
    .unwrap();
    step(&mut dev, params, state).unwrap()
}

#[test]
fn lh_11_sim_loop_lowers_k_max_under_a_standing_queue_and_restores_it_when_calm() {
    let mut gw = Gateway::new();
    {
        let mut dev = Device::open(SimBus::new(&mut gw)).unwrap();
        apply_config(&mut dev, &Config::parse(CONFIG).unwrap()).unwrap();
    }
    let beats = data_beats();
    let params = AdjustParams {
        persist: 1,
        ..AdjustParams::default()
    };
    let mut state = AdjustState::new();
    let mut writes = Vec::new();

    // 100 Gb/s offered (38.8 bytes per clock at 322 MHz) into a 50 Gb/s drain.
    let mut congested = Vec::new();
    for _ in 0..6 {
        offer(&mut gw, STEP_CLOCKS, 39, &beats);
        congested.push(adjust_step(&mut gw, &params, &mut state, &mut writes));
    }
    for s in &congested {
        let o = &s.observation;
        let u = s.adjustment.utilisation;
        assert!((0.95..1.05).contains(&u), "utilisation {u}: {o:?}");
        assert!(o.avg_queue_bytes > o.thresholds.k_min_bytes, "{o:?}");
        assert_eq!(s.adjustment.zone, Zone::StandingQueue);
    }
    // The first window already sees the gateway's own CE marks.
    assert!(congested[1].observation.emr_q16 > 0x8000);
    let k_max: Vec<u32> = congested
        .iter()
        .map(|s| s.adjustment.thresholds.k_max_bytes)
        .collect();
    // x0.75 per step from 1.25 MB down to alpha 0.25's 312.5 KB, then held.
    assert_eq!(
        k_max,
        [937_500, 703_125, 527_343, 395_507, 312_500, 312_500]
    );
    {
        let mut dev = Device::open(SimBus::new(&mut gw)).unwrap();
        let t = dev.port_thresholds(0).unwrap();
        assert_eq!(
            (t.alpha_q8_8, t.k_min_bytes, t.k_max_bytes),
            (0x40, 156_250, 312_500)
        );
        // V_growth and V_ecn followed K_max down by the same factor (1/4).
        assert_eq!(dev.read_by_name("PORT0_V_GROWTH_BYTES").unwrap(), 51_200);
        assert_eq!(dev.read_by_name("PORT0_V_ECN_Q16").unwrap(), 0x2000);
    }
    // Five moves, each alpha, K_min, K_max (shrinking: K_min first),
    // V_growth, V_ecn; none at the floor.
    assert_eq!(writes.len(), 25, "{writes:?}");
    for w in writes.chunks(5) {
        assert_eq!(w[0].0, offset::PORT0_ALPHA_Q8_8);
        assert_eq!(w[1].0, offset::PORT0_K_MIN_BYTES);
        assert_eq!(w[2].0, offset::PORT0_K_MAX_BYTES);
    }

    // The load stops: the queue drains at 50 Gb/s (6.25 MB in 1 ms), the
    // link is idle, and alpha climbs back by 0.125 a step to 1.0.
    writes.clear();
    let mut calm = Vec::new();
    for _ in 0..14 {
        offer(&mut gw, STEP_CLOCKS, 0, &beats);
        calm.push(adjust_step(&mut gw, &params, &mut state, &mut writes));
    }
    let zones: Vec<Zone> = calm.iter().map(|s| s.adjustment.zone).collect();
    let first_headroom = zones.iter().position(|&z| z == Zone::Headroom).unwrap();
    assert!(
        zones[..first_headroom].iter().all(|&z| z == Zone::Band),
        "while the queue drains the loop holds: {zones:?}"
    );
    assert!(zones[first_headroom..].iter().all(|&z| z == Zone::Headroom));
    let k_max: Vec<u32> = calm
        .iter()
        .map(|s| s.adjustment.thresholds.k_max_bytes)
        .collect();
    assert!(k_max.windows(2).all(|w| w[0] <= w[1]), "{k_max:?}");
    assert_eq!(*k_max.last().unwrap(), 1_250_000, "{k_max:?}");
    // Growing: K_max is written before K_min.
    for w in writes.chunks(5) {
        assert_eq!(w[1].0, offset::PORT0_K_MAX_BYTES);
        assert_eq!(w[2].0, offset::PORT0_K_MIN_BYTES);
    }
    let mut dev = Device::open(SimBus::new(&mut gw)).unwrap();
    assert_eq!(dev.read_by_name("PORT0_V_GROWTH_BYTES").unwrap(), 204_800);
    assert_eq!(dev.read_by_name("PORT0_V_ECN_Q16").unwrap(), 0x8000);
}

#[test]
fn lh_11_sim_loop_holds_in_the_dead_band() {
    let mut gw = Gateway::new();
    {
        let mut dev = Device::open(SimBus::new(&mut gw)).unwrap();
        let config = CONFIG.replace("drain = \"50G\"", "drain = \"95G\"");
        apply_config(&mut dev, &Config::parse(&config).unwrap()).unwrap();
    }
    let beats = data_beats();
    let params = AdjustParams {
        persist: 1,
        ..AdjustParams::default()
    };
    let mut state = AdjustState::new();
    let mut writes = Vec::new();
    // About 70 Gb/s (27 bytes per clock) drains away at 95 Gb/s: no queue,
    // utilisation between util_low and util_high.
    for _ in 0..4 {
        offer(&mut gw, STEP_CLOCKS, 27, &beats);
        let s = adjust_step(&mut gw, &params, &mut state, &mut writes);
        let u = s.adjustment.utilisation;
        assert!((0.6..0.8).contains(&u), "utilisation {u}");
        assert_eq!(s.adjustment.zone, Zone::Band);
    }
    assert!(writes.is_empty(), "{writes:?}");
}
