//! Fast CNP with flow labels in the WAN (draft-he-fcn-in-wan): the
//! congested WAN node's notification source and the ingress PE's Fast CNP
//! recogniser.
pub mod fast_cnp_receiver;
pub mod fast_cnp_source;
pub use fast_cnp_receiver::FastCnpReceiver;
pub use fast_cnp_source::{FastCnpSource, FCN_FIFO_DEPTH};
