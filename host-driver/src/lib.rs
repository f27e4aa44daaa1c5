//! Host driver for the cngw gateway (HW-04).
//!
//! - [`bus`]: the [`RegisterBus`] trait (32-bit reads/writes by byte offset) and
//!   its typed errors.
//! - Backends: [`pci`] (a PCIe BAR mapped from sysfs, the CSR window at a chosen
//!   BAR and offset: [`PciTarget`]), [`sim`] (the cycle-accurate
//!   simulator, feature `sim`), [`mem`] (an in-memory fake for tests).
//! - [`device`]: the typed API over any bus; [`thresholds`]: LH-03 K_min/K_max;
//!   [`flows`]: the flow table (look-up, static entries, delete, iteration);
//!   [`longhaul`]: the Long-haul CNP second level and the gateway's addresses;
//!   [`formats`]: the Long-haul CNP format table (LH-15);
//!   [`extension`]: the Long-haul CNP's extension objects and time of day;
//!   [`meter`]: the queue meter (LH-02) and the EMR/QGR triggers;
//!   [`adjust`]: dynamic adjustment of the thresholds from the gauges (LH-11);
//!   [`shaper`]: the ingress PE's per-flow shaper and the flows it shapes (PE-05);
//!   [`rate_advice`]: SCONE Rate Advice's law settings, prefix entries, peer
//!   gateways and counters (RA-01..RA-04);
//!   [`config`]: TOML settings validated into a write plan; [`units`]:
//!   parsing of rates, durations and byte sizes.
// `is_multiple_of` needs Rust 1.87; the workspace supports 1.80.
#![allow(clippy::manual_is_multiple_of)]

pub mod adjust;
pub mod bus;
pub mod config;
pub mod device;
pub mod extension;
pub mod flows;
pub mod formats;
pub mod longhaul;
pub mod mem;
pub mod meter;
pub mod pci;
pub mod proxy_table;
pub mod rate_advice;
pub mod shaper;
#[cfg(feature = "sim")]
pub mod sim;
pub mod thresholds;
pub mod units;

pub use adjust::{AdjustError, AdjustParams, AdjustSettings, AdjustState};
pub use bus::{BusError, RegisterBus};
pub use config::{apply, apply_config, Config, ConfigError, Plan};
pub use device::{Capabilities, Device, DeviceError, Version};
pub use extension::{ExtensionError, ExtensionObjects};
pub use flows::{flow_key, FlowEntry, FlowError, FlowKey, FlowTable};
pub use formats::{FormatEntry, FormatError, FormatTable, NotifyFormat, Prefix};
pub use longhaul::{GatewayAddresses, SecondLevel, SecondLevelError};
pub use mem::MemBus;
pub use pci::{Bdf, CsrWindow, PciBus, PciOpenError, PciSpecError, PciTarget};
pub use proxy_table::{ProxyRoute, ProxyTableError};
pub use rate_advice::{
    RateAdviceCounters, RateAdviceLaw, RateAdviceState, RatePeer, RatePeerState,
};
pub use shaper::{label_location, ShaperCounters, ShaperSlot, ShaperState};
#[cfg(feature = "sim")]
pub use sim::SimBus;
pub use thresholds::{compute_thresholds, KMin, ThresholdError, ThresholdInput, Thresholds};
pub use units::{parse_bytes, parse_duration, parse_rate, UnitError};
