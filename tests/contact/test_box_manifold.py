"""The contact patch of two boxes (``box_manifold``): a box resting on another touches on
the overlap of the two faces, a square on a square turned in its plane on four corners of
the octagon they share, spanning it, crossed edges at one point; every point lies on both
boxes' surfaces (within the overlap) and its separation is its height above the reference
face. A resting patch keeps its points, and their names, when the boxes move by
round-off or tilt by a hair: the rigid stepper's warm start follows the names."""

import numpy as np
import pytest

from kinetree.contact.box_manifold import box_box_manifold
from kinetree.math import Rotation

HALF = np.array([0.1, 0.05, 0.1])


def _inside(point, R, p, half, slack=1e-12):
    return np.all(np.abs(R.T @ (point - p)) <= half + slack)


def test_a_box_on_a_box_touches_on_the_overlap_of_their_faces():
    eye = np.eye(3)
    top = np.array([0.04, 2 * HALF[1] - 1e-4, -0.03])
    patch = box_box_manifold(eye, np.zeros(3), HALF, eye, top, HALF, 1e-3)
    assert len(patch) == 4
    for on_a, point, beneath, normal, gap, _ in patch:
        assert on_a and normal == pytest.approx([0, 1, 0])
        assert gap == pytest.approx(-1e-4, abs=1e-15)
        assert beneath[1] == pytest.approx(HALF[1])
        assert _inside(beneath, eye, np.zeros(3), HALF) and _inside(point, eye, top, HALF)
    corners = sorted((round(p[0], 12), round(p[2], 12)) for _, p, _, _, _, _ in patch)
    assert corners == [(-0.06, -0.1), (-0.06, 0.07), (0.1, -0.1), (0.1, 0.07)]


def test_a_square_turned_on_a_square_touches_on_four_corners_of_their_octagon():
    R = Rotation.about_y(np.pi / 4).as_matrix()
    top = np.array([0.0, 2 * HALF[1] - 1e-5, 0.0])
    patch = box_box_manifold(np.eye(3), np.zeros(3), HALF, R, top, HALF, 1e-3)
    assert len(patch) == 4
    # the octagon's corners: on the lower square's sides, where the turned one crosses
    t = 0.1 * (np.sqrt(2) - 1)
    octagon = {(0.1, t), (0.1, -t), (-0.1, t), (-0.1, -t), (t, 0.1), (-t, 0.1), (t, -0.1),
               (-t, -0.1)}
    kept = []
    for _, point, beneath, _, gap, _ in patch:
        assert gap == pytest.approx(-1e-5, abs=1e-15)
        assert _inside(beneath, np.eye(3), np.zeros(3), HALF)
        assert _inside(point, R, top, HALF)
        kept.append((point[0], point[2]))
        assert min(np.hypot(point[0] - x, point[2] - z) for x, z in octagon) < 1e-12
    # they span it: two of them are opposite corners, the other two on either side
    kept = np.array(kept)
    span = max(np.linalg.norm(a - b) for a in kept for b in kept)
    assert span == pytest.approx(0.2 / np.cos(np.pi / 8), rel=1e-12)


def _corners(R, p, half):
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    return p + (signs * half) @ R.T


def test_crossed_edges_touch_at_one_point_and_apart_boxes_not_at_all():
    # the lower box turned about z: its top is an edge along z; the upper box turned
    # about x: its bottom is an edge along x, 0.1 mm into the other
    R_low = Rotation.about_z(np.pi / 4).as_matrix()
    R_top = Rotation.about_x(np.pi / 4).as_matrix()
    low = _corners(R_low, np.zeros(3), HALF)
    ridge = low[np.argmax(low[:, 1])]                  # a point of the top edge
    below = _corners(R_top, np.zeros(3), HALF)
    keel = below[np.argmin(below[:, 1])]               # a point of the bottom edge
    drop = -keel[1]
    top = np.array([0.0, ridge[1] + drop - 1e-4, 0.0])
    patch = box_box_manifold(R_low, np.zeros(3), HALF, R_top, top, HALF, 1e-3)
    assert len(patch) == 1
    (_, point, beneath, normal, gap, _), = patch
    assert normal == pytest.approx([0, 1, 0], abs=1e-9)
    assert gap == pytest.approx(-1e-4, abs=1e-12)
    assert beneath == pytest.approx([ridge[0], ridge[1], keel[2]], abs=1e-12)
    assert point == pytest.approx([ridge[0], ridge[1] - 1e-4, keel[2]], abs=1e-12)
    far = top + [0, 0.01, 0]
    assert box_box_manifold(R_low, np.zeros(3), HALF, R_top, far, HALF, 1e-3) == []


def _names(patch):
    return {feature: point for _, point, _, _, _, feature in patch}


@pytest.mark.parametrize("tilt", [(1e-9, 0.0), (-1e-9, 0.0), (0.0, 1e-9), (0.0, -1e-9),
                                  (7e-10, -7e-10)])
def test_a_turned_square_keeps_its_four_points_when_it_tilts_by_a_hair(tilt):
    """The octagon of a square turned 0.7 rad on another has eight corners at one depth;
    tilted by 1e-9 rad any of them may be the deepest, and the same four are kept."""
    R = Rotation.about_y(0.7).as_matrix()
    top = np.array([0.01, 2 * HALF[1] - 1e-5, -0.02])
    flat = _names(box_box_manifold(np.eye(3), np.zeros(3), HALF, R, top, HALF, 1e-3))
    assert len(flat) == 4
    tilted = Rotation.about_x(tilt[0]).as_matrix() @ Rotation.about_z(tilt[1]).as_matrix() @ R
    names = _names(box_box_manifold(np.eye(3), np.zeros(3), HALF, tilted, top, HALF, 1e-3))
    assert names.keys() == flat.keys()
    for name, point in names.items():
        assert np.linalg.norm(point - flat[name]) < 1e-9


@pytest.mark.parametrize("shift", [1e-15, -1e-15, 1e-12, -1e-12, 1e-9, -1e-9])
def test_boxes_stacked_square_keep_their_names_under_round_off(shift):
    """A box 3 mm along x on another of its size: the upper face's sides along x lie on
    the lower face's sides, and moved across them by round-off its corners keep their
    names (a corner clipped at one step and kept at the next would be a new point)."""
    top = np.array([0.003, 2 * HALF[1] - 1e-5, 0.0])
    square = _names(box_box_manifold(np.eye(3), np.zeros(3), HALF, np.eye(3), top, HALF,
                                     1e-3))
    moved = _names(box_box_manifold(np.eye(3), np.zeros(3), HALF, np.eye(3),
                                    top + [0.0, 0.0, shift], HALF, 1e-3))
    assert len(square) == 4 and moved.keys() == square.keys()
    for name, point in moved.items():
        assert np.linalg.norm(point - square[name]) < 2 * abs(shift) + 1e-15
