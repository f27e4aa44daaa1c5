//! Fast CNP with flow labels in the WAN (draft-he-fcn-in-wan): the
//! congested WAN node's notification source, the ingress PE's Fast CNP
//! recogniser and its translation of received Fast CNPs into standard CNPs.
pub mod fast_cnp_receiver;
pub mod fast_cnp_source;
pub mod fcn_translator;
pub use fast_cnp_receiver::FastCnpReceiver;
pub use fast_cnp_source::{FastCnpSource, FCN_FIFO_DEPTH};
pub use fcn_translator::{FcnTranslator, FCN_RX_SLOTS};
