"""The constraint machinery on the seed's custom constraint (seed 000 §2.2): constrained
forward dynamics against an independent KKT solve, redundant constraints, enabling and
disabling, projection, stage checks, ancestor frames and mobilizer reaction forces."""

import runpy
import warnings
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import KinetreeError, StageTooLowError

EXAMPLE = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" /
                             "custom_constraint.py"))
ExampleConstraint = EXAMPLE["ExampleConstraint"]


def model(n_rods=1, inner=False):
    """A double pendulum (Pin, Ball) whose tip is tied by ``n_rods`` copies of the rod to a
    free body; with ``inner`` a further rod ties the two pendulum links (ancestor: the
    upper link's parent chain, not Ground)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    com = [0.1, -0.2, 0.05]
    central = kt.Inertia(0.08, 0.05, 0.07, 0.01, 0.0, 0.02)
    link = kt.Body.Rigid(kt.MassProperties(1.3, com,
                                           central.shift_from_mass_center(com, 1.3)))
    upper = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(kt.Rotation.about_x(0.3)),
                                 link, kt.Transform([0, 1, 0]))
    lower = kt.MobilizedBody.Ball(upper, kt.Transform([0.1, 0, 0]), link,
                                  kt.Transform([0, 1, 0]))
    tip = kt.MobilizedBody.Pin(lower, kt.Transform([0, -0.3, 0]), link,
                               kt.Transform([0, 0.5, 0]))
    floater = kt.MobilizedBody.Free(matter.Ground(), kt.Transform([1.5, -1.0, 0]), link,
                                    kt.Transform())
    rods = [kt.Constraint.Custom(ExampleConstraint(tip, floater, 1.1)) for _ in range(n_rods)]
    if inner:
        rods.append(kt.Constraint.Custom(ExampleConstraint(lower, tip, 0.7)))
    return system, matter, rods


def consistent_state(system, rng):
    state = system.realize_topology()
    state.set_q(state.get_q() + rng.uniform(-0.3, 0.3, len(state.get_q())))
    state.set_u(rng.uniform(-1, 1, len(state.get_u())))
    system.project(state, 1e-13)
    system.realize(state, kt.Stage.ACCELERATION)
    return state


def kkt(system, matter, state):
    """u̇ and λ from [[M, Gᵀ], [G, 0]] [u̇; λ] = [f - c; b], every block from an
    independent operator (mass matrix by CRBA, inverse dynamics, G by columns), solved in
    the minimum-norm sense."""
    n = len(state.get_u())
    d = matter.get_tree_data(state, kt.Stage.DYNAMICS, "test")
    f_minus_c = -matter.calc_residual_force_ignoring_constraints(
        state, d.mobility_forces, d.body_forces, np.zeros(n))
    M, G = matter.calc_m(state), matter.calc_g(state)
    b = -matter.calc_bias_for_multiply_by_g(state)
    m = G.shape[0]
    K = np.block([[M, G.T], [G, np.zeros((m, m))]])
    sol = np.linalg.pinv(K, rcond=1e-12) @ np.concatenate([f_minus_c, b])
    return sol[:n], sol[n:]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("inner", [False, True])
def test_constrained_accelerations_solve_the_kkt_system(seed, inner):
    system, matter, rods = model(inner=inner)
    state = consistent_state(system, np.random.default_rng(seed))
    udot, lam = kkt(system, matter, state)
    scale = max(1.0, np.abs(udot).max())
    np.testing.assert_allclose(state.get_u_dot(), udot, atol=1e-9 * scale)
    got = np.concatenate([r.get_multipliers_as_vector(state) for r in rods])
    np.testing.assert_allclose(got, lam, atol=1e-9 * max(1.0, np.abs(lam).max()))
    for r in rods:
        assert np.abs(r.get_acceleration_errors_as_vector(state)).max() < 1e-10 * scale
    # the errors re-evaluated from scratch at the final u̇, not from the solve's algebra
    again = matter.multiply_by_g(state, state.get_u_dot()) + \
        matter.calc_bias_for_multiply_by_g(state)
    assert np.abs(again).max() < 1e-10 * scale


def ladder(rungs):
    """Two hanging chains of six links side by side, mixing Pin, Ball and Universal
    mobilizers, joined at the links in ``rungs`` (link, "weld" or "ball") where they
    stand at a random pose: Welds over-constrain the loops (G is rank-deficient)."""
    rng = np.random.default_rng(11)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    link = kt.Body.Rigid(kt.MassProperties(0.7, [0, -0.1, 0], kt.Inertia(0.03, 0.02, 0.025)))
    chains = []
    for x, kinds in ((-0.2, "PPBPUP"), (0.2, "PUPPBP")):
        parent, X_PF, chain = matter.Ground(), kt.Transform([x, 0, 0]), []
        for kind in kinds:
            mobilizer = {"P": kt.MobilizedBody.Pin, "B": kt.MobilizedBody.Ball,
                         "U": kt.MobilizedBody.Universal}[kind]
            X_PF = kt.Transform(kt.Rotation.about_x(rng.uniform(-1, 1)), X_PF.p)
            parent = mobilizer(parent, X_PF, link, kt.Transform([0, 0.25, 0]))
            chain.append(parent)
            X_PF = kt.Transform([0, -0.25, 0])
        chains.append(chain)
    state = system.realize_topology()
    state.set_q(state.get_q() + rng.uniform(-0.3, 0.3, state.get_num_q()))
    system.realize(state, kt.Stage.POSITION)
    for i, kind in rungs:
        a, b = chains[0][i], chains[1][i]
        X_GR = kt.Transform((a.get_body_transform(state).p + b.get_body_transform(state).p) / 2)
        X_AR = a.get_body_transform(state).invert() @ X_GR
        X_BR = b.get_body_transform(state).invert() @ X_GR
        if kind == "weld":
            kt.Constraint.Weld(a, X_AR, b, X_BR)
        else:
            kt.Constraint.Ball(a, X_AR.p, b, X_BR.p)
    moved = system.realize_topology()
    moved.set_q(state.get_q() + rng.uniform(-0.01, 0.01, state.get_num_q()))
    moved.set_u(rng.uniform(-1, 1, state.get_num_u()))
    system.project(moved, 1e-13)
    system.realize(moved, kt.Stage.ACCELERATION)
    return system, matter, moved


@pytest.mark.parametrize("rungs", [
    [(5, "weld"), (4, "ball")],                       # 9 equations, full rank
    [(5, "weld"), (3, "weld"), (1, "ball")],          # 15, redundant
    [(5, "weld"), (4, "weld"), (3, "weld"), (2, "ball")],  # 21, redundant
])
def test_many_equations_solve_the_kkt_system(rungs):
    """Built-in constraints with more equations than the solve takes M⁻¹ Gᵀ columns at
    once (eight), not a multiple of it, on bodies of one, two and three mobilities."""
    system, matter, state = ladder(rungs)
    udot, lam = kkt(system, matter, state)
    scale = max(1.0, np.abs(udot).max())
    np.testing.assert_allclose(state.get_u_dot(), udot, atol=1e-9 * scale)
    np.testing.assert_allclose(state.get_multipliers(), lam,
                               atol=1e-9 * max(1.0, np.abs(lam).max()))
    assert np.abs(state.get_u_dot_err()).max() < 1e-10 * scale


def test_errors_and_their_derivatives_match_finite_differences():
    system, matter, rods = model(inner=True)
    state = consistent_state(system, np.random.default_rng(7))
    state.set_u(np.random.default_rng(8).uniform(-1, 1, len(state.get_u())))
    system.realize(state, kt.Stage.ACCELERATION)
    h = 1e-6
    qdot, udot = np.array(state.get_q_dot()), np.array(state.get_u_dot())

    def errors(t):
        s = state.copy()
        s.set_q(state.get_q() + t * qdot + 0.5 * t * t * np.array(state.get_q_dot_dot()))
        s.set_u(state.get_u() + t * udot)
        system.realize(s, kt.Stage.VELOCITY)
        return (np.concatenate([r.get_position_errors_as_vector(s) for r in rods]),
                np.concatenate([r.get_velocity_errors_as_vector(s) for r in rods]))

    (p_plus, v_plus), (p_minus, v_minus) = errors(h), errors(-h)
    pverr = np.concatenate([r.get_velocity_errors_as_vector(state) for r in rods])
    paerr = np.concatenate([r.get_acceleration_errors_as_vector(state) for r in rods])
    np.testing.assert_allclose((p_plus - p_minus) / (2 * h), pverr, atol=1e-6)
    np.testing.assert_allclose((v_plus - v_minus) / (2 * h), paerr, atol=1e-6)


def test_redundant_copies_share_the_force_and_leave_the_motion_unique():
    one = model(n_rods=1)
    two = model(n_rods=2)
    rng = np.random.default_rng(3)
    s1 = consistent_state(one[0], rng)
    s2 = two[0].realize_topology()
    s2.set_y(s1.get_y())
    two[0].realize(s2, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(s2.get_u_dot(), s1.get_u_dot(), atol=1e-10)
    lam1 = one[2][0].get_multipliers_as_vector(s1)[0]
    lam2 = [r.get_multipliers_as_vector(s2)[0] for r in two[2]]
    assert np.isfinite(lam2).all()
    np.testing.assert_allclose(lam2, [lam1 / 2, lam1 / 2], rtol=1e-8)


def test_disabling_removes_the_equations():
    system, matter, rods = model()
    state = consistent_state(system, np.random.default_rng(4))
    constrained = np.array(state.get_u_dot())
    rods[0].disable(state)
    assert rods[0].is_disabled(state)
    assert rods[0].get_num_constraint_equations_in_use(state) == (0, 0, 0)
    system.realize(state, kt.Stage.ACCELERATION)
    assert rods[0].get_multipliers_as_vector(state).size == 0
    assert len(state.get_multipliers()) == 0
    d = matter.get_tree_data(state, kt.Stage.DYNAMICS, "test")
    free_udot = matter.multiply_by_m_inv(
        state, -matter.calc_residual_force_ignoring_constraints(
            state, d.mobility_forces, d.body_forces, np.zeros(len(constrained))))
    np.testing.assert_allclose(state.get_u_dot(), free_udot, atol=1e-10)
    assert np.abs(state.get_u_dot() - constrained).max() > 1e-3
    rods[0].enable(state)
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), constrained, atol=1e-12)


def test_disabled_by_default_reaches_new_states():
    system, matter, rods = model()
    rods[0].set_disabled_by_default(True)
    state = system.realize_topology()
    assert rods[0].is_disabled(state)


def test_accessors_need_their_stage():
    system, matter, rods = model()
    state = system.realize_topology()
    system.realize(state, kt.Stage.TIME)
    with pytest.raises(StageTooLowError, match="POSITION"):
        rods[0].get_position_errors_as_vector(state)
    system.realize(state, kt.Stage.POSITION)
    with pytest.raises(StageTooLowError, match="VELOCITY"):
        rods[0].get_velocity_errors_as_vector(state)
    with pytest.raises(StageTooLowError, match="ACCELERATION"):
        rods[0].get_multipliers_as_vector(state)
    impl = rods[0].get_implementation()
    assert np.isfinite(impl.get_body_origin_location_from_state(state, 0)).all()
    for velocity_helper in (lambda: impl.get_body_velocity_from_state(state, 0),
                            lambda: impl.find_station_velocity_from_state(state, 0, [0, 1, 0])):
        with pytest.raises(StageTooLowError, match="VELOCITY"):
            velocity_helper()


def test_projection_lands_on_the_manifold_and_normalizes_quaternions():
    system, matter, rods = model(inner=True)
    state = system.realize_topology()
    rng = np.random.default_rng(5)
    state.set_q(state.get_q() + rng.uniform(-0.2, 0.2, len(state.get_q())))
    state.set_u(rng.uniform(-1, 1, len(state.get_u())))
    report = system.project(state, 1e-12)["SimbodyMatterSubsystem"]
    assert report["q_iterations"] >= 1 and report["q_change"] > 0 and report["u_change"] > 0
    system.realize(state, kt.Stage.VELOCITY)
    assert np.abs(state.get_q_err()).max() <= 1e-12
    assert np.abs(state.get_u_err()).max() <= 1e-12
    q = state.get_q()
    assert abs(np.linalg.norm(q[1:5]) - 1) < 1e-14     # the Ball's quaternion
    # a second projection has nothing left to do
    again = system.project(state, 1e-12)["SimbodyMatterSubsystem"]
    assert again["q_iterations"] == 0 and again["u_change"] == 0.0


def test_projection_of_unreachable_constraints_raises_naming_one():
    system, matter, rods = model(inner=True)
    rods[1].get_implementation().distance = 50.0     # farther than the links can reach
    state = system.realize_topology()
    with pytest.raises(kt.errors.KinetreeError, match=r"Constraint.Custom #1"):
        system.project(state, 1e-12)


def test_ancestor_is_the_nearest_common_ancestor():
    system, matter, rods = model(inner=True)
    system.realize_topology()
    assert rods[0].get_ancestor_mobilized_body() is matter.Ground()
    lower = rods[1].get_mobilized_body_from_constrained_body(0)
    assert rods[1].get_ancestor_mobilized_body() is lower


def test_multiplier_forces_are_g_transpose_lambda_and_do_no_work():
    system, matter, rods = model(inner=True)
    state = consistent_state(system, np.random.default_rng(6))
    lam = np.array(state.get_multipliers())
    GT_lam = matter.multiply_by_g_transpose(state, lam)
    np.testing.assert_allclose(GT_lam, matter.calc_g_transpose(state) @ lam, atol=1e-10)
    np.testing.assert_allclose(matter.calc_g(state), matter.calc_g_transpose(state).T,
                               atol=1e-10)
    # power of the constraint forces at a consistent velocity: -λᵀ G u = 0
    assert abs(GT_lam @ state.get_u()) < 1e-9 * max(1.0, np.abs(GT_lam).max())


def test_mobilizer_reaction_on_a_pendulum_is_newtons_second_law():
    """A single Pin pendulum: the reaction at M plus gravity is m a_com, and its moment
    about the hinge axis is zero (no applied mobility force)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    g = np.array([0, -9.81, 0])
    kt.Force.UniformGravity(forces, matter, g)
    com = np.array([0.2, -0.6, 0.1])
    body = kt.Body.Rigid(kt.MassProperties(
        2.0, com, kt.Inertia(0.5, 0.3, 0.4).shift_from_mass_center(com, 2.0)))
    X_BM = kt.Transform(kt.Rotation.about_y(0.4), [0.05, 0.1, 0])
    pend = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(kt.Rotation.about_x(0.2)),
                                body, X_BM)
    state = system.realize_topology()
    pend.set_one_q(state, 0, 0.7)
    pend.set_one_u(state, 0, -1.3)
    system.realize(state, kt.Stage.ACCELERATION)
    F = matter.calc_mobilizer_reaction_forces(state)[1]
    a_com = pend.find_station_acceleration_in_ground(state, com)
    np.testing.assert_allclose(F[3:] + 2.0 * g, 2.0 * a_com, atol=1e-10)
    z_G = pend.get_body_rotation(state).as_matrix() @ X_BM.R.as_matrix()[:, 2]
    assert abs(F[:3] @ z_G) < 1e-10


