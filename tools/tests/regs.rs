//! `cngw regs` and `cngw thresholds` against the simulator (HW-04, LH-03).

mod common;
use common::cngw;

/// Every bad request fails with a clear message, and none reaches a register
/// write (`--verbose` logs every bus access; there must be no write).
#[test]
fn hw_04_cli_rejects_bad_arguments_before_any_write() {
    let cases: &[(&[&str], &str)] = &[
        // Port the device does not have (CAPABILITIES.num_ports = 1).
        (
            &[
                "thresholds",
                "--port",
                "1",
                "--rate",
                "100G",
                "--rtt",
                "10ms",
            ],
            "port 1 does not exist",
        ),
        // Bad rate unit, RTT without a unit.
        (
            &[
                "thresholds",
                "--port",
                "0",
                "--rate",
                "100X",
                "--rtt",
                "10ms",
            ],
            "unknown unit \"X\"",
        ),
        (
            &["thresholds", "--port", "0", "--rate", "100G", "--rtt", "10"],
            "missing unit",
        ),
        // Thresholds the 32-bit registers cannot hold; K_min not below K_max.
        (
            &[
                "thresholds",
                "--port",
                "0",
                "--rate",
                "400G",
                "--rtt",
                "100ms",
            ],
            "does not fit its 32-bit register",
        ),
        (
            &[
                "thresholds",
                "--port",
                "0",
                "--rate",
                "100G",
                "--rtt",
                "10ms",
                "--k-min",
                "200M",
            ],
            "must be below k_max",
        ),
        (
            &[
                "thresholds",
                "--port",
                "0",
                "--rate",
                "100G",
                "--rtt",
                "10ms",
                "--alpha",
                "300",
            ],
            "alpha",
        ),
        // Unknown register, by name and by offset.
        (
            &["regs", "write", "NO_SUCH_REGISTER", "1"],
            "unknown register \"NO_SUCH_REGISTER\"",
        ),
        (
            &["regs", "write", "0x18", "1"],
            "no register at offset 0x018",
        ),
        (&["regs", "write", "0x2", "1"], "not a multiple of 4"),
        // Read-only registers.
        (&["regs", "write", "VERSION", "1"], "read-only"),
        (&["regs", "write", "dc_rx_frames", "0"], "read-only"),
        // Values out of range, or with bits outside the register's fields.
        (&["regs", "write", "SCRATCH", "0x100000000"], "out of range"),
        (&["regs", "write", "SCRATCH", "-1"], "not a number"),
        (
            &["regs", "write", "FEATURE_ENABLE", "0x80"],
            "outside the fields",
        ),
        // A device that is not one.
        (
            &["--device", "pci:zz", "regs", "write", "SCRATCH", "1"],
            "invalid PCI address",
        ),
    ];
    for (args, message) in cases {
        let mut argv = vec!["--verbose"];
        argv.extend_from_slice(args);
        let run = cngw(&argv).expect_err(message);
        assert!(
            run.bus_writes().is_empty(),
            "{args:?} wrote: {:?}",
            run.bus_writes()
        );
        assert!(
            run.stdout.is_empty(),
            "{args:?} printed a result:\n{}",
            run.stdout
        );
    }
}

#[test]
fn hw_04_regs_read_id() {
    for spec in ["ID", "id", "0x0", "0"] {
        let run = cngw(&["regs", "read", spec]).expect_ok();
        assert!(
            run.stdout.contains("ID @ 0x000 = 0x434e4757"),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("\"CNGW\""), "{}", run.stdout);
    }
}

#[test]
fn hw_04_regs_read_decodes_fields() {
    let run = cngw(&["regs", "read", "CAPABILITIES"]).expect_ok();
    assert!(run.stdout.contains("parser"), "{}", run.stdout);
    assert!(run.stdout.contains("num_ports"), "{}", run.stdout);
    // A write-pulse register has nothing to read.
    cngw(&["regs", "read", "CONTROL"]).expect_err("write-1-to-pulse");
}

