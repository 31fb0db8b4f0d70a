"""Force.Thermostat: its force is -c[0] M u (so u̇ moves by exactly -c[0] u), its chain
derivatives are the Nosé-Hoover chain's written out by hand from the kinetic energy, system
plus bath energy is conserved, and it holds the temperature it is given, from above and
from below."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError


def pendulums(n=4, bath=2.0, tau=0.2, excluded=0):
    """(system, matter, thermostat, state): n Pins in a chain under gravity, k_B = 1."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.5, 0, 0], kt.Inertia(0.1, 0.35, 0.35)))
    mobod = matter.Ground()
    for i in range(n):
        mobod = kt.MobilizedBody.Pin(mobod, kt.Transform([1.0 if i else 0.0, 0, 0]), body,
                                     kt.Transform())
    thermostat = kt.Force.Thermostat(forces, matter, 1.0, bath, tau, excluded)
    state = system.realize_topology()
    state.set_q(np.linspace(-0.5, 0.4, n))
    state.set_u(np.linspace(1.0, -0.6, n))
    return system, matter, thermostat, state


def test_force_is_minus_c0_m_u_and_chain_rates_are_nose_hoover():
    system, matter, thermostat, state = pendulums(excluded=1)
    thermostat.set_chain_state(state, [0.3, -0.2, 0.5, 0.1, 0.05, -0.02])
    system.realize(state, kt.Stage.ACCELERATION)
    off = state.copy()
    thermostat.disable(off)
    system.realize(off, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), off.get_u_dot() - 0.3 * state.get_u(),
                               rtol=1e-12, atol=1e-12)

    ke = system.calc_kinetic_energy(state)
    N = 4 - 1
    assert thermostat.get_num_thermal_dofs(state) == N
    T = 2 * ke / N
    assert thermostat.get_current_temperature(state) == pytest.approx(T, rel=1e-13)
    c, oot2 = [0.3, -0.2, 0.5], 1 / 0.2**2
    expected = [(T / 2.0 - 1) * oot2 - c[0] * c[1],
                N * c[0]**2 - oot2 - c[1] * c[2],
                c[1]**2 - oot2,
                *c,
                -2 * c[0] * ke]                                   # the bath's power
    np.testing.assert_allclose(state.get_z_dot(), expected, rtol=1e-12)
    assert thermostat.get_external_power(state) == pytest.approx(expected[-1], rel=1e-13)
    kT = 2.0
    bath = 0.5 * kT * 0.2**2 * (N * 0.09 + 0.04 + 0.25) + kT * (N * 0.1 + 0.05 - 0.02)
    assert thermostat.calc_bath_energy(state) == pytest.approx(bath, rel=1e-13)
    assert system.calc_potential_energy(state) == system.calc_potential_energy(off)


def run(system, thermostat, state, t_final, dt=0.05, accuracy=1e-8,
        integrator=kt.RungeKuttaMersonIntegrator):
    """The temperatures at every dt, the final State."""
    integ = integrator(system)
    integ.set_accuracy(accuracy)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    temperatures = []
    for k in range(1, int(round(t_final / dt)) + 1):
        ts.step_to(k * dt)
        temperatures.append(thermostat.get_current_temperature(ts.get_state()))
    return np.array(temperatures), ts.get_state()


@pytest.mark.parametrize("integrator", [kt.RungeKuttaMersonIntegrator, kt.VerletIntegrator],
                         ids=["merson", "verlet"])
def test_system_plus_bath_energy_is_conserved_and_work_is_the_energy_change(integrator):
    """With Runge-Kutta-Merson and with Verlet, the molecular dynamicists' integrator
    (second order: its error control holds the sum to 4e-5 of 26 at accuracy 1e-8)."""
    tol = 1e-4 if integrator is kt.VerletIntegrator else 1e-5
    system, matter, thermostat, state = pendulums()
    system.realize(state, kt.Stage.DYNAMICS)
    e0 = system.calc_energy(state)
    conserved = e0 + thermostat.calc_bath_energy(state)
    _, final = run(system, thermostat, state, 4.0, integrator=integrator)
    system.realize(final, kt.Stage.DYNAMICS)
    e = system.calc_energy(final)
    assert abs(e - e0) > 0.1                                # the bath did exchange energy
    assert e + thermostat.calc_bath_energy(final) == pytest.approx(conserved, abs=tol)
    assert thermostat.get_external_work(final) == pytest.approx(e - e0, abs=tol)


@pytest.mark.parametrize("scale", [0.05, 5.0], ids=["heats", "cools"])
def test_holds_the_bath_temperature(scale):
    """Hanging at rest but for speeds worth 0.05 or 5 times the bath temperature, the
    chain pendulum's temperature averages to the bath's (τ = 0.2 s) over the last 20 s of
    30, after starting well away from it."""
    system, matter, thermostat, state = pendulums()
    state.set_q([-np.pi / 2, 0, 0, 0])
    system.realize(state, kt.Stage.VELOCITY)
    state.set_u(state.get_u() * np.sqrt(scale * 2.0 / thermostat.get_current_temperature(state)))
    system.realize(state, kt.Stage.VELOCITY)
    assert thermostat.get_current_temperature(state) == pytest.approx(2.0 * scale)
    temperatures, _ = run(system, thermostat, state, 30.0, accuracy=1e-6)
    early = temperatures[:2]                                # the first 0.1 s
    assert np.all(early < 0.5 * 2.0) if scale < 1 else np.all(early > 1.5 * 2.0)
    assert np.mean(temperatures[200:]) == pytest.approx(2.0, rel=0.1)
    assert np.mean(temperatures[200:]) == pytest.approx(2.0, rel=0.1)


def test_chain_length_and_parameters_per_state():
    system, matter, thermostat, state = pendulums(n=2, excluded=6)
    system.realize(state, kt.Stage.INSTANCE)
    assert thermostat.get_num_thermal_dofs(state) == 1                 # at least 1
    assert state.get_num_z() == 2 * 3 + 1
    thermostat.set_num_chains(state, 1)
    assert state.get_system_stage() == kt.Stage.TOPOLOGY
    system.realize_model(state)
    assert state.get_num_z() == 2 * 1 + 1
    thermostat.set_bath_temperature(state, 3.0)
    thermostat.set_relaxation_time(state, 0.5)
    thermostat.set_num_excluded_dofs(state, 0)
    thermostat.set_chain_state(state, [0.4, 0.0])
    system.realize(state, kt.Stage.ACCELERATION)
    T = 2 * system.calc_kinetic_energy(state) / 2
    np.testing.assert_allclose(state.get_z_dot()[:2], [(T / 3.0 - 1) / 0.25, 0.4], rtol=1e-12)
    assert thermostat.get_default_num_chains() == 3
    assert thermostat.get_default_bath_temperature() == 2.0
    assert thermostat.get_boltzmanns_constant() == 1.0
    thermostat.initialize_chain_state(state)
    np.testing.assert_array_equal(thermostat.get_chain_state(state), 0.0)
    with pytest.raises(InvalidArgumentError, match="2 x 1"):
        thermostat.set_chain_state(state, [0.0, 0.0, 0.0])
    with pytest.raises(InvalidArgumentError, match="> 0"):
        thermostat.set_bath_temperature(state, 0.0)
    with pytest.raises(InvalidArgumentError, match="0..6"):
        thermostat.set_num_excluded_dofs(state, 7)
