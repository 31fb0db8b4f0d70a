"""What an element is handed is checked, with errors that name it: a State of another
System (a body, a mobilizer's coordinates, a force element's parameters, a discrete
variable, a cache entry: reading or writing it would mix two models' numbers), q that are
not real numbers, an index that is not a whole number, gravity that is not 3 numbers."""

import pytest
from support import world

import kinetree as kt
from kinetree.errors import StateMismatchError


def model():
    system, matter, forces, body = world()
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    spring = kt.Force.MobilityLinearSpring(forces, pin, 0, 10.0, 0.0)
    state = system.realize_topology()
    return system, pin, spring, state


def test_an_element_refuses_a_state_of_another_system():
    a_system, a_pin, a_spring, a_state = model()
    b_system, b_pin, b_spring, b_state = model()
    b_system.realize(b_state, kt.Stage.ACCELERATION)
    a_system.realize(a_state, kt.Stage.ACCELERATION)
    for use in (lambda: b_pin.set_one_q(a_state, 0, 1.0),
                lambda: b_pin.get_one_q(a_state, 0),
                lambda: b_pin.get_body_transform(a_state),
                lambda: b_spring.set_stiffness(a_state, 5.0),
                lambda: b_system.get_matter_subsystem().get_q(a_state),
                lambda: b_system.get_matter_subsystem().calc_kinetic_energy(a_state)):
        with pytest.raises(StateMismatchError, match="belongs to"):
            use()
    assert a_pin.get_one_q(a_state, 0) == 0.0
    assert b_pin.get_one_q(b_state, 0) == 0.0           # its own State still works


@pytest.mark.parametrize("values", ["ab", {"q": 1.0}, [1 + 2j], None, [[1.0, 2.0]]])
def test_q_that_are_not_real_numbers_are_refused_by_name(values):
    system, pin, spring, state = model()
    with pytest.raises(kt.errors.InvalidArgumentError, match="State.set_q"):
        state.set_q(values)
    assert state.get_q()[0] == 0.0


def test_an_index_that_is_not_a_whole_number_is_refused_by_name():
    system, pin, spring, state = model()
    for which in (0.5, "0", True):
        with pytest.raises(kt.errors.InvalidArgumentError, match="a q index is a whole number"):
            pin.set_one_q(state, which, 1.0)


@pytest.mark.parametrize("gravity", ["down", [1 + 1j, 0, 0], None, [0, -9.81]])
def test_gravity_that_is_not_three_real_numbers_is_refused_by_name(gravity):
    system, matter, forces, body = world()
    with pytest.raises(kt.errors.InvalidArgumentError, match="UniformGravity: gravity"):
        kt.Force.UniformGravity(forces, matter, gravity)
