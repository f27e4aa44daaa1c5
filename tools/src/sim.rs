//! A simulator session: the cycle-accurate gateway and the reference model,
//! configured alike, run on the same frames and compared.

use crate::clock::ClockRate;
use crate::counters::{self, CounterRow};
use crate::device::{device_error, maybe_logged};
use anyhow::{ensure, Context, Result};
use cngw_driver::config::{apply, Config, Plan};
use cngw_driver::{Device, RegisterBus, SimBus};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::TimedFrame;
use cngw_regmap::{by_name, offset, tod_control};
use cngw_sim::Gateway;
use cngw_testbench::scoreboard::{compare, compare_counters, expect};
use cngw_testbench::{
    expect_scheduled, run, run_scheduled, Capture, DepthStep, Mismatch, Schedule, StreamOptions,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Clocks after a queue-depth change before traffic starts (the input is
/// registered before the data path compares it).
const QUEUE_DEPTH_SETTLE_CYCLES: u64 = 4;

pub struct Session {
    pub gateway: Gateway,
    pub model: GatewayModel,
    /// FEATURE_ENABLE after configuration.
    pub features: u32,
    pub plan: Plan,
}

/// One run: what the RTL did and whether the model agrees.
pub struct Outcome {
    pub capture: Capture,
    /// Frames, parser results and counters of RTL and model compared (what
    /// `cngw_testbench::check` does, keeping the capture on a mismatch).
    pub verdict: Result<(), Mismatch>,
    /// Wall-clock time of the RTL simulation alone.
    pub wall: Duration,
}

impl Outcome {
    pub fn cycles_per_second(&self) -> f64 {
        self.capture.cycles as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    pub fn frames_out(&self, port: OutPort) -> &[Frame] {
        self.capture.outputs.get(&port).map_or(&[], Vec::as_slice)
    }

    /// Cycles from the first input frame's first beat to the first output
    /// frame's first beat.
    pub fn latency(&self, from: InPort, to: OutPort) -> Option<u64> {
        let start = *self.capture.input_start_cycles.get(&from)?.first()?;
        let end = *self.capture.output_start_cycles.get(&to)?.first()?;
        end.checked_sub(start)
    }
}

/// The frame counters of one direction, as the device reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirectionCounters {
    pub rx_frames: u32,
    pub roce: u32,
    pub non_roce: u32,
    pub malformed: u32,
    pub tx_frames: u32,
}

/// dc_rx -> wan_tx and wan_rx -> dc_tx, and every counter and status
/// register of the device as `cngw counters` reads them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub dc_to_wan: DirectionCounters,
    pub wan_to_dc: DirectionCounters,
    pub rows: Vec<CounterRow>,
}

/// What a scheduled replay did besides its [`Outcome`].
pub struct ScheduledOutcome {
    pub outcome: Outcome,
    /// Frames of each input that entered.
    pub frames_sent: BTreeMap<InPort, usize>,
    /// Per dc_rx frame sent: the clock its first beat passed the CE marker.
    pub marker_cycles: Vec<u64>,
    /// Depth steps driven, with the clock each was driven from.
    pub depth_steps_applied: Vec<DepthStep>,
    /// The depth the gateway held before the run.
    pub initial_depth: u32,
}

impl Session {
    /// A fresh gateway (tracing to `vcd` if given) and model; `config` is
    /// validated and its writes applied to both, through the driver's
    /// simulator bus on the RTL side.
    pub fn new(config: Option<&Config>, vcd: Option<&Path>, verbose: bool) -> Result<Session> {
        let mut gateway = match vcd {
            Some(path) => Gateway::with_trace(path)
                .with_context(|| format!("cannot write the waveform {}", path.display()))?,
            None => Gateway::new(),
        };
        let (plan, features) = {
            let mut dev = Device::open(maybe_logged(SimBus::new(&mut gateway), verbose))
                .map_err(device_error)?;
            let plan = match config {
                Some(c) => c.plan(&mut dev).context("configuration rejected")?,
                None => Plan::default(),
            };
            crate::config::print_warnings(&plan);
            apply(&mut dev, &plan).map_err(device_error)?;
            (plan, dev.features().map_err(device_error)?)
        };
        // The model takes each flow-table command at once: no polls.
        let mut model = GatewayModel::new();
        model.set_reset_clock(gateway.reset_released_at());
        for (off, value) in plan.bus_writes() {
            ensure!(
                model.write_register(off, value),
                "the reference model refused the write of {value:#x} to {:#05x}",
                off
            );
        }
        if plan.set_time_of_day {
            // The driver set the time of day from the host's clock (LH-12):
            // the model takes the base and the captured uptime the device
            // holds (it has no clock for the capture).
            let mut dev = Device::open(SimBus::new(&mut gateway)).map_err(device_error)?;
            let mut read = |off: u32| {
                dev.bus_mut()
                    .read32(off)
                    .map_err(|e| device_error(e.into()))
            };
            let base = [
                (
                    offset::LH_TOD_BASE_SECONDS,
                    read(offset::LH_TOD_BASE_SECONDS)?,
                ),
                (
                    offset::LH_TOD_BASE_FRACTION,
                    read(offset::LH_TOD_BASE_FRACTION)?,
                ),
                (offset::LH_TOD_CONTROL, tod_control::SET),
            ];
            let uptime = (u64::from(read(offset::LH_TOD_UPTIME_SECONDS)?) << 32)
                | u64::from(read(offset::LH_TOD_UPTIME_FRACTION)?);
            for (off, value) in base {
                ensure!(
                    model.write_register(off, value),
                    "the model refused {off:#05x}"
                );
            }
            model.time_of_day_captured(uptime);
        }
        Ok(Session {
            gateway,
            model,
            features,
            plan,
        })
    }

    /// Switches on every feature the device implements (CAPABILITIES.features)
    /// in addition to those already on, in the RTL and the model.
    pub fn enable_all_features(&mut self) -> Result<()> {
        let mut dev = Device::open(SimBus::new(&mut self.gateway)).map_err(device_error)?;
        let bits = self.features | dev.capabilities().features();
        let reg = by_name("FEATURE_ENABLE").expect("register map has FEATURE_ENABLE");
        dev.write(reg, bits).map_err(device_error)?;
        ensure!(
            self.model.write_register(reg.offset, bits),
            "the reference model refused FEATURE_ENABLE"
        );
        self.features = bits;
        Ok(())
    }

    /// Drives the external queue-depth telemetry input of both RTL and model,
    /// and clocks the RTL until the value is registered.
    pub fn set_queue_depth(&mut self, bytes: u32) {
        let at = self.gateway.cycle();
        self.gateway.set_queue_depth(bytes, true);
        self.gateway.run(QUEUE_DEPTH_SETTLE_CYCLES);
        self.model.set_queue_depth_at(bytes, at);
    }

    /// Drives `schedule` (frames at their clocks, queue-depth steps) through
    /// the RTL, then the model, each dc_rx frame with the depth the RTL's CE
    /// marker used for it, and compares them.
    pub fn run_scheduled(
        &mut self,
        schedule: &Schedule,
        opts: StreamOptions,
    ) -> Result<ScheduledOutcome> {
        let initial_depth = self
            .model
            .read_register(offset::PORT0_QUEUE_DEPTH_BYTES)
            .unwrap_or(0);
        let started = Instant::now();
        let run = run_scheduled(&mut self.gateway, schedule, opts)?;
        let wall = started.elapsed();
        self.gateway.flush_trace();
        let expected = expect_scheduled(&mut self.model, schedule, &run);
        let verdict = match compare(&run.capture, &expected) {
            Ok(()) => compare_counters(&mut self.gateway, &self.model),
            Err(mismatch) => Err(mismatch),
        };
        Ok(ScheduledOutcome {
            outcome: Outcome {
                capture: run.capture,
                verdict,
                wall,
            },
            frames_sent: run.frames_sent,
            marker_cycles: run.marker_cycles,
            depth_steps_applied: run.depth_steps_applied,
            initial_depth,
        })
    }

    /// Streams `inputs` through the RTL, then the model, and compares them.
    pub fn run(&mut self, inputs: &[(InPort, Vec<Frame>)], opts: StreamOptions) -> Outcome {
        let started = Instant::now();
        let capture = run(&mut self.gateway, inputs, opts);
        let wall = started.elapsed();
        self.gateway.flush_trace();
        let expected = expect(&mut self.model, inputs);
        let verdict = match compare(&capture, &expected) {
            Ok(()) => compare_counters(&mut self.gateway, &self.model),
            Err(mismatch) => Err(mismatch),
        };
        Outcome {
            capture,
            verdict,
            wall,
        }
    }

    /// Every counter and status register, read through the CSR port.
    pub fn counters(&mut self) -> Result<Counters> {
        let mut dev = Device::open(SimBus::new(&mut self.gateway)).map_err(device_error)?;
        let rows = counters::read(&mut dev)?;
        let value = |off: u32| {
            rows.iter()
                .find(|(r, _)| r.offset == off)
                .map(|(_, v)| *v)
                .expect("frame counters are volatile registers")
        };
        Ok(Counters {
            dc_to_wan: DirectionCounters {
                rx_frames: value(offset::DC_RX_FRAMES),
                roce: value(offset::DC_RX_ROCE_FRAMES),
                non_roce: value(offset::DC_RX_NON_ROCE_FRAMES),
                malformed: value(offset::DC_RX_MALFORMED_FRAMES),
                tx_frames: value(offset::WAN_TX_FRAMES),
            },
            wan_to_dc: DirectionCounters {
                rx_frames: value(offset::WAN_RX_FRAMES),
                roce: value(offset::WAN_RX_ROCE_FRAMES),
                non_roce: value(offset::WAN_RX_NON_ROCE_FRAMES),
                malformed: value(offset::WAN_RX_MALFORMED_FRAMES),
                tx_frames: value(offset::DC_TX_FRAMES),
            },
            rows,
        })
    }
}

/// Frames of a pcap as the stream carries them (`tuser` clear).
pub fn stream_frames(frames: &[TimedFrame]) -> Vec<Frame> {
    frames
        .iter()
        .map(|(_, data)| Frame::new(data.clone()))
        .collect()
}

/// How many later input frames a pass-through match may skip (frames the
/// gateway dropped or rewrote).
const MATCH_WINDOW: usize = 256;

/// Timestamps for the frames that left a port. A frame that equals one of the
/// frames that entered the opposite port keeps that frame's timestamp; any
/// other (rewritten or generated) frame gets the previous output's timestamp
/// plus the clock cycles between the two at `clock`.
pub fn timestamp_outputs(
    outputs: &[Frame],
    start_cycles: &[u64],
    inputs: &[TimedFrame],
    clock: ClockRate,
) -> Vec<TimedFrame> {
    let mut next_input = 0;
    let mut previous: Option<(u64, u64)> = None; // (timestamp, cycle)
    let base = inputs.first().map_or(0, |(t, _)| *t);
    outputs
        .iter()
        .enumerate()
        .map(|(i, frame)| {
            let cycle = start_cycles.get(i).copied().unwrap_or(0);
            let found = inputs[next_input.min(inputs.len())..]
                .iter()
                .take(MATCH_WINDOW)
                .position(|(_, data)| *data == frame.data);
            let ts = match found {
                Some(k) => {
                    let ts = inputs[next_input + k].0;
                    next_input += k + 1;
                    ts
                }
                None => {
                    let (t0, c0) = previous.unwrap_or((base, 0));
                    t0 + clock.ns_at(cycle.saturating_sub(c0))
                }
            };
            previous = Some((ts, cycle));
            (ts, frame.data.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_03_pass_through_frames_keep_their_timestamps() {
        let inputs = vec![
            (100, vec![1u8; 60]),
            (200, vec![2u8; 60]),
            (300, vec![3u8; 60]),
        ];
        let outputs = vec![
            Frame::new(vec![1u8; 60]),
            Frame::new(vec![9u8; 60]), // generated by the gateway
            Frame::new(vec![3u8; 60]),
        ];
        let clock = ClockRate::parse_mhz("250").unwrap();
        let stamped = timestamp_outputs(&outputs, &[10, 1010, 2000], &inputs, clock);
        assert_eq!(stamped[0].0, 100);
        // 1000 clocks of 4 ns after the frame before it.
        assert_eq!(stamped[1].0, 100 + 4000);
        assert_eq!(stamped[2].0, 300);
        assert_eq!(stamped[1].1, vec![9u8; 60]);
    }
}
