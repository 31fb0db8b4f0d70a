"""Schutte1993Muscle_Deprecated against OpenSim 4.6's, side by side: a block on a slider
pulled from a ground point, at random path lengths, speeds, activations, excitations
(outside [0, 1] too) and fiber lengths, and at the edges (a slack tendon, a fiber
shorter than the muscle's width, pulled or not, a fiber of no length, no activation):
every output and both state derivatives, and the fiber length OpenSim's
equilibrateMuscles finds. With OpenSim's default curves (its exponential passive force
in place of the default passive curve) and with wrist.osim's FCU and its own curves.

Then OpenSim's wrist model (wrist.osim, 25 of these muscles) whole, loaded by kinetree
and by OpenSim: every muscle's path, forces, equilibrium and state derivatives, and u̇.
Its 28 bodies have no mass, so neither program has accelerations for it (OpenSim's u̇
are NaN, kinetree refuses to realize it past VELOCITY); it is compared with a mass and
inertia given to each body, which the muscles and paths do not depend on."""

import copy
import math
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from opensim_slider import OpenSimSlider
from support import set_random_muscle_state

from kinetree.actuators import schutte1993_muscle as sm
from kinetree.actuators.actuator import (
    ACTUATOR_I_COLUMNS,
    ACTUATOR_OUTPUTS,
    CODE,
    OUT_ACTIVE_FIBER_FORCE,
    OUT_FORCE,
    OUT_PASSIVE_FIBER_FORCE,
    OUT_PENNATION_ANGLE,
    OUT_POWER,
    OUT_TENDON_FORCE,
)
from kinetree.actuators.schutte1993_muscle import Schutte1993Muscle_Deprecated
from kinetree.errors import InvalidArgumentError
from kinetree.io import OsimError, OsimSkippedWarning, load_osim
from kinetree.io.osim_actuators import actuator_classes
from kinetree.math.opensim_functions import SimmSpline

WRIST = Path(__file__).resolve().parents[2] / "models" / "opensim" / "wrist.osim"
DEFAULTS = dict(max_isometric_force=59.7, optimal_fiber_length=0.0628,
                tendon_slack_length=0.2185, pennation_angle_at_optimal=0.3, damping=0.05)
ADOT, LDOT = "activation", "fiber_length"


def wrist_element(name: str):
    """The .osim element of wrist.osim's muscle ``name``."""
    root = ET.parse(WRIST).getroot()
    return next(e for e in root.iter("Schutte1993Muscle_Deprecated") if e.get("name") == name)


def kinetree_calc(muscle, frames, activation, fiber_length, excitation, length,
                  speed):
    af = np.asarray(muscle._params(), dtype=float)
    ai = np.zeros(ACTUATOR_I_COLUMNS, dtype=np.int64)
    ai[CODE] = muscle.CODE
    z, zdot, out = np.array([activation, fiber_length]), np.zeros(2), np.zeros(ACTUATOR_OUTPUTS)
    tension = sm.calc(ai, af, z, zdot, np.array([excitation]), length, speed,
                      *frames, np.zeros((3, 6)), np.zeros(2), out)
    return tension, zdot, out


def kinetree_equilibrium(muscle, activation, length):
    af = np.asarray(muscle._params(), dtype=float)
    ai = np.zeros(ACTUATOR_I_COLUMNS, dtype=np.int64)
    ai[CODE] = muscle.CODE
    z = np.array([activation, -1.0])
    status = sm.equilibrate(ai, af, z, np.zeros(1), length, 0.0, np.zeros(ACTUATOR_OUTPUTS))
    assert status == 0
    return z[1]


