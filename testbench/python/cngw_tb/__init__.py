"""cngw_tb: a cocotb-like harness for the cycle-accurate cngw gateway.

    import cngw_tb
    from cngw_tb import ClockCycles, RisingEdge

    @cngw_tb.test
    async def test_hw_03_example(gw):
        await gw.dc_rx.send(frame)                 # bytes or a scapy packet
        out = await gw.wan_tx.recv(timeout=1000)   # a StreamFrame (bytes)
        assert await gw.csr.read("DC_RX_FRAMES") == 1

The simulator is the ``cngw_sim`` extension module (Rust, pyo3, Verilator),
built into the project's .venv by tools/setup.sh.
"""

try:
    import cngw_sim
except ImportError as e:  # pragma: no cover - a setup problem, said plainly
    raise ImportError(
        "the cngw_sim extension module is missing: run tools/setup.sh (it builds it with maturin into .venv)"
    ) from e

from .checks import (
    FrameCheckError,
    TsharkFinding,
    check_frame,
    check_roce_frame,
    check_with_tshark,
    tshark_fields,
    tshark_findings,
)
from .csr import REGMAP, AxiLiteMaster, CsrError, Field, Register, RegisterMap
from .dut import Clock, Gateway
from .scheduler import DEFAULT_TIMEOUT_CYCLES, Task, run, start, start_soon
from .stream import AxiStreamSink, AxiStreamSource, StreamFrame
from .testing import test, vcd_path
from .triggers import ClockCycles, Condition, Event, First, Join, RisingEdge, Trigger

PausePattern = cngw_sim.PausePattern
ScoreboardMismatch = cngw_sim.ScoreboardMismatch
Model = cngw_sim.Model
check = cngw_sim.check
classify = cngw_sim.classify
random_mix = cngw_sim.random_mix

__all__ = [
    "AxiLiteMaster", "AxiStreamSink", "AxiStreamSource", "Clock", "ClockCycles", "Condition", "CsrError",
    "DEFAULT_TIMEOUT_CYCLES", "Event", "Field", "First", "FrameCheckError", "Gateway", "Join", "Model",
    "PausePattern", "REGMAP", "Register", "RegisterMap", "RisingEdge", "ScoreboardMismatch", "StreamFrame",
    "Task", "Trigger", "TsharkFinding", "check", "check_frame", "check_roce_frame", "check_with_tshark",
    "classify", "random_mix", "run", "start", "start_soon", "test", "tshark_fields", "tshark_findings",
    "vcd_path",
]
