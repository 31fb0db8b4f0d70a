"""Transform: construction forms, the group identities of composition and inverse, stations
against the 4x4 homogeneous matrices, and validation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinetree.errors import InvalidArgumentError, NonPhysicalError
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform

hyp = settings(max_examples=40, deadline=None)
vec3 = st.lists(st.floats(-10.0, 10.0), min_size=3, max_size=3).map(np.array)
rotation = (
    st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4)
    .map(np.array)
    .filter(lambda q: np.linalg.norm(q) > 0.1)
    .map(Rotation.from_quaternion)
)
transform = st.builds(Transform, rotation, vec3)


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=tol)


def test_construction_forms():
    ident = Transform()
    close(ident.to_mat44(), np.eye(4), 0)
    shift = Transform([1.0, 2.0, 3.0])
    close(shift.p, [1, 2, 3], 0)
    assert shift.R.is_same_rotation(Rotation(), 0.0)
    turn = Transform(Rotation.about_z(0.5))
    close(turn.p, np.zeros(3), 0)
    both = Transform(Rotation.about_z(0.5).as_matrix(), (1, 2, 3))
    assert both.get_rotation().is_same_rotation(Rotation.about_z(0.5))
    close(both.get_translation(), [1, 2, 3], 0)


def test_known_pose_maps_stations():
    x_ab = Transform(Rotation.about_z(math.pi / 2), [1.0, 0.0, 0.0])
    close(x_ab @ np.array([1.0, 0.0, 0.0]), [1.0, 1.0, 0.0])
    close(x_ab.shift_base_station_to_frame([1.0, 1.0, 0.0]), [1.0, 0.0, 0.0])
    close(x_ab.xform_frame_vec_to_base([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0])
    close(x_ab.xform_base_vec_to_frame([0.0, 1.0, 0.0]), [1.0, 0.0, 0.0])


@hyp
@given(transform, transform, transform, vec3)
def test_group_identities(x1, x2, x3, s):
    assert (x1 @ x1.invert()).is_same_transform(Transform(), 1e-12)
    assert (x1.invert() @ x1).is_same_transform(Transform(), 1e-12)
    assert x1.invert().invert().is_same_transform(x1, 1e-12)
    assert ((x1 @ x2) @ x3).is_same_transform(x1 @ (x2 @ x3), 1e-11)
    assert (x1 @ x2).invert().is_same_transform(x2.invert() @ x1.invert(), 1e-11)
    close((x1 @ x2) @ s, x1 @ (x2 @ s), 1e-11)


@hyp
@given(transform, transform, vec3, vec3)
def test_agrees_with_homogeneous_matrices(x1, x2, s1, s2):
    close((x1 @ x2).to_mat44(), x1.to_mat44() @ x2.to_mat44(), 1e-11)
    close(x1.invert().to_mat44(), np.linalg.inv(x1.to_mat44()), 1e-11)
    stations = np.column_stack([s1, s2])
    homogeneous = x1.to_mat44() @ np.vstack([stations, np.ones(2)])
    close(x1 @ stations, homogeneous[:3], 1e-11)
    close(x1.shift_frame_station_to_base(stations), homogeneous[:3], 1e-11)
    close(x1.shift_base_station_to_frame(x1 @ stations), stations, 1e-11)
    close(x1.shift_base_station_to_frame(s1), x1.invert() @ s1, 1e-11)
    close(x1.xform_frame_vec_to_base(s1), x1.R @ s1)
    close(x1.xform_base_vec_to_frame(x1.xform_frame_vec_to_base(s1)), s1, 1e-11)


@hyp
@given(transform, vec3, vec3)
def test_distances_preserved(x, s1, s2):
    close(np.linalg.norm((x @ s1) - (x @ s2)), np.linalg.norm(s1 - s2), 1e-11)


def test_is_same_transform_tolerance():
    x = Transform(Rotation.about_x(0.2), [1.0, 2.0, 3.0])
    assert x.is_same_transform(Transform(Rotation.about_x(0.2), [1.0, 2.0, 3.0 + 1e-13]))
    assert not x.is_same_transform(Transform(Rotation.about_x(0.2), [1.0, 2.0, 3.001]))
    assert not x.is_same_transform(Transform(Rotation.about_x(0.2001), [1.0, 2.0, 3.0]))
    with pytest.raises(InvalidArgumentError, match="Transform"):
        x.is_same_transform(np.eye(4))


def test_immutable_and_repr():
    x = Transform(Rotation.about_y(0.3), [1.0, -2.0, 0.5])
    with pytest.raises(ValueError, match="read-only"):
        x.p[0] = 7.0
    with pytest.raises(AttributeError, match="immutable"):
        x.foo = 1
    again = eval(repr(x), {"Transform": Transform, "Rotation": Rotation})
    assert again.is_same_transform(x, 0.0)


def test_bad_inputs_refused():
    with pytest.raises(InvalidArgumentError, match="shape"):
        Transform([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="arguments"):
        Transform(Rotation(), [0, 0, 0], [0, 0, 0])
    with pytest.raises(NonPhysicalError, match="finite"):
        Transform(Rotation(), [0.0, np.nan, 0.0])
    with pytest.raises(NonPhysicalError, match="determinant"):
        Transform(np.diag([1.0, -1.0, 1.0]), [0.0, 0.0, 0.0])
    with pytest.raises(InvalidArgumentError, match="shape"):
        Transform() @ np.ones(2)
    with pytest.raises(TypeError):
        Transform() @ Rotation()