def test_the_seed_example_keeps_its_rod_length_and_energy():
    state, distance, drift = EXAMPLE["main"](t_final=0.2)
    assert abs(distance - 1.2) < 1e-10
    assert drift < 1e-6


def test_n_transposes_and_pq_match_explicit_matrices_and_finite_differences():
    system, matter, rods = model(inner=True)
    state = consistent_state(system, np.random.default_rng(9))
    nq, nu = len(state.get_q()), len(state.get_u())
    N = np.column_stack([matter.multiply_by_n(state, False, e) for e in np.eye(nu)])
    N_inv = np.column_stack([matter.multiply_by_n_inv(state, e) for e in np.eye(nq)])
    rng = np.random.default_rng(10)
    f_q, x_u = rng.normal(size=nq), rng.normal(size=nu)
    np.testing.assert_allclose(matter.multiply_by_n(state, True, f_q), N.T @ f_q,
                               atol=1e-13)
    np.testing.assert_allclose(matter.multiply_by_n_inv(state, x_u, transpose=True),
                               N_inv.T @ x_u, atol=1e-13)
    # Pq = ∂perr/∂q by central differences along each q (quaternions included: the
    # position errors are defined for any q, normalized by the kinematics)
    Pq = matter.calc_pq(state)
    h = 1e-6
    fd = np.empty_like(Pq)
    for k in range(nq):
        errs = []
        for sign in (1, -1):
            s = state.copy()
            q = np.array(state.get_q())
            q[k] += sign * h
            s.set_q(q)
            system.realize(s, kt.Stage.POSITION)
            errs.append(np.array(s.get_q_err())[:Pq.shape[0]])   # perr, then |q| - 1
        fd[:, k] = (errs[0] - errs[1]) / (2 * h)
    # Pq acts on q̇ = N u, which for a quaternion is tangent to |q| = const; compare there
    np.testing.assert_allclose(Pq @ N, fd @ N, atol=1e-7)
    lam = rng.normal(size=Pq.shape[0])
    np.testing.assert_allclose(matter.multiply_by_pq_transpose(state, lam), Pq.T @ lam,
                               atol=1e-10)
    np.testing.assert_allclose(matter.multiply_by_pq(state, N @ x_u), Pq @ N @ x_u,
                               atol=1e-10)


