"""Constraint: the handle every constraint type shares, and the implementation base every
type's physics is written against (Simbody's ``Constraint`` and
``Constraint::Custom::Implementation``).

A constraint contributes mp holonomic equations (position errors perr(t, q) with their first
and second time derivatives), mv nonholonomic ones (velocity errors verr(t, q, u) and their
derivative) and ma acceleration-only ones (aerr(t, q, u, u̇)). An implementation computes
those errors from the kinematics of its *constrained bodies* measured in the *ancestor
frame* A (the nearest common ancestor of those bodies) and from the q and u of its
*constrained mobilizers*, and it turns multipliers λ into the forces Gᵀλ: spatial forces
on the constrained bodies (about their origins, expressed in A) plus generalized forces on
the constrained mobilizers. The matter subsystem solves for λ (constraint_solver.py); the
constraint forces actually applied are -Gᵀλ, Simbody's sign.

Indices handed to an implementation are local: ``add_constrained_body`` returns the
ConstrainedBodyIndex (0, 1, ...) of a body, ``add_constrained_mobilizer`` the
ConstrainedMobilizerIndex of a mobilizer; the argument arrays are indexed by them.
"""

from __future__ import annotations

import importlib

import numpy as np

from kinetree.errors import InvalidArgumentError, StageTooLowError
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.system.hooks import RealizeHooks
from kinetree.system.stage import Stage


