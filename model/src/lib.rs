//! Behavioural reference model of the whole gateway.
//!
//! The RTL is compared with this model frame for frame (see
//! `cngw-testbench`). It works on whole frames, not beats: it says which
//! frames leave which port, with which bytes, what the parsers report and
//! what the counters read. Each feature issue extends it.
pub mod bucket;
pub mod ecn;
pub mod fast_cnp;
pub mod fcn_rx;
pub mod flow_shaper;
pub mod gateway;
pub mod learning;
pub mod longhaul;
pub mod meter;
pub mod placement;
pub mod ports;
pub mod pre_ecn;
pub mod proxy;
pub mod proxy_rx;
pub mod proxy_table;
pub mod proxy_tx;
pub mod rate_advice;
pub mod scenario;
pub mod source_nic;
pub mod tunnel_decap;
pub mod tunnel_ecn;
pub mod tunnel_encap;

pub use gateway::{Frame, GatewayModel, ModelOutput};
pub use learning::{Binding, Learner, LearnerConfig, LearnerCounters, Method};
pub use longhaul::Notification;
pub use ports::{InPort, OutPort};
