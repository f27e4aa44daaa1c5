//! AXI4-Stream beats as the gateway's 512-bit ports carry them.
//!
//! Byte `i` of a beat travels in `tdata[8*i+7 : 8*i]` and is valid when
//! `tkeep[i]` is set; frames are packed (every beat but the last is full, the
//! last one's valid bytes start at lane 0).

/// Bytes in one beat of the 512-bit data path.
pub const BEAT_BYTES: usize = 64;

/// One AXI4-Stream transfer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    pub data: [u8; BEAT_BYTES],
    pub keep: u64,
    pub last: bool,
    /// `tuser`: set by a MAC on a frame with a receive error.
    pub user: bool,
}

pub use cngw_model::{InPort, OutPort};

/// Splits a frame into packed beats. An empty frame becomes no beats.
pub fn frame_to_beats(frame: &[u8], user: bool) -> Vec<Beat> {
    let chunks: Vec<&[u8]> = frame.chunks(BEAT_BYTES).collect();
    let n = chunks.len();
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, chunk)| {
            let mut data = [0u8; BEAT_BYTES];
            data[..chunk.len()].copy_from_slice(chunk);
            let keep = if chunk.len() == BEAT_BYTES {
                u64::MAX
            } else {
                (1u64 << chunk.len()) - 1
            };
            Beat {
                data,
                keep,
                last: i + 1 == n,
                user: user && i + 1 == n,
            }
        })
        .collect()
}

/// Collects the bytes a beat carries (lanes whose `tkeep` bit is set, in order).
pub fn append_beat(frame: &mut Vec<u8>, beat: &Beat) {
    for lane in 0..BEAT_BYTES {
        if beat.keep >> lane & 1 == 1 {
            frame.push(beat.data[lane]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_02_beats_round_trip_for_every_length() {
        for len in 1usize..300 {
            let frame: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let beats = frame_to_beats(&frame, false);
            assert_eq!(beats.len(), len.div_ceil(BEAT_BYTES));
            assert!(beats.last().unwrap().last);
            let mut back = Vec::new();
            beats.iter().for_each(|b| append_beat(&mut back, b));
            assert_eq!(back, frame);
        }
    }
}

/// Frames assembled from the beats of one stream, in order, with the last
/// beat's `tuser`.
#[derive(Clone, Debug, Default)]
pub struct FrameCollector {
    current: Vec<u8>,
    pub frames: Vec<(Vec<u8>, bool)>,
}

impl FrameCollector {
    /// Takes one transferred beat (its `tkeep` lanes); returns whether it
    /// ended a frame.
    pub fn take(&mut self, beat: &Beat) -> bool {
        let n = beat.keep.count_ones() as usize;
        self.current.extend_from_slice(&beat.data[..n]);
        if beat.last {
            self.frames
                .push((std::mem::take(&mut self.current), beat.user));
        }
        beat.last
    }

    /// A frame is partly taken.
    pub fn in_frame(&self) -> bool {
        !self.current.is_empty()
    }
}
