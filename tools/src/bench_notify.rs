//! `cngw bench --notifications`: the second level under load (LH-05,
//! LH-08, HW-02).
//!
//! Each row floods the gateway with RoCEv2 frames of one size from many
//! congested flows (the queue-depth input held above K_max, every flow with
//! a static source QP, the per-flow interval at 1 us so that the per-port
//! token bucket is what limits), back to back on dc_rx, while wan_rx sends
//! the same number of raw frames back to back toward dc_tx, every output
//! always ready. It reports:
//! - data beats per clock on every port (dc_tx: data frames only),
//! - the notifications sent against what the token bucket allows in the
//!   run (`depth + 1 + clocks / refill`), and their rate at 322.265625 MHz,
//! - whether every notification equals the reference model's, byte for
//!   byte and in order, and every counter agrees,
//! - the notification latency: clocks from the congested frame's last beat
//!   entering dc_rx to the notification's first beat on an idle dc_tx.

use crate::report::json_string;
use anyhow::{bail, Result};
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::{Ecn, RoceFrameBuilder};
use cngw_regmap::{feature, flow_command, lh_option, offset};
use cngw_sim::{Gateway, BEAT_BYTES};
use cngw_testbench::{compare_counters, Bench};
use std::net::Ipv4Addr;

/// The gateway's MAC in the benchmark: notifications carry it as source.
const GW_MAC: [u8; 6] = [0x02, 0xC0, 0x6E, 0x00, 0x00, 0x01];
/// Held on the telemetry input: above the reset K_max (125 MB).
const CONGESTED_BYTES: u32 = 200_000_000;
/// Clock of the core the rates are quoted at.
const CORE_MHZ: f64 = 322.265625;

/// What the benchmark is told.
#[derive(Clone, Debug)]
pub struct NotifyBenchArgs {
    pub sizes: Vec<usize>,
    pub flows: u32,
    pub frames: u32,
    pub refill_clocks: u32,
    pub bucket_depth: u32,
    pub json: bool,
}

/// One row.
#[derive(Clone, Debug)]
pub struct NotifyRow {
    pub bytes: usize,
    /// Beats per clock: dc_rx, wan_tx, wan_rx, dc_tx (data frames only).
    pub bpc: [f64; 4],
    /// Share of dc_tx clocks that carried notification beats.
    pub notify_share: f64,
    pub cycles: u64,
    pub notifications: u64,
    pub allowed: u64,
    pub matches_model: Result<(), String>,
}

fn flow_src(i: u32) -> Ipv4Addr {
    Ipv4Addr::new(10, 1, (i >> 8) as u8, i as u8)
}

const DST: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 1);

fn roce_frame(flow: u32, size: usize, psn: u32) -> Vec<u8> {
    let b = || {
        RoceFrameBuilder::ipv4(flow_src(flow), DST)
            .macs(
                [0x02, 0xDC, 0, 0, (flow >> 8) as u8, flow as u8],
                [0x02, 0, 0, 0, 0, 0xFE],
            )
            .ecn(Ecn::Ect0)
            .dest_qp(0x1000 + flow)
            .psn(psn)
    };
    // The benchmark rows' rule: the nearest RoCEv2 length with as many
    // beats as `size` (the IPv4 headers are those of `bench`'s frames).
    b().payload_len(crate::bench::roce_payload_len(
        crate::bench::Kind::RoceIpv4,
        size,
    ))
    .build()
}

struct Setup {
    gw: Gateway,
    model: GatewayModel,
}

fn write(s: &mut Setup, off: u32, v: u32) -> Result<()> {
    s.gw.csr_write(off, v)
        .map_err(|e| anyhow::anyhow!("CSR write {off:#x}: {e:?}"))?;
    if !s.model.write_register(off, v) {
        bail!("the model refused the write of {v:#x} to {off:#x}");
    }
    Ok(())
}

