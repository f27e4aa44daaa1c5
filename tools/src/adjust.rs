//! `cngw adjust`: the LH-11 loop. Applies a configuration, then every
//! interval observes WAN port 0's gauges, moves alpha by the law of
//! `cngw_driver::adjust` and writes the new K_min, K_max, V_growth and
//! V_ecn, printing each step.
//!
//! On a PCIe device the interval is wall time. On the simulator it is
//! simulated time: the gateway is clocked through it, idle or, with
//! `--sim-load`, with RoCEv2 frames offered to dc_rx at that rate (the
//! gauges need traffic to move; nothing else feeds a fresh simulator).

use crate::cli::AdjustArgs;
use crate::config::{check_against_device, load, plan_size};
use crate::device::{self, device_error, maybe_logged, AnyDevice, DeviceSpec};
use crate::report::json_string;
use anyhow::{bail, Context, Result};
use cngw_driver::adjust::{check_port, step, AdjustParams, AdjustState, Step};
use cngw_driver::config::{apply as apply_plan, Config, Plan};
use cngw_driver::thresholds::q8_8_to_alpha;
use cngw_driver::{Device, SimBus, Thresholds};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{meter_control, offset};
use cngw_sim::{frame_to_beats, Beat, Gateway, InPort, OutPort, BEAT_BYTES};
use std::net::Ipv4Addr;
use std::time::Duration;

/// Default interval on a PCIe device.
pub const DEFAULT_PCI_INTERVAL: Duration = Duration::from_secs(1);
/// Default (simulated) interval on the simulator: two observation windows
/// at the reset `LH_OBS_WINDOW_US`.
pub const DEFAULT_SIM_INTERVAL: Duration = Duration::from_micros(200);
/// Longest simulated interval: a simulated millisecond costs about a
/// second of wall time under load.
pub const MAX_SIM_INTERVAL: Duration = Duration::from_millis(10);
/// Length of each offered frame (without FCS): a 964-byte RoCEv2 payload
/// behind Ethernet, IPv4, UDP and BTH, with the ICRC; 16 beats.
pub const SIM_FRAME_BYTES: usize = 1022;
/// Ethernet, IPv4, UDP, BTH and ICRC around the payload.
const ROCE_OVERHEAD_BYTES: usize = 58;

/// What the arguments and the configuration ask for, checked before the
/// device is opened.
struct Request {
    config: Option<Config>,
    steps: u32,
    sim_load_bps: Option<u64>,
}

fn request(spec: &DeviceSpec, args: &AdjustArgs) -> Result<Request> {
    if let Some(interval) = args.interval {
        check_interval(spec, interval)?;
    }
    match spec {
        DeviceSpec::Sim if args.steps == 0 => bail!(
            "--steps 0 (until interrupted) needs a PCIe device: the simulator's run must end; \
             nothing written"
        ),
        DeviceSpec::Pci(_) if args.sim_load.is_some() => bail!(
            "--sim-load offers traffic inside the simulator; a PCIe device carries real \
             traffic (--device {spec}); nothing written"
        ),
        _ => {}
    }
    let config = args.config.as_deref().map(load).transpose()?;
    Ok(Request {
        config,
        steps: args.steps,
        sim_load_bps: args.sim_load,
    })
}

fn check_interval(spec: &DeviceSpec, interval: Duration) -> Result<()> {
    if *spec == DeviceSpec::Sim && interval > MAX_SIM_INTERVAL {
        bail!(
            "an interval of {interval:?} is simulated time: at most {MAX_SIM_INTERVAL:?} on the \
             simulator (a simulated millisecond takes about a second); nothing written"
        );
    }
    Ok(())
}

/// The law, the interval and the plan, all checked against the device;
/// nothing is written.
struct Prepared {
    plan: Plan,
    params: AdjustParams,
    interval: Duration,
}

