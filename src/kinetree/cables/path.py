"""Simbody's older cable API (CableTrackerSubsystem, CablePath, CableObstacle, CableSpring),
on top of CableSpan's solver.

A CablePath is a CableSpan whose obstacles and via points are made as ``CableObstacle``
objects in path order; ``CableSpring`` is the force element that pulls on a path with
tension k·max(0, L - L0)·(1 + c·L̇) (never below zero), and integrates the power it
dissipates in a z variable of its force subsystem, as Simbody's CableSpring.
"""

from __future__ import annotations

import math

from kinetree.cables.span import CableSpan, CableSubsystem, _vector
from kinetree.errors import InvalidArgumentError
from kinetree.forces.custom import Custom
from kinetree.system.stage import Stage


class CableTrackerSubsystem(CableSubsystem):
    """The subsystem holding a MultibodySystem's CablePaths."""

    def get_num_cable_paths(self) -> int:
        return self.get_num_cables()

    def get_cable_path(self, index: int) -> CablePath:
        return self.get_cable(index)._path


class CablePath:
    """A cable from ``origin_station`` on ``origin_mobod`` to ``termination_station`` on
    ``termination_mobod`` (m, in the bodies' frames), over the CableObstacles made for
    it, in the order made."""

    def __init__(self, tracker: CableTrackerSubsystem, origin_mobod, origin_station,
                 termination_mobod, termination_station):
        if not isinstance(tracker, CableTrackerSubsystem):
            raise InvalidArgumentError("CablePath: expected a CableTrackerSubsystem, got "
                                       f"{type(tracker).__name__}.")
        self._span = CableSpan(tracker, origin_mobod, origin_station, termination_mobod,
                               termination_station)
        self._span._path = self
        self._obstacles: list = []

    def get_span(self) -> CableSpan:
        """The CableSpan that computes this path."""
        return self._span

    def get_num_obstacles(self) -> int:
        return len(self._obstacles)

    def get_obstacle(self, index: int):
        return self._obstacles[index]

    def get_cable_length(self, state) -> float:
        """The path's length (m); needs POSITION."""
        return self._span.calc_length(state)

    def get_cable_length_dot(self, state) -> float:
        """The path's lengthening speed (m/s); needs VELOCITY."""
        return self._span.calc_length_dot(state)

    def apply_body_forces(self, state, tension: float, body_forces) -> None:
        """Add the forces of the path pulled with ``tension`` (N) to ``body_forces``."""
        self._span.apply_body_forces(state, tension, body_forces)

    def calc_cable_power(self, state, tension: float) -> float:
        """The power (W) the path's forces at ``tension`` deliver to the bodies."""
        return self._span.calc_cable_power(state, tension)


class _ViaPoint:
    """``CableObstacle.ViaPoint(path, mobod, station)``: a station (m, in the body's
    frame) the path passes through."""

    def __init__(self, path: CablePath, mobod, station):
        self._index = path._span.add_via_point(mobod, station)
        path._obstacles.append(self)

    def get_via_point_index(self) -> int:
        return self._index


class _Surface:
    """``CableObstacle.Surface(path, mobod, X_BS, geometry)``: a surface (in its frame S
    at X_BS on the body) the path may wrap over; ``set_contact_point_hints`` starts the
    path touching it."""

    def __init__(self, path: CablePath, mobod, X_BS, geometry):
        self._span = path._span
        self._index = path._span.add_obstacle(mobod, X_BS, geometry)
        path._obstacles.append(self)

    def set_contact_point_hints(self, start_hint_S, end_hint_S):
        """Points (m, in S) near where the path first and last touches the surface; the
        path starts in contact at their midpoint."""
        where = "CableObstacle.Surface.set_contact_point_hints"
        mid = 0.5 * (_vector(start_hint_S, where, "start_hint_S")
                     + _vector(end_hint_S, where, "end_hint_S"))
        mobod, X_BS, geometry, _, *rest = self._span._obstacles[self._index]
        self._span._obstacles[self._index] = (mobod, X_BS, geometry, mid, *rest)
        self._span._cables.invalidate_subsystem_topology_cache()
        return self

    def get_obstacle_index(self) -> int:
        return self._index


class CableObstacle:
    """The obstacles of a CablePath: ``CableObstacle.ViaPoint`` and
    ``CableObstacle.Surface``."""

    ViaPoint = _ViaPoint
    Surface = _Surface


