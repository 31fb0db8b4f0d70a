"""OpenSim's GeometryPath: a muscle's or cable's path through points fixed on bodies
(PathPoint), points active over a coordinate's range (ConditionalPathPoint), points
moving on their body as functions of coordinates (MovingPathPoint), and the wrap
surfaces it may wrap over (PathWrap).

The paths of a model are laid out as constant tables (``layout_paths``) that the
compiled kernels of ``path_kernel.py`` read; ``moment_arm`` computes a path's moment arm
about a coordinate as OpenSim's MomentArmSolver does.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from kinetree.engine.kinds import Kinds
from kinetree.errors import InvalidArgumentError
from kinetree.math import function_table
from kinetree.math.transform import Transform
from kinetree.multibody.tree_model import unpack_cache
from kinetree.paths import path_kernel as pk
from kinetree.paths.wrap_object import (
    METHOD,
    SINGLE,
    WRAP_I_COLUMNS,
    WRAP_RESULT,
    WRAP_STATE,
    initial_state,
)

METHODS = {"hybrid": 0, "midpoint": 1, "axial": 2}
"""OpenSim's PathWrap methods (its WrapMethod enum), the value a PathWrap writes into
column METHOD of its wrap object's int row."""

class Location(NamedTuple):
    """One coordinate of a MovingPathPoint: ``function`` (a kinetree Function of one
    argument) of the coordinate of generalized coordinate ``q`` and speed ``u``, whose
    value is clamped to [range_min, range_max] (the coordinate's range) before the
    function is evaluated, as OpenSim does."""

    function: object
    q: int
    u: int
    range_min: float = -math.inf
    range_max: float = math.inf


def _station(value, where: str) -> np.ndarray:
    s = np.asarray(value, dtype=float)
    if s.shape != (3,) or not np.all(np.isfinite(s)):
        raise InvalidArgumentError(f"{where}: a station is 3 finite numbers (m), got {value!r}.")
    return s


def _transform(X) -> Transform:
    return Transform() if X is None else X


class PathPoint:
    """A point fixed on body ``body`` (mobilized body index) at ``station`` (m, in the
    body frame)."""

    KIND = pk.FIXED

    def __init__(self, body: int, station, name: str = ""):
        self.name = name
        self.body = int(body)
        self.station = _station(station, f"PathPoint {name!r}")

    def _floats(self) -> list:
        return [*self.station, -math.inf, math.inf]


class ConditionalPathPoint(PathPoint):
    """A PathPoint in the path only while the coordinate of generalized coordinate
    ``coordinate`` (a q index) lies in [range_min, range_max] (within 1e-5, as OpenSim)."""

    KIND = pk.CONDITIONAL

    def __init__(self, body: int, station, coordinate: int, range_min: float,
                 range_max: float, name: str = ""):
        super().__init__(body, station, name)
        self.coordinate = int(coordinate)
        self.range = (float(range_min), float(range_max))
        if not self.range[0] <= self.range[1]:
            raise InvalidArgumentError(
                f"ConditionalPathPoint {name!r}: its range {self.range} is empty; give "
                "range_min <= range_max.")

    def _floats(self) -> list:
        return [*self.station, *self.range]


class MovingPathPoint:
    """A point moving on body ``body``: its location in the frame F (pose ``X_BF`` in the
    body, identity by default) has each coordinate x, y, z given by ``locations[i]``: a
    ``Location`` (a function of a coordinate), a Function of no coordinate (evaluated at
    0, as OpenSim's constant locations), or None (``station_default[i]``, m, in F)."""

    KIND = pk.MOVING

    def __init__(self, body: int, station_default, locations, X_BF: Transform | None = None,
                 name: str = ""):
        self.name = name
        self.body = int(body)
        self.station_default = _station(station_default, f"MovingPathPoint {name!r}")
        self.locations = tuple(locations)
        if len(self.locations) != 3:
            raise InvalidArgumentError(
                f"MovingPathPoint {name!r}: give 3 locations (x, y, z), got "
                f"{len(self.locations)}.")
        self.X_BF = _transform(X_BF)

    def _records(self) -> list:
        """The function records of x, y, z (of one argument, at index 0 of the scratch
        the kernel fills with the clamped coordinate)."""
        records = []
        for axis, location in enumerate(self.locations):
            if location is None:
                records.append([function_table.K_CONSTANT, -1, 0,
                                float(self.station_default[axis])])
                continue
            if isinstance(location, Location):
                record = function_table.record(location.function, [0])
            else:
                record = [function_table.K_CONSTANT, -1, 0,
                          float(location.calc_value(np.zeros(1)))]
            if record is None:
                raise InvalidArgumentError(
                    f"MovingPathPoint {self.name!r}: its {'xyz'[axis]} location is a "
                    f"{type(location.function).__name__}, which compiled paths cannot "
                    "evaluate; use a built-in Function (Constant, Linear, Polynomial, "
                    "SimmSpline, Spline, GCVSpline, PiecewiseLinear, Multiplier of these).")
            records.append(record)
        return records

    def _coordinates(self) -> list:
        return [(loc.q, loc.u, loc.range_min, loc.range_max) if isinstance(loc, Location)
                else (-1, -1, -math.inf, math.inf) for loc in self.locations]


