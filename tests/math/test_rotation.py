"""Rotation: construction, every angle convention round trip, quaternions, angle-axis, the
numba kernels against the scipy-based class, and refusal of non-rotations."""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import polar

from kinetree.errors import InvalidArgumentError, NonPhysicalError
from kinetree.math.rotation import (
    BodyOrSpaceType,
    Rotation,
    angle_axis_to_matrix,
    body_fixed_xyz_to_matrix,
    matrix_to_body_fixed_xyz,
    matrix_to_quaternion,
    quaternion_normalize,
    quaternion_to_matrix,
)

BODY = BodyOrSpaceType.BodyRotationSequence
SPACE = BodyOrSpaceType.SpaceRotationSequence
ABOUT = (Rotation.about_x, Rotation.about_y, Rotation.about_z)
SEQUENCES = [s for s in itertools.product(range(3), repeat=3) if s[0] != s[1] and s[1] != s[2]]
HALF_PI = math.pi / 2
SAFE = 0.05  # distance kept from gimbal lock and from the +-pi wrap in round trips

hyp = settings(max_examples=40, deadline=None)
angle = st.floats(-math.pi + SAFE, math.pi - SAFE)
quaternion = (
    st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4)
    .map(np.array)
    .filter(lambda q: np.linalg.norm(q) > 0.1)
)
rotation = quaternion.map(Rotation.from_quaternion)


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=tol)


def close_angles(a, b, tol=1e-12):
    """Equal angles up to whole turns (pi and -pi are the same angle)."""
    d = np.remainder(np.asarray(a) - np.asarray(b) + math.pi, 2 * math.pi) - math.pi
    close(d, np.zeros_like(d), tol)


def same_quaternion(q1, q2, tol=1e-12):
    """q and -q are the same rotation."""
    assert min(np.max(np.abs(q1 - q2)), np.max(np.abs(q1 + q2))) <= tol


# ---- construction ------------------------------------------------------------------------------


def test_identity_and_elementary_rotations_turn_axes_right_handed():
    close(Rotation().as_matrix(), np.eye(3), 0)
    ex, ey, ez = np.eye(3)
    close(Rotation.about_x(HALF_PI) @ ey, ez)
    close(Rotation.about_y(HALF_PI) @ ez, ex)
    close(Rotation.about_z(HALF_PI) @ ex, ey)
    close(Rotation.about_z(0.3).as_matrix()[:2, :2],
          [[math.cos(0.3), -math.sin(0.3)], [math.sin(0.3), math.cos(0.3)]])


@hyp
@given(angle, st.lists(st.floats(-2.0, 2.0), min_size=3, max_size=3).filter(
    lambda a: np.linalg.norm(a) > 0.1))
def test_about_axis_normalizes_fixes_the_axis_and_matches_kernel(a, axis):
    axis = np.array(axis)
    r = Rotation.about_axis(a, axis)
    close(r @ axis, axis)
    close(r.as_matrix(), angle_axis_to_matrix(a, axis))
    close(Rotation.about_axis(a, 5 * axis).as_matrix(), r.as_matrix())
    close(r.as_matrix(), Rotation.about_axis(-a, -axis).as_matrix())


def test_about_axis_along_coordinate_axes_equals_about_xyz():
    for i, about in enumerate(ABOUT):
        axis = np.zeros(3)
        axis[i] = 3.0
        close(Rotation.about_axis(0.7, axis).as_matrix(), about(0.7).as_matrix())


# ---- body-fixed XYZ ----------------------------------------------------------------------------


@hyp
@given(angle, st.floats(-HALF_PI + SAFE, HALF_PI - SAFE), angle)
def test_body_fixed_xyz_is_rx_ry_rz_and_round_trips(a, b, c):
    r = Rotation.from_body_fixed_xyz([a, b, c])
    close(r.as_matrix(), (Rotation.about_x(a) @ Rotation.about_y(b) @ Rotation.about_z(c))
          .as_matrix())
    close(body_fixed_xyz_to_matrix(np.array([a, b, c])), r.as_matrix())
    close(r.convert_rotation_to_body_fixed_xyz(), [a, b, c], 1e-10)
    close(matrix_to_body_fixed_xyz(r.as_matrix()), [a, b, c], 1e-10)


