"""The constraint equations of a matter subsystem on the Python side: their layout and
table, the pass that runs the Python constraints, and the operators for users.

With mp holonomic, mv nonholonomic and ma acceleration-only equations in use, the errors
are laid out as Simbody does: qerr = perr (mp); uerr = [pverr; verr] (mp + mv);
udoterr = [paerr; vaerr; aerr] (m = mp + mv + ma), with one multiplier per udoterr slot.
The acceleration errors are affine in u̇, udoterr = G u̇ - b, and the forces of the
multipliers are Gᵀλ, so that M u̇ + Gᵀλ = f.

At INSTANCE ``build_layouts`` lays out the enabled constraints and packs the table the
compiled realization solves them from (``constraint_table.py``,
``kernels/constraints.py``). A built-in constraint's physics is compiled; a Python one
(Custom, the couplers, PrescribedMotion) has its errors computed here after the compiled
POSITION and VELOCITY stages and hands the compiled solve its rows of G (from its force
methods) and its bias (its acceleration errors at u̇ = 0): ``write_python_rows``,
``write_python_bias``. The operators for users (``multiply_by_g``, ``calc_g_transpose``)
call every constraint's methods, the built-in ones' running their compiled functions.

Every constraint computes its errors in its ancestor frame A from the kinematics of its
constrained bodies relative to A (``ConstraintKinematics``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from kinetree.engine.kinds import Kinds
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.constraint import BuiltinImplementation
from kinetree.multibody.constraint_table import pack_constraints
from kinetree.multibody.kernels.acceleration import calc_body_accelerations
from kinetree.multibody.kernels.ancestor_frame import (
    calc_relative_accelerations,
    calc_relative_velocities,
)
from kinetree.multibody.kernels.jacobian import (
    multiply_by_system_jacobian,
    multiply_by_system_jacobian_transpose,
    multiply_by_system_jacobian_transpose_columns,
)
from kinetree.registry import CONSTRAINTS


@dataclass
class ConstraintLayout:
    """Where one enabled constraint's equations, bodies and mobilizers sit in a State
    (fixed at INSTANCE)."""

    constraint: object
    ancestor: int                 # mobilized body index of the frame A
    bodies: np.ndarray            # (k,) mobilized body index of each constrained body
    mobilizers: list              # the constrained MobilizedBody objects
    nq: list                      # q count of each constrained mobilizer
    nu: list
    q_offset: list                # first entry of each mobilizer in the constrained q
    u_offset: list
    q_index: np.ndarray           # global index of each constrained q
    u_index: np.ndarray
    mp: int
    mv: int
    ma: int
    p_rows: slice                 # this constraint's rows within the holonomic block
    v_rows: slice                 # ... within the nonholonomic block
    a_rows: slice                 # ... within the acceleration-only block
    repeats: bool                 # a body or mobilizer registered more than once
    python: bool                  # its equations are Python (Custom, couplers, ...)
    params: slice                 # its parameters in the table's con_f


@dataclass
class ConstraintKinematics:
    """One constraint's view of the State's motion, in its ancestor frame A."""

    layout: ConstraintLayout
    X_AB: list = field(default_factory=list)   # Transform of each constrained body in A
    q: np.ndarray | None = None                # constrained q (POSITION)
    N: list = field(default_factory=list)      # q̇ = N u block of each mobilizer (POSITION)
    qdot: np.ndarray | None = None             # constrained q̇ and u (VELOCITY)
    u: np.ndarray | None = None
    V_AB: np.ndarray | None = None             # (k, 6) [w; v] in A (VELOCITY)
    ndot_u: np.ndarray | None = None           # Ṅ u of the constrained q (VELOCITY)


@dataclass
class ConstraintData:
    """Every enabled constraint of one State, the sizes of its error blocks, and the
    constraint table the compiled realization reads (``constraint_table.py``)."""

    layouts: list
    kinematics: dict              # constraint index -> ConstraintKinematics
    nu: int                       # mobilities of the whole tree
    mp: int
    mv: int
    ma: int
    kinds: Kinds                  # the constraint kinds of the table
    table: tuple                  # (con_i, con_index, con_f, con_buf)
    owners: list = field(default_factory=list)   # the layout owning each udoterr row
    python: list = field(default_factory=list)   # the layouts whose equations are Python
    projection: tuple | None = None  # (scratch, control_i) of compiled projections

    @property
    def m(self) -> int:
        return self.mp + self.mv + self.ma

    def __deepcopy__(self, memo) -> ConstraintData:
        """State.copy(): the layouts (and the constraints they name) are shared; the
        table's parameters and work space are copied, and each Python constraint's
        kinematics, their arrays being replaced, never changed in place, when a stage is
        realized."""
        return ConstraintData(self.layouts, {k: copy.copy(kin) for k, kin in
                                             self.kinematics.items()},
                              self.nu, self.mp, self.mv, self.ma, self.kinds,
                              tuple(a.copy() for a in self.table), self.owners, self.python)

    def multiplier_slices(self, layout: ConstraintLayout) -> tuple[slice, slice, slice]:
        """Where a constraint's holonomic, nonholonomic and acceleration-only multipliers
        (and acceleration errors) sit in the udoterr layout."""
        p, v, a = layout.p_rows, layout.v_rows, layout.a_rows
        return (p, slice(self.mp + v.start, self.mp + v.stop),
                slice(self.mp + self.mv + a.start, self.mp + self.mv + a.stop))


def build_layouts(state, constraints, ancestors, tree) -> ConstraintData:
    """The layout and table of the enabled ``constraints`` for a tree with the State's nq
    and nu, the built-in ones' parameters read from ``state``."""
    layouts, kinematics, all_params = [], {}, []
    mp = mv = ma = 0
    nu_tree = int(tree.nu.sum())
    f_at = 0
    for c in constraints:
        impl = c._impl
        nq = [int(tree.nq[m._index]) for m in impl._mobilizers]
        nu = [int(tree.nu[m._index]) for m in impl._mobilizers]
        q_index = [np.arange(tree.q_start[m._index], tree.q_start[m._index] + k)
                   for m, k in zip(impl._mobilizers, nq)]
        u_index = [np.arange(tree.u_start[m._index], tree.u_start[m._index] + k)
                   for m, k in zip(impl._mobilizers, nu)]
        cp, cv, ca = impl._counts
        python = not isinstance(impl, BuiltinImplementation)
        params = (np.zeros((cp + cv + ca) * (nu_tree + 1)) if python else
                  np.asarray(impl.parameters(state), dtype=float))
        layout = ConstraintLayout(
            constraint=c, ancestor=ancestors[c._index],
            bodies=np.array([b._index for b in impl._bodies], dtype=np.int64),
            mobilizers=list(impl._mobilizers), nq=nq, nu=nu,
            q_offset=list(np.concatenate([[0], np.cumsum(nq)[:-1]]).astype(int)),
            u_offset=list(np.concatenate([[0], np.cumsum(nu)[:-1]]).astype(int)),
            q_index=np.concatenate(q_index).astype(np.int64) if q_index else
            np.zeros(0, dtype=np.int64),
            u_index=np.concatenate(u_index).astype(np.int64) if u_index else
            np.zeros(0, dtype=np.int64),
            mp=cp, mv=cv, ma=ca, p_rows=slice(mp, mp + cp), v_rows=slice(mv, mv + cv),
            a_rows=slice(ma, ma + ca),
            repeats=len(set(impl._bodies)) < len(impl._bodies) or
            len(set(impl._mobilizers)) < len(impl._mobilizers),
            python=python, params=slice(f_at, f_at + params.size))
        f_at += params.size
        mp, mv, ma = mp + cp, mv + cv, ma + ca
        layouts.append(layout)
        kinematics[c._index] = ConstraintKinematics(layout)
        all_params.append(params)
    # A Python constraint's row: its constrained mobilities are all of the tree's, and
    # its parameters the rows of G and the bias its Python pass writes.
    table_entries = [(
        CONSTRAINTS["custom"] if layout.python else c._impl.CODE, layout.ancestor,
        np.zeros(0) if layout.python else layout.bodies,
        np.arange(nu_tree) if layout.python else layout.u_index,
        (layout.p_rows.start, layout.mp), (mp + layout.v_rows.start, layout.mv),
        (mp + mv + layout.a_rows.start, layout.ma), params)
        for layout, c, params in zip(layouts, constraints, all_params)]
    data = ConstraintData(layouts, kinematics, nu_tree, mp, mv, ma,
                          Kinds("constraints", [e[0] for e in table_entries]),
                          pack_constraints(table_entries, nu_tree, len(tree.nu), mp, mv,
                                           ma))
    data.python = [layout for layout in layouts if layout.python]
    data.owners = [None] * data.m
    for layout in layouts:
        for rows in data.multiplier_slices(layout):
            data.owners[rows] = [layout] * (rows.stop - rows.start)
    return data


