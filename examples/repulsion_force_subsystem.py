"""The same mutual repulsion as a whole ForceSubsystem.

The default strength is a topological property (§3.3): changing it makes every State made
before unusable. The strength in use is a Dynamics-stage discrete variable (§3.4), so a
study can change it per State, between steps, without rebuilding anything.

Run: ``python examples/repulsion_force_subsystem.py``
"""

import numpy as np

import kinetree as kt


class ExampleSubsystem(kt.ForceSubsystem):
    """All bodies repel each other with strength k/r²."""

    def __init__(self, system, default_strength=1.0):
        self._default_strength = default_strength
        super().__init__(system, "Example")

    def set_default_force_strength(self, strength):
        self._default_strength = strength
        self.invalidate_subsystem_topology_cache()

    def get_default_force_strength(self):
        return self._default_strength

    def realize_topology(self, state):
        self._strength = self.allocate_discrete_variable(state, kt.Stage.DYNAMICS,
                                                         self._default_strength)

    def get_force_strength(self, state):
        return self.get_discrete_variable(state, self._strength)

    def set_force_strength(self, state, strength):
        self.set_discrete_variable(state, self._strength, strength)

    def _origins(self, state):
        """Body origins, Ground's included (index 0), as in the guide; Ground does not
        move, so forces on it do nothing, but it repels the others."""
        matter = self.get_system().get_matter_subsystem()
        return matter, [matter.get_mobilized_body(i).get_body_origin_location(state)
                        for i in range(matter.get_num_bodies())]

    def realize_dynamics(self, state):
        matter, p = self._origins(state)
        forces = matter.upd_body_forces(state)
        k = self.get_force_strength(state)
        for i in range(len(p)):
            for j in range(i):
                r = p[i] - p[j]
                force = k * r / np.linalg.norm(r) ** 3
                forces[i, 3:] += force
                forces[j, 3:] -= force

    def calc_potential_energy(self, state):
        _, p = self._origins(state)
        k = self.get_force_strength(state)
        return sum(k / np.linalg.norm(p[i] - p[j]) for i in range(len(p)) for j in range(i))


def main():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    example = ExampleSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    a = kt.MobilizedBody.Translation(matter.Ground(), body)
    b = kt.MobilizedBody.Translation(matter.Ground(), body)
    state = system.realize_topology()
    a.set_q(state, [1.0, 0, 0])
    b.set_q(state, [-1.0, 0, 0])
    system.realize(state, kt.Stage.ACCELERATION)
    # a is 1 m from Ground's origin and 2 m from b: 1/1² + 1/2² = 1.25 m/s² along +x
    print("strength 1: acceleration of body a", a.get_body_acceleration(state)[3:])
    assert np.allclose(a.get_body_acceleration(state)[3:], [1.25, 0, 0])

    example.set_force_strength(state, 4.0)           # a state variable: DYNAMICS only
    system.realize(state, kt.Stage.ACCELERATION)
    print("strength 4: acceleration of body a", a.get_body_acceleration(state)[3:])
    assert np.allclose(a.get_body_acceleration(state)[3:], [5.0, 0, 0])

    example.set_default_force_strength(2.0)          # a topological change
    try:
        system.realize(state, kt.Stage.ACCELERATION)
    except kt.errors.TopologyChangedError as err:
        print("old State refused:", err)
    fresh = system.realize_topology()
    a.set_q(fresh, [1.0, 0, 0])
    b.set_q(fresh, [-1.0, 0, 0])
    system.realize(fresh, kt.Stage.ACCELERATION)
    assert np.allclose(a.get_body_acceleration(fresh)[3:], [2.5, 0, 0])


if __name__ == "__main__":
    main()
