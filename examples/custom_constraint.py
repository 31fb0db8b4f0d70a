"""A custom constraint: hold two body origins a fixed distance apart.

ExampleConstraint is one holonomic equation, perr = (r·r - d²)/2 with r the vector between
the origins, with its two time derivatives and the force of its multiplier. Here it ties
the tip of a double pendulum to a free-floating body; the program integrates the motion
(fixed-step RK4 with projection after each step) and prints the distance, which stays d.

Run: python examples/custom_constraint.py
"""

import numpy as np

import kinetree as kt


class ExampleConstraint(kt.Constraint.Custom.Implementation):
    """The distance between the origins of body1 and body2 stays ``distance`` (m)."""

    def __init__(self, b1, b2, distance):
        super().__init__(b1.get_matter_subsystem(), 1, 0, 0)
        self.body1 = self.add_constrained_body(b1)
        self.body2 = self.add_constrained_body(b2)
        self.distance = distance

    def _r(self, state):
        return (self.get_body_origin_location_from_state(state, self.body2)
                - self.get_body_origin_location_from_state(state, self.body1))

    def calc_position_errors(self, state, X_AB, constrained_q, perr):
        r = (self.get_body_origin_location(X_AB, self.body2)
             - self.get_body_origin_location(X_AB, self.body1))
        perr[0] = (r @ r - self.distance ** 2) / 2

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr):
        v = (self.get_body_origin_velocity(V_AB, self.body2)
             - self.get_body_origin_velocity(V_AB, self.body1))
        pverr[0] = v @ self._r(state)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr):
        v = (self.get_body_origin_velocity_from_state(state, self.body2)
             - self.get_body_origin_velocity_from_state(state, self.body1))
        a = (self.get_body_origin_acceleration(A_AB, self.body2)
             - self.get_body_origin_acceleration(A_AB, self.body1))
        paerr[0] = a @ self._r(state) + v @ v

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces):
        force = multipliers[0] * self._r(state)
        self.add_in_station_force(state, self.body2, np.zeros(3), force, body_forces_in_A)
        self.add_in_station_force(state, self.body1, np.zeros(3), -force, body_forces_in_A)


RK4 = ((0.0, 1 / 6), (0.5, 1 / 3), (0.5, 1 / 3), (1.0, 1 / 6))
"""(c, w) of each classical Runge-Kutta stage: evaluated at t0 + c h, weighted w."""


def build(distance=1.2):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.02, 0.02, 0.02)))
    upper = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link,
                                 kt.Transform([0, 1, 0]))
    lower = kt.MobilizedBody.Pin(upper, kt.Transform(), link, kt.Transform([0, 1, 0]))
    floater = kt.MobilizedBody.Free(matter.Ground(), kt.Transform([1.5, -1.0, 0]), link,
                                    kt.Transform())
    rod = kt.Constraint.Custom(ExampleConstraint(lower, floater, distance))
    return system, matter, rod, lower, floater


def distance(state, a, b):
    return float(np.linalg.norm(b.get_body_origin_location(state)
                                - a.get_body_origin_location(state)))


def main(t_final=1.0, h=2e-3):
    system, matter, rod, lower, floater = build()
    state = system.realize_topology()
    lower.set_one_q(state, 0, 0.4)
    report = system.project(state, 1e-12)
    print(f"assembled: {report['SimbodyMatterSubsystem']}")
    system.realize(state, kt.Stage.ACCELERATION)
    energy0 = system.calc_energy(state)
    print(f"{'t (s)':>6} {'distance (m)':>13} {'tension λ':>10}")
    for k in range(int(round(t_final / h)) + 1):
        if k % 100 == 0:
            lam = rod.get_multipliers_as_vector(state)[0]
            print(f"{state.get_time():6.2f} {distance(state, lower, floater):13.10f} "
                  f"{lam:10.4f}")
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
    drift = abs(system.calc_energy(state) - energy0)
    print(f"energy drift over {t_final:g} s: {drift:.2e} J")
    return state, distance(state, lower, floater), drift


if __name__ == "__main__":
    main()
