"""Simbody's TestMobilizedBody, ported: the calculation and fitting methods; a Weld, a
Gimbal and a Bushing each against its equivalent made of other mobilizers or a
constraint, moving alike; and the two CantileverFreeBeam subtests (the beam mobilizer
against a Gimbal on a Translation whose three coordinates are coupled to the Gimbal's
angles by the beam's equations, held in step through a simulation; and a pendulum on a
beam conserving its energy). Simbody draws its random State from its own generator; this
port draws from numpy's."""

import math

import numpy as np
import pytest
from simtk_testing import assert_eq, assert_eq_tol

import kinetree as kt


class BeamDeflectionFunction(kt.Function):
    """The coupling of an X (Y) translation with the Y (X) rotation: x0 ± 2/3 L x1."""

    def __init__(self, beam_length, negate):
        self.deflection_coefficient = (2.0 / 3.0) * beam_length
        self.sign = -1.0 if negate else 1.0

    def calc_value(self, x):
        return x[0] + self.sign * self.deflection_coefficient * x[1]

    def calc_derivative(self, deriv_components, x):
        if len(deriv_components) == 1:
            if deriv_components[0] == 0:
                return 1.0
            if deriv_components[0] == 1:
                return self.sign * self.deflection_coefficient
        return 0.0

    def get_argument_size(self):
        return 2

    def get_max_derivative_order(self):
        return 2


class BeamDisplacementFunction(kt.Function):
    """The coupling of the Z translation with the X and Y rotations:
    x0 - L + 4/15 L (x1² + x2²)."""

    def __init__(self, beam_length):
        self.beam_length = beam_length
        self.displacement_coefficient = (4.0 / 15.0) * beam_length

    def calc_value(self, x):
        return x[0] - self.beam_length + self.displacement_coefficient * (
            x[1] * x[1] + x[2] * x[2])

    def calc_derivative(self, deriv_components, x):
        if len(deriv_components) == 1:
            if deriv_components[0] == 0:
                return 1.0
            if deriv_components[0] == 1:
                return self.displacement_coefficient * 2 * x[1]
            if deriv_components[0] == 2:
                return self.displacement_coefficient * 2 * x[2]
        elif len(deriv_components) == 2:
            if deriv_components[0] == deriv_components[1] and deriv_components[0] in (1, 2):
                return 2 * self.displacement_coefficient
        return 0.0

    def get_argument_size(self):
        return 3

    def get_max_derivative_order(self):
        return 2