class _CableSpringImplementation(Custom.Implementation):
    def __init__(self, owner: CableSpring):
        self._owner = owner

    def realize_topology(self, state) -> None:
        self._owner._realize_topology(state)

    def realize_acceleration(self, state) -> None:
        o = self._owner
        o._forces.upd_z_dot(state)[o._z] = o._tension_and_loss(state)[1]

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        o = self._owner
        o._path.apply_body_forces(state, o._tension_and_loss(state)[0], body_forces)

    def calc_potential_energy(self, state) -> float:
        x = self._owner._stretch(state)
        return 0.5 * self._owner._k * x * x


class CableSpring:
    """``CableSpring(forces, path, stiffness, slack_length, dissipation)``: a cable that
    pulls along ``path`` with tension f = k x (1 + c L̇) once stretched by x = L - L0 > 0
    (k in N/m, L0 in m, c in s/m), never below zero; slack it pulls nothing."""

    def __init__(self, forces, path: CablePath, stiffness, slack_length, dissipation):
        where = "CableSpring"
        if not isinstance(path, CablePath):
            raise InvalidArgumentError(f"{where}: expected a CablePath, got "
                                       f"{type(path).__name__}.")
        values = []
        for name, v in (("stiffness", stiffness), ("slack_length", slack_length),
                        ("dissipation", dissipation)):
            v = float(v)
            if not (math.isfinite(v) and v >= 0.0):
                raise InvalidArgumentError(f"{where}: {name} must be >= 0, got {v}.")
            values.append(v)
        self._k, self._L0, self._c = values
        self._path = path
        self._forces = forces
        self._force = Custom(forces, _CableSpringImplementation(self))

    def get_force(self):
        """The Force.Custom element that applies this spring."""
        return self._force

    def get_cable_path(self) -> CablePath:
        return self._path

    def get_stiffness(self) -> float:
        return self._k

    def get_slack_length(self) -> float:
        return self._L0

    def get_dissipation_coef(self) -> float:
        return self._c

    def _realize_topology(self, state) -> None:
        self._z = self._forces.allocate_z(state, [0.0])
        self._cache = self._forces.allocate_lazy_cache_entry(state, Stage.VELOCITY, None)

    def _stretch(self, state) -> float:
        return max(0.0, self._path.get_cable_length(state) - self._L0)

    def _tension_and_loss(self, state) -> tuple[float, float]:
        """(tension, dissipated power): f = k x + max(-k x, k x c L̇), loss = f_rate L̇."""
        forces = self._forces
        if forces.is_cache_value_realized(state, self._cache):
            return forces.get_cache_entry(state, self._cache)
        x = self._stretch(state)
        if x == 0.0:
            value = (0.0, 0.0)
        else:
            stretch_force = self._k * x
            rate = self._path.get_cable_length_dot(state)
            rate_force = max(-stretch_force, stretch_force * self._c * rate)
            value = (stretch_force + rate_force, rate_force * rate)
        forces.set_cache_entry(state, self._cache, value)
        forces.mark_cache_value_realized(state, self._cache)
        return value

    def get_length(self, state) -> float:
        """The path's length (m)."""
        return self._path.get_cable_length(state)

    def get_length_dot(self, state) -> float:
        return self._path.get_cable_length_dot(state)

    def get_tension(self, state) -> float:
        """The tension (N); needs VELOCITY."""
        return self._tension_and_loss(state)[0]

    def calc_potential_energy(self, state) -> float:
        """½ k x² (J)."""
        x = self._stretch(state)
        return 0.5 * self._k * x * x

    get_potential_energy = calc_potential_energy

    def get_power_dissipation(self, state) -> float:
        """The power (W) being dissipated now; needs VELOCITY."""
        return self._tension_and_loss(state)[1]

    def get_dissipated_energy(self, state) -> float:
        """The energy (J) dissipated since the start (the z variable)."""
        return float(self._forces.get_z(state)[self._z])

    def set_dissipated_energy(self, state, energy: float) -> None:
        if energy < 0.0:
            raise InvalidArgumentError("CableSpring.set_dissipated_energy: the energy must "
                                       f"be >= 0, got {energy}.")
        self._forces.upd_z(state)[self._z] = energy
