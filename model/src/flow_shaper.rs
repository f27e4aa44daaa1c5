//! PE-05: the ingress PE's action upon light notifications
//! (draft-hu-rtgwg-pre-ecn-wan, "Ingress PE Action upon T1"), the rules of
//! `hdl/src/pe/flow_shaper.rs` (`FlowShaper`), clock for clock for the
//! slots: which frames are shaped, each slot's rate after every
//! notification and recovery tick, its tokens, its path, its freeing, and
//! the counters.
//!
//! The model does not schedule frames: a test tells it, clock by clock,
//! which first beat entered, which slow-lane beat left, the notification
//! and the microsecond tick ([`ClockEvents`]); it answers each frame's
//! slot ([`FlowShaper::clock`]), each released frame's path
//! ([`FlowShaper::path`]) and whether its slot may release it
//! ([`FlowShaper::may_release`]). Queries see the state at the start of
//! the clock (the RTL's registers); `clock` applies the clock's events.
//! [`window_bound`] is the byte bound a shaped flow keeps.

/// Slots (flows shaped at once).
pub const SLOTS: usize = 8;

/// The shaper's configuration (rates in bytes per microsecond).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaperConfig {
    pub enable: bool,
    /// 12500 = 100 Gb/s; a slot recovered to it is freed.
    pub max_rate: u16,
    /// Floor of every cut (at most `max_rate`).
    pub min_rate: u16,
    /// Each notification: `rate -= rate >> cut_shift` (0..=15).
    pub cut_shift: u8,
    /// Quiet microseconds per recovery step (0 acts as 1).
    pub recover_us: u16,
    pub recover_step: u16,
    /// Bucket depth in bytes (below 2^24).
    pub burst: u32,
    pub alt_enable: bool,
    /// To the alternate path at a rate <= `alt_below`, back at >= `alt_above`.
    pub alt_below: u16,
    pub alt_above: u16,
}

impl Default for ShaperConfig {
    /// Off; when enabled: 100 Gb/s, cuts of 1/16, a 1 % step every 50 us.
    fn default() -> Self {
        ShaperConfig {
            enable: false,
            max_rate: 12500,
            min_rate: 1250,
            cut_shift: 4,
            recover_us: 50,
            recover_step: 125,
            burst: 16384,
            alt_enable: false,
            alt_below: 8000,
            alt_above: 11000,
        }
    }
}

impl ShaperConfig {
    /// The gateway's shaper: `PE_SHAPER_CONTROL`, `_RATE`, `_RECOVER`,
    /// `_BURST`, `_ALT`.
    pub fn of_registers(r: &dyn crate::longhaul::Registers) -> ShaperConfig {
        use cngw_regmap::{offset, pe_shaper};
        let control = r.reg(offset::PE_SHAPER_CONTROL);
        let (rate, recover, alt) = (
            r.reg(offset::PE_SHAPER_RATE),
            r.reg(offset::PE_SHAPER_RECOVER),
            r.reg(offset::PE_SHAPER_ALT),
        );
        ShaperConfig {
            enable: control & pe_shaper::ENABLE != 0,
            max_rate: rate as u16,
            min_rate: (rate >> 16) as u16,
            cut_shift: ((control >> pe_shaper::CUT_SHIFT_LSB) & 0xF) as u8,
            recover_us: recover as u16,
            recover_step: (recover >> 16) as u16,
            burst: r.reg(offset::PE_SHAPER_BURST) & 0xFF_FFFF,
            alt_enable: control & pe_shaper::ALT_ENABLE != 0,
            alt_below: alt as u16,
            alt_above: (alt >> 16) as u16,
        }
    }

    /// The rate after one notification (the floor applied).
    pub fn cut(&self, rate: u32) -> u32 {
        (rate - (rate >> self.cut_shift)).max(self.min_rate as u32)
    }

    /// The rate of a slot taken by a first notification.
    pub fn first_rate(&self) -> u32 {
        self.cut(self.max_rate as u32)
    }

    /// The rate after one recovery step.
    pub fn recover(&self, rate: u32) -> u32 {
        (rate + self.recover_step as u32).min(self.max_rate as u32)
    }
}

/// One slot (the RTL's slot registers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    pub used: bool,
    pub label: u32,
    pub rate: u32,
    /// Bytes; negative: a deficit.
    pub tokens: i64,
    /// Microseconds since the last notification or recovery step.
    pub quiet_us: u16,
    /// The alternate path.
    pub alt: bool,
    /// Frames of the slot in the block (from the first beat in to the last out).
    pub waiting: u32,
}

/// The counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub shaped_frames: u64,
    pub notes_taken: u64,
    pub notes_dropped: u64,
    pub reroutes: u64,
    pub returns: u64,
}

