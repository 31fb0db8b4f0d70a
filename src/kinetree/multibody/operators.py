"""Operators of the matter subsystem (Simbody's "operators": they read a State and return
a result, writing nothing the realization computed), as a mixin SimbodyMatterSubsystem
inherits.

Everything here is in Simbody's conventions: vectors in Ground (G) unless a name says
otherwise, spatial vectors [angular; linear], spatial forces about a body's origin (or a
task point's), and the equations of motion written M u̇ + Gᵀλ + f_inertial = f_applied, so
that multipliers λ are forces on the left-hand side. The O(n) ones are compiled sweeps
(``kernels/task_jacobian.py``, ``composite.py``, ``dynamics_operators.py``); the
explicit matrices are built a column at a time from them, as Simbody does.

Groups, each as in SimbodyMatterSubsystem.h:
  counts                 get_num_mobilities, get_num_q/u, get_num_q_err/u_err/u_dot_err
  whole system           calc_system_mass, ..._mass_properties_in_ground,
                         ..._central_inertia_in_ground, ..._mass_center_velocity/
                         acceleration_in_ground, ..._momentum_about_ground_origin
  task Jacobians         calc/multiply_by_station_jacobian(_transpose), calc/multiply_by_
                         frame_jacobian(_transpose), calc_bias_for_station/frame/system_jacobian
  inertias               calc_composite_body_inertias, get_composite_body_inertia,
                         get_total_coriolis_acceleration, get_gyroscopic_force,
                         get_total_centrifugal_forces, calc_body_acceleration_from_u_dot
  dynamics               calc_acceleration(_ignoring_constraints), calc_residual_force
  constraint matrices    calc_projected_m_inv, solve_for_constraint_impulses,
                         calc_constraint_acceleration_errors,
                         calc_bias_for_acceleration_constraints, calc_p/pt, calc_pv,
                         calc_pv_transpose, multiply_by_pv(_transpose), calc_pq_transpose
  coordinates            convert_to_euler_angles, convert_to_quaternions
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError, StageTooLowError
from kinetree.math.inertia import Inertia, MassProperties
from kinetree.math.rotation import Rotation
from kinetree.multibody import constraint_solver as cs
from kinetree.multibody.kernels.acceleration import calc_body_accelerations
from kinetree.multibody.kernels.composite import calc_composite_body_inertias
from kinetree.multibody.kernels.dynamics_operators import calc_accelerations, solve_impulses
from kinetree.multibody.kernels.task_jacobian import (
    calc_frame_accelerations,
    calc_frame_jacobian,
    multiply_by_frame_jacobian,
    multiply_by_frame_jacobian_transpose,
)
from kinetree.system.stage import Stage

_INFINITE_INERTIA = np.diag(np.full(6, np.inf))
"""Ground's composite inertia, as Simbody gives it: infinite mass and moments."""


