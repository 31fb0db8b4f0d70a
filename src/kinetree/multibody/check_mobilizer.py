"""check_mobilizer: a numerical self-check of one mobilizer's methods against each other (a
tool beyond Simbody, the sister of check_constraint, written for Custom mobilizers, whose
H, HDot, N and fits are written by hand).

A mobilizer is defined by its transform X_FM(q) (M in F) and by the velocity its speeds
produce, V_FM = H u = [w_FM; v_FM] (angular velocity of M in F and velocity of M's origin,
both expressed in F). Everything else must agree with those two: q̇ = N u must move X_FM
at V_FM, N⁻¹ must invert N, HDot·u must be the rate of H u, the force map must be Hᵀ, and
the fit methods must give back the transform and velocity they are handed. A mistake in
any of them gives motion that looks plausible and is wrong. ``check_mobilizer(mobod,
state)`` tests each identity numerically on copies of ``state`` and returns a
``MobilizerCheck`` report; ``report.assert_ok()`` raises ``MobilizerCheckError`` (a
KinetreeError) naming the method that disagrees and by how much.

**Where the quantities come from.** Every quantity is read from what the matter subsystem
realizes for the body, so the check judges what the dynamics use, for any mobilizer that
feeds those arrays (built-in or custom): X_FM, H_F from the POSITION cache, q̇ = N u from
the State after VELOCITY, HDot·u from the Coriolis bias ``c`` of the VELOCITY cache (with
every other speed zero, c = [R_GF a; R_GF (b + a × r_F + w_FM × (w_FM × r_F))] for
HDot·u = [a; b], which is solved for a and b), N⁻¹ through ``multiply_by_n_inv``, Hᵀ
through the implementation's ``multiply_by_h_transpose`` where the body has one (a
Custom), else through the system Jacobian transpose restricted to the body's speeds (a
built-in has no separate transpose; this is the path the force sweeps use), and the fits
through ``set_q_to_fit_transform`` and ``set_u_to_fit_velocity``. Those maps are
gathered as plain callables of the body's own q and u (``MobilizerFunctions``) and
checked by ``check_mobilizer_functions``, which can be handed any callables
(``mobilizer_functions(mobod, state)`` gives those of a body).

**The identities**, at the State's q (with random speeds u, random reachable rates q̇ and a
random spatial force F, ``seed``):

1. ``calc_mobilizer_transform_from_q``: R_FM is a rotation;
2. ``multiply_by_h_matrix`` / ``multiply_by_n``: H u = d/dt X_FM along q̇ = N u, q̇ as the
   State realizes it (the angular part from Ṙ_FM R_FMᵀ, the linear part ṗ_FM);
3. ``multiply_by_h_matrix`` / ``multiply_by_n_inv``: H N⁻¹ q̇ = d/dt X_FM along a
   reachable q̇: random, with a quaternion's radial part removed, which uses N⁻¹ and not
   N; where fewer u than such rates (LineOrientation, FreeLine) q̇ = N u' instead;
4. ``multiply_by_n_inv``: N⁻¹ N u = u, and N N⁻¹ q̇ = q̇ for the reachable q̇;
5. ``multiply_by_h_transpose``: Hᵀ F = (the columns of H)·F for F = [moment; force] at M's
   origin in F, through the force path (Jᵀ of the same force moved to B's origin in G);
6. ``multiply_by_h_dot_matrix``: HDot·u = d/dt (H u) along q̇ = N u;
7. ``set_q_to_fit_transform``: fitting X_FM(q), from the default q, gives back X_FM;
8. ``set_u_to_fit_velocity``: fitting V_FM = H u, from u = 0, gives back V_FM.

Checks 2-4 share three methods; a failure is charged to the one the pattern points at:
2 and 3 failing with 4 passing is H (or N and N⁻¹ wrong alike, which no kinematic test
can tell from a reparametrized u: a note says so); 2 and 4 failing with 3 passing is N;
3 and 4 failing with 2 passing is N⁻¹ (and all three failing is N where 3 drew its q̇
from N). When every check against X_FM fails, a note says
that X_FM may be the one to fix. An exception raised by a method becomes a failed entry
naming it.

**Finite differences and tolerances** are check_constraint's: central differences with the
step chosen so that the fastest coordinate moves by ``step`` (1e-4 rad or m),
Richardson-extrapolated from h, h/2, h/4 with the difference of the two extrapolations as
the error estimate, and each comparison passes when

    max |got - expected| <= rtol · scale + min(2 · fd_error, 1e-3 · scale) + atol,

scale being the largest magnitude among the quantities compared, rtol = 1e-6 and
atol = 1e-12 by default.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.check_constraint import (
    FD_CAP,
    CheckEntry,
    CheckReport,
    _central,
    _max_abs,
    _step,
)
from kinetree.multibody.mobilized_body import MobilizedBody
from kinetree.multibody.mobilizers import custom
from kinetree.system.stage import Stage

TRANSFORM = "calc_mobilizer_transform_from_q"
H_MATRIX = "multiply_by_h_matrix"
H_TRANSPOSE = "multiply_by_h_transpose"
H_DOT = "multiply_by_h_dot_matrix"
N_MATRIX = "multiply_by_n"
N_INVERSE = "multiply_by_n_inv"
FIT_Q = "set_q_to_fit_transform"
FIT_U = "set_u_to_fit_velocity"

_BUILT_IN_FUNCTIONS = {TRANSFORM: "x_fm", H_MATRIX: "h_fm", H_TRANSPOSE: "h_fm",
                       H_DOT: "hdot_u", N_MATRIX: "n_mult", N_INVERSE: "n_inv_mult",
                       FIT_Q: "q_to_fit_transform", FIT_U: "u_to_fit_velocity"}
"""The function of a built-in mobilizer's module behind each method of a Custom
implementation."""

_METHODS = set(_BUILT_IN_FUNCTIONS) | {"multiply_by_h_dot_transpose", "multiply_by_n_dot"}
"""The methods of a Custom implementation an exception is charged to."""


class MobilizerCheckError(KinetreeError, AssertionError):
    """A mobilizer whose methods disagree with each other (``MobilizerCheck.assert_ok``)."""


@dataclass
class MobilizerCheck(CheckReport):
    """The report of ``check_mobilizer``: one entry (a check_constraint ``CheckEntry``) per
    identity tested."""

    mobilizer: str
    counts: tuple          # (nq, nu)
    entries: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    error = MobilizerCheckError

    def subject(self) -> str:
        return self.mobilizer

    def __str__(self) -> str:
        nq, nu = self.counts
        lines = [f"check_mobilizer: {self.mobilizer} ({nq} q, {nu} u): "
                 f"{'all checks passed' if self.passed else f'{len(self.failures)} FAILED'}"]
        for e in self.entries:
            lines.append(f"  {'ok  ' if e.passed else 'FAIL'}  {e.message()}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


@dataclass
class MobilizerFunctions:
    """One mobilizer's maps as plain callables of its own q (nq) and u (nu), all in F:

    - ``transform(q)`` -> (R_FM 3x3, p_FM 3, m);
    - ``hinge(q)`` -> H_FM (6 x nu), V_FM = [w_FM; v_FM] = H u;
    - ``hinge_transpose(q, F)`` -> Hᵀ F (nu) for F = [moment; force] at M's origin in F;
    - ``hinge_dot_times(q, u)`` -> HDot·u (6);
    - ``n(q, u)`` -> q̇ = N u;  ``n_inv(q, qdot)`` -> N⁻¹ q̇;
    - ``fit_q(R_FM, p_FM)`` -> q;  ``fit_u(q, V_FM)`` -> u;
    - ``tangent(q, v)`` -> v projected onto the rates q̇ the mobilizer can make, found
      without N (a quaternion's radial part removed), or None where that set is not known
      without N (a LineOrientation's quaternion turns M about three axes, its u about
      two); q̇ = N u' for random u' is used then. None (the default) means the identity
      when nq == nu."""

    nq: int
    nu: int
    transform: Callable
    hinge: Callable
    hinge_transpose: Callable
    hinge_dot_times: Callable
    n: Callable
    n_inv: Callable
    fit_q: Callable
    fit_u: Callable
    tangent: Callable | None = None


class _Raised(Exception):
    """An exception raised inside one method's callable, tagged with that method."""

    def __init__(self, method: str, exc: BaseException):
        super().__init__(str(exc))
        self.method, self.exc = method, exc


def _call(method: str, fn, *args):
    """fn(*args) as a float array; an exception is tagged with the innermost of the
    mobilizer methods in its traceback (a custom implementation's), else ``method``."""
    try:
        return np.asarray(fn(*args), dtype=float)
    except _Raised:
        raise
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        for frame, _ in traceback.walk_tb(exc.__traceback__):
            if frame.f_code.co_name in _METHODS and "self" in frame.f_locals:
                method = frame.f_code.co_name
        raise _Raised(method, exc) from exc


def _unskew(W: np.ndarray) -> np.ndarray:
    return 0.5 * np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]])


