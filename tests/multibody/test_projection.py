"""Projection onto the constraints is robust: random closed loops (a chain of random
mobilizers closed by a Ball, a Rod or a Weld, to Ground or to a second moving branch)
perturbed by up to 0.1 rad or m in every q are brought back within 1e-10, and the
constrained accelerations realized afterwards leave no acceleration errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kinetree as kt

KINDS = ("Ball", "Pin", "Universal", "Gimbal", "Slider", "Cylinder")
TOLERANCE = 1e-10


def random_loop(rng, closure: str, to_branch: bool, mass_decades: float = 0.0):
    """(system, state on the loop): a chain of 3-6 random mobilizers hanging from Ground
    (or from a Pin base that also carries a second, shorter branch), its tip tied by
    ``closure`` to Ground (or to the branch's tip) where it sits in a random pose. Each
    body's mass and inertia are scaled by 10^[-mass_decades, mass_decades]."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)

    def link():
        scale = 10.0 ** rng.uniform(-mass_decades, mass_decades)
        return kt.Body.Rigid(kt.MassProperties(
            scale, [0, -0.1, 0], kt.Inertia(0.02 * scale, 0.01 * scale, 0.02 * scale)))

    def chain(parent, n, offset):
        for _ in range(n):
            X_PF = kt.Transform(kt.Rotation.from_body_fixed_xyz(rng.uniform(-1, 1, 3)),
                                rng.uniform(-0.1, 0.1, 3) + offset)
            parent = getattr(kt.MobilizedBody, KINDS[rng.integers(len(KINDS))])(
                parent, X_PF, link(), kt.Transform())
        return parent

    anchor = matter.Ground()
    start = anchor
    if to_branch:
        start = kt.MobilizedBody.Pin(anchor, kt.Transform(), link(), kt.Transform())
        anchor = chain(start, int(rng.integers(1, 4)), [0.2, -0.3, 0.0])
    tip = chain(start, int(rng.integers(3, 7)), [0.0, -0.3, 0.0])
    state = system.realize_topology()
    state.set_q(state.get_q() + rng.uniform(-0.5, 0.5, state.get_num_q()))
    system.realize(state, kt.Stage.POSITION)
    X_GA, X_GT = anchor.get_body_transform(state), tip.get_body_transform(state)
    X_TF = kt.Transform(kt.Rotation.from_body_fixed_xyz(rng.uniform(-1, 1, 3)),
                        rng.uniform(-0.3, 0.3, 3))
    X_AF = X_GA.invert() @ X_GT @ X_TF          # the tip's frame F, seen from the anchor
    if closure == "Ball":
        kt.Constraint.Ball(anchor, X_AF.p, tip, X_TF.p)
    elif closure == "Rod":
        offset = rng.uniform(-0.3, 0.3, 3)
        kt.Constraint.Rod(anchor, X_AF.p + offset, tip, X_TF.p, np.linalg.norm(offset))
    else:
        kt.Constraint.Weld(anchor, X_AF, tip, X_TF)
    q = np.array(state.get_q())
    state = system.realize_topology()
    state.set_q(q)
    return system, state


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), closure=st.sampled_from(["Ball", "Rod", "Weld"]),
       to_branch=st.booleans(), size=st.floats(-4.0, -1.0))
def test_perturbed_loops_project_back_and_realize_without_acceleration_errors(
        seed, closure, to_branch, size):
    rng = np.random.default_rng(seed)
    system, state = random_loop(rng, closure, to_branch)
    delta = 10.0 ** size
    state.set_q(state.get_q() + rng.uniform(-delta, delta, state.get_num_q()))
    state.set_u(rng.uniform(-1.0, 1.0, state.get_num_u()))
    system.project(state, TOLERANCE)
    system.realize(state, kt.Stage.ACCELERATION)
    matter = system.get_matter_subsystem()
    holonomic = state.get_num_q_err() - matter.get_num_quaternions_in_use(state)
    assert np.abs(state.get_q_err()[:holonomic]).max() <= TOLERANCE
    assert np.abs(state.get_u_err()).max() <= TOLERANCE
    assert np.abs(state.get_u_dot_err()).max() <= 1e-9 * max(1.0, np.abs(
        state.get_u_dot()).max())


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), closure=st.sampled_from(["Ball", "Rod", "Weld"]),
       to_branch=st.booleans())
