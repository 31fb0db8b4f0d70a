"""Every muscle's GeometryPath of OpenSim's models, built by kinetree from the file's
XML and computed by the compiled path kernels, against OpenSim 4.6 run side by side at
random coordinates and speeds: lengths and lengthening speeds to 1e-9, moment arms about
every coordinate to 1e-8 (conditional and moving points, a coordinate coupler; and, once
the wrap surfaces of paths/ exist, the cylinders and ellipsoids of arm26 and
Rajagopal2016); and the generalized forces of a unit tension against -dL/dq by central
differences."""

import importlib
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from support import (
    opensim_path_is_consistent,
    set_kinetree_coordinates,
    set_random_coordinates,
)

import kinetree as kt
from kinetree.io import OsimSkippedWarning, load_osim
from kinetree.io.osim_functions import function_of
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.paths.geometry_path import (
    GeometryPath,
    evaluate_paths,
    layout_paths,
    moment_arms,
)
from kinetree.registry import WRAPS

osim = pytest.importorskip("opensim")

_ROOT = Path(__file__).resolve().parents[2]
_FOLDERS = [_ROOT / "models" / "opensim", _ROOT.parent / "shared" / "models" / "opensim"]


def model_file(name: str) -> Path:
    for folder in _FOLDERS:
        if (folder / f"{name}.osim").is_file():
            return folder / f"{name}.osim"
    pytest.skip(f"no {name}.osim in models/opensim")


