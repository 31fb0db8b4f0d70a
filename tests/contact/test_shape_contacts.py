"""The compiled contact pass of rigid contact (``shape_contacts``): its broad phase (bounding
boxes sorted along x) keeps every pair within the margin and its narrow phase reports
each as the pair query does (checked against ``closest_points`` over all pairs of a
random scene); a half space meets a box at its corners; non-convex surfaces and bad
restitution are refused."""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

SHAPES = [lambda: kt.ContactGeometry.Sphere(0.05),
          lambda: kt.ContactGeometry.Capsule(0.03, 0.06),
          lambda: kt.ContactGeometry.Ellipsoid([0.05, 0.08, 0.04]),
          lambda: kt.ContactGeometry.Cylinder(0.04, 0.05),
          lambda: kt.ContactGeometry.Convex(np.random.default_rng(3).normal(size=(12, 3)) * 0.04)]


def _unit(q):
    return q / np.linalg.norm(q)


def _scene(shapes, poses, ground=None):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    material = kt.ContactMaterial(1e6, 0.0, 0.5, 0.4, 0.0)
    if ground is not None:
        matter.Ground().upd_body().add_contact_surface(
            ground, kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    bodies = []
    for shape in shapes:
        body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
        body.add_contact_surface(kt.Transform(), kt.ContactSurface(shape, material))
        bodies.append(kt.MobilizedBody.Free(matter.Ground(), body))
    contacts = kt.contact.generate_unilateral_contacts(matter)
    state = system.realize_topology()
    for body, X in zip(bodies, poses):
        body.set_q_to_fit_transform(state, X)
    system.realize(state, kt.Stage.POSITION)
    return contacts, state, [body.get_body_transform(state) for body in bodies]


def test_every_pair_within_the_margin_is_found_as_the_pair_query_finds_it():
    """A pair's one point (feature 0) is the pair query's; a patch (a hull or a cylinder
    on a face: features above 0) has the query's separation at its deepest point, along
    the query's normal."""
    rng = np.random.default_rng(7)
    shapes = [SHAPES[k % len(SHAPES)]() for k in range(40)]
    poses = [kt.Transform(kt.Rotation.from_quaternion(_unit(rng.normal(size=4))),
                          rng.uniform(0, 0.5, size=3)) for _ in shapes]
    margin = 0.03
    contacts, state, poses = _scene(shapes, poses)
    found = contacts.find(state, margin)
    by_pair = {}
    for a, b, gap, n, key in zip(found.body_a, found.body_b, found.separation,
                                 found.frame[:, 0], found.key):
        by_pair.setdefault((a, b), []).append((key % (1 << 16), gap, n))
    expected = patches = 0
    for i in range(len(shapes)):
        for j in range(i + 1, len(shapes)):
            query = kt.contact.closest_points(poses[i], shapes[i], poses[j], shapes[j])
            if query.distance <= margin:
                expected += 1
                rows = by_pair[(i + 1, j + 1)]
                first = [(gap, n) for feature, gap, n in rows if feature == 0]
                if first:           # a capsule's end spheres come beside it (1 and 2)
                    (gap, n), = first
                    assert gap == pytest.approx(query.distance, abs=1e-12)
                    assert n == pytest.approx(query.normal, abs=1e-12)
                else:
                    patches += 1
                    _, gap, n = min(rows, key=lambda row: row[1])
                    assert gap == pytest.approx(query.distance, abs=1e-9)
                    assert n == pytest.approx(query.normal, abs=1e-6)
            else:
                assert (i + 1, j + 1) not in by_pair
    assert expected == len(by_pair) and expected > 10 and patches > 0


def test_a_half_space_meets_a_tilted_box_at_its_corners_within_the_margin():
    half = np.array([0.1, 0.05, 0.08])
    tilt = kt.Rotation.about_z(0.3)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
    low = (corners @ tilt.as_matrix().T)[:, 1].min()
    X = kt.Transform(tilt, [0.2, -low - 1e-4, 0.1])          # 0.1 mm off the floor
    contacts, state, _ = _scene([kt.ContactGeometry.Brick(half)], [X],
                             kt.Transform(kt.Rotation.about_z(-math.pi / 2)))
    found = contacts.find(state, 0.01)
    heights = (corners @ tilt.as_matrix().T + X.p)[:, 1]
    near = np.sort(heights[heights <= 0.01])
    assert np.sort(found.separation) == pytest.approx(near, abs=1e-15)
    assert found.frame[:, 0] == pytest.approx(np.tile([0, 1, 0], (len(near), 1)))


def test_a_contact_set_keeps_its_values_after_the_next_find():
    """``find`` returns arrays of its own: a later call at another pose leaves them."""
    half = np.array([0.1, 0.05, 0.08])
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    material = kt.ContactMaterial(1e6, 0.0, 0.5, 0.4, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Brick(half), material))
    box = kt.MobilizedBody.Free(matter.Ground(), body)
    contacts = kt.contact.generate_unilateral_contacts(matter)
    state = system.realize_topology()
    box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, half[1] - 1e-4, 0]))
    system.realize(state, kt.Stage.POSITION)
    first = contacts.find(state, 0.01)
    kept = [np.array(x) for x in first]
    box.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, half[1] - 5e-5, 0]))
    system.realize(state, kt.Stage.POSITION)
    second = contacts.find(state, 0.01)
    assert second.separation == pytest.approx([-5e-5] * 4, abs=1e-15)
    for a, b in zip(first, kept):
        np.testing.assert_array_equal(a, b)


def test_non_convex_surfaces_and_bad_restitution_are_refused():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    mesh = kt.ContactGeometry.TriangleMesh(
        [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 2, 1], [0, 1, 3], [0, 3, 2],
                                                       [1, 2, 3]])
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        mesh, kt.ContactMaterial(1e6, 0.0, 0.5, 0.4, 0.0)))
    kt.MobilizedBody.Free(matter.Ground(), body)
    with pytest.raises(InvalidArgumentError, match="TriangleMesh.*not convex.*Convex"):
        kt.contact.generate_unilateral_contacts(matter)
    with pytest.raises(InvalidArgumentError, match="min_cor"):
        kt.contact.generate_unilateral_contacts(kt.SimbodyMatterSubsystem(
            kt.MultibodySystem()), min_cor=1.5)
