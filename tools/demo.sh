#!/usr/bin/env bash
# The main job: sets up what is missing, then generates RoCEv2 traffic with
# RDMA CM connection set-up and replays it through the cycle-accurate
# gateway, printing a summary. Extra arguments go to `cngw demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh --no-python-module
cargo run --release --locked --quiet -p cngw -- demo "$@"
