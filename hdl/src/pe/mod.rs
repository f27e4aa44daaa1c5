//! Precise ECN in the WAN (draft-hu-rtgwg-pre-ecn-wan): the congested WAN
//! node's two-threshold marking.
pub mod two_threshold;
pub use two_threshold::TwoThreshold;
