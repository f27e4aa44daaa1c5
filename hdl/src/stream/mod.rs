pub mod axis;
pub mod skid_buffer;
pub use axis::{AxisSink, AxisSource, AxisTap, HeaderSink, HeaderSource};
pub use skid_buffer::SkidBuffer;