def test_calculation_methods():
    """testCalculationMethods: two Free bodies at a random State; the station and vector
    maps agree with one another."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    b1 = kt.MobilizedBody.Free(matter.Ground(), body)
    b2 = kt.MobilizedBody.Free(matter.Ground(), body)
    system.realize_topology()
    state = system.get_default_state()
    state.set_y(np.random.default_rng(0).normal(size=state.get_num_y()))
    system.realize(state, kt.Stage.ACCELERATION)

    # The low-level methods for transforming points and vectors.
    point = np.array([0.5, 1, -1.5])
    assert_eq(b1.find_station_location_in_ground(state, [0, 0, 0]),
              b1.get_body_origin_location(state))
    assert_eq(b1.find_station_at_ground_point(
        state, b1.find_station_location_in_ground(state, point)), point)
    assert_eq(b2.find_station_at_ground_point(
        state, b1.find_station_location_in_ground(state, point)),
        b1.find_station_location_in_another_body(state, point, b2))
    assert_eq(np.linalg.norm(b2.find_station_at_ground_point(
        state, b1.find_station_location_in_ground(state, [0, 0, 0]))),
        np.linalg.norm(b1.get_body_origin_location(state) - b2.get_body_origin_location(state)))
    assert_eq(b2.find_mass_center_location_in_ground(state),
              b2.find_station_location_in_ground(state, b2.get_body_mass_center_station(state)))
    assert_eq(b1.express_vector_in_ground_frame(state, [0, 0, 0]), [0, 0, 0])
    assert_eq(b1.express_vector_in_ground_frame(state, point),
              b1.get_body_rotation(state) @ point)
    assert_eq(b1.express_ground_vector_in_body_frame(
        state, b1.express_vector_in_ground_frame(state, point)), point)
    assert_eq(b2.express_ground_vector_in_body_frame(
        state, b1.express_vector_in_ground_frame(state, point)),
        b1.express_vector_in_another_body_frame(state, point, b2))

    # The maps of locations, velocities and accelerations.
    r, v, a = b1.find_station_location_velocity_and_acceleration_in_ground(state, point)
    assert_eq(v, b1.find_station_velocity_in_ground(state, point))
    assert_eq(a, b1.find_station_acceleration_in_ground(state, point))
    r2, v2 = b1.find_station_location_and_velocity_in_ground(state, point)
    assert_eq(r, r2)
    assert_eq(v, v2)
    assert_eq(b1.find_station_velocity_in_ground(state, [0, 0, 0]),
              b1.get_body_origin_velocity(state))
    assert_eq(b1.find_station_acceleration_in_ground(state, [0, 0, 0]),
              b1.get_body_origin_acceleration(state))
    assert_eq(b1.find_station_velocity_in_ground(state, point),
              b1.find_station_velocity_in_another_body(state, point, matter.Ground()))


X_FM = kt.Transform(kt.Rotation.about_axis(-1.9, [-3, 2, 4]), [-0.33, 0.66, -0.99])
W_FM, V_FM = np.array([-3, 0.4, -0.7]), np.array([1, 0.2, 0.3])
LENGTH = 1.23


def _beam_system():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    mobod = kt.MobilizedBody.CantileverFreeBeam(matter.upd_ground(), body, LENGTH)
    system.realize_topology()
    return system, mobod, system.get_default_state()


def test_fitting_methods():
    """testFittingMethods: a Free mobilizer fits a zero and an arbitrary transform and
    velocity exactly; a CantileverFreeBeam fits zero, a Z translation near or at its
    length (q = 0), a rotation (its x-y-z angles) and velocities (the angle rates of w,
    then q̇0 and q̇1 refitted to v by least squares, keeping q̇2). Its fit of an arbitrary
    translation is in ``test_fitting_a_beam_to_a_translation``."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    mobod = kt.MobilizedBody.Free(matter.upd_ground(), body)
    system.realize_topology()
    state = system.get_default_state()
    mobod.set_q_to_fit_transform(state, kt.Transform([0, 0, 0]))
    assert_eq(mobod.get_q(state), [1, 0, 0, 0, 0, 0, 0])
    mobod.set_u_to_fit_velocity(state, np.zeros(6))
    assert_eq(mobod.get_u(state), np.zeros(6))
    mobod.set_q_to_fit_transform(state, X_FM)
    quat = X_FM.R.convert_rotation_to_quaternion()
    assert_eq(mobod.get_q(state), np.concatenate([quat, X_FM.p]))
    mobod.set_u_to_fit_velocity(state, np.concatenate([W_FM, V_FM]))
    assert_eq(mobod.get_u(state), np.concatenate([W_FM, V_FM]))

    _, mobod, state = _beam_system()
    mobod.set_q_to_fit_transform(state, kt.Transform([0, 0, 0]))
    assert_eq(mobod.get_q(state), np.zeros(3))
    mobod.set_u_to_fit_velocity(state, np.zeros(6))
    assert_eq(mobod.get_u(state), np.zeros(3))
    # A Z translation slightly larger or smaller than the beam, or the beam's: q = 0.
    for z in (0.99 * LENGTH, 1.01 * LENGTH, LENGTH):
        mobod.set_q_to_fit_translation(state, [0, 0, z])
        assert_eq(mobod.get_q(state), np.zeros(3))
    mobod.set_q_to_fit_transform(state, kt.Transform([0, 0, 0]))
    mobod.set_u_to_fit_velocity(state, np.zeros(6))
    # An arbitrary rotation.
    mobod.set_q_to_fit_rotation(state, X_FM.R)
    assert_eq(mobod.get_q(state), X_FM.R.convert_rotation_to_body_fixed_xyz())
    # An arbitrary angular velocity: the x-y-z angle rates.
    q = mobod.get_q(state)
    mobod.set_u_to_fit_angular_velocity(state, W_FM)
    c0, s0, c1, s1 = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    rates = np.linalg.solve([[1, 0, s1], [0, c0, -s0 * c1], [0, s0, c0 * c1]], W_FM)
    assert_eq(mobod.get_u(state), rates)
    # An arbitrary linear velocity: q̇0, q̇1 by least squares, q̇2 kept.
    u = mobod.get_u(state)
    mobod.set_u_to_fit_linear_velocity(state, V_FM)
    m = np.zeros((3, 2))
    m[0, 1] = (2.0 / 3.0) * LENGTH
    m[1, 0] = -m[0, 1]
    m[2, 0] = -(8.0 / 15.0) * LENGTH * q[0]
    m[2, 1] = -(8.0 / 15.0) * LENGTH * q[1]
    x = np.linalg.lstsq(m, V_FM, rcond=None)[0]
    qdot = np.array([x[0], x[1], u[2]])
    assert_eq(mobod.get_u(state), qdot)
    # An arbitrary velocity: as the linear velocity's fit.
    mobod.set_u_to_fit_velocity(state, np.concatenate([W_FM, V_FM]))
    assert_eq(mobod.get_u(state), qdot)


