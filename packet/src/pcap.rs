//! Classic libpcap files (the format of tcpdump and Wireshark "pcap", not
//! pcapng) with Ethernet link type: read in either byte order with
//! microsecond or nanosecond timestamps, written in native little-endian
//! order. Frames are `(timestamp_ns, bytes)`.

use std::io::Write;
use std::path::Path;

/// Link type of Ethernet frames.
pub const LINKTYPE_ETHERNET: u32 = 1;
const MAGIC_MICRO: u32 = 0xA1B2_C3D4;
const MAGIC_NANO: u32 = 0xA1B2_3C4D;
const GLOBAL_HEADER_LEN: usize = 24;
const RECORD_HEADER_LEN: usize = 16;
/// Snapshot length written into new files.
pub const SNAPLEN: u32 = 262_144;

/// A frame with its capture time in nanoseconds since the Unix epoch (or
/// since the start of a generated trace).
pub type TimedFrame = (u64, Vec<u8>);

/// Why a pcap file cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PcapError {
    #[error("pcap I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("not a classic pcap file (magic {0:#010x})")]
    BadMagic(u32),
    #[error("pcap link type {0} is not Ethernet (1)")]
    NotEthernet(u32),
    #[error("pcap file truncated at byte {offset}")]
    Truncated { offset: usize },
}

/// Timestamp resolution of a pcap file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    Microseconds,
    Nanoseconds,
}

/// Reads a pcap file.
pub fn read_pcap(path: impl AsRef<Path>) -> Result<Vec<TimedFrame>, PcapError> {
    parse_pcap(&std::fs::read(path)?)
}

/// Parses the bytes of a pcap file.
pub fn parse_pcap(bytes: &[u8]) -> Result<Vec<TimedFrame>, PcapError> {
    if bytes.len() < GLOBAL_HEADER_LEN {
        return Err(PcapError::Truncated {
            offset: bytes.len(),
        });
    }
    let le =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let be =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (big_endian, nanos) = match (le(0), be(0)) {
        (MAGIC_MICRO, _) => (false, false),
        (MAGIC_NANO, _) => (false, true),
        (_, MAGIC_MICRO) => (true, false),
        (_, MAGIC_NANO) => (true, true),
        (m, _) => return Err(PcapError::BadMagic(m)),
    };
    let word = |at: usize| if big_endian { be(at) } else { le(at) };
    let linktype = word(20) & 0x0FFF_FFFF; // upper bits: FCS length flags
    if linktype != LINKTYPE_ETHERNET {
        return Err(PcapError::NotEthernet(linktype));
    }
    let mut frames = Vec::new();
    let mut at = GLOBAL_HEADER_LEN;
    while at < bytes.len() {
        if bytes.len() - at < RECORD_HEADER_LEN {
            return Err(PcapError::Truncated { offset: at });
        }
        let secs = word(at) as u64;
        let frac = word(at + 4) as u64;
        let incl = word(at + 8) as usize;
        let start = at + RECORD_HEADER_LEN;
        let end = start
            .checked_add(incl)
            .filter(|&e| e <= bytes.len())
            .ok_or(PcapError::Truncated { offset: at })?;
        let ns = secs * 1_000_000_000 + if nanos { frac } else { frac * 1000 };
        frames.push((ns, bytes[start..end].to_vec()));
        at = end;
    }
    Ok(frames)
}

/// Writes `frames` as a little-endian pcap with nanosecond timestamps.
pub fn write_pcap(path: impl AsRef<Path>, frames: &[TimedFrame]) -> Result<(), PcapError> {
    std::fs::write(path, to_pcap_bytes(frames, Resolution::Nanoseconds, false))?;
    Ok(())
}

/// Writes a pcap to any writer.
pub fn write_pcap_to<W: Write>(
    mut w: W,
    frames: &[TimedFrame],
    resolution: Resolution,
) -> Result<(), PcapError> {
    w.write_all(&to_pcap_bytes(frames, resolution, false))?;
    Ok(())
}

/// The bytes of a pcap file in the chosen resolution and byte order
/// (microsecond files round timestamps down).
pub fn to_pcap_bytes(frames: &[TimedFrame], resolution: Resolution, big_endian: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        GLOBAL_HEADER_LEN
            + frames
                .iter()
                .map(|f| RECORD_HEADER_LEN + f.1.len())
                .sum::<usize>(),
    );
    let put32 = |out: &mut Vec<u8>, v: u32| {
        out.extend_from_slice(&if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        })
    };
    let put16 = |out: &mut Vec<u8>, v: u16| {
        out.extend_from_slice(&if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        })
    };
    put32(
        &mut out,
        match resolution {
            Resolution::Microseconds => MAGIC_MICRO,
            Resolution::Nanoseconds => MAGIC_NANO,
        },
    );
    put16(&mut out, 2);
    put16(&mut out, 4);
    put32(&mut out, 0); // thiszone
    put32(&mut out, 0); // sigfigs
    put32(&mut out, SNAPLEN);
    put32(&mut out, LINKTYPE_ETHERNET);
    for (ns, data) in frames {
        let secs = (ns / 1_000_000_000) as u32;
        let frac = match resolution {
            Resolution::Microseconds => (ns % 1_000_000_000 / 1000) as u32,
            Resolution::Nanoseconds => (ns % 1_000_000_000) as u32,
        };
        put32(&mut out, secs);
        put32(&mut out, frac);
        put32(&mut out, data.len() as u32);
        put32(&mut out, data.len() as u32);
        out.extend_from_slice(data);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_byte_orders_and_resolutions_round_trip() {
        let frames = vec![
            (1_500_000_123_456_789u64, vec![1, 2, 3]),
            (1_500_000_124_000_000, vec![]),
        ];
        for be in [false, true] {
            let nano = parse_pcap(&to_pcap_bytes(&frames, Resolution::Nanoseconds, be)).unwrap();
            assert_eq!(nano, frames);
            let micro = parse_pcap(&to_pcap_bytes(&frames, Resolution::Microseconds, be)).unwrap();
            assert_eq!(micro[0].0, 1_500_000_123_456_000);
            assert_eq!(micro[1], frames[1]);
        }
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(matches!(
            parse_pcap(&[0; 10]),
            Err(PcapError::Truncated { .. })
        ));
        assert!(matches!(parse_pcap(&[0; 24]), Err(PcapError::BadMagic(0))));
        let mut b = to_pcap_bytes(&[(0, vec![0; 10])], Resolution::Nanoseconds, false);
        b.truncate(b.len() - 1);
        assert!(matches!(
            parse_pcap(&b),
            Err(PcapError::Truncated { offset: 24 })
        ));
    }
}