class PathWrap:
    """The path may wrap over ``wrap`` (a WrapObject of paths/wrap_object.py) between its
    file points ``range_begin`` and ``range_end`` (1-based, inclusive, as OpenSim; below 1
    means the first or last point), by ``method`` (hybrid, midpoint or axial: the
    ellipsoid's)."""

    def __init__(self, wrap, range_begin: int = -1, range_end: int = -1,
                 method: str = "hybrid", name: str = ""):
        if method not in METHODS:
            raise InvalidArgumentError(
                f"PathWrap {name!r}: method {method!r} is not one of OpenSim's "
                f"({', '.join(METHODS)}).")
        self.name = name
        self.wrap = wrap
        self.range = (int(range_begin), int(range_end))
        self.method = method


class GeometryPath:
    """A path through ``points`` (PathPoint, ConditionalPathPoint, MovingPathPoint, in
    file order), wrapping over ``wraps`` (PathWraps, in order)."""

    def __init__(self, points, wraps=(), name: str = ""):
        self.name = name
        self.points = list(points)
        self.wraps = list(wraps)
        if len(self.points) < 2:
            raise InvalidArgumentError(
                f"GeometryPath {name!r}: it has {len(self.points)} points; a path needs "
                "at least 2.")
        n = len(self.points)
        for w in self.wraps:
            for end in w.range:
                if end > n:
                    raise InvalidArgumentError(
                        f"GeometryPath {name!r}: PathWrap {w.name!r} ranges to point {end} "
                        f"of {n}; give a range within 1..{n} (or -1 for the path's ends).")
        self._muscle = None
        """The muscle on this path, which computes it in its model (set by the muscle)."""

    def _owner(self, where: str):
        if self._muscle is None:
            raise InvalidArgumentError(
                f"GeometryPath {self.name!r}.{where}: the path is not a muscle's; give it to "
                f"a muscle in a model to compute it.")
        return self._muscle

    def get_length(self, state) -> float:
        """Its length (m), realized at POSITION."""
        return self._owner("get_length").get_length(state)

    def get_lengthening_speed(self, state) -> float:
        """Its lengthening speed (m/s), realized at VELOCITY."""
        return self._owner("get_lengthening_speed").get_lengthening_speed(state)

    def compute_moment_arm(self, state, coordinate) -> float:
        """Its moment arm about ``coordinate`` (OpenSim's MomentArmSolver)."""
        return self._owner("compute_moment_arm").compute_moment_arm(state, coordinate)

    def get_current_path(self, state):
        """(n, 3): its points in Ground (m), wrap tangent points included (POSITION)."""
        return self._owner("get_current_path").get_current_path(state)

    @classmethod
    def from_osim(cls, element, where: str, frame, coordinate, function, wrap):
        """The GeometryPath of the ``<GeometryPath>`` element of ``where`` (a muscle):
        ``frame(socket_path) -> (mobod index, X_BF)`` of a point's frame,
        ``coordinate(name) -> (q index, u index[, range_min, range_max])``,
        ``function(xml) -> Function`` of a function element, ``wrap(name) ->
        WrapObject``."""
        from kinetree.io.osim import OsimError

        def text(e, *tags):
            for tag in tags:
                t = e.findtext(tag)
                if t is not None and t.strip():
                    return t.strip()
            return None

        def numbers(e, tag, count, what):
            t = text(e, tag)
            try:
                values = [float(v) for v in (t or "").split()]
            except ValueError:
                values = []
            if len(values) != count or not all(math.isfinite(v) for v in values):
                raise OsimError(f"{what}: <{tag}> must be {count} finite numbers, got "
                                f"{t!r}.")
            return values

        def coordinate_of(name, what):
            found = tuple(coordinate(name))
            if len(found) == 2:
                return (*found, -math.inf, math.inf)
            return found

        def parent(e, what):
            socket = text(e, "socket_parent_frame", "body")
            if socket is None:
                raise OsimError(f"{what}: it has no <socket_parent_frame>; name the frame "
                                "the point is on.")
            if e.find("socket_parent_frame") is None and not socket.startswith("/"):
                socket = f"/bodyset/{socket}"
            return frame(socket)

        path_name = element.get("name") or "geometrypath"
        points = []
        container = element.find("PathPointSet/objects")
        for e in [] if container is None else list(container):
            what = f"{where} path point {e.get('name')!r}"
            name = e.get("name") or ""
            if e.tag == "PathPoint":
                b, X_BF = parent(e, what)
                points.append(PathPoint(b, X_BF.shift_frame_station_to_base(
                    numbers(e, "location", 3, what)), name))
            elif e.tag == "ConditionalPathPoint":
                b, X_BF = parent(e, what)
                coord = text(e, "socket_coordinate", "coordinate")
                if coord is None:
                    raise OsimError(f"{what}: it has no <socket_coordinate>; name the "
                                    "coordinate whose range activates it.")
                q, _, _, _ = coordinate_of(coord, what)
                lo, hi = numbers(e, "range", 2, what)
                points.append(ConditionalPathPoint(
                    b, X_BF.shift_frame_station_to_base(numbers(e, "location", 3, what)),
                    q, lo, hi, name))
            elif e.tag == "MovingPathPoint":
                b, X_BF = parent(e, what)
                locations = []
                for axis in "xyz":
                    holder = e.find(f"{axis}_location")
                    f_xml = None if holder is None else next(iter(holder), None)
                    if f_xml is None:
                        raise OsimError(f"{what}: its <{axis}_location> has no function; "
                                        "give one (a Constant for a fixed coordinate).")
                    f = function(f_xml)
                    coord = text(e, f"socket_{axis}_coordinate", f"{axis}_coordinate")
                    if coord is None:
                        locations.append(f)
                    else:
                        locations.append(Location(f, *coordinate_of(coord, what)))
                points.append(MovingPathPoint(b, np.zeros(3), locations, X_BF, name))
            else:
                raise OsimError(f"{what}: kinetree has no {e.tag}; the path points are "
                                "PathPoint, ConditionalPathPoint and MovingPathPoint.")
        wraps = []
        container = element.find("PathWrapSet/objects")
        for e in [] if container is None else list(container):
            what = f"{where} PathWrap {e.get('name')!r}"
            if e.tag != "PathWrap":
                raise OsimError(f"{what}: <{e.tag}> is not a PathWrap.")
            obj = text(e, "wrap_object", "socket_wrap_object")
            if obj is None:
                raise OsimError(f"{what}: it has no <wrap_object>; name the wrap object.")
            r = text(e, "range") or "-1 -1"
            try:
                begin, end = (int(float(v)) for v in r.split())
            except ValueError:
                raise OsimError(f"{what}: <range> must be two point numbers (1-based, -1 "
                                f"for the ends), got {r!r}.") from None
            method = (text(e, "method") or "hybrid").lower()
            if method not in METHODS:
                raise OsimError(f"{what}: <method> {method!r} is not one of "
                                f"{', '.join(METHODS)}.")
            wraps.append(PathWrap(wrap(obj), begin, end, method, e.get("name") or ""))
        if len(points) < 2:
            raise OsimError(f"{where}: its <GeometryPath> has {len(points)} path points; a "
                            "path needs at least 2 in <PathPointSet>.")
        try:
            return cls(points, wraps, path_name)
        except InvalidArgumentError as error:
            raise OsimError(f"{where}: {error}") from None