class OpenSimMuscle(OpenSimSlider):
    """OpenSim's muscle ``m`` pulling a block on a slider (along ground's x) from ground's
    origin, so that its path's length is the slider's q: a new Schutte1993Muscle_Deprecated
    of ``properties`` (OpenSim's Python has no class for it: it is made by name), or a
    copy of wrist.osim's muscle ``wrist`` on the slider's path."""

    def __init__(self, osim, properties=None, wrist=None):
        if wrist is None:
            m = osim.Muscle.safeDownCast(
                osim.OpenSimObject.newInstanceOfType("Schutte1993Muscle_Deprecated"))
            for key, value in properties.items():
                osim.PropertyHelper.setValueDouble(value, m.updPropertyByName(key))
        else:
            self._wrist = osim.Model(str(WRIST))
            m = self._wrist.getMuscles().get(wrist).clone()     # a Muscle, owned here
            m.updGeometryPath().updPathPointSet().clearAndDestroy()
        m.setName("m")
        super().__init__(osim, m)
        self.muscle = self.model.getMuscles().get(0)

    def realize(self, activation, fiber_length, excitation, length, speed):
        s, m, model = self.state, self.muscle, self.model
        self.set_sample(excitation, length, speed)
        m.setActivation(s, activation)
        model.setStateVariableValue(s, "/forceset/m/fiber_length", fiber_length)
        model.realizeAcceleration(s)
        rates = self.derivatives(("activation", "fiber_length"))
        return m.getLength(s), m.getLengtheningSpeed(s), {
            **self.outputs(), ADOT: rates["activation"], LDOT: rates["fiber_length"]}

    def equilibrium(self, activation, length):
        s, m = self.state, self.muscle
        self.coordinate.setValue(s, length, False)
        self.coordinate.setSpeedValue(s, 0.0)
        m.setActivation(s, activation)
        self.model.equilibrateMuscles(s)
        return m.getLength(s), m.getFiberLength(s)


def both(case, osim):
    """(kinetree's muscle, OpenSim's slider) of a test case."""
    if case == "defaults":
        return (Schutte1993Muscle_Deprecated("m", **DEFAULTS),
                OpenSimMuscle(osim, properties=DEFAULTS))
    element = wrist_element("FCU")
    return (Schutte1993Muscle_Deprecated("m", **Schutte1993Muscle_Deprecated.osim_properties(
        element)), OpenSimMuscle(osim, wrist="FCU"))


def states(muscle, rng, n):
    """n random (activation, fiber length, excitation, path length, speed), the edges
    among them: every 8th a slack tendon, every 8th a fiber shorter than the muscle's
    width (pulled or on a slack tendon), one of no length, one of no activation."""
    p = muscle.properties
    lopt, lts = p["optimal_fiber_length"], p["tendon_slack_length"]
    width = lopt * math.sin(p["pennation_angle_at_optimal"])
    for k in range(n):
        a, e = rng.uniform(0.0, 1.0), rng.uniform(-0.3, 1.3)
        lce = lopt * rng.uniform(0.3, 1.8)
        length = lts + lopt * rng.uniform(0.2, 2.2)
        speed = rng.uniform(-1.0, 1.0) * 10.0 * lopt
        if k % 8 == 1:
            length = lts + lce * rng.uniform(0.0, 0.9)
        elif k % 8 == 3:
            lce = width * rng.uniform(0.5, 1.0)
            length = lts * rng.uniform(0.95, 1.1)
        elif k == 5:
            lce = 0.0
        elif k == 7:
            a = 0.0
        yield a, lce, e, length, speed


@pytest.mark.parametrize("case", ["defaults", "wrist_FCU"])
def test_outputs_and_derivatives_agree_with_opensim(case, frames):
    osim = pytest.importorskip("opensim")
    muscle, slider = both(case, osim)
    fiso = muscle.properties["max_isometric_force"]
    rng = np.random.default_rng(len(case))
    worst = 0.0
    sideways_pulled = slack = 0
    for k, (a, lce, e, length, speed) in enumerate(states(muscle, rng, 64)):
        length, speed, reference = slider.realize(a, lce, e, length, speed)
        tension, zdot, out = kinetree_calc(muscle, frames, a, lce, e, length, speed)
        assert tension == out[OUT_TENDON_FORCE] == out[OUT_FORCE]
        got = {column: out[column] for column in range(ACTUATOR_OUTPUTS)}
        got[ADOT], got[LDOT] = zdot
        for column, ref in reference.items():
            scale = fiso if isinstance(column, int) and column in (
                OUT_FORCE, OUT_TENDON_FORCE, OUT_ACTIVE_FIBER_FORCE, OUT_PASSIVE_FIBER_FORCE,
                OUT_POWER) else 1.0
            error = abs(got[column] - ref) / max(abs(ref), 1e-12 * scale)
            assert error < 1e-9, (column, got[column], ref, k)
            worst = max(worst, error)
        slack += tension == 0.0
        sideways_pulled += out[OUT_PENNATION_ANGLE] == math.pi / 2 and tension > 0.0
    assert slack >= 8 and sideways_pulled >= 2
    assert worst < 1e-12


