"""GeometryPath's compiled kernels on a small chain (pin, slider, universal at random
frames), against analytic lengths and finite differences: the length is the sum of the
current segments (conditional points within their range, moving points at their clamped
functions, the wrap over a sphere); the lengthening speed is dL/dt; a unit tension's
generalized forces are -dL/dq. The wrap loop runs with a sphere compiled here and reached
through a Kinds table, as the wrap surfaces of paths/ are."""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from support import random_frame, world

import kinetree as kt
from kinetree.engine.kinds import Kinds, signature_of
from kinetree.errors import InvalidArgumentError
from kinetree.io.osim import OsimError
from kinetree.jit import helper
from kinetree.paths import path_kernel as pk
from kinetree.paths.geometry_path import (
    ConditionalPathPoint,
    GeometryPath,
    Location,
    MovingPathPoint,
    PathPoint,
    PathWrap,
    evaluate_paths,
    layout_paths,
    moment_arms,
)


class Chain:
    """A pin on Ground, a slider on it and a universal on that (q̇ = u for every one), at
    random frames, in a State at random q and u."""

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.system, self.matter, _, link = world(gravity=None)
        ground = self.matter.Ground()
        self.pin = kt.MobilizedBody.Pin(ground, random_frame(rng), link, random_frame(rng))
        self.slider = kt.MobilizedBody.Slider(self.pin, random_frame(rng), link,
                                              random_frame(rng))
        self.universal = kt.MobilizedBody.Universal(self.slider, random_frame(rng), link,
                                                    random_frame(rng))
        self.state = self.system.realize_topology()
        self.system.realize_model(self.state)
        self.state.set_q(rng.uniform(-1, 1, 4))
        self.state.set_u(rng.uniform(-1, 1, 4))
        self.system.realize(self.state, kt.Stage.VELOCITY)
        self.bodies = [ground, self.pin, self.slider, self.universal]

    def at(self, q, u=None):
        self.state.set_q(q)
        if u is not None:
            self.state.set_u(u)
        self.system.realize(self.state, kt.Stage.VELOCITY if u is not None
                            else kt.Stage.POSITION)

    def ground(self, body, station):
        return self.bodies[body].find_station_location_in_ground(self.state, station)


def lengths(chain, layout, work=None):
    return evaluate_paths(chain.matter, chain.state, layout, work=work)[0]


def check_speeds_and_forces(chain, layout, h=1e-6, atol=1e-8):
    """Speeds against dL/dt along u, and unit tensions' generalized forces against
    -dL/dq, by central differences (q̇ = u on this chain)."""
    q0, u0 = np.array(chain.state.get_q()), np.array(chain.state.get_u())
    chain.at(q0, u0)
    _, speeds, _, _ = evaluate_paths(chain.matter, chain.state, layout)
    n = layout.path_i.shape[0]
    generalized = np.zeros((n, q0.size))
    for p in range(n):
        tensions = np.zeros(n)
        tensions[p] = 1.0
        _, _, F, f = evaluate_paths(chain.matter, chain.state, layout, tensions)
        generalized[p] = chain.matter.multiply_by_system_jacobian_transpose(chain.state, F) + f
    rate = []
    for step in (h, -h):
        chain.at(q0 + step * u0)
        rate.append(lengths(chain, layout))
    np.testing.assert_allclose(speeds, (rate[0] - rate[1]) / (2 * h), rtol=0, atol=atol)
    for i in range(q0.size):
        ends = []
        for step in (h, -h):
            q = q0.copy()
            q[i] += step
            chain.at(q)
            ends.append(lengths(chain, layout))
        np.testing.assert_allclose(generalized[:, i], -(ends[0] - ends[1]) / (2 * h),
                                   rtol=0, atol=atol)
    chain.at(q0, u0)
    # the power of the tension is minus the lengthening speed, exactly
    np.testing.assert_allclose(generalized @ u0, -speeds, rtol=0, atol=1e-12)
    return speeds


