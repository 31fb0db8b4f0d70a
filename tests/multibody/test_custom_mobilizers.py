"""MobilizedBody.Custom and MobilizedBody.FunctionBased against the built-in mobilizers
they reproduce, against the mass-matrix dynamics, and against finite differences."""

import runpy
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError
from kinetree.multibody.mobilizers import ball

RNG_SEED = 6
H_STEP = 1e-6

CustomTranslation = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" /
                                       "custom_translation.py"))["CustomTranslation"]
"""Seed 000 §2.5's mobilizer, as the example writes it."""


class CustomBall(kt.MobilizedBody.Custom.Implementation):
    """A ball joint on a quaternion (n_angles=4): u = w_FM in F, so H = [1; 0]; in Euler
    mode the first three q are body-fixed x-y-z angles."""

    def __init__(self, matter):
        super().__init__(matter, 3, 4, 4)

    def calc_mobilizer_transform_from_q(self, state, q):
        return kt.Transform(kt.Rotation(ball.rotation_of(np.array(q))), np.zeros(3))

    def multiply_by_h_matrix(self, state, u):
        return np.concatenate([u, np.zeros(3)])

    def multiply_by_h_transpose(self, state, F):
        return np.array(F[:3])

    def multiply_by_h_dot_matrix(self, state, u):
        return np.zeros(6)

    def multiply_by_h_dot_transpose(self, state, F):
        return np.zeros(3)

    def _apply(self, state, transpose, in_, rate):
        """N in_ (``rate`` = ball.rate) or N⁻¹ in_ (ball.rate_inverse), or the transposed
        product, built column by column."""
        q = np.array(self.get_q(state))
        n_in, n_out = (3, q.size) if rate is ball.rate else (q.size, 3)
        M = np.zeros((n_out, n_in))
        for j, e in enumerate(np.eye(n_in)):
            rate(q, e, M[:, j])
        return (M.T if transpose else M) @ np.asarray(in_, dtype=float)

    def multiply_by_n(self, state, transpose, in_):
        return self._apply(state, transpose, in_, ball.rate)

    def multiply_by_n_inv(self, state, transpose, in_):
        return self._apply(state, transpose, in_, ball.rate_inverse)

    def multiply_by_n_dot(self, state, transpose, in_):
        """Ṅ in_ along q̇ = N u: exact for the quaternion (N is linear in q), a central
        difference for the angles."""
        q, u = np.array(self.get_q(state)), np.array(self.get_u(state))
        w = np.asarray(in_, dtype=float)
        qdot, plus, minus = np.zeros(q.size), np.zeros(q.size), np.zeros(q.size)
        ball.rate(q, u, qdot)
        if q.size == 4:
            ball.quaternion_rate(qdot, w, plus)
            return plus
        ball.rate(q + H_STEP * qdot, w, plus)
        ball.rate(q - H_STEP * qdot, w, minus)
        return (plus - minus) / (2 * H_STEP)


def point_body(m=1.3):
    return kt.Body.Rigid(kt.MassProperties(m, [0.1, -0.2, 0.05],
                                           kt.Inertia(0.3, 0.4, 0.5, 0.01, -0.02, 0.03)))


def linear(slope=1.0):
    return kt.Function.Linear([slope, 0.0])


def zero():
    return kt.Function.Constant(0.0, 0)


X_PF = kt.Transform(kt.Rotation.about_x(0.3), [0.1, 0.2, -0.3])
X_BM = kt.Transform(kt.Rotation.about_y(-0.4), [0.0, 0.4, 0.1])


def two_trees(make_a, make_b, euler=False):
    """The same three-body chain twice: body 1 by make_a / make_b, then a Pin, then
    make_a / make_b again; gravity."""
    out = []
    for make in (make_a, make_b):
        system = kt.MultibodySystem()
        matter = kt.SimbodyMatterSubsystem(system)
        forces = kt.GeneralForceSubsystem(system)
        kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
        b1 = make(matter, matter.Ground())
        b2 = kt.MobilizedBody.Pin(b1, X_PF, point_body(0.7), X_BM)
        make(matter, b2)
        state = system.realize_topology()
        matter.set_use_euler_angles(state, euler)
        system.realize(state, kt.Stage.MODEL)
        out.append((system, matter, state))
    return out


