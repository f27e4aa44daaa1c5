//! `QueueMeter`: the WAN egress queue meter of one port (LH-02) besides the
//! external telemetry input: an internal virtual egress queue, the average
//! queue and the ECN marking rate (EMR) with its V_ecn comparator (LH-05).
//!
//! ```text
//!  tx_beat/last/keep --> [bytes per beat] --> [frame bytes] --> virtual queue --> vq_depth
//!  drain_q16 -------------------------------------------------------^
//!  qd, us_tick, avg_shift ----------------------------------------> average ----> avg
//!  ect, ce, us_tick, window_us --> counts --> [17-step divider] --> emr_q16, emr_high (> v_ecn)
//! ```
//!
//! - **Virtual queue** (docs/decisions.md, "Queue meter"): what a FIFO in
//!   front of a link of the configured rate would hold. Every frame that
//!   leaves on wan_tx adds its length (the sum of its `tkeep` bits) two
//!   clocks after its last beat; the queue drains `drain_q16 / 65536` bytes
//!   every clock, never below zero. The depth is kept in 32.16 fixed point
//!   (saturating) and `vq_depth` shows its integer part: a frame whose last
//!   beat leaves in clock `t` is in `vq_depth` from clock `t + 3`
//!   (`cngw_model::meter::VQ_ARRIVAL_DELAY`). Frames are not held: the real
//!   queue is in the WAN router; this one runs slightly slower so the
//!   gateway sees congestion before the router's buffer fills.
//! - **Average**: in every clock of `us_tick`, `avg += (qd - avg) / 2^n`
//!   in 32.16 fixed point (`n = avg_shift`, at most 31; truncating), where
//!   `qd` is the depth the gateway acts on.
//! - **EMR**: the ECN-capable frames toward the WAN (`ect`) and those that
//!   leave CE (`ce`) are counted over windows of `window_us` microseconds
//!   (the window ends in the `us_tick` clock that completes it; its pulses
//!   count in it). At a window's end a serial divider computes
//!   `floor(ce * 65536 / ect)` (0 without ECN-capable frames) in 17 clocks;
//!   `emr_q16` and `emr_high = emr_q16 > v_ecn` change 18 clocks after the
//!   window's last clock (`cngw_model::meter::EMR_DELAY`) and hold until
//!   the next window's result. The counts stop (both) once 2^24 - 1
//!   ECN-capable frames were counted in a window.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct QueueMeter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A beat left on wan_tx (valid and ready).
    pub tx_beat: Signal<In, Bit>,
    pub tx_last: Signal<In, Bit>,
    pub tx_keep: Signal<In, Bits<64>>,
    /// Bytes the virtual queue drains per clock, 16.16 fixed point.
    pub drain_q16: Signal<In, Bits<32>>,
    /// The last clock of every microsecond.
    pub us_tick: Signal<In, Bit>,
    /// The queue depth the gateway acts on, in bytes (for the average).
    pub qd: Signal<In, Bits<32>>,
    pub avg_shift: Signal<In, Bits<32>>,
    pub window_us: Signal<In, Bits<32>>,
    pub v_ecn: Signal<In, Bits<32>>,
    /// An ECN-capable frame toward the WAN passed the CE marker ...
    pub ect: Signal<In, Bit>,
    /// ... and left CE.
    pub ce: Signal<In, Bit>,
    pub vq_depth: Signal<Out, Bits<32>>,
    pub avg: Signal<Out, Bits<32>>,
    pub emr_q16: Signal<Out, Bits<32>>,
    pub emr_high: Signal<Out, Bit>,
    // Virtual queue.
    beat_valid: DFF<Bit>,
    beat_last: DFF<Bit>,
    beat_bytes: DFF<Bits<7>>,
    frame_bytes: DFF<Bits<17>>,
    arr_valid: DFF<Bit>,
    arr_bytes: DFF<Bits<17>>,
    vq: DFF<Bits<48>>,
    keep_count: Signal<Local, Bits<7>>,
    frame_sum: Signal<Local, Bits<18>>,
    drained: Signal<Local, Bits<48>>,
    filled: Signal<Local, Bits<49>>,
    // Average.
    avg_q: DFF<Bits<48>>,
    qd_q: Signal<Local, Bits<48>>,
    shift: Signal<Local, Bits<5>>,
    // EMR.
    emr_us: DFF<Bits<32>>,
    ect_count: DFF<Bits<24>>,
    ce_count: DFF<Bits<24>>,
    ect_sum: Signal<Local, Bits<24>>,
    ce_sum: Signal<Local, Bits<24>>,
    window_end: Signal<Local, Bit>,
    div_busy: DFF<Bit>,
    div_step: DFF<Bits<5>>,
    div_r: DFF<Bits<26>>,
    div_d: DFF<Bits<26>>,
    div_q: DFF<Bits<17>>,
    div_ge: Signal<Local, Bit>,
    div_next_q: Signal<Local, Bits<17>>,
    div_rest: Signal<Local, Bits<26>>,
    emr: DFF<Bits<32>>,
    high: DFF<Bit>,
}

