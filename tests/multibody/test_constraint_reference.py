"""Constrained dynamics against stored results (data/constraint_reference.npz), so that a
change to the constraint code is checked to round-off: every built-in constraint type and
a custom one, alone and together (with a redundant pair and with a constraint disabled),
on a tree of mixed mobilizers whose two branches hang from a moving body, in a random
state off or on the constraint manifold.

The results were first those of the Python constraint code of commit 9869af2, which the
compiled constraints reproduced to round-off (commit 594d155, constraint forces compared
negated). They were stored again after four deliberate changes to follow Simbody: the
constraint-force getters report Gᵀλ, NoSlip1D's acceleration error is the material
points' accelerations along n, projection tries for a tenth of its tolerance, and its
Newton steps move q least in q-space (the Rod and Custom models' projected q agree with
numpy's Newton steps on finite-difference Jacobians, below; the coincident-point
constraints, whose rows of G differ from perr's Jacobian off the manifold, take
Simbody's steps on G instead)."""

import math
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt

REFERENCE = Path(__file__).parent / "data" / "constraint_reference.npz"
TIME = 0.37
TOL = 1e-12


class Coupling(kt.Function):
    """f(x) = x0 + 0.5 x1 x2 + 0.3 sin(x2) - 0.1: nonlinear in x1 and x2 (so the bias of a
    coordinate coupler is not zero) and linear in x0 and x1 (as a speed coupler's speeds)."""

    def calc_value(self, x):
        return x[0] + 0.5 * x[1] * x[2] + 0.3 * math.sin(x[2]) - 0.1

    def calc_derivative(self, deriv_components, x):
        c = sorted(deriv_components)
        if len(c) == 1:
            return [1.0, 0.5 * x[2], 0.5 * x[1] + 0.3 * math.cos(x[2])][c[0]]
        if c == [1, 2]:
            return 0.5
        if c == [2, 2]:
            return -0.3 * math.sin(x[2])
        return 0.0

    def get_argument_size(self):
        return 3

    def get_max_derivative_order(self):
        return 2


class StretchingRod(kt.Constraint.Custom.Implementation):
    """Station S1 of body 1 and S2 of body 2 held at the distance l = d0 + c q, q the
    coordinate of a one-q mobilizer: perr = (r·r - l²)/2 with r from S1 to S2, so the
    forces are on both bodies and on the coordinate."""

    def __init__(self, body1, p1, body2, p2, mobilizer, d0, c):
        super().__init__(body1.get_matter_subsystem(), 1, 0, 0)
        self.b1, self.p1 = self.add_constrained_body(body1), np.asarray(p1, dtype=float)
        self.b2, self.p2 = self.add_constrained_body(body2), np.asarray(p2, dtype=float)
        self.m = self.add_constrained_mobilizer(mobilizer)
        self.d0, self.c = d0, c

    def _length(self, state):
        return self.d0 + self.c * self.get_one_q_from_state(state, self.m, 0)

    def _r(self, state):
        return (self.find_station_location_from_state(state, self.b2, self.p2)
                - self.find_station_location_from_state(state, self.b1, self.p1))

    def _v(self, state):
        return (self.find_station_velocity_from_state(state, self.b2, self.p2)
                - self.find_station_velocity_from_state(state, self.b1, self.p1))

    def calc_position_errors(self, state, X_AB, constrained_q, perr):
        r = (self.find_station_location(X_AB, self.b2, self.p2)
             - self.find_station_location(X_AB, self.b1, self.p1))
        length = self.d0 + self.c * self.get_one_q(state, constrained_q, self.m, 0)
        perr[0] = (r @ r - length ** 2) / 2

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr):
        v = (self.find_station_velocity(state, V_AB, self.b2, self.p2)
             - self.find_station_velocity(state, V_AB, self.b1, self.p1))
        qdot = self.get_one_q_dot(state, constrained_qdot, self.m, 0)
        pverr[0] = self._r(state) @ v - self._length(state) * self.c * qdot

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr):
        a = (self.find_station_acceleration(state, A_AB, self.b2, self.p2)
             - self.find_station_acceleration(state, A_AB, self.b1, self.p1))
        v, qdot = self._v(state), self.get_one_q_dot_from_state(state, self.m, 0)
        qdotdot = self.get_one_q_dot_dot(state, constrained_qdotdot, self.m, 0)
        paerr[0] = (self._r(state) @ a + v @ v - (self.c * qdot) ** 2
                    - self._length(state) * self.c * qdotdot)

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces):
        force = multipliers[0] * self._r(state)
        self.add_in_station_force(state, self.b2, self.p2, force, body_forces_in_A)
        self.add_in_station_force(state, self.b1, self.p1, -force, body_forces_in_A)
        self.add_in_one_q_force(state, self.m, 0,
                                -multipliers[0] * self._length(state) * self.c, q_forces)


