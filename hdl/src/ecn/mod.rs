pub mod ce_marker;
pub use ce_marker::CeMarker;
