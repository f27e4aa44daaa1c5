//! PCIe backend: the device's BAR mapped from sysfs (HW-04).
//!
//! Linux exposes each memory BAR of a PCI function as
//! `/sys/bus/pci/devices/<BDF>/resource<N>`; mapping that file gives the BAR.
//! [`PciBus`] maps the WHOLE file at offset 0, so every offset inside the BAR is
//! reachable (mapping a page-aligned window around one address breaks offsets
//! >= 4 KiB), and reads and writes it with volatile 32-bit little-endian accesses.
//!
//! The device must have memory decoding enabled (a bound driver or
//! `echo 1 > /sys/bus/pci/devices/<BDF>/enable`); a kernel in lockdown mode
//! refuses the mapping.
//!
//! A read of 0xffffffff is what a PCIe read of a vanished device completes with.
//! `ID` never reads as all ones, so such a read is confirmed by reading `ID`: if
//! that is all ones too the device is gone ([`BusError::DeviceGone`]).

use crate::bus::{check_access, BusError, RegisterBus};
use cngw_regmap::offset;
use std::fmt;
use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use thiserror::Error;

/// Where sysfs lists PCI functions.
pub const SYSFS_PCI_DEVICES: &str = "/sys/bus/pci/devices";

/// The BAR the CSR block sits behind.
pub const DEFAULT_BAR: u32 = 0;

/// A PCI function address: domain, bus, device, function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bdf {
    pub domain: u16,
    pub bus: u8,
    pub device: u8,
    pub function: u8,
}

/// A string that is not a PCI address.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("invalid PCI address {text:?}: {reason} (expected DDDD:BB:DD.F or BB:DD.F in hex, e.g. 0000:01:00.0)")]
pub struct BdfError {
    pub text: String,
    pub reason: &'static str,
}

fn hex_part(
    text: &str,
    digits: usize,
    max: u32,
    whole: &str,
    what: &'static str,
) -> Result<u32, BdfError> {
    let err = |reason| BdfError {
        text: whole.to_string(),
        reason,
    };
    if text.is_empty() || text.len() > digits || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(err(what));
    }
    let value = u32::from_str_radix(text, 16).map_err(|_| err(what))?;
    if value > max {
        return Err(err(what));
    }
    Ok(value)
}

impl FromStr for Bdf {
    type Err = BdfError;

    /// Parses `DDDD:BB:DD.F` or `BB:DD.F` (hex; device 0..=1f, function 0..=7).
    fn from_str(text: &str) -> Result<Bdf, BdfError> {
        let err = |reason| BdfError {
            text: text.to_string(),
            reason,
        };
        let (rest, function) = text
            .rsplit_once('.')
            .ok_or_else(|| err("missing '.F' function number"))?;
        let parts: Vec<&str> = rest.split(':').collect();
        let (domain, bus, device) = match parts.as_slice() {
            [bus, device] => ("0", *bus, *device),
            [domain, bus, device] => (*domain, *bus, *device),
            _ => return Err(err("expected two or three ':'-separated parts before '.'")),
        };
        Ok(Bdf {
            domain: hex_part(domain, 4, 0xffff, text, "domain must be 1 to 4 hex digits")? as u16,
            bus: hex_part(bus, 2, 0xff, text, "bus must be 1 to 2 hex digits")? as u8,
            device: hex_part(device, 2, 0x1f, text, "device must be hex 00..1f")? as u8,
            function: hex_part(function, 1, 7, text, "function must be 0..7")? as u8,
        })
    }
}

impl fmt::Display for Bdf {
    /// The canonical sysfs spelling, `0000:01:00.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

impl Bdf {
    /// `/sys/bus/pci/devices/<BDF>/resource<bar>`.
    pub fn resource_path(&self, bar: u32) -> PathBuf {
        Path::new(SYSFS_PCI_DEVICES)
            .join(self.to_string())
            .join(format!("resource{bar}"))
    }
}

/// Why a BAR could not be mapped.
#[derive(Debug, Error)]
pub enum PciOpenError {
    #[error(transparent)]
    InvalidBdf(#[from] BdfError),
    #[error("{path}: no such file", path = path.display())]
    NotFound { path: PathBuf },
    #[error("{path}: no such file: is the PCI device present (lspci -s {bdf}) and does it have a memory BAR {bar}?", path = path.display())]
    NoSuchDevice { path: PathBuf, bdf: Bdf, bar: u32 },
    #[error("{path}: permission denied: mapping a BAR needs root (or CAP_SYS_ADMIN)", path = path.display())]
    PermissionDenied { path: PathBuf },
    #[error("{path}: the BAR is empty (size 0): is it an I/O BAR or not assigned?", path = path.display())]
    EmptyBar { path: PathBuf },
    #[error("{path}: the BAR is {len} bytes, too big to map on this host", path = path.display())]
    TooLarge { path: PathBuf, len: u64 },
    #[error("{path}: {source}", path = path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A memory BAR (or any file standing in for one) mapped read-write.
pub struct PciBus {
    path: PathBuf,
    base: *mut u8,
    len: usize,
}

// SAFETY: the mapping is owned by this value alone; moving it to another thread
// moves the only handle to it.
unsafe impl Send for PciBus {}

impl fmt::Debug for PciBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PciBus")
            .field("path", &self.path)
            .field("len", &self.len)
            .finish()
    }
}

impl PciBus {
    /// Maps BAR `bar` of the PCI function `bdf` (e.g. `"0000:01:00.0"` or `"01:00.0"`).
    pub fn open(bdf: &str, bar: u32) -> Result<PciBus, PciOpenError> {
        let bdf: Bdf = bdf.parse()?;
        let path = bdf.resource_path(bar);
        Self::map(&path).map_err(|e| match e {
            PciOpenError::NotFound { path } => PciOpenError::NoSuchDevice { path, bdf, bar },
            other => other,
        })
    }

