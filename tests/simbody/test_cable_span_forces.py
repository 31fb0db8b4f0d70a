"""A port of Simbody's Simbody/tests/TestCableSpan_Forces.cpp: the body forces a CableSpan
applies at unit tension, worked out by hand, each body's spatial force to 1e-6 (norm).

Simbody's ContactGeometry::Sphere is kinetree's ``ContactGeometry.Sphere``.
"""

import math

import numpy as np
from cable_models import free_body, make_system

import kinetree as kt
from kinetree.cables import CableSpan

ANGLE = 45.0 / 180.0 * math.pi


def assert_forces(system, cable, expected):
    """Simbody's assertForces: the default State at REPORT, unit tension."""
    cable.set_curve_segment_accuracy(1e-12)
    cable.set_smoothness_tolerance(1e-8)
    state = system.realize_topology()
    system.realize(state, kt.Stage.REPORT)
    n = system.get_matter_subsystem().get_num_bodies()
    forces = np.zeros((n, 6))
    cable.apply_body_forces(state, 1.0, forces)
    assert len(expected) == n
    for got, want in zip(forces, expected):
        assert np.linalg.norm(got - np.asarray(want, dtype=float)) < 1e-6, (got, want)


def test_cable_force_on_same_body():
    system, matter, cables = make_system()
    cable = CableSpan(cables, matter.Ground(), [0, 1, 0], matter.Ground(), [1, 1, 0])
    assert_forces(system, cable, [np.zeros(6)])


def test_cable_force_between_two_bodies():
    system, matter, cables = make_system()
    body = free_body(matter, [1, 0, 0])
    cable = CableSpan(cables, matter.Ground(), [0, 0, 0], body, [0, 0, 0])
    assert_forces(system, cable, [[0, 0, 0, 1, 0, 0], [0, 0, 0, -1, 0, 0]])


def test_cable_force_and_moment_between_two_bodies():
    system, matter, cables = make_system()
    body = free_body(matter, [1, -2, 0])
    cable = CableSpan(cables, matter.Ground(), [0, 0, 0], body, [0, 2, 0])
    assert_forces(system, cable, [[0, 0, 0, 1, 0, 0], [0, 0, 2, -1, 0, 0]])


def sling_shot(offset_y, via_point):
    """The sling shot: a cable between two Ground stations pulled sideways by a sphere
    (or a via point) on a free body at (0, -offset_y, 0), at 45 degrees to their line."""
    system, matter, cables = make_system()
    body = free_body(matter, [0, -offset_y, 0])
    if via_point:
        cable = CableSpan(cables, matter.Ground(), [0, 1, 0], matter.Ground(), [0, -1, 0])
        cable.add_via_point(body, [math.tan(ANGLE), offset_y, 0])
    else:
        x = math.tan(ANGLE / 2.0)
        cable = CableSpan(cables, matter.Ground(), [x, 1, 0], matter.Ground(), [x, -1, 0])
        cable.add_obstacle(body, kt.Transform([0, offset_y, 0]),
                           kt.ContactGeometry.Sphere(1.0), [1, 0, 0])
    return system, cable


def test_cable_force_on_single_obstacle():
    system, cable = sling_shot(0.0, via_point=False)
    c = 2.0 * math.cos(ANGLE)
    assert_forces(system, cable, [[0, 0, 0, c, 0, 0], [0, 0, 0, -c, 0, 0]])


def test_cable_force_and_moment_on_single_obstacle():
    system, cable = sling_shot(1.0, via_point=False)
    c, s = 2.0 * math.cos(ANGLE), 2.0 * math.sin(ANGLE)
    assert_forces(system, cable, [[0, 0, 0, c, 0, 0], [0, 0, s, -c, 0, 0]])


def test_cable_force_on_single_via_point():
    system, cable = sling_shot(0.0, via_point=True)
    s = 2.0 * math.sin(ANGLE)
    assert_forces(system, cable, [[0, 0, 0, s, 0, 0], [0, 0, 0, -s, 0, 0]])


def test_cable_force_and_moment_on_single_via_point():
    system, cable = sling_shot(1.0, via_point=True)
    s = 2.0 * math.sin(ANGLE)
    assert_forces(system, cable, [[0, 0, 0, s, 0, 0], [0, 0, s, -s, 0, 0]])
