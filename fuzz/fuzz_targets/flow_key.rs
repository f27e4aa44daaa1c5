#![no_main]
//! See `cngw_packet_fuzz::flow_key`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cngw_packet_fuzz::flow_key(&mut arbitrary::Unstructured::new(data));
});
