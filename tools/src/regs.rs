//! `cngw regs dump|read|write`.

use crate::device::{self, bus_error_text, device_error, DeviceSpec};
use anyhow::{bail, Result};
use cngw_driver::device::{check_write, field_value};
use cngw_regmap::{
    by_name, by_offset, export::access_name, Access, Register, CSR_WINDOW_BYTES, REGISTERS,
};

/// A register named on the command line.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    Known(&'static Register),
    /// A byte offset the register map does not define.
    Unmapped(u32),
}

impl Target {
    fn offset(self) -> u32 {
        match self {
            Target::Known(r) => r.offset,
            Target::Unmapped(o) => o,
        }
    }

    fn label(self) -> String {
        match self {
            Target::Known(r) => format!("{} @ {:#05x}", r.name, r.offset),
            Target::Unmapped(o) => format!("offset {o:#05x} (not in the register map)"),
        }
    }
}

/// Resolves `OFF|NAME`. Names must exist; offsets may be unmapped (the caller decides).
pub fn resolve(spec: &str) -> Result<Target> {
    let spec = spec.trim();
    if spec.starts_with(|c: char| c.is_ascii_digit()) {
        let offset = crate::values::parse_u32(spec).map_err(anyhow::Error::msg)?;
        if offset % 4 != 0 {
            bail!("offset {offset:#x} is not a multiple of 4: every register is 32 bits wide");
        }
        if offset >= CSR_WINDOW_BYTES {
            bail!("offset {offset:#x} is outside the {CSR_WINDOW_BYTES:#x}-byte CSR window");
        }
        return Ok(by_offset(offset).map_or(Target::Unmapped(offset), Target::Known));
    }
    if let Some(reg) = by_name(spec) {
        return Ok(Target::Known(reg));
    }
    let needle = spec.to_ascii_uppercase();
    let similar: Vec<&str> = REGISTERS
        .iter()
        .map(|r| r.name)
        .filter(|n| !needle.is_empty() && (n.contains(&needle) || needle.contains(n)))
        .collect();
    if similar.is_empty() {
        bail!("unknown register {spec:?} (`cngw regs dump` lists every register)")
    } else {
        bail!(
            "unknown register {spec:?}; did you mean {}?",
            similar.join(", ")
        )
    }
}

/// `name=value` for each field of a register, or the decimal value when it has none.
pub fn decode(reg: &Register, value: u32) -> String {
    if reg.access == Access::WritePulse {
        let names: Vec<&str> = reg.fields.iter().map(|f| f.name).collect();
        return format!("write-1 strobes: {}", names.join(", "));
    }
    if reg.fields.is_empty() {
        return format!("= {value}");
    }
    reg.fields
        .iter()
        .map(|f| format!("{}={}", f.name, field_value(f, value)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn ascii_hint(value: u32) -> String {
    let bytes = value.to_be_bytes();
    if bytes.iter().all(|b| b.is_ascii_graphic()) {
        format!(" \"{}\"", String::from_utf8_lossy(&bytes))
    } else {
        String::new()
    }
}

pub fn dump(spec: &DeviceSpec, verbose: bool) -> Result<()> {
    let mut dev = device::open(spec, verbose)?;
    let version = dev.version();
    let caps = dev.capabilities();
    let rows = dev.dump().map_err(device_error)?;
    println!("device: {}", spec.describe());
    println!(
        "cngw register map {version}, {} WAN port(s), capabilities: {}",
        caps.num_ports(),
        caps.names().join(", ")
    );
    println!();
    println!(
        "{:<26} {:>6}  {:<6} {:>10}  FIELDS",
        "REGISTER", "OFFSET", "ACCESS", "VALUE"
    );
    for (reg, value) in rows {
        let shown = if reg.access == Access::WritePulse {
            "-".to_string()
        } else {
            format!("{value:#010x}")
        };
        println!(
            "{:<26} {:>6}  {:<6} {:>10}  {}",
            reg.name,
            format!("{:#05x}", reg.offset),
            access_name(reg.access),
            shown,
            decode(reg, value)
        );
    }
    Ok(())
}

pub fn read(spec: &DeviceSpec, verbose: bool, register: &str) -> Result<()> {
    let target = resolve(register)?;
    if let Target::Known(reg) = target {
        if reg.access == Access::WritePulse {
            bail!(
                "{} is a write-1-to-pulse register: it has no value to read (reads return 0)",
                reg.name
            );
        }
    }
    let mut dev = device::open(spec, verbose)?;
    let value = dev.bus_mut().read32(target.offset()).map_err(|e| {
        anyhow::anyhow!("read of {} failed: {}", target.label(), bus_error_text(&e))
    })?;
    println!(
        "{} = {value:#010x} ({value}){}",
        target.label(),
        ascii_hint(value)
    );
    if let Target::Known(reg) = target {
        if !reg.fields.is_empty() {
            for f in reg.fields {
                println!("  {:<16} {:>10}  {}", f.name, field_value(f, value), f.doc);
            }
        }
    }
    Ok(())
}

pub fn write(
    spec: &DeviceSpec,
    verbose: bool,
    register: &str,
    value: u32,
    raw: bool,
) -> Result<()> {
    // Everything about the request is checked before the device is opened.
    let target = resolve(register)?;
    match (target, raw) {
        (Target::Known(reg), false) => check_write(reg, value).map_err(|e| {
            anyhow::anyhow!("refusing to write {value:#x} to {}: {e}", target.label())
        })?,
        (Target::Unmapped(offset), false) => bail!(
            "refusing to write: no register at offset {offset:#05x} in the register map \
             (`cngw regs dump` lists them; --raw writes it anyway)"
        ),
        (_, true) => {}
    }
    let mut dev = device::open(spec, verbose)?;
    if let (Target::Known(reg), false) = (target, raw) {
        // What this device implements (e.g. the features CAPABILITIES lists).
        dev.check(reg, value).map_err(|e| {
            anyhow::anyhow!("refusing to write {value:#x} to {}: {e}", target.label())
        })?;
    }
    dev.bus_mut().write32(target.offset(), value).map_err(|e| {
        anyhow::anyhow!(
            "write of {value:#010x} to {} failed: {}",
            target.label(),
            bus_error_text(&e)
        )
    })?;
    print!("wrote {value:#010x} ({value}) to {}", target.label());
    if let Target::Known(reg) = target {
        if reg.access == Access::ReadWrite {
            let back = dev.read(reg).map_err(device_error)?;
            print!("; reads back {back:#010x}");
            if back != value {
                print!(" (differs!)");
            }
        }
    }
    println!();
    if *spec == DeviceSpec::Sim {
        eprintln!("note: --device sim is a fresh simulator for this command only; the value does not persist");
    }
    Ok(())
}
