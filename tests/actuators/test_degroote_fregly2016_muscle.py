"""DeGrooteFregly2016Muscle against OpenSim 4.6's, side by side: muscles of Rajagopal2016's
sizes (pennated and not) pulling a block on a slider from a ground point, with an
elastic and a rigid tendon, with and without activation dynamics, fiber damping and
passive force, at random path lengths, speeds, activations, tendon forces and
excitations, with the edges (slack tendon, excitation outside [0, 1], activation near
0); the equilibrium against OpenSim's equilibrateMuscles; and the curves against their
analytic properties.

OpenSim 4.6 keeps the activation time constants and smoothing of the first such muscle
it computes in function-static variables: every muscle compared here keeps OpenSim's
defaults, so that its rates are its own whichever test runs first."""

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from opensim_slider import OpenSimSlider

from kinetree.actuators import degroote_fregly2016_muscle as dm
from kinetree.actuators.actuator import (
    ACTUATOR_I_COLUMNS,
    ACTUATOR_OUTPUTS,
    AT,
    CODE,
    CONTROL,
    OUT_ACTIVE_FIBER_FORCE,
    OUT_FIBER_VELOCITY,
    OUT_FORCE,
    OUT_PASSIVE_FIBER_FORCE,
    OUT_PENNATION_ANGLE,
    OUT_POWER,
    OUT_TENDON_FORCE,
    OUT_TENDON_LENGTH,
    PATH,
    Z,
)
from kinetree.actuators.degroote_fregly2016_muscle import DeGrooteFregly2016Muscle
from kinetree.errors import InvalidArgumentError

_ROOT = Path(__file__).resolve().parents[2]
_FOLDERS = [_ROOT / "models" / "opensim", _ROOT.parent / "shared" / "models" / "opensim"]
SIZES = ("max_isometric_force", "optimal_fiber_length", "tendon_slack_length",
         "pennation_angle_at_optimal", "max_contraction_velocity")


def rajagopal_sizes(name: str) -> dict:
    """The sizes (SIZES) of Rajagopal2016's muscle ``name`` that its file gives."""
    for folder in _FOLDERS:
        path = folder / "Rajagopal2016.osim"
        if path.is_file():
            element = next(e for e in ET.parse(path).getroot().iter(
                "Millard2012EquilibriumMuscle") if e.get("name") == name)
            return {key: float(text) for key in SIZES
                    if (text := element.findtext(key)) is not None}
    pytest.skip("no Rajagopal2016.osim in models/opensim")


class Kinetree:
    """One muscle's row and parameters, its compiled ``calc`` and ``equilibrate``
    called directly (the bodies' frames, which it ignores, from the fixture)."""

    def __init__(self, muscle, frames):
        self.af = np.asarray(muscle._params(), dtype=float)
        self.states = muscle._states()
        self.ai = np.zeros(ACTUATOR_I_COLUMNS, dtype=np.int64)
        self.ai[CODE], self.ai[PATH], self.ai[Z], self.ai[CONTROL], self.ai[AT] = \
            muscle.CODE, 0, 0, 0, 0
        self.R_GB, self.p_GB = frames

    def z(self, activation, tendon_force):
        values = {"activation": activation, "normalized_tendon_force": tendon_force}
        return np.array([values[s] for s in self.states], dtype=float)

    def calc(self, activation, tendon_force, excitation, length, speed):
        z = self.z(activation, tendon_force)
        zdot = np.full_like(z, np.nan)
        out = np.zeros(ACTUATOR_OUTPUTS)
        tension = dm.calc(self.ai, self.af, z, zdot, np.array([excitation]), length, speed,
                          self.R_GB, self.p_GB, np.zeros((3, 6)), np.zeros(2), out)
        return tension, out, dict(zip(self.states, zdot))

    def equilibrate(self, activation, excitation, length, speed):
        z = self.z(activation, -1.0)
        status = dm.equilibrate(self.ai, self.af, z, np.array([excitation]), length, speed,
                                np.zeros(ACTUATOR_OUTPUTS))
        return status, dict(zip(self.states, z))


