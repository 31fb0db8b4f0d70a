"""kt.check_mobilizer: every built-in, Custom and FunctionBased mobilizer passes at random
states in both q modes, the caller's State is untouched, and each broken method is caught
and named: in five broken MobilizedBody.Custom implementations (wrong H, wrong HDot, wrong
N, inconsistent H transpose, wrong fit), and in built-ins whose callables, as
``mobilizer_functions`` gives them, are replaced one at a time before they are handed to
``check_mobilizer_functions``, the core that ``check_mobilizer`` runs.
"""

import dataclasses
import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.multibody.check_mobilizer import (
    FIT_Q,
    FIT_U,
    H_DOT,
    H_MATRIX,
    H_TRANSPOSE,
    N_INVERSE,
    N_MATRIX,
    TRANSFORM,
    MobilizerCheck,
    MobilizerCheckError,
    check_mobilizer_functions,
    mobilizer_functions,
)
from kinetree.multibody.mobilizers import ball as ball_kinematics

KINDS = ["Weld", "Pin", "Slider", "Universal", "Cylinder", "Screw", "Planar", "Gimbal", "Ball",
         "Free", "Translation", "Bushing", "BendStretch", "SphericalCoords", "LineOrientation",
         "FreeLine", "Ellipsoid", "Scapulothoracic", "CantileverFreeBeam"]
EXTRA = {"Screw": (0.13,), "Ellipsoid": ((0.5, 0.3, 0.2),), "CantileverFreeBeam": (0.8,),
         "Scapulothoracic": ((0.07, 0.15, 0.08), (-0.01, 0.025), 0.4)}


