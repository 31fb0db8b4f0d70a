"""SemiExplicitEulerIntegrator: the symplectic Euler step u1 = u0 + h u̇0, q1 = q0 + h N(q0) u1
(Simbody's SemiExplicitEulerIntegrator). First order, fixed step, no error estimate; it
keeps the energy of a conservative system bounded where explicit Euler lets it grow.
"""

from __future__ import annotations

import numpy as np

from kinetree.integrators import step_control as control
from kinetree.integrators.integrator import Integrator
from kinetree.system.stage import Stage


class SemiExplicitEulerIntegrator(Integrator):
    """Symplectic Euler with a fixed step: ``SemiExplicitEulerIntegrator(system, h)``."""

    method_name = "SemiExplicitEuler"
    min_order = max_order = 1
    has_error_control = False
    compiled_method = control.SEMI_EXPLICIT_EULER

    def _allocate(self, ny: int) -> None:
        self._nq = self._advanced.get_num_q()
        self._nu = self._advanced.get_num_u()

    def _semi_explicit_step(self, t0: float, h: float, y0, ydot0, out) -> None:
        """One symplectic Euler step from (t0, y0) with ẏ0 = ``ydot0`` into ``out``: u and z
        by explicit Euler, then q with the q̇ = N(q0) u1 of the new speeds."""
        nq = self._nq
        np.multiply(ydot0[nq:], h, out=out[nq:])
        out[nq:] += y0[nq:]
        out[:nq] = y0[:nq]
        # N(q0) u1 from the velocity stage: not a derivative evaluation, so not counted
        # among the realizations (a compiled run applies N without realizing).
        state = self._scratch
        self._write(state, t0, out)
        self._system.realize(state, Stage.VELOCITY)
        out[:nq] += h * state.get_q_dot()

    def _attempt(self, t0: float, h: float):
        self._semi_explicit_step(t0, h, self._y0, self._ydot0, self._y1)
        return None
