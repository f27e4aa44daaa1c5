"""The gateway as a test sees it: clock, stream sources and sinks per port,
CSR master, parser monitors, raw port access and an optional waveform."""

import cngw_sim

from .csr import REGMAP, AxiLiteMaster
from .stream import AxiStreamSink, AxiStreamSource
from .triggers import ClockCycles, Condition

_EV = cngw_sim.EVENTS


class Clock:
    """The gateway's single clock (``gw.clk``): what ClockCycles and
    RisingEdge wait on. The simulator is cycle based: one step is one period."""

    def __init__(self, sim):
        self.sim = sim

    @property
    def cycle(self):
        return self.sim.cycle

    def __repr__(self):
        return f"Clock(cycle={self.sim.cycle})"


class Gateway:
    """A fresh, reset cycle-accurate gateway with its test interfaces.

    ``gw.dc_rx`` / ``gw.wan_rx`` are AxiStreamSources, ``gw.dc_tx`` /
    ``gw.wan_tx`` AxiStreamSinks, ``gw.csr`` an AxiLiteMaster, ``gw.clk``
    the clock and ``gw.sim`` the low-level ``cngw_sim.Gateway``. ``trace``
    names a VCD file to write.
    """

    def __init__(self, trace=None):
        self.sim = cngw_sim.Gateway(None if trace is None else str(trace))
        self.trace = trace
        self.clk = Clock(self.sim)
        self.dc_rx = AxiStreamSource(self.sim, "dc_rx")
        self.wan_rx = AxiStreamSource(self.sim, "wan_rx")
        self.dc_tx = AxiStreamSink(self.sim, "dc_tx")
        self.wan_tx = AxiStreamSink(self.sim, "wan_tx")
        self.csr = AxiLiteMaster(self.sim)
        self.regmap = REGMAP

    @property
    def cycle(self):
        return self.sim.cycle

    def source(self, port):
        return {"dc_rx": self.dc_rx, "wan_rx": self.wan_rx}[port]

    def sink(self, port):
        return {"dc_tx": self.dc_tx, "wan_tx": self.wan_tx}[port]

    async def reset(self, cycles_after=0):
        """Holds reset for four clocks (dropping queued frames)."""
        self.sim.reset()
        if cycles_after:
            await ClockCycles(self.clk, cycles_after)

    async def parsed(self, port, timeout=None):
        """The next parser result of an input (``dc_rx``/``wan_rx``): a
        ``cngw_sim.ParsedHeader``; its ``cycle`` is the clock in which
        ``*_hdr_valid`` was high: the parser registers the result at the edge
        after the one that took the frame's last beat (last beat in clock N,
        result in clock N + 2)."""
        mask = _EV[f"PARSED_{port.upper()}"]
        await Condition(self.sim, lambda: self.sim.parsed_waiting(port), mask, timeout, f"{port} parser")
        return self.sim.pop_parsed(port, 1)[0]

    def parsed_nowait(self, port):
        """Every parser result of an input not taken yet."""
        return self.sim.pop_parsed(port)

    def set(self, name, value):
        """Sets an input port by name; sampled at the next rising edge."""
        self.sim.set_port(name, value)

    def get(self, name):
        """Reads any port by name (the state after the last edge)."""
        return self.sim.get_port(name)

    def set_queue_depth(self, queue_depth_bytes, valid=True):
        """Drives the external queue-depth telemetry input."""
        self.sim.set_queue_depth(queue_depth_bytes, valid)

    def _progress(self):
        s = self.sim
        return (s.frames_accepted("dc_rx"), s.frames_accepted("wan_rx"), s.frames_received("dc_tx"),
                s.frames_received("wan_tx"), s.parsed_count("dc_rx"), s.parsed_count("wan_rx"))

    async def drain(self, quiet=64, timeout=None):
        """Waits until every source is empty and no frame moved for ``quiet`` clocks."""
        await Condition(self.sim, lambda: self.dc_rx.empty() and self.wan_rx.empty(),
                        _EV["DRAINED_DC_RX"] | _EV["DRAINED_WAN_RX"], timeout, "sources drained")
        while True:
            before = self._progress()
            await ClockCycles(self.clk, quiet)
            if self._progress() == before:
                return

    def close(self):
        """Frees the simulator now and closes the waveform file."""
        self.sim.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<cngw_tb.Gateway at cycle {self.sim.cycle}>"
