"""The closest points and the penetration of pairs of convex shapes (contact/convex.py),
each answer checked by a certificate built from the shapes' own support points (their
Python ``calc_support_point``, written independently of the compiled GJK):

- separated: the planes through the two points, normal to their join, each support
  their shape, so no pair of points is nearer (the distance's lower bound equals the
  upper one);
- overlapping: the shapes' overlap along the normal is the penetration, no direction of
  a thousand random ones overlaps less, and B moved out along the normal by it just
  touches A (whether the pair is found to overlap at all is GJK's answer, the
  certificate then says how much).
"""

import itertools

import numpy as np
import pytest

from kinetree.contact.capsule import Capsule
from kinetree.contact.convex import closest_points
from kinetree.contact.convex_hull import Convex
from kinetree.contact.geometry import Ellipsoid, HalfSpace, Sphere
from kinetree.contact.mesh import Brick, Cylinder, TriangleMesh
from kinetree.errors import InvalidArgumentError, NonPhysicalError
from kinetree.math import Rotation, Transform

TOL = 1e-9  # m
CURVED_ON_POLYTOPE_TOL = 1e-9
"""A curved core (Cylinder, Ellipsoid) against a polytope's edge: GJK's normal is settled
to about 1e-8 rad there so far, which moves the support planes by up to 5e-8 m."""
CURVED = ("cylinder", "ellipsoid")


def _shapes():
    rng = np.random.default_rng(5)
    return {
        "sphere": Sphere(0.3),
        "capsule": Capsule(0.15, 0.4),
        "brick": Brick([0.3, 0.2, 0.5]),
        "cylinder": Cylinder(0.25, 0.35),
        "ellipsoid": Ellipsoid([0.4, 0.2, 0.3]),
        "convex": Convex(rng.normal(size=(30, 3)) * [0.3, 0.4, 0.2]),
    }


SHAPES = _shapes()


def _random_pose(rng, spread):
    q = rng.normal(size=4)
    return Transform(Rotation.from_quaternion(q / np.linalg.norm(q)),
                     rng.uniform(-spread, spread, 3))


def _support_G(shape, X, d):
    """The shape's point farthest along d, by its own calc_support_point (in G)."""
    M = X.to_mat44()
    R, p = M[:3, :3], M[:3, 3]
    return R @ shape.calc_support_point(R.T @ d) + p


def _overlap(a, Xa, b, Xb, n):
    """How far B must move along the unit n to clear A."""
    return float(n @ _support_G(a, Xa, n) - n @ _support_G(b, Xb, -n))


def _poses(rng, a, b, separated, count):
    """``count`` random pose pairs, all separated by 1 mm or more, or all overlapping by
    1 mm or more."""
    found = []
    while len(found) < count:
        Xa, Xb = _random_pose(rng, 0.1), _random_pose(rng, 0.9 if separated else 0.35)
        gap = closest_points(Xa, a, Xb, b).distance
        if (gap > 1e-3) if separated else (gap < -1e-3):
            found.append((Xa, Xb))
    return found


@pytest.mark.parametrize("pair", list(itertools.combinations_with_replacement(SHAPES, 2)))
def test_separated_pairs_have_certified_closest_points(pair):
    a, b = SHAPES[pair[0]], SHAPES[pair[1]]
    rng = np.random.default_rng(len(pair[0]) * 7 + len(pair[1]))
    tol = CURVED_ON_POLYTOPE_TOL if (pair[0] in CURVED) != (pair[1] in CURVED) else TOL
    for Xa, Xb in _poses(rng, a, b, True, 20):
        found = closest_points(Xa, a, Xb, b)
        n = found.normal
        assert np.linalg.norm(n) == pytest.approx(1.0, abs=1e-12)
        assert found.point_b - found.point_a == pytest.approx(found.distance * n, abs=TOL)
        # the plane through each point normal to n supports that shape
        assert n @ _support_G(a, Xa, n) == pytest.approx(n @ found.point_a, abs=tol)
        assert -n @ _support_G(b, Xb, -n) == pytest.approx(-n @ found.point_b, abs=tol)


@pytest.mark.parametrize("pair", list(itertools.combinations_with_replacement(SHAPES, 2)))
def test_overlapping_pairs_have_the_least_penetration(pair):
    a, b = SHAPES[pair[0]], SHAPES[pair[1]]
    rng = np.random.default_rng(len(pair[0]) * 11 + len(pair[1]))
    directions = rng.normal(size=(1000, 3))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    for Xa, Xb in _poses(rng, a, b, False, 10):
        found = closest_points(Xa, a, Xb, b)
        depth, n = -found.distance, found.normal
        assert _overlap(a, Xa, b, Xb, n) == pytest.approx(depth, abs=TOL)
        assert min(_overlap(a, Xa, b, Xb, m) for m in directions) >= depth - TOL
        moved = Transform(Xb.R, Xb.p + (depth + 1e-6) * n)
        assert closest_points(Xa, a, moved, b).distance == pytest.approx(1e-6, abs=TOL)
        assert n @ (found.point_b - found.point_a) == pytest.approx(-depth, abs=TOL)


