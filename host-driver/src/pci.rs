//! PCIe backend: the device's BAR mapped from sysfs (HW-04).
//!
//! Linux exposes each memory BAR of a PCI function as
//! `/sys/bus/pci/devices/<BDF>/resource<N>`; mapping that file gives the BAR.
//! [`PciBus`] maps the WHOLE file at offset 0, so every offset inside the BAR is
//! reachable (mapping a page-aligned window around one address breaks offsets
//! >= 4 KiB), and reads and writes it with volatile 32-bit little-endian accesses.
//!
//! # Where the CSR window is
//!
//! The CSR block is a 4 KiB AXI4-Lite window ([`CSR_WINDOW_BYTES`]). On a plain
//! build it sits at offset 0 of BAR0 ([`CsrWindow::DEFAULT`]); behind a shell it
//! may sit elsewhere, e.g. OpenNIC puts its 322 MHz box (cngw) at BAR2 + 0x200000.
//! A [`CsrWindow`] names the BAR and the window's base offset inside it, and a
//! [`PciTarget`] is a PCI address with its window, spelled
//! `BDF[,bar=N][,offset=X]` (e.g. `0000:3b:00.0,bar=2,offset=0x200000`; without
//! parameters, BAR0 offset 0). Every register access of a [`PciBus`] goes to
//! base + register offset; accesses are checked against the rest of the BAR
//! from the base up (with base 0, the whole BAR, as before).
//!
//! The window is validated before anything is accessed: the BAR number is 0..=5
//! and the offset a multiple of 4 KiB when the spec is parsed ([`CsrWindow::new`]);
//! offset + 4 KiB within the BAR's size (the resource file's size, read with
//! `stat`) before the file is opened for writing or mapped
//! ([`PciOpenError::WindowOutsideBar`]). The offset must be 4 KiB-aligned, not
//! just 4-byte-aligned: the whole BAR is mapped, so mmap does not need it, but a
//! 4 KiB slave that decodes 12 address bits is placed by any interconnect at a
//! multiple of its size, and the rule catches a hex base written as decimal
//! (`offset=200000` is 0x30d40).
//!
//! The device must have memory decoding enabled (a bound driver or
//! `echo 1 > /sys/bus/pci/devices/<BDF>/enable`); a kernel in lockdown mode
//! refuses the mapping.
//!
//! A read of 0xffffffff is what a PCIe read of a vanished device completes with.
//! `ID` never reads as all ones, so such a read is confirmed by reading `ID`
//! (at the window's base): if that is all ones too the device is gone
//! ([`BusError::DeviceGone`]).

use crate::bus::{check_access, BusError, RegisterBus};
use cngw_regmap::{offset, CSR_WINDOW_BYTES};
use std::fmt;
use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use thiserror::Error;

/// Where sysfs lists PCI functions.
pub const SYSFS_PCI_DEVICES: &str = "/sys/bus/pci/devices";

/// The BAR the CSR block sits behind unless a [`CsrWindow`] says otherwise.
pub const DEFAULT_BAR: u32 = 0;

/// The highest BAR number: a PCI function (type-0 header) has BARs 0..=5.
pub const MAX_BAR: u32 = 5;

/// The alignment required of the CSR window's base offset inside its BAR: the
/// window's own size, 4 KiB.
pub const WINDOW_ALIGN: u64 = CSR_WINDOW_BYTES as u64;

/// The parameters a [`PciTarget`] accepts after the PCI address.
pub const PCI_PARAMETERS: &str = "bar=N (BAR number 0..5, default 0), \
offset=X (the CSR window's byte offset in the BAR, hex 0x... or decimal, a multiple of 0x1000, default 0)";

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

