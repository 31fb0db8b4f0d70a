"""Force.Gravity: the same physics as UniformGravity where they must agree, potential energy
whose finite difference is minus the generalized force, Simbody's three constructors, and
per-State direction, magnitude, zero height and body exclusions."""

import numpy as np
import pytest
from support import mixed_tree

import kinetree as kt
from kinetree.errors import InvalidArgumentError, KinetreeError


def tree(kind, *args, **kwargs):
    """(system, matter, force, bodies, state): a Pin, a Slider, a Ball, a Free body and a
    Universal with random frames and mass properties, in a fixed random state, pulled by
    ``kind(forces, matter, *args)``."""
    rng = np.random.default_rng(11)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    pin, slider, ball, free, universal = mixed_tree(matter, rng)
    force = kind(forces, matter, *args, **kwargs)
    state = system.realize_topology()
    state.upd_q()[:] = rng.normal(size=state.get_num_q())
    state.upd_u()[:] = rng.normal(size=state.get_num_u())
    system.project(state)
    return system, matter, force, [pin, slider, ball, free, universal], state


def dynamics(system, state):
    """(u̇, potential energy, body forces) of ``state``."""
    system.realize(state, kt.Stage.ACCELERATION)
    return (np.array(state.get_u_dot()), system.calc_potential_energy(state),
            np.array(system.get_rigid_body_forces(state, kt.Stage.DYNAMICS)))


DOWN = np.array([0.3, -2.0, 0.5])
G = 9.80665


@pytest.mark.parametrize("arguments", [
    (DOWN, G, 0.4),                                     # direction, magnitude, zero height
    (10.0 * DOWN, G, 0.4),                              # the direction's length is dropped
])
def test_gravity_agrees_with_uniform_gravity(arguments):
    d = DOWN / np.linalg.norm(DOWN)
    expected = dynamics(*tree(kt.Force.UniformGravity, G * d, 0.4)[::4])
    got = dynamics(*tree(kt.Force.Gravity, *arguments)[::4])
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_the_vector_and_magnitude_constructors():
    d = DOWN / np.linalg.norm(DOWN)
    by_vector = tree(kt.Force.Gravity, G * d)
    assert by_vector[2].get_default_magnitude() == pytest.approx(G)
    np.testing.assert_allclose(by_vector[2].get_default_down_direction(), d, rtol=1e-15)
    np.testing.assert_allclose(dynamics(*by_vector[::4])[0],
                               dynamics(*tree(kt.Force.UniformGravity, G * d)[::4])[0],
                               rtol=1e-12, atol=1e-12)
    # magnitude only: down is -y, the opposite of Simbody's default up direction
    by_magnitude = tree(kt.Force.Gravity, G)
    np.testing.assert_array_equal(by_magnitude[2].get_default_down_direction(), [0, -1, 0])
    np.testing.assert_allclose(dynamics(*by_magnitude[::4])[0],
                               dynamics(*tree(kt.Force.UniformGravity, [0, -G, 0])[::4])[0],
                               rtol=1e-12, atol=1e-12)
    # an exactly zero vector: magnitude 0, direction -y
    off = tree(kt.Force.Gravity, [0.0, 0.0, 0.0])[2]
    assert off.get_default_magnitude() == 0.0
    np.testing.assert_array_equal(off.get_default_down_direction(), [0, -1, 0])


