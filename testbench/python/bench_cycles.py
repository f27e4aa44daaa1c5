#!/usr/bin/env python3
"""How many clock cycles per second the gateway simulates when driven from
Python (HW-03 target: >= 1,000,000 with frames pushed in batches).

    .venv/bin/python testbench/python/bench_cycles.py [--frames N] [--size BYTES]

Each case counts the clocks of the run and times everything Python does for
it: queueing the frames, running, collecting what left. Best of three runs.
A benchmark, not a test: it prints the numbers and never fails on them.
"""

import argparse
import itertools
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cngw_sim  # noqa: E402
import cngw_tb  # noqa: E402
from cngw_tb import RisingEdge  # noqa: E402

TARGET = 1_000_000


def timed(fn, repeat=3):
    """Best of ``repeat`` runs (the first one also pays for warming caches)."""
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        cycles = fn()
        seconds = time.perf_counter() - start
        if best is None or seconds < best[1]:
            best = (cycles, seconds)
    return best


def batched(frames, setup=None):
    def run():
        gw = cngw_sim.Gateway()
        gw.record = False
        if setup:
            setup(gw)
        gw.push_frames("dc_rx", frames)
        gw.push_frames("wan_rx", frames)
        cycles = gw.run_until_drained()
        got = len(gw.pop_frames("wan_tx")) + len(gw.pop_frames("dc_tx"))
        assert got == 2 * len(frames), got
        return cycles

    return run


def random_pauses(gw):
    for port in ("dc_rx", "wan_rx"):
        gw.set_idle(port, 0.2, seed=1)
    for port in ("dc_tx", "wan_tx"):
        gw.set_backpressure(port, 0.3, seed=2)


def python_pauses(gw):
    gw.set_idle("dc_rx", itertools.cycle([1, 0, 0, 0]))
    gw.set_idle("wan_rx", itertools.cycle([0, 1, 0]))
    gw.set_backpressure("dc_tx", itertools.cycle([0, 0, 1]))
    gw.set_backpressure("wan_tx", itertools.cycle([1, 0]))


def idle_clocks(n):
    def run():
        gw = cngw_sim.Gateway()
        gw.step(n)
        return n

    return run


def async_batched(frames):
    def run():
        with cngw_tb.Gateway() as gw:
            gw.sim.record = False

            async def body():
                start = gw.cycle
                gw.dc_rx.send_batch(frames)
                gw.wan_rx.send_batch(frames)
                to_dc = cngw_tb.start_soon(gw.dc_tx.recv_n(len(frames), timeout=10**8))
                await gw.wan_tx.recv_n(len(frames), timeout=10**8)
                await to_dc
                return gw.cycle - start

            return cngw_tb.run(body())

    return run


def async_per_clock(n):
    def run():
        with cngw_tb.Gateway() as gw:

            async def body():
                for _ in range(n):
                    await RisingEdge(gw.clk)
                return n

            return cngw_tb.run(body())

    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20_000, help="frames per input port (default 20000)")
    ap.add_argument("--size", type=int, default=1000, help="frame size in bytes (default 1000)")
    args = ap.parse_args()
    frames = [bytes([i % 256]) * args.size for i in range(args.frames)]
    small = frames[: max(1, args.frames // 4)]
    cases = [
        ("batched frames, both directions, back to back", batched(frames)),
        ("batched frames, Rust random idle/backpressure", batched(small, random_pauses)),
        ("batched frames, itertools.cycle pause generators", batched(small, python_pauses)),
        ("idle clocks (no traffic)", idle_clocks(2_000_000)),
        ("cngw_tb async: send_batch + recv_n", async_batched(frames)),
        ("cngw_tb async: await RisingEdge per clock", async_per_clock(200_000)),
    ]
    print(f"cngw_sim from Python: {args.frames} frames of {args.size} bytes per input port where batched")
    headline = None
    for name, fn in cases:
        cycles, seconds = timed(fn)
        rate = cycles / seconds
        headline = rate if headline is None else headline
        print(f"  {name:<52} {rate / 1e6:6.2f} M cycles/s  ({cycles:,} cycles in {seconds:.2f} s)")
    verdict = "meets" if headline >= TARGET else "MISSES"
    print(f"batched, back to back: {headline / 1e6:.2f} M cycles/s; {verdict} the "
          f"{TARGET / 1e6:.0f} M cycles/s target of HW-03")


if __name__ == "__main__":
    main()
