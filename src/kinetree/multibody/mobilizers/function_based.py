"""FunctionBased: a Custom mobilizer whose motion is six Functions of its coordinates.

Functions 0-2 are angles (rad) of three rotations about unit axes a0, a1, a2, applied in
sequence as body-fixed rotations: R_FM = R(a0, f0) R(a1, f1) R(a2, f2). Functions 3-5 are
distances (m) along axes t0, t1, t2 fixed in F: p_FM = f3 t0 + f4 t1 + f5 t2. Function i
takes the mobilizer's q listed in coord_indices[i] as its arguments, and q̇ = u.
With ∂f_i/∂q_j and the rotation axes in F, e0 = a0, e1 = R(a0, f0) a1,
e2 = R(a0, f0) R(a1, f1) a2, the hinge matrix in F is H = [Σ e_i ∂f_i/∂q; Σ t_i ∂f_(3+i)/∂q]
and (dH/dt) u follows from the second derivatives and the turning of e1 and e2.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.math import function_table
from kinetree.math.function_table import evaluate
from kinetree.math.functions import Constant, Function, Linear
from kinetree.math.opensim_functions import FAST_PATH_TYPES
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.mobilizers import _constant_hinge
from kinetree.multibody.mobilizers.custom import Implementation
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["function_based"]
NQ = NU = 0
DEFAULT_Q = ()
"""The compiled kind (``encode``): a FunctionBased mobilizer whose six functions are all
built-in functions of one coordinate or constants. Its nq = nu and default q come from
its implementation, as a Custom body's do."""

DEFAULT_AXES = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0),
                (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))

_WHERE = "MobilizedBody.FunctionBased"


@helper
def _rotation_about(axis, angle, R):
    """R (3 x 3) = the right-handed rotation by ``angle`` (rad) about the unit ``axis``."""
    c, s = math.cos(angle), math.sin(angle)
    x, y, z = axis[0], axis[1], axis[2]
    t = 1.0 - c
    R[0, 0], R[0, 1], R[0, 2] = c + t * x * x, t * x * y - s * z, t * x * z + s * y
    R[1, 0], R[1, 1], R[1, 2] = t * x * y + s * z, c + t * y * y, t * y * z - s * x
    R[2, 0], R[2, 1], R[2, 2] = t * x * z - s * y, t * y * z + s * x, c + t * z * z


