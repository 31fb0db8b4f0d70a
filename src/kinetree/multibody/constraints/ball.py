"""Constraint.Ball: a station of one body kept coincident with a station of another, as a ball joint
would (Simbody's ``Constraint::Ball``, a.k.a. CoincidentPoints or Spherical).

Three holonomic equations, in the ancestor frame A: perr = p_AS - p_AP, with P the station on body 1
and S the station on body 2. The velocity and acceleration equations use the material point C of
body 1 that is at S's location (p_B1C = X_AB1⁻¹ p_AS), as Simbody does: pverr = v_AS - v_AC and
paerr = a_AS - a_AC. These are the time derivatives of perr and pverr on the constraint manifold
(they differ from them by w_AB1 × perr and w_AB1 × pverr), and they make the force act at one point
in space: the multipliers' force Gᵀλ is λ (N, in A) at S on body 2 and -λ at C on body 1 (the
constraint applies its negative, Simbody's sign), so it does no work even when perr ≠ 0. The two
stations are Instance-stage variables of each State, initialized from the defaults.
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
from kinetree.multibody.kernels.small import scale3, sub3, vec3
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["ball"]
_WHERE = "Constraint.Ball"
_B1, _B2 = 0, 1


# ------------------------------------------------ coincident-point kinematics
# Shared with Weld, PointInPlane and PointOnLine: S is a station of body F, C the material
# point of body B at S's location; r_S and r_C their offsets from their body origins.

@helper
def coincident_offsets(R_AB, p_AB, base, follower, p_FS):
    """(r_S, r_C, p_AS): the offset of station p_FS of body ``follower`` from its origin,
    that of the material point C of body ``base`` at S's location, and p_AS (m, in A)."""
    r_S = offset(R_AB, follower, p_FS)
    p_AS = location(p_AB, follower, r_S)
    return r_S, sub3(p_AS, vec3(p_AB[base])), p_AS


@helper
def slip_velocity(V_AB, base, follower, r_S, r_C):
    """v_AS - v_AC (m/s, in A)."""
    return sub3(velocity(V_AB, follower, r_S), velocity(V_AB, base, r_C))


@helper
def slip_acceleration(V_AB, A_AB, base, follower, r_S, r_C):
    """a_AS - a_AC (m/s², in A)."""
    return sub3(acceleration(V_AB, A_AB, follower, r_S), acceleration(V_AB, A_AB, base, r_C))


@helper
def add_coincident_force(F_A, base, follower, r_S, r_C, f):
    """f (N, in A) at S on the follower and -f at C on the base body."""
    add_force(F_A, follower, r_S, f)
    add_force(F_A, base, r_C, scale3(-1.0, f))


# ------------------------------------------------------------------ physics
# cf = [p_B1P (3), p_B2S (3)].

