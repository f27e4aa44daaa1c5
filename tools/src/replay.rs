//! `cngw replay`: pcaps through the cycle-accurate gateway, compared with the
//! reference model, optionally on a time axis: frames at their pcap
//! timestamps (`--pcap-timing`) and the queue depth of WAN port 0 following
//! a trace (`--queue-trace`).

use crate::cli::{ReplayArgs, StreamArgs};
use crate::clock::{time_text, ClockRate};
use crate::device::DeviceSpec;
use crate::gen::write_frames;
use crate::queue_trace::QueueTrace;
use crate::report::{features_text, human_bytes, print_stream_table};
use crate::sim::{timestamp_outputs, Outcome, ScheduledOutcome, Session};
use anyhow::{bail, Context, Result};
use cngw_model::{Frame, InPort, OutPort};
use cngw_packet::pcap::read_pcap;
use cngw_packet::{Ecn, TimedFrame};
use cngw_regmap::{feature, offset};
use cngw_testbench::{DepthStep, Schedule, StreamOptions};
use std::path::Path;

/// Longest schedule a replay accepts: 2^32 clocks, about 13 s of simulated
/// time at 322 MHz and half an hour of wall time at ~2.5 M clocks/s.
const MAX_SCHEDULE_CYCLES: u64 = 1 << 32;

/// Reads an input pcap; every frame must have bytes to send.
pub fn read_input(path: &Path) -> Result<Vec<TimedFrame>> {
    let frames = read_pcap(path).with_context(|| format!("cannot read {}", path.display()))?;
    if let Some(i) = frames.iter().position(|(_, f)| f.is_empty()) {
        bail!(
            "{}: frame #{} is empty; a stream cannot carry a frame without bytes",
            path.display(),
            i + 1
        );
    }
    Ok(frames)
}

/// Fails early when an output file cannot be created where asked.
pub fn check_output_path(path: &Path) -> Result<()> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent {
        if !dir.is_dir() {
            bail!(
                "cannot write {}: folder {} does not exist",
                path.display(),
                dir.display()
            );
        }
    }
    if path.is_dir() {
        bail!("cannot write {}: it is a folder", path.display());
    }
    Ok(())
}

pub fn stream_options(s: &StreamArgs) -> StreamOptions {
    StreamOptions::random(s.idle, s.backpressure, s.seed)
}

pub fn stream_text(s: &StreamArgs) -> String {
    if s.idle == 0.0 && s.backpressure == 0.0 {
        "line rate, back to back (no idle cycles, no backpressure)".to_string()
    } else {
        format!(
            "random idle cycles {} and backpressure {} (seed {})",
            s.idle, s.backpressure, s.seed
        )
    }
}

/// Whether the frames that left `out` are exactly the frames that entered `input`.
pub fn identical(outcome: &Outcome, out: OutPort, input: &[TimedFrame]) -> bool {
    let frames = outcome.frames_out(out);
    frames.len() == input.len()
        && frames
            .iter()
            .zip(input)
            .all(|(o, (_, i))| !o.user && o.data == *i)
}

/// Writes what left each port, with timestamps from the matching input frames.
pub fn write_outputs(
    outcome: &Outcome,
    dc_in: &[TimedFrame],
    wan_in: &[TimedFrame],
    dc_out: &Path,
    wan_out: &Path,
    clock: ClockRate,
) -> Result<()> {
    let starts = |port: OutPort| {
        outcome
            .capture
            .output_start_cycles
            .get(&port)
            .map_or(&[][..], Vec::as_slice)
    };
    let wan_frames = timestamp_outputs(
        outcome.frames_out(OutPort::WanTx),
        starts(OutPort::WanTx),
        dc_in,
        clock,
    );
    let dc_frames = timestamp_outputs(
        outcome.frames_out(OutPort::DcTx),
        starts(OutPort::DcTx),
        wan_in,
        clock,
    );
    write_frames(wan_out, &wan_frames)?;
    write_frames(dc_out, &dc_frames)?;
    Ok(())
}

