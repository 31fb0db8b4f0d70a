"""check_constraint: a numerical self-check of one constraint's methods against each other (a
tool beyond Simbody: a wrong custom constraint is hard to find).

A constraint's methods must agree: each error level is the exact time derivative of the one
below, each level is affine in its own variables, and the force methods produce Gᵀλ, the
transpose of the map from velocities (or accelerations) to errors. A mistake in any of them
gives dynamics that look plausible and are wrong. ``check_constraint(constraint, state)``
tests every one of those identities numerically on a copy of ``state`` and returns a
``ConstraintCheck`` report; ``report.assert_ok()`` raises ``ConstraintCheckError`` (a
KinetreeError) naming the method that disagrees and by how much.

**The state used.** The caller's State is never modified. On a copy, every other
constraint is disabled (so only this constraint's methods run, and its equations are the
whole of qerr, uerr and udoterr), u is set to random speeds (``seed``), and the copy is
projected onto this constraint's manifold (``project=True``): q so that perr ≈ 0, and u so
that the velocity errors vanish. The identities are then checked at that q with

- ``x``: random speeds, off the velocity manifold (so pverr and verr are not zero);
- ``y``: random accelerations u̇ (acceleration errors are evaluated at a trial u̇ as
  G y + bias, as the solver does);
- ``λ``: random multipliers.

Projection matters for constraints written with Simbody's coincident-point trick (Ball,
Weld, ...), whose pverr equals d/dt perr only where perr = 0, and whose paerr equals
d/dt pverr only where pverr = 0 as well. System.project uses the constraint's own pverr
and forces; when it fails (a badly wrong pverr slows its Newton steps), Newton steps whose
Jacobian is a finite difference of perr alone take over, and when those fail too the
report carries a failed ``(projection)`` entry and the checks run off the manifold.

**The reference of each kind.** Each check compares one method with the one that *defines*
the constraint, so that a failure names one method:

holonomic (perr defines it), P x meaning ∂perr/∂q · N x (a finite difference of perr at
fixed t along q̇ = N x):

1. ``calc_position_dot_errors``: pverr(x) = d/dt perr along q̇ = N x (t moves too);
2. ``calc_position_dot_dot_errors``: its u̇ coefficients are P: paerr(y) - paerr(0) = P y;
3. ``calc_position_dot_dot_errors``: paerr(y) = d²/dt² perr along the motion with the
   projected u and u̇ = y (second difference along q + s q̇ + s²/2 q̈, q̈ = Ṅu + N y);
4. ``add_in_position_constraint_forces``: the power of Gᵀλ against x equals λ·P x;

nonholonomic (verr defines it), V x = verr(x) - verr(0):

5. ``calc_velocity_dot_errors``: vaerr(y) - vaerr(0) = V y, and vaerr(y) = d/dt verr along
   the motion with the projected u and u̇ = y;
6. ``add_in_velocity_constraint_forces``: (Gᵀλ)·x = λ·V x;

acceleration-only (aerr defines it), A y = aerr(y) - aerr(0):

7. ``add_in_acceleration_constraint_forces``: (Gᵀλ)·x = λ·A x;

and for every kind: pverr and verr are affine in u, paerr, vaerr and aerr are affine in u̇,
and the velocity-level methods take the velocities from their arguments (errors at trial
speeds, as the solver evaluates them, equal those realized in a State with those speeds).
An exception raised by a method becomes a failed entry naming it. When every method checked
against perr (or verr) fails, the report notes that the defining method may be the one to
fix.

**Finite differences and tolerances.** The first differences are central, with step h
chosen so that the largest coordinate moves by ``step`` (1e-4: radians or meters) and t by
at most ``step`` seconds; the second differences move coordinates by 30·``step``, where
truncation and round-off (~ε/h²) balance. Each is Richardson-extrapolated (error O(h⁴))
from steps h and h/2 and again from h/2 and h/4; the difference of the two extrapolations
is the finite-difference error estimate fd_error. Each comparison passes when

    max |got - expected| <= rtol · scale + min(2 · fd_error, 1e-3 · scale) + atol,

scale being the largest magnitude among the quantities compared (for the force checks,
the sum of the magnitudes of the terms of each dot product), rtol = 1e-6 and
atol = 1e-12 by default. A correct constraint typically comes out near 1e-10 relative; a
missing term or a wrong factor near 1e-2 to 1.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.multibody import constraint_solver as cs
from kinetree.multibody.constraint import Constraint
from kinetree.system.stage import Stage

FD_CAP = 1e-3
"""The finite-difference allowance never exceeds this fraction of the scale: a derivative
that finite differences cannot pin down better than that is reported, not excused."""

SECOND_DIFFERENCE_FACTOR = 30.0
"""Second differences move the coordinates this many times ``step``."""

AFFINE_ALPHA = 1.7
"""f(α x) is compared with α f(x) + (1 - α) f(0): zero for affine f, -α(1-α)·(the quadratic
part) otherwise."""

_VIRTUALS = (
    "calc_position_errors", "calc_position_dot_errors", "calc_position_dot_dot_errors",
    "add_in_position_constraint_forces", "calc_velocity_errors", "calc_velocity_dot_errors",
    "add_in_velocity_constraint_forces", "calc_acceleration_errors",
    "add_in_acceleration_constraint_forces",
)


class ConstraintCheckError(KinetreeError, AssertionError):
    """A constraint whose methods disagree with each other (``ConstraintCheck.assert_ok``)."""


@dataclass
class CheckEntry:
    """One identity tested: ``method`` (the method judged) ``claim``s, within tolerance."""

    method: str
    claim: str             # "is the time derivative of calc_position_errors ..."
    negation: str          # "is not the time derivative of calc_position_errors ..."
    discrepancy: float     # max |got - expected|, in the errors' own units
    scale: float
    tolerance: float       # absolute, comparable with discrepancy
    passed: bool
    detail: str = ""

    @property
    def relative(self) -> float:
        """The discrepancy as a fraction of the scale."""
        return self.discrepancy / self.scale if self.scale > 0 else 0.0

    @property
    def vacuous(self) -> bool:
        """True when everything compared is itself within the tolerance (a check that says
        nothing, as for a constraint that the motion does not change)."""
        return self.scale <= self.tolerance

    @property
    def relative_tolerance(self) -> float:
        return self.tolerance / self.scale if self.scale > 0 else self.tolerance

    def message(self) -> str:
        """A sentence naming the method and how far off it is."""
        if not np.isfinite(self.discrepancy):       # raised, or could not be evaluated
            return f"{self.method} {self.negation}" + (f": {self.detail}" if self.detail
                                                       else "")
        if self.passed and self.vacuous:
            return (f"{self.method} {self.claim}: vacuous here, the quantities compared are "
                    f"below the tolerance ({self.tolerance:.1e}) themselves")
        if self.passed:
            return (f"{self.method} {self.claim}: agrees to {self.relative:.1e} (relative; "
                    f"tolerance {self.relative_tolerance:.1e})")
        size = (f"off by {self.relative:.2g} (relative; |Δ| = {self.discrepancy:.3g} at "
                f"scale {self.scale:.3g}, tolerance {self.relative_tolerance:.1e})")
        return f"{self.method} {self.negation}: {size}" + (
            f"; {self.detail}" if self.detail else "")


class CheckReport:
    """What the reports of the self-checks share (ConstraintCheck, MobilizerCheck): the
    entries, which failed, and ``assert_ok``. A report names what it checked in
    ``subject()`` and raises its ``error`` class."""

    error = KinetreeError

    def subject(self) -> str:
        raise NotImplementedError

    @property
    def passed(self) -> bool:
        return all(e.passed for e in self.entries)

    @property
    def failures(self) -> list:
        return [e for e in self.entries if not e.passed]

    def failing_methods(self) -> list:
        """The names of the methods with at least one failed check, in check order."""
        seen: list = []
        for e in self.failures:
            if e.method not in seen:
                seen.append(e.method)
        return seen

    def entries_for(self, method: str) -> list:
        return [e for e in self.entries if e.method == method]

    def assert_ok(self):
        """Raise the report's error naming the first method that disagrees (and listing
        every failed check) unless all passed; returns the report otherwise."""
        failures = self.failures
        if failures:
            lines = [f"{self.subject()}: {failures[0].message()}"]
            lines += [f"  also: {e.message()}" for e in failures[1:]]
            lines += [f"  note: {n}" for n in self.notes]
            raise self.error("\n".join(lines))
        return self


@dataclass
class ConstraintCheck(CheckReport):
    """The report of ``check_constraint``: one entry per identity tested."""

    constraint: str
    counts: tuple          # (mp, mv, ma)
    entries: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    error = ConstraintCheckError

    def subject(self) -> str:
        return self.constraint

    def __str__(self) -> str:
        mp, mv, ma = self.counts
        lines = [f"check_constraint: {self.constraint} ({mp} holonomic, {mv} nonholonomic, "
                 f"{ma} acceleration-only equations): "
                 f"{'all checks passed' if self.passed else f'{len(self.failures)} FAILED'}"]
        for e in self.entries:
            lines.append(f"  {'ok  ' if e.passed else 'FAIL'}  {e.message()}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


# ------------------------------------------------------------------- helpers
def _max_abs(*arrays) -> float:
    return max((float(np.max(np.abs(np.asarray(a, dtype=float)), initial=0.0))
                for a in arrays), default=0.0)


def _extrapolated(d, h: float):
    """Richardson extrapolation of a difference quotient d(k) = f⁽ⁿ⁾(0) + O(k²): the
    extrapolations from (h, h/2) and from (h/2, h/4); returns the second and, as its error
    estimate, their difference (truncation and round-off together)."""
    d1, d2, d3 = d(h), d(h / 2), d(h / 4)
    r1, r2 = (4 * d2 - d1) / 3, (4 * d3 - d2) / 3
    return r2, _max_abs(r1 - r2)


def _central(f, h: float):
    """(f'(0), error estimate) from central differences."""
    return _extrapolated(lambda k: (f(k) - f(-k)) / (2 * k), h)


def _second(f, h: float):
    """(f''(0), error estimate) from second differences."""
    f0 = f(0.0)
    return _extrapolated(lambda k: (f(k) - 2 * f0 + f(-k)) / (k * k), h)


def _step(size: float, *rates: float) -> float:
    """The time step that moves the fastest of the given rates by ``size``."""
    fastest = max((abs(r) for r in rates), default=0.0)
    return size / fastest if fastest > 0 else 0.0


def _culprit(exc: BaseException, impl, default: str) -> str:
    """The innermost of the implementation's virtual methods in the exception's
    traceback, else ``default``."""
    name = default
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_name in _VIRTUALS and frame.f_locals.get("self") is impl:
            name = frame.f_code.co_name
    return name


class _Checker:
    """The copies of the State, the evaluations and the comparisons of one run."""

    def __init__(self, constraint, work, rtol, atol, step):
        self.c = constraint
        self.impl = constraint.get_implementation()
        self.matter = constraint.get_matter_subsystem()
        self.system = self.matter.get_system()
        self.W = work
        self.rtol, self.atol, self.step = rtol, atol, step
        self.entries: list = []
        self._bias = None

    # ---------------------------------------------------------- evaluations
    def perr(self, t: float, q: np.ndarray) -> np.ndarray:
        s = self.W.copy()
        s.set_time(t)
        s.set_q(q)
        self.system.realize(s, Stage.POSITION)
        return self.c.get_position_errors_as_vector(s)

    def uerr(self, u: np.ndarray, t: float | None = None,
             q: np.ndarray | None = None) -> np.ndarray:
        """[pverr; verr] realized in a copy with speeds u (and t, q when given)."""
        s = self.W.copy()
        if t is not None:
            s.set_time(t)
        if q is not None:
            s.set_q(q)
        s.set_u(u)
        self.system.realize(s, Stage.VELOCITY)
        return self.c.get_velocity_errors_as_vector(s)

    def udoterr(self, y: np.ndarray) -> np.ndarray:
        """[paerr; vaerr; aerr] at the trial u̇ = y: G y + bias, the solver's evaluation."""
        if self._bias is None:
            self._bias = self.matter.calc_bias_for_multiply_by_g(self.W)
        return self.matter.multiply_by_g(self.W, y) + self._bias

    def forces(self, lam: np.ndarray) -> np.ndarray:
        """Gᵀλ as generalized forces: Jᵀ F + f, q-space forces through Nᵀ."""
        return self.matter.multiply_by_g_transpose(self.W, lam)

    def trial_velocity_map(self, x: np.ndarray) -> np.ndarray:
        """[P; V] x evaluated as the solver does: velocity errors at trial speeds x minus
        those at zero, in the State realized with other speeds."""
        d, data = self.matter._constraint_operands(self.W, Stage.VELOCITY, "check_constraint")
        return cs.multiply_by_velocity_g(self.W, data, d, x)

    # ---------------------------------------------------------- comparisons
    def compare(self, method, claim, negation, got, expected, *, terms=(), fd_error=0.0,
                names=("got", "expected"), rows=None, scale=None):
        got, expected = np.atleast_1d(np.asarray(got, float)), np.atleast_1d(
            np.asarray(expected, float))
        diff = np.abs(got - expected)
        disc = float(np.max(diff, initial=0.0))
        if scale is None:
            scale = _max_abs(got, expected, *terms)
        allow = min(2.0 * fd_error, FD_CAP * scale)
        tol = self.rtol * scale + allow + self.atol
        passed = bool(disc <= tol) and bool(np.all(np.isfinite(diff)))
        detail = ""
        if not passed and diff.size:
            i = int(np.nanargmax(np.where(np.isfinite(diff), diff, np.inf)))
            where = f"equation {rows[i]}: " if rows is not None else ""
            detail = (f"{where}{names[0]} = {got[i]:.6g}, {names[1]} = {expected[i]:.6g}")
            if fd_error > 0:
                detail += f" (finite-difference error estimate {fd_error:.1e})"
        self.entries.append(CheckEntry(method, claim, negation,
                                       disc if np.isfinite(disc) else float("inf"), scale,
                                       tol, passed, detail))

    def power(self, method, kind, gt_lam, x, lam, mapped, fd_error=0.0, map_name="G x"):
        """(Gᵀλ)·x against λ·(G x): scale = the sum of the magnitudes of the terms."""
        left, right = gt_lam * x, lam * mapped
        scale = max(float(np.sum(np.abs(left))), float(np.sum(np.abs(right))))
        self.compare(
            method,
            f"produces the transpose of the {kind} map ((Gᵀλ)·x = λ·{map_name})",
            f"does not produce the transpose of the {kind} map: the power of its forces "
            f"against random speeds x is not λ·{map_name}",
            float(np.sum(left)), float(np.sum(right)),
            fd_error=float(np.sum(np.abs(lam))) * fd_error, scale=scale,
            names=("(Gᵀλ)·x", f"λ·{map_name}"))

    def guarded(self, default_method: str, claim: str, run) -> None:
        """Run one check; an exception raised by the constraint becomes a failed entry
        naming the method it came from."""
        try:
            run()
        except Exception as exc:  # noqa: BLE001 - any user error is reported, not raised
            method = _culprit(exc, self.impl, default_method)
            self.entries.append(CheckEntry(
                method, claim, f"raised {type(exc).__name__} while checking that it {claim}",
                float("inf"), 0.0, 0.0, False, str(exc).splitlines()[0] if str(exc) else ""))


# ------------------------------------------------------------------ the tool
def check_constraint(constraint, state, *, project: bool = True, seed: int = 0,
                     rtol: float = 1e-6, atol: float = 1e-12, step: float = 1e-4,
                     projection_tolerance: float = 1e-10) -> ConstraintCheck:
    """Check numerically that ``constraint``'s methods agree with each other at ``state``
    (see the module docstring for the identities, the state used and the tolerances).
    Returns a ConstraintCheck; call ``.assert_ok()`` on it to raise, naming the method
    that is wrong. ``state`` is left untouched."""
    if not isinstance(constraint, Constraint):
        raise InvalidArgumentError(
            f"check_constraint: expected a kt.Constraint (for example "
            f"kt.Constraint.Custom(implementation)), got {type(constraint).__name__}.")
    for name, value in (("rtol", rtol), ("step", step),
                        ("projection_tolerance", projection_tolerance)):
        if not (np.isfinite(value) and value > 0):
            raise InvalidArgumentError(
                f"check_constraint: {name} must be a positive number, got {value!r}.")
    if not (np.isfinite(atol) and atol >= 0):
        raise InvalidArgumentError(f"check_constraint: atol must be >= 0, got {atol!r}.")
    matter = constraint.get_matter_subsystem()
    system = matter.get_system()
    impl = constraint.get_implementation()
    label = f"{constraint._name()} ({type(impl).__qualname__})"

    work = state.copy()
    notes = []
    for i in range(matter.get_num_constraints()):
        other = matter.get_constraint(i)
        if other is not constraint and not other.is_disabled(work):
            other.disable(work)
    if constraint.is_disabled(work):
        constraint.enable(work)
        notes.append("the constraint is disabled in the State given; it was enabled in the "
                     "copy checked")
    system.realize(work, Stage.POSITION)
    rng = np.random.default_rng(seed)
    nu = len(work.get_u())
    work.set_u(rng.uniform(-1.0, 1.0, nu))
    q_given = np.array(work.get_q())
    report = ConstraintCheck(label, constraint.get_num_constraint_equations_in_use(work),
                             notes=notes)
    if project:
        failure = _project(constraint, work, projection_tolerance, step)
        moved = float(np.max(np.abs(work.get_q() - q_given), initial=0.0))
        if failure is None:
            notes.append(f"checked at t = {work.get_time():g} after projecting a copy onto "
                         f"the constraint (q moved by {moved:.2g}), with random speeds "
                         f"(seed {seed})")
        else:
            report.entries.append(CheckEntry(
                "(projection)", "projects the State onto the constraint", "failed", float("inf"),
                0.0, 0.0, False, f"{failure}; the checks ran off the manifold, where "
                f"coincident-point "
                f"formulations (Ball, Weld, ...) differ from the derivatives by terms "
                f"proportional to the errors"))
    else:
        notes.append(f"checked at t = {work.get_time():g} at the State's q (not projected), "
                     f"with random speeds (seed {seed})")
    system.realize(work, Stage.VELOCITY)
    mp, mv, ma = report.counts
    m = mp + mv + ma
    if nu == 0 or m == 0:
        notes.append("nothing to check: " + ("the system has no mobilities" if nu == 0
                                             else "the constraint has no equations"))
        return report

    k = _Checker(constraint, work, rtol, atol, step)
    x = rng.uniform(-1.0, 1.0, nu)          # random speeds, off the velocity manifold
    y = rng.uniform(-1.0, 1.0, nu)          # random accelerations
    lam = rng.uniform(-1.0, 1.0, m)
    t0, q0, u_m = work.get_time(), np.array(work.get_q()), np.array(work.get_u())
    P_, V_, A_ = slice(0, mp), slice(mp, mp + mv), slice(mp + mv, m)
    zero = np.zeros(nu)
    a = AFFINE_ALPHA
    shared: dict = {}

    def velocity_errors():
        if "x" not in shared:
            shared["x"] = k.uerr(x)
            shared["0"] = k.uerr(zero)
        return shared["x"], shared["0"]

    def acceleration_errors():
        if "ay" not in shared:
            shared["ay"], shared["a0"], shared["ax"] = k.udoterr(y), k.udoterr(zero), \
                k.udoterr(x)
        return shared["ay"], shared["a0"], shared["ax"]

    def only(block):
        out = np.zeros(m)
        out[block] = lam[block]
        return out

    # ------------------------------------------------------------ holonomic
    if mp:
        qdot_x = matter.multiply_by_n(work, False, x)

        def position_map():
            """P x = ∂perr/∂q · N x (t fixed), with its error estimate."""
            if "Px" not in shared:
                h = _step(step, *qdot_x)
                shared["Px"] = _central(lambda s: k.perr(t0, q0 + s * qdot_x), h) if h \
                    else (np.zeros(mp), 0.0)
            return shared["Px"]

        def pverr_is_derivative():
            h = _step(step, *qdot_x, 1.0)
            dperr, err = _central(lambda s: k.perr(t0 + s, q0 + s * qdot_x), h)
            ux, u0 = velocity_errors()
            k.compare("calc_position_dot_errors",
                      "is the time derivative of calc_position_errors (q̇ = N u)",
                      "is not the time derivative of calc_position_errors (q̇ = N u)",
                      ux[P_], dperr, terms=(u0[P_],), fd_error=err,
                      names=("pverr", "d/dt perr"), rows=range(mp))

        def paerr_coefficients():
            Px, err = position_map()
            ay, a0, ax = acceleration_errors()
            k.compare("calc_position_dot_dot_errors",
                      "has the u̇ coefficients of d²/dt² calc_position_errors (P = ∂perr/∂q N)",
                      "does not have the u̇ coefficients of d²/dt² calc_position_errors "
                      "(paerr(u̇) - paerr(0) should be P u̇ with P = ∂perr/∂q N)",
                      ax[P_] - a0[P_], Px, terms=(ax[P_], a0[P_]), fd_error=err,
                      names=("paerr(u̇) - paerr(0)", "P u̇"), rows=range(mp))

        def paerr_is_second_derivative():
            qdot_m = np.array(work.get_q_dot())
            qddot = matter.multiply_by_n_dot(work, u_m) + matter.multiply_by_n(work, False, y)
            size = SECOND_DIFFERENCE_FACTOR * step
            h = min(_step(size, *qdot_m, 1.0),
                    np.sqrt(size / max(_max_abs(qddot), 1e-300)))
            p2, err = _second(lambda s: k.perr(t0 + s, q0 + s * qdot_m + 0.5 * s * s * qddot),
                              h)
            ay, a0, _ = acceleration_errors()
            k.compare("calc_position_dot_dot_errors",
                      "is the second time derivative of calc_position_errors",
                      "is not the second time derivative of calc_position_errors "
                      "(along the motion with consistent u and a random u̇)",
                      ay[P_], p2, terms=(a0[P_],), fd_error=err,
                      names=("paerr", "d²/dt² perr"), rows=range(mp))

        def position_forces():
            Px, err = position_map()
            k.power("add_in_position_constraint_forces", "holonomic velocity",
                    k.forces(only(P_)), x, lam[P_], Px, fd_error=err, map_name="P x")

        k.guarded("calc_position_dot_errors",
                  "is the time derivative of calc_position_errors", pverr_is_derivative)
        k.guarded("calc_position_dot_dot_errors",
                  "has the u̇ coefficients of d²/dt² calc_position_errors", paerr_coefficients)
        k.guarded("calc_position_dot_dot_errors",
                  "is the second time derivative of calc_position_errors",
                  paerr_is_second_derivative)
        k.guarded("add_in_position_constraint_forces",
                  "produces the transpose of the holonomic velocity map", position_forces)

    # --------------------------------------------------------- nonholonomic
    if mv:
        def vaerr_coefficients():
            ux, u0 = velocity_errors()
            ay, a0, ax = acceleration_errors()
            k.compare("calc_velocity_dot_errors",
                      "has the u̇ coefficients of d/dt calc_velocity_errors",
                      "does not have the u̇ coefficients of d/dt calc_velocity_errors "
                      "(vaerr(u̇) - vaerr(0) should be V u̇ with V u = verr(u) - verr(0))",
                      ax[V_] - a0[V_], ux[V_] - u0[V_], terms=(ax[V_], a0[V_], ux[V_], u0[V_]),
                      names=("vaerr(u̇) - vaerr(0)", "V u̇"), rows=range(mv))

        def vaerr_is_derivative():
            qdot_m = np.array(work.get_q_dot())
            h = _step(step, *qdot_m, *y, 1.0)
            dverr, err = _central(
                lambda s: k.uerr(u_m + s * y, t0 + s, q0 + s * qdot_m)[V_], h)
            ay, a0, _ = acceleration_errors()
            k.compare("calc_velocity_dot_errors",
                      "is the time derivative of calc_velocity_errors",
                      "is not the time derivative of calc_velocity_errors (along the motion "
                      "with consistent u and a random u̇)",
                      ay[V_], dverr, terms=(a0[V_],), fd_error=err,
                      names=("vaerr", "d/dt verr"), rows=range(mv))

        def velocity_forces():
            ux, u0 = velocity_errors()
            k.power("add_in_velocity_constraint_forces", "nonholonomic velocity",
                    k.forces(only(V_)), x, lam[V_], ux[V_] - u0[V_], map_name="V x")

        k.guarded("calc_velocity_dot_errors",
                  "has the u̇ coefficients of d/dt calc_velocity_errors", vaerr_coefficients)
        k.guarded("calc_velocity_dot_errors", "is the time derivative of calc_velocity_errors",
                  vaerr_is_derivative)
        k.guarded("add_in_velocity_constraint_forces",
                  "produces the transpose of the nonholonomic velocity map", velocity_forces)

    # ---------------------------------------------------- acceleration-only
    if ma:
        def acceleration_forces():
            _, a0, ax = acceleration_errors()
            k.power("add_in_acceleration_constraint_forces", "acceleration-only",
                    k.forces(only(A_)), x, lam[A_], ax[A_] - a0[A_], map_name="A x")

        k.guarded("add_in_acceleration_constraint_forces",
                  "produces the transpose of the acceleration-only map", acceleration_forces)

    # ------------------------------------------- affinity and trial arguments
    levels = [(P_, "calc_position_dot_errors", "calc_position_dot_dot_errors", mp),
              (V_, "calc_velocity_errors", "calc_velocity_dot_errors", mv),
              (A_, None, "calc_acceleration_errors", ma)]
    for rows, velocity_method, acceleration_method, n in levels:
        if not n:
            continue
        if velocity_method is not None:
            block = rows            # uerr = [pverr; verr] shares udoterr's first rows

            def velocity_affine(block=block, method=velocity_method):
                ux, u0 = velocity_errors()
                uax = k.uerr(a * x)
                k.compare(method, "is affine in the speeds u",
                          "is not affine in the speeds u (errors must be G u - c; "
                          "a term quadratic in the velocities?)",
                          uax[block], a * ux[block] + (1 - a) * u0[block],
                          terms=(ux[block], u0[block]),
                          names=(f"err({a:g} u)", f"{a:g} err(u) + {1 - a:g} err(0)"),
                          rows=range(block.stop - block.start))

            def trial_arguments(block=block, method=velocity_method):
                ux, u0 = velocity_errors()
                trial = k.trial_velocity_map(x)
                k.compare(method, "takes the velocities from its arguments",
                          "does not take the velocities from its arguments (errors at trial "
                          "speeds differ from those realized at the same speeds: is it "
                          "reading velocities from the State?)",
                          trial[block], ux[block] - u0[block], terms=(ux[block], u0[block]),
                          names=("trial", "realized"),
                          rows=range(block.stop - block.start))

            k.guarded(velocity_method, "is affine in the speeds u", velocity_affine)
            k.guarded(velocity_method, "takes the velocities from its arguments",
                      trial_arguments)

        def acceleration_affine(rows=rows, method=acceleration_method):
            ay, a0, _ = acceleration_errors()
            aay = k.udoterr(a * y)
            k.compare(method, "is affine in the accelerations u̇",
                      "is not affine in the accelerations u̇ (errors must be G u̇ - b)",
                      aay[rows], a * ay[rows] + (1 - a) * a0[rows], terms=(ay[rows], a0[rows]),
                      names=(f"err({a:g} u̇)", f"{a:g} err(u̇) + {1 - a:g} err(0)"),
                      rows=range(rows.stop - rows.start))

        k.guarded(acceleration_method, "is affine in the accelerations u̇", acceleration_affine)

    report.entries.extend(k.entries)
    _add_hints(report, mp, mv)
    return report


def _project(constraint, work, tolerance: float, step: float) -> str | None:
    """Project ``work`` (only ``constraint`` enabled) onto the constraint: System.project,
    which uses the constraint's own pverr and forces; if that fails (a wrong pverr slows its
    Newton steps), Newton steps whose Jacobian is a finite difference of perr alone, then
    the velocity projection (if that fails, one least-squares step on differences of the
    velocity errors, which are affine in u). Returns None, or why the State could not be
    projected."""
    matter = constraint.get_matter_subsystem()
    system = matter.get_system()
    q_start = np.array(work.get_q())
    try:
        system.project(work, tolerance)
        return None
    except Exception:  # noqa: BLE001 - a method that raises there is judged by the checks
        work.set_q(q_start)
    d = matter.get_tree_data(work, Stage.MODEL, "check_constraint")
    nu = len(work.get_u())

    def perr_at(q):
        s = work.copy()
        s.set_q(q)
        system.realize(s, Stage.POSITION)
        return np.array(constraint.get_position_errors_as_vector(s))

    matter._normalize_quaternions(work, d)
    system.realize(work, Stage.POSITION)
    perr = np.array(constraint.get_position_errors_as_vector(work))
    for _ in range(50):
        if np.max(np.abs(perr), initial=0.0) <= tolerance:
            break
        q = np.array(work.get_q())
        N = np.column_stack([matter.multiply_by_n(work, False, e) for e in np.eye(nu)])
        h = step * 1e-2
        P = np.column_stack([(perr_at(q + h * n) - perr_at(q - h * n)) / (2 * h)
                             for n in N.T])
        dq = -N @ np.linalg.lstsq(P, perr, rcond=1e-12)[0]
        for _ in range(20):
            work.set_q(q + dq)
            matter._normalize_quaternions(work, d)
            system.realize(work, Stage.POSITION)
            trial = np.array(constraint.get_position_errors_as_vector(work))
            if np.linalg.norm(trial) < np.linalg.norm(perr):
                perr = trial
                break
            dq *= 0.5
        else:
            work.set_q(q)
            break
    worst = float(np.max(np.abs(perr), initial=0.0))
    if worst > tolerance:
        return (f"System.project failed, and so did Newton steps on finite differences of "
                f"calc_position_errors: |perr| is still {worst:.3g} (tolerance {tolerance:g}); "
                f"assemble the State near the constraint first")
    try:
        system.realize(work, Stage.POSITION)
        matter.project_u(work, tolerance)
        return None
    except Exception:  # noqa: BLE001 - a wrong pverr fails Simbody's steps on u too
        pass

    def uerr_at(u):
        s = work.copy()
        s.set_u(u)
        system.realize(s, Stage.VELOCITY)
        return np.array(constraint.get_velocity_errors_as_vector(s))

    u = np.array(work.get_u())
    uerr = uerr_at(u)
    J = np.column_stack([uerr_at(u + e) - uerr for e in np.eye(nu)])     # uerr is affine in u
    work.set_u(u - np.linalg.lstsq(J, uerr, rcond=1e-12)[0])
    worst = float(np.max(np.abs(uerr_at(np.array(work.get_u()))), initial=0.0))
    if worst > tolerance:
        return (f"the velocity projection failed: the velocity errors are still "
                f"{worst:.3g} (tolerance {tolerance:g})")
    return None


def _add_hints(report: ConstraintCheck, mp: int, mv: int) -> None:
    """When every method compared with the defining one fails, that one may be the
    culprit; say so."""
    failing = set(report.failing_methods())
    for n, reference, dependents in (
            (mp, "calc_position_errors", {"calc_position_dot_errors",
                                          "calc_position_dot_dot_errors",
                                          "add_in_position_constraint_forces"}),
            (mv, "calc_velocity_errors", {"calc_velocity_dot_errors",
                                          "add_in_velocity_constraint_forces"})):
        if n and dependents <= failing:
            report.notes.append(
                f"every method checked against {reference} disagrees with it; if they "
                f"agree with each other, {reference} is the one to fix (a missing factor or "
                f"term in it)")
