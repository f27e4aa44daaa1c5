//! The register bus: 32-bit reads and writes by byte offset (HW-04).
//!
//! Every backend (PCIe BAR, simulator, in-memory fake) implements [`RegisterBus`],
//! the pattern of Corundum's `reg_if` ops table; the typed API in
//! [`crate::device`] sits on top and never knows which backend it drives.

use thiserror::Error;

/// A failed register access.
#[derive(Debug, Error)]
pub enum BusError {
    /// A read returned 0xffffffff and so did `ID`, which never reads as all ones:
    /// the device fell off the bus (surprise removal, link down, FPGA reloaded).
    #[error("device gone: read at offset {offset:#x} returned 0xffffffff and so did ID (link down or device removed?)")]
    DeviceGone { offset: u32 },
    /// The slave answered with an error response (AXI SLVERR), e.g. a write to a
    /// read-only register.
    #[error("slave error at offset {offset:#x}")]
    SlaveError { offset: u32 },
    /// No register decodes at this offset (AXI DECERR).
    #[error("no register at offset {offset:#x}")]
    Unmapped { offset: u32 },
    /// The offset is not a multiple of 4.
    #[error("misaligned 32-bit access at offset {offset:#x}")]
    Misaligned { offset: u32 },
    /// The offset lies outside the mapped window.
    #[error("offset {offset:#x} is outside the {window_bytes:#x}-byte register window")]
    OutOfWindow { offset: u32, window_bytes: u64 },
    /// The access never completed.
    #[error("bus timeout at offset {offset:#x}")]
    Timeout { offset: u32 },
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// 32-bit register access by byte offset.
pub trait RegisterBus {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError>;
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError>;
}

impl<B: RegisterBus + ?Sized> RegisterBus for &mut B {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        (**self).read32(offset)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        (**self).write32(offset, value)
    }
}

impl<B: RegisterBus + ?Sized> RegisterBus for Box<B> {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        (**self).read32(offset)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        (**self).write32(offset, value)
    }
}

/// Checks that a 32-bit access at `offset` is aligned and inside a window of
/// `window_bytes` bytes.
pub fn check_access(offset: u32, window_bytes: u64) -> Result<(), BusError> {
    if offset & 3 != 0 {
        return Err(BusError::Misaligned { offset });
    }
    if u64::from(offset) + 4 > window_bytes {
        return Err(BusError::OutOfWindow {
            offset,
            window_bytes,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_04_check_access_rejects_misaligned_and_out_of_window() {
        assert!(check_access(0, 4).is_ok());
        assert!(matches!(
            check_access(2, 16),
            Err(BusError::Misaligned { offset: 2 })
        ));
        assert!(matches!(
            check_access(16, 16),
            Err(BusError::OutOfWindow { offset: 16, .. })
        ));
        assert!(matches!(
            check_access(u32::MAX - 3, u64::from(u32::MAX)),
            Err(BusError::OutOfWindow { .. })
        ));
    }
}
