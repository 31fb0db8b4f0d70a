"""ExplicitRungeKutta: the step attempt shared by the explicit Runge-Kutta integrators.

A method is its Butcher tableau: stage times c, stage coefficients a, solution weights b
and error weights e (b minus the embedded lower-order weights). Stage 1 is the derivative
at the start of the step, which the previous step already realized.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.integrators import step_control as control
from kinetree.integrators.integrator import Integrator
from kinetree.integrators.step_control import combine


class ExplicitRungeKutta(Integrator):
    """An explicit Runge-Kutta method with an embedded error estimate, given by its
    tableau (class attributes c, a, b, e)."""

    c: tuple = ()
    a: tuple = ()
    b: tuple = ()
    e: tuple = ()

    def _allocate(self, ny: int) -> None:
        s = len(self.c)
        self._k = np.empty((s, ny))
        # The tableau in one array: the rows of a (row i the coefficients of stage i),
        # then b, then e.
        self._tableau = np.zeros((s + 2, s))
        for i, row in enumerate(self.a, start=1):
            self._tableau[i, :len(row)] = row
        self._tableau[s], self._tableau[s + 1] = self.b, self.e
        self._a, self._b, self._e = self._tableau[:s], self._tableau[s], self._tableau[s + 1]
        self._zero = np.zeros(ny)
        self._control_f = np.zeros(control.N_CONTROL_F)
        self._control_i = np.zeros(control.N_CONTROL_I, dtype=np.int64)
        self._control_sent = None       # _control_values() as the arrays hold them
        # Compiled runs take the steps this class's _attempt would, and nothing else.
        cls = type(self)
        self._runs_compiled = cls._attempt is ExplicitRungeKutta._attempt and \
            cls._take_step is Integrator._take_step and cls._accepted is Integrator._accepted

    def _attempt(self, t0: float, h: float):
        k, y = self._k, self._stage_y
        k[0] = self._ydot0
        for i in range(1, len(self.c)):
            combine(self._y0, h, self._a[i], k, i, y)
            self._f(t0 + self.c[i] * h, y, k[i])
        combine(self._y0, h, self._b, k, len(self.c), self._y1)
        combine(self._zero, h, self._e, k, len(self.c), self._err)
        return self._err

    def _control_values(self) -> tuple:
        """What the control arrays hold of the integrator between runs (step_control's
        layout, less where to stop): the last step, the settings and the counters."""
        return (self._t0, self._t1, self._h_next, self._h_taken, self._fixed_step or 0.0,
                self._max_step, self._min_step, self._accuracy,
                self.get_constraint_tolerance_in_use(), self._project_every_step,
                self._infinity_norm, self._steps_taken, self._steps_attempted,
                self._realizations, self._projections, self._error_test_failures,
                self._projection_failures)

    def _take_steps(self, t_stop: float, report_time: float, limit: int) -> int:
        """With a compiled stepper, every step up to the report time in one compiled run
        (engine/step.py): the steps ``_take_step`` would take one at a time."""
        stepper = self._stepper
        if stepper is None or not self._runs_compiled:
            return super()._take_steps(t_stop, report_time, limit)
        if math.isnan(self._h_next):
            self._h_next = self._fixed_step or self._initial_step or self._starting_step()
        f, i = self._control_f, self._control_i
        # The arrays keep what the last run left in them. They are filled again only where
        # Python has changed the integrator since (a Python step, initialize, a setter):
        # filling them from tuples costs ~2.5 µs, a sixth of a small model's step.
        current = self._control_values()
        if current != self._control_sent:
            f[:control.T_STOP] = current[:4]
            f[control.FIXED_STEP:] = (*current[4:8], 1.0 / (self.min_order + 1), current[8])
            i[control.PROJECT:control.END_PENDING] = current[9:]
        f[control.T_STOP], f[control.T_REPORT] = t_stop, report_time
        i[control.STEP_LIMIT], i[control.END_PENDING] = limit, 0
        steps_before = self._steps_taken
        failed = stepper.run(f, i, self._work, self._k, self._tableau, self._unit_weights,
                             self._group_ends)
        if failed is None:                  # Python in the realization now: step in Python
            self._stepper = None
            self._control_sent = None
            return super()._take_steps(t_stop, report_time, limit)
        self._t0, self._t1, self._h_next, self._h_taken = f[:control.T_STOP].tolist()
        (self._steps_taken, self._steps_attempted, self._realizations, self._projections,
         self._error_test_failures, self._projection_failures) = \
            i[control.STEPS:control.END_PENDING].tolist()
        self._control_sent = self._control_values()
        taken = self._steps_taken - steps_before
        state = self._advanced
        state.set_time(self._t1)
        if failed == 0:
            stepper.mark_realized()
            return taken
        # The run left the advanced State's arrays mid-step: back to the last step taken.
        error = stepper.error(failed, self)
        state.upd_y()[:] = self._y1
        self._realize(state)
        self._ydot1[:] = state.get_y_dot()
        raise error
