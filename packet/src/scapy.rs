//! Independent checks of frames with scapy, for tests in every crate.
//!
//! [`dissect`] runs `packet/scapy/scapy_check.py` (embedded here) under the
//! interpreter named by `CNGW_PYTHON` and returns, per frame, every field
//! scapy dissects plus its verdicts on the ICRC (`scapy.contrib.roce`) and
//! the IPv4/UDP/ICMPv6 and RFC 4884 checksums. The project's setup installs
//! scapy into `.venv`; without `CNGW_PYTHON` the checks are skipped with a
//! message, never silently passed.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

/// The checker script.
pub const SCRIPT: &str = include_str!("../scapy/scapy_check.py");

/// `Layer.field` (and verdict) name to value, as the script prints them.
pub type Fields = HashMap<String, String>;

/// Dissects `frames` with scapy; `None` (and a message on stderr) when
/// `CNGW_PYTHON` is unset. Panics when the interpreter fails: a test that
/// asked for scapy must not pass without it.
pub fn dissect(frames: &[Vec<u8>]) -> Option<Vec<Fields>> {
    let Some(python) = std::env::var_os("CNGW_PYTHON") else {
        eprintln!("CNGW_PYTHON is not set: scapy cross-checks skipped");
        return None;
    };
    let mut child = Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start CNGW_PYTHON");
    let mut input = String::new();
    for f in frames {
        input.extend(f.iter().map(|b| format!("{b:02x}")));
        input.push('\n');
    }
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("run the scapy checker");
    writer.join().expect("writer thread").expect("write frames");
    assert!(
        out.status.success(),
        "scapy checker failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let results: Vec<Fields> = text
        .lines()
        .map(|line| {
            line.split(' ')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect();
    assert_eq!(results.len(), frames.len(), "one result line per frame");
    Some(results)
}

/// A field scapy dissected; panics with the whole dissection when absent.
pub fn get<'a>(f: &'a Fields, key: &str) -> &'a str {
    f.get(key)
        .unwrap_or_else(|| panic!("scapy gave no {key}: {f:?}"))
        .as_str()
}

/// Asserts every checksum verdict scapy gave is good (a zero UDP checksum,
/// which RoCEv2 allows, counts as good).
pub fn assert_checksums_ok(f: &Fields) {
    for key in [
        "icrc_ok",
        "ip_chksum_ok",
        "udp_chksum_ok",
        "icmpv6_chksum_ok",
        "ext_chksum_ok",
    ] {
        if let Some(v) = f.get(key) {
            assert!(v == "True" || v == "zero", "{key}={v}: {f:?}");
        }
    }
}
