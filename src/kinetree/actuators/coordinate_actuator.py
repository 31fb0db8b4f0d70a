"""CoordinateActuator: OpenSim's generalized force on one coordinate, optimal_force times
the control."""

from __future__ import annotations

from kinetree.actuators.actuator import (
    AT,
    BODY1,
    CONTROL,
    MOBILITY,
    OUT_EXCITATION,
    OUT_FORCE,
    Actuator,
)
from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.registry import ACTUATORS


class CoordinateActuator(Actuator):
    """``CoordinateActuator(name, mobilized_body, which, optimal_force=1.0, ...)``: a
    generalized force (N m on a rotational coordinate, N on a translational one) of
    optimal_force x control on coordinate ``which`` of ``mobilized_body``'s mobilizer, as
    OpenSim's CoordinateActuator. min_control and max_control are kept for controllers,
    not enforced (OpenSim enforces neither)."""

    CODE = ACTUATORS["coordinate_actuator"]
    PROPERTIES = {"optimal_force": 1.0}

    def __init__(self, name: str, mobilized_body, which: int, min_control=-float("inf"),
                 max_control=float("inf"), **properties):
        super().__init__(name, **properties)
        self.min_control, self.max_control = float(min_control), float(max_control)
        self.mobilized_body = mobilized_body
        self.which = int(which)

    def _params(self) -> list[float]:
        return [self.properties["optimal_force"]]

    def _row(self, tree) -> dict[int, int]:
        b = self.mobilized_body.get_mobilized_body_index()
        return {BODY1: b, MOBILITY: int(tree.u_start[b]) + self.which}

    def get_power(self, state) -> float:
        """τ u (W), realized at DYNAMICS."""
        u = self.mobilized_body.get_one_u(state, self.which)
        return self.get_actuation(state) * u

    def _check_model(self, tree) -> None:
        b = self.mobilized_body.get_mobilized_body_index()
        if not 0 <= self.which < tree.nu[b]:
            raise InvalidArgumentError(
                f"CoordinateActuator {self.name!r}: the mobilizer of body {b} has "
                f"{tree.nu[b]} coordinates; {self.which} is out of range.")


@helper(forceinline=False)
def calc(ai, af, z, zdot, controls, length, speed, R_GB, p_GB, body_forces,
         mobility_forces, out):
    """af[at] = optimal force: τ = optimal force x control on u[ai[MOBILITY]]."""
    control = controls[ai[CONTROL]]
    tau = af[ai[AT]] * control
    mobility_forces[ai[MOBILITY]] += tau
    out[OUT_FORCE] = tau
    out[OUT_EXCITATION] = control
    return 0.0
