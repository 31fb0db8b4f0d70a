"""kt.check_constraint: correct constraints pass, and a constraint broken in one method is
caught with that method named.

The seed's ExampleConstraint (seed 000 §2.2) and deliberately broken copies of it; a
nonholonomic and an acceleration-only custom constraint, correct and broken; and every
built-in ``Constraint.<Type>`` that exists when the tests run, on a small model, correct
and with one implementation method wrapped to be 1% off."""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.multibody.check_constraint import ConstraintCheck, ConstraintCheckError

LINK = kt.Body.Rigid(kt.MassProperties(1.0, [0.05, -0.1, 0.02],
                                       kt.Inertia(0.09, 0.07, 0.08, 0.01, 0.0, 0.005)))


# ------------------------------------------------------------- the seed's example
class ExampleConstraint(kt.Constraint.Custom.Implementation):
    """Seed 000 §2.2: the body origins stay ``distance`` apart; perr = (r·r - d²)/2."""

    def __init__(self, b1, b2, distance):
        super().__init__(b1.get_matter_subsystem(), 1, 0, 0)
        self.body1 = self.add_constrained_body(b1)
        self.body2 = self.add_constrained_body(b2)
        self.distance = distance

    def _r(self, state):
        return (self.get_body_origin_location_from_state(state, self.body2)
                - self.get_body_origin_location_from_state(state, self.body1))

    def _v(self, state):
        return (self.get_body_origin_velocity_from_state(state, self.body2)
                - self.get_body_origin_velocity_from_state(state, self.body1))

    def calc_position_errors(self, state, X_AB, constrained_q, perr):
        r = (self.get_body_origin_location(X_AB, self.body2)
             - self.get_body_origin_location(X_AB, self.body1))
        perr[0] = (r @ r - self.distance ** 2) / 2

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr):
        v = (self.get_body_origin_velocity(V_AB, self.body2)
             - self.get_body_origin_velocity(V_AB, self.body1))
        pverr[0] = v @ self._r(state)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr):
        a = (self.get_body_origin_acceleration(A_AB, self.body2)
             - self.get_body_origin_acceleration(A_AB, self.body1))
        v = self._v(state)
        paerr[0] = a @ self._r(state) + v @ v

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces):
        force = multipliers[0] * self._r(state)
        self.add_in_station_force(state, self.body2, np.zeros(3), force, body_forces_in_A)
        self.add_in_station_force(state, self.body1, np.zeros(3), -force, body_forces_in_A)


class PverrMissingFactor(ExampleConstraint):
    """d/dt of (r·r - d²)/2 is v·r; this returns 2 v·r (the ½ dropped only here)."""

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr):
        super().calc_position_dot_errors(state, V_AB, constrained_qdot, pverr)
        pverr[0] *= 2


class PaerrWithoutVV(ExampleConstraint):
    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr):
        super().calc_position_dot_dot_errors(state, A_AB, constrained_qdotdot, paerr)
        v = self._v(state)
        paerr[0] -= v @ v


class ForcesWrongSign(ExampleConstraint):
    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces):
        super().add_in_position_constraint_forces(state, -np.asarray(multipliers),
                                                  body_forces_in_A, q_forces)


class ForcesWrongPoint(ExampleConstraint):
    """The force on body 2 applied at a station 0.2 m off its origin."""

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces):
        force = multipliers[0] * self._r(state)
        self.add_in_station_force(state, self.body2, [0.2, 0, 0], force, body_forces_in_A)
        self.add_in_station_force(state, self.body1, np.zeros(3), -force, body_forces_in_A)


class PerrWithoutHalf(ExampleConstraint):
    """perr = r·r - d² with the derivatives of (r·r - d²)/2: the seed's own example of a
    mistake (every other method then disagrees with perr by a factor 2)."""

    def calc_position_errors(self, state, X_AB, constrained_q, perr):
        super().calc_position_errors(state, X_AB, constrained_q, perr)
        perr[0] *= 2


class PverrReadsTheState(ExampleConstraint):
    """Reads the velocities from the State instead of V_AB (seed: never do this)."""

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr):
        pverr[0] = self._v(state) @ self._r(state)


