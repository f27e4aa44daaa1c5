"""pytest setup of the cngw Python suite: waveform option, capture folder,
and a ``gw`` fixture for tests that are not ``@cngw_tb.test`` coroutines."""

import os
from pathlib import Path

import pytest

import cngw_tb
from cngw_tb.testing import VCD_DIR_ENV


def pytest_addoption(parser):
    parser.addoption(
        "--vcd-dir",
        metavar="DIR",
        help=f"write a VCD waveform of every test's gateway into DIR (same as ${VCD_DIR_ENV})",
    )


def pytest_configure(config):
    folder = config.getoption("--vcd-dir")
    if folder:
        os.environ[VCD_DIR_ENV] = str(Path(folder).resolve())


@pytest.fixture
def captures_dir():
    """The folder of real captures ($CNGW_CAPTURES); the test is skipped without it."""
    folder = os.environ.get("CNGW_CAPTURES")
    if not folder:
        pytest.skip("CNGW_CAPTURES is unset (it names the folder of real captures)")
    path = Path(folder)
    if not path.is_dir():
        pytest.fail(f"CNGW_CAPTURES={folder} is not a folder")
    return path


@pytest.fixture
def gw():
    """A fresh gateway (with a waveform under --vcd-dir); closed afterwards."""
    gateway = cngw_tb.Gateway(trace=cngw_tb.vcd_path())
    yield gateway
    gateway.close()
