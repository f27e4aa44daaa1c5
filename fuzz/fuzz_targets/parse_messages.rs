#![no_main]
//! See `cngw_packet_fuzz::parse_messages`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cngw_packet_fuzz::parse_messages(data));
