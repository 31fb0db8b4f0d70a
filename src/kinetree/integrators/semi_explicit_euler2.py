"""SemiExplicitEuler2Integrator: symplectic Euler with error control (Simbody's
SemiExplicitEuler2Integrator). Each attempt takes one full step and two half steps; the
two half steps are kept and their difference from the full step, first order, is the error
estimate.
"""

from __future__ import annotations

import numpy as np

from kinetree.integrators.semi_explicit_euler import SemiExplicitEulerIntegrator


class SemiExplicitEuler2Integrator(SemiExplicitEulerIntegrator):
    """Error-controlled symplectic Euler by step halving."""

    method_name = "SemiExplicitEuler2"
    has_error_control = True

    def _allocate(self, ny: int) -> None:
        super()._allocate(ny)
        self._full = np.empty(ny)
        self._half = np.empty(ny)
        self._half_dot = np.empty(ny)

    def _attempt(self, t0: float, h: float):
        self._semi_explicit_step(t0, h, self._y0, self._ydot0, self._full)
        self._semi_explicit_step(t0, 0.5 * h, self._y0, self._ydot0, self._half)
        self._f(t0 + 0.5 * h, self._half, self._half_dot)
        self._semi_explicit_step(t0 + 0.5 * h, 0.5 * h, self._half, self._half_dot, self._y1)
        np.subtract(self._y1, self._full, out=self._err)
        return self._err