class _Checker:
    """The evaluations and comparisons of one run."""

    def __init__(self, f: MobilizerFunctions, rtol, atol, step):
        self.f = f
        self.rtol, self.atol, self.step = rtol, atol, step
        self.entries: list = []
        self.keyed: dict = {}

    def transform(self, q):
        """X_FM(q) as one 12-vector [R_FM by rows; p_FM]."""
        return _call(TRANSFORM, lambda: np.concatenate([
            np.asarray(x, dtype=float).ravel() for x in self.f.transform(q)]))

    def rate_of_transform(self, q, qdot):
        """(V_FM, error estimate): d/dt X_FM along q + t q̇, as [w_FM; v_FM] in F."""
        h = _step(self.step, *qdot)
        if not h:
            return np.zeros(6), 0.0
        d, err = _central(lambda s: self.transform(q + s * qdot), h)
        R = self.transform(q)[:9].reshape(3, 3)
        return np.concatenate([_unskew(d[:9].reshape(3, 3) @ R.T), d[9:]]), err

    def compare(self, key, method, claim, negation, got, expected, *, terms=(), fd_error=0.0,
                names=("got", "expected"), rows=None):
        got = np.atleast_1d(np.asarray(got, float))
        expected = np.atleast_1d(np.asarray(expected, float))
        diff = np.abs(got - expected)
        disc = float(np.max(diff, initial=0.0))
        scale = _max_abs(got, expected, *terms)
        tol = self.rtol * scale + min(2.0 * fd_error, FD_CAP * scale) + self.atol
        passed = bool(disc <= tol) and bool(np.all(np.isfinite(diff)))
        detail = ""
        if not passed and diff.size:
            i = int(np.nanargmax(np.where(np.isfinite(diff), diff, np.inf)))
            where = f"{rows[i]}: " if rows is not None else f"component {i}: "
            detail = f"{where}{names[0]} = {got[i]:.6g}, {names[1]} = {expected[i]:.6g}"
            if fd_error > 0:
                detail += f" (finite-difference error estimate {fd_error:.1e})"
        entry = CheckEntry(method, claim, negation, disc if np.isfinite(disc) else float("inf"),
                           scale, tol, passed, detail)
        self.entries.append(entry)
        self.keyed[key] = entry

    def guarded(self, key, method: str, claim: str, run) -> None:
        """Run one check; an exception raised by a method becomes a failed entry naming
        that method (or ``method`` when it came from elsewhere)."""
        try:
            run()
        except Exception as exc:  # noqa: BLE001 - any user error is reported, not raised
            if isinstance(exc, _Raised):
                method, exc = exc.method, exc.exc
            entry = CheckEntry(method, claim, f"raised {type(exc).__name__} while checking "
                               f"that it {claim}", float("inf"), 0.0, 0.0, False,
                               str(exc).splitlines()[0] if str(exc) else "")
            self.entries.append(entry)
            self.keyed[key] = entry


