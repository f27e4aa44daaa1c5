//! HW-04: the PCIe backend, with a regular file standing in for the BAR.
//!
//! Mapping a file behaves as mapping a sysfs `resource0` does, so these tests
//! exercise the real mmap path: whole-BAR mapping (offsets >= 4 KiB), volatile
//! little-endian accesses, the 0xffffffff dead-device check and open errors.

use cngw_driver::bus::{BusError, RegisterBus};
use cngw_driver::pci::{PciBus, PciOpenError};
use cngw_driver::{Device, ThresholdInput};
use cngw_regmap::{offset, DEVICE_ID, REGISTERS};
use std::path::{Path, PathBuf};
use std::time::Duration;

const BAR_BYTES: usize = 16 * 1024;

/// A temporary file removed when dropped.
struct FakeBar(PathBuf);

impl FakeBar {
    fn new(test: &str, contents: &[u8]) -> FakeBar {
        let path =
            std::env::temp_dir().join(format!("cngw-driver-{test}-{}.bar", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        FakeBar(path)
    }

    /// A BAR of all ones: what reads of a vanished device return.
    fn dead(test: &str) -> FakeBar {
        FakeBar::new(test, &vec![0xff; BAR_BYTES])
    }

    /// A BAR holding every register's reset value, zeros elsewhere.
    fn at_reset(test: &str) -> FakeBar {
        let mut bytes = vec![0u8; BAR_BYTES];
        for reg in REGISTERS {
            let at = reg.offset as usize;
            bytes[at..at + 4].copy_from_slice(&reg.reset.to_le_bytes());
        }
        FakeBar::new(test, &bytes)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn word(&self, offset: usize) -> u32 {
        let bytes = std::fs::read(&self.0).unwrap();
        u32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
    }
}

impl Drop for FakeBar {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn hw_04_pci_maps_the_whole_bar_including_offsets_above_4k() {
    let bar = FakeBar::at_reset("whole");
    let mut bus = PciBus::map(bar.path()).unwrap();
    assert_eq!(bus.len_bytes(), BAR_BYTES as u64);
    assert_eq!(bus.read32(offset::ID).unwrap(), DEVICE_ID);
    // Writes reach the file (the "device") little-endian, at and above 4 KiB.
    for at in [0x0ffc_u32, 0x1000, 0x1004, 0x2000, BAR_BYTES as u32 - 4] {
        bus.write32(at, 0x1122_3344 ^ at).unwrap();
        assert_eq!(bar.word(at as usize), 0x1122_3344 ^ at, "{at:#x}");
        assert_eq!(bus.read32(at).unwrap(), 0x1122_3344 ^ at, "{at:#x}");
    }
}

#[test]
fn hw_04_pci_reads_of_all_ones_mean_device_gone() {
    let bar = FakeBar::dead("dead");
    let mut bus = PciBus::map(bar.path()).unwrap();
    assert!(matches!(
        bus.read32(offset::ID),
        Err(BusError::DeviceGone { offset: 0 })
    ));
    assert!(matches!(
        bus.read32(0x1004),
        Err(BusError::DeviceGone { offset: 0x1004 })
    ));
    let err = bus.read32(offset::DC_RX_FRAMES).unwrap_err();
    assert!(err.to_string().contains("device gone"), "{err}");
    // The typed API says so too.
    let err = Device::open(PciBus::map(bar.path()).unwrap()).unwrap_err();
    assert!(err.to_string().contains("device gone"), "{err}");
}

#[test]
fn hw_04_pci_all_ones_is_a_value_while_id_is_alive() {
    let bar = FakeBar::at_reset("alive");
    let mut bus = PciBus::map(bar.path()).unwrap();
    bus.write32(offset::SCRATCH, u32::MAX).unwrap();
    bus.write32(0x1004, u32::MAX).unwrap();
    assert_eq!(bus.read32(offset::SCRATCH).unwrap(), u32::MAX);
    assert_eq!(bus.read32(0x1004).unwrap(), u32::MAX);
}

#[test]
fn hw_04_pci_rejects_misaligned_and_out_of_window_accesses() {
    let bar = FakeBar::at_reset("window");
    let mut bus = PciBus::map(bar.path()).unwrap();
    assert!(matches!(
        bus.read32(0x1002),
        Err(BusError::Misaligned { offset: 0x1002 })
    ));
    assert!(matches!(
        bus.write32(0x3, 0),
        Err(BusError::Misaligned { .. })
    ));
    assert!(matches!(
        bus.read32(BAR_BYTES as u32),
        Err(BusError::OutOfWindow { .. })
    ));
    assert!(matches!(
        bus.write32(u32::MAX - 3, 0),
        Err(BusError::OutOfWindow { .. })
    ));
}

#[test]
fn hw_04_pci_open_errors_are_clear() {
    let err = PciBus::open("not-a-bdf", 0).unwrap_err();
    assert!(matches!(err, PciOpenError::InvalidBdf(_)), "{err}");
    assert!(err.to_string().contains("DDDD:BB:DD.F"), "{err}");

    // No machine has domain ffff.
    let err = PciBus::open("ffff:ff:1f.7", 0).unwrap_err();
    assert!(
        matches!(err, PciOpenError::NoSuchDevice { bar: 0, .. }),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("/sys/bus/pci/devices/ffff:ff:1f.7/resource0"),
        "{message}"
    );
    assert!(message.contains("lspci -s ffff:ff:1f.7"), "{message}");

    let missing =
        std::env::temp_dir().join(format!("cngw-driver-missing-{}.bar", std::process::id()));
    assert!(matches!(
        PciBus::map(&missing),
        Err(PciOpenError::NotFound { .. })
    ));

    let empty = FakeBar::new("empty", &[]);
    let err = PciBus::map(empty.path()).unwrap_err();
    assert!(matches!(err, PciOpenError::EmptyBar { .. }), "{err}");
}

#[test]
fn hw_04_pci_permission_denied_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let bar = FakeBar::at_reset("perm");
    std::fs::set_permissions(bar.path(), std::fs::Permissions::from_mode(0o400)).unwrap();
    // Root may open any file: then there is nothing to deny.
    if std::fs::OpenOptions::new()
        .write(true)
        .open(bar.path())
        .is_ok()
    {
        eprintln!("skipped: running with permission to write a read-only file (root)");
        return;
    }
    let err = PciBus::map(bar.path()).unwrap_err();
    assert!(
        matches!(err, PciOpenError::PermissionDenied { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("permission denied"), "{err}");
}

#[test]
fn lh_03_thresholds_through_a_mapped_bar() {
    let bar = FakeBar::at_reset("device");
    let mut device = Device::open(PciBus::map(bar.path()).unwrap()).unwrap();
    assert_eq!(device.num_ports(), 1);
    device.scratch_test().unwrap();
    let input = ThresholdInput::new(400_000_000_000, Duration::from_millis(1), 1.0, 65_536);
    let t = device.set_port_thresholds(0, &input).unwrap();
    assert_eq!(t.k_max_bytes, 50_000_000);
    assert_eq!(bar.word(offset::PORT0_K_MAX_BYTES as usize), 50_000_000);
    assert_eq!(bar.word(offset::PORT0_K_MIN_BYTES as usize), 25_000_000);
    assert_eq!(bar.word(offset::PORT0_RATE_MBPS as usize), 400_000);
}
