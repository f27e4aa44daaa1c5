pub mod cm_event;
pub mod cm_learner;
pub mod cm_snoop;
pub mod psn_pairer;
pub use cm_event::{CmEventSink, CmEventSource};
pub use cm_learner::CmLearner;
pub use cm_snoop::CmSnoop;
pub use psn_pairer::PsnPairer;
