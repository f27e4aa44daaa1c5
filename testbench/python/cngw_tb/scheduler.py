"""A tiny cocotb-like scheduler for async tests against the gateway.

Tasks are coroutines that ``await`` triggers (``ClockCycles``,
``RisingEdge``, a sink's ``recv`` ...). When every task waits, the scheduler
advances the simulator in one Rust call up to the nearest deadline, stopping
early on the events some task waits for (a frame left, a parser result, a
CSR response), then wakes the tasks whose triggers fired. Between two clock
edges the simulator's outputs show the state after the last edge; inputs set
then are sampled at the next edge, which is what cocotb calls the ReadWrite
phase after ``RisingEdge``.
"""

from collections import deque

import cngw_sim

from .triggers import Join, Trigger

_FRAME_EVENT = {"dc_tx": cngw_sim.EVENTS["FRAME_DC_TX"], "wan_tx": cngw_sim.EVENTS["FRAME_WAN_TX"]}

#: Clocks a test may run before it is stopped as hung (per ``run`` call).
DEFAULT_TIMEOUT_CYCLES = 20_000_000

_current = None


class Task:
    """A coroutine run by the scheduler; ``await task`` waits for its result."""

    def __init__(self, coro, name=None):
        if not hasattr(coro, "send"):
            raise TypeError(f"{coro!r} is not a coroutine (did you forget to call the async function?)")
        self._coro = coro
        self.name = name or getattr(coro, "__qualname__", repr(coro))
        self._done = False
        self._result = None
        self._exception = None
        self.cancelled = False
        self._awaited = False

    def done(self):
        return self._done

    def result(self):
        if not self._done:
            raise RuntimeError(f"task {self.name} has not finished")
        if self._exception is not None:
            raise self._exception
        return self._result

    def cancel(self):
        """Stops the task where it waits; ``await``-ing it afterwards raises."""
        if not self._done:
            self._coro.close()
            self._done = True
            self.cancelled = True
            self._exception = RuntimeError(f"task {self.name} was cancelled")

    def _step(self, value, exc):
        """Runs the task to its next trigger; returns that trigger or None."""
        try:
            trigger = self._coro.throw(exc) if exc is not None else self._coro.send(value)
        except StopIteration as stop:
            self._done = True
            self._result = stop.value
            return None
        except BaseException as e:  # noqa: BLE001 - handed to whoever awaits the task
            self._done = True
            self._exception = e
            return None
        if not isinstance(trigger, Trigger):
            self._coro.close()
            self._done = True
            self._exception = TypeError(f"task {self.name} awaited {trigger!r}, which is not a cngw_tb trigger")
        return trigger

    def __await__(self):
        self._awaited = True
        if not self._done:
            yield Join(self)
        return self.result()

    def __repr__(self):
        state = "done" if self._done else "running"
        return f"<Task {self.name} {state}>"


class Scheduler:
    """Runs tasks against one simulator (found from the triggers awaited)."""

    def __init__(self, timeout_cycles=DEFAULT_TIMEOUT_CYCLES):
        self.sim = None
        self.timeout_cycles = timeout_cycles
        self._ready = deque()  # (task, value, exception)
        self._waiting = []  # (trigger, task)
        self._tasks = []

    def start_soon(self, coro, name=None):
        task = coro if isinstance(coro, Task) else Task(coro, name)
        self._tasks.append(task)
        self._ready.append((task, None, None))
        return task

    def _bind(self, trigger):
        sim = trigger.sim
        if sim is None:
            return
        if self.sim is None:
            self.sim = sim
        elif sim is not self.sim:
            raise RuntimeError("one scheduler drives one gateway; use a separate cngw_tb.run per gateway")

    def _run_ready(self):
        while self._ready:
            task, value, exc = self._ready.popleft()
            if task.done():
                continue
            trigger = task._step(value, exc)
            if trigger is None:
                continue
            self._bind(trigger)
            trigger.prime(self.sim.cycle if self.sim is not None else 0)
            self._waiting.append((trigger, task))

    def _wake(self):
        """Moves tasks whose triggers fired to the ready queue."""
        now = self.sim.cycle if self.sim is not None else 0
        still = []
        for trigger, task in self._waiting:
            if task.done():
                continue
            fired = trigger.fired(now)
            if fired is None:
                still.append((trigger, task))
            else:
                value, exc = fired
                self._ready.append((task, value, exc))
        self._waiting = still

    def run_until_complete(self, main):
        start = self.sim.cycle if self.sim is not None else None
        while True:
            self._run_ready()
            for task in self._tasks:
                failed = task.done() and task._exception is not None and not task.cancelled
                if failed and task is not main and not task._awaited:
                    raise task._exception
            if main.done():
                return main.result()
            self._wake()
            if self._ready:
                continue
            if self.sim is None:
                raise RuntimeError("every task waits and none waits for the clock (deadlock)")
            if start is None:
                start = self.sim.cycle
            now = self.sim.cycle
            deadlines = [t.deadline for t, _ in self._waiting if t.deadline is not None]
            mask = 0
            min_frames = {"dc_tx": None, "wan_tx": None}
            for t, _ in self._waiting:
                mask |= t.mask
                for port in min_frames:
                    wanted = 1 if t.min_frames is None else t.min_frames.get(port, 1)
                    if t.mask & _FRAME_EVENT[port]:
                        have = min_frames[port]
                        min_frames[port] = wanted if have is None else min(have, wanted)
            budget = start + self.timeout_cycles - now
            if budget <= 0:
                raise TimeoutError(
                    f"test still running after {self.timeout_cycles} clocks; waiting: "
                    + ", ".join(f"{task.name} on {t!r}" for t, task in self._waiting)
                )
            if not deadlines and mask == 0:
                raise RuntimeError(
                    "deadlock: every task waits for something no clock can bring: "
                    + ", ".join(f"{task.name} on {t!r}" for t, task in self._waiting)
                )
            limit = min([d - now for d in deadlines] + [budget])
            self.sim.run(max(limit, 1), mask, min_frames["dc_tx"] or 1, min_frames["wan_tx"] or 1)
            self._wake()


def run(coro, timeout_cycles=DEFAULT_TIMEOUT_CYCLES):
    """Runs a coroutine (and the tasks it starts) to completion; returns its result."""
    global _current
    if _current is not None:
        raise RuntimeError("cngw_tb.run cannot be nested; use start_soon or await")
    sched = Scheduler(timeout_cycles)
    _current = sched
    try:
        main = sched.start_soon(coro)
        return sched.run_until_complete(main)
    finally:
        _current = None
        for task in sched._tasks:
            if not task.done():
                task.cancel()


def start_soon(coro, name=None):
    """Starts a coroutine as a concurrent task of the running test."""
    if _current is None:
        raise RuntimeError("start_soon needs a running test (cngw_tb.run or @cngw_tb.test)")
    return _current.start_soon(coro, name)


start = start_soon