def parameters_changed(state, data: ConstraintData, constraint) -> None:
    """Copy a built-in constraint's parameters from ``state`` into the table."""
    for layout in data.layouts:
        if layout.constraint is constraint:
            data.table[2][layout.params] = constraint._impl.parameters(state)


# --------------------------------------------------------- kinematics in A
def _relative_velocities(cache, a: int, bodies: np.ndarray, V_GB: np.ndarray) -> np.ndarray:
    """V_AB (k x 6, in A) of ``bodies`` for Ground velocities V_GB, A being body a."""
    out = np.empty((bodies.shape[0], 6))
    calc_relative_velocities(cache.R_GB, cache.p_GB, V_GB, a, bodies, out)
    return out


def _relative_accelerations(cache, a: int, bodies: np.ndarray, A_GB: np.ndarray) -> np.ndarray:
    """A_AB (k x 6, in A) of ``bodies`` for Ground accelerations A_GB, velocities from the
    State."""
    out = np.empty((bodies.shape[0], 6))
    calc_relative_accelerations(cache.R_GB, cache.p_GB, cache.V_GB, A_GB, a, bodies, out)
    return out


def update_position_kinematics(data: ConstraintData, cache, q: np.ndarray, custom=None,
                               layouts=None) -> None:
    """X_AB, the constrained q and each constrained mobilizer's N block (POSITION) of
    ``layouts`` (all by default); a custom mobilizer's block comes from ``custom``
    (custom_hinges.CustomHinges)."""
    for layout in data.layouts if layouts is None else layouts:
        kin = data.kinematics[layout.constraint._index]
        R_AG = cache.R_GB[layout.ancestor].T
        p_GA = cache.p_GB[layout.ancestor]
        kin.X_AB = [Transform._trusted(Rotation._trusted(R_AG @ cache.R_GB[b]),
                                       R_AG @ (cache.p_GB[b] - p_GA)) for b in layout.bodies]
        kin.q = q[layout.q_index]
        kin.N = []
        for mobod, qo, nq, nu in zip(layout.mobilizers, layout.q_offset, layout.nq,
                                     layout.nu):
            if custom is not None and mobod._python_hinge:
                kin.N.append(custom.n_block(mobod._index).copy())
                continue
            N, column, e = np.zeros((nq, nu)), np.zeros(nq), np.zeros(nu)
            for j in range(nu):
                e[:] = 0.0
                e[j] = 1.0
                mobod._module.n_mult(kin.q[qo:qo + nq], e, mobod._params, column)
                N[:, j] = column
            kin.N.append(N)


