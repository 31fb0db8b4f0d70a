"""A muscle model's first run: from fibers far from balancing their tendons it cannot
start and says which muscles and what to call; equilibrated, it runs."""

import warnings
from pathlib import Path

import pytest

import kinetree as kt
from kinetree.errors import SimulationError
from kinetree.io import OsimSkippedWarning, load_osim

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"


def test_a_run_from_unbalanced_muscles_names_them_and_the_fix():
    """gait2392's file leaves its muscles' fibers far from balancing their tendons (as
    OpenSim's initSystem does): a run from there cannot start, and says which muscles
    and what to call; equilibrated, it runs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(MODELS / "gait2392_thelen2003muscle.osim")
    state = model.get_default_state()
    with pytest.raises(SimulationError, match=r"fibers far from equilibrium: glut_med1_r .*"
                       r"call model.equilibrate_muscles\(state\)"):
        kt.simulate(model.system, state, 0.01, progress=False)
    model.equilibrate_muscles(state)
    assert len(kt.simulate(model.system, state, 0.01, progress=False)) > 1
