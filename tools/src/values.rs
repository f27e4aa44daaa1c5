//! Parsers of argument values, for clap's `value_parser`. Units come from the
//! driver (`cngw_driver::units`), so the CLI and configuration files accept the
//! same spellings.

use cngw_driver::units::{parse_bytes, parse_duration, parse_rate};
use std::time::Duration;

pub fn parse_rate_arg(text: &str) -> Result<u64, String> {
    parse_rate(text).map_err(|e| e.to_string())
}

pub fn parse_duration_arg(text: &str) -> Result<Duration, String> {
    parse_duration(text).map_err(|e| e.to_string())
}

/// A run length: a duration with a unit, above zero.
pub fn parse_run_duration(text: &str) -> Result<Duration, String> {
    let d = parse_duration_arg(text)?;
    if d.is_zero() {
        Err(format!("{text:?}: a run must last longer than 0"))
    } else {
        Ok(d)
    }
}

/// `cngw synth --seeds`: how many nextpnr runs, at least one.
pub fn parse_seeds(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(0) => Err("--seeds must be at least 1 (one place-and-route run per seed)".into()),
        Ok(n) if n <= 100 => Ok(n),
        Ok(_) => Err(format!("{text:?}: at most 100 seeds")),
        Err(_) => Err(format!("{text:?} is not a number of seeds")),
    }
}

/// `cngw synth --freq`: a target clock in MHz, above 0.
pub fn parse_synth_mhz(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 && f <= 2000.0 => Ok(f),
        _ => Err(format!(
            "{text:?} is not a frequency in MHz (0 < MHZ <= 2000)"
        )),
    }
}

pub fn parse_bytes_arg(text: &str) -> Result<u64, String> {
    parse_bytes(text).map_err(|e| e.to_string())
}

/// A queue depth in bytes that the 32-bit telemetry input can carry.
pub fn parse_queue_depth(text: &str) -> Result<u32, String> {
    let bytes = parse_bytes(text).map_err(|e| e.to_string())?;
    u32::try_from(bytes)
        .map_err(|_| format!("{text:?} is more than the 32-bit queue-depth input holds"))
}

/// A 32-bit register value or offset: `0x1f`, `0X1F`, `31`, `0b11111`, with
/// optional `_` separators.
pub fn parse_u32(text: &str) -> Result<u32, String> {
    let cleaned: String = text.trim().chars().filter(|&c| c != '_').collect();
    let lower = cleaned.to_ascii_lowercase();
    let (digits, radix) = if let Some(hex) = lower.strip_prefix("0x") {
        (hex, 16)
    } else if let Some(bin) = lower.strip_prefix("0b") {
        (bin, 2)
    } else {
        (lower.as_str(), 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!(
            "{text:?} is not a number (use hex 0x..., binary 0b... or decimal)"
        ));
    }
    // Leading zeros never make a value too large.
    let significant = match digits.trim_start_matches('0') {
        "" => "0",
        rest => rest,
    };
    let value = u128::from_str_radix(significant, radix)
        .map_err(|_| format!("{text:?} is out of range for a 32-bit register (0..=0xffffffff)"))?;
    u32::try_from(value)
        .map_err(|_| format!("{text:?} is out of range for a 32-bit register (0..=0xffffffff)"))
}

pub fn parse_u32_arg(text: &str) -> Result<u32, String> {
    parse_u32(text)
}

/// A queue-pair number: 24 bits, decimal or `0x` hex.
pub fn parse_qp(text: &str) -> Result<u32, String> {
    let value = parse_u32(text).map_err(|e| e.replace("a 32-bit register", "a QP number"))?;
    if value > cngw_driver::flows::QP_MAX {
        return Err(format!(
            "{text:?} does not fit the 24-bit QP number (max {} = {:#x})",
            cngw_driver::flows::QP_MAX,
            cngw_driver::flows::QP_MAX
        ));
    }
    Ok(value)
}

/// An IPv4 or IPv6 address.
pub fn parse_ip(text: &str) -> Result<std::net::IpAddr, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{text:?} is not an IPv4 or IPv6 address"))
}

/// A 16-bit code point, decimal or `0x` hex.
pub fn parse_u16_code(text: &str) -> Result<u16, String> {
    let t = text.trim();
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u16::from_str_radix(h, 16),
        None => t.parse(),
    };
    v.map_err(|_| format!("{text:?} is not a 16-bit code (0..=65535, decimal or 0x hex)"))
}

/// A probability for random stalls: 0 <= p < 1 (1 would stall forever).
pub fn parse_probability(text: &str) -> Result<f64, String> {
    let p: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if (0.0..1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{text} is outside 0 <= P < 1"))
    }
}

/// RoCE path MTU: one of the InfiniBand sizes.
pub fn parse_mtu(text: &str) -> Result<usize, String> {
    const MTUS: [usize; 5] = [256, 512, 1024, 2048, 4096];
    match text.trim().parse::<usize>() {
        Ok(mtu) if MTUS.contains(&mtu) => Ok(mtu),
        _ => Err(format!(
            "{text:?} is not a RoCE path MTU (256, 512, 1024, 2048 or 4096)"
        )),
    }
}

/// Largest frame the benchmark builds, in bytes (a 9 KB jumbo frame).
pub const MAX_BENCH_FRAME: usize = 9216;

/// A benchmark frame size: a whole Ethernet frame without FCS.
pub fn parse_frame_size(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (60..=MAX_BENCH_FRAME).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is not a frame size in bytes from 60 to {MAX_BENCH_FRAME}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_04_register_values_parse_in_hex_binary_and_decimal() {
        assert_eq!(parse_u32("0x434E4757"), Ok(0x434E_4757));
        assert_eq!(parse_u32("0X1f"), Ok(31));
        assert_eq!(parse_u32("0b101"), Ok(5));
        assert_eq!(parse_u32("125_000_000"), Ok(125_000_000));
        assert_eq!(parse_u32("4294967295"), Ok(u32::MAX));
        assert_eq!(parse_u32("0"), Ok(0));
        assert_eq!(parse_u32("0x0000000000000001"), Ok(1));
        for bad in ["", "0x", "-1", "12z", "1.5", "0xg"] {
            assert!(
                parse_u32(bad).unwrap_err().contains("not a number"),
                "{bad}"
            );
        }
        for big in [
            "4294967296",
            "0x100000000",
            "99999999999999999999999999999999999999999",
        ] {
            assert!(
                parse_u32(big).unwrap_err().contains("out of range"),
                "{big}"
            );
        }
    }

    #[test]
    fn lh_01_qp_numbers_are_24_bits() {
        assert_eq!(parse_qp("200"), Ok(200));
        assert_eq!(parse_qp("0xffffff"), Ok(0xFF_FFFF));
        assert!(parse_qp("0x1000000").unwrap_err().contains("24-bit"));
        assert!(parse_qp("0x100000000")
            .unwrap_err()
            .contains("out of range for a QP number"));
        assert!(parse_qp("qp").unwrap_err().contains("not a number"));
        assert!(parse_ip("10.0.0.1").unwrap().is_ipv4());
        assert!(parse_ip("fd00::1").unwrap().is_ipv6());
        assert!(parse_ip("10.0.0.256")
            .unwrap_err()
            .contains("not an IPv4 or IPv6 address"));
    }

    #[test]
    fn hw_04_probabilities_must_let_the_stream_drain() {
        assert_eq!(parse_probability("0.25"), Ok(0.25));
        assert!(parse_probability("1").is_err());
        assert!(parse_probability("-0.1").is_err());
        assert!(parse_probability("x").is_err());
    }
}
