//! `CsrBlock`: the AXI4-Lite register file behind PCIe BAR0, built from
//! `cngw_regmap::REGISTERS` (the one definition of the register map).
//!
//! ```text
//!               +-----------------+
//!  s_axil.aw* ->|                 |-> values[i]   (read-write storage, write pulses)
//!  s_axil.w*  ->|  decode by the  |
//!  s_axil.b*  <-|  register map   |<- status[i]   (counters and other RO values)
//!  s_axil.ar* ->|                 |
//!  s_axil.r*  <-|                 |
//!               +-----------------+
//! ```
//! `values` and `status` are indexed like `REGISTERS`. A write needs both
//! address and data (the slave accepts them together); it answers OKAY on a
//! writable register, SLVERR on a read-only one (nothing changes), DECERR on
//! an unmapped or misaligned address. Reads answer DECERR on unmapped
//! addresses. Write-pulse registers read as 0 and drive their `values` entry
//! with the written bits for exactly one clock. A synchronous `reset`
//! restores every reset value.
//!
//! Timing: the slave registers an accepted address (and write data) first
//! and decodes it in the next clock, so no AXI input reaches the
//! register-map decode combinationally (365 comparators: a long path in the
//! FPGA and, in Verilator, logic evaluated on every input change). A write
//! takes effect in the clock its response is raised; a write or read takes
//! three clocks when the master is ready for the response (accept, decode,
//! respond).

use super::axil::AxiLiteSlave;
use cngw_regmap::{Access, REGISTERS};
use rust_hdl::prelude::*;

/// AXI4-Lite response codes.
pub const RESP_OKAY: u64 = 0;
pub const RESP_SLVERR: u64 = 2;
pub const RESP_DECERR: u64 = 3;

#[derive(LogicBlock)]
pub struct CsrBlock {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// AXI4-Lite from PCIe BAR0.
    pub s_axil: AxiLiteSlave,
    /// Current value of every register (storage or one-cycle pulse).
    pub values: Vec<Signal<Out, Bits<32>>>,
    /// Hardware-driven values of volatile read-only registers.
    pub status: Vec<Signal<In, Bits<32>>>,
    // Register map constants, one entry per register.
    offsets: Vec<Constant<Bits<12>>>,
    reset_values: Vec<Constant<Bits<32>>>,
    is_storage: Vec<Constant<Bit>>,
    is_pulse: Vec<Constant<Bit>>,
    is_status: Vec<Constant<Bit>>,
    storage: Vec<DFFWithInit<Bits<32>>>,
    // Response channel state.
    bvalid: DFF<Bit>,
    bresp: DFF<Bits<2>>,
    rvalid: DFF<Bit>,
    rresp: DFF<Bits<2>>,
    rdata: DFF<Bits<32>>,
    // An accepted write or read waiting for its decode.
    w_pending: DFF<Bit>,
    w_addr: DFF<Bits<12>>,
    w_data: DFF<Bits<32>>,
    w_mask: DFF<Bits<32>>,
    r_pending: DFF<Bit>,
    r_addr: DFF<Bits<12>>,
    // Combinational.
    write_go: Signal<Local, Bit>,
    read_go: Signal<Local, Bit>,
    write_mask: Signal<Local, Bits<32>>,
    mask_byte0: Signal<Local, Bits<32>>,
    mask_byte1: Signal<Local, Bits<32>>,
    mask_byte2: Signal<Local, Bits<32>>,
    mask_byte3: Signal<Local, Bits<32>>,
    write_hit: Signal<Local, Bit>,
    write_hit_writable: Signal<Local, Bit>,
    read_hit: Signal<Local, Bit>,
    read_value: Signal<Local, Bits<32>>,
}

impl Default for CsrBlock {
    fn default() -> Self {
        let n = REGISTERS.len();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            values: (0..n).map(|_| Signal::default()).collect(),
            status: (0..n).map(|_| Signal::default()).collect(),
            offsets: REGISTERS
                .iter()
                .map(|r| Constant::new((r.offset as u64).to_bits()))
                .collect(),
            reset_values: REGISTERS
                .iter()
                .map(|r| Constant::new((r.reset as u64).to_bits()))
                .collect(),
            is_storage: REGISTERS
                .iter()
                .map(|r| Constant::new(r.access == Access::ReadWrite))
                .collect(),
            is_pulse: REGISTERS
                .iter()
                .map(|r| Constant::new(r.access == Access::WritePulse))
                .collect(),
            is_status: REGISTERS
                .iter()
                .map(|r| Constant::new(r.access == Access::ReadOnly && r.volatile))
                .collect(),
            storage: REGISTERS
                .iter()
                .map(|r| {
                    let init = if r.access == Access::ReadWrite {
                        r.reset
                    } else {
                        0
                    };
                    DFFWithInit::new((init as u64).to_bits())
                })
                .collect(),
            bvalid: Default::default(),
            bresp: Default::default(),
            rvalid: Default::default(),
            rresp: Default::default(),
            rdata: Default::default(),
            w_pending: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            w_mask: Default::default(),
            r_pending: Default::default(),
            r_addr: Default::default(),
            write_go: Default::default(),
            read_go: Default::default(),
            write_mask: Default::default(),
            mask_byte0: Default::default(),
            mask_byte1: Default::default(),
            mask_byte2: Default::default(),
            mask_byte3: Default::default(),
            write_hit: Default::default(),
            write_hit_writable: Default::default(),
            read_hit: Default::default(),
            read_value: Default::default(),
        }
    }
}

