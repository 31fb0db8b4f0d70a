"""What every test run shares: OpenSim, where it is installed, logs nowhere on disk."""

import importlib.util

import pytest


@pytest.fixture(autouse=True, scope="session")
def _opensim_writes_no_log_file():
    """OpenSim's logger writes ``opensim.log`` into the working folder from its first
    message on; a test run leaves no file behind, so its file sink goes before any test."""
    if importlib.util.find_spec("opensim") is not None:
        import opensim

        opensim.Logger.removeFileSink()
    yield
