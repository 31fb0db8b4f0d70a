"""A custom Subsystem with its own state variable: first-order muscle activation dynamics.

The activation a (a z variable) follows the neural excitation e(t) with time constant τ:

    ȧ = (e(t) - a) / τ

As in Simbody, the default τ is a topological property (changing it makes old
States unusable), and the τ in use is an Instance-stage discrete variable that a study may
change per State. The excitation is a smooth step, a ``Function``. The example integrates
the State with scipy through the System/State interface and checks the result against the
closed-form response to the step's plateau.

Run: ``python examples/custom_subsystem.py``
"""

import numpy as np
from scipy.integrate import solve_ivp

import kinetree as kt


class ActivationDynamics(kt.Subsystem):
    """ȧ = (e(t) - a)/τ for one muscle; a is dimensionless, τ in seconds."""

    def __init__(self, system, excitation: kt.Function, default_time_constant=0.05):
        self._excitation = excitation
        self._default_tau = default_time_constant
        super().__init__(system, "ActivationDynamics")

    def set_default_time_constant(self, tau):
        self._default_tau = tau
        self.invalidate_subsystem_topology_cache()

    def realize_topology(self, state):
        self._a = self.allocate_z(state, [0.0])
        self._tau = self.allocate_discrete_variable(state, kt.Stage.INSTANCE,
                                                    self._default_tau)
        self._e = self.allocate_cache_entry(state, kt.Stage.TIME, kt.Stage.TIME, 0.0)

    def set_time_constant(self, state, tau):
        self.set_discrete_variable(state, self._tau, tau)

    def realize_time(self, state):
        self.set_cache_entry(state, self._e, self._excitation.calc_value(state.get_time()))

    def realize_acceleration(self, state):
        e = self.get_cache_entry(state, self._e)
        tau = self.get_discrete_variable(state, self._tau)
        self.upd_z_dot(state)[self._a] = (e - self.get_z(state)[self._a]) / tau

    def get_activation(self, state):
        return self.get_z(state)[self._a]


def simulate(tau, t_final=0.5):
    """Excitation steps smoothly from 0 to 1 between 0.1 s and 0.12 s; returns (t, a)."""
    system = kt.System()
    muscle = ActivationDynamics(system, kt.Function.Step(0.0, 1.0, 0.1, 0.12))
    state = system.realize_topology()
    muscle.set_time_constant(state, tau)

    def rhs(t, y):
        state.set_time(t)
        state.set_y(y)
        system.realize(state, kt.Stage.ACCELERATION)
        return state.get_y_dot().copy()

    sol = solve_ivp(rhs, (0.0, t_final), state.get_y().copy(), rtol=1e-10, atol=1e-12,
                    max_step=0.005)
    state.set_time(sol.t[-1])
    state.set_y(sol.y[:, -1])
    return sol.t[-1], muscle.get_activation(state)


def main():
    for tau in (0.02, 0.05):
        t, a = simulate(tau)
        # After the step (x1 = 0.12 s), e = 1 and a relaxes exponentially towards it.
        # The smooth ramp makes the exact offset differ a little from a sharp step at 0.11.
        a_sharp = 1.0 - np.exp(-(t - 0.11) / tau)
        print(f"tau = {tau:.3f} s: activation at t = {t:.2f} s is {a:.6f} "
              f"(sharp-step estimate {a_sharp:.6f})")
        assert abs(a - a_sharp) < 1e-4


if __name__ == "__main__":
    main()