/// A device specification that is not valid: a bad PCI address, or a bad
/// `bar=` / `offset=` parameter.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PciSpecError {
    #[error(transparent)]
    InvalidBdf(#[from] BdfError),
    /// A parameter that is not `NAME=VALUE` (empty, or without `=`).
    #[error("{text:?} is not a parameter: expected NAME=VALUE after the PCI address, one of {PCI_PARAMETERS}")]
    NotAParameter { text: String },
    #[error("unknown parameter {name:?}: the valid parameters are {PCI_PARAMETERS}")]
    UnknownParameter { name: String },
    #[error("parameter {name} is given more than once")]
    Repeated { name: &'static str },
    #[error("bar={text}: a BAR number must be 0..5")]
    BadBar { text: String },
    #[error("offset={text}: not a number (expected hex 0x... or decimal, e.g. offset=0x200000)")]
    BadOffset { text: String },
    #[error("{}", misaligned_offset(text, *offset))]
    MisalignedOffset { text: String, offset: u64 },
}

fn misaligned_offset(text: &str, offset: u64) -> String {
    let mut message = format!(
        "offset={text}: the CSR window's offset must be a multiple of 4 KiB (0x1000), \
         and {offset:#x} is not (the 4 KiB register block sits at a 4 KiB-aligned base)"
    );
    // A hex base written without its 0x reads as decimal: 200000 is 0x30d40.
    let as_hex = u64::from_str_radix(text, 16).ok();
    if text.bytes().all(|b| b.is_ascii_digit()) && as_hex.is_some_and(|v| v % WINDOW_ALIGN == 0) {
        message.push_str(&format!(
            "; a hex number needs 0x: did you mean offset=0x{text}?"
        ));
    }
    message
}

/// Parses a number in hex (`0x` prefix) or decimal.
fn parse_number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
        None => None,
    }
}

/// Where the 4 KiB CSR window is: a BAR and the window's base offset inside it.
///
/// Built only by [`CsrWindow::new`] (or parsed with a [`PciTarget`]), so the BAR
/// is 0..=5 and the offset a multiple of 4 KiB. Whether the window fits in the
/// BAR is known only once the BAR's size is: [`PciBus::open_target`] and
/// [`PciBus::map_window`] check it before any access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CsrWindow {
    bar: u32,
    offset: u64,
}

impl Default for CsrWindow {
    fn default() -> Self {
        CsrWindow::DEFAULT
    }
}

impl CsrWindow {
    /// Offset 0 of BAR0: the plain build.
    pub const DEFAULT: CsrWindow = CsrWindow {
        bar: DEFAULT_BAR,
        offset: 0,
    };

    /// The window at byte `offset` of BAR `bar`.
    pub fn new(bar: u32, offset: u64) -> Result<CsrWindow, PciSpecError> {
        if bar > MAX_BAR {
            return Err(PciSpecError::BadBar {
                text: bar.to_string(),
            });
        }
        if offset % WINDOW_ALIGN != 0 {
            return Err(PciSpecError::MisalignedOffset {
                text: format!("{offset:#x}"),
                offset,
            });
        }
        Ok(CsrWindow { bar, offset })
    }

    pub fn bar(&self) -> u32 {
        self.bar
    }

    /// The window's base: the byte offset of register 0 inside the BAR.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Checks that the 4 KiB window lies inside a BAR of `bar_bytes` bytes.
    pub fn fits_in(&self, bar_bytes: u64) -> bool {
        self.offset
            .checked_add(WINDOW_ALIGN)
            .is_some_and(|end| end <= bar_bytes)
    }
}

/// A PCI function and where its CSR window is: `BDF[,bar=N][,offset=X]`.
///
/// ```
/// use cngw_driver::pci::PciTarget;
/// let target: PciTarget = "0000:3b:00.0,bar=2,offset=0x200000".parse().unwrap();
/// assert_eq!(target.window.bar(), 2);
/// assert_eq!(target.window.offset(), 0x20_0000);
/// // Without parameters: BAR0, offset 0.
/// let plain: PciTarget = "3b:00.0".parse().unwrap();
/// assert_eq!(plain.to_string(), "0000:3b:00.0");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PciTarget {
    pub bdf: Bdf,
    pub window: CsrWindow,
}

impl FromStr for PciTarget {
    type Err = PciSpecError;

