#!/usr/bin/env bash
# Runs every cargo-fuzz target of the packet-format crate (fuzz/) for
# SECONDS each (default 10): the short run of tools/test.sh, or the long
# one of docs/security.md ("Fuzzing"), e.g. `tools/fuzz.sh 3600`.
# Usage: tools/fuzz.sh [SECONDS] [TARGET...]
#
# Needs cargo-fuzz (tools/setup.sh installs it). On stable Rust the nightly
# flags of cargo-fuzz are allowed by RUSTC_BOOTSTRAP=1, set for the cargo
# fuzz commands only. No sanitizer (`-s none`): the crate is safe Rust, so
# AddressSanitizer adds build time and finds nothing libFuzzer's own checks
# (panics, overflow checks, debug assertions) do not.
# Seeds: frames and messages from the crate's builders and, when
# CNGW_CAPTURES names a folder, the frames of its pcap files, written to a
# temporary folder at each run. The corpus grows in fuzz/corpus/TARGET and a
# crashing input is saved in fuzz/artifacts/TARGET (both ignored by git);
# replay one with `RUSTC_BOOTSTRAP=1 cargo fuzz run -s none TARGET FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(parse_frame parse_layers parse_messages parse_pnc build_frames build_pnc flow_key)
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: cargo-fuzz is missing; run tools/setup.sh" >&2
    exit 1
fi
# The fuzz crate's Cargo.lock must be current (cargo fuzz has no --locked).
cargo metadata --locked --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
cargo run --quiet --release --locked -p cngw-packet --example fuzz_seeds -- "$seeds"
RUSTC_BOOTSTRAP=1 cargo fuzz build -s none --release
failed=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "$seeds/$t"
    log="$seeds/$t.log"
    if RUSTC_BOOTSTRAP=1 cargo fuzz run -s none --release "$t" "fuzz/corpus/$t" "$seeds/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
        runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
        cov=$(grep -E '^#[0-9]+.*DONE' "$log" | sed -nE 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*exec\/s: ([0-9]+).*/cov \1, features \2, corpus \3, \4 exec\/s/p')
        echo "fuzz: $t ok: ${runs:-?} runs in ${seconds}s ($cov)"
    else
        echo "fuzz: $t FAILED; its log:" >&2
        grep -vE '^#[0-9]+' "$log" | tail -40 >&2
        failed+=("$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: ${#failed[@]} failed, $(( ${#targets[@]} - ${#failed[@]} )) passed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} passed, 0 failed"