_V_ROWS = ("w_FM x", "w_FM y", "w_FM z", "v_FM x", "v_FM y", "v_FM z")
_X_ROWS = tuple(f"R_FM[{i}, {j}]" for i in range(3) for j in range(3)) + (
    "p_FM x", "p_FM y", "p_FM z")


def check_mobilizer_functions(label: str, functions: MobilizerFunctions, q, *, seed: int = 0,
                              rtol: float = 1e-6, atol: float = 1e-12,
                              step: float = 1e-4) -> MobilizerCheck:
    """Check numerically that the maps in ``functions`` agree with each other at q (see the
    module docstring for the identities and tolerances); ``check_mobilizer`` calls this
    with the maps a State realizes for one body."""
    f = functions
    q = np.array(q, dtype=float)
    report = MobilizerCheck(label, (f.nq, f.nu))
    if f.nu == 0:
        report.notes.append("nothing to check: the mobilizer has no mobilities")
        return report
    rng = np.random.default_rng(seed)
    u = rng.uniform(-1.0, 1.0, f.nu)
    F = rng.uniform(-1.0, 1.0, 6)
    k = _Checker(f, rtol, atol, step)
    shared: dict = {}

    def hinge():
        if "H" not in shared:
            shared["H"] = _call(H_MATRIX, f.hinge, q).reshape(6, f.nu)
        return shared["H"]

    def qdot_of_u():
        if "qdot" not in shared:
            shared["qdot"] = _call(N_MATRIX, f.n, q, u)
        return shared["qdot"]

    v = rng.uniform(-1.0, 1.0, f.nq)
    if f.tangent is not None:
        reachable = f.tangent(q, v)
    else:
        reachable = v if f.nq == f.nu else None
    if reachable is None:
        u_reach = rng.uniform(-1.0, 1.0, f.nu)
        report.notes.append("the rates for the N⁻¹ checks are q̇ = N u' (random u'): which "
                            "rates the mobilizer can make is not known without N")

    def tangent_qdot():
        if "tangent" not in shared:
            shared["tangent"] = np.asarray(reachable, dtype=float) if reachable is not None \
                else _call(N_MATRIX, f.n, q, u_reach)
        return shared["tangent"]

    def is_rotation():
        R = k.transform(q)[:9].reshape(3, 3)
        k.compare("rotation", TRANSFORM, "gives a rotation R_FM (R_FMᵀ R_FM = 1, det = 1)",
                  "does not give a rotation R_FM", np.r_[(R.T @ R).ravel(), np.linalg.det(R)],
                  np.r_[np.eye(3).ravel(), 1.0], names=("R_FMᵀ R_FM", "identity"))

    def rate_along_n():
        V, err = k.rate_of_transform(q, qdot_of_u())
        k.compare("rate_n", H_MATRIX,
                  "agrees with the rate of X_FM along q̇ = N u (V_FM = H u)",
                  "disagrees with the rate of X_FM along q̇ = N u (H u should be "
                  "d/dt X_FM)", hinge() @ u, V, fd_error=err, names=("H u", "d/dt X_FM"),
                  rows=_V_ROWS)

    def rate_along_tangent():
        qdot = tangent_qdot()
        V, err = k.rate_of_transform(q, qdot)
        k.compare("rate_n_inv", H_MATRIX,
                  "agrees with the rate of X_FM along a reachable q̇ with u = N⁻¹ q̇",
                  "disagrees with the rate of X_FM along a reachable q̇ with u = N⁻¹ q̇ "
                  "(H N⁻¹ q̇ should be d/dt X_FM)",
                  hinge() @ _call(N_INVERSE, f.n_inv, q, qdot), V, fd_error=err,
                  names=("H N⁻¹ q̇", "d/dt X_FM"), rows=_V_ROWS)

    def n_inv_inverts_n():
        k.compare("inverse_u", N_INVERSE, "is consistent with the other N method (N⁻¹ N u = u)",
                  "is inconsistent with the other N method (N⁻¹ N u should be u)",
                  _call(N_INVERSE, f.n_inv, q, qdot_of_u()), u, names=("N⁻¹ N u", "u"),
                  rows=[f"u[{i}]" for i in range(f.nu)])

    def n_inverts_n_inv():
        qdot = tangent_qdot()
        k.compare("inverse_q", N_INVERSE,
                  "is consistent with the other N method on reachable rates (N N⁻¹ q̇ = q̇)",
                  "is inconsistent with the other N method on reachable rates (N N⁻¹ q̇ "
                  "should be q̇)",
                  _call(N_MATRIX, f.n, q, _call(N_INVERSE, f.n_inv, q, qdot)), qdot,
                  names=("N N⁻¹ q̇", "q̇"), rows=[f"q̇[{i}]" for i in range(f.nq)])

    def transpose():
        k.compare("transpose", H_TRANSPOSE,
                  "is the transpose of multiply_by_h_matrix (Hᵀ F = columns of H · F)",
                  "is not the transpose of multiply_by_h_matrix (the generalized forces of "
                  "a spatial force F on M should be Hᵀ F)",
                  _call(H_TRANSPOSE, f.hinge_transpose, q, F), hinge().T @ F,
                  names=("Hᵀ F (force path)", "H columns · F"),
                  rows=[f"f[{i}]" for i in range(f.nu)])

    def h_dot():
        qdot = qdot_of_u()
        h = _step(step, *qdot)
        if h:
            dHu, err = _central(lambda s: _call(H_MATRIX, f.hinge, q + s * qdot).reshape(
                6, f.nu) @ u, h)
        else:
            dHu, err = np.zeros(6), 0.0
        k.compare("hdot", H_DOT, "is the time derivative of H u (along q̇ = N u)",
                  "disagrees with d/dt (H u) (along q̇ = N u)",
                  _call(H_DOT, f.hinge_dot_times, q, u), dHu, fd_error=err,
                  terms=(hinge() @ u * _max_abs(qdot),),
                  names=("HDot u", "d/dt (H u)"), rows=_V_ROWS)

    def fit_q():
        X = k.transform(q)
        q_fit = _call(FIT_Q, f.fit_q, X[:9].reshape(3, 3), X[9:])
        k.compare("fit_q", FIT_Q, "gives back the X_FM(q) it is handed (from the default q)",
                  "does not give back the X_FM(q) it is handed (from the default q)",
                  k.transform(q_fit), X, names=("X_FM(fitted q)", "X_FM"), rows=_X_ROWS)

    def fit_u():
        V = hinge() @ u
        u_fit = _call(FIT_U, f.fit_u, q, V)
        k.compare("fit_u", FIT_U, "gives back the V_FM = H u it is handed (from u = 0)",
                  "does not give back the V_FM = H u it is handed (from u = 0)",
                  hinge() @ u_fit, V, names=("H (fitted u)", "V_FM"), rows=_V_ROWS)

    k.guarded("rotation", TRANSFORM, "gives a rotation R_FM", is_rotation)
    k.guarded("rate_n", H_MATRIX, "agrees with the rate of X_FM along q̇ = N u", rate_along_n)
    k.guarded("rate_n_inv", H_MATRIX, "agrees with the rate of X_FM along q̇, u = N⁻¹ q̇",
              rate_along_tangent)
    k.guarded("inverse_u", N_INVERSE, "is consistent with the other N method (N⁻¹ N u = u)",
              n_inv_inverts_n)
    k.guarded("inverse_q", N_INVERSE, "is consistent with the other N method (N N⁻¹ q̇ = q̇)",
              n_inverts_n_inv)
    k.guarded("transpose", H_TRANSPOSE, "is the transpose of multiply_by_h_matrix", transpose)
    k.guarded("hdot", H_DOT, "is the time derivative of H u", h_dot)
    k.guarded("fit_q", FIT_Q, "gives back the X_FM it is handed", fit_q)
    k.guarded("fit_u", FIT_U, "gives back the V_FM it is handed", fit_u)
    report.entries.extend(k.entries)
    _attribute(report, k.keyed, through_n=reachable is None)
    return report


