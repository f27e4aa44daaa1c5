//! `PrefixMatch`: is an address inside one of the two domain prefixes
//! (`FCN_RX_DOMn`, PX-04)?
//!
//! ```text
//!  addr (lane order) --+--[ (addr ^ dom0_prefix) & first dom0_len bits == 0 ]--+--> in_domain
//!                      +--[ (addr ^ dom1_prefix) & first dom1_len bits == 0 ]--+
//! ```
//! Addresses and prefixes are 128-bit, lane order (byte 0 in bits 7..0;
//! IPv4 as `::ffff:a.b.c.d`); the first `len` bits are counted in network
//! order, so address bit n (from the most significant) is lane bit n ^ 7.
//! A prefix counts while its `valid` is set; a length above 128 acts as
//! 128. Combinational. The reference is `cngw_model::fcn_rx::in_domain`.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PrefixMatch {
    pub addr: Signal<In, Bits<128>>,
    pub dom0_prefix: Signal<In, Bits<128>>,
    pub dom0_len: Signal<In, Bits<8>>,
    pub dom0_valid: Signal<In, Bit>,
    pub dom1_prefix: Signal<In, Bits<128>>,
    pub dom1_len: Signal<In, Bits<8>>,
    pub dom1_valid: Signal<In, Bit>,
    pub in_domain: Signal<Out, Bit>,
    all_ones: Constant<Bits<128>>,
    therm0: Signal<Local, Bits<128>>,
    therm1: Signal<Local, Bits<128>>,
    miss0: Signal<Local, Bit>,
    miss1: Signal<Local, Bit>,
}

impl Default for PrefixMatch {
    fn default() -> Self {
        Self {
            addr: Default::default(),
            dom0_prefix: Default::default(),
            dom0_len: Default::default(),
            dom0_valid: Default::default(),
            dom1_prefix: Default::default(),
            dom1_len: Default::default(),
            dom1_valid: Default::default(),
            in_domain: Default::default(),
            all_ones: Constant::new(!Bits::<128>::default()),
            therm0: Default::default(),
            therm1: Default::default(),
            miss0: Default::default(),
            miss1: Default::default(),
        }
    }
}

impl Logic for PrefixMatch {
    #[hdl_gen]
    fn update(&mut self) {
        self.therm0.next = !(self.all_ones.val() << self.dom0_len.val());
        self.therm1.next = !(self.all_ones.val() << self.dom1_len.val());
        if self.dom0_len.val() > 128 {
            self.therm0.next = self.all_ones.val();
        }
        if self.dom1_len.val() > 128 {
            self.therm1.next = self.all_ones.val();
        }
        self.miss0.next = false;
        self.miss1.next = false;
        for i in 0..128 {
            self.miss0.next = self.miss0.val()
                | ((self.addr.val().get_bit(i) ^ self.dom0_prefix.val().get_bit(i))
                    & self.therm0.val().get_bit(i ^ 7));
            self.miss1.next = self.miss1.val()
                | ((self.addr.val().get_bit(i) ^ self.dom1_prefix.val().get_bit(i))
                    & self.therm1.val().get_bit(i ^ 7));
        }
        self.in_domain.next = (self.dom0_valid.val() & !self.miss0.val())
            | (self.dom1_valid.val() & !self.miss1.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_prefix_match_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<PrefixMatch>("prefix_match");
    }
}
