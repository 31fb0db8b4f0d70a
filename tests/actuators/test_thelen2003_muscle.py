"""Thelen2003Muscle against OpenSim 4.6's, side by side: muscles of arm26, gait2392,
Tug_of_War and leg6dof9musc (pennated and not, OpenSim's default curves and the models'
own), each pulling a block on a slider from a ground point, at random path lengths,
speeds, activations, fiber lengths and excitations, with the edges (slack tendon, fiber
at and below its minimum length, excitation outside [0, 1], activation at or below its
minimum, forces outside the force-velocity relation's valid range); the fiber
equilibrium against OpenSim's equilibrateMuscles; and the curves' slopes against
finite differences."""

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from opensim_slider import OpenSimSlider

from kinetree.actuators import thelen2003_muscle as tm
from kinetree.actuators.actuator import (
    ACTUATOR_I_COLUMNS,
    ACTUATOR_OUTPUTS,
    AT,
    CODE,
    CONTROL,
    OUT_ACTIVATION,
    OUT_ACTIVE_FIBER_FORCE,
    OUT_EXCITATION,
    OUT_FIBER_LENGTH,
    OUT_FIBER_VELOCITY,
    OUT_FORCE,
    OUT_NORMALIZED_FIBER_LENGTH,
    OUT_PASSIVE_FIBER_FORCE,
    OUT_PENNATION_ANGLE,
    OUT_POWER,
    OUT_TENDON_FORCE,
    OUT_TENDON_LENGTH,
    PATH,
    Z,
)
from kinetree.actuators.thelen2003_muscle import Thelen2003Muscle
from kinetree.errors import InvalidArgumentError

_ROOT = Path(__file__).resolve().parents[2]
_FOLDERS = [_ROOT / "models" / "opensim", _ROOT.parent / "shared" / "models" / "opensim"]


def thelen_elements(model: str) -> dict:
    """{name: <Thelen2003Muscle> element} of the bundled ``model``.osim."""
    for folder in _FOLDERS:
        path = folder / f"{model}.osim"
        if path.is_file():
            root = ET.parse(path).getroot()
            return {e.get("name"): e for e in root.iter("Thelen2003Muscle")}
    pytest.skip(f"no {model}.osim in models/opensim")


def muscle_of(model: str, name: str, **changes) -> Thelen2003Muscle:
    properties = Thelen2003Muscle.osim_properties(thelen_elements(model)[name])
    properties.update(changes)
    return Thelen2003Muscle(name, **properties)


class Kinetree:
    """One muscle's row and parameters, its compiled ``calc`` and ``equilibrate``
    called directly (the bodies' frames, which it ignores, from the fixture)."""

    def __init__(self, muscle, frames):
        self.af = np.asarray(muscle._params(), dtype=float)
        self.ai = np.zeros(ACTUATOR_I_COLUMNS, dtype=np.int64)
        self.ai[CODE], self.ai[PATH], self.ai[Z], self.ai[CONTROL], self.ai[AT] = \
            muscle.CODE, 0, 0, 0, 0
        self.R_GB, self.p_GB = frames

    def calc(self, activation, fiber_length, excitation, length, speed):
        z = np.array([activation, fiber_length])
        zdot = np.full(2, np.nan)
        out = np.zeros(ACTUATOR_OUTPUTS)
        tension = tm.calc(self.ai, self.af, z, zdot, np.array([excitation]), length, speed,
                          self.R_GB, self.p_GB, np.zeros((3, 6)), np.zeros(2), out)
        return tension, out, {"activation": zdot[0], "fiber_length": zdot[1]}

    def equilibrate(self, activation, length, speed):
        z = np.array([activation, -1.0])
        status = tm.equilibrate(self.ai, self.af, z, np.array([0.5]), length, speed,
                                np.zeros(ACTUATOR_OUTPUTS))
        return status, z[1]