def _attribute(report: MobilizerCheck, keyed: dict, through_n: bool) -> None:
    """Charge the failures of the checks that H, N and N⁻¹ share to the method their
    pattern points at, and add the notes for the cases no pattern settles (``through_n``:
    the N⁻¹ checks drew their rates from N)."""
    def failed(key):
        return key in keyed and not keyed[key].passed and keyed[key].method in (
            H_MATRIX, N_MATRIX, N_INVERSE)

    along_n, along_inv = failed("rate_n"), failed("rate_n_inv")
    inverse = failed("inverse_u") or failed("inverse_q")
    if (along_n and not along_inv) or (through_n and along_n and along_inv and inverse):
        for key in ("rate_n", "rate_n_inv", "inverse_u", "inverse_q"):
            if failed(key):
                keyed[key].method = N_MATRIX
    elif along_inv and not along_n:
        keyed["rate_n_inv"].method = N_INVERSE
    elif along_n and along_inv and not inverse:
        report.notes.append(
            f"{H_MATRIX} is charged because the rates of X_FM through both {N_MATRIX} and "
            f"{N_INVERSE} disagree with H while those two invert each other; if H is what you "
            f"meant, N and N⁻¹ are both wrong in the same way")
    if along_n and ("hdot" in keyed and not keyed["hdot"].passed):
        report.notes.append(f"the {H_DOT} check moves q along q̇ = N u; fix the rate checks "
                            f"first")
    against_x = [keyed[key] for key in ("rate_n", "rate_n_inv", "fit_q") if key in keyed]
    if against_x and all(not e.passed for e in against_x):
        report.notes.append(
            f"every check against X_FM fails; if the other methods agree with each other, "
            f"{TRANSFORM} is the one to fix")


