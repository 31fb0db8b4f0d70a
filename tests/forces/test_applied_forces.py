"""The applied forces as a whole: MultibodySystem.get_rigid_body_forces / get_mobility_forces
(Simbody's per-stage force accumulators) and GeneralForceSubsystem.calc_force_contributions_sum
(the sum of a subset of elements), checked against the elements' own forces and against
inverse dynamics: M u̇ + c(q, u) - f - Jᵀ F = 0 with the forces these return."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError


class Drag(kt.Force.Custom.Implementation):
    """A user force: -c v at every body origin (in Ground)."""

    def __init__(self, matter, c):
        self.matter, self.c = matter, c

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        for b in range(1, self.matter.get_num_bodies()):
            v = self.matter.get_mobilized_body(b).get_body_origin_velocity(state)
            body_forces[b, 3:] -= self.c * v


def model():
    rng = np.random.default_rng(5)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.2, [0.1, -0.2, 0.05],
                                           kt.Inertia(0.3, 0.35, 0.4, 0.01, 0.0, 0.02)))
    X = kt.Transform(kt.Rotation.about_axis(0.3, [0, 1, 1]), [0.2, 0.7, 0])
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, X)
    ball = kt.MobilizedBody.Ball(pin, X, body, kt.Transform())
    slider = kt.MobilizedBody.Slider(ball, X, body, X.invert())
    elements = [
        kt.Force.Gravity(forces, matter, [0.1, -1, 0.2], 9.81),
        kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [0, 1, 0], slider,
                                      [0.1, 0, 0], 40.0, 0.3),
        kt.Force.MobilityLinearDamper(forces, pin, 0, 0.7),
        kt.Force.Custom(forces, Drag(matter, 0.4)),
        kt.Force.MobilityDiscreteForce(forces, slider, 0, 1.1),
    ]
    state = system.realize_topology()
    state.upd_q()[:] = rng.normal(size=state.get_num_q())
    state.upd_u()[:] = rng.normal(size=state.get_num_u())
    system.project(state)
    return system, matter, forces, elements, state


def test_system_forces_are_the_sum_of_the_elements_and_satisfy_inverse_dynamics():
    system, matter, forces, elements, state = model()
    system.realize(state, kt.Stage.ACCELERATION)
    F = system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)
    f = system.get_mobility_forces(state, kt.Stage.DYNAMICS)
    assert not F.flags.writeable and not f.flags.writeable
    F_sum, f_sum = np.zeros_like(F), np.zeros_like(f)
    for element in elements:
        element.calc_force(state, F_sum, None, f_sum)
    np.testing.assert_allclose(F, F_sum, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(f, f_sum, rtol=1e-13, atol=1e-13)
    residual = matter.calc_residual_force(state, f, F, state.get_u_dot())
    np.testing.assert_allclose(residual, 0.0, atol=1e-10)
    # every force is applied during DYNAMICS: nothing through the earlier stages
    for stage in (kt.Stage.MODEL, kt.Stage.INSTANCE, kt.Stage.TIME, kt.Stage.POSITION,
                  kt.Stage.VELOCITY):
        np.testing.assert_array_equal(system.get_rigid_body_forces(state, stage), 0.0)
        np.testing.assert_array_equal(system.get_mobility_forces(state, stage), 0.0)


def test_system_forces_need_their_stage():
    system, matter, forces, elements, state = model()
    state.invalidate_all(kt.Stage.DYNAMICS)
    assert system.get_mobility_forces(state, kt.Stage.VELOCITY).shape == (5,)
    with pytest.raises(kt.StageTooLowError):
        system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)
    with pytest.raises(InvalidArgumentError, match="MODEL through DYNAMICS"):
        system.get_mobility_forces(state, kt.Stage.ACCELERATION)


def test_contributions_sum_of_a_subset():
    system, matter, forces, elements, state = model()
    system.realize(state, kt.Stage.VELOCITY)
    gravity, spring, damper, drag, push = elements
    F, f = forces.calc_force_contributions_sum(state, [drag, 0, 2])
    F_hand, f_hand = np.zeros_like(F), np.zeros_like(f)
    for element in (gravity, damper, drag):
        element.calc_force(state, F_hand, None, f_hand)
    np.testing.assert_allclose(F, F_hand, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(f, f_hand, rtol=1e-14, atol=1e-14)

    # the order does not matter; given arrays are zeroed, filled and returned
    F_out, f_out = np.full_like(F, 7.0), np.full_like(f, 7.0)
    got = forces.calc_force_contributions_sum(state, [2, drag, gravity], F_out, f_out)
    assert got[0] is F_out and got[1] is f_out
    np.testing.assert_allclose(F_out, F, rtol=1e-14, atol=1e-14)

    # a disabled element contributes nothing
    damper.disable(state)
    system.realize(state, kt.Stage.VELOCITY)
    F2, f2 = forces.calc_force_contributions_sum(state, [gravity, damper, drag])
    F_hand, f_hand = np.zeros_like(F), np.zeros_like(f)
    for element in (gravity, drag):
        element.calc_force(state, F_hand, None, f_hand)
    np.testing.assert_allclose(f2, f_hand, rtol=1e-14, atol=1e-14)

    # all of them: the system's applied forces
    spring.disable(state)
    damper.enable(state)
    system.realize(state, kt.Stage.VELOCITY)
    everything = forces.calc_force_contributions_sum(state, range(forces.get_num_forces()))
    system.realize(state, kt.Stage.DYNAMICS)
    np.testing.assert_allclose(everything[0], system.get_rigid_body_forces(
        state, kt.Stage.DYNAMICS), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(everything[1], system.get_mobility_forces(
        state, kt.Stage.DYNAMICS), rtol=1e-13, atol=1e-13)
    assert forces.is_force_disabled(state, 1) and not forces.is_force_disabled(state, damper)


def test_contributions_sum_refuses_what_it_cannot_use():
    system, matter, forces, elements, state = model()
    state.invalidate_all(kt.Stage.VELOCITY)
    system.realize(state, kt.Stage.POSITION)
    with pytest.raises(kt.StageTooLowError):          # the damper needs VELOCITY
        forces.calc_force_contributions_sum(state, [2])
    forces.calc_force_contributions_sum(state, [0, 1])
    with pytest.raises(InvalidArgumentError, match="no force 9"):
        forces.calc_force_contributions_sum(state, [9])
    with pytest.raises(InvalidArgumentError, match="list"):
        forces.calc_force_contributions_sum(state, 0)
    with pytest.raises(InvalidArgumentError, match="shape"):
        forces.calc_force_contributions_sum(state, [0], np.zeros((2, 6)))