def _cross(a, b) -> np.ndarray:
    """a × b for 3-vectors (np.cross costs ten times more on vectors this small)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


class ConstraintImplementation(RealizeHooks):
    """The physics of one constraint (``Constraint.Custom.Implementation``).

    Construct with the matter subsystem and the numbers of holonomic, nonholonomic and
    acceleration-only equations; register the bodies and mobilizers it acts on; override the
    error and force methods of each kind it has. Position-level methods get X_AB
    and the constrained q as arguments; higher levels take what is below them from the
    State with the ``*_from_state`` helpers."""

    def __init__(self, matter, mp: int = 0, mv: int = 0, ma: int = 0):
        self._matter = matter
        self._bodies: list = []
        self._mobilizers: list = []
        self._constraint: Constraint | None = None
        self._disabled_by_default = False
        self.set_default_num_constraint_equations(mp, mv, ma)

    # ----------------------------------------------------------- topology
    def get_matter_subsystem(self):
        return self._matter

    def invalidate_topology_cache(self) -> None:
        """Make the next realize_topology call this implementation's hook again."""
        self._matter.invalidate_subsystem_topology_cache()

    def set_default_num_constraint_equations(self, mp: int, mv: int, ma: int):
        counts = []
        for name, n in (("mp", mp), ("mv", mv), ("ma", ma)):
            if int(n) != n or n < 0:
                raise InvalidArgumentError(
                    f"{type(self).__qualname__}: {name} must be a non-negative integer (the "
                    f"number of equations of that kind), got {n!r}.")
            counts.append(int(n))
        self._counts = tuple(counts)
        self.invalidate_topology_cache()
        return self

    def set_disabled_by_default(self, should_be_disabled: bool):
        self._disabled_by_default = bool(should_be_disabled)
        self.invalidate_topology_cache()
        return self

    def add_constrained_body(self, mobod) -> int:
        """Register a body whose motion the constraint uses; returns its
        ConstrainedBodyIndex."""
        self._check_mobod(mobod, "add_constrained_body")
        self._bodies.append(mobod)
        self.invalidate_topology_cache()
        return len(self._bodies) - 1

    def add_constrained_mobilizer(self, mobod) -> int:
        """Register a mobilizer whose q or u the constraint uses; returns its
        ConstrainedMobilizerIndex."""
        self._check_mobod(mobod, "add_constrained_mobilizer")
        self._mobilizers.append(mobod)
        self.invalidate_topology_cache()
        return len(self._mobilizers) - 1

    def _check_mobod(self, mobod, method: str) -> None:
        if getattr(mobod, "_matter", None) is not self._matter:
            raise InvalidArgumentError(
                f"{type(self).__qualname__}.{method}: expected a MobilizedBody of this "
                f"constraint's matter subsystem, got {mobod!r}.")

    def get_mobilized_body_index_of_constrained_body(self, body: int) -> int:
        return self._bodies[body].get_mobilized_body_index()

    def get_mobilized_body_index_of_constrained_mobilizer(self, mobilizer: int) -> int:
        return self._mobilizers[mobilizer].get_mobilized_body_index()

    def get_num_constrained_bodies(self) -> int:
        return len(self._bodies)

    def get_num_constrained_mobilizers(self) -> int:
        return len(self._mobilizers)

    # ------------------------------------------- constrained q and u access
    def _kin(self, state):
        if self._constraint is None:
            raise InvalidArgumentError(
                f"{type(self).__qualname__}: wrap the implementation in a "
                f"Constraint.Custom(implementation) before using it with a State.")
        return self._matter._constraint_kinematics(state, self._constraint)

    def _kin_velocity(self, state, method: str):
        """The constraint's kinematics, refusing a State realized only to POSITION."""
        kin = self._kin(state)
        if kin.V_AB is None:
            raise StageTooLowError(Stage.VELOCITY, Stage.POSITION,
                                   f"{type(self).__qualname__}.{method}")
        return kin

    def _q_at(self, state, mobilizer: int, which_q: int) -> int:
        layout = self._kin(state).layout
        return layout.q_offset[mobilizer] + self._which(which_q, layout.nq[mobilizer], "q")

    def _u_at(self, state, mobilizer: int, which_u: int) -> int:
        layout = self._kin(state).layout
        return layout.u_offset[mobilizer] + self._which(which_u, layout.nu[mobilizer], "u")

    def _which(self, k: int, n: int, kind: str) -> int:
        if not 0 <= k < n:
            raise InvalidArgumentError(
                f"{type(self).__qualname__}: that mobilizer has {n} {kind}; index {k!r} is out "
                f"of range.")
        return k

    def get_one_q(self, state, constrained_q, mobilizer: int, which_q: int) -> float:
        return float(constrained_q[self._q_at(state, mobilizer, which_q)])

    def get_one_q_from_state(self, state, mobilizer: int, which_q: int) -> float:
        return float(self._kin(state).q[self._q_at(state, mobilizer, which_q)])

    def get_one_q_dot(self, state, constrained_qdot, mobilizer: int, which_q: int) -> float:
        return float(constrained_qdot[self._q_at(state, mobilizer, which_q)])

    def get_one_q_dot_from_state(self, state, mobilizer: int, which_q: int) -> float:
        kin = self._kin_velocity(state, "get_one_q_dot_from_state")
        return float(kin.qdot[self._q_at(state, mobilizer, which_q)])

    def get_one_q_dot_dot(self, state, constrained_qdotdot, mobilizer: int,
                          which_q: int) -> float:
        return float(constrained_qdotdot[self._q_at(state, mobilizer, which_q)])

    def get_one_u(self, state, constrained_u, mobilizer: int, which_u: int) -> float:
        return float(constrained_u[self._u_at(state, mobilizer, which_u)])

    def get_one_u_from_state(self, state, mobilizer: int, which_u: int) -> float:
        kin = self._kin_velocity(state, "get_one_u_from_state")
        return float(kin.u[self._u_at(state, mobilizer, which_u)])

    def get_one_u_dot(self, state, constrained_udot, mobilizer: int, which_u: int) -> float:
        return float(constrained_udot[self._u_at(state, mobilizer, which_u)])

    def add_in_one_mobility_force(self, state, mobilizer: int, which_u: int, fu: float,
                                  mobility_forces) -> None:
        mobility_forces[self._u_at(state, mobilizer, which_u)] += fu

    def add_in_one_q_force(self, state, mobilizer: int, which_q: int, fq: float,
                           q_forces) -> None:
        """A generalized force in q-space (holonomic constraints); the solver maps it to
        u-space as Nᵀ fq."""
        q_forces[self._q_at(state, mobilizer, which_q)] += fq

    # ------------------------------------------- constrained body kinematics
    @staticmethod
    def get_body_transform(X_AB, body: int) -> Transform:
        """X_AB: the constrained body's frame in the ancestor frame A."""
        return X_AB[body]

    @staticmethod
    def get_body_rotation(X_AB, body: int) -> Rotation:
        return X_AB[body].R

    @staticmethod
    def get_body_origin_location(X_AB, body: int) -> np.ndarray:
        """p_AB (m): the body origin from A's origin, in A."""
        return X_AB[body].p

    def get_body_transform_from_state(self, state, body: int) -> Transform:
        return self._kin(state).X_AB[body]

    def get_body_rotation_from_state(self, state, body: int) -> Rotation:
        return self._kin(state).X_AB[body].R

    def get_body_origin_location_from_state(self, state, body: int) -> np.ndarray:
        return self._kin(state).X_AB[body].p

    @staticmethod
    def get_body_velocity(V_AB, body: int) -> np.ndarray:
        """V_AB = [w; v] (rad/s; m/s of the origin): the body's velocity in A, in A."""
        return V_AB[body]

    @staticmethod
    def get_body_angular_velocity(V_AB, body: int) -> np.ndarray:
        return V_AB[body, :3]

    @staticmethod
    def get_body_origin_velocity(V_AB, body: int) -> np.ndarray:
        return V_AB[body, 3:]

    def get_body_velocity_from_state(self, state, body: int) -> np.ndarray:
        return self._kin_velocity(state, "get_body_velocity_from_state").V_AB[body]

    def get_body_angular_velocity_from_state(self, state, body: int) -> np.ndarray:
        return self._kin_velocity(state, "get_body_angular_velocity_from_state").V_AB[body, :3]

    def get_body_origin_velocity_from_state(self, state, body: int) -> np.ndarray:
        return self._kin_velocity(state, "get_body_origin_velocity_from_state").V_AB[body, 3:]

    @staticmethod
    def get_body_acceleration(A_AB, body: int) -> np.ndarray:
        """A_AB = [α; a] (rad/s²; m/s² of the origin): the body's acceleration in A."""
        return A_AB[body]

    @staticmethod
    def get_body_angular_acceleration(A_AB, body: int) -> np.ndarray:
        return A_AB[body, :3]

    @staticmethod
    def get_body_origin_acceleration(A_AB, body: int) -> np.ndarray:
        return A_AB[body, 3:]

    @staticmethod
    def find_station_location(X_AB, body: int, p_BS) -> np.ndarray:
        """p_AS (m): station S (given in B) from A's origin, in A."""
        X = X_AB[body]
        return X.p + X.R.as_matrix() @ np.asarray(p_BS, dtype=float)

    def find_station_location_from_state(self, state, body: int, p_BS) -> np.ndarray:
        return self.find_station_location(self._kin(state).X_AB, body, p_BS)

    def find_station_velocity(self, state, V_AB, body: int, p_BS) -> np.ndarray:
        """v_AS (m/s) of station S in A, in A: v + w × r, with r = R_AB p_BS."""
        r = self._kin(state).X_AB[body].R.as_matrix() @ np.asarray(p_BS, dtype=float)
        return V_AB[body, 3:] + _cross(V_AB[body, :3], r)

    def find_station_velocity_from_state(self, state, body: int, p_BS) -> np.ndarray:
        kin = self._kin_velocity(state, "find_station_velocity_from_state")
        return self.find_station_velocity(state, kin.V_AB, body, p_BS)

    def find_station_acceleration(self, state, A_AB, body: int, p_BS) -> np.ndarray:
        """a_AS (m/s²) of station S in A, in A: a + α × r + w × (w × r)."""
        kin = self._kin_velocity(state, "find_station_acceleration")
        r = kin.X_AB[body].R.as_matrix() @ np.asarray(p_BS, dtype=float)
        w = kin.V_AB[body, :3]
        return A_AB[body, 3:] + _cross(A_AB[body, :3], r) + _cross(w, _cross(w, r))

    def add_in_station_force(self, state, body: int, p_BS, force_in_A,
                             body_forces_in_A) -> None:
        """Add force f (N, in A) applied at station S of a constrained body: [r × f; f]
        about the body origin."""
        r = self._kin(state).X_AB[body].R.as_matrix() @ np.asarray(p_BS, dtype=float)
        f = np.asarray(force_in_A, dtype=float)
        body_forces_in_A[body, :3] += _cross(r, f)
        body_forces_in_A[body, 3:] += f

    def add_in_body_torque(self, state, body: int, torque_in_A, body_forces_in_A) -> None:
        body_forces_in_A[body, :3] += np.asarray(torque_in_A, dtype=float)

    def get_multipliers(self, state) -> np.ndarray:
        """This constraint's multipliers λ (ACCELERATION): holonomic, then nonholonomic,
        then acceleration-only."""
        return self._constraint.get_multipliers_as_vector(state)

    # ---------------------------------------------- the physics: virtuals
    def _missing(self, method: str, kind: str) -> NotImplementedError:
        return NotImplementedError(
            f"{type(self).__qualname__} declares {kind} constraint equations, so it must "
            f"implement {method}.")

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        """perr (mp): the holonomic errors from the poses X_AB and the constrained q."""
        raise self._missing("calc_position_errors", "holonomic")

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        """pverr = d/dt perr, from V_AB and q̇ (positions from the State)."""
        raise self._missing("calc_position_dot_errors", "holonomic")

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        """paerr = d²/dt² perr, from A_AB and q̈ (positions and velocities from the
        State)."""
        raise self._missing("calc_position_dot_dot_errors", "holonomic")

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        """Add the forces of the holonomic multipliers: body forces about each constrained
        body's origin in A, and q-space forces on the constrained mobilizers."""
        raise self._missing("add_in_position_constraint_forces", "holonomic")

    def calc_velocity_errors(self, state, V_AB, constrained_u, verr) -> None:
        """verr (mv): the nonholonomic errors from V_AB and the constrained u."""
        raise self._missing("calc_velocity_errors", "nonholonomic")

    def calc_velocity_dot_errors(self, state, A_AB, constrained_udot, vaerr) -> None:
        """vaerr = d/dt verr, from A_AB and u̇."""
        raise self._missing("calc_velocity_dot_errors", "nonholonomic")

    def add_in_velocity_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          mobility_forces) -> None:
        raise self._missing("add_in_velocity_constraint_forces", "nonholonomic")

    def calc_acceleration_errors(self, state, A_AB, constrained_udot, aerr) -> None:
        """aerr (ma): the acceleration-only errors from A_AB and u̇."""
        raise self._missing("calc_acceleration_errors", "acceleration-only")

    def add_in_acceleration_constraint_forces(self, state, multipliers, body_forces_in_A,
                                              mobility_forces) -> None:
        raise self._missing("add_in_acceleration_constraint_forces", "acceleration-only")