class MatterOperators:
    """The operators of SimbodyMatterSubsystem that wave 2 adds; see the module docstring.
    Mixed into SimbodyMatterSubsystem, whose State access (``get_tree_data``, the
    constraint data) they use."""

    # ------------------------------------------------------------ counts
    def get_num_mobilities(self) -> int:
        """n: the generalized speeds of all mobilizers (the length of u and of the mobility
        forces). Known from the topology; no State needed."""
        return int(sum(b._default_u.size for b in self._bodies))

    def _slot_count(self, state, kind: str, stage: Stage, method: str) -> int:
        """The length of this subsystem's ``kind`` slice of ``state`` (q, u, qerr, uerr,
        udoterr), laid out once ``stage`` is realized."""
        where = f"SimbodyMatterSubsystem.{method}"
        self._check(state)
        if state.get_system_stage() < stage:
            raise StageTooLowError(stage, state.get_system_stage(), where)
        part = state._part_of(self, where)
        piece = getattr(part, f"{kind}_slice")
        return int(piece.stop - piece.start)

    def get_num_q(self, state) -> int:
        """nq of this subsystem in ``state``: 4 per quaternion in use, 3 with Euler angles
        (MODEL)."""
        return self._slot_count(state, "q", Stage.MODEL, "get_num_q")

    def get_num_u(self, state) -> int:
        """nu of this subsystem in ``state`` (MODEL)."""
        return self._slot_count(state, "u", Stage.MODEL, "get_num_u")

    def get_num_q_err(self, state) -> int:
        """Position errors in use: the mp holonomic constraint equations, then one
        normalization error per quaternion in use (INSTANCE)."""
        return self._slot_count(state, "qerr", Stage.INSTANCE, "get_num_q_err")

    def get_num_u_err(self, state) -> int:
        """Velocity errors in use: mp + mv (INSTANCE)."""
        return self._slot_count(state, "uerr", Stage.INSTANCE, "get_num_u_err")

    def get_num_u_dot_err(self, state) -> int:
        """Acceleration errors in use, one per multiplier: m = mp + mv + ma (INSTANCE)."""
        return self._slot_count(state, "udoterr", Stage.INSTANCE, "get_num_u_dot_err")

    # ------------------------------------------------------- whole system
    def _bodies_mass(self, state, stage: Stage, where: str):
        d = self.get_tree_data(state, stage, f"SimbodyMatterSubsystem.{where}")
        m = d.tree.mass[1:]
        total = float(m.sum())
        if total == 0.0:
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.{where}: the system has no mass, so it has no mass "
                f"center; give some body mass.")
        return d, m, total

    def calc_system_mass(self, state) -> float:
        """The total mass (kg) of all bodies but Ground (INSTANCE in Simbody; the masses are
        known from MODEL here)."""
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.calc_system_mass")
        return float(d.tree.mass[1:].sum())

    def calc_system_mass_properties_in_ground(self, state) -> MassProperties:
        """MassProperties of the whole system in G: total mass (kg), mass center p_GC (m)
        from Ground's origin, and inertia (kg m²) about Ground's origin (POSITION)."""
        d, m, total = self._bodies_mass(state, Stage.POSITION,
                                        "calc_system_mass_properties_in_ground")
        c = d.cache
        p_GBc = c.p_GB[1:] + c.com_G[1:]
        com = (m[:, None] * p_GBc).sum(axis=0) / total
        # each body's inertia about its origin (I_G) moved by the parallel-axis theorem twice:
        # to its mass center (less a point mass at c), then to Ground's origin (plus one at
        # p_GBc)
        shift = _point_mass_inertias(m, p_GBc) - _point_mass_inertias(m, c.com_G[1:])
        inertia = (c.I_G[1:] + shift).sum(axis=0)
        return MassProperties(total, com, _inertia(inertia))

    def calc_system_central_inertia_in_ground(self, state) -> Inertia:
        """The system's inertia (kg m²) about its mass center C, expressed in G
        (POSITION)."""
        props = self.calc_system_mass_properties_in_ground(state)
        com, total = props.get_mass_center(), props.get_mass()
        central = props.get_inertia().as_mat33() - _point_mass_inertias(
            np.array([total]), com[None, :])[0]
        return _inertia(central)

    def _mass_center_velocities(self, d) -> np.ndarray:
        """v_GBc (m/s, in G) of each body's mass center, Ground excluded."""
        c = d.cache
        return c.V_GB[1:, 3:] + np.cross(c.V_GB[1:, :3], c.com_G[1:])

    def calc_system_mass_center_velocity_in_ground(self, state) -> np.ndarray:
        """v_GC = d/dt p_GC (m/s, in G): the velocity of the system mass center C in
        Ground (VELOCITY)."""
        d, m, total = self._bodies_mass(state, Stage.VELOCITY,
                                        "calc_system_mass_center_velocity_in_ground")
        return (m[:, None] * self._mass_center_velocities(d)).sum(axis=0) / total

    def calc_system_mass_center_acceleration_in_ground(self, state) -> np.ndarray:
        """a_GC = d²/dt² p_GC (m/s², in G) of the system mass center C (ACCELERATION):
        each body's a_GBc = a_GB + α × c + w × (w × c), mass-weighted."""
        d, m, total = self._bodies_mass(state, Stage.ACCELERATION,
                                        "calc_system_mass_center_acceleration_in_ground")
        c = d.cache
        w, alpha, com = c.V_GB[1:, :3], c.A_GB[1:, :3], c.com_G[1:]
        a = c.A_GB[1:, 3:] + np.cross(alpha, com) + np.cross(w, np.cross(w, com))
        return (m[:, None] * a).sum(axis=0) / total

    def calc_system_momentum_about_ground_origin(self, state) -> np.ndarray:
        """[h; p] (kg m²/s; kg m/s) in G: the system's angular momentum about Ground's
        origin and its linear momentum (VELOCITY). Each body's h about its own origin is
        I_B w + m c × v_GB; moved to Ground's origin it gains p_GB × (m v_GBc)."""
        d = self.get_tree_data(state, Stage.VELOCITY,
                               "SimbodyMatterSubsystem.calc_system_momentum_about_ground_origin")
        c, m = d.cache, d.tree.mass[1:]
        w, v, com = c.V_GB[1:, :3], c.V_GB[1:, 3:], c.com_G[1:]
        linear = m[:, None] * self._mass_center_velocities(d)
        own = np.einsum("bij,bj->bi", c.I_G[1:], w) + m[:, None] * np.cross(com, v)
        angular = own + np.cross(c.p_GB[1:], linear)
        return np.concatenate([angular.sum(axis=0), linear.sum(axis=0)])

    # ---------------------------------------------------- task Jacobians
    def _body_index(self, mobod, where: str) -> int:
        """A MobilizedBody, or a MobilizedBodyIndex (int), as a body index."""
        index = getattr(mobod, "get_mobilized_body_index", None)
        if index is not None and getattr(mobod, "_matter", self) is self:
            return int(index())
        if isinstance(mobod, (int, np.integer)) and 0 <= int(mobod) < len(self._bodies):
            return int(mobod)
        raise InvalidArgumentError(
            f"SimbodyMatterSubsystem.{where}: expected a MobilizedBody of this matter "
            f"subsystem or a body index 0..{len(self._bodies) - 1}, got {mobod!r}.")

    def _tasks(self, on_body_b, points_in_b, where: str):
        """(bodies (nt,) int64, points (nt, 3) in each body's frame, single): one task when
        ``on_body_b`` is a body (then the result drops the task axis), else a sequence."""
        single = hasattr(on_body_b, "get_mobilized_body_index") or \
            isinstance(on_body_b, (int, np.integer))
        bodies = [on_body_b] if single else list(on_body_b)
        points = np.asarray(points_in_b, dtype=float)
        points = points.reshape(1, -1) if single and points.ndim == 1 else points
        if points.shape != (len(bodies), 3) or not np.all(np.isfinite(points)):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.{where}: expected {'a' if single else len(bodies)} "
                f"finite point{'' if single else 's'} (x, y, z in m, in the body frame) for "
                f"the {len(bodies)} bod{'y' if single else 'ies'}, got shape {points.shape}.")
        index = np.array([self._body_index(b, where) for b in bodies], dtype=np.int64)
        return index, np.ascontiguousarray(points), single

    def calc_frame_jacobian(self, state, on_body_b, origin_ao_in_b) -> np.ndarray:
        """JF (6 nt x nu) with [V_GA for each task frame A] = JF u: the spatial velocities
        [w_GB; v_GAo] in G of frames A fixed on the bodies ``on_body_b`` with origins
        ``origin_ao_in_b`` (p_BAo, m, in B), stacked six rows per task. One body and one
        point give 6 x nu (POSITION). Prefer ``multiply_by_frame_jacobian``: O(n) without
        forming JF."""
        where = "calc_frame_jacobian"
        d = self.get_tree_data(state, Stage.POSITION, f"SimbodyMatterSubsystem.{where}")
        bodies, points, _ = self._tasks(on_body_b, origin_ao_in_b, where)
        JF = np.zeros((6 * bodies.size, d.mobility_forces.size))
        calc_frame_jacobian(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, bodies, points, JF)
        return JF

    def multiply_by_frame_jacobian(self, state, on_body_b, origin_ao_in_b, u) -> np.ndarray:
        """JF u: each task frame's spatial velocity [w; v of Ao] (rad/s; m/s, in G) for the
        speeds u, in O(n + nt); (nt, 6), or (6,) for one task (POSITION)."""
        where = "multiply_by_frame_jacobian"
        d = self.get_tree_data(state, Stage.POSITION, f"SimbodyMatterSubsystem.{where}")
        bodies, points, single = self._tasks(on_body_b, origin_ao_in_b, where)
        out = np.zeros((bodies.size, 6))
        multiply_by_frame_jacobian(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, bodies, points,
                                   self._vector(u, d.mobility_forces.size, where), out)
        return out[0] if single else out

    def multiply_by_frame_jacobian_transpose(self, state, on_body_b, origin_ao_in_b,
                                             F_GAo) -> np.ndarray:
        """JFᵀ F (nu): the generalized forces equivalent to spatial forces F_GAo =
        [moment; force] (N m; N, in G) applied at the task frames' origins Ao, in O(n + nt)
        (POSITION). One task takes one spatial force (6,), several an (nt, 6) array."""
        where = "multiply_by_frame_jacobian_transpose"
        d = self.get_tree_data(state, Stage.POSITION, f"SimbodyMatterSubsystem.{where}")
        bodies, points, _ = self._tasks(on_body_b, origin_ao_in_b, where)
        F = self._task_values(F_GAo, bodies.size, 6, where)
        f = np.zeros(d.mobility_forces.size)
        multiply_by_frame_jacobian_transpose(d.tree_i, d.tree_f, d.kinds, d.buf, d.status,
                                             bodies, points, F, f)
        return f

    def calc_station_jacobian(self, state, on_body_b, station_p_in_b) -> np.ndarray:
        """JS (3 nt x nu) with [v_GP for each station P] = JS u: the velocities (m/s, in G)
        of points fixed on the bodies ``on_body_b`` at ``station_p_in_b`` (p_BP, m, in B),
        three rows per station; one body and one point give 3 x nu (POSITION)."""
        JF = self.calc_frame_jacobian(state, on_body_b, station_p_in_b)
        n = JF.shape[1]
        return JF.reshape(-1, 6, n)[:, 3:, :].reshape(-1, n)

    def multiply_by_station_jacobian(self, state, on_body_b, station_p_in_b, u) -> np.ndarray:
        """JS u: each station's velocity v_GP (m/s, in G) for the speeds u, in O(n + nt);
        (nt, 3), or (3,) for one station (POSITION)."""
        V = self.multiply_by_frame_jacobian(state, on_body_b, station_p_in_b, u)
        return V[..., 3:]

    def multiply_by_station_jacobian_transpose(self, state, on_body_b, station_p_in_b,
                                               f_GP) -> np.ndarray:
        """JSᵀ f (nu): the generalized forces equivalent to forces f_GP (N, in G) applied at
        the stations, in O(n + nt) (POSITION). One station takes a force (3,), several an
        (nt, 3) array."""
        where = "multiply_by_station_jacobian_transpose"
        d = self.get_tree_data(state, Stage.POSITION, f"SimbodyMatterSubsystem.{where}")
        bodies, points, _ = self._tasks(on_body_b, station_p_in_b, where)
        F = np.zeros((bodies.size, 6))
        F[:, 3:] = self._task_values(f_GP, bodies.size, 3, where)
        f = np.zeros(d.mobility_forces.size)
        multiply_by_frame_jacobian_transpose(d.tree_i, d.tree_f, d.kinds, d.buf, d.status,
                                             bodies, points, F, f)
        return f

    @staticmethod
    def _task_values(values, nt: int, width: int, where: str) -> np.ndarray:
        """``values`` as an (nt, width) array: one row per task (a single row may be given
        flat)."""
        a = np.asarray(values, dtype=float)
        if a.ndim == 1 and nt == 1:
            a = a.reshape(1, -1)
        if a.shape != (nt, width):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.{where}: expected {nt} vector(s) of {width}, got "
                f"shape {np.shape(values)}.")
        return np.ascontiguousarray(a)

    def _frame_bias(self, state, on_body_b, points, where: str):
        d = self.get_tree_data(state, Stage.VELOCITY, f"SimbodyMatterSubsystem.{where}")
        bodies, points, single = self._tasks(on_body_b, points, where)
        out = np.zeros((bodies.size, 6))
        calc_frame_accelerations(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, bodies, points,
                                 np.zeros(d.mobility_forces.size), out)
        return out, single

    def calc_bias_for_frame_jacobian(self, state, on_body_b, origin_ao_in_b) -> np.ndarray:
        """J̇F u: each task frame's spatial acceleration [α; a of Ao] (rad/s²; m/s², in G)
        at u̇ = 0, the Coriolis and centripetal part, so that A_GA = JF u̇ + J̇F u;
        (nt, 6), or (6,) for one task (VELOCITY). Quadratic in the State's u."""
        out, single = self._frame_bias(state, on_body_b, origin_ao_in_b,
                                       "calc_bias_for_frame_jacobian")
        return out[0] if single else out

    def calc_bias_for_station_jacobian(self, state, on_body_b, station_p_in_b) -> np.ndarray:
        """J̇S u: each station's acceleration a_GP (m/s², in G) at u̇ = 0, so that a_GP =
        JS u̇ + J̇S u; (nt, 3), or (3,) for one station (VELOCITY)."""
        out, single = self._frame_bias(state, on_body_b, station_p_in_b,
                                       "calc_bias_for_station_jacobian")
        return out[0, 3:] if single else out[:, 3:]

    def calc_bias_for_system_jacobian(self, state) -> np.ndarray:
        """J̇ u (nb x 6): every body's spatial acceleration [α; a of its origin] in G at
        u̇ = 0, its total Coriolis acceleration, so that A_GB = J u̇ + J̇ u; Ground's row is
        zero (VELOCITY). ``.ravel()`` gives Simbody's 6 nb vector."""
        return self.calc_body_acceleration_from_u_dot(state, np.zeros(0))

    def calc_body_acceleration_from_u_dot(self, state, known_udot) -> np.ndarray:
        """A_GB = J u̇ + J̇ u (nb x 6, [α; a of each origin] in G) for the mobility
        accelerations ``known_udot`` (an empty vector counts as zeros), velocities from the
        State, in O(n) (VELOCITY)."""
        where = "calc_body_acceleration_from_u_dot"
        d = self.get_tree_data(state, Stage.VELOCITY, f"SimbodyMatterSubsystem.{where}")
        udot = self._optional_vector(known_udot, d.mobility_forces.size, where)
        A = np.zeros((len(self._bodies), 6))
        calc_body_accelerations(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, True, udot, A)
        return A

    # ---------------------------------------------------------- inertias
    def calc_composite_body_inertias(self, state) -> np.ndarray:
        """R (nb x 6 x 6): each body's composite spatial inertia, that of it and every body
        outboard of it as if their mobilizers were welded, about the body's origin in G:
        [[I (kg m²), m [c]x], [-m [c]x, m 1]] with c the composite mass center from the
        origin. Ground's is infinite, as Simbody's (POSITION). O(n)."""
        d = self.get_tree_data(state, Stage.POSITION,
                               "SimbodyMatterSubsystem.calc_composite_body_inertias")
        R = np.zeros((len(self._bodies), 6, 6))
        calc_composite_body_inertias(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, R)
        R[0] = _INFINITE_INERTIA
        return R

    def get_composite_body_inertia(self, state, mobod) -> np.ndarray:
        """One body's composite spatial inertia (6 x 6, about its origin, in G), as
        ``calc_composite_body_inertias`` gives it (POSITION)."""
        b = self._body_index(mobod, "get_composite_body_inertia")
        return self.calc_composite_body_inertias(state)[b]

    def get_total_coriolis_acceleration(self, state, mobod) -> np.ndarray:
        """The body's spatial acceleration [α; a of its origin] (in G) at u̇ = 0: its row
        of ``calc_bias_for_system_jacobian`` (VELOCITY)."""
        b = self._body_index(mobod, "get_total_coriolis_acceleration")
        return self.calc_bias_for_system_jacobian(state)[b]

    def get_gyroscopic_force(self, state, mobod) -> np.ndarray:
        """The body's velocity-dependent inertial force [w × I w; m w × (w × c)] (N m; N)
        about its origin, in G, I about the origin and c the mass center from it
        (VELOCITY)."""
        b = self._body_index(mobod, "get_gyroscopic_force")
        d = self.get_tree_data(state, Stage.VELOCITY,
                               "SimbodyMatterSubsystem.get_gyroscopic_force")
        return d.cache.b[b].copy()

    def get_total_centrifugal_forces(self, state, mobod) -> np.ndarray:
        """The body's whole velocity-dependent inertial force about its origin, in G: its
        spatial inertia times its total Coriolis acceleration, plus the gyroscopic force;
        Jᵀ of these over all bodies is the f_inertial of inverse dynamics (VELOCITY)."""
        b = self._body_index(mobod, "get_total_centrifugal_forces")
        d = self.get_tree_data(state, Stage.VELOCITY,
                               "SimbodyMatterSubsystem.get_total_centrifugal_forces")
        if b == 0:
            return np.zeros(6)
        M = _spatial_inertia(d.tree.mass[b], d.cache.com_G[b], d.cache.I_G[b])
        return M @ self.get_total_coriolis_acceleration(state, b) + d.cache.b[b]

    # ---------------------------------------------------------- dynamics
    @staticmethod
    def _optional_vector(v, n: int, where: str) -> np.ndarray:
        """``v`` as n floats; an empty vector (Simbody's zero-length Vector) is n zeros."""
        v = np.asarray(v, dtype=float)
        if v.size == 0:
            return np.zeros(n)
        if v.shape != (n,):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.{where}: expected a vector of {n} (or an empty one "
                f"for zeros), got shape {v.shape}.")
        return np.ascontiguousarray(v)

    def _optional_body_forces(self, F, where: str) -> np.ndarray:
        """Body forces (nb x 6, about each origin, in G); an empty array is zeros."""
        nb = len(self._bodies)
        F = np.asarray(F, dtype=float)
        if F.size == 0:
            return np.zeros((nb, 6))
        if F.shape != (nb, 6):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.{where}: body forces must have shape ({nb}, 6), one "
                f"[moment; force] per body with Ground first (or be empty for zeros), got "
                f"{F.shape}.")
        return np.ascontiguousarray(F)

    def calc_acceleration(self, state, applied_mobility_forces,
                          applied_body_forces) -> tuple[np.ndarray, np.ndarray]:
        """Forward dynamics for given forces: (u̇ (nu), A_GB (nb x 6, [α; a of each origin]
        in G)) solving M u̇ + Gᵀλ + f_inertial = f + Jᵀ F with G u̇ = b, the enabled
        constraints obeyed (least squares if they are redundant), f_inertial from the
        State's velocities. Only the forces given act: not those of the force subsystems.
        Nothing is written into the State (DYNAMICS: the articulated inertias)."""
        return self._accelerations(state, applied_mobility_forces, applied_body_forces, True,
                                   "calc_acceleration")

    def calc_acceleration_ignoring_constraints(self, state, applied_mobility_forces,
                                               applied_body_forces):
        """As ``calc_acceleration`` but without the constraints: M u̇ + f_inertial = f +
        Jᵀ F, in O(n) (DYNAMICS)."""
        return self._accelerations(state, applied_mobility_forces, applied_body_forces, False,
                                   "calc_acceleration_ignoring_constraints")

    def _accelerations(self, state, f, F, constrained: bool, where: str):
        d = self.get_tree_data(state, Stage.DYNAMICS, f"SimbodyMatterSubsystem.{where}")
        n, nb = d.mobility_forces.size, len(self._bodies)
        f = self._optional_vector(f, n, where)
        F = self._optional_body_forces(F, where)
        data = self._constraint_data(state)
        if constrained and data.python:
            self._constraint_rows(state)
        udot, A = np.zeros(n), np.zeros((nb, 6))
        udoterr, lam = np.zeros(data.m), np.zeros(data.m)
        inconsistent = calc_accelerations(d.tree_i, d.tree_f, d.kinds, d.buf, d.status,
                                          data.kinds, *data.table, constrained,
                                          *self._kernel_q_u(state), f, F, udot, A, udoterr,
                                          lam, np.zeros((nb, 6)))
        if inconsistent:
            raise KinetreeError(
                f"SimbodyMatterSubsystem.{where}: the constraints have no solution for these "
                f"forces: acceleration errors of {np.abs(udoterr).max():.3g} are left, so some "
                f"redundant constraints ask for different motions. Disable the conflicting "
                f"one, or use calc_acceleration_ignoring_constraints.")
        return udot, A

    def calc_residual_force(self, state, applied_mobility_forces, applied_body_forces,
                            known_udot, known_lambda=()) -> np.ndarray:
        """Inverse dynamics with constraints: f_res = M u̇ + Gᵀλ + f_inertial - f - Jᵀ F
        (nu), the mobility forces that would have to be added to the applied ones for
        ``known_udot`` and the multipliers ``known_lambda`` (m, in udoterr's order) to
        satisfy the equations of motion. Zero at the realized u̇ and λ when the given
        forces are the State's. Any argument may be empty for zeros (VELOCITY); without
        ``known_lambda`` this is ``calc_residual_force_ignoring_constraints``."""
        where = "calc_residual_force"
        f = self.calc_residual_force_ignoring_constraints(
            state, applied_mobility_forces, applied_body_forces, known_udot)
        m = self._constraint_data(state).m
        lam = self._optional_vector(known_lambda, m, where)
        if m and np.any(lam):
            f += self.multiply_by_g_transpose(state, lam)
        return f

    # ---------------------------------------------- constraint matrices
    def calc_projected_m_inv(self, state) -> np.ndarray:
        """W = G M⁻¹ Gᵀ (m x m), the constraint compliance: the constraint-space
        acceleration errors per unit multiplier. Built from m columns of Gᵀ (the
        constraints' force methods), m O(n) M⁻¹ solves and m products by G (their error
        methods), never forming M (VELOCITY)."""
        d, data = self._constraint_operands(state, Stage.VELOCITY, "calc_projected_m_inv")
        if not data.m:
            return np.zeros((0, 0))
        Gt = cs.calc_g_transpose(state, data, d)
        bias = cs.acceleration_error_bias(state, data, d)
        cols = [cs.multiply_by_g(state, data, d, self.multiply_by_m_inv(state, Gt[:, j]), bias)
                for j in range(data.m)]
        return np.column_stack(cols)

    def solve_for_constraint_impulses(self, state, delta_v) -> np.ndarray:
        """λ̂ (m): constraint-space impulses with W λ̂ = Δv, W = G M⁻¹ Gᵀ, for the desired
        changes ``delta_v`` of the constraints' velocity-level errors (m). Redundant rows
        get the minimum-norm solution, by the pivoted factorization forward dynamics uses.
        Apply them as u += M⁻¹ Gᵀ λ̂ (VELOCITY)."""
        where = "solve_for_constraint_impulses"
        d, data = self._constraint_operands(state, Stage.VELOCITY, where)
        b = self._vector(delta_v, data.m, where)
        m = data.m
        if not m:
            return np.zeros(0)
        G = np.ascontiguousarray(cs.calc_g_transpose(state, data, d).T)
        Y = np.array([self.multiply_by_m_inv(state, g) for g in G])
        x = np.zeros(m)
        solve_impulses(G, Y, np.ascontiguousarray(b), x, np.zeros((m, m)),
                       np.zeros(m, dtype=np.int64), np.zeros((m, m)))
        return x

    def calc_constraint_acceleration_errors(self, state, known_udot) -> np.ndarray:
        """pvaerr = G u̇ - b (m): the acceleration errors [paerr; vaerr; aerr] the enabled
        constraints would have at ``known_udot`` (empty for zeros: then -b), velocities
        from the State; udoterr at the realized u̇ (VELOCITY; nothing is realized)."""
        where = "calc_constraint_acceleration_errors"
        d, data = self._constraint_operands(state, Stage.VELOCITY, where)
        udot = self._optional_vector(known_udot, data.nu, where)
        return cs.multiply_by_g(state, data, d, udot, np.zeros(data.m))

    def calc_bias_for_acceleration_constraints(self, state) -> np.ndarray:
        """-b (m): the acceleration errors at u̇ = 0, holonomic rows included, so that
        udoterr = G u̇ + this (VELOCITY)."""
        d, data = self._constraint_operands(state, Stage.VELOCITY,
                                            "calc_bias_for_acceleration_constraints")
        return cs.acceleration_error_bias(state, data, d)

    def multiply_by_pv(self, state, ulike) -> np.ndarray:
        """PV x (mp + mv) for PV = [P; V], the velocity-level constraint matrix: the change
        of the holonomic and nonholonomic velocity errors for u = x (VELOCITY)."""
        d, data = self._constraint_operands(state, Stage.VELOCITY, "multiply_by_pv")
        return cs.multiply_by_velocity_g(state, data, d,
                                         self._vector(ulike, data.nu, "multiply_by_pv"))

    def calc_pv(self, state) -> np.ndarray:
        """PV = [P; V] ((mp + mv) x nu), column by column from ``multiply_by_pv``; the
        first mp + mv rows of G (VELOCITY)."""
        d, data = self._constraint_operands(state, Stage.VELOCITY, "calc_pv")
        cols = [cs.multiply_by_velocity_g(state, data, d, e) for e in np.eye(data.nu)]
        return np.column_stack(cols) if cols else np.zeros((data.mp + data.mv, 0))

    def multiply_by_pv_transpose(self, state, lambdapv) -> np.ndarray:
        """PVᵀ λ (nu): the generalized forces of holonomic and nonholonomic multipliers
        (mp + mv), in O(n + m) (POSITION; VELOCITY for velocity-dependent constraints)."""
        where = "multiply_by_pv_transpose"
        d, data = self._constraint_operands(state, Stage.POSITION, where)
        full = np.zeros(data.m)
        full[:data.mp + data.mv] = self._vector(lambdapv, data.mp + data.mv, where)
        return cs.multiply_by_g_transpose(state, data, d, full)

    def calc_pv_transpose(self, state) -> np.ndarray:
        """PVᵀ (nu x (mp + mv)) from the constraints' force methods (POSITION)."""
        d, data = self._constraint_operands(state, Stage.POSITION, "calc_pv_transpose")
        if not data.mp + data.mv:
            return np.zeros((data.nu, 0))
        return cs.calc_g_transpose(state, data, d, range(data.mp + data.mv))

    def calc_p(self, state) -> np.ndarray:
        """P (mp x nu) = ∂pverr/∂u, the holonomic rows of G (VELOCITY)."""
        return self.calc_pv(state)[:self._constraint_data(state).mp]

    def calc_pt(self, state) -> np.ndarray:
        """Pᵀ (nu x mp) from the holonomic constraints' force methods (POSITION)."""
        d, data = self._constraint_operands(state, Stage.POSITION, "calc_pt")
        if not data.mp:
            return np.zeros((data.nu, 0))
        return cs.calc_g_transpose(state, data, d, range(data.mp))

    def calc_pq_transpose(self, state) -> np.ndarray:
        """Pqᵀ = (∂perr/∂q)ᵀ (nq x mp), column by column from
        ``multiply_by_pq_transpose`` (POSITION)."""
        d, data = self._constraint_operands(state, Stage.POSITION, "calc_pq_transpose")
        cols = [self.multiply_by_pq_transpose(state, e) for e in np.eye(data.mp)]
        return np.column_stack(cols) if cols else np.zeros((d.qdotdot_work.size, 0))

    # ------------------------------------------------------- coordinates
    def convert_to_euler_angles(self, in_state, out_state=None):
        """Simbody's convertToEulerAngles: ``out_state`` becomes a copy of ``in_state``
        whose orientation mobilizers use body-fixed x-y-z angles instead of quaternions,
        each mobilizer keeping its orientation (and every other q, u and z its value);
        realized to MODEL. Without ``out_state`` a new State is made; either is returned.
        A State already in Euler angles is just copied."""
        return self._convert_orientations(in_state, out_state, True)

    def convert_to_quaternions(self, in_state, out_state=None):
        """Simbody's convertToQuaternions: as ``convert_to_euler_angles``, the other way;
        the quaternions come out unit, with w >= 0."""
        return self._convert_orientations(in_state, out_state, False)

    def _convert_orientations(self, in_state, out_state, euler: bool):
        where = "convert_to_euler_angles" if euler else "convert_to_quaternions"
        d_in = self.get_tree_data(in_state, Stage.MODEL, f"SimbodyMatterSubsystem.{where}")
        out = in_state.copy()
        if out_state is not None:
            out_state.__setstate__(out.__getstate__())
            out = out_state
        if self.get_use_euler_angles(in_state) == euler:
            return out
        system = self.get_system()
        self.set_use_euler_angles(out, euler)
        system.realize_model(out)
        d_out = self.get_tree_data(out, Stage.MODEL, f"SimbodyMatterSubsystem.{where}")
        q_all = out.upd_q()
        for i, (part_in, part_out) in enumerate(zip(in_state._parts, out._parts)):
            if i != self._index:
                q_all[part_out.q_slice] = in_state.get_q()[part_in.q_slice]
        q_in, q_out = self.get_q(in_state), self.upd_q(out)
        t_in, t_out = d_in.tree, d_out.tree
        for b in range(1, len(self._bodies)):
            a, n_a = int(t_in.q_start[b]), int(t_in.nq[b])
            z, n_z = int(t_out.q_start[b]), int(t_out.nq[b])
            if n_a == n_z:
                q_out[z:z + n_z] = q_in[a:a + n_a]
            elif euler:          # quaternion [w, x, y, z], then the rest
                q_out[z:z + 3] = Rotation.from_quaternion(
                    q_in[a:a + 4]).convert_rotation_to_body_fixed_xyz()
                q_out[z + 3:z + n_z] = q_in[a + 4:a + n_a]
            else:                # x-y-z angles, then the rest
                q_out[z:z + 4] = Rotation.from_body_fixed_xyz(
                    q_in[a:a + 3]).convert_rotation_to_quaternion()
                q_out[z + 4:z + n_z] = q_in[a + 3:a + n_a]
        out.upd_u()[:] = in_state.get_u()
        out.upd_z()[:] = in_state.get_z()
        return out


def _point_mass_inertias(m: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(k, 3, 3): the inertia m (|p|² 1 - p pᵀ) of each point mass m at p (kg m²)."""
    pp = np.einsum("bi,bi->b", p, p)
    return m[:, None, None] * (pp[:, None, None] * np.eye(3) - np.einsum("bi,bj->bij", p, p))


def _inertia(matrix: np.ndarray) -> Inertia:
    """An Inertia from a symmetric 3x3 matrix (kg m²), symmetrized against round-off."""
    s = 0.5 * (matrix + matrix.T)
    return Inertia(s[0, 0], s[1, 1], s[2, 2], s[0, 1], s[0, 2], s[1, 2])


def _spatial_inertia(mass: float, com, inertia) -> np.ndarray:
    """[[I, m [c]x], [-m [c]x, m 1]] (6 x 6) about a body's origin: I about the origin,
    c the mass center from it (both in G)."""
    cx = np.array([[0.0, -com[2], com[1]], [com[2], 0.0, -com[0]], [-com[1], com[0], 0.0]])
    return np.block([[inertia, mass * cx], [-mass * cx, mass * np.eye(3)]])