def update_velocity_kinematics(data: ConstraintData, cache, q, u, qdot, custom=None,
                               layouts=None) -> None:
    """V_AB, the constrained u and q̇, and Ṅ u of the constrained q (VELOCITY) of
    ``layouts`` (all by default); a custom mobilizer's Ṅ u comes from ``custom``
    (custom_hinges.CustomHinges)."""
    for layout in data.layouts if layouts is None else layouts:
        kin = data.kinematics[layout.constraint._index]
        kin.V_AB = _relative_velocities(cache, layout.ancestor, layout.bodies, cache.V_GB)
        kin.u, kin.qdot = u[layout.u_index], qdot[layout.q_index]
        ndot = []
        for mobod, qo, nq, uo, nu in zip(layout.mobilizers, layout.q_offset, layout.nq,
                                         layout.u_offset, layout.nu):
            if custom is not None and mobod._python_hinge:
                ndot.append(custom.ndot_u_block(mobod._index).copy())
                continue
            out = np.zeros(nq)
            mobod._module.ndot_u(kin.q[qo:qo + nq], kin.u[uo:uo + nu], mobod._params, out)
            ndot.append(out)
        kin.ndot_u = np.concatenate(ndot) if ndot else np.zeros(0)


def _n_times(kin: ConstraintKinematics, v: np.ndarray) -> np.ndarray:
    """N v over the constrained mobilizers (v in constrained-u order)."""
    lay = kin.layout
    return np.concatenate([N @ v[uo:uo + nu] for N, uo, nu in
                           zip(kin.N, lay.u_offset, lay.nu)]) if kin.N else np.zeros(0)