class BuiltinImplementation(ConstraintImplementation):
    """The implementation of a built-in constraint type, whose physics is compiled: the
    functions of its module that ``multibody/kernels/constraints.py`` calls through the
    type's code (``CODE``, from ``registry.CONSTRAINTS``), on the type's per-State
    parameters (``parameters``). The methods here call those same functions, so
    ``kt.check_constraint`` and a user's calls see exactly what the realization
    computes."""

    CODE: int = -1

    def parameters(self, state) -> np.ndarray:
        """The constraint's parameters in ``state`` as its compiled functions read them."""
        return np.zeros(0)

    def _functions(self):
        from kinetree.registry import CONSTRAINTS
        name = next(n for n, c in CONSTRAINTS.items() if c == self.CODE)
        return importlib.import_module(f"kinetree.multibody.constraints.{name}")

    @staticmethod
    def _poses(X_AB) -> tuple[np.ndarray, np.ndarray]:
        R = np.array([X.R.as_matrix() for X in X_AB], dtype=float).reshape(-1, 3, 3)
        p = np.array([X.p for X in X_AB], dtype=float).reshape(-1, 3)
        return R, p

    def _u_count(self) -> int:
        return sum(m._default_u.size for m in self._mobilizers)

    def _lambda(self, level: int, multipliers) -> np.ndarray:
        """This constraint's multiplier vector with ``multipliers`` at ``level`` (0
        holonomic, 1 nonholonomic, 2 acceleration-only) and zeros elsewhere."""
        counts = self._counts
        lam = np.zeros(sum(counts))
        start = sum(counts[:level])
        lam[start:start + counts[level]] = multipliers[:counts[level]]
        return lam

    def _velocity_rows(self, state, V_AB, u) -> np.ndarray:
        kin = self._kin(state)
        R, p = self._poses(kin.X_AB)
        out = np.zeros(self._counts[0] + self._counts[1])
        u = np.zeros(self._u_count()) if u is None else np.asarray(u, dtype=float)
        self._functions().velocity_errors(self.parameters(state), R, p,
                                          np.asarray(V_AB, dtype=float), u, out)
        return out

    def _acceleration_rows(self, state, A_AB, udot) -> np.ndarray:
        kin = self._kin_velocity(state, "acceleration errors")
        R, p = self._poses(kin.X_AB)
        out = np.zeros(sum(self._counts))
        udot = np.zeros(self._u_count()) if udot is None else np.asarray(udot, dtype=float)
        self._functions().acceleration_errors(self.parameters(state), R, p,
                                              np.asarray(kin.V_AB, dtype=float),
                                              np.asarray(A_AB, dtype=float), udot, out)
        return out

    def _add_forces(self, state, level: int, multipliers, body_forces_in_A,
                    mobility_forces) -> None:
        R, p = self._poses(self._kin(state).X_AB)
        F_A = np.zeros((len(self._bodies), 6))
        f = np.zeros(self._u_count())
        self._functions().forces(self.parameters(state), R, p,
                                 self._lambda(level, np.asarray(multipliers, dtype=float)),
                                 F_A, f)
        body_forces_in_A += F_A
        if mobility_forces is not None:
            mobility_forces += f

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        R, p = self._poses(X_AB)
        out = np.zeros(self._counts[0])
        self._functions().position_errors(self.parameters(state), R, p, out)
        perr[:] = out

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        pverr[:] = self._velocity_rows(state, V_AB, None)[:self._counts[0]]

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        paerr[:] = self._acceleration_rows(state, A_AB, None)[:self._counts[0]]

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        self._add_forces(state, 0, multipliers, body_forces_in_A, None)

    def calc_velocity_errors(self, state, V_AB, constrained_u, verr) -> None:
        verr[:] = self._velocity_rows(state, V_AB, constrained_u)[self._counts[0]:]

    def calc_velocity_dot_errors(self, state, A_AB, constrained_udot, vaerr) -> None:
        mp, mv, _ = self._counts
        vaerr[:] = self._acceleration_rows(state, A_AB, constrained_udot)[mp:mp + mv]

    def add_in_velocity_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          mobility_forces) -> None:
        self._add_forces(state, 1, multipliers, body_forces_in_A, mobility_forces)

    def calc_acceleration_errors(self, state, A_AB, constrained_udot, aerr) -> None:
        mp, mv, _ = self._counts
        aerr[:] = self._acceleration_rows(state, A_AB, constrained_udot)[mp + mv:]

    def add_in_acceleration_constraint_forces(self, state, multipliers, body_forces_in_A,
                                              mobility_forces) -> None:
        self._add_forces(state, 2, multipliers, body_forces_in_A, mobility_forces)

    def _parameters_changed(self, state) -> None:
        """Tell the matter subsystem that ``parameters(state)`` changed (a setter ran)."""
        if self._constraint is not None:
            self._matter._constraint_parameters_changed(state, self._constraint)