@helper
def _mat_mul(A, B, C):
    """C = A B for 3 x 3 matrices (C distinct from A and B)."""
    for i in range(3):
        for j in range(3):
            C[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@helper
def position_kinematics(axes, f, D, R_FM, p_FM, H_F, E):
    """From the function values f (6,) and derivatives D = ∂f/∂q (6 x nu): R_FM, p_FM (m,
    in F), H_F[:, :nu] (in F) and the rotation axes in F as E's columns."""
    R0, R1, R01 = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    _rotation_about(axes[0], f[0], R0)
    _rotation_about(axes[1], f[1], R1)
    _mat_mul(R0, R1, R01)
    _rotation_about(axes[2], f[2], R1)
    _mat_mul(R01, R1, R_FM)
    for i in range(3):
        E[i, 0] = axes[0, i]
        E[i, 1] = R0[i, 0] * axes[1, 0] + R0[i, 1] * axes[1, 1] + R0[i, 2] * axes[1, 2]
        E[i, 2] = R01[i, 0] * axes[2, 0] + R01[i, 1] * axes[2, 1] + R01[i, 2] * axes[2, 2]
        p_FM[i] = f[3] * axes[3, i] + f[4] * axes[4, i] + f[5] * axes[5, i]
    for j in range(D.shape[1]):
        for i in range(3):
            H_F[i, j] = E[i, 0] * D[0, j] + E[i, 1] * D[1, j] + E[i, 2] * D[2, j]
            H_F[3 + i, j] = axes[3, i] * D[3, j] + axes[4, i] * D[4, j] + axes[5, i] * D[5, j]


@helper
def velocity_bias(axes, E, D, u, fdd, out):
    """(dH_F/dt) u (6, in F) into ``out``, from E and D of ``position_kinematics`` and
    fdd_i = Σ_jl ∂²f_i/∂q_j∂q_l u_j u_l: Σ e_i fdd_i + w0 × w1 + (w0 + w1) × w2 with
    w_i = e_i ḟ_i, and Σ t_i fdd_(3+i)."""
    fd = np.zeros(3)
    for i in range(3):
        for j in range(D.shape[1]):
            fd[i] += D[i, j] * u[j]
    w0 = E[:, 0] * fd[0]
    w1 = E[:, 1] * fd[1]
    w2 = E[:, 2] * fd[2]
    w01 = w0 + w1
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        out[i] = (E[i, 0] * fdd[0] + E[i, 1] * fdd[1] + E[i, 2] * fdd[2]
                  + w0[j] * w1[k] - w0[k] * w1[j] + w01[j] * w2[k] - w01[k] * w2[j])
        out[3 + i] = axes[3, i] * fdd[3] + axes[4, i] * fdd[4] + axes[5, i] * fdd[5]


def _checked_arguments(nmobilities, functions, coord_indices, axes):
    """(nu, functions, coord_indices as int lists, axes (6 x 3, unit)), or
    InvalidArgumentError naming the bad element and the fix."""
    if isinstance(nmobilities, bool) or not isinstance(nmobilities, (int, np.integer)) \
            or not 1 <= nmobilities <= 6:
        raise InvalidArgumentError(
            f"{_WHERE}: nmobilities must be an integer from 1 to 6, got {nmobilities!r}.")
    functions = list(functions)
    if len(functions) != 6:
        raise InvalidArgumentError(
            f"{_WHERE}: needs exactly 6 functions (3 rotation angles, then 3 translations), "
            f"got {len(functions)}; use Function.Constant(0, 0) for an unused one.")
    coord_indices = list(coord_indices)
    if len(coord_indices) != 6:
        raise InvalidArgumentError(
            f"{_WHERE}: needs 6 coordinate index lists, one per function, got "
            f"{len(coord_indices)}; give [] to a function of no coordinates.")
    indices = []
    for i, (f, ci) in enumerate(zip(functions, coord_indices)):
        if not isinstance(f, Function):
            raise InvalidArgumentError(
                f"{_WHERE}: functions[{i}] must be a Function (Function.Constant, "
                f"Function.Linear, Function.Spline, ...), got {type(f).__name__}.")
        ci = [int(j) for j in ci]
        for j in ci:
            if not 0 <= j < nmobilities:
                raise InvalidArgumentError(
                    f"{_WHERE}: coord_indices[{i}] holds {j}, out of range for "
                    f"{nmobilities} mobilities; use indices 0 to {nmobilities - 1}.")
        if f.get_argument_size() != len(ci):
            raise InvalidArgumentError(
                f"{_WHERE}: functions[{i}] takes {f.get_argument_size()} argument(s) but "
                f"coord_indices[{i}] lists {len(ci)} coordinate(s); make them agree.")
        if ci and f.get_max_derivative_order() < 2:
            raise InvalidArgumentError(
                f"{_WHERE}: functions[{i}] gives derivatives only to order "
                f"{f.get_max_derivative_order()}; the dynamics need second derivatives.")
        indices.append(ci)
    unused = sorted(set(range(nmobilities)) - {j for ci in indices for j in ci})
    if unused:
        raise InvalidArgumentError(
            f"{_WHERE}: coordinate(s) {unused} drive no function, so they would move "
            f"nothing; list each of the {nmobilities} coordinates in some coord_indices.")
    a = np.asarray(DEFAULT_AXES if axes is None else axes, dtype=float)
    if a.shape != (6, 3) or not np.all(np.isfinite(a)):
        raise InvalidArgumentError(
            f"{_WHERE}: axes must be 6 finite 3-vectors (3 rotation axes, then 3 "
            f"translation axes, in F), got shape {a.shape}.")
    norms = np.linalg.norm(a, axis=1)
    if np.any(norms == 0):
        raise InvalidArgumentError(
            f"{_WHERE}: axis {int(np.argmin(norms))} is zero; give a nonzero direction.")
    return int(nmobilities), functions, indices, a / norms[:, None]


class FunctionBasedImplementation(Implementation):
    """The Custom implementation behind ``MobilizedBody.FunctionBased`` (q̇ = u)."""

    _identity_n = True

    def __init__(self, matter, nmobilities, functions, coord_indices, axes=None):
        nu, self._functions, self._indices, self._axes = _checked_arguments(
            nmobilities, functions, coord_indices, axes)
        super().__init__(matter, nu, nu, 0)
        self._T = np.ascontiguousarray(self._axes[3:].T)
        # Constants and one-argument Linears (fixed once made) are evaluated here, not
        # through their argument checks; only the rest have second derivatives.
        self._constants = [i for i, f in enumerate(self._functions) if isinstance(f, Constant)]
        self._lines = [(i, self._indices[i][0], *f.get_coefficients())
                       for i, f in enumerate(self._functions)
                       if isinstance(f, Linear) and len(self._indices[i]) == 1]
        # One-argument splines (Spline, SimmSpline, GCVSpline), PiecewiseLinear and
        # Multiplier give f, f', f'' in one call without argument checks.
        self._splines = [(i, self._indices[i][0], f) for i, f in enumerate(self._functions)
                         if type(f) in FAST_PATH_TYPES and len(self._indices[i]) == 1]
        simple = set(self._constants) | {line[0] for line in self._lines}
        self._general = [i for i in range(6)
                         if i not in simple | {spline[0] for spline in self._splines}]
        self._curved = [i for i in self._general if self._indices[i]]

    def get_functions(self) -> list:
        return list(self._functions)

    def get_coordinate_indices(self) -> list:
        return [list(ci) for ci in self._indices]

    def get_axes(self) -> np.ndarray:
        """The 6 unit axes (3 rotation axes, 3 translation axes), in F."""
        return self._axes.copy()

    # ---------------------------------------------------------- kinematics
    def _values(self, q, D) -> np.ndarray:
        """f (6,) at q, and D = ∂f/∂q (6 x nu) into ``D``."""
        f = np.zeros(6)
        D[:] = 0.0
        for i in self._constants:
            f[i] = self._functions[i].get_value()
        for i, j, slope, offset in self._lines:
            f[i] = slope * q[j] + offset
            D[i, j] = slope
        for i, j, spline in self._splines:
            f[i], D[i, j], _ = spline.calc_value_and_derivatives(float(q[j]))
        for i in self._general:
            fn, ci = self._functions[i], self._indices[i]
            if len(ci) == 1:
                x = float(q[ci[0]])
                f[i] = fn.calc_value(x)
                D[i, ci[0]] = fn.calc_derivative((0,), x)
                continue
            x = q[ci]
            f[i] = fn.calc_value(x)
            for k, j in enumerate(ci):
                D[i, j] += fn.calc_derivative((k,), x)
        return f

    def _position(self, q, E, D):
        """R_FM, p_FM (new arrays); the rotation axes in F into E's columns, ∂f/∂q into D."""
        R, p, H = np.empty((3, 3)), np.empty(3), np.empty((6, self._nu))
        position_kinematics(self._axes, self._values(np.asarray(q, dtype=float), D), D, R,
                            p, H, E)
        return R, p

    def _second(self, q, u) -> np.ndarray:
        """Σ_jl ∂²f_i/∂q_j∂q_l u_j u_l for each function i (6,)."""
        out = np.zeros(6)
        for i, j, spline in self._splines:
            out[i] = spline.calc_value_and_derivatives(float(q[j]))[2] * u[j] * u[j]
        for i in self._curved:
            fn, ci = self._functions[i], self._indices[i]
            if len(ci) == 1:
                v = u[ci[0]]
                out[i] = fn.calc_derivative((0, 0), float(q[ci[0]])) * v * v
                continue
            x, xd = q[ci], u[ci]
            s = 0.0
            for k in range(len(ci)):
                for m in range(len(ci)):
                    s += fn.calc_derivative((k, m), x) * xd[k] * xd[m]
            out[i] = s
        return out

    def _state_kinematics(self, state):
        q = np.array(self.get_q(state), dtype=float)
        E, D = np.zeros((3, 3)), np.zeros((6, self._nu))
        R, p = self._position(q, E, D)
        return q, R, p, E, D

    # ------------------------------------------------- Implementation methods
    def calc_mobilizer_transform_from_q(self, state, q) -> Transform:
        R, p = self._position(np.asarray(q, dtype=float), np.zeros((3, 3)),
                              np.zeros((6, self._nu)))
        return Transform._trusted(Rotation._trusted(R), p)

    def multiply_by_h_matrix(self, state, u) -> np.ndarray:
        _, _, _, E, D = self._state_kinematics(state)
        fd = D @ np.asarray(u, dtype=float)
        return np.concatenate([E @ fd[:3], self._T @ fd[3:]])

    def multiply_by_h_transpose(self, state, F) -> np.ndarray:
        _, _, _, E, D = self._state_kinematics(state)
        F = np.asarray(F, dtype=float)
        return D[:3].T @ (E.T @ F[:3]) + D[3:].T @ (self._T.T @ F[3:])

    def multiply_by_h_dot_matrix(self, state, u) -> np.ndarray:
        return self._h_dot(state) @ np.asarray(u, dtype=float)

    def multiply_by_h_dot_transpose(self, state, F) -> np.ndarray:
        return self._h_dot(state).T @ np.asarray(F, dtype=float)

    def _h_dot(self, state) -> np.ndarray:
        """dH/dt (6 x nu, in F) at the State's q and u."""
        q, _, _, E, D = self._state_kinematics(state)
        u = np.array(self.get_u(state), dtype=float)
        fd = D @ u
        Ddot = np.zeros((6, self._nu))
        for i, j, spline in self._splines:
            Ddot[i, j] = spline.calc_value_and_derivatives(float(q[j]))[2] * u[j]
        for i in self._curved:
            fn, ci = self._functions[i], self._indices[i]
            x, xd = q[ci], u[ci]
            for k, j in enumerate(ci):
                Ddot[i, j] += sum(fn.calc_derivative((k, m), x) * xd[m]
                                  for m in range(len(ci)))
        w0 = E[:, 0] * fd[0]
        Edot = np.column_stack([np.zeros(3), np.cross(w0, E[:, 1]),
                                np.cross(w0 + E[:, 1] * fd[1], E[:, 2])])
        return np.vstack([Edot @ D[:3] + E @ Ddot[:3], self._T @ Ddot[3:]])

    def multiply_by_n(self, state, transpose, in_) -> np.ndarray:
        return np.array(in_, dtype=float)

    def multiply_by_n_inv(self, state, transpose, in_) -> np.ndarray:
        return np.array(in_, dtype=float)

    def multiply_by_n_dot(self, state, transpose, in_) -> np.ndarray:
        return np.zeros(len(in_))

    # ------------------------------------------------------ the pre-pass
    def _hinge_position(self, state, q, R_FM, p_FM, H_F, N, N_inv, work) -> None:
        nu = self._nu
        E = work[:9].reshape(3, 3)
        D = work[9:9 + 6 * nu].reshape(6, nu)
        position_kinematics(self._axes, self._values(q, D), D, R_FM, p_FM, H_F, E)

    def _hinge_velocity(self, state, q, u, hdot_u, ndot_u, work) -> None:
        nu = self._nu
        velocity_bias(self._axes, work[:9].reshape(3, 3), work[9:9 + 6 * nu].reshape(6, nu),
                      u, self._second(q, u), hdot_u)


# --------------------------------------------------------------------------------------
# The compiled kind: the six functions as tables in the body's parameter row.
#
# Row layout: the 6 unit axes (prm[0:18], axis k at prm[3k:3k+3]), the start of each
# function's record (prm[18:24]), then the records (math/function_table.py).

_HEADER = 24


def encode(impl: FunctionBasedImplementation) -> np.ndarray | None:
    """The parameter row of the compiled kind for ``impl``'s functions, axes and
    coordinates, or None when some function is not one it evaluates (a user Function, a
    function of two or more coordinates): such a mobilizer keeps the Python path."""
    records = []
    for function, coords in zip(impl._functions, impl._indices):
        record = function_table.record(function, coords)
        if record is None:
            return None
        records.append(record)
    row = list(impl._axes.ravel())
    at = _HEADER
    for record in records:
        row.append(float(at))
        at += len(record)
    for record in records:
        row += record
    return np.array(row, dtype=float)


@helper
def _evaluate(prm, i, q):
    """(f, f', f'', argument) of function i of the row ``prm`` at the coordinates q."""
    return evaluate(prm, int(prm[18 + i]), q)


@helper
def _rotation(prm, k, angle):
    """``_rotation_about`` for axis k of the row, as a 9-tuple (row-major)."""
    c, s = math.cos(angle), math.sin(angle)
    x, y, z = prm[3 * k], prm[3 * k + 1], prm[3 * k + 2]
    t = 1.0 - c
    return (c + t * x * x, t * x * y - s * z, t * x * z + s * y,
            t * x * y + s * z, c + t * y * y, t * y * z - s * x,
            t * x * z - s * y, t * y * z + s * x, c + t * z * z)


@helper
def _product(A, B):
    """``_mat_mul`` of two 9-tuples."""
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6],
            A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8],
            A[3] * B[0] + A[4] * B[3] + A[5] * B[6],
            A[3] * B[1] + A[4] * B[4] + A[5] * B[7],
            A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6],
            A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])


