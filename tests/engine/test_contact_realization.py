"""Contact inside the one compiled realization: the search, the compliant forces of point
contacts and the elastic foundation of meshes on half spaces and spheres run in the same
call as the tree, ellipsoids and mesh-mesh pairs in Python beside it, with the same
results as each subsystem's own hooks; a scene that outgrows the search's buffers grows
them and still finds every pair."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.system.system import System

FLOOR = kt.Transform(kt.Rotation.about_z(-np.pi / 2), [0, 0, 0])   # half space y < 0
MATERIAL = kt.ContactMaterial(1e6, 0.5, 0.8, 0.6, 0.1)


def scene(geometries, positions, rng):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    tracker = kt.ContactTrackerSubsystem(system)
    contact = kt.CompliantContactSubsystem(system, tracker)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    matter.Ground().upd_body().add_contact_surface(
        FLOOR, kt.ContactSurface(kt.ContactGeometry.HalfSpace(), MATERIAL))
    bodies = []
    for geometry in geometries:
        body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
        body.add_contact_surface(kt.Transform(), kt.ContactSurface(geometry, MATERIAL))
        bodies.append(kt.MobilizedBody.Free(matter.Ground(), body))
    state = system.realize_topology()
    for b, p in zip(bodies, positions):
        b.set_q_to_fit_transform(state, kt.Transform(
            kt.Rotation.from_quaternion(rng.normal(size=4)), p))
        b.set_u(state, rng.normal(size=6))
    return system, matter, contact, state


def compare_with_hooks(system, matter, contact, state):
    fused, hooks = state.copy(), state.copy()
    system.realize(fused, kt.Stage.ACCELERATION)
    System.realize(system, hooks, kt.Stage.ACCELERATION)
    assert np.array_equal(fused.get_u_dot(), hooks.get_u_dot())
    assert contact.calc_potential_energy(fused) == contact.calc_potential_energy(hooks)
    n = contact.get_num_contact_forces(fused)
    assert n == contact.get_num_contact_forces(hooks) > 0
    for i in range(n):
        a, b = contact.get_contact_force(fused, i), contact.get_contact_force(hooks, i)
        assert np.array_equal(a.force_on_surface2, b.force_on_surface2)
    return fused


def test_spheres_on_the_floor_are_one_compiled_call(compiled_calls):
    rng = np.random.default_rng(1)
    positions = [[0.3 * i, 0.09, 0.0] for i in range(6)] + [[0.3 * i + 0.1, 0.26, 0.0]
                                                           for i in range(5)]
    system, matter, contact, state = scene(
        [kt.ContactGeometry.Sphere(0.1)] * 11, positions, rng)
    fused = compare_with_hooks(system, matter, contact, state)
    assert compiled_calls == [(5, 8)]
    # 6 on the floor, 5 pairs of neighbours touching the spheres below them... at least.
    assert contact.get_num_contact_forces(fused) >= 6


def test_ellipsoids_and_meshes_run_beside_the_compiled_call():
    rng = np.random.default_rng(2)
    system, matter, contact, state = scene(
        [kt.ContactGeometry.Sphere(0.1), kt.ContactGeometry.Ellipsoid([0.2, 0.05, 0.1]),
         kt.ContactGeometry.Brick([0.1, 0.05, 0.1], resolution=3)],
        [[0, 0.08, 0], [1, 0.03, 0], [2, 0.04, 0]], rng)
    compare_with_hooks(system, matter, contact, state)


def test_a_brick_on_the_floor_is_one_compiled_call(compiled_calls):
    """A brick against the floor and a sphere: the springs and their elastic foundation,
    and the sphere's Hertz contact on the brick, are in the compiled call, with the hooks'
    forces, energy and reports."""
    rng = np.random.default_rng(4)
    system, matter, contact, state = scene(
        [kt.ContactGeometry.Brick([0.1, 0.05, 0.1], resolution=3),
         kt.ContactGeometry.Sphere(0.1)], [[0, 0.03, 0], [0.13, 0.14, 0]], rng)
    fused = compare_with_hooks(system, matter, contact, state)
    assert compiled_calls == [(5, 8)]
    forces = [contact.get_contact_force(fused, i) for i in
              range(contact.get_num_contact_forces(fused))]
    mesh = [f for f in forces if f.patch_semi_axes == (0.0, 0.0)]
    # The brick's springs against the floor; the sphere on the brick a Hertz contact.
    assert len(mesh) == 1 and mesh[0].normal_force > 1.0 and mesh[0].patch_area > 0
    (ball,) = [f for f in forces if {f.body1, f.body2} == {1, 2}]
    assert ball.depth > 0.0 and min(ball.patch_semi_axes) > 0.0


def test_a_scene_that_outgrows_the_buffers_finds_every_pair():
    """40 spheres of radius 0.2 within 0.1 m of each other all overlap: 780 pairs, more
    than the search first makes room for."""
    rng = np.random.default_rng(3)
    n = 40
    positions = [[*rng.uniform(-0.05, 0.05, 1), 1.0 + rng.uniform(-0.05, 0.05),
                  rng.uniform(-0.05, 0.05)] for _ in range(n)]
    system, matter, contact, state = scene([kt.ContactGeometry.Sphere(0.2)] * n, positions,
                                           rng)
    fused = compare_with_hooks(system, matter, contact, state)
    assert contact.get_num_contact_forces(fused) == n * (n - 1) // 2


@pytest.mark.parametrize("disable", [False, True])
def test_a_custom_force_subsystem_still_sees_the_contacts(disable):
    """A user subsystem reading the tracker's contacts at DYNAMICS runs after the
    compiled search."""
    rng = np.random.default_rng(4)
    seen = []

    class Watcher(kt.ForceSubsystem):
        def realize_dynamics(self, state):
            seen.append(len(tracker.get_active_contacts(state)))

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    tracker = kt.ContactTrackerSubsystem(system)
    kt.CompliantContactSubsystem(system, tracker)
    Watcher(system)
    matter.Ground().upd_body().add_contact_surface(
        FLOOR, kt.ContactSurface(kt.ContactGeometry.HalfSpace(), MATERIAL))
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Sphere(0.1), MATERIAL))
    ball = kt.MobilizedBody.Free(matter.Ground(), body)
    state = system.realize_topology()
    ball.set_q_to_fit_transform(state, kt.Transform([0, 0.5 if disable else 0.05, 0]))
    system.realize(state, kt.Stage.ACCELERATION)
    assert seen == [0 if disable else 1]
    del rng


def general_contact_floor():
    """A MultibodySystem with gravity and a GeneralContactSubsystem whose one contact set
    holds the floor."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    contacts = kt.GeneralContactSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    cset = contacts.create_contact_set()
    floor = contacts.add_body(cset, matter.Ground(), kt.ContactGeometry.HalfSpace(), FLOOR)
    return system, matter, forces, contacts, cset, floor


