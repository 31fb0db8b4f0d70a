"""A custom force that makes every body repel every other with strength
1/r², as a ``Force.Custom.Implementation``.

Three free bodies start at rest near each other and fly apart. Their potential energy is
Σ 1/r over pairs (the guide's listing has the sign of the energy reversed; with +1/r the
total energy is conserved, which this program checks).

Run: ``python examples/custom_force.py``
"""

import numpy as np
from scipy.integrate import solve_ivp

import kinetree as kt


class ExampleForce(kt.Force.Custom.Implementation):
    """Pairwise repulsion F = r/|r|³ between body origins, r from body j to body i."""

    def __init__(self, matter):
        self.matter = matter

    def _origins(self, state):
        return [self.matter.get_mobilized_body(i).get_body_origin_location(state)
                for i in range(self.matter.get_num_bodies())]

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        p = self._origins(state)
        for i in range(len(p)):
            for j in range(i):
                r = p[i] - p[j]
                force = r / np.linalg.norm(r) ** 3
                body_forces[i, 3:] += force
                body_forces[j, 3:] -= force

    def calc_potential_energy(self, state):
        p = self._origins(state)
        return sum(1.0 / np.linalg.norm(p[i] - p[j])
                   for i in range(len(p)) for j in range(i))

    def depends_only_on_positions(self):
        return True


def build():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.Custom(forces, ExampleForce(matter))
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    starts = [[1.0, 0, 0], [-1.0, 0.2, 0], [0, 1.0, 0.3]]
    mobods = [kt.MobilizedBody.Free(matter.Ground(), body) for _ in starts]
    state = system.realize_topology()
    for mobod, start in zip(mobods, starts):
        mobod.set_q(state, [1, 0, 0, 0, *start])
    return system, state


def main():
    system, state = build()

    def rhs(t, y):
        state.set_time(t)
        state.set_y(y)
        system.realize(state, kt.Stage.ACCELERATION)
        return state.get_y_dot().copy()

    system.realize(state, kt.Stage.DYNAMICS)
    e0 = system.calc_energy(state)
    sol = solve_ivp(rhs, (0, 3.0), state.get_y().copy(), rtol=1e-10, atol=1e-12)
    state.set_y(sol.y[:, -1])
    system.realize(state, kt.Stage.DYNAMICS)
    e1 = system.calc_energy(state)
    print(f"energy at t=0: {e0:.10f} J, at t=3: {e1:.10f} J "
          f"(kinetic now {system.calc_kinetic_energy(state):.4f} J)")
    assert abs(e1 - e0) < 1e-7


if __name__ == "__main__":
    main()
