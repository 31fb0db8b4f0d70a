"""What every test run shares: OpenSim, where it is installed, logs nowhere on disk."""

import importlib.util
import sys

import pytest


@pytest.fixture(autouse=True, scope="session")
def _opensim_writes_no_log_file():
    """OpenSim's logger writes ``opensim.log`` into the working folder from its first
    message on; a test run leaves no file behind, so its file sink goes before any test."""
    if importlib.util.find_spec("opensim") is not None:
        import opensim

        opensim.Logger.removeFileSink()
    yield


_OPENSIM_DEFAULTS = ("Millard2012EquilibriumMuscle", "Thelen2003Muscle", "CoordinateActuator",
                     "PointActuator", "TorqueActuator")
"""The types of the bundled models' <defaults> (Rajagopal2016's) and of the tests' own."""


@pytest.fixture(autouse=True)
def _opensim_defaults_restored():
    """OpenSim keeps the <defaults> of each file it reads as the defaults of every file it
    reads later in the process: after each test its built-in ones are registered again,
    so that a test's OpenSim reads a model as a fresh process would."""
    yield
    osim = sys.modules.get("opensim")
    if osim is not None:
        for name in _OPENSIM_DEFAULTS:
            osim.OpenSimObject.registerType(getattr(osim, name)())