/// A gateway and model with `flows` static flows, Long-haul CNPs on and
/// the queue congested.
fn setup(args: &NotifyBenchArgs) -> Result<Setup> {
    let gw = Gateway::new();
    let mut model = GatewayModel::new();
    model.set_reset_clock(gw.reset_released_at());
    let mut s = Setup { gw, model };
    for (off, v) in [
        (offset::LH_OPTIONS, lh_option::IPV4_LONGHAUL),
        (offset::PORT0_FLOW_INTERVAL_US, 1),
        (offset::LH_BUCKET_REFILL_CLOCKS, args.refill_clocks),
        (offset::LH_BUCKET_DEPTH, args.bucket_depth),
        (
            offset::GW_MAC_HI,
            u16::from_be_bytes([GW_MAC[0], GW_MAC[1]]) as u32,
        ),
        (
            offset::GW_MAC_LO,
            u32::from_be_bytes(GW_MAC[2..6].try_into().unwrap()),
        ),
        (offset::GW_IPV4, u32::from(Ipv4Addr::new(10, 0, 1, 1))),
    ] {
        write(&mut s, off, v)?;
    }
    for i in 0..args.flows {
        let words = |a: Ipv4Addr| {
            let o = a.to_ipv6_mapped().octets();
            [0, 1, 2, 3].map(|k| u32::from_be_bytes(o[4 * k..4 * k + 4].try_into().unwrap()))
        };
        for (k, w) in words(flow_src(i)).into_iter().enumerate() {
            write(&mut s, offset::FLOW_SIP_0 + 4 * k as u32, w)?;
        }
        for (k, w) in words(DST).into_iter().enumerate() {
            write(&mut s, offset::FLOW_DIP_0 + 4 * k as u32, w)?;
        }
        write(&mut s, offset::FLOW_DQP, 0x1000 + i)?;
        write(&mut s, offset::FLOW_SQP, 0x2000 + i)?;
        write(&mut s, offset::FLOW_COMMAND, flow_command::INSERT_STATIC)?;
        s.gw.run(8);
    }
    write(
        &mut s,
        offset::FEATURE_ENABLE,
        feature::LH_ECN_MARK | feature::LH_CNP,
    )?;
    let at = s.gw.cycle();
    s.gw.set_queue_depth(CONGESTED_BYTES, true);
    s.gw.step();
    s.gw.set_queue_depth(CONGESTED_BYTES, false);
    s.gw.run(8);
    s.model.set_queue_depth_at(CONGESTED_BYTES, at);
    Ok(s)
}

fn is_notification(f: &[u8]) -> bool {
    f.len() >= 12 && f[6..12] == GW_MAC
}

fn beats(len: usize) -> u64 {
    len.div_ceil(BEAT_BYTES).max(1) as u64
}

/// Beats per clock of frames given as (bytes, first clock, last clock).
fn bpc(frames: &[(usize, u64, u64)]) -> f64 {
    let (Some(first), Some(last)) = (
        frames.iter().map(|f| f.1).min(),
        frames.iter().map(|f| f.2).max(),
    ) else {
        return 0.0;
    };
    frames.iter().map(|f| beats(f.0)).sum::<u64>() as f64 / (last - first + 1) as f64
}

