"""RungeKutta4Integrator: the classic fourth-order Runge-Kutta method, with a fixed step
and no error estimate (MuJoCo's RK4; Simbody has none).

A step costs three stage realizations plus one at its end, against Runge-Kutta-Merson's
four plus one: the cheaper choice where a fixed step is wanted anyway (a controller's
rate, a comparison with another engine), at the price of no check on the error.
"""

from kinetree.integrators.runge_kutta import ExplicitRungeKutta


class RungeKutta4Integrator(ExplicitRungeKutta):
    """Classic RK4 with a fixed step: ``RungeKutta4Integrator(system, h)``."""

    method_name = "RungeKutta4"
    min_order = max_order = 4
    has_error_control = False
    c = (0.0, 0.5, 0.5, 1.0)
    a = ((0.5,),
         (0.0, 0.5),
         (0.0, 0.0, 1.0))
    b = (1 / 6, 1 / 3, 1 / 3, 1 / 6)
    e = (0.0, 0.0, 0.0, 0.0)
