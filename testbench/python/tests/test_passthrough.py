"""HW-02/HW-03: with every feature off both directions forward every frame
byte for byte and in order, under cocotb-style idle and backpressure
patterns, at one beat per clock when nothing stalls."""

import itertools
import random
import zlib

import pytest

import cngw_sim
import cngw_tb
from cngw_tb import ClockCycles, PausePattern

# (source idle pattern, sink backpressure pattern), made fresh per test.
PAUSES = {
    "back_to_back": lambda: (None, None),
    "idle_1110": lambda: (itertools.cycle([1, 1, 1, 0]), None),
    "backpressure_1110": lambda: (None, itertools.cycle([1, 1, 1, 0])),
    "idle_and_backpressure_alternating": lambda: (itertools.cycle([0, 1]), itertools.cycle([1, 0, 0])),
    "random_30_50": lambda: (0.3, 0.5),
    "native_repeat": lambda: (PausePattern.repeat([1, 0, 0]), PausePattern.repeat([0, 1])),
}

DIRECTIONS = [("dc_rx", "wan_tx"), ("wan_rx", "dc_tx")]


def frames(seed, n=120):
    rng = random.Random(seed)
    sizes = [1, 14, 59, 60, 63, 64, 65, 127, 128, 129] + [rng.randrange(1, 1600) for _ in range(n - 10)]
    return [(bytes(rng.randrange(256) for _ in range(size)), rng.random() < 0.1) for size in sizes]


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("rx,tx", DIRECTIONS)
@cngw_tb.test
async def test_hw_03_pass_through_with_idle_and_backpressure(gw, rx, tx, pause):
    idle, backpressure = PAUSES[pause]()
    gw.source(rx).set_pause_generator(idle, seed=1)
    gw.sink(tx).set_pause_generator(backpressure, seed=2)
    sent = frames(zlib.crc32(f"{rx}/{pause}".encode()))
    for frame in sent:
        await gw.source(rx).send(frame)
    got = await gw.sink(tx).recv_n(len(sent), timeout=200_000)
    assert [bytes(f) for f in got] == [f for f, _ in sent]
    assert [f.user for f in got] == [u for _, u in sent]
    await ClockCycles(gw.clk, 20)
    assert gw.sink("dc_tx" if tx == "wan_tx" else "wan_tx").empty(), "nothing crosses the other way"
    assert await gw.csr.read(f"{rx.upper()}_FRAMES") == len(sent)


@cngw_tb.test
async def test_hw_03_both_directions_at_once_with_random_traffic(gw):
    dc = cngw_sim.random_mix(150, seed=11)
    wan = cngw_sim.random_mix(150, seed=12)
    gw.dc_rx.set_pause_generator(0.2, seed=3)
    gw.wan_rx.set_pause_generator(itertools.cycle([0, 0, 1]))
    gw.dc_tx.set_pause_generator(0.4, seed=4)
    gw.wan_tx.set_pause_generator(itertools.cycle([1, 0]))
    gw.dc_rx.send_batch(dc)
    gw.wan_rx.send_batch(wan)
    to_wan = cngw_tb.start_soon(gw.wan_tx.recv_n(len(dc), timeout=500_000))
    to_dc = await gw.dc_tx.recv_n(len(wan), timeout=500_000)
    assert [(bytes(f), f.user) for f in await to_wan] == dc
    assert [(bytes(f), f.user) for f in to_dc] == wan


@cngw_tb.test
async def test_hw_02_back_to_back_frames_move_one_beat_per_clock(gw):
    for size in (60, 64, 65, 128):
        sent = [bytes([i]) * size for i in range(50)]
        gw.dc_rx.send_batch(sent)
        got = await gw.wan_tx.recv_n(len(sent), timeout=10_000)
        assert got == sent
        beats = -(-size // 64)
        # Every frame starts the clock after the previous one ended: no bubble.
        for a, b in zip(got, got[1:]):
            assert b.start_cycle == a.end_cycle + 1, f"{size}-byte frames: bubble after {a!r}"
            assert a.end_cycle - a.start_cycle == beats - 1
        entered = gw.dc_rx.accepted_cycles()
        assert [e - s for s, e in entered] == [beats - 1] * len(sent)
        assert got[0].start_cycle - entered[0][0] == 2, "pass-through latency is two clocks"
