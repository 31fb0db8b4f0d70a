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

import math
from typing import NamedTuple

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

CODE = CONSTRAINTS["rod"]
_WHERE = "Constraint.Rod"
_F, _B = 0, 1
"""The constrained bodies: body 1 (Simbody's F) and body 2 (Simbody's B)."""

_SINGULAR = np.finfo(float).eps ** 1.25
"""Station distances (m) below this count as coincident (Simbody's TinyReal)."""


# ------------------------------------------------------------------ physics
# cf = [p_FSf (3), p_BSb (3), length].

@helper
def _line(cf, R_AB, p_AB):
    """(r_F, r_B, p, r, Cz): the stations' offsets from their body origins, the rod
    vector p from Sf to Sb, its length r and its direction Cz (all in A)."""
    r_F = offset(R_AB, _F, vec3(cf[0:3]))
    r_B = offset(R_AB, _B, vec3(cf[3:6]))
    p = sub3(location(p_AB, _B, r_B), location(p_AB, _F, r_F))
    r = math.sqrt(dot3(p, p))
    if r >= _SINGULAR:
        return r_F, r_B, p, r, scale3(1.0 / r, p)
    R = R_AB[_F]
    return r_F, r_B, p, r, (R[0, 2], R[1, 2], R[2, 2])


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = r - d."""
    perr[0] = _line(cf, R_AB, p_AB)[3] - cf[6]


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = ṗ·Cz."""
    r_F, r_B, _, _, Cz = _line(cf, R_AB, p_AB)
    uerr[0] = dot3(sub3(velocity(V_AB, _B, r_B), velocity(V_AB, _F, r_F)), Cz)


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = p̈·Cz + ṗ·Ċz."""
    r_F, r_B, _, r, Cz = _line(cf, R_AB, p_AB)
    pd = sub3(velocity(V_AB, _B, r_B), velocity(V_AB, _F, r_F))
    if r >= _SINGULAR:
        Czd = scale3(1.0 / r, sub3(pd, scale3(dot3(pd, Cz), Cz)))
    else:
        Czd = cross3(vec3(V_AB[_F, :3]), Cz)
    pdd = sub3(acceleration(V_AB, A_AB, _B, r_B), acceleration(V_AB, A_AB, _F, r_F))
    aerr[0] = dot3(pdd, Cz) + dot3(pd, Czd)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """λ Cz at Sb on body 2, -λ Cz at Sf on body 1."""
    r_F, r_B, _, _, Cz = _line(cf, R_AB, p_AB)
    add_force(F_A, _B, r_B, scale3(lam[0], Cz))
    add_force(F_A, _F, r_F, scale3(-lam[0], Cz))


# ------------------------------------------------------------------ the class
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


class _RodImplementation(BuiltinImplementation):
    """perr = |p_ASb - p_ASf| - d; constrained bodies 0 (F, body 1) and 1 (B, body 2)."""

    CODE = CODE

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
        self._parameters_changed(state)

    def parameters(self, state) -> np.ndarray:
        p = self.get_parameters(state)
        return np.concatenate([p.p_FSf, p.p_BSb, [p.length]])

    def calc_decorative_geometry_and_append(self, state, stage, geometry: list) -> None:
        """At POSITION, the rod drawn as a line between its stations, in Ground."""
        if stage != Stage.POSITION:
            return
        from kinetree.viz.decorations import DecorativeLine

        matter, p = self.get_matter_subsystem(), self.get_parameters(state)
        ends = [matter.get_mobilized_body(self.get_mobilized_body_index_of_constrained_body(b))
                .find_station_location_in_ground(state, station)
                for b, station in ((self._F, p.p_FSf), (self._B, p.p_BSb))]
        geometry.append(DecorativeLine(*ends).set_line_thickness(3).set_color("orange"))


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
