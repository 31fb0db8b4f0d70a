"""Simbody's TestMobilizedBody, ported in part: its two CantileverFreeBeam subtests. The
beam mobilizer against a Gimbal on a Translation whose three coordinates are coupled to
the Gimbal's angles by the beam's equations (CoordinateCouplers), held in step through a
simulation; and a pendulum on a beam conserving its energy."""

import math

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
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-10)
    integ.set_constraint_tolerance(1e-10)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(5)
    end = integ.get_state()
    system.realize(end, kt.Stage.VELOCITY)
    assert_same_transform(c1.get_body_transform(end), c2.get_body_transform(end), 1e-10)
    assert_eq_tol(c1.get_body_velocity(end), c2.get_body_velocity(end), 1e-10)


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

