pub mod axis;
pub mod frame_filter;
pub mod frame_mux;
pub mod skid_buffer;
pub use axis::{AxisSink, AxisSource, AxisTap, HeaderSink, HeaderSource};
pub use frame_filter::FrameFilter;
pub use frame_mux::FrameMux;
pub use skid_buffer::SkidBuffer;