def random_state(pairs, rng):
    """Same random q (unnormalized quaternions allowed) and u in both States."""
    (_, m0, s0), (_, m1, s1) = pairs
    q = rng.normal(size=m0.get_q(s0).size)
    u = rng.normal(size=m0.get_u(s0).size)
    for m, s in ((m0, s0), (m1, s1)):
        m.upd_q(s)[:] = q
        m.upd_u(s)[:] = u


def udots(pairs):
    out = []
    for system, matter, state in pairs:
        system.realize(state, kt.Stage.ACCELERATION)
        out.append(np.array(matter.get_u_dot(state)))
    return out


def custom_translation(matter, parent):
    return kt.MobilizedBody.Custom(parent, X_PF, point_body(), X_BM, CustomTranslation(matter))


def builtin_translation(matter, parent):
    return kt.MobilizedBody.Translation(parent, X_PF, point_body(), X_BM)


def test_custom_translation_moves_as_translation():
    pairs = two_trees(custom_translation, builtin_translation)
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(4):
        random_state(pairs, rng)
        a, b = udots(pairs)
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
        for (_, matter, state) in pairs:
            assert np.all(np.isfinite(matter.get_q_dot_dot(state)))
        np.testing.assert_allclose(pairs[0][1].get_q_dot_dot(pairs[0][2]),
                                   pairs[1][1].get_q_dot_dot(pairs[1][2]), atol=1e-12)


def test_custom_translation_simulates_as_translation():
    pairs = two_trees(custom_translation, builtin_translation)
    random_state(pairs, np.random.default_rng(RNG_SEED + 1))
    finals = []
    for system, _matter, state in pairs:
        integ = kt.RungeKuttaMersonIntegrator(system)
        integ.set_accuracy(1e-8)
        ts = kt.TimeStepper(system, integ)
        ts.initialize(state)
        ts.step_to(0.5)
        finals.append(np.array(ts.get_state().get_y()))
    np.testing.assert_allclose(finals[0], finals[1], atol=1e-10)


def custom_ball(matter, parent):
    return kt.MobilizedBody.Custom(parent, X_PF, point_body(), X_BM, CustomBall(matter))


def builtin_ball(matter, parent):
    return kt.MobilizedBody.Ball(parent, X_PF, point_body(), X_BM)


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
def test_custom_quaternion_ball_moves_as_ball(euler):
    pairs = two_trees(custom_ball, builtin_ball, euler)
    assert pairs[0][1].get_q(pairs[0][2]).size == (7 if euler else 9)
    rng = np.random.default_rng(RNG_SEED + 2)
    for _ in range(4):
        random_state(pairs, rng)
        a, b = udots(pairs)
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
        np.testing.assert_allclose(pairs[0][1].get_q_dot(pairs[0][2]),
                                   pairs[1][1].get_q_dot(pairs[1][2]), atol=1e-12)


def test_custom_quaternion_is_normalized_by_projection():
    (system, matter, state), _ = two_trees(custom_ball, builtin_ball)
    matter.upd_q(state)[:4] = [2.0, 0.2, -0.4, 0.6]
    system.project(state)
    assert np.linalg.norm(matter.get_q(state)[:4]) == pytest.approx(1.0, abs=1e-14)


FUNCTION_BASED_EQUIVALENTS = {
    "Pin": (1, [zero(), zero(), linear(), zero(), zero(), zero()],
            [[], [], [0], [], [], []]),
    "Slider": (1, [zero(), zero(), zero(), linear(), zero(), zero()],
               [[], [], [], [0], [], []]),
    "Planar": (3, [zero(), zero(), linear(), linear(), linear(), zero()],
               [[], [], [0], [1], [2], []]),
}


