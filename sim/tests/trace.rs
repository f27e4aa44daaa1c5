//! Optional VCD waveform of the Verilated gateway (HW-03).

use cngw_sim::{frame_to_beats, Gateway, InPort};

#[test]
fn hw_03_vcd_trace_records_the_ports() {
    let path = std::env::temp_dir().join(format!("cngw-trace-{}.vcd", std::process::id()));
    {
        let mut gw = Gateway::with_trace(&path).unwrap();
        let beats = frame_to_beats(&[0xab; 70], false);
        for b in &beats {
            gw.drive(InPort::DcRx, Some(b));
            gw.step();
        }
        gw.drive(InPort::DcRx, None);
        gw.run(4);
    }
    let vcd = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert!(vcd.contains("$var") && vcd.contains("dc_rx_tvalid") && vcd.contains("wan_tx_tdata"));
    // Tracing starts after the reset: 2 beats and 4 idle clocks, two time
    // stamps (rising and falling edge) per clock.
    let stamps = vcd.lines().filter(|l| l.starts_with('#')).count();
    assert_eq!(stamps, 2 * 6);
}

#[test]
fn hw_03_trace_to_an_unwritable_path_is_an_error() {
    let err = Gateway::with_trace(std::path::Path::new("/nonexistent-dir/x.vcd"));
    assert!(err.is_err());
}