def test_a_beam_fitted_to_a_transform_it_can_take_takes_its_q():
    """The independent check behind the strict xfail below: X_FM of a CantileverFreeBeam
    at a q it can take, fitted, gives that q back."""
    system, mobod, state = _beam_system()
    reachable = [0.2, -0.3, 0.4]
    mobod.set_q(state, reachable)
    system.realize(state, kt.Stage.POSITION)
    target = mobod.get_mobilizer_transform(state)
    mobod.set_q_to_fit_transform(state, kt.Transform([0, 0, 0]))
    mobod.set_q_to_fit_transform(state, target)
    np.testing.assert_allclose(mobod.get_q(state), reachable, atol=1e-12)


@pytest.mark.xfail(strict=True, reason=(
    "Simbody fits a CantileverFreeBeam to a translation p by aiming Mz along p (the "
    "rotation by atan2(-p1, p2) about Fx, then atan2(p0, p2) about Fy), which its own X_FM "
    "does not reproduce: X_FM(q) puts M's origin at L (2/3 q1, -2/3 q0, ...), not along Mz. "
    "kinetree solves the beam's equations for q0 and q1 instead, so that a transform the "
    "beam can take is fitted exactly "
    "(test_a_beam_fitted_to_a_transform_it_can_take_takes_its_q)."))
def test_fitting_a_beam_to_a_translation():
    """testFittingMethods' arbitrary translation and transform of a CantileverFreeBeam."""
    _, mobod, state = _beam_system()
    mobod.set_q_to_fit_transform(state, kt.Transform([0, 0, 0]))
    mobod.set_q_to_fit_rotation(state, X_FM.R)
    q = mobod.get_q(state)
    mobod.set_q_to_fit_translation(state, X_FM.p)
    e = X_FM.p / np.linalg.norm(X_FM.p)
    latitude, longitude = math.atan2(-e[1], e[2]), math.atan2(e[0], e[2])
    R_FM = (kt.Rotation.about_y(longitude) @ kt.Rotation.about_x(latitude)
            @ kt.Rotation.about_z(q[2]))                  # space-fixed x, then y
    assert_eq(mobod.get_q(state), R_FM.convert_rotation_to_body_fixed_xyz())
    mobod.set_q_to_fit_transform(state, X_FM)
    assert_eq(mobod.get_q(state), R_FM.convert_rotation_to_body_fixed_xyz())


def assert_same_transform(a, b, tol):
    """SimTK_TEST_EQ_TOL of two Transforms: their rotations and translations."""
    assert_eq_tol(a.R, b.R, tol)
    assert_eq_tol(a.p, b.p, tol)


