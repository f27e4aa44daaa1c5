//! `TokenBucket`: the rate limit of every notification source (LH-08 for
//! Long-haul CNPs, FCN-06 for Fast CNPs sent and received).
//!
//! ```text
//!  refill_clocks, depth --->+--------------+---> tokens (0..=depth)
//!  take                 --->| tokens       |
//!  reset                --->| refill count |
//!                           +--------------+
//! ```
//! `depth` tokens (1..8) after reset; while the bucket is not full, one more
//! every `refill_clocks` clocks, counted from the clock after a token left
//! the full bucket (the counter rests while the bucket is full, so the
//! timing never depends on when the registers were written; 0 acts as 1).
//! `take` (only while `tokens` is not 0) removes one at the end of the
//! clock; a refill due in the same clock cancels it out. The reference is
//! `cngw_model::bucket::TokenBucket`.
//!
//! `refill_clocks - 1` is registered, so the refill test is one 32-bit
//! compare of two registers (the add and the compare in one clock held the
//! Fast CNP translator below 200 MHz on the ECP5); a new `refill_clocks`
//! counts from the clock after it is presented.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct TokenBucket {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub refill_clocks: Signal<In, Bits<32>>,
    pub depth: Signal<In, Bits<4>>,
    pub take: Signal<In, Bit>,
    pub tokens: Signal<Out, Bits<4>>,
    count: DFF<Bits<4>>,
    refill_count: DFF<Bits<32>>,
    /// `max(refill_clocks, 1) - 1`, one clock late.
    refill_last: DFF<Bits<32>>,
}

impl Logic for TokenBucket {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, refill_count, refill_last);
        self.refill_last.d.next = 0.into();
        if self.refill_clocks.val().any() {
            self.refill_last.d.next = self.refill_clocks.val() - 1;
        }
        self.tokens.next = self.count.q.val();
        self.refill_count.d.next = self.refill_count.q.val() + 1;
        if self.count.q.val() >= self.depth.val() {
            self.refill_count.d.next = 0.into();
            if self.take.val() {
                self.count.d.next = self.count.q.val() - 1;
            } else {
                self.count.d.next = self.depth.val();
            }
        } else if self.refill_count.q.val() >= self.refill_last.q.val() {
            self.refill_count.d.next = 0.into();
            if !self.take.val() {
                self.count.d.next = self.count.q.val() + 1;
            }
        } else if self.take.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
        if self.reset.val() {
            self.count.d.next = self.depth.val();
            self.refill_count.d.next = 0.into();
        }
    }
}
