"""Simbody's TestSmoothSphereHalfSpaceForce (Simbody/tests/TestSmoothSphereHalfSpaceForce.cpp),
ported line by line: a sphere of radius 0.8 on a Translation mobilizer above a half space
on a Free body (its frame turned -90 deg about z, so the material fills y < 0), lowered
from 0.2 m above contact in steps of 0.1 m:

* at rest: the force on the sphere is gravity plus the smoothed Hertz force, and the
  potential energy (2/5) f x;
* moving vertically at -1 ... 1 m/s: gravity plus the smoothed Hunt-Crossley force;
* sliding along x at -1 ... 1 m/s: gravity plus the normal force plus the smoothed
  friction, as a spatial force applied at the contact point (midway between the
  surfaces), torque included.

Each to Simbody's absolute TOL = 1e-10, element by element, with the loops' floating-point
counters kept as Simbody's (so the last speed is 0.9999999999999998, and the heights are
those of repeated subtraction, down to 1.4e-16 m). Beyond the port: the element's setters
and getters, per State and by default, and its refusals.
"""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

TOL = 1e-10


def assert_equal(val1, val2):
    """Simbody's assertEqual: |val1 - val2| < TOL, element by element."""
    val1, val2 = np.atleast_1d(np.asarray(val1, dtype=float)), np.atleast_1d(
        np.asarray(val2, dtype=float))
    assert val1.shape == val2.shape
    for a, b in zip(val1, val2, strict=True):
        assert abs(a - b) < TOL, (val1, val2)


def heights(radius):
    """Simbody's ``for (Real height = radius+0.2; height > 0; height -= 0.1)``."""
    height = radius + 0.2
    while height > 0:
        yield height
        height -= 0.1


def speeds():
    """Simbody's ``for (Real v = -1.0; v <= 1.0; v += 0.1)``."""
    v = -1.0
    while v <= 1.0:
        yield v
        v += 0.1


def build():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    gravity = np.array([0, -9.8, 0])
    kt.Force.UniformGravity(forces, matter, gravity, 0)
    radius = 0.8
    k = 1500.0
    stiffness = 0.5 * k ** (2.0 / 3.0)
    dissipation = 0.5
    us = 1.0
    ud = 0.5
    uv = 0.1
    vt = 0.001
    cf = 1e-5
    bd = 300
    bv = 50

    body1 = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    sphere = kt.MobilizedBody.Translation(matter.upd_ground(), kt.Transform(), body1,
                                          kt.Transform())

    body2 = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1)))
    half_space = kt.MobilizedBody.Free(matter.upd_ground(), kt.Transform(), body2,
                                       kt.Transform())

    hc_smooth = kt.Force.SmoothSphereHalfSpaceForce(forces)

    hc_smooth.set_parameters(k, dissipation, us, ud, uv, vt, cf, bd, bv)
    hc_smooth.set_contact_sphere_body(sphere)
    hc_smooth.set_contact_sphere_location_in_body([0, 0, 0])
    hc_smooth.set_contact_sphere_radius(radius)
    test_frame = kt.Transform(kt.Rotation.about_z(-0.5 * math.pi), [0, 0, 0])
    hc_smooth.set_contact_half_space_frame(test_frame)
    hc_smooth.set_contact_half_space_body(half_space)
    state = system.realize_topology()
    constants = dict(gravity=gravity, radius=radius, stiffness=stiffness,
                     dissipation=dissipation, us=us, ud=ud, uv=uv, vt=vt, cf=cf, bd=bd, bv=bv,
                     test_frame=test_frame)
    return system, matter, sphere, half_space, hc_smooth, state, constants


def hertz(c, height):
    """(depth, smoothed Hertz force) as Simbody's test computes them."""
    depth = c["radius"] - height
    f = (4.0 / 3.0) * c["stiffness"] * math.sqrt(depth * depth + c["cf"]) ** (3.0 / 2.0) \
        * math.sqrt(c["radius"] * c["stiffness"])
    return depth, f * (1.0 / 2.0 + (1.0 / 2.0) * math.tanh(c["bd"] * depth))