def _n_transpose_times(kin: ConstraintKinematics, fq: np.ndarray) -> np.ndarray:
    """Nᵀ fq over the constrained mobilizers: q-space forces as u-space forces."""
    lay = kin.layout
    return np.concatenate([N.T @ fq[qo:qo + nq] for N, qo, nq in
                           zip(kin.N, lay.q_offset, lay.nq)]) if kin.N else np.zeros(0)


# ------------------------------------------------------------ error sweeps
def position_errors(state, data: ConstraintData, out: np.ndarray, layouts=None) -> None:
    """perr of ``layouts`` (every enabled constraint by default) into out (mp)."""
    for layout in data.layouts if layouts is None else layouts:
        if layout.mp:
            kin = data.kinematics[layout.constraint._index]
            perr = np.zeros(layout.mp)
            layout.constraint._impl.calc_position_errors(state, kin.X_AB, kin.q.copy(), perr)
            out[layout.p_rows] = perr


def velocity_errors(state, data: ConstraintData, cache, V_GB, u, out, layouts=None) -> None:
    """[pverr; verr] (mp + mv) of ``layouts`` (all by default) into out for the speeds u
    with body velocities V_GB."""
    for layout in data.layouts if layouts is None else layouts:
        if not (layout.mp or layout.mv):
            continue
        kin = data.kinematics[layout.constraint._index]
        impl = layout.constraint._impl
        V_AB = _relative_velocities(cache, layout.ancestor, layout.bodies, V_GB)
        u_c = u[layout.u_index]
        if layout.mp:
            pverr = np.zeros(layout.mp)
            impl.calc_position_dot_errors(state, V_AB, _n_times(kin, u_c), pverr)
            out[layout.p_rows] = pverr
        if layout.mv:
            verr = np.zeros(layout.mv)
            impl.calc_velocity_errors(state, V_AB, u_c, verr)
            out[data.mp + layout.v_rows.start:data.mp + layout.v_rows.stop] = verr


