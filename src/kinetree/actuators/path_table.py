"""The muscles' paths as the compiled realization sees them: the GeometryPaths of an
ActuatorSubsystem laid out as constant tables (``paths/geometry_path.layout_paths``), and
the steps of the realization that compute their lengths (POSITION), lengthening speeds
(VELOCITY) and the forces of their tensions (DYNAMICS) with ``paths/path_kernel``."""

from __future__ import annotations

import numpy as np

from kinetree.engine.kinds import Kinds
from kinetree.jit import helper
from kinetree.paths import path_kernel as pk
from kinetree.paths.geometry_path import layout_paths
from kinetree.paths.wrap_object import WRAP_I_COLUMNS

MODEL_FIELDS = ("path_i", "point_i", "wrap_rows", "wrap_i", "path_f", "wrap_kinds")
"""The paths' fields of the realization's constant model (``engine/data.py``)."""

def read_only(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only: the type a constant table has in compiled code."""
    a.flags.writeable = False
    return a


NO_PATHS = {"path_i": read_only(np.zeros((0, pk.P_COLUMNS), dtype=np.int64)),
            "point_i": read_only(np.zeros((0, pk.PT_COLUMNS), dtype=np.int64)),
            "wrap_rows": read_only(np.zeros((0, pk.W_COLUMNS), dtype=np.int64)),
            "wrap_i": read_only(np.zeros((0, WRAP_I_COLUMNS), dtype=np.int64)),
            "path_f": read_only(np.zeros(0)), "wrap_kinds": Kinds("wraps")}
"""Those fields for a model without paths: read-only, as a layout's tables are, so that
every model's realization has the same types (and one compiled function)."""


class PathTable:
    """The tables of ``paths`` (GeometryPaths, in the actuators' order)."""

    def __init__(self, paths):
        paths = list(paths)
        self.layout = layout_paths(paths) if paths else None

    def new_work(self) -> np.ndarray:
        """A State's work buffer of these paths (their current points, the wraps' kept
        results)."""
        return self.layout.new_work() if self.layout is not None else np.zeros(0)

    def engine_model(self) -> dict:
        """The paths' fields of the realization's constant model."""
        if self.layout is None:
            return dict(NO_PATHS)
        return {name: getattr(self.layout, name) for name in MODEL_FIELDS}


@helper
def path_positions(model, data, tree, cache):
    """Each path's current points and length (m) into ``data.path_length``."""
    pk.path_positions(model.path_i, model.point_i, model.wrap_rows, model.wrap_i,
                      model.path_f, model.wrap_kinds, cache, data.q, data.path_work,
                      data.path_length)


@helper
def path_speeds(model, data, tree, cache):
    """Each path's lengthening speed (m/s) into ``data.path_speed``."""
    pk.path_speeds(model.path_i, model.point_i, model.path_f, cache, data.q, data.u,
                   data.path_work, data.path_speed)


@helper
def path_forces(model, data, tree, cache, body_forces, mobility_forces):
    """The forces of each path's tension ``data.path_tension`` (N) on the bodies (and on
    the coordinates of its moving points), added in."""
    pk.path_forces(model.path_i, model.point_i, model.path_f, cache, data.q, data.path_work,
                   data.path_tension, body_forces, mobility_forces)