def example_model(implementation=ExampleConstraint, distance=1.2):
    """Seed §2.2's setting: a double pendulum of Ball joints (quaternions) whose tip is
    held at a distance from a free body."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    upper = kt.MobilizedBody.Ball(matter.Ground(), kt.Transform(), LINK,
                                  kt.Transform([0, 1, 0]))
    lower = kt.MobilizedBody.Ball(upper, kt.Transform(), LINK, kt.Transform([0, 1, 0]))
    floater = kt.MobilizedBody.Free(matter.Ground(), kt.Transform([1.5, -1.0, 0]), LINK,
                                    kt.Transform())
    c = kt.Constraint.Custom(implementation(lower, floater, distance))
    state = system.realize_topology()
    state.set_q(state.get_q() + np.random.default_rng(3).uniform(-0.2, 0.2,
                                                                  len(state.get_q())))
    return system, matter, c, state


def test_the_seed_example_passes_every_check():
    system, matter, c, state = example_model()
    report = kt.check_constraint(c, state)
    assert isinstance(report, ConstraintCheck)
    assert report.passed, str(report)
    assert report.assert_ok() is report
    methods = {e.method for e in report.entries}
    assert methods == {"calc_position_dot_errors", "calc_position_dot_dot_errors",
                       "add_in_position_constraint_forces"}
    assert len(report.entries) == 7
    assert max(e.relative for e in report.entries) < 1e-8
    text = str(report)
    assert "all checks passed" in text and "ExampleConstraint" in text


@pytest.mark.parametrize("seed", range(4))
def test_the_seed_example_passes_at_other_draws_and_without_projection(seed):
    system, matter, c, state = example_model()
    kt.check_constraint(c, state, seed=seed).assert_ok()
    # the example's methods are exact derivatives everywhere, not only on the manifold
    kt.check_constraint(c, state, seed=seed, project=False).assert_ok()


def test_the_callers_state_is_left_untouched():
    system, matter, c, state = example_model()
    other = kt.Constraint.Rod(matter.get_mobilized_body(1), matter.get_mobilized_body(3), 5.0)
    state = system.realize_topology()
    system.realize(state, kt.Stage.VELOCITY)
    q, u, t = np.array(state.get_q()), np.array(state.get_u()), state.get_time()
    stage = state.get_system_stage()
    perr = np.array(state.get_q_err())
    kt.check_constraint(c, state).assert_ok()
    kt.check_constraint(other, state).assert_ok()
    assert state.get_system_stage() == stage
    np.testing.assert_array_equal(state.get_q(), q)
    np.testing.assert_array_equal(state.get_u(), u)
    np.testing.assert_array_equal(state.get_q_err(), perr)
    assert state.get_time() == t
    assert not c.is_disabled(state) and not other.is_disabled(state)


BROKEN = {
    "pverr missing a factor": (PverrMissingFactor, "calc_position_dot_errors",
                               "is not the time derivative of calc_position_errors"),
    "paerr missing v·v": (PaerrWithoutVV, "calc_position_dot_dot_errors",
                          "is not the second time derivative of calc_position_errors"),
    "forces with the wrong sign": (ForcesWrongSign, "add_in_position_constraint_forces",
                                   "does not produce the transpose"),
    "forces at the wrong point": (ForcesWrongPoint, "add_in_position_constraint_forces",
                                  "does not produce the transpose"),
    "pverr reading the State": (PverrReadsTheState, "calc_position_dot_errors",
                                "does not take the velocities from its arguments"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_example_is_caught_and_the_method_named(case):
    implementation, method, phrase = BROKEN[case]
    system, matter, c, state = example_model(implementation)
    report = kt.check_constraint(c, state)
    assert not report.passed
    assert report.failing_methods() == [method], str(report)
    with pytest.raises(ConstraintCheckError) as info:
        report.assert_ok()
    message = str(info.value)
    assert message.startswith(f"Constraint.Custom #0 ({implementation.__name__}): {method} "
                              f"{phrase}")
    assert "off by" in message and "relative" in message
    assert isinstance(info.value, KinetreeError)
    # the relative discrepancy is large, far above the tolerance
    worst = max(e.relative for e in report.failures)
    assert worst > 1e-3 and worst > 100 * max(e.relative_tolerance for e in report.failures)


def test_the_wrong_factor_is_reported_off_by_about_that_factor():
    system, matter, c, state = example_model(PverrMissingFactor)
    entry = kt.check_constraint(c, state).entries_for("calc_position_dot_errors")[0]
    assert entry.relative == pytest.approx(0.5, rel=1e-6)   # 2 v·r against v·r


def test_a_wrong_perr_fails_everything_checked_against_it_and_the_report_says_so():
    system, matter, c, state = example_model(PerrWithoutHalf)
    report = kt.check_constraint(c, state)
    assert set(report.failing_methods()) == {
        "calc_position_dot_errors", "calc_position_dot_dot_errors",
        "add_in_position_constraint_forces"}
    assert any("calc_position_errors is the one to fix" in n for n in report.notes)
    with pytest.raises(ConstraintCheckError, match="calc_position_errors is the one to fix"):
        report.assert_ok()


def test_an_exception_in_a_method_is_reported_naming_that_method():
    class Unfinished(ExampleConstraint):
        def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr):
            raise ValueError("not written yet")

    system, matter, c, state = example_model(Unfinished)
    report = kt.check_constraint(c, state)
    assert report.failing_methods() == ["calc_position_dot_dot_errors"]
    assert "raised ValueError" in str(report) and "not written yet" in str(report)


def test_only_the_constraint_checked_is_evaluated():
    """Another constraint in the system, broken, does not affect the check of this one."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    a = kt.MobilizedBody.Ball(matter.Ground(), kt.Transform(), LINK, kt.Transform([0, 1, 0]))
    b = kt.MobilizedBody.Free(matter.Ground(), kt.Transform([1.5, -1.0, 0]), LINK,
                              kt.Transform())
    good = kt.Constraint.Custom(ExampleConstraint(a, b, 1.7))
    bad = kt.Constraint.Custom(PaerrWithoutVV(a, b, 1.7))
    state = system.realize_topology()
    kt.check_constraint(good, state).assert_ok()
    assert kt.check_constraint(bad, state).failing_methods() == [
        "calc_position_dot_dot_errors"]
    # a disabled constraint is enabled in the copy checked, and the report says so
    good.disable(state)
    report = kt.check_constraint(good, state)
    assert report.passed and any("disabled" in n for n in report.notes)
    assert good.is_disabled(state)


