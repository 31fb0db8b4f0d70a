"""AssemblyCondition: one requirement or wish on the configuration q, for the Assembler
(Simbody's ``SimTK::AssemblyCondition``), and ``QValue``, the simplest one.

A condition adopted with an infinite weight is an *error* condition: its errors
``calc_errors(state)`` must each be driven to within the Assembler's tolerance. With a
finite weight it is a *goal*: its value ``calc_goal(state)`` (≥ 0) is minimized, weighted,
together with the other goals. kinetree's Assembler solves least-squares problems, so a goal
is best written as residuals r with goal = ½ |r|² (``calc_goal_residuals``): Markers,
QValue and the System's constraints are. A condition that only defines ``calc_goal`` is
minimized through the single residual r = √(2 goal), and one that only defines
``calc_errors`` has Simbody's default goal |err|²/m.

Jacobians are with respect to the matter subsystem's q (all nq columns, in the State's
layout), evaluated with every quaternion at unit length; only their component tangent to
the unit sphere is used. A condition whose Jacobian method returns None gets central
differences from the Assembler. ``speed_jacobian_to_q`` turns a Jacobian with respect to
the speeds u (the kind ``calc_station_jacobian`` and the system Jacobian give) into one with
respect to q.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.multibody.mobilized_body import MobilizedBody


def speed_jacobian_to_q(matter, state, J_u) -> np.ndarray:
    """∂f/∂q = (∂f/∂u) N⁻¹ (k x nq) for a Jacobian J_u (k x nu) with respect to the speeds:
    the rate of f per unit q̇, through q̇ = N u (POSITION). One O(n) product per row, or
    per column of N⁻¹ when there are fewer q than rows."""
    J_u = np.atleast_2d(np.asarray(J_u, dtype=float))
    nq = matter.get_q(state).size
    if J_u.shape[0] <= nq:
        return np.array([matter.multiply_by_n_inv(state, row, transpose=True)
                         for row in J_u]).reshape(J_u.shape[0], nq)
    n_inv = np.column_stack([matter.multiply_by_n_inv(state, e) for e in np.eye(nq)])
    return J_u @ n_inv


class AssemblyCondition:
    """Base of the assembly conditions; subclass it and override ``calc_errors`` (a
    requirement) and/or ``calc_goal_residuals`` (a wish), optionally their Jacobians.

    The Assembler calls ``initialize_condition(state)`` before it evaluates anything and
    then the calc methods with its internal State realized to POSITION at trial q.
    """

    def __init__(self, name: str):
        self._name = str(name)
        self._assembler = None
        self._index = None

    # ---------------------------------------------------------------- identity
    def get_name(self) -> str:
        return self._name

    def is_in_assembler(self) -> bool:
        return self._assembler is not None

    def get_assembler(self):
        if self._assembler is None:
            raise InvalidArgumentError(
                f"{self._label()}: it has not been adopted by an Assembler yet; call "
                f"assembler.adopt_assembly_goal(condition) or adopt_assembly_error first.")
        return self._assembler

    def get_assembly_condition_index(self) -> int | None:
        return self._index

    def get_matter_subsystem(self):
        return self.get_assembler().get_matter_subsystem()

    def get_multibody_system(self):
        return self.get_assembler().get_multibody_system()

    def _label(self) -> str:
        return f"{type(self).__name__} '{self._name}'"

    def _uninitialize_assembler(self) -> None:
        """Call after a change that alters the problem's structure (Simbody's
        ``uninitializeAssembler``): the Assembler then reinitializes before its next
        solve."""
        if self._assembler is not None:
            self._assembler.uninitialize()
        else:
            self.uninitialize_condition()

    # --------------------------------------------------------------- lifecycle
    def initialize_condition(self, state) -> None:
        """Called when the Assembler initializes, with its internal State realized to
        POSITION; validate and precompute here."""

    def uninitialize_condition(self) -> None:
        """Called when the Assembler is uninitialized."""

    # ------------------------------------------------------------------ errors
    def calc_errors(self, state) -> np.ndarray | None:
        """The errors that must vanish (units of the condition), or None when this
        condition can only be a goal."""
        return None

    def get_num_errors(self, state) -> int:
        err = self.calc_errors(state)
        if err is None:
            raise KinetreeError(
                f"{self._label()}: it defines no calc_errors, so it can only be adopted as "
                f"a goal (assembler.adopt_assembly_goal).")
        return int(np.size(err))

    def calc_error_jacobian(self, state) -> np.ndarray | None:
        """∂err/∂q (m x nq), or None for central differences."""
        return None

    # -------------------------------------------------------------------- goal
    def calc_goal_residuals(self, state) -> np.ndarray:
        """Residuals r with goal = ½ |r|². The default derives them from ``calc_goal``
        when a subclass overrides it (r = √(2 goal)), else from the errors (Simbody's
        goal |err|²/m)."""
        if type(self).calc_goal is not AssemblyCondition.calc_goal:
            return np.array([np.sqrt(2.0 * max(float(self.calc_goal(state)), 0.0))])
        err = self.calc_errors(state)
        if err is None:
            raise KinetreeError(
                f"{self._label()}: it defines none of calc_goal_residuals, calc_goal and "
                f"calc_errors; override one of them.")
        err = np.asarray(err, dtype=float).ravel()
        return err * np.sqrt(2.0 / max(err.size, 1))

    def calc_goal_residual_jacobian(self, state) -> np.ndarray | None:
        """∂r/∂q (k x nq), or None for central differences. The default uses the error
        Jacobian, or ``calc_goal_gradient`` for a scalar goal, when those are given."""
        if type(self).calc_goal is not AssemblyCondition.calc_goal:
            if type(self).calc_goal_gradient is AssemblyCondition.calc_goal_gradient:
                return None
            r = self.calc_goal_residuals(state)[0]
            if r == 0.0:
                return None
            return np.asarray(self.calc_goal_gradient(state), dtype=float)[None, :] / r
        J = self.calc_error_jacobian(state)
        if J is None:
            return None
        m = max(self.get_num_errors(state), 1)
        return np.asarray(J, dtype=float) * np.sqrt(2.0 / m)

    def calc_goal(self, state) -> float:
        """The goal value (≥ 0), ½ |r|² from the residuals by default."""
        r = self.calc_goal_residuals(state)
        return 0.5 * float(r @ r)

    def calc_goal_gradient(self, state) -> np.ndarray | None:
        """∂goal/∂q (nq) = Jᵀ r from the residual Jacobian, or None when that is not
        given."""
        J = self.calc_goal_residual_jacobian(state)
        if J is None:
            return None
        return np.asarray(J, dtype=float).T @ self.calc_goal_residuals(state)


class QValue(AssemblyCondition):
    """Asks that one generalized coordinate take a value (Simbody's
    ``AssemblyCondition::QValue``): as a goal ½ (q - value)², as an error q - value.
    ``which_q`` counts within the mobilizer's q in the State's layout."""

    def __init__(self, mobod, which_q: int, value: float):
        super().__init__("QValue")
        if not isinstance(mobod, MobilizedBody):
            raise InvalidArgumentError(
                f"QValue: expected a MobilizedBody, got {type(mobod).__name__}.")
        self._mobod = mobod
        self._which = int(which_q)
        self._value = self._checked(value)

    @staticmethod
    def _checked(value) -> float:
        v = float(value)
        if not np.isfinite(v):
            raise InvalidArgumentError(f"QValue: the value must be finite, got {value!r}.")
        return v

    def get_value(self) -> float:
        return self._value

    def set_value(self, value: float) -> None:
        """Change the target; allowed between tracking frames."""
        self._value = self._checked(value)

    def initialize_condition(self, state) -> None:
        assembler = self.get_assembler()
        assembler._check_mobod(self._mobod, "QValue")
        self._q_index = assembler._q_index(self._mobod, self._which, "QValue")

    def calc_errors(self, state) -> np.ndarray:
        return np.array([self._mobod.get_matter_subsystem().get_q(state)[self._q_index]
                         - self._value])

    def get_num_errors(self, state) -> int:
        return 1

    def calc_error_jacobian(self, state) -> np.ndarray:
        J = np.zeros((1, self._mobod.get_matter_subsystem().get_q(state).size))
        J[0, self._q_index] = 1.0
        return J

    def calc_goal_residuals(self, state) -> np.ndarray:
        return self.calc_errors(state)

    def calc_goal_residual_jacobian(self, state) -> np.ndarray:
        return self.calc_error_jacobian(state)
