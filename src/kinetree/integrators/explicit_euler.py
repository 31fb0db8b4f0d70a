"""ExplicitEulerIntegrator: y1 = y0 + h ẏ0, first order (Simbody's ExplicitEulerIntegrator).

Its error estimate is the difference from Heun's trapezoidal step, (h/2)(ẏ(t1, y1) - ẏ0),
which costs one more realization per step. Useful as a baseline and for tests of order.
"""

from kinetree.integrators.runge_kutta import ExplicitRungeKutta


class ExplicitEulerIntegrator(ExplicitRungeKutta):
    """Forward Euler, error-controlled unless given a fixed step size."""

    method_name = "ExplicitEuler"
    min_order = max_order = 1
    c = (0.0, 1.0)
    a = ((1.0,),)
    b = (1.0, 0.0)
    e = (0.5, -0.5)
