"""CPodesIntegrator: a variable-step, variable-order (1-5) implicit BDF for stiff systems, with
coordinate projection (the paper's §3.2: CPODES is CVODE with projection onto the constraint
manifold in the manner of Dehombreaux et al. [30]).

The history is the array D of backward differences of the polynomial through the last k+1
solutions at equal spacing h (Shampine and Reichelt's quasi-constant step size form, as in
scipy's ``BDF``): D[0] = y_n, D[j] = ∇^j y_n. A step of order k predicts y_p = Σ_{j≤k} D[j]
and solves the corrector for d = y_{n+1} − y_p,

    d − c f(t_{n+1}, y_p + d) + ψ = 0,   c = h / γ_k,   ψ = Σ_{1≤j≤k} γ_j D[j] / γ_k,
    γ_k = Σ_{1≤j≤k} 1/j,

by Newton iterations on (I − c J), with J = ∂ẏ/∂y by finite differences through the System,
reused across steps and refreshed when Newton fails to converge. The local error estimate is
d/(k+1), tested against the accuracy α as the explicit methods are. An accepted y is
projected onto the constraints (quaternions normalized) and the projection's correction is
folded into d, so the whole history lies on the projected solution and constraint errors do
not drift. After k+1 equal steps the order moves to whichever of k−1, k, k+1 allows the
largest next step; changing h re-expresses D at the new spacing (the same polynomial). Dense
output is the step's interpolating polynomial.
"""

from __future__ import annotations

import enum
import math

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.integrators import step_control as control
from kinetree.integrators.integrator import Integrator

_MAX_ORDER = 5
_GAMMA = np.hstack((0.0, np.cumsum(1.0 / np.arange(1, _MAX_ORDER + 1))))
_ERROR_CONST = 1.0 / np.arange(1, _MAX_ORDER + 2)
_NEWTON_MAX_ITERATIONS = 3
_NEWTON_TOLERANCE = 0.1         # of α, for the Newton correction times the contraction rate
_NEWTON_DIVERGENCE = 2.0        # a correction this many times the last one: diverging
_RATE_MEMORY = 0.3              # CVODE's CRDOWN: how fast the remembered rate is forgotten
_REFACTOR_CHANGE = 0.3          # refactor I − cJ when c has changed by more than this fraction
_MIN_FACTOR = 0.2
_MAX_FACTOR = 10.0
_SAFETY = 0.9
_CONVERGENCE_FAILURE_FACTOR = 0.25
_PROJECTION_FAILURE_FACTOR = 0.5


class LinearMultistepMethod(enum.Enum):
    """The multistep family (Simbody's CPodes::LinearMultistepMethod)."""

    BDF = "BDF"
    Adams = "Adams"


class NonlinearSystemIterationType(enum.Enum):
    """How the corrector equations are solved (Simbody's CPodes::NonlinearSystemIterationType):
    Newton iterations for stiff systems, functional (fixed-point) ones for non-stiff."""

    Newton = "Newton"
    Functional = "Functional"


def _coerce(value, kind: type[enum.Enum], argument: str) -> enum.Enum:
    if isinstance(value, kind):
        return value
    for member in kind:
        if isinstance(value, str) and value.lower() == member.value.lower():
            return member
    names = ", ".join(repr(m.value) for m in kind)
    raise InvalidArgumentError(
        f"CPodesIntegrator: {argument} must be one of {names} (or CPodesIntegrator."
        f"{kind.__name__}), got {value!r}.")


def _spacing_matrix(order: int, factor: float) -> np.ndarray:
    """Shampine and Reichelt's (1997) R(order, factor): with U = R(order, 1), (R U)ᵀ D holds
    the backward differences of the polynomial whose differences are D, at ``factor`` times
    the spacing."""
    i = np.arange(1, order + 1)[:, None]
    j = np.arange(1, order + 1)
    m = np.zeros((order + 1, order + 1))
    m[1:, 1:] = (i - 1 - factor * j) / i
    m[0] = 1.0
    return np.cumprod(m, axis=0)


def _change_spacing(d: np.ndarray, order: int, factor: float) -> None:
    """Rewrite d[:order+1] in place as the differences of the same polynomial at spacing
    ``factor`` times the old spacing."""
    ru = _spacing_matrix(order, factor) @ _spacing_matrix(order, 1.0)
    d[:order + 1] = ru.T @ d[:order + 1]


