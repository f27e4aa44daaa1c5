//! Queue traces: the queue depth of the WAN egress port over time, a CSV
//! file that `cngw replay --queue-trace` drives onto the gateway's external
//! queue-depth input (`qd_ext_bytes`, the LH-04 telemetry).
//!
//! ```text
//! time_ns,port,bytes
//! 0,0,0
//! 14000000,0,70000000
//! ```
//! - `time_ns`: simulated time in nanoseconds from the first clock after
//!   reset and configuration; times never decrease. A depth holds until the
//!   next row.
//! - `port`: the WAN port; the gateway has one, port 0.
//! - `bytes`: the depth, 0..=4294967295 (the input is 32 bits wide).
//!
//! The whole file is checked before a simulation starts; every bad line is
//! reported with its number. Blank lines are ignored; there are no comments.

use anyhow::{Context, Result};
use std::path::Path;

/// The header the file must start with.
pub const HEADER: &str = "time_ns,port,bytes";

/// How many bad lines one error message lists.
const MAX_REPORTED: usize = 10;

/// One row of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRow {
    /// 1-based line number in the file.
    pub line: usize,
    pub time_ns: u64,
    pub bytes: u32,
}

/// A validated queue trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueTrace {
    pub rows: Vec<TraceRow>,
}

fn whole_number(field: &str) -> Option<u64> {
    if field.is_empty() || !field.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    field.parse().ok()
}

impl QueueTrace {
    /// Reads and validates a trace file.
    pub fn load(path: &Path) -> Result<QueueTrace> {
        let text = std::fs::read(path)
            .with_context(|| format!("cannot read the queue trace {}", path.display()))?;
        let text = String::from_utf8(text).map_err(|e| {
            anyhow::anyhow!(
                "queue trace {}: not UTF-8 text (byte {})",
                path.display(),
                e.utf8_error().valid_up_to()
            )
        })?;
        Self::parse(&text).map_err(|problems| {
            let shown: Vec<String> = problems
                .iter()
                .take(MAX_REPORTED)
                .map(|p| format!("  {p}"))
                .collect();
            let more = problems.len().saturating_sub(MAX_REPORTED);
            let tail = if more > 0 {
                format!("\n  ... and {more} more bad line(s)")
            } else {
                String::new()
            };
            anyhow::anyhow!(
                "queue trace {} rejected before the simulation ({} problem(s)):\n{}{tail}",
                path.display(),
                problems.len(),
                shown.join("\n")
            )
        })
    }

    /// Parses and validates trace text; `Err` lists every problem as
    /// `line N: ...`.
    pub fn parse(text: &str) -> Result<QueueTrace, Vec<String>> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
        let mut problems = Vec::new();
        match lines.next() {
            Some((_, header)) if header.split(',').map(str::trim).eq(HEADER.split(',')) => {}
            Some((n, header)) => problems.push(format!(
                "line {n}: the first line must be the header `{HEADER}`, found `{header}`"
            )),
            None => {
                return Err(vec![format!(
                    "line 1: empty file; expected the header `{HEADER}` and rows"
                )])
            }
        }
        let mut rows: Vec<TraceRow> = Vec::new();
        for (line, text) in lines {
            if text.trim().is_empty() {
                continue;
            }
            match parse_row(line, text, rows.last()) {
                Ok(row) => rows.push(row),
                Err(p) => problems.push(format!("line {line}: {p}")),
            }
        }
        if rows.is_empty() && problems.is_empty() {
            problems.push(
                "no rows after the header: a trace needs at least one `time_ns,port,bytes` row"
                    .to_string(),
            );
        }
        if problems.is_empty() {
            Ok(QueueTrace { rows })
        } else {
            Err(problems)
        }
    }

    /// Time of the last row.
    pub fn end_ns(&self) -> u64 {
        self.rows.last().map_or(0, |r| r.time_ns)
    }
}