/// Port 0's LH-03 registers as they will be once `plan` is applied.
fn port_after(dev: &mut AnyDevice<'_>, plan: &Plan) -> Result<Thresholds> {
    let mut t = dev.port_thresholds(0).map_err(device_error)?;
    for &(off, value) in &plan.writes {
        match off {
            offset::PORT0_RATE_MBPS => t.rate_mbps = value,
            offset::PORT0_RTT_EST_US => t.rtt_est_us = value,
            offset::PORT0_K_BASE_BYTES => t.k_base_bytes = value,
            offset::PORT0_ALPHA_Q8_8 => t.alpha_q8_8 = value,
            offset::PORT0_K_MIN_BYTES => t.k_min_bytes = value,
            offset::PORT0_K_MAX_BYTES => t.k_max_bytes = value,
            _ => {}
        }
    }
    Ok(t)
}

/// A register's value once `plan` is applied.
fn register_after(dev: &mut AnyDevice<'_>, plan: &Plan, off: u32) -> Result<u32> {
    match plan.writes.iter().rev().find(|&&(o, _)| o == off) {
        Some(&(_, value)) => Ok(value),
        None => dev
            .bus_mut()
            .read32(off)
            .map_err(|e| device_error(e.into())),
    }
}

fn prepare(
    spec: &DeviceSpec,
    dev: &mut AnyDevice<'_>,
    req: &Request,
    args: &AdjustArgs,
) -> Result<Prepared> {
    let source = || match &args.config {
        Some(path) => format!("configuration {}", path.display()),
        None => "the device's registers".to_string(),
    };
    let (plan, adjust) = match &req.config {
        Some(config) => {
            let plan = config
                .plan(dev)
                .with_context(|| format!("{} rejected; nothing written", source()))?;
            check_against_device(dev, &plan)
                .with_context(|| format!("{} rejected; nothing written", source()))?;
            (plan, config.adjust_plan(dev.num_ports())?)
        }
        None => (Plan::default(), None),
    };
    let params = adjust.map(|a| a.params).unwrap_or_default();
    let interval = match (args.interval, adjust.and_then(|a| a.interval)) {
        (Some(i), _) => i,
        (None, Some(i)) => {
            check_interval(spec, i).context("[adjust] interval")?;
            i
        }
        (None, None) => match spec {
            DeviceSpec::Sim => DEFAULT_SIM_INTERVAL,
            DeviceSpec::Pci(_) => DEFAULT_PCI_INTERVAL,
        },
    };
    let port = port_after(dev, &plan)?;
    check_port(&params, &port)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| {
            format!(
                "the [adjust] bounds do not fit port 0 ({} Mb/s, RTT_est {} us); nothing written",
                port.rate_mbps, port.rtt_est_us
            )
        })?;
    let (lo, hi) = (params.alpha_min_q8_8, params.alpha_max_q8_8);
    if !(lo..=hi).contains(&port.alpha_q8_8) {
        bail!(
            "port 0's alpha {} (from {}) is outside [alpha_min, alpha_max] = [{}, {}]: set \
             [adjust] alpha_min/alpha_max or [port.0] alpha; nothing written",
            q8_8_to_alpha(port.alpha_q8_8),
            source(),
            q8_8_to_alpha(lo),
            q8_8_to_alpha(hi)
        );
    }
    let window_us = register_after(dev, &plan, offset::LH_OBS_WINDOW_US)?;
    if window_us == 0 {
        bail!("LH_OBS_WINDOW_US is 0: no utilisation to observe; nothing written");
    }
    if interval < Duration::from_micros(u64::from(window_us)) {
        bail!(
            "an interval of {interval:?} is shorter than the observation window \
             (LH_OBS_WINDOW_US = {window_us} us): two steps would see the same window; \
             nothing written"
        );
    }
    if let Some(bps) = req.sim_load_bps {
        let clocks_per_us = register_after(dev, &plan, offset::CLOCKS_PER_US)?;
        let line_bps = BEAT_BYTES as u64 * 8 * u64::from(clocks_per_us) * 1_000_000;
        if bps == 0 || bps > line_bps {
            bail!(
                "--sim-load must be above 0 and at most the simulated DC port's {} Gb/s \
                 (64 bytes per clock at CLOCKS_PER_US = {clocks_per_us}); nothing written",
                line_bps as f64 / 1e9
            );
        }
        let control = register_after(dev, &plan, offset::PORT0_METER_CONTROL)?;
        if control & meter_control::INTERNAL_QUEUE == 0 {
            eprintln!(
                "note: the queue depth comes from the telemetry input, which `cngw adjust` does \
                 not drive: the average queue stays 0 (set [meter.0] queue = \"internal\")"
            );
        }
    }
    Ok(Prepared {
        plan,
        params,
        interval,
    })
}

