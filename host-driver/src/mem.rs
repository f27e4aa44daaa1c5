//! An in-memory register file that behaves like the CSR block, for fast tests.
//!
//! [`MemBus`] holds every register of [`REGISTERS`] at its reset value and applies
//! the access rules of the register map: read-only registers refuse writes with a
//! slave error, storage registers hold all 32 bits, write-pulse registers read as 0 and act when written (CONTROL's
//! `clear_counters` zeroes the volatile registers), offsets without a register
//! answer [`BusError::Unmapped`]. Every write attempt is logged, so a test can
//! prove that a rejected configuration wrote nothing.

use crate::bus::{check_access, BusError, RegisterBus};
use cngw_regmap::{by_offset, control, offset, Access, Register, CSR_WINDOW_BYTES, REGISTERS};
use std::collections::HashMap;

/// In-memory fake of the CSR block.
#[derive(Clone, Debug)]
pub struct MemBus {
    values: HashMap<u32, u32>,
    write_log: Vec<(u32, u32)>,
    reads: usize,
}

impl Default for MemBus {
    fn default() -> Self {
        Self::new()
    }
}

impl MemBus {
    /// A register file at its reset state.
    pub fn new() -> MemBus {
        let mut bus = MemBus {
            values: HashMap::new(),
            write_log: Vec::new(),
            reads: 0,
        };
        bus.reset();
        bus
    }

    /// Returns every register to its reset value (the logs are kept).
    pub fn reset(&mut self) {
        self.values = REGISTERS.iter().map(|r| (r.offset, r.reset)).collect();
    }

    /// Sets a register from the hardware side, bypassing the access rules (a
    /// counter counting, or a different ID for a test).
    ///
    /// # Panics
    /// If no register sits at `offset`.
    pub fn poke(&mut self, offset: u32, value: u32) {
        assert!(
            by_offset(offset).is_some(),
            "MemBus::poke: no register at {offset:#x}"
        );
        self.values.insert(offset, value);
    }

    /// The stored value of a register, as the hardware sees it.
    pub fn peek(&self, offset: u32) -> Option<u32> {
        self.values.get(&offset).copied()
    }

    /// Every `write32` call so far, refused ones included, in order.
    pub fn write_log(&self) -> &[(u32, u32)] {
        &self.write_log
    }

    /// Number of `read32` calls so far.
    pub fn read_count(&self) -> usize {
        self.reads
    }

    /// Forgets the write log and the read count.
    pub fn clear_log(&mut self) {
        self.write_log.clear();
        self.reads = 0;
    }

    fn register(offset: u32) -> Result<&'static Register, BusError> {
        check_access(offset, u64::from(CSR_WINDOW_BYTES))?;
        by_offset(offset).ok_or(BusError::Unmapped { offset })
    }
}

impl RegisterBus for MemBus {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        self.reads += 1;
        let reg = Self::register(offset)?;
        Ok(match reg.access {
            Access::WritePulse => 0,
            Access::ReadOnly | Access::ReadWrite => self.values[&offset],
        })
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        self.write_log.push((offset, value));
        let reg = Self::register(offset)?;
        match reg.access {
            Access::ReadOnly => return Err(BusError::SlaveError { offset }),
            Access::ReadWrite => {
                self.values.insert(offset, value);
            }
            Access::WritePulse => {
                if offset == offset::CONTROL && value & control::CLEAR_COUNTERS != 0 {
                    for counter in REGISTERS.iter().filter(|r| r.volatile) {
                        self.values.insert(counter.offset, 0);
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cngw_regmap::DEVICE_ID;

    #[test]
    fn hw_04_mem_bus_follows_the_register_map() {
        let mut bus = MemBus::new();
        assert_eq!(bus.read32(offset::ID).unwrap(), DEVICE_ID);
        assert!(matches!(
            bus.write32(offset::ID, 0),
            Err(BusError::SlaveError { offset: 0 })
        ));
        assert_eq!(bus.read32(offset::ID).unwrap(), DEVICE_ID);
        bus.write32(offset::SCRATCH, 0xdead_beef).unwrap();
        assert_eq!(bus.read32(offset::SCRATCH).unwrap(), 0xdead_beef);
        assert!(matches!(
            bus.read32(0x18),
            Err(BusError::Unmapped { offset: 0x18 })
        ));
        assert!(matches!(bus.read32(0x2), Err(BusError::Misaligned { .. })));
        assert!(matches!(
            bus.read32(CSR_WINDOW_BYTES),
            Err(BusError::OutOfWindow { .. })
        ));
        // Storage registers hold all 32 bits, as the CSR block does.
        bus.write32(offset::FEATURE_ENABLE, u32::MAX).unwrap();
        assert_eq!(bus.read32(offset::FEATURE_ENABLE).unwrap(), u32::MAX);
        assert_eq!(bus.write_log().len(), 3);
    }

    #[test]
    fn hw_04_mem_bus_clear_counters_pulse() {
        let mut bus = MemBus::new();
        bus.poke(offset::DC_RX_FRAMES, 7);
        bus.write32(offset::CONTROL, control::CLEAR_COUNTERS)
            .unwrap();
        assert_eq!(bus.read32(offset::DC_RX_FRAMES).unwrap(), 0);
        assert_eq!(bus.read32(offset::CONTROL).unwrap(), 0);
    }
}
