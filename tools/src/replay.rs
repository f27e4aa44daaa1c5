//! `cngw replay`: pcaps through the cycle-accurate gateway, compared with the
//! reference model.

use crate::cli::{ReplayArgs, StreamArgs};
use crate::device::DeviceSpec;
use crate::gen::write_frames;
use crate::report::{features_text, human_bytes, print_stream_table};
use crate::sim::{stream_frames, timestamp_outputs, Outcome, Session};
use anyhow::{bail, Context, Result};
use cngw_model::{InPort, OutPort};
use cngw_packet::pcap::read_pcap;
use cngw_packet::TimedFrame;
use cngw_testbench::StreamOptions;
use std::path::Path;

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
    );
    let dc_frames = timestamp_outputs(
        outcome.frames_out(OutPort::DcTx),
        starts(OutPort::DcTx),
        wan_in,
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

pub fn run(spec: &DeviceSpec, verbose: bool, args: &ReplayArgs) -> Result<()> {
    spec.require_sim("replay")?;
    // Every input is read and checked before the simulator starts.
    let config = args
        .config
        .as_deref()
        .map(crate::config::load)
        .transpose()?;
    let dc_in = read_input(&args.dc_in)?;
    let wan_in = match &args.wan_in {
        Some(path) => read_input(path)?,
        None => Vec::new(),
    };
    check_output_path(&args.dc_out)?;
    check_output_path(&args.wan_out)?;

    let mut session = Session::new(config.as_ref(), args.vcd.as_deref(), verbose)?;
    if let Some(bytes) = args.queue_depth {
        session.set_queue_depth(bytes);
    }
    let inputs = [
        (InPort::DcRx, stream_frames(&dc_in)),
        (InPort::WanRx, stream_frames(&wan_in)),
    ];
    let outcome = session.run(&inputs, stream_options(&args.stream));
    let counters = session.counters()?;
    write_outputs(&outcome, &dc_in, &wan_in, &args.dc_out, &args.wan_out)?;

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
    if let Some(bytes) = args.queue_depth {
        println!(
            "  queue depth:   WAN port 0 telemetry input held at {bytes} bytes ({})",
            human_bytes(u64::from(bytes))
        );
    }
    let bytes = |f: &[TimedFrame]| human_bytes(f.iter().map(|(_, d)| d.len() as u64).sum());
    println!(
        "  dc_rx  <- {}: {} frames, {}",
        args.dc_in.display(),
        dc_in.len(),
        bytes(&dc_in)
    );
    match &args.wan_in {
        Some(path) => println!(
            "  wan_rx <- {}: {} frames, {}",
            path.display(),
            wan_in.len(),
            bytes(&wan_in)
        ),
        None => println!("  wan_rx <- nothing"),
    }
    if let Some(vcd) = &args.vcd {
        println!("  waveform:      {}", vcd.display());
    }
    println!();
    print_stream_table(&outcome, &counters);
    println!();
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    println!(
        "pass-through unchanged: dc_rx -> wan_tx {}, wan_rx -> dc_tx {}",
        yes_no(identical(&outcome, OutPort::WanTx, &dc_in)),
        yes_no(identical(&outcome, OutPort::DcTx, &wan_in))
    );
    println!(
        "wrote: wan_tx -> {} ({} frames), dc_tx -> {} ({} frames)",
        args.wan_out.display(),
        outcome.frames_out(OutPort::WanTx).len(),
        args.dc_out.display(),
        outcome.frames_out(OutPort::DcTx).len()
    );
    report_verdict(&outcome)
}