/// RoCEv2 frames offered to dc_rx at a fixed rate, paced by a byte credit.
struct OfferedLoad {
    beats: Vec<Beat>,
    /// Bytes of credit per clock, 32.32 fixed point.
    per_clock: u128,
    credit: u128,
    /// The beat of the frame in flight.
    next_beat: Option<usize>,
    frames: u64,
}

impl OfferedLoad {
    fn new(bps: u64, clocks_per_us: u32) -> OfferedLoad {
        let frame = RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 9, 1))
            .macs(
                [0x02, 0x11, 0x22, 0x33, 0x44, 0x01],
                [0x02, 0, 0, 0, 0, 0xFE],
            )
            .ecn(Ecn::Ect0)
            .dest_qp(0x100)
            .payload_len(SIM_FRAME_BYTES - ROCE_OVERHEAD_BYTES)
            .build();
        assert_eq!(frame.len(), SIM_FRAME_BYTES, "the offered frame's length");
        let per_clock =
            (u128::from(bps) << 32) / (8 * u128::from(clocks_per_us.max(1)) * 1_000_000);
        OfferedLoad {
            beats: frame_to_beats(&frame, false),
            per_clock,
            credit: 0,
            next_beat: None,
            frames: 0,
        }
    }

    /// Clocks the gateway `clocks` times, offering frames as the credit allows.
    fn run(&mut self, gw: &mut Gateway, clocks: u64) {
        let frame_credit = (SIM_FRAME_BYTES as u128) << 32;
        gw.set_ready(OutPort::WanTx, true);
        gw.set_ready(OutPort::DcTx, true);
        for _ in 0..clocks {
            if self.next_beat.is_none() && self.credit >= frame_credit {
                self.credit -= frame_credit;
                self.next_beat = Some(0);
                self.frames += 1;
            }
            // At most two frames of credit: a stalled port does not bank a burst.
            self.credit = (self.credit + self.per_clock).min(2 * frame_credit);
            let beat = self.next_beat.map(|i| &self.beats[i]);
            gw.drive(InPort::DcRx, beat);
            let taken = beat.is_some() && gw.ready(InPort::DcRx);
            gw.step();
            if taken {
                let i = self.next_beat.expect("a beat was offered") + 1;
                self.next_beat = (i < self.beats.len()).then_some(i);
            }
        }
        gw.drive(InPort::DcRx, None);
    }
}