class OpenSimMuscle(OpenSimSlider):
    """OpenSim's DeGrooteFregly2016Muscle of the same properties pulling a block on a
    slider (along ground's x) from ground's origin: its path's length is the slider's q."""

    def __init__(self, osim, muscle: DeGrooteFregly2016Muscle):
        m = osim.DeGrooteFregly2016Muscle()
        m.setName("m")
        for key, value in muscle.properties.items():
            getattr(m, f"set_{key}")(value)
        super().__init__(osim, m)
        self.muscle = osim.DeGrooteFregly2016Muscle.safeDownCast(self.model.getMuscles().get(0))
        self.states = muscle._states()

    def _set(self, values: dict, excitation, length, speed):
        s = self.state
        self.set_sample(excitation, length, speed)
        for name in self.states:
            if name in values:
                self.model.setStateVariableValue(s, f"/forceset/m/{name}", values[name])

    def realize(self, activation, tendon_force, excitation, length, speed):
        s, m = self.state, self.muscle
        self._set({"activation": activation, "normalized_tendon_force": tendon_force},
                  excitation, length, speed)
        self.model.realizeAcceleration(s)
        return (m.getLength(s), m.getLengtheningSpeed(s), self.outputs(),
                self.derivatives(self.states))

    def equilibrate(self, activation, excitation, length, speed):
        """The states after OpenSim's equilibrateMuscles, or None where it throws."""
        self._set({"activation": activation}, excitation, length, speed)
        try:
            self.model.equilibrateMuscles(self.state)
        except RuntimeError:
            return None
        return {name: self.model.getStateVariableValue(self.state, f"/forceset/m/{name}")
                for name in self.states}


CASES = {  # id: (Rajagopal muscle, property changes)
    "elastic_unpennated": ("bflh_r", {}),
    "elastic_pennated": ("soleus_r", {}),
    "damped_wide": ("soleus_r", {"fiber_damping": 0.05, "active_force_width_scale": 1.5,
                                 "passive_fiber_strain_at_one_norm_force": 0.5,
                                 "tendon_strain_at_one_norm_force": 0.04}),
    "rigid_pennated": ("glmax1_r", {"ignore_tendon_compliance": True}),
    "no_activation_dynamics": ("soleus_r", {"ignore_activation_dynamics": True}),
    "no_passive_force": ("bflh_r", {"ignore_passive_fiber_force": True}),
}


def muscle_of(case: str) -> DeGrooteFregly2016Muscle:
    name, changes = CASES[case]
    return DeGrooteFregly2016Muscle(name, **rajagopal_sizes(name), **changes)


def samples(muscle, rng, n):
    """n random (activation, normalized tendon force, excitation, path length, speed),
    half at an edge: a slack tendon (no force), excitation outside [0, 1], a low
    activation, a tendon force past the fiber's strength."""
    p = muscle.properties
    lopt, lts = p["optimal_fiber_length"], p["tendon_slack_length"]
    out = []
    for k in range(n):
        a = rng.uniform(0.05, 1.0)
        force = rng.uniform(0.0, 1.2)
        u = rng.uniform(0.0, 1.0)
        length = lts * rng.uniform(1.0, 1.04) + lopt * rng.uniform(0.5, 1.5)
        speed = rng.uniform(-1.0, 1.0) * lopt * 5
        edge = k % 8
        if edge == 1:
            force = 0.0
        elif edge == 2:
            u = rng.choice([-1.0, 1.0]) * rng.uniform(1.0, 2.0)
        elif edge == 3:
            a = rng.uniform(0.005, 0.02)
            force = rng.uniform(0.0, 0.02)
        elif edge == 4:
            force = rng.uniform(1.5, 2.5)
        out.append((a, force, u, length, speed))
    return out


def relative_error(mine, ref, size):
    """|mine - ref| over |ref| (at least 1e-6 size); 0 where both are the same infinity
    or both NaN (a fiber too weak for its tendon's force), inf where only one is."""
    if mine == ref or (math.isnan(mine) and math.isnan(ref)):
        return 0.0
    if not (math.isfinite(mine) and math.isfinite(ref)):
        return math.inf
    return abs(mine - ref) / max(abs(ref), 1e-6 * size)


