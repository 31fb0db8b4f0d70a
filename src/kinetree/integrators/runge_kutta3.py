"""RungeKutta3Integrator: Kutta's third-order method, three stages, with the midpoint rule
as its embedded second-order estimate (Simbody's RungeKutta3Integrator)."""

from kinetree.integrators.runge_kutta import ExplicitRungeKutta


class RungeKutta3Integrator(ExplicitRungeKutta):
    """Kutta's third-order method: y1 = y0 + (h/6)(k1 + 4 k2 + k3)."""

    method_name = "RungeKutta3"
    min_order = max_order = 3
    c = (0.0, 0.5, 1.0)
    a = ((0.5,), (-1.0, 2.0))
    b = (1 / 6, 2 / 3, 1 / 6)
    e = (1 / 6, -1 / 3, 1 / 6)
