//! Which device a command talks to, opening it, and bus errors in the words of
//! the AXI4-Lite slave behind PCIe BAR0.

use anyhow::{Context, Result};
use cngw_driver::pci::DEFAULT_BAR;
use cngw_driver::{Bdf, BusError, Device, DeviceError, PciBus, RegisterBus, SimBus};
use cngw_regmap::by_offset;
use std::fmt;

/// The `--device` option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceSpec {
    /// A fresh in-process Verilator simulation, reset, for this command only.
    Sim,
    /// A gateway FPGA on PCIe; CSRs behind BAR0.
    Pci(Bdf),
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSpec::Sim => write!(f, "sim"),
            DeviceSpec::Pci(bdf) => write!(f, "pci:{bdf}"),
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
            DeviceSpec::Pci(bdf) => format!("PCIe device {bdf}, BAR{DEFAULT_BAR}"),
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

/// Parses `sim` or `pci:BDF`.
pub fn parse_device_spec(text: &str) -> Result<DeviceSpec, String> {
    if text.eq_ignore_ascii_case("sim") {
        return Ok(DeviceSpec::Sim);
    }
    match text.strip_prefix("pci:") {
        Some(bdf) => bdf.parse().map(DeviceSpec::Pci).map_err(|e| e.to_string()),
        None => Err(format!(
            "{text:?} is not a device: use `sim` or `pci:BDF` (e.g. pci:0000:01:00.0)"
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
        DeviceSpec::Pci(bdf) => maybe_logged(
            PciBus::open(&bdf.to_string(), DEFAULT_BAR)
                .with_context(|| format!("cannot map BAR{DEFAULT_BAR} of {bdf}"))?,
            verbose,
        ),
    };
    Device::open(bus)
        .map_err(device_error)
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
}
