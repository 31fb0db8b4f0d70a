"""A cable's rates and forces against finite differences and energy balance.

- length_dot equals the central difference of the length along the motion, over a
  sphere, a cylinder, an ellipsoid and a torus, each on a moving body;
- the power of the forces equals -tension * length_dot, and the body forces are the
  transpose of the same velocity map: their power at any velocity is -tension L̇;
- a CableSpring over a sphere pulling a mass keeps kinetic + potential + dissipated
  energy constant to 10 x the integrator's accuracy over 10 s.
"""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.cables import (
    CableObstacle,
    CablePath,
    CableSpan,
    CableSpring,
    CableSubsystem,
    CableTrackerSubsystem,
    Cylinder,
    Torus,
)
from kinetree.errors import InvalidArgumentError


def a_body():
    return kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1, 0.1, 0.1)))


def wrapped_cable():
    """A cable from a free body over four obstacles, each on a free body of its own."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    cables = CableSubsystem(system)
    bodies = [kt.MobilizedBody.Free(matter.Ground(), kt.Transform(p), a_body(), kt.Transform())
              for p in ([-8, 0.5, 0], [-5, 0, 0], [-1, 0, 0], [3, 0, 0], [7, 0, 0])]
    cable = CableSpan(cables, bodies[0], [0, 0, 0], matter.Ground(), [10, 0.3, 0.2])
    cable.add_obstacle(bodies[1], kt.Transform(), kt.ContactGeometry.Sphere(1.0), [0, 1, 0])
    cable.add_obstacle(bodies[2], kt.Transform(kt.Rotation.about_x(0.5 * math.pi)),
                       Cylinder(0.8), [0, -0.8, 0])
    cable.add_obstacle(bodies[3], kt.Transform(),
                       kt.ContactGeometry.Ellipsoid([1.0, 1.2, 0.8]), [0, 1.2, 0])
    cable.add_obstacle(bodies[4], kt.Transform([0, -0.2, 0]), Torus(1.0, 0.3), [0, 1.3, 0])
    cable.set_curve_segment_accuracy(1e-12)
    cable.set_smoothness_tolerance(1e-10)
    cable.set_solver_max_iterations(200)
    return system, bodies, cable


def moved(system, bodies, t, rng_u):
    state = system.realize_topology()
    for b, u in zip(bodies, rng_u):
        b.set_u(state, u)
    system.realize(state, kt.Stage.VELOCITY)
    q = state.get_q() + t * state.get_q_dot()
    state.set_q(q)
    system.realize(state, kt.Stage.VELOCITY)
    return state


def test_length_dot_is_the_rate_of_change_of_length():
    system, bodies, cable = wrapped_cable()
    rng = np.random.default_rng(7)
    us = [0.2 * rng.standard_normal(6) for _ in bodies]
    state = moved(system, bodies, 0.0, us)
    for i in range(4):
        assert cable.is_in_contact_with_obstacle(state, i), i
    h = 1e-5
    plus = cable.calc_length(moved(system, bodies, h, us))
    minus = cable.calc_length(moved(system, bodies, -h, us))
    fd = (plus - minus) / (2 * h)
    assert abs(cable.calc_length_dot(state) - fd) < 1e-6 * max(1.0, abs(fd)), \
        (cable.calc_length_dot(state), fd)


def test_power_is_minus_tension_times_length_dot():
    system, bodies, cable = wrapped_cable()
    rng = np.random.default_rng(8)
    state = moved(system, bodies, 0.0, [rng.standard_normal(6) for _ in bodies])
    tension = 3.7
    length_dot = cable.calc_length_dot(state)
    forces = np.zeros((system.get_matter_subsystem().get_num_bodies(), 6))
    cable.apply_body_forces(state, tension, forces)
    V = np.array([system.get_matter_subsystem().get_mobilized_body(i).get_body_velocity(state)
                  for i in range(forces.shape[0])])
    # the forces follow the geodesics' end tangents, length_dot the straight lines: they
    # agree to the path's smoothness
    tol = 10.0 * tension * cable.get_smoothness_tolerance() * (1.0 + np.abs(V).max())
    assert abs(cable.calc_cable_power(state, tension) + tension * length_dot) < tol
    assert abs(np.sum(forces * V) + tension * length_dot) < tol
    assert cable.calc_cable_power(state, -1.0) == 0.0


def spring_over_sphere():
    """A mass on a Translation mobilizer, 1.5 m below and 3 m beside a Ground sphere of
    radius 1, pulled by a CableSpring from the sphere's other side, the cable wrapping
    under it."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    tracker = CableTrackerSubsystem(system)
    mass = kt.MobilizedBody.Translation(matter.Ground(), kt.Transform([3, -1.5, 0]),
                                        a_body(), kt.Transform())
    path = CablePath(tracker, matter.Ground(), [-3, 0, 0], mass, [0, 0, 0])
    CableObstacle.Surface(path, matter.Ground(), kt.Transform(),
                          kt.ContactGeometry.Sphere(1.0)).set_contact_point_hints(
        [0, -1, 0], [0, -1, 0])
    # the path's own error, at a smoothness tolerance of 1e-10, shows in the energy
    # at 1e-6 accuracy: 9e-6 of it after 8 s, against 2.5e-6 at 1e-12
    path.get_span().set_smoothness_tolerance(1e-12)
    spring = CableSpring(forces, path, 10.0, 5.0, 0.05)
    return system, path, mass, spring


def test_cable_spring_over_sphere_conserves_energy():
    """For 10 s, the mass swinging out of the cable's plane and back, the cable on the
    sphere throughout, the mass never inside it (where the path is not defined)."""
    system, path, mass, spring = spring_over_sphere()
    state = system.realize_topology()
    mass.set_u(state, [0.0, 0.3, 1.0])
    system.realize(state, kt.Stage.ACCELERATION)
    assert path.get_span().is_in_contact_with_obstacle(state, 0)
    assert spring.get_tension(state) > 0.0

    def total(s):
        system.realize(s, kt.Stage.ACCELERATION)
        return (system.calc_kinetic_energy(s) + spring.calc_potential_energy(s)
                + spring.get_dissipated_energy(s))

    accuracy = 1e-6
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(accuracy)
    ts = kt.TimeStepper(system, integ)
    e0 = total(state)
    ts.initialize(state)
    worst = 0.0
    for t in np.arange(0.25, 10.01, 0.25):
        ts.step_to(float(t))
        assert np.linalg.norm(mass.get_body_origin_location(ts.get_state())) > 1.0, t
        worst = max(worst, abs(total(ts.get_state()) - e0))
    final = ts.get_state()
    assert spring.get_dissipated_energy(final) > 0.1 * e0    # it did dissipate
    assert worst < 10 * accuracy * e0, (worst, e0)


def test_a_hint_where_the_surface_has_no_normal_is_refused_naming_the_obstacle():
    """A contact point hint on a cylinder's axis gives the surface no direction to project
    along: refused, naming the obstacle and the fix, not a division by zero."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    cable = CableSpan(CableSubsystem(system), matter.Ground(), [-2, 0, 0], matter.Ground(),
                      [2, 0, 0])
    cable.add_obstacle(matter.Ground(), kt.Transform(), Cylinder(0.5), [0, 0, 0.3])
    with pytest.raises(InvalidArgumentError, match="obstacle 0's contact point hint"):
        system.realize_topology()
