"""Projection onto the constraints has one definition (``engine/project.py``): the compiled
projection a run of steps makes and ``System.project`` in Python take the same Newton
steps to the same q and u, and a model whose constraint or mobilizer is written in
Python (its rows of G, its N and N⁻¹, answered between compiled calls) projects as its
built-in twin does. The steps are Simbody's: q moves least in the q-space norm weighted
by the u weights, checked against Newton's method on finite-difference Jacobians in numpy;
u moves least relative to max(|u|, 1/weight)."""

import runpy
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.engine.project import DO_Q, DO_U, PROJECTED, project_y
from kinetree.errors import InvalidArgumentError, KinetreeError

ExampleConstraint = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" /
                                       "custom_constraint.py"))["ExampleConstraint"]
TOLERANCE = 1e-10


class PythonRod(ExampleConstraint):
    """Constraint.Rod between two body origins, in Python: the example's constraint with
    perr = |r| - d instead of (r·r - d²)/2, r from body1's origin to body2's, and its
    force λ r̂ on body2 (and -λ r̂ on body1)."""

    def _v(self, state):
        return (self.get_body_origin_velocity_from_state(state, self.body2)
                - self.get_body_origin_velocity_from_state(state, self.body1))

    def calc_position_errors(self, state, X_AB, constrained_q, perr):
        r = (self.get_body_origin_location(X_AB, self.body2)
             - self.get_body_origin_location(X_AB, self.body1))
        perr[0] = np.linalg.norm(r) - self.distance

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr):
        v = (self.get_body_origin_velocity(V_AB, self.body2)
             - self.get_body_origin_velocity(V_AB, self.body1))
        r = self._r(state)
        pverr[0] = v @ r / np.linalg.norm(r)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr):
        a = (self.get_body_origin_acceleration(A_AB, self.body2)
             - self.get_body_origin_acceleration(A_AB, self.body1))
        r, v = self._r(state), self._v(state)
        length = np.linalg.norm(r)
        along = v @ r / length
        paerr[0] = a @ r / length + (v @ v - along * along) / length

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces):
        r = self._r(state)
        force = multipliers[0] * r / np.linalg.norm(r)
        self.add_in_station_force(state, self.body2, np.zeros(3), force, body_forces_in_A)
        self.add_in_station_force(state, self.body1, np.zeros(3), -force, body_forces_in_A)


class HalfAnglePin(kt.MobilizedBody.Custom.Implementation):
    """A pin about z whose q is twice its angle: u = θ̇ and q̇ = N u with N = 2, so a
    projection's Newton step dq = N Δu needs this mobilizer's N."""

    def __init__(self, matter):
        super().__init__(matter, 1, 1, 0)

    def calc_mobilizer_transform_from_q(self, state, q):
        return kt.Transform(kt.Rotation.about_z(q[0] / 2), np.zeros(3))

    def multiply_by_h_matrix(self, state, u):
        return np.array([0.0, 0.0, u[0], 0.0, 0.0, 0.0])

    def multiply_by_h_transpose(self, state, F):
        return np.array([F[2]])

    def multiply_by_h_dot_matrix(self, state, u):
        return np.zeros(6)

    def multiply_by_h_dot_transpose(self, state, F):
        return np.zeros(1)

    def multiply_by_n(self, state, transpose, in_):
        return 2.0 * np.asarray(in_, dtype=float)

    def multiply_by_n_inv(self, state, transpose, in_):
        return 0.5 * np.asarray(in_, dtype=float)

    def multiply_by_n_dot(self, state, transpose, in_):
        return np.zeros(1)