class PathLayout(NamedTuple):
    """The constant tables of a list of GeometryPaths (``path_kernel``'s docstring) and
    the initial per-State work buffer they need."""

    path_i: np.ndarray
    point_i: np.ndarray
    wrap_rows: np.ndarray
    wrap_i: np.ndarray
    path_f: np.ndarray
    wrap_kinds: Kinds
    work_initial: np.ndarray

    def new_work(self) -> np.ndarray:
        """A State's work buffer: zeros, and each PathWrap's kept state as OpenSim's
        resetPreviousWrap leaves it."""
        return self.work_initial.copy()


def layout_paths(paths) -> PathLayout:
    """The tables of ``paths`` (GeometryPaths) for the kernels of ``path_kernel``."""
    paths = list(paths)
    S, R = WRAP_STATE, WRAP_RESULT
    path_i, point_i, wrap_rows, wrap_i, floats = [], [], [], [], []
    objects: dict = {}
    codes = set()
    work = 0
    initial = []
    for path in paths:
        nw = len(path.wraps)
        n = len(path.points)
        capacity = n + 2 * nw
        header = work
        original = header + 8
        current = original + pk.ORIGINAL_SIZE * n
        scratch = current + pk.CP_SIZE * capacity
        blocks = scratch + (2 * nw + S + 2 * R if nw else 0)
        work = blocks + nw * (S + 7)
        path_i.append([len(point_i), n, len(wrap_rows), nw, header, original, current,
                       scratch, S, R])
        for point in path.points:
            row = [-1] * pk.PT_COLUMNS
            row[pk.PT_KIND] = point.KIND
            row[pk.PT_BODY] = point.body
            row[pk.PT_AT] = len(floats)
            if point.KIND == pk.CONDITIONAL:
                row[pk.PT_Q] = point.coordinate
            if point.KIND == pk.MOVING:
                X = point.X_BF
                floats += [*X.R.as_matrix().ravel(), *X.p]
                coords = point._coordinates()
                floats += [c[2] for c in coords] + [c[3] for c in coords]
                for axis, (q, u, _, _) in enumerate(coords):
                    row[pk.PT_QX + axis] = q
                    row[pk.PT_UX + axis] = u
                for axis, record in enumerate(point._records()):
                    row[pk.PT_REC + axis] = len(floats)
                    floats += [float(v) for v in record]
            else:
                floats += point._floats()
            point_i.append(row)
        for k, w in enumerate(path.wraps):
            obj = w.wrap
            ints, params = obj._row()
            ints = np.array(ints, dtype=np.int64).ravel()
            if ints.size != WRAP_I_COLUMNS:
                raise InvalidArgumentError(
                    f"GeometryPath {path.name!r}: wrap object {getattr(obj, 'name', '')!r} "
                    f"has a row of {ints.size} ints, not WRAP_I_COLUMNS = {WRAP_I_COLUMNS}.")
            ints[METHOD] = METHODS[w.method]
            ints[SINGLE] = int(nw == 1)     # OpenSim's singleWrap: no tangent sliding
            codes.add(int(ints[0]))
            block = blocks + k * (S + 7)
            begin, end = w.range
            at = len(floats)
            X = obj.X_BW
            floats += [*X.R.as_matrix().ravel(), *X.p, *np.asarray(params, float).ravel()]
            wrap_rows.append([obj.body, objects.setdefault(id(obj), len(objects)),
                              0 if begin < 1 else begin - 1, n - 1 if end < 1 else end - 1,
                              1 if getattr(obj, "active", True) else 0, at,
                              len(floats) - at - 12, block])
            wrap_i.append(ints)
            initial.append((block, S))

    def table(rows, width, dtype):
        a = np.array(rows, dtype=dtype).reshape(-1, width)
        a.flags.writeable = False
        return a

    path_f = np.array(floats, dtype=float)
    path_f.flags.writeable = False
    work_initial = np.zeros(work)
    for block, size in initial:
        work_initial[block:block + size] = initial_state()[:size]
    return PathLayout(table(path_i, pk.P_COLUMNS, np.int64),
                      table(point_i, pk.PT_COLUMNS, np.int64),
                      table(wrap_rows, pk.W_COLUMNS, np.int64),
                      table(wrap_i, WRAP_I_COLUMNS, np.int64), path_f,
                      Kinds("wraps", codes), work_initial)


