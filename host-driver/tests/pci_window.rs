//! HW-04: the CSR window at a chosen BAR and offset (`BDF,bar=N,offset=X`), with
//! a regular file standing in for the sysfs `resource<N>` file.
//!
//! The file is mapped as a BAR would be, so these tests exercise the real mmap
//! path: every access lands at base + register offset, and a window that ends
//! past the BAR's end is refused before the file is opened for writing.

use cngw_driver::bus::{BusError, RegisterBus};
use cngw_driver::pci::{CsrWindow, PciBus, PciOpenError, PciTarget};
use cngw_driver::Device;
use cngw_regmap::{offset, CSR_WINDOW_BYTES, DEVICE_ID, REGISTERS};
use std::path::{Path, PathBuf};

/// OpenNIC's BAR2: 4 MiB, the 322 MHz box (cngw) at 0x200000.
const BAR_BYTES: u64 = 4 << 20;
const BASE: u64 = 0x20_0000;

/// A temporary file standing in for a BAR, removed when dropped.
struct FakeBar(PathBuf);

impl FakeBar {
    /// `len` zero bytes (sparse), every register's reset value at `base` + its offset.
    fn with_registers_at(test: &str, len: u64, base: u64) -> FakeBar {
        let path = std::env::temp_dir().join(format!(
            "cngw-driver-window-{test}-{}.bar",
            std::process::id()
        ));
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(len).unwrap();
        drop(file);
        let bar = FakeBar(path);
        if base + u64::from(CSR_WINDOW_BYTES) <= len {
            use std::os::unix::fs::FileExt;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(bar.path())
                .unwrap();
            for reg in REGISTERS {
                file.write_all_at(&reg.reset.to_le_bytes(), base + u64::from(reg.offset))
                    .unwrap();
            }
        }
        bar
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn word(&self, at: u64) -> u32 {
        use std::os::unix::fs::FileExt;
        let mut bytes = [0u8; 4];
        std::fs::File::open(&self.0)
            .unwrap()
            .read_exact_at(&mut bytes, at)
            .unwrap();
        u32::from_le_bytes(bytes)
    }

    fn contents(&self) -> Vec<u8> {
        std::fs::read(&self.0).unwrap()
    }
}

impl Drop for FakeBar {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn window(bar: u32, offset: u64) -> CsrWindow {
    CsrWindow::new(bar, offset).unwrap()
}

#[test]
fn hw_04_window_offset_applies_to_every_access() {
    let bar = FakeBar::with_registers_at("offset", BAR_BYTES, BASE);
    let mut bus = PciBus::map_window(bar.path(), window(2, BASE)).unwrap();
    assert_eq!(bus.len_bytes(), BAR_BYTES);
    assert_eq!(bus.window_offset(), BASE);
    assert_eq!(bus.window_bytes(), BAR_BYTES - BASE);
    // Register R reads from BAR + BASE + R.
    assert_eq!(bus.read32(offset::ID).unwrap(), DEVICE_ID);
    bus.write32(offset::SCRATCH, 0x1234_5678).unwrap();
    assert_eq!(bar.word(BASE + u64::from(offset::SCRATCH)), 0x1234_5678);
    assert_eq!(
        bar.word(u64::from(offset::SCRATCH)),
        0,
        "nothing at BAR + R"
    );
    assert_eq!(bus.read32(offset::SCRATCH).unwrap(), 0x1234_5678);
    // The last word of the window and of the BAR.
    bus.write32(CSR_WINDOW_BYTES - 4, 0xa5a5_0001).unwrap();
    assert_eq!(bar.word(BASE + 0xffc), 0xa5a5_0001);
    let last = u32::try_from(BAR_BYTES - BASE - 4).unwrap();
    bus.write32(last, 0xa5a5_0002).unwrap();
    assert_eq!(bar.word(BAR_BYTES - 4), 0xa5a5_0002);
    // Past the BAR's end, counted from the window's base.
    assert!(matches!(
        bus.read32(last + 4),
        Err(BusError::OutOfWindow { window_bytes, .. }) if window_bytes == BAR_BYTES - BASE
    ));
    assert!(matches!(
        bus.write32(last + 4, 0),
        Err(BusError::OutOfWindow { .. })
    ));

    // The typed API on top: ID, VERSION and CAPABILITIES from the window, and a
    // configuration write lands at base + offset.
    let mut device =
        Device::open(PciBus::map_window(bar.path(), window(2, BASE)).unwrap()).unwrap();
    assert_eq!(device.num_ports(), 1);
    device.scratch_test().unwrap();
    device
        .bus_mut()
        .write32(offset::FEATURE_ENABLE, 0x3)
        .unwrap();
    assert_eq!(bar.word(BASE + u64::from(offset::FEATURE_ENABLE)), 0x3);
    assert_eq!(bar.word(u64::from(offset::FEATURE_ENABLE)), 0);

    // The same file at offset 0 has no cngw at register 0.
    let err = Device::open(PciBus::map(bar.path()).unwrap()).unwrap_err();
    assert!(err.to_string().contains("not a cngw device"), "{err}");
}

#[test]
fn hw_04_window_all_ones_checks_id_at_the_base() {
    let bar = FakeBar::with_registers_at("dead", BAR_BYTES, BASE);
    // All ones at the window's ID: the device is gone, whatever BAR + 0 holds.
    {
        use std::os::unix::fs::FileExt;
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(bar.path())
            .unwrap();
        file.write_all_at(&[0xff; 0x1000], BASE).unwrap();
    }
    let mut bus = PciBus::map_window(bar.path(), window(2, BASE)).unwrap();
    assert!(matches!(
        bus.read32(offset::SCRATCH),
        Err(BusError::DeviceGone { .. })
    ));
    // All ones at BAR + 0 only: a value, ID at the base is alive.
    let live = FakeBar::with_registers_at("live", BAR_BYTES, BASE);
    {
        use std::os::unix::fs::FileExt;
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(live.path())
            .unwrap();
        file.write_all_at(&[0xff; 0x1000], 0).unwrap();
    }
    let mut bus = PciBus::map_window(live.path(), window(2, BASE)).unwrap();
    bus.write32(offset::SCRATCH, u32::MAX).unwrap();
    assert_eq!(bus.read32(offset::SCRATCH).unwrap(), u32::MAX);
}

#[test]
fn hw_04_window_past_the_bar_end_is_refused_before_any_access() {
    // A 1 MiB BAR cannot hold a window at 0x200000; the last 4 KiB fits exactly.
    let small = FakeBar::with_registers_at("small", 1 << 20, 0);
    let before = small.contents();
    for offset in [0x20_0000, 0x10_0000, !0xfff_u64] {
        let err = PciBus::map_window(small.path(), window(2, offset)).unwrap_err();
        assert!(
            matches!(err, PciOpenError::WindowOutsideBar { bar: Some(2), bar_bytes, .. } if bar_bytes == 1 << 20),
            "{offset:#x}: {err}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&format!("the 4 KiB CSR window at offset {offset:#x}")),
            "{message}"
        );
        assert!(
            message.contains("does not fit in BAR2, which is 0x100000 bytes (1 MiB)"),
            "{message}"
        );
    }
    assert!(small.contents() == before, "a refused window wrote nothing");
    let mut bus = PciBus::map_window(small.path(), window(2, 0xf_f000)).unwrap();
    assert_eq!(bus.window_bytes(), 0x1000);
    bus.read32(0xffc).unwrap();
    assert!(matches!(
        bus.read32(0x1000),
        Err(BusError::OutOfWindow { .. })
    ));

    // A BAR smaller than the window does not hold the CSR block even at 0.
    let tiny = FakeBar::with_registers_at("tiny", 0x800, 0);
    let err = PciBus::map(tiny.path()).unwrap_err();
    assert!(
        err.to_string()
            .contains("does not fit in the BAR, which is 0x800 bytes (2 KiB)"),
        "{err}"
    );

    // The size is checked before the file is opened for writing: a read-only
    // file gives the window error, not "permission denied".
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(small.path(), std::fs::Permissions::from_mode(0o400)).unwrap();
    let err = PciBus::map_window(small.path(), window(2, 0x20_0000)).unwrap_err();
    assert!(
        matches!(err, PciOpenError::WindowOutsideBar { .. }),
        "{err}"
    );
    if std::fs::OpenOptions::new()
        .write(true)
        .open(small.path())
        .is_err()
    {
        // Not root: opening for writing would have failed with this error.
        let err = PciBus::map_window(small.path(), window(2, 0)).unwrap_err();
        assert!(
            matches!(err, PciOpenError::PermissionDenied { .. }),
            "{err}"
        );
    }
    assert!(small.contents() == before);
}

#[test]
fn hw_04_window_target_of_an_absent_device_names_its_resource_file() {
    // No machine has domain ffff: the BAR's resource file is missing.
    let target: PciTarget = "ffff:ff:1f.7,bar=2,offset=0x200000".parse().unwrap();
    let err = PciBus::open_target(&target).unwrap_err();
    assert!(
        matches!(err, PciOpenError::NoSuchDevice { bar: 2, .. }),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("/sys/bus/pci/devices/ffff:ff:1f.7/resource2"),
        "{message}"
    );
    assert!(message.contains("memory BAR 2"), "{message}");
}
