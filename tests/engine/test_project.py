"""Projection onto the constraints has one definition (``engine/project.py``): the compiled
projection a run of steps makes and ``System.project`` in Python take the same Newton
steps to the same q and u, and a model whose constraint or mobilizer is written in
Python (its rows of G, its N, answered between compiled calls) projects as its built-in
twin does."""

import runpy
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.engine.project import PROJECTED, project_y
from kinetree.errors import KinetreeError

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
    scratch = np.empty((3, y.size))
    status = project_y(plan.model, plan.data, plan.realize_address, y, scratch, TOLERANCE,
                       True)
    assert status == PROJECTED
    np.testing.assert_array_equal(y, state.get_y())
    system.realize(state, kt.Stage.VELOCITY)
    assert np.abs(state.get_q_err()).max() <= TOLERANCE
    assert np.abs(state.get_u_err()).max() <= TOLERANCE


@pytest.mark.parametrize("python_constraint,half_angle", [(True, False), (False, True),
                                                          (True, True)])
def test_python_constraints_and_mobilizers_project_as_their_built_in_twins(
        python_constraint, half_angle):
    """The Python constraint's rows of G and the custom mobilizer's N come from Python
    between the compiled steps of the projection: the same Newton steps as the built-in
    model, to the same angles and speeds."""
    system, state, _ = tied_chain()
    twin_system, twin, _ = tied_chain(python_constraint, half_angle)
    report = system.project(state, TOLERANCE)["SimbodyMatterSubsystem"]
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
