//! Simulator backend: the register bus of the cycle-accurate gateway model (HW-04).
//!
//! [`SimBus`] drives the AXI4-Lite CSR slave of a [`cngw_sim::Gateway`]. It owns
//! the gateway or borrows it (`SimBus<&mut Gateway>`), so a caller can configure
//! a gateway through [`crate::Device`] and then stream traffic through the same
//! instance:
//!
//! ```
//! use cngw_driver::{config, Device, SimBus};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let config = config::Config::parse("[registers]\nSCRATCH = 0x1234")?;
//! let mut gateway = cngw_sim::Gateway::new();
//! {
//!     let mut device = Device::open(SimBus::new(&mut gateway))?;
//!     config::apply_config(&mut device, &config)?;
//! }
//! gateway.run(10); // stream traffic through the configured model
//! # Ok(())
//! # }
//! ```

use crate::bus::{check_access, BusError, RegisterBus};
use cngw_regmap::CSR_WINDOW_BYTES;
use cngw_sim::{CsrError, Gateway};
use std::borrow::BorrowMut;

/// A [`RegisterBus`] over a simulated gateway, owned (`SimBus<Gateway>`) or
/// borrowed (`SimBus<&mut Gateway>`).
pub struct SimBus<G: BorrowMut<Gateway> = Gateway> {
    gateway: G,
}

impl SimBus<Gateway> {
    /// A bus over a fresh gateway out of reset.
    pub fn with_new_gateway() -> SimBus<Gateway> {
        SimBus::new(Gateway::new())
    }
}

impl<G: BorrowMut<Gateway>> SimBus<G> {
    pub fn new(gateway: G) -> SimBus<G> {
        SimBus { gateway }
    }

    pub fn gateway(&self) -> &Gateway {
        self.gateway.borrow()
    }

    pub fn gateway_mut(&mut self) -> &mut Gateway {
        self.gateway.borrow_mut()
    }

    pub fn into_inner(self) -> G {
        self.gateway
    }
}

/// The bus error an AXI4-Lite response of the simulated CSR slave stands for.
pub fn bus_error(error: CsrError) -> BusError {
    match error {
        CsrError::SlaveError { offset } => BusError::SlaveError { offset },
        CsrError::DecodeError { offset } => BusError::Unmapped { offset },
        CsrError::Timeout { offset } => BusError::Timeout { offset },
    }
}

impl<G: BorrowMut<Gateway>> RegisterBus for SimBus<G> {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        // The slave decodes only the low address bits: refuse what would alias.
        check_access(offset, u64::from(CSR_WINDOW_BYTES))?;
        self.gateway
            .borrow_mut()
            .csr_read(offset)
            .map_err(bus_error)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        check_access(offset, u64::from(CSR_WINDOW_BYTES))?;
        self.gateway
            .borrow_mut()
            .csr_write(offset, value)
            .map_err(bus_error)
    }
}