/// Prints the verdict line; `Err` when RTL and model differ.
pub fn report_verdict(outcome: &Outcome) -> Result<()> {
    let out_frames: usize = outcome.capture.outputs.values().map(Vec::len).sum();
    let parsed: usize = outcome.capture.parsed.values().map(Vec::len).sum();
    match &outcome.verdict {
        Ok(()) => {
            println!(
                "RTL matches the reference model: {out_frames} frames (every output frame byte for byte, \
                 {parsed} parser results, every counter)"
            );
            Ok(())
        }
        Err(m) => {
            println!("RTL DIFFERS from the reference model: {m}");
            bail!("the RTL and the reference model disagree: {m}")
        }
    }
}

/// Writes what left each port stamped with the simulated time its first
/// beat left: `base_ns` plus its clock at `clock` (`--pcap-timing`).
fn write_simulated_times(
    outcome: &Outcome,
    base_ns: u64,
    clock: ClockRate,
    dc_out: &Path,
    wan_out: &Path,
) -> Result<()> {
    for (port, path) in [(OutPort::WanTx, wan_out), (OutPort::DcTx, dc_out)] {
        let starts = outcome
            .capture
            .output_start_cycles
            .get(&port)
            .map_or(&[][..], Vec::as_slice);
        let frames: Vec<TimedFrame> = outcome
            .frames_out(port)
            .iter()
            .zip(starts)
            .map(|(f, &c)| (base_ns + clock.ns_at(c), f.data.clone()))
            .collect();
        write_frames(path, &frames)?;
    }
    Ok(())
}

/// The earliest first frame of the inputs: time 0 of `--pcap-timing`.
fn pcap_base_ns(inputs: &[&[TimedFrame]]) -> u64 {
    inputs
        .iter()
        .filter_map(|f| f.first().map(|(t, _)| *t))
        .min()
        .unwrap_or(0)
}

/// Frames at their clocks, the trace's depth steps, the end.
fn schedule(
    args: &ReplayArgs,
    dc_in: &[TimedFrame],
    wan_in: &[TimedFrame],
    trace: Option<&QueueTrace>,
) -> Schedule {
    let clock = args.clock_mhz;
    let base = pcap_base_ns(&[dc_in, wan_in]);
    let timed = |frames: &[TimedFrame]| -> Vec<(u64, Frame)> {
        frames
            .iter()
            .map(|(t, data)| {
                let cycle = if args.pcap_timing {
                    clock.cycles_at_or_after(t.saturating_sub(base))
                } else {
                    0
                };
                (cycle, Frame::new(data.clone()))
            })
            .collect()
    };
    Schedule {
        inputs: vec![(InPort::DcRx, timed(dc_in)), (InPort::WanRx, timed(wan_in))],
        depth_steps: trace.map_or_else(Vec::new, |t| {
            t.rows
                .iter()
                .map(|r| DepthStep {
                    cycle: clock.cycles_at_or_after(r.time_ns),
                    bytes: r.bytes,
                })
                .collect()
        }),
        end_cycle: args
            .duration
            .map(|d| clock.cycles_at_or_after(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))),
    }
}

fn ecn_of(frame: &[u8]) -> Option<Ecn> {
    cngw_packet::Frame::parse(frame)
        .ok()
        .map(|f| f.ip.header.ecn())
}

/// Whether the gateway set CE on a frame (it entered without CE and left with it).
pub fn left_ce_marked(input: &[u8], output: &[u8]) -> bool {
    ecn_of(output) == Some(Ecn::Ce) && ecn_of(input) != Some(Ecn::Ce)
}