@pytest.mark.parametrize("case", ["defaults", "wrist_FCU"])
def test_equilibrium_agrees_with_opensim(case):
    osim = pytest.importorskip("opensim")
    muscle, slider = both(case, osim)
    lopt, lts = (muscle.properties[k] for k in ("optimal_fiber_length",
                                                "tendon_slack_length"))
    rng = np.random.default_rng(3)
    for k in range(24):
        a = 0.0 if k == 0 else rng.uniform(0.0, 1.0)
        length = lts + lopt * rng.uniform(-0.3, 2.2)
        length, expected = slider.equilibrium(a, length)
        got = kinetree_equilibrium(muscle, a, length)
        assert abs(got - expected) <= 1e-9 * expected, (k, a, length, got, expected)


def test_equilibrium_balances_fiber_and_tendon_within_opensims_tolerance(frames):
    """At the fiber length found, the fiber's force along the tendon (active at rest,
    f_V = 1 and no damping, plus passive) is the tendon's within 0.01 N."""
    muscle = Schutte1993Muscle_Deprecated("m", **DEFAULTS)
    af, out = np.asarray(muscle._params()), np.zeros(ACTUATOR_OUTPUTS)
    lopt = DEFAULTS["optimal_fiber_length"]
    for a, length in ((0.5, 0.28), (1.0, 0.30), (0.2, 0.25)):
        lce = kinetree_equilibrium(muscle, a, length)
        tension, _, out = kinetree_calc(muscle, frames, a, lce, 0.0, length, 0.0)
        lce_n = lce / lopt
        fiber = (a * sm.active_force(af, 0, out, lce_n) + sm.passive_force(af, 0, out, lce_n)) \
            * DEFAULTS["max_isometric_force"] * math.cos(out[OUT_PENNATION_ANGLE])
        assert tension > 1.0 and abs(fiber - tension) <= sm.ISOMETRIC_TOLERANCE


def test_fiber_velocity_is_continuous_and_zero_at_the_isometric_force():
    """Schutte's inverse force-velocity relation: no velocity at the force a f_L, both
    quadratic branches meeting there, shortening below and lengthening above."""
    a, fal, damping = 0.7, 0.9, 0.05
    target = a * fal
    assert sm.fiber_velocity(a, fal, target, damping) == 0.0
    below = sm.fiber_velocity(a, fal, target * (1 - 1e-9), damping)
    above = sm.fiber_velocity(a, fal, target * (1 + 1e-9), damping)
    assert below < 0.0 < above and max(-below, above) < 1e-8
    assert sm.fiber_velocity(a, fal, -2 * damping, damping) == -2.0


def test_activation_rate_is_faster_exciting_than_relaxing():
    p = DEFAULTS | {"time_scale": 0.1, "activation1": 7.667, "activation2": 1.459854}
    up = sm.activation_rate(0.2, 0.6, p["activation1"], p["activation2"], p["time_scale"])
    down = sm.activation_rate(0.6, 0.2, p["activation1"], p["activation2"], p["time_scale"])
    assert up == pytest.approx(0.4 * (7.667 * 0.6 + 1.459854) / 0.1, rel=1e-15)
    assert down == pytest.approx(-0.4 * 1.459854 / 0.1, rel=1e-15)


def test_osim_properties_read_both_forms_of_curves():
    element = wrist_element("FCU")
    p = Schutte1993Muscle_Deprecated.osim_properties(element)
    assert p["damping"] == 0.05 and p["max_isometric_force"] == pytest.approx(102.6)
    muscle = Schutte1993Muscle_Deprecated("FCU", **p)
    assert not muscle.passive_exponential
    # the file's passive curve passes through (1.25, 0.035), the default's (1.1, 0.035)
    assert muscle.curves["passive_force_length_curve"].calc_value(1.25) == \
        pytest.approx(0.035, abs=1e-15)
    held = copy.deepcopy(element)
    spline = next(c for c in held if c.get("name") == "active_force_length_curve")
    held.remove(spline)
    held.append(ET.Element("active_force_length_curve"))
    held.find("active_force_length_curve").append(spline)
    held.remove(next(c for c in held if c.get("name") == "passive_force_length_curve"))
    q = Schutte1993Muscle_Deprecated.osim_properties(held)
    assert "passive_force_length_curve" not in q
    other = Schutte1993Muscle_Deprecated("FCU", **q)
    assert other.passive_exponential
    assert other.curves["active_force_length_curve"].calc_value(0.9) == \
        muscle.curves["active_force_length_curve"].calc_value(0.9)
    assert actuator_classes()["Schutte1993Muscle_Deprecated"] is Schutte1993Muscle_Deprecated
    assert other._states() == ("activation", "fiber_length") and other._initial_z() == [0, 0]


