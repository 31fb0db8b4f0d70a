"""Assembler: find q that satisfies the position constraints and best achieves weighted
goals (Simbody's ``SimTK::Assembler``): assembling a model with closed loops from a rough
guess, and inverse kinematics, frame after frame, from marker observations.

The problem. The unknowns are the *free* q: every q of the matter subsystem except those
of locked mobilizers (``lock_mobilizer``) and locked q (``lock_q``), each within the bounds
of ``restrict_q``. *Errors* must each end within the tolerance (max |err|, or RMS with
``set_use_rms_error_norm``): the position errors of the enabled constraints (condition 0,
weight infinity; PrescribedMotion's q - f(t) among them) and any condition adopted with
``adopt_assembly_error``. *Goals* (``adopt_assembly_goal(condition, weight)``) are
minimized, as Σ wₖ goalₖ; the value returned by ``assemble`` and ``track``. A finite
``set_system_constraints_weight`` makes the constraints a goal ½ |perr|², weight 0
ignores them.

Rotations. A quaternion's four q are free numbers; the State always receives them
normalized, so no goal or error depends on their length, and one residual |q| - 1 per
quaternion pins that length: the optimizer cannot wander off the unit sphere, and there is
no Euler-angle singularity. (Simbody's Assembler instead switches its internal State to
Euler angles; kinetree keeps the State's own layout, so bounds and locks on single q of
a Ball or Free apply in Euler-angle mode only, ``matter.set_use_euler_angles``.)

The solver. Every condition enters as least-squares residuals (goal = ½ |r|²), so each
solve is ``scipy.optimize.least_squares`` (method 'trf': a trust region that takes bounds
and rank-deficient Jacobians, Gauss-Newton fast near the solution, so a warm start in
``track`` converges in a few evaluations):

- goals only: minimize Σ wₖ goalₖ;
- errors (with or without goals): an augmented Lagrangian. Minimize
  Σ wₖ goalₖ + λ·err + μ/2 |err|², then λ ← λ + μ err (μ × 10 when |err| did not shrink
  fourfold), until the errors are within tolerance; λ and μ carry over from one
  ``track`` frame to the next. The result is a stationary point of the goals on the
  manifold err = e, |e| ≤ tolerance. Without goals the objective is ½ |q - q₀|² over the
  free q, q₀ the start: from a bad guess the Assembler returns the assembled
  configuration nearest to it (Simbody leaves that choice to its optimizer).

SLSQP was the alternative: its quasi-Newton Hessian ignores the Gauss-Newton structure of
marker and constraint residuals, restarts on every call (no useful warm start when
tracking), and it stops on the change of the goal only.

Accuracy and tolerance follow Simbody: accuracy (default 1e-3) is the relative change of
the goal, and of the step in q, at which a solve stops; the tolerance (default accuracy/10)
is what the errors must meet, or ``assemble`` raises ``Assembler.AssembleFailed`` naming
the worst constraint. Jacobians are analytic where the conditions give them (Markers,
QValue; the constraints' P N⁻¹ once |perr| is small, since Simbody's coincident-point
constraints give ∂perr/∂q only on the manifold) and central differences otherwise.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.multibody.mobilized_body import MobilizedBody
from kinetree.multibody.multibody_system import MultibodySystem
from kinetree.multibody.tree_model import PRESCRIBED_POSITION
from kinetree.study.assembly_condition import AssemblyCondition, speed_jacobian_to_q
from kinetree.system.stage import Stage

_EPS = np.finfo(float).eps


class _SystemConstraints(AssemblyCondition):
    """The position errors of the enabled constraints, as found in the State (Simbody's
    ``BuiltInConstraints``); as a goal ½ |perr|²."""

    ANALYTIC_JACOBIAN_BELOW = 1e-4
    """Use P N⁻¹ when max |perr| is below this (m or rad); central differences above,
    where the coincident-point formulation makes P differ from ∂perr/∂q."""

    def __init__(self):
        super().__init__("System Constraints")

    def calc_errors(self, state) -> np.ndarray:
        return np.array(self.get_matter_subsystem()._perr(state))

    def get_num_errors(self, state) -> int:
        return int(self.get_matter_subsystem()._perr(state).size)

    def calc_error_jacobian(self, state) -> np.ndarray | None:
        matter = self.get_matter_subsystem()
        perr = matter._perr(state)
        if not perr.size:
            return np.zeros((0, matter.get_q(state).size))
        if np.max(np.abs(perr)) > self.ANALYTIC_JACOBIAN_BELOW:
            return None
        P = matter.calc_g_transpose(state)[:, :perr.size].T
        return speed_jacobian_to_q(matter, state, P)

    def calc_goal_residuals(self, state) -> np.ndarray:
        return self.calc_errors(state)

    def calc_goal_residual_jacobian(self, state) -> np.ndarray | None:
        return self.calc_error_jacobian(state)


class Assembler:
    """A study that modifies q to satisfy the constraints and assembly conditions
    (``Assembler(system)``; see the module docstring for the method)."""

    DEFAULT_ACCURACY = 1e-3
    MAX_OUTER_ITERATIONS = 30
    INITIAL_PENALTY = 1e4
    MAX_PENALTY = 1e14

    class AssembleFailed(KinetreeError, RuntimeError):
        """``assemble`` could not bring the assembly errors within the tolerance."""

    class TrackFailed(AssembleFailed):
        """``track`` could not bring the assembly errors within the tolerance."""

    def __init__(self, system):
        if not isinstance(system, MultibodySystem):
            raise InvalidArgumentError(
                f"Assembler: expected a MultibodySystem, got {type(system).__name__}.")
        self._system = system
        self._matter = system.get_matter_subsystem()
        self._internal = system.get_default_state()
        self._conditions: list[AssemblyCondition] = []
        self._weights: list[float] = []
        self._locked_mobilizers: set[int] = set()
        self._locked_qs: set[tuple[int, int]] = set()
        self._restricted: dict[tuple[int, int], tuple[float, float]] = {}
        self._accuracy = 0.0
        self._tolerance = 0.0
        self._use_rms = False
        self._initialized = False
        self._num_initializations = 0
        self._reset_counters()
        self._system_constraints = _SystemConstraints()
        self.adopt_assembly_error(self._system_constraints)

    def get_multibody_system(self) -> MultibodySystem:
        return self._system

    def get_matter_subsystem(self):
        return self._matter

    # ------------------------------------------------------------ settings
    def set_accuracy(self, accuracy: float = 0.0) -> Assembler:
        """How closely goals are optimized: a solve stops when the goal, and the step in q,
        change by less than this fraction (0 restores the default 1e-3)."""
        a = float(accuracy)
        if not 0 <= a < 1:
            raise InvalidArgumentError(
                f"Assembler.set_accuracy: the accuracy must be in [0, 1) (0 for the default "
                f"{self.DEFAULT_ACCURACY:g}), got {accuracy!r}.")
        self._accuracy = a
        return self

    def get_accuracy_in_use(self) -> float:
        return self._accuracy if self._accuracy > 0 else self.DEFAULT_ACCURACY

    def set_tolerance(self, tolerance: float = 0.0) -> Assembler:
        """The tolerance every assembly error must meet (units of the errors: m or rad
        for constraints); 0 restores the default, accuracy/10."""
        t = float(tolerance)
        if not t >= 0 or not np.isfinite(t):
            raise InvalidArgumentError(
                f"Assembler.set_tolerance: the tolerance must be finite and >= 0 (0 for the "
                f"default, accuracy/10), got {tolerance!r}.")
        self._tolerance = t
        return self

    set_error_tolerance = set_tolerance

    def get_error_tolerance_in_use(self) -> float:
        return self._tolerance if self._tolerance > 0 else self.get_accuracy_in_use() / 10

    def set_use_rms_error_norm(self, use: bool) -> None:
        """Judge the errors by their RMS instead of their largest magnitude."""
        self._use_rms = bool(use)

    def is_using_rms_error_norm(self) -> bool:
        return self._use_rms

    # --------------------------------------------------------- conditions
    def adopt_assembly_goal(self, condition, weight: float = 1.0) -> int:
        """Add a goal with this weight (infinity: an error condition; 0: ignored); returns
        its condition index."""
        if not isinstance(condition, AssemblyCondition):
            raise InvalidArgumentError(
                f"Assembler.adopt_assembly_goal: expected an AssemblyCondition (Markers, "
                f"QValue or a subclass), got {type(condition).__name__}.")
        if condition._assembler is not None:
            raise InvalidArgumentError(
                f"Assembler.adopt_assembly_goal: {condition._label()} already belongs to an "
                f"Assembler; create a new condition for this one.")
        w = self._checked_weight(weight, "adopt_assembly_goal")
        self.uninitialize()
        condition._assembler, condition._index = self, len(self._conditions)
        self._conditions.append(condition)
        self._weights.append(w)
        return condition._index

    def adopt_assembly_error(self, condition) -> int:
        """Add a condition whose errors must each be met to the tolerance."""
        return self.adopt_assembly_goal(condition, np.inf)

    @staticmethod
    def _checked_weight(weight, method: str) -> float:
        w = float(weight)
        if not w >= 0:
            raise InvalidArgumentError(
                f"Assembler.{method}: a weight must be >= 0 (infinity makes the condition an "
                f"error condition), got {weight!r}.")
        return w

    def _condition(self, index: int) -> int:
        if not (isinstance(index, (int, np.integer)) and 0 <= index < len(self._conditions)):
            raise InvalidArgumentError(
                f"Assembler: no assembly condition {index!r}; there are "
                f"{len(self._conditions)} (0 is the System's constraints).")
        return int(index)

    def set_assembly_condition_weight(self, index: int, weight: float) -> Assembler:
        i = self._condition(index)
        self._weights[i] = self._checked_weight(weight, "set_assembly_condition_weight")
        self.uninitialize()
        return self

    def get_assembly_condition_weight(self, index: int) -> float:
        return self._weights[self._condition(index)]

    def set_system_constraints_weight(self, weight: float) -> Assembler:
        """Infinity (the default): the enabled constraints must be met to the tolerance;
        a finite weight makes them a goal ½ |perr|² with that weight; 0 ignores them."""
        return self.set_assembly_condition_weight(self._system_constraints._index, weight)

    def get_system_constraints_weight(self) -> float:
        return self.get_assembly_condition_weight(self._system_constraints._index)

    # ------------------------------------------------------ restrictions
    def _check_mobod(self, mobod, where: str) -> MobilizedBody:
        if not isinstance(mobod, MobilizedBody):
            raise InvalidArgumentError(
                f"{where}: expected a MobilizedBody, got {type(mobod).__name__}.")
        if mobod.get_matter_subsystem() is not self._matter:
            raise InvalidArgumentError(
                f"{where}: {mobod!r} belongs to another system; use the bodies of the "
                f"system this Assembler was made for.")
        return mobod

    def lock_mobilizer(self, mobod) -> None:
        """Keep every q of this mobilizer at its starting value."""
        b = self._check_mobod(mobod, "Assembler.lock_mobilizer").get_mobilized_body_index()
        self.uninitialize()
        self._locked_mobilizers.add(b)

    def unlock_mobilizer(self, mobod) -> None:
        """Undo ``lock_mobilizer`` (q locked one by one with ``lock_q`` stay locked)."""
        b = self._check_mobod(mobod, "Assembler.unlock_mobilizer").get_mobilized_body_index()
        self.uninitialize()
        self._locked_mobilizers.discard(b)

    def lock_q(self, mobod, which_q: int) -> None:
        """Keep one q of this mobilizer at its starting value."""
        b = self._check_mobod(mobod, "Assembler.lock_q").get_mobilized_body_index()
        self.uninitialize()
        self._locked_qs.add((b, int(which_q)))

    def unlock_q(self, mobod, which_q: int) -> None:
        b = self._check_mobod(mobod, "Assembler.unlock_q").get_mobilized_body_index()
        self.uninitialize()
        self._locked_qs.discard((b, int(which_q)))

    def restrict_q(self, mobod, which_q: int, lower: float, upper: float) -> None:
        """Keep one q of this mobilizer within [lower, upper] (rad or m; ±inf for no
        bound on a side)."""
        b = self._check_mobod(mobod, "Assembler.restrict_q").get_mobilized_body_index()
        lo, hi = float(lower), float(upper)
        if not lo < hi:
            raise InvalidArgumentError(
                f"Assembler.restrict_q: the range [{lower!r}, {upper!r}] of q {which_q} of "
                f"{mobod!r} is empty or a point; give lower < upper (lock_q fixes a q).")
        self.uninitialize()
        if lo == -np.inf and hi == np.inf:
            self._restricted.pop((b, int(which_q)), None)
        else:
            self._restricted[(b, int(which_q))] = (lo, hi)

    def unrestrict_q(self, mobod, which_q: int) -> None:
        b = self._check_mobod(mobod, "Assembler.unrestrict_q").get_mobilized_body_index()
        self.uninitialize()
        self._restricted.pop((b, int(which_q)), None)

    # ------------------------------------------------------------- state
    def set_internal_state(self, state) -> Assembler:
        """Start from a copy of ``state`` (all of it: time, q, enabled constraints, Model
        choices); uninitializes."""
        self._system.realize(state, Stage.MODEL)
        self.uninitialize()
        self._internal = state.copy()
        return self

    def get_internal_state(self):
        """The State the Assembler works in, realized to POSITION after a solve. Read it;
        use ``update_from_internal_state`` to copy the result into your own State."""
        return self._internal

    def update_from_internal_state(self, state) -> None:
        """Copy the internal State's q into ``state`` (of the same System), converting
        between quaternions and Euler angles mobilizer by mobilizer when the two States'
        layouts differ. Only q changes."""
        self._system.realize(state, Stage.MODEL)
        matter, internal = self._matter, self._internal
        if matter.get_use_euler_angles(state) == matter.get_use_euler_angles(internal):
            matter.upd_q(state)[:] = matter.get_q(internal)
            return
        self._system.realize(internal, Stage.POSITION)
        for i in range(1, matter.get_num_bodies()):
            b = matter.get_mobilized_body(i)
            b.set_q_to_fit_transform(state, b.get_mobilizer_transform(internal))

    def initialize(self, state=None) -> None:
        """Prepare for assembly (normally automatic): with ``state``, start from a copy of
        it. Sorts conditions into errors and goals and lays out the free q."""
        if state is not None:
            self.set_internal_state(state)
        self._initialize()

    def uninitialize(self) -> None:
        """Forget the problem's layout (any change to the problem does this); the next
        solve initializes again."""
        if not self._initialized:
            return
        self._initialized = False
        self._num_assembly_steps = 0
        for condition in reversed(self._conditions):
            condition.uninitialize_condition()

    def is_initialized(self) -> bool:
        return self._initialized

    def _initialize(self) -> None:
        if self._initialized:
            return
        self._num_initializations += 1
        self._reset_counters()
        state, matter = self._internal, self._matter
        self._system.realize(state, Stage.POSITION)
        bodies = [matter.get_mobilized_body(i) for i in range(matter.get_num_bodies())]
        nq_b = np.array([0] + [b.get_num_q(state) for b in bodies[1:]], dtype=np.int64)
        self._q_start = np.concatenate([[0], np.cumsum(nq_b)[:-1]])
        nq = matter.get_q(state).size
        locked = {int(self._q_start[b]) + k for b in self._locked_mobilizers
                  for k in range(nq_b[b])}
        locked |= {self._q_index(bodies[b], k, "Assembler.lock_q")
                   for b, k in self._locked_qs}
        # q prescribed by a lock or a Motion stay as the realization sets them
        level = matter.get_tree_data(state, Stage.POSITION, "Assembler").cache.level
        locked |= {int(self._q_start[b]) + k for b in range(1, len(bodies))
                   if level[b] == PRESCRIBED_POSITION for k in range(nq_b[b])}
        quaternions = [np.arange(self._q_start[b.get_mobilized_body_index()],
                                 self._q_start[b.get_mobilized_body_index()] + 4)
                       for b in bodies[1:]
                       if nq_b[b.get_mobilized_body_index()] == b.get_default_q().size
                       != b.get_default_q(True).size]
        for qs in quaternions:
            if 0 < len(locked.intersection(qs.tolist())) < 4:
                raise InvalidArgumentError(
                    f"Assembler: q {qs[0]}..{qs[-1]} are one quaternion, of which some are "
                    f"locked; lock the whole mobilizer (lock_mobilizer), or use Euler angles "
                    f"(matter.set_use_euler_angles) to lock single rotation angles.")
        self._free = np.array([i for i in range(nq) if i not in locked], dtype=np.int64)
        position = {int(q): j for j, q in enumerate(self._free)}
        self._quaternions = [(np.array([position[int(q)] for q in qs]), qs)
                             for qs in quaternions if int(qs[0]) in position]
        self._lower = np.full(self._free.size, -np.inf)
        self._upper = np.full(self._free.size, np.inf)
        in_quaternion = {int(q) for qs in quaternions for q in qs}
        for (b, k), (lo, hi) in self._restricted.items():
            qi = self._q_index(bodies[b], k, "Assembler.restrict_q")
            if qi in in_quaternion:
                raise InvalidArgumentError(
                    f"Assembler.restrict_q: q {k} of {bodies[b]!r} is a quaternion "
                    f"component, which a bound cannot restrict meaningfully; use Euler angles "
                    f"(matter.set_use_euler_angles) or a Gimbal mobilizer.")
            if qi in position:
                self._lower[position[qi]], self._upper[position[qi]] = lo, hi
        self._errors, self._goals = [], []
        for condition, weight in zip(self._conditions, self._weights):
            if weight == 0:
                continue
            condition.initialize_condition(state)
            if weight < np.inf:
                self._goals.append((condition, weight))
                continue
            if condition.calc_errors(state) is None:
                raise InvalidArgumentError(
                    f"Assembler: {condition._label()} was adopted as an error condition but "
                    f"defines no calc_errors; adopt it as a goal (adopt_assembly_goal).")
            if condition.get_num_errors(state):
                self._errors.append(condition)
        self._multipliers, self._penalty = None, self.INITIAL_PENALTY
        self._x_set = None
        self._initialized = True

    def _q_index(self, mobod, which_q: int, where: str) -> int:
        """The index in the matter's q of q ``which_q`` of ``mobod`` (in the internal
        State's layout)."""
        n = mobod.get_num_q(self._internal)
        if not 0 <= which_q < n:
            raise InvalidArgumentError(
                f"{where}: {mobod!r} has {n} q in this State's layout, so there is no q "
                f"{which_q}.")
        return int(self._q_start[mobod.get_mobilized_body_index()]) + int(which_q)

    def get_num_free_qs(self) -> int:
        self._initialize()
        return int(self._free.size)

    def get_q_index_of_free_q(self, free_q: int) -> int:
        self._initialize()
        return int(self._free[free_q])

    def get_free_q_index_of_q(self, q_index: int) -> int | None:
        """The free-q index of a q, or None when it is locked."""
        self._initialize()
        hits = np.flatnonzero(self._free == q_index)
        return int(hits[0]) if hits.size else None

    def get_free_q_bounds(self, free_q: int) -> tuple[float, float]:
        self._initialize()
        return float(self._lower[free_q]), float(self._upper[free_q])

    # ---------------------------------------------------------- solving
    def assemble(self, state=None) -> float:
        """Modify q to meet every error to the tolerance and minimize the goals; returns
        the goal value achieved. With ``state``, start from it and write the result into
        it (only q changes); without, work on the internal State. Raises
        ``Assembler.AssembleFailed`` (the caller's State untouched) when the tolerance is
        not met."""
        if state is not None:
            self.set_internal_state(state)
        goal = self._solve("assemble", self.AssembleFailed)
        if state is not None:
            self.update_from_internal_state(state)
        return goal

    def track(self, frame_time: float | None = None) -> float:
        """Assemble again from the previous solution after a small change (new marker
        observations, a new ``frame_time`` for prescribed motions): no reinitialization,
        warm multipliers; returns the goal value. Copy the result out with
        ``update_from_internal_state``."""
        self._initialize()
        if frame_time is not None and self._internal.get_time() != float(frame_time):
            self._internal.set_time(float(frame_time))
            self._x_set = None
        return self._solve("track", self.TrackFailed)

    def _solve(self, where: str, failure) -> float:
        self._initialize()
        if not self._errors and not self._goals:
            raise InvalidArgumentError(
                f"Assembler.{where}: nothing to assemble: no constraint is enabled in the "
                f"State and no goal or error condition was adopted. Adopt one (e.g. "
                f"assembler.adopt_assembly_goal(markers)) or enable a constraint.")
        self._num_assembly_steps += 1
        q = self._matter.get_q(self._internal)
        x = np.clip(np.array(q[self._free]), self._lower, self._upper)
        for pos, _ in self._quaternions:
            x[pos] /= np.linalg.norm(x[pos])
        self._x_set = None
        if x.size:
            try:
                x = self._augmented_lagrangian(x) if self._errors else \
                    self._least_squares(x, 1.0, np.zeros(0), None)
            except ValueError as exc:
                raise failure(f"Assembler.{where}: the optimizer stopped: {exc}. Check that "
                              f"every goal and error is finite at the starting q.") from exc
        self._set_free_q(x)
        error = self.calc_current_error_norm()
        tolerance = self.get_error_tolerance_in_use()
        if error > tolerance:
            raise failure(
                f"Assembler.{where}: could not meet the assembly error tolerance "
                f"{tolerance:g}: the errors are still {error:.3g}, largest in "
                f"{self._worst_error()}. Start from a configuration nearer an assembled one "
                f"(set q by hand), unlock mobilizers or widen restrict_q ranges that keep it "
                f"from closing, check that the constraints can hold together, or loosen the "
                f"tolerance (set_tolerance).")
        return self.calc_current_goal()

    def _augmented_lagrangian(self, x: np.ndarray) -> np.ndarray:
        """Meet the errors while minimizing the goals, or, without goals, ½ |q - q₀|² (the
        assembled configuration nearest the start, q₀, in the free q)."""
        self._set_free_q(x)
        m = sum(c.get_num_errors(self._internal) for c in self._errors)
        lam = self._multipliers if self._multipliers is not None and \
            self._multipliers.size == m else np.zeros(m)
        mu, previous = self._penalty, np.inf
        anchor = None if self._goals else x.copy()
        tolerance = self.get_error_tolerance_in_use()
        for _ in range(self.MAX_OUTER_ITERATIONS):
            x = self._least_squares(x, mu, lam, anchor)
            self._set_free_q(x)
            c = self._error_values()
            error = self._norm(c)
            if error <= tolerance:
                break
            lam = lam + mu * c
            if error > 0.25 * previous:
                mu = min(10.0 * mu, self.MAX_PENALTY)
            previous = error
        self._multipliers, self._penalty = lam, mu
        return x

    def _least_squares(self, x0: np.ndarray, mu: float, lam: np.ndarray,
                       anchor: np.ndarray | None) -> np.ndarray:
        """One scipy least_squares solve over the free q of the residuals: the goals'
        √wₖ rₖ, the anchor's x - q₀ (when given), the quaternion lengths, and the errors'
        augmented-Lagrangian term √μ err + λ/√μ."""
        scale = np.sqrt(mu)
        shift = lam / scale

        def fun(x):
            self._set_free_q(x)
            parts = [self._goal_values()] if self._goals else []
            if anchor is not None:
                parts.append(x - anchor)
            parts.append(self._gauge(x))
            if self._errors:
                parts.append(scale * self._error_values() + shift)
            return np.concatenate(parts)

        def jac(x):
            self._set_free_q(x)
            return self._jacobian(x, scale, anchor is not None)

        ftol = max(self.get_accuracy_in_use(), 4 * _EPS)
        xtol = max(min(ftol, self.get_error_tolerance_in_use()), 4 * _EPS)
        bounded = np.isfinite(self._lower).any() or np.isfinite(self._upper).any()
        from scipy.optimize import least_squares  # scipy is slow to import: when first needed
        result = least_squares(fun, x0, jac=jac, method="trf", ftol=ftol, xtol=xtol, gtol=None,
                               bounds=(self._lower, self._upper) if bounded
                               else (-np.inf, np.inf))
        return result.x

    def _set_free_q(self, x: np.ndarray) -> None:
        """Put the free q into the internal State (quaternions normalized) and realize it
        to POSITION; nothing to do when it already holds x."""
        if self._x_set is not None and np.array_equal(x, self._x_set):
            return
        q = self._matter.upd_q(self._internal)
        q[self._free] = x
        for _, qs in self._quaternions:
            q[qs] /= np.linalg.norm(q[qs])
        self._system.realize(self._internal, Stage.POSITION)
        self._x_set = np.array(x)

    def _goal_values(self) -> np.ndarray:
        """√wₖ rₖ for every goal, concatenated (Σ wₖ goalₖ = ½ |this|²)."""
        self._num_goal_evals += 1
        state = self._internal
        return np.concatenate([np.sqrt(w) * np.asarray(c.calc_goal_residuals(state),
                                                       dtype=float).ravel()
                               for c, w in self._goals])

    def _error_values(self) -> np.ndarray:
        self._num_error_evals += 1
        state = self._internal
        return np.concatenate([np.asarray(c.calc_errors(state), dtype=float).ravel()
                               for c in self._errors])

    def _gauge(self, x: np.ndarray) -> np.ndarray:
        """|q| - 1 for each free quaternion."""
        return np.array([np.linalg.norm(x[pos]) - 1.0 for pos, _ in self._quaternions])

    def _jacobian(self, x: np.ndarray, scale: float, anchored: bool) -> np.ndarray:
        """The Jacobian of ``fun`` in ``_least_squares`` with respect to the free q:
        analytic blocks mapped from q, central differences for the conditions without."""
        state, n = self._internal, x.size
        blocks, numeric = [], []
        if self._goals:
            self._num_goal_gradient_evals += 1
            for c, w in self._goals:
                J = c.calc_goal_residual_jacobian(state)
                if J is None:
                    numeric.append((len(blocks), c.calc_goal_residuals, np.sqrt(w), True))
                    blocks.append(None)
                else:
                    blocks.append(np.sqrt(w) * self._to_free(J, x, c))
        if anchored:
            blocks.append(np.eye(n))
        gauge = np.zeros((len(self._quaternions), n))
        for i, (pos, _) in enumerate(self._quaternions):
            gauge[i, pos] = x[pos] / np.linalg.norm(x[pos])
        blocks.append(gauge)
        if self._errors:
            self._num_error_jacobian_evals += 1
            for c in self._errors:
                J = c.calc_error_jacobian(state)
                if J is None:
                    numeric.append((len(blocks), c.calc_errors, scale, False))
                    blocks.append(None)
                else:
                    blocks.append(scale * self._to_free(J, x, c))
        if numeric:
            self._finite_differences(x, numeric, blocks)
        return np.vstack(blocks)

    def _to_free(self, J_q, x: np.ndarray, condition) -> np.ndarray:
        """A condition's ∂/∂q (k x nq) as ∂/∂(free q): its free columns, each quaternion's
        block times (I - q̂q̂ᵀ)/|q| (the State holds q̂ = q/|q|)."""
        J_q = np.atleast_2d(np.asarray(J_q, dtype=float))
        nq = self._matter.get_q(self._internal).size
        if J_q.shape[1] != nq:
            raise KinetreeError(
                f"Assembler: {condition._label()} returned a Jacobian with {J_q.shape[1]} "
                f"columns; it must have one per q of the matter subsystem ({nq}).")
        J = J_q[:, self._free]
        for pos, qs in self._quaternions:
            norm = np.linalg.norm(x[pos])
            qhat = x[pos] / norm
            J[:, pos] = J_q[:, qs] @ (np.eye(4) - np.outer(qhat, qhat)) / norm
        return J

    def _finite_differences(self, x: np.ndarray, numeric, blocks) -> None:
        """Central differences over the free q of the conditions in ``numeric`` (slot,
        residual function, scale, is_goal), written into ``blocks``; the internal State
        is left at x."""
        columns = {slot: [] for slot, *_ in numeric}
        counts_goals = any(is_goal for *_, is_goal in numeric)
        counts_errors = any(not is_goal for *_, is_goal in numeric)
        for j in range(x.size):
            h = _EPS ** (1 / 3) * max(1.0, abs(x[j]))
            values = []
            for sign in (1.0, -1.0):
                xs = x.copy()
                xs[j] += sign * h
                self._set_free_q(xs)
                self._num_goal_evals += counts_goals
                self._num_error_evals += counts_errors
                values.append([np.asarray(f(self._internal), dtype=float).ravel()
                               for _, f, _, _ in numeric])
            for k, (slot, _, s, _) in enumerate(numeric):
                columns[slot].append(s * (values[0][k] - values[1][k]) / (2 * h))
        for slot, cols in columns.items():
            blocks[slot] = np.column_stack(cols)
        self._set_free_q(x)

    # ------------------------------------------------------------ results
    def calc_current_goal(self) -> float:
        """Σ wₖ goalₖ at the internal State's q."""
        self._initialize()
        self._system.realize(self._internal, Stage.POSITION)
        return float(sum(w * c.calc_goal(self._internal) for c, w in self._goals))

    def calc_current_error_norm(self) -> float:
        """The norm of the errors that is compared with the tolerance: max |err|, or the
        RMS with ``set_use_rms_error_norm``; 0 when there are none."""
        self._initialize()
        if not self._errors:
            return 0.0
        self._system.realize(self._internal, Stage.POSITION)
        return self._norm(self._error_values())

    def _norm(self, err: np.ndarray) -> float:
        if not err.size:
            return 0.0
        return float(np.sqrt(np.mean(err ** 2)) if self._use_rms else np.max(np.abs(err)))

    def _worst_error(self) -> str:
        """Names the constraint (or condition) with the largest error."""
        state, worst, name = self._internal, -1.0, ""
        for c in self._errors:
            if c is self._system_constraints:
                for i in range(self._matter.get_num_constraints()):
                    constraint = self._matter.get_constraint(i)
                    perr = constraint.get_position_errors_as_vector(state)
                    if perr.size and np.max(np.abs(perr)) > worst:
                        worst = float(np.max(np.abs(perr)))
                        name = (f"Constraint.{type(constraint).__name__} "
                                f"#{constraint.get_constraint_index()}")
                continue
            err = np.asarray(c.calc_errors(state), dtype=float)
            if err.size and np.max(np.abs(err)) > worst:
                worst, name = float(np.max(np.abs(err))), c._label()
        return f"{name} ({worst:.3g})"

    # --------------------------------------------------------- statistics
    def _reset_counters(self) -> None:
        self._num_goal_evals = self._num_error_evals = 0
        self._num_goal_gradient_evals = self._num_error_jacobian_evals = 0
        self._num_assembly_steps = 0

    def get_num_goal_evals(self) -> int:
        """Goal evaluations (finite-difference ones included) since initialization."""
        return self._num_goal_evals

    def get_num_error_evals(self) -> int:
        """Error evaluations (finite-difference ones included) since initialization."""
        return self._num_error_evals

    def get_num_goal_gradient_evals(self) -> int:
        return self._num_goal_gradient_evals

    def get_num_error_jacobian_evals(self) -> int:
        return self._num_error_jacobian_evals

    def get_num_assembly_steps(self) -> int:
        """Calls of ``assemble`` and ``track`` since initialization (Simbody's count)."""
        return self._num_assembly_steps

    def get_num_initializations(self) -> int:
        return self._num_initializations

    def reset_stats(self) -> None:
        self._reset_counters()
        self._num_initializations = 0