@numba.njit(cache=True)
def _paths_in_python(buf, status, path_i, point_i, wrap_rows, wrap_i, path_f, wrap_kinds,
                     q, u, work, lengths, speeds, tensions, body_forces, mobility_forces,
                     with_speeds, with_forces):
    """The kernels called from Python on a State's tree cache: positions, then speeds
    and the forces of ``tensions`` if asked."""
    cache = unpack_cache(buf, status)
    pk.path_positions(path_i, point_i, wrap_rows, wrap_i, path_f, wrap_kinds, cache, q,
                      work, lengths)
    if with_speeds:
        pk.path_speeds(path_i, point_i, path_f, cache, q, u, work, speeds)
    if with_forces:
        pk.path_forces(path_i, point_i, path_f, cache, q, work, tensions, body_forces,
                       mobility_forces)


def evaluate_paths(matter, state, layout: PathLayout, tensions=None, work=None):
    """(lengths (m), speeds (m/s), body forces (nb x 6), mobility forces (nu)) of the
    paths of ``layout`` in ``state`` (realized to POSITION; the speeds are zeros unless
    it is realized to VELOCITY), the forces those of ``tensions`` (N, one per path; none
    if None). ``work`` is the work buffer to use (kept wrap states carry over between
    calls), a new one if None."""
    from kinetree.system.stage import Stage

    stage = state.get_system_stage()
    velocity = stage >= Stage.VELOCITY
    d = matter.get_tree_data(state, Stage.VELOCITY if velocity else Stage.POSITION,
                             "evaluate_paths")
    n = layout.path_i.shape[0]
    lengths, speeds = np.zeros(n), np.zeros(n)
    body_forces = np.zeros(d.body_forces.shape)
    mobility_forces = np.zeros(d.mobility_forces.size)
    if work is None:
        work = layout.new_work()
    T = np.zeros(n) if tensions is None else np.asarray(tensions, dtype=float)
    q = np.asarray(state.get_q(), dtype=float)
    u = np.asarray(state.get_u(), dtype=float) if velocity else np.zeros(
        d.mobility_forces.size)
    _paths_in_python(d.buf, d.status, layout.path_i, layout.point_i, layout.wrap_rows,
                     layout.wrap_i, layout.path_f, layout.wrap_kinds, q, u, work, lengths,
                     speeds, T, body_forces, mobility_forces, velocity, tensions is not None)
    return lengths, speeds, body_forces, mobility_forces