def test_a_path_of_fixed_points_is_its_segments():
    chain = Chain()
    stations = [(0, [0.1, 0.2, 0.3]), (1, [0.3, -0.1, 0.0]), (1, [0.0, 0.4, 0.1]),
                (3, [0.2, 0.2, -0.2]), (2, [-0.1, 0.0, 0.5])]
    layout = layout_paths([GeometryPath([PathPoint(b, s) for b, s in stations]),
                           GeometryPath([PathPoint(3, [0, 0, 0]), PathPoint(0, [1, 0, 0])])])
    points = [chain.ground(b, s) for b, s in stations]
    expected = sum(np.linalg.norm(a - b) for a, b in zip(points, points[1:]))
    got = lengths(chain, layout)
    assert got[0] == pytest.approx(expected, abs=1e-14)
    assert got[1] == pytest.approx(np.linalg.norm(chain.ground(3, [0, 0, 0]) - [1, 0, 0]),
                                   abs=1e-14)
    speeds = check_speeds_and_forces(chain, layout)
    assert np.all(np.abs(speeds) > 1e-3)


def test_a_conditional_point_is_in_the_path_within_its_range():
    chain = Chain(1)
    q = np.array(chain.state.get_q())
    via = ConditionalPathPoint(1, [0.5, 0.5, 0.0], coordinate=0, range_min=q[0] - 0.1,
                               range_max=q[0] + 0.1)
    layout = layout_paths([GeometryPath([PathPoint(0, [0, 0, 0]), via,
                                         PathPoint(3, [0.1, 0, 0])])])
    ends = chain.ground(0, [0, 0, 0]), chain.ground(3, [0.1, 0, 0])
    middle = chain.ground(1, [0.5, 0.5, 0.0])
    through = np.linalg.norm(middle - ends[0]) + np.linalg.norm(ends[1] - middle)
    assert lengths(chain, layout)[0] == pytest.approx(through, abs=1e-14)
    check_speeds_and_forces(chain, layout)
    for outside, active in [(0.1 + 0.9e-5, True), (0.1 + 1.1e-5, False),
                            (-0.1 - 0.9e-5, True), (-0.1 - 1.1e-5, False)]:
        moved = q.copy()
        moved[0] += outside
        chain.at(moved)
        ends = chain.ground(0, [0, 0, 0]), chain.ground(3, [0.1, 0, 0])
        middle = chain.ground(1, [0.5, 0.5, 0.0])
        expected = (np.linalg.norm(middle - ends[0]) + np.linalg.norm(ends[1] - middle)
                    if active else np.linalg.norm(ends[1] - ends[0]))
        assert lengths(chain, layout)[0] == pytest.approx(expected, abs=1e-14), outside


def test_a_moving_point_follows_its_functions_clamped_to_the_coordinate_range():
    chain = Chain(2)
    q = np.array(chain.state.get_q())
    X_BF = kt.Transform(kt.Rotation.about_z(0.4), [0.1, -0.2, 0.3])
    slope = kt.Function.Linear([0.3, 0.1])
    bend = kt.Function.SimmSpline([-2.0, -1.0, 0.0, 1.0, 2.0], [0.1, 0.3, 0.2, -0.1, 0.4])
    lo, hi = q[3] - 0.2, q[3] + 0.2
    moving = MovingPathPoint(2, [0.0, 0.0, 0.25], [
        Location(slope, 0, 0), Location(bend, 3, 3, lo, hi), None], X_BF)
    layout = layout_paths([GeometryPath([PathPoint(0, [0.2, 0.1, 0]), moving,
                                         PathPoint(3, [0.1, 0.3, 0.2])])])

    def expected(qs):
        x = slope.calc_value([qs[0]])
        y = bend.calc_value([min(max(qs[3], lo), hi)])
        p = chain.ground(2, X_BF.shift_frame_station_to_base([x, y, 0.25]))
        return (np.linalg.norm(p - chain.ground(0, [0.2, 0.1, 0]))
                + np.linalg.norm(chain.ground(3, [0.1, 0.3, 0.2]) - p))

    assert lengths(chain, layout)[0] == pytest.approx(expected(q), abs=1e-14)
    check_speeds_and_forces(chain, layout)
    for beyond in (0.5, -0.5):
        moved = q.copy()
        moved[3] += beyond
        chain.at(moved)
        assert lengths(chain, layout)[0] == pytest.approx(expected(moved), abs=1e-14)


