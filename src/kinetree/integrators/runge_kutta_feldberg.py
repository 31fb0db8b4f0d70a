"""RungeKuttaFeldbergIntegrator: Fehlberg's six-stage 5(4) pair, advancing the fifth-order
solution and estimating the error from the embedded fourth-order one (Simbody's
RungeKuttaFeldbergIntegrator)."""

from kinetree.integrators.runge_kutta import ExplicitRungeKutta

_B5 = (16 / 135, 0.0, 6656 / 12825, 28561 / 56430, -9 / 50, 2 / 55)
_B4 = (25 / 216, 0.0, 1408 / 2565, 2197 / 4104, -1 / 5, 0.0)


class RungeKuttaFeldbergIntegrator(ExplicitRungeKutta):
    """Runge-Kutta-Fehlberg 5(4)."""

    method_name = "RungeKuttaFeldberg"
    min_order = 4
    max_order = 5
    c = (0.0, 1 / 4, 3 / 8, 12 / 13, 1.0, 1 / 2)
    a = ((1 / 4,),
         (3 / 32, 9 / 32),
         (1932 / 2197, -7200 / 2197, 7296 / 2197),
         (439 / 216, -8.0, 3680 / 513, -845 / 4104),
         (-8 / 27, 2.0, -3544 / 2565, 1859 / 4104, -11 / 40))
    b = _B5
    e = tuple(b5 - b4 for b5, b4 in zip(_B5, _B4))