@pytest.mark.parametrize("name", sorted(FUNCTION_BASED_EQUIVALENTS))
def test_linear_function_based_equals_builtin(name):
    n, functions, indices = FUNCTION_BASED_EQUIVALENTS[name]

    def function_based(matter, parent):
        return kt.MobilizedBody.FunctionBased(parent, X_PF, point_body(), X_BM, n,
                                              functions, indices)

    def builtin(matter, parent):
        return getattr(kt.MobilizedBody, name)(parent, X_PF, point_body(), X_BM)

    pairs = two_trees(function_based, builtin)
    rng = np.random.default_rng(RNG_SEED + 3)
    for _ in range(4):
        random_state(pairs, rng)
        a, b = udots(pairs)
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_seed_two_coordinate_example():
    """Seed 000 §2.4 as written: rotation about Y by q0, translation along X by q1."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    coefficients = [1.0, 0.0]
    functions = [kt.Function.Constant(0, 0), kt.Function.Linear(coefficients),
                 kt.Function.Constant(0, 0), kt.Function.Linear(coefficients),
                 kt.Function.Constant(0, 0), kt.Function.Constant(0, 0)]
    coord_indices = [[] for _ in range(6)]
    coord_indices[1].append(0)
    coord_indices[3].append(1)
    body = kt.MobilizedBody.FunctionBased(matter.Ground(), point_body(), 2, functions,
                                          coord_indices)
    state = system.realize_topology()
    body.set_q(state, [0.7, -0.3])
    body.set_u(state, [1.1, 0.4])
    system.realize(state, kt.Stage.ACCELERATION)
    X = body.get_mobilizer_transform(state)
    np.testing.assert_allclose(X.R.as_matrix(), kt.Rotation.about_y(0.7).as_matrix(),
                               atol=1e-15)
    np.testing.assert_allclose(X.p, [-0.3, 0, 0], atol=1e-15)
    np.testing.assert_allclose(body.get_mobilizer_velocity(state), [0, 1.1, 0, 0.4, 0, 0],
                               atol=1e-15)
    np.testing.assert_allclose(body.get_q_dot(state), [1.1, 0.4], atol=1e-15)


def knee_splines():
    x = np.linspace(-2.0, 0.5, 9)
    return (kt.Function.Spline(x, 0.02 * np.sin(2 * x)),
            kt.Function.Spline(x, -0.01 * x + 0.03 * x**2))


def mixed_tree():
    """Ground - FunctionBased (one coordinate: a rotation plus spline translations) -
    Custom ball - Slider - FunctionBased (two coordinates coupled) - CustomTranslation."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    sx, sy = knee_splines()
    knee = kt.MobilizedBody.FunctionBased(
        matter.Ground(), X_PF, point_body(), X_BM, 1,
        [zero(), zero(), linear(), sx, sy, zero()], [[], [], [0], [0], [0], []])
    ball_body = kt.MobilizedBody.Custom(knee, X_PF, point_body(0.8), X_BM, CustomBall(matter))
    slider = kt.MobilizedBody.Slider(ball_body, X_PF, point_body(0.6), X_BM)
    coupled = kt.MobilizedBody.FunctionBased(
        slider, X_PF, point_body(0.9), X_BM, 2,
        [linear(), kt.Function.Polynomial([0.3, -0.2, 0.1]), linear(0.5),
         kt.Function.Sinusoid(0.1, 2.0, 0.3), zero(), kt.Function.Linear([0.2, -0.1, 0.0])],
        [[0], [1], [1], [0], [], [0, 1]],
        [[1, 0, 0], [0, 1, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0], [0, 0, 1]])
    tip = kt.MobilizedBody.Custom(coupled, X_PF, point_body(0.5), X_BM,
                                  CustomTranslation(matter))
    kt.Force.MobilityConstantForce(forces, slider, 0, 1.5)
    kt.Force.MobilityConstantForce(forces, tip, 1, -0.7)
    return system, matter, [knee, ball_body, slider, coupled, tip]


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
def test_aba_equals_mass_matrix_dynamics_on_a_mixed_tree(euler):
    system, matter, bodies = mixed_tree()
    state = system.realize_topology()
    matter.set_use_euler_angles(state, euler)
    system.realize(state, kt.Stage.MODEL)
    rng = np.random.default_rng(RNG_SEED + 4)
    for _ in range(3):
        matter.upd_q(state)[:] = rng.uniform(-1, 0.5, size=matter.get_q(state).size)
        matter.upd_u(state)[:] = rng.normal(size=matter.get_u(state).size)
        system.realize(state, kt.Stage.ACCELERATION)
        udot = np.array(matter.get_u_dot(state))
        n, nb = udot.size, matter.get_num_bodies()
        f = np.zeros(n)
        f[4], f[8] = 1.5, -0.7       # the slider's u and the tip's second u
        c = matter.calc_residual_force_ignoring_constraints(state, np.zeros(n),
                                                            np.zeros((nb, 6)), np.zeros(n))
        M = matter.calc_m(state)
        np.testing.assert_allclose(udot, np.linalg.solve(M, f - c), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(matter.multiply_by_m_inv(state, f - c), udot, atol=1e-10)


def _shifted(system, matter, state, q):
    s = state.copy()
    matter.upd_q(s)[:] = q
    system.realize(s, kt.Stage.VELOCITY)
    return s


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
def test_hinge_quantities_are_rates(euler):
    """For every custom body: H u is the rate of X_FM along q̇ = N u, (dH/dt) u the rate
    of H u (u fixed), and Ṅ u the rate of N u."""
    system, matter, bodies = mixed_tree()
    state = system.realize_topology()
    matter.set_use_euler_angles(state, euler)
    system.realize(state, kt.Stage.MODEL)
    rng = np.random.default_rng(RNG_SEED + 5)
    matter.upd_q(state)[:] = rng.uniform(-1, 0.5, size=matter.get_q(state).size)
    matter.upd_u(state)[:] = rng.normal(size=matter.get_u(state).size)
    system.realize(state, kt.Stage.ACCELERATION)
    q, qdot = np.array(matter.get_q(state)), np.array(matter.get_q_dot(state))
    u = np.array(matter.get_u(state))
    plus = _shifted(system, matter, state, q + H_STEP * qdot)
    minus = _shifted(system, matter, state, q - H_STEP * qdot)
    cache = matter.get_tree_data(state, kt.Stage.VELOCITY, "test").cache
    for body in bodies:
        b = body.get_mobilized_body_index()
        Xp, Xm = body.get_mobilizer_transform(plus), body.get_mobilizer_transform(minus)
        X = body.get_mobilizer_transform(state)
        Rdot = (Xp.R.as_matrix() - Xm.R.as_matrix()) / (2 * H_STEP)
        W = Rdot @ X.R.as_matrix().T
        V = body.get_mobilizer_velocity(state)
        np.testing.assert_allclose(V[:3], [W[2, 1], W[0, 2], W[1, 0]], atol=1e-8)
        np.testing.assert_allclose(V[3:], (Xp.p - Xm.p) / (2 * H_STEP), atol=1e-8)
        Vdot = (body.get_mobilizer_velocity(plus) - body.get_mobilizer_velocity(minus)) \
            / (2 * H_STEP)
        np.testing.assert_allclose(cache.hdot_u[b], Vdot, atol=1e-7)
    ndot = (matter.multiply_by_n(plus, False, u)
            - matter.multiply_by_n(minus, False, u)) / (2 * H_STEP)
    udot = np.array(matter.get_u_dot(state))
    np.testing.assert_allclose(matter.get_q_dot_dot(state),
                               matter.multiply_by_n(state, False, udot) + ndot, atol=1e-7)
    n = u.size
    N = np.column_stack([matter.multiply_by_n(state, False, e) for e in np.eye(n)])
    NT = np.column_stack([matter.multiply_by_n(state, True, e)
                          for e in np.eye(q.size)])
    np.testing.assert_allclose(NT, N.T, atol=1e-15)
    N_inv = np.column_stack([matter.multiply_by_n_inv(state, e) for e in np.eye(q.size)])
    np.testing.assert_allclose(N_inv @ N, np.eye(n), atol=1e-12)


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "to-euler"])
def test_fit_methods_round_trip(euler):
    """The default numerical fits (and CustomTranslation's own) recover X_FM and V_FM of a
    quaternion-mode State, into a fresh State in either mode: the conversion between
    quaternions and Euler angles goes through them."""
    system, matter, bodies = mixed_tree()
    state = system.realize_topology()
    rng = np.random.default_rng(RNG_SEED + 6)
    matter.upd_q(state)[:] = rng.uniform(-1, 0.5, size=matter.get_q(state).size)
    matter.upd_u(state)[:] = rng.normal(size=matter.get_u(state).size)
    system.realize(state, kt.Stage.VELOCITY)
    fresh = system.realize_topology()
    matter.set_use_euler_angles(fresh, euler)
    system.realize(fresh, kt.Stage.MODEL)
    knee, ball_body, _, coupled, tip = bodies
    for body in (knee, ball_body, tip):
        body.set_q_to_fit_transform(fresh, body.get_mobilizer_transform(state))
    system.realize(fresh, kt.Stage.POSITION)
    for body in (knee, ball_body, tip):
        assert body.get_mobilizer_transform(fresh).is_same_transform(
            body.get_mobilizer_transform(state), 1e-9)
        body.set_u_to_fit_velocity(fresh, body.get_mobilizer_velocity(state))
    system.realize(fresh, kt.Stage.VELOCITY)
    for body in (knee, ball_body, tip):
        np.testing.assert_allclose(body.get_mobilizer_velocity(fresh),
                                   body.get_mobilizer_velocity(state), atol=1e-9)


