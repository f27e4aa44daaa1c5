//! CSR block through the AXI4-Lite port of the Verilated gateway (HW-04),
//! and on its own (`csr_block` unit) clock by clock.

use cngw_regmap::{offset, Access, REGISTERS};
use cngw_sim::{CsrError, Gateway, Unit};

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

const OKAY: u64 = 0;
const SLVERR: u64 = 2;
const DECERR: u64 = 3;

/// The CSR block alone, with a master that is always ready for responses:
/// every write is checked to take exactly three clocks (accept, decode,
/// respond), every read six (accept, decode, the index's copies, two clocks
/// of the data tree, respond), with no second read accepted while one is in
/// flight.
struct Csr(Unit);

impl Csr {
    fn new() -> Csr {
        let mut u = Unit::new("csr_block").unwrap();
        u.set_u64("reset", 1).unwrap();
        u.step();
        u.step();
        u.set_u64("reset", 0).unwrap();
        u.set_u64("s_axil_bready", 1).unwrap();
        u.set_u64("s_axil_rready", 1).unwrap();
        Csr(u)
    }

    fn get(&mut self, port: &str) -> u64 {
        self.0.get_u64(port).unwrap()
    }

    fn value(&mut self, index: usize) -> u64 {
        self.get(&format!("values_{index}"))
    }

    /// Writes `data` under the byte strobes `strb`; returns BRESP. With
    /// `pulse`, also checks that register `pulse` shows `expect` for
    /// exactly the clock the response is raised, and 0 around it.
    fn write(&mut self, addr: u32, data: u32, strb: u32, pulse: Option<(usize, u64)>) -> u64 {
        let u = &mut self.0;
        u.set_u64("s_axil_awaddr", addr as u64).unwrap();
        u.set_u64("s_axil_wdata", data as u64).unwrap();
        u.set_u64("s_axil_wstrb", strb as u64).unwrap();
        u.set_u64("s_axil_awvalid", 1).unwrap();
        u.set_u64("s_axil_wvalid", 1).unwrap();
        assert_eq!(self.get("s_axil_awready"), 1, "{addr:#x}: accepted at once");
        assert_eq!(self.get("s_axil_wready"), 1, "{addr:#x}: accepted at once");
        self.0.step();
        self.0.set_u64("s_axil_awvalid", 0).unwrap();
        self.0.set_u64("s_axil_wvalid", 0).unwrap();
        assert_eq!(self.get("s_axil_bvalid"), 0, "{addr:#x}: decode clock");
        if let Some((i, _)) = pulse {
            assert_eq!(self.value(i), 0, "{addr:#x}: no pulse before the response");
        }
        self.0.step();
        assert_eq!(self.get("s_axil_bvalid"), 1, "{addr:#x}: response clock");
        let resp = self.get("s_axil_bresp");
        if let Some((i, expect)) = pulse {
            assert_eq!(self.value(i), expect, "{addr:#x} strobes {strb:#x}: pulse");
        }
        self.0.step();
        assert_eq!(self.get("s_axil_bvalid"), 0, "{addr:#x}: one response");
        if let Some((i, _)) = pulse {
            assert_eq!(self.value(i), 0, "{addr:#x}: the pulse lasts one clock");
        }
        resp
    }

    /// Reads `addr`: (RRESP, RDATA).
    fn read(&mut self, addr: u32) -> (u64, u64) {
        self.0.set_u64("s_axil_araddr", addr as u64).unwrap();
        self.0.set_u64("s_axil_arvalid", 1).unwrap();
        assert_eq!(self.get("s_axil_arready"), 1, "{addr:#x}: accepted at once");
        self.0.step();
        // arvalid stays high through the read: no second read is accepted
        // before the response.
        for clock in [
            "decode",
            "index copies",
            "lower data tree",
            "upper data tree",
        ] {
            assert_eq!(self.get("s_axil_rvalid"), 0, "{addr:#x}: {clock} clock");
            assert_eq!(self.get("s_axil_arready"), 0, "{addr:#x}: {clock} clock");
            self.0.step();
        }
        self.0.set_u64("s_axil_arvalid", 0).unwrap();
        assert_eq!(self.get("s_axil_rvalid"), 1, "{addr:#x}: response clock");
        let got = (self.get("s_axil_rresp"), self.get("s_axil_rdata"));
        self.0.step();
        assert_eq!(self.get("s_axil_rvalid"), 0, "{addr:#x}: one response");
        got
    }
}