class NamedHuntCrossleyForce(kt.HuntCrossleyForce):
    """A user's subclass in another module (here, to carry a label): still the built-in
    element, compiled as such."""

    label = "foot"


def hunt_crossley_scene(disabled=False, element=kt.HuntCrossleyForce):
    """OpenSim's way: a GeneralContactSubsystem set of a floor and two balls, one
    HuntCrossleyForce (or ``element``) with per-body materials."""
    system, matter, forces, contacts, cset, floor = general_contact_floor()
    hc = element(forces, contacts, cset)
    hc.set_body_parameters(floor, 1e7, 0.5, 0.8, 0.5, 0.1)
    hc.set_transition_velocity(0.1)
    balls = []
    for k, r in enumerate((0.1, 0.05)):
        ball = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
            kt.MassProperties(1, [0, 0, 0], kt.Inertia(0.01))))
        hc.set_body_parameters(contacts.add_body(cset, ball, kt.ContactGeometry.Sphere(r)),
                               2e6 * (k + 1), 1.0, 0.6, 0.4, 0.2)
        balls.append(ball)
    state = system.realize_topology()
    for k, (ball, r) in enumerate(zip(balls, (0.1, 0.05))):
        ball.set_q_to_fit_transform(state, kt.Transform([0.5 * k, r - 1e-3, 0]))
        ball.set_u(state, [0.3, -0.1, 0.2, 0.05, -0.2, 0.01])
    if disabled:
        hc.disable(state)
    return system, matter, hc, state


@pytest.mark.parametrize("disabled, element", [(False, kt.HuntCrossleyForce),
                                               (True, kt.HuntCrossleyForce),
                                               (False, NamedHuntCrossleyForce)])
