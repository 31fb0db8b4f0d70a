"""A port of Simbody's own test Simbody/tests/TestMobilizerReactionForces.cpp to kinetree.

All six subtests, in Simbody's order:

* testByComparingToConstraints: Ball and Translation joints side by side with Free joints
  held by Ball and ConstantOrientation constraints to the same motion; the reactions of the
  Ball and Translation mobilizers equal the constraint forces, Free joints react with
  nothing, and the bulk ``calc_mobilizer_reaction_forces`` equals the body-by-body
  ``find_mobilizer_reaction_on_body_at_m_in_ground``.
* testByComparingToConstraints2: a double pendulum on Pin joints beside one on Free joints
  held by a Ball and two ConstantAngle constraints each (Simbody bug #1535); the reactions on
  the parent at F and at the body origin, shifted by hand, and against the constraint forces.
* testByComparingToSDFAST, testByComparingToSDFAST2: reactions against SD/FAST's numbers
  for a Slider-Pin-Gimbal-Pin chain and a femur-tibia pair, at rest and moving.
* testByComparingToSDFASTWithConstraint: a Gimbal tree closed by a Rod, at Simbody's
  hard-coded assembled q (not projected, as Simbody explains), against SD/FAST.
* testFreeMobilizer: a Free body with full inertia, offset mass center and twisted frames,
  pushed by forces: no reaction.

The file's own ``assertEqual`` overloads are kept as ``assert_equal`` (absolute 1e-10 for
numbers, relative to max(|a|, 1) for 3-vectors, the angle between rotations), SimTK_TEST_EQ
and SimTK_TEST_EQ_SIZE come from simtk_testing, and every tolerance is Simbody's. Simbody's
C++ converts a Vec3 to a Transform and a MassProperties to a Body implicitly; here they are
written out. Simbody's Random::Gaussian is numpy's standard normal generator.
"""

import math

import numpy as np
from simtk_testing import assert_eq, assert_eq_size

import kinetree as kt
from kinetree.math.spatial import shift_force_by, shift_force_from_to

TOL = 1e-10
BOND_LENGTH = 0.5

BODY = kt.BodyOrSpaceType.BodyRotationSequence


def assert_equal(val1, val2, tol=TOL):
    """The test file's assertEqual: a number to |a - b| < tol; a 3-vector elementwise to
    tol·max(|a|, 1) (the norm of the first argument); a spatial vector as its two 3-vectors;
    a Vector (any other length) elementwise as numbers; a Transform as its translation (a
    3-vector) and its rotation, the same to within the angle tol."""
    if isinstance(val1, kt.Transform):
        assert_equal(np.asarray(val1.p), np.asarray(val2.p), tol)
        assert val1.R.is_same_rotation(val2.R, tol), f"rotations differ: {val1.R} {val2.R}"
        return
    a, b = np.asarray(val1, dtype=float), np.asarray(val2, dtype=float)
    if a.shape == ():
        assert abs(a - b) < tol, f"|{a} - {b}| >= {tol:g}"
    elif a.shape == (3,):
        norm = max(float(np.linalg.norm(a)), 1.0)
        assert np.all(np.abs(a - b) < tol * norm), f"{a} != {b} to {tol:g} x {norm:g}"
    elif a.shape == (6,):
        assert_equal(a[:3], b[:3], tol)
        assert_equal(a[3:], b[3:], tol)
    else:
        assert a.shape == b.shape, f"sizes differ: {a.shape} {b.shape}"
        for x, y in zip(a.ravel(), b.ravel()):
            assert_equal(x, y, tol)


def rotate(R, F):
    """A Rotation times a spatial vector: both halves rotated (SimTK's Rotation*SpatialVec)."""
    F = np.asarray(F, dtype=float)
    return np.concatenate([R @ F[:3], R @ F[3:]])


def spatial(moment, force):
    return np.concatenate([np.asarray(moment, dtype=float), np.asarray(force, dtype=float)])


ZERO = np.zeros(6)


