"""ExponentialSpringForce beyond Simbody's own test: the checks where values enter, the
potential energy against the force (a finite difference), the auto-update of the anchor
point and Sliding through an integrator step, a disabled spring keeping its state, State
files, and a change of parameters being a topology change."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError, TopologyChangedError


def block(mus=0.7, muk=0.5, n=4):
    """A 2 kg free block with springs at its n lower corners on a floor (P's z = Ground's
    y), resting at about its equilibrium height."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.01))))
    floor = kt.Transform(kt.Rotation.about_x(-np.pi / 2), [0, 0, 0])
    params = kt.ExponentialSpringParameters().set_initial_mu_static(mus)
    params.set_initial_mu_kinetic(muk)
    corners = [[x, -0.05, z] for x in (-0.05, 0.05) for z in (-0.05, 0.05)][:n]
    springs = [kt.ExponentialSpringForce(forces, floor, body, c, params) for c in corners]
    state = system.realize_topology()
    body.set_q_to_fit_translation(state, [0, 0.05 + 0.004, 0])
    for s in springs:
        s.reset_anchor_point(state)
    return system, forces, body, springs, state


@pytest.mark.parametrize("call, message", [
    (lambda p: p.set_shape_parameters(0.0, -1.0), "d1 > 0"),
    (lambda p: p.set_shape_parameters(0.0, 1.0, 0.0), "d2 > 0"),
    (lambda p: p.set_shape_parameters(np.nan), "d0 must be finite"),
    (lambda p: p.set_normal_viscosity(-0.1), "cz >= 0"),
    (lambda p: p.set_max_normal_force(0.0), "max_fz > 0"),
    (lambda p: p.set_friction_elasticity(-1.0), "kxy > 0"),
    (lambda p: p.set_friction_viscosity(np.inf), "cxy must be finite"),
    (lambda p: p.set_elasticity_and_viscosity_for_critical_damping(1e4, 0.0), "mass > 0"),
    (lambda p: p.set_settle_velocity(0.0), "v_settle > 0"),
    (lambda p: p.set_initial_mu_static("slippery"), "mus must be a number"),
    (lambda p: p.set_initial_mu_kinetic(np.nan), "muk must be finite"),
])
def test_parameters_refuse_bad_values_naming_them(call, message):
    params = kt.ExponentialSpringParameters()
    before = kt.ExponentialSpringParameters()
    with pytest.raises(InvalidArgumentError, match="ExponentialSpringParameters.set_") as e:
        call(params)
    assert message in str(e.value)
    assert params == before                     # nothing half-set


def test_construction_refuses_bad_arguments():
    system, forces, body, _, _ = block()
    plane = kt.Transform()
    with pytest.raises(InvalidArgumentError, match="X_GP must be a Transform"):
        kt.ExponentialSpringForce(forces, np.eye(4), body, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="station_B must be 3 finite numbers"):
        kt.ExponentialSpringForce(forces, plane, body, [0, np.nan, 0])
    with pytest.raises(InvalidArgumentError, match="body_B must be a MobilizedBody"):
        kt.ExponentialSpringForce(forces, plane, "block", [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="params must be an Exponential"):
        kt.ExponentialSpringForce(forces, plane, body, [0, 0, 0], {"cz": 1.0})
    spring = kt.ExponentialSpringForce(forces, plane, body, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="realize_topology"):
        spring.get_state_slots()
    state = system.realize_topology()
    with pytest.raises(InvalidArgumentError, match="mus must be finite"):
        spring.set_mu_static(state, np.nan)


def test_potential_energy_is_the_integral_of_the_normal_force():
    """Without friction, -dPE/dpz of one spring is its elastic normal force (a central
    difference of the height)."""
    system, forces, body, springs, state = block(mus=0.0, muk=0.0, n=1)
    spring = springs[0]
    for height in (0.051, 0.053, 0.056):
        pe = []
        for dh in (-1e-7, 1e-7):
            body.set_q_to_fit_translation(state, [0.01, height + dh, -0.02])
            system.realize(state, kt.Stage.DYNAMICS)
            pe.append(spring.calc_potential_energy(state))
        body.set_q_to_fit_translation(state, [0.01, height, -0.02])
        system.realize(state, kt.Stage.DYNAMICS)
        fz = spring.get_normal_force_elastic_part(state, False)[2]
        assert -(pe[1] - pe[0]) / 2e-7 == pytest.approx(fz, rel=1e-6)
        # the system's: the spring's and gravity's, m g h
        assert system.calc_potential_energy(state) == pytest.approx(
            spring.calc_potential_energy(state) + 2.0 * 9.81 * height, rel=1e-14)


def test_an_integrator_step_installs_the_next_anchor_point_and_sliding():
    """A held block: after a step the variables hold what the step's end computed (the
    anchor points barely move, Sliding falls below 1, stamped with the step's end)."""
    system, forces, body, springs, state = block()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-6)
    integ.initialize(state)
    for _ in range(5):
        integ.step_to(1.0)
    s = integ.get_state()
    system.realize(s, kt.Stage.DYNAMICS)
    spring = springs[0]
    slots = spring.get_state_slots()
    values = forces.get_discrete_variable(s, spring.get_anchor_point_state_index())
    # the variable's anchor point is the one computed when the step began, and the next
    # one differs from it by the creep of one step
    p0 = values[slots["anchor_point"]]
    assert p0[2] == 0.0
    assert np.abs(spring.get_anchor_point_position(s, False) - p0).max() < 1e-6
    assert values[slots["sliding"]] < 1.0 and spring.get_sliding(s) < 1.0
    assert spring.get_mu(s) > 0.5                  # more static than kinetic