def test_function_based_errors_name_the_fix():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    G = matter.Ground()
    with pytest.raises(InvalidArgumentError, match="exactly 6 functions.*Constant"):
        kt.MobilizedBody.FunctionBased(G, point_body(), 1, [linear()] * 5, [[0]] * 5)
    with pytest.raises(InvalidArgumentError, match=r"coord_indices\[2\] holds 1.*0 to 0"):
        kt.MobilizedBody.FunctionBased(G, point_body(), 1,
                                       [zero(), zero(), linear(), zero(), zero(), zero()],
                                       [[], [], [1], [], [], []])
    with pytest.raises(InvalidArgumentError, match=r"functions\[3\] takes 1"):
        kt.MobilizedBody.FunctionBased(G, point_body(), 1,
                                       [zero(), zero(), linear(), linear(), zero(), zero()],
                                       [[], [], [0], [], [], []])
    with pytest.raises(InvalidArgumentError, match=r"coordinate\(s\) \[1\] drive no"):
        kt.MobilizedBody.FunctionBased(G, point_body(), 2,
                                       [zero(), zero(), linear(), zero(), zero(), zero()],
                                       [[], [], [0], [], [], []])
    with pytest.raises(InvalidArgumentError, match=r"functions\[0\] must be a Function"):
        kt.MobilizedBody.FunctionBased(G, point_body(), 1, [0.0] * 6, [[]] * 6)