class OpenSimMuscle(OpenSimSlider):
    """OpenSim's Thelen2003Muscle of the same properties pulling a block on a slider
    (along ground's x) from ground's origin: its path's length is the slider's q."""

    def __init__(self, osim, muscle: Thelen2003Muscle):
        p = muscle.properties
        m = osim.Thelen2003Muscle("m", p["max_isometric_force"], p["optimal_fiber_length"],
                                  p["tendon_slack_length"], p["pennation_angle_at_optimal"])
        for key, value in p.items():
            if key not in ("max_isometric_force", "optimal_fiber_length",
                           "tendon_slack_length", "pennation_angle_at_optimal"):
                getattr(m, f"set_{key}")(value)
        m.setMinControl(p["minimum_activation"])       # OpenSim refuses less
        super().__init__(osim, m)
        self.muscle = osim.Thelen2003Muscle.safeDownCast(self.model.getMuscles().get(0))

    def _set(self, activation, excitation, length, speed):
        s = self.state
        self.set_sample(excitation, length, speed)
        self.model.setStateVariableValue(s, "/forceset/m/activation", activation)

    def realize(self, activation, fiber_length, excitation, length, speed):
        s = self.state
        self._set(activation, excitation, length, speed)
        self.model.setStateVariableValue(s, "/forceset/m/fiber_length", fiber_length)
        self.model.realizeAcceleration(s)
        m = self.muscle
        return (m.getLength(s), m.getLengtheningSpeed(s), self.outputs(),
                self.derivatives(("activation", "fiber_length")))

    def equilibrate(self, activation, length, speed):
        """The fiber length of OpenSim's equilibrateMuscles, or None where it throws."""
        self._set(activation, 0.5, length, speed)
        try:
            self.model.equilibrateMuscles(self.state)
        except RuntimeError:
            return None
        return self.model.getStateVariableValue(self.state, "/forceset/m/fiber_length")


def samples(muscle, rng, n):
    """n random (activation, fiber length, excitation, path length, speed), half of
    them at an edge: activation at or below its minimum, excitation outside [0, 1], the
    fiber at or below its minimum length, a slack tendon, a tendon stretched far past
    its toe, a fiber far from the tendon's force (the force-velocity extrapolations)."""
    p = muscle.properties
    lopt, lts = p["optimal_fiber_length"], p["tendon_slack_length"]
    lmin = muscle.get_minimum_fiber_length()
    out = []
    for k in range(n):
        a = rng.uniform(0.0, 1.0)
        lce = lopt * rng.uniform(0.5, 1.6)
        u = rng.uniform(-0.3, 1.2)
        length = lts * rng.uniform(1.0, 1.04) + lce * rng.uniform(0.85, 1.0)
        speed = rng.uniform(-1.0, 1.0) * lopt * 5
        edge = k % 8
        if edge == 1:
            a, u = rng.uniform(-0.1, p["minimum_activation"]), rng.uniform(-1.0, 0.0)
        elif edge == 2:
            u = rng.uniform(1.0, 2.0)
        elif edge == 3:
            lce = lmin * (1.0 if k % 16 == 3 else rng.uniform(0.8, 1.0))
            length = lts * rng.uniform(0.97, 1.01) + lmin * rng.uniform(0.0, 0.9)
        elif edge == 4:
            length = lts * rng.uniform(0.9, 1.0) + lce * 0.5
        elif edge == 5:
            length = lts * rng.uniform(1.05, 1.1) + lce
        out.append((a, lce, u, length, speed))
    return out


COMPARED = {OUT_ACTIVATION: "activation", OUT_FIBER_LENGTH: "fiber length",
            OUT_FIBER_VELOCITY: "fiber velocity", OUT_TENDON_LENGTH: "tendon length",
            OUT_TENDON_FORCE: "tendon force", OUT_FORCE: "actuation",
            OUT_ACTIVE_FIBER_FORCE: "active fiber force",
            OUT_PASSIVE_FIBER_FORCE: "passive fiber force",
            OUT_PENNATION_ANGLE: "pennation angle",
            OUT_NORMALIZED_FIBER_LENGTH: "normalized fiber length",
            OUT_EXCITATION: "excitation", OUT_POWER: "power"}

CASES = {  # id: (model, muscle, property changes)
    "arm26_pennated": ("arm26", "TRIlong", {}),
    "arm26_unpennated": ("arm26", "BRA", {}),
    "gait2392_pennated": ("gait2392_thelen2003muscle", "soleus_r", {}),
    "tug_of_war_defaults": ("Tug_of_War", "muscle1", {}),
    "leg6dof9musc_vasti": ("leg6dof9musc", "vas_int_r", {}),
    "low_max_pennation": ("arm26", "TRIlong", {"maximum_pennation_angle": 0.5,
                                               "minimum_activation": 0.05}),
}


