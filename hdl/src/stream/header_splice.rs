//! `HeaderSplice`: removes bytes from the front of each frame of the
//! 512-bit AXI4-Stream and puts a header of the caller's in their place, at
//! line rate: tunnel encapsulation at the ingress PE (prepend an outer
//! Ethernet + IPv6 + UDP + VXLAN header, or replace the Ethernet header by
//! Ethernet + IPv6 + SRH) and decapsulation at the egress PE (remove the
//! outer headers).
//!
//! ```text
//!                   +----------------------------------------------------+
//!  s.tdata    ----->| cur: the beat   realigner: {0, cur} << 8*shift     |
//!  s.tkeep    ----->| taken (first    (1024 bits), low half | residual   |
//!  s.tlast    ----->| beat + command  = out beat k, high half = next     |
//!  s.tuser    ----->| together)       residual; header bytes of beat k   |--> SkidBuffer --> m
//!  s.tvalid   ----->|                 over the lanes below the header    |
//!  s.tready   <-----|                 length                             |
//!  cmd_valid  ----->| frame: header (masked to its length), length,      |
//!  cmd_ready  <-----|   shift, beat offset                               |--> empty_dropped
//!  cmd_header ----->|                                                    |
//!  cmd_header_len ->|                                                    |
//!  cmd_drop   ----->|                                                    |
//!                   +----------------------------------------------------+
//! ```
//! Output frame = `cmd_header[0..len]` followed by `input[drop..]`, where
//! byte `i` of `cmd_header` is bits `8i+7..8i` (lane order, as `tdata`),
//! `len = min(cmd_header_len, 128)` and `drop = min(cmd_drop, 128)`: a
//! length or drop above 128 counts as 128. The `tuser` (error flag) of the
//! input's last beat leaves on the output's last beat (a frame that sends
//! nothing drops it); `tuser` of other input beats is ignored and every
//! other output beat has `tuser` low.
//! Output frames are packed like the input's (only the last beat partial,
//! `tkeep` contiguous from lane 0); data lanes outside `tkeep` are
//! unspecified. A frame of no more than `drop` bytes gives the header alone;
//! with `len` 0 as well it gives nothing, and `empty_dropped` is high for
//! one clock instead (at the earliest two clocks after its last beat is
//! taken; beats of earlier frames may still be in the output register).
//!
//! Command and frame pairing: the command of a frame transfers in the same
//! clock as the frame's first beat. While the block waits for a first beat,
//! `s.tready` is high only if `cmd_valid` is, and `cmd_ready` only if
//! `s.tvalid` is, so `cmd_valid & cmd_ready` happens exactly when the first
//! beat is taken; the first beat waits for its command and the command for
//! its first beat, in either order (neither valid may wait for a ready).
//! Later beats of the frame do not look at `cmd_valid`. A pipeline that
//! computes the command from a parsed header arriving with the first beat,
//! or a fixed number of clocks before it, holds the command valid until
//! `cmd_ready`; one whose parser answers after the first beat delays the
//! stream accordingly.
//!
//! How it works: with `delta = len - drop = 64 q + shift` (`shift` 0..63,
//! `q` -2..2), input byte `j` goes to output position `j + delta`, so input
//! beat `b` lands shifted up by `shift` lanes in output beats `b + q` and
//! `b + q + 1`; the input bytes removed are exactly those that land below
//! position `len`, where the header goes. Each input beat taken from `cur`
//! is shifted once (a 1024-bit barrel shifter): its low half completes
//! output beat `b + q` (with the residual of the beat before and the
//! header lanes), its high half becomes the residual, already merged with
//! the header lanes of beat `b + q + 1`. Before the first input beat, `q`
//! beats of header alone leave (`q` > 0); an input beat with `b + q` < 0
//! leaves nothing (`q` < 0); after the last input beat the residual leaves
//! as a beat of its own if it holds bytes (the "flush" beat). When a
//! frame's input beats end before they reach the header's beats (a frame
//! of no more than `drop` bytes), the rest of the header goes out from the
//! header register after the last input beat.
//!
//! Latency two clocks: a beat taken at clock t is in `cur` at t+1, where
//! the realigner sends its output beat into the output `SkidBuffer`, which
//! presents it on `m` at t+2; the first output beat of a frame (header or
//! not) leaves at t+2 after its first beat (and command) are taken, when
//! nothing of the frame before is still waiting.
//!
//! Throughput: one output beat per clock while there is data and
//! `m.tready` is high; one input beat per clock unless an output beat with
//! no input beat of its own has to leave. A frame costs one clock per
//! header-only beat (`q` of them, `q` > 0), one per input beat and one per
//! flush beat; a flush beat shares its clock with the next frame's first
//! input beat when that beat leaves nothing (`drop > len`). So, back to
//! back without backpressure:
//! - encapsulation (`len >= drop`): clocks = output beats + 2, no bubble
//!   between frames; `s.tready` is low only in the clocks that make a
//!   header-only or flush beat, the (output beats - input beats) beats the
//!   header adds;
//! - decapsulation (`len < drop`): `s.tready` never drops, clocks = input
//!   beats + 2, plus one if the last frame ends with a flush beat.
//!
//! A frame of no more than `drop` bytes (a runt for the tunnel) whose last
//! input beat comes before the output beat holding the header's first
//! byte, or its 65th with a header above 64 bytes, sends its header after
//! that beat from the header register: one or two beats, during which the
//! input is held.
//!
//! `s.tready` and `cmd_ready` come from registers of the block and the
//! output skid buffer, `cmd_valid` and `s.tvalid`: never from `m.tready`.
//! `reset` (synchronous) drops the beats held and the frame in progress.
//! Cost: about 3.2k flip-flops (header 1024, `cur` 512, residual 512,
//! skid buffer 2 x 512) and one byte-granular 1024-bit shifter (six
//! levels of 2:1 multiplexers) between `cur` and the skid buffer.
//!
//! Issue 5: the encapsulation and decapsulation data paths of the ingress
//! and egress PE (FCN-02, PE-02).

