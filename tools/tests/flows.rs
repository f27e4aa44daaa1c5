//! `cngw flows [add|del|lookup]` against the simulator (LH-01, HW-04).

mod common;
use common::{cngw, scratch};
use std::path::{Path, PathBuf};

const FLOWS: &str = r#"
[flows]
static = [
  { src = "10.0.0.1", dst = "10.0.0.4", dqp = 200, sqp = 100 },
  { src = "fd00::1", dst = "fd00:ffff::4", dqp = 0xFFFFFF, sqp = 7 },
]
"#;

fn config(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn lh_01_flows_lists_static_entries_as_a_table() {
    let dir = scratch("flows_table");
    let file = config(&dir, "gw.toml", FLOWS);
    let run = cngw(&argv!["flows", "--config", file]).expect_ok();
    assert_eq!(
        run.stdout,
        "SOURCE    DESTINATION        DQP  SQP  KIND\n\
         10.0.0.1  10.0.0.4           200  100  static\n\
         fd00::1   fd00:ffff::4  16777215    7  static\n\
         2 flow(s): 2 static, 0 learned\n"
    );
    assert!(
        run.stderr
            .contains("0 register write(s) and 2 static flow(s)"),
        "{}",
        run.stderr
    );
    // Without a configuration the fresh simulator's table is empty, and says so.
    let run = cngw(&["flows"]).expect_ok();
    assert!(
        run.stdout.ends_with("0 flow(s): 0 static, 0 learned\n"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("fresh simulator"), "{}", run.stderr);
}

#[test]
fn lh_01_flows_json_has_the_documented_schema() {
    let dir = scratch("flows_json");
    let file = config(&dir, "gw.toml", FLOWS);
    let run = cngw(&argv!["flows", "--json", "--config", file]).expect_ok();
    assert_eq!(
        run.stdout,
        "{\n  \"tool\": \"cngw flows\",\n  \"schema_version\": 1,\n  \"flows\": [\n    \
         {\"src\": \"10.0.0.1\", \"dst\": \"10.0.0.4\", \"dqp\": 200, \"sqp\": 100, \"kind\": \"static\"},\n    \
         {\"src\": \"fd00::1\", \"dst\": \"fd00:ffff::4\", \"dqp\": 16777215, \"sqp\": 7, \"kind\": \"static\"}\n  ]\n}\n"
    );
    let run = cngw(&["flows", "--json"]).expect_ok();
    assert_eq!(
        run.stdout,
        "{\n  \"tool\": \"cngw flows\",\n  \"schema_version\": 1,\n  \"flows\": []\n}\n"
    );
    let lookup = |args: &[&str]| {
        let mut argv = argv!["flows", "lookup", "--config", file, "--json"].to_vec();
        argv.extend(args.iter().map(Into::into));
        cngw(&argv).expect_ok().stdout
    };
    assert_eq!(
        lookup(&["--src", "fd00::1", "--dst", "fd00:ffff::4", "--dqp", "0xffffff"]),
        "{\"tool\": \"cngw flows lookup\", \"schema_version\": 1, \"found\": true, \"flow\": \
         {\"src\": \"fd00::1\", \"dst\": \"fd00:ffff::4\", \"dqp\": 16777215, \"sqp\": 7, \"kind\": \"static\"}}\n"
    );
    assert_eq!(
        lookup(&["--src", "10.0.0.4", "--dst", "10.0.0.1", "--dqp", "200"]),
        "{\"tool\": \"cngw flows lookup\", \"schema_version\": 1, \"found\": false, \"flow\": null}\n"
    );
}

#[test]
fn lh_01_flows_add_lookup_and_del() {
    let dir = scratch("flows_add_del");
    let file = config(&dir, "gw.toml", FLOWS);
    let key = ["--src", "10.0.0.2", "--dst", "10.0.0.4", "--dqp", "300"];
    let mut add = vec!["--verbose", "flows", "add"];
    add.extend(key);
    add.extend(["--sqp", "0x2a"]);
    let run = cngw(&add).expect_ok();
    assert_eq!(
        run.stdout,
        "inserted: 10.0.0.2 -> 10.0.0.4 DQP 300 <- SQP 42, static; reads back\n"
    );
    assert!(run.stderr.contains("does not persist"), "{}", run.stderr);
    // The key, the SQP, then the one command write.
    let writes = run.bus_writes();
    assert_eq!(
        writes.len(),
        11 + 10,
        "insert, then the read-back look-up: {writes:?}"
    );
    assert!(writes[9].contains("(FLOW_SQP)"), "{writes:?}");
    assert!(
        writes[10].contains("0x328 <- 0x00000002  (FLOW_COMMAND)"),
        "{writes:?}"
    );

    // Updating an entry a configuration put in.
    let file_arg = file.to_str().unwrap();
    let run = cngw(&[
        "flows", "add", "--config", file_arg, "--src", "10.0.0.1", "--dst", "10.0.0.4", "--dqp",
        "200", "--sqp", "101",
    ])
    .expect_ok();
    assert!(
        run.stdout.starts_with("updated (it was in the table)"),
        "{}",
        run.stdout
    );

    let mut lookup = vec!["flows", "lookup", "--config", file_arg];
    lookup.extend(["--src", "10.0.0.1", "--dst", "10.0.0.4", "--dqp", "200"]);
    let run = cngw(&lookup).expect_ok();
    assert_eq!(
        run.stdout,
        "10.0.0.1 -> 10.0.0.4 DQP 200: SQP 100, static\n"
    );
    let mut miss = vec!["flows", "lookup"];
    miss.extend(key);
    assert_eq!(
        cngw(&miss).expect_ok().stdout,
        "10.0.0.2 -> 10.0.0.4 DQP 300: not in the flow table\n"
    );

    let run = cngw(&[
        "flows",
        "del",
        "--config",
        file_arg,
        "--src",
        "fd00::1",
        "--dst",
        "fd00:ffff::4",
        "--dqp",
        "16777215",
    ])
    .expect_ok();
    assert_eq!(run.stdout, "deleted fd00::1 -> fd00:ffff::4 DQP 16777215\n");
    let mut del = vec!["flows", "delete"];
    del.extend(key);
    cngw(&del).expect_err(
        "is not in the flow table; nothing deleted (--device sim starts with an empty table",
    );
}

/// Every bad request fails with a clear message before any register write.
#[test]
fn lh_01_flows_bad_arguments_write_nothing() {
    let dir = scratch("flows_bad");
    let bad_flow = config(
        &dir,
        "bad.toml",
        "[flows]\nstatic = [{ src = \"10.0.0.1\", dst = \"fd00::4\", dqp = 1, sqp = 2 }]\n",
    );
    let bad = bad_flow.to_str().unwrap();
    let key = |src: &'static str, dst: &'static str, dqp: &'static str| {
        vec!["--src", src, "--dst", dst, "--dqp", dqp]
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            [
                vec!["flows", "add"],
                key("10.0.0.300", "10.0.0.4", "1"),
                vec!["--sqp", "1"],
            ]
            .concat(),
            "\"10.0.0.300\" is not an IPv4 or IPv6 address",
        ),
        (
            [
                vec!["flows", "add"],
                key("10.0.0.1", "fd00::4", "1"),
                vec!["--sqp", "1"],
            ]
            .concat(),
            "different address families",
        ),
        (
            [
                vec!["flows", "add"],
                key("::ffff:10.0.0.1", "fd00::4", "1"),
                vec!["--sqp", "1"],
            ]
            .concat(),
            "different address families",
        ),
        (
            [
                vec!["flows", "add"],
                key("10.0.0.1", "10.0.0.4", "16777216"),
                vec!["--sqp", "1"],
            ]
            .concat(),
            "does not fit the 24-bit QP number",
        ),
        (
            [
                vec!["flows", "add"],
                key("10.0.0.1", "10.0.0.4", "1"),
                vec!["--sqp", "0x1000000"],
            ]
            .concat(),
            "does not fit the 24-bit QP number",
        ),
        (
            [vec!["flows", "add"], key("10.0.0.1", "10.0.0.4", "1")].concat(),
            "--sqp <N>",
        ),
        (
            [vec!["flows", "del"], key("fd00::1", "10.0.0.4", "1")].concat(),
            "different address families",
        ),
        (
            [vec!["flows", "lookup"], key("10.0.0.1", "10.0.0.4", "0xqq")].concat(),
            "not a number",
        ),
        (
            [
                vec!["flows", "--json", "add"],
                key("10.0.0.1", "10.0.0.4", "1"),
                vec!["--sqp", "1"],
            ]
            .concat(),
            "--json applies to the list",
        ),
        (
            vec!["flows", "--config", bad],
            "flows.static[0]: source 10.0.0.1",
        ),
        (
            vec!["flows", "--config", "no-such-file.toml"],
            "no-such-file.toml",
        ),
    ];
    for (args, message) in cases {
        let mut argv = vec!["--verbose"];
        argv.extend_from_slice(&args);
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
fn lh_07_config_check_and_apply_show_static_flows_and_second_level() {
    let dir = scratch("flows_config");
    let text = format!(
        "features = [\"lh_cnp\"]\n[longhaul]\ninterval = \"rtt\"\ndscp = 26\n\
         [[longhaul.severity]]\nlevel = 200\naction = \"notify\"\n\
         [gateway]\nipv4 = \"10.0.1.1\"\n{FLOWS}"
    );
    let file = config(&dir, "gw.toml", &text);
    let run = cngw(&argv!["--verbose", "config", "check", file]).expect_ok();
    assert!(
        run.stdout
            .contains("plan: 7 register write(s) and 2 static flow(s), in this order:"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  flow 10.0.0.1 -> 10.0.0.4 DQP 200 <- SQP 100 (static)\n  flow fd00::1"),
        "{}",
        run.stdout
    );
    assert!(run.bus_writes().is_empty(), "{}", run.stderr);

    let run = cngw(&argv!["--verbose", "config", "apply", file]).expect_ok();
    assert!(
        run.stdout
            .contains("applied 7 register write(s) and 2 static flow(s)"),
        "{}",
        run.stdout
    );
    let writes = run.bus_writes();
    assert_eq!(writes.len(), 6 + 2 * 11 + 1, "{writes:?}");
    let commands: Vec<usize> = (0..writes.len())
        .filter(|&i| writes[i].contains("(FLOW_COMMAND)"))
        .collect();
    assert_eq!(commands, [6 + 10, 6 + 21], "{writes:?}");
    assert!(
        writes.last().unwrap().contains("(FEATURE_ENABLE)"),
        "{writes:?}"
    );
}

/// The reference model takes the static flows too: RTL and model agree on
/// the flow-table gauges after a replay with them.
#[test]
fn lh_01_replay_with_static_flows_matches_the_model() {
    let dir = scratch("flows_replay");
    let (dc, wan) = (dir.join("dc_in.pcap"), dir.join("wan_in.pcap"));
    cngw(&argv![
        "gen",
        "traffic",
        "--dc-out",
        dc,
        "--wan-out",
        wan,
        "--flows",
        "2",
        "--frames-per-flow",
        "2"
    ])
    .expect_ok();
    let file = config(&dir, "gw.toml", FLOWS);
    let run = cngw(&argv![
        "replay",
        "--config",
        file,
        "--dc-in",
        dc,
        "--wan-in",
        wan,
        "--dc-out",
        dir.join("dc_out.pcap"),
        "--wan-out",
        dir.join("wan_out.pcap"),
    ])
    .expect_ok();
    assert!(
        run.stdout
            .contains("0 register write(s) and 2 static flow(s)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("RTL matches the reference model"),
        "{}",
        run.stdout
    );
}
