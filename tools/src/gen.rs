//! `cngw gen verilog|regmap|traffic`.

use crate::cli::{GenTrafficArgs, RegmapFormat, TrafficOptions};
use crate::report::human_bytes;
use crate::summary::FrameSummary;
use anyhow::{Context, Result};
use cngw_packet::pcap::write_pcap;
use cngw_packet::traffic::{generate, Traffic, TrafficConfig};
use std::io::Write;
use std::path::Path;

pub fn verilog(out: &Path) -> Result<()> {
    let emitted = cngw_hdl::verilog::emit(out)
        .with_context(|| format!("cannot write the Verilog into {}", out.display()))?;
    println!("wrote the gateway RTL into {}:", out.display());
    for (path, what) in [
        (
            &emitted.design,
            "rust-hdl design (module top and its blocks)",
        ),
        (&emitted.wrapper, "ANSI-port wrapper, module cngw_gateway"),
        (
            &emitted.waivers,
            "Verilator lint waivers for the design file",
        ),
        (&emitted.file_list, "file list, in compilation order"),
    ] {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        println!("  {:<40} {:>9} bytes  {what}", path.display(), size);
    }
    println!(
        "top module cngw_gateway, {} ports; lint it with:",
        emitted.ports.len()
    );
    println!(
        "  verilator --lint-only -Wall --top-module cngw_gateway {} {} {}",
        emitted.waivers.display(),
        emitted.design.display(),
        emitted.wrapper.display()
    );
    Ok(())
}

pub fn regmap(format: RegmapFormat, out: Option<&Path>) -> Result<()> {
    use cngw_regmap::export;
    let text = match format {
        RegmapFormat::Rdl => export::to_systemrdl(),
        RegmapFormat::C => export::to_c_header(),
        RegmapFormat::Md => export::to_markdown(),
    };
    match out {
        Some(path) => {
            std::fs::write(path, &text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("wrote {} ({} bytes)", path.display(), text.len());
        }
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .context("cannot write to standard output")?,
    }
    Ok(())
}

/// Packets per message: the largest of 4, 3, 2, 1 that divides `frames_per_flow`.
#[allow(clippy::manual_is_multiple_of)] // `is_multiple_of` needs Rust 1.87; the workspace supports 1.80
fn packets_per_message(frames_per_flow: usize) -> usize {
    [4, 3, 2, 1]
        .into_iter()
        .find(|k| frames_per_flow % k == 0)
        .unwrap_or(1)
}

/// The generator's configuration for the command-line options.
pub fn traffic_config(o: &TrafficOptions) -> TrafficConfig {
    let n = o.frames_per_flow as usize;
    let per_message = packets_per_message(n);
    TrafficConfig {
        seed: o.seed,
        flows: o.flows as usize,
        messages_per_flow: n / per_message,
        message_len: per_message * o.mtu,
        mtu: o.mtu,
        ipv6: o.ipv6,
        vlan: o.vlan,
        ..TrafficConfig::default()
    }
}

/// Generated traffic and what it contains.
pub struct Generated {
    pub traffic: Traffic,
    pub dc: FrameSummary,
    pub wan: FrameSummary,
}

pub fn generate_traffic(o: &TrafficOptions) -> Generated {
    let traffic = generate(&traffic_config(o));
    let dc = FrameSummary::of(traffic.dc_side.iter().map(|(_, f)| f.as_slice()));
    let wan = FrameSummary::of(traffic.wan_side.iter().map(|(_, f)| f.as_slice()));
    Generated { traffic, dc, wan }
}

pub fn write_frames(path: &Path, frames: &[cngw_packet::TimedFrame]) -> Result<()> {
    write_pcap(path, frames).with_context(|| format!("cannot write {}", path.display()))
}

/// Prints what was generated.
pub fn print_generated(g: &Generated, o: &TrafficOptions, dc_path: &Path, wan_path: &Path) {
    let cfg = traffic_config(o);
    println!(
        "generated {} RoCEv2 flow(s): {}{}, seed {}, MTU {}, {} data packet(s) per direction per flow \
         ({} message(s) of {} bytes each way)",
        g.traffic.flows.len(),
        if o.ipv6 { "IPv6" } else { "IPv4" },
        o.vlan.map(|v| format!(" VLAN {v}")).unwrap_or_default(),
        o.seed,
        o.mtu,
        o.frames_per_flow,
        cfg.messages_per_flow,
        cfg.message_len
    );
    let width = dc_path
        .display()
        .to_string()
        .len()
        .max(wan_path.display().to_string().len());
    for (side, port, path, s) in [
        ("DC side ", "dc_rx ", dc_path, &g.dc),
        ("WAN side", "wan_rx", wan_path, &g.wan),
    ] {
        println!(
            "  {side} (into {port}) -> {:<width$}  {:>6} frames, {:>10}: {}",
            path.display(),
            s.frames,
            human_bytes(s.bytes),
            s.breakdown()
        );
    }
    let both = g.dc.merged(&g.wan);
    println!(
        "  RDMA CM: {} REQ, {} REP, {} RTU -> {} complete handshake(s)",
        both.cm_req,
        both.cm_rep,
        both.cm_rtu,
        both.handshakes()
    );
    const SHOWN: usize = 8;
    for (i, f) in g.traffic.flows.iter().enumerate().take(SHOWN) {
        println!(
            "  flow {i}: {} QP {:#08x} (UDP src {}) <-> {} QP {:#08x} (UDP src {})",
            f.dc_ip, f.dc_qpn, f.dc_udp_src_port, f.wan_ip, f.wan_qpn, f.wan_udp_src_port
        );
    }
    if g.traffic.flows.len() > SHOWN {
        println!("  ... and {} more flow(s)", g.traffic.flows.len() - SHOWN);
    }
}

pub fn traffic(args: &GenTrafficArgs) -> Result<()> {
    let g = generate_traffic(&args.traffic);
    write_frames(&args.dc_out, &g.traffic.dc_side)?;
    write_frames(&args.wan_out, &g.traffic.wan_side)?;
    print_generated(&g, &args.traffic, &args.dc_out, &args.wan_out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_03_frames_per_flow_splits_into_whole_messages() {
        assert_eq!(packets_per_message(16), 4);
        assert_eq!(packets_per_message(6), 3);
        assert_eq!(packets_per_message(7), 1);
        assert_eq!(packets_per_message(0), 4);
    }
}