def test_cantilever_free_beam():
    """testCantileverFreeBeam: both pendulums have the same q and u once projected, their
    test bodies the same poses and velocities to 1e-10, and still after 5 s of
    Runge-Kutta-Merson at accuracy 1e-10."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])

    # Mass properties and mobilizer frames.
    lumpy = kt.Body.Rigid(kt.MassProperties(3.1, [0.1, 0.2, 0.3], kt.UnitInertia(
        1.2, 1.1, 1.3, 0.01, 0.02, 0.03)))
    massless = kt.Body.Rigid(kt.MassProperties(0, [0, 0, 0], kt.UnitInertia(0)))
    inboard = kt.Transform([0.1, 0.5, -1])
    outboard = kt.Transform([0.2, -0.2, 0])
    length = 1.23                                       # the undeflected beam

    # The first pendulum on the true cantilever-free beam mobilizer.
    pendulum1 = kt.MobilizedBody.CantileverFreeBeam(matter.upd_ground(), inboard, lumpy,
                                                    outboard, length)
    # The second on a faked one.
    dummy = kt.MobilizedBody.Translation(matter.upd_ground(), inboard, massless,
                                         kt.Transform())
    pendulum2 = kt.MobilizedBody.Gimbal(dummy, kt.Transform(), lumpy, outboard)
    # X translation with Y rotation; Y translation with X rotation; Z translation with
    # both rotations.
    kt.Constraint.CoordinateCoupler(matter, BeamDeflectionFunction(length, True),
                                    [dummy, pendulum2], [0, 1])
    kt.Constraint.CoordinateCoupler(matter, BeamDeflectionFunction(length, False),
                                    [dummy, pendulum2], [1, 0])
    kt.Constraint.CoordinateCoupler(matter, BeamDisplacementFunction(length),
                                    [dummy, pendulum2, pendulum2], [2, 0, 1])

    # Test bodies.
    c1 = kt.MobilizedBody.Weld(pendulum1, inboard, lumpy, outboard)
    c2 = kt.MobilizedBody.Weld(pendulum2, inboard, lumpy, outboard)

    # Prescribe the second pendulum's motion, realize and project.
    state = system.realize_topology()
    pendulum2.set_q(state, [0.1, 0.2, 0.3])
    pendulum2.set_u(state, [-0.1, -0.2, -0.3])
    system.realize(state, kt.Stage.VELOCITY)
    system.project(state, 1e-10)

    # The second pendulum meets its constraints: the first takes its q and u, which
    # makes the two pendulums' kinematics the same.
    pendulum1.set_q(state, pendulum2.get_q(state))
    pendulum1.set_u(state, pendulum2.get_u(state))
    system.realize(state, kt.Stage.VELOCITY)
    system.project(state, 1e-10)                        # again, just to be sure

    assert_eq(pendulum1.get_q(state), pendulum2.get_q(state))
    assert_eq(pendulum1.get_u(state), pendulum2.get_u(state))
    assert_same_transform(c1.get_body_transform(state), c2.get_body_transform(state), 1e-10)
    assert_eq_tol(c1.get_body_velocity(state), c2.get_body_velocity(state), 1e-10)

    # Simulate it: both pendulums behave the same.
    _still_alike(system, state, c1, c2, accuracy=1e-10)


def test_cantilever_free_beam_energy_conservation():
    """testCantileverFreeBeamEnergyConservation: a pendulum on a beam, started turned
    π/2 about X only (away from the Euler angles' singularity), keeps its energy to 1e-8
    at every 0.01 s for 10 s of Runge-Kutta-Merson at accuracy 1e-10."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    length = 1.23
    pendulum = kt.MobilizedBody.CantileverFreeBeam(
        matter.upd_ground(), kt.Transform(kt.Rotation.about_x(math.pi / 2)), body,
        kt.Transform(), length)

    state = system.realize_topology()
    pendulum.set_q(state, [math.pi / 2, 0.0, 0.0])
    system.realize(state, kt.Stage.DYNAMICS)
    initial_energy = system.calc_energy(state)

    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-10)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    dt, time = 1e-2, 0.0
    for _ in range(1000):
        time += dt
        ts.step_to(time)
        assert_eq_tol(initial_energy, system.calc_energy(ts.get_state()), 1e-8)


def _still_alike(system, state, c1, c2, accuracy=None):
    """After 5 s of Runge-Kutta-Merson (at ``accuracy``, with it as the constraint
    tolerance; Simbody's defaults without), the two test bodies have the same pose and
    velocity to 1e-10."""
    integ = kt.RungeKuttaMersonIntegrator(system)
    if accuracy is not None:
        integ.set_accuracy(accuracy)
        integ.set_constraint_tolerance(accuracy)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(5)
    end = integ.get_state()
    system.realize(end, kt.Stage.VELOCITY)
    assert_same_transform(c1.get_body_transform(end), c2.get_body_transform(end), 1e-10)
    assert_eq_tol(c1.get_body_velocity(end), c2.get_body_velocity(end), 1e-10)


def _same_motion(system, state, c1, c2):
    """Simbody's ending of testWeld, testGimbal and testBushing: the two test bodies have
    the same pose and velocity once projected, and still after a simulation."""
    system.realize(state, kt.Stage.VELOCITY)
    system.project(state, 1e-10)
    X1, X2 = c1.get_body_transform(state), c2.get_body_transform(state)
    assert_eq(X1.R, X2.R)
    assert_eq(X1.p, X2.p)
    assert_eq(c1.get_body_velocity(state), c2.get_body_velocity(state))
    _still_alike(system, state, c1, c2)


def _lumpy_system():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    lumpy = kt.Body.Rigid(kt.MassProperties(3.1, [0.1, 0.2, 0.3], kt.UnitInertia(
        1.2, 1.1, 1.3, 0.01, 0.02, 0.03)))
    massless = kt.Body.Rigid(kt.MassProperties(0, [0, 0, 0], kt.UnitInertia(0)))
    return system, matter, lumpy, massless


AXIS_X = kt.Rotation.about_y(math.pi / 2)             # z into x
AXIS_Y = kt.Rotation.about_x(-math.pi / 2)            # z into y
AXIS_Z = kt.Rotation()


