"""A Custom mobilizer, CustomTranslation, that moves exactly as
MobilizedBody.Translation.

Two identical systems: a box on a three-coordinate translation joint, tied to the origin by
a spring, carrying a pendulum on a Pin, thrown sideways under gravity. In the first the
box's joint is the CustomTranslation written below (X_FM, H, Hᵀ, HDot, HDotᵀ and the two
fit methods, in Python); in the second
it is the built-in Translation. Both are integrated with RungeKuttaMerson for 1 s, and the
box position and pendulum angle of both are printed side by side, with their difference.

Run: python examples/custom_translation.py
"""

import numpy as np

import kinetree as kt


class CustomTranslation(kt.MobilizedBody.Custom.Implementation):
    """Three coordinates, M's origin displaced by q (m) along F's x, y, z; u = q̇."""

    def __init__(self, matter):
        super().__init__(matter, 3, 3, 0)

    def calc_mobilizer_transform_from_q(self, state, q):
        return kt.Transform(np.array(q[:3]))

    def multiply_by_h_matrix(self, state, u):
        return np.concatenate([np.zeros(3), u[:3]])

    def multiply_by_h_transpose(self, state, F):
        return np.array(F[3:])

    def multiply_by_h_dot_matrix(self, state, u):
        return np.zeros(6)

    def multiply_by_h_dot_transpose(self, state, F):
        return np.zeros(3)

    def set_q_to_fit_transform(self, state, X_FM):
        return np.array(X_FM.p)

    def set_u_to_fit_velocity(self, state, V_FM):
        return np.array(V_FM[3:])


def build(custom: bool):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    box_body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.05)))
    bob = kt.Body.Rigid(kt.MassProperties(0.5, [0, 0, 0], kt.Inertia(0.0)))
    if custom:
        box = kt.MobilizedBody.Custom(matter.Ground(), box_body, CustomTranslation(matter))
    else:
        box = kt.MobilizedBody.Translation(matter.Ground(), box_body)
    pendulum = kt.MobilizedBody.Pin(box, kt.Transform(), bob, kt.Transform([0, 0.4, 0]))
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [0, 0, 0], box, [0, 0, 0], 60.0, 0.0)
    state = system.realize_topology()
    box.set_u(state, [1.0, 3.0, 0.0])
    pendulum.set_one_q(state, 0, 0.5)
    return system, box, pendulum, state


def main(t_final=1.0, quiet=False):
    runs = []
    for custom in (True, False):
        system, box, pendulum, state = build(custom)
        integ = kt.RungeKuttaMersonIntegrator(system)
        integ.set_accuracy(1e-8)
        stepper = kt.TimeStepper(system, integ)
        stepper.initialize(state)
        rows = []
        for t in np.linspace(0.25, t_final, 4):
            stepper.step_to(t)
            s = stepper.get_state()
            rows.append((t, *box.get_q(s)[:2], pendulum.get_one_q(s, 0)))
        runs.append(np.array(rows))
    diff = float(np.max(np.abs(runs[0] - runs[1])))
    if not quiet:
        print(f"{'t (s)':>6} {'custom x, y (m)':>20} {'built-in x, y (m)':>20} "
              f"{'pin angle custom / built-in (rad)':>36}")
        for a, b in zip(*runs):
            print(f"{a[0]:6.2f} {a[1]:9.5f} {a[2]:9.5f}  {b[1]:9.5f} {b[2]:9.5f}  "
                  f"{a[3]:16.10f} {b[3]:16.10f}")
        print(f"largest difference: {diff:.1e}")
    return diff


if __name__ == "__main__":
    main()
