"""Force.DiscreteForces and Force.MobilityDiscreteForce: forces held in the State move the
bodies as M u̇ = f + Jᵀ F says, a force at a point equals ConstantForce there, changes
invalidate DYNAMICS and no more, and forces set by an event handler act from then on."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError


def chain():
    """(system, matter, forces, bodies, state): a Pin, a Ball on it and a Slider on that,
    at rest in a bent pose, no other force."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.5, [0.1, 0.2, 0], kt.Inertia(0.3, 0.4, 0.5, 0.01)))
    X = kt.Transform(kt.Rotation.about_axis(0.4, [1, 1, 0]), [0, 0.8, 0.1])
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, X)
    ball = kt.MobilizedBody.Ball(pin, X, body, kt.Transform())
    slider = kt.MobilizedBody.Slider(ball, X.invert(), body, X)
    return system, matter, forces, (pin, ball, slider)


def bent(system, bodies):
    state = system.realize_topology()
    bodies[0].set_one_q(state, 0, 0.6)
    bodies[1].set_q(state, kt.Rotation.about_axis(0.5, [1, -2, 3])
                    .convert_rotation_to_quaternion())
    bodies[2].set_one_q(state, 0, 0.3)
    return state


def test_mobility_forces_give_m_udot_equal_f():
    system, matter, forces, bodies = chain()
    discrete = kt.Force.DiscreteForces(forces, matter)
    state = bent(system, bodies)
    f = np.array([0.7, -1.2, 0.4, 2.0, -0.5])
    discrete.set_all_mobility_forces(state, f)
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(matter.calc_m(state) @ state.get_u_dot(), f, atol=1e-12)
    np.testing.assert_array_equal(discrete.get_all_mobility_forces(state), f)
    assert discrete.get_one_mobility_force(state, bodies[1], 2) == f[1 + 2]   # after the pin

    discrete.set_one_mobility_force(state, bodies[2], 0, -3.0)
    f[4] = -3.0
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(matter.calc_m(state) @ state.get_u_dot(), f, atol=1e-12)
    discrete.clear_all_mobility_forces(state)
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), 0.0, atol=1e-15)


def test_body_forces_give_m_udot_equal_j_transpose_f():
    system, matter, forces, bodies = chain()
    discrete = kt.Force.DiscreteForces(forces, matter)
    state = bent(system, bodies)
    F = np.random.default_rng(3).normal(size=(4, 6))
    discrete.set_all_body_forces(state, F)
    system.realize(state, kt.Stage.ACCELERATION)
    J = matter.calc_system_jacobian(state)
    np.testing.assert_allclose(matter.calc_m(state) @ state.get_u_dot(), J.T @ F.ravel(),
                               atol=1e-12)
    np.testing.assert_array_equal(discrete.get_one_body_force(state, bodies[1]), F[2])
    discrete.set_one_body_force(state, bodies[1], np.zeros(6))
    F[2] = 0.0
    np.testing.assert_array_equal(discrete.get_all_body_forces(state), F)
    discrete.clear_all_forces(state)
    np.testing.assert_array_equal(discrete.get_all_body_forces(state), 0.0)


def test_a_force_at_a_point_is_constant_force_there():
    station, force = [0.3, -0.2, 0.5], [1.0, -2.0, 0.7]
    system, matter, forces, bodies = chain()
    kt.Force.ConstantForce(forces, bodies[1], station, force)
    expected = bent(system, bodies)
    system.realize(expected, kt.Stage.ACCELERATION)

    system, matter, forces, bodies = chain()
    discrete = kt.Force.DiscreteForces(forces, matter)
    state = bent(system, bodies)
    system.realize(state, kt.Stage.POSITION)
    discrete.add_force_to_body_point(state, bodies[1], station, np.multiply(force, 0.25))
    discrete.add_force_to_body_point(state, bodies[1], station, np.multiply(force, 0.75))
    assert state.get_system_stage() == kt.Stage.POSITION
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), expected.get_u_dot(), rtol=1e-13, atol=1e-14)
    r = bodies[1].get_body_rotation(state).as_matrix() @ station
    np.testing.assert_allclose(discrete.get_one_body_force(state, bodies[1]),
                               [*np.cross(r, force), *force], rtol=1e-14)