def acceleration_errors(state, data: ConstraintData, cache, A_GB, udot, out,
                        layouts=None) -> None:
    """[paerr; vaerr; aerr] (m) of ``layouts`` (all by default) into out for the
    accelerations u̇ with body accelerations A_GB (velocities from the State)."""
    for layout in data.layouts if layouts is None else layouts:
        kin = data.kinematics[layout.constraint._index]
        impl = layout.constraint._impl
        A_AB = _relative_accelerations(cache, layout.ancestor, layout.bodies, A_GB)
        udot_c = udot[layout.u_index]
        sp, sv, sa = data.multiplier_slices(layout)
        if layout.mp:
            paerr = np.zeros(layout.mp)
            impl.calc_position_dot_dot_errors(state, A_AB, _n_times(kin, udot_c) + kin.ndot_u,
                                              paerr)
            out[sp] = paerr
        if layout.mv:
            vaerr = np.zeros(layout.mv)
            impl.calc_velocity_dot_errors(state, A_AB, udot_c, vaerr)
            out[sv] = vaerr
        if layout.ma:
            aerr = np.zeros(layout.ma)
            impl.calc_acceleration_errors(state, A_AB, udot_c, aerr)
            out[sa] = aerr


# ------------------------------------------------------------------ forces
def constraint_forces(state, data: ConstraintData, cache, lam, layouts=None):
    """The forces of multipliers λ (udoterr layout): body forces F (nb x 6, about each
    body origin, in G) and mobility forces f (nu), together Gᵀλ (the constraints apply
    their negatives). Only ``layouts`` contribute when given."""
    F = np.zeros((cache.R_GB.shape[0], 6))
    f = np.zeros(data.nu)
    for layout in data.layouts if layouts is None else layouts:
        F_c, f_c = _forces_of(state, data, layout, cache, lam)
        if layout.repeats:
            np.add.at(F, layout.bodies, F_c)
            np.add.at(f, layout.u_index, f_c)
        else:
            F[layout.bodies] += F_c
            f[layout.u_index] += f_c
    return F, f


def multiply_by_g_transpose(state, data: ConstraintData, d, lam, layouts=None) -> np.ndarray:
    """Gᵀλ as generalized forces (nu): Jᵀ F + f of ``constraint_forces``, in O(n)."""
    F, f = constraint_forces(state, data, d.cache, lam, layouts)
    out = np.zeros(data.nu)
    multiply_by_system_jacobian_transpose(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, F, out)
    return out + f


def _forces_of(state, data: ConstraintData, layout: ConstraintLayout, cache, lam):
    """One constraint's Gᵀλ from the multipliers ``lam`` of all the constraints: its body
    forces (k x 6, in G) and its mobility forces (one per constrained u)."""
    F_A, f = forces_in_ancestor(state, data, layout, np.concatenate(
        [lam[s] for s in data.multiplier_slices(layout)]))
    R_GA = cache.R_GB[layout.ancestor]
    return np.hstack([F_A[:, :3] @ R_GA.T, F_A[:, 3:] @ R_GA.T]), f


def forces_in_ancestor(state, data: ConstraintData, layout: ConstraintLayout, lam):
    """One constraint's Gᵀλ from its own multipliers ``lam`` (holonomic, nonholonomic,
    acceleration-only): its body forces (k x 6, [moment; force] about each constrained
    body's origin, in its ancestor frame A) and its mobility forces (one per constrained
    u, q-space forces mapped through Nᵀ)."""
    kin = data.kinematics[layout.constraint._index]
    impl = layout.constraint._impl
    F_A = np.zeros((len(layout.bodies), 6))
    f_q = np.zeros(len(layout.q_index))
    f_u = np.zeros(len(layout.u_index))
    p, v = layout.mp, layout.mp + layout.mv
    if layout.mp:
        impl.add_in_position_constraint_forces(state, lam[:p].copy(), F_A, f_q)
    if layout.mv:
        impl.add_in_velocity_constraint_forces(state, lam[p:v].copy(), F_A, f_u)
    if layout.ma:
        impl.add_in_acceleration_constraint_forces(state, lam[v:].copy(), F_A, f_u)
    return F_A, f_u + _n_transpose_times(kin, f_q)


# ------------------------------------------------------------- products
def multiply_by_g(state, data: ConstraintData, d, x, bias=None) -> np.ndarray:
    """G x (m): the acceleration errors at u̇ = x minus those at u̇ = 0 (``bias``, computed
    when not given)."""
    if bias is None:
        bias = acceleration_error_bias(state, data, d)
    A = np.zeros_like(d.cache.A_work)
    calc_body_accelerations(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, True, x, A)
    out = np.zeros(data.m)
    acceleration_errors(state, data, d.cache, A, x, out)
    return out - bias