use super::{AxisSink, AxisSource, SkidBuffer};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct HeaderSplice {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Input frames.
    pub s: AxisSink,
    /// Output frames.
    pub m: AxisSource,
    /// The command of the frame whose first beat is offered (see above).
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    /// Header bytes, lane order (byte `i` at bits `8i+7..8i`); bytes at
    /// and above `cmd_header_len` are ignored.
    pub cmd_header: Signal<In, Bits<1024>>,
    /// Header length in bytes, 0..128 (above 128: 128).
    pub cmd_header_len: Signal<In, Bits<8>>,
    /// Bytes removed from the front of the input frame, 0..128 (above
    /// 128: 128).
    pub cmd_drop: Signal<In, Bits<8>>,
    /// One clock: a frame left nothing (no header, no byte past `drop`).
    pub empty_dropped: Signal<Out, Bit>,
    out_sb: SkidBuffer,
    ones1024: Constant<Bits<1024>>,
    ones512: Constant<Bits<512>>,
    ones64: Constant<Bits<64>>,
    // The beat taken, waiting for the realigner.
    cur_valid: DFF<Bit>,
    cur_data: DFF<Bits<512>>,
    cur_keep: DFF<Bits<64>>,
    cur_last: DFF<Bit>,
    cur_user: DFF<Bit>,
    cur_first: DFF<Bit>,
    /// Beats of a frame have been taken but not its last: the next beat
    /// taken is not a first beat.
    mid_frame: DFF<Bit>,
    // The frame (from its command).
    hdr: DFF<Bits<1024>>,
    hlen: DFF<Bits<8>>,
    shift: DFF<Bits<6>>,
    /// q + 2, and the index + 2 of the output beat the next step makes
    /// (saturating at 7; below 2: no output beat).
    qp: DFF<Bits<3>>,
    kp: DFF<Bits<3>>,
    // The residual: the next output beat so far (header lanes included).
    res_data: DFF<Bits<512>>,
    res_keep: DFF<Bits<64>>,
    res_user: DFF<Bit>,
    /// The residual is the frame's last beat, waiting to leave.
    pend: DFF<Bit>,
    /// The header alone leaves after the last input beat (its second
    /// beat next when `tail_hi`).
    tail: DFF<Bit>,
    tail_hi: DFF<Bit>,
    dropped_pulse: DFF<Bit>,
    // Combinational.
    len_c: Signal<Local, Bits<8>>,
    drop_c: Signal<Local, Bits<8>>,
    delta_e: Signal<Local, Bits<9>>,
    qp_new: Signal<Local, Bits<3>>,
    hdr_shift: Signal<Local, Bits<11>>,
    out_free: Signal<Local, Bit>,
    long_hdr: Signal<Local, Bit>,
    kneg: Signal<Local, Bit>,
    k1neg: Signal<Local, Bit>,
    is_pre: Signal<Local, Bit>,
    is_main: Signal<Local, Bit>,
    consume: Signal<Local, Bit>,
    tail_going: Signal<Local, Bit>,
    can_take: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    lane_mask: Signal<Local, Bits<64>>,
    byte_mask: Signal<Local, Bits<512>>,
    hm0: Signal<Local, Bits<64>>,
    hm1: Signal<Local, Bits<64>>,
    hmb0: Signal<Local, Bits<512>>,
    hmb1: Signal<Local, Bits<512>>,
    hdr_lo: Signal<Local, Bits<512>>,
    hdr_hi: Signal<Local, Bits<512>>,
    hk: Signal<Local, Bits<512>>,
    hmk: Signal<Local, Bits<64>>,
    hmbk: Signal<Local, Bits<512>>,
    hk1: Signal<Local, Bits<512>>,
    hmk1: Signal<Local, Bits<64>>,
    hmbk1: Signal<Local, Bits<512>>,
    shift_bits: Signal<Local, Bits<10>>,
    wide: Signal<Local, Bits<1024>>,
    wide_keep: Signal<Local, Bits<128>>,
    base: Signal<Local, Bits<512>>,
    base_keep: Signal<Local, Bits<64>>,
    main_data: Signal<Local, Bits<512>>,
    main_keep: Signal<Local, Bits<64>>,
    main_last: Signal<Local, Bit>,
    nres_data: Signal<Local, Bits<512>>,
    nres_keep: Signal<Local, Bits<64>>,
    nres_any: Signal<Local, Bit>,
    tail_last: Signal<Local, Bit>,
}

