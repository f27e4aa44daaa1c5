//! The provider edge: precise ECN in the WAN (draft-hu-rtgwg-pre-ecn-wan),
//! the congested WAN node's two-threshold marking, and the tunnel
//! encapsulation of the ingress PE (draft-he-fcn-in-wan section 4.1) and the
//! decapsulation of the egress PE (RFC 6040 / pre-ECN tables), and the
//! ingress PE's per-flow shaper upon light notifications (PE-05).
pub mod flow_shaper;
pub mod ingress_queue;
pub mod tunnel_decap;
pub mod tunnel_encap;
pub mod two_threshold;
pub use flow_shaper::FlowShaper;
pub use ingress_queue::IngressQueue;
pub use tunnel_decap::TunnelDecap;
pub use tunnel_encap::TunnelEncap;
pub use two_threshold::TwoThreshold;
