//! `cngw counters`: every counter and status register of the device (the
//! volatile registers of `cngw_regmap::REGISTERS`), as a table or JSON. The
//! same table ends `cngw replay` and `cngw demo`.

use crate::cli::CountersArgs;
use crate::device::{self, device_error, DeviceSpec};
use crate::report::json_string;
use anyhow::{Context, Result};
use cngw_driver::{Device, RegisterBus};
use cngw_regmap::{by_name, Register};

/// One counter or status register and the value read.
pub type CounterRow = (&'static Register, u32);

/// Reads every volatile register through the driver, in offset order. The
/// reads are one after another, not a snapshot: on a device carrying traffic
/// later registers may have moved on.
pub fn read<B: RegisterBus>(dev: &mut Device<B>) -> Result<Vec<CounterRow>> {
    dev.counters()
        .map_err(device_error)?
        .into_iter()
        .map(|(name, value)| {
            let reg =
                by_name(name).with_context(|| format!("{name} is not in the register map"))?;
            Ok((reg, value))
        })
        .collect()
}

/// The table: register, offset, value.
pub fn print_table(rows: &[CounterRow], indent: &str) {
    println!("{indent}{:<28} {:>6} {:>12}", "REGISTER", "OFFSET", "VALUE");
    for (reg, value) in rows {
        println!(
            "{indent}{:<28} {:>6} {:>12}",
            reg.name,
            format!("{:#05x}", reg.offset),
            value
        );
    }
}

/// The JSON document of `cngw counters --json` (README, "cngw counters"):
/// keys in this order, registers in offset order.
pub fn to_json(device: &str, map_version: &str, rows: &[CounterRow], cleared: bool) -> String {
    let mut out = String::from("{\n");
    out.push_str(&format!("  \"device\": {},\n", json_string(device)));
    out.push_str(&format!(
        "  \"register_map_version\": {},\n",
        json_string(map_version)
    ));
    out.push_str("  \"counters\": [\n");
    for (i, (reg, value)) in rows.iter().enumerate() {
        out.push_str(&format!(
            "    {{\"name\": {}, \"offset\": {}, \"value\": {}}}{}\n",
            json_string(reg.name),
            reg.offset,
            value,
            if i + 1 < rows.len() { "," } else { "" }
        ));
    }
    out.push_str("  ],\n");
    out.push_str(&format!("  \"cleared\": {cleared}\n"));
    out.push_str("}\n");
    out
}

pub fn run(spec: &DeviceSpec, verbose: bool, args: &CountersArgs) -> Result<()> {
    let mut dev = device::open(spec, verbose)?;
    let rows = read(&mut dev)?;
    if args.clear {
        dev.clear_counters()
            .map_err(device_error)
            .context("clearing the counters (CONTROL.clear_counters) failed")?;
    }
    if args.json {
        print!(
            "{}",
            to_json(
                &spec.to_string(),
                &dev.version().to_string(),
                &rows,
                args.clear
            )
        );
        return Ok(());
    }
    println!("device: {}", spec.describe());
    println!("counters and status registers (read one after another, in offset order):");
    println!();
    print_table(&rows, "");
    if args.clear {
        println!();
        println!(
            "cleared: wrote CONTROL.clear_counters after reading (status values such as \
             PORT0_QUEUE_DEPTH_BYTES are not counters and keep their value)"
        );
    }
    if *spec == DeviceSpec::Sim {
        eprintln!(
            "note: --device sim is a fresh simulator for this command only: its counters start at 0"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_regmap::REGISTERS;

    #[test]
    fn hw_04_counter_json_lists_every_volatile_register_in_order() {
        let rows: Vec<CounterRow> = REGISTERS.iter().filter(|r| r.volatile).zip(1..).collect();
        let json = to_json("sim", "1.0", &rows, true);
        assert!(json.starts_with(
            "{\n  \"device\": \"sim\",\n  \"register_map_version\": \"1.0\",\n  \"counters\": [\n"
        ));
        assert!(json.ends_with("  ],\n  \"cleared\": true\n}\n"));
        let first = &rows[0];
        assert!(json.contains(&format!(
            "{{\"name\": \"{}\", \"offset\": {}, \"value\": 1}},",
            first.0.name, first.0.offset
        )));
        assert_eq!(json.matches("\"name\"").count(), rows.len());
    }
}