def test_moment_arms_are_minus_length_gradients_on_a_chain_without_constraints():
    chain = Chain(3)
    layout = layout_paths([GeometryPath([PathPoint(0, [0.2, 0.1, 0]),
                                         PathPoint(2, [0.3, 0.0, 0.1]),
                                         PathPoint(3, [0.1, 0.3, 0.2])])])
    arms = moment_arms(chain.system, chain.state, layout, range(4))
    q0 = np.array(chain.state.get_q())
    h = 1e-6
    for i in range(4):
        ends = []
        for step in (h, -h):
            q = q0.copy()
            q[i] += step
            chain.at(q)
            ends.append(lengths(chain, layout)[0])
        assert arms[0, i] == pytest.approx(-(ends[0] - ends[1]) / (2 * h), abs=1e-8)
    assert np.all(np.abs(arms) > 1e-3)


# ---------------------------------------------------------------------------- wrapping
@helper
def sphere_wrap_line(wi, wf, p1, p2, previous, result):
    """A sphere of radius wf[0] about W's origin: the great-circle wrap in the plane of
    its centre and the two points when the segment passes within the radius. Counts its
    calls in previous[9] (NaN before the first; a reset leaves it) and keeps its last
    tangent point r1 in previous[0:3]."""
    r = wf[0]
    previous[9] = (previous[9] if math.isfinite(previous[9]) else 0.0) + 1.0
    a, b = math.sqrt(p1[0] ** 2 + p1[1] ** 2 + p1[2] ** 2), \
        math.sqrt(p2[0] ** 2 + p2[1] ** 2 + p2[2] ** 2)
    if a <= r or b <= r:
        return 1
    d = (p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
    dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    t = min(max(-(p1[0] * d[0] + p1[1] * d[1] + p1[2] * d[2]) / dd, 0.0), 1.0)
    c = (p1[0] + t * d[0], p1[1] + t * d[1], p1[2] + t * d[2])
    if c[0] * c[0] + c[1] * c[1] + c[2] * c[2] >= r * r:
        return 0
    n = (p1[1] * p2[2] - p1[2] * p2[1], p1[2] * p2[0] - p1[0] * p2[2],
         p1[0] * p2[1] - p1[1] * p2[0])
    nn = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
    n = (n[0] / nn, n[1] / nn, n[2] / nn)
    theta = math.acos(min(1.0, (p1[0] * p2[0] + p1[1] * p2[1] + p1[2] * p2[2]) / (a * b)))
    alpha, beta = math.acos(r / a), math.acos(r / b)
    for j, (p, m, angle, sign) in enumerate(((p1, a, alpha, 1.0), (p2, b, beta, -1.0))):
        e = (p[0] / m, p[1] / m, p[2] / m)
        # the in-plane direction from this point's radius toward the other point's
        f = (sign * (n[1] * e[2] - n[2] * e[1]), sign * (n[2] * e[0] - n[0] * e[2]),
             sign * (n[0] * e[1] - n[1] * e[0]))
        for k in range(3):
            result[3 * j + k] = r * (math.cos(angle) * e[k] + math.sin(angle) * f[k])
    result[6] = r * (theta - alpha - beta)
    previous[0], previous[1], previous[2] = result[0], result[1], result[2]
    return 2


class Sphere:
    """A stand-in wrap object: a sphere of ``radius`` on ``body`` at X_BW."""

    def __init__(self, body, X_BW, radius, name="sphere"):
        self.body, self.X_BW, self.radius, self.name, self.active = body, X_BW, radius, \
            name, True

    def _row(self):
        return np.array([1, -1, 1, 0, 1]), np.array([self.radius])


@pytest.fixture
def sphere_layouts():
    """layout_paths whose wraps run ``sphere_wrap_line`` (as wrap kind 1)."""
    table = np.zeros((1, 5), dtype=np.int64)
    table[0, 1] = sphere_wrap_line.native_address(signature_of("wraps", "wrap_line"))
    kinds = Kinds("wraps", ())
    kinds._table = table

    def make(paths):
        return layout_paths(paths)._replace(wrap_kinds=kinds)

    return make


def wrapped_length(p1, p2, c, r):
    """The shortest length (m) from p1 to p2 around a sphere of radius r centred at c."""
    a, b = np.linalg.norm(p1 - c), np.linalg.norm(p2 - c)
    d = p2 - p1
    t = np.clip(-(p1 - c) @ d / (d @ d), 0, 1)
    if np.linalg.norm(p1 + t * d - c) >= r:
        return np.linalg.norm(d)
    theta = math.acos((p1 - c) @ (p2 - c) / (a * b))
    return math.sqrt(a * a - r * r) + math.sqrt(b * b - r * r) + r * (
        theta - math.acos(r / a) - math.acos(r / b))


def test_a_path_wraps_over_a_sphere_on_a_moving_body(sphere_layouts):
    chain = Chain(4)
    q = np.array(chain.state.get_q())
    # the sphere on the slider, the path from Ground to the universal across it
    X_BW = kt.Transform(kt.Rotation.about_x(0.7), [0.2, 0.1, -0.1])
    centre = chain.ground(2, X_BW.p)
    start = centre + np.array([1.0, 0.2, 0.1])
    end_G = centre + np.array([-1.0, -0.1, 0.05])
    X_GU = chain.universal.get_body_transform(chain.state)
    end = X_GU.invert().shift_frame_station_to_base(end_G)
    sphere = Sphere(2, X_BW, 0.3)
    path = GeometryPath([PathPoint(0, start), PathPoint(3, end)], [PathWrap(sphere)])
    layout = sphere_layouts([path])
    work = layout.new_work()
    got = lengths(chain, layout, work)[0]
    expected = wrapped_length(start, end_G, centre, 0.3)
    assert expected > np.linalg.norm(end_G - start) + 0.01      # it does wrap
    assert got == pytest.approx(expected, abs=1e-13)
    # the current path: the two ends with the tangent points between, on the sphere
    pi = layout.path_i[0]
    assert work[pi[pk.P_HEADER]] == 4
    sources = [work[pi[pk.P_CURRENT] + pk.CP_SIZE * i] for i in range(4)]
    assert sources == [0.0, -1.0, -2.0, 1.0]
    for i in (1, 2):
        g = work[pi[pk.P_CURRENT] + pk.CP_SIZE * i + pk.CP_GROUND:][:3]
        assert np.linalg.norm(g - centre) == pytest.approx(0.3, abs=1e-13)
    check_speeds_and_forces(chain, layout, atol=1e-7)
    # away from the sphere the path is straight and the kept state is reset
    moved = q.copy()
    moved[1] += 3.0
    chain.at(moved)
    centre = chain.ground(2, X_BW.p)
    end_G = chain.ground(3, end)
    assert wrapped_length(start, end_G, centre, 0.3) == pytest.approx(
        np.linalg.norm(end_G - start))
    assert lengths(chain, layout, work)[0] == pytest.approx(np.linalg.norm(end_G - start),
                                                           abs=1e-14)
    block = layout.wrap_rows[0, pk.W_BLOCK]
    assert np.all(work[block:block + 9] == -np.inf)
    # the PathWrap keeps the state of its chosen wrap only: the first call's count
    assert work[block + 9] == 1.0


def test_two_wraps_iterate_and_each_keeps_its_best_segment(sphere_layouts):
    chain = Chain(5)
    # two spheres on Ground, a path from Ground over both to the universal
    a, b = np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.05, 0.0])
    X_GU = chain.universal.get_body_transform(chain.state)
    start = np.array([-1.0, 0.05, 0.0])
    end_G = np.array([2.0, 0.12, 0.0])
    end = X_GU.invert().shift_frame_station_to_base(end_G)
    spheres = [Sphere(0, kt.Transform(kt.Rotation(), a), 0.2, "a"),
               Sphere(0, kt.Transform(kt.Rotation(), b), 0.25, "b")]
    via = PathPoint(0, [0.5, 0.1, 0.0])
    # the first over the first segment only; the second may wrap any segment and must
    # pick the one that crosses it
    path = GeometryPath([PathPoint(0, start), via, PathPoint(3, end)],
                        [PathWrap(spheres[0], 1, 2), PathWrap(spheres[1])])
    layout = sphere_layouts([path])
    work = layout.new_work()
    got = lengths(chain, layout, work)[0]
    expected = wrapped_length(start, via.station, a, 0.2) + wrapped_length(
        via.station, end_G, b, 0.25)
    assert expected > np.linalg.norm(via.station - start) + np.linalg.norm(
        end_G - via.station) + 1e-3
    assert got == pytest.approx(expected, abs=1e-13)
    pi = layout.path_i[0]
    assert work[pi[pk.P_HEADER]] == 7
    sources = [work[pi[pk.P_CURRENT] + pk.CP_SIZE * i] for i in range(7)]
    assert sources == [0.0, -1.0, -2.0, 1.0, -3.0, -4.0, 2.0]
    check_speeds_and_forces(chain, layout, atol=1e-7)