def build(kind, euler=False, seed=0):
    """``kind`` on a Pin whose frames are all off the identity, at a random state (q not
    normalized, random speeds): (system, matter, mobod, state)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0.2, 0.3], kt.Inertia(1.0)))
    base = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(kt.Rotation.about_x(0.3),
                                                              [0, 1, 0]),
                                body, kt.Transform([0.2, 0, 0]))
    mobod = getattr(kt.MobilizedBody, kind)(
        base, kt.Transform(kt.Rotation.about_y(0.4), [0.1, 0.2, 0.3]), body,
        kt.Transform(kt.Rotation.about_z(0.2), [0.3, -0.1, 0.2]), *EXTRA.get(kind, ()))
    state = system.realize_topology()
    matter.set_use_euler_angles(state, euler)
    system.realize_model(state)
    rng = np.random.default_rng(seed)
    state.set_q(rng.uniform(-1.0, 1.0, len(state.get_q())))
    if kind == "BendStretch":
        mobod.set_one_q(state, 1, 0.7)
    state.set_u(rng.uniform(-1.0, 1.0, len(state.get_u())))
    return system, matter, mobod, state


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_built_in_passes_at_random_states(kind, euler):
    for seed in range(3):
        _, _, mobod, state = build(kind, euler, seed)
        report = kt.check_mobilizer(mobod, state, seed=seed)
        assert report.assert_ok() is report
        assert report.counts == (mobod.get_num_q(state), mobod.get_num_u(state))
        for e in report.entries:          # with a wide margin: a correct method is ~1e-11
            assert e.discrepancy <= 1e-3 * e.tolerance, e.message()
        if kind != "Weld":
            assert len(report.entries) == 9
            assert "all checks passed" in str(report)


def test_the_callers_state_is_untouched():
    system, _, mobod, state = build("Ball", seed=4)
    system.realize(state, kt.Stage.VELOCITY)
    q, u, stage = state.get_q().copy(), state.get_u().copy(), state.get_system_stage()
    V = mobod.get_mobilizer_velocity(state)
    kt.check_mobilizer(mobod, state).assert_ok()
    np.testing.assert_array_equal(state.get_q(), q)
    np.testing.assert_array_equal(state.get_u(), u)
    assert state.get_system_stage() == stage
    np.testing.assert_array_equal(mobod.get_mobilizer_velocity(state), V)


def test_a_state_at_topology_stage_and_constraints_are_fine():
    system, matter, mobod, _ = build("Gimbal")
    kt.Constraint.Rod(matter.Ground(), [0, 0, 0], mobod, [0, 0, 0], 1.0)
    state = system.realize_topology()
    assert kt.check_mobilizer(mobod, state).passed


def test_ball_in_euler_mode_fails_exactly_at_gimbal_lock_naming_n():
    """Body-fixed x-y-z angles have no N at q1 = π/2; 1e-6 away they still pass."""
    system, matter, ball, state = build("Ball", euler=True)
    ball.set_q(state, [0.3, np.pi / 2 - 1e-6, -0.4])
    assert kt.check_mobilizer(ball, state).passed
    ball.set_q(state, [0.3, np.pi / 2, -0.4])
    report = kt.check_mobilizer(ball, state)
    assert report.failing_methods() == [N_MATRIX]
    assert "ball.n_mult" in str(report)


def test_weld_has_nothing_to_check():
    _, _, weld, state = build("Weld")
    report = kt.check_mobilizer(weld, state)
    assert report.passed and not report.entries
    assert any("no mobilities" in n for n in report.notes)


def test_arguments_are_checked():
    _, matter, mobod, state = build("Pin")
    with pytest.raises(kt.errors.InvalidArgumentError, match="other than Ground"):
        kt.check_mobilizer(matter.Ground(), state)
    with pytest.raises(kt.errors.InvalidArgumentError, match="MobilizedBody"):
        kt.check_mobilizer("pin", state)
    with pytest.raises(kt.errors.InvalidArgumentError, match="rtol"):
        kt.check_mobilizer(mobod, state, rtol=0.0)
    with pytest.raises(kt.errors.InvalidArgumentError, match="atol"):
        kt.check_mobilizer(mobod, state, atol=-1.0)


# -------------------------------------------------------------- broken methods are named
def functions(kind, euler=False, seed=0):
    _, _, mobod, state = build(kind, euler, seed)
    return mobod.get_q(state), mobilizer_functions(mobod, state)


def broken(kind, euler=False, **replace):
    """The report on ``kind``'s functions with some replaced; each replacement is a
    function of the original callables."""
    q, f = functions(kind, euler)
    return check_mobilizer_functions(f"broken {kind}", dataclasses.replace(
        f, **{name: make(f) for name, make in replace.items()}), q)


def gimbal_h_wrong(f):
    """H with a constant 0.05 added to one entry."""
    def hinge(q):
        H = np.array(f.hinge(q))
        H[1, 2] += 0.05
        return H
    return hinge


def assert_named(report: MobilizerCheck, method: str):
    assert report.failing_methods() == [method], str(report)
    with pytest.raises(MobilizerCheckError) as info:
        report.assert_ok()
    assert str(info.value).startswith("broken")
    assert f": {method} " in str(info.value).splitlines()[0]
    assert "off by" in str(info.value) or "raised" in str(info.value)
    assert "FAIL" in str(report)


def test_wrong_h_is_named():
    """A wrong H whose own transpose and fit are consistent with it: only H is charged,
    with the note that N and N⁻¹ wrong alike would look the same."""
    report = broken("Gimbal", hinge=gimbal_h_wrong,
                    hinge_transpose=lambda f: lambda q, F: gimbal_h_wrong(f)(q).T @ F,
                    fit_u=lambda f: lambda q, V: np.linalg.lstsq(gimbal_h_wrong(f)(q), V,
                                                                 rcond=None)[0])
    assert_named(report, H_MATRIX)
    assert len(report.entries_for(H_MATRIX)) == 2
    assert any("N and N⁻¹ are both wrong" in n for n in report.notes)


def test_wrong_h_dot_is_named_with_its_size():
    report = broken("Universal", hinge_dot_times=lambda f: lambda q, u: 1.03 * np.asarray(
        f.hinge_dot_times(q, u)))
    assert_named(report, H_DOT)
    (entry,) = [e for e in report.failures]
    assert 0.01 < entry.relative < 0.05
    assert "disagrees with d/dt (H u)" in entry.message()


@pytest.mark.parametrize("kind, euler", [("Ball", False), ("Ball", True),
                                         ("LineOrientation", False), ("Free", False)])
def test_wrong_n_is_named(kind, euler):
    """q̇ = 1.01 N u: the rate through N and the inverse checks fail, the rate through N⁻¹
    does not (LineOrientation draws its rates from N: all three fail)."""
    report = broken(kind, euler, n=lambda f: lambda q, u: 1.01 * np.asarray(f.n(q, u)))
    assert_named(report, N_MATRIX)


@pytest.mark.parametrize("kind, euler", [("Ball", False), ("Ball", True), ("Free", False)])
def test_wrong_n_inverse_is_named(kind, euler):
    report = broken(kind, euler, n_inv=lambda f: lambda q, qd: 1.01 * np.asarray(
        f.n_inv(q, qd)))
    assert_named(report, N_INVERSE)


def test_inconsistent_transpose_is_named():
    def transpose(f):
        return lambda q, F: np.asarray(f.hinge_transpose(q, F)) + np.r_[0.0, 0.02, 0.0]
    assert_named(broken("Ball", hinge_transpose=transpose), H_TRANSPOSE)


def test_wrong_fits_are_named():
    assert_named(broken("Free", fit_q=lambda f: lambda R, p: np.asarray(f.fit_q(R, p))
                        + 0.01), FIT_Q)
    assert_named(broken("Planar", fit_u=lambda f: lambda q, V: np.asarray(f.fit_u(q, V))
                        * np.r_[1.0, 1.0, 0.98]), FIT_U)


def test_a_transform_that_is_not_a_rotation_is_named():
    def scaled(f):
        return lambda q: (1.001 * np.asarray(f.transform(q)[0]), f.transform(q)[1])
    report = broken("Pin", transform=scaled)
    assert report.failing_methods()[0] == TRANSFORM


def test_a_wrong_transform_fails_every_check_against_it_with_a_note():
    """X_FM(2q) for a Pin: H, the rates through N⁻¹ and the fit all disagree with it."""
    report = broken("Pin", transform=lambda f: lambda q: f.transform(2 * np.asarray(q)))
    assert not report.passed
    assert any("calc_mobilizer_transform_from_q is the one to fix" in n
               for n in report.notes)


def test_a_method_that_raises_is_named():
    def raising(f):
        def hdot(q, u):
            raise ValueError("no HDot here")
        return hdot
    report = broken("Pin", hinge_dot_times=raising)
    assert_named(report, H_DOT)
    assert "raised ValueError" in report.failures[0].message()
    assert "no HDot here" in report.failures[0].message()


def test_a_raising_method_is_found_inside_a_callable_by_its_name():
    """An exception from deep inside a callable is charged to the innermost frame named
    after a mobilizer method (as a Custom implementation's would be)."""
    def multiply_by_n_inv(self, q, qdot):
        raise ZeroDivisionError("singular")

    def through_a_method(f):
        return lambda q, qd: multiply_by_n_inv(object(), q, qd)
    report = broken("Ball", hinge_transpose=lambda f: lambda q, F: through_a_method(f)(
        q, np.zeros(4)))
    assert report.failing_methods() == [N_INVERSE]


# ------------------------------------------------------- Custom and FunctionBased mobilizers
class Radial(kt.MobilizedBody.Custom.Implementation):
    """A slider on a turntable: M turns by q0 about Fz and its origin sits q1 (m) out along
    the turned x axis, p_FM = q1 [cos q0, sin q0, 0]; u = q̇. Its H depends on q, so HDot u =
    [0; 2 u0 u1 (-sin, cos, 0) - q1 u0² (cos, sin, 0)] is not zero."""

    def __init__(self, matter):
        super().__init__(matter, 2, 2, 1)

    def _cs(self, state):
        q0 = self.get_q(state)[0]
        return math.cos(q0), math.sin(q0), self.get_q(state)[1]

    def calc_mobilizer_transform_from_q(self, state, q):
        c, s = math.cos(q[0]), math.sin(q[0])
        return kt.Transform(kt.Rotation.about_z(q[0]), [q[1] * c, q[1] * s, 0.0])

    def h_columns(self, state):
        c, s, r = self._cs(state)
        return np.array([[0, 0], [0, 0], [1, 0], [-s * r, c], [c * r, s], [0, 0]], float)

    def multiply_by_h_matrix(self, state, u):
        return self.h_columns(state) @ u

    def multiply_by_h_transpose(self, state, F):
        c, s, r = self._cs(state)
        return np.array([F[2] - s * r * F[3] + c * r * F[4], c * F[3] + s * F[4]])

    def multiply_by_h_dot_matrix(self, state, u):
        c, s, r = self._cs(state)
        return np.r_[0, 0, 0, 2 * u[0] * u[1] * np.r_[-s, c, 0] - r * u[0] ** 2 * np.r_[c, s, 0]]

    def multiply_by_h_dot_transpose(self, state, F):
        c, s, r = self._cs(state)
        u = self.get_u(state)
        turn = u[1] * np.r_[-s, c, 0] - r * u[0] * np.r_[c, s, 0]
        return np.array([turn @ F[3:], u[0] * np.r_[-s, c, 0] @ F[3:]])

    def set_q_to_fit_transform(self, state, X_FM):
        R = X_FM.R.as_matrix()
        q0 = math.atan2(R[1, 0], R[0, 0])
        return np.array([q0, X_FM.p[0] * math.cos(q0) + X_FM.p[1] * math.sin(q0)])


class WrongH(Radial):
    """H's slider column tilts out of the plane (its transpose agrees, its fit is the
    default least squares on H)."""

    def h_columns(self, state):
        H = super().h_columns(state)
        H[5, 1] = 0.05
        return H

    def multiply_by_h_transpose(self, state, F):
        return super().multiply_by_h_transpose(state, F) + np.r_[0.0, 0.05 * F[5]]


class WrongHDot(Radial):
    """HDot u without its centripetal term -q1 u0² (cos, sin, 0)."""

    def multiply_by_h_dot_matrix(self, state, u):
        c, s, _ = self._cs(state)
        return np.r_[0, 0, 0, 2 * u[0] * u[1] * np.r_[-s, c, 0]]


class InconsistentTranspose(Radial):
    """Hᵀ F without the factor q1 in the turning column."""

    def multiply_by_h_transpose(self, state, F):
        c, s, _ = self._cs(state)
        return np.array([F[2] - s * F[3] + c * F[4], c * F[3] + s * F[4]])


class WrongFit(Radial):
    """Takes q1 from p_FM's x alone, forgetting the turn."""

    def set_q_to_fit_transform(self, state, X_FM):
        return np.r_[super().set_q_to_fit_transform(state, X_FM)[0], X_FM.p[0]]


class QuaternionBall(kt.MobilizedBody.Custom.Implementation):
    """A ball on a quaternion (n_angles=4, three angles in Euler mode), u = w_FM in F, N
    from the built-in Ball's kinematics."""

    n_factor = 1.0

    def __init__(self, matter):
        super().__init__(matter, 3, 4, 4)

    def calc_mobilizer_transform_from_q(self, state, q):
        return kt.Transform(kt.Rotation(ball_kinematics.rotation_of(np.array(q))))

    def multiply_by_h_matrix(self, state, u):
        return np.r_[u, 0, 0, 0]

    def multiply_by_h_transpose(self, state, F):
        return np.array(F[:3])

    def multiply_by_h_dot_matrix(self, state, u):
        return np.zeros(6)

    def multiply_by_h_dot_transpose(self, state, F):
        return np.zeros(3)

    def _matrix(self, state, rate, n_in, n_out):
        q = np.array(self.get_q(state))
        M = np.zeros((n_out, n_in))
        for j, e in enumerate(np.eye(n_in)):
            rate(q, e, M[:, j])
        return M

    def multiply_by_n(self, state, transpose, in_):
        nq = self.get_q(state).size
        N = self.n_factor * self._matrix(state, ball_kinematics.rate, 3, nq)
        return (N.T if transpose else N) @ np.asarray(in_, dtype=float)

    def multiply_by_n_inv(self, state, transpose, in_):
        nq = self.get_q(state).size
        N_inv = self._matrix(state, ball_kinematics.rate_inverse, nq, 3)
        return (N_inv.T if transpose else N_inv) @ np.asarray(in_, dtype=float)

    def multiply_by_n_dot(self, state, transpose, in_):
        """Ṅ in_ along q̇ = N u, by a central difference (not checked here)."""
        q, u, h = np.array(self.get_q(state)), np.array(self.get_u(state)), 1e-6
        qdot, plus, minus = np.zeros(q.size), np.zeros(q.size), np.zeros(q.size)
        ball_kinematics.rate(q, u, qdot)
        ball_kinematics.rate(q + h * qdot, np.asarray(in_, dtype=float), plus)
        ball_kinematics.rate(q - h * qdot, np.asarray(in_, dtype=float), minus)
        return self.n_factor * (plus - minus) / (2 * h)


class WrongN(QuaternionBall):
    """q̇ = 1.01 N u: N⁻¹ (still right) no longer inverts it."""

    n_factor = 1.01


def custom(implementation, euler=False, q=None):
    """``implementation`` as a Custom body on a Pin, at a random or given q."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0.2, 0.3], kt.Inertia(1.0)))
    base = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([0, 1, 0]), body,
                                kt.Transform([0.2, 0, 0]))
    mobod = kt.MobilizedBody.Custom(base, kt.Transform(kt.Rotation.about_y(0.4), [0.1, 0, 0]),
                                    body, kt.Transform([0.3, -0.1, 0.2]),
                                    implementation(matter))
    state = system.realize_topology()
    matter.set_use_euler_angles(state, euler)
    system.realize_model(state)
    state.set_q(np.random.default_rng(5).uniform(-1.0, 1.0, len(state.get_q())))
    if q is not None:
        mobod.set_q(state, q)
    return mobod, state


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
@pytest.mark.parametrize("implementation", [Radial, QuaternionBall])
def test_correct_custom_mobilizers_pass(implementation, euler):
    mobod, state = custom(implementation, euler, [0.6, 0.8] if implementation is Radial
                          else None)
    report = kt.check_mobilizer(mobod, state).assert_ok()
    assert not report.entries_for(H_DOT)[0].vacuous or implementation is QuaternionBall


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
def test_function_based_and_custom_bodies_of_a_mixed_tree_pass(euler):
    """Two FunctionBased joints (one on splines, one coupling two coordinates through
    several Functions) and a Custom, deep in a tree."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0.2, 0.3], kt.Inertia(1.0)))
    x = np.linspace(-2.0, 2.0, 9)
    zero, linear = kt.Function.Constant(0.0, 0), kt.Function.Linear([1.0, 0.0])
    knee = kt.MobilizedBody.FunctionBased(
        matter.Ground(), kt.Transform([0, 1, 0]), body, kt.Transform([0, 0.4, 0]), 1,
        [zero, zero, linear, kt.Function.Spline(x, 0.02 * np.sin(2 * x)),
         kt.Function.Spline(x, -0.01 * x + 0.03 * x**2), zero], [[], [], [0], [0], [0], []])
    ball_body = kt.MobilizedBody.Custom(knee, kt.Transform([0.1, 0, 0]), body, kt.Transform(),
                                        QuaternionBall(matter))
    coupled = kt.MobilizedBody.FunctionBased(
        ball_body, kt.Transform(kt.Rotation.about_x(0.3), [0, 0.2, 0]), body,
        kt.Transform([0, 0, 0.3]), 2,
        [linear, kt.Function.Polynomial([0.3, -0.2, 0.1]), kt.Function.Linear([0.5, 0.0]),
         kt.Function.Sinusoid(0.1, 2.0, 0.3), zero, kt.Function.Linear([0.2, -0.1, 0.0])],
        [[0], [1], [1], [0], [], [0, 1]],
        [[1, 0, 0], [0, 1, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0], [0, 0, 1]])
    state = system.realize_topology()
    matter.set_use_euler_angles(state, euler)
    system.realize_model(state)
    state.set_q(np.random.default_rng(2).uniform(-1.0, 1.0, len(state.get_q())))
    for mobod in (knee, ball_body, coupled):
        kt.check_mobilizer(mobod, state).assert_ok()


@pytest.mark.parametrize("implementation, method", [
    (WrongH, H_MATRIX), (WrongHDot, H_DOT), (InconsistentTranspose, H_TRANSPOSE),
    (WrongFit, FIT_Q)])
def test_broken_custom_mobilizers_are_named(implementation, method):
    mobod, state = custom(implementation, q=[0.6, 0.8])
    report = kt.check_mobilizer(mobod, state)
    assert report.failing_methods() == [method], str(report)
    label = f"Custom: {implementation.__name__}\\): {method} "
    with pytest.raises(MobilizerCheckError, match=label):
        report.assert_ok()
    assert "the methods of this built-in" not in str(report)


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
def test_a_custom_wrong_n_is_named(euler):
    mobod, state = custom(WrongN, euler)
    report = kt.check_mobilizer(mobod, state)
    assert report.failing_methods() == [N_MATRIX], str(report)
    assert report.entries_for(H_MATRIX)[0].passed     # the rate through N⁻¹ agrees


def test_an_exception_in_a_custom_method_is_named():
    class Raises(Radial):
        def multiply_by_h_transpose(self, state, F):
            raise ZeroDivisionError("oops")
    mobod, state = custom(Raises, q=[0.6, 0.8])
    report = kt.check_mobilizer(mobod, state)
    assert report.failing_methods() == [H_TRANSPOSE]
    assert "raised ZeroDivisionError" in str(report)
