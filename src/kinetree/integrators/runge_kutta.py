"""ExplicitRungeKutta: the step attempt shared by the explicit Runge-Kutta integrators.

A method is its Butcher tableau: stage times c, stage coefficients a, solution weights b
and error weights e (b minus the embedded lower-order weights). Stage 1 is the derivative
at the start of the step, which the previous step already realized.
"""

from __future__ import annotations

import numpy as np

from kinetree.integrators.integrator import Integrator


class ExplicitRungeKutta(Integrator):
    """An explicit Runge-Kutta method with an embedded error estimate, given by its
    tableau (class attributes c, a, b, e)."""

    c: tuple = ()
    a: tuple = ()
    b: tuple = ()
    e: tuple = ()

    def _allocate(self, ny: int) -> None:
        self._k = np.empty((len(self.c), ny))
        self._stage_y = np.empty(ny)
        self._a = [np.array(row, dtype=float) for row in self.a]
        self._b = np.array(self.b, dtype=float)
        self._e = np.array(self.e, dtype=float)

    def _attempt(self, t0: float, h: float):
        k, y = self._k, self._stage_y
        k[0] = self._ydot0
        for i in range(1, len(self.c)):
            np.dot(self._a[i - 1], k[:i], out=y)
            y *= h
            y += self._y0
            self._f(t0 + self.c[i] * h, y, k[i])
        np.dot(self._b, k, out=self._y1)
        self._y1 *= h
        self._y1 += self._y0
        np.dot(self._e, k, out=self._err)
        self._err *= h
        return self._err
