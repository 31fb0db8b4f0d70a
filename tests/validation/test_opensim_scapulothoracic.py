"""OpenSim's ScapulothoracicJoint in kinetree (the Scapulothoracic mobilizer) and in OpenSim
4.6, from one file written here: a thorax turning on a PinJoint from Ground, a scapula on
a ScapulothoracicJoint (an ellipsoid of three different radii, a winging axis off the
origin and turned, both offset frames translated and turned) and a humerus on a BallJoint
below it. Same coordinates in the same order; u̇ by coordinate name at random coordinate
values and speeds to 1e-8 relative (OpenSim builds the joint of an Ellipsoid, a Pin and a
Weld mobilizer with two massless bodies, kinetree of one mobilizer: the same dynamics), and
the scapula's and humerus's poses in Ground."""

import numpy as np
import pytest
from osim_xml import body, document, joint
from support import assert_udot_matches_opensim

import kinetree as kt
from kinetree.io import OsimError, load_osim

osim = pytest.importorskip("opensim")

ST = ("<thoracic_ellipsoid_radii_x_y_z>0.07 0.15 0.08</thoracic_ellipsoid_radii_x_y_z>"
      "<scapula_winging_axis_origin>-0.01 0.025</scapula_winging_axis_origin>"
      "<scapula_winging_axis_direction>0.4</scapula_winging_axis_direction>")
COORDINATES = ["thorax_rot", "abduction", "elevation", "upward_rotation", "winging",
               "shoulder_x", "shoulder_y", "shoulder_z"]


def shoulder(st_extra=ST) -> str:
    bodies = [body("thorax", 20.0, (0.0, -0.2, 0.02), (0.5, 0.2, 0.45, 0.01, 0.0, 0.02)),
              body("scapula", 0.7, (-0.03, 0.01, 0.04), (0.001, 0.0012, 0.0009, 1e-4, 0, 0)),
              body("humerus", 2.0, (0.0, -0.16, 0.01), (0.012, 0.002, 0.013, 0, 5e-4, 0))]
    joints = [
        joint("PinJoint", "ground_thorax", "ground", (0, 1.2, 0), "thorax", (0, 0, 0),
              [("thorax_rot", 0.0)], p_ori=(0.3, 0.0, 0.2)),
        joint("ScapulothoracicJoint", "scapulothoracic", "thorax", (-0.03, -0.04, 0.05),
              "scapula", (0.02, -0.01, -0.03),
              [("abduction", 0.0), ("elevation", 0.0), ("upward_rotation", 0.0),
               ("winging", 0.0)], p_ori=(0.2, -0.5, 0.1), c_ori=(-0.3, 0.4, 0.6),
              extra=st_extra),
        joint("BallJoint", "shoulder", "scapula", (0.01, -0.03, 0.02), "humerus", (0, 0, 0),
              [("shoulder_x", 0.0), ("shoulder_y", 0.0), ("shoulder_z", 0.0)])]
    return document("shoulder", bodies, joints)


def opensim_state(path, seed):
    """OpenSim's model at random coordinate values (within ±1) and speeds, realized to
    ACCELERATION."""
    model = osim.Model(str(path))
    state = model.initSystem()
    rng = np.random.default_rng(seed)
    coordinates = model.getCoordinateSet()
    for i in range(coordinates.getSize()):
        coordinates.get(i).setValue(state, rng.uniform(-1.0, 1.0), False)
        coordinates.get(i).setSpeedValue(state, rng.uniform(-2.0, 2.0))
    model.realizeAcceleration(state)
    return model, state


def test_a_scapulothoracic_shoulder_matches_opensim(tmp_path):
    path = tmp_path / "shoulder.osim"
    path.write_text(shoulder())
    model = load_osim(path)
    scapula = model.bodies["scapula"]
    assert isinstance(scapula, kt.MobilizedBody.Scapulothoracic)
    np.testing.assert_array_equal(scapula.get_default_radii(), [0.07, 0.15, 0.08])
    np.testing.assert_array_equal(scapula.get_default_winging_axis_origin(), [-0.01, 0.025])
    assert scapula.get_default_winging_axis_direction() == 0.4
    state = model.get_default_state()
    for seed in range(4):
        om, ostate = opensim_state(path, seed)
        names = assert_udot_matches_opensim(model, state, om, ostate, f"seed {seed}")
        assert names == list(model.coordinates) == COORDINATES
        for name in ("scapula", "humerus"):
            X = om.getBodySet().get(name).getTransformInGround(ostate)
            R = np.array([[X.R().get(i, j) for j in range(3)] for i in range(3)])
            p = np.array([X.p()[i] for i in range(3)])
            ours = model.bodies[name].get_body_transform(state)
            np.testing.assert_allclose(ours.R.as_matrix(), R, rtol=0, atol=1e-12)
            np.testing.assert_allclose(ours.p, p, rtol=0, atol=1e-12)


def test_the_comparison_sees_a_wrong_winging_axis(tmp_path):
    """kinetree given the file with the winging axis turned the other way (d = -0.4), OpenSim
    the original: u̇ differs, so the comparison above can fail."""
    path, wrong = tmp_path / "shoulder.osim", tmp_path / "wrong.osim"
    path.write_text(shoulder())
    wrong.write_text(shoulder(ST.replace(">0.4<", ">-0.4<")))
    model = load_osim(wrong)
    state = model.get_default_state()
    om, ostate = opensim_state(path, 0)
    with pytest.raises(AssertionError, match="kinetree"):
        assert_udot_matches_opensim(model, state, om, ostate)


def test_the_radii_are_required(tmp_path):
    path = tmp_path / "shoulder.osim"
    path.write_text(shoulder(st_extra=""))
    with pytest.raises(OsimError, match="thoracic_ellipsoid_radii_x_y_z"):
        load_osim(path)