class WrongH(CustomTranslation):
    def multiply_by_h_matrix(self, state, u):
        return np.array(u)


class NoTransform(kt.MobilizedBody.Custom.Implementation):
    pass


def test_custom_errors_name_the_method():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.MobilizedBody.Custom(matter.Ground(), point_body(), WrongH(matter))
    state = system.realize_topology()
    with pytest.raises(InvalidArgumentError,
                       match=r"WrongH.multiply_by_h_matrix must return 6 numbers"):
        system.realize(state, kt.Stage.POSITION)

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.MobilizedBody.Custom(matter.Ground(), point_body(), NoTransform(matter, 1, 1))
    state = system.realize_topology()
    with pytest.raises(InvalidArgumentError, match="must override "
                                                      "calc_mobilizer_transform_from_q"):
        system.realize(state, kt.Stage.POSITION)

    impl = CustomTranslation(matter)
    kt.MobilizedBody.Custom(matter.Ground(), point_body(), impl)
    with pytest.raises(InvalidArgumentError, match="own implementation"):
        kt.MobilizedBody.Custom(matter.Ground(), point_body(), impl)
    with pytest.raises(InvalidArgumentError, match="subclass MobilizedBody.Custom"):
        kt.MobilizedBody.Custom(matter.Ground(), point_body(), object())
    with pytest.raises(InvalidArgumentError, match="nu <= nq"):
        NoTransform(matter, 3, 2)