def test_loops_of_bodies_far_apart_in_mass_solve_with_a_small_residual(
        seed, closure, to_branch):
    """Masses spread over 1e-4..1e4 kg (at 1e-6..1e6, seed 227 of ``random_loop`` with
    cond(M) = 3e11 is reported as having no solution: its acceleration errors after the
    solve are round-off grown past the consistency test): the constrained u̇ and
    multipliers satisfy the equations of motion M u̇ + Gᵀ λ = f - c to a backward error
    of 1e-10 wherever the mass matrix has cond(M) < 1e12, and the acceleration errors are
    round-off."""
    rng = np.random.default_rng(seed)
    system, state = random_loop(rng, closure, to_branch, mass_decades=4.0)
    state.set_u(rng.uniform(-1.0, 1.0, state.get_num_u()))
    system.project(state, TOLERANCE)
    system.realize(state, kt.Stage.ACCELERATION)
    matter = system.get_matter_subsystem()
    M = matter.calc_m(state)
    if np.linalg.cond(M) >= 1e12:
        return
    udot, lam = state.get_u_dot(), state.get_multipliers()
    zero_forces = np.zeros((matter.get_num_bodies(), 6))
    bias = matter.calc_residual_force_ignoring_constraints(
        state, np.zeros(udot.size), zero_forces, np.zeros(udot.size))   # c (no forces)
    G = matter.calc_g(state)
    residual = M @ udot + G.T @ lam + bias
    scale = (np.linalg.norm(M, 2) * np.linalg.norm(udot)
             + np.linalg.norm(G.T @ lam) + np.linalg.norm(bias))
    assert np.linalg.norm(residual) <= 1e-10 * scale
    # The acceleration errors: round-off grown by the conditioning (up to ~1e12 here),
    # not left-over constraint violation.
    assert np.abs(state.get_u_dot_err()).max() <= 1e-6 * max(1.0, np.abs(udot).max())


