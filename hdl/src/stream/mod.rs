pub mod axis;
pub mod frame_mux;
pub mod header_splice;
pub mod skid_buffer;
pub use axis::{AxisSink, AxisSource, AxisTap, HeaderSink, HeaderSource};
pub use frame_mux::FrameMux;
pub use header_splice::HeaderSplice;
pub use skid_buffer::SkidBuffer;
