"""Muscle-driven OpenSim models, loaded by kinetree and run side by side with OpenSim 4.6:
at random coordinates, speeds, activations and excitations, with the muscles equilibrated
by each program, every muscle agrees with OpenSim's:

* its path's length and lengthening speed to 1e-9 m and 1e-9 m/s;
* its fiber length after equilibration, tendon force and the derivatives of its states
  to 1e-6 relative (to 1e-6 N absolute for a slack muscle's forces);

and u̇ of every coordinate, the muscles' forces included, to 1e-8 relative (a locked
coordinate's is 0, where OpenSim's constraint solution leaves it near 0; Rajagopal2016's
moving knee is compared at rest only, test_opensim_models.py says why).

Where OpenSim is wrong: a path over two or more wrap objects whose wrapping takes a
second pass of OpenSim's wrap loop. OpenSim caches each path point's location in Ground
the first time it is asked for in a realization (Point::getLocationInGround), and a
wrap tangent point moved by a later pass (PathWrapPoint::setLocation) keeps its first
cached location: OpenSim's length then adds the new wrap length to segments ending at
the old tangent points, so it is not the length of the path it reports. The check that
shows it is independent of kinetree: OpenSim's own current path, its straight segments
and its wrap lengths, sums to another length than OpenSim's. Such a muscle is left out
of the agreement and checked apart (a strict expected failure), kinetree's path being
self-consistent."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from support import (
    opensim_path_is_consistent,
    set_kinetree_coordinates,
    set_random_coordinates,
    set_random_muscle_state,
)

from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"
NAMES = ["leg6dof9musc", "gait2392_thelen2003muscle", "gait10dof18musc", "Tug_of_War",
         "Tug_of_War_Millard", "arm26", "Rajagopal2016", "ToyLandingModel"]
SIMBODY_HDOT_DEVIATION = {"Rajagopal2016"}


def close(got, expected, rtol, atol, what):
    assert abs(got - expected) <= rtol * abs(expected) + atol, \
        f"{what}: kinetree {got!r}, OpenSim {expected!r}"


@pytest.mark.parametrize("name", NAMES)
def test_every_muscle_matches_opensim(name):
    path = MODELS / f"{name}.osim"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(path)
    assert not [s for s in model.skipped if "Muscle" in s or "Actuator" in s]
    om = osim.Model(str(path))
    ostate = om.initSystem()
    state = model.get_default_state()
    muscles = om.getMuscles()
    names = [muscles.get(i).getName() for i in range(muscles.getSize())]
    assert names == list(model.muscles)
    rng = np.random.default_rng(11)
    inconsistent = []
    for moving in (True, False):
        set_random_muscle_state(model, state, om, ostate, rng, moving)
        for name_ in names:
            m, k = muscles.get(name_), model.muscles[name_]
            where = f"{name} {name_}"
            if not opensim_path_is_consistent(m, ostate):
                inconsistent.append(name_)
                continue
            close(k.get_length(state), m.getLength(ostate), 0.0, 1e-9, f"{where} length")
            close(k.get_lengthening_speed(state), m.getLengtheningSpeed(ostate), 0.0, 1e-9,
                  f"{where} lengthening speed")
            close(k.get_tendon_force(state), m.getTendonForce(ostate), 1e-6, 1e-6,
                  f"{where} tendon force")
            close(k.get_fiber_length(state), m.getFiberLength(ostate), 1e-6, 1e-12,
                  f"{where} fiber length")
            actuators = model.actuator_subsystem
            for z_name, value in zip(actuators.z_labels(), actuators.get_z_dot(state)):
                if z_name.startswith(f"/forceset/{name_}/"):
                    expected = om.getStateVariableDerivativeValue(ostate, z_name)
                    close(value, expected, 1e-6, 1e-9, f"{where} d/dt {z_name}")
        if moving and name in SIMBODY_HDOT_DEVIATION or inconsistent:
            continue
        coordinates = om.getCoordinateSet()
        for i in range(coordinates.getSize()):
            c = coordinates.get(i)
            got = model.coordinates[c.getName()].get_acceleration_value(state)
            if c.getLocked(ostate):
                assert got == 0.0
                continue
            close(got, c.getAccelerationValue(ostate), 1e-8, 1e-8, f"{name} u̇ {c.getName()}")
    assert inconsistent == OPENSIM_STALE_WRAP_POINTS.get(name, [])


OPENSIM_STALE_WRAP_POINTS = {"Rajagopal2016": ["gasmed_r", "gasmed_l"]}
"""The muscles whose OpenSim path is not self-consistent in the states above."""


@pytest.mark.xfail(strict=True, reason="OpenSim's stale wrap tangent points (module "
                   "docstring): its length is not that of the path it reports")
def test_a_twice_wrapped_path_matches_opensim():
    """Rajagopal2016's gasmed_r at the pose where OpenSim's second pass moves a tangent
    point: OpenSim's wrap length is not that of the helix between the tangent points it
    reports, and its length differs from kinetree's by 1.9 mm."""
    path = MODELS / "Rajagopal2016.osim"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(path)
    om = osim.Model(str(path))
    ostate = om.initSystem()
    state = model.get_default_state()
    rng = np.random.default_rng(11)
    for moving in (True, False):        # the second state of the test above
        set_random_coordinates(om, ostate, rng, moving)
        om.assemble(ostate)
        rng.uniform(0.0, 1.0, 2 * len(model.muscles))
    om.realizeVelocity(ostate)
    set_kinetree_coordinates(model, state, om, ostate)
    muscle = model.muscles["gasmed_r"]
    points = muscle.get_current_path(state)
    assert not opensim_path_is_consistent(om.getMuscles().get("gasmed_r"), ostate)
    close(muscle.get_length(state), om.getMuscles().get("gasmed_r").getLength(ostate),
          0.0, 1e-9, f"gasmed_r over {len(points)} points")