def test_jointed_bodies_and_their_free_constrained_copies_agree_after_projection():
    """Simbody's TestMobilizerReactionForces setting: two Ball-jointed links and two Free
    bodies held by Ball constraints at the same stations (and two Translation-jointed
    links beside two Free bodies held by ConstantOrientation), the free ones fitted to the
    jointed ones' poses and velocities; after project(state, 1e-10) each pair agrees in
    pose and velocity within 1e-10 (the angle from the rotation's skew part, which is
    exact near zero, unlike an arccos of the trace)."""
    bond = 0.5
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.8, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.3, [0, 0, 0], kt.Inertia(1.3)))
    ground, out_x = matter.Ground(), kt.Transform([bond, 0, 0])
    fb1 = kt.MobilizedBody.Free(ground, kt.Transform(), body, out_x)
    fb2 = kt.MobilizedBody.Free(fb1, kt.Transform([0, 0, bond]), body, out_x)
    kt.Constraint.Ball(ground, [0, 0, 0], fb1, [bond, 0, 0])
    kt.Constraint.Ball(fb1, [0, 0, bond], fb2, [bond, 0, 0])
    b1 = kt.MobilizedBody.Ball(ground, kt.Transform(), body, out_x)
    b2 = kt.MobilizedBody.Ball(b1, kt.Transform([0, 0, bond]), body, out_x)
    ft1 = kt.MobilizedBody.Free(ground, kt.Transform(), body, out_x)
    ft2 = kt.MobilizedBody.Free(ft1, kt.Transform(), body, kt.Transform([0, bond, 0]))
    kt.Constraint.ConstantOrientation(ground, kt.Rotation(), ft1, kt.Rotation())
    kt.Constraint.ConstantOrientation(ft1, kt.Rotation(), ft2, kt.Rotation())
    t1 = kt.MobilizedBody.Translation(ground, kt.Transform(), body, out_x)
    t2 = kt.MobilizedBody.Translation(t1, kt.Transform(), body, kt.Transform([0, bond, 0]))
    for b in (fb2, b2, ft2, t2):
        kt.Force.ConstantTorque(forces, b, [0.1, 0.1, 1.0])
    pairs = ((fb1, b1), (fb2, b2), (ft1, t1), (ft2, t2))
    for seed in range(5):
        state = system.realize_topology()
        state.set_y(np.random.default_rng(seed).normal(size=state.get_num_y()))
        system.realize(state, kt.Stage.VELOCITY)
        poses = [jointed.get_mobilizer_transform(state) for _, jointed in pairs]
        speeds = [jointed.get_mobilizer_velocity(state) for _, jointed in pairs]
        for (free, _), X_FM in zip(pairs, poses):
            free.set_q_to_fit_transform(state, X_FM)
        system.realize(state, kt.Stage.POSITION)
        for (free, _), V_FM in zip(pairs, speeds):
            free.set_u_to_fit_velocity(state, V_FM)
        system.project(state, TOLERANCE)
        system.realize(state, kt.Stage.ACCELERATION)
        for free, jointed in pairs:
            X_a, X_b = jointed.get_body_transform(state), free.get_body_transform(state)
            R = X_a.R.as_matrix().T @ X_b.R.as_matrix()
            angle = np.linalg.norm([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2
            assert angle < TOLERANCE
            np.testing.assert_allclose(X_b.p, X_a.p, rtol=0, atol=TOLERANCE)
            np.testing.assert_allclose(free.get_body_velocity(state),
                                       jointed.get_body_velocity(state), rtol=0,
                                       atol=TOLERANCE)


@pytest.mark.parametrize("seed, closure, to_branch", [
    (3, "Ball", True), (16, "Rod", False), (59, "Weld", True), (150, "Ball", False)])
def test_loops_the_articulated_method_cannot_hold_are_solved_through_the_mass_matrix(
        seed, closure, to_branch):
    """Masses over 1e-6..1e6 kg: these loops leave an articulated inertia so
    ill-conditioned that the realization solves through the factored mass matrix
    (``kernels/dense.py``), the constraint solve's M⁻¹ Gᵀ included; the equations of
    motion then hold to round-off."""
    rng = np.random.default_rng(seed)
    system, state = random_loop(rng, closure, to_branch, mass_decades=6.0)
    state.set_u(rng.uniform(-1.0, 1.0, state.get_num_u()))
    system.project(state, TOLERANCE)
    system.realize(state, kt.Stage.ACCELERATION)
    matter = system.get_matter_subsystem()
    assert matter.get_tree_data(state, kt.Stage.MODEL).status[4] == 1     # through M
    M, G = matter.calc_m(state), matter.calc_g(state)
    udot, lam = state.get_u_dot(), state.get_multipliers()
    bias = matter.calc_residual_force_ignoring_constraints(
        state, np.zeros(udot.size), np.zeros((matter.get_num_bodies(), 6)), np.zeros(udot.size))
    residual = M @ udot + G.T @ lam + bias
    scale = (np.linalg.norm(M, 2) * np.linalg.norm(udot)
             + np.linalg.norm(G.T @ lam) + np.linalg.norm(bias))
    assert np.linalg.norm(residual) <= 1e-12 * scale


def test_a_free_bodys_quaternion_alone_is_normalized_where_its_norm_is_off():
    """Without constraints, projecting q leaves it where every quaternion's norm is
    within the tolerance of 1 (unless forced), and where one is off by more scales every
    quaternion to unit length, as the compiled projection does, leaving the
    translations and the orientations."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    bodies = [kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))) for _ in range(2)]
    state = system.realize_topology()
    rotation = kt.Rotation.about_x(0.3) @ kt.Rotation.about_z(-1.1)
    for body in bodies:
        body.set_q_to_fit_transform(state, kt.Transform(rotation, [0.1, 0.2, 0.3]))
    q = state.get_q().copy()
    q[7:11] *= 1 + 1e-9                    # the second body's quaternion off by 1e-9
    state.set_q(q)
    system.realize(state, kt.Stage.TIME)
    assert matter.project_q(state, 1e-6)["q_change"] == 0.0
    np.testing.assert_array_equal(state.get_q(), q)
    q[0:4] *= 1 + 1e-3                     # the first's by 1e-3
    state.set_q(q)
    system.realize(state, kt.Stage.TIME)
    report = matter.project_q(state, 1e-6)
    after = state.get_q()
    for block in (slice(0, 4), slice(7, 11)):
        assert np.linalg.norm(after[block]) == pytest.approx(1.0, abs=1e-15)
        np.testing.assert_allclose(after[block], q[block] / np.linalg.norm(q[block]),
                                   rtol=0, atol=1e-16)
    np.testing.assert_array_equal(after[4:7], q[4:7])
    np.testing.assert_array_equal(after[11:14], q[11:14])
    assert report["q_change"] == np.max(np.abs(after - q))
    system.realize(state, kt.Stage.POSITION)
    for body in bodies:
        assert body.get_body_rotation(state).is_same_rotation(rotation, 1e-15)
    q[7:11] *= 1 + 1e-9
    state.set_q(q)
    system.realize(state, kt.Stage.TIME)
    matter.project_q(state, 1e-6, force=True)
    assert np.linalg.norm(state.get_q()[7:11]) == pytest.approx(1.0, abs=1e-15)
