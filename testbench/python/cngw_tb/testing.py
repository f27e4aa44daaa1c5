"""pytest glue: the ``@cngw_tb.test`` decorator and waveform paths.

A decorated ``async def test_x(gw, ...)`` becomes a plain pytest test that
makes a fresh gateway, runs the coroutine under the scheduler and closes
the gateway. Its other parameters stay pytest fixtures and parameters.
"""

import inspect
import os
import re

from .dut import Gateway
from .scheduler import DEFAULT_TIMEOUT_CYCLES, run

#: Environment variable naming a folder: every test gateway writes a VCD there.
VCD_DIR_ENV = "CNGW_VCD_DIR"


def vcd_path(name=None):
    """Where the running test's waveform goes when ``$CNGW_VCD_DIR`` is set
    (``None`` otherwise): ``<dir>/<test id>.vcd``."""
    folder = os.environ.get(VCD_DIR_ENV)
    if not folder:
        return None
    if name is None:
        name = os.environ.get("PYTEST_CURRENT_TEST", "cngw").rsplit(" ", 1)[0]
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") + ".vcd")


def test(fn=None, *, timeout_cycles=DEFAULT_TIMEOUT_CYCLES, trace=None):
    """Marks an ``async def test_x(gw, ...)`` as a gateway test.

    ``trace``: a VCD path for this test (default: under ``$CNGW_VCD_DIR``
    when set, else no waveform). ``timeout_cycles`` stops a hung test.
    """

    def decorate(fn):
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"@cngw_tb.test needs an async def, got {fn.__name__}")
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        if not params:
            raise TypeError(f"{fn.__name__} must take the gateway as its first parameter")

        def wrapper(*args, **kwargs):
            gw = Gateway(trace=trace if trace is not None else vcd_path())
            try:
                return run(fn(gw, *args, **kwargs), timeout_cycles=timeout_cycles)
            finally:
                gw.close()

        for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
            setattr(wrapper, attr, getattr(fn, attr))
        wrapper.__signature__ = sig.replace(parameters=params[1:])
        wrapper.cngw_coroutine = fn
        return wrapper

    return decorate(fn) if fn is not None else decorate


# The decorator itself is not a test, whatever pytest thinks of its name.
test.__test__ = False
