"""A port of Simbody's Simbody/tests/TestCableSpan_LengthDot.cpp: a CableSpan's
lengthening speed for given body velocities, worked out by hand, to 1e-13, with every
obstacle in contact.

Simbody's ContactGeometry::Sphere and ::Ellipsoid are kinetree's ``ContactGeometry``
shapes of the same names.
"""

import math

from cable_models import free_body, make_system

import kinetree as kt
from kinetree.cables import CableSpan

ANGLE = 45.0 / 180.0 * math.pi
U = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def assert_length_dot(system, cable, mobod, u, expected):
    """Simbody's assertLengthDot."""
    cable.set_curve_segment_accuracy(1e-12)
    cable.set_smoothness_tolerance(1e-8)
    state = system.realize_topology()
    mobod.set_u(state, u)
    system.realize(state, kt.Stage.REPORT)
    got = cable.calc_length_dot(state)
    for i in range(cable.get_num_obstacles()):
        assert cable.is_in_contact_with_obstacle(state, i)
    assert abs(got - expected) < 1e-13, (got, expected)


def test_cable_length_dot_on_same_body():
    system, matter, cables = make_system()
    body = free_body(matter, [0, 0, 0])
    cable = CableSpan(cables, body, [-1, 0, 0], body, [0, 1, 0])
    assert_length_dot(system, cable, body, U, 0.0)


def test_cable_length_dot_on_same_body_with_obstacles():
    system, matter, cables = make_system()
    body = free_body(matter, [0, 0, 0])
    cable = CableSpan(cables, body, [2, 0, 0], body, [-2, 0, 0])
    cable.add_obstacle(body, kt.Transform([1, 1, 0]), kt.ContactGeometry.Sphere(1.0),
                       [1, 1, 0])
    cable.add_obstacle(body, kt.Transform([-1, 1, 0]),
                       kt.ContactGeometry.Ellipsoid([0.5, 0.75, 1.0]), [-1, 1, 0])
    assert_length_dot(system, cable, body, U, 0.0)


def test_cable_length_dot_between_two_bodies():
    system, matter, cables = make_system()
    body = free_body(matter, [1, -2, 0])
    cable = CableSpan(cables, matter.Ground(), [0, 0, 0], body, [0, 2, 0])
    assert_length_dot(system, cable, body, [0, 0, 0, 4, 5, 6], 4.0)      # translation
    assert_length_dot(system, cable, body, [0, 1, 2, 0, 0, 0], -2.0 * 2.0)  # rotation
    assert_length_dot(system, cable, body, [0, 1, 2, 4, 5, 6], 0.0)      # both


def test_cable_length_dot_with_single_obstacle():
    system, matter, cables = make_system()
    body = free_body(matter, [0, 0, 0])
    x = math.tan(ANGLE / 2.0)
    cable = CableSpan(cables, matter.Ground(), [x, 1, 0], matter.Ground(), [x, -1, 0])
    cable.add_obstacle(body, kt.Transform(), kt.ContactGeometry.Sphere(1.0), [1, 0, 0])
    assert_length_dot(system, cable, body, U, 4.0 * 2.0 * math.cos(ANGLE))


def test_cable_length_dot_with_single_via_point():
    system, matter, cables = make_system()
    body = free_body(matter, [0, 0, 0])
    cable = CableSpan(cables, matter.Ground(), [0, 1, 0], matter.Ground(), [0, -1, 0])
    cable.add_via_point(body, [math.tan(ANGLE), 0, 0])
    assert_length_dot(system, cable, body, U, 4.0 * 2.0 * math.sin(ANGLE))
