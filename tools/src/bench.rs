//! `cngw bench`: line-rate benchmark of the cycle-accurate gateway.
//!
//! Every row streams the same number of frames of one kind and size into both
//! inputs at once, back to back, with every output always ready, on a fresh
//! gateway (configured as `--config` says, else in its reset state). Cycle
//! counts, beats per cycle and latencies are exact properties of the RTL;
//! simulation speed is wall clock on this host.

use crate::cli::BenchArgs;
use crate::device::DeviceSpec;
use crate::report::{cycles_per_second_text, features_text, json_string};
use crate::sim::{Outcome, Session};
use anyhow::{bail, Result};
use cngw_driver::device::feature_names;
use cngw_model::{Frame, InPort, OutPort};
use cngw_packet::RoceFrameBuilder;
use cngw_sim::BEAT_BYTES;
use cngw_testbench::StreamOptions;
use std::net::{Ipv4Addr, Ipv6Addr};

/// What the frames of a row are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Ethernet frames with the local experimental EtherType 0x88B5.
    Raw,
    /// RoCEv2 RC SEND_ONLY over IPv4.
    RoceIpv4,
    /// RoCEv2 RC SEND_ONLY over IPv6.
    RoceIpv6,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Raw, Kind::RoceIpv4, Kind::RoceIpv6];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Raw => "raw",
            Kind::RoceIpv4 => "rocev2-ipv4",
            Kind::RoceIpv6 => "rocev2-ipv6",
        }
    }
}

/// Local experimental EtherType (IEEE 802): never RoCE, never IP.
const ETHERTYPE_LOCAL_EXPERIMENTAL: u16 = 0x88B5;

pub(crate) fn raw_frame(len: usize, seq: u32) -> Vec<u8> {
    let mut f = Vec::with_capacity(len);
    f.extend_from_slice(&[0x02, 0xC6, 0, 0, 0, 0x02]);
    f.extend_from_slice(&[0x02, 0xDC, 0, 0, 0, 0x01]);
    f.extend_from_slice(&ETHERTYPE_LOCAL_EXPERIMENTAL.to_be_bytes());
    f.extend_from_slice(&seq.to_be_bytes());
    let body = f.len();
    f.extend((body..len).map(|i| i as u8));
    f.truncate(len);
    f
}

fn roce_builder(kind: Kind, seq: u32) -> RoceFrameBuilder {
    let b = match kind {
        Kind::RoceIpv6 => RoceFrameBuilder::ipv6(
            Ipv6Addr::new(0xfd00, 0xdc, 0, 0, 0, 0, 0, 1),
            Ipv6Addr::new(0xfd00, 0xace, 0, 0, 0, 0, 0, 1),
        )
        .flow_label(0x12345),
        _ => RoceFrameBuilder::ipv4(Ipv4Addr::new(10, 1, 0, 1), Ipv4Addr::new(10, 2, 0, 1)),
    };
    b.dest_qp(0x00_1234).psn(seq & 0x00FF_FFFF)
}

fn beats(len: usize) -> usize {
    len.div_ceil(BEAT_BYTES)
}

/// The RoCEv2 payload length whose frame comes closest to `target` bytes,
/// preferring frames with as many beats as `target` (RoCE pads payloads to 4
/// bytes and the headers have a fixed size, so not every length exists).
pub(crate) fn roce_payload_len(kind: Kind, target: usize) -> usize {
    const PROBE: usize = 16;
    let header = roce_builder(kind, 0).payload_len(PROBE).build().len() - PROBE;
    let len_of = |payload: usize| (header + payload).max(60);
    (0..=target / 4 + 1)
        .map(|k| 4 * k)
        .min_by_key(|&p| {
            let len = len_of(p);
            (beats(len) != beats(target), len.abs_diff(target), len)
        })
        .unwrap_or(0)
}

/// `n` frames of `kind`, as close to `size` bytes as the format allows.
pub fn frames(kind: Kind, size: usize, n: u32) -> Vec<Frame> {
    match kind {
        Kind::Raw => (0..n).map(|i| Frame::new(raw_frame(size, i))).collect(),
        _ => {
            let payload = roce_payload_len(kind, size);
            (0..n)
                .map(|i| Frame::new(roce_builder(kind, i).payload_len(payload).build()))
                .collect()
        }
    }
}

/// One row of the benchmark.
pub struct Row {
    pub kind: Kind,
    pub requested_bytes: usize,
    pub bytes: usize,
    pub frames: u32,
    pub outcome: Outcome,
}

impl Row {
    fn bpc(&self, port: Port) -> Option<f64> {
        let cap = &self.outcome.capture;
        let stats = match port {
            Port::In(p) => cap.input_stats.get(&p),
            Port::Out(p) => cap.output_stats.get(&p),
        }?;
        (stats.beats > 0).then(|| stats.beats_per_cycle())
    }
}