def wrap_classes() -> dict:
    """{OpenSim's tag: the WrapObject class} of the wrap surfaces of kinetree.paths."""
    from kinetree.paths.wrap_object import WrapObject
    found = {}
    for name in WRAPS:
        module = importlib.import_module(f"kinetree.paths.{name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, WrapObject) and \
                    value is not WrapObject:
                found[value.__name__] = value
    return found


class Paths:
    """A model loaded by kinetree and by OpenSim, with its muscles' GeometryPaths built
    from the file through small adapters to the kinetree model."""

    def __init__(self, name: str):
        path = model_file(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OsimSkippedWarning)
            self.model = load_osim(path, include_forces=False)
        self.state = self.model.get_default_state()
        self.om = osim.Model(str(path))
        self.ostate = self.om.initSystem()
        root = ET.parse(path).getroot()
        wraps = self._wrap_objects(root)
        self.names, paths = [], []
        for element in root.iterfind(".//ForceSet/objects/*"):
            g = element.find("GeometryPath")
            if g is None or not element.tag.endswith("Muscle"):
                continue
            name = element.get("name")
            self.names.append(name)
            paths.append(GeometryPath.from_osim(
                g, f"{element.tag} {name!r}", self._frame, self._coordinate,
                lambda xml, name=name: function_of(xml, name),
                lambda w: wraps[w]))
        self.layout = layout_paths(paths)
        # the PathWraps' kept states, carried from call to call as OpenSim's are
        self.work = self.layout.new_work()

    def _frame(self, socket: str):
        """(mobod index, X_BF) of an OpenSim frame, its pose in its base body by OpenSim."""
        frame = osim.PhysicalFrame.safeDownCast(self.om.getComponent(socket))
        base = frame.findBaseFrame()
        X = frame.findTransformInBaseFrame()
        R = np.array([[X.R().get(i, j) for j in range(3)] for i in range(3)])
        p = np.array([X.p().get(i) for i in range(3)])
        body = self.model.bodies[base.getName()]
        return body.get_mobilized_body_index(), Transform(Rotation(R), p)

    def _coordinate(self, name: str):
        c = self.model.coordinates[name.rsplit("/", 1)[-1]]
        return c.q_index, c.u_index, *c.range

    def _wrap_objects(self, root) -> dict:
        found = {}
        for body in root.iter("Body"):
            container = body.find("WrapObjectSet/objects")
            if container is None or not len(container):
                continue
            classes = wrap_classes()
            index = self.model.bodies[body.get("name")].get_mobilized_body_index()
            for w in container:
                if w.tag in classes:
                    found[w.get("name")] = classes[w.tag].from_osim(w, index)
        return found

    def random_state(self, seed: int):
        """OpenSim's and kinetree's States at the same random coordinates and speeds."""
        set_random_coordinates(self.om, self.ostate, np.random.default_rng(seed))
        self.om.assemble(self.ostate)
        self.om.realizeVelocity(self.ostate)
        set_kinetree_coordinates(self.model, self.state, self.om, self.ostate)

    def matter(self):
        return self.model.system.get_matter_subsystem()


@pytest.fixture(scope="module", params=["gait2392_thelen2003muscle", "leg6dof9musc"])
def paths(request):
    return Paths(request.param)


@pytest.fixture(scope="module", params=["arm26", "Rajagopal2016"])
def wrapped(request):
    pytest.importorskip("kinetree.paths.wrap_cylinder")
    pytest.importorskip("kinetree.paths.wrap_ellipsoid")
    return Paths(request.param)


def test_lengths_speeds_and_moment_arms_match_opensim(paths):
    assert paths.layout.wrap_rows.shape[0] == 0
    assert_paths_match_opensim(paths)


def test_wrapped_lengths_speeds_and_moment_arms_match_opensim(wrapped):
    assert wrapped.layout.wrap_rows.shape[0] > 0
    assert_paths_match_opensim(wrapped)


def assert_paths_match_opensim(paths):
    muscles = paths.om.getMuscles()
    coordinates = paths.om.getCoordinateSet()
    names = [coordinates.get(i).getName() for i in range(coordinates.getSize())]
    u_indices = [paths.model.coordinates[n].u_index for n in names]
    for seed in range(2):
        paths.random_state(seed)
        lengths, speeds, _, _ = evaluate_paths(paths.matter(), paths.state, paths.layout,
                                               work=paths.work)
        arms = moment_arms(paths.model.system, paths.state, paths.layout, u_indices,
                           paths.work)
        assert np.all(lengths > 0.0)
        for k, name in enumerate(paths.names):
            if not opensim_path_is_consistent(muscles.get(name), paths.ostate):
                continue    # OpenSim's stale tangent points (test_opensim_muscles.py)
            g = muscles.get(name).getGeometryPath()
            assert abs(lengths[k] - g.getLength(paths.ostate)) <= 1e-9, name
            assert abs(speeds[k] - g.getLengtheningSpeed(paths.ostate)) <= 1e-9, name
            for j, coordinate in enumerate(names):
                expected = g.computeMomentArm(paths.ostate, coordinates.get(coordinate))
                assert abs(arms[k, j] - expected) <= 1e-8, (name, coordinate)
        # the comparison has something to compare: muscles cross their joints
        assert np.count_nonzero(np.abs(arms) > 1e-3) > len(paths.names)


def test_unit_tension_generalized_forces_are_minus_length_gradient(paths):
    paths.random_state(7)
    matter, state = paths.matter(), paths.state
    q0 = np.array(state.get_q())
    n = paths.layout.path_i.shape[0]
    h = 1e-6
    gradient = np.zeros((n, q0.size))
    for i in range(q0.size):
        ends = []
        for step in (h, -h):
            q = q0.copy()
            q[i] += step
            state.set_q(q)
            paths.model.system.realize(state, kt.Stage.POSITION)
            ends.append(evaluate_paths(matter, state, paths.layout)[0])
        gradient[:, i] = (ends[0] - ends[1]) / (2 * h)
    state.set_q(q0)
    paths.model.system.realize(state, kt.Stage.POSITION)
    for p in range(n):
        tensions = np.zeros(n)
        tensions[p] = 1.0
        _, _, F, f = evaluate_paths(matter, state, paths.layout, tensions)
        generalized = matter.multiply_by_system_jacobian_transpose(state, F) + f
        np.testing.assert_allclose(generalized, -gradient[p], rtol=0, atol=1e-7,
                                   err_msg=paths.names[p])