def coupling_vector(system, state, u_index: int) -> np.ndarray:
    """OpenSim's MomentArmSolver coupling: the speeds that follow from the coordinate's
    speed 1 and every other 0, projected onto the velocity constraints (tolerance
    1e-10), divided by the coordinate's speed after the projection; the coordinate
    alone if it is locked (its speed projected to 0)."""
    from kinetree.system.stage import Stage

    s = state.copy()
    u = np.zeros(s.get_u().size)
    u[u_index] = 1.0
    s.set_u(u)
    system.realize(s, Stage.VELOCITY)
    system.project(s, 1e-10)
    u = np.array(s.get_u(), dtype=float)
    if u[u_index] == 0.0:
        # a locked coordinate, which OpenSim unlocks to ask: it alone moves
        u = np.zeros(u.size)
        u[u_index] = 1.0
    return u / u[u_index]


def moment_arms(system, state, layout: PathLayout, u_indices, work=None) -> np.ndarray:
    """(paths, coordinates): the moment arm (m, or m/rad) of each path of ``layout`` about
    the coordinate of each mobility of ``u_indices`` in ``state`` (realized to POSITION),
    as OpenSim's MomentArmSolver: a unit tension's body forces mapped to generalized
    forces (Jᵀ F), plus its moving points' mobility forces, dotted with the coupling
    vector of the coordinate."""
    matter = system.get_matter_subsystem()
    n = layout.path_i.shape[0]
    u_indices = list(u_indices)
    coupling = np.zeros((len(u_indices), state.get_u().size))
    for i, u in enumerate(u_indices):
        coupling[i] = coupling_vector(system, state, u)
    arms = np.zeros((n, len(u_indices)))
    for p in range(n):
        tensions = np.zeros(n)
        tensions[p] = 1.0
        _, _, F, f = evaluate_paths(matter, state, layout, tensions, work)
        generalized = matter.multiply_by_system_jacobian_transpose(state, F) + f
        arms[p] = coupling @ generalized
    return arms


def moment_arm(system, state, layout: PathLayout, path: int, u_index: int,
               work=None) -> float:
    """The moment arm (m, or m/rad) of path ``path`` of ``layout`` about the coordinate
    of mobility ``u_index`` in ``state`` (``moment_arms``)."""
    matter = system.get_matter_subsystem()
    tensions = np.zeros(layout.path_i.shape[0])
    tensions[path] = 1.0
    _, _, F, f = evaluate_paths(matter, state, layout, tensions, work)
    generalized = matter.multiply_by_system_jacobian_transpose(state, F) + f
    return float(coupling_vector(system, state, u_index) @ generalized)
