pub mod skid_buffer;
pub use skid_buffer::SkidBuffer;
