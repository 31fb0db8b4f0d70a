"""Rigid contact with impulsive collisions (paper §5.3): bounce times and heights against
the analytic series, capture into a resting constraint bearing m g, release when the
normal force would pull, and a two-body impact conserving momentum."""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

G = 9.81
FLOOR = kt.Transform(kt.Rotation.about_z(-np.pi / 2))
MAT = kt.ContactMaterial(1e6, 0.0, 0.0, 0.0, 0.0)


def world(gravity=True):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    if gravity:
        kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    return system, matter, forces


def ball_body(mass=1.0, radius=0.1):
    body = kt.Body.Rigid(kt.MassProperties(mass, [0, 0, 0], kt.Inertia(0.004)))
    body.add_contact_surface(kt.Transform(),
                             kt.ContactSurface(kt.ContactGeometry.Sphere(radius), MAT))
    return body


def floor_ball(restitution, capture):
    system, matter, forces = world()
    matter.Ground().upd_body().add_contact_surface(
        FLOOR, kt.ContactSurface(kt.ContactGeometry.HalfSpace(), MAT))
    ball = kt.MobilizedBody.Free(matter.Ground(), ball_body())
    contact = kt.RigidContact(matter.Ground(), ball, restitution, capture_velocity=capture)
    return system, matter, forces, ball, contact


def test_bounces_follow_the_restitution_series_then_the_ball_rests():
    """Dropped from h = 1 m: impacts at t1 = √(2h/g) and then every 2 e^k v1/g; apexes at
    e^(2k) h; once the rebound would be slower than the capture speed the ball rests on
    the constraint, bearing m g, still sliding at its horizontal speed."""
    e, h = 0.8, 1.0
    system, matter, _, ball, contact = floor_ball(e, capture=0.05)
    times = []
    state = system.realize_topology()
    ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, h + 0.1, 0]))
    ball.set_u(state, [0, 0, 0, 0.3, 0, 0])
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.get_integrator().set_accuracy(1e-9)
    stepper.initialize(state)
    v1 = math.sqrt(2 * G * h)
    expected = [math.sqrt(2 * h / G)]
    for k in range(1, 6):
        expected.append(expected[-1] + 2 * e ** k * v1 / G)
    for t_k in expected:
        stepper.step_to(t_k + 1e-3)
        times.append(t_k)
        y = ball.get_body_origin_location(stepper.get_state())[1]
        vy = ball.get_body_origin_velocity(stepper.get_state())[1]
        k = len(times)
        # Just after impact k the ball rises at e^k v1, less 1 ms of gravity.
        assert vy == pytest.approx(e ** k * v1 - G * 1e-3, rel=1e-6)
        assert y == pytest.approx(0.1 + e ** k * v1 * 1e-3 - 0.5 * G * 1e-6, abs=1e-8)
    stepper.step_to(6.0)
    final = stepper.get_state()
    assert contact.is_resting(final)
    system.realize(final, kt.Stage.ACCELERATION)
    assert contact.calc_normal_force(final) == pytest.approx(G, rel=1e-9)
    assert ball.get_body_origin_location(final)[1] == pytest.approx(0.1, abs=1e-9)
    np.testing.assert_allclose(ball.get_body_origin_velocity(final), [0.3, 0, 0], atol=1e-9)
    assert contact.calc_separation(final) == pytest.approx(0.0, abs=1e-9)


def test_release_when_the_normal_force_would_pull():
    """A resting ball lifted by an upward force 2 m g t leaves the plane at t = 1/2 s, when
    the force equals its weight, then rises as the force integrates."""
    system, matter, forces, ball, contact = floor_ball(0.5, capture=10.0)

    class Lift(kt.Force.Custom.Implementation):
        def calc_force(self, state, body_forces, particle_forces, mobility_forces):
            body_forces[ball.get_mobilized_body_index(), 4] += 2 * G * state.get_time()

    kt.Force.Custom(forces, Lift())
    released = []

    class Watch(kt.PeriodicEventReporter):
        def handle_event(self, state):
            released.append((state.get_time(), contact.is_resting(state)))

    system.add_event_reporter(Watch(0.05))
    state = system.realize_topology()
    ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, 0.1, 0]))
    contact.get_constraint().enable(state)
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.get_integrator().set_accuracy(1e-10)
    stepper.initialize(state)
    stepper.step_to(1.0)
    resting = [t for t, r in released if r]
    free = [t for t, r in released if not r]
    assert max(resting) < 0.5 < min(free)
    # After release: ÿ = 2g t - g with y(1/2) = r, ẏ(1/2) = 0, so
    # y - r = g (t³/3 - t²/2 + t/4 - 1/24).
    t = 1.0
    y = ball.get_body_origin_location(stepper.get_state())[1]
    assert y - 0.1 == pytest.approx(G * (t ** 3 / 3 - t ** 2 / 2 + t / 4 - 1 / 24), rel=1e-8)


def test_two_body_impact_conserves_momentum_and_reverses_by_e():
    """A ball thrown at a free platform (no gravity): after the impact the relative normal
    velocity is -e times what it was and the total momentum is unchanged."""
    system, matter, _ = world(gravity=False)
    plate_body = kt.Body.Rigid(kt.MassProperties(3.0, [0, 0, 0], kt.Inertia(0.1)))
    plate_body.add_contact_surface(FLOOR, kt.ContactSurface(kt.ContactGeometry.HalfSpace(),
                                                            MAT))
    plate = kt.MobilizedBody.Translation(matter.Ground(), plate_body)
    ball = kt.MobilizedBody.Translation(matter.Ground(), ball_body(mass=1.0))
    e = 0.6
    kt.RigidContact(plate, ball, e, capture_velocity=0.0)
    state = system.realize_topology()
    ball.set_q(state, [0, 0.5, 0])
    ball.set_u(state, [0.2, -2.0, 0])
    plate.set_u(state, [0, 0.5, 0])
    traj = kt.simulate(system, state, 0.5, accuracy=1e-9, report_interval=0.25,
                       progress=False)
    u_ball, u_plate = traj.u[-1, 3:6], traj.u[-1, 0:3]
    np.testing.assert_allclose(1.0 * u_ball + 3.0 * u_plate, [0.2, -2.0 + 1.5, 0], atol=1e-12)
    assert u_ball[1] - u_plate[1] == pytest.approx(-e * (-2.0 - 0.5), rel=1e-12)
    assert u_ball[0] == pytest.approx(0.2)


def test_clear_errors():
    system, matter, _ = world()
    ball = kt.MobilizedBody.Free(matter.Ground(), ball_body())
    with pytest.raises(InvalidArgumentError, match="HalfSpace"):
        kt.RigidContact(matter.Ground(), ball, 0.5)
    matter.Ground().upd_body().add_contact_surface(
        FLOOR, kt.ContactSurface(kt.ContactGeometry.HalfSpace(), MAT))
    with pytest.raises(InvalidArgumentError, match="restitution"):
        kt.RigidContact(matter.Ground(), ball, 1.5)
    with pytest.raises(InvalidArgumentError, match="capture velocity"):
        kt.RigidContact(matter.Ground(), ball, 0.5, capture_velocity=-1)