# ------------------------------------------------------------------ the tool
def mobilizer_functions(mobod: MobilizedBody, state) -> MobilizerFunctions:
    """The maps that ``state`` realizes for ``mobod``'s mobilizer, as callables of its own
    q and u: each evaluation realizes a copy of ``state`` with every constraint disabled,
    every other speed zero and only this body's q and u changed (``state`` is untouched)."""
    _check_mobilized_body(mobod, "mobilizer_functions")
    matter = mobod.get_matter_subsystem()
    system = matter.get_system()
    work = state.copy()
    for i in range(matter.get_num_constraints()):
        constraint = matter.get_constraint(i)
        if not constraint.is_disabled(work):
            constraint.disable(work)
    system.realize(work, Stage.MODEL)
    work.set_u(np.zeros(len(work.get_u())))
    b = mobod.get_mobilized_body_index()
    d = matter.get_tree_data(work, Stage.MODEL, "check_mobilizer")
    qs, nq = int(d.tree.q_start[b]), int(d.tree.nq[b])
    us, nu = int(d.tree.u_start[b]), int(d.tree.nu[b])
    quaternions = [row - qs for row in d.quaternion_q if qs <= row[0] < qs + nq]
    q_default = mobod.get_default_q(matter.get_use_euler_angles(work))

    def realized(q, u=None, stage=Stage.POSITION):
        s = work.copy()
        mobod.set_q(s, q)
        if u is not None:
            mobod.set_u(s, u)
        system.realize(s, stage)
        return s, matter.get_tree_data(s, stage, "check_mobilizer").cache

    def transform(q):
        _, c = realized(q)
        return c.R_FM[b].copy(), c.p_FM[b].copy()

    def hinge(q):
        return realized(q)[1].H_F_cols[us:us + nu].T.copy()

    impl = getattr(mobod, "get_implementation", lambda: None)()

    def hinge_transpose(q, F_M):
        s, c = realized(q)
        if hasattr(impl, H_TRANSPOSE) and not mobod.is_reversed():
            # a reversed body's H is its implementation's turned around: the force path
            return getattr(impl, H_TRANSPOSE)(s, np.array(F_M, dtype=float))
        m, f = np.asarray(F_M[:3], float), np.asarray(F_M[3:], float)
        F = np.zeros((matter.get_num_bodies(), 6))
        F[b, :3] = c.R_GF[b] @ (m + np.cross(f, c.r_F[b]))
        F[b, 3:] = c.R_GF[b] @ f
        return matter.multiply_by_system_jacobian_transpose(s, F)[us:us + nu]

    def hinge_dot_times(q, u):
        _, c = realized(q, u, Stage.VELOCITY)
        R_FG, r_F, w_FM = c.R_GF[b].T, c.r_F[b], c.V_FM[b, :3]
        a = R_FG @ c.c[b, :3]
        lin = R_FG @ c.c[b, 3:] - np.cross(a, r_F) - np.cross(w_FM, np.cross(w_FM, r_F))
        return np.concatenate([a, lin])

    def n(q, u):
        s, _ = realized(q, u, Stage.VELOCITY)
        return np.array(mobod.get_q_dot(s))

    def n_inv(q, qdot):
        s, _ = realized(q)
        full = np.zeros(d.qdotdot_work.size)
        full[qs:qs + nq] = qdot
        return matter.multiply_by_n_inv(s, full)[us:us + nu]

    def fit_q(R, p):
        s = work.copy()
        mobod.set_q(s, q_default)
        mobod.set_q_to_fit_transform(s, Transform(Rotation._trusted(np.array(R)), np.array(p)))
        return np.array(mobod.get_q(s))

    def fit_u(q, V):
        s, _ = realized(q, np.zeros(nu))
        mobod.set_u_to_fit_velocity(s, V)
        return np.array(mobod.get_u(s))

    def tangent(q, v):
        if nq - len(quaternions) != nu:
            return None
        v = np.array(v, dtype=float)
        for rows in quaternions:
            e = q[rows] / np.linalg.norm(q[rows])
            v[rows] -= (v[rows] @ e) * e
        return v

    return MobilizerFunctions(nq, nu, transform, hinge, hinge_transpose, hinge_dot_times, n,
                              n_inv, fit_q, fit_u, tangent)


