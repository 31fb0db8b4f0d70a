"""VerletIntegrator: velocity Verlet with error control (Simbody's VerletIntegrator), the
molecular-dynamics workhorse; second order and time-reversible for position-dependent
forces.

    q1 = q0 + h q̇0 + (h²/2) q̈0,   u1 = u0 + (h/2)(u̇0 + u̇1)

u̇1 depends on u1 when forces depend on velocity, so u1 is found by fixed-point iteration
from the Euler prediction u0 + h u̇0 (one correction suffices for position-only forces; up
to three are taken). The error estimate is q1 minus the trapezoidal q0 + (h/2)(q̇0 + q̇1),
third order in h, together with the change made by the last velocity correction.
"""

from __future__ import annotations

import numpy as np

from kinetree.integrators.integrator import Integrator

_MAX_CORRECTIONS = 3


class VerletIntegrator(Integrator):
    """Velocity Verlet, error-controlled unless given a fixed step size."""

    method_name = "Verlet"
    min_order = max_order = 2
    _CHECKPOINT = {"_qdotdot0": "finite"}

    def _allocate(self, ny: int) -> None:
        self._nq = self._advanced.get_num_q()
        self._nu = self._advanced.get_num_u()
        self._qdotdot0 = np.empty(self._nq)
        self._ydot_end = np.empty(ny)
        self._previous_u = np.empty(self._nu)

    def _restart(self) -> None:
        super()._restart()
        self._qdotdot0[:] = self._advanced.get_q_dot_dot()

    def _accepted(self, t0: float, h: float) -> None:
        self._qdotdot0[:] = self._advanced.get_q_dot_dot()

    def _attempt(self, t0: float, h: float):
        nq, nu = self._nq, self._nu
        y0, f0, y1, err = self._y0, self._ydot0, self._y1, self._err
        y1[:nq] = y0[:nq] + h * f0[:nq] + (0.5 * h * h) * self._qdotdot0
        y1[nq:] = y0[nq:] + h * f0[nq:]
        u1 = y1[nq:nq + nu]
        for _ in range(_MAX_CORRECTIONS):
            self._previous_u[:] = u1
            self._f(t0 + h, y1, self._ydot_end)
            y1[nq:] = y0[nq:] + (0.5 * h) * (f0[nq:] + self._ydot_end[nq:])
            change = np.abs(u1 - self._previous_u)
            if not change.size or change.max() <= 1e-3 * self._accuracy * \
                    (1 + np.abs(u1).max()):
                break
        err[:nq] = y1[:nq] - y0[:nq] - (0.5 * h) * (f0[:nq] + self._ydot_end[:nq])
        err[nq:] = 0.0
        err[nq:nq + nu] = u1 - self._previous_u
        return err
