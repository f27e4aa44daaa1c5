//! The Long-haul CNP second level (LH-05..LH-10): queue-depth arithmetic
//! and the per-port controller that picks flows, actions and rate limits.
pub mod controller;
pub mod queue_kb;
pub mod time_of_day;
pub use controller::LhController;
pub use queue_kb::QueueKb;
pub use time_of_day::TimeOfDay;
