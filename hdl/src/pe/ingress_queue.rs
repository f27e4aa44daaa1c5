//! `IngressQueue`: the ingress PE's store-and-forward queue (FCN-01,
//! FCN-02): holds each frame from the data centre until its flow label is
//! known, then hands frame and label to the encapsulation together.
//!
//! ```text
//!              +------------------------------+
//!  s.*    ---->| cut at 160 beats | 256 beats |---> m.*      (a first beat only
//!              |  (tlast+tuser)   | RAM FIFO  |              with its label)
//!  lbl_valid ->|        labels: 256 x 20 RAM FIFO          |---> m_label
//!  lbl_label ->|  (one per frame, in frame order)          |---> cut (pulse)
//!              +------------------------------+
//! ```
//! The outer IPv6 header carries the flow's label (draft-he-fcn-in-wan
//! section 4.1) and leaves first, so the label must be known before the
//! frame's first beat goes on. In the gateway it comes from the data-path
//! flow-table look-up of the frame (`1 + 4 * bucket + way`, or
//! `16385 + slot`, FCN-01), which is answered six clocks after the frame's
//! last beat: a first look-up would need the headers, which end in the
//! frame's first or second beat, and a second port on the table. The queue
//! holds whole frames instead, and the look-up every frame gets anyway
//! names the label. A new flow's first packet is inserted by that look-up
//! and leaves with its label.
//!
//! **Labels.** `lbl_valid` pushes `lbl_label`: one label per frame, in the
//! order the frames entered, each after its frame's last beat entered. A
//! frame's first beat is offered on `m` (with `m_label`) only once its
//! label is there; its other beats follow without waiting. Labels waiting
//! never outnumber the frames stored, so 256 entries never overflow.
//!
//! **Long frames.** A frame that has not ended after 160 beats (10,240
//! bytes: more than a 9,216-byte jumbo frame with tags) would keep the
//! queue from ever holding it whole: its 160th beat is stored with `tlast`
//! and `tuser` (error) set, `cut` pulses, and its remaining beats are
//! taken and discarded. Its label still comes with its (one) parsed header.
//!
//! **Timing.** `s.tready` is high while the queue has room (256 beats, more
//! than the 160 of the longest frame it stores: a full queue always holds
//! a whole frame, whose label is coming) or a cut frame's tail is being
//! discarded: one beat per clock in.
//! `m.tvalid` depends on registers only; one beat per clock out, frames
//! back to back once their labels are there. A beat is readable two
//! clocks after it is taken (`RamFifo`); a label likewise. `reset` empties
//! both FIFOs.

use crate::stream::{AxisSink, AxisSource, RamFifo};
use rust_hdl::prelude::*;

/// Beats of the longest frame stored whole.
pub const MAX_FRAME_BEATS: u64 = 160;
// `update` compares with the literal 159.
const _: () = assert!(MAX_FRAME_BEATS == 160);

#[derive(LogicBlock, Default)]
pub struct IngressQueue {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Frames from the data centre.
    pub s: AxisSink,
    /// Frames toward the encapsulation; a first beat comes with `m_label`.
    pub m: AxisSource,
    /// One label per frame, in frame order.
    pub lbl_valid: Signal<In, Bit>,
    pub lbl_label: Signal<In, Bits<20>>,
    /// The label of the frame whose first beat is on `m`.
    pub m_label: Signal<Out, Bits<20>>,
    /// One clock: a frame was cut at `MAX_FRAME_BEATS`.
    pub cut: Signal<Out, Bit>,
    beats: RamFifo<Bits<578>>,
    labels: RamFifo<Bits<20>>,
    /// Beats of the frame entering, stored so far.
    in_beats: DFF<Bits<8>>,
    /// The rest of a cut frame is being discarded.
    discard: DFF<Bit>,
    /// The next beat out is not a first beat.
    in_frame: DFF<Bit>,
    cut_pulse: DFF<Bit>,
    take: Signal<Local, Bit>,
    cut_here: Signal<Local, Bit>,
    word: Signal<Local, Bits<578>>,
    send: Signal<Local, Bit>,
    head: Signal<Local, Bits<578>>,
}

impl Logic for IngressQueue {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, beats, labels);
        dff_setup!(self, clock, in_beats, discard, in_frame, cut_pulse);
        self.beats.reset.next = self.reset.val();
        self.labels.reset.next = self.reset.val();

        // In: store, or cut and discard.
        self.s.tready.next = self.discard.q.val() | !self.beats.full.val();
        self.take.next = self.s.tvalid.val() & self.s.tready.val();
        self.cut_here.next =
            !self.discard.q.val() & !self.s.tlast.val() & (self.in_beats.q.val() == bits::<8>(159));
        self.word.next = bit_cast::<578, 512>(self.s.tdata.val())
            | (bit_cast::<578, 64>(self.s.tkeep.val()) << 512);
        if self.s.tlast.val() | self.cut_here.val() {
            self.word.next = self.word.val() | (bits::<578>(1) << 576);
        }
        if self.s.tuser.val() | self.cut_here.val() {
            self.word.next = self.word.val() | (bits::<578>(1) << 577);
        }
        self.beats.push.next = self.take.val() & !self.discard.q.val();
        self.beats.push_data.next = self.word.val();
        self.cut_pulse.d.next = self.take.val() & self.cut_here.val();
        self.cut.next = self.cut_pulse.q.val();
        if self.take.val() {
            self.in_beats.d.next = self.in_beats.q.val() + 1;
            if self.s.tlast.val() | self.cut_here.val() | self.discard.q.val() {
                self.in_beats.d.next = 0.into();
            }
            if self.cut_here.val() {
                self.discard.d.next = true;
            }
            if self.discard.q.val() & self.s.tlast.val() {
                self.discard.d.next = false;
            }
        }

        // Labels, one per frame.
        self.labels.push.next = self.lbl_valid.val();
        self.labels.push_data.next = self.lbl_label.val();

        // Out: a first beat waits for its label.
        self.head.next = self.beats.pop_data.val();
        self.m.tdata.next = self.head.val().get_bits::<512>(0);
        self.m.tkeep.next = self.head.val().get_bits::<64>(512);
        self.m.tlast.next = self.head.val().get_bit(576);
        self.m.tuser.next = self.head.val().get_bit(577);
        self.m.tvalid.next =
            !self.beats.empty.val() & (self.in_frame.q.val() | !self.labels.empty.val());
        self.m_label.next = self.labels.pop_data.val();
        self.send.next = self.m.tvalid.val() & self.m.tready.val();
        self.beats.pop.next = self.send.val();
        self.labels.pop.next = self.send.val() & !self.in_frame.q.val();
        if self.send.val() {
            self.in_frame.d.next = !self.head.val().get_bit(576);
        }

        if self.reset.val() {
            self.in_beats.d.next = 0.into();
            self.discard.d.next = false;
            self.in_frame.d.next = false;
            self.cut_pulse.d.next = false;
        }
    }
}