fn row(args: &NotifyBenchArgs, size: usize) -> Result<NotifyRow> {
    let mut s = setup(args)?;
    let dc: Vec<Frame> = (0..args.frames)
        .map(|i| Frame::new(roce_frame(i % args.flows, size, i)))
        .collect();
    let wan: Vec<Frame> = (0..args.frames)
        .map(|i| Frame::new(crate::bench::raw_frame(dc[0].data.len(), i)))
        .collect();
    let mut b = Bench::around(&mut s.gw);
    for f in &dc {
        b.push_frame(InPort::DcRx, &f.data, false);
    }
    for f in &wan {
        b.push_frame(InPort::WanRx, &f.data, false);
    }
    let start = b.cycle();
    b.run_until_drained(100_000_000, 64)
        .map_err(|e| anyhow::anyhow!("the gateway did not drain: {e:?}"))?;
    let cycles = b.cycle() - start;
    let accepted_dc = b.take_accepted(InPort::DcRx, usize::MAX);
    let accepted_wan = b.take_accepted(InPort::WanRx, usize::MAX);
    let parsed = b.take_parsed(InPort::DcRx, usize::MAX);
    b.take_parsed(InPort::WanRx, usize::MAX);
    let wan_tx = b.take_frames(OutPort::WanTx, usize::MAX);
    let dc_tx = b.take_frames(OutPort::DcTx, usize::MAX);
    drop(b);

    let with_len = |a: &[cngw_testbench::AcceptedFrame], frames: &[Frame]| {
        a.iter()
            .zip(frames)
            .map(|(a, f)| (f.data.len(), a.start_cycle, a.end_cycle))
            .collect::<Vec<_>>()
    };
    let outs = |fs: &[&cngw_testbench::OutputFrame]| {
        fs.iter()
            .map(|f| (f.data.len(), f.start_cycle, f.end_cycle))
            .collect::<Vec<_>>()
    };
    let (notes, data): (Vec<_>, Vec<_>) = dc_tx.iter().partition(|f| is_notification(&f.data));
    let wan_tx_refs: Vec<_> = wan_tx.iter().collect();
    let data_out = outs(&data);
    let bpc = [
        bpc(&with_len(&accepted_dc, &dc)),
        bpc(&outs(&wan_tx_refs)),
        bpc(&with_len(&accepted_wan, &wan)),
        bpc(&data_out),
    ];
    let dc_tx_span = dc_tx
        .iter()
        .map(|f| f.end_cycle)
        .max()
        .unwrap_or(0)
        .saturating_sub(dc_tx.iter().map(|f| f.start_cycle).min().unwrap_or(0))
        + 1;
    let notify_share =
        notes.iter().map(|f| beats(f.data.len())).sum::<u64>() as f64 / dc_tx_span as f64;

    // The model, told when each frame was decided.
    let mut verdict = Ok(());
    for (f, p) in dc.iter().zip(&parsed) {
        s.model.receive_at(InPort::DcRx, f, Some(p.cycle));
    }
    for f in &wan {
        s.model.receive(InPort::WanRx, f);
    }
    s.model.advance_to(s.gw.cycle());
    let want = s.model.take_notifications();
    if want.len() != notes.len() {
        verdict = Err(format!(
            "RTL sent {} notifications, model {}",
            notes.len(),
            want.len()
        ));
    } else if let Some(i) = want
        .iter()
        .zip(&notes)
        .position(|(w, g)| w.frame.data != g.data)
    {
        verdict = Err(format!("notification {i} differs from the model's"));
    } else if let Err(e) = compare_counters(&mut s.gw, &s.model) {
        verdict = Err(e.to_string());
    }
    // What the bucket allows between the first and the last decision.
    let window = match (want.first(), want.last()) {
        (Some(a), Some(z)) => z.clock - a.clock,
        _ => 0,
    };
    let allowed = args.bucket_depth as u64 + 1 + window / args.refill_clocks as u64;
    Ok(NotifyRow {
        bytes: dc[0].data.len(),
        bpc,
        notify_share,
        cycles,
        notifications: notes.len() as u64,
        allowed,
        matches_model: verdict,
    })
}

/// Clocks from a congested frame's last beat entering dc_rx to its
/// notification's first beat leaving dc_tx, on an otherwise idle gateway;
/// and from the controller's decision to that beat.
pub fn latency(args: &NotifyBenchArgs) -> Result<(u64, u64)> {
    let mut s = setup(&NotifyBenchArgs {
        flows: 1,
        ..args.clone()
    })?;
    let f = Frame::new(roce_frame(0, 64, 0));
    let mut b = Bench::around(&mut s.gw);
    b.push_frame(InPort::DcRx, &f.data, false);
    b.run_until_drained(10_000, 64)
        .map_err(|e| anyhow::anyhow!("the gateway did not drain: {e:?}"))?;
    let entered = b.take_accepted(InPort::DcRx, 1)[0].end_cycle;
    let parsed = b.take_parsed(InPort::DcRx, 1)[0].cycle;
    let notes = b.take_frames(OutPort::DcTx, usize::MAX);
    drop(b);
    let Some(n) = notes.iter().find(|n| is_notification(&n.data)) else {
        bail!("no notification for a congested frame");
    };
    s.model.receive_at(InPort::DcRx, &f, Some(parsed));
    let decided = s.model.take_notifications()[0].clock;
    Ok((n.start_cycle - entered, n.start_cycle - decided))
}

pub fn run(args: &NotifyBenchArgs) -> Result<()> {
    let mut rows: Vec<NotifyRow> = Vec::new();
    for &size in &args.sizes {
        // Two requested sizes can give the same frame (64 and 65 bytes
        // cannot both exist with one beat): measure it once.
        if rows.iter().any(|r| r.bytes == roce_frame(0, size, 0).len()) {
            continue;
        }
        rows.push(row(args, size)?);
    }
    let (lat_frame, lat_decision) = latency(args)?;
    if args.json {
        print_json(args, &rows, lat_frame, lat_decision);
    } else {
        print_table(args, &rows, lat_frame, lat_decision);
    }
    let bad: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            r.matches_model
                .as_ref()
                .err()
                .map(|e| format!("{} bytes: {e}", r.bytes))
                .or_else(|| {
                    (r.notifications > r.allowed).then(|| {
                        format!(
                            "{} bytes: {} notifications, the bucket allows {}",
                            r.bytes, r.notifications, r.allowed
                        )
                    })
                })
        })
        .collect();
    if !bad.is_empty() {
        bail!("notification benchmark failed:\n  {}", bad.join("\n  "));
    }
    Ok(())
}