def random_rotation(rng):
    return kt.Rotation.from_body_fixed_xyz(rng.uniform(-np.pi, np.pi, 3))


def random_transform(rng, scale=0.3):
    return kt.Transform(random_rotation(rng), rng.uniform(-scale, scale, 3))


def random_body(rng):
    mass, com = rng.uniform(0.8, 2.0), rng.uniform(-0.15, 0.15, 3)
    central = kt.Inertia(*rng.uniform(0.03, 0.06, 3))
    return kt.Body.Rigid(kt.MassProperties(mass, com,
                                           central.shift_from_mass_center(com, mass)))


def tree(rng):
    """(system, matter, bodies): Ground -Pin-> base; from base a Ball-Universal branch
    (left, left2), a Slider-Pin branch (right, right2) and the crank and rocker of a planar
    four-bar (Pins about base's z, the coupler on a Pin of the crank); a Free floater on
    Ground. Gravity, a global damper and a damper between the branches, so that u̇ depends
    on u."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0.0, -9.81, 0.0])
    kt.Force.GlobalDamper(forces, matter, 0.3)
    M = kt.MobilizedBody
    ground = matter.Ground()
    base = M.Pin(ground, random_transform(rng), random_body(rng), kt.Transform([0, 0.5, 0]))
    left = M.Ball(base, kt.Transform([-0.3, -0.2, 0.1]), random_body(rng),
                  kt.Transform(random_rotation(rng), [0, 0.6, 0]))
    left2 = M.Universal(left, random_transform(rng), random_body(rng),
                        kt.Transform([0, 0.4, 0]))
    right = M.Slider(base, kt.Transform(random_rotation(rng), [0.3, -0.2, 0]),
                     random_body(rng), random_transform(rng))
    right2 = M.Pin(right, random_transform(rng), random_body(rng), kt.Transform([0, 0.5, 0]))
    crank = M.Pin(base, kt.Transform([0, -0.3, 0.2]), random_body(rng),
                  kt.Transform([0, 0.5, 0]))
    coupler = M.Pin(crank, kt.Transform(), random_body(rng), kt.Transform([-0.9, 0, 0]))
    rocker = M.Pin(base, kt.Transform([1.0, -0.3, 0.2]), random_body(rng),
                   kt.Transform([0, 0.6, 0]))
    floater = M.Free(ground, random_transform(rng, 1.0), random_body(rng),
                     random_transform(rng))
    kt.Force.TwoPointLinearDamper(forces, left2, [0.1, 0, 0], right2, [0, 0.1, 0], 2.0)
    bodies = dict(base=base, left=left, left2=left2, right=right, right2=right2, crank=crank,
                  coupler=coupler, rocker=rocker, floater=floater)
    return system, matter, bodies


def station_on(body, s, other, p_other):
    """The station of ``body`` that coincides, in State s, with station p_other of
    ``other``."""
    return body.get_body_transform(s).invert() @ other.find_station_location_in_ground(
        s, p_other)


# Each maker gets (matter, bodies, a State at the pose realized to POSITION, rng) and
# returns the model's constraints, their geometry chosen to hold at that pose.

def rod(matter, b, s, rng):
    p1, p2 = rng.uniform(-0.3, 0.3, (2, 3))
    d = np.linalg.norm(b["right2"].find_station_location_in_ground(s, p2)
                       - b["left2"].find_station_location_in_ground(s, p1))
    return [kt.Constraint.Rod(b["left2"], p1, b["right2"], p2, d)]


def ball(matter, b, s, rng):
    p1 = rng.uniform(-0.3, 0.3, 3)
    return [kt.Constraint.Ball(b["left"], p1, b["right2"], station_on(b["right2"], s,
                                                                       b["left"], p1))]


def weld(matter, b, s, rng):
    X1 = random_transform(rng)
    X2 = b["floater"].get_body_transform(s).invert() @ b["left2"].get_body_transform(s) @ X1
    return [kt.Constraint.Weld(b["left2"], X1, b["floater"], X2)]


def point_in_plane(matter, b, s, rng):
    n, p_F = rng.normal(size=3), rng.uniform(-0.3, 0.3, 3)
    h = station_on(b["right"], s, b["left2"], p_F) @ n / np.linalg.norm(n)
    return [kt.Constraint.PointInPlane(b["right"], n, h, b["left2"], p_F)]


def point_on_line(matter, b, s, rng):
    z, p_F = rng.normal(size=3), rng.uniform(-0.3, 0.3, 3)
    p_P = station_on(b["base"], s, b["left2"], p_F) + 0.4 * z / np.linalg.norm(z)
    return [kt.Constraint.PointOnLine(b["base"], z, p_P, b["left2"], p_F)]


def constant_angle(matter, b, s, rng):
    axis_B, axis_F = rng.normal(size=(2, 3))
    b_G = b["right2"].get_body_rotation(s).as_matrix() @ axis_B / np.linalg.norm(axis_B)
    f_G = b["floater"].get_body_rotation(s).as_matrix() @ axis_F / np.linalg.norm(axis_F)
    return [kt.Constraint.ConstantAngle(b["right2"], axis_B, b["floater"], axis_F,
                                        np.arccos(b_G @ f_G))]


def constant_orientation(matter, b, s, rng):
    R_B = random_rotation(rng)
    R_F = b["right2"].get_body_rotation(s).invert() @ b["left2"].get_body_rotation(s) @ R_B
    return [kt.Constraint.ConstantOrientation(b["left2"], R_B, b["right2"], R_F)]


def no_slip(matter, b, s, rng):
    return [kt.Constraint.NoSlip1D(b["base"], rng.uniform(-0.3, 0.3, 3), rng.normal(size=3),
                                   b["left2"], b["right2"])]


def constant_speed(matter, b, s, rng):
    return [kt.Constraint.ConstantSpeed(b["left2"], 1, 0.7)]


def constant_acceleration(matter, b, s, rng):
    return [kt.Constraint.ConstantAcceleration(b["left"], 2, -1.5),
            kt.Constraint.ConstantAcceleration(b["right"], 2.0)]


def coordinate_coupler(matter, b, s, rng):
    return [kt.Constraint.CoordinateCoupler(matter, Coupling(),
                                            [b["base"], b["right"], b["right2"]], [0, 0, 0])]


def speed_coupler(matter, b, s, rng):
    return [kt.Constraint.SpeedCoupler(matter, Coupling(), [b["left"], b["right2"]], [1, 0],
                                       [b["right"]], [0])]


def prescribed_motion(matter, b, s, rng):
    return [kt.Constraint.PrescribedMotion(matter, kt.Function.Sinusoid(0.3, 2.0, 0.1),
                                           b["left2"], 1)]


def custom(matter, b, s, rng):
    p1, p2 = rng.uniform(-0.3, 0.3, (2, 3))
    c = 0.4
    d0 = np.linalg.norm(b["floater"].find_station_location_in_ground(s, p2)
                        - b["left2"].find_station_location_in_ground(s, p1)) - \
        c * b["right"].get_one_q(s, 0)
    return [kt.Constraint.Custom(StretchingRod(b["left2"], p1, b["floater"], p2, b["right"],
                                               d0, c))]


def together(matter, b, s, rng):
    """The four-bar closed by a Ball (its equation along the pin axes is redundant: G is
    rank-deficient and the multipliers are the minimum-norm ones), a Rod, a NoSlip1D and a
    ConstantAcceleration."""
    four_bar = kt.Constraint.Ball(b["coupler"], [0, 0, 0], b["rocker"],
                                  station_on(b["rocker"], s, b["coupler"], [0, 0, 0]))
    return [four_bar, *rod(matter, b, s, rng), *no_slip(matter, b, s, rng),
            kt.Constraint.ConstantAcceleration(b["right"], -1.0)]


def with_a_disabled_weld(matter, b, s, rng):
    return [*weld(matter, b, s, rng), *ball(matter, b, s, rng),
            *constant_speed(matter, b, s, rng)]


MODELS = {  # name: (maker, project the State first, constraints disabled in the State)
    "Rod": (rod, False, ()),
    "Ball": (ball, True, ()),
    "Weld": (weld, False, ()),
    "PointInPlane": (point_in_plane, True, ()),
    "PointOnLine": (point_on_line, False, ()),
    "ConstantAngle": (constant_angle, True, ()),
    "ConstantOrientation": (constant_orientation, False, ()),
    "NoSlip1D": (no_slip, True, ()),
    "ConstantSpeed": (constant_speed, False, ()),
    "ConstantAcceleration": (constant_acceleration, True, ()),
    "CoordinateCoupler": (coordinate_coupler, True, ()),
    "SpeedCoupler": (speed_coupler, False, ()),
    "PrescribedMotion": (prescribed_motion, False, ()),
    "Custom": (custom, True, ()),
    "together": (together, True, ()),
    "together-unprojected": (together, False, ()),
    "disabled": (with_a_disabled_weld, False, (0,)),
}


def build(name):
    """(system, matter, constraints, state, rng) of model ``name``: the tree at a random
    pose, the constraints made to hold there, then the State moved off it (q by up to 0.03,
    a random u, t = TIME), some constraints disabled and, if the model says so, projected;
    rng goes on to perturb the copy that is projected."""
    maker, project, disabled = MODELS[name]
    rng = np.random.default_rng(list(MODELS).index(name))
    system, matter, bodies = tree(rng)
    pose = system.realize_topology()
    pose.set_q(pose.get_q() + rng.uniform(-0.5, 0.5, pose.get_num_q()))
    system.realize(pose, kt.Stage.POSITION)
    constraints = maker(matter, bodies, pose, rng)
    state = system.realize_topology()
    state.set_time(TIME)
    for k in disabled:
        constraints[k].disable(state)
    state.set_q(pose.get_q() + rng.uniform(-0.03, 0.03, state.get_num_q()))
    state.set_u(rng.uniform(-1.0, 1.0, state.get_num_u()))
    if project:
        system.project(state, TOL)
    return system, matter, constraints, state, rng


def results():
    """Per model (keys "<model>.<quantity>"): the errors, multipliers, u̇ and q̈, G and its
    bias, Gᵀ, the mobilizer reaction forces, the q and u that project_q and project_u make
    of a perturbed copy, and the constraint forces of each constraint and of the
    multipliers."""
    out = {}
    for name in MODELS:
        system, matter, constraints, state, rng = build(name)
        system.realize(state, kt.Stage.ACCELERATION)
        lam = np.array(state.get_multipliers())
        holonomic = state.get_num_q_err() - matter.get_num_quaternions_in_use(state)
        quantities = {
            "q_err": state.get_q_err()[:holonomic], "u_err": state.get_u_err(),
            "u_dot_err": state.get_u_dot_err(), "multipliers": lam,
            "u_dot": state.get_u_dot(), "q_dot_dot": state.get_q_dot_dot(),
            "g": matter.calc_g(state), "g_bias": matter.calc_bias_for_multiply_by_g(state),
            "g_transpose": matter.calc_g_transpose(state),
            "reaction_forces": matter.calc_mobilizer_reaction_forces(state)}
        for k, c in enumerate(constraints):
            quantities[f"constraint{k}.body_forces"] = \
                c.get_constrained_body_forces_as_vector(state)
            quantities[f"constraint{k}.mobility_forces"] = \
                c.get_constrained_mobility_forces_as_vector(state)
        body, mobility = matter.calc_constraint_forces_from_multipliers(state, lam)
        quantities["multiplier_body_forces"] = body
        quantities["multiplier_mobility_forces"] = mobility
        moved = state.copy()
        moved.set_q(state.get_q() + rng.uniform(-0.02, 0.02, state.get_num_q()))
        moved.set_u(state.get_u() + rng.uniform(-0.1, 0.1, state.get_num_u()))
        system.realize(moved, kt.Stage.TIME)
        matter.project_q(moved, TOL)
        system.realize(moved, kt.Stage.POSITION)
        matter.project_u(moved, TOL)
        quantities["projected_q"], quantities["projected_u"] = moved.get_q(), moved.get_u()
        for key, value in quantities.items():
            out[f"{name}.{key}"] = np.array(value, dtype=float)
    return out


def assert_matches(now, reference, keys):
    """Each array to round-off: rtol 1e-9, and atol 1e-10 times the array's largest entry
    (at least 1), since entries near zero carry the round-off of the largest ones."""
    for key in keys:
        scale = max(1.0, np.abs(reference[key]).max(initial=0.0))
        np.testing.assert_allclose(now[key], reference[key], rtol=1e-9, atol=1e-10 * scale,
                                   err_msg=key)


@pytest.fixture(scope="module")
def now():
    return results()


@pytest.fixture(scope="module")
def reference():
    return np.load(REFERENCE)


def test_constrained_dynamics_match_the_reference(now, reference):
    assert set(now) == set(reference.files)
    assert_matches(now, reference, reference.files)


@pytest.mark.parametrize("name", ["Rod", "Custom"])
def test_projected_q_is_newtons_method_in_q(name, now):
    """Where G is perr's Jacobian (a Rod between two stations, the custom stretching rod),
    the projected q of the reference is Newton's method in q with the minimum-norm step,
    Pq = ∂qerr/∂q by central differences (qerr's quaternion rows included), the
    quaternions normalized before and after each step: Simbody's projection."""
    system, matter, _, state, rng = build(name)
    start = state.copy()
    start.set_q(state.get_q() + rng.uniform(-0.02, 0.02, state.get_num_q()))
    system.realize(start, kt.Stage.INSTANCE)
    quaternions = np.array(matter.get_tree_data(start).quaternion_q)
    n_holonomic = start.get_num_q_err() - len(quaternions)

    def qerr_at(q):
        work = start.copy()
        work.set_q(q)
        system.realize(work, kt.Stage.POSITION)
        return np.array(work.get_q_err())

    q = np.array(start.get_q())
    for _ in range(20):
        for block in quaternions:
            q[block] /= np.linalg.norm(q[block])
        qerr = qerr_at(q)
        if np.sqrt(np.mean(qerr[:n_holonomic] ** 2)) <= 0.1 * TOL:
            break
        Pq = np.column_stack([(qerr_at(q + 1e-6 * e) - qerr_at(q - 1e-6 * e)) / 2e-6
                              for e in np.eye(q.size)])
        q -= np.linalg.pinv(Pq) @ qerr
    np.testing.assert_allclose(now[f"{name}.projected_q"], q, rtol=0, atol=1e-10)


def test_qerr_ends_with_the_quaternion_normalization_errors():
    """After the holonomic errors, qerr holds |q| - 1 of each quaternion in use (Simbody's
    NQErr = mp + quaternions), here of the Ball mobilizer's q scaled off unit length."""
    system, matter, constraints, state, rng = build("Rod")
    quaternions = matter.get_num_quaternions_in_use(state)
    assert quaternions == len(matter.get_tree_data(state).quaternion_q) > 0
    q = np.array(state.get_q())
    rows = matter.get_tree_data(state).quaternion_q
    q[rows[0]] *= 1.5 / np.linalg.norm(q[rows[0]])
    state.set_q(q)
    system.realize(state, kt.Stage.POSITION)
    expected = np.linalg.norm(q[rows], axis=1) - 1.0
    assert state.get_num_q_err() == 1 + quaternions         # the Rod's perr, then those
    np.testing.assert_allclose(state.get_q_err()[-quaternions:], expected, rtol=0,
                               atol=1e-15)
    assert state.get_q_err()[-quaternions] == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("name", list(MODELS))
def test_forces_from_multipliers_are_g_transpose_lambda_in_the_ancestor_frame(name):
    """Constraint.calc_constraint_forces_from_multipliers of random multipliers: its body
    forces, re-expressed from the ancestor frame in Ground and carried to the mobilities
    by the system Jacobian, plus its mobility forces, are the matter subsystem's Gᵀλ of
    the same multipliers placed in the constraint-space vector (its compiled operator);
    the State's own multipliers give the constraint-force getters' forces."""
    system, matter, constraints, state, rng = build(name)
    system.realize(state, kt.Stage.ACCELERATION)
    m = len(state.get_multipliers())
    for c in constraints:
        own = c.get_multipliers_as_vector(state)
        if c.is_disabled(state):
            assert own.size == 0
            F_A, f = c.calc_constraint_forces_from_multipliers(state, own)
            assert not F_A.any() and not f.any()
            continue
        whole = np.zeros(m)
        c.set_my_part_in_constraint_space_vector(state, own, whole)
        np.testing.assert_array_equal(c.get_my_part_from_constraint_space_vector(
            state, state.get_multipliers()), own)
        lam = rng.uniform(-1.0, 1.0, own.size)
        F_A, f = c.calc_constraint_forces_from_multipliers(state, lam)
        R_GA = c.get_ancestor_mobilized_body().get_body_rotation(state).as_matrix()
        F_G = np.hstack([F_A[:, :3] @ R_GA.T, F_A[:, 3:] @ R_GA.T])
        body_forces = np.zeros((matter.get_num_bodies(), 6))
        for k in range(c.get_num_constrained_bodies()):
            body_forces[c.get_mobilized_body_from_constrained_body(k).get_mobilized_body_index()] \
                += F_G[k]
        mobility = np.zeros(state.get_num_u())
        at = 0
        for j in range(c.get_num_constrained_mobilizers()):
            mobod = c.get_mobilized_body_from_constrained_mobilizer(j)
            first, n = mobod.get_first_u_index(state), mobod.get_num_u(state)
            mobility[first:first + n] += f[at:at + n]
            at += n
        assert at == f.size
        whole = np.zeros(m)
        c.set_my_part_in_constraint_space_vector(state, lam, whole)
        expected = matter.multiply_by_g_transpose(state, whole)
        got = matter.multiply_by_system_jacobian_transpose(state, body_forces) + mobility
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * (1 + abs(expected).max()))
        F_A, f = c.calc_constraint_forces_from_multipliers(state, own)
        np.testing.assert_allclose(np.hstack([F_A[:, :3] @ R_GA.T, F_A[:, 3:] @ R_GA.T]),
                                   c.get_constrained_body_forces_as_vector(state), atol=1e-12)
        np.testing.assert_allclose(f, c.get_constrained_mobility_forces_as_vector(state),
                                   atol=1e-12)
    with pytest.raises(kt.errors.InvalidArgumentError, match="expected"):
        constraints[0].calc_constraint_forces_from_multipliers(state, np.zeros(m + 5))