@pytest.mark.parametrize("case", CASES)
def test_outputs_and_derivatives_agree_with_opensim(case, frames):
    osim = pytest.importorskip("opensim")
    model, name, changes = CASES[case]
    muscle = muscle_of(model, name, **changes)
    ours, theirs = Kinetree(muscle, frames), OpenSimMuscle(osim, muscle)
    p = muscle.properties
    fiso, lopt = p["max_isometric_force"], p["optimal_fiber_length"]
    scale = {OUT_TENDON_FORCE: fiso, OUT_FORCE: fiso, OUT_ACTIVE_FIBER_FORCE: fiso,
             OUT_PASSIVE_FIBER_FORCE: fiso, OUT_POWER: fiso, OUT_FIBER_VELOCITY: lopt}
    worst = {}
    clamped = 0
    for sample in samples(muscle, np.random.default_rng(len(case)), 64):
        a, lce, u, length, speed = sample
        length, speed, outputs, derivatives = theirs.realize(a, lce, u, length, speed)
        tension, out, zdot = ours.calc(a, lce, u, length, speed)
        assert tension == out[OUT_TENDON_FORCE] == out[OUT_FORCE]
        clamped += out[OUT_FIBER_VELOCITY] == 0.0
        pairs = [(COMPARED[c], out[c], v, scale.get(c, 1.0)) for c, v in outputs.items()]
        pairs += [(f"d/dt {k}", zdot[k], v, lopt if k == "fiber_length" else 1.0)
                  for k, v in derivatives.items()]
        for what, mine, ref, size in pairs:
            error = abs(mine - ref) / max(abs(ref), 1e-6 * size)
            assert math.isfinite(error), (what, mine, ref, sample)
            if error >= worst.get(what, (-1.0,))[0]:
                worst[what] = (error, sample)
    assert clamped > 0      # the samples reached the clamped fiber
    report = {k: f"{v[0]:.1e}" for k, v in worst.items()}
    bad = {k: v for k, v in worst.items() if not v[0] < 1e-12}
    assert not bad, (report, bad)


@pytest.mark.parametrize("case", ["arm26_pennated", "arm26_unpennated", "gait2392_pennated",
                                  "tug_of_war_defaults", "leg6dof9musc_vasti"])
def test_equilibrium_fiber_length_agrees_with_opensim(case, frames):
    """Random activations, path lengths and speeds (the fiber's share of the path's speed
    enters OpenSim's balance), the tendon slack or not."""
    osim = pytest.importorskip("opensim")
    model, name, changes = CASES[case]
    muscle = muscle_of(model, name, **changes)
    ours, theirs = Kinetree(muscle, frames), OpenSimMuscle(osim, muscle)
    p = muscle.properties
    lopt, lts = p["optimal_fiber_length"], p["tendon_slack_length"]
    rng = np.random.default_rng(11)
    compared = 0
    for k in range(16):
        a = rng.uniform(-0.05, 1.0)
        length = lts * rng.uniform(0.97, 1.05) + lopt * rng.uniform(0.3, 1.5)
        speed = 0.0 if k % 4 == 0 else rng.uniform(-1.0, 1.0) * lopt * 3
        status, lce = ours.equilibrate(a, length, speed)
        ref = theirs.equilibrate(a, length, speed)
        if ref is None:
            assert status != 0, (k, a, length, speed)
            continue
        assert status == 0, (k, muscle.failure(status))
        assert lce == pytest.approx(ref, rel=1e-12), (k, a, length, speed)
        compared += 1
    assert compared >= 12


def test_equilibrium_on_a_short_path_is_the_minimum_fiber_length(frames):
    """A path too short for any balance leaves the fiber at its minimum length, which
    OpenSim accepts (with a warning), at rest and moving."""
    osim = pytest.importorskip("opensim")
    muscle = muscle_of("arm26", "TRIlong")
    ours, theirs = Kinetree(muscle, frames), OpenSimMuscle(osim, muscle)
    lmin = muscle.get_minimum_fiber_length()
    length = muscle.properties["tendon_slack_length"] * 0.9 + 0.05 * lmin
    for speed in (0.0, -0.5):
        assert ours.equilibrate(0.5, length, speed) == (0, lmin)
        assert theirs.equilibrate(0.5, length, speed) == lmin


def test_equilibrium_balances_fiber_and_tendon_forces(frames):
    """A still fiber at the equilibrium length carries the tendon's force along the
    tendon (active plus passive, times cos(phi)), to OpenSim's tolerance."""
    muscle = muscle_of("arm26", "TRIlong")
    k = Kinetree(muscle, frames)
    p = muscle.properties
    for a, stretch in ((0.2, 1.0), (0.7, 1.3), (1.0, 0.8)):
        length = p["tendon_slack_length"] * 1.02 + p["optimal_fiber_length"] * stretch
        status, lce = k.equilibrate(a, length, 0.0)
        assert status == 0
        _, out, zdot = k.calc(a, lce, a, length, 0.0)
        along = (out[OUT_ACTIVE_FIBER_FORCE] + out[OUT_PASSIVE_FIBER_FORCE]) * math.cos(
            out[OUT_PENNATION_ANGLE])
        assert along == pytest.approx(out[OUT_TENDON_FORCE],
                                      abs=1e-8 * p["max_isometric_force"])
        assert abs(zdot["fiber_length"]) < 1e-9