@pytest.mark.parametrize("name", SHAPES)
def test_a_half_space_meets_a_shape_at_its_lowest_point(name):
    """The floor x_H = 0 (its normal -x_H); the shape's lowest point along -x_H is its
    support point along +x_H, at the height the pair reports."""
    shape = SHAPES[name]
    rng = np.random.default_rng(3)
    floor = Transform(Rotation(), [0.1, 0.0, 0.0])
    for _ in range(20):
        X = _random_pose(rng, 0.5)
        found = closest_points(floor, HalfSpace(), X, shape)
        lowest = _support_G(shape, X, np.array([1.0, 0.0, 0.0]))
        assert found.normal == pytest.approx([-1.0, 0.0, 0.0])
        assert found.distance == pytest.approx(-(lowest[0] - 0.1), abs=1e-12)
        assert found.point_b == pytest.approx(lowest, abs=1e-12)
        assert found.point_a == pytest.approx([0.1, lowest[1], lowest[2]], abs=1e-12)


def test_sphere_pairs_match_the_closed_form():
    """Two spheres: the distance between centres less the radii, in and out of contact."""
    a, b = Sphere(0.3), Sphere(0.2)
    for gap in (0.7, 0.1, -0.05, -0.3):
        X = Transform(Rotation(), [0.5 + gap, 0.0, 0.0])
        found = closest_points(Transform(), a, X, b)
        assert found.distance == pytest.approx(gap, abs=1e-15)
        assert found.normal == pytest.approx([1.0, 0.0, 0.0])


def test_bad_shapes_are_refused_with_the_fix():
    with pytest.raises(InvalidArgumentError, match="span no volume.*Brick or a Sphere"):
        Convex([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    with pytest.raises(NonPhysicalError, match="radius"):
        Capsule(0.0, 1.0)
    with pytest.raises(NonPhysicalError, match="half_length"):
        Capsule(0.1, -1.0)
    # an L-shaped prism is not convex
    outline = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]], dtype=float)
    vertices = np.vstack([np.column_stack([outline, np.zeros(6)]),
                          np.column_stack([outline, np.ones(6)])])
    sides = [[i, (i + 1) % 6, 6 + (i + 1) % 6] for i in range(6)] + \
        [[i, 6 + (i + 1) % 6, 6 + i] for i in range(6)]
    caps = [[0, 2, 1], [0, 3, 2], [0, 5, 3], [3, 5, 4],
            [6, 7, 8], [6, 8, 9], [6, 9, 11], [9, 10, 11]]
    mesh = TriangleMesh(vertices, sides + caps)
    with pytest.raises(InvalidArgumentError, match="not convex.*split it into convex parts"):
        Convex.from_mesh(mesh)
    with pytest.raises(InvalidArgumentError, match="not a convex shape"):
        closest_points(Transform(), mesh, Transform(), Sphere(1.0))
    with pytest.raises(InvalidArgumentError, match="must be shape A"):
        closest_points(Transform(), Sphere(1.0), Transform(), HalfSpace())


def test_a_convex_mesh_is_taken_as_its_hull():
    brick = Brick([0.3, 0.2, 0.1])
    hull = Convex.from_mesh(brick)
    assert hull.get_volume() == pytest.approx(8 * 0.3 * 0.2 * 0.1, rel=1e-12)
    assert len(hull.get_vertices()) == 8
    p = np.array([0.5, 0.05, 0.0])
    nearest, inside, normal = hull.find_nearest_point(p)
    assert not inside
    assert nearest == pytest.approx([0.3, 0.05, 0.0], abs=1e-12)
    assert normal == pytest.approx([1.0, 0.0, 0.0], abs=1e-12)


def test_a_hull_rests_on_a_floor_on_its_elastic_foundation():
    """A Convex is the mesh of its hull's triangles: a cube's hull dropped 5 mm onto a
    floor comes to rest on the springs of its bottom triangles, which then carry its
    weight."""
    import kinetree as kt

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    kt.Force.UniformGravity(kt.GeneralForceSubsystem(system), matter, [0, -9.81, 0])
    contact = kt.CompliantContactSubsystem(system, kt.ContactTrackerSubsystem(system))
    material = kt.ContactMaterial(1e6, 5.0, 0.0, 0.0, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        Transform(Rotation.about_z(-np.pi / 2)),
        kt.ContactSurface(HalfSpace(), material))
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * 0.1
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.0133)))
    body.add_contact_surface(Transform(), kt.ContactSurface(Convex(corners), material,
                                                            thickness=0.01))
    cube = kt.MobilizedBody.Free(matter.Ground(), body)
    state = system.realize_topology()
    cube.set_q_to_fit_transform(state, Transform(Rotation(), [0, 0.105, 0]))
    final = kt.simulate(system, state, 1.0, accuracy=1e-5, progress=False).states()[-1]
    system.realize(final, kt.Stage.DYNAMICS)
    total = sum(contact.get_contact_force(final, i).force_on_surface2
                for i in range(contact.get_num_contact_forces(final)))
    assert total == pytest.approx([0, 2.0 * 9.81, 0], rel=1e-3, abs=1e-3)