    /// Parses `BDF[,bar=N][,offset=X]`: the PCI address as [`Bdf`] parses it, then
    /// comma-separated parameters in any order, each at most once; `N` is decimal
    /// 0..5, `X` hex (`0x`) or decimal and a multiple of 4 KiB.
    fn from_str(text: &str) -> Result<PciTarget, PciSpecError> {
        let mut parts = text.split(',');
        let bdf: Bdf = parts.next().unwrap_or_default().parse()?;
        let mut bar = None;
        let mut offset = None;
        for part in parts {
            let Some((name, value)) = part.split_once('=') else {
                return Err(PciSpecError::NotAParameter {
                    text: part.to_string(),
                });
            };
            match name {
                "bar" => {
                    if bar.is_some() {
                        return Err(PciSpecError::Repeated { name: "bar" });
                    }
                    let bad = || PciSpecError::BadBar {
                        text: value.to_string(),
                    };
                    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(bad());
                    }
                    match value.parse::<u32>() {
                        Ok(n) if n <= MAX_BAR => bar = Some(n),
                        _ => return Err(bad()),
                    }
                }
                "offset" => {
                    if offset.is_some() {
                        return Err(PciSpecError::Repeated { name: "offset" });
                    }
                    let n = parse_number(value).ok_or_else(|| PciSpecError::BadOffset {
                        text: value.to_string(),
                    })?;
                    if n % WINDOW_ALIGN != 0 {
                        return Err(PciSpecError::MisalignedOffset {
                            text: value.to_string(),
                            offset: n,
                        });
                    }
                    offset = Some(n);
                }
                _ if name.is_empty() => {
                    return Err(PciSpecError::NotAParameter {
                        text: part.to_string(),
                    })
                }
                _ => {
                    return Err(PciSpecError::UnknownParameter {
                        name: name.to_string(),
                    })
                }
            }
        }
        let window = CsrWindow::new(bar.unwrap_or(DEFAULT_BAR), offset.unwrap_or(0))?;
        Ok(PciTarget { bdf, window })
    }
}

impl fmt::Display for PciTarget {
    /// The canonical spelling: the sysfs address, then `,bar=N` and
    /// `,offset=0x...` where they differ from BAR0 and offset 0.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.bdf)?;
        if self.window.bar != DEFAULT_BAR {
            write!(f, ",bar={}", self.window.bar)?;
        }
        if self.window.offset != 0 {
            write!(f, ",offset={:#x}", self.window.offset)?;
        }
        Ok(())
    }
}

/// A byte count for people: `4 MiB`, `16 KiB`, or bytes.
fn size_text(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    const GIB: u64 = 1024 * MIB;
    match bytes {
        b if b >= GIB && b % GIB == 0 => format!("{} GiB", b / GIB),
        b if b >= MIB && b % MIB == 0 => format!("{} MiB", b / MIB),
        b if b >= KIB && b % KIB == 0 => format!("{} KiB", b / KIB),
        b => format!("{b} bytes"),
    }
}

fn window_outside_bar(path: &Path, bar: Option<u32>, offset: u64, bar_bytes: u64) -> String {
    let bar = bar.map_or_else(|| "the BAR".to_string(), |n| format!("BAR{n}"));
    format!(
        "{path}: the 4 KiB CSR window at offset {offset:#x} (up to {end:#x}) does not fit in \
         {bar}, which is {bar_bytes:#x} bytes ({size}): check the offset (and the BAR number)",
        path = path.display(),
        end = u128::from(offset) + u128::from(WINDOW_ALIGN),
        size = size_text(bar_bytes),
    )
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
    /// The 4 KiB window at the chosen offset ends past the BAR's end; found from
    /// the file's size before it is opened for writing or mapped.
    #[error("{}", window_outside_bar(path, *bar, *offset, *bar_bytes))]
    WindowOutsideBar {
        path: PathBuf,
        /// The BAR number, when known (not for [`PciBus::map`] of a bare path).
        bar: Option<u32>,
        offset: u64,
        bar_bytes: u64,
    },
    #[error("{path}: {source}", path = path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A memory BAR (or any file standing in for one) mapped read-write, with the
/// CSR window at a base offset inside it.
pub struct PciBus {
    path: PathBuf,
    base: *mut u8,
    len: usize,
    /// Byte offset of the CSR window (register 0) inside the mapping.
    window: usize,
}

// SAFETY: the mapping is owned by this value alone; moving it to another thread
// moves the only handle to it.
unsafe impl Send for PciBus {}

impl fmt::Debug for PciBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PciBus")
            .field("path", &self.path)
            .field("len", &self.len)
            .field("window", &self.window)
            .finish()
    }
}