@hyp
@given(rotation)
def test_body_fixed_xyz_kernels_reproduce_any_matrix(r):
    m = r.as_matrix()
    angles = matrix_to_body_fixed_xyz(m)
    close(body_fixed_xyz_to_matrix(angles), m)
    if math.cos(angles[1]) > 1e-6:  # scipy rounds to its gimbal-lock answer nearer than this
        close_angles(angles, r.convert_rotation_to_body_fixed_xyz(), 1e-8)


@pytest.mark.parametrize("b", [HALF_PI, -HALF_PI])
def test_body_fixed_xyz_at_gimbal_lock_reproduces_matrix_without_warning(b):
    m = Rotation.from_body_fixed_xyz([0.4, b, -1.1]).as_matrix()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        angles = Rotation(m).convert_rotation_to_body_fixed_xyz()
    close(Rotation.from_body_fixed_xyz(angles).as_matrix(), m)
    close(body_fixed_xyz_to_matrix(matrix_to_body_fixed_xyz(m)), m)
    close(matrix_to_body_fixed_xyz(m), angles)
    assert angles[2] == 0.0


# ---- three angles, three axes ------------------------------------------------------------------


def explicit_product(body_or_space, angles, axes):
    factors = [ABOUT[ax](a) for a, ax in zip(angles, axes)]
    if body_or_space is SPACE:
        factors.reverse()
    return (factors[0] @ factors[1] @ factors[2]).as_matrix()


def middle_angle(axes, fraction):
    """An angle inside the non-singular range of the middle angle of sequence ``axes``."""
    if axes[0] == axes[2]:
        return SAFE + fraction * (math.pi - 2 * SAFE)
    return -HALF_PI + SAFE + fraction * (math.pi - 2 * SAFE)


@pytest.mark.parametrize("body_or_space", [BODY, SPACE], ids=["body", "space"])
@pytest.mark.parametrize("axes", SEQUENCES, ids=lambda s: "".join("xyz"[i] for i in s))
@settings(max_examples=15, deadline=None)
@given(a1=angle, fraction=st.floats(0.0, 1.0), a3=angle)
def test_three_axes_sequences_match_products_and_round_trip(body_or_space, axes, a1, fraction,
                                                             a3):
    a2 = middle_angle(axes, fraction)
    names = ["xyz"[i] for i in axes]
    r = Rotation.from_three_angles_three_axes(body_or_space, a1, axes[0], a2, names[1], a3,
                                              axes[2])
    close(r.as_matrix(), explicit_product(body_or_space, (a1, a2, a3), axes))
    back = r.convert_three_axes_rotation_to_three_angles(body_or_space, *names)
    close(back, [a1, a2, a3], 1e-9)


@pytest.mark.parametrize("body_or_space", [BODY, SPACE], ids=["body", "space"])
@pytest.mark.parametrize("axes", SEQUENCES, ids=lambda s: "".join("xyz"[i] for i in s))
def test_three_axes_at_gimbal_lock_reproduce_the_matrix(body_or_space, axes):
    locks = [0.0, math.pi] if axes[0] == axes[2] else [HALF_PI, -HALF_PI]
    for a2 in locks:
        m = explicit_product(body_or_space, (0.3, a2, -0.8), axes)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            back = Rotation(m).convert_three_axes_rotation_to_three_angles(body_or_space, *axes)
        close(explicit_product(body_or_space, back, axes), m)


def test_body_and_space_sequences_are_reverses_of_each_other():
    body = Rotation.from_three_angles_three_axes(BODY, 0.1, "x", 0.2, "y", 0.3, "z")
    space = Rotation.from_three_angles_three_axes(SPACE, 0.3, "z", 0.2, "y", 0.1, "x")
    assert body.is_same_rotation(space)
    close(body.as_matrix(), Rotation.from_body_fixed_xyz([0.1, 0.2, 0.3]).as_matrix())


def test_three_axes_refuses_bad_sequences():
    with pytest.raises(InvalidArgumentError, match="consecutive"):
        Rotation.from_three_angles_three_axes(BODY, 0.1, "x", 0.2, "x", 0.3, "y")
    with pytest.raises(InvalidArgumentError, match="consecutive"):
        Rotation().convert_three_axes_rotation_to_three_angles(SPACE, 0, 2, 2)
    with pytest.raises(InvalidArgumentError, match="axis"):
        Rotation.from_three_angles_three_axes(BODY, 0.1, "w", 0.2, "x", 0.3, "y")
    with pytest.raises(InvalidArgumentError, match="axis"):
        Rotation.from_three_angles_three_axes(BODY, 0.1, 3, 0.2, "x", 0.3, "y")
    with pytest.raises(InvalidArgumentError, match="BodyOrSpaceType"):
        Rotation.from_three_angles_three_axes("body", 0.1, 0, 0.2, 1, 0.3, 2)
    with pytest.raises(NonPhysicalError, match="finite"):
        Rotation.from_three_angles_three_axes(BODY, math.nan, 0, 0.2, 1, 0.3, 2)


