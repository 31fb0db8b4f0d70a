"""The realization plan (engine/plan.py): a model of built-in elements realizes in one
compiled call, stage by stage gives bit-identical results, user code runs where it
belongs, and every hook a user overrides is honored."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.system.system import System

MOBILIZERS = ("Pin", "Ball", "Gimbal", "Universal", "Free", "Slider", "Planar", "Bushing",
              "Cylinder", "Translation")


def model(n=10, euler=False, forces_class=kt.GeneralForceSubsystem,
          extra=None):
    """A chain of bricks on assorted mobilizers with gravity, a spring, dampers and a
    bushing, in a random state."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = forces_class(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(
        1.0, [0.05, -0.2, 0.0],
        kt.UnitInertia.brick(0.05, 0.2, 0.05).shift_from_centroid([0.05, -0.2, 0.0])))
    bodies = [matter.Ground()]
    for i in range(n):
        cls = getattr(kt.MobilizedBody, MOBILIZERS[i % len(MOBILIZERS)])
        bodies.append(cls(bodies[-1], kt.Transform(kt.Rotation.about_x(0.3 * i), [0, -0.4, 0]),
                          body, kt.Transform(kt.Rotation.about_z(0.2), [0, 0.1, 0.02])))
    kt.Force.TwoPointLinearSpring(forces, bodies[0], [0.3, 0, 0], bodies[-1], [0, 0.1, 0],
                                  20.0, 0.2)
    kt.Force.MobilityLinearDamper(forces, bodies[1], 0, 0.3)
    kt.Force.GlobalDamper(forces, matter, 0.01)
    if n >= 3:
        kt.Force.LinearBushing(forces, bodies[1], kt.Transform(), bodies[3], kt.Transform(),
                               [1, 2, 3, 40, 50, 60], [0.1] * 6)
    if extra is not None:
        extra(system, matter, forces, bodies)
    state = system.realize_topology()
    if euler:
        matter.set_use_euler_angles(state, True)
        system.realize_model(state)
    rng = np.random.default_rng(n)
    q = state.upd_q()
    q[:] += rng.uniform(-0.5, 0.5, q.size)
    state.upd_u()[:] = rng.uniform(-1, 1, state.get_num_u())
    return system, matter, forces, state


def results(system, matter, state):
    d = matter.get_tree_data(state, kt.Stage.MODEL, "test")
    return (state.get_q_dot().copy(), state.get_u_dot().copy(), state.get_q_dot_dot().copy(),
            d.body_forces.copy(), d.mobility_forces.copy(), system.calc_energy(state))


def assert_identical(a, b):
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("euler", [False, True])
def test_one_call_and_bit_identical_to_stage_by_stage_and_to_the_hooks(euler,
                                                                       compiled_calls):
    system, matter, forces, state = model(euler=euler)
    fused, staged, hooks = state.copy(), state.copy(), state.copy()
    system.realize(fused, kt.Stage.ACCELERATION)
    assert compiled_calls == [(5, 8)]
    for g in (kt.Stage.POSITION, kt.Stage.VELOCITY, kt.Stage.DYNAMICS, kt.Stage.ACCELERATION):
        system.realize(staged, g)
    assert compiled_calls[1:] == [(5, 5), (6, 6), (7, 7), (8, 8)]
    System.realize(system, hooks, kt.Stage.ACCELERATION)    # each subsystem's own hooks
    expected = results(system, matter, fused)
    assert_identical(results(system, matter, staged), expected)
    assert_identical(results(system, matter, hooks), expected)
    system.realize(fused, kt.Stage.REPORT)
    assert fused.get_system_stage() == kt.Stage.REPORT


def test_time_to_acceleration_after_setting_u_is_one_call_from_velocity(compiled_calls):
    system, matter, forces, state = model(4)
    system.realize(state, kt.Stage.ACCELERATION)
    state.upd_u()[:] *= 0.5
    system.realize(state, kt.Stage.ACCELERATION)
    assert compiled_calls == [(5, 8), (6, 8)]


class TorqueOnFirstBody(kt.Force.Custom.Implementation):
    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[0] += 0.5


def with_custom_force(system, matter, forces, bodies):
    kt.Force.Custom(forces, TorqueOnFirstBody())


def generalized_force_response(system, matter, state, f0):
    """u̇ change from adding f0 to the first mobility force."""
    e = np.zeros(state.get_num_u())
    e[0] = f0
    return matter.multiply_by_m_inv(state, e)


def test_custom_force_runs_between_two_compiled_calls(compiled_calls):
    system, matter, forces, state = model(4, extra=with_custom_force)
    without = state.copy()
    forces.get_force(forces.get_num_forces() - 1).disable(without)
    system.realize(state, kt.Stage.ACCELERATION)
    assert compiled_calls == [(5, 7), (8, 8)]
    system.realize(without, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot() - without.get_u_dot(),
                               generalized_force_response(system, matter, state, 0.5),
                               atol=1e-12)


