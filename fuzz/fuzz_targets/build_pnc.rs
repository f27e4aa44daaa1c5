#![no_main]
//! See `cngw_packet_fuzz::build_pnc`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cngw_packet_fuzz::build_pnc(&mut arbitrary::Unstructured::new(data));
});
