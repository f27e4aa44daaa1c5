//! `cngw demo`: RoCEv2 conversations with RDMA CM set-up, generated, written as
//! pcaps, replayed through the cycle-accurate gateway with every feature off,
//! and summarised.

use crate::cli::DemoArgs;
use crate::device::DeviceSpec;
use crate::gen::{generate_traffic, print_generated, write_frames};
use crate::replay::{identical, report_verdict, write_outputs};
use crate::report::{features_text, print_stream_table};
use crate::sim::{stream_frames, Session};
use crate::summary::FrameSummary;
use anyhow::{Context, Result};
use cngw_model::{InPort, OutPort};
use cngw_packet::bth::opcode;
use cngw_packet::cm::CM_QP;
use cngw_packet::parsed::FrameClass;
use cngw_testbench::StreamOptions;

pub fn run(spec: &DeviceSpec, verbose: bool, args: &DemoArgs) -> Result<()> {
    spec.require_sim("demo")?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let path = |name: &str| args.out.join(name);
    let (dc_in_path, wan_in_path) = (path("dc_in.pcap"), path("wan_in.pcap"));
    let (dc_out_path, wan_out_path) = (path("dc_out.pcap"), path("wan_out.pcap"));

    println!("cngw demo: RoCEv2 with RDMA CM connection set-up through the cycle-accurate gateway");
    println!();
    println!("1. traffic");
    let generated = generate_traffic(&args.traffic);
    let (dc_in, wan_in) = (&generated.traffic.dc_side, &generated.traffic.wan_side);
    write_frames(&dc_in_path, dc_in)?;
    write_frames(&wan_in_path, wan_in)?;
    print_generated(&generated, &args.traffic, &dc_in_path, &wan_in_path);

    println!();
    println!("2. replay through the gateway (Verilator RTL), both ports at once, line rate, back to back");
    let mut session = Session::new(None, None, verbose)?;
    println!("  features: {}", features_text(session.features));
    let inputs = [
        (InPort::DcRx, stream_frames(dc_in)),
        (InPort::WanRx, stream_frames(wan_in)),
    ];
    let outcome = session.run(&inputs, StreamOptions::line_rate());
    let counters = session.counters()?;
    write_outputs(
        &outcome,
        dc_in,
        wan_in,
        &dc_out_path,
        &wan_out_path,
        crate::clock::ClockRate::default(),
    )?;
    print_stream_table(&outcome, &counters);
    println!("  device counters and status:");
    crate::counters::print_table(&counters.rows, "    ");

    println!();
    println!("3. what the gateway saw");
    let parsed: Vec<_> = outcome.capture.parsed.values().flatten().collect();
    let roce = parsed
        .iter()
        .filter(|h| h.class == FrameClass::Roce)
        .count();
    let cm = parsed
        .iter()
        .filter(|h| {
            h.class == FrameClass::Roce && h.opcode == opcode::UD_SEND_ONLY && h.dest_qp == CM_QP
        })
        .count();
    let ipv6 = parsed
        .iter()
        .filter(|h| h.class == FrameClass::Roce && h.is_ipv6)
        .count();
    println!(
        "  header parser: {} frames, {roce} RoCEv2 ({ipv6} over IPv6), {cm} of them RDMA CM MADs \
         (UD SEND_ONLY to QP 1)",
        parsed.len()
    );
    let out_dc = FrameSummary::of(
        outcome
            .frames_out(OutPort::DcTx)
            .iter()
            .map(|f| f.data.as_slice()),
    );
    let out_wan = FrameSummary::of(
        outcome
            .frames_out(OutPort::WanTx)
            .iter()
            .map(|f| f.data.as_slice()),
    );
    println!(
        "  left wan_tx -> {}: {}",
        wan_out_path.display(),
        out_wan.breakdown()
    );
    println!(
        "  left dc_tx  -> {}: {}",
        dc_out_path.display(),
        out_dc.breakdown()
    );
    let seen = out_dc.merged(&out_wan);
    println!(
        "  RDMA CM crossing the gateway: {} REQ, {} REP, {} RTU -> {} complete handshake(s)",
        seen.cm_req,
        seen.cm_rep,
        seen.cm_rtu,
        seen.handshakes()
    );

    println!();
    println!("4. verdict");
    let yes_no = |b: bool| if b { "yes" } else { "NO" };
    let dc_same = identical(&outcome, OutPort::WanTx, dc_in);
    let wan_same = identical(&outcome, OutPort::DcTx, wan_in);
    println!(
        "  pass-through identical (features off): {} (dc_rx -> wan_tx {}/{} frames, wan_rx -> dc_tx {}/{} frames, byte for byte)",
        yes_no(dc_same && wan_same),
        outcome.frames_out(OutPort::WanTx).len(),
        dc_in.len(),
        outcome.frames_out(OutPort::DcTx).len(),
        wan_in.len()
    );
    let rates: Vec<String> = [
        ("dc_rx", outcome.capture.input_stats.get(&InPort::DcRx)),
        ("wan_tx", outcome.capture.output_stats.get(&OutPort::WanTx)),
        ("wan_rx", outcome.capture.input_stats.get(&InPort::WanRx)),
        ("dc_tx", outcome.capture.output_stats.get(&OutPort::DcTx)),
    ]
    .iter()
    .filter_map(|(name, s)| s.map(|s| format!("{name} {:.3}", s.beats_per_cycle())))
    .collect();
    println!(
        "  throughput (beats/cycle, 1.000 = line rate): {}",
        rates.join(", ")
    );
    print!("  ");
    report_verdict(&outcome)?;
    if !(dc_same && wan_same) {
        anyhow::bail!("with every feature off the gateway must forward every frame unchanged");
    }
    Ok(())
}