@helper
def _apply(R, prm, k):
    """R (9-tuple) times axis k of the row, as ``position_kinematics`` forms E."""
    a0, a1, a2 = prm[3 * k], prm[3 * k + 1], prm[3 * k + 2]
    return (R[0] * a0 + R[1] * a1 + R[2] * a2,
            R[3] * a0 + R[4] * a1 + R[5] * a2,
            R[6] * a0 + R[7] * a1 + R[8] * a2)


@helper
def _axes_in_f(prm, f0, f1):
    """The rotation axes in F, e0, e1, e2 (3-tuples)."""
    R0 = _rotation(prm, 0, f0)
    R01 = _product(R0, _rotation(prm, 1, f1))
    return (prm[0], prm[1], prm[2]), _apply(R0, prm, 1), _apply(R01, prm, 2)


@helper(forceinline=False)
def x_fm(q, prm, R_FM, p_FM):
    f0 = _evaluate(prm, 0, q)[0]
    f1 = _evaluate(prm, 1, q)[0]
    f2 = _evaluate(prm, 2, q)[0]
    f3 = _evaluate(prm, 3, q)[0]
    f4 = _evaluate(prm, 4, q)[0]
    f5 = _evaluate(prm, 5, q)[0]
    R = _product(_product(_rotation(prm, 0, f0), _rotation(prm, 1, f1)),
                 _rotation(prm, 2, f2))
    for i in range(3):
        R_FM[i, 0], R_FM[i, 1], R_FM[i, 2] = R[3 * i], R[3 * i + 1], R[3 * i + 2]
        p_FM[i] = f3 * prm[9 + i] + f4 * prm[12 + i] + f5 * prm[15 + i]