def test_forces():
    """testForces."""
    system, matter, sphere, half_space, hc_smooth, state, c = build()
    gravity, dissipation = c["gravity"], c["dissipation"]
    m = sphere.get_mobilized_body_index()

    # Position the sphere at a variety of positions and see if the normal force and
    # potential energy are correct.
    count = 0
    for height in heights(c["radius"]):
        sphere.set_q_to_fit_translation(state, [0, height, 0])
        system.realize(state, kt.Stage.DYNAMICS)
        depth, f_smooth = hertz(c, height)
        assert_equal(system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)[m][3:],
                     gravity + [0, f_smooth, 0])
        assert_equal(hc_smooth.calc_potential_energy(state),
                     (2.0 / 5.0) * f_smooth * depth)
        count += 1
    assert count == 11  # 1.0, 0.9, ..., 0.1 and 1.9e-16: 0.2 m out of contact to 0.8 m in

    # Now do it with a vertical velocity and see if the dissipation force is correct.
    for height in heights(c["radius"]):
        sphere.set_q_to_fit_translation(state, [0, height, 0])
        depth, fh_smooth = hertz(c, height)
        for v in speeds():
            sphere.set_u_to_fit_linear_velocity(state, [0, -v, 0])
            system.realize(state, kt.Stage.DYNAMICS)
            f = fh_smooth * (1.0 + (3.0 / 2.0) * dissipation * v)
            f_smooth = f * (1.0 / 2.0 + (1.0 / 2.0)
                            * math.tanh(c["bv"] * (v + (2.0 / (3.0 * dissipation)))))
            assert_equal(system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)[m][3:],
                         gravity + [0, f_smooth, 0])

    # Now do it with a horizontal velocity and see if the friction force is correct.
    for height in heights(c["radius"]):
        sphere.set_q_to_fit_translation(state, [0, height, 0])
        depth, fh_smooth = hertz(c, height)
        for v in speeds():
            sphere.set_u_to_fit_linear_velocity(state, [v, 0, 0])
            system.realize(state, kt.Stage.DYNAMICS)
            vec3v = np.array([v, 0, 0])
            normal = half_space.get_body_rotation(state) @ c["test_frame"].x()
            vnormal = vec3v @ normal
            vtangent = vec3v - vnormal * normal
            aux = vtangent @ vtangent + c["cf"]
            vslip = aux ** (1.0 / 2.0)
            vrel = vslip / c["vt"]
            ff_smooth_scalar = fh_smooth * (min(vrel, 1.0) * (
                c["ud"] + 2 * (c["us"] - c["ud"]) / (1 + vrel * vrel)) + c["uv"] * vslip)
            ff_smooth = ff_smooth_scalar * vtangent / vslip
            total_force_on_sphere = gravity - ff_smooth - fh_smooth * normal
            expected_force = np.zeros((matter.get_num_bodies(), 6))
            stiffness = c["stiffness"]
            contact_point_in_sphere = sphere.find_station_at_ground_point(
                state, [0, -stiffness * depth / (stiffness + stiffness), 0])
            sphere.apply_force_to_body_point(state, contact_point_in_sphere,
                                             total_force_on_sphere, expected_force)
            actual_force = system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)[m]
            assert_equal(actual_force[:3], expected_force[m][:3])
            assert_equal(actual_force[3:], expected_force[m][3:])


# ------------------------------------------------------------------ beyond the port
def test_setters_and_getters_default_and_per_state():
    system, matter, sphere, half_space, hc_smooth, state, c = build()
    assert hc_smooth.get_body_sphere() is sphere
    assert hc_smooth.get_body_half_space() is half_space
    assert hc_smooth.get_contact_sphere_radius() == c["radius"]
    np.testing.assert_array_equal(hc_smooth.get_contact_sphere_location_in_body(), 0.0)
    X = hc_smooth.get_contact_half_space_transform()
    np.testing.assert_array_equal(X.R.as_matrix(), c["test_frame"].R.as_matrix())
    assert hc_smooth.get_stiffness() == 1500.0
    assert hc_smooth.get_dissipation(state) == 0.5
    assert hc_smooth.get_transition_velocity() == 0.001
    assert (hc_smooth.get_constant_contact_force(), hc_smooth.get_hertz_smoothing(),
            hc_smooth.get_hunt_crossley_smoothing()) == (1e-5, 300.0, 50.0)

    # A per-State change: only that State, backed up to VELOCITY; the force follows.
    sphere.set_q_to_fit_translation(state, [0, 0.75, 0])
    system.realize(state, kt.Stage.DYNAMICS)
    before = system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)[
        sphere.get_mobilized_body_index()][4]
    other = state.copy()
    hc_smooth.set_stiffness(state, 8.0 * 1500.0)     # k = ½ E^(2/3) quadruples
    assert state.get_system_stage() == kt.Stage.VELOCITY
    assert hc_smooth.get_stiffness(state) == 12000.0 and hc_smooth.get_stiffness() == 1500.0
    system.realize(state, kt.Stage.DYNAMICS)
    after = system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)[
        sphere.get_mobilized_body_index()][4]
    # f_h ∝ k^(3/2): 8 times the contact force (gravity is -9.8 on both)
    assert after + 9.8 == pytest.approx(8.0 * (before + 9.8), rel=1e-13)
    assert hc_smooth.get_stiffness(other) == 1500.0

    # A default change is a topology change: States made before are refused.
    hc_smooth.set_contact_sphere_radius(0.5)
    with pytest.raises(kt.errors.KinetreeError):
        system.realize(other, kt.Stage.POSITION)
    fresh = system.realize_topology()
    assert hc_smooth.get_contact_sphere_radius(fresh) == 0.5


def test_refusals():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    force = kt.Force.SmoothSphereHalfSpaceForce(forces)
    ball = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(kt.MassProperties(
        1.0, [0, 0, 0], kt.Inertia(1))))
    with pytest.raises(InvalidArgumentError, match="radius"):
        force.set_contact_sphere_radius(0.0)
    with pytest.raises(InvalidArgumentError, match="transition_velocity"):
        force.set_transition_velocity(0.0)
    with pytest.raises(InvalidArgumentError, match="stiffness"):
        force.set_stiffness(-1.0)
    with pytest.raises(InvalidArgumentError, match="dissipation"):
        force.set_dissipation(float("nan"))
    with pytest.raises(InvalidArgumentError, match="Transform"):
        force.set_contact_half_space_frame([0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="nine|arguments"):
        force.set_parameters(1.0, 2.0)
    force.set_contact_sphere_body(ball)
    # the half space's body and the radius are missing: named at realize_topology
    with pytest.raises(InvalidArgumentError, match="are not set.*set_contact_sphere_radius.*"
                                                   "set_contact_half_space_body"):
        system.realize_topology()
    other = kt.MultibodySystem()
    other_matter = kt.SimbodyMatterSubsystem(other)
    with pytest.raises(InvalidArgumentError, match="another System"):
        force.set_contact_half_space_body(other_matter.Ground())
