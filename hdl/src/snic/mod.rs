//! The source-side SmartNIC (LH-16): a block in front of a sender's legacy
//! RNIC that takes Long-haul CNPs and Rate Advice off the network, keeps
//! each local QP's rate and paces the QP's frames to the network
//! (`model/src/source_nic.rs` is its reference).
pub mod qp_bucket;
pub mod source_nic;
pub use qp_bucket::QpBucket;
pub use source_nic::{div100, SourceNic, QPS};