impl Default for HeaderSplice {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_header: Default::default(),
            cmd_header_len: Default::default(),
            cmd_drop: Default::default(),
            empty_dropped: Default::default(),
            out_sb: Default::default(),
            ones1024: Constant::new(!Bits::<1024>::default()),
            ones512: Constant::new(!Bits::<512>::default()),
            ones64: Constant::new(!Bits::<64>::default()),
            cur_valid: Default::default(),
            cur_data: Default::default(),
            cur_keep: Default::default(),
            cur_last: Default::default(),
            cur_user: Default::default(),
            cur_first: Default::default(),
            mid_frame: Default::default(),
            hdr: Default::default(),
            hlen: Default::default(),
            shift: Default::default(),
            qp: Default::default(),
            kp: Default::default(),
            res_data: Default::default(),
            res_keep: Default::default(),
            res_user: Default::default(),
            pend: Default::default(),
            tail: Default::default(),
            tail_hi: Default::default(),
            dropped_pulse: Default::default(),
            len_c: Default::default(),
            drop_c: Default::default(),
            delta_e: Default::default(),
            qp_new: Default::default(),
            hdr_shift: Default::default(),
            out_free: Default::default(),
            long_hdr: Default::default(),
            kneg: Default::default(),
            k1neg: Default::default(),
            is_pre: Default::default(),
            is_main: Default::default(),
            consume: Default::default(),
            tail_going: Default::default(),
            can_take: Default::default(),
            take: Default::default(),
            lane_mask: Default::default(),
            byte_mask: Default::default(),
            hm0: Default::default(),
            hm1: Default::default(),
            hmb0: Default::default(),
            hmb1: Default::default(),
            hdr_lo: Default::default(),
            hdr_hi: Default::default(),
            hk: Default::default(),
            hmk: Default::default(),
            hmbk: Default::default(),
            hk1: Default::default(),
            hmk1: Default::default(),
            hmbk1: Default::default(),
            shift_bits: Default::default(),
            wide: Default::default(),
            wide_keep: Default::default(),
            base: Default::default(),
            base_keep: Default::default(),
            main_data: Default::default(),
            main_keep: Default::default(),
            main_last: Default::default(),
            nres_data: Default::default(),
            nres_keep: Default::default(),
            nres_any: Default::default(),
            tail_last: Default::default(),
        }
    }
}