impl Logic for QueueMeter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat_valid,
            beat_last,
            beat_bytes,
            frame_bytes,
            arr_valid,
            arr_bytes,
            vq,
            avg_q,
            emr_us,
            ect_count,
            ce_count,
            div_busy,
            div_step,
            div_r,
            div_d,
            div_q,
            emr,
            high
        );

        // Bytes of each beat on wan_tx (registered), then of each frame.
        self.keep_count.next = 0.into();
        if self.tx_beat.val() {
            for i in 0..64 {
                if self.tx_keep.val().get_bit(i) {
                    self.keep_count.next = self.keep_count.val() + 1;
                }
            }
        }
        self.beat_valid.d.next = self.tx_beat.val();
        self.beat_last.d.next = self.tx_last.val();
        self.beat_bytes.d.next = self.keep_count.val();
        self.frame_sum.next = bit_cast::<18, 17>(self.frame_bytes.q.val())
            + bit_cast::<18, 7>(self.beat_bytes.q.val());
        if self.frame_sum.val().get_bit(17) {
            self.frame_sum.next = 0x1_FFFF.into();
        }
        self.arr_valid.d.next = false;
        if self.beat_valid.q.val() {
            self.frame_bytes.d.next = bit_cast::<17, 18>(self.frame_sum.val());
            if self.beat_last.q.val() {
                self.frame_bytes.d.next = 0.into();
                self.arr_valid.d.next = true;
                self.arr_bytes.d.next = bit_cast::<17, 18>(self.frame_sum.val());
            }
        }

        // Virtual queue: drain, then add the frame that arrived.
        self.drained.next = 0.into();
        if self.vq.q.val() > bit_cast::<48, 32>(self.drain_q16.val()) {
            self.drained.next = self.vq.q.val() - bit_cast::<48, 32>(self.drain_q16.val());
        }
        self.filled.next = bit_cast::<49, 48>(self.drained.val());
        if self.arr_valid.q.val() {
            self.filled.next = bit_cast::<49, 48>(self.drained.val())
                + (bit_cast::<49, 17>(self.arr_bytes.q.val()) << 16);
        }
        self.vq.d.next = bit_cast::<48, 49>(self.filled.val());
        if self.filled.val().get_bit(48) {
            self.vq.d.next = 0xFFFF_FFFF_FFFF_u64.into();
        }
        self.vq_depth.next = self.vq.q.val().get_bits::<32>(16);

        // Average queue, once per microsecond.
        self.shift.next = self.avg_shift.val().get_bits::<5>(0);
        if self.avg_shift.val() > 31 {
            self.shift.next = 31.into();
        }
        self.qd_q.next = bit_cast::<48, 32>(self.qd.val()) << 16;
        if self.us_tick.val() {
            if self.qd_q.val() >= self.avg_q.q.val() {
                self.avg_q.d.next = self.avg_q.q.val()
                    + ((self.qd_q.val() - self.avg_q.q.val()) >> self.shift.val());
            } else {
                self.avg_q.d.next = self.avg_q.q.val()
                    - ((self.avg_q.q.val() - self.qd_q.val()) >> self.shift.val());
            }
        }
        self.avg.next = self.avg_q.q.val().get_bits::<32>(16);

        // ECN marking rate over windows of window_us microseconds.
        self.ect_sum.next = self.ect_count.q.val();
        self.ce_sum.next = self.ce_count.q.val();
        if self.ect_count.q.val() != 0xFF_FFFF {
            if self.ect.val() {
                self.ect_sum.next = self.ect_count.q.val() + 1;
            }
            if self.ce.val() {
                self.ce_sum.next = self.ce_count.q.val() + 1;
            }
        }
        self.window_end.next =
            self.us_tick.val() & (self.emr_us.q.val() + 1 >= self.window_us.val());
        if self.us_tick.val() {
            self.emr_us.d.next = self.emr_us.q.val() + 1;
        }
        self.ect_count.d.next = self.ect_sum.val();
        self.ce_count.d.next = self.ce_sum.val();
        // Restoring division: quotient bit 16 first.
        self.div_ge.next = self.div_r.q.val() >= self.div_d.q.val();
        self.div_next_q.next = self.div_q.q.val() << 1;
        self.div_rest.next = self.div_r.q.val();
        if self.div_ge.val() {
            self.div_next_q.next = (self.div_q.q.val() << 1) | 1;
            self.div_rest.next = self.div_r.q.val() - self.div_d.q.val();
        }
        if self.div_busy.q.val() {
            self.div_q.d.next = self.div_next_q.val();
            self.div_r.d.next = self.div_rest.val() << 1;
            self.div_step.d.next = self.div_step.q.val() + 1;
            if self.div_step.q.val() == 16 {
                self.div_busy.d.next = false;
                self.emr.d.next = bit_cast::<32, 17>(self.div_next_q.val());
                if !self.div_d.q.val().any() {
                    self.emr.d.next = 0.into();
                }
                self.high.d.next = (bit_cast::<32, 17>(self.div_next_q.val()) > self.v_ecn.val())
                    & self.div_d.q.val().any();
            }
        }
        if self.window_end.val() {
            self.emr_us.d.next = 0.into();
            self.ect_count.d.next = 0.into();
            self.ce_count.d.next = 0.into();
            self.div_busy.d.next = true;
            self.div_step.d.next = 0.into();
            self.div_q.d.next = 0.into();
            self.div_r.d.next = bit_cast::<26, 24>(self.ce_sum.val());
            self.div_d.d.next = bit_cast::<26, 24>(self.ect_sum.val());
        }
        self.emr_q16.next = self.emr.q.val();
        self.emr_high.next = self.high.q.val();

        if self.reset.val() {
            self.beat_valid.d.next = false;
            self.frame_bytes.d.next = 0.into();
            self.arr_valid.d.next = false;
            self.vq.d.next = 0.into();
            self.avg_q.d.next = 0.into();
            self.emr_us.d.next = 0.into();
            self.ect_count.d.next = 0.into();
            self.ce_count.d.next = 0.into();
            self.div_busy.d.next = false;
            self.emr.d.next = 0.into();
            self.high.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_02_queue_meter_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<QueueMeter>("queue_meter");
    }
}