#[derive(Clone, Copy)]
enum Port {
    In(InPort),
    Out(OutPort),
}

const PORTS: [(&str, Port); 4] = [
    ("dc_rx", Port::In(InPort::DcRx)),
    ("wan_tx", Port::Out(OutPort::WanTx)),
    ("wan_rx", Port::In(InPort::WanRx)),
    ("dc_tx", Port::Out(OutPort::DcTx)),
];

pub fn run(spec: &DeviceSpec, verbose: bool, args: &BenchArgs) -> Result<()> {
    spec.require_sim("bench")?;
    if args.flow_table {
        return crate::bench_flow::run(args.seeds, args.json);
    }
    if let Some(cycles) = args.soak {
        return crate::bench_soak::run(cycles, args.seed, args.json);
    }
    if args.notifications {
        return crate::bench_notify::run(&crate::bench_notify::NotifyBenchArgs {
            sizes: args.sizes.clone(),
            flows: args.flows,
            frames: args.flood_frames,
            refill_clocks: args.refill_clocks,
            bucket_depth: args.bucket_depth,
            json: args.json,
        });
    }
    let config = args
        .config
        .as_deref()
        .map(crate::config::load)
        .transpose()?;
    let mut rows = Vec::new();
    let mut features = 0;
    for kind in Kind::ALL {
        for &size in &args.sizes {
            let frames = frames(kind, size, args.frames);
            let bytes = frames[0].data.len();
            // Two requested sizes can give the same RoCEv2 frame (64 and 65 bytes
            // over IPv6 both give 78): measure it once.
            if rows
                .iter()
                .any(|r: &Row| r.kind == kind && r.bytes == bytes)
            {
                continue;
            }
            let mut session = Session::new(config.as_ref(), None, verbose)?;
            if args.all_features {
                session.enable_all_features()?;
            }
            if let Some(bytes) = args.queue_depth {
                session.set_queue_depth(bytes);
            }
            features = session.features;
            let inputs = [(InPort::DcRx, frames.clone()), (InPort::WanRx, frames)];
            let outcome = session.run(&inputs, StreamOptions::line_rate());
            rows.push(Row {
                kind,
                requested_bytes: size,
                bytes,
                frames: args.frames,
                outcome,
            });
        }
    }
    if args.json {
        print_json(&rows, args.frames, features, args.queue_depth);
    } else {
        print_table(&rows, args.frames, features, args.queue_depth);
    }
    let failed: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            r.outcome
                .verdict
                .as_ref()
                .err()
                .map(|m| format!("{} {} bytes: {m}", r.kind.name(), r.bytes))
        })
        .collect();
    if !failed.is_empty() {
        bail!(
            "the RTL and the reference model disagree:\n  {}",
            failed.join("\n  ")
        );
    }
    Ok(())
}

fn fmt_bpc(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.3}"))
}

fn fmt_latency(v: Option<u64>) -> String {
    v.map_or("-".to_string(), |v| v.to_string())
}

fn print_table(rows: &[Row], frames: u32, features: u32, queue_depth: Option<u32>) {
    println!(
        "cngw bench: cycle-accurate gateway (Verilator RTL), {frames} frames per port per row, \
         both directions at once,"
    );
    println!(
        "back to back, no idle cycles, no backpressure; features: {}",
        features_text(features)
    );
    if let Some(bytes) = queue_depth {
        println!("queue-depth telemetry input of WAN port 0 held at {bytes} bytes");
    }
    println!();
    println!(
        "{:<12} {:>5} {:>5} | {:>6} {:>6} {:>6} {:>6} | {:>7} {:>7} | {:>8} {:>6} | {:>16}",
        "", "", "", "beats/", "cycle", "", "", "latency", "cycles", "", "RTL vs", "sim speed"
    );
    println!(
        "{:<12} {:>5} {:>5} | {:>6} {:>6} {:>6} {:>6} | {:>7} {:>7} | {:>8} {:>6} | {:>16}",
        "frame",
        "bytes",
        "beats",
        "dc_rx",
        "wan_tx",
        "wan_rx",
        "dc_tx",
        "dc->wan",
        "wan->dc",
        "cycles",
        "model",
        "(host-dependent)"
    );
    println!("{}", "-".repeat(112));
    for r in rows {
        let cells: Vec<String> = PORTS.iter().map(|(_, p)| fmt_bpc(r.bpc(*p))).collect();
        let size = if r.bytes == r.requested_bytes {
            r.bytes.to_string()
        } else {
            format!("{}*", r.bytes)
        };
        println!(
            "{:<12} {:>5} {:>5} | {:>6} {:>6} {:>6} {:>6} | {:>7} {:>7} | {:>8} {:>6} | {:>16}",
            r.kind.name(),
            size,
            beats(r.bytes),
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            fmt_latency(r.outcome.latency(InPort::DcRx, OutPort::WanTx)),
            fmt_latency(r.outcome.latency(InPort::WanRx, OutPort::DcTx)),
            r.outcome.capture.cycles,
            if r.outcome.verdict.is_ok() {
                "match"
            } else {
                "DIFFER"
            },
            cycles_per_second_text(r.outcome.cycles_per_second())
        );
    }
    println!();
    println!("beats/cycle: 64-byte beats per clock from a port's first to its last beat; 1.000 is line rate");
    println!("  (one beat every clock). latency: clocks from the first frame's first beat in to its first");
    println!(
        "  beat out. cycles: whole run, including the 64 quiet clocks the harness waits to see"
    );
    println!("  the pipeline drained. All cycle counts are exact.");
    if rows.iter().any(|r| r.bytes != r.requested_bytes) {
        println!("* RoCEv2 frames cannot have every length (fixed headers, payload padded to 4 bytes): the");
        println!("  nearest length with the same number of beats is used (IPv6 RoCEv2 needs at least 78 bytes).");
    }
    println!(
        "sim speed: simulated clock cycles per second of wall-clock time on this host, RTL only;"
    );
    println!("  it depends on the host and says nothing about the hardware clock.");
}