def compare_reaction_to_constraint(reaction_force, constraint, state):
    """compareReactionToConstraint: the reaction on constrained body 1, shifted from its
    mobilizer frame M to its origin, equals minus the constraint's force on that body (the
    forces of its multipliers, re-expressed from the ancestor frame in Ground)."""
    constraint_force, mobility_force = constraint.calc_constraint_forces_from_multipliers(
        state, constraint.get_multipliers_as_vector(state))
    assert len(constraint_force) == constraint.get_num_constrained_bodies()
    assert len(mobility_force) == constraint.get_num_constrained_u(state)
    # Transform the reaction force from the joint location to the body location.
    reaction_force = np.array(reaction_force, dtype=float)
    body = constraint.get_mobilized_body_from_constrained_body(1)
    R_GB = body.get_body_transform(state).R
    local_force = R_GB.invert() @ reaction_force[3:]
    reaction_force[:3] += R_GB @ np.cross(body.get_outboard_frame(state).p, local_force)
    R_GA = constraint.get_ancestor_mobilized_body().get_body_rotation(state)
    assert_equal(reaction_force, -1 * rotate(R_GA, constraint_force[1]))


def test_by_comparing_to_constraints():
    """testByComparingToConstraints: equivalent mobilizers and constraints make the same
    forces."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.8, 0])

    # Create two free joints (which should produce no reaction forces).
    body = kt.Body.Rigid(kt.MassProperties(1.3, [0, 0, 0], kt.Inertia(1.3)))
    f1 = kt.MobilizedBody.Free(matter.upd_ground(), kt.Transform([0, 0, 0]), body,
                               kt.Transform([BOND_LENGTH, 0, 0]))
    f2 = kt.MobilizedBody.Free(f1, kt.Transform([0, 0, 0]), body,
                               kt.Transform([BOND_LENGTH, 0, 0]))

    # Two ball joints, and two free joints constrained to act like ball joints.
    fb1 = kt.MobilizedBody.Free(matter.upd_ground(), kt.Transform([0, 0, 0]), body,
                                kt.Transform([BOND_LENGTH, 0, 0]))
    fb2 = kt.MobilizedBody.Free(fb1, kt.Transform([0, 0, BOND_LENGTH]), body,
                                kt.Transform([BOND_LENGTH, 0, 0]))
    fb1constraint = kt.Constraint.Ball(matter.upd_ground(), [0, 0, 0], fb1,
                                       [BOND_LENGTH, 0, 0])
    fb2constraint = kt.Constraint.Ball(fb1, [0, 0, BOND_LENGTH], fb2, [BOND_LENGTH, 0, 0])
    b1 = kt.MobilizedBody.Ball(matter.upd_ground(), kt.Transform([0, 0, 0]), body,
                               kt.Transform([BOND_LENGTH, 0, 0]))
    b2 = kt.MobilizedBody.Ball(b1, kt.Transform([0, 0, BOND_LENGTH]), body,
                               kt.Transform([BOND_LENGTH, 0, 0]))
    kt.Force.ConstantTorque(forces, fb2, [0.1, 0.1, 1.0])
    kt.Force.ConstantTorque(forces, b2, [0.1, 0.1, 1.0])

    # Two translation joints, and two free joints constrained to act like translation joints.
    ft1 = kt.MobilizedBody.Free(matter.upd_ground(), kt.Transform([0, 0, 0]), body,
                                kt.Transform([BOND_LENGTH, 0, 0]))
    ft2 = kt.MobilizedBody.Free(ft1, kt.Transform([0, 0, 0]), body,
                                kt.Transform([0, BOND_LENGTH, 0]))
    identity = kt.Rotation.about_axis(0, [1, 1, 1])
    ft1constraint = kt.Constraint.ConstantOrientation(matter.upd_ground(), identity, ft1,
                                                      identity)
    ft2constraint = kt.Constraint.ConstantOrientation(ft1, identity, ft2, identity)
    t1 = kt.MobilizedBody.Translation(matter.upd_ground(), kt.Transform([0, 0, 0]), body,
                                      kt.Transform([BOND_LENGTH, 0, 0]))
    t2 = kt.MobilizedBody.Translation(t1, kt.Transform([0, 0, 0]), body,
                                      kt.Transform([0, BOND_LENGTH, 0]))
    kt.Force.ConstantTorque(forces, ft2, [0.1, 0.1, 1.0])
    kt.Force.ConstantTorque(forces, t2, [0.1, 0.1, 1.0])

    # Create the state.
    system.realize_topology()
    state = system.get_default_state()
    rng = np.random.default_rng(0)
    y = state.upd_y()
    for i in range(state.get_num_y()):
        y[i] = rng.standard_normal()
    system.realize(state, kt.Stage.VELOCITY)
    b1transform = b1.get_mobilizer_transform(state)
    b2transform = b2.get_mobilizer_transform(state)
    b1velocity = b1.get_mobilizer_velocity(state)
    b2velocity = b2.get_mobilizer_velocity(state)
    t1transform = t1.get_mobilizer_transform(state)
    t2transform = t2.get_mobilizer_transform(state)
    t1velocity = t1.get_mobilizer_velocity(state)
    t2velocity = t2.get_mobilizer_velocity(state)
    fb1.set_q_to_fit_transform(state, b1transform)
    fb2.set_q_to_fit_transform(state, b2transform)
    fb1.set_u_to_fit_velocity(state, b1velocity)
    fb2.set_u_to_fit_velocity(state, b2velocity)
    ft1.set_q_to_fit_transform(state, t1transform)
    ft2.set_q_to_fit_transform(state, t2transform)
    ft1.set_u_to_fit_velocity(state, t1velocity)
    ft2.set_u_to_fit_velocity(state, t2velocity)

    system.project(state, TOL)
    system.realize(state, kt.Stage.ACCELERATION)

    # Make sure the free and constrained bodies really are identical.
    assert_equal(b1.get_body_transform(state), fb1.get_body_transform(state))
    assert_equal(b2.get_body_transform(state), fb2.get_body_transform(state))
    assert_equal(b1.get_body_velocity(state), fb1.get_body_velocity(state))
    assert_equal(b2.get_body_velocity(state), fb2.get_body_velocity(state))
    assert_equal(t1.get_body_transform(state), ft1.get_body_transform(state))
    assert_equal(t2.get_body_transform(state), ft2.get_body_transform(state))
    assert_equal(t1.get_body_velocity(state), ft1.get_body_velocity(state))
    assert_equal(t2.get_body_velocity(state), ft2.get_body_velocity(state))

    # Calculate the mobility reaction forces.
    forces_at_m_in_g = matter.calc_mobilizer_reaction_forces(state)
    assert len(forces_at_m_in_g) == matter.get_num_bodies()

    # Check that the bulk calculation matches the body-by-body calculation.
    for bx in range(matter.get_num_bodies()):
        assert_equal(forces_at_m_in_g[bx], matter.get_mobilized_body(bx)
                     .find_mobilizer_reaction_on_body_at_m_in_ground(state))

    # Make sure all free bodies have no reaction force on them.
    for free in (f1, f2, fb1, fb2, ft1, ft2):
        assert_equal(forces_at_m_in_g[free.get_mobilized_body_index()], ZERO)

    # The reaction forces should match the corresponding constraint forces.
    compare_reaction_to_constraint(forces_at_m_in_g[b1.get_mobilized_body_index()],
                                   fb1constraint, state)
    compare_reaction_to_constraint(forces_at_m_in_g[b2.get_mobilized_body_index()],
                                   fb2constraint, state)
    compare_reaction_to_constraint(forces_at_m_in_g[t1.get_mobilized_body_index()],
                                   ft1constraint, state)
    compare_reaction_to_constraint(forces_at_m_in_g[t2.get_mobilized_body_index()],
                                   ft2constraint, state)


def test_by_comparing_to_constraints2():
    """testByComparingToConstraints2 (Simbody bug #1535, wrong reaction torques): two
    identical double pendulums, one on Pin joints and one on Free joints with five
    constraints each."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [10, -9.8, 3])

    pendulum_body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    pendulum_body.add_decoration(kt.Transform(), kt.DecorativeSphere(0.1))

    # First double pendulum, using Pin joints.
    x45 = kt.Rotation.about_x(math.pi / 4)
    pendulum1 = kt.MobilizedBody.Pin(matter.upd_ground(), kt.Transform(x45, [0, -1, 0]),
                                     pendulum_body, kt.Transform([0, 1, 0]))
    pendulum1b = kt.MobilizedBody.Pin(pendulum1, kt.Transform(x45, [0, -1, 0]),
                                      pendulum_body, kt.Transform([0, 1, 0]))

    # Second double pendulum, using Free joints plus 5 constraints.
    pendulum2 = kt.MobilizedBody.Free(matter.upd_ground(), kt.Transform(x45, [2, -1, 0]),
                                      pendulum_body, kt.Transform([0, 1, 0]))
    ballcons2 = kt.Constraint.Ball(matter.upd_ground(), [2, -1, 0], pendulum2, [0, 1, 0])
    X_GF2 = pendulum2.get_default_inboard_frame()
    X_P2M = pendulum2.get_default_outboard_frame()
    angx2 = kt.Constraint.ConstantAngle(matter.Ground(), X_GF2.x(), pendulum2, X_P2M.z())
    angy2 = kt.Constraint.ConstantAngle(matter.Ground(), X_GF2.y(), pendulum2, X_P2M.z())

    pendulum2b = kt.MobilizedBody.Free(pendulum2, kt.Transform(x45, [0, -1, 0]),
                                       pendulum_body, kt.Transform([0, 1, 0]))
    ballcons2b = kt.Constraint.Ball(pendulum2, [0, -1, 0], pendulum2b, [0, 1, 0])
    X_GF2b = pendulum2b.get_default_inboard_frame()
    X_P2Mb = pendulum2b.get_default_outboard_frame()
    angx2b = kt.Constraint.ConstantAngle(pendulum2, X_GF2b.x(), pendulum2b, X_P2Mb.z())
    angy2b = kt.Constraint.ConstantAngle(pendulum2, X_GF2b.y(), pendulum2b, X_P2Mb.z())

    # Initialize the system and state.
    system.realize_topology()
    state = system.get_default_state()
    pendulum1.set_one_q(state, 0, math.pi / 4)
    pendulum1.set_one_u(state, 0, 1.0)  # initial velocity 1 rad/sec

    pendulum1b.set_one_u(state, 0, 1.0)  # initial velocity 1 rad/sec
    pendulum1b.set_one_q(state, 0, math.pi / 4)

    pendulum2.set_q_to_fit_rotation(state, kt.Rotation.about_z(math.pi / 4))
    pendulum2.set_u_to_fit_angular_velocity(state, [0, 0, 1])
    pendulum2b.set_q_to_fit_rotation(state, kt.Rotation.about_z(math.pi / 4))
    pendulum2b.set_u_to_fit_angular_velocity(state, [0, 0, 1])

    system.realize(state)

    forces_at_m_in_g = matter.calc_mobilizer_reaction_forces(state)

    # Check that the bulk results match the individual ones, and fill up the Vector of
    # reaction on the parent bodies.
    forces_at_f_in_g = np.zeros_like(forces_at_m_in_g)
    for mbx in range(matter.get_num_bodies()):
        assert_eq(forces_at_m_in_g[mbx], matter.get_mobilized_body(mbx)
                  .find_mobilizer_reaction_on_body_at_m_in_ground(state))
        forces_at_f_in_g[mbx] = matter.get_mobilized_body(mbx) \
            .find_mobilizer_reaction_on_parent_at_f_in_ground(state)

    # Now convert forces on B at M to forces on P at F by hand, and compare with the ones
    # we got by asking the mobilized body.
    forces_at_f_in_g_byhand = np.zeros_like(forces_at_m_in_g)
    forces_at_f_in_g_byhand[0] = -forces_at_m_in_g[0]  # Ground is "welded" at origin
    for i in range(1, matter.get_num_bodies()):
        body = matter.get_mobilized_body(i)
        parent = body.get_parent_mobilized_body()
        # Shift the reaction by p_MF, the vector from M to F across the mobilizer, and
        # negate. p_FM is at hand; it must be re-expressed in G.
        p_FM = body.get_mobilizer_transform(state).p
        R_PF = body.get_inboard_frame(state).R  # In parent.
        R_GP = parent.get_body_transform(state).R
        R_GF = R_GP @ R_PF  # F frame orientation in Ground.
        p_MF_G = -(R_GF @ p_FM)  # Re-express and negate shift vector.
        forces_at_f_in_g_byhand[i] = -shift_force_by(forces_at_m_in_g[i], p_MF_G)

    assert_eq(forces_at_f_in_g, forces_at_f_in_g_byhand)

    # Shift the reaction forces to body origins for easy comparison with the reported
    # constraint forces.
    forces_at_b_in_g = np.zeros_like(forces_at_m_in_g)
    p1x = pendulum1.get_mobilized_body_index()
    p1bx = pendulum1b.get_mobilized_body_index()
    R_G1 = pendulum1.get_body_transform(state).R
    R_G1b = pendulum1b.get_body_transform(state).R
    forces_at_b_in_g[p1x] = shift_force_from_to(forces_at_m_in_g[p1x], R_G1 @ [0, 1, 0],
                                                [0, 0, 0])
    forces_at_b_in_g[p1bx] = shift_force_from_to(forces_at_m_in_g[p1bx], R_G1b @ [0, 1, 0],
                                                 [0, 0, 0])

    # Compare those manually-shifted quantities to the ones we can get directly from the
    # MobilizedBody.
    forces_at_b_in_g_p1 = pendulum1.find_mobilizer_reaction_on_body_at_origin_in_ground(state)
    forces_at_b_in_g_p1b = pendulum1b.find_mobilizer_reaction_on_body_at_origin_in_ground(
        state)

    assert_eq(forces_at_b_in_g[p1x], forces_at_b_in_g_p1)
    assert_eq(forces_at_b_in_g[p1bx], forces_at_b_in_g_p1b)

    # The constraints apply forces to parent and body; compare the forces on the body, the
    # second entry (the Ball and ConstantAngle constraints order their bodies alike).
    cons2_forces = -(ballcons2.get_constrained_body_forces_as_vector(state)
                     + angx2.get_constrained_body_forces_as_vector(state)
                     + angy2.get_constrained_body_forces_as_vector(state))
    cons2b_forces = -(ballcons2b.get_constrained_body_forces_as_vector(state)
                      + angx2b.get_constrained_body_forces_as_vector(state)
                      + angy2b.get_constrained_body_forces_as_vector(state))

    # Simbody: couldn't quite make the default tolerance on some platforms; 10x default.
    assert_eq_size(cons2_forces[1], forces_at_b_in_g[p1x], 10)
    assert_eq_size(cons2b_forces[1], forces_at_b_in_g[p1bx], 10)


def sdfast_inertia():
    return kt.Inertia(np.array([[0.1, 0.01, 0.01],
                                [0.01, 0.1, 0.01],
                                [0.01, 0.01, 0.1]]))


def body_reaction(body, state, reaction):
    """~R_GB * reaction[body]: a body's reaction at M re-expressed in the body frame."""
    R_GB = body.get_body_transform(state).R
    return rotate(R_GB.invert(), reaction[body.get_mobilized_body_index()])


def test_by_comparing_to_sdfast():
    """testByComparingToSDFAST: a Slider, Pin, Gimbal and Pin chain against SD/FAST."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.8, 0])

    # Construct the set of bodies.
    inertia = sdfast_inertia()
    body1 = kt.MobilizedBody.Slider(matter.upd_ground(), kt.Body.Rigid(
        kt.MassProperties(10.0, [0, 0, 0], inertia)))
    body2 = kt.MobilizedBody.Pin(body1, kt.Transform([0.1, 0.1, 0]), kt.Body.Rigid(
        kt.MassProperties(20.0, [0, 0, 0], inertia)), kt.Transform([0, -0.2, 0]))
    body3 = kt.MobilizedBody.Gimbal(body2, kt.Transform([0, 0.2, 0]), kt.Body.Rigid(
        kt.MassProperties(20.0, [0, 0, 0], inertia)), kt.Transform([0, -0.2, 0]))
    body4 = kt.MobilizedBody.Pin(body3, kt.Transform([0, 0.2, 0]), kt.Body.Rigid(
        kt.MassProperties(30.0, [0, 0, 0], inertia)), kt.Transform([0, -0.2, 0]))
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)

    # Calculate reaction forces, and compare to the values that were generated by SD/FAST.
    reaction = matter.calc_mobilizer_reaction_forces(state)
    assert_equal(body_reaction(body1, state, reaction), spatial([0, 0, 68.6], [0, 784.0, 0]))
    assert_equal(body_reaction(body2, state, reaction), spatial([0, 0, 0], [0, 686.0, 0]))
    assert_equal(body_reaction(body3, state, reaction), spatial([0, 0, 0], [0, 490.0, 0]))
    assert_equal(body_reaction(body4, state, reaction), spatial([0, 0, 0], [0, 294.0, 0]))

    # Now set it to a different configuration and try again.
    body1.set_length(state, 1.0)
    body2.set_angle(state, 0.5)
    r = kt.Rotation.from_three_angles_three_axes(BODY, 0.2, "z", -0.1, "x", 2.0, "y")
    body3.set_q_to_fit_rotation(state, r)
    body4.set_angle(state, -0.5)
    system.realize(state, kt.Stage.ACCELERATION)
    reaction = matter.calc_mobilizer_reaction_forces(state)
    assert_equal(body_reaction(body1, state, reaction),
                 spatial([1.647327, 0.783211, 34.088183], [0, 359.274099, 3.342380]), 1e-5)
    assert_equal(body_reaction(body2, state, reaction),
                 spatial([1.688077, 0.351125, 0], [55.399123, 267.455570, 3.342380]), 1e-5)
    assert_equal(body_reaction(body3, state, reaction),
                 spatial([0, 0, 0], [-17.757553, 174.663042, -11.383057]), 1e-5)
    assert_equal(body_reaction(body4, state, reaction),
                 spatial([0.910890, 0.082353, 0], [-13.977214, 74.444715, 4.943682]), 1e-5)

    # Try giving it momentum.
    state.upd_q()[:] = 0.0
    body2.set_one_u(state, 0, 1)
    body3.set_u_to_fit_angular_velocity(state, [3, 4, 2])
    body4.set_one_u(state, 0, 5)
    system.realize(state, kt.Stage.ACCELERATION)
    reaction = matter.calc_mobilizer_reaction_forces(state)
    assert_equal(body_reaction(body1, state, reaction),
                 spatial([-13.549253, 2.723897, -6.355912], [0, 34.0, -27.088584]), 1e-5)
    assert_equal(body_reaction(body2, state, reaction),
                 spatial([-10.840395, 0.015039, 0], [-0.440882, -64.0, -27.088584]), 1e-5)
    assert_equal(body_reaction(body3, state, reaction),
                 spatial([0, 0, 0], [0.692814, -256.000000, -27.088584]), 1e-5)
    assert_equal(body_reaction(body4, state, reaction),
                 spatial([3.276930, -0.281928, 0], [3.796164, -372.0, 21.472977]), 1e-5)


def test_by_comparing_to_sdfast2():
    """testByComparingToSDFAST2: a femur on a Pin and a tibia on a Slider against SD/FAST."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.8065, 0])

    # Construct the set of bodies.
    femur = kt.Body.Rigid(kt.MassProperties(8.806, [0, 0, 0],
                                            kt.Inertia(0.1268, 0.0332, 0.1337)))
    tibia = kt.Body.Rigid(kt.MassProperties(3.510, [0, 0, 0],
                                            kt.Inertia(0.0477, 0.0048, 0.0484)))
    p1 = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([0.0000, -0.0700, 0.0935]), femur,
                              kt.Transform([0.0020, 0.1715, 0]))
    p2 = kt.MobilizedBody.Slider(p1, kt.Transform([0.0033, -0.2294, 0]), tibia,
                                 kt.Transform([0.0, 0.1862, 0.0]))
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)

    # Calculate reaction forces, and compare to the values that were generated by SD/FAST.
    reaction = matter.calc_mobilizer_reaction_forces(state)
    assert_equal(body_reaction(p1, state, reaction),
                 spatial([0, 0, 0], [0.438079, 120.773069, 0]), 1e-5)
    assert_equal(body_reaction(p2, state, reaction),
                 spatial([0, 0, 0.014040], [0, 34.422139, 0]), 1e-5)

    # Now set it to a different configuration and try again.
    p1.set_one_q(state, 0, -90 * math.pi / 180)
    p2.set_one_q(state, 0, 0.1)
    system.realize(state, kt.Stage.ACCELERATION)
    reaction = matter.calc_mobilizer_reaction_forces(state)
    assert_equal(body_reaction(p1, state, reaction),
                 spatial([0, 0, 0], [-39.481457, 10.489344, 0]), 1e-5)
    assert_equal(body_reaction(p2, state, reaction),
                 spatial([0, 0, 1.502242], [0, 11.035987, 0]), 1e-5)


