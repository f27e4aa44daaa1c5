//! The Long-haul CNP body shared by both encapsulations
//! (draft-tian-ccwg-long-haul-cnp-00, "Long-haul CNP in ICMPv6 Format" and
//! "Extension Fields"): 12 fixed bytes, then an optional extension structure
//! ([`crate::icmp_extension`]).
//!
//! ```text
//! +---------------+---------------+-------------------------------+
//! |  Cong. Level  | Action Flags  |          Parameter            |
//! +---------------+---------------+-------------------------------+
//! |                      Source QP Number                         |
//! +---------------+-----------------------------------------------+
//! |  Metric Type  |         Congestion Metric Value (24 bits)     |
//! +---------------+-----------------------------------------------+
//! ```
//!
//! Action Flags: the top two bits are the action, the low six are reserved
//! (sent as zero, ignored on receipt).

use crate::error::{Layer, ParseError};
use crate::icmp_extension::ExtensionStructure;
use crate::wire::{put_u24, Cursor};

/// Length of the fixed body.
pub const BODY_LEN: usize = 12;

/// Control action requested of the source ("Action Instruction
/// Determination").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// 00: apply the default congestion response; parameter 0.
    Notify = 0,
    /// 01: pause the QP for `parameter` microseconds.
    Pause = 1,
    /// 10: reduce the rate by `parameter` percent.
    RateReduce = 2,
    /// 11: recover `parameter` percent of the last reduction (0: all).
    Resume = 3,
}

impl Action {
    /// The action of an Action Flags byte (reserved bits ignored).
    pub fn from_flags(flags: u8) -> Self {
        match flags >> 6 {
            0 => Action::Notify,
            1 => Action::Pause,
            2 => Action::RateReduce,
            _ => Action::Resume,
        }
    }

    /// The Action Flags byte (reserved bits zero).
    pub fn flags(self) -> u8 {
        (self as u8) << 6
    }
}

/// Metric Type values ("Congestion Metric Type Values").
pub mod metric_type {
    pub const UNSPECIFIED: u8 = 0;
    /// Queue depth in kilobytes.
    pub const QUEUE_DEPTH_KB: u8 = 1;
    /// Queue growth rate in kilobytes per millisecond.
    pub const QUEUE_GROWTH_KB_PER_MS: u8 = 2;
    /// ECN marking rate in percent.
    pub const ECN_MARKING_RATE_PERCENT: u8 = 3;
    /// RTT-based metric in microseconds.
    pub const RTT_US: u8 = 4;
}

/// The 12-byte fixed body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LonghaulBody {
    /// 0 no congestion .. 255 maximum severity.
    pub congestion_level: u8,
    pub action: Action,
    pub parameter: u16,
    /// QP at the traffic source that should act.
    pub source_qp: u32,
    pub metric_type: u8,
    /// 24 bits.
    pub metric_value: u32,
}

impl LonghaulBody {
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(buf, Layer::LonghaulCnp);
        Ok(LonghaulBody {
            congestion_level: c.u8()?,
            action: Action::from_flags(c.u8()?),
            parameter: c.u16()?,
            source_qp: c.u32()?,
            metric_type: c.u8()?,
            metric_value: c.u24()?,
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.congestion_level);
        out.push(self.action.flags());
        out.extend_from_slice(&self.parameter.to_be_bytes());
        out.extend_from_slice(&self.source_qp.to_be_bytes());
        out.push(self.metric_type);
        put_u24(out, self.metric_value);
    }

    /// The body with Metric Type and Value zeroed (LH-14, "Information
    /// Disclosure" in the draft's security considerations).
    pub fn without_metric(mut self) -> Self {
        self.metric_type = 0;
        self.metric_value = 0;
        self
    }
}

/// Body plus optional extension structure: the part common to the RoCEv2
/// and the ICMPv6 format.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LonghaulCnp {
    pub body: LonghaulBody,
    /// Present only with at least one object ("When no extension objects
    /// are present, the Extension Header MUST be omitted").
    pub extension: Option<ExtensionStructure>,
}

impl LonghaulCnp {
    pub fn new(body: LonghaulBody) -> Self {
        LonghaulCnp {
            body,
            extension: None,
        }
    }

    /// Parses body and extension from `buf` (exactly the message, without
    /// ICRC); bytes after the body are the extension structure.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let body = LonghaulBody::parse(buf)?;
        let rest = &buf[BODY_LEN..];
        let extension = if rest.is_empty() {
            None
        } else {
            Some(ExtensionStructure::parse(rest)?)
        };
        Ok(LonghaulCnp { body, extension })
    }

    pub fn len(&self) -> usize {
        BODY_LEN + self.extension.as_ref().map_or(0, |e| e.len())
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        self.body.write(out);
        if let Some(e) = &self.extension {
            e.write(out);
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write(&mut v);
        v
    }
}