def acceleration_error_bias(state, data: ConstraintData, d) -> np.ndarray:
    """The acceleration errors at u̇ = 0, i.e. -b in udoterr = G u̇ - b."""
    zero = np.zeros(data.nu)
    A = np.zeros_like(d.cache.A_work)
    calc_body_accelerations(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, True, zero, A)
    out = np.zeros(data.m)
    acceleration_errors(state, data, d.cache, A, zero, out)
    return out


def multiply_by_velocity_g(state, data: ConstraintData, d, x) -> np.ndarray:
    """[P; V] x (mp + mv): the velocity errors at u = x minus those at u = 0."""
    def at(u):
        V = np.zeros_like(d.cache.A_work)
        multiply_by_system_jacobian(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, u, V)
        out = np.zeros(data.mp + data.mv)
        velocity_errors(state, data, d.cache, V, u, out)
        return out
    return at(x) - at(np.zeros(data.nu))


def calc_g_transpose(state, data: ConstraintData, d, rows=None) -> np.ndarray:
    """Gᵀ (nu x m), or the columns ``rows`` of it: one force evaluation of the owning
    constraint per column, then all the Jᵀ products in one compiled call."""
    rows = range(data.m) if rows is None else rows
    F = np.zeros((len(rows), d.cache.R_GB.shape[0], 6))
    f = np.zeros((len(rows), data.nu))
    lam = np.zeros(data.m)
    for c, j in enumerate(rows):
        layout = data.owners[j]
        lam[j] = 1.0
        F_c, f_c = _forces_of(state, data, layout, d.cache, lam)
        lam[j] = 0.0
        if layout.repeats:
            np.add.at(F[c], layout.bodies, F_c)
            np.add.at(f[c], layout.u_index, f_c)
        else:
            F[c, layout.bodies] += F_c
            f[c, layout.u_index] += f_c
    out = np.empty((len(rows), data.nu))
    multiply_by_system_jacobian_transpose_columns(d.tree_i, d.tree_f, d.kinds, d.buf,
                                                  d.status, F, out)
    return (out + f).T


# ------------------------------------------- the rows of Python constraints
def _rows_of(data: ConstraintData, layout: ConstraintLayout) -> list:
    """The udoterr rows of a constraint, in its local order."""
    return [j for rows in data.multiplier_slices(layout) for j in range(rows.start, rows.stop)]


def write_python_rows(state, data: ConstraintData, d, below: int | None = None) -> None:
    """Each Python constraint's rows of G, from its force methods, into its parameters
    in the table: what the compiled constraint solve reads for it (constraints/custom.py).
    Only the rows below ``below`` when given (the holonomic ones, whose forces need
    positions only)."""
    con_f = data.table[2]
    for layout in data.python:
        every = _rows_of(data, layout)
        local = [k for k, j in enumerate(every) if below is None or j < below]
        if local:
            G = con_f[layout.params][:len(every) * data.nu].reshape(-1, data.nu)
            G[local] = calc_g_transpose(state, data, d, [every[k] for k in local]).T


def write_python_bias(state, data: ConstraintData, d) -> None:
    """Each Python constraint's acceleration errors at u̇ = 0 (the bias of udoterr = G u̇ +
    bias) into its parameters in the table (VELOCITY)."""
    zero = np.zeros(data.nu)
    A = np.zeros_like(d.cache.A_work)
    calc_body_accelerations(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, True, zero, A)
    out = np.zeros(data.m)
    acceleration_errors(state, data, d.cache, A, zero, out, data.python)
    con_f = data.table[2]
    for layout in data.python:
        rows = _rows_of(data, layout)
        con_f[layout.params][len(rows) * data.nu:] = out[rows]
