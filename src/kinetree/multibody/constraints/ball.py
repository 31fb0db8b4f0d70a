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
from kinetree.multibody.constraint import Constraint, ConstraintImplementation
from kinetree.multibody.constraints import _checks
from kinetree.system.stage import Stage

_WHERE = "Constraint.Ball"


# ------------------------------------------------ coincident-point kinematics
# Shared with Weld, PointInPlane and PointOnLine: S is a station of body F, C the material
# point of body B at S's location. Positions and velocities come from the State.

def coincident_station(impl, state, base: int, follower: int, p_FS) -> np.ndarray:
    """p_BC (m, in B): the point of body B at the current location of station S of F."""
    p_AS = impl.find_station_location_from_state(state, follower, p_FS)
    return impl.get_body_transform_from_state(state, base).shift_base_station_to_frame(p_AS)


def slip_velocity(impl, state, V_AB, base: int, follower: int, p_FS, p_BC) -> np.ndarray:
    """v_AS - v_AC (m/s, in A) for the body velocities V_AB."""
    return (impl.find_station_velocity(state, V_AB, follower, p_FS)
            - impl.find_station_velocity(state, V_AB, base, p_BC))


def slip_acceleration(impl, state, A_AB, base: int, follower: int, p_FS,
                      p_BC) -> np.ndarray:
    """a_AS - a_AC (m/s², in A) for the body accelerations A_AB (velocities from the
    State)."""
    return (impl.find_station_acceleration(state, A_AB, follower, p_FS)
            - impl.find_station_acceleration(state, A_AB, base, p_BC))


def add_in_coincident_force(impl, state, base: int, follower: int, p_FS, p_BC, force_A,
                            body_forces_in_A) -> None:
    """Add force f (N, in A) at S on F and -f at the coincident point C on B."""
    impl.add_in_station_force(state, follower, p_FS, force_A, body_forces_in_A)
    impl.add_in_station_force(state, base, p_BC, -np.asarray(force_A), body_forces_in_A)


class _BallImplementation(ConstraintImplementation):
    """perr = p_AS - p_AP (3 equations); constrained bodies 0 (body 1) and 1 (body 2)."""

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

    # ---------------------------------------------------------- equations
    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        p_B1P, p_B2S = self.get_body_stations(state)
        perr[:] = (self.find_station_location(X_AB, self._b2, p_B2S)
                   - self.find_station_location(X_AB, self._b1, p_B1P))

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        p_B2S = self.get_body_stations(state)[1]
        p_B1C = coincident_station(self, state, self._b1, self._b2, p_B2S)
        pverr[:] = slip_velocity(self, state, V_AB, self._b1, self._b2, p_B2S, p_B1C)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        p_B2S = self.get_body_stations(state)[1]
        p_B1C = coincident_station(self, state, self._b1, self._b2, p_B2S)
        paerr[:] = slip_acceleration(self, state, A_AB, self._b1, self._b2, p_B2S, p_B1C)

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        p_B2S = self.get_body_stations(state)[1]
        p_B1C = coincident_station(self, state, self._b1, self._b2, p_B2S)
        add_in_coincident_force(self, state, self._b1, self._b2, p_B2S, p_B1C,
                                np.asarray(multipliers[:3], dtype=float), body_forces_in_A)


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
