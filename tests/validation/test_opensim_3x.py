"""OpenSim 3.x files (Version 30000) in kinetree and in OpenSim 4.6, which converts them
itself when it opens one: an arm written here in the 3.x layout (``osim_xml.arm3``: each
Body holding its Joint, a PinJoint, a CustomJoint of LinearFunction and SimmSpline axes, a
WeldJoint, a reversed SliderJoint, markers given by body name, two PointToPointSprings,
one disabled, a BushingForce given by body names and offsets, and an actuator kinetree
does not build). The same coordinates in the same order, u̇ by coordinate name at random
coordinate values and speeds to 1e-8 relative (the springs and the bushing on, the
actuator off in OpenSim), and the markers' positions in Ground.

Its joint offsets and one inertia have more than six significant digits: OpenSim rounds
them to six when it converts the file, and so does kinetree."""

import warnings

import numpy as np
import pytest
from osim_xml import arm3
from support import assert_udot_matches_opensim, set_random_coordinates

from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")


def opensim_state(path, built: set, seed: int):
    """OpenSim's model of ``path``, the force elements kinetree did not build switched off,
    at random coordinate values (within their ranges, at most 1 in magnitude) and speeds,
    realized to ACCELERATION."""
    model = osim.Model(str(path))
    forces = model.getForceSet()
    for i in range(forces.getSize()):
        if forces.get(i).getName() not in built:
            forces.get(i).set_appliesForce(False)
    state = model.initSystem()
    set_random_coordinates(model, state, np.random.default_rng(seed))
    model.realizeAcceleration(state)
    return model, state


def test_a_3x_arm_matches_opensim_by_coordinate_and_marker(tmp_path):
    path = tmp_path / "arm3.osim"
    path.write_text(arm3())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", OsimSkippedWarning)
        model = load_osim(path)
    assert model.skipped == [] and list(model.actuators) == ["shoulder_motor"]
    assert not caught
    assert sorted(model.force_elements) == ["bushing", "off_spring", "spring"]
    state = model.get_default_state()
    for seed in range(3):
        om, ostate = opensim_state(path, set(model.force_elements), seed)
        names = assert_udot_matches_opensim(model, state, om, ostate)
        assert names == list(model.coordinates) == ["shoulder_angle", "elbow", "slide"]

        markers = om.getMarkerSet()
        assert markers.getSize() == model.markers.get_num_markers() == 4
        for i in range(markers.getSize()):
            marker = markers.get(i)
            p = marker.getLocationInGround(ostate)
            k = model.markers.get_marker_index(marker.getName())
            ours = model.markers.get_marker_body(k).find_station_location_in_ground(
                state, model.markers.get_marker_station(k))
            np.testing.assert_allclose(ours, [p[0], p[1], p[2]], rtol=0, atol=1e-12)