def test_a_disabled_spring_keeps_its_state():
    system, forces, body, springs, state = block()
    springs[0].set_mu_static(state, 0.9)
    springs[0].disable(state)
    before = np.array(springs[0]._state(state))
    run = kt.simulate(system, state, 0.05, accuracy=1e-6, progress=False)
    after = springs[0]._state(run.states()[-1])
    assert np.array_equal(after[:6], before[:6])   # μs, μk, p0, Sliding unchanged
    assert springs[0].get_mu_static(run.states()[-1]) == 0.9
    last = run.states()[-1]
    system.realize(last, kt.Stage.DYNAMICS)
    with pytest.raises(InvalidArgumentError, match="disabled in this State"):
        springs[0].get_normal_force(last)
    assert springs[1].get_normal_force(last)[1] > 1.0


def test_state_files_keep_the_springs_state_and_refuse_bad_ones(tmp_path):
    system, forces, body, springs, state = block()
    springs[1].set_mu_static(state, 0.9)
    springs[1].set_mu_kinetic(state, 0.3)
    body.set_q_to_fit_translation(state, [0.001, 0.054, 0.0])
    system.realize(state, kt.Stage.DYNAMICS)
    path = tmp_path / "state.npz"
    state.save(path)
    loaded = kt.State.load(path, system)
    index = springs[0].get_mu_static_state_index()
    assert np.array_equal(forces.get_discrete_variable(loaded, index),
                          forces.get_discrete_variable(state, index), equal_nan=True)
    system.realize(loaded, kt.Stage.DYNAMICS)
    assert np.array_equal(springs[1].get_force(loaded), springs[1].get_force(state))
    # a state with μk > μs is not one the setters make: refused, naming the spring
    values = np.array(forces.get_discrete_variable(state, index))
    values[springs[2].get_state_slots()["mu_kinetic"]] = 2.0
    with pytest.raises(InvalidArgumentError, match="ExponentialSpringForce.*μk"):
        forces.set_discrete_variable(state, index, values)
    with pytest.raises(InvalidArgumentError, match="shape"):
        forces.set_discrete_variable(state, index, values[:-1])


def test_set_parameters_is_a_topology_change():
    system, forces, body, springs, state = block()
    params = springs[0].get_parameters().set_normal_viscosity(2.0)
    springs[0].set_parameters(params)
    with pytest.raises(TopologyChangedError):
        system.realize(state, kt.Stage.DYNAMICS)
    fresh = system.realize_topology()
    assert springs[0].get_parameters().get_normal_viscosity() == 2.0
    assert springs[1].get_parameters().get_normal_viscosity() == 0.5
    body.set_q_to_fit_translation(fresh, [0, 0.053, 0])
    body.set_u(fresh, [0, 0, 0, 0, -0.1, 0])
    system.realize(fresh, kt.Stage.DYNAMICS)
    ratio = [s.get_normal_force_damping_part(fresh, False)[2]
             / s.get_normal_force_elastic_part(fresh, False)[2] for s in springs[:2]]
    assert ratio == pytest.approx([2.0 * 0.1, 0.5 * 0.1], rel=1e-12)
