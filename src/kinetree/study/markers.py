"""Markers: the assembly condition of inverse kinematics (Simbody's
``SimTK::Markers``).

A marker is a station S fixed on a body B (p_BS, m); an observation is a location in
Ground (m), for instance one frame of motion capture. The goal is the weighted mean of the
squared distances between each marker's station in Ground, p_GS = X_GB p_BS, and its
observation, halved as in Simbody:

    goal = ½ Σ wᵢ |p_GSᵢ - oᵢ|² / Σ wᵢ

over the markers with a weight > 0 and a finite observation in the current frame, written
as the residuals rᵢ = √(wᵢ/Σw) (p_GSᵢ - oᵢ) with their analytic Jacobian (from the system
Jacobian, mapped to q through N⁻¹).

Markers are numbered in the order they are added. Observations are numbered separately:
``define_observation_order`` says which marker each observation column belongs to (a mocap
file's column order), and by default observation i is marker i. Each frame,
``move_all_observations`` supplies every observation; a NaN location is a marker not seen
in that frame and is left out of the goal.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.multibody.mobilized_body import MobilizedBody
from kinetree.study.assembly_condition import AssemblyCondition, speed_jacobian_to_q


class Markers(AssemblyCondition):
    """Marker stations to be brought to observed locations in Ground; a goal normally
    (``assembler.adopt_assembly_goal(markers)``), an error condition when the model can
    reach every observation exactly."""

    def __init__(self):
        super().__init__("Markers")
        self._names: list[str] = []
        self._bodies: list[MobilizedBody] = []
        self._stations: list[np.ndarray] = []
        self._weights: list[float] = []
        self._by_name: dict[str, int] = {}
        self._obs2marker: list[int | None] | None = None
        self._marker2obs: dict[int, int] = {}
        self._observations = np.zeros((0, 3))
        self._active = np.zeros(0, dtype=np.int64)

    # ------------------------------------------------------------- markers
    def add_marker(self, *args) -> int:
        """``add_marker(name, body, station_in_body, weight=1.0)`` or ``add_marker(body,
        station_in_body, weight=1.0)``: a marker at p_BS (m, in the body frame) on a
        MobilizedBody; returns its marker index. An unnamed marker is called
        ``_UNNAMED_<index>``. Adding a marker forgets the observation order."""
        usage = ("Markers.add_marker: call it as add_marker(name, body, station, weight=1) "
                 "or add_marker(body, station, weight=1)")
        name, rest = (args[0], args[1:]) if args and isinstance(args[0], str) else ("", args)
        if len(rest) not in (2, 3):
            raise InvalidArgumentError(f"{usage}; got {len(args)} arguments.")
        body, station = rest[0], rest[1]
        weight = self._checked_weight(rest[2] if len(rest) == 3 else 1.0, "add_marker")
        if not isinstance(body, MobilizedBody):
            raise InvalidArgumentError(
                f"{usage}: the body must be a MobilizedBody (for body index i use "
                f"matter.get_mobilized_body(i)), got {type(body).__name__}.")
        p_BS = np.asarray(station, dtype=float)
        if p_BS.shape != (3,) or not np.all(np.isfinite(p_BS)):
            raise InvalidArgumentError(
                f"Markers.add_marker: the station p_BS must be 3 finite numbers (m, in the "
                f"body frame), got {station!r}.")
        index = len(self._names)
        name = name.strip() or f"_UNNAMED_{index}"
        if name in self._by_name:
            raise InvalidArgumentError(
                f"Markers.add_marker: the name '{name}' is already marker "
                f"{self._by_name[name]}; marker names must be unique.")
        self._uninitialize_assembler()
        self._obs2marker, self._marker2obs = None, {}
        self._observations = np.zeros((0, 3))
        self._names.append(name)
        self._bodies.append(body)
        self._stations.append(p_BS)
        self._weights.append(weight)
        self._by_name[name] = index
        return index

    @staticmethod
    def _checked_weight(weight, method: str) -> float:
        w = float(weight)
        if not (np.isfinite(w) and w >= 0):
            raise InvalidArgumentError(
                f"Markers.{method}: a marker weight must be finite and >= 0, got {weight!r}.")
        return w

    def _marker(self, marker, method: str) -> int:
        """A marker index from an index or a name."""
        if isinstance(marker, str):
            return self.get_marker_index(marker)
        if isinstance(marker, (int, np.integer)) and 0 <= marker < len(self._names):
            return int(marker)
        raise InvalidArgumentError(
            f"Markers.{method}: no marker {marker!r}; there are {len(self._names)} "
            f"(indices 0..{len(self._names) - 1}, or their names).")

    def get_num_markers(self) -> int:
        return len(self._names)

    def get_marker_name(self, marker: int) -> str:
        return self._names[self._marker(marker, "get_marker_name")]

    def get_marker_index(self, name: str) -> int:
        """The index of the marker called ``name``; raises for an unknown name."""
        try:
            return self._by_name[name]
        except (KeyError, TypeError):
            known = ", ".join(self._names[:12]) + (", ..." if len(self._names) > 12 else "")
            raise InvalidArgumentError(
                f"Markers.get_marker_index: no marker named {name!r}; the markers are: "
                f"{known or '(none yet; add_marker first)'}.") from None

    def get_marker_weight(self, marker) -> float:
        return self._weights[self._marker(marker, "get_marker_weight")]

    def get_marker_body(self, marker) -> MobilizedBody:
        return self._bodies[self._marker(marker, "get_marker_body")]

    def get_marker_station(self, marker) -> np.ndarray:
        """p_BS (m): the marker's station in its body's frame."""
        return self._stations[self._marker(marker, "get_marker_station")].copy()

    def change_marker_weight(self, marker, weight: float) -> None:
        """A new weight, usable between tracking frames; a change to or from zero adds or
        removes the marker, which reinitializes the Assembler."""
        m = self._marker(marker, "change_marker_weight")
        w = self._checked_weight(weight, "change_marker_weight")
        if (w == 0) != (self._weights[m] == 0):
            self._uninitialize_assembler()
        self._weights[m] = w

    # -------------------------------------------------------- observations
    def define_observation_order(self, order) -> None:
        """Which marker each observation is, by marker index or name, one entry per
        observation (a mocap file's column order); None marks an observation to ignore,
        and markers not listed are not fitted. An empty ``order`` restores the default,
        observation i = marker i. All observations become missing (NaN)."""
        order = list(order)
        if not order:
            order = list(range(len(self._names)))
        obs2marker, marker2obs = [], {}
        for ox, entry in enumerate(order):
            if entry is None:
                obs2marker.append(None)
                continue
            m = self._marker(entry, "define_observation_order")
            if m in marker2obs:
                raise InvalidArgumentError(
                    f"Markers.define_observation_order: marker {m} ('{self._names[m]}') is "
                    f"given to observations {marker2obs[m]} and {ox}; one observation per "
                    f"marker.")
            marker2obs[m] = ox
            obs2marker.append(m)
        self._uninitialize_assembler()
        self._obs2marker, self._marker2obs = obs2marker, marker2obs
        self._observations = np.full((len(obs2marker), 3), np.nan)

    def _order(self) -> list[int | None]:
        if self._obs2marker is None:
            self.define_observation_order([])
        return self._obs2marker

    def get_num_observations(self) -> int:
        return len(self._order())

    def get_observation_index_for_marker(self, marker) -> int | None:
        """The observation that marker is fitted to, or None when it has none."""
        m = self._marker(marker, "get_observation_index_for_marker")
        self._order()
        return self._marker2obs.get(m)

    def get_marker_index_for_observation(self, observation: int) -> int | None:
        return self._order()[self._observation(observation, "get_marker_index_for_observation")]

    def has_observation(self, marker) -> bool:
        return self.get_observation_index_for_marker(marker) is not None

    def _observation(self, observation, method: str) -> int:
        n = len(self._order())
        if not (isinstance(observation, (int, np.integer)) and 0 <= observation < n):
            raise InvalidArgumentError(
                f"Markers.{method}: no observation {observation!r}; there are {n} "
                f"(define_observation_order sets them).")
        return int(observation)

    def move_one_observation(self, observation: int, location) -> None:
        """Set one observed location (m, in Ground); NaN marks it missing."""
        ox = self._observation(observation, "move_one_observation")
        loc = np.asarray(location, dtype=float)
        if loc.shape != (3,):
            raise InvalidArgumentError(
                f"Markers.move_one_observation: a location is 3 numbers (m, in Ground), got "
                f"shape {loc.shape}.")
        self._observations[ox] = loc

    def move_all_observations(self, locations) -> None:
        """Set every observed location for a new frame: an (n_observations, 3) array (m,
        in Ground), rows in observation order; rows with a NaN are missing markers."""
        locs = np.asarray(locations, dtype=float)
        n = len(self._order())
        if locs.shape != (n, 3):
            raise InvalidArgumentError(
                f"Markers.move_all_observations: expected {n} observations as an ({n}, 3) "
                f"array (m, in Ground), got shape {locs.shape}; the observation order "
                f"(define_observation_order) sets how many.")
        self._observations[...] = locs

    def get_observation(self, observation: int) -> np.ndarray:
        return self._observations[self._observation(observation, "get_observation")].copy()

    def get_all_observations(self) -> np.ndarray:
        self._order()
        return self._observations.copy()

    # -------------------------------------------------------------- results
    def find_current_marker_location(self, marker) -> np.ndarray:
        """p_GS (m): where the marker is in the Assembler's internal State (the assembled
        configuration after ``assemble`` or ``track``)."""
        m = self._marker(marker, "find_current_marker_location")
        state = self.get_assembler().get_internal_state()
        return self._bodies[m].find_station_location_in_ground(state, self._stations[m])

    def find_current_marker_error(self, marker) -> float:
        """|p_GS - o| (m) in the internal State, 0 for a marker without observation."""
        m = self._marker(marker, "find_current_marker_error")
        ox = self.get_observation_index_for_marker(m)
        if ox is None or not np.all(np.isfinite(self._observations[ox])):
            return 0.0
        return float(np.linalg.norm(self.find_current_marker_location(m)
                                    - self._observations[ox]))

    # ------------------------------------------------------ the condition
    def initialize_condition(self, state) -> None:
        if not self._names:
            raise InvalidArgumentError(
                "Markers: no markers defined; call markers.add_marker(name, body, station) "
                "before assembling.")
        assembler = self.get_assembler()
        for m, body in enumerate(self._bodies):
            assembler._check_mobod(body, f"Markers (marker '{self._names[m]}')")
        self._order()
        self._active = np.array([m for m in range(len(self._names))
                                 if m in self._marker2obs and self._weights[m] > 0],
                                dtype=np.int64)
        if not self._active.size:
            raise InvalidArgumentError(
                "Markers: no marker has both an observation and a weight > 0; check "
                "define_observation_order and the marker weights.")

    def _frame(self, state, where: str):
        """For the fitted markers: p_GS - o (k x 3, m; zero rows where the observation is
        missing), their weights (zero where missing), and r_G = R_GB p_BS, each station
        from its body origin expressed in G."""
        obs = self._observations[[self._marker2obs[m] for m in self._active]]
        seen = np.all(np.isfinite(obs), axis=1)
        if not seen.any():
            raise KinetreeError(
                f"Markers.{where}: every observation is missing (NaN) in this frame; set "
                f"them with move_all_observations, or skip the frame.")
        transforms = {}
        p_G, r_G = np.zeros((self._active.size, 3)), np.zeros((self._active.size, 3))
        for i, m in enumerate(self._active):
            b = self._bodies[m].get_mobilized_body_index()
            if b not in transforms:
                X_GB = self._bodies[m].get_body_transform(state)
                transforms[b] = (X_GB.R.as_matrix(), X_GB.p)
            R_GB, p_GB = transforms[b]
            r_G[i] = R_GB @ self._stations[m]
            p_G[i] = p_GB + r_G[i]
        err = np.where(seen[:, None], p_G - np.where(seen[:, None], obs, 0.0), 0.0)
        w = np.array([self._weights[m] for m in self._active]) * seen
        return err, w, r_G

    def calc_goal_residuals(self, state) -> np.ndarray:
        """rᵢ = √(wᵢ/Σw) (p_GSᵢ - oᵢ) (m), 3 per fitted marker; zero for a missing one."""
        err, w, _ = self._frame(state, "calc_goal_residuals")
        return (np.sqrt(w / w.sum())[:, None] * err).ravel()

    def calc_goal_residual_jacobian(self, state) -> np.ndarray:
        """∂r/∂q: per marker √(wᵢ/Σw) (Jv_B + Jw_B × r_G) N⁻¹, Jw_B and Jv_B the body's
        rows of the system Jacobian and r_G the station from the body origin, in G."""
        _, w, r_G = self._frame(state, "calc_goal_residual_jacobian")
        return self._station_q_jacobian(state, r_G, np.sqrt(w / w.sum()))

    def calc_errors(self, state) -> np.ndarray:
        """p_GS - o (m), 3 per fitted marker, zero for a missing one: usable as hard
        errors when the model can reach every observation."""
        err, _, _ = self._frame(state, "calc_errors")
        return err.ravel()

    def get_num_errors(self, state) -> int:
        return 3 * self._active.size

    def calc_error_jacobian(self, state) -> np.ndarray:
        _, w, r_G = self._frame(state, "calc_error_jacobian")
        return self._station_q_jacobian(state, r_G, (w > 0).astype(float))

    def _station_q_jacobian(self, state, r_G, scale) -> np.ndarray:
        matter = self.get_matter_subsystem()
        J = matter.calc_system_jacobian(state)
        nb = matter.get_num_bodies()
        J = J.reshape(nb, 6, -1)
        b = np.array([self._bodies[m].get_mobilized_body_index() for m in self._active])
        Jw, Jv = J[b, :3, :], J[b, 3:, :]
        JS = Jv + np.cross(Jw, r_G[:, :, None], axis=1)
        JS *= scale[:, None, None]
        return speed_jacobian_to_q(matter, state, JS.reshape(3 * b.size, -1))