#[test]
fn hw_04_regs_write_reads_back() {
    let run = cngw(&["--verbose", "regs", "write", "scratch", "0xcafe"]).expect_ok();
    assert!(run.stdout.contains("wrote 0x0000cafe"), "{}", run.stdout);
    assert!(
        run.stdout.contains("reads back 0x0000cafe"),
        "{}",
        run.stdout
    );
    assert_eq!(run.bus_writes().len(), 1, "{}", run.stderr);
    // Decimal works too, and a write-pulse register takes a 1.
    cngw(&["regs", "write", "SCRATCH", "4660"]).expect_ok();
    cngw(&["regs", "write", "CONTROL", "1"]).expect_ok();
}

/// `--raw` bypasses the register map for bring-up; the AXI4-Lite slave's
/// error response then reaches the user by name.
#[test]
fn hw_04_regs_raw_write_reports_axi_errors() {
    cngw(&["regs", "write", "--raw", "VERSION", "1"]).expect_err("SLVERR");
    cngw(&["regs", "write", "--raw", "0x18", "1"]).expect_err("DECERR");
    cngw(&["regs", "read", "0x18"]).expect_err("DECERR");
}

#[test]
fn hw_04_regs_dump_lists_every_register_with_fields() {
    let run = cngw(&["regs", "dump"]).expect_ok();
    for reg in cngw_regmap::REGISTERS {
        assert!(
            run.stdout.contains(reg.name),
            "{} missing:\n{}",
            reg.name,
            run.stdout
        );
    }
    assert!(run.stdout.contains("lh_ecn_mark=0"), "{}", run.stdout);
    assert!(run.stdout.contains("0x434e4757"), "{}", run.stdout);
    assert!(run.stdout.contains("W1P"), "{}", run.stdout);
}

/// The draft's worked example: 100 Gb/s x 10 ms, alpha 1, K_base 64 KiB.
#[test]
fn lh_03_thresholds_worked_example() {
    let run = cngw(&[
        "--verbose",
        "thresholds",
        "--port",
        "0",
        "--rate",
        "100G",
        "--rtt",
        "10ms",
    ])
    .expect_ok();
    let k_max = common::number_after(&run.stdout, "K_max").unwrap();
    let k_min = common::number_after(&run.stdout, "K_min").unwrap();
    assert_eq!((k_max, k_min), (125_000_000, 62_500_000), "{}", run.stdout);
    assert!(run.stdout.contains("PORT0_K_MAX_BYTES"), "{}", run.stdout);
    assert!(run.stdout.contains("read back"), "{}", run.stdout);
    // K_max and K_min were written, among the six port registers.
    let writes = run.bus_writes();
    assert_eq!(writes.len(), 6, "{writes:?}");
    assert!(
        writes.iter().any(|w| w.contains("0x114 <- 0x07735940")),
        "{writes:?}"
    );
    assert!(
        writes.iter().any(|w| w.contains("0x110 <- 0x03b9aca0")),
        "{writes:?}"
    );
}

#[test]
fn lh_03_thresholds_options_and_dry_run() {
    let run = cngw(&[
        "--verbose",
        "thresholds",
        "--port",
        "0",
        "--rate",
        "25G",
        "--rtt",
        "500us",
        "--alpha",
        "1.5",
        "--k-base",
        "1M",
        "--k-min",
        "1000000",
        "--dry-run",
    ])
    .expect_ok();
    // 1.5 * 25e9 * 500e-6 / 8 = 2,343,750 bytes.
    assert_eq!(
        common::number_after(&run.stdout, "K_max"),
        Some(2_343_750),
        "{}",
        run.stdout
    );
    assert_eq!(
        common::number_after(&run.stdout, "K_min"),
        Some(1_000_000),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("nothing written"));
    assert!(
        run.stderr.is_empty(),
        "a dry run opens no device: {}",
        run.stderr
    );
    // K_base is the floor of K_max.
    let run = cngw(&[
        "thresholds",
        "--port",
        "0",
        "--rate",
        "1G",
        "--rtt",
        "100us",
    ])
    .expect_ok();
    assert_eq!(
        common::number_after(&run.stdout, "K_max"),
        Some(65_536),
        "{}",
        run.stdout
    );
}

#[test]
fn hw_04_pci_device_that_is_absent_is_a_clear_error() {
    // Domain ffff does not exist on any host.
    cngw(&["--device", "pci:ffff:ff:1f.7", "regs", "read", "ID"]).expect_err("ffff:ff:1f.7");
}