# ---------------------------------------------------------------------------- from_osim
def _xml(points: str, wraps: str = "") -> ET.Element:
    return ET.fromstring(f"<GeometryPath><PathPointSet><objects>{points}</objects>"
                         f"</PathPointSet><PathWrapSet><objects>{wraps}</objects>"
                         f"</PathWrapSet></GeometryPath>")


def _point(name, frame="/bodyset/a", location="0 0 0"):
    return (f"<PathPoint name='{name}'><socket_parent_frame>{frame}</socket_parent_frame>"
            f"<location>{location}</location></PathPoint>")


def _adapters(wraps=None):
    frames = {"/bodyset/a": (1, kt.Transform(kt.Rotation.about_z(0.5), [0.1, 0, 0])),
              "/bodyset/b": (2, kt.Transform())}

    def coordinate(name):
        return {"/jointset/j/q": (0, 0, -1.0, 1.0)}[name]

    def function(xml):
        return {"Constant": kt.Function.Constant(float(xml.findtext("value")))}[xml.tag] \
            if xml.tag == "Constant" else kt.Function.Linear(
                [float(v) for v in xml.findtext("coefficients").split()])

    return (lambda p: frames[p]), coordinate, function, (lambda n: (wraps or {})[n])


def test_from_osim_reads_every_point_kind_in_file_order():
    e = _xml(_point("p1", location="1 2 3")
             + "<ConditionalPathPoint name='c'><socket_parent_frame>/bodyset/b"
               "</socket_parent_frame><location>0 1 0</location><socket_coordinate>"
               "/jointset/j/q</socket_coordinate><range>-0.5 0.5</range>"
               "</ConditionalPathPoint>"
             + "<MovingPathPoint name='m'><socket_parent_frame>/bodyset/a"
               "</socket_parent_frame><socket_x_coordinate>/jointset/j/q"
               "</socket_x_coordinate><x_location><LinearFunction><coefficients>2 1"
               "</coefficients></LinearFunction></x_location><y_location><Constant>"
               "<value>0.5</value></Constant></y_location><z_location><Constant><value>0"
               "</value></Constant></z_location></MovingPathPoint>")
    path = GeometryPath.from_osim(e, "Thelen2003Muscle 'm'", *_adapters())
    p, c, m = path.points
    X = kt.Transform(kt.Rotation.about_z(0.5), [0.1, 0, 0])
    assert (p.body, c.body, m.body) == (1, 2, 1)
    np.testing.assert_allclose(p.station, X.shift_frame_station_to_base([1, 2, 3]))
    assert c.coordinate == 0 and c.range == (-0.5, 0.5)
    assert isinstance(m.locations[0], Location) and m.locations[0].range_max == 1.0
    assert m.locations[1].calc_value([0.0]) == 0.5