def test_curve_slopes_are_their_derivatives():
    """The slopes the equilibrium's Newton steps use, against central differences."""
    h = 1e-6
    toe, stiffness = tm.tendon_toe(0.033)

    def check(f, x):
        value, slope = f(x)
        assert slope == pytest.approx((f(x + h)[0] - f(x - h)[0]) / (2 * h), rel=1e-6,
                                      abs=1e-8)
        return value

    for x in (1.005, 1.02, 1.05):
        check(lambda t: tm.tendon_force_length(t, toe, stiffness), x)
    assert tm.tendon_force_length(1.033, toe, stiffness)[0] == pytest.approx(1.0)
    for x in (0.5, 0.9, 1.2, 1.5):
        check(lambda t: tm.active_force_length(t, 0.45), x)
        check(lambda t: tm.passive_force_length(t, 0.6, 5.0), x)
    assert tm.passive_force_length(1.6, 0.6, 5.0)[0] == pytest.approx(1.0)
    for force in (-0.1, 0.2, 0.5, 0.9, 1.3, 1.5):
        check(lambda f: tm.normalized_fiber_velocity(0.6, 0.9, f, 0.25, 1.4, 0.95), force)


def test_force_velocity_inverse_inverts_the_relation():
    """f_V at a normalized fiber velocity gives that velocity back; faster shortening
    than the relation allows at any force gives f_V = 0, as OpenSim's."""
    for velocity in (-0.7, -0.5, 0.0, 0.3, 0.8):
        fv, ok = tm.force_velocity_inverse(0.7, 0.8, velocity, 0.25, 1.4, 0.95, 1e-12)
        assert ok
        back = tm.normalized_fiber_velocity(0.7, 0.8, 0.7 * 0.8 * fv, 0.25, 1.4, 0.95)[0]
        assert back == pytest.approx(velocity, abs=1e-11)
    assert tm.force_velocity_inverse(0.7, 0.8, -1.2, 0.25, 1.4, 0.95, 1e-12) == (0.0, True)


def test_fiber_at_its_minimum_length_does_not_shorten(frames):
    """A fiber state at (or below) the minimum length whose tendon pulls less than the
    passive fiber does stays still and carries no active force; the tendon keeps its
    force."""
    muscle = muscle_of("arm26", "TRIlong")
    k = Kinetree(muscle, frames)
    lmin = muscle.get_minimum_fiber_length()
    lts = muscle.properties["tendon_slack_length"]
    for lce in (lmin, 0.9 * lmin):
        _, out, zdot = k.calc(0.5, lce, 0.5, lts * 0.98, -0.3)
        assert zdot["fiber_length"] == 0.0 and out[OUT_ACTIVE_FIBER_FORCE] == 0.0
        assert out[OUT_FIBER_LENGTH] == lmin
        assert out[OUT_PENNATION_ANGLE] == pytest.approx(
            muscle.properties["maximum_pennation_angle"])


def test_osim_properties_and_defaults():
    p = Thelen2003Muscle.osim_properties(thelen_elements("arm26")["TRIlong"])
    assert p["FmaxTendonStrain"] == pytest.approx(0.033) and p["Flen"] == 1.8
    m = Thelen2003Muscle("m")
    assert m._initial_z() == [0.05, 0.1]
    assert m._states() == ("activation", "fiber_length")
    assert len(m._params()) == tm.NUM_PARAMS


def test_properties_out_of_range_are_refused_with_the_fix():
    with pytest.raises(InvalidArgumentError, match="minimum_activation"):
        Thelen2003Muscle("m", minimum_activation=0.0)
    with pytest.raises(InvalidArgumentError, match="Millard2012EquilibriumMuscle"):
        Thelen2003Muscle("m", ignore_tendon_compliance=True)
    with pytest.raises(InvalidArgumentError, match="1/Flen"):
        Thelen2003Muscle("m", Flen=1.8, fv_linear_extrap_threshold=0.5)
    with pytest.raises(InvalidArgumentError, match="Flen"):
        Thelen2003Muscle("m", Flen=1.0)
    with pytest.raises(InvalidArgumentError, match="Af"):
        Thelen2003Muscle("m", Af=0.0)