class RecordingTranslation(CustomTranslation):
    def __init__(self, matter):
        super().__init__(matter)
        self.calls = []

    def __getattribute__(self, name):
        if name.startswith("realize_"):
            object.__getattribute__(self, "calls").append(name)
        return object.__getattribute__(self, name)


def test_hooks_and_accessors():
    """Every realize hook runs at its stage, POSITION's before X_FM is asked for; the
    accessors read the State's q, u, their rates, X_FM and V_FM."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    impl = RecordingTranslation(matter)
    body = kt.MobilizedBody.Custom(matter.Ground(), X_PF, point_body(), X_BM, impl)
    assert body.get_implementation() is impl
    state = system.realize_topology()
    with pytest.raises(kt.StageTooLowError, match="get_mobilizer_transform"):
        impl.get_mobilizer_transform(state)
    body.set_q(state, [0.1, 0.2, 0.3])
    body.set_u(state, [1.0, -2.0, 0.5])
    system.realize(state, kt.Stage.REPORT)
    assert impl.calls == ["realize_topology", "realize_model", "realize_instance",
                          "realize_time", "realize_position", "realize_velocity",
                          "realize_dynamics", "realize_acceleration", "realize_report"]
    np.testing.assert_array_equal(impl.get_q(state), [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(impl.get_u(state), [1.0, -2.0, 0.5])
    np.testing.assert_array_equal(impl.get_q_dot(state), impl.get_u(state))
    np.testing.assert_array_equal(impl.get_q_dot_dot(state), impl.get_u_dot(state))
    g_F = X_PF.R.as_matrix().T @ [0, -9.81, 0]
    np.testing.assert_allclose(impl.get_u_dot(state), g_F, atol=1e-12)
    np.testing.assert_array_equal(impl.get_mobilizer_transform(state).p, [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(impl.get_mobilizer_velocity(state), [0, 0, 0, 1, -2, 0.5])
    assert impl.get_use_euler_angles(state) is False
    geometry = []
    impl.calc_decorative_geometry_and_append(state, kt.Stage.POSITION, geometry)
    assert geometry == []


def test_n_dot_operator_of_a_custom_quaternion():
    """matter.multiply_by_n_dot takes a custom body's Ṅ v from its implementation."""
    (system, matter, state), _ = two_trees(custom_ball, builtin_ball)
    rng = np.random.default_rng(RNG_SEED + 7)
    matter.upd_q(state)[:] = rng.normal(size=matter.get_q(state).size)
    matter.upd_u(state)[:] = rng.normal(size=matter.get_u(state).size)
    system.realize(state, kt.Stage.VELOCITY)
    q, qdot = np.array(matter.get_q(state)), np.array(matter.get_q_dot(state))
    v = rng.normal(size=matter.get_u(state).size)
    plus = _shifted(system, matter, state, q + H_STEP * qdot)
    minus = _shifted(system, matter, state, q - H_STEP * qdot)
    expected = (matter.multiply_by_n(plus, False, v)
                - matter.multiply_by_n(minus, False, v)) / (2 * H_STEP)
    np.testing.assert_allclose(matter.multiply_by_n_dot(state, v), expected, atol=1e-8)
