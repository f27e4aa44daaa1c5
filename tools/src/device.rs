//! Which device a command talks to, opening it, and bus errors in the words of
//! the AXI4-Lite slave behind the PCIe BAR.
//!
//! `--device` is `sim` or `pci:BDF[,bar=N][,offset=X]`: the PCI address, then
//! optionally the BAR the CSR window sits behind (0..5, default 0) and the
//! window's byte offset in it (hex `0x...` or decimal, a multiple of 4 KiB,
//! default 0); e.g. `pci:0000:3b:00.0,bar=2,offset=0x200000` for the OpenNIC
//! shell. The driver ([`cngw_driver::PciTarget`]) parses and checks them, so a
//! bad spec is a command-line error, before any device is opened.

use anyhow::{Context, Result};
use cngw_driver::{BusError, Device, DeviceError, PciBus, PciTarget, RegisterBus, SimBus};
use cngw_regmap::by_offset;
use std::fmt;

/// The `--device` option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceSpec {
    /// A fresh in-process Verilator simulation, reset, for this command only.
    Sim,
    /// A gateway FPGA on PCIe; CSRs at a BAR and offset (BAR0 offset 0 by default).
    Pci(PciTarget),
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSpec::Sim => write!(f, "sim"),
            DeviceSpec::Pci(target) => write!(f, "pci:{target}"),
        }
    }
}

impl DeviceSpec {
    /// One line for people: what the device is.
    pub fn describe(&self) -> String {
        match self {
            DeviceSpec::Sim => {
                "simulator (fresh cycle-accurate instance, reset; discarded when the command ends)"
                    .to_string()
            }
            DeviceSpec::Pci(PciTarget { bdf, window }) => match window.offset() {
                0 => format!("PCIe device {bdf}, BAR{}", window.bar()),
                base => format!("PCIe device {bdf}, BAR{} + {base:#x}", window.bar()),
            },
        }
    }

    /// Refuses commands that stream traffic, which only the simulator can do.
    pub fn require_sim(&self, command: &str) -> Result<()> {
        match self {
            DeviceSpec::Sim => Ok(()),
            DeviceSpec::Pci(_) => anyhow::bail!(
                "`cngw {command}` drives frames through the cycle-accurate simulator and cannot \
                 run on a PCIe device (--device {self}); use --device sim (the default)"
            ),
        }
    }
}

/// Parses `sim` or `pci:BDF[,bar=N][,offset=X]`.
pub fn parse_device_spec(text: &str) -> Result<DeviceSpec, String> {
    if text.eq_ignore_ascii_case("sim") {
        return Ok(DeviceSpec::Sim);
    }
    if let Some((head, params)) = text.split_once(',') {
        if head.eq_ignore_ascii_case("sim") {
            return Err(format!(
                "the simulator takes no parameters ({params:?}): bar= and offset= place \
                 the CSR window inside a PCIe BAR and mean nothing for the simulator, whose CSR \
                 block is at offset 0; use `sim`"
            ));
        }
    }
    match text.strip_prefix("pci:") {
        Some(target) => target
            .parse()
            .map(DeviceSpec::Pci)
            .map_err(|e| e.to_string()),
        None => Err(format!(
            "{text:?} is not a device: use `sim` or `pci:BDF[,bar=N][,offset=X]` \
             (e.g. pci:0000:01:00.0, or pci:0000:3b:00.0,bar=2,offset=0x200000)"
        )),
    }
}

/// Logs every access of the bus it wraps to stderr (`--verbose`).
pub struct LoggingBus<B> {
    inner: B,
}

fn register_name(offset: u32) -> &'static str {
    by_offset(offset).map_or("?", |r| r.name)
}

impl<B: RegisterBus> RegisterBus for LoggingBus<B> {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        let result = self.inner.read32(offset);
        match &result {
            Ok(v) => eprintln!(
                "bus: read  {offset:#05x} -> {v:#010x}  ({})",
                register_name(offset)
            ),
            Err(e) => eprintln!("bus: read  {offset:#05x} failed: {}", bus_error_text(e)),
        }
        result
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        let result = self.inner.write32(offset, value);
        match &result {
            Ok(()) => eprintln!(
                "bus: write {offset:#05x} <- {value:#010x}  ({})",
                register_name(offset)
            ),
            Err(e) => eprintln!(
                "bus: write {offset:#05x} <- {value:#010x} failed: {}",
                bus_error_text(e)
            ),
        }
        result
    }
}

/// `bus`, logged when `verbose`.
pub fn maybe_logged<'a, B: RegisterBus + 'a>(bus: B, verbose: bool) -> Box<dyn RegisterBus + 'a> {
    if verbose {
        Box::new(LoggingBus { inner: bus })
    } else {
        Box::new(bus)
    }
}

/// A device on any bus.
pub type AnyDevice<'a> = Device<Box<dyn RegisterBus + 'a>>;