@pytest.mark.parametrize("case", CASES)
def test_outputs_and_derivatives_agree_with_opensim(case, frames):
    osim = pytest.importorskip("opensim")
    muscle = muscle_of(case)
    ours, theirs = Kinetree(muscle, frames), OpenSimMuscle(osim, muscle)
    p = muscle.properties
    fiso, lopt = p["max_isometric_force"], p["optimal_fiber_length"]
    scale = {OUT_TENDON_FORCE: fiso, OUT_FORCE: fiso, OUT_ACTIVE_FIBER_FORCE: fiso,
             OUT_PASSIVE_FIBER_FORCE: fiso, OUT_POWER: fiso, OUT_FIBER_VELOCITY: lopt}
    worst = {}
    for sample in samples(muscle, np.random.default_rng(len(case)), 48):
        a, force, u, length, speed = sample
        length, speed, outputs, derivatives = theirs.realize(a, force, u, length, speed)
        tension, out, zdot = ours.calc(a, force, u, length, speed)
        assert tension == out[OUT_TENDON_FORCE] == out[OUT_FORCE]
        pairs = [(c, out[c], v, scale.get(c, 1.0)) for c, v in outputs.items()]
        pairs += [(f"d/dt {k}", zdot[k], v, 1.0) for k, v in derivatives.items()]
        for what, mine, ref, size in pairs:
            error = relative_error(mine, ref, size)
            if error >= worst.get(what, (-1.0,))[0]:
                worst[what] = (error, sample)
    bad = {k: v for k, v in worst.items() if not v[0] < 1e-12}
    assert not bad, bad


@pytest.mark.parametrize("case", ["elastic_unpennated", "elastic_pennated", "damped_wide",
                                  "no_activation_dynamics"])
def test_equilibrium_agrees_with_opensim(case, frames):
    """Random activations, path lengths and speeds; the tendon's force where fiber and
    tendon balance, as OpenSim's bisection finds it (bit for bit), and where OpenSim
    finds none, neither does kinetree."""
    osim = pytest.importorskip("opensim")
    muscle = muscle_of(case)
    ours, theirs = Kinetree(muscle, frames), OpenSimMuscle(osim, muscle)
    p = muscle.properties
    lopt, lts = p["optimal_fiber_length"], p["tendon_slack_length"]
    rng = np.random.default_rng(5)
    solved = 0
    for k in range(12):
        a, u = rng.uniform(0.02, 1.0), rng.uniform(0.0, 1.0)
        length = lts * rng.uniform(0.98, 1.06) + lopt * rng.uniform(0.4, 1.6)
        speed = 0.0 if k % 3 == 0 else rng.uniform(-1.0, 1.0) * lopt * 3
        status, z = ours.equilibrate(a, u, length, speed)
        ref = theirs.equilibrate(a, u, length, speed)
        if ref is None:
            assert status == dm.FAILED_BRACKET
            continue
        assert status == 0, muscle.failure(status)
        assert z["normalized_tendon_force"] == ref["normalized_tendon_force"], (k, z, ref)
        solved += 1
        # the fiber and tendon balance there, to the bisection's tolerance in force
        out = np.zeros(ACTUATOR_OUTPUTS)
        residual = dm.equilibrium_residual(ours.af, 0, z.get("activation", u),
                                           z["normalized_tendon_force"], length, speed, out)
        assert abs(residual) < 1e-8
    assert solved >= 8


def test_curves_have_their_published_values():
    """f_L(1) = 1 (nearly: the fitted sum), the passive curve 0 at 0.2 and 1 at the
    strain at one norm force, the tendon curve 0 at slack and 1 at its strain, the
    force-velocity curve 1 at rest, and the inverses invert."""
    assert dm.active_force_length(1.0, 1.0) == pytest.approx(1.0, abs=1e-3)
    assert dm.passive_force_length(0.2, 0.6) == pytest.approx(0.0, abs=1e-15)
    assert dm.passive_force_length(1.6, 0.6) == pytest.approx(1.0, rel=1e-14)
    kt = dm.tendon_stiffness_parameter(0.049)
    assert dm.tendon_force_length(1.0, kt)[0] == pytest.approx(0.0, abs=1e-15)
    assert dm.tendon_force_length(1.049, kt)[0] == pytest.approx(1.0, rel=1e-14)
    assert dm.force_velocity(0.0) == pytest.approx(1.0, abs=1e-3)
    for v in (-0.9, -0.2, 0.0, 0.4, 1.0):
        assert dm.force_velocity_inverse(dm.force_velocity(v)) == pytest.approx(v, abs=1e-12)
    for f in (0.0, 0.3, 1.0, 3.0):
        assert dm.tendon_force_length(dm.tendon_length_of_force(f, kt), kt)[0] == \
            pytest.approx(f, abs=1e-14)
    # the tendon curve's slope, against a central difference
    h = 1e-7
    slope = (dm.tendon_force_length(1.03 + h, kt)[0] - dm.tendon_force_length(1.03 - h, kt)[0]) \
        / (2 * h)
    assert dm.tendon_force_length(1.03, kt)[1] == pytest.approx(slope, rel=1e-7)


