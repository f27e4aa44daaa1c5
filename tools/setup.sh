#!/usr/bin/env bash
# Installs what cngw needs on a fresh Debian machine with Rust:
#   - Verilator 5, tshark and the DejaVu fonts (the plots of `cngw scenario`)
#     from Debian's packages (when run as root;
#     otherwise it names the packages to install and stops),
#   - the Python packages of the test suite into a project-local .venv,
#   - the cngw_sim Python extension module (testbench/py) into that .venv,
#   - cargo-fuzz (the fuzzing targets of fuzz/, tools/fuzz.sh).
# Safe to run again: it only installs what is missing (the extension module
# is rebuilt incrementally by cargo, so it always matches the sources).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v verilator >/dev/null 2>&1 || need_apt+=(verilator)
command -v tshark >/dev/null 2>&1 || need_apt+=(tshark)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
# The font of `cngw scenario`'s plots (read at run time, no font discovery).
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "setup: installing ${need_apt[*]} from Debian's packages"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
    else
        echo "setup: missing ${need_apt[*]}; install them (Debian: sudo apt-get install ${need_apt[*]})" >&2
        exit 1
    fi
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo not found; install Rust (rustup) first" >&2
    exit 1
fi
# cargo-fuzz for the short fuzzing run of tools/test.sh (tools/fuzz.sh).
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "setup: installing cargo-fuzz 0.13.2 (cargo install)"
    cargo install cargo-fuzz --version 0.13.2 --locked --quiet
fi
major=$(verilator --version | sed -E 's/^Verilator ([0-9]+).*/\1/')
if [ "$major" -lt 5 ]; then
    echo "setup: Verilator 5 or newer is needed, found $(verilator --version)" >&2
    exit 1
fi

req=testbench/python/requirements.txt
stamp=.venv/.requirements
if [ ! -x .venv/bin/python ] || ! cmp -s "$req" "$stamp"; then
    echo "setup: creating .venv with the packages of $req"
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r "$req"
    cp "$req" "$stamp"
fi
# The Verilated gateway as a Python module (pyo3), for testbench/python.
# maturin runs cargo (release profile, the workspace's target folder) and
# installs the module into .venv.
# `--no-python-module` skips it (the demo does not need it).
if [ "${1:-}" != "--no-python-module" ]; then
    echo "setup: building the cngw_sim Python module"
    PATH="$PWD/.venv/bin:$PATH" VIRTUAL_ENV="$PWD/.venv" \
        .venv/bin/maturin develop --release --locked --quiet --manifest-path testbench/py/Cargo.toml
fi
echo "setup: ok ($(verilator --version | cut -d' ' -f1-2), $(.venv/bin/python --version))"