class ForcesWithAnExtraTorque(kt.GeneralForceSubsystem):
    """A user's GeneralForceSubsystem subclass whose DYNAMICS adds a torque."""

    def realize_dynamics(self, state):
        super().realize_dynamics(state)
        self.get_system().get_matter_subsystem().upd_mobility_forces(state)[0] += 5.0


class ExtraTorqueSubsystem(kt.ForceSubsystem):
    """A custom force subsystem adding a torque in DYNAMICS."""

    def realize_dynamics(self, state):
        self.get_system().get_matter_subsystem().upd_mobility_forces(state)[0] += 5.0


def second_force_subsystem(system, matter, forces, bodies):
    kt.Force.MobilityConstantForce(kt.GeneralForceSubsystem(system), bodies[1], 0, 5.0)


@pytest.mark.parametrize("options", [
    {"forces_class": ForcesWithAnExtraTorque},
    {"extra": lambda system, *_: ExtraTorqueSubsystem(system)},
    {"extra": second_force_subsystem}],
    ids=["subclass overriding a hook", "custom force subsystem", "second force subsystem"])
def test_user_code_adding_a_force_is_honored(options):
    """Each adds 5 N m to the first mobility: u̇ changes by exactly M⁻¹ of that."""
    plain = model(4)
    system, matter, forces, state = model(4, **options)
    plain[0].realize(plain[3], kt.Stage.ACCELERATION)
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot() - plain[3].get_u_dot(),
                               generalized_force_response(system, matter, state, 5.0),
                               atol=1e-12)


class LoggingMatter(kt.SimbodyMatterSubsystem):
    """A matter subclass overriding a hook: the whole System is realized by hooks."""

    seen = []

    def realize_velocity(self, state):
        super().realize_velocity(state)
        self.seen.append(self.get_mobilized_body(1).get_body_origin_location(state).copy())


def test_a_matter_subclass_overriding_a_hook_is_honored(compiled_calls):
    system, matter, forces, state = model(4)
    system.realize(state, kt.Stage.ACCELERATION)
    other = kt.MultibodySystem()
    matter2 = LoggingMatter(other)
    forces2 = kt.GeneralForceSubsystem(other)
    kt.Force.UniformGravity(forces2, matter2, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, -0.2, 0], kt.Inertia(0.1)))
    pin = kt.MobilizedBody.Pin(matter2.Ground(), kt.Transform(), body, kt.Transform())
    s2 = other.realize_topology()
    pin.set_one_q(s2, 0, 0.3)
    other.realize(s2, kt.Stage.ACCELERATION)
    assert len(LoggingMatter.seen) == 1
    assert compiled_calls == [(5, 8)]       # the first model's; the second used the hooks
    # A pendulum of mass 1 kg, mass center 0.2 m out, inertia 0.1 kg m² about the pin.
    assert s2.get_u_dot()[0] == pytest.approx(-9.81 * 0.2 * np.sin(0.3) / 0.1, rel=1e-12)


def test_a_copied_state_realizes_its_own_variables():
    """A plan's arguments are views of one State's arrays; a copy must not reuse them."""
    system, matter, forces, state = model(4)
    system.realize(state, kt.Stage.ACCELERATION)
    udot = state.get_u_dot().copy()
    other = state.copy()
    other.upd_q()[:] += 0.4
    system.realize(other, kt.Stage.ACCELERATION)
    staged = other.copy()
    staged.upd_u()[:] = other.get_u()
    System.realize(system, staged, kt.Stage.ACCELERATION)
    assert np.array_equal(other.get_u_dot(), staged.get_u_dot())
    assert not np.allclose(other.get_u_dot(), udot)
    assert np.array_equal(state.get_u_dot(), udot)


def test_per_state_parameters_need_no_new_system():
    """MobilityLinearSpring.set_stiffness changes one State: it backs up to VELOCITY and
    u̇ changes by exactly M⁻¹ of the change of force; other States keep theirs."""
    keep = {}

    def spring(system, matter, forces, bodies):
        keep["spring"] = kt.Force.MobilityLinearSpring(forces, bodies[1], 0, 10.0, 0.1)

    system, matter, forces, state = model(4, extra=spring)
    s = keep["spring"]
    other = state.copy()
    system.realize(state, kt.Stage.ACCELERATION)
    udot = state.get_u_dot().copy()
    s.set_stiffness(state, 30.0).set_q_zero(state, -0.2)
    assert state.get_system_stage() == kt.Stage.VELOCITY
    assert (s.get_stiffness(state), s.get_q_zero(state)) == (30.0, -0.2)
    assert (s.get_stiffness(other), s.get_default_stiffness()) == (10.0, 10.0)
    system.realize(state, kt.Stage.ACCELERATION)
    q = matter.get_mobilized_body(1).get_one_q(state, 0)
    change = -30.0 * (q + 0.2) + 10.0 * (q - 0.1)
    np.testing.assert_allclose(state.get_u_dot() - udot,
                               generalized_force_response(system, matter, state, change),
                               atol=1e-12)
    system.realize(other, kt.Stage.ACCELERATION)
    assert np.array_equal(other.get_u_dot(), udot)
