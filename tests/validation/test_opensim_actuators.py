"""OpenSim's CoordinateActuators and controls, loaded by kinetree and run side by side with
OpenSim: the double pendulum's two CoordinateActuators at random coordinates, speeds and
controls give u̇ equal to OpenSim's to 1e-8 relative, by coordinate name."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from support import assert_udot_matches_opensim, set_random_coordinates

from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"


def test_coordinate_actuators_match_opensim_under_random_controls():
    path = MODELS / "double_pendulum.osim"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(path)
    assert list(model.actuators) == ["Torq1", "Torq2"]
    assert not model.muscles and not model.skipped
    state = model.get_default_state()
    om = osim.Model(str(path))
    ostate = om.initSystem()
    rng = np.random.default_rng(3)
    for _ in range(3):
        set_random_coordinates(om, ostate, rng)
        controls = rng.uniform(-20.0, 20.0, 2)
        om.realizeVelocity(ostate)
        vector = om.getControls(ostate)
        for i, c in enumerate(controls):
            vector.set(i, float(c))
        om.setControls(ostate, vector)
        om.realizeAcceleration(ostate)
        model.set_controls(state, dict(zip(model.actuators, controls)))
        assert_udot_matches_opensim(model, state, om, ostate, "double_pendulum")
        for i, name in enumerate(model.actuators):
            assert model.actuators[name].get_actuation(state) == pytest.approx(
                osim.CoordinateActuator.safeDownCast(om.getActuators().get(i))
                .getActuation(ostate), rel=1e-12)