def test_constraints_without_a_solution_give_the_least_squares_motion_and_warn_once():
    """Two ConstantAcceleration constraints giving one Slider u̇ = 1 and u̇ = 2 have no
    solution. As Simbody, the realization keeps the least-squares one, u̇ = 1.5 with
    acceleration errors of -0.5 and 0.5 and the force split evenly, and says so once
    (KinetreeWarning naming the residual and a constraint). With
    set_raise_on_inconsistent_constraints(True) realizing raises instead, naming the
    constraint, and the State resumes once one of them is disabled."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.1)))
    slider = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), body, kt.Transform())
    one = kt.Constraint.ConstantAcceleration(slider, 0, 1.0)
    kt.Constraint.ConstantAcceleration(slider, 0, 2.0)
    state = system.realize_topology()
    with pytest.warns(kt.errors.KinetreeWarning,
                      match=r"no solution at t = 0 s.* 0\.5 .*ConstantAcceleration"):
        system.realize(state, kt.Stage.ACCELERATION)
    assert state.get_u_dot()[0] == pytest.approx(1.5, abs=1e-12)
    np.testing.assert_allclose(sorted(state.get_u_dot_err()), [-0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(state.get_multipliers(), [-1.5, -1.5], atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # once: a second State says nothing
        system.realize(state.copy(), kt.Stage.ACCELERATION)

    matter.set_raise_on_inconsistent_constraints(True)
    state = system.realize_topology()
    with pytest.raises(KinetreeError, match=r"no solution.*0\.5 .*ConstantAcceleration #\d"):
        system.realize(state, kt.Stage.ACCELERATION)
    assert state.get_system_stage() < kt.Stage.ACCELERATION
    one.disable(state)
    system.realize(state, kt.Stage.ACCELERATION)
    assert state.get_u_dot()[0] == pytest.approx(2.0, abs=1e-12)


def test_inconsistent_constraints_get_the_pseudo_inverse_solution():
    """A Weld between a Planar body and Ground at arbitrary frames (six equations through
    three mobilities, the bias outside G's range): u̇ and λ are those of the
    pseudo-inverse, λ = (G M⁻¹ Gᵀ)⁺ (G u̇₀ + bias) and u̇ = u̇₀ - M⁻¹ Gᵀ λ, computed here
    with numpy from the unconstrained u̇₀, to 1e-10."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, -0.4, 0.05], kt.Inertia(0.5, 0.6, 0.55)))
    planar = kt.MobilizedBody.Planar(
        matter.Ground(), kt.Transform(kt.Rotation.about_x(0.3), [0.1, 0.2, 0]), body,
        kt.Transform([0, 0.5, 0]))
    weld = kt.Constraint.Weld(matter.Ground(), kt.Transform(kt.Rotation.about_y(0.4),
                                                            [0.3, -0.2, 0.1]),
                              planar, kt.Transform([0.05, 0.1, 0.2]))
    state = system.realize_topology()
    state.set_q([0.3, 0.1, -0.2])
    state.set_u([0.5, -0.3, 0.2])
    with pytest.warns(kt.errors.KinetreeWarning, match="no solution"):
        system.realize(state, kt.Stage.ACCELERATION)
    free = state.copy()
    weld.disable(free)
    system.realize(free, kt.Stage.ACCELERATION)
    G, bias = matter.calc_g(state), matter.calc_bias_for_multiply_by_g(state)
    m_inv = matter.calc_m_inv(state)
    lam = np.linalg.pinv(G @ m_inv @ G.T) @ (G @ free.get_u_dot() + bias)
    udot = free.get_u_dot() - m_inv @ G.T @ lam
    np.testing.assert_allclose(state.get_u_dot(), udot, rtol=0, atol=1e-10)
    np.testing.assert_allclose(state.get_multipliers(), lam, rtol=0, atol=1e-10)
    assert np.abs(state.get_u_dot_err()).max() > 0.01
