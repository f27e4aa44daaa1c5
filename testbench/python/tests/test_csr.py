"""HW-03/HW-04: CSR access by register name from Python over AXI4-Lite,
with the register map taken from the one Rust definition."""

import itertools

import pytest

import cngw_sim
import cngw_tb
from cngw_tb import REGMAP, ClockCycles, CsrError


def test_hw_03_register_map_comes_from_the_rust_definition():
    names = [r.name for r in REGMAP]
    assert len(names) == len(set(names)) == len(cngw_sim.regmap())
    offsets = [r.offset for r in REGMAP]
    assert offsets == sorted(offsets) and all(o % 4 == 0 for o in offsets)
    assert REGMAP["id"].reset.to_bytes(4, "big") == b"CNGW"
    assert REGMAP["FEATURE_ENABLE"].field("lh_ecn_mark").mask == 1
    assert REGMAP.by_offset(REGMAP["SCRATCH"].offset).name == "SCRATCH"


@cngw_tb.test
async def test_hw_03_constant_registers_read_their_reset_values(gw):
    for reg in REGMAP:
        if reg.access == "read_only" and not reg.volatile:
            assert await gw.csr.read(reg.name) == reg.reset, reg.name


@cngw_tb.test
async def test_hw_03_csr_write_read_fields_and_errors(gw):
    await gw.csr.write("SCRATCH", 0xDEADBEEF)
    assert await gw.csr.read("scratch") == 0xDEADBEEF
    assert await gw.csr.read(REGMAP["SCRATCH"].offset) == 0xDEADBEEF
    await gw.csr.write_field("FEATURE_ENABLE", "proxy_cn", 1)
    assert await gw.csr.read_field("FEATURE_ENABLE", "proxy_cn") == 1
    assert await gw.csr.read("FEATURE_ENABLE") == REGMAP["FEATURE_ENABLE"].field("proxy_cn").mask
    await gw.csr.write("FEATURE_ENABLE", 0)
    with pytest.raises(CsrError, match="SLVERR"):
        await gw.csr.write("ID", 0)
    with pytest.raises(CsrError, match="DECERR"):
        await gw.csr.read(0xFFC)
    with pytest.raises(KeyError):
        await gw.csr.read("NO_SUCH_REGISTER")
    assert gw.csr.read_sync("SCRATCH") == 0xDEADBEEF


@cngw_tb.test
async def test_hw_03_csr_accesses_run_while_frames_stream(gw):
    frames = [bytes([i % 256]) * (64 + i % 200) for i in range(300)]
    gw.wan_rx.send_batch(frames)
    gw.dc_tx.set_pause_generator(itertools.cycle([1, 0, 0]))
    seen = []
    while not gw.wan_rx.empty():
        seen.append(await gw.csr.read("WAN_RX_FRAMES"))
        await ClockCycles(gw.clk, 7)
    await gw.drain()
    assert seen == sorted(seen) and len(set(seen)) > 10, "the counter grows while frames stream"
    assert seen[-1] < len(frames)
    assert await gw.csr.read("WAN_RX_FRAMES") == len(frames)
    assert await gw.csr.read("DC_TX_FRAMES") == len(frames)
    assert [bytes(f) for f in gw.dc_tx.recv_all_nowait()] == frames
    await gw.csr.write("CONTROL", REGMAP["CONTROL"].field("clear_counters").mask)
    assert await gw.csr.read("WAN_RX_FRAMES") == 0


@cngw_tb.test
async def test_hw_03_queue_depth_input_reads_back_through_the_csr(gw):
    gw.set_queue_depth(123_456_789)
    await ClockCycles(gw.clk, 2)
    assert await gw.csr.read("PORT0_QUEUE_DEPTH_BYTES") == 123_456_789