class Constraint:
    """A constraint in a matter subsystem. Construct one of the nested types
    (``Constraint.Rod(...)``, ``Constraint.Custom(implementation)``, ...)."""

    def __init__(self, implementation: ConstraintImplementation):
        if not isinstance(implementation, ConstraintImplementation):
            raise InvalidArgumentError(
                f"{type(self).__qualname__}: the implementation must subclass "
                f"Constraint.Custom.Implementation, got {type(implementation).__name__}.")
        if implementation._constraint is not None:
            raise InvalidArgumentError(
                f"{type(self).__qualname__}: this implementation already belongs to a "
                f"Constraint; make a new implementation object for each constraint.")
        implementation._constraint = self
        self._impl = implementation
        self._matter = implementation.get_matter_subsystem()
        self._index = self._matter._adopt_constraint(self)

    def _name(self) -> str:
        return f"Constraint.{type(self).__name__} #{self._index}"

    def get_constraint_index(self) -> int:
        return self._index

    def get_matter_subsystem(self):
        return self._matter

    def get_implementation(self) -> ConstraintImplementation:
        return self._impl

    def get_num_constrained_bodies(self) -> int:
        return len(self._impl._bodies)

    def get_num_constrained_mobilizers(self) -> int:
        return len(self._impl._mobilizers)

    def get_num_constrained_q(self, state, mobilizer: int | None = None) -> int:
        """The number of generalized coordinates q of constrained mobilizer ``mobilizer``,
        or, with none given, summed over all of this constraint's constrained mobilizers
        (any of them may be left unconstrained) (MODEL)."""
        mobods = self._impl._mobilizers if mobilizer is None \
            else [self._impl._mobilizers[mobilizer]]
        return sum(m.get_num_q(state) for m in mobods)

    def get_num_constrained_u(self, state, mobilizer: int | None = None) -> int:
        """The number of mobilities u of constrained mobilizer ``mobilizer``, or, with none
        given, summed over all of this constraint's constrained mobilizers: the length of
        its mobility-force vector (MODEL)."""
        mobods = self._impl._mobilizers if mobilizer is None \
            else [self._impl._mobilizers[mobilizer]]
        return sum(m.get_num_u(state) for m in mobods)

    def get_mobilized_body_from_constrained_body(self, body: int):
        return self._impl._bodies[body]

    def get_mobilized_body_from_constrained_mobilizer(self, mobilizer: int):
        return self._impl._mobilizers[mobilizer]

    def get_ancestor_mobilized_body(self):
        """The nearest common ancestor of the constrained bodies: the frame A the errors
        are computed in (Ground when there are none)."""
        return self._matter.get_mobilized_body(self._matter._ancestor_of(self))

    def get_num_constraint_equations_in_use(self, state) -> tuple[int, int, int]:
        """(mp, mv, ma) in ``state``: zeros while the constraint is disabled."""
        return (0, 0, 0) if self.is_disabled(state) else self._impl._counts

    def set_disabled_by_default(self, should_be_disabled: bool) -> None:
        self._impl.set_disabled_by_default(should_be_disabled)

    def is_disabled_by_default(self) -> bool:
        return self._impl._disabled_by_default

    def enable(self, state) -> None:
        """Enforce this constraint in ``state`` (an Instance-stage change)."""
        self._matter._set_constraint_disabled(state, self, False)

    def disable(self, state) -> None:
        """Stop enforcing this constraint in ``state`` (an Instance-stage change)."""
        self._matter._set_constraint_disabled(state, self, True)

    def is_disabled(self, state) -> bool:
        return self._matter._is_constraint_disabled(state, self)

    def get_position_errors_as_vector(self, state) -> np.ndarray:
        """perr (POSITION)."""
        return self._matter._constraint_slice(state, self, "qerr", Stage.POSITION,
                                              "get_position_errors_as_vector")

    def get_velocity_errors_as_vector(self, state) -> np.ndarray:
        """[pverr; verr] (VELOCITY)."""
        return self._matter._constraint_slice(state, self, "uerr", Stage.VELOCITY,
                                              "get_velocity_errors_as_vector")

    def get_acceleration_errors_as_vector(self, state) -> np.ndarray:
        """[paerr; vaerr; aerr] (ACCELERATION)."""
        return self._matter._constraint_slice(state, self, "udoterr", Stage.ACCELERATION,
                                              "get_acceleration_errors_as_vector")

    def get_multipliers_as_vector(self, state) -> np.ndarray:
        """λ, aligned with the acceleration errors (ACCELERATION)."""
        return self._matter._constraint_slice(state, self, "multipliers", Stage.ACCELERATION,
                                              "get_multipliers_as_vector")

    def get_constrained_body_forces_as_vector(self, state) -> np.ndarray:
        """The spatial forces (k x 6, [moment; force] about each constrained body's origin,
        in Ground) of this constraint's multipliers, the body part of Gᵀλ (ACCELERATION).
        As in Simbody, constraint forces sit on the left of M u̇ + Gᵀλ = f, so they are the
        opposite of the forces the constraint applies to its bodies."""
        F, _ = self._matter._constraint_forces(state, self, "get_constrained_body_forces")
        return F

    def get_constrained_mobility_forces_as_vector(self, state) -> np.ndarray:
        """The generalized forces of this constraint's multipliers, one per constrained u
        (q-space forces mapped through Nᵀ), with the sign of
        ``get_constrained_body_forces_as_vector`` (ACCELERATION)."""
        _, f = self._matter._constraint_forces(state, self, "get_constrained_mobility_forces")
        return f

    def get_my_part_from_constraint_space_vector(self, state, constraint_space) -> np.ndarray:
        """This constraint's entries (holonomic, nonholonomic, then acceleration-only) of
        a vector laid out as the multipliers and acceleration errors of all the enabled
        constraints are (INSTANCE); empty while it is disabled."""
        slices, m = self._matter._constraint_space(state, self, "get_my_part_from_"
                                                   "constraint_space_vector")
        v = np.asarray(constraint_space, dtype=float).reshape(-1)
        if v.size != m:
            raise InvalidArgumentError(
                f"{self._name()}.get_my_part_from_constraint_space_vector: expected a "
                f"vector of the {m} constraint equations in use, got {v.size}.")
        return np.concatenate([v[s] for s in slices]) if slices else np.zeros(0)

    def set_my_part_in_constraint_space_vector(self, state, my_part,
                                               constraint_space) -> None:
        """Write this constraint's entries ``my_part`` (as
        ``get_my_part_from_constraint_space_vector`` returns them) into
        ``constraint_space``, a float array of all the constraint equations in use."""
        where = f"{self._name()}.set_my_part_in_constraint_space_vector"
        slices, m = self._matter._constraint_space(state, self, where)
        part = np.asarray(my_part, dtype=float).reshape(-1)
        n = sum(s.stop - s.start for s in slices)
        if part.size != n or np.shape(constraint_space) != (m,):
            raise InvalidArgumentError(
                f"{where}: expected {n} entries for a vector of {m}, got {part.size} for "
                f"one of shape {np.shape(constraint_space)}.")
        at = 0
        for s in slices:
            constraint_space[s] = part[at:at + s.stop - s.start]
            at += s.stop - s.start

    def calc_constraint_forces_from_multipliers(self, state, multipliers):
        """(body_forces_in_A, mobility_forces) of this constraint's ``multipliers`` λ
        (holonomic, nonholonomic, then acceleration-only, as ``get_multipliers_as_vector``
        orders them): the spatial forces (k x 6, [moment; force] about each constrained
        body's origin, in the constraint's ancestor frame A) and one generalized force per
        constrained u, together Gᵀλ (VELOCITY). Like Simbody's, they are the opposite of
        forces the constraint applies: negate λ for forces to treat as applied."""
        return self._matter._constraint_forces_from(state, self, multipliers)

    def calc_power(self, state) -> float:
        """The power (W) this constraint applies to the system: the forces it applies
        (the negated constraint forces) dotted with the velocities they act on, -(Σ F_B ·
        V_GB + Σ f_u u) over its constrained bodies and mobilities. Positive when it adds
        energy; within round-off of zero for a workless constraint, so its integral is the
        work a working one (ConstantSpeed driving a mobility, say) does (ACCELERATION)."""
        F = self.get_constrained_body_forces_as_vector(state)
        f = self.get_constrained_mobility_forces_as_vector(state)
        V = np.array([b.get_body_velocity(state) for b in self._impl._bodies]).reshape(-1, 6)
        u = [np.asarray(m.get_u(state), dtype=float) for m in self._impl._mobilizers]
        u = np.concatenate(u) if u else np.zeros(0)
        return -float(np.sum(F * V) + f @ u)

    def __repr__(self) -> str:
        return f"<{self._name()}>"