fn open_error(path: &Path, source: std::io::Error) -> PciOpenError {
    let path = path.to_path_buf();
    match source.kind() {
        ErrorKind::NotFound => PciOpenError::NotFound { path },
        ErrorKind::PermissionDenied => PciOpenError::PermissionDenied { path },
        _ => PciOpenError::Io { path, source },
    }
}

impl PciBus {
    /// Maps BAR `bar` of the PCI function `bdf` (e.g. `"0000:01:00.0"` or
    /// `"01:00.0"`), CSR window at offset 0.
    pub fn open(bdf: &str, bar: u32) -> Result<PciBus, PciOpenError> {
        let bdf: Bdf = bdf.parse()?;
        Self::open_bar(bdf, bar, 0)
    }

    /// Maps the BAR of `target` with its CSR window at the target's offset: the
    /// window must fit in the BAR, which is checked before the resource file is
    /// opened for writing.
    pub fn open_target(target: &PciTarget) -> Result<PciBus, PciOpenError> {
        Self::open_bar(target.bdf, target.window.bar(), target.window.offset())
    }

    fn open_bar(bdf: Bdf, bar: u32, window: u64) -> Result<PciBus, PciOpenError> {
        let path = bdf.resource_path(bar);
        Self::map_inner(&path, Some(bar), window).map_err(|e| match e {
            PciOpenError::NotFound { path } => PciOpenError::NoSuchDevice { path, bdf, bar },
            other => other,
        })
    }

    /// Maps the whole of `path` as a BAR, CSR window at offset 0: a sysfs
    /// `resource<N>` file, or in tests a regular file standing in for one.
    pub fn map(path: &Path) -> Result<PciBus, PciOpenError> {
        Self::map_inner(path, None, 0)
    }

    /// Maps the whole of `path` as BAR `window.bar()` with the CSR window at
    /// `window.offset()` (the file is named, so only the offset is used; the BAR
    /// number appears in errors).
    pub fn map_window(path: &Path, window: CsrWindow) -> Result<PciBus, PciOpenError> {
        Self::map_inner(path, Some(window.bar()), window.offset())
    }

    fn map_inner(path: &Path, bar: Option<u32>, window: u64) -> Result<PciBus, PciOpenError> {
        // The size first, from stat: a window that does not fit is refused
        // before the file is opened for writing.
        let len = std::fs::metadata(path)
            .map_err(|source| open_error(path, source))?
            .len();
        let path = path.to_path_buf();
        if len == 0 {
            return Err(PciOpenError::EmptyBar { path });
        }
        let too_large = || PciOpenError::TooLarge {
            path: path.clone(),
            len,
        };
        let size = usize::try_from(len).map_err(|_| too_large())?;
        debug_assert!(window % WINDOW_ALIGN == 0, "CsrWindow checks the alignment");
        let fits = CsrWindow {
            bar: bar.unwrap_or(DEFAULT_BAR),
            offset: window,
        }
        .fits_in(len);
        if !fits {
            return Err(PciOpenError::WindowOutsideBar {
                path,
                bar,
                offset: window,
                bar_bytes: len,
            });
        }
        // window < len <= usize::MAX.
        let window = usize::try_from(window).map_err(|_| too_large())?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|source| open_error(&path, source))?;
        // SAFETY: a fresh shared mapping of an open file descriptor; the kernel
        // checks the arguments and we check the result.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
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
            len: size,
            window,
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