impl Logic for CsrBlock {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, bvalid, bresp, rvalid, rresp, rdata, w_pending, w_addr, w_data, w_mask,
            r_pending, r_addr
        );
        for i in 0..REGISTERS.len() {
            self.storage[i].clock.next = self.clock.val();
            self.storage[i].d.next = self.storage[i].q.val();
            if self.is_pulse[i].val() {
                self.storage[i].d.next = 0.into();
            }
            self.values[i].next = self.storage[i].q.val();
        }
        self.s_axil.bvalid.next = self.bvalid.q.val();
        self.s_axil.bresp.next = self.bresp.q.val();
        self.s_axil.rvalid.next = self.rvalid.q.val();
        self.s_axil.rresp.next = self.rresp.q.val();
        self.s_axil.rdata.next = self.rdata.q.val();

        // Write channel: address and data are taken together, one at a time,
        // registered, and decoded in the next clock.
        self.write_go.next = self.s_axil.awvalid.val()
            & self.s_axil.wvalid.val()
            & !self.bvalid.q.val()
            & !self.w_pending.q.val();
        self.s_axil.awready.next = self.write_go.val();
        self.s_axil.wready.next = self.write_go.val();
        self.mask_byte0.next = 0.into();
        self.mask_byte1.next = 0.into();
        self.mask_byte2.next = 0.into();
        self.mask_byte3.next = 0.into();
        if self.s_axil.wstrb.val().get_bit(0) {
            self.mask_byte0.next = bits::<32>(0x0000_00ffu64);
        }
        if self.s_axil.wstrb.val().get_bit(1) {
            self.mask_byte1.next = bits::<32>(0x0000_ff00u64);
        }
        if self.s_axil.wstrb.val().get_bit(2) {
            self.mask_byte2.next = bits::<32>(0x00ff_0000u64);
        }
        if self.s_axil.wstrb.val().get_bit(3) {
            self.mask_byte3.next = bits::<32>(0xff00_0000u64);
        }
        self.write_mask.next = self.mask_byte0.val()
            | self.mask_byte1.val()
            | self.mask_byte2.val()
            | self.mask_byte3.val();
        self.w_pending.d.next = self.write_go.val();
        if self.write_go.val() {
            self.w_addr.d.next = self.s_axil.awaddr.val();
            self.w_data.d.next = self.s_axil.wdata.val();
            self.w_mask.d.next = self.write_mask.val();
        }
        self.write_hit.next = false;
        self.write_hit_writable.next = false;
        // The decode runs only for a pending write (in Verilator, the body of
        // a false `if` is skipped: the register map costs nothing on idle
        // clocks).
        if self.w_pending.q.val() {
            for i in 0..REGISTERS.len() {
                if self.w_addr.q.val() == self.offsets[i].val() {
                    self.write_hit.next = true;
                    if self.is_storage[i].val() | self.is_pulse[i].val() {
                        self.write_hit_writable.next = true;
                        self.storage[i].d.next = (self.storage[i].q.val() & !self.w_mask.q.val())
                            | (self.w_data.q.val() & self.w_mask.q.val());
                        if self.is_pulse[i].val() {
                            self.storage[i].d.next = self.w_data.q.val() & self.w_mask.q.val();
                        }
                    }
                }
            }
        }
        if self.w_pending.q.val() {
            self.bvalid.d.next = true;
            if self.write_hit_writable.val() {
                self.bresp.d.next = 0.into();
            } else if self.write_hit.val() {
                self.bresp.d.next = 2.into();
            } else {
                self.bresp.d.next = 3.into();
            }
        } else if self.bvalid.q.val() & self.s_axil.bready.val() {
            self.bvalid.d.next = false;
        }

        // Read channel: the address is registered and decoded in the next
        // clock.
        self.read_go.next =
            self.s_axil.arvalid.val() & !self.rvalid.q.val() & !self.r_pending.q.val();
        self.s_axil.arready.next = self.read_go.val();
        self.r_pending.d.next = self.read_go.val();
        if self.read_go.val() {
            self.r_addr.d.next = self.s_axil.araddr.val();
        }
        self.read_hit.next = false;
        self.read_value.next = 0.into();
        if self.r_pending.q.val() {
            for i in 0..REGISTERS.len() {
                if self.r_addr.q.val() == self.offsets[i].val() {
                    self.read_hit.next = true;
                    if self.is_storage[i].val() {
                        self.read_value.next = self.storage[i].q.val();
                    } else if self.is_status[i].val() {
                        self.read_value.next = self.status[i].val();
                    } else if self.is_pulse[i].val() {
                        self.read_value.next = 0.into();
                    } else {
                        self.read_value.next = self.reset_values[i].val();
                    }
                }
            }
        }
        if self.r_pending.q.val() {
            self.rvalid.d.next = true;
            self.rdata.d.next = self.read_value.val();
            if self.read_hit.val() {
                self.rresp.d.next = 0.into();
            } else {
                self.rresp.d.next = 3.into();
            }
        } else if self.rvalid.q.val() & self.s_axil.rready.val() {
            self.rvalid.d.next = false;
        }

        if self.reset.val() {
            self.bvalid.d.next = false;
            self.rvalid.d.next = false;
            self.w_pending.d.next = false;
            self.r_pending.d.next = false;
            for i in 0..REGISTERS.len() {
                self.storage[i].d.next = self.reset_values[i].val();
                if !self.is_storage[i].val() {
                    self.storage[i].d.next = 0.into();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_csr_block_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<CsrBlock>("csr_block");
    }
}