def test_changes_invalidate_dynamics_only_and_stay_per_state():
    system, matter, forces, bodies = chain()
    discrete = kt.Force.DiscreteForces(forces, matter)
    single = kt.Force.MobilityDiscreteForce(forces, bodies[0], 0, 1.5)
    state = bent(system, bodies)
    system.realize(state, kt.Stage.ACCELERATION)
    other = state.copy()
    for change in (lambda s: discrete.set_one_mobility_force(s, bodies[0], 0, 2.0),
                   lambda s: discrete.set_one_body_force(s, bodies[2], np.ones(6)),
                   lambda s: single.set_mobility_force(s, -4.0)):
        system.realize(state, kt.Stage.ACCELERATION)
        change(state)
        assert state.get_system_stage() == kt.Stage.VELOCITY
    assert single.get_mobility_force(state) == -4.0
    assert single.get_mobility_force(other) == single.get_default_mobility_force() == 1.5
    assert discrete.get_one_mobility_force(other, bodies[0], 0) == 0.0
    assert other.get_system_stage() == kt.Stage.ACCELERATION


def test_mobility_discrete_force_on_a_pin_and_a_slider():
    """u̇ = f / I about the pin axis, u̇ = f / m along the slider (hand computations)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    mp = kt.MassProperties(2.0, [0.5, 0, 0], kt.Inertia(0.5, 0.8, 0.9))   # about the origin
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), kt.Body.Rigid(mp),
                               kt.Transform())
    slider = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), kt.Body.Rigid(mp),
                                     kt.Transform())
    torque = kt.Force.MobilityDiscreteForce(forces, pin, 0, 1.8)
    push = kt.Force.MobilityDiscreteForce(forces, slider, default_force=-3.0)
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)
    assert pin.get_one_u_dot(state, 0) == pytest.approx(1.8 / 0.9, rel=1e-14)
    assert slider.get_one_u_dot(state, 0) == pytest.approx(-3.0 / 2.0, rel=1e-14)
    push.set_mobility_force(state, 5.0)
    system.realize(state, kt.Stage.ACCELERATION)
    assert slider.get_one_u_dot(state, 0) == pytest.approx(2.5, rel=1e-14)
    assert system.calc_potential_energy(state) == 0.0

    torque.set_default_mobility_force(0.9)                      # a topology change
    fresh = system.realize_topology()
    system.realize(fresh, kt.Stage.ACCELERATION)
    assert pin.get_one_u_dot(fresh, 0) == pytest.approx(1.0, rel=1e-14)


def test_forces_set_by_an_event_handler_act_from_then_on():
    """A slider of 2 kg at rest; a handler at t = 1 s sets 4 N: x(3) = ½ (4/2) 2² = 4 m."""

    class Push(kt.PeriodicEventHandler):
        def handle_event(self, state, accuracy):
            if abs(state.get_time() - 1.0) < 1e-9:
                discrete.set_one_mobility_force(state, slider, 0, 4.0)

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    slider = kt.MobilizedBody.Slider(
        matter.Ground(), kt.Transform(),
        kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.1))), kt.Transform())
    discrete = kt.Force.DiscreteForces(forces, matter)
    system.add_event_handler(Push(1.0))
    state = system.realize_topology()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-9)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(3.0)
    final = ts.get_state()
    assert slider.get_one_q(final, 0) == pytest.approx(4.0, rel=1e-9)
    assert slider.get_one_u(final, 0) == pytest.approx(4.0, rel=1e-9)


def test_bad_arguments_are_refused():
    system, matter, forces, bodies = chain()
    discrete = kt.Force.DiscreteForces(forces, matter)
    state = bent(system, bodies)
    with pytest.raises(InvalidArgumentError, match="out of range"):
        discrete.set_one_mobility_force(state, bodies[0], 1, 1.0)
    with pytest.raises(InvalidArgumentError, match=r"shape \(5,\)"):
        discrete.set_all_mobility_forces(state, np.ones(4))
    with pytest.raises(InvalidArgumentError, match=r"shape \(4, 6\)"):
        discrete.set_all_body_forces(state, np.ones((3, 6)))
    with pytest.raises(InvalidArgumentError, match="finite"):
        discrete.set_one_body_force(state, bodies[0], [0, 0, np.nan, 0, 0, 0])
    with pytest.raises(kt.StageTooLowError):
        discrete.add_force_to_body_point(state, bodies[0], [0, 0, 0], [1, 0, 0])
    with pytest.raises(InvalidArgumentError, match="whole number"):
        kt.Force.MobilityDiscreteForce(forces, bodies[0], 2.5)
    kt.Force.MobilityDiscreteForce(forces, bodies[0], 3)
    with pytest.raises(InvalidArgumentError, match="out of range"):
        system.realize_topology()