/// dc_rx -> wan_tx frames by the queue depth the CE marker compared with
/// K_min when their first beat passed it, and how many left CE-marked.
fn print_levels(
    run: &ScheduledOutcome,
    dc_in: &[TimedFrame],
    trace: &QueueTrace,
    clock: ClockRate,
    k_min: u32,
    marking: bool,
) {
    let out = run.outcome.frames_out(OutPort::WanTx);
    // Level 0 is the depth before the trace took effect, level i + 1 step i.
    let steps = &run.depth_steps_applied;
    let mut frames = vec![0usize; steps.len() + 1];
    let mut marked = vec![0usize; steps.len() + 1];
    for (k, &cycle) in run.marker_cycles.iter().enumerate() {
        let level = steps
            .iter()
            .take_while(|s| s.cycle + cngw_testbench::QUEUE_DEPTH_TO_MARKER_CLOCKS <= cycle)
            .count();
        frames[level] += 1;
        if let (Some((_, i)), Some(o)) = (dc_in.get(k), out.get(k)) {
            if left_ce_marked(i, &o.data) {
                marked[level] += 1;
            }
        }
    }
    println!(
        "queue depth at the CE marker (LH-04: ECN-capable frames toward the WAN are CE-marked \
         while the depth is above K_min = {k_min} bytes; lh_ecn_mark {}):",
        if marking { "on" } else { "off" }
    );
    println!(
        "  {:<22} {:>10} {:>12} {:>7} {:>13} {:>15}",
        "depth from", "clock", "bytes", "> K_min", "dc_rx frames", "left CE-marked"
    );
    let row = |label: String, cycle: String, bytes: u32, i: usize| {
        println!(
            "  {:<22} {:>10} {:>12} {:>7} {:>13} {:>15}",
            label,
            cycle,
            bytes,
            if bytes > k_min { "yes" } else { "no" },
            frames[i],
            marked[i]
        );
    };
    if frames[0] > 0 || !matches!(steps.first(), Some(s) if s.cycle == 0) {
        row(
            "before the trace".to_string(),
            "-".to_string(),
            run.initial_depth,
            0,
        );
    }
    for (i, s) in steps.iter().enumerate() {
        // The trace row that set this depth (the last of a clock wins).
        let time_ns = trace
            .rows
            .iter()
            .rev()
            .find(|r| clock.cycles_at_or_after(r.time_ns) == s.cycle)
            .map_or(clock.ns_at(s.cycle), |r| r.time_ns);
        row(time_text(time_ns), s.cycle.to_string(), s.bytes, i + 1);
    }
    println!(
        "  (a depth driven in clock c governs the frames whose first beat passes the marker \
         from clock c + {} on)",
        cngw_testbench::QUEUE_DEPTH_TO_MARKER_CLOCKS
    );
}

