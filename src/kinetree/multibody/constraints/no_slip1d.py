"""Constraint.NoSlip1D: no slip along one direction at a contact point (Simbody's
``Constraint::NoSlip1D``), e.g. rolling contact between gears or wheels.

A contact point P and a direction n are fixed in a case body C; the material points P0 of
moving body B0 and P1 of B1 that coincide with P must have the same velocity along n:
verr = (v_AP1 - v_AP0)·n_A, computed in the ancestor frame A (the points are coincident, so
their velocities in C and in A differ by the same amount). The multiplier's force is λn at
P1 on B1 and -λn at P0 on B0; none acts on the case. P and n are Instance-stage variables
of each State, initialized from the defaults.

vaerr is Simbody's: (a_AP1 - a_AP0 - w_AC × (v_AP1 - v_AP0))·n_A, the accelerations of
the two material points along n (n turning with C). It leaves out the terms from P moving
over the bodies, w_AB1 × (v_AP - v_AP1) - w_AB0 × (v_AP - v_AP0), v_AP being the velocity
of P itself, so it is the time derivative of verr only where those vanish (Simbody's
gear-train use: P fixed in the ancestor frame, each gear turning about an axis through its
origin, n along the common tangent); elsewhere ``kt.check_constraint`` reports the
difference, and verr drifts slowly under the dynamics until projection removes it.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints._stations import (
    acceleration,
    add_force,
    location,
    offset,
    velocity,
)
from kinetree.multibody.kernels.small import cross3, dot3, scale3, sub3, vec3
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["no_slip1d"]
_WHERE = "Constraint.NoSlip1D"


# ------------------------------------------------------------------ physics
# cf = [P_C (3, m, in C), n_C (3, in C), the constrained-body slots of C, B0 and B1]: the
# slots are stored as floats, and two of them are equal when the case is a moving body.

@helper
def _geometry(cf, R_AB, p_AB):
    """(c, b0, b1, r_P, r_P0, r_P1, n_A): the slots of C, B0 and B1, the offsets (m, in A)
    of P from C's origin and of the material points P0 and P1 at P from B0's and B1's
    origins, and the direction in A."""
    c, b0, b1 = int(cf[6]), int(cf[7]), int(cf[8])
    r_P = offset(R_AB, c, vec3(cf[0:3]))
    p_AP = location(p_AB, c, r_P)
    return (c, b0, b1, r_P, sub3(p_AP, vec3(p_AB[b0])), sub3(p_AP, vec3(p_AB[b1])),
            offset(R_AB, c, vec3(cf[3:6])))


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """verr = (v_AP1 - v_AP0)·n_A."""
    _, b0, b1, _, r_P0, r_P1, n_A = _geometry(cf, R_AB, p_AB)
    uerr[0] = dot3(sub3(velocity(V_AB, b1, r_P1), velocity(V_AB, b0, r_P0)), n_A)


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """vaerr = (a_AP1 - a_AP0 - w_AC × (v_AP1 - v_AP0))·n_A (Simbody's)."""
    c, b0, b1, _, r_P0, r_P1, n_A = _geometry(cf, R_AB, p_AB)
    v_AP0, v_AP1 = velocity(V_AB, b0, r_P0), velocity(V_AB, b1, r_P1)
    a_AP0 = acceleration(V_AB, A_AB, b0, r_P0)
    a_AP1 = acceleration(V_AB, A_AB, b1, r_P1)
    aerr[0] = dot3(sub3(sub3(a_AP1, a_AP0), cross3(vec3(V_AB[c, :3]), sub3(v_AP1, v_AP0))),
                   n_A)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """λ n_A at P1 on B1, -λ n_A at P0 on B0."""
    _, b0, b1, _, r_P0, r_P1, n_A = _geometry(cf, R_AB, p_AB)
    add_force(F_A, b1, r_P1, scale3(lam[0], n_A))
    add_force(F_A, b0, r_P0, scale3(-lam[0], n_A))


# ------------------------------------------------------------------ the class
class _NoSlip1DImplementation(BuiltinImplementation):
    """verr = (v_AP1 - v_AP0)·n_A; constrained bodies: the case, B0 and B1 (one index per
    distinct body)."""

    CODE = CODE

    def __init__(self, case_body, p_C, n_C, moving_body0, moving_body1):
        matter = _checks.same_matter(case_body, _WHERE, "the case body")
        for what, body in (("moving body 0", moving_body0), ("moving body 1", moving_body1)):
            if _checks.same_matter(body, _WHERE, what) is not matter:
                raise InvalidArgumentError(
                    f"{_WHERE}: {what} belongs to another matter subsystem than the case "
                    f"body; all three bodies must be in the same SimbodyMatterSubsystem.")
        if moving_body0 is moving_body1:
            raise InvalidArgumentError(
                f"{_WHERE}: moving_body0 and moving_body1 are the same body, so there is "
                f"nothing to constrain; pass the two bodies in contact.")
        self._default_point = _checks.vec3(p_C, _WHERE, "the contact point p_C")
        self._default_direction = _checks.unit_vec3(n_C, _WHERE, "the direction n_C")
        super().__init__(matter, 0, 1, 0)
        registered: dict[int, int] = {}

        def register(mobod) -> int:
            key = mobod.get_mobilized_body_index()
            if key not in registered:
                registered[key] = self.add_constrained_body(mobod)
            return registered[key]

        self._case = register(case_body)
        self._body0 = register(moving_body0)
        self._body1 = register(moving_body1)
        self._info_index = None
        self.direction_display_length = 1.0
        self.point_display_radius = 0.05

    # ------------------------------------------------- per-State contact info
    def realize_topology(self, state) -> None:
        self._info_index = self.get_matter_subsystem().allocate_discrete_variable(
            state, Stage.INSTANCE, (self._default_point.copy(),
                                    self._default_direction.copy()))

    def _slot(self) -> int:
        if self._info_index is None:
            raise InvalidArgumentError(
                f"{_WHERE}: the contact point and direction live in the State; call "
                f"system.realize_topology() (after creating the constraint) and use the "
                f"State it returns.")
        return self._info_index

    def get_contact_info(self, state) -> tuple[np.ndarray, np.ndarray]:
        """(P_C, n_C): the contact point (m) and unit no-slip direction, in C."""
        return self.get_matter_subsystem().get_discrete_variable(state, self._slot())

    def set_contact_info(self, state, point, direction) -> None:
        self.get_matter_subsystem().set_discrete_variable(state, self._slot(),
                                                          (point, direction))
        self._parameters_changed(state)

    def parameters(self, state) -> np.ndarray:
        P_C, n_C = self.get_contact_info(state)
        return np.concatenate([P_C, n_C, [self._case, self._body0, self._body1]])


class NoSlip1D(Constraint):
    """``Constraint.NoSlip1D(case_body, p_C, n_C, moving_body0, moving_body1)``: the points
    of the two moving bodies at contact point p_C (m, in the case frame C) have equal
    velocity in C along direction n_C (in C, normalized). The case may be one of the
    moving bodies."""

    def __init__(self, case_body, p_C, n_C, moving_body0, moving_body1):  # noqa: N803
        super().__init__(_NoSlip1DImplementation(case_body, p_C, n_C, moving_body0,
                                                 moving_body1))

    # ------------------------------------------------------------ topology
    def get_case_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._case)

    def get_moving_body_mobilized_body_index(self, which: int) -> int:
        """The MobilizedBodyIndex of moving body 0 or 1."""
        if which not in (0, 1):
            raise InvalidArgumentError(
                f"{self._name()}.get_moving_body_mobilized_body_index: which must be 0 or "
                f"1, got {which!r}.")
        body = self._impl._body0 if which == 0 else self._impl._body1
        return self._impl.get_mobilized_body_index_of_constrained_body(body)

    def get_default_contact_point(self) -> np.ndarray:
        """The default P (m), in C."""
        return self._impl._default_point.copy()

    def get_default_direction(self) -> np.ndarray:
        """The default unit n, in C."""
        return self._impl._default_direction.copy()

    def set_default_contact_point(self, point_C) -> NoSlip1D:  # noqa: N803
        """The P (m, in C) new States start with (a topological change)."""
        self._impl._default_point = _checks.vec3(
            point_C, f"{self._name()}.set_default_contact_point", "point_C")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_direction(self, direction_C) -> NoSlip1D:  # noqa: N803
        """The n (in C, normalized) new States start with (a topological change)."""
        self._impl._default_direction = _checks.unit_vec3(
            direction_C, f"{self._name()}.set_default_direction", "direction_C")
        self._impl.invalidate_topology_cache()
        return self

    # -------------------------------------------------- Instance variables
    def set_contact_point(self, state, point_C) -> None:  # noqa: N803
        """This State's P (m, in C); an Instance-stage change."""
        point = _checks.vec3(point_C, f"{self._name()}.set_contact_point", "point_C")
        self._impl.set_contact_info(state, point, self.get_direction(state))

    def set_direction(self, state, direction_C) -> None:  # noqa: N803
        """This State's n (in C, normalized); an Instance-stage change."""
        direction = _checks.unit_vec3(direction_C, f"{self._name()}.set_direction",
                                      "direction_C")
        self._impl.set_contact_info(state, self.get_contact_point(state), direction)

    def get_contact_point(self, state) -> np.ndarray:
        """This State's P (m), in C."""
        return np.array(self._impl.get_contact_info(state)[0])

    def get_direction(self, state) -> np.ndarray:
        """This State's unit n, in C."""
        return np.array(self._impl.get_contact_info(state)[1])

    # ------------------------------------------------------- visualization
    def set_direction_display_length(self, length: float) -> NoSlip1D:
        """Length (m) of the line drawn along n; 0 hides it (visualization only)."""
        self._impl.direction_display_length = max(0.0, float(length))
        return self

    def set_point_display_radius(self, radius: float) -> NoSlip1D:
        """Radius (m) of the sphere drawn at P; 0 hides it (visualization only)."""
        self._impl.point_display_radius = max(0.0, float(radius))
        return self

    def get_direction_display_length(self) -> float:
        return self._impl.direction_display_length

    def get_point_display_radius(self) -> float:
        return self._impl.point_display_radius

    # ---------------------------------------------------------- results
    def get_velocity_error(self, state) -> float:
        """(v_P1 - v_P0)·n (m/s) (VELOCITY)."""
        return _checks.one(self, self.get_velocity_errors_as_vector(state),
                           "get_velocity_error")

    def get_acceleration_error(self, state) -> float:
        """Its time derivative (m/s²) (ACCELERATION)."""
        return _checks.one(self, self.get_acceleration_errors_as_vector(state),
                           "get_acceleration_error")

    def get_multiplier(self, state) -> float:
        """λ (ACCELERATION); see get_force_at_contact_point for the force itself."""
        return _checks.one(self, self.get_multipliers_as_vector(state), "get_multiplier")

    def get_force_at_contact_point(self, state) -> float:
        """The force (N) the constraint applies to moving body 1 at P along n (B0 gets the
        opposite): -λ (ACCELERATION)."""
        return -self.get_multiplier(state)
