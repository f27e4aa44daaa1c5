//! Parsing of rates, durations and byte sizes as people write them.
//!
//! - Rates are bits per second with decimal prefixes: `100G`, `25G`, `400M`,
//!   `2.5Gbps`, `10000000000`.
//! - Durations need a unit: `10ms`, `500us` (or `µs`), `1s`, `250ns`.
//! - Byte sizes use binary prefixes, as buffer sizes do: `64K` = `64KiB` =
//!   `64KB` = 65536, `1M` = 1048576, or a plain `65536`.
//!
//! Decimal fractions are exact (`2.5G` is 2,500,000,000); a value that is not a
//! whole number of the base unit is an error rather than silently rounded.

use std::time::Duration;
use thiserror::Error;

/// A value that could not be parsed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("invalid {what} {text:?}: {reason}")]
pub struct UnitError {
    /// "rate", "duration" or "byte size".
    pub what: &'static str,
    pub text: String,
    pub reason: String,
}

/// A non-negative decimal number split into digits and the count of digits
/// after the point: `2.50` is (250, 2).
fn split_number(text: &str) -> Option<(&str, &str)> {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(end);
    if number.is_empty() {
        None
    } else {
        Some((number, unit.trim()))
    }
}

/// `number * scale`, exactly; `None` if it is not a whole number or overflows.
fn scaled(number: &str, scale: u128) -> Result<u64, &'static str> {
    let digits: String = number.chars().filter(|&c| c != '_').collect();
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) => (w, f),
        None => (digits.as_str(), ""),
    };
    if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
        return Err("not a number");
    }
    if fraction.len() > 30 {
        return Err("too many digits");
    }
    let mantissa: u128 = format!("{whole}{fraction}")
        .parse()
        .map_err(|_| "not a number")?;
    let denominator = 10u128.pow(fraction.len() as u32);
    let product = mantissa.checked_mul(scale).ok_or("too large")?;
    if product % denominator != 0 {
        return Err("not a whole number of the base unit");
    }
    u64::try_from(product / denominator).map_err(|_| "too large")
}

fn error(what: &'static str, text: &str, reason: impl Into<String>) -> UnitError {
    UnitError {
        what,
        text: text.to_string(),
        reason: reason.into(),
    }
}

/// Parses a rate in bits per second: `100G`, `400M`, `2.5Gbps`, `10000000000`.
pub fn parse_rate(text: &str) -> Result<u64, UnitError> {
    const WHAT: &str = "rate";
    let trimmed = text.trim();
    let (number, unit) =
        split_number(trimmed).ok_or_else(|| error(WHAT, text, "expected a number, e.g. 100G"))?;
    let lower = unit.to_ascii_lowercase();
    let prefix = ["bps", "b/s", "bit/s"]
        .iter()
        .find_map(|suffix| lower.strip_suffix(suffix))
        .unwrap_or(&lower);
    let scale: u128 = match prefix {
        "" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "g" => 1_000_000_000,
        "t" => 1_000_000_000_000,
        _ => {
            return Err(error(
                WHAT,
                text,
                format!("unknown unit {unit:?} (use K, M, G or T, optionally followed by bps)"),
            ))
        }
    };
    scaled(number, scale).map_err(|reason| error(WHAT, text, format!("{reason} (bits per second)")))
}

/// Parses a duration with a unit: `10ms`, `500us`, `500µs`, `1s`, `250ns`.
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    const WHAT: &str = "duration";
    let trimmed = text.trim();
    let (number, unit) =
        split_number(trimmed).ok_or_else(|| error(WHAT, text, "expected a number, e.g. 10ms"))?;
    let scale: u128 = match unit {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "" => return Err(error(WHAT, text, "missing unit (use ns, us, ms or s)")),
        _ => {
            return Err(error(
                WHAT,
                text,
                format!("unknown unit {unit:?} (use ns, us, ms or s)"),
            ))
        }
    };
    let nanos = scaled(number, scale)
        .map_err(|reason| error(WHAT, text, format!("{reason} (nanoseconds)")))?;
    Ok(Duration::from_nanos(nanos))
}