def _check_mobilized_body(mobod, where: str) -> None:
    if not isinstance(mobod, MobilizedBody) or mobod.is_ground():
        raise InvalidArgumentError(
            f"{where}: expected a kt.MobilizedBody other than Ground (for example "
            f"kt.MobilizedBody.Ball(parent, body)), got {mobod!r}.")


def _label(mobod: MobilizedBody) -> str:
    """"MobilizedBody 3 (Pin)", or for a Custom "MobilizedBody 3 (Custom: MyKnee)"."""
    kind = type(mobod).__name__
    if kind == "Custom":
        kind += f": {type(mobod.get_implementation()).__name__}"
    return f"MobilizedBody {mobod.get_mobilized_body_index()} ({kind})"


def _mode(mobod: MobilizedBody, work) -> str:
    """" (quaternion)" or " (Euler angles)" for a mobilizer that has both modes, else ""."""
    matter = mobod.get_matter_subsystem()
    d = matter.get_tree_data(work, Stage.MODEL, "check_mobilizer")
    b = mobod.get_mobilized_body_index()
    if any(d.tree.q_start[b] <= row[0] < d.tree.q_start[b] + d.tree.nq[b]
           for row in d.quaternion_q):
        return " (quaternion)"
    if matter.get_use_euler_angles(work) and hasattr(mobod._module, "NQ_EULER"):
        return " (Euler angles)"
    return ""


