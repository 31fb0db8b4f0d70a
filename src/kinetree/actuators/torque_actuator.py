"""TorqueActuator: OpenSim's torque of optimal_force x control about an axis, on one body
and its opposite on another."""

from __future__ import annotations

import numpy as np

from kinetree.actuators.actuator import (
    AT,
    BODY1,
    BODY2,
    CONTROL,
    FLAGS,
    OUT_EXCITATION,
    OUT_FORCE,
    Actuator,
)
from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.kernels.small import rotate3, vec3
from kinetree.registry import ACTUATORS

TORQUE_IS_GLOBAL = 1
"""The bit of the row's FLAGS."""


class TorqueActuator(Actuator):
    """``TorqueActuator(name, body_a, body_b, axis, optimal_force=1.0,
    torque_is_global=True)``: the torque optimal_force x control (N m) about the unit
    ``axis`` (in Ground, or in body_a's frame unless torque_is_global) applied to body_a,
    and its opposite to body_b, as OpenSim's TorqueActuator."""

    CODE = ACTUATORS["torque_actuator"]
    PROPERTIES = {"optimal_force": 1.0, "torque_is_global": True}

    def __init__(self, name: str, body_a, body_b, axis, **properties):
        super().__init__(name, **properties)
        self.body_a, self.body_b = body_a, body_b
        axis = np.asarray(axis, dtype=float).reshape(3)
        norm = float(np.linalg.norm(axis))
        if not (np.isfinite(norm) and norm > 0.0):
            raise InvalidArgumentError(
                f"TorqueActuator {name!r}: the axis must be a finite non-zero vector, got "
                f"{axis}.")
        self.axis = axis / norm

    def _params(self) -> list[float]:
        return [self.properties["optimal_force"], *self.axis]

    def _row(self, tree) -> dict[int, int]:
        return {BODY1: self.body_a.get_mobilized_body_index(),
                BODY2: self.body_b.get_mobilized_body_index(),
                FLAGS: TORQUE_IS_GLOBAL * int(self.properties["torque_is_global"])}


@helper(forceinline=False)
def calc(ai, af, z, zdot, controls, length, speed, R_GB, p_GB, body_forces,
         mobility_forces, out):
    """af[at:] = [optimal force, unit axis (3)]."""
    a, b, at = ai[BODY1], ai[BODY2], ai[AT]
    control = controls[ai[CONTROL]]
    torque = af[at] * control
    axis = vec3(af[at + 1:at + 4])
    if ai[FLAGS] & TORQUE_IS_GLOBAL == 0:
        axis = rotate3(R_GB[a], axis)
    for i in range(3):
        body_forces[a, i] += torque * axis[i]
        body_forces[b, i] -= torque * axis[i]
    out[OUT_FORCE] = torque
    out[OUT_EXCITATION] = control
    return 0.0
