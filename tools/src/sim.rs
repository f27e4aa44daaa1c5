//! A simulator session: the cycle-accurate gateway and the reference model,
//! configured alike, run on the same frames and compared.

use crate::device::{device_error, maybe_logged};
use anyhow::{ensure, Context, Result};
use cngw_driver::config::{apply, Config, Plan};
use cngw_driver::{Device, SimBus};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::TimedFrame;
use cngw_regmap::{by_name, by_offset, offset, REGISTERS};
use cngw_sim::Gateway;
use cngw_testbench::scoreboard::{compare, compare_counters, expect};
use cngw_testbench::{run, Capture, Mismatch, StreamOptions};
use std::path::Path;
use std::time::{Duration, Instant};

/// Clock the synthetic timestamps of generated frames assume: 322 MHz, the
/// rate one 64-byte beat per clock needs for 100G worst-case traffic (DESIGN.md).
pub const SYNTHETIC_CLOCK_PS: u64 = 3_105;

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

/// dc_rx -> wan_tx and wan_rx -> dc_tx, and every other counter or status
/// register of the device (feature counters such as CE-marked frames).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub dc_to_wan: DirectionCounters,
    pub wan_to_dc: DirectionCounters,
    pub others: Vec<(&'static str, u32)>,
}

/// The registers [`DirectionCounters`] holds.
const FRAME_COUNTERS: [u32; 10] = [
    offset::DC_RX_FRAMES,
    offset::DC_RX_ROCE_FRAMES,
    offset::DC_RX_NON_ROCE_FRAMES,
    offset::DC_RX_MALFORMED_FRAMES,
    offset::WAN_TX_FRAMES,
    offset::WAN_RX_FRAMES,
    offset::WAN_RX_ROCE_FRAMES,
    offset::WAN_RX_NON_ROCE_FRAMES,
    offset::WAN_RX_MALFORMED_FRAMES,
    offset::DC_TX_FRAMES,
];

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
            apply(&mut dev, &plan).map_err(device_error)?;
            (plan, dev.features().map_err(device_error)?)
        };
        // The model takes each flow-table command at once: no polls.
        let mut model = GatewayModel::new();
        for (off, value) in plan.bus_writes() {
            ensure!(
                model.write_register(off, value),
                "the reference model refused the write of {value:#x} to {:#05x}",
                off
            );
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
        self.gateway.set_queue_depth(bytes, true);
        self.gateway.run(QUEUE_DEPTH_SETTLE_CYCLES);
        self.model.set_queue_depth(bytes);
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

    /// The frame counters, read through the CSR port.
    pub fn counters(&mut self) -> Result<Counters> {
        let mut dev = Device::open(SimBus::new(&mut self.gateway)).map_err(device_error)?;
        let mut read = |off: u32| {
            let reg = by_offset(off).expect("counter in the register map");
            dev.read(reg).map_err(device_error)
        };
        Ok(Counters {
            dc_to_wan: DirectionCounters {
                rx_frames: read(offset::DC_RX_FRAMES)?,
                roce: read(offset::DC_RX_ROCE_FRAMES)?,
                non_roce: read(offset::DC_RX_NON_ROCE_FRAMES)?,
                malformed: read(offset::DC_RX_MALFORMED_FRAMES)?,
                tx_frames: read(offset::WAN_TX_FRAMES)?,
            },
            wan_to_dc: DirectionCounters {
                rx_frames: read(offset::WAN_RX_FRAMES)?,
                roce: read(offset::WAN_RX_ROCE_FRAMES)?,
                non_roce: read(offset::WAN_RX_NON_ROCE_FRAMES)?,
                malformed: read(offset::WAN_RX_MALFORMED_FRAMES)?,
                tx_frames: read(offset::DC_TX_FRAMES)?,
            },
            others: REGISTERS
                .iter()
                .filter(|r| r.volatile && !FRAME_COUNTERS.contains(&r.offset))
                .map(|r| Ok((r.name, read(r.offset)?)))
                .collect::<Result<_>>()?,
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
/// plus the clock cycles between the two at [`SYNTHETIC_CLOCK_PS`].
pub fn timestamp_outputs(
    outputs: &[Frame],
    start_cycles: &[u64],
    inputs: &[TimedFrame],
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
                    t0 + cycle.saturating_sub(c0) * SYNTHETIC_CLOCK_PS / 1000
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
        let stamped = timestamp_outputs(&outputs, &[10, 1010, 2000], &inputs);
        assert_eq!(stamped[0].0, 100);
        assert_eq!(stamped[1].0, 100 + 1000 * SYNTHETIC_CLOCK_PS / 1000);
        assert_eq!(stamped[2].0, 300);
        assert_eq!(stamped[1].1, vec![9u8; 60]);
    }
}