/// The bits of `strb`'s byte lanes.
fn lane_mask(strb: u32) -> u32 {
    (0..4)
        .filter(|k| (strb >> k) & 1 == 1)
        .fold(0, |m, k| m | (0xff << (8 * k)))
}

#[test]
fn hw_04_every_strobe_combination_on_every_writable_register() {
    let mut csr = Csr::new();
    for (i, r) in REGISTERS.iter().enumerate() {
        match r.access {
            Access::ReadWrite => {
                let mut expect = 0xFFFF_FFFFu32;
                assert_eq!(csr.write(r.offset, expect, 0xf, None), OKAY, "{}", r.name);
                for strb in 0..16u32 {
                    let data =
                        0x1234_5678u32.rotate_left(strb) ^ r.offset.wrapping_mul(0x9E37_79B9);
                    assert_eq!(csr.write(r.offset, data, strb, None), OKAY, "{}", r.name);
                    let mask = lane_mask(strb);
                    expect = (expect & !mask) | (data & mask);
                    assert_eq!(csr.value(i), expect as u64, "{} strobes {strb:#x}", r.name);
                    assert_eq!(
                        csr.read(r.offset),
                        (OKAY, expect as u64),
                        "{} strobes {strb:#x}",
                        r.name
                    );
                }
            }
            Access::WritePulse => {
                for strb in 0..16u32 {
                    let data = 0xFFFF_FFFFu32 ^ (strb << 4);
                    let pulse = (data & lane_mask(strb)) as u64;
                    let resp = csr.write(r.offset, data, strb, Some((i, pulse)));
                    assert_eq!(resp, OKAY, "{}", r.name);
                    assert_eq!(csr.read(r.offset), (OKAY, 0), "{}", r.name);
                }
            }
            Access::ReadOnly => {
                let before = csr.read(r.offset);
                assert_eq!(csr.write(r.offset, !0, 0xf, None), SLVERR, "{}", r.name);
                assert_eq!(csr.read(r.offset), before, "{}", r.name);
            }
        }
    }
}

#[test]
fn hw_04_reads_select_each_register_across_the_address_range() {
    let mut csr = Csr::new();
    // A distinct value in every register: written storage, driven status.
    let mut expect = Vec::new();
    for (i, r) in REGISTERS.iter().enumerate() {
        let v = 0x8000_0000 | ((i as u32) << 20) | (r.offset.wrapping_mul(0x0001_0003) & 0xF_FFFF);
        csr.0.set_u64(&format!("status_{i}"), v as u64).unwrap();
        expect.push(match r.access {
            Access::ReadWrite => {
                assert_eq!(csr.write(r.offset, v, 0xf, None), OKAY, "{}", r.name);
                v
            }
            Access::WritePulse => 0,
            Access::ReadOnly if r.volatile => v,
            Access::ReadOnly => r.reset,
        });
    }
    // Every word of the 4 KiB space, from the top down (each read differs
    // from the previous one in the decoded word), and the misaligned
    // addresses of every register.
    for word in (0..1024u32).rev() {
        let addr = 4 * word;
        let got = csr.read(addr);
        match REGISTERS.iter().position(|r| r.offset == addr) {
            Some(i) => assert_eq!(
                got,
                (OKAY, expect[i] as u64),
                "{} at {addr:#x}",
                REGISTERS[i].name
            ),
            None => assert_eq!(got, (DECERR, 0), "unmapped {addr:#x}"),
        }
    }
    for r in REGISTERS {
        for low in 1..4 {
            assert_eq!(csr.read(r.offset + low), (DECERR, 0), "{} + {low}", r.name);
            assert_eq!(
                csr.write(r.offset + low, !0, 0xf, None),
                DECERR,
                "{} + {low}",
                r.name
            );
        }
    }
    // Nothing changed; reset restores the reset values.
    for (i, r) in REGISTERS.iter().enumerate() {
        assert_eq!(csr.read(r.offset), (OKAY, expect[i] as u64), "{}", r.name);
    }
    csr.0.set_u64("reset", 1).unwrap();
    csr.0.step();
    csr.0.set_u64("reset", 0).unwrap();
    for (i, r) in REGISTERS.iter().enumerate() {
        let after_reset = match r.access {
            Access::ReadWrite => r.reset,
            _ => expect[i],
        };
        assert_eq!(csr.read(r.offset), (OKAY, after_reset as u64), "{}", r.name);
        let value = if r.access == Access::ReadWrite {
            r.reset
        } else {
            0
        };
        assert_eq!(csr.value(i), value as u64, "{}", r.name);
    }
}
