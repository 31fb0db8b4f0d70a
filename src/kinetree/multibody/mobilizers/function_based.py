"""FunctionBased: a Custom mobilizer whose motion is six Functions of its coordinates.

Functions 0-2 are angles (rad) of three rotations about unit axes a0, a1, a2, applied in
sequence as body-fixed rotations: R_FM = R(a0, f0) R(a1, f1) R(a2, f2). Functions 3-5 are
distances (m) along axes t0, t1, t2 fixed in F: p_FM = f3 t0 + f4 t1 + f5 t2. Function i
takes the mobilizer's q listed in coord_indices[i] as its arguments, and q̇ = u (seed 000
§2.4). With ∂f_i/∂q_j and the rotation axes in F, e0 = a0, e1 = R(a0, f0) a1,
e2 = R(a0, f0) R(a1, f1) a2, the hinge matrix in F is H = [Σ e_i ∂f_i/∂q; Σ t_i ∂f_(3+i)/∂q]
and (dH/dt) u follows from the second derivatives and the turning of e1 and e2.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.functions import Function
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.mobilizers.custom import Implementation

DEFAULT_AXES = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0),
                (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))

_WHERE = "MobilizedBody.FunctionBased"


def _rotation_about(axis: np.ndarray, angle: float) -> np.ndarray:
    """R (3 x 3) of a right-handed rotation by ``angle`` (rad) about the unit ``axis``."""
    c, s = math.cos(angle), math.sin(angle)
    x, y, z = axis
    t = 1.0 - c
    return np.array([[c + t * x * x, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, c + t * y * y, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, c + t * z * z]])


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

    def __init__(self, matter, nmobilities, functions, coord_indices, axes=None):
        nu, self._functions, self._indices, self._axes = _checked_arguments(
            nmobilities, functions, coord_indices, axes)
        super().__init__(matter, nu, nu, 0)
        self._T = np.ascontiguousarray(self._axes[3:].T)
        self._active = [i for i in range(6) if self._indices[i]]

    def get_functions(self) -> list:
        return list(self._functions)

    def get_coordinate_indices(self) -> list:
        return [list(ci) for ci in self._indices]

    def get_axes(self) -> np.ndarray:
        """The 6 unit axes (3 rotation axes, 3 translation axes), in F."""
        return self._axes.copy()

    # ---------------------------------------------------------- kinematics
    def _values(self, q, D) -> tuple:
        """f (6,) at q, D = ∂f/∂q (6 x nu) into ``D``."""
        f = np.zeros(6)
        D[:] = 0.0
        for i, (fn, ci) in enumerate(zip(self._functions, self._indices)):
            x = q[ci] if ci else ()
            f[i] = fn.calc_value(x)
            for k, j in enumerate(ci):
                D[i, j] += fn.calc_derivative((k,), x)
        return f

    def _position(self, q, E, D):
        """R_FM, p_FM; the rotation axes in F into E's columns and ∂f/∂q into D."""
        f = self._values(np.asarray(q, dtype=float), D)
        a = self._axes
        R0 = _rotation_about(a[0], f[0])
        R01 = R0 @ _rotation_about(a[1], f[1])
        E[:, 0], E[:, 1], E[:, 2] = a[0], R0 @ a[1], R01 @ a[2]
        return R01 @ _rotation_about(a[2], f[2]), self._T @ f[3:]

    def _second(self, q, u) -> np.ndarray:
        """Σ_jl ∂²f_i/∂q_j∂q_l u_j u_l for each function i (6,)."""
        out = np.zeros(6)
        for i in self._active:
            fn, ci = self._functions[i], self._indices[i]
            x, xd = q[ci], u[ci]
            s = 0.0
            for k in range(len(ci)):
                for m in range(len(ci)):
                    s += fn.calc_derivative((k, m), x) * xd[k] * xd[m]
            out[i] = s
        return out

    def _bias(self, q, u, E, D, out) -> None:
        """(dH/dt) u (6, in F) into ``out``."""
        fd = D @ u
        fdd = self._second(q, u)
        w0 = E[:, 0] * fd[0]
        w1 = E[:, 1] * fd[1]
        out[:3] = E @ fdd[:3] + np.cross(w0, w1) + np.cross(w0 + w1, E[:, 2] * fd[2])
        out[3:] = self._T @ fdd[3:]

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
        for i in self._active:
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
        R_FM[:], p_FM[:] = self._position(q, E, D)
        H_F[:3, :nu] = E @ D[:3]
        H_F[3:, :nu] = self._T @ D[3:]
        N[:] = np.eye(nu)
        N_inv[:] = N

    def _hinge_velocity(self, state, q, u, hdot_u, ndot_u, work) -> None:
        nu = self._nu
        self._bias(q, u, work[:9].reshape(3, 3), work[9:9 + 6 * nu].reshape(6, nu), hdot_u)
        ndot_u[:] = 0.0