def _pins_xyz(parent, at, massless, lumpy, outboard):
    """Pins about x, y and z in series from ``parent`` (at ``at`` in it), the last
    carrying ``lumpy`` at ``outboard``: Simbody's faked Gimbal."""
    dummy1 = kt.MobilizedBody.Pin(parent, kt.Transform(AXIS_X, at), massless,
                                  kt.Transform(AXIS_X, [0, 0, 0]))
    dummy2 = kt.MobilizedBody.Pin(dummy1, kt.Transform(AXIS_Y, [0, 0, 0]), massless,
                                  kt.Transform(AXIS_Y, [0, 0, 0]))
    return dummy1, dummy2, kt.MobilizedBody.Pin(dummy2, kt.Transform(AXIS_Z, [0, 0, 0]),
                                                lumpy, kt.Transform(AXIS_Z, outboard))


def _turn(state, pins):
    """The pins at angles 0.1, 0.2, 0.3 turning at 1, 2, 3 rad/s."""
    for pin, angle, rate in zip(pins, (0.1, 0.2, 0.3), (1, 2, 3)):
        pin.set_angle(state, angle)
        pin.set_rate(state, rate)


def test_weld():
    """testWeld: a Weld mobilizer and a Free body held by a Weld constraint, each with a
    sprung Pin child, move alike."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -1, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    inboard, outboard = kt.Transform([0.1, 0.5, -1]), kt.Transform([0.2, -0.2, 0])
    p1 = kt.MobilizedBody.Ball(matter.upd_ground(), kt.Transform(), body,
                               kt.Transform([0, 1, 0]))
    p2 = kt.MobilizedBody.Ball(matter.upd_ground(), kt.Transform(), body,
                               kt.Transform([0, 1, 0]))
    c1 = kt.MobilizedBody.Weld(p1, inboard, body, outboard)
    c2 = kt.MobilizedBody.Free(p2, inboard, body, outboard)
    kt.Constraint.Weld(p2, inboard, c2, outboard)
    # Not a general test unless the Weld mobilizer has children.
    wchild1 = kt.MobilizedBody.Pin(c1, inboard, body, outboard)
    wchild2 = kt.MobilizedBody.Pin(c2, inboard, body, outboard)
    kt.Force.MobilityLinearSpring(forces, wchild1, 0, 1000, 0)
    kt.Force.MobilityLinearSpring(forces, wchild2, 0, 1000, 0)
    state = system.realize_topology()
    p1.set_u(state, [1, 2, 3])
    p2.set_u(state, [1, 2, 3])
    _same_motion(system, state, c1, c2)


def test_gimbal():
    """testGimbal: a Gimbal and three Pins about x, y and z in series (the Gimbal's u
    being its angles' rates) move alike."""
    system, matter, lumpy, massless = _lumpy_system()
    inboard, outboard = kt.Transform([0.1, 0.5, -1]), kt.Transform([0.2, -0.2, 0])
    p1 = kt.MobilizedBody.Gimbal(matter.upd_ground(), inboard, lumpy, outboard)
    pins = _pins_xyz(matter.upd_ground(), inboard.p, massless, lumpy, outboard.p)
    c1 = kt.MobilizedBody.Weld(p1, inboard, lumpy, outboard)
    c2 = kt.MobilizedBody.Weld(pins[2], inboard, lumpy, outboard)
    state = system.realize_topology()
    p1.set_q(state, [0.1, 0.2, 0.3])
    p1.set_u(state, [1, 2, 3])
    _turn(state, pins)
    _same_motion(system, state, c1, c2)


def test_bushing():
    """testBushing: a Bushing and a Translation followed by three Pins about x, y and z
    (the Bushing's translations are its last q but move first) move alike."""
    system, matter, lumpy, massless = _lumpy_system()
    inboard, outboard = kt.Transform([0.1, 0.5, -1]), kt.Transform([0.2, -0.2, 0])
    p1 = kt.MobilizedBody.Bushing(matter.upd_ground(), inboard, lumpy, outboard)
    dummy0 = kt.MobilizedBody.Translation(matter.upd_ground(), inboard, massless,
                                          kt.Transform())
    pins = _pins_xyz(dummy0, [0, 0, 0], massless, lumpy, outboard.p)
    c1 = kt.MobilizedBody.Weld(p1, inboard, lumpy, outboard)
    c2 = kt.MobilizedBody.Weld(pins[2], inboard, lumpy, outboard)
    state = system.realize_topology()
    p1.set_q(state, [0.1, 0.2, 0.3, 1, 2, 3])
    p1.set_u(state, [1, 2, 3, -0.1, -0.2, -0.3])
    dummy0.set_translation(state, [1, 2, 3])
    dummy0.set_velocity(state, [-0.1, -0.2, -0.3])
    _turn(state, pins)
    _same_motion(system, state, c1, c2)