def tied_chain(python_constraint=False, half_angle=False):
    """(system, state, the constraint): four pinned links in the plane, the second a
    HalfAnglePin when ``half_angle``, the tip's origin held at its distance from Ground's
    origin by a Rod (or, when ``python_constraint``, the same rod in Python); q moved off
    the constraint and u given."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, -0.2, 0], kt.Inertia(0.06, 0.01, 0.06)))
    body = matter.Ground()
    for i in range(4):
        X_PF = kt.Transform([0.0, -0.4, 0.0] if i else [0.0, 0.0, 0.0])
        if half_angle and i == 1:
            body = kt.MobilizedBody.Custom(body, X_PF, link, kt.Transform(),
                                           HalfAnglePin(matter))
        else:
            body = kt.MobilizedBody.Pin(body, X_PF, link, kt.Transform())
    angles = np.array([0.3, -0.5, 0.4, 0.7])
    state = system.realize_topology()
    state.set_q(angles * [1, 2, 1, 1] if half_angle else angles)
    system.realize(state, kt.Stage.POSITION)
    length = float(np.linalg.norm(body.get_body_origin_location(state)))
    if python_constraint:
        rod = kt.Constraint.Custom(PythonRod(matter.Ground(), body, length))
    else:
        rod = kt.Constraint.Rod(matter.Ground(), [0, 0, 0], body, [0, 0, 0], length)
    state = system.realize_topology()
    moved = angles + [0.02, -0.03, 0.05, 0.04]
    state.set_q(moved * [1, 2, 1, 1] if half_angle else moved)
    state.set_u([0.5, -1.0, 0.8, 0.3])
    return system, state, rod


def angles_and_speeds(state, half_angle=False):
    q = np.array(state.get_q())
    return np.concatenate([q / [1, 2, 1, 1] if half_angle else q, state.get_u()])


def test_the_compiled_projection_is_system_project_to_the_bit():
    system, state, _ = tied_chain()
    compiled = state.copy()
    report = system.project(state, TOLERANCE)
    assert report["SimbodyMatterSubsystem"]["q_iterations"] >= 2

    system.realize(compiled, kt.Stage.INSTANCE)
    plan = system._plan_of(compiled)
    y = np.array(compiled.get_y())
    status = project_y(plan.model, plan.data, plan.realize_address, y, TOLERANCE,
                       DO_Q | DO_U)
    assert status == PROJECTED
    np.testing.assert_array_equal(y, state.get_y())
    system.realize(state, kt.Stage.VELOCITY)
    assert np.abs(state.get_q_err()).max() <= TOLERANCE
    assert np.abs(state.get_u_err()).max() <= TOLERANCE


@pytest.mark.parametrize("python_constraint,half_angle", [(True, False), (False, True),
                                                          (True, True)])
def test_python_constraints_and_mobilizers_project_as_their_built_in_twins(
        python_constraint, half_angle):
    """The Python constraint's rows of G and the custom mobilizer's N and N⁻¹ come from
    Python between the compiled steps of the projection: the same Newton steps as the
    built-in model, to the same angles and speeds. The half-angle pin's q moves twice its
    angle, so in the q-space norm its angle weighs as a built-in pin's whose u weight is 2
    (N⁻¹ Wu⁻¹ the same)."""
    system, state, _ = tied_chain()
    twin_system, twin, _ = tied_chain(python_constraint, half_angle)
    y_weights = np.ones(state.get_num_y())
    if half_angle:
        y_weights[state.get_num_q() + 1] = 2.0
    report = system.project(state, TOLERANCE, y_weights)["SimbodyMatterSubsystem"]
    twin_report = twin_system.project(twin, TOLERANCE)["SimbodyMatterSubsystem"]
    assert twin_report["q_iterations"] == report["q_iterations"] >= 2
    assert twin_report["u_change"] > 0.1
    np.testing.assert_allclose(angles_and_speeds(twin, half_angle),
                               angles_and_speeds(state), rtol=0, atol=1e-12)
    twin_system.realize(twin, kt.Stage.VELOCITY)
    assert np.abs(twin.get_q_err()).max() <= TOLERANCE
    assert np.abs(twin.get_u_err()).max() <= TOLERANCE


@pytest.mark.parametrize("python_constraint", [False, True])
def test_a_projection_that_cannot_succeed_names_the_constraint_and_keeps_q(
        python_constraint):
    """A rod longer than the chain can reach: the Newton steps stall, the error names the
    constraint, and the State keeps a q no worse than the one it had."""
    system, state, rod = tied_chain(python_constraint)
    rod_length = 5.0
    if python_constraint:
        rod.get_implementation().distance = rod_length
    else:
        rod.set_default_rod_length(rod_length)
        state = system.realize_topology()
        state.set_q([0.32, -0.53, 0.45, 0.74])
    system.realize(state, kt.Stage.POSITION)
    before = float(np.abs(state.get_q_err()).max())
    with pytest.raises(KinetreeError, match=r"Newton steps \(largest in .*\)"):
        system.project(state, TOLERANCE)
    system.realize(state, kt.Stage.POSITION)
    assert 0.0 < float(np.abs(state.get_q_err()).max()) <= before


def ball_loop():
    """(system, state): a loop of a Pin from Ground, a Ball on it and a second Pin from
    Ground, the Ball's body and the second Pin's held by a Rod shorter than their
    distance. The Ball's q is a quaternion, q̇ = N(q) u with N 4 x 3."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1, 0.02, 0.1)))
    b1 = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform([0, 0.5, 0]))
    b2 = kt.MobilizedBody.Ball(b1, kt.Transform([0, -0.5, 0]), link, kt.Transform([0, 0.5, 0]))
    b3 = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([1.0, 0, 0]), link,
                              kt.Transform([0, 0.5, 0]))
    kt.Constraint.Rod(b2, [0, -0.5, 0], b3, [0, -0.5, 0], 0.8)
    state = system.realize_topology()
    b1.set_one_q(state, 0, 0.3)
    b2.set_q_to_fit_rotation(state, kt.Rotation.about_axis(0.7, [1, 2, 0.5]))
    b3.set_one_q(state, 0, -0.2)
    return system, state