/// A beat that left the slow lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlowBeat {
    pub slot: usize,
    /// Bytes in the beat (1..=64).
    pub bytes: u32,
    pub last: bool,
}

/// What happened in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockEvents {
    /// A frame's first beat was taken, with this label.
    pub first_in: Option<u32>,
    /// A slow-lane beat left on `m`.
    pub slow_beat: Option<SlowBeat>,
    /// A light notification for this label.
    pub note: Option<u32>,
    /// The microsecond tick.
    pub tick: bool,
}

/// The shaper's slots and counters.
#[derive(Clone, Debug, Default)]
pub struct FlowShaper {
    pub slots: [Slot; SLOTS],
    pub counters: Counters,
}

impl FlowShaper {
    /// After reset: every slot free.
    pub fn new() -> FlowShaper {
        FlowShaper::default()
    }

    /// The slot a frame with `label` would go to (the slow lane), if any.
    pub fn slot_of(&self, label: u32) -> Option<usize> {
        self.slots.iter().position(|s| s.used && s.label == label)
    }

    /// The path of a slow frame of `slot` first offered now (true:
    /// alternate); a fast frame's is always the primary.
    pub fn path(&self, slot: usize) -> bool {
        self.slots[slot].alt
    }

    /// Whether `slot`'s tokens let the slow lane release a frame now.
    pub fn may_release(&self, slot: usize) -> bool {
        self.slots[slot].tokens >= 0
    }

    /// Applies one clock; returns the slot of the frame whose first beat
    /// entered (`None`: the fast path).
    pub fn clock(&mut self, cfg: &ShaperConfig, ev: &ClockEvents) -> Option<usize> {
        let old = self.slots;
        let cls = ev.first_in.and_then(|l| self.slot_of(l));
        let note = ev.note.filter(|&l| cfg.enable && l != 0);
        let note_hit = note.and_then(|l| self.slot_of(l));
        let note_free = old.iter().position(|s| !s.used);
        let end = ev.slow_beat.filter(|b| b.last).map(|b| b.slot);
        let max = cfg.max_rate as u32;
        for (i, s) in self.slots.iter_mut().enumerate() {
            let o = old[i];
            let mut t = o.tokens;
            if ev.tick {
                t += o.rate as i64;
            }
            if let Some(b) = ev.slow_beat.filter(|b| b.slot == i) {
                t -= b.bytes as i64;
            }
            s.tokens = if t >= 0 && t > cfg.burst as i64 {
                cfg.burst as i64
            } else {
                t
            };
            if ev.tick {
                s.quiet_us = o.quiet_us.wrapping_add(1);
                if o.quiet_us.wrapping_add(1) >= cfg.recover_us {
                    s.quiet_us = 0;
                    s.rate = cfg.recover(o.rate);
                }
            }
            if cls == Some(i) {
                if end != Some(i) {
                    s.waiting += 1;
                }
            } else if end == Some(i) {
                s.waiting -= 1;
            }
            if o.used
                && (o.rate >= max || !cfg.enable)
                && o.waiting == 0
                && cls != Some(i)
                && note_hit != Some(i)
            {
                s.used = false;
            }
            if note.is_some() && note_hit == Some(i) {
                s.rate = cfg.cut(o.rate);
                s.quiet_us = 0;
            }
            if let (Some(label), None, Some(free)) = (note, note_hit, note_free) {
                if free == i {
                    s.used = true;
                    s.label = label;
                    s.rate = cfg.first_rate();
                    s.tokens = cfg.burst as i64;
                    s.quiet_us = 0;
                }
            }
            let mut alt = o.alt;
            if o.rate <= cfg.alt_below as u32 {
                alt = true;
            } else if o.rate >= cfg.alt_above as u32 {
                alt = false;
            }
            if !cfg.alt_enable || !o.used {
                alt = false;
            }
            s.alt = alt;
            self.counters.reroutes += (!o.alt && alt) as u64;
            self.counters.returns += (o.alt && !alt) as u64;
        }
        if end.is_some() {
            self.counters.shaped_frames += 1;
        }
        if note.is_some() {
            if note_hit.is_some() || note_free.is_some() {
                self.counters.notes_taken += 1;
            } else {
                self.counters.notes_dropped += 1;
            }
        }
        cls
    }
}

