"""ExplicitRungeKutta: the step attempt shared by the explicit Runge-Kutta integrators.

A method is its Butcher tableau: stage times c, stage coefficients a, solution weights b
and error weights e (b minus the embedded lower-order weights). Stage 1 is the derivative
at the start of the step, which the previous step already realized.
"""

from __future__ import annotations

import numpy as np

from kinetree.integrators import step_control as control
from kinetree.integrators.integrator import Integrator
from kinetree.integrators.step_control import combine


class ExplicitRungeKutta(Integrator):
    """An explicit Runge-Kutta method with an embedded error estimate, given by its
    tableau (class attributes c, a, b, e)."""

    compiled_method = control.RUNGE_KUTTA
    c: tuple = ()
    a: tuple = ()
    b: tuple = ()
    e: tuple = ()

    def _allocate(self, ny: int) -> None:
        s = len(self.c)
        self._k = np.empty((s, ny))
        self._tableau = control.tableau(self.c, self.a, self.b, self.e)
        self._a, self._b, self._e, self._c = (self._tableau[:s], self._tableau[s],
                                              self._tableau[s + 1], self._tableau[s + 2])
        self._zero = np.zeros(ny)

    def _attempt(self, t0: float, h: float):
        k, y = self._k, self._stage_y
        k[0] = self._ydot0
        for i in range(1, len(self.c)):
            combine(self._y0, h, self._a[i], k, i, y)
            self._f(t0 + self._c[i] * h, y, k[i])
        combine(self._y0, h, self._b, k, len(self.c), self._y1)
        combine(self._zero, h, self._e, k, len(self.c), self._err)
        return self._err