fn print_json(rows: &[Row], frames: u32, features: u32, queue_depth: Option<u32>) {
    let features: Vec<String> = feature_names(features)
        .into_iter()
        .map(json_string)
        .collect();
    let mut out = String::new();
    out.push_str("{\n");
    out.push_str("  \"tool\": \"cngw bench\",\n");
    out.push_str(&format!("  \"frames_per_port\": {frames},\n"));
    out.push_str(&format!("  \"features\": [{}],\n", features.join(", ")));
    out.push_str(&format!(
        "  \"queue_depth_bytes\": {},\n",
        queue_depth.map_or("null".to_string(), |q| q.to_string())
    ));
    out.push_str("  \"host_dependent\": [\"sim_cycles_per_second\"],\n");
    out.push_str("  \"rows\": [\n");
    let json_f64 = |v: Option<f64>| v.map_or("null".to_string(), |v| format!("{v:.6}"));
    let json_u64 = |v: Option<u64>| v.map_or("null".to_string(), |v| v.to_string());
    for (i, r) in rows.iter().enumerate() {
        let bpc: Vec<String> = PORTS
            .iter()
            .map(|(name, p)| format!("\"{name}\": {}", json_f64(r.bpc(*p))))
            .collect();
        out.push_str(&format!(
            "    {{\"frame\": {}, \"requested_bytes\": {}, \"bytes\": {}, \"beats_per_frame\": {}, \
             \"frames\": {}, \"cycles\": {}, \"beats_per_cycle\": {{{}}}, \
             \"latency_cycles\": {{\"dc_rx_to_wan_tx\": {}, \"wan_rx_to_dc_tx\": {}}}, \
             \"rtl_matches_model\": {}, \"sim_cycles_per_second\": {:.0}}}{}\n",
            json_string(r.kind.name()),
            r.requested_bytes,
            r.bytes,
            beats(r.bytes),
            r.frames,
            r.outcome.capture.cycles,
            bpc.join(", "),
            json_u64(r.outcome.latency(InPort::DcRx, OutPort::WanTx)),
            json_u64(r.outcome.latency(InPort::WanRx, OutPort::DcTx)),
            r.outcome.verdict.is_ok(),
            r.outcome.cycles_per_second(),
            if i + 1 < rows.len() { "," } else { "" }
        ));
    }
    out.push_str("  ]\n}\n");
    print!("{out}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_packet::parsed::{classify, FrameClass};

    #[test]
    fn hw_02_bench_frames_have_the_requested_size_and_class() {
        for size in [64, 65, 128, 1024, 4096] {
            let raw = frames(Kind::Raw, size, 2);
            assert_eq!(raw[0].data.len(), size);
            assert_eq!(classify(&raw[1].data).class, FrameClass::NonRoce);
            for kind in [Kind::RoceIpv4, Kind::RoceIpv6] {
                let f = frames(kind, size, 2);
                assert_eq!(
                    classify(&f[0].data).class,
                    FrameClass::Roce,
                    "{kind:?} {size}"
                );
                let len = f[0].data.len();
                assert!(len.abs_diff(size) <= 14, "{kind:?} {size}: {len}");
                if !(kind == Kind::RoceIpv6 && size == 64) {
                    assert_eq!(beats(len), beats(size), "{kind:?} {size}: {len}");
                }
            }
        }
        assert_eq!(frames(Kind::RoceIpv4, 64, 1)[0].data.len(), 62);
        assert_eq!(frames(Kind::RoceIpv6, 64, 1)[0].data.len(), 78);
    }
}