/// Where the loop runs and how it waits.
enum Target {
    Sim {
        gateway: Box<Gateway>,
        load: Option<OfferedLoad>,
    },
    Pci(AnyDevice<'static>),
}

pub fn run(spec: &DeviceSpec, verbose: bool, args: &AdjustArgs) -> Result<()> {
    let req = request(spec, args)?;
    let mut target = match spec {
        DeviceSpec::Sim => Target::Sim {
            gateway: Box::new(Gateway::new()),
            load: None,
        },
        DeviceSpec::Pci(_) => Target::Pci(device::open(spec, verbose)?),
    };
    let mut state = AdjustState::new();
    let out = Printer::new(args.json);
    match &mut target {
        Target::Sim { gateway, load } => {
            let (prepared, clocks_per_us) = {
                let mut dev = open_sim(gateway, verbose)?;
                let prepared = prepare(spec, &mut dev, &req, args)?;
                apply(&mut dev, &prepared.plan, spec, args)?;
                let clocks_per_us = dev.read_by_name("CLOCKS_PER_US").map_err(device_error)?;
                (prepared, clocks_per_us)
            };
            *load = req
                .sim_load_bps
                .map(|bps| OfferedLoad::new(bps, clocks_per_us));
            out.header(spec, &prepared, req.sim_load_bps);
            let clocks = interval_clocks(prepared.interval, clocks_per_us);
            for n in 1..=req.steps {
                match load {
                    Some(load) => load.run(gateway, clocks),
                    None => gateway.run(clocks),
                }
                let mut dev = open_sim(gateway, verbose)?;
                let s = step(&mut dev, &prepared.params, &mut state)
                    .map_err(|e| anyhow::anyhow!("{e}"))
                    .with_context(|| format!("step {n} failed"))?;
                out.step(n, prepared.interval * n, &s);
            }
            if let Some(load) = load {
                out.note(&format!(
                    "offered {} frames of {SIM_FRAME_BYTES} bytes to dc_rx",
                    load.frames
                ));
            }
        }
        Target::Pci(dev) => {
            let prepared = prepare(spec, dev, &req, args)?;
            apply(dev, &prepared.plan, spec, args)?;
            out.header(spec, &prepared, None);
            let mut n = 0u32;
            while req.steps == 0 || n < req.steps {
                n += 1;
                std::thread::sleep(prepared.interval);
                let s = step(dev, &prepared.params, &mut state)
                    .map_err(|e| anyhow::anyhow!("{e}"))
                    .with_context(|| format!("step {n} failed"))?;
                out.step(n, prepared.interval * n, &s);
            }
        }
    }
    Ok(())
}

/// A device over the simulated gateway (borrowed for one step).
fn open_sim(gateway: &mut Gateway, verbose: bool) -> Result<AnyDevice<'_>> {
    Device::open(maybe_logged(SimBus::new(gateway), verbose))
        .map_err(device_error)
        .context("cannot open the simulated cngw device")
}

fn apply(dev: &mut AnyDevice<'_>, plan: &Plan, spec: &DeviceSpec, args: &AdjustArgs) -> Result<()> {
    if plan.is_empty() {
        return Ok(());
    }
    apply_plan(dev, plan)
        .map_err(device_error)
        .with_context(|| {
            format!(
                "applying {} failed",
                args.config
                    .as_deref()
                    .map_or("the configuration".into(), |p| p.display().to_string())
            )
        })?;
    if !args.json {
        println!("applied {} to the {}", plan_size(plan), spec.describe());
    }
    Ok(())
}

/// Clocks in `interval` at `clocks_per_us`, rounded up.
fn interval_clocks(interval: Duration, clocks_per_us: u32) -> u64 {
    let ns = interval.as_nanos();
    let clocks = (ns * u128::from(clocks_per_us)).div_ceil(1000);
    u64::try_from(clocks).unwrap_or(u64::MAX)
}

/// Text table or JSON lines.
struct Printer {
    json: bool,
}

impl Printer {
    fn new(json: bool) -> Printer {
        Printer { json }
    }

    fn header(&self, spec: &DeviceSpec, p: &Prepared, load: Option<u64>) {
        if self.json {
            return;
        }
        let a = &p.params;
        println!(
            "LH-11 adjustment of port 0 on the {}: every {:?}{}",
            spec.describe(),
            p.interval,
            match (spec, load) {
                (DeviceSpec::Sim, Some(bps)) => format!(
                    " of simulated time, {} Gb/s of RoCEv2 offered to dc_rx",
                    bps as f64 / 1e9
                ),
                (DeviceSpec::Sim, None) => " of simulated time, no traffic".to_string(),
                _ => String::new(),
            }
        );
        println!(
            "law: alpha in [{}, {}]; standing queue (avg > K_min, util >= {}): alpha x {}; \
             headroom (util < {}, avg < K_min/2): alpha + {}; {} observation(s) in a row",
            q8_8_to_alpha(a.alpha_min_q8_8),
            q8_8_to_alpha(a.alpha_max_q8_8),
            a.util_high,
            f64::from(a.decrease_q8) / 256.0,
            a.util_low,
            q8_8_to_alpha(a.increase_q8_8),
            a.persist
        );
        println!(
            "{:>4} {:>10} {:>12} {:>6} {:>6}  {:<14} {:>7} {:>12} {:>12} {:>12} {:>6}",
            "STEP",
            "TIME",
            "AVG_QUEUE",
            "UTIL",
            "EMR",
            "ZONE",
            "ALPHA",
            "K_MIN",
            "K_MAX",
            "V_GROWTH",
            "WRITES"
        );
    }

