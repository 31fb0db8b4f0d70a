"""Custom mobilizers: X_FM, H, HDot u and N from a Python ``Implementation``.

The kernels never call Python. Before each POSITION and VELOCITY sweep the matter subsystem
runs a short pre-pass over the custom bodies only (``custom_hinges.py``) that asks each
implementation for X_FM (written into the cache's R_FM, p_FM), H_F (6 x nu, in F), the
bias (dH_F/dt) u (in F) and the N, N⁻¹ and Ṅ u blocks. The hinge functions of this type
code therefore leave X_FM, H_F and (dH_F/dt) u as the pre-pass wrote them; the N products
give zeros here and the matter subsystem puts each custom body's block in afterwards.
``MobilizedBody.FunctionBased`` is a Custom mobilizer with a built-in implementation.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.jit import helper
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.registry import MOBILIZERS
from kinetree.system.hooks import RealizeHooks
from kinetree.system.stage import Stage

CODE = MOBILIZERS["custom"]
NQ = NU = 0
DEFAULT_Q = ()
WORK_SIZE = 64
IDENTITY_N = 1.0
"""prm[0] of a custom body whose N is the identity (q̇ = u): the kernels then apply N, N⁻¹
(identity) and Ṅ (zero) themselves and the Python N blocks are skipped."""
"""Per-State scratch floats each custom body gets for carrying POSITION results (such as a
FunctionBased mobilizer's derivatives) to its VELOCITY pre-pass."""


@helper
def x_fm(q, prm, R_FM, p_FM):
    """X_FM was written by the pre-pass: leave it."""


@helper
def h_fm(q, prm, H):
    """H_F was written by the pre-pass: leave it."""


@helper
def hdot_u(q, u, prm, out):
    """(dH_F/dt) u was written by the pre-pass: leave it."""


@helper
def n_mult(q, v, prm, out):
    """q̇ = u when prm[0] flags N = I (FunctionBased); otherwise zeros, for the matter
    subsystem to fill with the implementation's block."""
    identity = prm[0] == IDENTITY_N
    for i in range(out.shape[0]):
        out[i] = v[i] if identity else 0.0


@helper
def n_inv_mult(q, v, prm, out):
    identity = prm[0] == IDENTITY_N
    for i in range(out.shape[0]):
        out[i] = v[i] if identity else 0.0


@helper
def ndot_u(q, u, prm, out):
    out[:] = 0.0


class Implementation(RealizeHooks):
    """What a ``MobilizedBody.Custom`` computes: subclass it, call
    ``super().__init__(matter, nu, nq, n_angles)`` and override the five required methods
    (``calc_mobilizer_transform_from_q``, ``multiply_by_h_matrix``,
    ``multiply_by_h_transpose``, ``multiply_by_h_dot_matrix``,
    ``multiply_by_h_dot_transpose``); the rest have defaults.

    Vectors are numpy arrays: a spatial vector is 6 numbers [angular; linear] in F (rad/s
    and m/s for a velocity V_FM, N m and N for a force). ``n_angles`` (0 to 3) says how many
    of the first q are angles (rad); 4 means the first four q are a quaternion [w, x, y, z],
    which ``matter.set_use_euler_angles`` replaces with three body-fixed x-y-z angles, so the
    implementation sees nq q in quaternion mode and nq - 1 in Euler mode: ask
    ``get_use_euler_angles(state)`` before reading q. kinetree normalizes the quaternion
    during projection. Simbody's ``clone()`` is unnecessary in Python: the object is used as
    it is (one implementation object per mobilized body). ``realize_position`` runs before
    X_FM, H and N are asked for in a State, ``realize_velocity`` before (dH/dt) u and Ṅ u.
    """

    _identity_n = False
    """True only for implementations whose N is the identity whatever q (FunctionBased);
    the kernels then apply N themselves."""

    def __init__(self, matter, nu: int, nq: int, n_angles: int = 0):
        where = f"{type(self).__name__} (MobilizedBody.Custom.Implementation)"
        for name, value, low in (("nu", nu, 0), ("nq", nq, 0), ("n_angles", n_angles, 0)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                    or value < low:
                raise InvalidArgumentError(
                    f"{where}: {name} must be a non-negative integer, got {value!r}.")
        if not 1 <= nu <= 6 or not nu <= nq <= 7:
            raise InvalidArgumentError(
                f"{where}: needs 1 <= nu <= 6 and nu <= nq <= 7, got nu={nu}, nq={nq}.")
        if n_angles > 4 or n_angles > nq:
            raise InvalidArgumentError(
                f"{where}: n_angles must be 0-3 angles or 4 (a quaternion) and at most nq, "
                f"got {n_angles} with nq={nq}.")
        if n_angles == 4 and nu < 3:
            raise InvalidArgumentError(
                f"{where}: a quaternion (n_angles=4) needs at least its three angular "
                f"velocities among the u, got nu={nu}.")
        self._matter = matter
        self._nu, self._nq, self._n_angles = int(nu), int(nq), int(n_angles)
        self._mobod = None

    # --------------------------------------------------------------- sizes
    def _num_q(self, euler: bool) -> int:
        return self._nq - 1 if euler and self._n_angles == 4 else self._nq

    def _name(self) -> str:
        body = self._mobod._name() if self._mobod is not None else "MobilizedBody.Custom"
        return f"{body} implementation {type(self).__name__}"

    def _body(self, method: str):
        if self._mobod is None:
            raise InvalidArgumentError(
                f"{type(self).__name__}.{method}: the implementation is not yet part of a "
                f"MobilizedBody.Custom; pass it to MobilizedBody.Custom(...) first.")
        return self._mobod

    # ------------------------------------------------------------ accessors
    def get_q(self, state) -> np.ndarray:
        """This mobilizer's q (nq in quaternion mode, nq - 1 in Euler mode)."""
        return self._body("get_q").get_q(state)

    def get_u(self, state) -> np.ndarray:
        return self._body("get_u").get_u(state)

    def get_q_dot(self, state) -> np.ndarray:
        """q̇ = N u (needs VELOCITY)."""
        return self._body("get_q_dot").get_q_dot(state)

    def get_u_dot(self, state) -> np.ndarray:
        """u̇ (needs ACCELERATION)."""
        return self._body("get_u_dot").get_u_dot(state)

    def get_q_dot_dot(self, state) -> np.ndarray:
        """q̈ = N u̇ + Ṅ u (needs ACCELERATION)."""
        mobod = self._body("get_q_dot_dot")
        data = mobod._tree(state, Stage.ACCELERATION, "get_q_dot_dot")
        return self._matter.get_q_dot_dot(state)[mobod._q_slice(data)]

    def get_mobilizer_transform(self, state) -> Transform:
        """X_FM, as computed from q for this State; readable from inside the H, N and HDot
        methods while the State is being realized to POSITION."""
        c, b = self._cache(state, Stage.POSITION, "get_mobilizer_transform")
        return Transform._trusted(Rotation._trusted(c.R_FM[b].copy()), c.p_FM[b].copy())

    def get_mobilizer_velocity(self, state) -> np.ndarray:
        """V_FM = [w_FM; v_FM] in F (rad/s, m/s); readable from inside the HDot methods
        while the State is being realized to VELOCITY."""
        c, b = self._cache(state, Stage.VELOCITY, "get_mobilizer_velocity")
        return c.V_FM[b].copy()

    def _cache(self, state, stage: Stage, method: str):
        """(the tree cache, this body's index), once the State is realized to ``stage`` or
        is being realized to it or later."""
        mobod = self._body(method)
        realizing = state._realizing
        if realizing is not None and realizing >= stage:
            return mobod._tree(state, Stage.MODEL, method).cache, mobod._index
        return mobod._tree(state, stage, method).cache, mobod._index

    def get_use_euler_angles(self, state) -> bool:
        """True when the quaternion of an n_angles=4 mobilizer is replaced by three
        body-fixed x-y-z angles in this State."""
        return self._matter.get_use_euler_angles(state)

    def invalidate_topology_cache(self) -> None:
        """Make the next realize_topology() run again (after changing something of your own
        that realize_topology uses)."""
        self._matter.invalidate_subsystem_topology_cache()

    # ------------------------------------------------------ required methods
    def calc_mobilizer_transform_from_q(self, state, q) -> Transform:
        """X_FM(q): M's pose in F for this mobilizer's q (a Transform)."""
        raise self._missing("calc_mobilizer_transform_from_q(state, q) -> Transform")

    def multiply_by_h_matrix(self, state, u) -> np.ndarray:
        """V_FM = H u: 6 numbers [w_FM; v_FM] in F. H should depend on X_FM only
        (``get_mobilizer_transform``), not directly on q."""
        raise self._missing("multiply_by_h_matrix(state, u) -> 6 numbers")

    def multiply_by_h_transpose(self, state, F) -> np.ndarray:
        """f = Hᵀ F (nu numbers) for a spatial force F = [moment; force] in F."""
        raise self._missing("multiply_by_h_transpose(state, F) -> nu numbers")

    def multiply_by_h_dot_matrix(self, state, u) -> np.ndarray:
        """A0_FM = (dH/dt) u: 6 numbers in F, the bias of A_FM = H u̇ + (dH/dt) u. Depends
        on X_FM and V_FM only (``get_mobilizer_velocity``)."""
        raise self._missing("multiply_by_h_dot_matrix(state, u) -> 6 numbers")

    def multiply_by_h_dot_transpose(self, state, F) -> np.ndarray:
        """f = (dH/dt)ᵀ F (nu numbers)."""
        raise self._missing("multiply_by_h_dot_transpose(state, F) -> nu numbers")

    def _missing(self, signature: str) -> KinetreeError:
        return InvalidArgumentError(
            f"{self._name()}: a MobilizedBody.Custom.Implementation must override "
            f"{signature}.")

    # ------------------------------------------------------ optional methods
    def multiply_by_n(self, state, transpose: bool, in_) -> np.ndarray:
        """q̇ = N u (nq from nu), or Nᵀ x (nu from nq) when ``transpose``. The default is
        N = identity, valid only when nq == nu and there is no quaternion."""
        return self._identity(state, in_, "multiply_by_n")

    def multiply_by_n_inv(self, state, transpose: bool, in_) -> np.ndarray:
        """u = N⁻¹ q̇ (nu from nq), or N⁻ᵀ x (nq from nu) when ``transpose``; identity by
        default, as for multiply_by_n."""
        return self._identity(state, in_, "multiply_by_n_inv")

    def multiply_by_n_dot(self, state, transpose: bool, in_) -> np.ndarray:
        """Ṅ u (nq from nu), or Ṅᵀ x when ``transpose``; zero by default, as for an
        identity N."""
        self._identity(state, in_, "multiply_by_n_dot")
        return np.zeros(len(in_))

    def _identity(self, state, in_, method: str) -> np.ndarray:
        nq = self._num_q(self._matter.get_use_euler_angles(state))
        if nq != self._nu or self._n_angles == 4:
            raise InvalidArgumentError(
                f"{self._name()}: has nq={nq} and nu={self._nu}"
                f"{' with a quaternion' if self._n_angles == 4 else ''}, so N is not the "
                f"identity; override {method}(state, transpose, in_).")
        return np.array(in_, dtype=float)

    def set_q_to_fit_transform(self, state, X_FM: Transform) -> np.ndarray:
        """The q (a new array) whose X_FM(q) is nearest the given X_FM: by default a
        nonlinear least-squares fit (scipy) of R_FM's entries and p_FM (m) from the current
        q; override with a closed form where there is one."""
        target_R, target_p = X_FM.R.as_matrix(), np.asarray(X_FM.p, dtype=float)

        def residual(q):
            X = _checked_transform(self.calc_mobilizer_transform_from_q(state, q), self)
            return np.concatenate([(X.R.as_matrix() - target_R).ravel(), X.p - target_p])

        q0 = np.array(self.get_q(state), dtype=float)
        from scipy.optimize import least_squares  # scipy is slow to import: when first needed
        q = least_squares(residual, q0, xtol=1e-15, ftol=1e-15, gtol=1e-15).x
        if self._n_angles == 4 and not self.get_use_euler_angles(state):
            q[:4] /= np.linalg.norm(q[:4])
        return q

    def set_u_to_fit_velocity(self, state, V_FM) -> np.ndarray:
        """The u (a new array) whose H u is nearest V_FM = [w_FM; v_FM] (in F) in the least
        squares sense, from H's columns at the current q."""
        H = np.column_stack([_checked_vector(self.multiply_by_h_matrix(state, e), 6, self,
                                             "multiply_by_h_matrix")
                             for e in np.eye(self._nu)])
        return np.linalg.lstsq(H, np.asarray(V_FM, dtype=float), rcond=None)[0]

    def calc_decorative_geometry_and_append(self, state, stage, geometry: list) -> None:
        """Append suggested decorations to ``geometry``; none by default."""

    # ------------------------------------------------ hinge (the pre-pass)
    def _inherits(self, method: str) -> bool:
        """True if the subclass keeps this class's default ``method``."""
        return getattr(type(self), method) is getattr(Implementation, method)

    def _hinge_position(self, state, q, R_FM, p_FM, H_F, N, N_inv, work) -> None:
        """Write X_FM into R_FM (3 x 3) and p_FM (3,), H into H_F[:, :nu] (in F), and the
        N (nq x nu) and N⁻¹ (nu x nq) blocks, from the public methods (the identity
        defaults of N and N⁻¹ directly). ``work`` is per-State scratch that a subclass may
        use to carry results to ``_hinge_velocity``."""
        X = _checked_transform(self.calc_mobilizer_transform_from_q(state, q), self)
        R_FM[:] = X.R.as_matrix()
        p_FM[:] = X.p
        nq, nu = N.shape
        identity = nq == nu and self._n_angles != 4
        eye = np.eye(max(nq, nu))
        for j in range(nu):
            H_F[:, j] = _checked_vector(self.multiply_by_h_matrix(state, eye[j, :nu]), 6, self,
                                        "multiply_by_h_matrix")
        if identity and self._inherits("multiply_by_n"):
            N[:] = eye[:nq, :nu]
        else:
            for j in range(nu):
                N[:, j] = _checked_vector(self.multiply_by_n(state, False, eye[j, :nu]), nq,
                                          self, "multiply_by_n")
        if identity and self._inherits("multiply_by_n_inv"):
            N_inv[:] = eye[:nu, :nq]
        else:
            for k in range(nq):
                N_inv[:, k] = _checked_vector(self.multiply_by_n_inv(state, False,
                                                                     eye[k, :nq]),
                                              nu, self, "multiply_by_n_inv")

    def _hinge_velocity(self, state, q, u, hdot_u, ndot_u, work) -> None:
        """Write (dH/dt) u (6, in F) and Ṅ u (nq) for this State's u (the zero default of
        Ṅ directly)."""
        hdot_u[:] = _checked_vector(self.multiply_by_h_dot_matrix(state, u), 6, self,
                                    "multiply_by_h_dot_matrix")
        if ndot_u.size == u.size and self._n_angles != 4 and self._inherits("multiply_by_n_dot"):
            ndot_u[:] = 0.0
            return
        ndot_u[:] = _checked_vector(self.multiply_by_n_dot(state, False, u), ndot_u.size,
                                    self, "multiply_by_n_dot")


def _checked_transform(X, impl: Implementation) -> Transform:
    if not isinstance(X, Transform):
        raise InvalidArgumentError(
            f"{impl._name()}.calc_mobilizer_transform_from_q must return a Transform, got "
            f"{type(X).__name__}.")
    return X


def _checked_vector(value, n: int, impl: Implementation, method: str) -> np.ndarray:
    v = np.asarray(value, dtype=float)
    if v.shape != (n,):
        raise InvalidArgumentError(
            f"{impl._name()}.{method} must return {n} numbers, got shape {v.shape}; "
            f"return a flat numpy array of length {n}.")
    return v
