"""The contact patch of a convex hull on a box or another hull (``polytope_manifold``), in
the rigid-contact pass: a hull of a box's corners makes the patch two boxes make (the box
manifold, another algorithm) on and under a box or a hull; a tetrahedron stands on its
face's three corners; crossed edges meet at their crossing, the pair query's
separation; a resting patch keeps its points and their names when the shapes move by
round-off; a cylinder stands, lies and carries a box on its rim points over a face, and
a box smaller than its cap on the box's corners."""

import numpy as np
import pytest
from test_shape_contacts import _scene

import kinetree as kt

SIGNS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
LOWER, UPPER = np.array([0.2, 0.05, 0.15]), np.array([0.1, 0.04, 0.12])
FEATURES = 1 << 16


def _box(half, hull):
    return kt.ContactGeometry.Convex(SIGNS * half) if hull else kt.ContactGeometry.Brick(half)


def _patch(lower, upper, X_upper, margin=0.01, X_lower=None):
    """The contacts of ``upper`` posed X_upper on ``lower`` (at the origin unless posed
    X_lower): (points, normals, separations, features), ordered by position."""
    contacts, state, _ = _scene([lower, upper], [X_lower or kt.Transform(), X_upper])
    found = contacts.find(state, margin)
    order = np.lexsort(np.round(found.point, 9).T)
    return (found.point[order], found.frame[order, 0], found.separation[order],
            found.key[order] % FEATURES)


@pytest.mark.parametrize("turn", [0.3, np.pi / 4])
def test_a_hull_on_a_box_touches_as_two_boxes_do(turn):
    """Turned in the plane by 0.3 rad (the overlap of two rectangles) or by 45° (a
    square on a square: an octagon), 0.1 mm in: a hull on a box, a box on a hull and a
    hull on a hull give the box manifold's four points, normal and separations."""
    upper_half = UPPER if turn == 0.3 else np.array([0.1, 0.04, 0.1])
    lower_half = LOWER if turn == 0.3 else np.array([0.1, 0.05, 0.1])
    X = kt.Transform(kt.Rotation.about_y(turn),
                     [0.15 if turn == 0.3 else 0.0, lower_half[1] + upper_half[1] - 1e-4,
                      0.05 if turn == 0.3 else 0.0])
    points, normals, gaps, _ = _patch(_box(lower_half, False), _box(upper_half, False), X)
    assert len(points) == 4 and gaps == pytest.approx([-1e-4] * 4, abs=1e-15)
    for lower_hull, upper_hull in ((False, True), (True, False), (True, True)):
        p, n, g, keys = _patch(_box(lower_half, lower_hull), _box(upper_half, upper_hull), X)
        np.testing.assert_allclose(p, points, rtol=0, atol=1e-14)
        np.testing.assert_allclose(n, normals, rtol=0, atol=1e-15)
        np.testing.assert_allclose(g, gaps, rtol=0, atol=1e-15)
        assert len(set(keys)) == 4 and keys.min() > 0       # patch points, named apart


def test_a_tetrahedron_stands_on_its_faces_three_corners():
    """A tetrahedron's face down on a box, 0.2 mm in: three contacts, at the face's
    corners, each 0.2 mm deep along the box's face normal (not the one deepest point
    that would rock it)."""
    corners = np.array([[0.05, 0.0, 0.0], [-0.03, 0.0, 0.04], [-0.03, 0.0, -0.04],
                        [0.0, 0.07, 0.0]])
    X = kt.Transform(kt.Rotation(), [0.02, LOWER[1] - 2e-4, -0.03])
    points, normals, gaps, _ = _patch(_box(LOWER, False), kt.ContactGeometry.Convex(corners), X)
    assert len(points) == 3
    np.testing.assert_allclose(gaps, -2e-4, rtol=0, atol=1e-15)
    np.testing.assert_allclose(normals, np.tile([0.0, 1.0, 0.0], (3, 1)), atol=1e-15)
    # each point midway between the corner and the face beneath it
    face = corners[:3] + X.p
    np.testing.assert_allclose(points, face[np.lexsort(np.round(face, 9).T)] + [0, 1e-4, 0],
                               rtol=0, atol=1e-14)