@helper(forceinline=False)
def h_fm(q, prm, H):
    f0, g0, _, j0 = _evaluate(prm, 0, q)
    f1, g1, _, j1 = _evaluate(prm, 1, q)
    _, g2, _, j2 = _evaluate(prm, 2, q)
    _, g3, _, j3 = _evaluate(prm, 3, q)
    _, g4, _, j4 = _evaluate(prm, 4, q)
    _, g5, _, j5 = _evaluate(prm, 5, q)
    e0, e1, e2 = _axes_in_f(prm, f0, f1)
    for j in range(H.shape[1]):
        D0 = g0 if j0 == j else 0.0
        D1 = g1 if j1 == j else 0.0
        D2 = g2 if j2 == j else 0.0
        D3 = g3 if j3 == j else 0.0
        D4 = g4 if j4 == j else 0.0
        D5 = g5 if j5 == j else 0.0
        for i in range(3):
            H[i, j] = e0[i] * D0 + e1[i] * D1 + e2[i] * D2
            H[3 + i, j] = prm[9 + i] * D3 + prm[12 + i] * D4 + prm[15 + i] * D5


@helper
def _rate(g, arg, u):
    """ḟ = Σ_j ∂f/∂q_j u_j, summed over every u as ``velocity_bias`` sums it."""
    s = 0.0
    for j in range(u.shape[0]):
        s += (g if arg == j else 0.0) * u[j]
    return s


