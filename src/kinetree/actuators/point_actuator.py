"""PointActuator: OpenSim's force of optimal_force x control along a direction, applied at
a point of one body."""

from __future__ import annotations

import numpy as np

from kinetree.actuators.actuator import (
    AT,
    BODY1,
    CONTROL,
    FLAGS,
    OUT_EXCITATION,
    OUT_FORCE,
    Actuator,
)
from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._stations import add_station_force
from kinetree.jit import helper
from kinetree.multibody.kernels.small import rotate3, sub3, vec3
from kinetree.registry import ACTUATORS

POINT_IS_GLOBAL, FORCE_IS_GLOBAL = 1, 2
"""Bits of the row's FLAGS."""


class PointActuator(Actuator):
    """``PointActuator(name, mobilized_body, point, direction, optimal_force=1.0,
    point_is_global=False, force_is_global=False)``: the force optimal_force x control (N)
    along the unit ``direction`` (in the body's frame, or in Ground if force_is_global),
    applied at ``point`` (m, in the body's frame, or a point of Ground if
    point_is_global, taken where the body is at each instant), as OpenSim's
    PointActuator."""

    CODE = ACTUATORS["point_actuator"]
    PROPERTIES = {"optimal_force": 1.0, "point_is_global": False, "force_is_global": False}

    def __init__(self, name: str, mobilized_body, point, direction, **properties):
        super().__init__(name, **properties)
        self.mobilized_body = mobilized_body
        self.point = np.asarray(point, dtype=float).reshape(3)
        direction = np.asarray(direction, dtype=float).reshape(3)
        norm = float(np.linalg.norm(direction))
        if not (np.all(np.isfinite(self.point)) and np.isfinite(norm) and norm > 0.0):
            raise InvalidArgumentError(
                f"PointActuator {name!r}: the point must be finite and the direction a "
                f"finite non-zero vector; got point {self.point}, direction {direction}.")
        self.direction = direction / norm

    def _params(self) -> list[float]:
        return [self.properties["optimal_force"], *self.point, *self.direction]

    def _row(self, tree) -> dict[int, int]:
        flags = (POINT_IS_GLOBAL * self.properties["point_is_global"]
                 + FORCE_IS_GLOBAL * self.properties["force_is_global"])
        return {BODY1: self.mobilized_body.get_mobilized_body_index(), FLAGS: int(flags)}


@helper(forceinline=False)
def calc(ai, af, z, zdot, controls, length, speed, R_GB, p_GB, body_forces,
         mobility_forces, out):
    """af[at:] = [optimal force, point (3), unit direction (3)]."""
    b, at, flags = ai[BODY1], ai[AT], ai[FLAGS]
    control = controls[ai[CONTROL]]
    force = af[at] * control
    d = vec3(af[at + 4:at + 7])
    if flags & FORCE_IS_GLOBAL == 0:
        d = rotate3(R_GB[b], d)
    if flags & POINT_IS_GLOBAL:
        r = sub3(vec3(af[at + 1:at + 4]), vec3(p_GB[b]))
    else:
        r = rotate3(R_GB[b], vec3(af[at + 1:at + 4]))
    add_station_force(body_forces, b, r, (force * d[0], force * d[1], force * d[2]))
    out[OUT_FORCE] = force
    out[OUT_EXCITATION] = control
    return 0.0