/// Parses a byte size with binary prefixes: `64K` (65536), `1M`, `2GiB`, `65536`.
pub fn parse_bytes(text: &str) -> Result<u64, UnitError> {
    const WHAT: &str = "byte size";
    let trimmed = text.trim();
    let (number, unit) =
        split_number(trimmed).ok_or_else(|| error(WHAT, text, "expected a number, e.g. 64K"))?;
    let lower = unit.to_ascii_lowercase();
    let prefix = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let scale: u128 = match prefix {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        _ => {
            return Err(error(
                WHAT,
                text,
                format!("unknown unit {unit:?} (use K, M or G; binary, 64K = 65536)"),
            ))
        }
    };
    if lower.ends_with("ib") && prefix.is_empty() {
        return Err(error(WHAT, text, format!("unknown unit {unit:?}")));
    }
    scaled(number, scale).map_err(|reason| error(WHAT, text, format!("{reason} (bytes)")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_04_parse_rate() {
        assert_eq!(parse_rate("100G").unwrap(), 100_000_000_000);
        assert_eq!(parse_rate("25G").unwrap(), 25_000_000_000);
        assert_eq!(parse_rate("400M").unwrap(), 400_000_000);
        assert_eq!(parse_rate("10000000000").unwrap(), 10_000_000_000);
        assert_eq!(parse_rate("2.5Gbps").unwrap(), 2_500_000_000);
        assert_eq!(parse_rate(" 100 Gb/s ").unwrap(), 100_000_000_000);
        assert_eq!(parse_rate("1T").unwrap(), 1_000_000_000_000);
        assert_eq!(parse_rate("10_000M").unwrap(), 10_000_000_000);
        for bad in [
            "",
            "G",
            "100X",
            "1.5",
            "-1G",
            "1.2.3G",
            "99999999999T",
            "100 G G",
        ] {
            let err = parse_rate(bad).unwrap_err();
            assert!(err.to_string().starts_with("invalid rate"), "{bad}: {err}");
        }
    }

    #[test]
    fn hw_04_parse_duration() {
        assert_eq!(parse_duration("10ms").unwrap(), Duration::from_millis(10));
        assert_eq!(parse_duration("500us").unwrap(), Duration::from_micros(500));
        assert_eq!(parse_duration("500µs").unwrap(), Duration::from_micros(500));
        assert_eq!(parse_duration("1s").unwrap(), Duration::from_secs(1));
        assert_eq!(
            parse_duration("1.5ms").unwrap(),
            Duration::from_micros(1500)
        );
        assert_eq!(parse_duration("250ns").unwrap(), Duration::from_nanos(250));
        let err = parse_duration("10").unwrap_err();
        assert!(err.reason.contains("missing unit"), "{err}");
        for bad in ["", "ms", "10min", "0.5ns", "1h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hw_04_parse_bytes() {
        assert_eq!(parse_bytes("64K").unwrap(), 65_536);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65_536);
        assert_eq!(parse_bytes("64kb").unwrap(), 65_536);
        assert_eq!(parse_bytes("65536").unwrap(), 65_536);
        assert_eq!(parse_bytes("1M").unwrap(), 1 << 20);
        assert_eq!(parse_bytes("1.5M").unwrap(), 3 << 19);
        assert_eq!(parse_bytes("100B").unwrap(), 100);
        assert_eq!(parse_bytes("2G").unwrap(), 2 << 30);
        for bad in ["", "K", "64Q", "0.3K", "1iB", "64 K B"] {
            let err = parse_bytes(bad).unwrap_err();
            assert!(
                err.to_string().starts_with("invalid byte size"),
                "{bad}: {err}"
            );
        }
    }
}