def test_crossed_edges_meet_at_the_pair_querys_one_point():
    """A box-shaped hull turned 45° about x holds an edge up along x; another, turned 45°
    about z, rests an edge across it along z: one contact, the pair query's
    (closest_points'), at their crossing. Turned only about z, the upper hull lies an
    edge along a face: two contacts, the edge's ends over the face."""
    bar, cube = np.array([0.2, 0.05, 0.05]), np.array([0.05, 0.05, 0.05])
    lower, upper = _box(bar, True), _box(cube, True)
    X_lower = kt.Transform(kt.Rotation.about_x(np.pi / 4), [0.0, 0.0, 0.0])
    top = 0.05 * np.sqrt(2)
    X = kt.Transform(kt.Rotation.about_z(np.pi / 4),
                     [0.01, top + 0.05 * np.sqrt(2) - 1e-4, 0.02])
    points, normals, gaps, keys = _patch(lower, upper, X, X_lower=X_lower)
    query = kt.contact.closest_points(X_lower, lower, X, upper)
    assert len(points) == 1 and keys[0] == 0
    assert gaps[0] == pytest.approx(query.distance, abs=1e-12)
    assert gaps[0] == pytest.approx(-1e-4, abs=1e-12)
    assert normals[0] == pytest.approx(query.normal, abs=1e-12)
    assert points[0] == pytest.approx([0.01, top - 5e-5, 0.0], abs=1e-12)
    X = kt.Transform(kt.Rotation.about_z(np.pi / 4), [0.01, LOWER[1] + 0.05 * np.sqrt(2) - 1e-4,
                                                       0.02])
    points, _, gaps, _ = _patch(_box(LOWER, True), upper, X)
    assert len(points) == 2 and gaps == pytest.approx([-1e-4, -1e-4], abs=1e-15)
    assert points[:, 2] == pytest.approx([0.02 - 0.05, 0.02 + 0.05], abs=1e-14)


def test_a_resting_patch_keeps_its_points_and_names():
    """Moved by 1e-15 to 1e-9 m and tilted by 1e-9 rad, a hull resting on a hull keeps
    its four points and their names (the rigid stepper's warm start follows them)."""
    X = kt.Transform(kt.Rotation.about_y(0.3), [0.15, LOWER[1] + UPPER[1] - 1e-4, 0.05])
    _, _, _, keys = _patch(_box(LOWER, True), _box(UPPER, True), X)
    for shift in (1e-15, 1e-12, 1e-9):
        for tilt in (kt.Rotation(), kt.Rotation.about_x(1e-9), kt.Rotation.about_z(-1e-9)):
            moved = kt.Transform(tilt @ X.R, X.p + shift)
            _, _, _, again = _patch(_box(LOWER, True), _box(UPPER, True), moved)
            assert sorted(again) == sorted(keys)