@pytest.mark.parametrize(("xml", "message"), [
    (_xml(_point("only")), "at least 2"),
    (_xml(_point("a") + "<Marker name='x'/>"), "no Marker"),
    (_xml(_point("a") + "<PathPoint name='b'><location>0 0 0</location></PathPoint>"),
     "socket_parent_frame"),
    (_xml(_point("a") + _point("b", location="0 nan 0")), "finite"),
    (_xml(_point("a") + _point("b"), "<PathWrap name='w'><wrap_object>s</wrap_object>"
          "<method>spiral</method></PathWrap>"), "spiral"),
    (_xml(_point("a") + _point("b"), "<PathWrap name='w'><wrap_object>s</wrap_object>"
          "<range>1 5</range></PathWrap>"), "within 1..2"),
])
def test_from_osim_names_the_path_and_the_fix(xml, message):
    with pytest.raises(OsimError, match=message) as error:
        GeometryPath.from_osim(xml, "Thelen2003Muscle 'vas'", *_adapters({"s": object()}))
    assert "vas" in str(error.value)


def test_a_moving_point_of_a_user_function_is_refused_by_name():
    class Mine(kt.Function):
        def calc_value(self, x):
            return 0.0

        def calc_derivative(self, components, x):
            return 0.0

        def get_argument_size(self):
            return 1

        def get_max_derivative_order(self):
            return 2

    m = MovingPathPoint(1, [0, 0, 0], [Location(Mine(), 0, 0), None, None], name="knee")
    with pytest.raises(InvalidArgumentError, match="knee.*Mine.*built-in"):
        layout_paths([GeometryPath([PathPoint(0, [0, 0, 0]), m])])
