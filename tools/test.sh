#!/usr/bin/env bash
# Runs every test of cngw: sets up what is missing, then the Rust suite
# (unit, Verilator RTL-vs-model, CLI) and the Python-backed checks, then
# the Python suite (pytest, cocotb-like harness over the cngw_sim module),
# then a short run of every fuzzing target of the packet-format crate
# (tools/fuzz.sh, 10 s each; docs/security.md "Fuzzing" for the long run).
# Real captures are used when CNGW_CAPTURES names their folder; tests that
# need them say they are skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
export CNGW_PYTHON="$PWD/.venv/bin/python"
if [ -z "${CNGW_CAPTURES:-}" ]; then
    echo "test: CNGW_CAPTURES is unset; tests on real captures will be skipped"
fi
cargo test --workspace --release --locked
.venv/bin/python -m pytest testbench/python
./tools/fuzz.sh 10