pub fn run(spec: &DeviceSpec, verbose: bool, args: &ReplayArgs) -> Result<()> {
    spec.require_sim("replay")?;
    // Every input is read and checked before the simulator starts.
    let config = args
        .config
        .as_deref()
        .map(crate::config::load)
        .transpose()?;
    let trace = args
        .queue_trace
        .as_deref()
        .map(QueueTrace::load)
        .transpose()?;
    let dc_in = read_input(&args.dc_in)?;
    let wan_in = match &args.wan_in {
        Some(path) => read_input(path)?,
        None => Vec::new(),
    };
    check_output_path(&args.dc_out)?;
    check_output_path(&args.wan_out)?;
    let clock = args.clock_mhz;
    let schedule = schedule(args, &dc_in, &wan_in, trace.as_ref());
    let planned = schedule.planned_cycles();
    if planned > MAX_SCHEDULE_CYCLES {
        bail!(
            "the replay would last {planned} clocks ({} of simulated time at {clock}), more than \
             the {MAX_SCHEDULE_CYCLES} this tool runs; shorten it with --duration",
            time_text(clock.ns_at(planned))
        );
    }

    let mut session = Session::new(config.as_ref(), args.vcd.as_deref(), verbose)?;
    if let Some(bytes) = args.queue_depth {
        session.set_queue_depth(bytes);
    }
    let register = |session: &Session, off| session.model.read_register(off).unwrap_or(0);
    let k_min = register(&session, offset::PORT0_K_MIN_BYTES);
    let marking = session.features & feature::LH_ECN_MARK != 0;
    let run = session.run_scheduled(&schedule, stream_options(&args.stream))?;
    let outcome = &run.outcome;
    let counters = session.counters()?;
    if args.pcap_timing {
        let base = pcap_base_ns(&[&dc_in, &wan_in]);
        write_simulated_times(outcome, base, clock, &args.dc_out, &args.wan_out)?;
    } else {
        write_outputs(outcome, &dc_in, &wan_in, &args.dc_out, &args.wan_out, clock)?;
    }

    println!("cngw replay through the cycle-accurate gateway (Verilator RTL)");
    match &args.config {
        Some(path) => println!(
            "  configuration: {} ({} register write(s) and {} static flow(s) through the CSR port)",
            path.display(),
            session.plan.register_writes().len(),
            session.plan.flows.len()
        ),
        None => println!("  configuration: none (reset state)"),
    }
    println!("  features:      {}", features_text(session.features));
    println!("  stream:        {}", stream_text(&args.stream));
    println!(
        "  clock:         {clock} ({:.3} ns per clock); time 0 is the first clock after reset \
         and configuration",
        clock.period_ns()
    );
    if args.pcap_timing {
        println!(
            "  frame timing:  each frame enters no earlier than its pcap timestamp, relative to \
             the first frame"
        );
    } else {
        println!("  frame timing:  every frame from time 0, back to back");
    }
    if let Some(bytes) = args.queue_depth {
        println!(
            "  queue depth:   WAN port 0 telemetry input held at {bytes} bytes ({})",
            human_bytes(u64::from(bytes))
        );
    }
    if let (Some(path), Some(t)) = (&args.queue_trace, &trace) {
        let deepest = t.rows.iter().map(|r| r.bytes).max().unwrap_or(0);
        println!(
            "  queue trace:   {}: {} row(s) from {} to {}, up to {deepest} bytes, onto WAN \
             port 0's queue-depth input",
            path.display(),
            t.rows.len(),
            time_text(t.rows[0].time_ns),
            time_text(t.end_ns())
        );
    }
    match args.duration {
        Some(d) => println!(
            "  run:           --duration {}: feeding stops at clock {}, then the gateway drains",
            time_text(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            planned
        ),
        None => println!(
            "  run:           until every frame has left{}",
            if trace.is_some() {
                " and the trace's last row has taken effect"
            } else {
                ""
            }
        ),
    }
    let bytes = |f: &[TimedFrame]| human_bytes(f.iter().map(|(_, d)| d.len() as u64).sum());
    let not_sent = |port: InPort, total: usize| {
        let sent = run.frames_sent.get(&port).copied().unwrap_or(0);
        if sent < total {
            format!(" ({} not sent: after --duration)", total - sent)
        } else {
            String::new()
        }
    };
    println!(
        "  dc_rx  <- {}: {} frames, {}{}",
        args.dc_in.display(),
        dc_in.len(),
        bytes(&dc_in),
        not_sent(InPort::DcRx, dc_in.len())
    );
    match &args.wan_in {
        Some(path) => println!(
            "  wan_rx <- {}: {} frames, {}{}",
            path.display(),
            wan_in.len(),
            bytes(&wan_in),
            not_sent(InPort::WanRx, wan_in.len())
        ),
        None => println!("  wan_rx <- nothing"),
    }
    if let Some(vcd) = &args.vcd {
        println!("  waveform:      {}", vcd.display());
    }
    println!();
    print_stream_table(outcome, &counters);
    println!(
        "  simulated time: {} ({} clocks at {clock})",
        time_text(clock.ns_at(outcome.capture.cycles)),
        outcome.capture.cycles
    );
    if let Some(t) = &trace {
        println!();
        print_levels(&run, &dc_in, t, clock, k_min, marking);
    }
    println!();
    println!("device counters and status (as `cngw counters` reads them):");
    crate::counters::print_table(&counters.rows, "  ");
    println!();
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    println!(
        "pass-through unchanged: dc_rx -> wan_tx {}, wan_rx -> dc_tx {}",
        yes_no(identical(outcome, OutPort::WanTx, &dc_in)),
        yes_no(identical(outcome, OutPort::DcTx, &wan_in))
    );
    println!(
        "wrote: wan_tx -> {} ({} frames), dc_tx -> {} ({} frames){}",
        args.wan_out.display(),
        outcome.frames_out(OutPort::WanTx).len(),
        args.dc_out.display(),
        outcome.frames_out(OutPort::DcTx).len(),
        if args.pcap_timing {
            "; timestamps: the simulated time each frame's first beat left"
        } else {
            ""
        }
    );
    report_verdict(outcome)
}