def qerr_at(system, state, q):
    work = state.copy()
    work.set_q(q)
    system.realize(work, kt.Stage.POSITION)
    return np.array(work.get_q_err())


def newton_in_q(system, state, q_weights):
    """Simbody's q projection written out in numpy: each step the Δq of least |W Δq|
    with Pq Δq = -qerr (Pq = ∂qerr/∂q by central differences; qerr's last entry the
    quaternion's |q| - 1), the quaternion then normalized, until the RMS of qerr is below
    1e-11."""
    q = np.array(state.get_q())
    h = 1e-6
    for _ in range(20):
        qerr = qerr_at(system, state, q)
        if np.sqrt(np.mean(qerr ** 2)) <= 1e-11:
            return q
        Pq = np.column_stack([(qerr_at(system, state, q + h * e)
                               - qerr_at(system, state, q - h * e)) / (2 * h)
                              for e in np.eye(q.size)])
        q = q - np.linalg.pinv(Pq / q_weights) @ qerr / q_weights
        q[1:5] /= np.linalg.norm(q[1:5])
    raise AssertionError("the numpy Newton iteration did not converge")


def test_q_moves_least_in_the_weighted_q_space_norm_as_simbody_projects():
    """Simbody's projection moves q least in q itself (|Wu N⁺ Δq|): a quaternion's q
    moves half the angle its body turns, so the Ball turns further than the smallest
    Δu would turn it. The pose is the one numpy's Newton iteration in q reaches; the
    smallest Δu lands some 0.06 away. A u weight of 5 on the first Pin (N = 1) is a q
    weight of 5 there, and moves the pose by 0.07."""
    system, state = ball_loop()
    expected = newton_in_q(system, state, np.ones(state.get_num_q()))
    projected = state.copy()
    report = system.project(projected, TOLERANCE)["SimbodyMatterSubsystem"]
    assert report["q_iterations"] >= 3
    np.testing.assert_allclose(projected.get_q(), expected, rtol=0, atol=1e-10)

    matter = system.get_matter_subsystem()
    smallest_du = state.copy()
    for _ in range(20):
        system.realize(smallest_du, kt.Stage.VELOCITY)
        G = matter.calc_g(smallest_du)
        du = -np.linalg.pinv(G) @ np.array(smallest_du.get_q_err())[:1]
        q = np.array(smallest_du.get_q()) + matter.multiply_by_n(smallest_du, False, du)
        q[1:5] /= np.linalg.norm(q[1:5])
        smallest_du.set_q(q)
    assert np.max(np.abs(np.array(smallest_du.get_q()) - expected)) > 0.05

    q_weights = np.ones(state.get_num_q())
    q_weights[0] = 5.0
    weighted = newton_in_q(system, state, q_weights)
    y_weights = np.ones(state.get_num_y())
    y_weights[state.get_num_q()] = 5.0
    system.project(state, TOLERANCE, y_weights)
    np.testing.assert_allclose(state.get_q(), weighted, rtol=0, atol=1e-10)
    assert np.max(np.abs(weighted - expected)) > 0.05