    fn step(&self, n: u32, time: Duration, s: &Step) {
        let o = &s.observation;
        let a = &s.adjustment;
        let t = &a.thresholds;
        if self.json {
            println!(
                "{{\"tool\": \"cngw adjust\", \"schema_version\": 1, \"step\": {n}, \
                 \"time_us\": {}, \"observation\": {{\"avg_queue_bytes\": {}, \
                 \"utilisation\": {:.6}, \"marking_rate\": {:.6}, \"port_window_bytes\": {}, \
                 \"obs_window_us\": {}, \"alpha\": {}, \"k_min_bytes\": {}, \"k_max_bytes\": {}}}, \
                 \"zone\": {}, \"changed\": {}, \"thresholds\": {{\"alpha\": {}, \
                 \"alpha_q8_8\": {}, \"k_min_bytes\": {}, \"k_max_bytes\": {}, \
                 \"v_ecn_q16\": {}, \"v_growth_bytes\": {}}}, \"writes\": {}}}",
                time.as_micros(),
                o.avg_queue_bytes,
                a.utilisation,
                o.marking_rate(),
                o.port_window_bytes,
                o.obs_window_us,
                q8_8_to_alpha(o.thresholds.alpha_q8_8),
                o.thresholds.k_min_bytes,
                o.thresholds.k_max_bytes,
                json_string(a.zone.name()),
                a.changed(o),
                q8_8_to_alpha(t.alpha_q8_8),
                t.alpha_q8_8,
                t.k_min_bytes,
                t.k_max_bytes,
                a.v_ecn_q16,
                a.v_growth_bytes,
                s.writes.len()
            );
            return;
        }
        let v_growth = if a.v_growth_bytes == u32::MAX {
            "off".to_string()
        } else {
            a.v_growth_bytes.to_string()
        };
        println!(
            "{:>4} {:>10} {:>12} {:>6.3} {:>6.3}  {:<14} {:>7.4} {:>12} {:>12} {:>12} {:>6}",
            n,
            format!("{} us", time.as_micros()),
            o.avg_queue_bytes,
            a.utilisation,
            o.marking_rate(),
            a.zone.name(),
            q8_8_to_alpha(t.alpha_q8_8),
            t.k_min_bytes,
            t.k_max_bytes,
            v_growth,
            s.writes.len()
        );
    }

    fn note(&self, text: &str) {
        if !self.json {
            println!("{text}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_11_interval_clocks_round_up() {
        assert_eq!(interval_clocks(Duration::from_micros(100), 322), 32_200);
        assert_eq!(interval_clocks(Duration::from_nanos(1), 322), 1);
        assert_eq!(interval_clocks(Duration::from_nanos(3_106), 322), 1_001);
    }

    #[test]
    fn lh_11_offered_load_credit_per_clock() {
        // 64 bytes per clock at 100 clocks per microsecond is 51.2 Gb/s.
        let load = OfferedLoad::new(51_200_000_000, 100);
        assert_eq!(load.per_clock, 64 << 32);
        assert_eq!(load.beats.len(), SIM_FRAME_BYTES.div_ceil(BEAT_BYTES));
        assert_eq!(load.beats.len(), 16);
    }
}