impl Logic for HeaderSplice {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, out_sb);
        dff_setup!(
            self,
            clock,
            cur_valid,
            cur_data,
            cur_keep,
            cur_last,
            cur_user,
            cur_first,
            mid_frame,
            hdr,
            hlen,
            shift,
            qp,
            kp,
            res_data,
            res_keep,
            res_user,
            pend,
            tail,
            tail_hi,
            dropped_pulse
        );
        self.out_sb.reset.next = self.reset.val();
        self.m.tdata.next = self.out_sb.m.tdata.val();
        self.m.tkeep.next = self.out_sb.m.tkeep.val();
        self.m.tlast.next = self.out_sb.m.tlast.val();
        self.m.tuser.next = self.out_sb.m.tuser.val();
        self.m.tvalid.next = self.out_sb.m.tvalid.val();
        self.out_sb.m.tready.next = self.m.tready.val();
        self.empty_dropped.next = self.dropped_pulse.q.val();

        // The command: lengths capped at 128; len - drop + 128 =
        // 64 (q + 2) + shift.
        self.len_c.next = self.cmd_header_len.val();
        if self.cmd_header_len.val() > 128 {
            self.len_c.next = 128.into();
        }
        self.drop_c.next = self.cmd_drop.val();
        if self.cmd_drop.val() > 128 {
            self.drop_c.next = 128.into();
        }
        self.delta_e.next = bit_cast::<9, 8>(self.len_c.val()) + bits::<9>(128)
            - bit_cast::<9, 8>(self.drop_c.val());
        self.qp_new.next = self.delta_e.val().get_bits::<3>(6);
        self.hdr_shift.next = bit_cast::<11, 8>(self.len_c.val()) << 3;

        // Header lanes of output beats 0 and 1 (lanes below the length).
        self.long_hdr.next = self.hlen.q.val() > 64;
        self.lane_mask.next = !(self.ones64.val() << self.hlen.q.val().get_bits::<6>(0));
        self.shift_bits.next = bit_cast::<10, 6>(self.shift.q.val()) << 3;
        self.byte_mask.next =
            !(self.ones512.val() << (bit_cast::<9, 6>(self.hlen.q.val().get_bits::<6>(0)) << 3));
        self.hm0.next = self.lane_mask.val();
        self.hmb0.next = self.byte_mask.val();
        self.hm1.next = 0.into();
        self.hmb1.next = 0.into();
        if self.hlen.q.val() >= 64 {
            self.hm0.next = self.ones64.val();
            self.hmb0.next = self.ones512.val();
            self.hm1.next = self.lane_mask.val();
            self.hmb1.next = self.byte_mask.val();
        }
        if self.hlen.q.val() >= 128 {
            self.hm1.next = self.ones64.val();
            self.hmb1.next = self.ones512.val();
        }
        self.hdr_lo.next = self.hdr.q.val().get_bits::<512>(0);
        self.hdr_hi.next = self.hdr.q.val().get_bits::<512>(512);
        // Header of the output beat this step makes (k = kp - 2) and of
        // the next one.
        self.hk.next = 0.into();
        self.hmk.next = 0.into();
        self.hmbk.next = 0.into();
        self.hk1.next = 0.into();
        self.hmk1.next = 0.into();
        self.hmbk1.next = 0.into();
        if self.kp.q.val() == 1 {
            self.hk1.next = self.hdr_lo.val();
            self.hmk1.next = self.hm0.val();
            self.hmbk1.next = self.hmb0.val();
        }
        if self.kp.q.val() == 2 {
            self.hk.next = self.hdr_lo.val();
            self.hmk.next = self.hm0.val();
            self.hmbk.next = self.hmb0.val();
            self.hk1.next = self.hdr_hi.val();
            self.hmk1.next = self.hm1.val();
            self.hmbk1.next = self.hmb1.val();
        }
        if self.kp.q.val() == 3 {
            self.hk.next = self.hdr_hi.val();
            self.hmk.next = self.hm1.val();
            self.hmbk.next = self.hmb1.val();
        }

        // What the realigner does this clock.
        self.out_free.next = self.out_sb.s.tready.val();
        self.kneg.next = self.kp.q.val() < 2;
        self.k1neg.next = self.kp.q.val() == 0;
        self.is_pre.next =
            self.cur_valid.q.val() & self.cur_first.q.val() & (self.kp.q.val() < self.qp.q.val());
        self.is_main.next = self.cur_valid.q.val() & !self.is_pre.val() & !self.tail.q.val();
        // A step that leaves nothing may share its clock with the flush
        // beat of the frame before, which then has to leave.
        self.consume.next = false;
        if self.is_main.val() {
            if self.kneg.val() {
                self.consume.next = !self.pend.q.val() | self.out_free.val();
            } else {
                self.consume.next = !self.pend.q.val() & self.out_free.val();
            }
        }
        self.tail_going.next = self.consume.val()
            & self.cur_last.q.val()
            & ((self.k1neg.val() & self.hlen.q.val().any())
                | ((self.kp.q.val() == 1) & self.long_hdr.val()));
        self.can_take.next = (!self.cur_valid.q.val() | self.consume.val())
            & !self.tail.q.val()
            & !self.tail_going.val();
        self.s.tready.next = self.can_take.val() & (self.mid_frame.q.val() | self.cmd_valid.val());
        self.cmd_ready.next = self.can_take.val() & !self.mid_frame.q.val() & self.s.tvalid.val();
        self.take.next = self.s.tvalid.val() & self.s.tready.val();

        // The realigner: the beat shifted up by `shift` lanes.
        self.wide.next = bit_cast::<1024, 512>(self.cur_data.q.val()) << self.shift_bits.val();
        self.wide_keep.next = bit_cast::<128, 64>(self.cur_keep.q.val()) << self.shift.q.val();
        self.base.next = self.res_data.q.val();
        self.base_keep.next = self.res_keep.q.val();
        if self.cur_first.q.val() {
            self.base.next = self.hk.val();
            self.base_keep.next = self.hmk.val();
        }
        self.main_data.next =
            self.base.val() | (self.wide.val().get_bits::<512>(0) & !self.hmbk.val());
        self.main_keep.next =
            self.base_keep.val() | (self.wide_keep.val().get_bits::<64>(0) & !self.hmk.val());
        self.nres_data.next =
            self.hk1.val() | (self.wide.val().get_bits::<512>(512) & !self.hmbk1.val());
        self.nres_keep.next =
            self.hmk1.val() | (self.wide_keep.val().get_bits::<64>(64) & !self.hmk1.val());
        if self.k1neg.val() {
            self.nres_data.next = 0.into();
            self.nres_keep.next = 0.into();
        }
        self.nres_any.next = self.nres_keep.val().any();
        self.tail_last.next = self.tail_hi.q.val() | !self.long_hdr.val();
        self.main_last.next = self.cur_last.q.val() & !self.nres_any.val();

        // The output beat: flush, header after the input, header before
        // the input, or the beat made from `cur`.
        self.out_sb.s.tdata.next = self.main_data.val();
        self.out_sb.s.tkeep.next = self.main_keep.val();
        self.out_sb.s.tlast.next = self.main_last.val();
        self.out_sb.s.tuser.next = self.main_last.val() & self.cur_user.q.val();
        self.out_sb.s.tvalid.next = self.is_main.val() & !self.kneg.val();
        if self.is_pre.val() {
            self.out_sb.s.tdata.next = self.hk.val();
            self.out_sb.s.tkeep.next = self.ones64.val();
            self.out_sb.s.tlast.next = false;
            self.out_sb.s.tuser.next = false;
            self.out_sb.s.tvalid.next = true;
        }
        if self.tail.q.val() {
            self.out_sb.s.tdata.next = self.hdr_lo.val();
            self.out_sb.s.tkeep.next = self.hm0.val();
            if self.tail_hi.q.val() {
                self.out_sb.s.tdata.next = self.hdr_hi.val();
                self.out_sb.s.tkeep.next = self.hm1.val();
            }
            self.out_sb.s.tlast.next = self.tail_last.val();
            self.out_sb.s.tuser.next = self.tail_last.val() & self.res_user.q.val();
            self.out_sb.s.tvalid.next = true;
        }
        if self.pend.q.val() {
            self.out_sb.s.tdata.next = self.res_data.q.val();
            self.out_sb.s.tkeep.next = self.res_keep.q.val();
            self.out_sb.s.tlast.next = true;
            self.out_sb.s.tuser.next = self.res_user.q.val();
            self.out_sb.s.tvalid.next = true;
        }

        // State.
        self.dropped_pulse.d.next = false;
        if self.pend.q.val() & self.out_free.val() {
            self.pend.d.next = false;
        }
        if self.is_pre.val() & !self.pend.q.val() & self.out_free.val() {
            self.kp.d.next = self.kp.q.val() + 1;
        }
        if self.tail.q.val() & !self.pend.q.val() & self.out_free.val() {
            if self.tail_last.val() {
                self.tail.d.next = false;
                self.tail_hi.d.next = false;
            } else {
                self.tail_hi.d.next = true;
            }
        }
        if self.consume.val() {
            self.cur_valid.d.next = false;
            if self.kp.q.val() != 7 {
                self.kp.d.next = self.kp.q.val() + 1;
            }
            self.res_data.d.next = self.nres_data.val();
            self.res_keep.d.next = self.nres_keep.val();
            self.res_user.d.next = self.cur_user.q.val();
            if self.cur_last.q.val() & self.nres_any.val() & !self.tail_going.val() {
                self.pend.d.next = true;
            }
            if self.tail_going.val() {
                self.tail.d.next = true;
                self.tail_hi.d.next = false;
            }
            self.dropped_pulse.d.next = self.cur_last.q.val()
                & self.kneg.val()
                & !self.nres_any.val()
                & !self.hlen.q.val().any();
        }
        if self.take.val() {
            self.cur_valid.d.next = true;
            self.cur_data.d.next = self.s.tdata.val();
            self.cur_keep.d.next = self.s.tkeep.val();
            self.cur_last.d.next = self.s.tlast.val();
            self.cur_user.d.next = self.s.tuser.val();
            self.cur_first.d.next = !self.mid_frame.q.val();
            self.mid_frame.d.next = !self.s.tlast.val();
            if !self.mid_frame.q.val() {
                self.hdr.d.next =
                    self.cmd_header.val() & !(self.ones1024.val() << self.hdr_shift.val());
                self.hlen.d.next = self.len_c.val();
                self.shift.d.next = self.delta_e.val().get_bits::<6>(0);
                self.qp.d.next = self.qp_new.val();
                self.kp.d.next = self.qp_new.val();
                if self.qp_new.val() > 2 {
                    self.kp.d.next = 2.into();
                }
            }
        }
        if self.reset.val() {
            self.cur_valid.d.next = false;
            self.mid_frame.d.next = false;
            self.pend.d.next = false;
            self.tail.d.next = false;
            self.tail_hi.d.next = false;
            self.dropped_pulse.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_01_header_splice_verilog_lints_clean() {
        crate::verilog::assert_lints_clean::<HeaderSplice>("header_splice");
    }
}
