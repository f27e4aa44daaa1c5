//! CSR block through the AXI4-Lite port of the Verilated gateway (HW-04).

use cngw_regmap::{offset, Access, REGISTERS};
use cngw_sim::{CsrError, Gateway};

#[test]
fn hw_04_every_register_reads_its_reset_value() {
    let mut gw = Gateway::new();
    for r in REGISTERS {
        let expected = if r.access == Access::WritePulse {
            0
        } else {
            r.reset
        };
        assert_eq!(gw.csr_read(r.offset), Ok(expected), "{}", r.name);
    }
}

#[test]
fn hw_04_scratch_and_storage_registers_hold_writes() {
    let mut gw = Gateway::new();
    for r in REGISTERS.iter().filter(|r| r.access == Access::ReadWrite) {
        let value = 0xA5A5_0000 ^ r.offset.wrapping_mul(0x9E37_79B9);
        gw.csr_write(r.offset, value).unwrap();
        assert_eq!(gw.csr_read(r.offset), Ok(value), "{}", r.name);
    }
    gw.reset();
    assert_eq!(
        gw.csr_read(offset::SCRATCH),
        Ok(0),
        "reset restores the reset value"
    );
}

#[test]
fn hw_04_read_only_writes_are_refused_and_change_nothing() {
    let mut gw = Gateway::new();
    for r in REGISTERS.iter().filter(|r| r.access == Access::ReadOnly) {
        let before = gw.csr_read(r.offset).unwrap();
        assert_eq!(
            gw.csr_write(r.offset, !before),
            Err(CsrError::SlaveError { offset: r.offset }),
            "{}",
            r.name
        );
        assert_eq!(gw.csr_read(r.offset), Ok(before), "{}", r.name);
    }
}

#[test]
fn hw_04_unmapped_and_misaligned_offsets_answer_decerr() {
    let mut gw = Gateway::new();
    // The word after the last register is unmapped, whatever the map grows to.
    let past_end = REGISTERS.iter().map(|r| r.offset).max().unwrap() + 4;
    for off in [0x018, 0x0FC, 0x102, past_end, 0xFFC] {
        assert_eq!(gw.csr_read(off), Err(CsrError::DecodeError { offset: off }));
        assert_eq!(
            gw.csr_write(off, 1),
            Err(CsrError::DecodeError { offset: off })
        );
    }
    // A refused access leaves the bus usable.
    assert_eq!(gw.csr_read(offset::ID), Ok(cngw_regmap::DEVICE_ID));
}

#[test]
fn hw_04_external_queue_depth_is_visible() {
    let mut gw = Gateway::new();
    gw.set_queue_depth(123_456_789, true);
    gw.step();
    gw.set_queue_depth(0, false);
    assert_eq!(
        gw.csr_read(offset::PORT0_QUEUE_DEPTH_BYTES),
        Ok(123_456_789)
    );
}

#[test]
fn hw_03_ports_by_name() {
    let mut gw = Gateway::new();
    assert_eq!(gw.get_port("s_axil_awready").unwrap(), vec![0]);
    assert_eq!(gw.get_port("dc_rx_tready").unwrap(), vec![1]);
    assert_eq!(gw.get_port("dc_tx_tdata").unwrap().len(), 16);
    gw.set_port("qd_ext_bytes", &[0xdead_beef]).unwrap();
    gw.set_port("qd_ext_valid", &[1]).unwrap();
    gw.step();
    gw.set_port("qd_ext_valid", &[0]).unwrap();
    assert_eq!(
        gw.csr_read(offset::PORT0_QUEUE_DEPTH_BYTES),
        Ok(0xdead_beef)
    );
    assert!(
        gw.set_port("dc_tx_tvalid", &[1]).is_err(),
        "outputs cannot be driven"
    );
    assert!(gw.get_port("no_such_port").is_err());
}
