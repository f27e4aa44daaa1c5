//! `--device pci:BDF[,bar=N][,offset=X]`: the CSR window's BAR and offset (HW-04).

mod common;
use common::cngw;

/// A bad spec is a command-line error (exit status 2) that names what is wrong,
/// and nothing is accessed: `--verbose` logs every bus access, and there is none.
#[test]
fn hw_04_cli_rejects_bad_device_specs_before_any_access() {
    let cases: &[(&str, &str)] = &[
        (
            "pci:0000:3b:00.0,bar=6",
            "bar=6: a BAR number must be 0..5",
        ),
        (
            "pci:0000:3b:00.0,bar=2,offset=0x200004",
            "offset=0x200004: the CSR window's offset must be a multiple of 4 KiB (0x1000)",
        ),
        (
            "pci:0000:3b:00.0,bar=2,offset=200000",
            "did you mean offset=0x200000?",
        ),
        (
            "pci:0000:3b:00.0,offset=0x2g0000",
            "offset=0x2g0000: not a number",
        ),
        (
            "pci:0000:3b:00.0,base=0x200000",
            "unknown parameter \"base\": the valid parameters are bar=N (BAR number 0..5, default 0), offset=X",
        ),
        (
            "pci:0000:3b:00.0,bar=2,bar=2",
            "parameter bar is given more than once",
        ),
        ("pci:0000:3b:00.0,", "\"\" is not a parameter"),
        (
            "sim,offset=0x200000",
            "the simulator takes no parameters",
        ),
        ("sim,bar=0", "mean nothing for the simulator"),
    ];
    for (spec, needle) in cases {
        for command in [
            &["regs", "dump"][..],
            &["regs", "write", "SCRATCH", "1"][..],
        ] {
            let mut args = vec!["--verbose", "--device", spec];
            args.extend_from_slice(command);
            let run = cngw(&args).expect_err(needle);
            assert_eq!(run.status.code(), Some(2), "{spec}: {}", run.stderr);
            assert!(run.stderr.contains("--device"), "{spec}: {}", run.stderr);
            assert!(
                !run.stderr.contains("bus:"),
                "{spec}: a bus access was logged:\n{}",
                run.stderr
            );
            assert!(run.stdout.is_empty(), "{spec}: {}", run.stdout);
        }
    }
}

/// A valid window on an absent device: the error names the BAR's resource file
/// and the command fails (status 1) before any register access.
#[test]
fn hw_04_cli_window_on_an_absent_device_names_the_bar() {
    // Domain ffff does not exist on any host.
    let run = cngw(&[
        "--verbose",
        "--device",
        "pci:ffff:ff:1f.7,bar=2,offset=0x200000",
        "regs",
        "write",
        "SCRATCH",
        "1",
    ])
    .expect_err("cannot map BAR2 of ffff:ff:1f.7");
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("/sys/bus/pci/devices/ffff:ff:1f.7/resource2"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("bus:"), "{}", run.stderr);
}

/// The option's help shows the syntax.
#[test]
fn hw_04_cli_help_shows_the_window_syntax() {
    let run = cngw(&["--help"]).expect_ok();
    assert!(
        run.stdout
            .contains("pci:0000:3b:00.0,bar=2,offset=0x200000"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("bar=N"), "{}", run.stdout);
}