class CPodesIntegrator(Integrator):
    """Implicit variable-order BDF with Newton iterations and coordinate projection, for
    stiff systems (Simbody's CPodesIntegrator). ``linear_multistep_method``: "BDF" (Adams is
    not available); ``nonlinear_system_iteration_type``: "Newton" (default) or "Functional"
    (no Jacobian; only for non-stiff systems)."""

    method_name = "CPodes"
    min_order = 1
    max_order = _MAX_ORDER

    LinearMultistepMethod = LinearMultistepMethod
    NonlinearSystemIterationType = NonlinearSystemIterationType
    BDF = LinearMultistepMethod.BDF
    Adams = LinearMultistepMethod.Adams
    Newton = NonlinearSystemIterationType.Newton
    Functional = NonlinearSystemIterationType.Functional

    def __init__(self, system, linear_multistep_method=LinearMultistepMethod.BDF,
                 nonlinear_system_iteration_type=NonlinearSystemIterationType.Newton):
        method = _coerce(linear_multistep_method, LinearMultistepMethod,
                         "linear_multistep_method")
        if method is LinearMultistepMethod.Adams:
            raise InvalidArgumentError(
                "CPodesIntegrator: the Adams method is not available; use BDF (the default) "
                "for a stiff system, or RungeKuttaMersonIntegrator for a non-stiff one.")
        self._iteration = _coerce(nonlinear_system_iteration_type,
                                  NonlinearSystemIterationType,
                                  "nonlinear_system_iteration_type")
        self._order_limit = _MAX_ORDER
        self._order = 1
        super().__init__(system)

    def set_order_limit(self, order: int) -> None:
        """Use BDF orders 1..``order`` only (5 by default); lower orders are more stable for
        lightly damped oscillations."""
        if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or \
                not 1 <= order <= _MAX_ORDER:
            raise InvalidArgumentError(
                f"CPodesIntegrator.set_order_limit: expected an order from 1 to "
                f"{_MAX_ORDER}, got {order!r}.")
        self._order_limit = int(order)

    def get_order_limit(self) -> int:
        return self._order_limit

    def get_linear_multistep_method(self) -> LinearMultistepMethod:
        return LinearMultistepMethod.BDF

    def get_nonlinear_system_iteration_type(self) -> NonlinearSystemIterationType:
        return self._iteration

    def get_current_order(self) -> int:
        """The BDF order the next step will use."""
        return self._order

    def get_num_jacobian_evaluations(self) -> int:
        """Finite-difference Jacobians ∂ẏ/∂y formed (each costs one realization per y)."""
        return self._jacobians

    def get_num_newton_iterations(self) -> int:
        return self._newton_iterations

    def reset_all_statistics(self) -> None:
        super().reset_all_statistics()
        self._jacobians = self._newton_iterations = 0

    # ------------------------------------------------------------- history
    def _allocate(self, ny: int) -> None:
        self._D = np.zeros((_MAX_ORDER + 3, ny))
        self._d = np.empty(ny)
        self._dy = np.empty(ny)
        self._y_new = np.empty(ny)
        self._y_pred = np.empty(ny)
        self._f_new = np.empty(ny)
        self._f_base = np.empty(ny)
        self._identity = np.eye(ny)
        self._J = np.zeros((ny, ny))
        self._dense_D = np.zeros((_MAX_ORDER + 1, ny))

    def _restart(self) -> None:
        self._forget_history()

    def _forget_history(self) -> None:
        """The next step starts again at order 1 from the advanced State, with a fresh
        Jacobian (a new continuous interval, or an event isolated inside the last step)."""
        self._h = None
        self._t_hist = math.nan
        self._order = 1
        self._equal_steps = 0
        self._failures_here = 0
        self._have_jacobian = False
        self._lu = None
        self._lu_c = math.nan
        self._rate = 1.0
        self._dense_h = 0.0
        self._dense_order = 0
        self._dense_t = math.nan

    _HISTORY = ("_h", "_t_hist", "_order", "_equal_steps", "_failures_here",
                "_have_jacobian", "_J", "_lu", "_lu_c", "_rate", "_jacobians")
    _CHECKPOINT = {"_D": "finite", "_h": "step_or_none", "_t_hist": "float_or_nan",
                   "_order": "order", "_equal_steps": "count", "_failures_here": "count",
                   "_have_jacobian": "bool", "_J": "finite", "_lu": "lu",
                   "_lu_c": "float_or_nan", "_rate": "time", "_jacobians": "count",
                   "_newton_iterations": "count", "_dense_D": "finite", "_dense_h": "time",
                   "_dense_order": "order", "_dense_t": "float_or_nan"}

    def _history(self):
        """The BDF history: the differences D and everything that decides the next step."""
        return self._D.copy(), {name: getattr(self, name) for name in self._HISTORY}

    def _restore_history(self, history) -> None:
        D, values = history
        self._D[:] = D
        for name, value in values.items():
            setattr(self, name, value)

    def _accepted(self, t0: float, h: float) -> None:
        """The base cut the last step back to t0 + h (an event was isolated there): the
        history no longer ends at the advanced State, so start a new one from it."""
        if abs(t0 + h - self._t_hist) > self._time_tol(t0 + h):
            dense = self._dense_h, self._dense_order, self._dense_t
            self._forget_history()
            self._dense_h, self._dense_order, self._dense_t = dense
            self._h_next = math.nan

    # ------------------------------------------------------------ stepping
    def _attempt_in_python(self, t0: float, h: float) -> None:
        """The BDF step decides on itself (``_bdf_step``): its verdict and the next step
        size, for the run."""
        accepted, h_new = self._bdf_step(t0, h)
        self._control_i[control.VERDICT] = control.ACCEPTED if accepted else control.REJECTED
        self._control_f[control.H_PROPOSED] = h_new

    def _bdf_step(self, t0: float, h: float):
        """One BDF step of h from the end of the history; returns (accepted, next step
        size). On acceptance the advanced State holds the projected end of the step,
        realized to ACCELERATION, the history has been advanced and the order chosen."""
        D = self._D
        if self._h is None or abs(t0 - self._t_hist) > self._time_tol(t0):
            self._forget_history()
            D[0] = self._y0
            D[1] = h * self._ydot0
            self._h, self._t_hist = h, t0
        elif h != self._h:
            _change_spacing(D, self._order, h / self._h)
            self._h = h
            self._equal_steps = 0
        k = self._order = min(self._order, self._order_limit)
        t1 = t0 + h
        y_pred = self._y_pred
        np.sum(D[:k + 1], axis=0, out=y_pred)
        psi = (_GAMMA[1:k + 1] @ D[1:k + 1]) / _GAMMA[k]
        c = h / _GAMMA[k]
        scale = self._scale(self._y0, y_pred)
        converged, iterations = self._solve_corrector(t1, c, psi, scale)
        if not converged:
            self._convergence_failures += 1
            return False, h * _CONVERGENCE_FAILURE_FACTOR
        d, y1 = self._d, self._y1
        np.copyto(y1, self._y_new)
        safety = _SAFETY * (2 * _NEWTON_MAX_ITERATIONS + 1) / (
            2 * _NEWTON_MAX_ITERATIONS + iterations)
        if self._fixed_step is None:
            ratio = self._error_norm(_ERROR_CONST[k] * d) / self._accuracy
            if ratio > 1.0:
                self._error_test_failures += 1
                self._failures_here += 1
                if self._failures_here >= 2 and k > 1:
                    self._order = k - 1
                return False, h * max(_MIN_FACTOR, safety * ratio ** (-1.0 / (k + 1)))
        state = self._advanced
        self._write(state, t1, y1)
        try:
            self._project(state, force=self._project_every_step)
        except KinetreeError:
            self._projection_failures += 1
            return False, h * _PROJECTION_FAILURE_FACTOR
        self._realize(state)
        y1[:] = state.get_y()
        self._ydot1[:] = state.get_y_dot()
        d += y1
        d -= self._y_new
        self._advance_history(k, t1)
        return True, h * self._next_step_factor(k, safety)

    def _advance_history(self, k: int, t1: float) -> None:
        """Fold the accepted correction d (projection included) into the differences, so
        D[0] is the projected y at t1; keep this step's polynomial for dense output."""
        D, d = self._D, self._d
        D[k + 2] = d - D[k + 1]
        D[k + 1] = d
        for i in reversed(range(k + 1)):
            D[i] += D[i + 1]
        self._t_hist = t1
        self._failures_here = 0
        self._equal_steps += 1
        self._dense_D[:k + 1] = D[:k + 1]
        self._dense_h, self._dense_order, self._dense_t = self._h, k, t1

    def _next_step_factor(self, k: int, safety: float) -> float:
        """After k+1 equal steps, move to the order among k−1, k, k+1 whose error estimate
        allows the largest step, and return that step's ratio to h (1 before then, and
        always with a fixed step size)."""
        if self._equal_steps < k + 1:
            return 1.0
        D = self._D
        norms = [self._error_norm(_ERROR_CONST[k - 1] * D[k]) if k > 1 else math.inf,
                 self._error_norm(_ERROR_CONST[k] * D[k + 1]),
                 self._error_norm(_ERROR_CONST[k + 1] * D[k + 2])
                 if k < self._order_limit else math.inf]
        with np.errstate(divide="ignore"):
            factors = (np.array(norms) / self._accuracy) ** (-1.0 / np.arange(k, k + 3))
        best = int(np.argmax(factors))
        self._order = k + best - 1
        self._equal_steps = 0
        if self._fixed_step is not None:
            return 1.0
        return min(_MAX_FACTOR, safety * float(factors[best]))

    # --------------------------------------------------------------- Newton
    def _solve_corrector(self, t1: float, c: float, psi: np.ndarray, scale: np.ndarray):
        """Solve the corrector for d (into self._d, y into self._y_new); a failure with a
        Jacobian from an earlier step is retried once with a fresh one. Returns
        (converged, iterations of the last try)."""
        newton = self._iteration is NonlinearSystemIterationType.Newton
        fresh = False
        while True:
            if newton:
                if not self._have_jacobian:
                    self._form_jacobian(t1, self._y_pred)
                    fresh = True
                if self._lu is None or abs(c / self._lu_c - 1.0) > _REFACTOR_CHANGE:
                    from scipy.linalg import lu_factor  # scipy is slow to import: when first needed
                    self._lu = lu_factor(self._identity - c * self._J, check_finite=False)
                    self._lu_c = c
                    self._rate = 1.0
            converged, iterations = self._iterate(t1, c, psi, scale, newton)
            if converged or not newton or fresh:
                return converged, iterations
            self._have_jacobian = False
            self._lu = None

    def _iterate(self, t1: float, c: float, psi: np.ndarray, scale: np.ndarray,
                 newton: bool):
        """Corrector iterations from the prediction: Newton on (I − cJ), or fixed point.
        Converged when the last correction times the contraction rate (remembered across
        steps, as CVODE does) is within a tenth of α."""
        y, d, dy, f = self._y_new, self._d, self._dy, self._f_new
        np.copyto(y, self._y_pred)
        d[:] = 0.0
        previous = 0.0
        tolerance = _NEWTON_TOLERANCE * self._accuracy
        for m in range(_NEWTON_MAX_ITERATIONS):
            self._newton_iterations += 1
            self._f(t1, y, f)
            if not np.all(np.isfinite(f)):
                return False, m + 1
            np.multiply(f, c, out=dy)
            dy -= psi
            dy -= d
            if newton:
                from scipy.linalg import lu_solve
                dy[:] = lu_solve(self._lu, dy, check_finite=False)
            y += dy
            d += dy
            size = self._rms(dy / scale)
            if m > 0:
                self._rate = max(_RATE_MEMORY * self._rate, size / previous)
            if size * min(1.0, self._rate) <= tolerance:
                return True, m + 1
            if m > 0 and size > _NEWTON_DIVERGENCE * previous:
                return False, m + 1
            previous = size
        return False, _NEWTON_MAX_ITERATIONS

    def _form_jacobian(self, t: float, y: np.ndarray) -> None:
        """J = ∂ẏ/∂y at (t, y) by forward differences, one realization per column; each y
        moves by √ε times the larger of |y| and its error unit (1/W)."""
        f0, column, work = self._f_base, self._f_new, self._dy
        # A new array, not the last one overwritten: a step that raises part-way leaves
        # the Jacobian it started with intact (``_history``).
        self._J = np.empty_like(self._J)
        self._f(t, y, f0)
        np.copyto(work, y)
        steps = np.sqrt(np.finfo(float).eps) * np.maximum(np.abs(y), 1.0 / self._unit_weights)
        for j, step in enumerate(steps):
            work[j] = y[j] + step
            step = work[j] - y[j]
            self._f(t, work, column)
            self._J[:, j] = (column - f0) / step
            work[j] = y[j]
        self._jacobians += 1
        self._have_jacobian = True
        self._lu = None

    # ------------------------------------------------------- dense output
    def _interpolate(self, t: float, out: np.ndarray) -> np.ndarray:
        """y(t) inside the last step from the step's BDF interpolating polynomial (through
        the new y and the k previous points at the step's spacing)."""
        k, h = self._dense_order, self._dense_h
        if k == 0 or h <= 0:
            out[:] = self._y1
            return out
        nodes = self._dense_t - h * np.arange(k)
        p = np.cumprod((t - nodes) / (h * np.arange(1, k + 1)))
        np.dot(p, self._dense_D[1:k + 1], out=out)
        out += self._dense_D[0]
        return out
