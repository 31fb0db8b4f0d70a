"""RigidTendonMuscle against OpenSim 4.6's, side by side: a block on a slider pulled from
a ground point, at random path lengths, speeds and excitations (outside [0, 1] too), a
slack path among them, with OpenSim's default curves and with curves of the file's own
(a PiecewiseLinearFunction and a changed SimmSpline), pennated and not."""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from opensim_slider import OpenSimSlider

from kinetree.actuators import rigid_tendon_muscle as rm
from kinetree.actuators.actuator import (
    ACTUATOR_I_COLUMNS,
    ACTUATOR_OUTPUTS,
    AT,
    CODE,
    CONTROL,
    OUT_FIBER_LENGTH,
    OUT_PASSIVE_FIBER_FORCE,
    OUT_PENNATION_ANGLE,
    OUT_TENDON_FORCE,
    PATH,
    Z,
)
from kinetree.actuators.rigid_tendon_muscle import RigidTendonMuscle
from kinetree.errors import InvalidArgumentError
from kinetree.io import OsimError
from kinetree.math.opensim_functions import PiecewiseLinear, SimmSpline

# a vastus-like muscle of gait2392 (fiso, l_opt, l_TS, phi_opt)
VASTUS = (1294.0, 0.0840, 0.1570, 0.0524)
PASSIVE_XY = ([0.8, 1.0, 1.3, 1.6, 1.9], [0.0, 0.0, 0.2, 1.0, 3.0])
ACTIVE_XY = ([0.3, 0.6, 1.0, 1.4, 1.8], [0.0, 0.5, 1.0, 0.5, 0.0])


def kinetree_calc(muscle, frames, excitation, length, speed):
    af = np.asarray(muscle._params(), dtype=float)
    ai = np.zeros(ACTUATOR_I_COLUMNS, dtype=np.int64)
    ai[CODE], ai[PATH], ai[Z], ai[CONTROL], ai[AT] = muscle.CODE, 0, 0, 0, 0
    out = np.zeros(ACTUATOR_OUTPUTS)
    tension = rm.calc(ai, af, np.zeros(0), np.zeros(0), np.array([excitation]), length,
                      speed, *frames, np.zeros((3, 6)), np.zeros(2), out)
    return tension, out


class OpenSimMuscle(OpenSimSlider):
    """OpenSim's RigidTendonMuscle ``m`` pulling a block on a slider (along ground's x)
    from ground's origin: its path's length is the slider's q."""

    def __init__(self, osim, properties, curves):
        m = osim.RigidTendonMuscle("m", properties["max_isometric_force"],
                                   properties["optimal_fiber_length"],
                                   properties["tendon_slack_length"],
                                   properties["pennation_angle_at_optimal"])
        m.set_max_contraction_velocity(properties["max_contraction_velocity"])
        for key, function in curves.items():
            getattr(m, f"set_{key}")(function)
        super().__init__(osim, m)
        self.muscle = self.model.getMuscles().get(0)

    def realize(self, excitation, length, speed):
        s, m = self.state, self.muscle
        self.set_sample(excitation, length, speed)
        self.model.realizeAcceleration(s)
        return m.getLength(s), m.getLengtheningSpeed(s), self.outputs()


CASES = {  # id: (pennation at optimal, own curves)
    "defaults_pennated": (VASTUS[3], False),
    "defaults_unpennated": (0.0, False),
    "own_curves_pennated": (0.3, True),
}