def check_mobilizer(mobilized_body, state, *, seed: int = 0, rtol: float = 1e-6,
                    atol: float = 1e-12, step: float = 1e-4) -> MobilizerCheck:
    """Check numerically that ``mobilized_body``'s mobilizer methods agree with each other
    at ``state``'s q (see the module docstring for the identities and tolerances), with
    random speeds (``seed``). Returns a MobilizerCheck; call ``.assert_ok()`` on it to raise,
    naming the method that is wrong. ``state`` is left untouched."""
    _check_mobilized_body(mobilized_body, "check_mobilizer")
    for name, value in (("rtol", rtol), ("step", step)):
        if not (np.isfinite(value) and value > 0):
            raise InvalidArgumentError(
                f"check_mobilizer: {name} must be a positive number, got {value!r}.")
    if not (np.isfinite(atol) and atol >= 0):
        raise InvalidArgumentError(f"check_mobilizer: atol must be >= 0, got {atol!r}.")
    work = state.copy()
    mobilized_body.get_matter_subsystem().get_system().realize(work, Stage.MODEL)
    functions = mobilizer_functions(mobilized_body, work)
    label = _label(mobilized_body) + _mode(mobilized_body, work)
    q = np.array(mobilized_body.get_q(work))
    report = check_mobilizer_functions(label, functions, q, seed=seed, rtol=rtol, atol=atol,
                                       step=step)
    report.notes.insert(0, f"checked at t = {work.get_time():g} at the State's q, with random "
                           f"speeds (seed {seed}) and every other speed zero")
    module = mobilized_body._module
    if module is not custom and report.failures:
        name = module.__name__.rsplit(".", 1)[1]
        report.notes.append("the methods of this built-in are " + ", ".join(
            f"{m} = {name}.{fn}" for m, fn in _BUILT_IN_FUNCTIONS.items()) + f" (in "
            f"kinetree/multibody/mobilizers/{name}.py)")
    return report