def test_activation_rate_blends_the_time_constants():
    """Far from the switch (a steep smoothing), the rate is (u - a) / (tau_a (0.5 + 1.5
    a)) rising and (u - a) (0.5 + 1.5 a) / tau_d falling; at u = a it is 0."""
    a = 0.4
    rising = dm.activation_rate(a, 0.9, 0.015, 0.06, 1e3)
    falling = dm.activation_rate(a, 0.1, 0.015, 0.06, 1e3)
    assert rising == pytest.approx(0.5 / (0.015 * (0.5 + 1.5 * a)), rel=1e-12)
    assert falling == pytest.approx(-0.3 * (0.5 + 1.5 * a) / 0.06, rel=1e-12)
    assert dm.activation_rate(a, a, 0.015, 0.06, 0.1) == 0.0


def test_tendon_force_rate_is_the_derivative_along_the_motion(frames):
    """With an elastic tendon, the rate of the normalized tendon force is the tendon
    curve's slope times the normalized tendon velocity: the tendon length a step later
    (the path moving at its speed, the fiber at its velocity) gives that force."""
    muscle = muscle_of("elastic_pennated")
    k = Kinetree(muscle, frames)
    lts = muscle.properties["tendon_slack_length"]
    length, speed, force = lts * 1.02 + 0.05, 0.2, 0.4
    _, out, zdot = k.calc(0.6, force, 0.6, length, speed)
    kt = dm.tendon_stiffness_parameter(0.049)
    # the tendon's velocity: the path's less the fiber's along the tendon (as OpenSim
    # reckons it, v_M / cos(phi))
    tendon_velocity = speed - out[OUT_FIBER_VELOCITY] / math.cos(out[OUT_PENNATION_ANGLE])
    h = 1e-6
    later, earlier = (dm.tendon_force_length(
        (out[OUT_TENDON_LENGTH] + s * h * tendon_velocity) / lts, kt)[0] for s in (1, -1))
    assert zdot["normalized_tendon_force"] == pytest.approx((later - earlier) / (2 * h),
                                                            rel=1e-8)


def test_states_follow_the_options():
    assert muscle_of("rigid_pennated")._states() == ("activation",)
    assert muscle_of("no_activation_dynamics")._states() == ("normalized_tendon_force",)
    m = DeGrooteFregly2016Muscle("m")
    assert m._initial_z() == [0.5, 0.5] and len(m._params()) == dm.NUM_PARAMS


def test_osim_properties_and_refusals():
    element = ET.fromstring(
        "<DeGrooteFregly2016Muscle name='m'><fiber_damping>0.01</fiber_damping>"
        "<ignore_passive_fiber_force>true</ignore_passive_fiber_force>"
        "</DeGrooteFregly2016Muscle>")
    p = DeGrooteFregly2016Muscle.osim_properties(element)
    assert p == {"fiber_damping": 0.01, "ignore_passive_fiber_force": True}
    element.append(ET.fromstring(
        "<tendon_compliance_dynamics_mode>implicit</tendon_compliance_dynamics_mode>"))
    with pytest.raises(InvalidArgumentError, match="explicit"):
        DeGrooteFregly2016Muscle.osim_properties(element)
    with pytest.raises(InvalidArgumentError, match="active_force_width_scale"):
        DeGrooteFregly2016Muscle("m", active_force_width_scale=0.5)
    with pytest.raises(InvalidArgumentError, match="default_normalized_tendon_force"):
        DeGrooteFregly2016Muscle("m", default_normalized_tendon_force=6.0)
