"""SimbodyMatterSubsystem: the tree of mobilized bodies and its compiled dynamics.

At MODEL the tree is flattened into a ``TreeModel`` (constant arrays) and the q and u of
every mobilizer are allocated, quaternion or Euler-angle layout according to the Model-stage
flag ``use_euler_angles``. Each later stage runs one compiled sweep over those arrays,
writing the per-State ``TreeCache``:

    POSITION      X_FM, X_GB, hinge matrices                 kernels/position.py
    VELOCITY      V_GB, bias terms; q̇ = N u                  kernels/velocity.py, n_matrix.py
    DYNAMICS      articulated-body inertias; forces zeroed    kernels/aba.py
    ACCELERATION  u̇ from the applied forces; q̈              kernels/aba.py, n_matrix.py

Force subsystems add into ``body_forces`` (spatial forces about each body origin, in G)
and ``mobility_forces`` during DYNAMICS, after the matter subsystem has zeroed them.

Constraints belong to the matter subsystem too. Which are enabled is an Instance-stage
choice; at INSTANCE their equations are laid out and their error slots allocated, at
POSITION and VELOCITY their errors are computed, and at ACCELERATION the unconstrained u̇ is
corrected by the multipliers (constraint_solver.py).
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field

import numpy as np

from kinetree.engine import project
from kinetree.engine.data import assemble
from kinetree.engine.kinds import Kinds
from kinetree.errors import (
    InvalidArgumentError,
    KinetreeError,
    KinetreeWarning,
    NonFiniteError,
    SimulationDivergedError,
    StageTooLowError,
)
from kinetree.multibody import constraint_solver as cs
from kinetree.multibody import motion
from kinetree.multibody.constraint_table import work_views
from kinetree.multibody.custom_hinges import CustomHinges
from kinetree.multibody.kernels.aba import (
    calc_articulated_body_inertias,
    calc_tree_accelerations,
)
from kinetree.multibody.kernels.constraints import calc_constraint_matrix
from kinetree.multibody.kernels.crba import calc_mass_matrix
from kinetree.multibody.kernels.energy import kinetic_energy
from kinetree.multibody.kernels.jacobian import (
    calc_system_jacobian,
    multiply_by_system_jacobian,
    multiply_by_system_jacobian_transpose,
)
from kinetree.multibody.kernels.n_matrix import (
    multiply_by_n,
    multiply_by_n_inv,
    multiply_by_n_inv_transpose,
    multiply_by_n_transpose,
    normalize_quaternions,
)
from kinetree.multibody.kernels.rnea import calc_residual_forces
from kinetree.multibody.mobilized_body import Direction, Ground, MobilizedBody
from kinetree.multibody.motion import Level, write_prescriptions
from kinetree.multibody.operators import MatterOperators
from kinetree.multibody.tree_model import (
    INCONSISTENT_SEEN,
    PARAM_SIZE,
    TreeCache,
    TreeModel,
    allocate_cache,
    cache_views,
    pack_tree,
)
from kinetree.system.hooks import RealizeHooks
from kinetree.system.stage import Stage
from kinetree.system.subsystem import Subsystem, projection_weights


@dataclass
class TreeData:
    """What the matter subsystem keeps in one State (``matter.get_tree_data(state)``), as
    MuJoCo's mjModel and mjData: the model arrays for that State's Model-stage choices
    (``tree``, constant, each field documented with its shape in ``tree_model.TreeModel``),
    the cache arrays the realization fills (``cache``, ``tree_model.TreeCache``), and the
    applied-force accumulators. All are numpy views of a few flat buffers, which the
    compiled code receives; read them, and write only the force accumulators (during
    DYNAMICS, as a custom force subsystem does)."""

    tree_i: np.ndarray           # model buffers (tree_model.pack_tree)
    tree_f: np.ndarray
    kinds: Kinds                 # the mobilizer kinds of tree.code (engine/kinds.py)
    buf: np.ndarray              # cache buffers (tree_model.allocate_cache)
    status: np.ndarray
    tree: TreeModel              # views of tree_i, tree_f
    _cache: TreeCache | None     # views of buf, made on first use of ``cache``
    body_forces: np.ndarray      # (nb, 6)
    mobility_forces: np.ndarray  # (nu,)
    qdotdot_work: np.ndarray     # (nq,)
    quaternion_q: np.ndarray     # (k, 4) int64: the q indices of each quaternion
    custom: CustomHinges | None  # the custom bodies' blocks (None if there are none)
    lazy: dict = field(default_factory=dict)  # what was realized on request, and at which
                                 # (q, u) epochs (realize_position_kinematics, ...)

    @property
    def cache(self) -> TreeCache:
        """The cache arrays (``tree_model.TreeCache``): views of ``buf``."""
        if self._cache is None:
            self._cache = cache_views(self.buf, self.status)
        return self._cache

    def __getstate__(self) -> dict:
        """A pickle carries the buffers but not their views, which would come back as
        arrays of their own: they are made again on first use."""
        return {**self.__dict__, "_cache": None}

    def __deepcopy__(self, memo) -> TreeData:
        """State.copy(): new cache buffers (their views made when first used); the model
        buffers are constant and shared."""
        return TreeData(self.tree_i, self.tree_f, self.kinds, self.buf.copy(),
                        self.status.copy(), self.tree, None, self.body_forces.copy(),
                        self.mobility_forces.copy(), self.qdotdot_work.copy(),
                        self.quaternion_q,
                        None if self.custom is None else copy.deepcopy(self.custom, memo),
                        dict(self.lazy))


_LAZY = {
    "position kinematics": (Stage.POSITION, 1),
    "velocity kinematics": (Stage.VELOCITY, 2),
    "composite body inertias": (None, 1),
    "articulated body inertias": (Stage.ACCELERATION, 1),
    "articulated body velocity": (Stage.ACCELERATION, 2),
}
"""What the matter subsystem can realize on request (Simbody's lazy realization): the
stage that realizes it anyway (None: only on request), and whether it depends on q alone
(1) or on q and u (2); a change of time leaves it valid. Simbody counts the articulated
inertias realized at ACCELERATION, where it computes them; kinetree computes them at
DYNAMICS but keeps Simbody's account."""

_KINEMATICS = {Stage.POSITION: "position kinematics", Stage.VELOCITY: "velocity kinematics"}


class SimbodyMatterSubsystem(MatterOperators, Subsystem):
    """The bodies and mobilizers of a MultibodySystem (Simbody's matter subsystem)."""

    def __init__(self, system):
        self._bodies: list[MobilizedBody] = []
        self._constraints: list = []
        self._unilateral_contacts: list = []
        self._unilateral_generators: list = []   # make contacts anew at each step
        self._ancestors: list[int] = []
        self._custom: list[MobilizedBody] = []
        self._motions: dict = {}             # body index -> its Motion (motion.py)
        self._default_locks: dict = {}       # body index -> Level of lock_by_default
        self._raise_inconsistent = False
        self._warned_inconsistent = False
        super().__init__(system, "SimbodyMatterSubsystem")
        Ground(self)
        system._set_matter_subsystem(self)

    # ---------------------------------------------------------------- tree
    def _adopt_mobilized_body(self, mobod: MobilizedBody) -> int:
        self._bodies.append(mobod)
        self.invalidate_subsystem_topology_cache()
        return len(self._bodies) - 1

    def Ground(self) -> MobilizedBody:  # noqa: N802 - Simbody's name
        return self._bodies[0]

    def upd_ground(self) -> MobilizedBody:
        return self._bodies[0]

    def get_num_bodies(self) -> int:
        """Number of mobilized bodies, Ground included."""
        return len(self._bodies)

    def get_mobilized_body(self, index: int) -> MobilizedBody:
        try:
            if index < 0:
                raise IndexError(index)
            return self._bodies[index]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.get_mobilized_body: no body {index!r}; there are "
                f"{len(self._bodies)} (Ground is 0).") from None

    def get_topology_description(self) -> str:
        return super().get_topology_description() + "|" + ",".join(
            f"{type(b).__name__}<{b._parent._index if b._parent else -1}"
            for b in self._bodies) + "|" + ",".join(
            f"{type(c).__name__}{c._impl._counts}" for c in self._constraints)

    # -------------------------------------------------------- model stage
    def set_use_euler_angles(self, state, use: bool) -> None:
        """Model-stage choice: body-fixed XYZ angles instead of quaternions for Ball, Free
        and the other orientation mobilizers. Changes nq; realize MODEL again after."""
        self.set_discrete_variable(state, self._euler_index, bool(use))

    def get_use_euler_angles(self, state) -> bool:
        return bool(self.get_discrete_variable(state, self._euler_index))

    def realize_topology(self, state):
        self._euler_index = self.allocate_discrete_variable(state, Stage.MODEL, False)
        self._data_index = self.allocate_cache_entry(state, Stage.MODEL, Stage.MODEL, None)
        self._disabled_index = self.allocate_discrete_variable(
            state, Stage.INSTANCE, tuple(c.is_disabled_by_default() for c in self._constraints))
        self._constraint_data_index = self.allocate_cache_entry(
            state, Stage.INSTANCE, Stage.INSTANCE, None)
        # each body's lock: None, or (Level, its values; None for those of the default
        # State, taken at INSTANCE)
        self._lock_index = self.allocate_discrete_variable(state, Stage.INSTANCE, tuple(
            (self._default_locks[b], None) if b in self._default_locks else None
            for b in range(len(self._bodies))))
        self._motion_settings_index = self.allocate_discrete_variable(
            state, Stage.INSTANCE, {b: m._default_settings() for b, m in self._motions.items()})
        self._ancestors = [self._common_ancestor(c) for c in self._constraints]
        self._constraint_hooks("realize_topology", state)
        self._custom = self._custom_bodies()
        self._custom_hook("realize_topology", state)

    def realize_model(self, state):
        euler = self.get_use_euler_angles(state)
        tree = self._build_tree(euler)
        q0 = [b.get_default_q(euler) for b in self._bodies[1:]]
        u0 = [b.get_default_u() for b in self._bodies[1:]]
        self.allocate_q(state, np.concatenate(q0) if q0 else np.zeros(0))
        self.allocate_u(state, np.concatenate(u0) if u0 else np.zeros(0))
        nb = len(self._bodies)
        tree_i, tree_f = pack_tree(tree)
        buf, status = allocate_cache(nb, int(tree.nu.sum()), int(tree.nq.sum()),
                                     self._raise_inconsistent)
        quaternion_q = [tree.q_start[b._index] + np.arange(4) for b in self._bodies[1:]
                        if b._default_q.size != b._default_q_euler.size
                        and tree.nq[b._index] == b._default_q.size]
        custom = self._custom
        data = TreeData(tree_i, tree_f, tree.kinds, buf, status, tree, None,
                        np.zeros((nb, 6)), np.zeros(int(tree.nu.sum())),
                        np.zeros(int(tree.nq.sum())),
                        np.array(quaternion_q, dtype=np.int64).reshape(-1, 4),
                        CustomHinges(custom, tree) if custom else None)
        self.set_cache_entry(state, self._data_index, data)
        self._constraint_hooks("realize_model", state)
        self._custom_hook("realize_model", state)

    def _custom_bodies(self) -> list:
        """The Custom and FunctionBased bodies, in body order."""
        return [b for b in self._bodies if b._python_hinge]

    def _custom_hook(self, hook: str, state) -> None:
        """Run a realize hook of every custom mobilizer implementation."""
        for b in self._custom:
            getattr(b._impl, hook)(state)

    def realize_instance(self, state):
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize_instance")
        disabled = self.get_discrete_variable(state, self._disabled_index)
        enabled = [c for c, off in zip(self._constraints, disabled) if not off]
        data = cs.build_layouts(state, enabled, self._ancestors, d.tree)
        # qerr = [perr (mp); |q| - 1 of each quaternion in use], Simbody's NQErr
        self.allocate_q_err(state, data.mp + len(d.quaternion_q))
        self.allocate_u_err(state, data.mp + data.mv)
        self.allocate_u_dot_err(state, data.m)
        self.set_cache_entry(state, self._constraint_data_index, data)
        write_prescriptions(self, state, d, self._resolved_locks(state, d))
        self._constraint_hooks("realize_instance", state)
        self._custom_hook("realize_instance", state)

    def _build_tree(self, euler: bool) -> TreeModel:
        nb = len(self._bodies)
        parent = np.full(nb, -1, dtype=np.int64)
        code = np.zeros(nb, dtype=np.int64)
        nq = np.zeros(nb, dtype=np.int64)
        nu = np.zeros(nb, dtype=np.int64)
        reversed_ = np.zeros(nb, dtype=np.int64)
        for b in self._bodies[1:]:
            b._refresh_params()
        # one row per body, as wide as the longest (a compiled FunctionBased's tables)
        prm = np.zeros((nb, max([PARAM_SIZE] + [b._params.size for b in self._bodies])))
        R_PF = np.tile(np.eye(3), (nb, 1, 1))
        R_MB = R_PF.copy()
        p_PF = np.zeros((nb, 3))
        p_MB = np.zeros((nb, 3))
        mass = np.zeros(nb)
        com = np.zeros((nb, 3))
        inertia = np.zeros((nb, 3, 3))
        for i, b in enumerate(self._bodies[1:], start=1):
            mod = b._module
            parent[i] = b._parent._index
            code[i] = mod.CODE
            nq[i] = b.get_default_q(euler).size
            nu[i] = b._default_u.size
            reversed_[i] = b._direction == Direction.REVERSE
            prm[i, :b._params.size] = b._params
            R_PF[i], p_PF[i] = b._X_PF.R.as_matrix(), b._X_PF.p
            X_MB = b._X_BM.invert()
            R_MB[i], p_MB[i] = X_MB.R.as_matrix(), X_MB.p
            mp = b._mass_properties
            mass[i] = mp.get_mass()
            com[i] = mp.get_mass_center()
            inertia[i] = mp.get_inertia().as_mat33()
        q_start = np.concatenate([[0], np.cumsum(nq)[:-1]]).astype(np.int64)
        u_start = np.concatenate([[0], np.cumsum(nu)[:-1]]).astype(np.int64)
        return TreeModel(parent, code, q_start, nq, u_start, nu, reversed_, prm, R_PF, p_PF,
                         R_MB, p_MB, mass, com, inertia, Kinds("mobilizers", code))

    def get_tree_data(self, state, stage: Stage = Stage.MODEL,
                      where: str = "SimbodyMatterSubsystem.get_tree_data") -> TreeData:
        """The State's TreeData; its cache fields are current through the stage the
        State is realized to, which must be at least ``stage`` (else StageTooLowError,
        naming ``where``)."""
        part = state._part_of(self, where)
        if part.stage < stage and not (
                stage in (Stage.POSITION, Stage.VELOCITY) and part.stage >= Stage.INSTANCE
                and self._is_realized(state, _KINEMATICS[stage])):
            self._check(state)
            raise StageTooLowError(stage, part.stage, where)
        return part.cache[self._data_index].value

    # ------------------------------------------------------ runtime stages
    # The compiled part of POSITION..ACCELERATION is engine/forward.py's realize_stages,
    # which MultibodySystem.realize calls for all the stages it can at once (with the
    # built-in force elements); these hooks run it one stage at a time when this
    # subsystem is realized on its own (a subclass that overrides a hook). The Python
    # around it (custom mobilizers, constraints) is ``engine_python``'s, in both cases.
    def realize_time(self, state):
        self._realize_alone(state, Stage.TIME)

    def realize_position(self, state):
        self._realize_alone(state, Stage.POSITION)

    def realize_velocity(self, state):
        self._realize_alone(state, Stage.VELOCITY)

    def realize_dynamics(self, state):
        self._realize_alone(state, Stage.DYNAMICS)

    def realize_acceleration(self, state):
        self._realize_alone(state, Stage.ACCELERATION)

    def realize_report(self, state):
        self._realize_alone(state, Stage.REPORT)

    def _realize_alone(self, state, g: Stage) -> None:
        from kinetree.engine.data import assemble  # the engine sits above
        from kinetree.engine.forward import INCONSISTENT, realize_stages

        before, after = self.engine_python(state)
        for work in before.get(g, ()):
            work(state)
        if Stage.POSITION <= g <= Stage.ACCELERATION:
            model, data = assemble(self.engine_fields(state))
            data.time[0] = state.get_time()
            failed = realize_stages(int(g), int(g), model, data)
            self._raise_if_singular(self.get_tree_data(state, Stage.MODEL, "realize"), state)
            if failed == INCONSISTENT:
                raise self._inconsistent_error(state)
            self._warn_if_inconsistent(state)
        for work in after.get(g, ()):
            work(state)

    def _kernel_q_u(self, state) -> tuple:
        """``state``'s q and u for a kernel: writable views (the kernels read them), as
        the realization passes, so a kernel is compiled for one array type."""
        part = state._parts[self._index]
        return state._q[part.q_slice], state._u[part.u_slice]

    def engine_fields(self, state) -> dict:
        """The tree's and the constraints' fields of the compiled realization's model and
        data (``engine/data.py``): views of ``state``'s arrays."""
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize")
        data = self._constraint_data(state)
        part = state._parts[self._index]
        qs, us = part.q_slice, part.u_slice
        qerr = state._qerr[part.qerr_slice]
        con_i, con_index, con_f, con_buf = data.table
        if data.projection is None:             # made once per State, not per projection
            data.projection = (project.new_scratch(d.qdotdot_work.size,
                                                   d.mobility_forces.size, data.m),
                               np.zeros(project.N_CONTROL_I, dtype=np.int64))
        return {"project_work": data.projection[0], "project_control": data.projection[1],
                "tree_i": d.tree_i, "tree_f": d.tree_f, "mobilizer_kinds": d.kinds,
                "quaternion_q": d.quaternion_q, "constraint_kinds": data.kinds,
                "con_i": con_i, "time": d.buf[-1:], "q": state._q[qs], "u": state._u[us],
                "qdot": state._qdot[qs], "udot": state._udot[us],
                "qdotdot": state._qdotdot[qs], "qdotdot_work": d.qdotdot_work,
                "buf": d.buf, "status": d.status, "body_forces": d.body_forces,
                "mobility_forces": d.mobility_forces, "quaternion_err": qerr[data.mp:],
                "con_index": con_index, "con_f": con_f, "con_buf": con_buf,
                "qerr": qerr[:data.mp], "uerr": state._uerr[part.uerr_slice],
                "udoterr": state._udoterr[part.udoterr_slice],
                "multipliers": state._multipliers[part.udoterr_slice]}

    def _perr(self, state) -> np.ndarray:
        """The holonomic constraints' position errors: qerr without the quaternions'
        normalization errors (POSITION)."""
        return self.get_q_err(state)[:self._constraint_data(state).mp]

    def get_num_quaternions_in_use(self, state) -> int:
        """The quaternions the mobilizers of ``state`` use (not with Euler angles); each
        adds a normalization error |q| - 1 to qerr, after the holonomic ones (MODEL)."""
        return len(self.get_tree_data(state, Stage.MODEL,
                                      "SimbodyMatterSubsystem.get_num_quaternions_in_use")
                   .quaternion_q)

    def engine_python(self, state) -> tuple[dict, dict]:
        """(before, after): per stage, the Python this subsystem runs before and after the
        compiled call of that stage in ``state``: the custom mobilizers' pre-passes, the
        Python constraints' errors and rows, then the realize hooks that constraint and
        custom-mobilizer implementations override."""
        before, after = {}, {}
        data = self._constraint_data(state)
        if self._custom:
            before[Stage.POSITION] = [self._custom_position]
            before[Stage.VELOCITY] = [self._custom_velocity]
            after[Stage.VELOCITY] = [self._custom_n_mult]
        if data.python:
            after.setdefault(Stage.POSITION, []).append(self._constraint_position)
            after.setdefault(Stage.VELOCITY, []).append(self._constraint_velocity)
            before[Stage.ACCELERATION] = [self._constraint_rows]
        if self._custom:
            after.setdefault(Stage.ACCELERATION, []).append(self._custom_qdotdot)
        custom_motions = [m for m in self._motions.values() if isinstance(m, motion.Custom)]
        for g in (Stage.POSITION, Stage.VELOCITY, Stage.ACCELERATION) if custom_motions else ():
            before.setdefault(g, []).insert(
                0, lambda s, g=g: self._prescribe_custom(s, g, custom_motions))
        for g in (Stage.TIME, Stage.POSITION, Stage.VELOCITY, Stage.DYNAMICS,
                  Stage.ACCELERATION, Stage.REPORT):
            hook = f"realize_{g.name.lower()}"
            hooked = [lay.constraint._impl for lay in data.layouts
                      if getattr(type(lay.constraint._impl), hook)
                      is not getattr(RealizeHooks, hook)]
            if hooked:
                after.setdefault(g, []).append(
                    lambda s, hook=hook, hooked=hooked: [getattr(i, hook)(s) for i in hooked])
            if self._custom and g not in (Stage.POSITION, Stage.VELOCITY):
                after.setdefault(g, []).append(lambda s, hook=hook: self._custom_hook(hook, s))
        return before, after

    def _prescribe_custom(self, state, stage: Stage, motions: list) -> None:
        """The values the Custom Motions of ``motions`` prescribe at ``stage``, written for
        the compiled stage to read."""
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize")
        for m in motions:
            if d.cache.level[m._mobod._index] != 0 and not self._is_locked(state, m._mobod):
                m._prescribe(state, d, stage)

    def _custom_position(self, state) -> None:
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize_position")
        d.custom.position(state, d.cache, self.get_q(state))

    def _custom_velocity(self, state) -> None:
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize_velocity")
        d.custom.velocity(state, d.cache, self.get_q(state), self.get_u(state))

    def _custom_n_mult(self, state) -> None:
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize_velocity")
        d.custom.n_mult(self.get_u(state), self.upd_q_dot(state))

    def _custom_qdotdot(self, state) -> None:
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize_acceleration")
        d.custom.qdotdot(self.upd_u_dot(state), self.upd_q_dot_dot(state))

    def _constraint_position(self, state) -> None:
        """The Python constraints' kinematics and position errors."""
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize_position")
        data = self._constraint_data(state)
        cs.update_position_kinematics(data, d.cache, self.get_q(state), d.custom, data.python)
        cs.position_errors(state, data, self.upd_q_err(state), data.python)

    def _constraint_velocity(self, state) -> None:
        """The Python constraints' kinematics and velocity errors."""
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.realize_velocity")
        data = self._constraint_data(state)
        q, u = self.get_q(state), self.get_u(state)
        cs.update_velocity_kinematics(data, d.cache, q, u, self.upd_q_dot(state), d.custom,
                                      data.python)
        cs.velocity_errors(state, data, d.cache, d.cache.V_GB, u, self.upd_u_err(state),
                           data.python)

    def _constraint_rows(self, state) -> None:
        """The Python constraints' rows of G and acceleration bias, for the compiled
        constraint solve, just before it (their forces may depend on the velocities, as a
        nonlinear SpeedCoupler's do, and their errors on Acceleration-stage variables)."""
        d = self.get_tree_data(state, Stage.MODEL,
                               "SimbodyMatterSubsystem.realize_acceleration")
        data = self._constraint_data(state)
        cs.write_python_rows(state, data, d)
        cs.write_python_bias(state, data, d)

    # ------------------------------------------------- inconsistent constraints
    def set_raise_on_inconsistent_constraints(self, raise_error: bool) -> None:
        """What a realization does where the constraints have no solution (redundant ones
        asking for different motions, or a State far from assembled): by default, as
        Simbody, it keeps the least-squares u̇ and multipliers and warns once
        (KinetreeWarning) with the residual and the constraint most involved; with
        ``raise_error`` it raises instead. A topology change: realize_topology again."""
        self._raise_inconsistent = bool(raise_error)
        self.invalidate_subsystem_topology_cache()

    def get_raise_on_inconsistent_constraints(self) -> bool:
        return self._raise_inconsistent

    def _warn_if_inconsistent(self, state) -> None:
        """After a compiled realization or run of steps on ``state``: the first time this
        subsystem's constraints had no solution, warn, naming the residual and the
        constraint with the largest acceleration error."""
        status = state._parts[self._index].cache[self._data_index].value.status
        if not status[INCONSISTENT_SEEN]:
            return
        status[INCONSISTENT_SEEN] = 0
        if self._warned_inconsistent:
            return
        self._warned_inconsistent = True
        udoterr = np.abs(state._udoterr[state._parts[self._index].udoterr_slice])
        data = self._constraint_data(state)
        worst = data.owners[int(np.argmax(udoterr))].constraint._name() \
            if udoterr.size else "none"
        warnings.warn(KinetreeWarning(
            f"SimbodyMatterSubsystem: the constraints have no solution at t = "
            f"{state.get_time():.6g} s: the least-squares accelerations leave an "
            f"acceleration error of {udoterr.max(initial=0.0):.3g} (largest in {worst}); "
            f"kinetree goes on with them, as Simbody does. Some constraints ask for "
            f"different motions, or the State is far from assembled (system.project). "
            f"matter.set_raise_on_inconsistent_constraints(True) makes this an error; "
            f"this warning is given once."), stacklevel=4)

    def _inconsistent_error(self, state) -> KinetreeError:
        """The error for a constrained solve that left acceleration errors: redundant
        constraints asking for different motions, naming the worst."""
        udoterr = state._udoterr[state._parts[self._index].udoterr_slice]
        data = self._constraint_data(state)
        worst = data.owners[int(np.argmax(np.abs(udoterr)))].constraint
        return KinetreeError(
            f"SimbodyMatterSubsystem: the constraints have no solution: their acceleration "
            f"errors are still {np.abs(udoterr).max():.3g} after the solve (largest in "
            f"{worst._name()}), so some of them ask for different motions of the same "
            f"bodies (two ConstantAcceleration constraints giving one mobility different "
            f"accelerations, say). Disable or remove the conflicting one, or project the "
            f"State onto the constraints (system.project) if it is far from them.")

    def _nonfinite_error(self, state, data) -> NonFiniteError:
        """The error for a realization whose q̇, applied forces or u̇ (in ``data``, the
        realization's EngineData) are not all finite, naming the first such quantity, in
        the order the realization computes them, its body and what likely made it."""
        tree = self.get_tree_data(state, Stage.MODEL, "realize").tree
        q, u = self._kernel_q_u(state)
        size = (f"the largest |q| is {np.abs(q).max(initial=0.0):.3g}, the largest |u| "
                f"{np.abs(u).max(initial=0.0):.3g}")
        forces = ("one of the forces acting on it gave a value that is not finite (a "
                  "division by zero in a custom or expression force, a spring, damper or "
                  "contact overflowing); " + size)
        bodies = ~np.isfinite(data.body_forces).all(axis=1)
        for values, start, count, what, why in (
                (data.qdot, tree.q_start, tree.nq, "q̇ of {}, its coordinate {}",
                 size + ", too large for finite rates; set finite, physical speeds"),
                (bodies, np.arange(len(bodies)), np.ones(len(bodies), dtype=int),
                 "the applied force on {}{}", forces),
                (data.mobility_forces, tree.u_start, tree.nu,
                 "the generalized force on {}, its mobility {}", forces),
                (data.udot, tree.u_start, tree.nu, "u̇ of {}, its mobility {}",
                 size + ", too large for finite accelerations (the velocity-dependent "
                 "forces overflow); set finite, physical speeds")):
            bad = np.flatnonzero(values if values.dtype == bool else ~np.isfinite(values))
            if bad.size:
                i = int(bad[0])
                b = next(b for b in range(len(self._bodies))
                         if start[b] <= i < start[b] + count[b])
                body = f"MobilizedBody {b} ({type(self._bodies[b]).__name__})"
                value = data.body_forces[b].tolist() if values is bodies else values[i]
                where = what.format(body, "" if values is bodies else f"{i - start[b]}")
                return NonFiniteError(
                    f"System.realize: at t = {state.get_time():.17g} s {where} is {value}: "
                    f"{why}.")
        return NonFiniteError("System.realize: a result is not finite.")

    def _zero_quaternion_error(self, state) -> InvalidArgumentError:
        """The error for a realization of ``state`` whose q holds a quaternion of zeros,
        naming its body."""
        d = self.get_tree_data(state, Stage.MODEL, "realize")
        q = self._kernel_q_u(state)[0]
        rows = next((r for r in d.quaternion_q if not np.dot(q[r], q[r]) > 0.0),
                    d.quaternion_q[0])
        tree = d.tree
        b = next(b for b in range(1, len(self._bodies))
                 if tree.q_start[b] <= rows[0] < tree.q_start[b] + tree.nq[b])
        return InvalidArgumentError(
            f"System.realize: the quaternion of MobilizedBody {b} "
            f"({type(self._bodies[b]).__name__}), q[{rows[0]}:{rows[0] + 4}], is "
            f"{q[rows].tolist()}: a quaternion of zero length stands for no orientation. Set "
            f"it to [1, 0, 0, 0] for no rotation, or set the orientation with "
            f"set_q_to_fit_rotation.")

    def _raise_if_singular(self, d: TreeData, state) -> None:
        if d.status[0]:
            raise self._singular_error(d, state)

    _EULER_ANGLES = ("Gimbal", "Bushing", "SphericalCoords", "BendStretch", "Ellipsoid")
    """Mobilizers of three angles in sequence, singular where two of their axes align."""

    def _singular_error(self, d: TreeData, state) -> KinetreeError:
        """The error for the body whose articulated inertia the last inertia sweep found
        singular (status[0] = 1 + its index), naming the cause: a diverged State, an
        Euler-angle mobilizer at its singular angle, or bodies without mass."""
        q, u = self._kernel_q_u(state)
        for name, values in (("q", q), ("u", u)):
            bad = np.flatnonzero(~np.isfinite(values))
            if bad.size:
                return SimulationDivergedError(
                    f"SimbodyMatterSubsystem: at t = {state.get_time():.17g} s {name}"
                    f"[{bad[0]}] is {values[bad[0]]}: the motion diverged before this "
                    f"realization (a step too large for a stiff force, a force growing "
                    f"without bound, or a speed set to a non-finite value). Lower the step "
                    f"size or the accuracy, or check the forces; CPodesIntegrator handles "
                    f"stiff models.")
        b = int(d.status[0]) - 1
        mobod = self._bodies[b]
        kind = type(mobod).__name__
        where = f"the articulated inertia of MobilizedBody {b} ({kind})"
        outboard = [b]
        for child in range(b + 1, len(self._bodies)):
            if int(d.tree.parent[child]) in outboard:
                outboard.append(child)
        us, nu = int(d.tree.u_start[b]), int(d.tree.nu[b])
        H = d.cache.H_cols[us:us + nu].T                # 6 x nu, in G
        with np.errstate(over="ignore", invalid="ignore"):
            D = H.T @ d.cache.P[b] @ H
        if not (np.all(np.isfinite(d.cache.P[outboard])) and np.all(np.isfinite(D))):
            far = max(outboard, key=lambda c: float(np.abs(d.cache.p_GB[c]).max()))
            return KinetreeError(
                f"SimbodyMatterSubsystem: {where} overflows floating point: the origin of "
                f"MobilizedBody {far} lies {np.abs(d.cache.p_GB[far]).max():.3g} m out, and "
                f"its inertia about its joint (mass times a distance squared) is not a "
                f"finite number. Check the model's units (kinetree works in metres and "
                f"kilograms) and the offsets of its frames (X_PF, X_BM).")
        if kind in self._EULER_ANGLES:
            qb = q[int(d.tree.q_start[b]):int(d.tree.q_start[b] + d.tree.nq[b])]
            return KinetreeError(
                f"SimbodyMatterSubsystem: {where} is singular along its mobilities at q = "
                f"{np.round(qb, 6).tolist()}: its angles have reached the configuration "
                f"where two of its rotation axes line up (gimbal lock), so it cannot turn "
                f"about the third. Use a Ball mobilizer (quaternions: no singular "
                f"orientation), or a sequence whose singular angle the motion avoids.")
        if float(np.sum(d.tree.mass[outboard])) == 0.0:
            return KinetreeError(
                f"SimbodyMatterSubsystem: {where} is singular along its mobilities: it and "
                f"the bodies outboard of it have no mass, so nothing resists its motion. "
                f"Give a terminal body mass (and inertia about each rotation axis), or weld "
                f"it to its parent.")
        return KinetreeError(
            f"SimbodyMatterSubsystem: {where} is singular along its mobilities: its "
            f"bodies resist no motion along some mobility (no inertia about a rotation "
            f"axis, or a mobility that moves nothing). Give the body inertia about each "
            f"axis it turns about, or remove the mobility.")

    # --------------------------------------------------- forces (DYNAMICS)
    def upd_body_forces(self, state) -> np.ndarray:
        """(nb, 6) spatial forces about each body origin in G, to add into in DYNAMICS."""
        return self.get_tree_data(state, Stage.VELOCITY, "upd_body_forces").body_forces

    def upd_mobility_forces(self, state) -> np.ndarray:
        """(nu,) generalized forces, to add into in DYNAMICS."""
        return self.get_tree_data(state, Stage.VELOCITY, "upd_mobility_forces").mobility_forces

    # ------------------------------------------------------- error weights
    def calc_u_unit_weights(self, state) -> np.ndarray:
        """1 for a u whose hinge column turns the body (rad/s), 1/length scale for one that
        only translates it (m/s): from H at the current configuration."""
        d = self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.calc_u_unit_weights")
        turns = np.any(d.cache.H_cols[:int(d.tree.nu.sum()), :3] != 0.0, axis=1)
        return np.where(turns, 1.0, 1.0 / self.get_system().get_default_length_scale())

    def calc_q_unit_weights(self, state) -> np.ndarray:
        """As the u weights, q for u; a quaternion's four q weigh 1 each and the q after
        it take the weights of the mobilizer's last u."""
        d = self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.calc_q_unit_weights")
        tree, wu = d.tree, self.calc_u_unit_weights(state)
        w = np.ones(int(tree.nq.sum()))
        for b in range(1, len(tree.parent)):
            q0, nq, u0, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
            if nq == nu:
                w[q0:q0 + nq] = wu[u0:u0 + nu]
            elif nq > 4:
                w[q0 + 4:q0 + nq] = wu[u0 + nu - (nq - 4):u0 + nu]
        return w

    # ------------------------------------------------------------ operators
    def calc_m(self, state) -> np.ndarray:
        """The mass matrix M (nu x nu), by the composite-body method."""
        d = self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.calc_m")
        n = d.mobility_forces.size
        M = np.zeros((n, n))
        calc_mass_matrix(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, M)
        return M

    def calc_m_inv(self, state) -> np.ndarray:
        """M⁻¹, one O(n) articulated-body solve per column."""
        n = self.get_tree_data(state, Stage.POSITION, "calc_m_inv").mobility_forces.size
        return np.column_stack([self.multiply_by_m_inv(state, e) for e in np.eye(n)]) \
            if n else np.zeros((0, 0))

    def multiply_by_m(self, state, a) -> np.ndarray:
        """M a in O(n) (inverse dynamics with no velocity terms or forces)."""
        d = self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.multiply_by_m")
        a = self._vector(a, d.mobility_forces.size, "multiply_by_m")
        out = np.zeros_like(a)
        calc_residual_forces(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, False, a,
                             np.zeros_like(a), d.cache.zero, out)
        return out

    def multiply_by_m_inv(self, state, f) -> np.ndarray:
        """M⁻¹ f in O(n) (an articulated-body solve with no velocity terms)."""
        d = self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.multiply_by_m_inv")
        f = self._vector(f, d.mobility_forces.size, "multiply_by_m_inv")
        if self.get_stage(state) < Stage.DYNAMICS:
            calc_articulated_body_inertias(d.tree_i, d.tree_f, d.kinds, d.buf, d.status)
            self._raise_if_singular(d, state)
        out = np.zeros_like(f)
        calc_tree_accelerations(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, False, f,
                                d.cache.zero, out)
        return out

    def calc_residual_force_ignoring_constraints(self, state, applied_mobility_forces,
                                                 applied_body_forces, known_udot) -> np.ndarray:
        """Inverse dynamics of the tree: f_res = M u̇ + c(q, u) - f_applied - Jᵀ F_applied,
        the extra mobility forces that would produce ``known_udot`` were there no
        constraints; an empty argument counts as zeros (VELOCITY needed)."""
        where = "calc_residual_force_ignoring_constraints"
        d = self.get_tree_data(state, Stage.VELOCITY, f"SimbodyMatterSubsystem.{where}")
        n = d.mobility_forces.size
        udot = self._optional_vector(known_udot, n, where)
        f = self._optional_vector(applied_mobility_forces, n, where)
        F = self._optional_body_forces(applied_body_forces, where)
        out = np.zeros(n)
        calc_residual_forces(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, True, udot, f, F, out)
        return out

    def multiply_by_n(self, state, transpose: bool, in_) -> np.ndarray:
        """Simbody's multiplyByN(s, transpose, in): N(q) in_ for u-like ``in_`` (the q̇
        that speeds u produce); with ``transpose``, Nᵀ in_ for q-like ``in_`` (the
        generalized forces, one per u, equivalent to q-space forces) (POSITION)."""
        d = self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.multiply_by_n")
        nq, nu = d.qdotdot_work.size, d.mobility_forces.size
        if not isinstance(transpose, (bool, np.bool_)):
            raise InvalidArgumentError(
                "SimbodyMatterSubsystem.multiply_by_n(state, transpose, in_): the second "
                "argument is the transpose flag (Simbody's order), got "
                f"{type(transpose).__name__}; call multiply_by_n(state, False, u).")
        if transpose:
            out = np.zeros(nu)
            f = self._vector(in_, nq, "multiply_by_n")
            multiply_by_n_transpose(d.tree_i, d.tree_f, d.kinds, self._kernel_q_u(state)[0], f,
                                    np.zeros((2, 7)), out)
            if d.custom is not None:
                d.custom.n_transpose(f, out)
            return out
        out = np.zeros(nq)
        u = self._vector(in_, nu, "multiply_by_n")
        multiply_by_n(d.tree_i, d.tree_f, d.kinds, self._kernel_q_u(state)[0], u, out)
        if d.custom is not None:
            d.custom.n_mult(u, out)
        return out

    def multiply_by_n_inv(self, state, qdot, transpose: bool = False) -> np.ndarray:
        """N(q)⁻¹ q̇: the speeds u that produce q̇; with ``transpose``, N⁻ᵀ x for x in
        u-space (POSITION). Simbody's order, ``multiply_by_n_inv(state, transpose, in_)``,
        is accepted too."""
        if isinstance(qdot, (bool, np.bool_)):
            qdot, transpose = transpose, qdot
        d = self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.multiply_by_n_inv")
        nq, nu = d.qdotdot_work.size, d.mobility_forces.size
        if transpose:
            out = np.zeros(nq)
            x = self._vector(qdot, nu, "multiply_by_n_inv")
            multiply_by_n_inv_transpose(d.tree_i, d.tree_f, d.kinds, self._kernel_q_u(state)[0], x,
                                        np.zeros((2, 7)), out)
            if d.custom is not None:
                d.custom.n_inv_transpose(x, out)
            return out
        out = np.zeros(nu)
        qdot = self._vector(qdot, nq, "multiply_by_n_inv")
        multiply_by_n_inv(d.tree_i, d.tree_f, d.kinds, self._kernel_q_u(state)[0], qdot, out)
        if d.custom is not None:
            d.custom.n_inv_mult(qdot, out)
        return out

    def calc_system_jacobian(self, state) -> np.ndarray:
        """J (6 nb x nu) with [V_GB for every body, Ground first] = J u: each body's
        spatial velocity [w; v of its origin] in Ground."""
        d = self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.calc_system_jacobian")
        J = np.zeros((6 * len(self._bodies), d.mobility_forces.size))
        calc_system_jacobian(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, J)
        return J

    def multiply_by_system_jacobian(self, state, u) -> np.ndarray:
        """J u as (nb, 6): every body's spatial velocity for speeds u, in O(n)."""
        d = self.get_tree_data(state, Stage.POSITION, "multiply_by_system_jacobian")
        V = np.zeros((len(self._bodies), 6))
        multiply_by_system_jacobian(d.tree_i, d.tree_f, d.kinds, d.buf, d.status,
                                    self._vector(u, d.mobility_forces.size,
                                                 "multiply_by_system_jacobian"), V)
        return V

    def multiply_by_system_jacobian_transpose(self, state, body_forces) -> np.ndarray:
        """Jᵀ F: the generalized forces equivalent to spatial forces F (nb x 6, about each
        body origin, in Ground), in O(n)."""
        d = self.get_tree_data(state, Stage.POSITION, "multiply_by_system_jacobian_transpose")
        F = np.asarray(body_forces, dtype=float)
        if F.shape != d.body_forces.shape:
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.multiply_by_system_jacobian_transpose: forces must "
                f"have shape {d.body_forces.shape}, got {F.shape}.")
        f = np.zeros(d.mobility_forces.size)
        multiply_by_system_jacobian_transpose(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, F, f)
        return f

    def calc_system_central_momentum(self, state) -> np.ndarray:
        """[angular momentum about the system mass center; linear momentum] in Ground."""
        d = self.get_tree_data(state, Stage.VELOCITY, "calc_system_central_momentum")
        c, t = d.cache, d.tree
        m = t.mass[1:]
        w, v, com = c.V_GB[1:, :3], c.V_GB[1:, 3:], c.com_G[1:]
        v_com = v + np.cross(w, com)
        p_com = c.p_GB[1:] + com
        linear = (m[:, None] * v_com).sum(axis=0)
        I_central = c.I_G[1:] - m[:, None, None] * (
            np.einsum("bi,bi->b", com, com)[:, None, None] * np.eye(3)
            - np.einsum("bi,bj->bij", com, com))
        spin = np.einsum("bij,bj->bi", I_central, w)
        center = self.calc_system_mass_center_location_in_ground(state)
        angular = spin.sum(axis=0) + np.cross(p_com - center, m[:, None] * v_com).sum(axis=0)
        return np.concatenate([angular, linear])

    def multiply_by_n_dot(self, state, u) -> np.ndarray:
        """Ṅ u: the time derivative of N(q), at the state's q and u, applied to u (so that
        q̈ = N u̇ + Ṅ u). N is smooth in q and Ṅ = (∂N/∂q) q̇; this evaluates it by a
        central difference along q̇ (relative accuracy ~1e-9), an O(n) operator for
        analysis, not used by the dynamics (which have Ṅ u in closed form)."""
        d = self.get_tree_data(state, Stage.VELOCITY, "SimbodyMatterSubsystem.multiply_by_n_dot")
        v = self._vector(u, d.mobility_forces.size, "multiply_by_n_dot")
        q = np.array(self.get_q(state))
        qdot = np.array(self.get_q_dot(state))
        h = 1e-6 / max(1.0, float(np.abs(qdot).max()))
        plus, minus = np.zeros_like(q), np.zeros_like(q)
        multiply_by_n(d.tree_i, d.tree_f, d.kinds, q + h * qdot, v, plus)
        multiply_by_n(d.tree_i, d.tree_f, d.kinds, q - h * qdot, v, minus)
        out = (plus - minus) / (2 * h)
        if d.custom is not None:
            d.custom.n_dot(state, v, out)
        return out

    def calc_kinetic_energy(self, state) -> float:
        """½ Σ V_GBᵀ M_B V_GB over the bodies (J)."""
        d = self.get_tree_data(state, Stage.VELOCITY, "SimbodyMatterSubsystem.calc_kinetic_energy")
        return float(kinetic_energy(d.tree_i, d.tree_f, d.kinds, d.buf, d.status))

    def calc_system_mass_center_location_in_ground(self, state) -> np.ndarray:
        """p_G,com (m) of all bodies but Ground."""
        d = self.get_tree_data(state, Stage.POSITION, "calc_system_mass_center_location_in_ground")
        m = d.tree.mass[1:]
        total = m.sum()
        if total == 0:
            raise InvalidArgumentError("calc_system_mass_center_location_in_ground: the "
                                       "system has no mass.")
        p = d.cache.p_GB[1:] + d.cache.com_G[1:]
        return (m[:, None] * p).sum(axis=0) / total

    # ----------------------------------------------------------- constraints
    def _adopt_constraint(self, constraint) -> int:
        self._constraints.append(constraint)
        self.invalidate_subsystem_topology_cache()
        return len(self._constraints) - 1

    def get_num_constraints(self) -> int:
        return len(self._constraints)

    def get_constraint(self, index: int):
        try:
            return self._constraints[index]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.get_constraint: no constraint {index!r}; there are "
                f"{len(self._constraints)}.") from None

    # ---------------------------------------------------- unilateral contacts
    def adopt_unilateral_contact(self, contact) -> int:
        """Take a UnilateralContact (HardStopUpper, HardStopLower, PointPlaneContact,
        SpherePlaneContact, SphereSphereContact, EdgeEdgeContact, Rope), which a
        SemiExplicitEulerTimeStepper enforces; returns its index. Other integrators
        ignore it."""
        from kinetree.multibody.unilateral.unilateral_contact import UnilateralContact

        if not isinstance(contact, UnilateralContact):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.adopt_unilateral_contact: expected a "
                f"UnilateralContact (HardStopUpper, HardStopLower, PointPlaneContact, "
                f"Rope), got {type(contact).__name__}.")
        if contact._matter is not None:
            raise InvalidArgumentError(
                "SimbodyMatterSubsystem.adopt_unilateral_contact: the contact is adopted "
                "already; make another.")
        contact._matter = self
        self._unilateral_contacts.append(contact)
        return len(self._unilateral_contacts) - 1

    def get_num_unilateral_contacts(self) -> int:
        return len(self._unilateral_contacts)

    def get_unilateral_contact(self, index: int):
        try:
            return self._unilateral_contacts[index]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.get_unilateral_contact: no contact {index!r}; there "
                f"are {len(self._unilateral_contacts)}.") from None

    def _common_ancestor(self, constraint) -> int:
        """The nearest common ancestor of a constraint's constrained bodies (Ground if it
        has none)."""
        def path(b: int) -> list[int]:
            chain = [b]
            while b != 0:
                b = self._bodies[b]._parent._index
                chain.append(b)
            return chain
        bodies = [m._index for m in constraint._impl._bodies]
        if not bodies:
            return 0
        common = set(path(bodies[0]))
        for b in bodies[1:]:
            common &= set(path(b))
        return max(common)

    def _ancestor_of(self, constraint) -> int:
        if not self.get_system().system_topology_has_been_realized() or \
                len(self._ancestors) != len(self._constraints):
            return self._common_ancestor(constraint)
        return self._ancestors[constraint._index]

    def _constraint_hooks(self, hook: str, state) -> None:
        """Run a TOPOLOGY, MODEL or INSTANCE hook of every constraint's implementation
        (the later stages' run from ``engine_python``, for the enabled ones that have
        them)."""
        for c in self._constraints:
            getattr(c._impl, hook)(state)

    def _constraint_data(self, state) -> cs.ConstraintData:
        """The layout of the enabled constraints (valid from INSTANCE); read straight
        from the State's cache slot, as it is on every constraint evaluation's path."""
        part = state._part_of(self, "SimbodyMatterSubsystem")
        if part.stage < Stage.INSTANCE and state._realizing != Stage.INSTANCE:
            self._check(state)
            raise StageTooLowError(Stage.INSTANCE, part.stage,
                                   "SimbodyMatterSubsystem: the constraint layout")
        return part.cache[self._constraint_data_index].value

    def _set_constraint_disabled(self, state, constraint, disabled: bool) -> None:
        flags = list(self.get_discrete_variable(state, self._disabled_index))
        flags[constraint._index] = bool(disabled)
        self.set_discrete_variable(state, self._disabled_index, tuple(flags))

    def _is_constraint_disabled(self, state, constraint) -> bool:
        return bool(self.get_discrete_variable(state, self._disabled_index)[constraint._index])

    def _require_own(self, state, stage: Stage, where: str) -> None:
        """Raise StageTooLowError unless this subsystem's part of ``state`` is realized to
        ``stage``: its measures, realized after it, may read what it computed."""
        part = state._part_of(self, where)
        if part.stage < stage:
            self._check(state)
            raise StageTooLowError(stage, part.stage, where)

    def _layout_of(self, state, constraint, where: str):
        data = self._constraint_data(state)
        for layout in data.layouts:
            if layout.constraint is constraint:
                return data, layout
        return data, None

    def _constraint_slice(self, state, constraint, kind: str, stage: Stage,
                          method: str) -> np.ndarray:
        """A constraint's entries of qerr, uerr, udoterr or the multipliers (empty while it
        is disabled)."""
        where = f"{constraint._name()}.{method}"
        self._require_own(state, stage, where)
        data, layout = self._layout_of(state, constraint, where)
        if layout is None:
            return np.zeros(0)
        if kind == "qerr":
            return self.get_q_err(state)[layout.p_rows].copy()
        if kind == "uerr":
            uerr = self.get_u_err(state)
            return np.concatenate([uerr[layout.p_rows],
                                   uerr[data.mp + layout.v_rows.start:
                                        data.mp + layout.v_rows.stop]])
        values = self.get_u_dot_err(state) if kind == "udoterr" else \
            self.get_multipliers(state)
        return np.concatenate([values[s] for s in data.multiplier_slices(layout)])

    def _constraint_forces(self, state, constraint, method: str):
        """The body forces (k x 6, in G) and mobility forces (per constrained u) of a
        constraint's multipliers in ``state``, Gᵀλ: Simbody's constraint forces, on the
        left of M u̇ + Gᵀλ = f, so the opposite of what the constraint applies."""
        where = f"{constraint._name()}.{method}"
        self._require_own(state, Stage.ACCELERATION, where)
        data, layout = self._layout_of(state, constraint, where)
        if layout is None:
            return self._no_constraint_forces(state, constraint)
        d = self.get_tree_data(state, Stage.ACCELERATION, where)
        self._refresh_kinematics(state, data, [layout])
        return cs._forces_of(state, data, layout, d.cache, self.get_multipliers(state))

    @staticmethod
    def _no_constraint_forces(state, constraint) -> tuple:
        """The zero body and mobility forces of a disabled constraint."""
        return (np.zeros((constraint.get_num_constrained_bodies(), 6)),
                np.zeros(sum(m.get_num_u(state) for m in constraint._impl._mobilizers)))

    def _constraint_space(self, state, constraint, where: str) -> tuple[list, int]:
        """(the slices of a constraint's holonomic, nonholonomic and acceleration-only
        rows in the constraint-space layout, none while it is disabled; the number of
        rows), from INSTANCE."""
        self._require_own(state, Stage.INSTANCE, where)
        data, layout = self._layout_of(state, constraint, where)
        return ([] if layout is None else list(data.multiplier_slices(layout))), data.m

    def _constraint_forces_from(self, state, constraint, multipliers):
        """A constraint's Gᵀλ for its own ``multipliers``: body forces in its ancestor
        frame and mobility forces (``Constraint.calc_constraint_forces_from_multipliers``)."""
        where = f"{constraint._name()}.calc_constraint_forces_from_multipliers"
        self._require_own(state, Stage.VELOCITY, where)
        data, layout = self._layout_of(state, constraint, where)
        m = 0 if layout is None else layout.mp + layout.mv + layout.ma
        lam = np.asarray(multipliers, dtype=float).reshape(-1)
        if lam.size != m or not np.isfinite(lam).all():
            raise InvalidArgumentError(
                f"{where}: expected {m} finite multipliers (holonomic, nonholonomic, then "
                f"acceleration-only" + (", none while it is disabled" if layout is None
                                        else "") + f"), got {lam.size}: {lam}.")
        if layout is None:
            return self._no_constraint_forces(state, constraint)
        self._refresh_kinematics(state, data, [layout])
        return cs.forces_in_ancestor(state, data, layout, lam)

    def _constraint_kinematics(self, state, constraint) -> cs.ConstraintKinematics:
        """A constraint's kinematics in its ancestor frame: a Python constraint's as its
        pass computed them, a built-in one's (which the compiled realization keeps in its
        table) computed now from the State's cache."""
        data = self._constraint_data(state)
        try:
            kin = data.kinematics[constraint._index]
        except KeyError:
            raise InvalidArgumentError(
                f"{constraint._name()}: it is disabled in this State, so its kinematics are "
                f"not computed; enable it first.") from None
        if not kin.layout.python:
            self._refresh_kinematics(state, data, [kin.layout])
        return kin

    def _refresh_kinematics(self, state, data, layouts) -> None:
        """The kinematics of ``layouts`` from the cache, through the stages realized."""
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem")
        stage = max(state._parts[self._index].stage, state._realizing or Stage.EMPTY)
        if stage >= Stage.POSITION and layouts:
            q = self.get_q(state)
            cs.update_position_kinematics(data, d.cache, q, d.custom, layouts)
            if stage >= Stage.VELOCITY:
                cs.update_velocity_kinematics(data, d.cache, q, self.get_u(state),
                                              state._qdot[state._parts[self._index].q_slice],
                                              d.custom, layouts)

    def _constraint_parameters_changed(self, state, constraint) -> None:
        """A built-in constraint's setter changed its parameters in ``state``: copy them
        into the table, if the State has one."""
        part = state._parts[self._index] if state._parts else None
        if part is not None and part.stage >= Stage.INSTANCE:
            cs.parameters_changed(state, self._constraint_data(state), constraint)

    def _constraint_operands(self, state, stage: Stage, where: str):
        """The TreeData and constraint data of ``state`` for an operator, the built-in
        constraints' kinematics refreshed."""
        d = self.get_tree_data(state, stage, f"SimbodyMatterSubsystem.{where}")
        data = self._constraint_data(state)
        self._refresh_kinematics(state, data, [lay for lay in data.layouts if not lay.python])
        return d, data

    def calc_g(self, state) -> np.ndarray:
        """G (m x nu), the acceleration-level constraint matrix [P; V; A] of the enabled
        constraints: udoterr = G u̇ - b (VELOCITY)."""
        d, data = self._constraint_operands(state, Stage.VELOCITY, "calc_g")
        bias = cs.acceleration_error_bias(state, data, d)
        cols = [cs.multiply_by_g(state, data, d, e, bias) for e in np.eye(data.nu)]
        return np.column_stack(cols) if cols else np.zeros((data.m, 0))

    def calc_g_transpose(self, state) -> np.ndarray:
        """Gᵀ (nu x m) from the constraints' force methods (POSITION): in one compiled call
        when every enabled constraint is built in, else through each one's methods."""
        d, data = self._constraint_operands(state, Stage.POSITION, "calc_g_transpose")
        if data.python:
            return cs.calc_g_transpose(state, data, d)
        q, u = self._kernel_q_u(state)
        calc_constraint_matrix(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, data.kinds,
                               *data.table, q, u)
        return work_views(*data.table, q, u).G.copy().T

    def multiply_by_g(self, state, udot, bias=None) -> np.ndarray:
        """G u̇ (m), without the bias b, in O(n + m) (VELOCITY); ``bias`` from
        calc_bias_for_multiply_by_g saves recomputing it in repeated calls."""
        d, data = self._constraint_operands(state, Stage.VELOCITY, "multiply_by_g")
        return cs.multiply_by_g(state, data, d, self._vector(udot, data.nu, "multiply_by_g"),
                                None if bias is None else self._vector(bias, data.m,
                                                                       "multiply_by_g"))

    def calc_bias_for_multiply_by_g(self, state) -> np.ndarray:
        """The acceleration errors at u̇ = 0 (that is -b), so udoterr = G u̇ + this."""
        d, data = self._constraint_operands(state, Stage.VELOCITY,
                                            "calc_bias_for_multiply_by_g")
        return cs.acceleration_error_bias(state, data, d)

    def multiply_by_g_transpose(self, state, lam) -> np.ndarray:
        """Gᵀλ (nu): the generalized forces of multipliers λ, in O(n + m) (POSITION)."""
        d, data = self._constraint_operands(state, Stage.POSITION, "multiply_by_g_transpose")
        return cs.multiply_by_g_transpose(state, data, d,
                                          self._vector(lam, data.m, "multiply_by_g_transpose"))

    def calc_constraint_forces_from_multipliers(self, state, lam):
        """(body forces nb x 6 about each body origin in G, mobility forces nu) of
        multipliers λ: together Gᵀλ; the constraints apply their negatives."""
        d, data = self._constraint_operands(state, Stage.POSITION,
                                            "calc_constraint_forces_from_multipliers")
        return cs.constraint_forces(state, data, d.cache, self._vector(
            lam, data.m, "calc_constraint_forces_from_multipliers"))

    def calc_pq(self, state) -> np.ndarray:
        """Pq = ∂perr/∂q (mp x nq), the holonomic constraint matrix in q-space, P N⁻¹
        (VELOCITY)."""
        d, data = self._constraint_operands(state, Stage.VELOCITY, "calc_pq")
        nq = d.qdotdot_work.size
        cols = []
        for e in np.eye(nq):
            x = self.multiply_by_n_inv(state, e)
            cols.append(cs.multiply_by_velocity_g(state, data, d, x)[:data.mp])
        return np.column_stack(cols) if cols else np.zeros((data.mp, 0))

    def project_q(self, state, tolerance: float, *, u_weights=None, qerr_weights=None,
                  force: bool = False, local: bool = False,
                  infinity_norm: bool = False) -> dict:
        """Move q onto the position constraints as Simbody's projectQ: where the RMS of the
        weighted errors (each times its ``qerr_weights`` entry, 1 over its unit error;
        one per entry of qerr, those of the quaternions unused)
        exceeds ``tolerance``, Newton steps each changing q least in the q-space norm
        weighted by ``u_weights`` (1 over a unit change of each u) until that RMS is a
        tenth of the tolerance; the quaternions normalized (``engine/project.py``).
        ``force`` projects where the errors exceed a tenth of the tolerance, ``local``
        stops where the steps make them grow, ``infinity_norm`` measures the largest
        error. Raises, naming the worst constraint, where the errors stay above the
        tolerance (q put back if no better)."""
        if self._nothing_to_project(state, "project_q", quaternions=True):
            return {"q_iterations": 0, "q_change": 0.0}
        if self._constraint_data(state).mp == 0:
            return self._project_quaternions(state, tolerance, force)
        q0 = np.array(self.get_q(state))
        control_i, _ = self._project(state, tolerance, project.DO_Q, "project_q", u_weights,
                                     qerr_weights, force, local, infinity_norm)
        return {"q_iterations": int(control_i[project.ITERATIONS]),
                "q_change": float(np.max(np.abs(self.get_q(state) - q0))) if q0.size else 0.0}

    def project_u(self, state, tolerance: float, *, u_weights=None, uerr_weights=None,
                  force: bool = False, local: bool = False,
                  infinity_norm: bool = False) -> dict:
        """Move u onto the velocity constraints as Simbody's projectU: where the weighted
        errors exceed ``tolerance`` (as ``project_q`` measures them, ``uerr_weights`` 1
        over each unit error), the steps changing u least relative to max(|u|, 1/weight)
        (``u_weights``) until they are a tenth of it. Raises where they stay above it."""
        self.get_tree_data(state, Stage.POSITION, "SimbodyMatterSubsystem.project_u")
        if self._nothing_to_project(state, "project_u", quaternions=False):
            return {"u_iterations": 0, "u_change": 0.0}
        control_i, control_f = self._project(state, tolerance, project.DO_U, "project_u",
                                             u_weights, uerr_weights, force, local,
                                             infinity_norm)
        return {"u_iterations": int(control_i[project.U_ITERATIONS]),
                "u_change": float(control_f[project.U_CHANGE])}

    def _project_quaternions(self, state, tolerance: float, force: bool) -> dict:
        """``project_q`` of a State whose only position errors are its quaternions' norms,
        as the compiled projection does it, without its set-up: every quaternion scaled
        to unit length where one's norm is off 1 by more than ``tolerance`` (or, with
        ``force``, always)."""
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem.project_q")
        q = self.get_q(state)
        blocks = q[d.quaternion_q]                      # (k, 4), one call for all bodies
        if not force and np.max(np.abs(np.sqrt(np.einsum("ij,ij->i", blocks, blocks))
                                       - 1.0), initial=0.0) <= tolerance:
            return {"q_iterations": 0, "q_change": 0.0}
        q0 = np.array(q)
        self._normalize_quaternions(state, d)
        return {"q_iterations": 0,
                "q_change": float(np.max(np.abs(self.get_q(state) - q0), initial=0.0))}

    def _nothing_to_project(self, state, where: str, quaternions: bool) -> bool:
        """Whether ``state`` has no constraint equations enabled (and, for q, no
        quaternions): a projection would leave it as it is."""
        d = self.get_tree_data(state, Stage.MODEL, f"SimbodyMatterSubsystem.{where}")
        data = self._constraint_data(state)
        return data.mp + data.mv == 0 and not (quaternions and d.quaternion_q.size)

    def _project(self, state, tolerance: float, flags: int, where: str, u_weights,
                 err_weights, force: bool, local: bool, infinity_norm: bool) -> tuple:
        """The projection ``flags`` ask for (DO_Q, DO_U) of ``state``'s q and u, to
        ``tolerance``, with the weights of u and of the errors (None: ones):
        ``project_steps`` run to the end, its requests answered here (the State realized
        by its System, the Python constraints' rows, the custom mobilizers' N and N⁺).
        Returns its control arrays (control_i, control_f)."""
        d = self.get_tree_data(state, Stage.MODEL, f"SimbodyMatterSubsystem.{where}")
        data = self._constraint_data(state)
        system = self.get_system()
        model, engine_data, steps = self._engine_projection(state)
        nq, nu = engine_data.q.size, engine_data.u.size
        n_errors = data.mp + d.quaternion_q.shape[0] if flags & project.DO_Q \
            else data.mp + data.mv
        flags |= ((project.FORCE if force else 0) | (project.LOCAL if local else 0)
                  | (project.INFINITY_NORM if infinity_norm else 0))
        if data.python:
            flags |= project.PYTHON_ROWS
        if d.custom is not None:
            flags |= project.PYTHON_N
        scratch = project.new_scratch(nq, nu, data.mp + data.mv,
                                      d.custom.n_inv_size() if d.custom is not None else 0)
        if u_weights is not None:
            scratch[project.U_SCALE, :nu] = 1.0 / projection_weights(
                u_weights, nu, f"SimbodyMatterSubsystem.{where}", "u_weights")
        if err_weights is not None:
            w = projection_weights(err_weights, n_errors, f"SimbodyMatterSubsystem.{where}",
                                   "the error weights")
            if flags & project.DO_Q:
                scratch[project.P_WEIGHTS, :data.mp] = w[:data.mp]
            else:
                scratch[project.PV_WEIGHTS, :n_errors] = w
        control_i = np.zeros(project.N_CONTROL_I, dtype=np.int64)
        control_f = np.zeros(project.N_CONTROL_F)
        control_i[project.FLAGS] = flags
        control_f[project.TOLERANCE] = tolerance
        while True:
            status = steps(model, engine_data, 0, scratch, control_i, control_f)
            if control_i[project.Q_CHANGED]:        # written in place: back up the State
                state.upd_q()
                control_i[project.Q_CHANGED] = 0
            if control_i[project.U_CHANGED]:
                state.upd_u()
                control_i[project.U_CHANGED] = 0
            if status == project.NEED_POSITION:
                system.realize(state, Stage.POSITION)
            elif status == project.NEED_VELOCITY:
                system.realize(state, Stage.VELOCITY)
            elif status == project.NEED_ROWS:
                self._refresh_kinematics(state, data, data.python)
                cs.write_python_rows(state, data, d, below=int(control_i[project.ROWS]))
            elif status == project.NEED_N_INV:
                d.custom.write_n_inv(scratch[project.N_INV:].reshape(-1))
            elif status == project.NEED_N:
                d.custom.n_mult(scratch[project.DU, :nu], scratch[project.DQ, :nq])
            else:
                break
        if status == project.PROJECTION_FAILED:
            if flags & project.DO_Q:
                worst = control_f[project.WORST]
                constraint = self._worst_constraint(data, int(control_i[project.WORST_ROW]))
                raise KinetreeError(
                    f"System.project: position errors still {worst:.3g} after "
                    f"{control_i[project.ITERATIONS]} Newton steps (largest in "
                    f"{constraint._name()}); the constraints may be inconsistent or the "
                    f"configuration far from them. Assemble first or loosen the "
                    f"tolerance ({tolerance:g}).")
            raise KinetreeError(
                f"System.project: the velocity errors are still {control_f[project.NORM]:.3g}"
                f" (weighted) after {control_i[project.U_ITERATIONS]} steps; the velocity "
                f"constraints may be inconsistent. Loosen the tolerance ({tolerance:g}) "
                f"or check the constraints.")
        return control_i, control_f

    def _engine_projection(self, state) -> tuple:
        """(EngineModel, EngineData, their compiled projection) of ``state`` (realized to
        INSTANCE): its realization plan's, or, if the compiled realization does not run
        this subsystem, those of this subsystem's fields alone (``engine/data.py``)."""
        plan = self.get_system()._plan_of(state)
        if plan.model is not None:
            return plan.model, plan.data, plan.project_steps
        model, data = assemble(self.engine_fields(state))
        return model, data, project.steps_entry(model, data)

    def _normalize_quaternions(self, state, d) -> None:
        """Scale every quaternion block of q to unit length (the orientation it stands for
        is unchanged)."""
        if d.quaternion_q.size:
            normalize_quaternions(self.upd_q(state), d.quaternion_q)

    @staticmethod
    def _worst_constraint(data, row: int):
        """The constraint whose position errors include row ``row`` of perr."""
        return next(lay.constraint for lay in data.layouts
                    if lay.p_rows.start <= row < lay.p_rows.stop)

    def multiply_by_pq(self, state, x) -> np.ndarray:
        """Pq x (mp) for x in q-space: the rate of the position errors for q̇ = x, without
        their explicit time dependence (VELOCITY)."""
        d, data = self._constraint_operands(state, Stage.VELOCITY, "multiply_by_pq")
        u = self.multiply_by_n_inv(state, self._vector(x, d.qdotdot_work.size,
                                                       "multiply_by_pq"))
        return cs.multiply_by_velocity_g(state, data, d, u)[:data.mp]

    def multiply_by_pq_transpose(self, state, lam) -> np.ndarray:
        """Pqᵀ λ (nq) for holonomic multipliers λ (mp): N⁻ᵀ Pᵀ λ, in O(n) (POSITION)."""
        d, data = self._constraint_operands(state, Stage.POSITION, "multiply_by_pq_transpose")
        full = np.zeros(data.m)
        full[:data.mp] = self._vector(lam, data.mp, "multiply_by_pq_transpose")
        return self.multiply_by_n_inv(state, cs.multiply_by_g_transpose(state, data, d, full),
                                      transpose=True)

    def calc_mobilizer_reaction_forces(self, state) -> np.ndarray:
        """(nb x 6) the spatial force [moment; force] each body's mobilizer applies to that
        body, at the origin of its M frame, in Ground (Ground's row zero). Applied and
        constraint mobility forces are included, as in Simbody (ACCELERATION)."""
        d = self.get_tree_data(state, Stage.ACCELERATION,
                            "SimbodyMatterSubsystem.calc_mobilizer_reaction_forces")
        data = self._constraint_data(state)
        self._refresh_kinematics(state, data, data.layouts)
        F_ext = d.body_forces.copy()
        if data.m:
            F_c, _ = cs.constraint_forces(state, data, d.cache, self.get_multipliers(state))
            F_ext -= F_c
        out = np.zeros(d.mobility_forces.size)
        calc_residual_forces(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, True,
                             np.asarray(self.get_u_dot(state)), d.mobility_forces, F_ext, out)
        F = d.cache.F_work.copy()
        F[0] = 0.0
        p_BM_G = np.einsum("bij,bj->bi", d.cache.R_GB, [b._X_BM.p for b in self._bodies])
        F[:, :3] -= np.cross(p_BM_G, F[:, 3:])
        return F

    # ------------------------------------------------ lazy realization
    def _is_realized(self, state, what: str) -> bool:
        """Whether ``what`` (a key of _LAZY) is current in ``state``: its stage is
        realized, or it was realized (on request, or by a stage since backed up by a change
        of time alone) at the current q (and u)."""
        stage, depends = _LAZY[what]
        part = state._parts[self._index]
        if stage is not None and part.stage >= stage:
            return True
        key = state._kinematics_key(depends)
        d = part.cache[self._data_index].value if part.stage >= Stage.MODEL else None
        if d is not None and d.lazy.get(what) == key:
            return True
        done = state._completed.get(int(stage)) if stage is not None else None
        return done is not None and done[:depends + 1] == key

    def _require(self, state, what: str, where: str) -> TreeData:
        stage = _LAZY[what][0] or Stage.POSITION
        if not self._is_realized(state, what):
            raise StageTooLowError(stage, state._parts[self._index].stage,
                                   f"SimbodyMatterSubsystem.{where} (the {what})")
        return self.get_tree_data(state, Stage.MODEL, where)

    def _mark_realized(self, state, what: str) -> None:
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem")
        d.lazy[what] = state._kinematics_key(_LAZY[what][1])

    def _compute_stage_alone(self, state, g: Stage, where: str) -> None:
        """The compiled work of stage ``g`` (and this subsystem's Python around it) without
        marking the stage realized."""
        part = state._parts[self._index]
        if part.stage < Stage.INSTANCE:
            raise StageTooLowError(Stage.INSTANCE, part.stage, f"SimbodyMatterSubsystem.{where}")
        self._realize_alone(state, g)

    def realize_position_kinematics(self, state) -> None:
        """X_GB, H and the other position kinematics from q, without realizing POSITION
        (the State stays where it is; INSTANCE needed). Valid until q or an Instance-stage
        variable changes."""
        if not self._is_realized(state, "position kinematics"):
            self._compute_stage_alone(state, Stage.POSITION, "realize_position_kinematics")
            self._mark_realized(state, "position kinematics")

    def realize_velocity_kinematics(self, state) -> None:
        """V_GB, q̇ and the velocity bias terms from u (position kinematics needed)."""
        self._require(state, "position kinematics", "realize_velocity_kinematics")
        if not self._is_realized(state, "velocity kinematics"):
            self._compute_stage_alone(state, Stage.VELOCITY, "realize_velocity_kinematics")
            self._mark_realized(state, "velocity kinematics")

    def realize_composite_body_inertias(self, state) -> None:
        """The composite body inertias (position kinematics needed); read them with
        ``calc_composite_body_inertias`` / ``get_composite_body_inertia``."""
        self._require(state, "position kinematics", "realize_composite_body_inertias")
        self._mark_realized(state, "composite body inertias")

    def realize_articulated_body_inertias(self, state) -> None:
        """The articulated body inertias P, U and D⁻¹ of every body (position kinematics
        needed)."""
        d = self._require(state, "position kinematics", "realize_articulated_body_inertias")
        if not self._is_realized(state, "articulated body inertias"):
            calc_articulated_body_inertias(d.tree_i, d.tree_f, d.kinds, d.buf, d.status)
            self._raise_if_singular(d, state)
            self._mark_realized(state, "articulated body inertias")

    def realize_articulated_body_velocity(self, state) -> None:
        """The velocity-dependent articulated-body terms (the Coriolis and gyroscopic
        biases): articulated inertias and velocity kinematics needed."""
        self._require(state, "articulated body inertias", "realize_articulated_body_velocity")
        self._require(state, "velocity kinematics", "realize_articulated_body_velocity")
        self._mark_realized(state, "articulated body velocity")

    def is_position_kinematics_realized(self, state) -> bool:
        return self._is_realized(state, "position kinematics")

    def is_velocity_kinematics_realized(self, state) -> bool:
        return self._is_realized(state, "velocity kinematics")

    def is_composite_body_inertias_realized(self, state) -> bool:
        return self._is_realized(state, "composite body inertias")

    def is_articulated_body_inertias_realized(self, state) -> bool:
        return self._is_realized(state, "articulated body inertias")

    def is_articulated_body_velocity_realized(self, state) -> bool:
        return self._is_realized(state, "articulated body velocity")

    def invalidate_position_kinematics(self, state) -> None:
        """Make the position kinematics, and all that needs them, out of date: the State
        backs up to TIME, as if q had changed."""
        state.upd_q()

    def invalidate_velocity_kinematics(self, state) -> None:
        """As if u had changed: the State backs up to POSITION."""
        state.upd_u()

    def invalidate_composite_body_inertias(self, state) -> None:
        self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem").lazy.pop(
            "composite body inertias", None)

    def invalidate_articulated_body_inertias(self, state) -> None:
        """The articulated inertias, and the velocity terms that need them, out of date
        (the State backs up below ACCELERATION)."""
        d = self.get_tree_data(state, Stage.MODEL, "SimbodyMatterSubsystem")
        if state._parts[self._index].stage >= Stage.ACCELERATION:
            state.invalidate_all(Stage.ACCELERATION)
        state._completed.pop(int(Stage.ACCELERATION), None)
        for what in ("articulated body inertias", "articulated body velocity"):
            d.lazy.pop(what, None)

    def get_articulated_body_inertia(self, state, mobod) -> np.ndarray:
        """(6 x 6) body ``mobod``'s articulated inertia P about its origin, in G (kg,
        kg·m, kg·m²; [angular; linear]): its subtree's inertia as its own mobilizer feels
        it, the children articulated through theirs (realized on request; position
        kinematics needed)."""
        self.realize_articulated_body_inertias(state)
        d = self.get_tree_data(state, Stage.MODEL, "get_articulated_body_inertia")
        b = mobod if isinstance(mobod, (int, np.integer)) else mobod.get_mobilized_body_index()
        P = d.cache.P[b].copy()
        tree = d.tree
        if b > 0 and tree.parent[b] != 0 and d.cache.level[b] == 0:
            us, nu = tree.u_start[b], tree.nu[b]
            U = d.cache.U_cols[us:us + nu].T            # the sweep left P - U D⁻¹ Uᵀ
            P += U @ d.cache.Dinv[us:us + nu, :nu] @ U.T
        return P

    # ------------------------------------------------ prescribed motion and locks
    def check_loaded_discrete_variable(self, state, index: int, value) -> str | None:
        """As Subsystem's; the locks, besides: a file holds no lock (a State with one
        cannot be saved), so each body's entry must be None, or its default lock."""
        if index != self._lock_index:
            return super().check_loaded_discrete_variable(state, index, value)
        default = self.get_discrete_variable(state, index)
        if not (isinstance(value, tuple) and len(value) == len(default) and all(
                lock is None or (isinstance(lock, tuple) and lock == mine)
                for lock, mine in zip(value, default))):
            return (f"the body locks must be None for each body (or its default lock), "
                    f"not {value!r:.80}")
        return None

    def _locks(self, state) -> tuple:
        return self.get_discrete_variable(state, self._lock_index)

    def _is_locked(self, state, mobod) -> bool:
        return self._locks(state)[mobod._index] is not None

    def _set_lock(self, state, mobod, lock) -> None:
        """Set ``mobod``'s lock in ``state``: None or (Level, values) (INSTANCE)."""
        locks = list(self._locks(state))
        locks[mobod._index] = lock
        self.set_discrete_variable(state, self._lock_index, tuple(locks))

    def _resolved_locks(self, state, d) -> tuple:
        """Each body's lock with its values: a lock by default takes the default State's
        q (POSITION) or u (VELOCITY), or zero u̇ (ACCELERATION)."""
        euler = self.get_use_euler_angles(state)
        locks = []
        for b, lock in enumerate(self._locks(state)):
            if lock is not None and lock[1] is None:
                level, body = lock[0], self._bodies[b]
                value = (body.get_default_q(euler) if level == Level.POSITION else
                         body.get_default_u() if level == Level.VELOCITY else
                         np.zeros(int(d.tree.nu[b])))
                lock = (level, value)
            locks.append(lock)
        return tuple(locks)

    def _motion_setting(self, state, m, name: str):
        return self.get_discrete_variable(state, self._motion_settings_index)[
            m._mobod._index][name]

    def _set_motion_setting(self, state, m, name: str, value) -> None:
        settings = dict(self.get_discrete_variable(state, self._motion_settings_index))
        settings[m._mobod._index] = {**settings[m._mobod._index], name: value}
        self.set_discrete_variable(state, self._motion_settings_index, settings)

    def find_motion_forces(self, state) -> np.ndarray:
        """(nu,) the mobility forces τ the prescribed motion (locks and Motions) applies,
        zero on free mobilities: M u̇ + c = f + τ - Gᵀλ (ACCELERATION)."""
        d = self.get_tree_data(state, Stage.ACCELERATION,
                               "SimbodyMatterSubsystem.find_motion_forces")
        return d.cache.tau.copy()

    def get_motion_multipliers(self, state) -> np.ndarray:
        """τ of the prescribed mobilities only, in u order (ACCELERATION)."""
        d = self.get_tree_data(state, Stage.ACCELERATION,
                               "SimbodyMatterSubsystem.get_motion_multipliers")
        return d.cache.tau[self._prescribed_u(d, Level.ACCELERATION)].copy()

    def _prescribed_u(self, d, level: Level) -> np.ndarray:
        """The u indices of the bodies prescribed at ``level`` or above."""
        tree = d.tree
        return np.array([tree.u_start[b] + j for b in range(1, len(tree.parent))
                         if d.cache.level[b] > level for j in range(tree.nu[b])], dtype=int)

    def calc_motion_errors(self, state, stage) -> np.ndarray:
        """actual - prescribed for each known q (``stage`` POSITION: the State realized to
        TIME), known u (VELOCITY: realized to POSITION) or known u̇ (ACCELERATION: realized
        to ACCELERATION; always zero). The realization itself sets the known q and u, so
        the position and velocity errors are those of a State changed since."""
        stage = Stage(stage)
        if stage not in (Stage.POSITION, Stage.VELOCITY, Stage.ACCELERATION):
            raise InvalidArgumentError(
                "SimbodyMatterSubsystem.calc_motion_errors: the stage must be POSITION, "
                f"VELOCITY or ACCELERATION, not {stage.name}.")
        needed = {Stage.POSITION: Stage.TIME, Stage.VELOCITY: Stage.POSITION,
                  Stage.ACCELERATION: Stage.ACCELERATION}[stage]
        d = self.get_tree_data(state, needed, "SimbodyMatterSubsystem.calc_motion_errors")
        if stage == Stage.ACCELERATION:
            udot = np.asarray(self.get_u_dot(state))
            idx = self._prescribed_u(d, Level.ACCELERATION)
            return udot[idx] - self._prescribed_values(state, d, Stage.ACCELERATION)[idx]
        level = Level.POSITION if stage == Stage.POSITION else Level.VELOCITY
        values = self._prescribed_values(state, d, stage)
        if stage == Stage.POSITION:
            tree = d.tree
            idx = np.array([tree.q_start[b] + i for b in range(1, len(tree.parent))
                            if d.cache.level[b] > level for i in range(tree.nq[b])], dtype=int)
            return np.asarray(self.get_q(state))[idx] - values[idx]
        idx = self._prescribed_u(d, level)
        return np.asarray(self.get_u(state))[idx] - values[idx]

    def _prescribed_values(self, state, d, stage: Stage) -> np.ndarray:
        """The prescribed q (POSITION), u (VELOCITY) or u̇ (ACCELERATION) at the State's
        time, full length, zero where nothing is prescribed at that stage."""
        c, tree = d.cache, d.tree
        level = {Stage.POSITION: Level.POSITION, Stage.VELOCITY: Level.VELOCITY,
                 Stage.ACCELERATION: Level.ACCELERATION}[stage]
        out = np.zeros(int(tree.nq.sum()) if stage == Stage.POSITION else int(tree.nu.sum()))
        t = state.get_time()
        for b in range(1, len(tree.parent)):
            code = int(c.level[b])
            if code <= level:
                continue
            start, n = ((tree.q_start[b], tree.nq[b]) if stage == Stage.POSITION
                        else (tree.u_start[b], tree.nu[b]))
            sl = slice(start, start + n)
            m = self._motions.get(b)
            if c.method[b] == motion.SINUSOID:
                a, w, phase = c.motion_prm[b]
                derivative = code - 1 - level
                x = w * t + phase
                out[sl] = (a * np.sin(x), a * w * np.cos(x), -a * w * w * np.sin(x))[derivative]
            elif isinstance(m, motion.Custom) and not self._is_locked(state, m._mobod):
                m._prescribe(state, d, stage)
                out[sl] = (c.q_presc if stage == Stage.POSITION else
                           c.u_presc if stage == Stage.VELOCITY else c.udot_presc)[sl]
            else:
                out[sl] = (c.q_presc if stage == Stage.POSITION else
                           c.u_presc if stage == Stage.VELOCITY else c.udot_presc)[sl]
        return out

    def calc_mobilizer_reaction_forces_using_freebody_method(self, state) -> np.ndarray:
        """``calc_mobilizer_reaction_forces`` by another route (Simbody's check of it):
        each body treated as free, tip to base, its mobilizer's force being what Newton
        and Euler need beyond the applied and constraint forces and its children's
        reactions (ACCELERATION)."""
        d = self.get_tree_data(state, Stage.ACCELERATION, "SimbodyMatterSubsystem."
                               "calc_mobilizer_reaction_forces_using_freebody_method")
        data = self._constraint_data(state)
        c, tree = d.cache, d.tree
        F_ext = d.body_forces.copy()
        if data.m:
            self._refresh_kinematics(state, data, data.layouts)
            F_c, _ = cs.constraint_forces(state, data, c, self.get_multipliers(state))
            F_ext -= F_c
        nb = len(self._bodies)
        R = np.zeros((nb, 6))               # about each body's origin, in G
        for b in range(nb - 1, 0, -1):
            m, r, inertia = tree.mass[b], c.com_G[b], c.I_G[b]
            w, alpha, a = c.V_GB[b, :3], c.A_GB[b, :3], c.A_GB[b, 3:]
            force = m * (a + np.cross(alpha, r) + np.cross(w, np.cross(w, r)))
            moment = inertia @ alpha + np.cross(w, inertia @ w) + m * np.cross(r, a)
            R[b] += np.concatenate([moment, force]) - F_ext[b]
            p = tree.parent[b]
            if p > 0:                       # the parent carries it: shifted to its origin
                R[p, :3] += R[b, :3] + np.cross(c.p_PB[b], R[b, 3:])
                R[p, 3:] += R[b, 3:]
        p_BM_G = np.einsum("bij,bj->bi", c.R_GB, [b._X_BM.p for b in self._bodies])
        R[:, :3] -= np.cross(p_BM_G, R[:, 3:])
        return R

    @staticmethod
    def _vector(v, n: int, where: str) -> np.ndarray:
        v = np.ascontiguousarray(v, dtype=float)  # one compiled version for any layout
        if v.shape != (n,):
            raise InvalidArgumentError(
                f"SimbodyMatterSubsystem.{where}: expected a vector of {n}, got shape {v.shape}.")
        return v
