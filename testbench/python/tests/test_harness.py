"""HW-03: the cocotb-like harness itself: clock triggers, concurrent tasks,
events, timeouts, pause generators clock by clock, raw port access."""

import itertools

import pytest

import cngw_tb
from cngw_tb import ClockCycles, Event, First, RisingEdge


@cngw_tb.test
async def test_hw_03_clock_triggers_advance_exactly(gw):
    start = gw.cycle
    await RisingEdge(gw.clk)
    assert gw.cycle == start + 1
    await ClockCycles(gw.clk, 1000)
    assert gw.cycle == start + 1001
    await ClockCycles(gw.clk, 0)
    assert gw.cycle == start + 1001


@cngw_tb.test
async def test_hw_03_tasks_run_concurrently_and_join(gw):
    log = []

    async def ticker(name, period, n):
        for _ in range(n):
            await ClockCycles(gw.clk, period)
            log.append((gw.cycle, name))
        return name

    start = gw.cycle
    a = cngw_tb.start_soon(ticker("a", 3, 4))
    b = cngw_tb.start_soon(ticker("b", 5, 2))
    assert await a == "a" and await b == "b"
    assert sorted(c - start for c, _ in log) == [3, 5, 6, 9, 10, 12]


@cngw_tb.test
async def test_hw_03_events_timeouts_and_first(gw):
    ready = Event("ready")

    async def producer():
        await ClockCycles(gw.clk, 10)
        ready.set(42)

    cngw_tb.start_soon(producer())
    assert await ready.wait() == 42
    with pytest.raises(TimeoutError):
        await gw.wan_tx.recv(timeout=50)
    start = gw.cycle
    await First(gw.wan_tx.wait(), ClockCycles(gw.clk, 30))
    assert gw.cycle == start + 30


def test_hw_03_a_failing_background_task_fails_the_test():
    @cngw_tb.test
    async def body(gw):
        async def broken():
            await ClockCycles(gw.clk, 5)
            raise ValueError("boom")

        cngw_tb.start_soon(broken())
        await ClockCycles(gw.clk, 100)

    with pytest.raises(ValueError, match="boom"):
        body()


def test_hw_03_a_test_that_waits_forever_is_stopped():
    @cngw_tb.test(timeout_cycles=10_000)
    async def body(gw):
        await gw.dc_tx.recv()

    with pytest.raises(TimeoutError, match="10000 clocks"):
        body()

    @cngw_tb.test
    async def deadlocked(gw):
        await Event().wait()

    with pytest.raises(RuntimeError, match="deadlock"):
        deadlocked()


@cngw_tb.test
async def test_hw_03_pause_generators_apply_clock_by_clock(gw):
    # Sink: tready follows the pattern (truthy = low), one value per clock.
    gw.wan_tx.set_pause_generator(itertools.cycle([1, 1, 0]))
    seen = []
    for _ in range(9):
        await RisingEdge(gw.clk)
        seen.append(gw.get("wan_tx_tready"))
    assert seen in ([0, 0, 1] * 3, [0, 1, 0] * 3, [1, 0, 0] * 3)
    # Source: one-beat frames enter only in the unpaused clocks.
    gw.wan_tx.set_pause_generator(None)
    gw.dc_rx.set_pause_generator(itertools.cycle([1, 1, 1, 0]))
    gw.dc_rx.send_batch([bytes([i]) * 64 for i in range(10)])
    await gw.dc_rx.wait()
    starts = [s for s, _ in gw.dc_rx.accepted_cycles()]
    assert [b - a for a, b in zip(starts, starts[1:])] == [4] * 9
    # A finite generator pauses while it lasts, then never.
    gw.dc_rx.set_pause_generator(iter([1] * 20))
    gw.dc_rx.send_batch([b"\x01" * 64] * 3)
    start = gw.cycle
    await gw.dc_rx.wait()
    entered = [s - start for s, _ in gw.dc_rx.accepted_cycles()]
    assert entered == [20, 21, 22]


@cngw_tb.test
async def test_hw_03_raw_ports_by_name(gw):
    assert gw.get("dc_rx_tready") == 1
    gw.set("qd_ext_bytes", 0xABCDE)
    gw.set("qd_ext_valid", 1)
    await ClockCycles(gw.clk, 2)
    assert gw.get("qd_ext_bytes") == 0xABCDE
    assert await gw.csr.read("PORT0_QUEUE_DEPTH_BYTES") == 0xABCDE
    widths = {name: width for name, width, _ in gw.sim.ports()}
    assert widths["dc_rx_tdata"] == 512
    with pytest.raises(ValueError):
        gw.set("qd_ext_bytes", 1 << 32)
    with pytest.raises(ValueError):
        gw.get("no_such_port")


def test_hw_03_plain_pytest_style_with_the_gw_fixture(gw):
    async def body():
        await gw.dc_rx.send(b"\x11" * 70)
        return await gw.wan_tx.recv(timeout=100)

    assert cngw_tb.run(body()) == b"\x11" * 70
