"""OpenSim 4.6's wrap surfaces run side by side with kinetree's.

Each case is a tiny OpenSim model: ground, a body b on a free joint carrying the wrap
object (offset and rotated on it), a body c on a free joint, and a PathActuator whose
GeometryPath runs from a point on ground to a point on c over the surface. The wrap
object kinetree uses is read back from the model's file (``WrapObject.from_osim``). At
random configurations OpenSim's path length and the locations of its wrap points must
be those given by kinetree's ``wrap_line`` on the two path points expressed in the
surface frame W: |p1 - r1| + length over the surface + |r2 - p2| when it wraps, |p2 - p1|
when not.
"""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.paths.wrap_object import (
    INSIDE_RADIUS,
    MANDATORY_WRAP,
    NO_WRAP,
    WRAPPED,
    WrapObject,
    initial_state,
)

osim = pytest.importorskip("opensim")

TOL = 1e-9
P1_G = np.array([-0.3, 0.02, 0.01])
"""The path's first point, on ground (m)."""
P2_C = np.array([0.01, 0.02, -0.01])
"""The path's last point, on body c (m, in c)."""


def _vec3(v):
    return osim.Vec3(float(v[0]), float(v[1]), float(v[2]))


def _transform(X) -> Transform:
    R = np.array([[X.R().get(i, j) for j in range(3)] for i in range(3)])
    p = np.array([X.p().get(i) for i in range(3)])
    return Transform(Rotation(R, reorthonormalize=True), p)


def _in_wrap_frame(s, frame, station, body, X_BW) -> np.ndarray:
    """A station of ``frame`` (m) in the surface frame W of a wrap object on ``body``."""
    p_B = frame.findStationLocationInAnotherFrame(s, _vec3(station), body)
    return np.array(X_BW.shiftBaseStationToFrame(p_B).to_numpy())


def _model(tmp_path, wrap, method: str, single: bool):
    """The OpenSim model and state of a case, and the kinetree WrapObject read from its
    file. Without ``single`` the path has a second PathWrap, over a sphere far away it
    never wraps, which makes OpenSim's WrapResult.singleWrap false."""
    m = osim.Model()
    m.setGravity(osim.Vec3(0))
    bodies = {}
    for name in ("b", "c"):
        body = osim.Body(name, 1.0, osim.Vec3(0), osim.Inertia(0.1, 0.1, 0.1))
        m.addBody(body)
        m.addJoint(osim.FreeJoint("j" + name, m.getGround(), body))
        bodies[name] = body
    wrap.setName("w")
    wrap.set_xyz_body_rotation(osim.Vec3(0.3, -0.2, 0.5))
    wrap.set_translation(osim.Vec3(0.01, -0.02, 0.015))
    bodies["b"].addWrapObject(wrap)
    act = osim.PathActuator()
    act.setName("act")
    act.addNewPathPoint("p1", m.getGround(), _vec3(P1_G))
    act.addNewPathPoint("p2", bodies["c"], _vec3(P2_C))
    m.addForce(act)
    path = act.updGeometryPath()
    path.addPathWrap(wrap)
    path.updWrapSet().get(0).setMethod(
        {"hybrid": osim.PathWrap.hybrid, "midpoint": osim.PathWrap.midpoint,
         "axial": osim.PathWrap.axial}[method])
    if not single:
        far = osim.WrapSphere()
        far.setName("far")
        far.set_radius(0.01)
        far.set_translation(osim.Vec3(0.0, 5.0, 0.0))
        m.getGround().addWrapObject(far)
        path.addPathWrap(far)
    s = m.initSystem()
    file = tmp_path / "wrap.osim"
    m.printToXML(str(file))
    root = ET.parse(file).getroot()
    element = next(e for e in root.iter() if e.get("name") == "w"
                   and e.tag.startswith("Wrap"))
    return m, s, act, bodies, WrapObject.from_osim(element, 1)


