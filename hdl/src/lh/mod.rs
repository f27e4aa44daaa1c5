//! The Long-haul CNP second level (LH-05..LH-10, LH-15): queue-depth
//! arithmetic, the per-port controller that picks flows, actions and rate
//! limits, and the format table that says which format a sender accepts.
pub mod controller;
pub mod format_table;
pub mod queue_kb;
pub mod queue_meter;
pub mod time_of_day;
pub use controller::LhController;
pub use format_table::FormatTable;
pub use queue_kb::QueueKb;
pub use queue_meter::QueueMeter;
pub use time_of_day::TimeOfDay;