@helper
def _second(h, arg, u):
    """∂²f/∂q² u² of a function of coordinate ``arg`` (0 for a constant)."""
    return h * u[arg] * u[arg] if arg >= 0 else 0.0


@helper(forceinline=False)
def hdot_u(q, u, prm, out):
    f0, g0, h0, j0 = _evaluate(prm, 0, q)
    f1, g1, h1, j1 = _evaluate(prm, 1, q)
    _, g2, h2, j2 = _evaluate(prm, 2, q)
    _, _, h3, j3 = _evaluate(prm, 3, q)
    _, _, h4, j4 = _evaluate(prm, 4, q)
    _, _, h5, j5 = _evaluate(prm, 5, q)
    e0, e1, e2 = _axes_in_f(prm, f0, f1)
    fd0, fd1, fd2 = _rate(g0, j0, u), _rate(g1, j1, u), _rate(g2, j2, u)
    fdd0, fdd1, fdd2 = _second(h0, j0, u), _second(h1, j1, u), _second(h2, j2, u)
    fdd3, fdd4, fdd5 = _second(h3, j3, u), _second(h4, j4, u), _second(h5, j5, u)
    w0 = (e0[0] * fd0, e0[1] * fd0, e0[2] * fd0)
    w1 = (e1[0] * fd1, e1[1] * fd1, e1[2] * fd1)
    w2 = (e2[0] * fd2, e2[1] * fd2, e2[2] * fd2)
    w01 = (w0[0] + w1[0], w0[1] + w1[1], w0[2] + w1[2])
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        out[i] = (e0[i] * fdd0 + e1[i] * fdd1 + e2[i] * fdd2
                  + w0[j] * w1[k] - w0[k] * w1[j] + w01[j] * w2[k] - w01[k] * w2[j])
        out[3 + i] = prm[9 + i] * fdd3 + prm[12 + i] * fdd4 + prm[15 + i] * fdd5


# q̇ = u: N = N⁻¹ = identity and Ṅ = 0, as for the constant hinges
n_mult = n_inv_mult = _constant_hinge.n_mult
ndot_u = _constant_hinge.ndot_u


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """The q (from zero) whose X_FM(q) is nearest R_FM, p_FM in the least-squares sense.
    (A MobilizedBody.FunctionBased fits through its implementation, from its current q;
    this is the kind's own rule, for callers holding only the parameter row.)"""
    from scipy.optimize import least_squares

    def residual(q):
        R, p = np.empty((3, 3)), np.empty(3)
        x_fm(q, prm, R, p)
        return np.concatenate([(R - R_FM).ravel(), p - p_FM])

    return least_squares(residual, np.zeros(nq), xtol=1e-15, ftol=1e-15, gtol=1e-15).x


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """The u whose H(q) u is nearest [w_FM; v_FM] (in F) in the least-squares sense."""
    q = np.asarray(q, dtype=float)
    H = np.zeros((6, q.size))
    h_fm(q, prm, H)
    return np.linalg.lstsq(H, np.concatenate([w_FM, v_FM]), rcond=None)[0]