    /// Byte offset of the CSR window (register 0) inside the BAR.
    pub fn window_offset(&self) -> u64 {
        self.window as u64
    }

    /// Bytes reachable through register offsets: from the window's base to the
    /// BAR's end (at least the 4 KiB window; the whole BAR when the base is 0).
    pub fn window_bytes(&self) -> u64 {
        (self.len - self.window) as u64
    }

    fn raw_read(&self, offset: u32) -> Result<u32, BusError> {
        check_access(offset, self.window_bytes())?;
        // SAFETY: the offset is 4-aligned and window + offset + 4 <= len (checked
        // above); the mapping and the window's base are page-aligned, so the
        // address is 4-aligned.
        let value = unsafe {
            std::ptr::read_volatile(self.base.add(self.window + offset as usize).cast::<u32>())
        };
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
        check_access(offset, self.window_bytes())?;
        // SAFETY: as in `raw_read`.
        unsafe {
            std::ptr::write_volatile(
                self.base.add(self.window + offset as usize).cast::<u32>(),
                value.to_le(),
            )
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

    fn target(text: &str) -> PciTarget {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn spec_error(text: &str) -> String {
        match text.parse::<PciTarget>() {
            Ok(t) => panic!("{text} parsed as {t:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn hw_04_pci_target_parses_bar_and_offset() {
        let bdf: Bdf = "0000:3b:00.0".parse().unwrap();
        // Without parameters: BAR0, offset 0, as before.
        let plain = target("0000:3b:00.0");
        assert_eq!(
            plain,
            PciTarget {
                bdf,
                window: CsrWindow::DEFAULT
            }
        );
        assert_eq!(plain.to_string(), "0000:3b:00.0");
        // OpenNIC: BAR2 + 0x200000, in either order, hex or decimal.
        let opennic = PciTarget {
            bdf,
            window: CsrWindow::new(2, 0x20_0000).unwrap(),
        };
        for text in [
            "0000:3b:00.0,bar=2,offset=0x200000",
            "3b:00.0,offset=0x200000,bar=2",
            "3b:00.0,bar=2,offset=2097152",
            "3b:00.0,bar=2,offset=0X200000",
            "3b:00.0,bar=02,offset=0x00200000",
        ] {
            assert_eq!(target(text), opennic, "{text}");
        }
        assert_eq!(opennic.to_string(), "0000:3b:00.0,bar=2,offset=0x200000");
        assert_eq!(target(&opennic.to_string()), opennic);
        // Explicit defaults are the defaults; the canonical spelling drops them.
        let explicit = target("3b:00.0,bar=0,offset=0");
        assert_eq!(explicit, plain);
        assert_eq!(explicit.to_string(), "0000:3b:00.0");
        assert_eq!(target("3b:00.0,bar=5").window.bar(), 5);
        assert_eq!(target("3b:00.0,offset=4096").window.offset(), 0x1000);
        assert_eq!(
            target("3b:00.0,offset=0x1000").to_string(),
            "0000:3b:00.0,offset=0x1000"
        );
        // 64-bit BARs can be larger than 4 GiB.
        assert_eq!(
            target("3b:00.0,bar=4,offset=0x100000000").window.offset(),
            1 << 32
        );
    }

    #[test]
    fn hw_04_pci_target_rejects_bad_parameters_with_their_message() {
        let cases: &[(&str, &str)] = &[
            ("zz,bar=2", "invalid PCI address \"zz\""),
            ("3b:00.0,bar=6", "bar=6: a BAR number must be 0..5"),
            ("3b:00.0,bar=-1", "bar=-1: a BAR number must be 0..5"),
            ("3b:00.0,bar=", "bar=: a BAR number must be 0..5"),
            ("3b:00.0,bar=0x2", "bar=0x2: a BAR number must be 0..5"),
            (
                "3b:00.0,bar=99999999999",
                "bar=99999999999: a BAR number must be 0..5",
            ),
            (
                "3b:00.0,offset=0x200004",
                "offset=0x200004: the CSR window's offset must be a multiple of 4 KiB (0x1000), and 0x200004 is not",
            ),
            (
                "3b:00.0,offset=2",
                "offset=2: the CSR window's offset must be a multiple of 4 KiB",
            ),
            // A hex base written as decimal gets a hint.
            (
                "3b:00.0,offset=200000",
                "0x30d40 is not (the 4 KiB register block sits at a 4 KiB-aligned base); \
                 a hex number needs 0x: did you mean offset=0x200000?",
            ),
            (
                "3b:00.0,offset=0x",
                "offset=0x: not a number (expected hex 0x... or decimal",
            ),
            ("3b:00.0,offset=", "offset=: not a number"),
            ("3b:00.0,offset=2M", "offset=2M: not a number"),
            ("3b:00.0,offset=-4096", "offset=-4096: not a number"),
            (
                "3b:00.0,offset=0x10000000000000000",
                "offset=0x10000000000000000: not a number",
            ),
            (
                "3b:00.0,bar=2,bar=2",
                "parameter bar is given more than once",
            ),
            (
                "3b:00.0,offset=0,offset=0x1000",
                "parameter offset is given more than once",
            ),
            (
                "3b:00.0,base=0x200000",
                "unknown parameter \"base\": the valid parameters are bar=N (BAR number 0..5, default 0), \
                 offset=X (the CSR window's byte offset in the BAR, hex 0x... or decimal, a multiple of 0x1000, default 0)",
            ),
            ("3b:00.0,BAR=2", "unknown parameter \"BAR\""),
            ("3b:00.0, bar=2", "unknown parameter \" bar\""),
            (
                "3b:00.0,",
                "\"\" is not a parameter: expected NAME=VALUE after the PCI address, one of bar=N",
            ),
            ("3b:00.0,bar", "\"bar\" is not a parameter"),
            ("3b:00.0,=2", "\"=2\" is not a parameter"),
            ("3b:00.0,,bar=2", "\"\" is not a parameter"),
        ];
        for (text, needle) in cases {
            let message = spec_error(text);
            assert!(message.contains(needle), "{text}: {message}");
        }
    }

    #[test]
    fn hw_04_csr_window_checks_bar_alignment_and_fit() {
        assert_eq!(CsrWindow::default(), CsrWindow::new(0, 0).unwrap());
        assert!(matches!(
            CsrWindow::new(6, 0),
            Err(PciSpecError::BadBar { .. })
        ));
        let err = CsrWindow::new(2, 0x20_0004).unwrap_err();
        assert!(err.to_string().contains("multiple of 4 KiB"), "{err}");
        let w = CsrWindow::new(2, 0x20_0000).unwrap();
        assert!(w.fits_in(0x40_0000));
        assert!(w.fits_in(0x20_1000));
        assert!(!w.fits_in(0x20_0fff));
        assert!(!w.fits_in(0x20_0000));
        assert!(!CsrWindow::new(0, u64::MAX - 0xfff)
            .unwrap()
            .fits_in(u64::MAX));
    }

    #[test]
    fn hw_04_window_outside_bar_names_the_bar_size() {
        let err = PciOpenError::WindowOutsideBar {
            path: PathBuf::from("resource2"),
            bar: Some(2),
            offset: 0x20_0000,
            bar_bytes: 0x10_0000,
        };
        assert_eq!(
            err.to_string(),
            "resource2: the 4 KiB CSR window at offset 0x200000 (up to 0x201000) does not fit in \
             BAR2, which is 0x100000 bytes (1 MiB): check the offset (and the BAR number)"
        );
        let err = PciOpenError::WindowOutsideBar {
            path: PathBuf::from("bar.bin"),
            bar: None,
            offset: 0,
            bar_bytes: 100,
        };
        assert!(
            err.to_string()
                .contains("does not fit in the BAR, which is 0x64 bytes (100 bytes)"),
            "{err}"
        );
        assert_eq!(size_text(16 * 1024), "16 KiB");
        assert_eq!(size_text(1 << 33), "8 GiB");
    }
}
