//! Runs the `cngw` binary and gives each test its own scratch folder.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Output of one `cngw` run.
pub struct Run {
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.status.success()
    }

    /// Panics with both streams unless the command succeeded.
    pub fn expect_ok(self) -> Run {
        assert!(
            self.ok(),
            "cngw failed ({}):\nstdout:\n{}\nstderr:\n{}",
            self.status,
            self.stdout,
            self.stderr
        );
        self
    }

    /// Panics unless the command failed with `needle` in stderr.
    pub fn expect_err(self, needle: &str) -> Run {
        assert!(
            !self.ok(),
            "cngw succeeded but should have failed:\nstdout:\n{}",
            self.stdout
        );
        assert!(
            self.stderr.contains(needle),
            "stderr does not mention {needle:?}:\n{}",
            self.stderr
        );
        self
    }

    /// Register writes logged by `--verbose`.
    pub fn bus_writes(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("bus: write"))
            .collect()
    }
}

fn finish(out: Output) -> Run {
    Run {
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `cngw args...`.
pub fn cngw<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    finish(
        Command::new(env!("CARGO_BIN_EXE_cngw"))
            .args(args)
            .output()
            .expect("cngw runs"),
    )
}

/// An empty scratch folder for one test, under Cargo's target tmp dir.
pub fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cngw-cli")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The first number on the stdout line starting (after spaces) with `label`.
pub fn number_after(stdout: &str, label: &str) -> Option<u64> {
    let line = stdout.lines().find(|l| l.trim_start().starts_with(label))?;
    line.trim_start()[label.len()..]
        .split_whitespace()
        .find_map(|w| w.parse().ok())
}

/// The number after the first `"key":` in a JSON text (`--json` output),
/// with or without a space after the colon.
pub fn json_num(from: &str, key: &str) -> f64 {
    let needle = format!("\"{key}\":");
    let i = from
        .find(&needle)
        .unwrap_or_else(|| panic!("{key} in {from}"));
    let rest = &from[i + needle.len()..];
    let end = rest.find([',', '}', '\n']).unwrap_or(rest.len());
    rest[..end]
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{key}: {e} in {from}"))
}

/// The value of a register in a counter table (`REGISTER OFFSET VALUE` rows,
/// as `cngw counters` and the end of `cngw replay` print them).
pub fn counter(stdout: &str, name: &str) -> Option<u64> {
    stdout.lines().find_map(|l| {
        let fields: Vec<&str> = l.split_whitespace().collect();
        match fields.as_slice() {
            [n, off, value] if *n == name && off.starts_with("0x") => value.parse().ok(),
            _ => None,
        }
    })
}

/// Command-line arguments of mixed types (`&str`, `PathBuf`, `String`).
#[macro_export]
macro_rules! argv {
    ($($x:expr),* $(,)?) => {
        [$(::std::convert::AsRef::<::std::ffi::OsStr>::as_ref(&$x).to_os_string()),*]
    };
}
