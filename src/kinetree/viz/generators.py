"""Decoration generators kinetree provides: per-frame geometry drawn from results.

A generator has ``generate_decorations(state, geometry)`` and is given to
``Visualizer.add_decoration_generator``; the decorations it appends are drawn for one
frame, in Ground.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.transform import Transform
from kinetree.system.stage import Stage
from kinetree.viz.decorations import DecorativeArrow, DecorativeLine


class ContactForceArrows:
    """An arrow for each contact force of a CompliantContactSubsystem: from the point where
    it acts, along the force on surface 2, 1 m long per ``newtons_per_metre`` N (normal
    and friction together). Contacts whose force is below ``threshold`` N are left out."""

    def __init__(self, contact, newtons_per_metre: float = 100.0, color="yellow",
                 threshold: float = 1e-9):
        if not hasattr(contact, "get_contact_force"):
            raise InvalidArgumentError(
                f"ContactForceArrows: expected a CompliantContactSubsystem, got "
                f"{type(contact).__name__}.")
        scale = float(newtons_per_metre)
        if not (scale > 0 and np.isfinite(scale)):
            raise InvalidArgumentError(
                f"ContactForceArrows: newtons_per_metre must be positive, got "
                f"{newtons_per_metre!r}.")
        self._contact, self._scale, self._threshold = contact, scale, float(threshold)
        self._color = color

    def generate_decorations(self, state, geometry: list) -> None:
        if state.get_system_stage() < Stage.DYNAMICS:
            self._contact.get_system().realize(state, Stage.DYNAMICS)
        for i in range(self._contact.get_num_contact_forces(state)):
            force = self._contact.get_contact_force(state, i)
            f = np.asarray(force.force_on_surface2, dtype=float)
            magnitude = float(np.linalg.norm(f))
            if magnitude <= self._threshold:
                continue
            length = magnitude / self._scale
            geometry.append(DecorativeArrow(force.point, force.point + f / self._scale,
                                            tip_length=0.25 * length).set_color(self._color))


class RubberBandLine:
    """A line from a station on one body to a station on another (each in its body's
    frame, m), drawn in Ground every frame: a cable, a muscle's line of action, a
    spring (Simbody's rubber band line)."""

    def __init__(self, system, body1: int, station1, body2: int, station2, line=None):
        matter = system.get_matter_subsystem()
        self._bodies = (matter.get_mobilized_body(body1), matter.get_mobilized_body(body2))
        self._stations = tuple(np.asarray(p, dtype=float).reshape(3) for p in
                               (station1, station2))
        if line is not None and not isinstance(line, DecorativeLine):
            raise InvalidArgumentError(
                f"Visualizer.add_rubber_band_line: the line is a DecorativeLine (its colour "
                f"and thickness), got {type(line).__name__}.")
        self._line = DecorativeLine() if line is None else line

    def generate_decorations(self, state, geometry: list) -> None:
        ends = [b.find_station_location_in_ground(state, p)
                for b, p in zip(self._bodies, self._stations)]
        geometry.append(self._line.copy().set_end_points(*ends).set_body_id(0)
                        .set_transform(Transform()))
