//! `cngw counters` (HW-04): every counter and status register, through the
//! driver, as a table or JSON.

mod common;
use cngw_regmap::{Register, REGISTERS};
use common::cngw;

fn volatile() -> Vec<&'static Register> {
    REGISTERS.iter().filter(|r| r.volatile).collect()
}

/// The table lists exactly the volatile registers of the register map, in
/// offset order, with their offsets; a fresh simulator reads their reset
/// values (0 for every counter).
#[test]
fn hw_04_counters_lists_every_volatile_register() {
    let run = cngw(&["counters"]).expect_ok();
    let rows: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("REGISTER"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    let expected: Vec<Vec<String>> = volatile()
        .iter()
        .map(|r| {
            vec![
                r.name.to_string(),
                format!("{:#05x}", r.offset),
                r.reset.to_string(),
            ]
        })
        .collect();
    assert_eq!(rows, expected, "{}", run.stdout);
    for r in REGISTERS.iter().filter(|r| !r.volatile) {
        assert!(!run.stdout.contains(r.name), "{} is not a counter", r.name);
    }
}

/// The JSON document, exactly as the README's schema describes it.
#[test]
fn hw_04_counters_json_has_a_stable_schema() {
    let rows: Vec<String> = volatile()
        .iter()
        .map(|r| {
            format!(
                "    {{\"name\": \"{}\", \"offset\": {}, \"value\": {}}}",
                r.name, r.offset, r.reset
            )
        })
        .collect();
    let expected = |cleared: bool| {
        format!(
            "{{\n  \"device\": \"sim\",\n  \"register_map_version\": \"{}.{}\",\n  \"counters\": [\n{}\n  ],\n  \"cleared\": {cleared}\n}}\n",
            cngw_regmap::MAP_VERSION >> 16,
            cngw_regmap::MAP_VERSION & 0xffff,
            rows.join(",\n")
        )
    };
    let run = cngw(&["counters", "--json"]).expect_ok();
    assert_eq!(run.stdout, expected(false));
    let run = cngw(&["counters", "--json", "--clear"]).expect_ok();
    assert_eq!(run.stdout, expected(true));
}

/// `--clear` reads every counter first, then pulses CONTROL.clear_counters
/// once, through the driver; nothing else is written.
#[test]
fn hw_04_counters_clear_writes_control_after_reading() {
    let run = cngw(&["--verbose", "counters", "--clear"]).expect_ok();
    let control = cngw_regmap::offset::CONTROL;
    assert_eq!(
        run.bus_writes(),
        vec![format!("bus: write {control:#05x} <- 0x00000001  (CONTROL)").as_str()],
        "{}",
        run.stderr
    );
    let log: Vec<&str> = run.stderr.lines().collect();
    let last_read = log
        .iter()
        .rposition(|l| l.starts_with("bus: read"))
        .unwrap();
    let write = log
        .iter()
        .position(|l| l.starts_with("bus: write"))
        .unwrap();
    assert!(last_read < write, "{}", run.stderr);
    for r in volatile() {
        assert!(
            run.stderr.contains(&format!("({})", r.name)),
            "{} not read",
            r.name
        );
    }
    assert!(run.stdout.contains("cleared"), "{}", run.stdout);
    let plain = cngw(&["--verbose", "counters"]).expect_ok();
    assert!(plain.bus_writes().is_empty(), "{}", plain.stderr);
}

/// On a PCIe address without a device the command fails before any access;
/// unknown options are syntax errors.
#[test]
fn hw_04_counters_rejects_what_it_cannot_read() {
    let run = cngw(&["--device", "pci:0000:01:00.0", "counters"]).expect_err("cannot map BAR0");
    assert_eq!(run.status.code(), Some(1));
    let run = cngw(&["counters", "--reset"]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
}
