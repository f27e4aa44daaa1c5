//! Packet formats of cngw: one definition used by every layer.

pub mod parsed;
