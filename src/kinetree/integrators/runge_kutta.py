"""ExplicitRungeKutta: the step attempt shared by the explicit Runge-Kutta integrators.

A method is its Butcher tableau: stage times c, stage coefficients a, solution weights b
and error weights e (b minus the embedded lower-order weights). Stage 1 is the derivative
at the start of the step, which the previous step already realized.
"""

from __future__ import annotations

import numba
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
        s = len(self.c)
        self._k = np.empty((s, ny))
        self._stage_y = np.empty(ny)
        self._a = np.zeros((s, s))
        for i, row in enumerate(self.a, start=1):
            self._a[i, :len(row)] = row
        self._b = np.array(self.b, dtype=float)
        self._e = np.array(self.e, dtype=float)
        self._zero = np.zeros(ny)

    def _attempt(self, t0: float, h: float):
        k, y = self._k, self._stage_y
        k[0] = self._ydot0
        stepper = self._stepper
        if stepper is not None:
            stepper.runge_kutta_stages(self._y0, h, self._a, k, y)
            self._realizations += len(self.c) - 1
        else:
            for i in range(1, len(self.c)):
                _combine(self._y0, h, self._a[i], k, i, y)
                self._f(t0 + self.c[i] * h, y, k[i])
        _combine(self._y0, h, self._b, k, len(self.c), self._y1)
        _combine(self._zero, h, self._e, k, len(self.c), self._err)
        return self._err


@numba.njit(cache=True)
def _combine(y0, h, coefficients, k, n, out):
    """out = y0 + h Σ_{j<n} coefficients_j k_j: one stage or the step's end, in one pass."""
    for i in range(y0.shape[0]):
        total = 0.0
        for j in range(n):
            total += coefficients[j] * k[j, i]
        out[i] = y0[i] + h * total