def compare(tmp_path, wrap, method="hybrid", single=True, n=150, seed=0, spread=0.04,
            tol=TOL):
    """Run ``n`` random configurations; the WrapActions kinetree found, counted, and the
    number of NaN lengths ("nan")."""
    m, s, act, bodies, wo = _model(tmp_path, wrap, method, single)
    X_BW = bodies["b"].getWrapObject("w").getTransform()
    assert _transform(X_BW).is_same_transform(wo.X_BW, 1e-15)
    rng = np.random.default_rng(seed)
    coords = {name: [m.getCoordinateSet().get(f"j{name}_coord_{k}") for k in range(6)]
              for name in ("b", "c")}
    counts = dict.fromkeys((NO_WRAP, INSIDE_RADIUS, WRAPPED, MANDATORY_WRAP, "nan"), 0)
    state = initial_state()
    for _ in range(n):
        c_at = np.array([0.3, 0.0, 0.0]) + rng.normal(0.0, 0.08, 3)
        along = rng.uniform(-0.1, 1.1)
        b_at = P1_G + along * (c_at - P1_G) + rng.normal(0.0, spread, 3)
        for name, at in (("b", b_at), ("c", c_at)):
            angles = rng.uniform(-np.pi, np.pi, 3)
            for k in range(3):
                coords[name][k].setValue(s, float(angles[k]), False)
                coords[name][3 + k].setValue(s, float(at[k]), False)
        m.realizePosition(s)
        X_GW = _transform(bodies["b"].getTransformInGround(s)) @ wo.X_BW
        # the path points in W as OpenSim's wrapPathSegment computes them, to the bit:
        # some of its decisions turn on the rounding of values that are 0 in exact
        # arithmetic
        p1 = _in_wrap_frame(s, m.getGround(), P1_G, bodies["b"], X_BW)
        p2 = _in_wrap_frame(s, bodies["c"], P2_C, bodies["b"], X_BW)
        code, r1, r2, length = wo.wrap_line(p1, p2, method, single, state)
        counts[code] += 1
        path = act.getGeometryPath()
        expected = path.getLength(s)
        current = path.getCurrentPath(s)
        where = f"{type(wo).__name__} {method} {wo.quadrant} code {code} p1 {p1} p2 {p2}"
        ours = np.linalg.norm(p1 - r1) + length + np.linalg.norm(r2 - p2)
        # OpenSim keeps a mandatory wrap, and a wrap whose change of length is a number
        if code == MANDATORY_WRAP or (code == WRAPPED and np.isfinite(ours)):
            assert current.getSize() == 4, where
            for k, r in ((1, r1), (2, r2)):
                theirs = np.array(current.get(k).getLocationInGround(s).to_numpy())
                np.testing.assert_allclose(X_GW.shift_frame_station_to_base(r), theirs,
                                           rtol=0, atol=tol, err_msg=where)
        else:
            ours = np.linalg.norm(p2 - p1)
            assert current.getSize() == 2, where
        # where OpenSim's arithmetic breaks down (a NaN length) kinetree's must too
        assert abs(ours - expected) <= tol or (np.isnan(ours) and np.isnan(expected)), \
            f"{where}: {ours} vs OpenSim {expected}"
        counts["nan"] += bool(np.isnan(ours))
    return counts


def _cylinder(quadrant="all"):
    w = osim.WrapCylinder()
    w.set_radius(0.05)
    w.set_length(0.3)
    w.set_quadrant(quadrant)
    return w


@pytest.mark.parametrize("quadrant", ["all", "+x", "-y", "+z"])
@pytest.mark.parametrize("single", [True, False])
def test_cylinder(tmp_path, quadrant, single):
    counts = compare(tmp_path, _cylinder(quadrant), single=single)
    assert counts[NO_WRAP] > 5 and counts[INSIDE_RADIUS] > 5
    assert counts[WRAPPED] + counts[MANDATORY_WRAP] > 20
    if quadrant != "all":
        assert counts[WRAPPED] > 5


def _ellipsoid(quadrant="all"):
    w = osim.WrapEllipsoid()
    w.set_dimensions(osim.Vec3(0.04, 0.07, 0.05))
    w.set_quadrant(quadrant)
    return w


@pytest.mark.parametrize("method", ["hybrid", "midpoint", "axial"])
@pytest.mark.parametrize("quadrant", ["all", "-x", "+y", "-z"])
def test_ellipsoid(tmp_path, method, quadrant):
    counts = compare(tmp_path, _ellipsoid(quadrant), method=method, n=100)
    assert counts[NO_WRAP] > 5 and counts[INSIDE_RADIUS] > 5
    assert counts[MANDATORY_WRAP] > 20


def _sphere(quadrant="all"):
    w = osim.WrapSphere()
    w.set_radius(0.05)
    w.set_quadrant(quadrant)
    return w


@pytest.mark.parametrize("quadrant", ["all", "+x", "-y", "+z"])
def test_sphere(tmp_path, quadrant):
    counts = compare(tmp_path, _sphere(quadrant), n=200)
    assert counts[NO_WRAP] > 5 and counts[INSIDE_RADIUS] > 5
    assert counts[WRAPPED] + counts[MANDATORY_WRAP] > 20
    if quadrant != "all":
        assert counts[WRAPPED] > 0


def _torus(quadrant="all"):
    w = osim.WrapTorus()
    w.set_inner_radius(0.03)
    w.set_outer_radius(0.1)
    w.set_quadrant(quadrant)
    return w


@pytest.mark.parametrize("quadrant", ["all", "+x", "-y"])
@pytest.mark.parametrize("single", [True, False])
def test_torus(tmp_path, quadrant, single):
    """kinetree runs OpenSim's lmdif search along the line in the same arithmetic, so it
    stops where OpenSim's does (seldom at the point nearest the tube's circle) and wraps
    over OpenSim's cylinder, to round-off."""
    counts = compare(tmp_path, _torus(quadrant), single=single, n=300, spread=0.1)
    assert counts[WRAPPED] > 100
    if quadrant != "all":
        assert counts[NO_WRAP] > 50
