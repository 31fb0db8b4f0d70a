"""A port of Simbody's own test Simbody/tests/TestLoneParticle.cpp to kinetree.

Simbody gives a Translation mobilizer whose frames are all identity a special
implementation (a lone particle) and checks that it agrees with the general Translation in
every operator. kinetree has one Translation, so here the pairs are the same general
mobilizer with identity frames and with an offset of 1e-100 m, as in Simbody; what the
port keeps is Simbody's list of quantities, each compared between the two bodies of a pair,
with the bodies free and with their motion prescribed by Motion.Sinusoid at POSITION,
VELOCITY and ACCELERATION level: positions, velocities and accelerations, the mobilizer
reaction forces by two methods (which must agree), M u and M⁻¹ u (the latter only without
prescribed motion), inverse dynamics, Jᵀ F, composite inertias, and the hinge columns.

Simbody's Random::Gaussian(0, 3) comes from a seeded numpy generator; TOL = 1e-10 as in
Simbody's assertEqual.
"""

import numpy as np
import pytest

import kinetree as kt

TOL = 1e-10
NUM_BODIES = 10


def assert_equal(a, b):
    assert np.all(np.abs(np.asarray(a) - np.asarray(b)) < TOL), (a, b)


def compare_to_translate(prescribe: bool, level):
    rng = np.random.default_rng(0)

    def gaussian(n=None):
        return rng.normal(0.0, 3.0, n)

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    force = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(force, matter, [1.1, 1.2, 1.3])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    for _ in range(NUM_BODIES):
        # identity frames (Simbody's lone particle) and a 1e-100 offset (its general case)
        body1 = kt.MobilizedBody.Translation(matter.Ground(), body)
        body2 = kt.MobilizedBody.Translation(matter.Ground(), kt.Transform(), body,
                                             kt.Transform([1e-100, 1e-100, 1e-100]))
        station1, station2 = gaussian(3), gaussian(3)
        length = gaussian()
        kt.Force.TwoPointLinearSpring(force, matter.Ground(), station1, body1, station2, 1.0,
                                      abs(length))
        kt.Force.TwoPointLinearSpring(force, matter.Ground(), station1, body2, station2, 1.0,
                                      abs(length))
        if prescribe:
            phase = gaussian()
            kt.Motion.Sinusoid(body1, level, 1.5, 1.1, phase)
            kt.Motion.Sinusoid(body2, level, 1.5, 1.1, phase)

    state = system.realize_topology()
    for i in range(NUM_BODIES):
        pos, vel = gaussian(3), gaussian(3)
        body1 = matter.get_mobilized_body(2 * i + 1)
        body2 = matter.get_mobilized_body(2 * i + 2)
        body1.set_q_to_fit_translation(state, pos)
        body2.set_q_to_fit_translation(state, pos)
        body1.set_u_to_fit_linear_velocity(state, vel)
        body2.set_u_to_fit_linear_velocity(state, vel)

    system.realize(state, kt.Stage.ACCELERATION)
    reaction_forces = matter.calc_mobilizer_reaction_forces(state)
    reaction_forces_freebody = matter.calc_mobilizer_reaction_forces_using_freebody_method(
        state)
    # Both methods should produce the same results.
    np.testing.assert_allclose(reaction_forces, reaction_forces_freebody, rtol=0,
                               atol=1e-10 * max(1.0, np.abs(reaction_forces).max()))

    u = state.get_u()
    mv = matter.multiply_by_m(state, u)
    minvv = matter.multiply_by_m_inv(state, u)
    nu, nb = matter.get_num_mobilities(), matter.get_num_bodies()
    applied_mobility_forces = np.zeros(nu)
    applied_body_forces = np.zeros((nb, 6))
    for i in range(NUM_BODIES):
        mobility_force = rng.normal(0.0, 3.0, 3)
        applied_mobility_forces[6 * i:6 * i + 3] = mobility_force
        applied_mobility_forces[6 * i + 3:6 * i + 6] = mobility_force
        body_force = rng.normal(0.0, 3.0, 6)
        applied_body_forces[2 * i + 1] = body_force
        applied_body_forces[2 * i + 2] = body_force
    residual_mobility_forces = matter.calc_residual_force_ignoring_constraints(
        state, applied_mobility_forces, applied_body_forces, np.zeros(0))
    dEdQ = matter.multiply_by_system_jacobian_transpose(state, applied_body_forces)
    composite_inertias = matter.calc_composite_body_inertias(state)

    # See whether the two Translation mobilizers of each pair produced identical results.
    for i in range(NUM_BODIES):
        index1, index2 = 2 * i + 1, 2 * i + 2
        body1 = matter.get_mobilized_body(index1)
        body2 = matter.get_mobilized_body(index2)
        assert_equal(body1.get_body_origin_location(state),
                     body2.get_body_origin_location(state))
        assert_equal(body1.get_body_origin_velocity(state),
                     body2.get_body_origin_velocity(state))
        assert_equal(body1.get_body_origin_acceleration(state),
                     body2.get_body_origin_acceleration(state))
        assert_equal(reaction_forces[index1][:3], reaction_forces[index2][:3])
        assert_equal(reaction_forces[index1][3:], reaction_forces[index2][3:])
        assert_equal(mv[6 * i:6 * i + 3], mv[6 * i + 3:6 * i + 6])
        if not prescribe:
            assert_equal(minvv[6 * i:6 * i + 3], minvv[6 * i + 3:6 * i + 6])
        assert_equal(residual_mobility_forces[6 * i:6 * i + 3],
                     residual_mobility_forces[6 * i + 3:6 * i + 6])
        assert_equal(dEdQ[6 * i:6 * i + 3], dEdQ[6 * i + 3:6 * i + 6])
        # mass, mass center, and the unit inertia's moments and products
        for R in (composite_inertias[index1], composite_inertias[index2]):
            assert R.shape == (6, 6)
        m1, m2 = composite_inertias[index1][3, 3], composite_inertias[index2][3, 3]
        assert_equal(m1, m2)
        assert_equal(composite_inertias[index1][:3, 3:] / m1,
                     composite_inertias[index2][:3, 3:] / m2)
        assert_equal(np.diag(composite_inertias[index1][:3, :3]) / m1,
                     np.diag(composite_inertias[index2][:3, :3]) / m2)
        assert_equal(composite_inertias[index1][:3, :3] / m1,
                     composite_inertias[index2][:3, :3] / m2)
        for j in range(3):
            assert_equal(body1.get_h_col(state, j), body2.get_h_col(state, j))
            assert_equal(body1.get_h_fm_col(state, j), body2.get_h_fm_col(state, j))


def test_free():
    compare_to_translate(False, kt.Motion.Level.POSITION)


@pytest.mark.parametrize("level", [kt.Motion.Level.POSITION, kt.Motion.Level.VELOCITY,
                                   kt.Motion.Level.ACCELERATION],
                         ids=["position", "velocity", "acceleration"])
def test_prescribe(level):
    compare_to_translate(True, level)