# ---- quaternions -------------------------------------------------------------------------------


@hyp
@given(quaternion)
def test_quaternion_round_trip_and_kernels_agree(q):
    unit = q / np.linalg.norm(q)
    r = Rotation.from_quaternion(q)
    close(quaternion_to_matrix(q), r.as_matrix())
    close(quaternion_normalize(q), unit)
    back = r.convert_rotation_to_quaternion()
    assert back[0] >= 0.0
    same_quaternion(back, unit)
    kernel = matrix_to_quaternion(r.as_matrix())
    assert kernel[0] >= 0.0
    same_quaternion(kernel, back)
    close(quaternion_to_matrix(kernel), r.as_matrix())


@pytest.mark.parametrize("axis", [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
@pytest.mark.parametrize("angle_rad", [math.pi, math.pi - 1e-3, 2.0, 1e-3])
def test_shepperd_every_branch_is_accurate(axis, angle_rad):
    r = Rotation.about_axis(angle_rad, axis)
    q = matrix_to_quaternion(r.as_matrix())
    unit = np.array(axis) / np.linalg.norm(axis)
    same_quaternion(q, np.concatenate(([math.cos(angle_rad / 2)], math.sin(angle_rad / 2) * unit)))
    close(np.linalg.norm(q), 1.0, 1e-15)


def test_quaternion_is_scalar_first():
    c, s = math.cos(0.25), math.sin(0.25)
    r = Rotation.from_quaternion([c, 0.0, 0.0, s])
    close(r.as_matrix(), Rotation.about_z(0.5).as_matrix())
    close(r.convert_rotation_to_quaternion(), [c, 0.0, 0.0, s])


# ---- angle-axis --------------------------------------------------------------------------------


@hyp
@given(rotation)
def test_angle_axis_round_trip(r):
    aa = r.convert_rotation_to_angle_axis()
    assert 0.0 <= aa[0] <= math.pi
    close(np.linalg.norm(aa[1:]), 1.0)
    assert Rotation.about_axis(aa[0], aa[1:]).is_same_rotation(r, 1e-10)
    close(angle_axis_to_matrix(aa[0], aa[1:]), r.as_matrix())


def test_angle_axis_of_a_vanishingly_small_rotation_has_a_unit_axis():
    """Found by hypothesis: a 2e-159 rad rotation underflowed |rotvec|² and lost the axis."""
    aa = Rotation.from_quaternion([1.0, 1.0735063347140446e-159, 0.0, 0.0]) \
        .convert_rotation_to_angle_axis()
    close(aa[1:], [1.0, 0.0, 0.0])


def test_identity_angle_axis_is_zero_about_x():
    close(Rotation().convert_rotation_to_angle_axis(), [0.0, 1.0, 0.0, 0.0], 0)


# ---- algebra -----------------------------------------------------------------------------------


@hyp
@given(rotation, rotation, st.lists(st.floats(-5, 5), min_size=6, max_size=6))
def test_products_inverse_and_vectors(r1, r2, v):
    close((r1 @ r1.invert()).as_matrix(), np.eye(3))
    close(r1.transpose().as_matrix(), r1.as_matrix().T, 0)
    close((r1 @ r2).as_matrix(), r1.as_matrix() @ r2.as_matrix())
    vs = np.array(v).reshape(3, 2)
    close(r1 @ vs, np.column_stack([r1 @ vs[:, 0], r1 @ vs[:, 1]]))
    close((r1 @ r2) @ vs[:, 0], r1 @ (r2 @ vs[:, 0]))
    close(np.linalg.norm(r1 @ vs[:, 0]), np.linalg.norm(vs[:, 0]), 1e-12)
    assert r1.reorthonormalize().is_same_rotation(r1)
    close(np.linalg.det(r1.as_matrix()), 1.0)


def test_is_same_rotation_resolves_tiny_angles():
    assert Rotation.about_z(5e-13).is_same_rotation(Rotation(), 1e-12)
    assert not Rotation.about_z(5e-12).is_same_rotation(Rotation(), 1e-12)
    assert Rotation.about_y(0.1).is_same_rotation(Rotation.about_y(0.1 + 1e-9), 1e-8)
    with pytest.raises(InvalidArgumentError, match="Rotation"):
        Rotation().is_same_rotation(np.eye(3))


def test_vector_shape_checked():
    with pytest.raises(InvalidArgumentError, match="shape"):
        Rotation() @ np.ones(4)
    with pytest.raises(InvalidArgumentError, match="shape"):
        Rotation() @ np.ones((2, 3))


def test_immutable_repr_and_copy():
    r = Rotation.about_x(0.3)
    m = r.as_matrix()
    m[0, 0] = 5.0
    close(r.as_matrix(), Rotation.about_x(0.3).as_matrix(), 0)
    with pytest.raises(AttributeError, match="immutable"):
        r.foo = 1
    again = eval(repr(r), {"Rotation": Rotation})
    close(again.as_matrix(), r.as_matrix(), 0)
    assert Rotation(r).is_same_rotation(r, 0.0)


# ---- validation --------------------------------------------------------------------------------


def test_reflection_and_singular_refused_naming_the_determinant():
    with pytest.raises(NonPhysicalError, match="determinant -1"):
        Rotation(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(NonPhysicalError, match="determinant 0"):
        Rotation(np.zeros((3, 3)))
    with pytest.raises(NonPhysicalError, match="reflection"):
        Rotation(-Rotation.about_z(0.4).as_matrix(), reorthonormalize=True)


def test_non_orthonormal_refused_unless_asked_then_nearest_rotation():
    rng = np.random.default_rng(1)
    m = Rotation.from_body_fixed_xyz([0.3, -0.2, 1.0]).as_matrix() + 1e-3 * rng.normal(size=(3, 3))
    with pytest.raises(NonPhysicalError, match="orthonormal"):
        Rotation(m)
    r = Rotation(m, reorthonormalize=True)
    close(r.as_matrix(), polar(m)[0])
    close(r.as_matrix().T @ r.as_matrix(), np.eye(3))


def test_tiny_deviation_is_silently_cleaned():
    m = Rotation.about_y(0.5).as_matrix() * (1 + 1e-9)
    r = Rotation(m)
    close(r.as_matrix().T @ r.as_matrix(), np.eye(3), 1e-15)
    assert r.is_same_rotation(Rotation.about_y(0.5))


def test_bad_inputs_refused():
    with pytest.raises(NonPhysicalError, match="finite"):
        Rotation(np.full((3, 3), np.nan))
    with pytest.raises(InvalidArgumentError, match="shape"):
        Rotation(np.eye(2))
    with pytest.raises(InvalidArgumentError, match="numeric"):
        Rotation("not a matrix")
    with pytest.raises(NonPhysicalError, match="zero"):
        Rotation.about_axis(0.3, [0.0, 0.0, 0.0])
    with pytest.raises(NonPhysicalError, match="zero"):
        Rotation.from_quaternion([0.0, 0.0, 0.0, 0.0])
    with pytest.raises(NonPhysicalError, match="finite"):
        Rotation.from_quaternion([1.0, np.nan, 0.0, 0.0])
    with pytest.raises(InvalidArgumentError, match="shape"):
        Rotation.from_quaternion([1.0, 0.0, 0.0])
    with pytest.raises(NonPhysicalError, match="finite"):
        Rotation.about_x(math.inf)
    with pytest.raises(InvalidArgumentError, match="single"):
        Rotation.about_x([0.1, 0.2])


def test_numpy_sees_a_rotation_as_its_matrix():
    """np.asarray(R) is R's 3x3 matrix, read-only (a Rotation is immutable); np.array(R)
    a writable copy; a list of Rotations becomes an (n, 3, 3) array."""
    R = Rotation.about_x(0.3) @ Rotation.about_z(-1.1)
    view = np.asarray(R)
    np.testing.assert_array_equal(view, R.as_matrix())
    assert not view.flags.writeable
    copy = np.array(R)
    copy[0, 0] = 5.0
    assert R.as_matrix()[0, 0] != 5.0
    assert np.asarray([R, R.invert()]).shape == (2, 3, 3)
    np.testing.assert_allclose(np.asarray(R) @ np.asarray(R.invert()), np.eye(3), atol=1e-15)
