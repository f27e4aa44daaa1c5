#![no_main]
//! See `cngw_packet_fuzz::build_frames`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cngw_packet_fuzz::build_frames(&mut arbitrary::Unstructured::new(data));
});
