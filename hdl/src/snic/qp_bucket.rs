//! `QpBucket`: one QP's token bucket of the source-side SmartNIC's transmit
//! side (LH-16), in millibits (1 Mb/s is 1 millibit per nanosecond).
//!
//! ```text
//!  rate, ns --> [ + rate * ns every clock, at most full ] --> level
//!  take, need -> [ - need (the frame that leaves this clock) ]
//! ```
//! After each clock, `level` has gained `rate * ns` (the rate of that
//! clock, after that clock's notifications and recovery step), lost `need`
//! if `take` was high, and is at most `full`. `reset` fills it.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct QpBucket {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Mb/s.
    pub rate: Signal<In, Bits<32>>,
    /// Nanoseconds per clock.
    pub ns: Signal<In, Bits<16>>,
    /// Depth, millibits.
    pub full: Signal<In, Bits<48>>,
    pub take: Signal<In, Bit>,
    pub need: Signal<In, Bits<48>>,
    pub level: Signal<Out, Bits<48>>,
    lvl: DFF<Bits<48>>,
    fill_hi: Signal<Local, Bits<32>>,
    fill_lo: Signal<Local, Bits<32>>,
    total: Signal<Local, Bits<52>>,
}

impl Logic for QpBucket {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lvl);
        self.fill_hi.next = self.rate.val().get_bits::<16>(16) * self.ns.val();
        self.fill_lo.next = self.rate.val().get_bits::<16>(0) * self.ns.val();
        self.total.next = (bit_cast::<52, 32>(self.fill_hi.val()) << 16)
            + bit_cast::<52, 32>(self.fill_lo.val())
            + bit_cast::<52, 48>(self.lvl.q.val());
        if self.take.val() {
            self.total.next = self.total.val() - bit_cast::<52, 48>(self.need.val());
        }
        self.lvl.d.next = self.total.val().get_bits::<48>(0);
        if self.total.val() > bit_cast::<52, 48>(self.full.val()) {
            self.lvl.d.next = self.full.val();
        }
        if self.reset.val() {
            self.lvl.d.next = self.full.val();
        }
        self.level.next = self.lvl.q.val();
    }
}