def test_by_comparing_to_sdfast_with_constraint():
    """testByComparingToSDFASTWithConstraint: a tree of five Gimbals closed by a Rod
    between bodies 4 and 5, against SD/FAST."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.8, 0])

    # Construct the set of bodies.
    inertia = sdfast_inertia()

    def rigid(mass):
        return kt.Body.Rigid(kt.MassProperties(mass, [0, 0, 0], inertia))

    body1 = kt.MobilizedBody.Gimbal(matter.upd_ground(), rigid(10.0))
    body2 = kt.MobilizedBody.Gimbal(body1, kt.Transform([0, -0.1, 0.2]), rigid(20.0),
                                    kt.Transform([0, 0.2, 0]))
    body3 = kt.MobilizedBody.Gimbal(body1, kt.Transform([0, -0.1, -0.2]), rigid(20.0),
                                    kt.Transform([0, 0.2, 0]))
    body4 = kt.MobilizedBody.Gimbal(body2, kt.Transform([0, -0.2, 0]), rigid(30.0),
                                    kt.Transform([0, 0.2, 0]))
    body5 = kt.MobilizedBody.Gimbal(body3, kt.Transform([0, -0.2, 0]), rigid(30.0),
                                    kt.Transform([0, 0.2, 0]))
    kt.Constraint.Rod(body4, body5, 0.15)
    state = system.realize_topology()
    system.realize(state, kt.Stage.VELOCITY)
    # Simbody (sherm 140506): after the Rod changed from distance² to distance equations it
    # assembled slightly differently and missed this test's precision, so the project()
    # call was replaced by the q the squared equations assembled to; with the same q the
    # reactions are the same whichever equations the Rod uses.
    q = [0, 0, 0, 0.189000969332574, 0, 0, -0.189000969332574, 0, 0,
         0.0628990902570866, 0, 0, -0.0628990902570866, 0, 0]
    state.upd_q()[:] = q
    system.realize(state, kt.Stage.ACCELERATION)

    # Calculate reaction forces, and compare to the values that were generated by SD/FAST.
    reaction = matter.calc_mobilizer_reaction_forces(state)
    assert_equal(body_reaction(body1, state, reaction),
                 spatial([0, 0, 0], [-0.000626, 1077.988912, 0.000030]), 1e-5)
    assert_equal(body_reaction(body2, state, reaction),
                 spatial([0, 0, 0], [-0.005038, 495.288692, -18.767467]), 1e-5)
    assert_equal(body_reaction(body3, state, reaction),
                 spatial([0, 0, 0], [0.004236, 495.287857, 18.767535]), 1e-5)
    assert_equal(body_reaction(body4, state, reaction),
                 spatial([0, 0, 0], [0.006251, 303.365940, -0.202330]), 1e-5)
    assert_equal(body_reaction(body5, state, reaction),
                 spatial([0, 0, 0], [-0.005933, 303.365472, 0.202301]), 1e-5)

    # Now set it to a different configuration and try again.
    def zxy(a, b, c):
        return kt.Rotation.from_three_angles_three_axes(BODY, a, "z", b, "x", c, "y")

    body1.set_q_to_fit_rotation(state, zxy(1.0, 1.0, 1.0))
    body2.set_q_to_fit_rotation(state, zxy(0.433843, 0.647441, 0.500057))
    body3.set_q_to_fit_rotation(state, zxy(0.066156, -0.117266, -0.047605))
    body4.set_q_to_fit_rotation(state, zxy(0.000997, 0.055206, 0.0))
    body5.set_q_to_fit_rotation(state, zxy(1.008746, 0.951972, 1.0))
    system.realize(state, kt.Stage.ACCELERATION)
    reaction = matter.calc_mobilizer_reaction_forces(state)
    assert_equal(body_reaction(body1, state, reaction),
                 spatial([0, 0, 0], [99.121319, 139.500095, 95.065409]), 1e-5)
    assert_equal(body_reaction(body2, state, reaction),
                 spatial([0, 0, 0], [15.359115, 55.876994, 22.508078]), 1e-5)
    assert_equal(body_reaction(body3, state, reaction),
                 spatial([0, 0, 0], [15.696393, 65.002065, 13.133021]), 1e-5)
    assert_equal(body_reaction(body4, state, reaction),
                 spatial([0, 0, 0], [-6.262023, 32.714510, -9.770708]), 1e-5)
    assert_equal(body_reaction(body5, state, reaction),
                 spatial([0, 0, 0], [10.471620, 0.963822, -4.640161]), 1e-5)


# A free body in space with forces applied to it: as long as no mobility forces are
# applied, the reaction in its mobilizer is zero. Done with a full inertia, an offset mass
# center, a non-unit mass, twisted frames and nonzero velocities.
D = 1.5  # length (m)
MASS = 2  # kg
X_GF = kt.Transform(kt.Rotation.about_axis(math.pi / 3, [.1, -.3, .3]), [-4, -5, -1])
X_BM = kt.Transform(kt.Rotation.about_axis(-math.pi / 10, [7, 5, 3]), [0, D, 0])


def test_free_mobilizer():
    """testFreeMobilizer: a Free joint reacts with nothing."""
    forward = kt.MultibodySystem()
    fwd_matter = kt.SimbodyMatterSubsystem(forward)
    fwd_forces = kt.GeneralForceSubsystem(forward)
    kt.Force.UniformGravity(fwd_forces, fwd_matter, [0, -1, 0])

    com = [1, 2, 3]
    central_gyration = kt.UnitInertia(1, 1.5, 2, .1, .2, .3)
    body = kt.Body.Rigid(kt.MassProperties(
        MASS, com, MASS * central_gyration.shift_from_mass_center(com, 1)))

    fwd_a = kt.MobilizedBody.Free(fwd_matter.Ground(), X_GF, body, X_BM)

    kt.Force.ConstantForce(fwd_forces, fwd_a, [-1, .27, 4], [5, .6, -1])
    kt.Force.ConstantTorque(fwd_forces, fwd_a, [-5.5, 1.6, -1.1])

    fwd_state = forward.realize_topology()
    fwd_a.set_q_to_fit_transform(fwd_state, kt.Transform(
        kt.Rotation.about_axis(math.pi / 9, [-1.8, 4, 2.2]), [.1, .2, .7]))

    forward.realize(fwd_state, kt.Stage.POSITION)

    fwd_a.set_u_to_fit_velocity(fwd_state, spatial([.99, 2, 4], [-1.2, 4, .000333]))
    forward.realize(fwd_state, kt.Stage.VELOCITY)
    forward.realize(fwd_state, kt.Stage.ACCELERATION)

    fwd_reac = fwd_matter.calc_mobilizer_reaction_forces(fwd_state)

    # We expect no reaction from a Free joint.
    assert_equal(fwd_reac[0], ZERO)
    assert_equal(fwd_reac[1], ZERO)
