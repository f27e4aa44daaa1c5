//! `cngw thresholds`: LH-03 marking thresholds of one WAN port.

use crate::cli::ThresholdsArgs;
use crate::device::{self, device_error, DeviceSpec};
use crate::report::human_bytes;
use anyhow::{bail, Context, Result};
use cngw_driver::device::port_registers;
use cngw_driver::thresholds::{q8_8_to_alpha, KMin};
use cngw_driver::{compute_thresholds, ThresholdInput, Thresholds};

/// The thresholds the arguments ask for, or why they cannot be programmed.
pub fn input(args: &ThresholdsArgs) -> Result<(ThresholdInput, Thresholds)> {
    let mut input = ThresholdInput::new(args.rate, args.rtt, args.alpha, args.k_base);
    if let Some(k_min) = args.k_min {
        input.k_min = KMin::Bytes(k_min);
    }
    let thresholds = compute_thresholds(&input)
        .map_err(|e| anyhow::anyhow!("cannot program port {}: {e}; nothing written", args.port))?;
    Ok((input, thresholds))
}

pub fn run(spec: &DeviceSpec, verbose: bool, args: &ThresholdsArgs) -> Result<()> {
    // Compute and validate first: a bad value never reaches the device.
    let (input, thresholds) = input(args)?;
    if args.dry_run {
        print_thresholds(args, &thresholds);
        println!("dry run: nothing written");
        return Ok(());
    }
    let mut dev = device::open(spec, verbose)?;
    let num_ports = dev.num_ports();
    if args.port >= num_ports {
        bail!(
            "port {} does not exist: the device has {num_ports} WAN port(s), numbered from 0; nothing written",
            args.port
        );
    }
    let written = dev
        .set_port_thresholds(args.port, &input)
        .map_err(device_error)
        .with_context(|| format!("programming port {} failed", args.port))?;
    print_thresholds(args, &written);
    let back = dev.port_thresholds(args.port).map_err(device_error)?;
    if back != written {
        bail!(
            "port {} reads back {back:?}, not what was written ({written:?})",
            args.port
        );
    }
    println!("written to the {} and read back", spec.describe());
    Ok(())
}

fn print_thresholds(args: &ThresholdsArgs, t: &Thresholds) {
    let regs = port_registers(args.port);
    let reg = |pick: fn(&cngw_driver::device::PortRegisters) -> &'static cngw_regmap::Register| {
        regs.as_ref().map_or("-".to_string(), |r| {
            let r = pick(r);
            format!("{} @ {:#05x}", r.name, r.offset)
        })
    };
    let kmin_rule = match args.k_min {
        Some(_) => "given",
        None => "K_max / 2",
    };
    println!(
        "port {} thresholds (LH-03: K_max = max(K_base, alpha * R * RTT / 8), K_min = {kmin_rule})",
        args.port
    );
    println!(
        "  K_max    {:>12} bytes  ({})",
        t.k_max_bytes,
        human_bytes(u64::from(t.k_max_bytes))
    );
    println!(
        "  K_min    {:>12} bytes  ({})",
        t.k_min_bytes,
        human_bytes(u64::from(t.k_min_bytes))
    );
    println!("register values:");
    println!(
        "  {:<32} {:>12}  R = {} Gb/s",
        reg(|r| r.rate_mbps),
        t.rate_mbps,
        f64::from(t.rate_mbps) / 1000.0
    );
    println!(
        "  {:<32} {:>12}  RTT_est = {} us",
        reg(|r| r.rtt_est_us),
        t.rtt_est_us,
        t.rtt_est_us
    );
    println!(
        "  {:<32} {:>12}  K_base",
        reg(|r| r.k_base_bytes),
        t.k_base_bytes
    );
    println!(
        "  {:<32} {:>#12x}  alpha = {:.4} (unsigned 8.8 fixed point)",
        reg(|r| r.alpha_q8_8),
        t.alpha_q8_8,
        q8_8_to_alpha(t.alpha_q8_8)
    );
    println!(
        "  {:<32} {:>12}  K_min",
        reg(|r| r.k_min_bytes),
        t.k_min_bytes
    );
    println!(
        "  {:<32} {:>12}  K_max",
        reg(|r| r.k_max_bytes),
        t.k_max_bytes
    );
}
