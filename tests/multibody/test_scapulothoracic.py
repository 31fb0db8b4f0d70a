"""The Scapulothoracic mobilizer's conventions (mobilizers/scapulothoracic.py), on its
kernels: at q = 0, M sits at F's +z pole of the ellipsoid with F's axes; the first three
coordinates turn about the ellipsoid frame E = F turned +90° about z (x-y-z angles: the first
about F's y, the second about F's -x); the winging angle alone turns M about the axis
(-sin d, cos d, 0) through (ox, oy, 0); and the constructor's checks. Its H, HDot, N and
fits are checked by check_mobilizer (test_check_mobilizer.py, test_reversed_mobilizers.py)
and its dynamics against OpenSim (validation/test_opensim_scapulothoracic.py)."""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.multibody.mobilizers import scapulothoracic as st

PRM = np.array([0.07, 0.15, 0.08, -0.01, 0.025, 0.4])


def transform(q):
    R, p = np.zeros((3, 3)), np.zeros(3)
    st.x_fm(np.array(q, dtype=float), PRM, R, p)
    return R, p


@pytest.mark.parametrize("q", [[1, 0, 0, 0, 0], [0, 0, 0, 0]], ids=["quaternion", "euler"])
def test_the_default_pose_is_the_pole(q):
    R, p = transform(q)
    np.testing.assert_allclose(R, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(p, [0, 0, 0.08], atol=1e-15)


def test_the_ellipsoid_angles_turn_about_e():
    """Abduction θ alone turns about F's y (E's x): M's origin goes to D (sin θ, 0, cos θ);
    elevation θ alone turns about F's -x: D (0, sin θ, cos θ)."""
    t = 0.3
    R, p = transform([t, 0, 0, 0])
    np.testing.assert_allclose(R, kt.Rotation.about_y(t).as_matrix(), atol=1e-15)
    np.testing.assert_allclose(p, PRM[:3] * [math.sin(t), 0, math.cos(t)], atol=1e-15)
    R, p = transform([0, t, 0, 0])
    np.testing.assert_allclose(R, kt.Rotation.about_x(-t).as_matrix(), atol=1e-15)
    np.testing.assert_allclose(p, PRM[:3] * [0, math.sin(t), math.cos(t)], atol=1e-15)


def test_winging_turns_about_its_axis_through_its_origin():
    t, d = 0.7, PRM[5]
    axis, origin = np.array([-math.sin(d), math.cos(d), 0]), np.array([-0.01, 0.025, 0])
    R, p = transform([0, 0, 0, t])
    turn = kt.Rotation.about_axis(t, axis).as_matrix()
    np.testing.assert_allclose(R, turn, atol=1e-15)
    np.testing.assert_allclose(p, [0, 0, 0.08] + origin - turn @ origin, atol=1e-15)


def test_the_constructor_checks_its_parameters():
    matter = kt.SimbodyMatterSubsystem(kt.MultibodySystem())
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    mobod = kt.MobilizedBody.Scapulothoracic(matter.Ground(), body, (0.1, 0.2, 0.3),
                                             winging_direction=0.2)
    np.testing.assert_array_equal(mobod.get_default_radii(), [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(mobod.get_default_winging_axis_origin(), [0, 0])
    assert mobod.get_default_winging_axis_direction() == 0.2
    for bad, match in [(((0.1, 0, 0.3),), "radii"), (((0.1, 0.2, 0.3), (1, 2, 3)), "origin"),
                       (((0.1, 0.2, 0.3), (1, 2), math.inf), "winging_direction"),
                       ((), "call it as")]:
        with pytest.raises(kt.errors.InvalidArgumentError, match=match):
            kt.MobilizedBody.Scapulothoracic(matter.Ground(), body, *bad)