def test_a_state_that_cannot_be_projected_is_reported():
    """Two origins a fixed 1 m apart (a Ball joint between them) asked to be 5 m apart:
    no q satisfies it, the report says so, and the checks, which the motion cannot
    exercise (P = 0), are marked vacuous."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    upper = kt.MobilizedBody.Ball(matter.Ground(), kt.Transform(), LINK,
                                  kt.Transform([0, 1, 0]))
    lower = kt.MobilizedBody.Ball(upper, kt.Transform(), LINK, kt.Transform([0, 1, 0]))
    c = kt.Constraint.Custom(ExampleConstraint(upper, lower, 5.0))
    report = kt.check_constraint(c, system.realize_topology())
    assert report.failing_methods() == ["(projection)"]
    with pytest.raises(ConstraintCheckError, match=r"\(projection\) failed: System.project "
                                                   r"failed, and so did Newton steps"):
        report.assert_ok()
    assert any(e.vacuous for e in report.entries)
    assert "vacuous here" in str(report)


def test_bad_arguments_are_refused():
    system, matter, c, state = example_model()
    with pytest.raises(InvalidArgumentError, match="expected a kt.Constraint"):
        kt.check_constraint(c.get_implementation(), state)
    with pytest.raises(InvalidArgumentError, match="rtol"):
        kt.check_constraint(c, state, rtol=0)


# ------------------------------------------------ nonholonomic: a skate blade
class Skate(kt.Constraint.Custom.Implementation):
    """The origin of a body may not move along the body's own y axis (a knife edge):
    verr = v·n, n = R_AB y; vaerr = a·n + v·(w × n); force λ n at the origin."""

    def __init__(self, body, ground):
        super().__init__(body.get_matter_subsystem(), 0, 1, 0)
        self.g = self.add_constrained_body(ground)
        self.b = self.add_constrained_body(body)

    def _n(self, state):
        return self.get_body_rotation_from_state(state, self.b).as_matrix()[:, 1]

    def calc_velocity_errors(self, state, V_AB, constrained_u, verr):
        verr[0] = self.get_body_origin_velocity(V_AB, self.b) @ self._n(state)

    def calc_velocity_dot_errors(self, state, A_AB, constrained_udot, vaerr):
        n = self._n(state)
        w = self.get_body_angular_velocity_from_state(state, self.b)
        v = self.get_body_origin_velocity_from_state(state, self.b)
        vaerr[0] = self.get_body_origin_acceleration(A_AB, self.b) @ n + v @ np.cross(w, n)

    def add_in_velocity_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          mobility_forces):
        self.add_in_station_force(state, self.b, np.zeros(3), multipliers[0] * self._n(state),
                                  body_forces_in_A)


class SkateWithoutRotation(Skate):
    """vaerr without the v·(w × n) term from the blade turning."""

    def calc_velocity_dot_errors(self, state, A_AB, constrained_udot, vaerr):
        vaerr[0] = self.get_body_origin_acceleration(A_AB, self.b) @ self._n(state)


def skate_model(implementation):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), LINK, kt.Transform())
    c = kt.Constraint.Custom(implementation(body, matter.Ground()))
    state = system.realize_topology()
    state.set_q(state.get_q() + np.random.default_rng(5).uniform(-0.3, 0.3, 7))
    return system, c, state


def test_a_nonholonomic_custom_constraint_passes():
    system, c, state = skate_model(Skate)
    report = kt.check_constraint(c, state).assert_ok()
    assert {e.method for e in report.entries} == {
        "calc_velocity_errors", "calc_velocity_dot_errors",
        "add_in_velocity_constraint_forces"}


def test_a_nonholonomic_custom_constraint_with_a_wrong_vaerr_is_caught():
    system, c, state = skate_model(SkateWithoutRotation)
    report = kt.check_constraint(c, state)
    assert report.failing_methods() == ["calc_velocity_dot_errors"], str(report)
    failed = {e.claim for e in report.failures}
    assert failed == {"is the time derivative of calc_velocity_errors"}   # G is still right
    with pytest.raises(ConstraintCheckError, match="calc_velocity_dot_errors is not the time "
                                                   "derivative of calc_velocity_errors"):
        report.assert_ok()


# ------------------------------------------- acceleration-only: a station's a·n
class StationAcceleration(kt.Constraint.Custom.Implementation):
    """The acceleration of a station S of a body along a Ground direction n is a0:
    aerr = (a_S)·n - a0; force λ n at S."""

    STATION = np.array([0.3, -0.2, 0.1])
    N = np.array([0.6, 0.0, 0.8])

    def __init__(self, body, ground, a0=0.5):
        super().__init__(body.get_matter_subsystem(), 0, 0, 1)
        self.g = self.add_constrained_body(ground)
        self.b = self.add_constrained_body(body)
        self.a0 = a0

    def calc_acceleration_errors(self, state, A_AB, constrained_udot, aerr):
        a = self.find_station_acceleration(state, A_AB, self.b, self.STATION)
        aerr[0] = a @ self.N - self.a0

    def add_in_acceleration_constraint_forces(self, state, multipliers, body_forces_in_A,
                                              mobility_forces):
        self.add_in_station_force(state, self.b, self.STATION, multipliers[0] * self.N,
                                  body_forces_in_A)


class StationAccelerationForceAtOrigin(StationAcceleration):
    def add_in_acceleration_constraint_forces(self, state, multipliers, body_forces_in_A,
                                              mobility_forces):
        self.add_in_station_force(state, self.b, np.zeros(3), multipliers[0] * self.N,
                                  body_forces_in_A)


def test_an_acceleration_only_custom_constraint_passes_and_inconsistent_forces_are_caught():
    system, c, state = skate_model(StationAcceleration)
    report = kt.check_constraint(c, state).assert_ok()
    assert {e.method for e in report.entries} == {"add_in_acceleration_constraint_forces",
                                                  "calc_acceleration_errors"}
    system, c, state = skate_model(StationAccelerationForceAtOrigin)
    report = kt.check_constraint(c, state)
    assert report.failing_methods() == ["add_in_acceleration_constraint_forces"]
    with pytest.raises(ConstraintCheckError, match="add_in_acceleration_constraint_forces "
                                                   "does not produce the transpose"):
        report.assert_ok()


class Mixed(kt.Constraint.Custom.Implementation):
    """One equation of each kind in one implementation: the seed's origin distance
    (holonomic), a skate blade on body 2 (nonholonomic), a station acceleration of body 1
    (acceleration-only); ``bad`` breaks vaerr ("v") or the acceleration force ("a")."""

    N = np.array([0.0, 0.0, 1.0])

    def __init__(self, b1, b2, ground, d, bad=None):
        super().__init__(b1.get_matter_subsystem(), 1, 1, 1)
        self.g = self.add_constrained_body(ground)
        self.b1, self.b2 = self.add_constrained_body(b1), self.add_constrained_body(b2)
        self.d, self.bad = d, bad

    def _r(self, s):
        return (self.get_body_origin_location_from_state(s, self.b2)
                - self.get_body_origin_location_from_state(s, self.b1))

    def _n(self, s):
        return self.get_body_rotation_from_state(s, self.b2).as_matrix()[:, 1]

    def calc_position_errors(self, s, X_AB, q, perr):
        r = X_AB[self.b2].p - X_AB[self.b1].p
        perr[0] = (r @ r - self.d ** 2) / 2

    def calc_position_dot_errors(self, s, V_AB, qdot, pverr):
        pverr[0] = (V_AB[self.b2, 3:] - V_AB[self.b1, 3:]) @ self._r(s)

    def calc_position_dot_dot_errors(self, s, A_AB, qdotdot, paerr):
        v = (self.get_body_origin_velocity_from_state(s, self.b2)
             - self.get_body_origin_velocity_from_state(s, self.b1))
        paerr[0] = (A_AB[self.b2, 3:] - A_AB[self.b1, 3:]) @ self._r(s) + v @ v

    def add_in_position_constraint_forces(self, s, lam, F, q_forces):
        f = lam[0] * self._r(s)
        self.add_in_station_force(s, self.b2, np.zeros(3), f, F)
        self.add_in_station_force(s, self.b1, np.zeros(3), -f, F)

    def calc_velocity_errors(self, s, V_AB, u, verr):
        verr[0] = V_AB[self.b2, 3:] @ self._n(s)

    def calc_velocity_dot_errors(self, s, A_AB, udot, vaerr):
        n = self._n(s)
        w = self.get_body_angular_velocity_from_state(s, self.b2)
        v = self.get_body_origin_velocity_from_state(s, self.b2)
        vaerr[0] = A_AB[self.b2, 3:] @ n + (0.0 if self.bad == "v" else v @ np.cross(w, n))

    def add_in_velocity_constraint_forces(self, s, lam, F, mobility_forces):
        self.add_in_station_force(s, self.b2, np.zeros(3), lam[0] * self._n(s), F)

    def calc_acceleration_errors(self, s, A_AB, udot, aerr):
        aerr[0] = self.find_station_acceleration(s, A_AB, self.b1, [0.2, 0, 0]) @ self.N - 0.3

    def add_in_acceleration_constraint_forces(self, s, lam, F, mobility_forces):
        station = [0.1 if self.bad == "a" else 0.2, 0, 0]
        self.add_in_station_force(s, self.b1, station, lam[0] * self.N, F)


@pytest.mark.parametrize("bad, failing", [(None, []), ("v", ["calc_velocity_dot_errors"]),
                                          ("a", ["add_in_acceleration_constraint_forces"])])
def test_one_constraint_of_every_kind_at_once(bad, failing):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    upper = kt.MobilizedBody.Ball(matter.Ground(), kt.Transform(), LINK,
                                  kt.Transform([0, 1, 0]))
    lower = kt.MobilizedBody.Ball(upper, kt.Transform(), LINK, kt.Transform([0, 1, 0]))
    floater = kt.MobilizedBody.Free(matter.Ground(), kt.Transform([1.5, -1, 0]), LINK,
                                    kt.Transform())
    c = kt.Constraint.Custom(Mixed(lower, floater, matter.Ground(), 1.2, bad))
    report = kt.check_constraint(c, system.realize_topology())
    assert report.counts == (1, 1, 1) and len(report.entries) == 15
    assert report.failing_methods() == failing, str(report)


def test_errors_that_are_not_affine_are_caught():
    class QuadraticSkate(Skate):
        def calc_velocity_errors(self, state, V_AB, constrained_u, verr):
            v = self.get_body_origin_velocity(V_AB, self.b)
            verr[0] = v @ self._n(state) + 0.3 * (v @ v)

    system, c, state = skate_model(QuadraticSkate)
    report = kt.check_constraint(c, state)
    assert "is affine in the speeds u" in {e.claim for e in report.failures
                                           if e.method == "calc_velocity_errors"}


# --------------------------------------------------- every built-in type
class Coupling(kt.Function):
    """f(x) = x0 x1 + sin(x2) - 0.1, with its first and second partials."""

    def calc_value(self, x):
        return x[0] * x[1] + math.sin(x[2]) - 0.1

    def calc_derivative(self, deriv_components, x):
        c = sorted(deriv_components)
        if len(c) == 1:
            return [x[1], x[0], math.cos(x[2])][c[0]]
        if c == [0, 1]:
            return 1.0
        if c == [2, 2]:
            return -math.sin(x[2])
        return 0.0

    def get_argument_size(self):
        return 3

    def get_max_derivative_order(self):
        return 2


class SpeedFunction(kt.Function):
    """f(u0, u1; q0) = u0 - cos(q0) u1 - 0.2: linear in u, nonlinear in q."""

    def calc_value(self, x):
        return x[0] - math.cos(x[2]) * x[1] - 0.2

    def calc_derivative(self, deriv_components, x):
        c = sorted(deriv_components)
        if len(c) == 1:
            return [1.0, -math.cos(x[2]), math.sin(x[2]) * x[1]][c[0]]
        if c == [1, 2]:
            return math.sin(x[2])
        if c == [2, 2]:
            return math.cos(x[2]) * x[1]
        return 0.0

    def get_argument_size(self):
        return 3

    def get_max_derivative_order(self):
        return 2


def rotation(rng):
    return kt.Rotation.from_body_fixed_xyz(rng.uniform(-np.pi, np.pi, 3))


def small_tree():
    """Pin on Ground; a Ball (quaternions) and a Gimbal (Euler angles) on it; a Free body
    and a tilted Slider on Ground. Returns the system, the matter, the bodies, and a State
    at a random pose."""
    rng = np.random.default_rng(7)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(kt.Rotation.about_x(0.3)), LINK,
                               kt.Transform([0, 0.6, 0]))
    ball = kt.MobilizedBody.Ball(pin, kt.Transform([0.1, -0.3, 0.05]), LINK,
                                 kt.Transform(rotation(rng), [0, 0.6, 0]))
    gimbal = kt.MobilizedBody.Gimbal(pin, kt.Transform([0.1, -0.2, 0]), LINK,
                                     kt.Transform([0, 0.5, 0.1]))
    free = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(rotation(rng), [0.8, 0.3, 0]),
                                 LINK, kt.Transform(rotation(rng), [0.1, 0, 0]))
    slider = kt.MobilizedBody.Slider(matter.Ground(),
                                     kt.Transform(kt.Rotation.about_z(-0.5), [1, 0, 0]), LINK,
                                     kt.Transform())
    bodies = {"pin": pin, "ball": ball, "gimbal": gimbal, "free": free, "slider": slider}
    return system, matter, bodies, rng


def pose(system, rng):
    state = system.realize_topology()
    state.set_time(0.37)
    state.set_q(state.get_q() + rng.uniform(-0.4, 0.4, len(state.get_q())))
    system.realize(state, kt.Stage.POSITION)
    return state


def _between_bodies(make):
    """A factory for a constraint between the Ball-jointed body and the Free body, made
    satisfied at a random pose by ``make(b1, b2, state, rng)``."""
    def factory():
        system, matter, b, rng = small_tree()
        s = pose(system, rng)
        c = make(b["ball"], b["free"], s, rng)
        state = system.realize_topology()         # a State that knows the constraint
        state.set_time(s.get_time())
        state.set_q(s.get_q())
        return system, c, state
    return factory


def _rod(b1, b2, s, rng):
    p1, p2 = rng.uniform(-0.3, 0.3, 3), rng.uniform(-0.3, 0.3, 3)
    d = np.linalg.norm(b2.find_station_location_in_ground(s, p2)
                       - b1.find_station_location_in_ground(s, p1))
    return kt.Constraint.Rod(b1, p1, b2, p2, d)


def _ball(b1, b2, s, rng):
    p1 = rng.uniform(-0.3, 0.3, 3)
    p2 = b2.get_body_transform(s).invert() @ b1.find_station_location_in_ground(s, p1)
    return kt.Constraint.Ball(b1, p1, b2, p2)


def _weld(b1, b2, s, rng):
    X1 = kt.Transform(rotation(rng), rng.uniform(-0.3, 0.3, 3))
    X2 = b2.get_body_transform(s).invert() @ b1.get_body_transform(s) @ X1
    return kt.Constraint.Weld(b1, X1, b2, X2)


def _point_in_plane(b1, b2, s, rng):
    n, p_FS = rng.normal(size=3), rng.uniform(-0.3, 0.3, 3)
    p_BS = b1.get_body_transform(s).invert() @ b2.find_station_location_in_ground(s, p_FS)
    return kt.Constraint.PointInPlane(b1, n, p_BS @ n / np.linalg.norm(n), b2, p_FS)


def _point_on_line(b1, b2, s, rng):
    z, p_FS = rng.normal(size=3), rng.uniform(-0.3, 0.3, 3)
    p_BS = b1.get_body_transform(s).invert() @ b2.find_station_location_in_ground(s, p_FS)
    return kt.Constraint.PointOnLine(b1, z, p_BS + 0.3 * z / np.linalg.norm(z), b2, p_FS)


def _constant_angle(b1, b2, s, rng):
    a1, a2 = rng.normal(size=(2, 3))
    g1 = b1.get_body_rotation(s).as_matrix() @ a1 / np.linalg.norm(a1)
    g2 = b2.get_body_rotation(s).as_matrix() @ a2 / np.linalg.norm(a2)
    return kt.Constraint.ConstantAngle(b1, a1, b2, a2, float(np.arccos(g1 @ g2)))


def _constant_orientation(b1, b2, s, rng):
    R1 = rotation(rng)
    R2 = b2.get_body_rotation(s).invert() @ b1.get_body_rotation(s) @ R1
    return kt.Constraint.ConstantOrientation(b1, R1, b2, R2)


def _on_tree(make):
    def factory():
        system, matter, b, rng = small_tree()
        c = make(matter, b)
        return system, c, pose(system, rng)
    return factory


FACTORIES = {
    "Rod": _between_bodies(_rod),
    "Ball": _between_bodies(_ball),
    "Weld": _between_bodies(_weld),
    "PointInPlane": _between_bodies(_point_in_plane),
    "PointOnLine": _between_bodies(_point_on_line),
    "ConstantAngle": _between_bodies(_constant_angle),
    "ConstantOrientation": _between_bodies(_constant_orientation),
    "CoordinateCoupler": _on_tree(lambda matter, b: kt.Constraint.CoordinateCoupler(
        matter, Coupling(), [b["pin"], b["gimbal"], b["slider"]], [0, 1, 0])),
    "SpeedCoupler": _on_tree(lambda matter, b: kt.Constraint.SpeedCoupler(
        matter, SpeedFunction(), [b["pin"], b["gimbal"]], [0, 2], [b["slider"]], [0])),
    "PrescribedMotion": _on_tree(lambda matter, b: kt.Constraint.PrescribedMotion(
        matter, kt.Function.Sinusoid(0.3, 2.0, 0.1), b["gimbal"], 1)),
    "ConstantSpeed": _on_tree(lambda matter, b: kt.Constraint.ConstantSpeed(
        b["gimbal"], 1, 0.7)),
    "ConstantAcceleration": _on_tree(lambda matter, b: kt.Constraint.ConstantAcceleration(
        b["gimbal"], 2, -1.5)),
}
NO_SLIP = _on_tree(lambda matter, b: kt.Constraint.NoSlip1D(
    b["pin"], [0.1, 0.2, 0.3], [0.3, 1.0, 0.2], b["gimbal"], b["slider"]))

BREAKABLE = (  # the methods checked against another (the defining ones are references)
    ("calc_position_dot_errors", 0), ("calc_position_dot_dot_errors", 0),
    ("add_in_position_constraint_forces", 0), ("calc_velocity_dot_errors", 1),
    ("add_in_velocity_constraint_forces", 1), ("add_in_acceleration_constraint_forces", 2))


def build(name):
    if getattr(kt.Constraint, name, None) is None:
        pytest.skip(f"Constraint.{name} has not landed yet")
    return FACTORIES[name]()


def one_percent_off(impl, method):
    """Wrap ``method`` of this implementation object so that its output is 1% too big."""
    original = getattr(impl, method)
    if method.startswith("calc_"):
        def wrapped(state, argument, constrained, out):
            original(state, argument, constrained, out)
            out *= 1.01
    else:
        def wrapped(state, multipliers, body_forces, other):
            F, f = np.zeros_like(body_forces), np.zeros_like(other)
            original(state, multipliers, F, f)
            body_forces += 1.01 * F
            other += 1.01 * f
    setattr(impl, method, wrapped)


@pytest.mark.parametrize("name", FACTORIES)
def test_each_built_in_type_passes_and_a_method_1_percent_off_is_caught(name):
    system, c, state = build(name)
    report = kt.check_constraint(c, state)
    assert report.passed, str(report)
    counts = c.get_num_constraint_equations_in_use(state)
    broken = [method for method, kind in BREAKABLE if counts[kind]]
    assert broken
    for method in broken:
        system, c, state = build(name)            # a fresh copy of the model
        one_percent_off(c.get_implementation(), method)
        report = kt.check_constraint(c, state)
        assert report.failing_methods() == [method], f"{method} broken:\n{report}"
        with pytest.raises(ConstraintCheckError, match=f"{method} (is not|does not)"):
            report.assert_ok()


def test_no_slip_is_simbodys_and_only_its_bias_differs_from_the_derivative():
    """NoSlip1D's vaerr is Simbody's, the accelerations of the two material points along n:
    its u̇ coefficients and its forces pass, and away from a gear train (here the contact
    point moves over the bodies) only the time-derivative check of vaerr fails, by the
    terms Simbody leaves out."""
    system, c, state = NO_SLIP()
    report = kt.check_constraint(c, state)
    assert report.failing_methods() == ["calc_velocity_dot_errors"]
    failing = [e.claim for e in report.entries if not e.passed]
    assert len(failing) == 1 and "time derivative" in failing[0]


@pytest.mark.parametrize("name", ["Ball", "Weld"])
def test_coincident_point_constraints_need_the_manifold(name):
    """Ball and Weld (Simbody's coincident-point formulation) differ from the derivatives
    of perr, and their forces from Pᵀλ, by terms that vanish on the constraint manifold:
    they pass once projected, and the unprojected check flags those identities only."""
    system, c, state = build(name)
    off = state.copy()
    off.set_q(state.get_q() + 0.05)
    kt.check_constraint(c, off).assert_ok()
    report = kt.check_constraint(c, off, project=False)
    assert not report.passed
    assert set(report.failing_methods()) <= {"calc_position_dot_errors",
                                             "calc_position_dot_dot_errors",
                                             "add_in_position_constraint_forces"}
