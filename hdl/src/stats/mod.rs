pub mod frame_counters;
pub use frame_counters::FrameCounters;
