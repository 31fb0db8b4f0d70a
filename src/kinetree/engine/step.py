"""CompiledStepper: an integrator's derivative evaluations in compiled code, for a State
whose realization from TIME to ACCELERATION is one compiled call with no Python in it and
whose only projection is the normalization of quaternions (a model of built-in elements
without constraints).

The integrator keeps its whole logic (error control, dense output, events) and asks the
stepper for ẏ = f(y), one compiled call per evaluation, or for all the stages of an
explicit Runge-Kutta step in one call. The evaluations use the stepper's own State (the
integrator's scratch State), never the advanced one, so a failure mid-step loses nothing.
"""

from __future__ import annotations

import numba
import numpy as np

from kinetree.engine.forward import (
    ACCELERATION,
    OVERFLOW,
    POSITION,
    SINGULAR,
    realize_stages,
)
from kinetree.multibody.kernels.n_matrix import normalize_quaternions
from kinetree.system.stage import Stage
from kinetree.system.subsystem import Subsystem


@numba.njit(cache=True)
def runge_kutta_stages(y0, h, a, k, stage_y, y, ydot, *arguments):
    """k[i] = f(y0 + h Σ_{j<i} a[i, j] k[j]) for every stage i ≥ 1 (k[0] given), each f
    a realization of the State whose arrays ``arguments`` views (y, ẏ among them); 0, or
    what realize_stages returned at the first that stopped early."""
    for i in range(1, k.shape[0]):
        for n in range(y0.shape[0]):
            total = 0.0
            for j in range(i):
                total += a[i, j] * k[j, n]
            stage_y[n] = y0[n] + h * total
        y[:] = stage_y
        failed = realize_stages(POSITION, ACCELERATION, *arguments)
        if failed != 0:
            return failed
        k[i, :] = ydot
    return 0


class CompiledStepper:
    """Compiled derivative evaluations on one State (module docstring)."""

    def __init__(self, system, state, plan):
        self._system, self._state, self._plan = system, state, plan
        self._arguments = plan._arguments
        self._y, self._ydot = state._y, state._ydot
        matter = system.get_matter_subsystem()
        self._quaternion_q = matter.get_tree_data(state).quaternion_q
        self._one_stage = np.zeros((2, self._y.size))
        self._no_coefficients = np.zeros((2, 2))
        self._stage_y = np.zeros(self._y.size)

    @classmethod
    def for_state(cls, system, state) -> CompiledStepper | None:
        """A stepper on ``state`` (realized to INSTANCE), or None if its realization has
        Python in it, or it has something to project beyond quaternions, or variables
        the matter subsystem does not own."""
        plan = system._plan_of(state)
        if plan._arguments is None:
            return None
        actions = plan._plan(int(Stage.TIME), int(Stage.ACCELERATION))
        if [a[1:] for a in actions if a[0] != 2] != [(int(POSITION), int(ACCELERATION))]:
            return None
        matter = system.get_matter_subsystem()
        part = state._parts[matter.get_my_subsystem_index()]
        nq, nu = state.get_num_q(), state.get_num_u()
        if state.get_num_z() or part.q_slice != slice(0, nq) or part.u_slice != slice(0, nu):
            return None
        if matter._constraints and matter._constraint_data(state).layouts:
            return None
        for ss in system._subsystems:
            if ss is not matter and (type(ss).project_q is not Subsystem.project_q
                                     or type(ss).project_u is not Subsystem.project_u):
                return None
        return cls(system, state, plan)

    def _done(self, failed: int) -> bool:
        """True if the evaluation succeeded; raise for a singular inertia; after a contact
        buffer overflow grow the buffers, rebind to the State's new plan and say False
        (evaluate again)."""
        if failed == SINGULAR:
            self._plan._raise_singular(self._state)
        if failed == OVERFLOW:
            self._plan._search._grow(self._state)
            self._plan = self._system._plan_of(self._state)
            self._arguments = self._plan._arguments
        return failed == 0

    def evaluate(self, y: np.ndarray, out: np.ndarray) -> None:
        """out = ẏ at y: a Runge-Kutta "step" of one stage at y (one compiled function
        serves both, as each caller of the realization compiles it again)."""
        k = self._one_stage
        self.runge_kutta_stages(y, 0.0, self._no_coefficients, k, self._stage_y)
        out[:] = k[1]

    def runge_kutta_stages(self, y0, h, a, k, stage_y) -> None:
        """The stages 1.. of an explicit Runge-Kutta step into k (k[0] given)."""
        while not self._done(runge_kutta_stages(y0, h, a, k, stage_y, self._y, self._ydot,
                                                *self._arguments)):
            pass

    def project(self, y: np.ndarray) -> None:
        """The projection of such a model: its quaternions normalized, in y."""
        normalize_quaternions(y, self._quaternion_q)