/// Opens the device `spec` names; reads ID, VERSION and CAPABILITIES, writes nothing.
pub fn open(spec: &DeviceSpec, verbose: bool) -> Result<AnyDevice<'static>> {
    let bus = match spec {
        DeviceSpec::Sim => maybe_logged(SimBus::with_new_gateway(), verbose),
        DeviceSpec::Pci(target) => maybe_logged(
            PciBus::open_target(target).with_context(|| {
                format!("cannot map BAR{} of {}", target.window.bar(), target.bdf)
            })?,
            verbose,
        ),
    };
    Device::open(bus)
        .map_err(|e| match (&e, spec) {
            // The usual cause on a real board: the CSR block is elsewhere.
            (DeviceError::WrongId { .. }, DeviceSpec::Pci(PciTarget { window, .. })) => {
                anyhow::Error::new(e).context(format!(
                    "nothing answers as cngw at BAR{} offset {:#x}: is the CSR window elsewhere? \
                     (choose it with pci:BDF,bar=N,offset=X)",
                    window.bar(),
                    window.offset()
                ))
            }
            _ => device_error(e),
        })
        .with_context(|| format!("cannot open the cngw device ({spec})"))
}

/// A bus error with the AXI4-Lite response it stands for.
pub fn bus_error_text(e: &BusError) -> String {
    match e {
        BusError::SlaveError { .. } => format!(
            "{e} (AXI4-Lite SLVERR: the register refused the access, e.g. a write to a read-only register)"
        ),
        BusError::Unmapped { .. } => {
            format!("{e} (AXI4-Lite DECERR: nothing is decoded at this offset)")
        }
        BusError::Timeout { .. } => format!("{e} (the AXI4-Lite slave never responded)"),
        other => other.to_string(),
    }
}

/// A device error as an `anyhow` error, bus errors explained.
pub fn device_error(e: DeviceError) -> anyhow::Error {
    match e {
        DeviceError::Bus(bus) => anyhow::anyhow!(bus_error_text(&bus)),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_04_device_option_accepts_sim_and_pci_addresses() {
        assert_eq!(parse_device_spec("sim"), Ok(DeviceSpec::Sim));
        let spec = parse_device_spec("pci:01:00.0").unwrap();
        assert_eq!(spec.to_string(), "pci:0000:01:00.0");
        assert!(parse_device_spec("pci:zz")
            .unwrap_err()
            .contains("invalid PCI address"));
        assert!(parse_device_spec("fpga").unwrap_err().contains("pci:BDF"));
    }

    #[test]
    fn hw_04_device_option_takes_bar_and_offset() {
        let spec = parse_device_spec("pci:0000:3b:00.0,bar=2,offset=0x200000").unwrap();
        let DeviceSpec::Pci(target) = &spec else {
            panic!("{spec:?}")
        };
        assert_eq!(target.window.bar(), 2);
        assert_eq!(target.window.offset(), 0x20_0000);
        assert_eq!(spec.to_string(), "pci:0000:3b:00.0,bar=2,offset=0x200000");
        assert_eq!(spec.describe(), "PCIe device 0000:3b:00.0, BAR2 + 0x200000");
        // Existing specs are unchanged.
        let plain = parse_device_spec("pci:3b:00.0").unwrap();
        assert_eq!(plain.to_string(), "pci:0000:3b:00.0");
        assert_eq!(plain.describe(), "PCIe device 0000:3b:00.0, BAR0");
        assert_eq!(parse_device_spec("pci:3b:00.0,bar=0,offset=0"), Ok(plain));
        assert_eq!(
            parse_device_spec("pci:3b:00.0,bar=3").unwrap().describe(),
            "PCIe device 0000:3b:00.0, BAR3"
        );
        assert_eq!(parse_device_spec("SIM"), Ok(DeviceSpec::Sim));
    }

    #[test]
    fn hw_04_device_option_rejects_bad_windows_with_their_message() {
        let cases = [
            ("pci:3b:00.0,bar=6", "bar=6: a BAR number must be 0..5"),
            (
                "pci:3b:00.0,offset=0x200004",
                "must be a multiple of 4 KiB (0x1000)",
            ),
            ("pci:3b:00.0,offset=zz", "offset=zz: not a number"),
            (
                "pci:3b:00.0,window=1",
                "unknown parameter \"window\": the valid parameters are bar=N",
            ),
            ("pci:3b:00.0,bar", "\"bar\" is not a parameter"),
            ("pci:zz,bar=2", "invalid PCI address \"zz\""),
            (
                "sim,offset=0",
                "the simulator takes no parameters (\"offset=0\"): bar= and offset= place the CSR window inside a PCIe BAR",
            ),
            ("sim,bar=2", "mean nothing for the simulator"),
            ("pci3b:00.0,bar=2", "pci:BDF[,bar=N][,offset=X]"),
        ];
        for (text, needle) in cases {
            let message = parse_device_spec(text).unwrap_err();
            assert!(message.contains(needle), "{text}: {message}");
        }
    }
}
