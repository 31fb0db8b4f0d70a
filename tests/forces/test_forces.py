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


def chain_with(add_force, kinds=("Gimbal", "Slider", "Pin", "Universal")):
    """A four-body chain on q̇ = u mobilizers (so ∂PE/∂q is minus the generalized force)
    with one force element added by ``add_force(forces, matter, bodies)``."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    com = [0.1, -0.3, 0.05]
    body = kt.Body.Rigid(kt.MassProperties(
        1.3, com, kt.Inertia(0.2, 0.15, 0.1).shift_from_mass_center(com, 1.3)))
    bodies = [matter.Ground()]
    for kind in kinds:
        bodies.append(getattr(kt.MobilizedBody, kind)(
            bodies[-1], kt.Transform(kt.Rotation.about_y(0.4), [0, -0.5, 0.1]), body,
            kt.Transform()))
    add_force(forces, matter, bodies)
    state = system.realize_topology()
    rng = np.random.default_rng(1)
    state.set_q(rng.uniform(-1, 1, state.get_num_q()))
    state.set_u(rng.uniform(-1, 1, state.get_num_u()))
    return system, matter, state


def generalized_force(system, matter, state):
    """f_mob + Jᵀ F of the realized forces: -(residual at u̇ = 0) minus velocity terms."""
    system.realize(state, kt.Stage.DYNAMICS)
    n = state.get_num_u()
    f = matter.upd_mobility_forces(state).copy()
    F = matter.upd_body_forces(state).copy()
    zero = np.zeros(n)
    return (-matter.calc_residual_force_ignoring_constraints(state, f, F, zero)
            + matter.calc_residual_force_ignoring_constraints(state, zero, 0 * F, zero))


CONSERVATIVE = {
    "UniformGravity": lambda fs, m, b: kt.Force.UniformGravity(fs, m, [0.5, -9.81, 0.3]),
    "TwoPointLinearSpring": lambda fs, m, b: kt.Force.TwoPointLinearSpring(
        fs, b[1], [0.1, 0.2, 0], b[4], [0, -0.1, 0.3], 40.0, 0.3),
    "TwoPointConstantForce": lambda fs, m, b: kt.Force.TwoPointConstantForce(
        fs, b[0], [0.2, 0, 0], b[3], [0, 0.1, 0], 7.0),
    "MobilityLinearSpring": lambda fs, m, b: kt.Force.MobilityLinearSpring(
        fs, b[1], 1, 12.0, 0.2),
    "LinearBushing": lambda fs, m, b: kt.Force.LinearBushing(
        fs, b[1], kt.Transform(kt.Rotation.about_z(0.3), [0.1, 0, 0.2]), b[4],
        kt.Transform(kt.Rotation.about_x(-0.2), [0, 0.1, 0]), [3, 4, 5, 30, 40, 50],
        [0] * 6),
}


@pytest.mark.parametrize("name", CONSERVATIVE)
def test_potential_energy_gradient_is_minus_generalized_force(name):
    system, matter, state = chain_with(CONSERVATIVE[name])
    f_gen = generalized_force(system, matter, state)
    q = state.get_q().copy()
    grad = np.zeros(q.size)
    for i in range(q.size):
        for sign in (1, -1):
            s = state.copy()
            dq = np.zeros(q.size)
            dq[i] = sign * 1e-6
            s.set_q(q + dq)
            system.realize(s, kt.Stage.DYNAMICS)
            grad[i] += sign * system.calc_potential_energy(s) / 2e-6
    np.testing.assert_allclose(grad, -f_gen, rtol=1e-6, atol=1e-6)
    assert np.abs(f_gen).max() > 0.1


def _distance(system, state, b1, s1, b2, s2):
    system.realize(state, kt.Stage.POSITION)
    return np.linalg.norm(b2.find_station_location_in_ground(state, s2)
                          - b1.find_station_location_in_ground(state, s1))


def test_two_point_damper_dissipates_c_ddot_squared():
    s1, s2, c = [0.1, 0.2, 0], [0, -0.1, 0.3], 3.0
    keep = {}

    def add(fs, m, b):
        keep["b"] = b
        kt.Force.TwoPointLinearDamper(fs, b[1], s1, b[4], s2, c)

    system, matter, state = chain_with(add)
    b = keep["b"]
    u = state.get_u().copy()
    power = u @ generalized_force(system, matter, state)
    q, h = state.get_q().copy(), 1e-6
    plus, minus = state.copy(), state.copy()
    plus.set_q(q + h * u)
    minus.set_q(q - h * u)
    d_dot = (_distance(system, plus, b[1], s1, b[4], s2)
             - _distance(system, minus, b[1], s1, b[4], s2)) / (2 * h)
    assert power == pytest.approx(-c * d_dot**2, rel=1e-6)


@pytest.mark.parametrize("kind", ["MobilityLinearDamper", "GlobalDamper"])
def test_mobility_dampers_dissipate(kind):
    def add(fs, m, b):
        if kind == "GlobalDamper":
            kt.Force.GlobalDamper(fs, m, 2.0)
        else:
            kt.Force.MobilityLinearDamper(fs, b[2], 0, 2.0)

    system, matter, state = chain_with(add)
    u = state.get_u()
    expected = 2.0 * (u @ u if kind == "GlobalDamper" else u[3] ** 2)
    assert u @ generalized_force(system, matter, state) == pytest.approx(-expected)


def test_constant_force_torque_and_mobility_force_do_the_expected_power():
    keep = {}
    F, T, s = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.1, -0.4]), [0.2, 0.1, 0]

    def add(fs, m, b):
        keep["b"] = b
        kt.Force.ConstantForce(fs, b[3], s, F)
        kt.Force.ConstantTorque(fs, b[2], T)
        kt.Force.MobilityConstantForce(fs, b[1], 2, 1.5)

    system, matter, state = chain_with(add)
    b = keep["b"]
    power = state.get_u() @ generalized_force(system, matter, state)
    expected = (F @ b[3].find_station_velocity_in_ground(state, s)
                + T @ b[2].get_body_angular_velocity(state) + 1.5 * b[1].get_u(state)[2])
    assert power == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("q, u, expected", [
    (0.3, 0.0, 0.0),                          # inside the limits
    (1.2, 0.0, -100 * 0.2),                   # past q_high, at rest
    (1.2, 2.0, -100 * 0.2 * (1 + 0.5 * 2)),   # pressing in: more resistance
    (1.2, -3.0, 0.0),                         # leaving fast: never pulls
    (-0.7, 1.0, 100 * 0.2 * (1 - 0.5 * 1)),   # past q_low, leaving
])
def test_mobility_linear_stop_force(q, u, expected):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.1)))
    slider = kt.MobilizedBody.Slider(matter.Ground(), body)
    kt.Force.MobilityLinearStop(forces, slider, 0, 100.0, 0.5, -0.5, 1.0)
    state = system.realize_topology()
    slider.set_one_q(state, 0, q)
    slider.set_one_u(state, 0, u)
    system.realize(state, kt.Stage.ACCELERATION)
    assert slider.get_one_u_dot(state, 0) * 2.0 == pytest.approx(expected)
    x = max(0.0, q - 1.0) + min(0.0, q + 0.5)
    assert system.calc_potential_energy(state) == pytest.approx(0.5 * 100 * x**2)


def test_linear_bushing_damping_dissipates_c_qdot_squared():
    """With stiffness 0, power = -Σ c q̇², q̇ from finite differences of the bushing's q."""
    keep = {}
    c = np.array([0.5, 0.7, 0.9, 5.0, 6.0, 7.0])

    def add(fs, m, b):
        keep["bushing"] = kt.Force.LinearBushing(
            fs, b[2], kt.Transform([0.1, 0.0, 0.0]), b[4], kt.Transform([0, 0.2, 0]),
            [0] * 6, c)

    system, matter, state = chain_with(add)
    bushing = keep["bushing"]
    u = state.get_u().copy()
    power = u @ generalized_force(system, matter, state)
    q, h = state.get_q().copy(), 1e-6

    def bushing_q(qq):
        s = state.copy()
        s.set_q(qq)
        system.realize(s, kt.Stage.POSITION)
        return bushing.get_q(s)

    qdot = (bushing_q(q + h * u) - bushing_q(q - h * u)) / (2 * h)
    assert power == pytest.approx(-c @ qdot**2, rel=1e-6)
