"""A file's <defaults>: OpenSim takes a property an element omits from the object of its
type in the file's <defaults>, not from its built-in defaults; so does kinetree."""

import warnings
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"
DEFAULTS = """
    <defaults>
        <Thelen2003Muscle name="default">
            <FmaxTendonStrain>0.033</FmaxTendonStrain>
            <deactivation_time_constant>0.04</deactivation_time_constant>
        </Thelen2003Muscle>
    </defaults>"""
"""Jumper's (DynamicJumperModel.osim's) values of the two properties Tug_of_War.osim's
muscles omit, OpenSim's built-in defaults being 0.04 and 0.05."""


@pytest.fixture
def tug_of_war_with_defaults(tmp_path):
    """Tug_of_War.osim with DEFAULTS in its Model (tests/conftest.py restores OpenSim's
    own defaults after the test)."""
    text = (MODELS / "Tug_of_War.osim").read_text()
    head = text.index(">", text.index("<Model ")) + 1
    path = tmp_path / "Tug_of_War.osim"
    path.write_text(text[:head] + DEFAULTS + text[head:])
    return path


def test_a_files_defaults_fill_in_what_its_muscles_omit(tug_of_war_with_defaults):
    path = tug_of_war_with_defaults
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(path)
    muscle = model.muscles["muscle1"]
    assert muscle.properties["deactivation_time_constant"] == 0.04
    assert muscle.properties["FmaxTendonStrain"] == 0.033
    om = osim.Model(str(path))
    ostate = om.initSystem()
    state = model.get_default_state()
    for name, a in (("muscle1", 0.5), ("muscle2", 0.3)):
        om.getMuscles().get(name).setActivation(ostate, a)
        model.muscles[name].set_activation(state, a)
    om.equilibrateMuscles(ostate)
    om.realizeAcceleration(ostate)
    model.equilibrate_muscles(state)
    model.system.realize(state, kt.Stage.ACCELERATION)
    for name in ("muscle1", "muscle2"):
        expected = om.getMuscles().get(name).getTendonForce(ostate)
        assert model.muscles[name].get_tendon_force(state) == pytest.approx(expected, 1e-9)
    z_dot = dict(zip(model.actuator_subsystem.z_labels(),
                     model.actuator_subsystem.get_z_dot(state)))
    for label, value in z_dot.items():
        expected = om.getStateVariableDerivativeValue(ostate, label)
        assert value == pytest.approx(expected, rel=1e-6, abs=1e-9), label
    assert np.isclose(z_dot["/forceset/muscle1/activation"], -0.5 * (0.5 + 1.5 * 0.5) / 0.04)

