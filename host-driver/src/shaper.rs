//! The ingress PE's per-flow shaper (PE-05): its configuration, the flows
//! it shapes now (its eight slots, read through the `PE_SHAPER_PROBE_*`
//! window) and its counters.
//!
//! A slot is read with three register reads after selecting it in
//! `PE_SHAPER_PROBE_SLOT`: each slot is a snapshot of a few clocks, the
//! eight slots are not one snapshot. The probe slot register is put back
//! as it was found.

use crate::device::{Device, DeviceError};
use crate::flows::Location;
use crate::RegisterBus;
use cngw_regmap::{by_name, pe_shaper, Register};

/// Slots (flows shaped at once).
pub const SLOTS: u32 = 8;

/// One shaped flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaperSlot {
    /// 0..7.
    pub slot: u32,
    /// The flow's label (its place in the flow table, [`label_location`]).
    pub label: u32,
    /// Bytes per microsecond.
    pub rate: u32,
    /// Bytes; negative while the flow is in deficit.
    pub tokens: i32,
    /// The flow takes the alternate SRv6 path.
    pub alt: bool,
    /// Its frames in the shaper.
    pub waiting: u32,
}

/// The shaper's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShaperCounters {
    pub shaped_frames: u32,
    pub notes_taken: u32,
    pub notes_dropped: u32,
    pub reroutes: u32,
    pub returns: u32,
}

/// What `PE_SHAPER_*` say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaperState {
    pub enabled: bool,
    pub alt_enabled: bool,
    pub alt_two_sids: bool,
    pub cut_shift: u32,
    /// Bytes per microsecond.
    pub max_rate: u32,
    pub min_rate: u32,
    pub recover_us: u32,
    pub recover_step: u32,
    pub burst: u32,
    pub alt_below: u32,
    pub alt_above: u32,
    /// The slots in use, by slot number.
    pub slots: Vec<ShaperSlot>,
    pub counters: ShaperCounters,
}

/// The flow-table place a flow label names (FCN-01: `1 + 4 * bucket +
/// way` below 16385, `16385 + slot` for the stash), `None` for 0 and
/// labels the gateway never gives.
pub fn label_location(label: u32) -> Option<Location> {
    match label {
        1..=16384 => Some(Location::Bucket {
            bucket: (label - 1) / 4,
            way: (label - 1) % 4,
        }),
        16385..=16392 => Some(Location::Stash {
            slot: label - 16385,
        }),
        _ => None,
    }
}

fn reg(name: &str) -> &'static Register {
    by_name(name).unwrap_or_else(|| panic!("register map has no {name}"))
}

impl<B: RegisterBus> Device<B> {
    /// The shaper's configuration, the flows it shapes and its counters.
    pub fn shaper(&mut self) -> Result<ShaperState, DeviceError> {
        let control = self.read(reg("PE_SHAPER_CONTROL"))?;
        let rate = self.read(reg("PE_SHAPER_RATE"))?;
        let recover = self.read(reg("PE_SHAPER_RECOVER"))?;
        let alt = self.read(reg("PE_SHAPER_ALT"))?;
        let burst = self.read(reg("PE_SHAPER_BURST"))?;
        let probe = reg("PE_SHAPER_PROBE_SLOT");
        let was = self.read(probe)?;
        let mut slots = Vec::new();
        for slot in 0..SLOTS {
            self.write(probe, slot)?;
            let state = self.read(reg("PE_SHAPER_PROBE_STATE"))?;
            if state & pe_shaper::PROBE_USED == 0 {
                continue;
            }
            slots.push(ShaperSlot {
                slot,
                label: self.read(reg("PE_SHAPER_PROBE_LABEL"))?,
                rate: state >> pe_shaper::PROBE_RATE_LSB,
                tokens: self.read(reg("PE_SHAPER_PROBE_TOKENS"))? as i32,
                alt: state & pe_shaper::PROBE_ALT != 0,
                waiting: (state >> pe_shaper::PROBE_WAITING_LSB) & 0x1FF,
            });
        }
        self.write(probe, was)?;
        let counters = ShaperCounters {
            shaped_frames: self.read(reg("PE_SHAPER_SHAPED_FRAMES"))?,
            notes_taken: self.read(reg("PE_SHAPER_NOTES_TAKEN"))?,
            notes_dropped: self.read(reg("PE_SHAPER_NOTES_DROPPED"))?,
            reroutes: self.read(reg("PE_SHAPER_REROUTES"))?,
            returns: self.read(reg("PE_SHAPER_RETURNS"))?,
        };
        Ok(ShaperState {
            enabled: control & pe_shaper::ENABLE != 0,
            alt_enabled: control & pe_shaper::ALT_ENABLE != 0,
            alt_two_sids: control & pe_shaper::ALT_TWO_SIDS != 0,
            cut_shift: (control >> pe_shaper::CUT_SHIFT_LSB) & 0xF,
            max_rate: rate & 0xFFFF,
            min_rate: rate >> 16,
            recover_us: recover & 0xFFFF,
            recover_step: recover >> 16,
            burst: burst & 0xFF_FFFF,
            alt_below: alt & 0xFFFF,
            alt_above: alt >> 16,
            slots,
            counters,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_05_labels_name_flow_table_places() {
        assert_eq!(label_location(0), None);
        assert_eq!(
            label_location(1),
            Some(Location::Bucket { bucket: 0, way: 0 })
        );
        assert_eq!(
            label_location(16384),
            Some(Location::Bucket {
                bucket: 4095,
                way: 3
            })
        );
        assert_eq!(label_location(16385), Some(Location::Stash { slot: 0 }));
        assert_eq!(label_location(16392), Some(Location::Stash { slot: 7 }));
        assert_eq!(label_location(16393), None);
    }
}
