"""Constraint.Rod: a constant distance between a station of one body and a station of another,
as a massless rigid rod with ball joints at its ends would keep (Simbody's ``Constraint::Rod``,
a.k.a. ConstantDistance).

One holonomic equation, in the ancestor frame A, written as Simbody does since 2014 with the
distance itself rather than its square, so that perr is in metres like the errors of the other
constraints. With Sf the station on body 1 (Simbody's F), Sb the station on body 2 (Simbody's
B), p = p_ASb - p_ASf, r = |p| and Cz = p / r:

    perr = r - d,    pverr = ṗ·Cz,    paerr = p̈·Cz + ṗ·Ċz,    Ċz = (ṗ - (ṗ·Cz) Cz) / r,

ṗ and p̈ being the derivatives in A. The multiplier's force Gᵀλ is λ Cz at Sb on body 2 and
-λ Cz at Sf on body 1 (the constraint applies its negative, so λ > 0 is tension); it lies along
the rod, so the constraint does no work. Where the stations coincide (r = 0) Cz is undefined
and, as in Simbody, body 1's z axis is used, with Ċz = w_AF × Cz. The stations and the length
are Position-stage variables of each State, initialized from the defaults
(``set_rod_length(state, d)`` changes one State only).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.constraint import Constraint, ConstraintImplementation, _cross
from kinetree.multibody.constraints import _checks
from kinetree.system.stage import Stage

_WHERE = "Constraint.Rod"

_SINGULAR = np.finfo(float).eps ** 1.25
"""Station distances (m) below this count as coincident (Simbody's TinyReal)."""


class _Parameters(NamedTuple):
    """One State's rod: the stations (m, each in its body frame) and the length (m)."""

    p_FSf: np.ndarray
    p_BSb: np.ndarray
    length: float


def _positive_length(length, where: str) -> float:
    d = _checks.real(length, where, "the rod length")
    if d <= 0.0:
        raise InvalidArgumentError(
            f"{where}: the rod length (distance) is {d:g} but must be greater than zero; use "
            f"Constraint.Ball to make two points coincident.")
    return d


class _RodImplementation(ConstraintImplementation):
    """perr = |p_ASb - p_ASf| - d; constrained bodies 0 (F, body 1) and 1 (B, body 2)."""

    def __init__(self, body1, point1, body2, point2, length):
        matter = _checks.two_bodies(body1, body2, _WHERE, "body1", "body2")
        self._defaults = _Parameters(_checks.vec3(point1, _WHERE, "the station on body 1"),
                                     _checks.vec3(point2, _WHERE, "the station on body 2"),
                                     _positive_length(length, _WHERE))
        super().__init__(matter, 1, 0, 0)
        self._F = self.add_constrained_body(body1)
        self._B = self.add_constrained_body(body2)
        self._parameters_index = None

    # ------------------------------------------------- per-State parameters
    def realize_topology(self, state) -> None:
        d = self._defaults
        self._parameters_index = self.get_matter_subsystem().allocate_discrete_variable(
            state, Stage.POSITION, _Parameters(d.p_FSf.copy(), d.p_BSb.copy(), d.length))

    def _slot(self) -> int:
        if self._parameters_index is None:
            raise InvalidArgumentError(
                f"{_WHERE}: the stations and length live in the State; call "
                f"system.realize_topology() (after creating the constraint) and use the "
                f"State it returns.")
        return self._parameters_index

    def get_parameters(self, state) -> _Parameters:
        return self.get_matter_subsystem().get_discrete_variable(state, self._slot())

    def set_parameters(self, state, parameters: _Parameters) -> None:
        self.get_matter_subsystem().set_discrete_variable(state, self._slot(), parameters)

    # ---------------------------------------------------------- geometry
    def _direction(self, X_AB, params: _Parameters):
        """(p_FSf and p_BSb expressed in A, the rod vector p, its length r, the unit Cz)."""
        X_AF, X_AB2 = X_AB[self._F], X_AB[self._B]
        p_FSf_A = X_AF.R.as_matrix() @ params.p_FSf
        p_BSb_A = X_AB2.R.as_matrix() @ params.p_BSb
        p = (X_AB2.p + p_BSb_A) - (X_AF.p + p_FSf_A)
        r = float(np.sqrt(p @ p))
        Cz = p / r if r >= _SINGULAR else X_AF.R.as_matrix()[:, 2]
        return p_FSf_A, p_BSb_A, p, r, Cz

    def _rates(self, state, V_AB, params):
        """(Cz, r, ṗ) with positions from the State and velocities V_AB."""
        _, _, _, r, Cz = self._direction(self._kin(state).X_AB, params)
        pd = (self.find_station_velocity(state, V_AB, self._B, params.p_BSb)
              - self.find_station_velocity(state, V_AB, self._F, params.p_FSf))
        return Cz, r, pd

    # ---------------------------------------------------------- equations
    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        params = self.get_parameters(state)
        perr[0] = self._direction(X_AB, params)[3] - params.length

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        Cz, _, pd = self._rates(state, V_AB, self.get_parameters(state))
        pverr[0] = float(pd @ Cz)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        params = self.get_parameters(state)
        Cz, r, pd = self._rates(state, self._kin(state).V_AB, params)
        if r >= _SINGULAR:
            Czd = (pd - (pd @ Cz) * Cz) / r
        else:
            Czd = _cross(self.get_body_angular_velocity_from_state(state, self._F), Cz)
        pdd = (self.find_station_acceleration(state, A_AB, self._B, params.p_BSb)
               - self.find_station_acceleration(state, A_AB, self._F, params.p_FSf))
        paerr[0] = float(pdd @ Cz + pd @ Czd)

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        params = self.get_parameters(state)
        Cz = self._direction(self._kin(state).X_AB, params)[4]
        force_A = multipliers[0] * Cz
        self.add_in_station_force(state, self._B, params.p_BSb, force_A, body_forces_in_A)
        self.add_in_station_force(state, self._F, params.p_FSf, -force_A, body_forces_in_A)


class Rod(Constraint):
    """``Constraint.Rod(body1, point1, body2, point2, length)``, or ``Constraint.Rod(body1,
    body2, length)`` for the body origins: station point1 of body 1 (m, in B1) and station
    point2 of body 2 (m, in B2) stay ``length`` (m, > 0) apart."""

    def __init__(self, *args):
        if len(args) == 3:
            body1, body2, length = args
            point1 = point2 = np.zeros(3)
        elif len(args) == 5:
            body1, point1, body2, point2, length = args
        else:
            raise InvalidArgumentError(
                f"{_WHERE}: expected Rod(body1, body2, length) or Rod(body1, point1, body2, "
                f"point2, length), got {len(args)} arguments.")
        super().__init__(_RodImplementation(body1, point1, body2, point2, length))

    # ------------------------------------------------------------ topology
    def get_mobilized_body1(self):
        return self.get_mobilized_body_from_constrained_body(self._impl._F)

    def get_mobilized_body2(self):
        return self.get_mobilized_body_from_constrained_body(self._impl._B)

    def get_body1_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._F)

    def get_body2_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._B)

    def get_default_point_on_body1(self) -> np.ndarray:
        """The default station on body 1 (m, in B1)."""
        return self._impl._defaults.p_FSf.copy()

    def get_default_point_on_body2(self) -> np.ndarray:
        """The default station on body 2 (m, in B2)."""
        return self._impl._defaults.p_BSb.copy()

    def get_default_rod_length(self) -> float:
        """The default length (m)."""
        return self._impl._defaults.length

    def set_default_point_on_body1(self, point) -> Rod:
        """The station on body 1 (m, in B1) new States start with (a topological change)."""
        p = _checks.vec3(point, f"{self._name()}.set_default_point_on_body1", "the point")
        self._impl._defaults = self._impl._defaults._replace(p_FSf=p)
        self._impl.invalidate_topology_cache()
        return self

    def set_default_point_on_body2(self, point) -> Rod:
        """The station on body 2 (m, in B2) new States start with (a topological change)."""
        p = _checks.vec3(point, f"{self._name()}.set_default_point_on_body2", "the point")
        self._impl._defaults = self._impl._defaults._replace(p_BSb=p)
        self._impl.invalidate_topology_cache()
        return self

    def set_default_rod_length(self, length: float) -> Rod:
        """The length (m, > 0) new States start with (a topological change)."""
        d = _positive_length(length, f"{self._name()}.set_default_rod_length")
        self._impl._defaults = self._impl._defaults._replace(length=d)
        self._impl.invalidate_topology_cache()
        return self

    # -------------------------------------------------- Position variables
    def set_point_on_body1(self, state, p_B1P) -> Rod:  # noqa: N803
        """This State's station on body 1 (m, in B1); a Position-stage change."""
        p = _checks.vec3(p_B1P, f"{self._name()}.set_point_on_body1", "p_B1P")
        self._impl.set_parameters(state, self._impl.get_parameters(state)._replace(p_FSf=p))
        return self

    def set_point_on_body2(self, state, p_B2Q) -> Rod:  # noqa: N803
        """This State's station on body 2 (m, in B2); a Position-stage change."""
        p = _checks.vec3(p_B2Q, f"{self._name()}.set_point_on_body2", "p_B2Q")
        self._impl.set_parameters(state, self._impl.get_parameters(state)._replace(p_BSb=p))
        return self

    def set_rod_length(self, state, rod_length: float) -> Rod:
        """This State's length (m, > 0); a Position-stage change."""
        d = _positive_length(rod_length, f"{self._name()}.set_rod_length")
        self._impl.set_parameters(state, self._impl.get_parameters(state)._replace(length=d))
        return self

    def get_point_on_body1(self, state) -> np.ndarray:
        """This State's station on body 1 (m, in B1)."""
        return np.array(self._impl.get_parameters(state).p_FSf)

    def get_point_on_body2(self, state) -> np.ndarray:
        """This State's station on body 2 (m, in B2)."""
        return np.array(self._impl.get_parameters(state).p_BSb)

    def get_rod_length(self, state) -> float:
        """This State's length (m)."""
        return float(self._impl.get_parameters(state).length)

    # ---------------------------------------------------------- results
    def get_position_error(self, state) -> float:
        """r - d (m): positive when the stations are too far apart (POSITION)."""
        return _checks.one(self, self.get_position_errors_as_vector(state),
                           "get_position_error")

    def get_velocity_error(self, state) -> float:
        """ṙ (m/s), the stations' relative velocity along the rod (VELOCITY)."""
        return _checks.one(self, self.get_velocity_errors_as_vector(state),
                           "get_velocity_error")

    def get_acceleration_error(self, state) -> float:
        """r̈ (m/s²) (ACCELERATION)."""
        return _checks.one(self, self.get_acceleration_errors_as_vector(state),
                           "get_acceleration_error")

    def get_multiplier(self, state) -> float:
        """λ (N) (ACCELERATION)."""
        return _checks.one(self, self.get_multipliers_as_vector(state), "get_multiplier")

    def get_rod_tension(self, state) -> float:
        """The rod's tension (N), positive when it pulls the stations together: the
        multiplier itself, the applied force being -λ Cz on body 2 (ACCELERATION). Zero
        while the constraint is disabled."""
        lam = self.get_multipliers_as_vector(state)
        return float(lam[0]) if lam.size else 0.0

    def find_rod_orientation_in_g(self, state) -> np.ndarray:
        """The unit vector from the station on body 1 to the one on body 2, in Ground (body
        1's z axis where they coincide), whether or not the constraint is enabled
        (POSITION)."""
        b1, b2 = self.get_mobilized_body1(), self.get_mobilized_body2()
        params = self._impl.get_parameters(state)
        p = (b2.find_station_location_in_ground(state, params.p_BSb)
             - b1.find_station_location_in_ground(state, params.p_FSf))
        r = float(np.linalg.norm(p))
        if r >= _SINGULAR:
            return p / r
        return b1.get_body_rotation(state).as_matrix()[:, 2]

    def find_length_violation(self, state) -> float:
        """r - d (m), computed whether or not the constraint is enabled (POSITION)."""
        b1, b2 = self.get_mobilized_body1(), self.get_mobilized_body2()
        params = self._impl.get_parameters(state)
        p = (b2.find_station_location_in_ground(state, params.p_BSb)
             - b1.find_station_location_in_ground(state, params.p_FSf))
        return float(np.linalg.norm(p)) - params.length