    /// Maps the whole of `path` as a BAR: a sysfs `resource<N>` file, or in tests
    /// a regular file standing in for one.
    pub fn map(path: &Path) -> Result<PciBus, PciOpenError> {
        let path = path.to_path_buf();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|source| match source.kind() {
                ErrorKind::NotFound => PciOpenError::NotFound { path: path.clone() },
                ErrorKind::PermissionDenied => {
                    PciOpenError::PermissionDenied { path: path.clone() }
                }
                _ => PciOpenError::Io {
                    path: path.clone(),
                    source,
                },
            })?;
        let len = file
            .metadata()
            .map_err(|source| PciOpenError::Io {
                path: path.clone(),
                source,
            })?
            .len();
        if len == 0 {
            return Err(PciOpenError::EmptyBar { path });
        }
        let len = usize::try_from(len).map_err(|_| PciOpenError::TooLarge {
            path: path.clone(),
            len,
        })?;
        // SAFETY: a fresh shared mapping of an open file descriptor; the kernel
        // checks the arguments and we check the result.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            let source = std::io::Error::last_os_error();
            return Err(match source.kind() {
                ErrorKind::PermissionDenied => PciOpenError::PermissionDenied { path },
                _ => PciOpenError::Io { path, source },
            });
        }
        // The mapping outlives the descriptor, which closes here.
        Ok(PciBus {
            path,
            base: base.cast(),
            len,
        })
    }

    /// The mapped file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the mapping (the whole BAR) in bytes.
    pub fn len_bytes(&self) -> u64 {
        self.len as u64
    }

    fn raw_read(&self, offset: u32) -> Result<u32, BusError> {
        check_access(offset, self.len_bytes())?;
        // SAFETY: the offset is 4-aligned and offset + 4 <= len (checked above);
        // the mapping is page-aligned, so the address is 4-aligned.
        let value =
            unsafe { std::ptr::read_volatile(self.base.add(offset as usize).cast::<u32>()) };
        Ok(u32::from_le(value))
    }
}

impl RegisterBus for PciBus {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        let value = self.raw_read(offset)?;
        if value == u32::MAX {
            // All ones is also what a dead link returns; ID tells the two apart.
            let id = if offset == offset::ID {
                value
            } else {
                self.raw_read(offset::ID)?
            };
            if id == u32::MAX {
                return Err(BusError::DeviceGone { offset });
            }
        }
        Ok(value)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        check_access(offset, self.len_bytes())?;
        // SAFETY: as in `raw_read`.
        unsafe {
            std::ptr::write_volatile(self.base.add(offset as usize).cast::<u32>(), value.to_le())
        };
        Ok(())
    }
}

impl Drop for PciBus {
    fn drop(&mut self) {
        // SAFETY: base/len are exactly what mmap returned and nothing else
        // refers to the mapping.
        unsafe {
            libc::munmap(self.base.cast(), self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_04_bdf_parses_both_spellings() {
        let long: Bdf = "0000:01:00.0".parse().unwrap();
        assert_eq!(
            long,
            Bdf {
                domain: 0,
                bus: 1,
                device: 0,
                function: 0
            }
        );
        let short: Bdf = "3b:1f.7".parse().unwrap();
        assert_eq!(
            short,
            Bdf {
                domain: 0,
                bus: 0x3b,
                device: 0x1f,
                function: 7
            }
        );
        let domain: Bdf = "ABCD:ff:00.1".parse().unwrap();
        assert_eq!(
            domain,
            Bdf {
                domain: 0xabcd,
                bus: 0xff,
                device: 0,
                function: 1
            }
        );
        assert_eq!(short.to_string(), "0000:3b:1f.7");
        assert_eq!(
            long.resource_path(0),
            Path::new("/sys/bus/pci/devices/0000:01:00.0/resource0")
        );
    }

    #[test]
    fn hw_04_bdf_rejects_malformed_addresses() {
        for bad in [
            "",
            "01:00",
            "0000:01:00",
            "01:00.8",
            "01:20.0",
            "1:2:3:4.0",
            "00000:01:00.0",
            "000g:01:00.0",
            "01:00.0 ",
            "01::00.0",
            "100:00.0",
            "01:00.",
            "..",
        ] {
            let err = bad.parse::<Bdf>().unwrap_err();
            assert!(err.to_string().contains("DDDD:BB:DD.F"), "{bad}: {err}");
        }
    }
}
