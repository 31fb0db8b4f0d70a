"""Forward simulations of muscle-driven models against OpenSim 4.6's, from the same
equilibrated start, at accuracy 1e-6 in both (Runge-Kutta-Merson): arm26 under a step of
its elbow flexors' excitation (0.05 to 0.15: the forearm lifts, within the elbow's range)
and gait10dof18musc
under constant excitations. The coordinates agree to 1e-4 rad (or m) RMS over the
reports, and the activations to 1e-4."""

import warnings
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.actuators import PrescribedController
from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"
ACCURACY = 1e-6


def excitation(name, muscle):
    """(kinetree Function, OpenSim Function) of a muscle's excitation in each case."""
    if name == "arm26":
        if muscle in ("BIClong", "BICshort", "BRA"):
            return kt.Function.Step(0.05, 0.15, 0.1, 0.12), osim.StepFunction(0.1, 0.12,
                                                                               0.05, 0.15)
        return kt.Function.Constant(0.05, 1), osim.Constant(0.05)
    value = 0.1 + 0.02 * (sum(map(ord, muscle)) % 10)
    return kt.Function.Constant(value, 1), osim.Constant(value)


@pytest.mark.parametrize("name, t_final", [("arm26", 1.0), ("gait10dof18musc", 1.0)])
def test_trajectories_match_opensim(name, t_final):
    path = MODELS / f"{name}.osim"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(path)
    model.actuator_subsystem.add_controller(PrescribedController("drive", {
        m: excitation(name, m)[0] for m in model.muscles}))
    state = model.get_default_state()
    model.equilibrate_muscles(state)
    times = np.linspace(0.0, t_final, 11)
    trajectory = kt.simulate(model.system, state, t_final, accuracy=ACCURACY,
                             report_interval=times[1], progress=False)

    om = osim.Model(str(path))
    controller = osim.PrescribedController()
    muscles = om.getMuscles()
    for i in range(muscles.getSize()):
        controller.addActuator(muscles.get(i))
        controller.prescribeControlForActuator(muscles.get(i).getName(),
                                               excitation(name, muscles.get(i).getName())[1])
    om.addController(controller)
    ostate = om.initSystem()
    om.equilibrateMuscles(ostate)
    manager = osim.Manager(om)
    manager.setIntegratorAccuracy(ACCURACY)
    manager.initialize(ostate)
    coordinates = om.getCoordinateSet()
    names = [coordinates.get(i).getName() for i in range(coordinates.getSize())]
    errors, activation_errors = [], []
    for k, t in enumerate(times):
        ostate = manager.integrate(t) if t > 0 else ostate
        ours = trajectory.state(k)
        assert ours.get_time() == pytest.approx(t, abs=1e-12)
        errors.append([model.coordinates[n].get_value(ours)
                       - coordinates.get(n).getValue(ostate) for n in names])
        activation_errors.append([model.muscles[m].get_activation(ours)
                                  - muscles.get(m).getActivation(ostate)
                                  for m in model.muscles])
    rms = np.sqrt(np.mean(np.square(errors), axis=0))
    assert rms.max() < 1e-4, dict(zip(names, rms))
    assert np.abs(activation_errors).max() < 1e-4
    # the motion is not trivial: the coordinates move
    assert np.ptp([[model.coordinates[n].get_value(trajectory.state(k)) for n in names]
                   for k in range(len(times))], axis=0).max() > 0.05