@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = p_AS - p_AP."""
    e = sub3(location(p_AB, _B2, offset(R_AB, _B2, vec3(cf[3:6]))),
             location(p_AB, _B1, offset(R_AB, _B1, vec3(cf[0:3]))))
    perr[0], perr[1], perr[2] = e


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = v_AS - v_AC."""
    r_S, r_C, _ = coincident_offsets(R_AB, p_AB, _B1, _B2, vec3(cf[3:6]))
    e = slip_velocity(V_AB, _B1, _B2, r_S, r_C)
    uerr[0], uerr[1], uerr[2] = e


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = a_AS - a_AC."""
    r_S, r_C, _ = coincident_offsets(R_AB, p_AB, _B1, _B2, vec3(cf[3:6]))
    e = slip_acceleration(V_AB, A_AB, _B1, _B2, r_S, r_C)
    aerr[0], aerr[1], aerr[2] = e


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """λ at S on body 2, -λ at C on body 1."""
    r_S, r_C, _ = coincident_offsets(R_AB, p_AB, _B1, _B2, vec3(cf[3:6]))
    add_coincident_force(F_A, _B1, _B2, r_S, r_C, (lam[0], lam[1], lam[2]))


# ------------------------------------------------------------------ the class
class _BallImplementation(BuiltinImplementation):
    """perr = p_AS - p_AP (3 equations); constrained bodies 0 (body 1) and 1 (body 2)."""

    CODE = CODE

    def __init__(self, body1, point1, body2, point2):
        matter = _checks.two_bodies(body1, body2, _WHERE, "body1", "body2")
        self._default_points = (_checks.vec3(point1, _WHERE, "the station on body 1"),
                                _checks.vec3(point2, _WHERE, "the station on body 2"))
        super().__init__(matter, 3, 0, 0)
        self._b1 = self.add_constrained_body(body1)
        self._b2 = self.add_constrained_body(body2)
        self._stations_index = None

    # ------------------------------------------------- per-State stations
    def realize_topology(self, state) -> None:
        self._stations_index = self.get_matter_subsystem().allocate_discrete_variable(
            state, Stage.INSTANCE, tuple(p.copy() for p in self._default_points))

    def _slot(self) -> int:
        if self._stations_index is None:
            raise InvalidArgumentError(
                f"{_WHERE}: the stations live in the State; call system.realize_topology() "
                f"(after creating the constraint) and use the State it returns.")
        return self._stations_index

    def get_body_stations(self, state) -> tuple[np.ndarray, np.ndarray]:
        """(p_B1P, p_B2S): the stations (m) on body 1 and body 2, in their body frames."""
        return self.get_matter_subsystem().get_discrete_variable(state, self._slot())

    def set_body_stations(self, state, p_B1P, p_B2S) -> None:
        self.get_matter_subsystem().set_discrete_variable(state, self._slot(),
                                                          (p_B1P, p_B2S))

    def parameters(self, state) -> np.ndarray:
        return np.concatenate(self.get_body_stations(state))


class Ball(Constraint):
    """``Constraint.Ball(body1, point1, body2, point2)``, or ``Constraint.Ball(body1,
    body2)`` to join the body origins: station point1 of body 1 (m, in B1) and station
    point2 of body 2 (m, in B2) stay coincident, as if joined by a ball joint."""

    def __init__(self, *args):
        if len(args) == 2:
            body1, body2 = args
            point1 = point2 = np.zeros(3)
        elif len(args) == 4:
            body1, point1, body2, point2 = args
        else:
            raise InvalidArgumentError(
                f"{_WHERE}: expected Ball(body1, body2) or Ball(body1, point1, body2, point2), "
                f"got {len(args)} arguments.")
        super().__init__(_BallImplementation(body1, point1, body2, point2))

    # ------------------------------------------------------------ topology
    def get_body1_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._b1)

    def get_body2_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._b2)

    def get_default_point_on_body1(self) -> np.ndarray:
        """The default p_B1P (m, in B1)."""
        return self._impl._default_points[0].copy()

    def get_default_point_on_body2(self) -> np.ndarray:
        """The default p_B2S (m, in B2)."""
        return self._impl._default_points[1].copy()

    def set_default_point_on_body1(self, point_B1) -> Ball:  # noqa: N803
        """The station on body 1 (m, in B1) new States start with (a topological
        change)."""
        point = _checks.vec3(point_B1, f"{self._name()}.set_default_point_on_body1",
                             "point_B1")
        self._impl._default_points = (point, self._impl._default_points[1])
        self._impl.invalidate_topology_cache()
        return self

    def set_default_point_on_body2(self, point_B2) -> Ball:  # noqa: N803
        """The station on body 2 (m, in B2) new States start with (a topological
        change)."""
        point = _checks.vec3(point_B2, f"{self._name()}.set_default_point_on_body2",
                             "point_B2")
        self._impl._default_points = (self._impl._default_points[0], point)
        self._impl.invalidate_topology_cache()
        return self

    # -------------------------------------------------- Instance variables
    def set_point_on_body1(self, state, point_B1) -> None:  # noqa: N803
        """This State's station on body 1 (m, in B1); an Instance-stage change."""
        point = _checks.vec3(point_B1, f"{self._name()}.set_point_on_body1", "point_B1")
        self._impl.set_body_stations(state, point, self.get_point_on_body2(state))

    def set_point_on_body2(self, state, point_B2) -> None:  # noqa: N803
        """This State's station on body 2 (m, in B2); an Instance-stage change."""
        point = _checks.vec3(point_B2, f"{self._name()}.set_point_on_body2", "point_B2")
        self._impl.set_body_stations(state, self.get_point_on_body1(state), point)

    def get_point_on_body1(self, state) -> np.ndarray:
        """This State's station on body 1 (m, in B1)."""
        return np.array(self._impl.get_body_stations(state)[0])

    def get_point_on_body2(self, state) -> np.ndarray:
        """This State's station on body 2 (m, in B2)."""
        return np.array(self._impl.get_body_stations(state)[1])

    # ---------------------------------------------------------- results
    def get_position_errors(self, state) -> np.ndarray:
        """p_AS - p_AP (m, in A) (POSITION)."""
        return _checks.some(self, self.get_position_errors_as_vector(state),
                            "get_position_errors")

    def get_velocity_errors(self, state) -> np.ndarray:
        """v_AS - v_AC (m/s, in A) (VELOCITY)."""
        return _checks.some(self, self.get_velocity_errors_as_vector(state),
                            "get_velocity_errors")

    def get_acceleration_errors(self, state) -> np.ndarray:
        """a_AS - a_AC (m/s², in A) (ACCELERATION)."""
        return _checks.some(self, self.get_acceleration_errors_as_vector(state),
                            "get_acceleration_errors")

    def get_multipliers(self, state) -> np.ndarray:
        """λ (N, in A); the constraint applies -λ at S on body 2 and +λ at C on body 1
        (ACCELERATION)."""
        return _checks.some(self, self.get_multipliers_as_vector(state), "get_multipliers")