fn rate_per_s(r: &NotifyRow) -> f64 {
    r.notifications as f64 / (r.cycles as f64 / (CORE_MHZ * 1e6))
}

fn print_table(args: &NotifyBenchArgs, rows: &[NotifyRow], lat_frame: u64, lat_decision: u64) {
    println!(
        "cngw bench --notifications: {} congested flows (queue at {} bytes > K_max), {} RoCEv2 \
         frames on dc_rx",
        args.flows, CONGESTED_BYTES, args.frames
    );
    println!(
        "and {} raw frames on wan_rx per row, back to back, outputs always ready; token bucket: \
         depth {}, one token every {} clocks",
        args.frames, args.bucket_depth, args.refill_clocks
    );
    println!();
    println!(
        "{:>6} | {:>6} {:>6} {:>6} {:>6} | {:>7} | {:>8} {:>8} {:>11} | {:>8} | {:>6}",
        "bytes",
        "dc_rx",
        "wan_tx",
        "wan_rx",
        "dc_tx",
        "notify",
        "sent",
        "allowed",
        "per second",
        "cycles",
        "model"
    );
    println!("{}", "-".repeat(96));
    for r in rows {
        println!(
            "{:>6} | {:>6.3} {:>6.3} {:>6.3} {:>6.3} | {:>7.3} | {:>8} {:>8} {:>11.0} | {:>8} | {:>6}",
            r.bytes,
            r.bpc[0],
            r.bpc[1],
            r.bpc[2],
            r.bpc[3],
            r.notify_share,
            r.notifications,
            r.allowed,
            rate_per_s(r),
            r.cycles,
            if r.matches_model.is_ok() { "match" } else { "DIFFER" }
        );
    }
    println!();
    println!(
        "beats/cycle per port (dc_tx: data frames only); notify: share of dc_tx clocks carrying"
    );
    println!("  notification beats; sent/allowed: notifications against the token bucket's bound");
    println!(
        "  (depth + 1 + clocks between the first and last decision / refill); per second: at {CORE_MHZ} MHz."
    );
    println!(
        "latency: {lat_frame} clocks from a congested frame's last beat on dc_rx to its notification's first"
    );
    println!(
        "  beat on dc_tx ({lat_decision} from the controller's decision), on an otherwise idle gateway."
    );
}

fn print_json(args: &NotifyBenchArgs, rows: &[NotifyRow], lat_frame: u64, lat_decision: u64) {
    println!("{{");
    println!("  \"tool\": \"cngw bench --notifications\",");
    println!("  \"flows\": {},", args.flows);
    println!("  \"frames_per_port\": {},", args.frames);
    println!("  \"queue_depth_bytes\": {CONGESTED_BYTES},");
    println!("  \"bucket_depth\": {},", args.bucket_depth);
    println!("  \"refill_clocks\": {},", args.refill_clocks);
    println!("  \"latency_cycles\": {{\"frame_to_notification\": {lat_frame}, \"decision_to_notification\": {lat_decision}}},");
    println!("  \"rows\": [");
    for (i, r) in rows.iter().enumerate() {
        println!(
            "    {{\"bytes\": {}, \"beats_per_cycle\": {{\"dc_rx\": {:.6}, \"wan_tx\": {:.6}, \"wan_rx\": {:.6}, \"dc_tx_data\": {:.6}}}, \"dc_tx_notification_share\": {:.6}, \"notifications\": {}, \"allowed\": {}, \"cycles\": {}, \"rtl_matches_model\": {}, \"mismatch\": {}}}{}",
            r.bytes,
            r.bpc[0],
            r.bpc[1],
            r.bpc[2],
            r.bpc[3],
            r.notify_share,
            r.notifications,
            r.allowed,
            r.cycles,
            r.matches_model.is_ok(),
            r.matches_model
                .as_ref()
                .err()
                .map_or("null".to_string(), |e| json_string(e)),
            if i + 1 < rows.len() { "," } else { "" }
        );
    }
    println!("  ]");
    println!("}}");
}