@pytest.mark.parametrize("case", CASES)
def test_outputs_agree_with_opensim(case, frames):
    osim = pytest.importorskip("opensim")
    phi_opt, own = CASES[case]
    fiso, lopt, lts, _ = VASTUS
    properties = dict(max_isometric_force=fiso, optimal_fiber_length=lopt,
                      tendon_slack_length=lts, pennation_angle_at_optimal=phi_opt,
                      max_contraction_velocity=8.0)
    ours, theirs = {}, {}
    if own:
        ours = {"passive_force_length_curve": PiecewiseLinear(*PASSIVE_XY),
                "active_force_length_curve": SimmSpline(*ACTIVE_XY)}
        theirs = {"passive_force_length_curve": osim.PiecewiseLinearFunction(),
                  "active_force_length_curve": osim.SimmSpline()}
        for key, (xs, ys) in (("passive_force_length_curve", PASSIVE_XY),
                              ("active_force_length_curve", ACTIVE_XY)):
            for x, y in zip(xs, ys):
                theirs[key].addPoint(x, y)
    muscle = RigidTendonMuscle("m", **ours, **properties)
    slider = OpenSimMuscle(osim, properties, theirs)
    rng = np.random.default_rng(len(case))
    worst = 0.0
    for k in range(48):
        u = rng.uniform(-0.3, 1.3)
        length = lts + lopt * rng.uniform(0.3, 2.0) if k % 6 else lts * rng.uniform(0.9, 1.0)
        speed = rng.uniform(-1.2, 1.2) * lopt * 8.0
        length, speed, outputs = slider.realize(u, length, speed)
        tension, out = kinetree_calc(muscle, frames, u, length, speed)
        assert tension == out[OUT_TENDON_FORCE]
        for column, ref in outputs.items():
            error = abs(out[column] - ref) / max(abs(ref), 1e-6 * fiso)
            assert error < 1e-12, (column, out[column], ref, k)
            worst = max(worst, error)
    assert worst < 1e-12


def test_a_slack_path_pulls_nothing_and_the_fiber_is_sideways(frames):
    muscle = RigidTendonMuscle("m", tendon_slack_length=0.2, pennation_angle_at_optimal=0.3)
    tension, out = kinetree_calc(muscle, frames, 1.0, 0.15, -0.1)
    assert tension == 0.0 and out[OUT_PENNATION_ANGLE] == pytest.approx(math.pi / 2)
    assert out[OUT_FIBER_LENGTH] == pytest.approx(0.1 * math.sin(0.3))


def test_isometric_force_at_optimal_length_is_the_max_isometric_force(frames):
    """Unpennated, still, fully excited, at the optimal fiber length: f_L(1) f_V(0) of
    OpenSim's default curves (0.9987 and 1) times max_isometric_force, no passive force."""
    muscle = RigidTendonMuscle("m", max_isometric_force=500.0)
    tension, out = kinetree_calc(muscle, frames, 1.0, 0.3, 0.0)
    assert out[OUT_PASSIVE_FIBER_FORCE] == 0.0
    assert tension == pytest.approx(500.0 * rm.default_curve(
        "active_force_length_curve").calc_value(1.0), rel=1e-15)
    assert tension == pytest.approx(500.0, rel=2e-3)


def test_osim_properties_read_the_curves():
    element = ET.fromstring(
        "<RigidTendonMuscle name='m'><max_isometric_force>300</max_isometric_force>"
        "<passive_force_length_curve><PiecewiseLinearFunction><x>0 1 2</x><y>0 0 1</y>"
        "</PiecewiseLinearFunction></passive_force_length_curve></RigidTendonMuscle>")
    p = RigidTendonMuscle.osim_properties(element)
    assert p["max_isometric_force"] == 300.0
    muscle = RigidTendonMuscle("m", **p)
    assert muscle.curves["passive_force_length_curve"].calc_value(1.5) == 0.5
    assert isinstance(muscle.curves["force_velocity_curve"], SimmSpline)
    assert muscle._states() == () and muscle._initial_z() == []


def test_unreadable_curves_are_refused():
    element = ET.fromstring(
        "<RigidTendonMuscle name='m'><force_velocity_curve><Sine/></force_velocity_curve>"
        "</RigidTendonMuscle>")
    with pytest.raises(OsimError, match="force_velocity_curve Sine: kinetree has no such "
                                         "function; supported are .*SimmSpline"):
        RigidTendonMuscle.osim_properties(element)
    with pytest.raises(InvalidArgumentError, match="max_isometric_force"):
        RigidTendonMuscle("m", max_isometric_force=-1.0)