/// The most bytes a shaped flow's slot may send in a window: the refills
/// of the window's ticks (each at the slot's rate then), its tokens at the
/// start (at most `burst`) and the one frame a non-negative count may
/// release (it runs the count into deficit).
pub fn window_bound(refills: u64, burst: u32, longest_frame: usize) -> u64 {
    refills + burst as u64 + longest_frame as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on() -> ShaperConfig {
        ShaperConfig {
            enable: true,
            ..ShaperConfig::default()
        }
    }

    fn note(label: u32) -> ClockEvents {
        ClockEvents {
            note: Some(label),
            ..ClockEvents::default()
        }
    }

    fn tick() -> ClockEvents {
        ClockEvents {
            tick: true,
            ..ClockEvents::default()
        }
    }

    #[test]
    fn pe_05_first_notification_takes_a_slot_slightly_below_max_rate() {
        let cfg = on();
        let mut m = FlowShaper::new();
        m.clock(&cfg, &note(77));
        let s = m.slots[0];
        assert!(s.used && s.label == 77);
        assert_eq!(s.rate, 12500 - (12500 >> 4));
        assert_eq!(s.tokens, cfg.burst as i64);
        assert_eq!(m.counters.notes_taken, 1);
    }

    #[test]
    fn pe_05_each_notification_cuts_slightly_down_to_min_rate() {
        let cfg = on();
        let mut m = FlowShaper::new();
        let mut want = 12500u32;
        for _ in 0..60 {
            m.clock(&cfg, &note(9));
            want = (want - (want >> 4)).max(1250);
            assert_eq!(m.slots[0].rate, want);
        }
        assert_eq!(m.slots[0].rate, 1250, "the floor holds");
        assert_eq!(m.counters.notes_taken, 60);
        assert!(m.slots[1..].iter().all(|s| !s.used), "one slot per label");
    }

    #[test]
    fn pe_05_rate_recovers_every_recover_us_and_the_slot_is_freed_at_max_rate() {
        let cfg = ShaperConfig {
            recover_us: 3,
            recover_step: 200,
            ..on()
        };
        let mut m = FlowShaper::new();
        m.clock(&cfg, &note(5));
        let first = m.slots[0].rate;
        for k in 1..=6 {
            m.clock(&cfg, &tick());
            let steps = k / 3;
            assert_eq!(m.slots[0].rate, first + 200 * steps, "tick {k}");
        }
        // A notification restarts the quiet time.
        m.clock(&cfg, &tick());
        m.clock(&cfg, &tick());
        m.clock(&cfg, &note(5));
        let cut = m.slots[0].rate;
        m.clock(&cfg, &tick());
        m.clock(&cfg, &tick());
        assert_eq!(m.slots[0].rate, cut, "two quiet ticks after a cut");
        m.clock(&cfg, &tick());
        assert_eq!(m.slots[0].rate, cut + 200);
        // Up to max_rate, then freed one clock later.
        let mut clocks = 0;
        while m.slots[0].rate < 12500 {
            m.clock(&cfg, &tick());
            clocks += 1;
            assert!(clocks < 100);
        }
        assert!(m.slots[0].used);
        m.clock(&cfg, &ClockEvents::default());
        assert!(!m.slots[0].used);
    }

    #[test]
    fn pe_05_a_slot_with_frames_in_the_block_is_not_freed() {
        let cfg = ShaperConfig {
            recover_us: 1,
            recover_step: 12500,
            ..on()
        };
        let mut m = FlowShaper::new();
        m.clock(&cfg, &note(5));
        let got = m.clock(
            &cfg,
            &ClockEvents {
                first_in: Some(5),
                tick: true,
                ..ClockEvents::default()
            },
        );
        assert_eq!(got, Some(0));
        assert_eq!(m.slots[0].rate, 12500);
        for _ in 0..5 {
            m.clock(&cfg, &ClockEvents::default());
            assert!(m.slots[0].used, "a frame waits");
        }
        // A second frame of the flow still goes to the slot.
        let ev = ClockEvents {
            first_in: Some(5),
            ..ClockEvents::default()
        };
        assert_eq!(m.clock(&cfg, &ev), Some(0));
        assert_eq!(m.slots[0].waiting, 2);
        for last in [true, true] {
            m.clock(
                &cfg,
                &ClockEvents {
                    slow_beat: Some(SlowBeat {
                        slot: 0,
                        bytes: 64,
                        last,
                    }),
                    ..ClockEvents::default()
                },
            );
        }
        assert!(m.slots[0].used && m.slots[0].waiting == 0);
        m.clock(&cfg, &ClockEvents::default());
        assert!(!m.slots[0].used, "freed once empty");
        assert_eq!(m.counters.shaped_frames, 2);
        assert_eq!(m.clock(&cfg, &ev), None, "the fast path again");
    }

    #[test]
    fn pe_05_ninth_flow_is_dropped_label_0_and_disabled_are_ignored() {
        let cfg = on();
        let mut m = FlowShaper::new();
        for l in 1..=9 {
            m.clock(&cfg, &note(l));
        }
        assert!(m.slots.iter().all(|s| s.used));
        assert_eq!(m.slot_of(9), None);
        assert_eq!(m.counters.notes_taken, 8);
        assert_eq!(m.counters.notes_dropped, 1);
        m.clock(&cfg, &note(0));
        assert_eq!((m.counters.notes_taken, m.counters.notes_dropped), (8, 1));
        let mut off = FlowShaper::new();
        off.clock(&ShaperConfig::default(), &note(3));
        assert!(off.slots.iter().all(|s| !s.used));
        assert_eq!(off.counters, Counters::default());
    }

    #[test]
    fn pe_05_alternate_path_has_hysteresis() {
        let cfg = ShaperConfig {
            alt_enable: true,
            alt_below: 10000,
            alt_above: 11500,
            recover_us: 1,
            recover_step: 500,
            cut_shift: 3,
            ..on()
        };
        let mut m = FlowShaper::new();
        m.clock(&cfg, &note(4)); // 10938
        m.clock(&cfg, &ClockEvents::default());
        assert!(!m.slots[0].alt);
        m.clock(&cfg, &note(4)); // 9571
        assert!(!m.slots[0].alt, "the flag follows the rate one clock later");
        m.clock(&cfg, &ClockEvents::default());
        assert!(m.path(0));
        assert_eq!(m.counters.reroutes, 1);
        // Recovering through the band keeps the alternate path ...
        m.clock(&cfg, &tick()); // 10071
        m.clock(&cfg, &tick()); // 10571
        m.clock(&cfg, &tick()); // 11071
        m.clock(&cfg, &ClockEvents::default());
        assert!(m.path(0), "inside the band");
        m.clock(&cfg, &tick()); // 11571
        m.clock(&cfg, &ClockEvents::default());
        assert!(!m.path(0), "back at alt_above");
        assert_eq!(m.counters.returns, 1);
    }

    #[test]
    fn pe_05_tokens_refill_at_rate_capped_at_burst_and_run_into_deficit() {
        let cfg = ShaperConfig {
            burst: 1000,
            recover_us: 1000,
            max_rate: 500,
            min_rate: 100,
            ..on()
        };
        let mut m = FlowShaper::new();
        m.clock(&cfg, &note(8));
        let ev = ClockEvents {
            slow_beat: Some(SlowBeat {
                slot: 0,
                bytes: 64,
                last: false,
            }),
            ..ClockEvents::default()
        };
        for _ in 0..20 {
            m.clock(&cfg, &ev);
        }
        assert_eq!(m.slots[0].tokens, 1000 - 20 * 64);
        assert!(!m.may_release(0));
        m.clock(&cfg, &tick());
        assert_eq!(m.slots[0].tokens, 1000 - 20 * 64 + m.slots[0].rate as i64);
        assert!(m.may_release(0));
        m.clock(&cfg, &tick());
        m.clock(&cfg, &tick());
        assert_eq!(m.slots[0].tokens, 1000, "capped at burst");
    }

    /// An ideal slow lane that releases a frame whenever the model lets it
    /// stays within the bound in every window.
    #[test]
    fn pe_05_released_bytes_stay_within_the_window_bound() {
        let cfg = ShaperConfig {
            burst: 3000,
            recover_us: 1000,
            max_rate: 500,
            min_rate: 100,
            ..on()
        };
        let mut m = FlowShaper::new();
        m.clock(&cfg, &note(1));
        let frame = 1500u32;
        let (mut sent, mut refills) = (vec![0u64], vec![0u64]);
        let mut left_in_frame = 0u32;
        for k in 0..5000u64 {
            let tick = k % 20 == 0;
            let mut ev = ClockEvents {
                tick,
                ..ClockEvents::default()
            };
            if left_in_frame == 0 && m.may_release(0) {
                left_in_frame = frame;
                // (The frame's first beat entered in this clock too.)
                ev.first_in = Some(1);
            }
            if left_in_frame > 0 {
                let bytes = left_in_frame.min(64);
                left_in_frame -= bytes;
                ev.slow_beat = Some(SlowBeat {
                    slot: 0,
                    bytes,
                    last: left_in_frame == 0,
                });
            }
            let refill = if tick { m.slots[0].rate as u64 } else { 0 };
            m.clock(&cfg, &ev);
            sent.push(sent.last().unwrap() + ev.slow_beat.map_or(0, |b| b.bytes as u64));
            refills.push(refills.last().unwrap() + refill);
        }
        for a in (0..sent.len()).step_by(37) {
            for b in (a..sent.len()).step_by(53) {
                assert!(
                    sent[b] - sent[a]
                        <= window_bound(refills[b] - refills[a], cfg.burst, frame as usize)
                );
            }
        }
        // And the flow gets its rate (within a frame and a burst).
        let rate = m.slots[0].rate as u64;
        assert!(sent[5000] + 2 * frame as u64 >= rate * 250);
    }
}
