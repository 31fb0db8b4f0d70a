"""RungeKuttaMersonIntegrator: Merson's five-stage fourth-order method with its built-in
error estimate, Simbody's default integrator.

The estimate (h/30)(2k1 - 9k3 + 8k4 - k5) is the difference between the fourth-order
solution and a third-order one sharing its stages; with the start derivative carried over
from the previous step, a step costs four stage realizations plus one at its end.
"""

from kinetree.integrators.runge_kutta import ExplicitRungeKutta


class RungeKuttaMersonIntegrator(ExplicitRungeKutta):
    """Runge-Kutta-Merson 4(3): the default integrator, as in Simbody."""

    method_name = "RungeKuttaMerson"
    min_order = max_order = 4
    c = (0.0, 1 / 3, 1 / 3, 0.5, 1.0)
    a = ((1 / 3,),
         (1 / 6, 1 / 6),
         (1 / 8, 0.0, 3 / 8),
         (1 / 2, 0.0, -3 / 2, 2.0))
    b = (1 / 6, 0.0, 0.0, 2 / 3, 1 / 6)
    e = (2 / 30, 0.0, -9 / 30, 8 / 30, -1 / 30)
