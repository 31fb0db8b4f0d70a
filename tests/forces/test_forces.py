"""Force elements: Force.Custom (with position-only caching), enabling per State, and
UniformGravity's potential energy as minus the work of its force."""

import numpy as np
import pytest

import kinetree as kt


class Spring(kt.Force.Custom.Implementation):
    """A linear spring on every u: f = -k q (q̇ = u here), PE = ½ k q²."""

    def __init__(self, k, positions_only):
        self.k, self.positions_only, self.calls = k, positions_only, 0

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        self.calls += 1
        mobility_forces -= self.k * state.get_q()

    def calc_potential_energy(self, state):
        return 0.5 * self.k * float(state.get_q() @ state.get_q())

    def depends_only_on_positions(self):
        return self.positions_only


def slider_system(impl):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    force = kt.Force.Custom(forces, impl)
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.1)))
    slider = kt.MobilizedBody.Slider(matter.Ground(), body)
    return system, force, slider


@pytest.mark.parametrize("positions_only", [False, True])
def test_custom_force_and_its_cache(positions_only):
    impl = Spring(8.0, positions_only)
    system, force, slider = slider_system(impl)
    state = system.realize_topology()
    slider.set_one_q(state, 0, 0.5)
    system.realize(state, kt.Stage.ACCELERATION)
    assert slider.get_one_u_dot(state, 0) == pytest.approx(-8.0 * 0.5 / 2.0)
    slider.set_one_u(state, 0, 1.0)                  # u changes, q does not
    system.realize(state, kt.Stage.ACCELERATION)
    assert impl.calls == (1 if positions_only else 2)
    slider.set_one_q(state, 0, -0.25)
    system.realize(state, kt.Stage.ACCELERATION)
    assert impl.calls == (2 if positions_only else 3)
    assert slider.get_one_u_dot(state, 0) == pytest.approx(1.0)
    assert system.calc_potential_energy(state) == pytest.approx(0.5 * 8 * 0.25**2)


def test_force_enable_disable_per_state():
    system, force, slider = slider_system(Spring(8.0, False))
    state = system.realize_topology()
    slider.set_one_q(state, 0, 0.5)
    other = state.copy()
    force.disable(state)
    assert state.get_system_stage() == kt.Stage.MODEL
    system.realize(state, kt.Stage.ACCELERATION)
    system.realize(other, kt.Stage.ACCELERATION)
    assert slider.get_one_u_dot(state, 0) == 0.0
    assert slider.get_one_u_dot(other, 0) == pytest.approx(-2.0)
    force.enable(state)
    system.realize(state, kt.Stage.ACCELERATION)
    assert slider.get_one_u_dot(state, 0) == pytest.approx(-2.0)


def test_custom_implementation_must_implement_calc_force():
    system, force, slider = slider_system(kt.Force.Custom.Implementation())
    state = system.realize_topology()
    with pytest.raises(NotImplementedError, match="calc_force"):
        system.realize(state, kt.Stage.DYNAMICS)


def test_gravity_potential_energy_gradient_is_minus_generalized_force():
    """∂PE/∂q = -f_gravity (generalized), by finite differences, on a 3-link chain."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0.5, -9.81, 0.3])
    com = [0.1, -0.3, 0.05]
    body = kt.Body.Rigid(kt.MassProperties(
        1.3, com, kt.Inertia(0.2, 0.15, 0.1).shift_from_mass_center(com, 1.3)))
    parent = matter.Ground()
    for _ in range(3):
        parent = kt.MobilizedBody.Gimbal(parent, kt.Transform([0, -0.5, 0]), body,
                                         kt.Transform())
    state = system.realize_topology()
    q = np.random.default_rng(1).uniform(-1, 1, state.get_num_q())
    state.set_q(q)                                    # u = 0: no velocity terms
    system.realize(state, kt.Stage.DYNAMICS)
    gravity_body_forces = matter.upd_body_forces(state).copy()
    # with u = 0 and u̇ = 0 the residual is -Jᵀ F: the generalized gravity force negated
    f_gravity = -matter.calc_residual_force(state, np.zeros(9), gravity_body_forces,
                                            np.zeros(9))
    grad = np.zeros(9)
    for i in range(9):
        for sign in (1, -1):
            s = state.copy()
            dq = np.zeros(9)
            dq[i] = sign * 1e-6
            s.set_q(q + dq)
            system.realize(s, kt.Stage.DYNAMICS)
            grad[i] += sign * system.calc_potential_energy(s) / 2e-6
    np.testing.assert_allclose(grad, -f_gravity, rtol=1e-6, atol=1e-7)
