"""AXI4-Stream sources and sinks on the gateway's ports (cocotbext-axi style).

A source queues frames for an input (``dc_rx``, ``wan_rx``); a sink collects
the frames an output (``dc_tx``, ``wan_tx``) delivers. Both run inside the
simulator in Rust, clock by clock; these objects only queue and fetch.

Pause generators follow cocotbext-axi: an iterable of values, one per clock,
truthy meaning "pause" (a source starts no new beat, a sink holds ``tready``
low): ``itertools.cycle([1, 1, 1, 0])`` pauses three clocks out of four. A
float is a random pause probability; ``cngw_sim.PausePattern.repeat([...])``
is a repeating pattern that costs no Python call per clock.
"""

import cngw_sim

from .triggers import Condition

_EV = cngw_sim.EVENTS


def _frame_and_user(frame, user):
    if isinstance(frame, tuple) and len(frame) == 2:
        return frame[0], bool(frame[1])
    return frame, bool(user)


class StreamFrame(bytes):
    """The bytes of a frame that left an output, with its ``tuser`` flag and
    the clocks its first and last beat left (``start_cycle``, ``end_cycle``)."""

    user: bool
    start_cycle: int
    end_cycle: int

    def __new__(cls, data, user=False, start_cycle=None, end_cycle=None):
        self = super().__new__(cls, data)
        self.user = user
        self.start_cycle = start_cycle
        self.end_cycle = end_cycle
        return self

    def packet(self):
        """The frame dissected by scapy (an ``Ether`` packet)."""
        from scapy.layers.l2 import Ether

        return Ether(bytes(self))

    def __repr__(self):
        return f"StreamFrame({len(self)} bytes, user={self.user}, cycles {self.start_cycle}..{self.end_cycle})"


class AxiStreamSource:
    """Drives frames into an input port of the gateway."""

    def __init__(self, sim, port):
        self.sim = sim
        self.port = port
        self._drained = _EV[f"DRAINED_{port.upper()}"]
        self._accepted = _EV[f"ACCEPTED_{port.upper()}"]

    def send_nowait(self, frame, user=False):
        """Queues a frame (``bytes``, scapy packet or ``(frame, user)``);
        returns its 1-based number on this port."""
        frame, user = _frame_and_user(frame, user)
        return self.sim.push_frame(self.port, frame, user)

    async def send(self, frame, user=False):
        """Queues a frame; the queue has no limit, so this never waits."""
        return self.send_nowait(frame, user)

    def send_batch(self, frames):
        """Queues many frames in one call (the fast path for big runs)."""
        return self.sim.push_frames(self.port, frames)

    def count(self):
        """Frames queued whose last beat has not entered yet."""
        return self.sim.frames_pending(self.port)

    def empty(self):
        return self.count() == 0

    idle = empty

    async def wait(self, timeout=None):
        """Waits until every queued frame has entered the gateway."""
        return await Condition(self.sim, self.empty, self._drained, timeout, f"{self.port} source drain")

    async def wait_for_frame(self, number, timeout=None):
        """Waits until frame ``number`` (as ``send`` returned it) has entered."""
        done = lambda: self.sim.frames_accepted(self.port) >= number  # noqa: E731
        return await Condition(self.sim, done, self._accepted, timeout, f"{self.port} frame {number}")

    def set_pause_generator(self, generator=None, seed=0):
        """Idle pattern: None, a probability, a PausePattern or an iterable."""
        self.sim.set_idle(self.port, generator, seed)

    def accepted_cycles(self):
        """Pops ``(start_cycle, end_cycle)`` of frames that entered since the last call."""
        return self.sim.pop_accepted(self.port)

    def __repr__(self):
        return f"AxiStreamSource({self.port})"


class AxiStreamSink:
    """Collects the frames an output port of the gateway delivers."""

    def __init__(self, sim, port):
        self.sim = sim
        self.port = port
        self._frame = _EV[f"FRAME_{port.upper()}"]

    def _waiting(self):
        return self.sim.frames_waiting(self.port)

    def count(self):
        """Frames collected and not received yet."""
        return self._waiting()

    def empty(self):
        return self._waiting() == 0

    def recv_nowait(self):
        """The oldest collected frame as a StreamFrame, or None."""
        got = self.sim.pop_frames_detail(self.port, 1)
        return StreamFrame(*got[0]) if got else None

    def recv_all_nowait(self):
        """Every collected frame, oldest first."""
        return [StreamFrame(*f) for f in self.sim.pop_frames_detail(self.port)]

    async def wait(self, timeout=None):
        """Waits until at least one frame was collected."""
        return await Condition(self.sim, self._waiting, self._frame, timeout, f"{self.port} sink")

    async def recv(self, timeout=None):
        """Waits for the next frame; TimeoutError after ``timeout`` clocks."""
        await self.wait(timeout)
        return self.recv_nowait()

    async def recv_packet(self, timeout=None):
        """Waits for the next frame and dissects it with scapy."""
        return (await self.recv(timeout)).packet()

    async def recv_n(self, n, timeout=None):
        """Waits for ``n`` frames (``timeout`` counts for all of them)."""
        enough = lambda: self._waiting() >= n  # noqa: E731
        await Condition(self.sim, enough, self._frame, timeout, f"{self.port} sink ({n} frames)",
                        min_frames={self.port: n})
        return [StreamFrame(*f) for f in self.sim.pop_frames_detail(self.port, n)]

    def set_pause_generator(self, generator=None, seed=0):
        """Backpressure pattern: None, a probability, a PausePattern or an iterable."""
        self.sim.set_backpressure(self.port, generator, seed)

    def __repr__(self):
        return f"AxiStreamSink({self.port})"