def test_potential_energy_is_m_g_h_and_its_gradient_is_minus_the_force():
    """A chain of Pins and Sliders (q̇ = u): f = Jᵀ F equals -∂PE/∂q by central
    differences, and PE is Σ m g (p_C·(-d) - h_z) computed from the mass centers."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.3, [0.2, -0.1, 0.3], kt.Inertia(0.5)))
    X = kt.Transform(kt.Rotation.about_axis(0.7, [1, 2, 3]), [0.1, 0.5, -0.2])
    a = kt.MobilizedBody.Pin(matter.Ground(), X, body, X.invert())
    b = kt.MobilizedBody.Slider(a, X, body, kt.Transform())
    c = kt.MobilizedBody.Pin(b, X, body, X)
    gravity = kt.Force.Gravity(forces, matter, DOWN, G, 0.25)
    state = system.realize_topology()
    q0 = np.array([0.3, -0.4, 1.1])
    state.set_q(q0)
    system.realize(state, kt.Stage.DYNAMICS)
    d = DOWN / np.linalg.norm(DOWN)
    hand = sum(1.3 * G * (float(m.find_station_location_in_ground(state, [0.2, -0.1, 0.3])
                                @ -d) - 0.25) for m in (a, b, c))
    assert gravity.get_potential_energy(state) == pytest.approx(hand, rel=1e-13)
    assert system.calc_potential_energy(state) == pytest.approx(hand, rel=1e-13)
    f = matter.multiply_by_system_jacobian_transpose(
        state, system.get_rigid_body_forces(state, kt.Stage.DYNAMICS))

    def pe(q):
        s = state.copy()
        s.set_q(q)
        system.realize(s, kt.Stage.DYNAMICS)
        return system.calc_potential_energy(s)

    h = 1e-6
    gradient = [(pe(q0 + h * e) - pe(q0 - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(f, -np.array(gradient), rtol=1e-7, atol=1e-8)


def test_body_forces_are_m_g_d_at_the_mass_center():
    system, matter, gravity, bodies, state = tree(kt.Force.Gravity, DOWN, G)
    d = DOWN / np.linalg.norm(DOWN)
    F = gravity.get_body_forces(state)
    np.testing.assert_array_equal(F[0], 0.0)
    for mobod in bodies:
        mp = mobod.get_body_mass_properties(state)
        c = mobod.get_body_rotation(state).as_matrix() @ mp.get_mass_center()
        f = mp.get_mass() * G * d
        np.testing.assert_allclose(gravity.get_body_force(state, mobod),
                                   np.concatenate([np.cross(c, f), f]), rtol=1e-13, atol=1e-14)


def two_free_bodies():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.1)))
    one = kt.MobilizedBody.Translation(matter.Ground(), kt.Transform(), body, kt.Transform())
    two = kt.MobilizedBody.Translation(matter.Ground(), kt.Transform(), body, kt.Transform())
    gravity = kt.Force.Gravity(forces, matter, [0, 0, -1], G)
    return system, gravity, one, two


def test_an_excluded_body_does_not_fall():
    system, gravity, one, two = two_free_bodies()
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), [0, 0, -G, 0, 0, -G], rtol=1e-15)
    pe_both = system.calc_potential_energy(state)
    two.set_one_q(state, 2, 1.0)                        # 1 m up: PE m g h
    system.realize(state, kt.Stage.ACCELERATION)
    assert system.calc_potential_energy(state) - pe_both == pytest.approx(2.0 * G)

    other = state.copy()
    gravity.set_body_is_excluded(state, two, True)
    assert state.get_system_stage() == kt.Stage.VELOCITY      # DYNAMICS invalidated, no more
    assert gravity.get_body_is_excluded(state, two)
    assert not gravity.get_body_is_excluded(other, two)
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), [0, 0, -G, 0, 0, 0], rtol=1e-15)
    assert system.calc_potential_energy(state) == pytest.approx(0.0)
    gravity.set_body_is_excluded(state, 0, False)               # Ground: ignored
    assert gravity.get_body_is_excluded(state, 0)

    gravity.set_default_body_is_excluded(one, True)              # a topology change
    with pytest.raises(KinetreeError):
        system.realize(state, kt.Stage.ACCELERATION)
    fresh = system.realize_topology()
    assert gravity.get_default_body_is_excluded(one) and gravity.get_body_is_excluded(fresh, 1)
    system.realize(fresh, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(fresh.get_u_dot(), [0, 0, 0, 0, 0, -G], rtol=1e-15)


def test_per_state_vector_direction_magnitude_and_zero_height():
    system, gravity, one, two = two_free_bodies()
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)
    gravity.set_magnitude(state, 2.0)
    assert state.get_system_stage() == kt.Stage.VELOCITY
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), [0, 0, -2, 0, 0, -2], rtol=1e-15)

    gravity.set_down_direction(state, [3.0, 0, 0])               # normalized
    np.testing.assert_array_equal(gravity.get_down_direction(state), [1, 0, 0])
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), [2, 0, 0, 2, 0, 0], rtol=1e-15)

    gravity.set_gravity_vector(state, [0, 3, 4])
    assert gravity.get_magnitude(state) == pytest.approx(5.0)
    np.testing.assert_allclose(gravity.get_gravity_vector(state), [0, 3, 4], rtol=1e-15)
    gravity.set_gravity_vector(state, [0, 0, 0])                 # only the magnitude changes
    assert gravity.get_magnitude(state) == 0.0
    np.testing.assert_allclose(gravity.get_down_direction(state), [0, 0.6, 0.8], rtol=1e-15)

    gravity.set_gravity_vector(state, [0, 0, -G])
    gravity.set_zero_height(state, 0.5)                          # PE m g (h - h_z), signed
    system.realize(state, kt.Stage.DYNAMICS)
    assert system.calc_potential_energy(state) == pytest.approx(2 * 2.0 * G * -0.5)
    assert gravity.get_zero_height(state) == 0.5
    assert gravity.get_default_zero_height() == 0.0
    assert gravity.get_default_magnitude() == G


def test_bad_arguments_are_refused():
    system, gravity, one, two = two_free_bodies()
    forces = gravity._forces
    matter = system.get_matter_subsystem()
    with pytest.raises(InvalidArgumentError, match="zero vector"):
        kt.Force.Gravity(forces, matter, [0, 0, 0], 9.8)
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        kt.Force.Gravity(forces, matter, [0, 0, -1], -9.8)
    state = system.realize_topology()
    with pytest.raises(InvalidArgumentError, match="finite"):
        gravity.set_magnitude(state, float("nan"))
    with pytest.raises(InvalidArgumentError, match="no body 7"):
        gravity.set_body_is_excluded(state, 7, True)


def test_the_viewer_puts_up_against_gravity():
    from kinetree.viz.scene import up_direction

    system, gravity, one, two = two_free_bodies()                 # down is -z
    assert up_direction(system) == "+z"