def test_hunt_crossley_force_in_the_compiled_call(compiled_calls, disabled, element):
    """HuntCrossleyForce (or a subclass of it) over a GeneralContactSubsystem is applied
    inside the one compiled call, with the hooks' results; disabled, it applies
    nothing."""
    system, matter, hc, state = hunt_crossley_scene(disabled, element)
    fused, hooks = state.copy(), state.copy()
    system.realize(fused, kt.Stage.ACCELERATION)
    assert compiled_calls == [(5, 8)]
    System.realize(system, hooks, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(fused.get_u_dot(), hooks.get_u_dot(), rtol=1e-13, atol=1e-12)
    lifted = abs(fused.get_u_dot()[4] + 9.81) > 1.0      # the floor pushes the first ball
    assert lifted != disabled


def elastic_foundation_scene(disabled, big_spheres=0):
    """A brick (a mesh of 48 faces) on a Free body sunk 3 mm into the floor, sliding and
    turning, under an ElasticFoundationForce; a sphere beside it under a HuntCrossleyForce
    of the same contact set; optionally big spheres on welded bodies that swallow the whole
    brick, so that more springs are found than the search first makes room for."""
    system, matter, forces, contacts, cset, floor = general_contact_floor()
    ef = kt.ElasticFoundationForce(forces, contacts, cset)
    hc = kt.HuntCrossleyForce(forces, contacts, cset)
    hc.set_body_parameters(floor, 1e7, 0.5, 0.8, 0.5, 0.1)
    ef.set_transition_velocity(0.05)
    box = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(2, [0, 0, 0], kt.Inertia(0.02))))
    ef.set_body_parameters(contacts.add_body(cset, box, kt.ContactGeometry.Brick(
        [0.1, 0.05, 0.1], 2)), 1e8, 0.3, 0.7, 0.5, 0.05)
    ball = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(1, [0, 0, 0], kt.Inertia(0.01))))
    hc.set_body_parameters(contacts.add_body(cset, ball, kt.ContactGeometry.Sphere(0.1)),
                           2e6, 1.0, 0.6, 0.4, 0.2)
    for k in range(big_spheres):
        holder = kt.MobilizedBody.Weld(matter.Ground(), kt.Transform([0.01 * k, 0.3, 0]),
                                       kt.Body.Rigid(kt.MassProperties(1, [0, 0, 0],
                                                                       kt.Inertia(0.01))),
                                       kt.Transform())
        contacts.add_body(cset, holder, kt.ContactGeometry.Sphere(1.0))
    state = system.realize_topology()
    box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_y(0.3), [0, 0.047, 0]))
    box.set_u(state, [0.1, 0.4, -0.2, 0.3, -0.05, 0.1])
    ball.set_q_to_fit_transform(state, kt.Transform([0.5, 0.099, 0]))
    if disabled:
        ef.disable(state)
    return system, ef, box, state


@pytest.mark.parametrize("disabled,big_spheres", [(False, 0), (True, 0), (False, 3)])
def test_elastic_foundation_force_in_the_compiled_call(compiled_calls, disabled, big_spheres):
    """ElasticFoundationForce springs of a mesh against a half space or a sphere are found
    and applied inside the one compiled call (growing the springs' buffers when they are
    too small), with the hooks' forces and energy; disabled, it applies nothing."""
    system, ef, box, state = elastic_foundation_scene(disabled, big_spheres)
    fused, hooks = state.copy(), state.copy()
    system.realize(fused, kt.Stage.ACCELERATION)
    assert compiled_calls[-1] == (5, 8)
    System.realize(system, hooks, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(fused.get_u_dot(), hooks.get_u_dot(), rtol=1e-13, atol=1e-12)
    assert ef.calc_potential_energy(fused) == pytest.approx(ef.calc_potential_energy(hooks),
                                                            rel=1e-13)
    springs = sum(len(mc.faces) for mc in ef._contacts.get_contacts(fused, 0).meshes)
    assert springs == 8 + 48 * big_spheres       # the bottom face's, and all in a big sphere
    pushed = abs(fused.get_u_dot()[4] + 9.81) > 1.0      # the floor lifts the brick
    assert pushed != disabled
