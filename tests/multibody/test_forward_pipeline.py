"""The one-call forward pipeline (kernels/forward.py) stands in for the staged hooks only
where it gives the same numbers: bit for bit on gravity-only trees, and not at all when a
constraint, another force element or another subsystem is present."""

import numpy as np
import pytest
from test_matter import chain

import kinetree as kt
from kinetree.system.system import System

MOBILIZERS = ("Pin", "Ball", "Gimbal", "Universal", "Free", "Slider", "Planar", "Bushing",
              "Cylinder", "Translation")


def staged_and_fused(system, matter, state):
    """(fused State, staged State, whether the fused path ran) from the same q and u."""
    calls = []
    original = matter._forward_call

    def spy(st, gravity):
        forward = original(st, gravity)

        def counted():
            calls.append(gravity)
            forward()

        return counted

    matter._forward_call = spy
    try:
        fused, staged = state.copy(), state.copy()
        system.realize(fused, kt.Stage.ACCELERATION)
        System.realize(system, staged, kt.Stage.ACCELERATION)   # the stage-by-stage hooks
    finally:
        del matter._forward_call
    return fused, staged, bool(calls)


def assert_same(system, matter, fused, staged):
    assert fused.get_system_stage() == staged.get_system_stage() == kt.Stage.ACCELERATION
    for name in ("get_q_dot", "get_u_dot", "get_q_dot_dot"):
        assert np.array_equal(getattr(fused, name)(), getattr(staged, name)()), name
    d_f = matter._tree_data(fused, kt.Stage.MODEL, "test")
    d_s = matter._tree_data(staged, kt.Stage.MODEL, "test")
    assert np.array_equal(d_f.body_forces, d_s.body_forces)
    assert system.calc_energy(fused) == system.calc_energy(staged)


@pytest.mark.parametrize("euler", [False, True])
def test_fused_equals_staged_bit_for_bit(euler):
    system, matter, state = chain(len(MOBILIZERS), euler, MOBILIZERS)
    fused, staged, ran = staged_and_fused(system, matter, state)
    assert ran
    assert_same(system, matter, fused, staged)
    # Later stages and a second realization build on it as usual.
    system.realize(fused, kt.Stage.REPORT)
    assert fused.get_system_stage() == kt.Stage.REPORT


def test_no_forces_at_all_is_fused_too():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1, [0.1, 0, 0], kt.Inertia(0.1, 0.2, 0.3)))
    kt.MobilizedBody.Free(matter.Ground(), body).set_default_u([1, 2, 3, 0, 0, 0])
    state = system.realize_topology()
    fused, staged, ran = staged_and_fused(system, matter, state)
    assert ran
    assert_same(system, matter, fused, staged)


def with_spring(system, matter, forces):
    kt.Force.MobilityLinearSpring(forces, matter.get_mobilized_body(1), 0, 10.0, 0.1)


def with_constraint(system, matter, forces):
    kt.Constraint.Rod(matter.get_mobilized_body(1), [0, 0, 0],
                      matter.get_mobilized_body(3), [0, 0, 0], 0.5)


def with_second_gravity(system, matter, forces):
    kt.Force.UniformGravity(forces, matter, [1.0, 0, 0])


def with_tracker(system, matter, forces):
    kt.ContactTrackerSubsystem(system)


@pytest.mark.parametrize("extra", [with_spring, with_constraint, with_second_gravity,
                                   with_tracker])
def test_anything_else_takes_the_staged_path(extra):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1, [0, -0.2, 0], kt.Inertia(0.1)))
    parent = matter.Ground()
    for _ in range(3):
        parent = kt.MobilizedBody.Pin(parent, kt.Transform([0, -0.4, 0]), body, kt.Transform())
    extra(system, matter, forces)
    state = system.realize_topology()
    state.upd_q()[:] = 0.3
    _, _, ran = staged_and_fused(system, matter, state)
    assert not ran


def test_disabling_the_other_element_enables_the_fused_path():
    system, matter, state = chain(3)
    forces = next(ss for ss in system._subsystems if isinstance(ss, kt.GeneralForceSubsystem))
    spring = kt.Force.MobilityLinearSpring(forces, matter.get_mobilized_body(1), 0, 10.0, 0.1)
    state = system.realize_topology()
    state.upd_q()[:] = 0.2
    assert not staged_and_fused(system, matter, state)[2]
    spring.disable(state)
    fused, staged, ran = staged_and_fused(system, matter, state)
    assert ran
    assert_same(system, matter, fused, staged)


def test_a_copied_state_realizes_its_own_variables():
    """The pipeline's arguments are views of one State's arrays; a copy must not reuse
    them (State.copy drops the bound call)."""
    system, matter, state = chain(4, kinds=("Pin",))
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
    state.upd_u()[:] = 0.0
    system.realize(state, kt.Stage.ACCELERATION)
    assert np.array_equal(other.get_u_dot(), staged.get_u_dot())
