"""Things a test can ``await``: clock edges, clock counts, conditions on
the gateway's queues, events between tasks, other tasks.

Every trigger says when it fires: at a clock ``deadline``, or when one of
the simulator ``mask`` events happened and its condition holds. The
scheduler uses both to run the simulator in one call between wake-ups.
"""


class Trigger:
    """Base of everything a task can await."""

    #: The cngw_sim.Gateway this trigger needs clocked (None: none).
    sim = None
    #: Absolute clock at which the trigger fires regardless (None: never).
    deadline = None
    #: cngw_sim event flags after which ``fired`` is worth asking.
    mask = 0
    #: ``{"dc_tx": n}``: a frame event of that output is only worth asking
    #: about once n frames wait there (lets ``recv_n`` wake once).
    min_frames = None

    def prime(self, now):
        """Called when a task starts waiting, with the current clock."""

    def fired(self, now):
        """``None`` while waiting; ``(value, exception)`` once fired."""
        raise NotImplementedError

    def __await__(self):
        return (yield self)


class ClockCycles(Trigger):
    """Fires after ``n`` rising edges of ``clk`` (``n`` = 0: at once)."""

    def __init__(self, clk, n=1):
        if not hasattr(clk, "sim"):
            raise TypeError("ClockCycles waits on the gateway clock: ClockCycles(gw.clk, n)")
        if n < 0:
            raise ValueError("cannot wait a negative number of clocks")
        self.sim = clk.sim
        self.n = int(n)

    def prime(self, now):
        self.deadline = now + self.n

    def fired(self, now):
        return (now, None) if now >= self.deadline else None

    def __repr__(self):
        return f"ClockCycles({self.n})"


class RisingEdge(ClockCycles):
    """Fires after the next rising edge of ``clk``; the only edge of a
    cycle-based model (inputs set after it are sampled at the next one)."""

    def __init__(self, clk):
        super().__init__(clk, 1)

    def __repr__(self):
        return "RisingEdge(clk)"


class Condition(Trigger):
    """Fires once ``predicate()`` is true; it is asked after clocks in which
    one of the ``mask`` events happened (and when the task starts waiting).
    With ``timeout`` (clocks) it raises TimeoutError instead of hanging."""

    def __init__(self, sim, predicate, mask, timeout=None, what="condition", min_frames=None):
        self.sim = sim
        self.predicate = predicate
        self.mask = mask
        self.timeout = timeout
        self.what = what
        self.min_frames = min_frames

    def prime(self, now):
        self.deadline = None if self.timeout is None else now + self.timeout

    def fired(self, now):
        try:
            value = self.predicate()
        except Exception as e:  # noqa: BLE001 - raised in the waiting task
            return (None, e)
        if value:
            return (value, None)
        if self.deadline is not None and now >= self.deadline:
            return (None, TimeoutError(f"{self.what}: nothing after {self.timeout} clocks"))
        return None

    def __repr__(self):
        return f"Condition({self.what})"


class Event:
    """A flag one task sets and others wait for (cocotb's Event)."""

    def __init__(self, name=None):
        self.name = name
        self.data = None
        self._set = False

    def set(self, data=None):
        self.data = data
        self._set = True

    def clear(self):
        self._set = False

    def is_set(self):
        return self._set

    def wait(self):
        return _EventWait(self)

    def __repr__(self):
        return f"Event({self.name or ''}{', set' if self._set else ''})"


class _EventWait(Trigger):
    def __init__(self, event):
        self.event = event

    def fired(self, now):
        return (self.event.data, None) if self.event.is_set() else None

    def __repr__(self):
        return f"{self.event!r}.wait()"


class Join(Trigger):
    """Fires with a task's result when it finishes (``await task`` uses it)."""

    def __init__(self, task):
        self.task = task

    def fired(self, now):
        if not self.task.done():
            return None
        return (self.task._result, self.task._exception)

    def __repr__(self):
        return f"Join({self.task.name})"


class First(Trigger):
    """Fires with the value of whichever of its triggers or coroutines
    finishes first; coroutines run as tasks, and the losers are cancelled."""

    def __init__(self, *awaitables):
        if not awaitables:
            raise ValueError("First needs at least one trigger or coroutine")
        from .scheduler import start_soon

        self.tasks = []
        triggers = []
        for a in awaitables:
            if isinstance(a, Trigger):
                triggers.append(a)
            else:
                task = a if hasattr(a, "_step") else start_soon(a)
                self.tasks.append(task)
                triggers.append(Join(task))
        sims = {id(t.sim): t.sim for t in triggers if t.sim is not None}
        if len(sims) > 1:
            raise RuntimeError("First over triggers of different gateways")
        self.sim = next(iter(sims.values()), None)
        self.triggers = triggers

    def prime(self, now):
        for t in self.triggers:
            t.prime(now)
        deadlines = [t.deadline for t in self.triggers if t.deadline is not None]
        self.deadline = min(deadlines) if deadlines else None
        self.mask = 0
        self.min_frames = {}
        for t in self.triggers:
            self.mask |= t.mask
            for port, n in (t.min_frames or {}).items():
                self.min_frames[port] = min(n, self.min_frames.get(port, n))
        for t in self.triggers:  # a trigger without a threshold wants every frame
            if t.min_frames is None:
                self.min_frames = None
                break

    def fired(self, now):
        for t in self.triggers:
            f = t.fired(now)
            if f is not None:
                for task in self.tasks:
                    task.cancel()
                return f
        return None

    def __repr__(self):
        return "First(" + ", ".join(map(repr, self.triggers)) + ")"
