//! `cngw proxy` against the simulator (PX-03): the prefix -> proxy table
//! written, read back, looked up by the gateway, programmed from PNC
//! advertisements; bad arguments refused before any register write.

mod common;
use common::{cngw, scratch};

/// IS-IS TLV 135 with three entries: 10.1.2.0/24 without the P-flag,
/// 192.0.2.1/32 with it (a flagged host prefix: its own proxy), and
/// 10.5.0.0/16 with the P-flag and an IPv4 source-router sub-TLV naming
/// 192.0.2.9.
const ISIS: &str = "87 26 00 00 00 0a 18 0a 01 02 00 00 00 14 60 c0 00 02 01 03 04 01 21 \
                    00 00 00 1e 50 0a 05 09 04 01 01 0b 04 c0 00 02 09";

#[test]
fn px_03_add_writes_an_entry_the_gateway_reads_back() {
    let run = cngw(&["proxy", "add", "10.1.0.0/16", "192.0.2.9"]).expect_ok();
    assert_eq!(
        run.stdout,
        format!(
            "{:>5}  {:<44} proxy\n{:>5}  {:<44} 192.0.2.9\n",
            "entry", "prefix", 0, "10.1.0.0/16"
        )
    );
    assert!(
        run.stderr.contains("entry 0: 10.1.0.0/16 -> 192.0.2.9"),
        "{}",
        run.stderr
    );
    let run = cngw(&["proxy", "add", "2001:db8:1::/48", "2001:db8::9", "--json"]).expect_ok();
    assert_eq!(
        run.stdout,
        "{\"tool\": \"cngw proxy\", \"schema_version\": 1, \"entries\": [{\"index\": 0, \
         \"prefix\": \"2001:db8:1::/48\", \"proxy\": \"2001:db8::9\"}]}\n"
    );
}

/// A table from the configuration; the gateway's longest-prefix answer.
#[test]
fn px_03_lookup_is_the_gateways_longest_prefix_match() {
    let dir = scratch("proxy_lookup");
    let file = dir.join("gw.toml");
    std::fs::write(
        &file,
        "[proxy]\ntable = [\n  { prefix = \"10.0.0.0/8\", proxy = \"192.0.2.1\" },\n  \
         { prefix = \"10.1.0.0/16\", proxy = \"192.0.2.2\" },\n  \
         { prefix = \"fd00::/16\", proxy = \"fd00::2\" },\n]\n",
    )
    .unwrap();
    for (addr, want) in [
        ("10.1.2.3", "entry 1 (10.1.0.0/16) -> proxy 192.0.2.2"),
        ("10.9.2.3", "entry 0 (10.0.0.0/8) -> proxy 192.0.2.1"),
        ("fd00:1::7", "entry 2 (fd00::/16) -> proxy fd00::2"),
        ("11.1.2.3", "no entry (no proxy serves it)"),
        ("fd01::7", "no entry (no proxy serves it)"),
    ] {
        let run = cngw(&["proxy", "--config", file.to_str().unwrap(), "lookup", addr]).expect_ok();
        assert!(
            run.stdout.ends_with(&format!("{addr}: {want}\n")),
            "{addr}: {}",
            run.stdout
        );
    }
    let run = cngw(&[
        "proxy",
        "--config",
        file.to_str().unwrap(),
        "--json",
        "lookup",
        "10.1.2.3",
    ])
    .expect_ok();
    assert!(
        run.stdout
            .contains("\"lookup\": {\"addr\": \"10.1.2.3\", \"index\": 1}"),
        "{}",
        run.stdout
    );
    // Deleting the /16 leaves the /8 to answer.
    let run = cngw(&[
        "proxy",
        "--config",
        file.to_str().unwrap(),
        "del",
        "10.1.0.0/16",
    ])
    .expect_ok();
    assert!(!run.stdout.contains("10.1.0.0/16"), "{}", run.stdout);
    assert!(run.stdout.contains("10.0.0.0/8"), "{}", run.stdout);
}

#[test]
fn px_03_import_programs_the_advertised_proxies() {
    let run = cngw(&["proxy", "import", "--protocol", "isis", ISIS]).expect_ok();
    assert!(run.stdout.contains("192.0.2.1/32"), "{}", run.stdout);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(rows.len(), 4, "{}", run.stdout);
    assert!(
        rows[1].ends_with("192.0.2.1/32                                 192.0.2.1"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].ends_with("10.5.0.0/16                                  192.0.2.9"),
        "{}",
        rows[2]
    );
    assert_eq!(rows[3], "skipped 10.1.2.0/24: no PNC");
    let run = cngw(&["proxy", "import", "--protocol", "isis", "--json", ISIS]).expect_ok();
    assert!(
        run.stdout
            .contains("\"skipped\": [{\"prefix\": \"10.1.2.0/24\", \"reason\": \"no PNC\"}]"),
        "{}",
        run.stdout
    );
}

/// Bad arguments: a clear message, a non-zero status, no register written.
#[test]
fn px_03_bad_arguments_are_refused_before_any_write() {
    for (args, needle) in [
        (
            vec!["proxy", "add", "10.1.0.1/16", "192.0.2.9"],
            "10.1.0.0/16",
        ),
        (vec!["proxy", "add", "10.1.0.0/33", "192.0.2.9"], "33"),
        (
            vec!["proxy", "add", "10.1.0.0/16", "2001:db8::9"],
            "different address families",
        ),
        (
            vec!["proxy", "add", "10.1.0.0/16", "proxy.example"],
            "not an IPv4 or IPv6 address",
        ),
        (vec!["proxy", "del", "nonsense"], "nonsense"),
        (
            vec!["proxy", "lookup", "10.1.2"],
            "not an IPv4 or IPv6 address",
        ),
        (
            vec!["proxy", "import", "--protocol", "isis", "87 0"],
            "not hex",
        ),
        (
            vec!["proxy", "import", "--protocol", "isis", "87 26 00"],
            "does not decode",
        ),
        (
            vec![
                "proxy",
                "import",
                "--protocol",
                "bgp",
                "--bgp-code",
                "70000",
                "00",
            ],
            "16-bit code",
        ),
        (vec!["proxy", "import", "--protocol", "rip", "00"], "rip"),
    ] {
        let mut argv = vec!["--verbose"];
        argv.extend(args.iter().copied());
        let run = cngw(&argv).expect_err(needle);
        assert!(
            run.bus_writes().is_empty(),
            "{args:?}: {:?}",
            run.bus_writes()
        );
    }
    // Deleting a prefix the table lacks: said; the table was only read (the
    // read cursor PROXY_ENTRY_INDEX moved and was put back).
    let run =
        cngw(&["--verbose", "proxy", "del", "10.1.0.0/16"]).expect_err("no entry for 10.1.0.0/16");
    let writes = run.bus_writes();
    assert!(
        writes.iter().all(|w| w.ends_with("(PROXY_ENTRY_INDEX)")),
        "{writes:?}"
    );
    assert!(
        writes.last().unwrap().contains("<- 0x00000000"),
        "{writes:?}"
    );
}
