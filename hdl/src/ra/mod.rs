//! SCONE Rate Advice (draft-zz-scone-rate-advice-rocev2): the WAN port's
//! advised rate (RCP's law, RA-02) and the per-flow decision to tell a
//! capable sender (RA-01, RA-03).
pub mod rate_advisor;
pub mod rate_law;
pub use rate_advisor::RateAdvisor;
pub use rate_law::{RateLaw, LAW_CLOCKS};
pub mod remote_rx;
pub use remote_rx::RemoteAdviceReceiver;
