"""ObservedPointFitter (Simbody's): the q of a model that best fit observed points, in one
call. It is the Assembler with a Markers goal of the stations and their targets and the
model's constraints as errors, and reports the fit as Simbody does: the weighted RMS
distance of the stations from their targets."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.study.assembler import Assembler
from kinetree.study.markers import Markers
from kinetree.system.stage import Stage


class ObservedPointFitter:
    """``ObservedPointFitter.find_best_fit(system, state, body_ixs, stations,
    target_locations, weights=None, tolerance=0.001)``."""

    @staticmethod
    def find_best_fit(system, state, body_ixs, stations, target_locations, weights=None,
                      tolerance: float = 0.001) -> float:
        """Set ``state``'s q to those that best fit the stations to their targets, the
        constraints satisfied, and return the weighted RMS distance (m) between them,
        √(Σ w |p_GS - target|² / Σ w). ``stations[i][j]`` is a station (m, in the frame of
        the body of index ``body_ixs[i]``), ``target_locations[i][j]`` its target (m, in
        Ground), ``weights[i][j]`` its weight (1 by default); ``tolerance`` (m) is the
        accuracy of the fit."""
        where = "ObservedPointFitter.find_best_fit"
        if not len(body_ixs) == len(stations) == len(target_locations):
            raise InvalidArgumentError(
                f"{where}: body_ixs, stations and target_locations must have one entry per "
                f"body, got {len(body_ixs)}, {len(stations)} and {len(target_locations)}.")
        matter = system.get_matter_subsystem()
        markers = Markers()
        targets, bodies, points, w = [], [], [], []
        for i, index in enumerate(body_ixs):
            body = matter.get_mobilized_body(int(index))
            if len(stations[i]) != len(target_locations[i]):
                raise InvalidArgumentError(
                    f"{where}: body {int(index)} has {len(stations[i])} stations and "
                    f"{len(target_locations[i])} targets; give one target per station.")
            for j, station in enumerate(stations[i]):
                weight = 1.0 if weights is None else float(weights[i][j])
                markers.add_marker(body, station, weight)
                targets.append(target_locations[i][j])
                bodies.append(body)
                points.append(station)
                w.append(weight)
        # As Simbody, body by body outward before the whole: each stage fits the stations
        # of the bodies up to one more of those carrying some, with the later bodies held
        # and the constraints left out, from the last stage's q; then everything at once.
        # A single fit from a far pose can stall in a local minimum, a limb folded the
        # wrong way.
        assembler = Assembler(system)
        assembler.set_accuracy(tolerance)
        assembler.adopt_assembly_goal(markers)
        current = state
        order = sorted({b.get_mobilized_body_index() for b in bodies})
        for last in [*order, None]:
            final = last is None
            for k, b in enumerate(bodies):
                inside = final or b.get_mobilized_body_index() <= last
                markers.change_marker_weight(k, w[k] if inside else 0.0)
            for index in range(1, matter.get_num_bodies()):
                mobod = matter.get_mobilized_body(index)
                if final or index <= last:
                    assembler.unlock_mobilizer(mobod)
                else:
                    assembler.lock_mobilizer(mobod)
            assembler.set_system_constraints_weight(np.inf if final else 0.0)
            assembler.initialize(current)
            markers.move_all_observations(targets)
            assembler.assemble()
            current = assembler.get_internal_state()
        assembler.update_from_internal_state(state)
        system.realize(state, Stage.POSITION)
        error = sum(wk * float(np.sum((b.find_station_location_in_ground(state, p)
                                       - np.asarray(t, dtype=float)) ** 2))
                    for wk, b, p, t in zip(w, bodies, points, targets))
        return float(np.sqrt(error / sum(w)))