def test_u_moves_least_relative_to_its_size_and_the_error_weights_choose_what_counts():
    """The velocity step is the least change scaled by Eu = max(|u|, 1/weight), as
    Simbody's: for the Rod's linear velocity constraint one step, Δu = -M Gᵀ (G M Gᵀ)⁻¹
    uerr with M = Eu², G by differences of uerr. And the constraint tolerances decide
    whether the errors count: an error of about 1e-8 stays under a tolerance of 1e-6
    unless its unit is 1e-9."""
    system, state = ball_loop()
    system.project(state, TOLERANCE)
    state.set_u([0.4, -3.0, 2.0, 0.5, 0.1])
    system.realize(state, kt.Stage.VELOCITY)
    u = np.array(state.get_u())
    uerr = np.array(state.get_u_err())

    def uerr_at(v):
        work = state.copy()
        work.set_u(v)
        system.realize(work, kt.Stage.VELOCITY)
        return np.array(work.get_u_err())

    G = np.column_stack([uerr_at(u + e) - uerr for e in np.eye(u.size)])
    M = np.diag(np.maximum(np.abs(u), 1.0) ** 2)
    expected = u - M @ G.T @ np.linalg.solve(G @ M @ G.T, uerr)
    report = system.project(state, TOLERANCE)["SimbodyMatterSubsystem"]
    assert report["u_iterations"] == 1
    np.testing.assert_allclose(state.get_u(), expected, rtol=0, atol=1e-12)
    assert np.max(np.abs(expected - (u - G.T @ np.linalg.solve(G @ G.T, uerr)))) > 0.1

    q = np.array(state.get_q())
    q[0] += 2e-8
    state.set_q(q)
    system.realize(state, kt.Stage.POSITION)
    perr = abs(float(state.get_q_err()[0]))
    assert 1e-9 < perr < 1e-7
    untouched = state.copy()
    assert system.project(untouched, 1e-6)["SimbodyMatterSubsystem"]["q_iterations"] == 0
    np.testing.assert_array_equal(untouched.get_q(), q)
    tols = np.ones(state.get_num_q_err() + state.get_num_u_err())
    tols[0] = 1e9
    report = system.project(state, 1e-6, oo_constraint_tols=tols)
    assert report["SimbodyMatterSubsystem"]["q_iterations"] >= 1
    system.realize(state, kt.Stage.POSITION)
    assert abs(state.get_q_err()[0]) * 1e9 <= 0.1 * 1e-6


def test_bad_weights_are_refused_naming_the_argument():
    system, state = ball_loop()
    with pytest.raises(InvalidArgumentError, match="y_weights must be 11"):
        system.project(state, TOLERANCE, y_weights=np.ones(3))
    with pytest.raises(InvalidArgumentError, match="oo_constraint_tols"):
        system.project(state, TOLERANCE, oo_constraint_tols=-np.ones(2))