@pytest.mark.parametrize("hull", [False, True])
def test_a_cylinder_stands_and_lies_on_a_face_on_its_rim_points(hull):
    """A cylinder standing 0.1 mm into a box's (or a hull's) top touches at four points
    of its lower rim; lying on its side, at the two ends of the line it lies along; a box
    resting on a standing cylinder, at four points of its upper rim. Half over an edge,
    only the rim points over the face are kept."""
    r, h = 0.04, 0.06
    cylinder = kt.ContactGeometry.Cylinder(r, h)
    lower = _box(LOWER, hull)
    standing = kt.Rotation.about_x(-np.pi / 2)                  # its axis along y
    points, normals, gaps, keys = _patch(
        lower, cylinder, kt.Transform(standing, [0.05, LOWER[1] + h - 1e-4, 0.02]))
    assert len(points) == 4 and gaps == pytest.approx([-1e-4] * 4, abs=1e-15)
    np.testing.assert_allclose(normals, np.tile([0.0, 1.0, 0.0], (4, 1)), atol=1e-15)
    radial = np.hypot(points[:, 0] - 0.05, points[:, 2] - 0.02)
    np.testing.assert_allclose(radial, r, rtol=1e-12)
    np.testing.assert_allclose(points[:, 1], LOWER[1] - 5e-5, rtol=0, atol=1e-15)
    assert len(set(keys)) == 4
    # lying along x
    points, _, gaps, _ = _patch(lower, cylinder, kt.Transform(
        kt.Rotation.about_y(np.pi / 2), [0.05, LOWER[1] + r - 1e-4, 0.02]))
    np.testing.assert_allclose(points, [[0.05 - h, LOWER[1] - 5e-5, 0.02],
                                        [0.05 + h, LOWER[1] - 5e-5, 0.02]], atol=1e-14)
    assert gaps == pytest.approx([-1e-4, -1e-4], abs=1e-15)
    # a box on a standing cylinder
    contacts, state, _ = _scene([cylinder, lower], [
        kt.Transform(standing, [0.0, 0.0, 0.0]),
        kt.Transform(kt.Rotation(), [0.01, h + LOWER[1] - 1e-4, 0.0])])
    found = contacts.find(state, 0.01)
    assert len(found.separation) == 4
    assert found.separation == pytest.approx([-1e-4] * 4, abs=1e-15)
    np.testing.assert_allclose(found.frame[:, 0], np.tile([0.0, 1.0, 0.0], (4, 1)), atol=1e-15)
    # half over the edge x = 0.2: the rim points beyond it are dropped
    points, _, _, _ = _patch(lower, cylinder,
                             kt.Transform(standing, [0.2, LOWER[1] + h - 1e-4, 0.02]))
    assert 0 < len(points) < 4 and np.all(points[:, 0] <= 0.2 + 1e-12)


@pytest.mark.parametrize("hull", [False, True])
def test_a_box_smaller_than_a_cap_rests_on_its_corners_over_the_disk(hull):
    """A box (or its hull) 0.1 mm into the top cap of a wider standing cylinder touches at
    its lower face's four corners, along the cap's normal; moved half past the rim, at
    its corners over the disk and the rim's points under its face, four kept, none
    outside both."""
    r, h = 0.3, 0.06
    cylinder = kt.ContactGeometry.Cylinder(r, h)
    standing = kt.Rotation.about_x(-np.pi / 2)                  # its axis along y
    top = h + UPPER[1] - 1e-4
    contacts, state, _ = _scene([cylinder, _box(UPPER, hull)], [
        kt.Transform(standing, [0.0, 0.0, 0.0]), kt.Transform(kt.Rotation(), [0.02, top, 0.01])])
    found = contacts.find(state, 0.01)
    assert len(found.separation) == 4
    assert found.separation == pytest.approx([-1e-4] * 4, abs=1e-15)
    np.testing.assert_allclose(np.abs(found.frame[:, 0]), np.tile([0, 1, 0], (4, 1)),
                               atol=1e-15)
    corners = {(0.02 + sx * UPPER[0], 0.01 + sz * UPPER[2]) for sx in (-1, 1) for sz in (-1, 1)}
    for point in found.point:
        assert min(np.hypot(point[0] - x, point[2] - z) for x, z in corners) < 1e-14
        assert point[1] == pytest.approx(h - 5e-5, abs=1e-15)
    assert len(set(found.key)) == 4
    # half past the rim at x = r: the corners at x < r and the rim under the face
    contacts, state, _ = _scene([cylinder, _box(UPPER, hull)], [
        kt.Transform(standing, [0.0, 0.0, 0.0]), kt.Transform(kt.Rotation(), [r, top, 0.0])])
    found = contacts.find(state, 0.01)
    assert 2 <= len(found.separation) <= 4
    assert found.separation == pytest.approx([-1e-4] * len(found.separation), abs=1e-15)
    radial = np.hypot(found.point[:, 0], found.point[:, 2])
    assert np.all(radial <= r * (1 + 1e-9))
    assert np.all(np.abs(found.point[:, 0] - r) <= UPPER[0] + 1e-12)
    assert np.all(np.abs(found.point[:, 2]) <= UPPER[2] + 1e-12)