fn parse_row(line: usize, text: &str, previous: Option<&TraceRow>) -> Result<TraceRow, String> {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    if fields.len() != 3 {
        return Err(format!(
            "expected 3 fields `{HEADER}`, found {}: `{text}`",
            fields.len()
        ));
    }
    let time_ns = whole_number(fields[0]).ok_or_else(|| {
        format!(
            "time_ns `{}` is not a whole number of nanoseconds (0..=18446744073709551615, no unit)",
            fields[0]
        )
    })?;
    let port = whole_number(fields[1])
        .ok_or_else(|| format!("port `{}` is not a port number", fields[1]))?;
    if port != 0 {
        return Err(format!(
            "port {port}: the gateway has one WAN port and takes its queue depth as port 0; \
             only port 0 may appear"
        ));
    }
    let bytes = whole_number(fields[2]).ok_or_else(|| {
        format!(
            "bytes `{}` is not a whole number of bytes (no unit)",
            fields[2]
        )
    })?;
    let bytes = u32::try_from(bytes).map_err(|_| {
        format!(
            "bytes {bytes} does not fit the 32-bit queue-depth input (at most {})",
            u32::MAX
        )
    })?;
    if let Some(p) = previous {
        if time_ns < p.time_ns {
            return Err(format!(
                "time_ns {time_ns} is earlier than {} on line {}: times must not decrease",
                p.time_ns, p.line
            ));
        }
    }
    Ok(TraceRow {
        line,
        time_ns,
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<String> {
        QueueTrace::parse(text).unwrap_err()
    }

    #[test]
    fn lh_04_queue_trace_parses_rows_in_time_order() {
        let t =
            QueueTrace::parse("time_ns,port,bytes\r\n0,0,0\r\n\r\n 10 , 0 , 70000000\r\n10,0,5\n")
                .unwrap();
        assert_eq!(
            t.rows,
            vec![
                TraceRow {
                    line: 2,
                    time_ns: 0,
                    bytes: 0
                },
                TraceRow {
                    line: 4,
                    time_ns: 10,
                    bytes: 70_000_000
                },
                TraceRow {
                    line: 5,
                    time_ns: 10,
                    bytes: 5
                },
            ]
        );
        assert_eq!(t.end_ns(), 10);
        assert!(QueueTrace::parse("\u{feff}time_ns,port,bytes\n0,0,4294967295\n").is_ok());
    }

    #[test]
    fn lh_04_queue_trace_names_every_bad_line() {
        assert!(errors("")[0].contains("empty file"));
        assert!(errors("time,port,bytes\n0,0,0\n")[0]
            .starts_with("line 1: the first line must be the header"));
        assert!(errors("time_ns,port,bytes\n")[0].contains("no rows"));
        let e = errors("time_ns,port,bytes\n0,0\n5,1,0\n7,0,4294967296\n9,0,-1\nx,0,0\n8,0,0\n3,0,0\n1ms,0,0\n");
        assert_eq!(e.len(), 7, "{e:#?}");
        assert!(e[0].starts_with("line 2: expected 3 fields"), "{}", e[0]);
        assert!(
            e[1].starts_with("line 3: port 1") && e[1].contains("port 0"),
            "{}",
            e[1]
        );
        assert!(
            e[2].starts_with("line 4: bytes 4294967296 does not fit the 32-bit"),
            "{}",
            e[2]
        );
        assert!(e[3].starts_with("line 5: bytes `-1`"), "{}", e[3]);
        assert!(e[4].starts_with("line 6: time_ns `x`"), "{}", e[4]);
        // Line 7 (8 ns) is fine; line 8 goes back in time.
        assert!(
            e[5].starts_with("line 8: time_ns 3 is earlier than 8 on line 7"),
            "{}",
            e[5]
        );
        assert!(e[6].starts_with("line 9: time_ns `1ms`"), "{}", e[6]);
    }
}
