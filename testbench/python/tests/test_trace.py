"""HW-03: a VCD waveform on request, from the low-level module, from a
gateway object and for every test under $CNGW_VCD_DIR (pytest --vcd-dir)."""

import cngw_sim
import cngw_tb
from cngw_tb import ClockCycles


def test_hw_03_vcd_trace_of_a_gateway(tmp_path):
    path = tmp_path / "wave.vcd"
    with cngw_tb.Gateway(trace=path) as gw:
        # The trace starts once the gateway is reset and its flow table
        # flushed (cngw_sim.FLOW_TABLE_FLUSH_CLOCKS after reset).
        start = gw.cycle

        async def body():
            await gw.dc_rx.send(b"\xab" * 100)
            await gw.wan_tx.recv(timeout=100)
            await ClockCycles(gw.clk, 5)

        cngw_tb.run(body())
        clocks = gw.cycle - start
    vcd = path.read_text()
    for signal in ("dc_rx_tvalid", "wan_tx_tdata", "dc_hdr_valid", "s_axil_awaddr"):
        assert signal in vcd
    stamps = [line for line in vcd.splitlines() if line.startswith("#")]
    assert clocks > 5
    assert 2 * clocks <= len(stamps) <= 2 * clocks + 4, "two time stamps a clock"


def test_hw_03_every_test_writes_a_waveform_under_the_vcd_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(cngw_tb.testing.VCD_DIR_ENV, str(tmp_path))

    @cngw_tb.test
    async def test_hw_03_inner(gw):
        await ClockCycles(gw.clk, 3)

    test_hw_03_inner()
    files = list(tmp_path.glob("*.vcd"))
    assert len(files) == 1 and "test_hw_03_every_test_writes" in files[0].name
    assert "$var" in files[0].read_text()


def test_hw_03_unwritable_trace_path_is_an_error(tmp_path):
    try:
        cngw_sim.Gateway(str(tmp_path / "missing-dir" / "x.vcd"))
    except RuntimeError as e:
        assert "x.vcd" in str(e)
    else:
        raise AssertionError("a gateway with an unwritable trace path was created")
