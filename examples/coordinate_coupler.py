"""Simbody's simple constraints: a CoordinateCoupler that keeps two coordinates
equal, c(q) = q1 - q2 = 0.

Two pendulums of different lengths hang from Ground on Pin joints; left alone they would
swing apart. First the constraint function is written out as a Function subclass (the
seed's ConstraintFunction), then the same constraint is built from Function.Linear with
coefficients (1, -1, 0). Each run integrates the motion (fixed-step RK4 with projection
after every step) and prints both pin angles, which stay equal while they swing.

Run: python examples/coordinate_coupler.py
"""

import sys

import numpy as np

import kinetree as kt


class ConstraintFunction(kt.Function):
    """c(x) = x0 - x1, with all its derivatives."""

    def calc_value(self, x):
        return x[0] - x[1]

    def calc_derivative(self, deriv_components, x):
        if len(deriv_components) == 1:
            return 1.0 if deriv_components[0] == 0 else -1.0
        return 0.0

    def get_argument_size(self):
        return 2

    def get_max_derivative_order(self):
        return sys.maxsize


RK4 = ((0.0, 1 / 6), (0.5, 1 / 3), (0.5, 1 / 3), (1.0, 1 / 6))
"""(c, w) of each classical Runge-Kutta stage: evaluated at t0 + c h, weighted w."""


def build(make_coupler):
    """Two pendulums (0.7 m and 1.2 m) on Pin joints, coupled by ``make_coupler(matter,
    body1, body2)`` (uncoupled when it returns None)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    bob = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01, 0.01, 0.01)))
    body1 = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), bob,
                                 kt.Transform([0, 0.7, 0]))
    body2 = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([1, 0, 0]), bob,
                                 kt.Transform([0, 1.2, 0]))
    coupler = make_coupler(matter, body1, body2)
    return system, coupler, body1, body2


def with_function_subclass(matter, body1, body2):
    # As in the seed: which coordinate of which mobilized body is each argument.
    coord_body = [body1.get_mobilized_body_index(), body2.get_mobilized_body_index()]
    coord_index = [0, 0]
    return kt.Constraint.CoordinateCoupler(matter, ConstraintFunction(), coord_body,
                                           coord_index)


def with_linear_function(matter, body1, body2):
    coefficients = [1, -1, 0]   # f(x, y) = 1 x - 1 y + 0
    return kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear(coefficients),
                                           [body1, body2], [0, 0])


def simulate(make_coupler, t_final=2.0, h=5e-3, report_every=0.25, quiet=False,
             q0=(0.6, 0.0)):
    """Integrate from angles ``q0`` (rad); return the largest |q1 - q2| seen and the
    final angles."""
    system, coupler, body1, body2 = build(make_coupler)
    state = system.realize_topology()
    body1.set_one_q(state, 0, q0[0])    # projection makes the two angles agree
    body2.set_one_q(state, 0, q0[1])
    system.project(state, 1e-12)
    system.realize(state, kt.Stage.ACCELERATION)
    worst, every = 0.0, int(round(report_every / h))
    if not quiet:
        print(f"{'t (s)':>6} {'q1 (rad)':>12} {'q2 (rad)':>12} {'q1 - q2':>10}")
    for k in range(int(round(t_final / h)) + 1):
        q1, q2 = body1.get_one_q(state, 0), body2.get_one_q(state, 0)
        worst = max(worst, abs(q1 - q2))
        if k % every == 0 and not quiet:
            print(f"{state.get_time():6.2f} {q1:12.8f} {q2:12.8f} {q1 - q2:10.1e}")
        if k == int(round(t_final / h)):
            break
        y0, t0 = state.get_y().copy(), state.get_time()
        slopes = []
        for c, _ in RK4:
            if slopes:
                state.set_y(y0 + c * h * slopes[-1])
            state.set_time(t0 + c * h)
            system.realize(state, kt.Stage.ACCELERATION)
            slopes.append(np.asarray(state.get_y_dot()).copy())
        state.set_time(t0 + h)
        state.set_y(y0 + h * sum(w * s for (_, w), s in zip(RK4, slopes)))
        system.project(state, 1e-12)
        system.realize(state, kt.Stage.ACCELERATION)
    return worst, body1.get_one_q(state, 0), body2.get_one_q(state, 0)


def main(t_final=2.0, quiet=False):
    results = []
    for title, make in (("CoordinateCoupler with a Function subclass", with_function_subclass),
                        ("CoordinateCoupler with Function.Linear([1, -1, 0])",
                         with_linear_function)):
        if not quiet:
            print(title)
        worst, q1, q2 = simulate(make, t_final=t_final, quiet=quiet)
        if not quiet:
            print(f"largest |q1 - q2| over {t_final:g} s: {worst:.1e} rad\n")
        results.append((worst, q1, q2))
    _, q1, q2 = simulate(lambda matter, body1, body2: None, t_final=t_final, quiet=True,
                         q0=(0.3, 0.3))
    if not quiet:
        print(f"without the coupler, both from 0.3 rad, at t = {t_final:g} s: "
              f"q1 = {q1:.4f} rad, q2 = {q2:.4f} rad")
    return results


if __name__ == "__main__":
    main()