def test_bad_properties_and_curves_are_refused():
    with pytest.raises(InvalidArgumentError, match="time_scale"):
        Schutte1993Muscle_Deprecated("m", time_scale=0.0)
    with pytest.raises(InvalidArgumentError, match="ignore_tendon_compliance"):
        Schutte1993Muscle_Deprecated("m", ignore_tendon_compliance=True)
    with pytest.raises(InvalidArgumentError, match="pennation_angle_at_optimal"):
        Schutte1993Muscle_Deprecated("m", pennation_angle_at_optimal=2.0)
    element = ET.fromstring("<Schutte1993Muscle_Deprecated name='m'><Sine name="
                            "'tendon_force_length_curve'/></Schutte1993Muscle_Deprecated>")
    with pytest.raises(OsimError, match="tendon_force_length_curve Sine: kinetree has no "
                                         "such function; supported are .*SimmSpline"):
        Schutte1993Muscle_Deprecated.osim_properties(element)
    assert isinstance(sm.default_curve("tendon_force_length_curve"), SimmSpline)


def with_mass(tmp_path) -> Path:
    """wrist.osim with a mass (kg) and an inertia (kg m^2) given to each body."""
    tree = ET.parse(WRIST)
    for body in tree.getroot().iter("Body"):
        body.find("mass").text = "0.5"
        body.find("inertia").text = "0.001 0.002 0.003 0 0 0"
    path = tmp_path / "wrist_with_mass.osim"
    tree.write(path)
    return path


def test_the_wrist_model_loads_every_muscle():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(WRIST)
    assert model.skipped == []
    assert len(model.muscles) == 25 and all(
        type(m) is Schutte1993Muscle_Deprecated for m in model.muscles.values())
    fcu = model.muscles["FCU"]
    assert fcu.properties["tendon_slack_length"] == 0.242 and not fcu.passive_exponential


def test_the_wrist_model_agrees_with_opensim(tmp_path):
    """Random poses, speeds, activations and excitations, muscles equilibrated by each
    program: lengths and speeds to 1e-9 m and m/s, tendon forces and fiber lengths to
    1e-9 relative, the state derivatives to 1e-8 relative (the fiber velocity is steep
    near equilibrium: 2e-10 measured), the moment arms about the wrist's flexion and
    deviation to 1e-9 m, u̇ to 1e-8 relative."""
    osim = pytest.importorskip("opensim")
    path = with_mass(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(path)
    om = osim.Model(str(path))
    ostate = om.initSystem()
    state = model.get_default_state()
    muscles = om.getMuscles()
    names = [muscles.get(i).getName() for i in range(muscles.getSize())]
    assert names == list(model.muscles)
    coordinates = om.getCoordinateSet()
    rng = np.random.default_rng(11)
    for moving in (True, False):
        set_random_muscle_state(model, state, om, ostate, rng, moving)
        zdot = dict(zip(model.actuator_subsystem.z_labels(),
                        model.actuator_subsystem.get_z_dot(state)))
        pulling = 0
        for name in names:
            m, k = muscles.get(name), model.muscles[name]
            assert abs(k.get_length(state) - m.getLength(ostate)) <= 1e-9, name
            assert abs(k.get_lengthening_speed(state) - m.getLengtheningSpeed(ostate)) <= 1e-9
            tension = m.getTendonForce(ostate)
            assert k.get_tendon_force(state) == pytest.approx(tension, rel=1e-9, abs=1e-9)
            assert k.get_fiber_length(state) == pytest.approx(m.getFiberLength(ostate),
                                                              rel=1e-9)
            for z in ("activation", "fiber_length"):
                label = f"/forceset/{name}/{z}"
                expected = om.getStateVariableDerivativeValue(ostate, label)
                assert zdot[label] == pytest.approx(expected, rel=1e-8, abs=1e-9), label
            for coordinate in ("flexion", "deviation"):
                expected = m.getGeometryPath().computeMomentArm(ostate,
                                                                coordinates.get(coordinate))
                got = k.compute_moment_arm(state, model.coordinates[coordinate])
                assert abs(got - expected) <= 1e-9, (name, coordinate)
            pulling += tension > 1.0
        assert pulling > 10
        for i in range(coordinates.getSize()):
            c = coordinates.get(i)
            got = model.coordinates[c.getName()].get_acceleration_value(state)
            assert got == pytest.approx(c.getAccelerationValue(ostate), rel=1e-8, abs=1e-8)
