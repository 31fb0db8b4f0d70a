"""CableSubsystem and CableSpan: Simbody 3.8's cables over obstacles and via points.

A CableSpan runs from a station on its origin body, through via points (stations the
cable passes through) and over obstacles (smooth surfaces fixed to bodies it may wrap
over), to a station on its termination body. Its path is the shortest one that is smooth
where it meets each surface it touches; it is solved at POSITION, by the compiled solver
of ``kinetree.cables.solver``, from the last path solved in the State (an auto-update
discrete variable whose update value, as Simbody's, outlives changes of q). The cable
applies no force of its own: a force element asks for
``apply_body_forces(state, tension, body_forces)``.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from kinetree.cables import solver, surfaces
from kinetree.cables.geometry import surface_of
from kinetree.errors import InvalidArgumentError
from kinetree.math import Rotation, Transform
from kinetree.system.stage import Stage
from kinetree.system.subsystem import Subsystem


class CableSpanAlgorithm(IntEnum):
    """How the solver corrects the path (Simbody's ``CableSpanAlgorithm``)."""

    MINIMUM_LENGTH = solver.MINIMUM_LENGTH
    """Minimize the length subject to the normal path errors vanishing (the default)."""
    SCHOLZ2015 = solver.SCHOLZ2015
    """Drive all path errors to zero by least squares (Scholz2015); may settle on the
    longest path over an obstacle."""


def _vector(value, where: str, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64).reshape(3)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{where}: {what} must be 3 numbers, got {value!r}.") \
            from exc
    return arr


def _mobod(mobod, where: str):
    if not hasattr(mobod, "get_mobilized_body_index"):
        raise InvalidArgumentError(f"{where}: expected a MobilizedBody, got "
                                   f"{type(mobod).__name__}.")
    return mobod


class CableSubsystem(Subsystem):
    """The subsystem holding a MultibodySystem's CableSpans (Simbody's CableSubsystem)."""

    def __init__(self, system):
        self._cables: list[CableSpan] = []
        super().__init__(system, "CableSubsystem")

    def get_num_cables(self) -> int:
        return len(self._cables)

    def get_cable(self, index: int) -> CableSpan:
        return self._cables[index]

    upd_cable = get_cable

    def get_multibody_system(self):
        return self.get_system()

    def _adopt(self, cable) -> int:
        self._cables.append(cable)
        self.invalidate_subsystem_topology_cache()
        return len(self._cables) - 1

    def realize_topology(self, state) -> None:
        for cable in self._cables:
            cable._realize_topology(state)

    def realize_position(self, state) -> None:
        for cable in self._cables:
            cable._solve(state)


class CableSpan:
    """A cable from ``origin_station`` on ``origin_mobod`` to ``termination_station`` on
    ``termination_mobod`` (stations in their bodies' frames, m), over the obstacles and
    via points added, in the order added."""

    def __init__(self, cables: CableSubsystem, origin_mobod, origin_station,
                 termination_mobod, termination_station):
        where = "CableSpan"
        if not isinstance(cables, CableSubsystem):
            raise InvalidArgumentError(f"{where}: expected a CableSubsystem, got "
                                       f"{type(cables).__name__}.")
        self._cables = cables
        self._origin = _mobod(origin_mobod, where)
        self._origin_station = _vector(origin_station, where, "origin_station")
        self._termination = _mobod(termination_mobod, where)
        self._termination_station = _vector(termination_station, where,
                                            "termination_station")
        self._obstacles: list[tuple] = []      # (mobod, X_BS, geometry, hint, after_vias)
        self._via_points: list[tuple] = []     # (mobod, station)
        self._accuracy = 1e-9
        self._smoothness_tolerance = 0.1 / 180.0 * math.pi
        self._max_iterations = 50
        self._max_step = 10.0 / 180.0 * math.pi
        self._algorithm = CableSpanAlgorithm.MINIMUM_LENGTH
        self._index = cables._adopt(self)

    # ------------------------------------------------------------ building
    def add_obstacle(self, mobod, X_BS, geometry, contact_point_hint=None) -> int:
        """Add a surface ``geometry`` (in its frame S, placed at X_BS on ``mobod``) that
        the cable may wrap over; ``contact_point_hint`` (in S) starts the cable in contact
        near that point, else it starts lifted off. Returns the obstacle's index."""
        where = "CableSpan.add_obstacle"
        if not isinstance(X_BS, Transform):
            raise InvalidArgumentError(f"{where}: X_BS must be a Transform.")
        kind, prm = surface_of(geometry, where)
        hint = (np.full(3, np.nan) if contact_point_hint is None
                else _vector(contact_point_hint, where, "contact_point_hint"))
        self._obstacles.append((_mobod(mobod, where), X_BS, geometry, hint,
                                len(self._via_points), kind, prm))
        self._cables.invalidate_subsystem_topology_cache()
        return len(self._obstacles) - 1

    def add_via_point(self, mobod, station) -> int:
        """Add a station (m, in ``mobod``'s frame) the cable passes through; returns its
        index."""
        where = "CableSpan.add_via_point"
        self._via_points.append((_mobod(mobod, where), _vector(station, where, "station")))
        self._cables.invalidate_subsystem_topology_cache()
        return len(self._via_points) - 1

    def get_num_obstacles(self) -> int:
        return len(self._obstacles)

    def get_num_via_points(self) -> int:
        return len(self._via_points)

    def get_index(self) -> int:
        return self._index

    def get_origin_body_index(self) -> int:
        return self._origin.get_mobilized_body_index()

    def get_termination_body_index(self) -> int:
        return self._termination.get_mobilized_body_index()

    def get_origin_station(self) -> np.ndarray:
        return self._origin_station.copy()

    def get_termination_station(self) -> np.ndarray:
        return self._termination_station.copy()

    def get_obstacle_mobilized_body_index(self, index: int) -> int:
        return self._obstacle(index)[0].get_mobilized_body_index()

    def get_obstacle_transform_surface_to_body(self, index: int) -> Transform:
        return self._obstacle(index)[1]

    def get_obstacle_contact_geometry(self, index: int):
        return self._obstacle(index)[2]

    def get_obstacle_contact_point_hint(self, index: int) -> np.ndarray:
        return self._obstacle(index)[3].copy()

    def get_via_point_mobilized_body_index(self, index: int) -> int:
        return self._via(index)[0].get_mobilized_body_index()

    def get_via_point_station(self, index: int) -> np.ndarray:
        return self._via(index)[1].copy()

    # ------------------------------------------------------------ settings
    def set_curve_segment_accuracy(self, accuracy: float) -> None:
        """The accuracy of the geodesics integrated over ellipsoids and tori."""
        self._accuracy = self._positive(accuracy, "set_curve_segment_accuracy")

    def get_curve_segment_accuracy(self) -> float:
        return self._accuracy

    def set_smoothness_tolerance(self, tolerance: float) -> None:
        """The largest misalignment (rad) between a straight line and the geodesic it
        meets at which the path counts as solved."""
        self._smoothness_tolerance = self._positive(tolerance, "set_smoothness_tolerance")

    def get_smoothness_tolerance(self) -> float:
        return self._smoothness_tolerance

    def set_solver_max_iterations(self, max_iterations: int) -> None:
        if int(max_iterations) < 0:
            raise InvalidArgumentError("CableSpan.set_solver_max_iterations: the number "
                                       f"must be >= 0, got {max_iterations}.")
        self._max_iterations = int(max_iterations)

    def get_solver_max_iterations(self) -> int:
        return self._max_iterations

    def set_algorithm(self, algorithm: CableSpanAlgorithm) -> None:
        self._algorithm = CableSpanAlgorithm(algorithm)

    def get_algorithm(self) -> CableSpanAlgorithm:
        return self._algorithm

    # -------------------------------------------------------------- results
    def calc_length(self, state) -> float:
        """The cable's length (m)."""
        return float(self._position(state, "calc_length")[2][0])

    def get_smoothness(self, state) -> float:
        """The largest misalignment (rad) left where lines meet geodesics."""
        return float(self._position(state, "get_smoothness")[2][1])

    def get_num_solver_iterations(self, state) -> int:
        return int(self._position(state, "get_num_solver_iterations")[2][2])

    def calc_length_dot(self, state) -> float:
        """The cable's lengthening speed (m/s); needs VELOCITY."""
        X_GS, points, result, geo = self._position(state, "calc_length_dot")
        tree = self._tree(state, Stage.VELOCITY, "calc_length_dot")
        return float(solver.cable_length_dot(X_GS, geo, self._obstacle_bodies, points,
                                             self._point_bodies, self._seg_first,
                                             tree.cache.p_GB, tree.cache.V_GB))

    def apply_body_forces(self, state, tension: float, body_forces) -> None:
        """Add the forces of the cable pulled with ``tension`` (N) to ``body_forces``
        (bodies x 6, [moment about the body origin; force] in Ground). A negative
        tension applies nothing: a cable cannot push."""
        if tension < 0.0:
            return
        X_GS, points, result, geo = self._position(state, "apply_body_forces")
        tree = self._tree(state, Stage.POSITION, "apply_body_forces")
        solver.cable_forces(X_GS, geo, self._obstacle_bodies, points, self._point_bodies,
                            self._seg_first, result, tree.cache.p_GB,
                            np.zeros_like(tree.cache.V_GB), float(tension), body_forces)

    def calc_cable_power(self, state, tension: float) -> float:
        """The power (W) the cable's forces at ``tension`` deliver to the bodies:
        -tension * length_dot; needs VELOCITY."""
        if tension < 0.0:
            return 0.0
        X_GS, points, result, geo = self._position(state, "calc_cable_power")
        tree = self._tree(state, Stage.VELOCITY, "calc_cable_power")
        return float(solver.cable_forces(X_GS, geo, self._obstacle_bodies, points,
                                         self._point_bodies, self._seg_first, result,
                                         tree.cache.p_GB, tree.cache.V_GB, float(tension),
                                         np.zeros((0, 6))))

    def is_in_contact_with_obstacle(self, state, index: int) -> bool:
        geo = self._position(state, "is_in_contact_with_obstacle")[3]
        self._obstacle(index)
        return bool(geo[index, surfaces.STATUS] != surfaces.LIFTED)

    def calc_curve_segment_arc_length(self, state, index: int) -> float:
        """The length (m) of the geodesic over obstacle ``index``; nan if lifted off."""
        geo = self._position(state, "calc_curve_segment_arc_length")[3]
        self._obstacle(index)
        if geo[index, surfaces.STATUS] == surfaces.LIFTED:
            return math.nan
        return float(geo[index, surfaces.LENGTH])

    def calc_curve_segment_initial_frenet_frame(self, state, index: int) -> Transform:
        """X_GP: the frame at the geodesic's first contact point, axes (tangent, outward
        normal, binormal), in Ground."""
        return self._frenet(state, index, surfaces.P_POINT, "initial")

    def calc_curve_segment_final_frenet_frame(self, state, index: int) -> Transform:
        """X_GQ: as the initial frame, at the geodesic's last contact point."""
        return self._frenet(state, index, surfaces.Q_POINT, "final")

    def calc_origin_tangent_direction(self, state) -> np.ndarray:
        """The cable's unit direction (Ground) leaving the origin."""
        return self._direction(state, 0, 0)

    def calc_termination_tangent_direction(self, state) -> np.ndarray:
        """The cable's unit direction (Ground) arriving at the termination."""
        return self._direction(state, len(self._via_points), 3)

    def calc_via_point_incoming_tangent_direction(self, state, index: int) -> np.ndarray:
        self._via(index)
        return self._direction(state, index, 3)

    def calc_via_point_outgoing_tangent_direction(self, state, index: int) -> np.ndarray:
        self._via(index)
        return self._direction(state, index + 1, 0)

    def calc_via_point_location(self, state, index: int) -> np.ndarray:
        """The via point in Ground (m)."""
        self._via(index)
        return self._position(state, "calc_via_point_location")[1][index + 1].copy()

    # ------------------------------------------------------------- internals
    def _obstacle(self, index: int):
        if not 0 <= index < len(self._obstacles):
            raise InvalidArgumentError(f"CableSpan: no obstacle {index}; the cable has "
                                       f"{len(self._obstacles)}.")
        return self._obstacles[index]

    def _via(self, index: int):
        if not 0 <= index < len(self._via_points):
            raise InvalidArgumentError(f"CableSpan: no via point {index}; the cable has "
                                       f"{len(self._via_points)}.")
        return self._via_points[index]

    def _positive(self, value, method: str) -> float:
        value = float(value)
        if not (math.isfinite(value) and value > 0.0):
            raise InvalidArgumentError(f"CableSpan.{method}: must be positive, got {value}.")
        return value

    def _tree(self, state, stage, method: str):
        matter = self._cables.get_system().get_matter_subsystem()
        return matter.get_tree_data(state, stage, f"CableSpan.{method}")

    def _realize_topology(self, state) -> None:
        """Fix the arrays the compiled functions read and allocate the State's entries."""
        obs = self._obstacles
        m = len(obs)
        self._kinds = np.array([o[5] for o in obs], dtype=np.int64)
        self._prm = np.array([o[6] for o in obs], dtype=np.float64).reshape(m, 3)
        self._hints = np.array([o[3] for o in obs], dtype=np.float64).reshape(m, 3)
        self._obstacle_bodies = np.array([o[0].get_mobilized_body_index() for o in obs],
                                         dtype=np.int64)
        self._R_BS = np.array([o[1].R.as_matrix() for o in obs]).reshape(m, 3, 3)
        self._p_BS = np.array([o[1].p for o in obs], dtype=np.float64).reshape(m, 3)
        mobods = [self._origin, *(v[0] for v in self._via_points), self._termination]
        self._point_bodies = np.array([b.get_mobilized_body_index() for b in mobods],
                                      dtype=np.int64)
        self._stations = np.array([self._origin_station,
                                   *(v[1] for v in self._via_points),
                                   self._termination_station])
        self._seg_first = np.searchsorted(
            np.array([o[4] for o in obs], dtype=np.int64),
            np.arange(len(self._via_points) + 2), side="left").astype(np.int64)
        self._seg_first[-1] = m
        geo = np.zeros((m, surfaces.NG))
        for i in range(m):
            if np.isnan(self._hints[i, 0]):
                geo[i, surfaces.STATUS] = surfaces.LIFTED
            else:
                geo[i, surfaces.STATUS] = surfaces.INITIAL_GUESS
                try:
                    x = surfaces.project_to_surface(int(self._kinds[i]), self._prm[i],
                                                    tuple(self._hints[i]))
                except ZeroDivisionError:
                    x = (np.nan,) * 3
                if not np.all(np.isfinite(x)):
                    raise InvalidArgumentError(
                        f"CableSpan: obstacle {i}'s contact point hint "
                        f"{self._hints[i].tolist()} is where its surface has no normal (its "
                        f"centre or axis); give a hint near the point of the surface where "
                        f"the cable should first touch it.")
                geo[i, surfaces.P_POINT:surfaces.P_POINT + 3] = x
                geo[i, surfaces.Q_POINT:surfaces.Q_POINT + 3] = x
        # The update value depends on INSTANCE only, as Simbody's: a change of q leaves it
        # current, so the next solve starts from the last solved path rather than the
        # variable's value (the hints, until an integrator step installs a path).
        self._geo_var = self._cables.allocate_auto_update_discrete_variable(
            state, Stage.POSITION, geo, Stage.INSTANCE)
        self._pos_entry = self._cables.allocate_cache_entry(
            state, Stage.POSITION, Stage.INFINITY, None)

    def _settings(self) -> np.ndarray:
        return np.array([self._accuracy, self._smoothness_tolerance, self._max_iterations,
                         int(self._algorithm), self._max_step])

    def _solve(self, state) -> None:
        """Solve the path from the last one solved in this State (the update value while
        it is current, else the discrete variable) and cache the result."""
        c = self._tree(state, Stage.POSITION, "realize_position").cache
        R_GB, p_GB = c.R_GB[self._obstacle_bodies], c.p_GB[self._obstacle_bodies]
        m = len(self._obstacles)
        X_GS = np.empty((m, 3, 4))
        X_GS[:, :, :3] = R_GB @ self._R_BS
        X_GS[:, :, 3] = p_GB + np.einsum("kij,kj->ki", R_GB, self._p_BS)
        R_GB, p_GB = c.R_GB[self._point_bodies], c.p_GB[self._point_bodies]
        points = p_GB + np.einsum("kij,kj->ki", R_GB, self._stations)
        subsystem = self._cables
        warm = subsystem.is_discrete_var_update_value_realized(state, self._geo_var)
        geo = subsystem.upd_discrete_var_update_value(state, self._geo_var)
        if not warm:
            np.copyto(geo, subsystem.get_discrete_variable(state, self._geo_var))
        result = np.zeros(solver.RESULT_HEAD + 6 * (len(self._via_points) + 1))
        solver.solve_cable(self._kinds, self._prm, X_GS, geo, self._hints, points,
                           self._seg_first, self._settings(), result)
        subsystem.mark_discrete_var_update_value_realized(state, self._geo_var)
        subsystem.set_cache_entry(state, self._pos_entry, (X_GS, points, result, geo.copy()))
        subsystem.mark_cache_value_realized(state, self._pos_entry)

    def _position(self, state, method: str):
        """(X_GS, points, result, geodesics) of the solved path."""
        if not hasattr(self, "_pos_entry"):
            raise InvalidArgumentError(f"CableSpan.{method}: realize the system's topology "
                                       "first.")
        return self._cables.get_cache_entry(state, self._pos_entry)

    def _frenet(self, state, index: int, at: int, which: str) -> Transform:
        X_GS, _, _, geo = self._position(state, f"calc_curve_segment_{which}_frenet_frame")
        self._obstacle(index)
        row = geo[index]
        R_GS, p_GS = X_GS[index, :, :3], X_GS[index, :, 3]
        frame = np.column_stack((row[at + 3:at + 6], row[at + 6:at + 9], row[at + 9:at + 12]))
        return Transform(Rotation(R_GS @ frame), p_GS + R_GS @ row[at:at + 3])

    def _direction(self, state, segment: int, at: int) -> np.ndarray:
        result = self._position(state, "tangent direction")[2]
        first = solver.RESULT_HEAD + 6 * segment + at
        return result[first:first + 3].copy()
