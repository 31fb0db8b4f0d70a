"""RungeKutta2Integrator: Heun's second-order trapezoidal method with the explicit Euler
step as its embedded first-order estimate (Simbody's RungeKutta2Integrator)."""

from kinetree.integrators.runge_kutta import ExplicitRungeKutta


class RungeKutta2Integrator(ExplicitRungeKutta):
    """Heun's method: y1 = y0 + (h/2)(k1 + k2), k2 at the Euler-predicted end."""

    method_name = "RungeKutta2"
    min_order = max_order = 2
    c = (0.0, 1.0)
    a = ((1.0,),)
    b = (0.5, 0.5)
    e = (-0.5, 0.5)
